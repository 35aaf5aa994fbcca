/* Unit tests: db/db_query — the statement table agrees with its SQL, typed
 * arguments are checked against the signatures, and every callback comes
 * exactly once, later, even when memory runs out or the db is closing.
 * Real SQLite files and a real libuv loop. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include <uv.h>
#include "db.h"
#include "db_internal.h"
#include "db_fixture.h"

/* A callback's record: how often it came, with what, and whether it came
 * inside the call that queued it (*queuing names the call under way). */
typedef struct {
    int calls, status;
    int64_t id;
    bool got_result;
    int idx;
    const int *queuing;
    bool inside;
} rec_t;

static void note(rec_t *r, int status)
{
    r->calls++;
    r->status = status;
    if (r->queuing && *r->queuing == r->idx)
        r->inside = true;
}

static void on_done(void *ud, int status, int64_t id)
{
    note(ud, status);
    ((rec_t *)ud)->id = id;
}

static void on_user(void *ud, int status, const db_user_t *u)
{
    note(ud, status);
    ((rec_t *)ud)->got_result = u != NULL;
}

static void on_journal(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    note(ud, status);
    ((rec_t *)ud)->got_result = rows != NULL || n != 0;
}

static int64_t make_game(fx_t *f)
{
    rec_t u = {0}, g = {0};
    db_user_create(f->db, "ann", "ann", "$h", 1, on_done, &u);
    db_game_new_t ng = {.user = 1, .seed = 9, .content_version = "c1", .start_time = 1};
    int64_t id = db_game_create(f->db, &ng, on_done, &g);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(u.status, DB_OK);
    ck_assert_int_eq(g.status, DB_OK);
    return id;
}

/* ---- the statement table ---- */

START_TEST(every_statement_matches_its_row)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    int v = 0;
    char err[256] = "";
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    for (int i = 0; i < DB_STMT_COUNT; i++) {
        const db_stmt_def_t *d = &db_stmt_defs[i];
        ck_assert_msg(db_stmt_verify(h, d, err, sizeof err) == DB_OK, "%s", err);
        ck_assert_uint_eq(strlen(d->sig), d->nparams);
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(db_stmt_defs[j].name, d->name);
    }
    ck_assert_str_eq(db_stmt_defs[DB_STMT_JOURNAL_INSERT].name, "JOURNAL_INSERT");
    sqlite3_close(h);
}
END_TEST

static void expect_rejected(sqlite3 *h, db_stmt_def_t d, const char *want)
{
    char err[256] = "";
    d.nparams = strlen(d.sig);
    ck_assert_int_eq(db_stmt_verify(h, &d, err, sizeof err), DB_ERR);
    ck_assert_msg(strstr(err, d.name) && strstr(err, want), "'%s' lacks '%s'", err, want);
}

START_TEST(mismatched_rows_fail_loudly)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    int v = 0;
    char err[256] = "";
    ck_assert_int_eq(db_migrate(h, &v, err, sizeof err), DB_OK);
    const db_stmt_def_t *ins = &db_stmt_defs[DB_STMT_JOURNAL_INSERT];
    const db_stmt_def_t *sel = &db_stmt_defs[DB_STMT_JOURNAL_AFTER];
    /* one parameter too few, one too many, a letter that is no type */
    expect_rejected(h, (db_stmt_def_t){"SHORT", "iib", 0, DB_OUT_RUN, &db_row_none, ins->sql},
                    "has 3 parameters, its SQL 4");
    expect_rejected(h, (db_stmt_def_t){"LONG", "iiibi", 0, DB_OUT_RUN, &db_row_none, ins->sql},
                    "has 5 parameters");
    expect_rejected(h, (db_stmt_def_t){"LETTER", "iixi", 0, DB_OUT_RUN, &db_row_none, ins->sql},
                    "bad signature");
    /* a reader of the wrong width; rows from a statement said to return none */
    expect_rejected(h, (db_stmt_def_t){"WIDTH", "ii", 0, DB_OUT_ROWS, &db_row_game, sel->sql},
                    "gives 3 columns, its reader takes 20");
    expect_rejected(h, (db_stmt_def_t){"NOREADER", "ii", 0, DB_OUT_RUN, &db_row_none, sel->sql},
                    "columns");
    /* a write said to return rows */
    expect_rejected(h, (db_stmt_def_t){"WRITE", "iibi", 0, DB_OUT_ROWS, &db_row_journal, ins->sql},
                    "columns");
    expect_rejected(h, (db_stmt_def_t){"BADSQL", "", 0, DB_OUT_RUN, &db_row_none, "SELEC 1"},
                    "syntax");
    sqlite3_close(h);
}
END_TEST

