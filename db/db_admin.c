/* db_admin — reads for the admin tools: the list of accounts, the
 * database's health and its full check. The health check is a list of
 * pragmas and counts run by one custom step, prepared per call (it is
 * rare). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "db_internal.h"

/* ---- users ------------------------------------------------------------------- */

static int read_user_info(const db_cur_t *st, void *row)
{
    db_user_info_t *u = row;
    u->id = db_col_int(st, 0);
    db_col_copy(st, 1, u->name, sizeof u->name);
    u->created = db_col_int(st, 2);
    u->locked = db_col_int(st, 3) != 0;
    u->games = db_col_int(st, 4);
    u->live_game = db_col_int(st, 5);
    db_col_copy(st, 6, u->game_name, sizeof u->game_name);
    return DB_OK;
}

const db_row_t db_row_user_info = {sizeof(db_user_info_t), 7, read_user_info, NULL};

void db_users_list(db_t *db, db_users_cb cb, void *ud)
{
    db_queue(db, DB_ON(users, cb, ud), 0, DB_STMT_USERS_LIST, DB_NOARGS);
}

void db_deliver_users(const db_op_t *op)
{
    op->cb.fn.users(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

/* ---- health ------------------------------------------------------------------ */

/* One integer from a one-row query; -1 if it fails. */
static int64_t query_int(sqlite3 *h, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* A check pragma's messages joined by sep into out (what fits); how many
 * there were, or -1 when it failed. */
static int integrity(sqlite3 *h, const char *pragma, const char *sep, char *out, size_t n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, pragma, -1, &st, NULL) != SQLITE_OK)
        return -1;
    size_t len = 0;
    int ret, rows = 0;
    out[0] = '\0';
    while ((ret = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        rows++;
        if (len + 1 < n)
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? sep : "",
                                    t ? (const char *)t : "");
        if (len >= n)
            len = n - 1;
    }
    sqlite3_finalize(st);
    return ret == SQLITE_DONE ? rows : -1;
}

/* The figures of health, in SQLite's words and, where they differ,
 * PostgreSQL's (its pages are its blocks; it keeps no free list or WAL
 * of the database's own). */
#define PG_BLOCK "current_setting('block_size')::bigint"
static const struct {
    size_t off;
    const char *sql, *pg_sql;
} COUNTS[] = {
    {offsetof(db_health_t, page_size), "PRAGMA page_size", "SELECT " PG_BLOCK},
    {offsetof(db_health_t, page_count), "PRAGMA page_count",
     "SELECT pg_database_size(current_database()) / " PG_BLOCK},
    {offsetof(db_health_t, freelist_pages), "PRAGMA freelist_count", "SELECT 0"},
    {offsetof(db_health_t, users), "SELECT count(*) FROM users", NULL},
    {offsetof(db_health_t, locked_users), "SELECT count(*) FROM users WHERE locked <> 0", NULL},
    {offsetof(db_health_t, games_live), "SELECT count(*) FROM games WHERE state = 'live'", NULL},
    {offsetof(db_health_t, games_finished), "SELECT count(*) FROM games WHERE state = 'finished'",
     NULL},
    {offsetof(db_health_t, games_broken), "SELECT count(*) FROM games WHERE state = 'broken'",
     NULL},
    {offsetof(db_health_t, journal_rows), "SELECT count(*) FROM journal", NULL},
    {offsetof(db_health_t, journal_bytes), "SELECT coalesce(sum(length(keys)), 0) FROM journal",
     NULL},
    {offsetof(db_health_t, journal_aside), "SELECT count(*) FROM journal_aside", NULL},
    {offsetof(db_health_t, snapshots), "SELECT count(*) FROM snapshots", NULL},
    {offsetof(db_health_t, snapshot_bytes), "SELECT coalesce(sum(length(blob)), 0) FROM snapshots",
     NULL},
};

static const db_row_t health_row = {sizeof(db_health_t), 0, NULL, NULL};

/* PostgreSQL's health: the same counts; its storage is the server's to
 * check (amcheck, data checksums), so the integrity line says so. */
static int run_health_pg(db_conn_t *c, db_op_t *op, db_health_t *h)
{
    int64_t v;
    snprintf(h->integrity, sizeof h->integrity, "not checked here (PostgreSQL checks its own)");
    for (size_t i = 0; i < sizeof COUNTS / sizeof COUNTS[0]; i++) {
        const char *sql = COUNTS[i].pg_sql ? COUNTS[i].pg_sql : COUNTS[i].sql;
        if (db_pg_query_int(c, sql, &v) != DB_OK)
            return db_op_fail_msg(op, DB_ERR, c->err);
        memcpy((char *)h + COUNTS[i].off, &v, sizeof v);
    }
    if (db_pg_query_int(c, "SELECT max(version) FROM schema_version", &v) != DB_OK)
        return db_op_fail_msg(op, DB_ERR, c->err);
    h->schema_version = (int)v;
    return DB_OK;
}

static int run_health(db_conn_t *c, db_op_t *op)
{
    db_health_t *h = db_op_add_row(op, 0, &health_row);
    if (!h)
        return db_op_fail_msg(op, DB_ENOMEM, "out of memory");
    if (!c->h)
        return run_health_pg(c, op, h);
    if (integrity(c->h, "PRAGMA quick_check(5)", "; ", h->integrity, sizeof h->integrity) < 0)
        return db_op_fail(op, c, DB_ERR);
    for (size_t i = 0; i < sizeof COUNTS / sizeof COUNTS[0]; i++) {
        int64_t v = query_int(c->h, COUNTS[i].sql);
        if (v < 0)
            return db_op_fail(op, c, DB_ERR);
        memcpy((char *)h + COUNTS[i].off, &v, sizeof v);
    }
    h->schema_version = (int)query_int(c->h, "PRAGMA user_version");
    const char *file = sqlite3_db_filename(c->h, "main");
    char wal[1100];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", file ? file : "");
    if (file && file[0] && stat(wal, &sb) == 0)
        h->wal_bytes = (int64_t)sb.st_size;
    return DB_OK;
}

void db_health(db_t *db, db_health_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(health, cb, ud), 0);
    if (op)
        op->run = run_health;
    db_submit(db, op);
}

