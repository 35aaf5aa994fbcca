/* Unit tests: db/schema — the migrations build exactly db/schema.sql. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "db_internal.h"

static char *read_schema_file(void)
{
    const char *src = getenv("WARREN_SRC");
    char path[512];
    snprintf(path, sizeof path, "%s/db/schema.sql", src ? src : ".");
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (run from the source root or set WARREN_SRC)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* "type name tbl sql" lines in name order, whitespace collapsed. */
static char *describe(sqlite3 *h)
{
    sqlite3_stmt *st;
    ck_assert_int_eq(
        sqlite3_prepare_v2(h,
                           "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master "
                           "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
                           -1, &st, NULL),
        SQLITE_OK);
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char line[4096];
        snprintf(line, sizeof line, "%s %s %s %s\n", sqlite3_column_text(st, 0),
                 sqlite3_column_text(st, 1), sqlite3_column_text(st, 2),
                 sqlite3_column_text(st, 3));
        /* one line per object: newlines inside the SQL count as spaces (a
         * column added by ALTER TABLE shares the line of the one before) */
        for (char *p = line; *p && len + 2 < cap; p++) {
            char c = isspace((unsigned char)*p) && p[1] ? ' ' : *p;
            if (c == ' ' && len && (out[len - 1] == ' ' || out[len - 1] == '('))
                continue;
            if ((c == ')' || c == ',') && len && out[len - 1] == ' ')
                len--;
            out[len++] = c;
        }
    }
    sqlite3_finalize(st);
    return out;
}

START_TEST(migrations_match_schema_sql)
{
    sqlite3 *a, *b;
    ck_assert_int_eq(sqlite3_open(":memory:", &a), SQLITE_OK);
    ck_assert_int_eq(sqlite3_open(":memory:", &b), SQLITE_OK);
    int v = 0;
    char err[256] = "";
    ck_assert_msg(db_migrate(a, &v, err, sizeof err) == DB_OK, "%s", err);
    ck_assert_int_eq(v, db_migration_count());
    char *sql = read_schema_file();
    char *msg = NULL;
    ck_assert_msg(sqlite3_exec(b, sql, NULL, NULL, &msg) == SQLITE_OK, "schema.sql: %s", msg);
    char *da = describe(a), *dbb = describe(b);
    ck_assert_str_eq(da, dbb);
    ck_assert(strstr(da, "table journal journal") != NULL);
    /* Running the migrations again is a no-op. */
    ck_assert_int_eq(db_migrate(a, &v, err, sizeof err), DB_OK);
    char *da2 = describe(a);
    ck_assert_str_eq(da, da2);
    free(da);
    free(da2);
    free(dbb);
    free(sql);
    sqlite3_close(a);
    sqlite3_close(b);
}
END_TEST

START_TEST(migration_list_is_sane)
{
    ck_assert_int_ge(db_migration_count(), 1);
    ck_assert_ptr_null(db_migration_sql(0));
    ck_assert_ptr_null(db_migration_sql(db_migration_count() + 1));
    for (int i = 1; i <= db_migration_count(); i++)
        ck_assert(sqlite3_complete(db_migration_sql(i)));
}
END_TEST