/* ---- typed arguments ---- */

START_TEST(arguments_checked_against_signature)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f);
    int queuing = 0;
    rec_t type = {.idx = 1, .queuing = &queuing}, count = {.idx = 2, .queuing = &queuing},
          ok = {.idx = 3, .queuing = &queuing};
    queuing = 1; /* text where the signature says integer */
    db_queue(f.db, DB_ON(done, on_done, &type), 0, DB_STMT_JOURNAL_INSERT,
             DB_ARGS(DB_TEXT("1"), DB_INT(1), DB_BLOB("k", 1), DB_INT(0)));
    queuing = 2; /* three arguments for four parameters */
    db_queue(f.db, DB_ON(done, on_done, &count), 0, DB_STMT_JOURNAL_INSERT,
             DB_ARGS(DB_INT(g), DB_INT(1), DB_BLOB("k", 1)));
    ck_assert_str_eq(db_error(f.db), ""); /* nothing reported inside the call */
    queuing = 3;
    db_queue(f.db, DB_ON(done, on_done, &ok), 7, DB_STMT_JOURNAL_INSERT,
             DB_ARGS(DB_INT(g), DB_INT(1), DB_BLOB("k", 1), DB_INT(0)));
    queuing = 0;
    ck_assert_int_eq(type.calls + count.calls + ok.calls, 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(type.calls, 1);
    ck_assert_int_eq(type.status, DB_EINVAL);
    ck_assert_int_eq(count.calls, 1);
    ck_assert_int_eq(count.status, DB_EINVAL);
    ck_assert_int_eq(ok.calls, 1);
    ck_assert_int_eq(ok.status, DB_OK);
    ck_assert_int_eq(ok.id, 7);
    ck_assert(!type.inside && !count.inside && !ok.inside);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), 1);
    /* text over its limit, and the message of a mismatch */
    rec_t longer = {0}, mismatch = {0};
    db_user_set_options(f.db, 1, "tiles=1", on_done, &longer);
    char big[DB_OPTIONS_MAX + 1];
    memset(big, 'o', DB_OPTIONS_MAX);
    big[DB_OPTIONS_MAX] = '\0';
    db_user_set_options(f.db, 1, big, on_done, &longer);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(longer.calls, 2);
    ck_assert_int_eq(longer.status, DB_EINVAL);
    ck_assert_ptr_nonnull(strstr(db_error(f.db), "too long"));
    db_queue(f.db, DB_ON(done, on_done, &mismatch), 0, DB_STMT_GAME_VERIFIED,
             DB_ARGS(DB_INT(g), DB_BLOB("x", 1)));
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(mismatch.status, DB_EINVAL);
    ck_assert_msg(strstr(db_error(f.db), "GAME_VERIFIED: argument 2 is 'b'"), "%s", db_error(f.db));
    fx_close(&f);
}
END_TEST

/* ---- out of memory ---- */

START_TEST(out_of_memory_calls_back_once)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f);
    int queuing = 0;
    rec_t w = {.idx = 1, .queuing = &queuing}, r = {.idx = 2, .queuing = &queuing}, after = {0};
    db_test_fail_allocs(f.db, 0, 2);
    queuing = 1;
    db_journal_append(f.db, g, 1, (const uint8_t *)"a", 1, 0, on_done, &w);
    queuing = 2;
    db_user_by_id(f.db, 1, on_user, &r);
    queuing = 0;
    ck_assert_int_eq(w.calls + r.calls, 0); /* never inside the call */
    db_journal_append(f.db, g, 1, (const uint8_t *)"a", 1, 0, on_done, &after);
    db_stats_t s;
    db_stats(f.db, &s);
    ck_assert_uint_eq(s.pending, 3);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(w.calls, 1);
    ck_assert_int_eq(w.status, DB_ENOMEM);
    ck_assert_int_eq(w.id, 0);
    ck_assert_int_eq(r.calls, 1);
    ck_assert_int_eq(r.status, DB_ENOMEM);
    ck_assert(!r.got_result);
    ck_assert(!w.inside && !r.inside);
    ck_assert_int_eq(after.status, DB_OK); /* memory back: works again */
    db_stats(f.db, &s);
    ck_assert_uint_eq(s.pending, 0);
    fx_close(&f);
}
END_TEST