void db_deliver_health(const db_op_t *op)
{
    op->cb.fn.health(op->cb.ud, op->status, db_op_first(op, 0));
}

/* ---- the full check --------------------------------------------------------------- */

static const db_row_t check_row = {sizeof(db_check_t), 0, NULL, NULL};

static int run_check(db_conn_t *c, db_op_t *op)
{
    if (!c->h)
        return db_op_fail_msg(op, DB_ERR,
                              "check-db reads SQLite files: PostgreSQL checks its own storage "
                              "(amcheck, data checksums)");
    db_check_t *r = db_op_add_row(op, 0, &check_row);
    if (!r)
        return db_op_fail_msg(op, DB_ENOMEM, "out of memory");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA integrity_check(%d)", DB_CHECK_PROBLEMS);
    int n = integrity(c->h, sql, "\n", r->text, sizeof r->text);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->ms = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    int code = sqlite3_errcode(c->h) & 0xff;
    if (n < 0 && (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)) {
        /* the check itself fell over the damage: that is its finding */
        snprintf(r->text, sizeof r->text, "%s", sqlite3_errmsg(c->h));
        r->problems = 1;
        return DB_OK;
    }
    if (n < 0)
        return db_op_fail(op, c, DB_ERR);
    r->problems = strcmp(r->text, "ok") == 0 ? 0 : n;
    return DB_OK;
}

void db_check(db_t *db, db_check_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(check, cb, ud), 0);
    if (op)
        op->run = run_check;
    db_submit(db, op);
}

void db_deliver_check(const db_op_t *op)
{
    op->cb.fn.check(op->cb.ud, op->status, db_op_first(op, 0));
}