/* The plan's lines of sql ("detail" column), one per line. */
static void query_plan(sqlite3 *h, const char *sql, char *out, size_t n)
{
    char eqp[4096];
    snprintf(eqp, sizeof eqp, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *st;
    ck_assert_msg(sqlite3_prepare_v2(h, eqp, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
    size_t len = 0;
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW && len < n)
        len += (size_t)snprintf(out + len, n - len, "%s\n", sqlite3_column_text(st, 3));
    sqlite3_finalize(st);
}

/* The lobby's feed reads the newest ends through an index (migration 12):
 * neither Warren's games nor hosted scores are scanned whole and sorted. */
START_TEST(feed_query_uses_its_indexes)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    int v = 0;
    char err[256] = "", plan[4096];
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    query_plan(h, DB_FEED_SQL, plan, sizeof plan);
    ck_assert_msg(strstr(plan, "SCAN g USING INDEX games_by_end"), "%s", plan);
    ck_assert_msg(strstr(plan, "SCAN games USING INDEX games_by_end"), "%s", plan);
    ck_assert_msg(strstr(plan, "SCAN s USING INDEX hosted_scores_by_end"), "%s", plan);
    ck_assert_msg(!strstr(plan, "SCAN g\n") && !strstr(plan, "SCAN s\n"), "%s", plan);
    /* one sort only: the merge of the three, not each part's */
    const char *sort = strstr(plan, "USE TEMP B-TREE");
    ck_assert_msg(sort && !strstr(sort + 1, "USE TEMP B-TREE"), "%s", plan);
    sqlite3_close(h);
}
END_TEST

/* games-per-hour's count of an account's hosted ends in the hour reads
 * that account's newest ends in migration 20's index, no more, unsorted. */
START_TEST(hosted_ends_query_uses_its_index)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    int v = 0;
    char err[256] = "", plan[4096];
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    query_plan(h, DB_HOSTED_ENDS_SQL, plan, sizeof plan);
    ck_assert_msg(strstr(plan, "SEARCH hosted_scores USING COVERING INDEX "
                               "hosted_scores_by_user_end (user=? AND end_time>?)"),
                  "%s", plan);
    ck_assert_msg(!strstr(plan, "USE TEMP B-TREE"), "%s", plan);
    sqlite3_close(h);
}
END_TEST

/* The score pages' statements (every row named SCORES_*): a race, class
 * or period filter reads an index range (SEARCH), never the whole games
 * table nor the whole of games_by_score with each row tested; only the
 * unfiltered page walks games_by_score, stopping at its limit. */
START_TEST(score_filters_read_index_ranges)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    int v = 0, seen = 0;
    char err[256] = "", plan[4096];
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    for (int i = 0; i < DB_STMT_COUNT; i++) {
        const db_stmt_def_t *d = &db_stmt_defs[i];
        if (strncmp(d->name, "SCORES_", 7) != 0)
            continue;
        seen++;
        query_plan(h, d->sql, plan, sizeof plan);
        ck_assert_msg(!strstr(plan, "SCAN g\n"), "%s: %s", d->name, plan);
        if (strcmp(d->name, "SCORES_TOP") == 0) {
            ck_assert_msg(strstr(plan, "SCAN g USING INDEX games_by_score\n"), "%s", plan);
            ck_assert_msg(!strstr(plan, "TEMP B-TREE"), "%s", plan);
            continue;
        }
        ck_assert_msg(strstr(plan, "SEARCH g USING "), "%s: %s", d->name, plan);
        if (strcmp(d->name, "SCORES_SINCE") == 0) {
            /* a period: its games_by_end range, counted (at most
             * DB_SCORES_FEW) to pick the range sorted or the score walk */
            ck_assert_msg(strstr(plan, "SEARCH g USING INDEX games_by_end (end_time>?)\n"), "%s",
                          plan);
            ck_assert_msg(strstr(plan, "SEARCH games USING INDEX games_by_end (end_time>?)\n"),
                          "%s", plan);
            continue;
        }
        /* a race or class filter is read in the pages' order: no sort */
        ck_assert_msg(!strstr(plan, "SCAN g USING") && !strstr(plan, "TEMP B-TREE"), "%s: %s",
                      d->name, plan);
    }
    ck_assert_int_ge(seen, 1);
    sqlite3_close(h);
}
END_TEST

static void exec_ok(sqlite3 *h, const char *sql)
{
    char *msg = NULL;
    ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg);
}