/* The op is made but cannot grow: it fails whole, in its turn, nothing run. */
START_TEST(out_of_memory_while_building)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f);
    db_milestone_t ms[20];
    for (int i = 0; i < 20; i++)
        ms[i] = (db_milestone_t){i, 1, "xl", "a milestone of some length"};
    db_game_end_t end = {.end_time = 5, .cause = "quit", .end_kind = "quit"};
    rec_t before = {0}, fin = {0}, later = {0};
    db_journal_append(f.db, g, 1, (const uint8_t *)"a", 1, 0, on_done, &before);
    db_test_fail_allocs(f.db, 1, 1); /* the op itself, then its growth fails */
    db_game_finish(f.db, g, &end, ms, 20, "dump", 4, on_done, &fin);
    db_journal_append(f.db, g, 2, (const uint8_t *)"b", 1, 0, on_done, &later);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(fin.calls, 1);
    ck_assert_int_eq(fin.status, DB_ENOMEM);
    ck_assert_int_eq(before.status + later.status, DB_OK);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM games WHERE state = 'live'"), 1);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM milestones"), 0);
    /* with memory, the same finish goes through */
    db_game_finish(f.db, g, &end, ms, 20, "dump", 4, on_done, &fin);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(fin.calls, 2);
    ck_assert_int_eq(fin.status, DB_OK);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM milestones"), 20);
    /* a game created without memory still has its id, and hears DB_ENOMEM */
    rec_t made = {0};
    db_game_new_t ng = {.user = 1, .seed = 3, .content_version = "c1"};
    db_test_fail_allocs(f.db, 0, 1);
    int64_t id = db_game_create(f.db, &ng, on_done, &made);
    ck_assert_int_gt(id, 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(made.calls, 1);
    ck_assert_int_eq(made.status, DB_ENOMEM);
    fx_close(&f);
}
END_TEST

/* More failures in one turn than the owed ring holds: each callback still
 * comes exactly once, never inside its own call. */
START_TEST(out_of_memory_many_in_one_turn)
{
    enum { N = 700, SAME = 300 };
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f);
    rec_t *r = calloc(N, sizeof *r), same = {0};
    int queuing = -1;
    db_test_fail_allocs(f.db, 0, N + SAME);
    for (int i = 0; i < N; i++) {
        r[i] = (rec_t){.idx = i, .queuing = &queuing};
        queuing = i;
        db_journal_append(f.db, g, i + 1, (const uint8_t *)"k", 1, 0, on_done, &r[i]);
        queuing = -1;
        ck_assert_int_eq(r[i].calls, 0);
    }
    for (int i = 0; i < SAME; i++) /* one caller, many calls: one ring entry */
        db_journal_append(f.db, g, i + 1, (const uint8_t *)"k", 1, 0, on_done, &same);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(r[i].calls, 1);
        ck_assert_int_eq(r[i].status, DB_ENOMEM);
        ck_assert(!r[i].inside);
    }
    ck_assert_int_eq(same.calls, SAME);
    ck_assert_int_eq(same.status, DB_ENOMEM);
    db_stats_t s;
    db_stats(f.db, &s);
    ck_assert_uint_eq(s.pending, 0);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), 0);
    free(r);
    fx_close(&f);
}
END_TEST

/* ---- closing ---- */

typedef struct {
    db_t *db;
    int64_t game;
    bool in_cb;
    rec_t self, late_write, late_read;
} requeue_t;

static void on_late(void *ud, int status, int64_t id)
{
    rec_t *r = ud;
    (void)id;
    note(r, status);
}

static void on_late_read(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    on_journal(ud, status, rows, n);
}

/* Delivered inside db_close; queues more, which cannot run any more. */
static void requeue(void *ud, int status, int64_t id)
{
    requeue_t *q = ud;
    (void)id;
    note(&q->self, status);
    q->in_cb = true;
    db_journal_append(q->db, q->game, 99, (const uint8_t *)"z", 1, 0, on_late, &q->late_write);
    db_journal_read(q->db, q->game, 0, on_late_read, &q->late_read);
    /* what was queued is owed, not paid, while this callback runs */
    if (q->late_write.calls || q->late_read.calls)
        q->self.inside = true;
    q->in_cb = false;
}