static int64_t one_int(sqlite3 *h, const char *sql)
{
    sqlite3_stmt *st;
    ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Migration 14 over leases of schema 13: each node's row in nodes keeps
 * the latest expiry of its leases (so their holders hold them still), the
 * leases keep their node and lose their own expiry. */
START_TEST(migration_14_moves_each_nodes_expiry_to_its_row)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    for (int i = 1; i <= 13; i++)
        exec_ok(h, db_migration_sql(i));
    exec_ok(h, "PRAGMA user_version = 13;"
               "INSERT INTO users(id, name, name_key, pwhash, created) VALUES "
               "(1, 'a', 'a', 'x', 0), (2, 'b', 'b', 'x', 0), (3, 'c', 'c', 'x', 0);"
               "INSERT INTO games(id, user, seed, content_version, start_time) VALUES "
               "(1, 1, 1, 'x', 0), (2, 2, 1, 'x', 0), (3, 3, 1, 'x', 0);"
               "INSERT INTO leases(game, node, expires) VALUES "
               "(1, 'node-a', 5000), (2, 'node-a', 7000), (3, 'node-b', 100);");
    int v = 0;
    char err[256] = "";
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    ck_assert_int_ge(v, 14);
    ck_assert_int_eq(one_int(h, "SELECT expires FROM nodes WHERE node = 'node-a'"), 7000);
    ck_assert_int_eq(one_int(h, "SELECT expires FROM nodes WHERE node = 'node-b'"), 100);
    ck_assert_int_eq(one_int(h, "SELECT count(*) FROM nodes"), 2);
    ck_assert_int_eq(one_int(h, "SELECT count(*) FROM leases WHERE node = 'node-a'"), 2);
    ck_assert_int_eq(one_int(h, "SELECT count(*) FROM pragma_table_info('leases') "
                                "WHERE name = 'expires'"),
                     0);
    sqlite3_close(h);
}
END_TEST

/* The lapsed check reads the nodes first (a row each) and then only the
 * leases of the lapsed ones, by leases_by_node: never every lease. */
START_TEST(lapsed_check_reads_the_nodes_first)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    int v = 0;
    char err[256] = "", plan[4096];
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    query_plan(h, db_stmt_defs[DB_STMT_GAMES_LEASE_LAPSED].sql, plan, sizeof plan);
    ck_assert_msg(strstr(plan, "SCAN nodes\n"), "%s", plan);
    ck_assert_msg(strstr(plan, "SEARCH leases USING COVERING INDEX leases_by_node (node=?)"), "%s",
                  plan);
    ck_assert_msg(!strstr(plan, "SCAN leases"), "%s", plan);
    sqlite3_close(h);
}
END_TEST

/* A journal append (a row every key) copies no row through a temporary
 * b-tree: SQLite makes one for an INSERT whose SELECT reads the table it
 * inserts into, so the row before is looked up by its own statement, by
 * the primary key. */
START_TEST(journal_append_needs_no_temp_table)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    int v = 0;
    char err[256] = "", sql[1024], plan[4096];
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    const int ids[] = {DB_STMT_JOURNAL_INSERT, DB_STMT_JOURNAL_INSERT_LEASED};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        snprintf(sql, sizeof sql, "EXPLAIN %s", db_stmt_defs[ids[i]].sql);
        sqlite3_stmt *st;
        ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s",
                      sqlite3_errmsg(h));
        while (sqlite3_step(st) == SQLITE_ROW)
            ck_assert_msg(strcmp((const char *)sqlite3_column_text(st, 1), "OpenEphemeral") != 0,
                          "%s", db_stmt_defs[ids[i]].sql);
        sqlite3_finalize(st);
    }
    query_plan(h, db_stmt_defs[DB_STMT_JOURNAL_PREV].sql, plan, sizeof plan);
    ck_assert_msg(strstr(plan, "SEARCH journal USING PRIMARY KEY (game=? AND seq=?)"), "%s", plan);
    sqlite3_close(h);
}
END_TEST

Suite *suite_db_schema(void)
{
    Suite *s = suite_create("db_schema");
    TCase *tc = tcase_create("schema");
    tcase_add_test(tc, migrations_match_schema_sql);
    tcase_add_test(tc, migration_list_is_sane);
    tcase_add_test(tc, feed_query_uses_its_indexes);
    tcase_add_test(tc, hosted_ends_query_uses_its_index);
    tcase_add_test(tc, score_filters_read_index_ranges);
    tcase_add_test(tc, migration_14_moves_each_nodes_expiry_to_its_row);
    tcase_add_test(tc, lapsed_check_reads_the_nodes_first);
    tcase_add_test(tc, journal_append_needs_no_temp_table);
    suite_add_tcase(s, tc);
    return s;
}