START_TEST(closing_calls_back_once)
{
    fx_t f;
    fx_open(&f);
    requeue_t q = {.db = f.db, .game = make_game(&f)};
    db_journal_append(f.db, q.game, 1, (const uint8_t *)"a", 1, 0, requeue, &q);
    db_close(f.db);
    ck_assert_int_eq(q.self.calls, 1);
    ck_assert_int_eq(q.self.status, DB_OK);
    ck_assert(!q.self.inside);
    ck_assert_int_eq(q.late_write.calls, 1);
    ck_assert_int_eq(q.late_write.status, DB_ECLOSED);
    ck_assert_int_eq(q.late_read.calls, 1);
    ck_assert_int_eq(q.late_read.status, DB_ECLOSED);
    ck_assert(!q.late_read.got_result);
    /* after db_close returns, until the loop runs: answered when it does */
    rec_t after = {0}, user = {0};
    db_journal_append(f.db, q.game, 100, (const uint8_t *)"b", 1, 0, on_done, &after);
    db_user_by_id(f.db, 1, on_user, &user);
    ck_assert_int_eq(after.calls + user.calls, 0);
    f.db = NULL;
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(after.calls, 1);
    ck_assert_int_eq(after.status, DB_ECLOSED);
    ck_assert_int_eq(user.calls, 1);
    ck_assert_int_eq(user.status, DB_ECLOSED);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), 1);
    fx_remove(&f);
}
END_TEST

/* A database address is logged without its password, whatever its form. */
START_TEST(passwords_are_not_shown)
{
    static const char *const cases[][2] = {
        {"postgresql://warren:s3cret@db.example/warren",
         "postgresql://warren:***@db.example/warren"},
        {"postgresql://warren@db/w?password=s3cret&sslmode=require",
         "postgresql://warren@db/w?password=***&sslmode=require"},
        {"postgres://u:p%40ss@h:5432/d", "postgres://u:***@h:5432/d"},
        {"host=db password=s3cret dbname=w", "host=db password=*** dbname=w"},
        {"postgresql:///warren?host=/run/pg", "postgresql:///warren?host=/run/pg"},
        {"/var/lib/warren/warren.db", "/var/lib/warren/warren.db"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        db_redact(cases[i][0], out, sizeof out);
        ck_assert_str_eq(out, cases[i][1]);
        ck_assert_ptr_null(strstr(out, "s3cret"));
    }
}
END_TEST

/* A command line's database address keeps its length, its password starred. */
START_TEST(passwords_are_hidden_in_place)
{
    static const char *const cases[][2] = {
        {"postgresql://warren:s3cret@db.example/warren",
         "postgresql://warren:******@db.example/warren"},
        {"--db=postgresql://warren@db/w?password=s3cret&sslmode=require",
         "--db=postgresql://warren@db/w?password=******&sslmode=require"},
        {"postgres://u:p@ss@h:5432/d", "postgres://u:****@h:5432/d"},
        {"postgresql:///warren?host=/run/pg", "postgresql:///warren?host=/run/pg"},
        {"postgresql://u:@h/d", "postgresql://u:@h/d"},
        {"/var/lib/warren/warren.db", "/var/lib/warren/warren.db"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arg[256];
        snprintf(arg, sizeof arg, "%s", cases[i][0]);
        bool hid = db_hide_secret(arg);
        ck_assert_str_eq(arg, cases[i][1]);
        ck_assert_int_eq(hid, strcmp(cases[i][0], cases[i][1]) != 0);
    }
}
END_TEST

Suite *suite_db_query(void)
{
    Suite *s = suite_create("db_query");
    TCase *tc = tcase_create("query");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, every_statement_matches_its_row);
    tcase_add_test(tc, passwords_are_not_shown);
    tcase_add_test(tc, passwords_are_hidden_in_place);
    tcase_add_test(tc, mismatched_rows_fail_loudly);
    tcase_add_test(tc, arguments_checked_against_signature);
    tcase_add_test(tc, out_of_memory_calls_back_once);
    tcase_add_test(tc, out_of_memory_while_building);
    tcase_add_test(tc, out_of_memory_many_in_one_turn);
    tcase_add_test(tc, closing_calls_back_once);
    suite_add_tcase(s, tc);
    return s;
}
