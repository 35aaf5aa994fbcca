/* Unit tests: db — migrations, group commit, journal, snapshots, recovery
 * listing, finishing games, sessions, and failure paths. Real SQLite files
 * in a temporary directory, a real libuv loop. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sqlite3.h>
#include <uv.h>
#include "db.h"
#include "db_listen.h"
#include "db_internal.h"
#include "db_fixture.h"

/* ---- callback recorders (and db_fixture.h's) ---- */
typedef struct {
    int calls, status;
    size_t n;
    db_game_t g[16];
} games_res_t;

static void on_games(void *ud, int status, const db_game_t *g, size_t n)
{
    games_res_t *r = ud;
    r->calls++;
    r->status = status;
    r->n = n;
    for (size_t i = 0; i < n && i < 16; i++)
        r->g[i] = g[i];
}

static void on_game(void *ud, int status, const db_game_t *g)
{
    on_games(ud, status, g, g ? 1 : 0);
}

typedef struct {
    int calls, status;
    size_t n;
    int64_t seq[256];
    uint8_t first[256];
    size_t len[256];
    int64_t ms[256];
} journal_res_t;

static void on_journal(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    journal_res_t *r = ud;
    r->calls++;
    r->status = status;
    r->n = n;
    for (size_t i = 0; i < n && i < 256; i++) {
        r->seq[i] = rows[i].seq;
        r->len[i] = rows[i].len;
        r->ms[i] = rows[i].ms;
        r->first[i] = rows[i].len ? rows[i].keys[0] : 0;
    }
}

typedef struct {
    journal_res_t j;
    int calls, status;
    bool has_snap;
    int64_t snap_seq, snap_turn;
    char snap[32];
    int64_t game_id;
} resume_res_t;

static void on_resume(void *ud, int status, const db_resume_t *r)
{
    resume_res_t *x = ud;
    x->calls++;
    x->status = status;
    if (!r)
        return;
    x->has_snap = r->has_snapshot;
    x->snap_seq = r->snap_seq;
    x->snap_turn = r->snap_turn;
    x->game_id = r->game.id;
    if (r->has_snapshot)
        snprintf(x->snap, sizeof x->snap, "%.*s", (int)r->snap_len, (const char *)r->snap);
    on_journal(&x->j, status, r->rows, r->nrows);
}

static int64_t make_user(fx_t *f, const char *name)
{
    char key[32];
    size_t i = 0;
    for (; name[i] && i < 31; i++)
        key[i] = (char)(name[i] | (name[i] >= 'A' && name[i] <= 'Z' ? 0x20 : 0));
    key[i] = '\0';
    fx_done_t d = {0};
    db_user_create(f->db, name, key, "$argon2id$fake", 1000, fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.calls, 1);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_gt(d.id, 0);
    return d.id;
}

static int64_t make_game(fx_t *f, int64_t user, uint64_t seed)
{
    db_game_new_t g = {.user = user,
                       .seed = seed,
                       .content_version = "c1",
                       .race = "human",
                       .cls = "fighter",
                       .start_time = 2000};
    fx_done_t d = {0};
    int64_t id = db_game_create(f->db, &g, fx_on_done, &d);
    ck_assert_int_gt(id, 0);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(d.id, id);
    return id;
}

/* ---- tests ---- */

/* A database of schema version 1 (no key times): opening it migrates it, and
 * its journal rows read with DB_MS_UNKNOWN. */
START_TEST(journal_rows_from_version_1_read_unknown_times)
{
    fx_t f;
    fx_open_old(
        &f, 1,
        "INSERT INTO users(id, name, name_key, pwhash, created) VALUES (1, 'o', 'o', '$h', 1);"
        "INSERT INTO games(id, user, seed, content_version, start_time) VALUES (1, 1, 5, "
        "'c1', 1);"
        "INSERT INTO journal(game, seq, keys) VALUES (1, 1, x'61'), (1, 2, x'62');");
    ck_assert_int_eq(db_schema_version(f.db), db_migration_count());
    db_journal_append(f.db, 1, 3, (const uint8_t *)"c", 1, 1234, NULL, NULL);
    journal_res_t *all = calloc(1, sizeof *all);
    db_journal_read(f.db, 1, 0, on_journal, all);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(all->status, DB_OK);
    ck_assert_uint_eq(all->n, 3);
    ck_assert_int_eq(all->ms[0], DB_MS_UNKNOWN);
    ck_assert_int_eq(all->ms[1], DB_MS_UNKNOWN);
    ck_assert_int_eq(all->ms[2], 1234);
    ck_assert_uint_eq(all->first[1], 'b');
    free(all);
    fx_close(&f);
}
END_TEST

/* Each journal append's time in its three parts, over the window asked;
 * other writes are not counted. */
START_TEST(journal_append_times_kept)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "tim"), 7);
    db_times_t t;
    db_write_times(f.db, 60000, &t);
    ck_assert_uint_eq(t.n, 0);
    fx_done_t d[5] = {{0}};
    for (int i = 0; i < 5; i++)
        db_journal_append(f.db, g, i + 1, (const uint8_t *)"k", 1, 5, fx_on_done, &d[i]);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_write_times(f.db, 60000, &t);
    ck_assert_uint_eq(t.n, 5);
    ck_assert(t.p50 <= t.p99 && t.p99 <= t.max && t.max > 0);
    ck_assert(t.commit_p99 > 0 && t.commit_p99 <= t.max);
    /* the slowest one's parts add up to the whole */
    double whole = t.slow_queue + t.slow_commit + t.slow_back;
    ck_assert(whole >= t.max - 1 && whole <= t.max + 1);
    usleep(20000);
    db_write_times(f.db, 10, &t); /* none within the last 10 ms */
    ck_assert_uint_eq(t.n, 0);
    fx_close(&f);
}
END_TEST

START_TEST(open_migrates_and_reopens)
{
    fx_t f;
    fx_open(&f);
    ck_assert_int_eq(db_schema_version(f.db), db_migration_count());
    make_user(&f, "Alice");
    db_close(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    char err[256];
    f.db = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(f.db != NULL, "%s", err);
    ck_assert_int_eq(db_schema_version(f.db), db_migration_count());
    fx_user_t r = {0};
    db_user_by_name(f.db, "ALICE", fx_on_user, &r);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.status, DB_OK);
    ck_assert_str_eq(r.u.name, "Alice");
    fx_close(&f);
}
END_TEST

START_TEST(group_commit_one_transaction_per_turn)
{
    fx_t f;
    fx_open(&f);
    int64_t u = make_user(&f, "bob");
    int64_t g = make_game(&f, u, 7);
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    /* One loop turn: 20 appends, a progress update, a duplicate name. */
    fx_done_t d[20] = {{0}}, dup = {0}, prog = {0};
    for (int i = 0; i < 20; i++) {
        uint8_t k = (uint8_t)i;
        db_journal_append(f.db, g, i + 1, &k, 1, 5, fx_on_done, &d[i]);
    }
    db_game_progress(f.db, g, &(db_progress_t){.turns = 12, .depth = 2, .max_depth = 2, .xl = 1},
                     fx_on_done, &prog);
    db_user_create(f.db, "BOB", "bob", "$h", 1, fx_on_done, &dup);
    ck_assert_uint_eq(d[0].calls, 0); /* never called back inside the call */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_stats(f.db, &s1);
    /* PostgreSQL: the account's write in a batch of its own (db.c's take) */
    ck_assert_uint_eq(s1.commits - s0.commits, *fx_pg() ? 2 : 1);
    ck_assert_uint_eq(s1.writes - s0.writes, 22);
    for (int i = 0; i < 20; i++) {
        ck_assert_int_eq(d[i].calls, 1);
        ck_assert_int_eq(d[i].status, DB_OK);
    }
    /* The failing op is undone alone. */
    ck_assert_int_eq(dup.status, DB_EEXISTS);
    ck_assert_int_eq(prog.status, DB_OK);
    ck_assert_uint_eq(s1.pending, 0);
    ck_assert_int_eq(
        count_rows(f.path, "SELECT count(*) FROM games WHERE race = 'human' AND class = 'fighter'"),
        1);
    fx_done_t prog2 = {0};
    db_game_progress(f.db, g, &(db_progress_t){.turns = 13, .race = "elf", .cls = "rogue"},
                     fx_on_done, &prog2);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(prog2.status, DB_OK);
    ck_assert_int_eq(
        count_rows(f.path, "SELECT count(*) FROM games WHERE race = 'elf' AND class = 'rogue'"), 1);
    db_stats(f.db, &s1);
    /* Two turns with explicit flushes and autoflush off: two transactions. */
    db_set_autoflush(f.db, false);
    fx_done_t a = {0}, b = {0};
    db_journal_append(f.db, g, 21, (const uint8_t *)"x", 1, 10, fx_on_done, &a);
    ck_assert_int_eq(db_flush_sync(f.db), DB_OK);
    db_journal_append(f.db, g, 22, (const uint8_t *)"y", 1, 15, fx_on_done, &b);
    ck_assert_int_eq(db_flush_sync(f.db), DB_OK);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_stats(f.db, &s0);
    ck_assert_uint_eq(s0.commits - s1.commits, 2);
    ck_assert_int_eq(a.status, DB_OK);
    ck_assert_int_eq(b.status, DB_OK);
    /* A burst of 100 in one turn is handed over in slices of 32 (the writer
     * may still merge slices that wait together): 1 to 4 transactions. */
    db_set_autoflush(f.db, true);
    fx_done_t e[100] = {{0}};
    for (int i = 0; i < 100; i++)
        db_journal_append(f.db, g, 23 + i, (const uint8_t *)"z", 1, 20, fx_on_done, &e[i]);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_stats(f.db, &s1);
    ck_assert_uint_ge(s1.commits - s0.commits, 1);
    ck_assert_uint_le(s1.commits - s0.commits, 4);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(e[i].status, DB_OK);
    fx_close(&f);
}
END_TEST

static void stop_loop(uv_timer_t *t)
{
    uv_stop(t->loop);
}

/* The loop run for ms, whatever is pending. */
static void run_for(fx_t *f, uint64_t ms)
{
    uv_timer_t t;
    uv_timer_init(&f->loop, &t);
    uv_timer_start(&t, stop_loop, ms, 0);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(&f->loop, UV_RUN_NOWAIT);
}

/* PostgreSQL: two batches of keys are each in their commit, held (another
 * connection inserted their rows first and has not committed): a third
 * game's key is written beside them and answered, not after them. Then
 * the others are let go, and answered too. */
START_TEST(a_key_is_written_while_two_batches_are_held)
{
    fx_t f;
    fx_open(&f);
    if (!*fx_pg()) {
        fx_close(&f);
        return;
    }
    int64_t g[3];
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "held%d", i);
        g[i] = make_game(&f, make_user(&f, name), (uint64_t)i + 1);
        db_journal_append(f.db, g[i], 1, (const uint8_t *)"a", 1, 5, NULL, NULL);
    }
    uv_run(&f.loop, UV_RUN_DEFAULT);
    PGconn *lk = PQconnectdb(f.path);
    ck_assert_int_eq(PQstatus(lk), CONNECTION_OK);
    char sql[256];
    snprintf(sql, sizeof sql,
             "BEGIN; INSERT INTO journal(game, seq, keys) VALUES (%lld, 2, 'x'), (%lld, 2, 'x')",
             (long long)g[0], (long long)g[1]);
    PGresult *r = PQexec(lk, sql);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(lk));
    PQclear(r);
    fx_done_t d[3] = {{0}};
    for (int i = 0; i < 3; i++) { /* each its own batch, taken before the next */
        db_journal_append(f.db, g[i], 2, (const uint8_t *)"b", 1, 5, fx_on_done, &d[i]);
        db_flush(f.db);
        run_for(&f, i < 2 ? 300 : 0);
    }
    for (int waited = 0; !d[2].calls && waited < 3000; waited += 50)
        run_for(&f, 50);
    ck_assert_int_eq(d[0].calls + d[1].calls, 0); /* still held */
    ck_assert_msg(d[2].calls == 1, "the third key waited for the held batches");
    ck_assert_int_eq(d[2].status, DB_OK);
    r = PQexec(lk, "ROLLBACK");
    PQclear(r);
    PQfinish(lk);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(d[i].calls, 1);
        ck_assert_int_eq(d[i].status, DB_OK);
    }
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal WHERE seq = 2"), 3);
    fx_close(&f);
}
END_TEST

/* PostgreSQL: a game's start and a key of another game queued after it
 * in one turn are written in batches of their own (the start's commit
 * waits for no flush and no standby, the key's does): with the key's row
 * held (another connection inserted it first and has not committed), the
 * start is answered all the same, and the key once it is let go. */
START_TEST(a_game_start_is_not_held_by_a_key_queued_after_it)
{
    fx_t f;
    fx_open(&f);
    if (!*fx_pg()) {
        fx_close(&f);
        return;
    }
    int64_t g0 = make_game(&f, make_user(&f, "keyer"), 1);
    db_journal_append(f.db, g0, 1, (const uint8_t *)"a", 1, 5, NULL, NULL);
    int64_t starter = make_user(&f, "starter");
    PGconn *lk = PQconnectdb(f.path);
    ck_assert_int_eq(PQstatus(lk), CONNECTION_OK);
    char sql[160];
    snprintf(sql, sizeof sql, "BEGIN; INSERT INTO journal(game, seq, keys) VALUES (%lld, 2, 'x')",
             (long long)g0);
    PGresult *r = PQexec(lk, sql);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(lk));
    PQclear(r);
    db_game_new_t ng = {.user = starter,
                        .seed = 2,
                        .content_version = "c1",
                        .race = "human",
                        .cls = "fighter",
                        .start_time = 2000};
    fx_done_t made = {0}, key = {0};
    int64_t id = db_game_create(f.db, &ng, fx_on_done, &made);
    ck_assert_int_gt(id, 0);
    db_journal_append(f.db, g0, 2, (const uint8_t *)"b", 1, 5, fx_on_done, &key);
    db_flush(f.db); /* one turn: both in the queue when a writer looks */
    for (int waited = 0; !made.calls && waited < 3000; waited += 50)
        run_for(&f, 50);
    ck_assert_int_eq(key.calls, 0); /* still held */
    ck_assert_msg(made.calls == 1, "the game's start waited for the key queued after it");
    ck_assert_int_eq(made.status, DB_OK);
    r = PQexec(lk, "ROLLBACK");
    PQclear(r);
    PQfinish(lk);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(key.calls, 1);
    ck_assert_int_eq(key.status, DB_OK);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal WHERE seq = 2"), 1);
    fx_close(&f);
}
END_TEST

/* When each write was answered, on one clock: its place in the order. */
typedef struct {
    int *clock;
    int at, status;
} ordered_t;

static void on_ordered(void *ud, int status, int64_t id)
{
    (void)id;
    ordered_t *o = ud;
    o->at = ++*o->clock;
    o->status = status;
}

/* Forty game starts (each its game row and a first snapshot of 2 KB)
 * queued in one turn, then a snapshot and keys of games in play: a
 * playing game's key is written ahead of the starts queued before it
 * (answered before the last of them), while every game's rows keep
 * their order: a key after its game's snapshot queued before it, a new
 * game's first key after its game row and snapshot, and a read sees
 * everything queued before it. */
START_TEST(a_key_goes_ahead_of_game_starts_queued_before_it)
{
    fx_t f;
    fx_open(&f);
    int64_t g1 = make_game(&f, make_user(&f, "keyer"), 1);
    int64_t g2 = make_game(&f, make_user(&f, "player"), 2);
    db_journal_append(f.db, g1, 1, (const uint8_t *)"a", 1, 5, NULL, NULL);
    db_journal_append(f.db, g2, 1, (const uint8_t *)"b", 1, 5, NULL, NULL);
    enum { STARTS = 40 };
    int64_t user[STARTS], id[STARTS];
    fx_done_t made[STARTS] = {{0}};
    for (int i = 0; i < STARTS; i++) {
        char name[24];
        snprintf(name, sizeof name, "starter%d", i);
        db_user_create(f.db, name, name, "$h", 1, fx_on_done, &made[i]);
    }
    uv_run(&f.loop, UV_RUN_DEFAULT);
    for (int i = 0; i < STARTS; i++) {
        ck_assert_int_eq(made[i].status, DB_OK);
        user[i] = made[i].id;
    }
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    db_set_autoflush(f.db, false);
    int clock = 0;
    ordered_t create[STARTS], snap[STARTS], snap1 = {&clock}, key1 = {&clock}, key2 = {&clock},
                                            first = {&clock};
    static uint8_t blob[2048];
    memset(blob, 'x', sizeof blob);
    for (int i = 0; i < STARTS; i++) {
        create[i] = snap[i] = (ordered_t){&clock};
        db_game_new_t ng = {.user = user[i],
                            .seed = (uint64_t)i,
                            .content_version = "c1",
                            .race = "human",
                            .cls = "fighter",
                            .start_time = 2000};
        id[i] = db_game_create(f.db, &ng, on_ordered, &create[i]);
        ck_assert_int_gt(id[i], 0);
        db_snapshot_save(f.db, id[i], 0, 0, blob, sizeof blob, on_ordered, &snap[i]);
    }
    db_snapshot_save(f.db, g1, 1, 1, blob, sizeof blob, on_ordered, &snap1);
    db_journal_append(f.db, g1, 2, (const uint8_t *)"c", 1, 5, on_ordered, &key1);
    db_journal_append(f.db, g2, 2, (const uint8_t *)"d", 1, 5, on_ordered, &key2);
    db_journal_append(f.db, id[STARTS - 1], 1, (const uint8_t *)"e", 1, 5, on_ordered, &first);
    journal_res_t *jr = calloc(1, sizeof *jr);
    db_journal_read(f.db, id[STARTS - 1], 0, on_journal, jr);
    db_flush(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_stats(f.db, &s1);
    ck_assert_uint_eq(s1.failed - s0.failed, 0);
    for (int i = 0; i < STARTS; i++) {
        ck_assert_int_eq(create[i].status, DB_OK);
        ck_assert_int_eq(snap[i].status, DB_OK);
        ck_assert_int_lt(create[i].at, snap[i].at);
    }
    ck_assert_int_eq(key2.status, DB_OK);
    ck_assert_msg(key2.at < snap[STARTS - 1].at,
                  "the key was answered at %d, after the last start's snapshot at %d", key2.at,
                  snap[STARTS - 1].at);
    ck_assert_uint_ge(s1.commits - s0.commits, 2); /* the starts took more than one batch */
    ck_assert_int_eq(snap1.status, DB_OK);
    ck_assert_int_eq(key1.status, DB_OK);
    ck_assert_int_lt(snap1.at, key1.at);
    ck_assert_int_eq(first.status, DB_OK);
    ck_assert_int_lt(snap[STARTS - 1].at, first.at);
    ck_assert_int_eq(jr->status, DB_OK);
    ck_assert_uint_eq(jr->n, 1);
    ck_assert_int_eq(jr->first[0], 'e');
    free(jr);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM journal WHERE game IN (%lld, %lld)",
             (long long)g1, (long long)g2);
    ck_assert_int_eq(count_rows(f.path, sql), 4);
    fx_close(&f);
}
END_TEST

/* What the round hook saw: each event in order, 'b' begin, 'e' end, 'k'
 * a key's answer. */
typedef struct {
    char seen[64];
    int n;
} rounds_t;

static void on_round(void *ud, bool begin)
{
    rounds_t *r = ud;
    if (r->n < (int)sizeof r->seen - 1)
        r->seen[r->n++] = begin ? 'b' : 'e';
}

static void on_round_key(void *ud, int status, int64_t id)
{
    (void)id;
    rounds_t *r = ud;
    ck_assert_int_eq(status, DB_OK);
    if (r->n < (int)sizeof r->seen - 1)
        r->seen[r->n++] = 'k';
}

/* The answers of one commit come as one round between the hook's begin
 * and end (a caller holds what they write until the end); a turn with
 * nothing to answer calls neither, and db_close's last round goes without. */
START_TEST(a_commits_answers_come_as_one_round)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "round"), 3);
    rounds_t r = {0};
    db_on_round(f.db, on_round, &r);
    for (int i = 0; i < 5; i++) {
        uint8_t k = (uint8_t)i;
        db_journal_append(f.db, g, i + 1, &k, 1, 5, on_round_key, &r);
    }
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_str_eq(r.seen, "bkkkkke");
    db_journal_append(f.db, g, 6, (const uint8_t *)"x", 1, 5, on_round_key, &r);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_str_eq(r.seen, "bkkkkkebke");
    db_journal_append(f.db, g, 7, (const uint8_t *)"y", 1, 5, on_round_key, &r);
    fx_close(&f); /* delivers it: without the hook */
    ck_assert_str_eq(r.seen, "bkkkkkebkek");
}
END_TEST

/* A burst's answers: what the loop saw, each event in order ('b' and 'e'
 * a round's begin and end, 't' a check handle: the loop went on to the
 * rest of its turn, a digit an answer). */
typedef struct {
    char seen[96];
    int n;
} burst_t;

typedef struct {
    burst_t *b;
    char c;
} burst_key_t;

static void burst_add(burst_t *b, char c)
{
    if (b->n < (int)sizeof b->seen - 1)
        b->seen[b->n++] = c;
}

static void on_burst_round(void *ud, bool begin)
{
    burst_add(ud, begin ? 'b' : 'e');
}

static void on_burst_key(void *ud, int status, int64_t id)
{
    (void)id;
    burst_key_t *k = ud;
    ck_assert_int_eq(status, DB_OK);
    burst_add(k->b, k->c);
}

static void on_burst_check(uv_check_t *h)
{
    burst_add(h->data, 't');
}

/* Appends n keys of game g (their digits, from 0), the journal's seqs
 * from seq, and waits until all are committed and handed back to the
 * loop, which has not run. */
static void burst_append(fx_t *f, int64_t g, burst_t *b, burst_key_t *k, int n, int64_t seq)
{
    for (int i = 0; i < n; i++) {
        k[i] = (burst_key_t){b, (char)('0' + i)};
        db_journal_append(f->db, g, seq + i, (const uint8_t *)"k", 1, 5, on_burst_key, &k[i]);
    }
    ck_assert_int_eq(db_flush_sync(f->db), DB_OK);
}

/* A commit's answers past a turn's budget (here 3 answers) come over
 * several turns, a round each, in their order; the loop runs its other
 * handles between them and stays alive until the last; db_close delivers
 * all that is left whatever the budget. */
START_TEST(a_bursts_answers_come_a_budget_a_turn)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "burst"), 3);
    burst_t b = {0};
    burst_key_t k[10];
    db_on_round(f.db, on_burst_round, &b);
    db_test_deliver_budget(f.db, 3);
    uv_check_t check;
    uv_check_init(&f.loop, &check);
    check.data = &b;
    uv_check_start(&check, on_burst_check);
    uv_unref((uv_handle_t *)&check); /* the db alone keeps the loop going */
    burst_append(&f, g, &b, k, 10, 1);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_str_eq(b.seen, "b012etb345etb678etb9et");

    b.n = 0;
    memset(b.seen, 0, sizeof b.seen);
    burst_append(&f, g, &b, k, 7, 11);
    uv_close((uv_handle_t *)&check, NULL);
    fx_close(&f); /* without the round hook */
    ck_assert_str_eq(b.seen, "0123456");
}
END_TEST

static int64_t file_size(const char *path, const char *suffix)
{
    char p[200];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    struct stat sb;
    return stat(p, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* A 32-bit field of a WAL header (big-endian, as SQLite writes them). */
static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* What path's WAL holds since it last started over: its frames (those
 * whose salts are the header's) and, in *gen, the header's checkpoint
 * sequence number, which SQLite counts up each time the WAL starts over. */
static int wal_frames(const char *path, uint32_t *gen)
{
    char p[200];
    snprintf(p, sizeof p, "%s-wal", path);
    FILE *fp = fopen(p, "rb");
    ck_assert_ptr_nonnull(fp);
    uint8_t h[32], fh[24];
    ck_assert_int_eq(fread(h, 1, sizeof h, fp), sizeof h);
    uint32_t page = be32(h + 8);
    *gen = be32(h + 12);
    int n = 0;
    while (fseek(fp, 32 + (long)n * (long)(24 + page), SEEK_SET) == 0 &&
           fread(fh, 1, sizeof fh, fp) == sizeof fh && !memcmp(fh + 8, h + 16, 8))
        n++;
    fclose(fp);
    return n;
}

/* One 64 KB snapshot (16 pages) per loop turn, n times. */
static void write_snapshots(fx_t *f, int64_t g, int from, int n, uint8_t *blob, size_t len)
{
    for (int i = from; i < from + n; i++) {
        for (size_t k = 0; k < len; k++)
            blob[k] = (uint8_t)(k * 31 + (size_t)i);
        fx_done_t d = {0};
        /* a snapshot covers stored journal rows only */
        db_journal_append(f->db, g, i + 1, (const uint8_t *)"l", 1, 5, NULL, NULL);
        db_snapshot_save(f->db, g, i, i + 1, blob, len, fx_on_done, &d);
        uv_run(&f->loop, UV_RUN_DEFAULT);
        ck_assert_int_eq(d.status, DB_OK);
    }
}

/* A checkpointer slowed down (a starved thread at its lower priority on a
 * busy machine, or a slow disk): a VFS, made the default, that sleeps
 * before each page the thread named db-ckpt writes, while slow is set. */
static struct {
    sqlite3_vfs vfs, *real;
    const sqlite3_io_methods *orig;
    sqlite3_io_methods patched;
    _Atomic bool slow;
} slowck;

static int slowck_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    if (atomic_load(&slowck.slow) && strcmp(name, "db-ckpt") == 0)
        usleep(5000); /* 1,000 pages: 5 s */
    return slowck.orig->xWrite(f, buf, n, off);
}

static int slowck_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
    (void)vfs;
    int ret = slowck.real->xOpen(slowck.real, name, f, flags, out);
    if (ret == SQLITE_OK && f->pMethods && !slowck.orig) {
        slowck.orig = f->pMethods;
        slowck.patched = *f->pMethods;
        slowck.patched.xWrite = slowck_write;
    }
    if (ret == SQLITE_OK && f->pMethods == slowck.orig)
        f->pMethods = &slowck.patched;
    return ret;
}

static void slowck_install(void)
{
    slowck.real = sqlite3_vfs_find(NULL);
    ck_assert_ptr_nonnull(slowck.real);
    slowck.vfs = *slowck.real;
    slowck.vfs.zName = "slowck";
    slowck.vfs.xOpen = slowck_open;
    ck_assert_int_eq(sqlite3_vfs_register(&slowck.vfs, 1), SQLITE_OK);
}

static void wait_checkpointer_idle(fx_t *f)
{
    db_stats_t st;
    db_writer_t w;
    for (int i = 0; i < 2000; i++) { /* 20 s */
        usleep(10000);
        /* the last batch's answer comes before its writer asks for a
         * checkpoint: the writer done with it first */
        db_writer_state(f->db, &w);
        db_stats(f->db, &st);
        if (w.started_ns == 0 && st.ckpt_idle)
            return;
    }
    ck_abort_msg("the checkpointer still busy after 20 s");
}

/* SQLite's automatic checkpoint is off. The checkpointer thread copies the
 * WAL into the file beside the writer: after 8 MB of pages (past the mark
 * of 1,000) and a pause, the next write starts the WAL over (its file does
 * not grow). That is read from the WAL's header, not from how large its
 * file grows after more writes: a busy machine's pause among the first
 * writes started it over there already, leaving a smaller file. A writer that never pauses long enough for the checkpointer
 * to finish the WAL still keeps it bounded (it copies the rest itself at
 * 8,000 pages, about 32 MB), however slow the checkpointer is: with each
 * page it copies taking 5 ms, 45 MB more leave a WAL under 40 MB (a writer
 * that waited the checkpointer's runs out left 52-61 MB here, every time,
 * and up to 119 MB on a busy machine without the slowing). */
START_TEST(wal_checkpointed_beside_the_writer)
{
    slowck_install();
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "wal"), 9);
    enum { BLOB = 65536 };
    uint8_t *blob = malloc(BLOB);
    ck_assert_ptr_nonnull(blob);
    int next = 0;
    uint32_t gen, gen2;
    write_snapshots(&f, g, next, 128, blob, BLOB); /* 2,048 pages */
    next += 128;
    /* past the mark since the WAL last started over: a checkpointer run
     * that caught up between two commits (on a busy machine) started it
     * over before the last ones */
    while (wal_frames(f.path, &gen) < 1000)
        write_snapshots(&f, g, next++, 1, blob, BLOB);
    int64_t wal = file_size(f.path, "-wal");
    ck_assert_int_gt(wal, 4 << 20);
    /* a run asked after the last commit has copied it all (however long a
     * starved thread takes: a fixed pause failed on a busy machine) */
    wait_checkpointer_idle(&f);
    /* the next write starts the WAL over: it holds that write alone, in
     * a file that did not grow */
    write_snapshots(&f, g, next++, 1, blob, BLOB);
    int frames = wal_frames(f.path, &gen2);
    ck_assert_uint_gt(gen2, gen);
    ck_assert_int_lt(frames, 100);
    ck_assert_int_le(file_size(f.path, "-wal"), wal);
    write_snapshots(&f, g, next, 99, blob, BLOB);
    next += 99;
    atomic_store(&slowck.slow, true);
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    write_snapshots(&f, g, next, 700, blob, BLOB);
    db_stats(f.db, &s1);
    atomic_store(&slowck.slow, false);
    ck_assert_int_lt(file_size(f.path, "-wal"), 40 << 20);
    ck_assert_uint_ge(s1.ckpt_stops - s0.ckpt_stops, 1); /* it was in the way */
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM snapshots"), 1);
    free(blob);
    fx_close(&f);
    sqlite3_vfs_unregister(&slowck.vfs);
}
END_TEST

/* A WAL past the mark that a reader keeps from starting over: each commit
 * asks for a checkpoint, but the checkpointer (at most one run every
 * 100 ms) is woken once per request, not by every commit meanwhile; woken
 * by each, it contended for its mutex with the writer on every key. */
START_TEST(checkpointer_woken_once_per_request)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "ckw"), 9);
    enum { BLOB = 65536, SMALL = 300 };
    uint8_t *blob = malloc(BLOB);
    ck_assert_ptr_nonnull(blob);
    sqlite3 *h = NULL; /* a reader whose snapshot holds the WAL's frames */
    ck_assert_int_eq(sqlite3_open(f.path, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h, "BEGIN; SELECT count(*) FROM games;", NULL, NULL, NULL),
                     SQLITE_OK);
    write_snapshots(&f, g, 0, 80, blob, BLOB); /* 1,280 pages: past the mark */
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    uint64_t t0 = uv_hrtime();
    for (int i = 0; i < SMALL; i++) { /* one small commit a loop turn */
        uint8_t k = 'x';
        db_journal_append(f.db, g, 81 + i, &k, 1, 5, NULL, NULL);
        uv_run(&f.loop, UV_RUN_DEFAULT);
    }
    uint64_t ms = (uv_hrtime() - t0) / 1000000u;
    db_stats(f.db, &s1);
    ck_assert_uint_ge(s1.commits - s0.commits, SMALL);
    /* a request at most per run of the checkpointer, one every 100 ms */
    ck_assert_uint_le(s1.ckpt_asks - s0.ckpt_asks, ms / 100 + 3);
    sqlite3_exec(h, "COMMIT;", NULL, NULL, NULL);
    sqlite3_close(h);
    free(blob);
    fx_close(&f);
}
END_TEST

/* ---- two loops, one database ---- */

enum { LANE_BURST = 100, LANE_BURSTS = 20, LANE_KEYS = LANE_BURST * LANE_BURSTS };

typedef struct lane lane_t;
typedef struct {
    lane_t *lane;
    int seq; /* an append's, or the last a read must see */
} lane_tag_t;

struct lane {
    db_t *db;
    uv_loop_t loop;
    pthread_t self;
    int64_t game;
    int queued, acked, bursts;
    int failed, out_of_order, wrong_thread, reads_ok;
    lane_tag_t tags[LANE_KEYS], reads[LANE_BURSTS];
};

static void lane_burst(lane_t *L);

static void on_lane_ack(void *ud, int status, int64_t id)
{
    (void)id;
    lane_tag_t *t = ud;
    lane_t *L = t->lane;
    L->failed += status != DB_OK;
    L->wrong_thread += !pthread_equal(pthread_self(), L->self);
    L->out_of_order += t->seq != ++L->acked;
}

/* A read queued after a burst sees all of it (its own handle's writes). */
static void on_lane_read(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    lane_tag_t *t = ud;
    lane_t *L = t->lane;
    L->wrong_thread += !pthread_equal(pthread_self(), L->self);
    L->reads_ok += status == DB_OK && n == LANE_BURST && rows[0].seq == t->seq - LANE_BURST + 1 &&
                   rows[n - 1].seq == t->seq;
    if (L->bursts < LANE_BURSTS)
        lane_burst(L);
}

static void lane_burst(lane_t *L)
{
    for (int k = 0; k < LANE_BURST; k++) {
        lane_tag_t *t = &L->tags[L->queued];
        *t = (lane_tag_t){L, ++L->queued};
        db_journal_append(L->db, L->game, L->queued, (const uint8_t *)"k", 1, 5, on_lane_ack, t);
    }
    lane_tag_t *r = &L->reads[L->bursts++];
    *r = (lane_tag_t){L, L->queued};
    db_journal_read(L->db, L->game, L->queued - LANE_BURST, on_lane_read, r);
}

static void *lane_main(void *arg)
{
    lane_t *L = arg;
    L->self = pthread_self();
    lane_burst(L);
    uv_run(&L->loop, UV_RUN_DEFAULT);
    return NULL;
}

static void lane_check(const lane_t *L)
{
    ck_assert_int_eq(L->acked, LANE_KEYS);
    ck_assert_int_eq(L->failed, 0);
    ck_assert_int_eq(L->out_of_order, 0);
    ck_assert_int_eq(L->wrong_thread, 0);
    ck_assert_int_eq(L->reads_ok, LANE_BURSTS);
}

/* Two loops in two threads, each with its own handle (db_attach) on one
 * database, append 2,000 journal rows each to their own game in bursts of
 * 100 while the other does: every callback comes on its own loop's thread,
 * in the order queued, and a read queued after a burst sees the whole
 * burst. Handles close in any order: after the first handle closes the
 * others go on; the last one stops the threads. */
START_TEST(two_loops_share_one_database)
{
    fx_t f;
    fx_open(&f);
    static lane_t lanes[2];
    memset(lanes, 0, sizeof lanes);
    for (int i = 0; i < 2; i++) {
        lane_t *L = &lanes[i];
        L->game = make_game(&f, make_user(&f, i ? "lane1" : "lane0"), 10 + (uint64_t)i);
        ck_assert_int_eq(uv_loop_init(&L->loop), 0);
        L->db = db_attach(f.db, &L->loop);
        ck_assert_ptr_nonnull(L->db);
    }
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, lane_main, &lanes[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        lane_check(&lanes[i]);
    }
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), 2 * LANE_KEYS);
    /* the first handle closes; the second goes on, then closes last */
    db_close(f.db);
    f.db = NULL;
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_close(lanes[0].db);
    uv_run(&lanes[0].loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&lanes[0].loop), 0);
    lane_t *L = &lanes[1];
    fx_done_t d = {0};
    db_journal_append(L->db, L->game, LANE_KEYS + 1, (const uint8_t *)"z", 1, 5, fx_on_done, &d);
    uv_run(&L->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.calls, 1);
    ck_assert_int_eq(d.status, DB_OK);
    db_close(L->db);
    uv_run(&L->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&L->loop), 0);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), 2 * LANE_KEYS + 1);
    fx_remove(&f);
}
END_TEST

START_TEST(journal_order_and_duplicates)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "carol"), 99);
    for (int i = 1; i <= 100; i++) {
        uint8_t k[3] = {(uint8_t)i, 'a', 'b'};
        int64_t ms = i % 10 == 0 ? -5 : (int64_t)i * 700; /* negative: stored as unknown */
        db_journal_append(f.db, g, i, k, (size_t)(i % 4), ms, NULL, NULL);
    }
    fx_done_t dup = {0};
    db_journal_append(f.db, g, 5, (const uint8_t *)"z", 1, 30, fx_on_done, &dup);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(dup.status, *fx_pg() ? DB_ENOTFOUND : DB_EEXISTS);
    /* On PostgreSQL the same row again is stored already: a commit whose
     * answer died with its server, retried on the promoted standby. */
    uint8_t k5[3] = {5, 'a', 'b'};
    fx_done_t again = {0};
    db_journal_append(f.db, g, 5, k5, 1, 3500, fx_on_done, &again);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(again.status, *fx_pg() ? DB_OK : DB_EEXISTS);
    journal_res_t *all = calloc(1, sizeof *all), *tail = calloc(1, sizeof *tail);
    db_journal_read(f.db, g, 0, on_journal, all);
    db_journal_read(f.db, g, 40, on_journal, tail);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(all->status, DB_OK);
    ck_assert_uint_eq(all->n, 100);
    for (int i = 0; i < 100; i++) {
        ck_assert_int_eq(all->seq[i], i + 1);
        ck_assert_uint_eq(all->len[i], (size_t)((i + 1) % 4));
        if (all->len[i])
            ck_assert_uint_eq(all->first[i], (uint8_t)(i + 1));
        ck_assert_int_eq(all->ms[i], (i + 1) % 10 == 0 ? DB_MS_UNKNOWN : (int64_t)(i + 1) * 700);
    }
    ck_assert_uint_eq(tail->n, 60);
    ck_assert_int_eq(tail->seq[0], 41);
    free(all);
    free(tail);
    /* A journal row for a game that does not exist is refused. */
    fx_done_t bad = {0};
    db_journal_append(f.db, 9999, 1, (const uint8_t *)"k", 1, 35, fx_on_done, &bad);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(bad.status, DB_ENOTFOUND);
    fx_close(&f);
}
END_TEST

START_TEST(snapshot_and_later_journal)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "dave"), 3);
    resume_res_t *r = calloc(1, sizeof *r);
    /* No snapshot yet: the whole journal. */
    for (int i = 1; i <= 4; i++)
        db_journal_append(f.db, g, i, (const uint8_t *)"k", 1, 40, NULL, NULL);
    db_game_resume(f.db, g, on_resume, r);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r->status, DB_OK);
    ck_assert(!r->has_snap);
    ck_assert_uint_eq(r->j.n, 4);
    db_snapshot_save(f.db, g, 2, 4, (const uint8_t *)"snapA", 5, NULL, NULL);
    for (int i = 5; i <= 7; i++)
        db_journal_append(f.db, g, i, (const uint8_t *)"k", 1, 45, NULL, NULL);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_snapshot_save(f.db, g, 5, 7, (const uint8_t *)"snapB", 5, NULL, NULL);
    for (int i = 8; i <= 10; i++)
        db_journal_append(f.db, g, i, (const uint8_t *)"k", 1, 50, NULL, NULL);
    memset(r, 0, sizeof *r);
    db_game_resume(f.db, g, on_resume, r); /* sees the writes queued before it */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r->status, DB_OK);
    ck_assert(r->has_snap);
    ck_assert_int_eq(r->snap_seq, 7);
    ck_assert_int_eq(r->snap_turn, 5);
    ck_assert_str_eq(r->snap, "snapB");
    ck_assert_uint_eq(r->j.n, 3);
    ck_assert_int_eq(r->j.seq[0], 8);
    ck_assert_int_eq(r->j.seq[2], 10);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM snapshots"), 1);
    memset(r, 0, sizeof *r);
    db_game_resume(f.db, 4242, on_resume, r);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r->status, DB_ENOTFOUND);
    free(r);
    fx_close(&f);
}
END_TEST

typedef struct {
    int calls, status;
    size_t n;
    char kinds[8][16];
    char text[256];
} ms_res_t;

static void on_ms(void *ud, int status, const db_milestone_t *m, size_t n)
{
    ms_res_t *r = ud;
    r->calls++;
    r->status = status;
    r->n = n;
    for (size_t i = 0; i < n && i < 8; i++)
        snprintf(r->kinds[i], 16, "%s", m[i].kind);
}

static void on_text(void *ud, int status, const char *t, size_t len)
{
    ms_res_t *r = ud;
    r->calls++;
    r->status = status;
    if (t)
        snprintf(r->text, sizeof r->text, "%.*s", (int)len, t);
}

START_TEST(finish_unfinished_scores)
{
    fx_t f;
    fx_open(&f);
    int64_t u1 = make_user(&f, "erin"), u2 = make_user(&f, "frank"), u3 = make_user(&f, "gwen");
    int64_t g1 = make_game(&f, u1, 1), g2 = make_game(&f, u2, 2), g3 = make_game(&f, u3, 3);
    /* One live game per account. */
    fx_done_t second = {0};
    db_game_new_t ng = {
        .user = u1, .seed = 5, .content_version = "c1", .race = "elf", .cls = "mage"};
    db_game_create(f.db, &ng, fx_on_done, &second);
    db_snapshot_save(f.db, g1, 10, 0, (const uint8_t *)"s", 1, NULL, NULL);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(second.status, DB_EEXISTS);

    db_milestone_t ms[2] = {{1, 1, "start", "began"}, {40, 3, "end", "killed by a rat"}};
    db_game_end_t end = {.end_time = 3000,
                         .turns = 40,
                         .depth = 3,
                         .max_depth = 3,
                         .xl = 2,
                         .score = 500,
                         .cause = "killed by a rat on level 3",
                         .end_kind = "dead",
                         .race = "dwarf",
                         .cls = "cleric"}; /* chosen after the row was made */
    fx_done_t fin = {0}, brk = {0}, again = {0};
    db_game_finish(f.db, g1, &end, ms, 2, "DUMP TEXT", 9, fx_on_done, &fin);
    db_game_mark_broken(f.db, g2, "bad snapshot", fx_on_done, &brk);
    db_game_finish(f.db, g1, &end, ms, 2, "x", 1, fx_on_done, &again);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(fin.status, DB_OK);
    ck_assert_int_eq(brk.status, DB_OK);
    ck_assert_int_eq(again.status, DB_ENOTFOUND); /* finished once only */
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM snapshots"), 0);

    games_res_t *live = calloc(1, sizeof *live), *top = calloc(1, sizeof *top),
                *one = calloc(1, sizeof *one);
    ms_res_t msr = {0}, dump = {0};
    db_games_unfinished(f.db, on_games, live);
    db_scores_top(f.db, 10, 0, on_games, top);
    db_game_get(f.db, g2, on_game, one);
    db_milestones_get(f.db, g1, on_ms, &msr);
    db_dump_get(f.db, g1, on_text, &dump);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_uint_eq(live->n, 1);
    ck_assert_int_eq(live->g[0].id, g3);
    ck_assert_str_eq(live->g[0].player, "gwen");
    ck_assert_uint_eq(live->g[0].seed, 3);
    ck_assert_uint_eq(top->n, 1);
    ck_assert_int_eq(top->g[0].score, 500);
    ck_assert_str_eq(top->g[0].end_kind, "dead");
    ck_assert_str_eq(top->g[0].race, "dwarf");
    ck_assert_str_eq(top->g[0].cls, "cleric");
    ck_assert_int_eq(top->g[0].state, DB_GAME_FINISHED);
    ck_assert_int_eq(one->g[0].state, DB_GAME_BROKEN);
    ck_assert_str_eq(one->g[0].broken_reason, "bad snapshot");
    ck_assert_uint_eq(msr.n, 2);
    ck_assert_str_eq(msr.kinds[1], "end");
    ck_assert_str_eq(dump.text, "DUMP TEXT");
    /* A user whose game ended can start a new one. */
    make_game(&f, u1, 77);
    memset(one, 0, sizeof *one);
    db_game_live_of_user(f.db, u1, on_game, one);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(one->status, DB_OK);
    ck_assert_uint_eq(one->g[0].seed, 77);
    free(live);
    free(top);
    free(one);
    fx_close(&f);
}
END_TEST

START_TEST(users_and_sessions)
{
    fx_t f;
    fx_open(&f);
    int64_t u = make_user(&f, "Hana");
    fx_done_t d1 = {0}, d2 = {0}, d3 = {0};
    db_user_set_password(f.db, u, "$new", fx_on_done, &d1);
    db_user_set_options(f.db, u, "tiles=2", fx_on_done, &d2);
    db_session_create(f.db, "tok1", u, 5000, fx_on_done, &d3);
    fx_done_t nouser = {0};
    db_user_set_locked(f.db, 999, true, fx_on_done, &nouser);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d1.status + d2.status + d3.status, DB_OK);
    ck_assert_int_eq(nouser.status, DB_ENOTFOUND);
    fx_user_t a = {0}, b = {0}, c = {0}, e = {0};
    db_user_by_name(f.db, "hANA", fx_on_user, &a);
    db_session_user(f.db, "tok1", 4999, fx_on_user, &b);
    db_session_user(f.db, "tok1", 5000, fx_on_user, &c);
    db_user_by_name(f.db, "nobody", fx_on_user, &e);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(a.status, DB_OK);
    ck_assert_str_eq(a.u.pwhash, "$new");
    ck_assert_str_eq(a.u.options, "tiles=2");
    ck_assert_str_eq(a.u.name_key, "hana");
    ck_assert_int_eq(b.status, DB_OK);
    ck_assert_int_eq(b.u.id, u);
    ck_assert_int_eq(c.status, DB_ENOTFOUND);
    ck_assert_int_eq(e.status, DB_ENOTFOUND);
    fx_done_t p = {0};
    db_session_purge(f.db, 6000, fx_on_done, &p);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(p.id, 1);
    fx_close(&f);
}
END_TEST

START_TEST(close_delivers_pending)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "ivan"), 1);
    fx_done_t d = {0};
    journal_res_t *j = calloc(1, sizeof *j);
    db_journal_append(f.db, g, 1, (const uint8_t *)"q", 1, 55, fx_on_done, &d);
    ck_assert_int_eq(db_flush_sync(f.db), DB_OK);
    db_journal_read(f.db, g, 0, on_journal, j);
    db_close(f.db);
    ck_assert_int_eq(d.calls, 1);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(j->calls, 1);
    ck_assert_uint_eq(j->n, 1);
    free(j);
    f.db = NULL;
    uv_run(&f.loop, UV_RUN_DEFAULT);
    fx_remove(&f);
}
END_TEST

static void expect_open_fails(const char *path, const char *want)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    char err[256] = "";
    db_t *db = db_open(&loop, path, err, sizeof err);
    ck_assert_ptr_null(db);
    ck_assert_msg(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}

START_TEST(open_failures)
{
    char dir[64] = "/tmp/warren-dbfail-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p[160];
    /* Parent is a regular file: cannot create the directory (even as root). */
    snprintf(p, sizeof p, "%s/file", dir);
    FILE *fp = fopen(p, "w");
    fputs("x", fp);
    fclose(fp);
    snprintf(p, sizeof p, "%s/file/sub/w.db", dir);
    expect_open_fails(p, "cannot create directory");
    /* The path is a directory. */
    snprintf(p, sizeof p, "%s", dir);
    expect_open_fails(p, "cannot");
    /* A corrupt file. */
    snprintf(p, sizeof p, "%s/corrupt.db", dir);
    fp = fopen(p, "w");
    for (int i = 0; i < 8192; i++)
        fputc((i * 7919) & 0xff, fp);
    fclose(fp);
    expect_open_fails(p, "not a database");
    /* A file from a newer schema. */
    snprintf(p, sizeof p, "%s/new.db", dir);
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(p, &h), SQLITE_OK);
    sqlite3_exec(h, "PRAGMA user_version = 999;", NULL, NULL, NULL);
    sqlite3_close(h);
    expect_open_fails(p, "newer");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(bad_arguments)
{
    fx_t f;
    fx_open(&f);
    char longv[100];
    memset(longv, 'v', sizeof longv - 1);
    longv[99] = '\0';
    db_game_new_t g = {.user = 1, .content_version = longv};
    ck_assert_int_eq(db_game_create(f.db, &g, NULL, NULL), DB_EINVAL);
    fx_done_t d = {0};
    db_user_create(f.db, longv, longv, "h", 1, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_EINVAL);
    ck_assert_str_ne(db_error(f.db), "");
    fx_close(&f);
}
END_TEST

/* ---- crash safety: what was acknowledged survives SIGKILL ---- */
typedef struct {
    int fd;
    db_t *db;
    int64_t game, seq;
} crash_t;

static void crash_acked(void *ud, int status, int64_t id)
{
    crash_t *c = ud;
    if (status != DB_OK)
        _exit(3);
    int64_t v = id;
    if (write(c->fd, &v, sizeof v) != sizeof v)
        _exit(4);
}

static void crash_tick(uv_timer_t *t)
{
    crash_t *c = t->data;
    for (int i = 0; i < 5; i++) {
        c->seq++;
        uint8_t k[4] = {(uint8_t)c->seq, 1, 2, 3};
        db_journal_append(c->db, c->game, c->seq, k, sizeof k, 60, crash_acked, c);
    }
}

static void crash_child(const char *path, int fd)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    char err[256];
    crash_t c = {.fd = fd};
    c.db = db_open(&loop, path, err, sizeof err);
    if (!c.db)
        _exit(2);
    db_user_create(c.db, "kim", "kim", "h", 0, NULL, NULL);
    db_game_new_t g = {.user = 1, .seed = 1, .content_version = "c"};
    c.game = db_game_create(c.db, &g, NULL, NULL);
    uv_timer_t t;
    uv_timer_init(&loop, &t);
    t.data = &c;
    uv_timer_start(&t, crash_tick, 1, 1);
    uv_run(&loop, UV_RUN_DEFAULT);
    _exit(0);
}

START_TEST(acknowledged_writes_survive_sigkill)
{
    fx_t f;
    fx_open(&f);
    db_close(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(p[0]);
        crash_child(f.path, p[1]);
    }
    close(p[1]);
    int64_t acked = 0, v;
    while (acked < 300 && read(p[0], &v, sizeof v) == sizeof v)
        if (v > acked)
            acked = v;
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    close(p[0]);
    ck_assert(WIFSIGNALED(st));
    ck_assert_int_ge(acked, 300);
    char err[256];
    f.db = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(f.db != NULL, "%s", err);
    journal_res_t *j = calloc(1, sizeof *j);
    /* the child's game: ids come from the database, not from 1 */
    int64_t game = count_rows(f.path, "SELECT max(id) FROM games");
    db_journal_read(f.db, game, 0, on_journal, j);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(j->status, DB_OK);
    ck_assert_int_ge((int64_t)j->n, acked);
    for (size_t i = 0; i < j->n && i < 256; i++)
        ck_assert_int_eq(j->seq[i], (int64_t)i + 1);
    free(j);
    fx_close(&f);
}
END_TEST

/* ---- storage faults: no gaps, snapshots behind the journal, a cap ---- */

/* Runs sql on the file through a connection of its own (what the db
 * refuses to do, to make a damaged journal). */
static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    char *msg = NULL;
    ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK, "%s", msg);
    sqlite3_close(h);
}

START_TEST(journal_has_no_gaps_and_snapshots_follow_it)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "hal"), 9);
    fx_done_t a = {0}, gap = {0}, ahead = {0}, b = {0}, snap = {0}, c = {0}, none = {0};
    db_journal_append(f.db, g, 1, (const uint8_t *)"a", 1, 0, fx_on_done, &a);
    db_journal_append(f.db, g, 3, (const uint8_t *)"c", 1, 0, fx_on_done, &gap);
    db_snapshot_save(f.db, g, 1, 2, (const uint8_t *)"s", 1, fx_on_done, &ahead);
    db_journal_append(f.db, g, 2, (const uint8_t *)"b", 1, 0, fx_on_done, &b);
    db_snapshot_save(f.db, g, 1, 2, (const uint8_t *)"s", 1, fx_on_done, &snap);
    db_journal_append(f.db, g, 3, (const uint8_t *)"c", 1, 0, fx_on_done, &c);
    db_snapshot_save(f.db, g, 1, 0, (const uint8_t *)"z", 1, fx_on_done, &none); /* covers no row */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(a.status, DB_OK);
    ck_assert_int_eq(gap.status, DB_ENOTFOUND); /* row 2 was not there yet */
    ck_assert_int_eq(ahead.status, DB_ENOTFOUND);
    ck_assert_int_eq(b.status, DB_OK);
    ck_assert_int_eq(snap.status, DB_OK);
    ck_assert_int_eq(c.status, DB_OK);
    ck_assert_int_eq(none.status, DB_OK);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), 3);
    ck_assert_int_eq(count_rows(f.path, "SELECT max(seq) FROM snapshots WHERE game = 1"), 2);
    fx_close(&f);
}
END_TEST

#define FILL_ROWS 3000

/* A cap at the database's size: appends fill what room is left, the first
 * that needs a page fails as on a full disk, every later one finds the gap
 * and fails too; lifting the cap lets the same rows in. */
START_TEST(max_size_fails_like_a_full_disk)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "ivy"), 11);
    fx_done_t cap = {0}, lift = {0};
    db_set_max_size(f.db, 1, fx_on_done, &cap); /* never below the size now */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(cap.status, DB_OK);
    int size = count_rows(f.path, "SELECT page_count * page_size FROM pragma_page_count(), "
                                  "pragma_page_size()");
    ck_assert_int_eq(cap.id, size);
    fx_done_t *d = calloc(FILL_ROWS + 1, sizeof *d);
    for (int i = 1; i <= FILL_ROWS; i++)
        db_journal_append(f.db, g, i, (const uint8_t *)"k", 1, 5, fx_on_done, &d[i]);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    int first = 0;
    for (int i = 1; i <= FILL_ROWS && !first; i++)
        if (d[i].status != DB_OK)
            first = i;
    ck_assert_int_gt(first, 1);
    ck_assert_int_eq(d[first].status, DB_ERR);
    for (int i = first - 1; i <= first + 3; i++)
        ck_assert_ptr_nonnull(strstr(db_error(f.db), "full"));
    for (int i = first + 1; i <= FILL_ROWS; i++)
        ck_assert_int_eq(d[i].status, DB_ENOTFOUND);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), first - 1);
    ck_assert_int_eq(count_rows(f.path, "SELECT page_count * page_size FROM pragma_page_count(), "
                                        "pragma_page_size()"),
                     size);
    db_set_max_size(f.db, 0, fx_on_done, &lift);
    memset(d, 0, (FILL_ROWS + 1) * sizeof *d);
    for (int i = first; i <= FILL_ROWS; i++)
        db_journal_append(f.db, g, i, (const uint8_t *)"k", 1, 5, fx_on_done, &d[i]);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(lift.status, DB_OK);
    ck_assert_int_eq(lift.id, 0);
    for (int i = first; i <= FILL_ROWS; i++)
        ck_assert_int_eq(d[i].status, DB_OK);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), FILL_ROWS);
    free(d);
    fx_close(&f);
}
END_TEST

/* A journal damaged before the rows were guarded (row 4 missing): the rows
 * after the gap move aside, snapshots past it go, and the journal goes on. */
START_TEST(rows_after_a_gap_set_aside)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "jo"), 12);
    for (int i = 1; i <= 3; i++)
        db_journal_append(f.db, g, i, (const uint8_t *)"k", 1, 5, NULL, NULL);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    exec_sql(f.path, "INSERT INTO journal(game, seq, keys, ms) VALUES (1, 5, x'65', 7), "
                     "(1, 6, x'66', 8); INSERT INTO snapshots VALUES (1, 9, 6, x'00');");
    fx_done_t aside = {0}, next = {0};
    db_journal_set_aside(f.db, g, 3, fx_on_done, &aside);
    db_journal_append(f.db, g, 4, (const uint8_t *)"d", 1, 5, fx_on_done, &next);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(aside.status, DB_OK);
    ck_assert_int_eq(aside.id, 2);
    ck_assert_int_eq(next.status, DB_OK);
    ck_assert_int_eq(count_rows(f.path, "SELECT max(seq) FROM journal"), 4);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal_aside WHERE game = 1 AND "
                                        "after_seq = 3 AND seq IN (5, 6) AND ms > 6"),
                     2);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM snapshots"), 0);
    fx_close(&f);
}
END_TEST

/* SQLite's memory in use, as its statistics count it, in a process of its
 * own that calls db_process_init first (init) or not. */
static long long sqlite_memory_counted(bool init)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        long long used = (init && !db_process_init()) ? -1 : 0;
        sqlite3 *h = NULL;
        if (used == 0 && sqlite3_open(":memory:", &h) == SQLITE_OK &&
            sqlite3_exec(h, "CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(20000))", NULL,
                         NULL, NULL) == SQLITE_OK) {
            sqlite3_int64 cur = 0, hi = 0;
            sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &hi, 0);
            used = cur;
        }
        sqlite3_close(h);
        _exit(write(fd[1], &used, sizeof used) == sizeof used ? 0 : 1);
    }
    close(fd[1]);
    long long used = -2;
    ck_assert_int_eq(read(fd[0], &used, sizeof used), (ssize_t)sizeof used);
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return used;
}

/* The daemon's setting before its threads: SQLite keeps no memory
 * statistics, whose global mutex every allocation of every connection
 * (the writer's, the readers') would take. */
START_TEST(process_init_turns_sqlite_memory_statistics_off)
{
    ck_assert_int_gt(sqlite_memory_counted(false), 20000);
    ck_assert_int_eq(sqlite_memory_counted(true), 0);
}
END_TEST

/* A broken game is listed for the admins; its player is told once. */
START_TEST(broken_games_listed_and_told)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "kim"), 13);
    int64_t live = make_game(&f, make_user(&f, "lou"), 14);
    fx_done_t brk = {0}, told = {0}, not_broken = {0};
    db_game_mark_broken(f.db, g, "journal gap at seq 1", fx_on_done, &brk);
    db_game_broken_told(f.db, g, fx_on_done, &told);
    db_game_broken_told(f.db, live, fx_on_done, &not_broken);
    games_res_t *r = calloc(1, sizeof *r);
    db_games_broken(f.db, 10, on_games, r);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(brk.status, DB_OK);
    ck_assert_int_eq(told.status, DB_OK);
    ck_assert_int_eq(not_broken.status, DB_ENOTFOUND);
    ck_assert_int_eq(r->status, DB_OK);
    ck_assert_uint_eq(r->n, 1);
    ck_assert_int_eq(r->g[0].id, g);
    ck_assert_int_eq(r->g[0].state, DB_GAME_BROKEN);
    ck_assert(r->g[0].broken_told);
    ck_assert_str_eq(r->g[0].broken_reason, "journal gap at seq 1");
    free(r);
    fx_close(&f);
}
END_TEST

/* Game ids come from the database's counter in blocks: more than a block
 * drawn in one loop turn are all different, every one stores a game, and
 * after a reopen none is given again (on SQLite, whose counter takes back
 * what was never used, the next is the one after the last game; a game
 * another program stored meanwhile is stepped over). */
START_TEST(game_ids_come_from_the_database)
{
    fx_t f;
    fx_open(&f);
    enum { N = DB_IDS_CAP * 3 };
    int64_t ids[N], top = 0;
    for (int i = 0; i < N; i++) {
        ids[i] = db_next_game_id_(f.db);
        ck_assert_int_gt(ids[i], 0);
        for (int k = 0; k < i; k++)
            ck_assert_int_ne(ids[k], ids[i]);
        top = ids[i] > top ? ids[i] : top;
    }
    int64_t u = make_user(&f, "Ida"), g = make_game(&f, u, 1);
    ck_assert_int_gt(g, top);
    fx_done_t fin = {0};
    db_game_end_t end = {.end_time = 3, .end_kind = "quit"};
    db_game_finish(f.db, g, &end, NULL, 0, NULL, 0, fx_on_done, &fin);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(fin.status, DB_OK);
    db_close(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    bool lite = !db_is_server(f.path);
    if (lite) { /* a game stored by another program while warrend was stopped */
        sqlite3 *h;
        ck_assert_int_eq(sqlite3_open(f.path, &h), SQLITE_OK);
        ck_assert_int_eq(sqlite3_exec(h,
                                      "INSERT INTO games(id, user, seed, content_version, "
                                      "start_time, state) VALUES (1000, 1, 5, 'c1', 1, 'finished')",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
        sqlite3_close(h);
    }
    char err[256];
    f.db = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(f.db != NULL, "%s", err);
    int64_t next = make_game(&f, u, 2);
    if (lite)
        ck_assert_int_eq(next, 1001);
    else
        ck_assert_int_gt(next, g);
    fx_close(&f);
}
END_TEST

typedef struct {
    int status;
    char text[64];
} text_res_t;

static void on_holder(void *ud, int status, const char *text, size_t len)
{
    text_res_t *r = ud;
    r->status = status;
    snprintf(r->text, sizeof r->text, "%.*s", (int)len, text ? text : "");
}

/* Runs the loop and returns the status (and *id) of one lease op. */
static int lease_op(fx_t *f, int kind, int64_t game, const char *node, int64_t ttl, int64_t *id)
{
    fx_done_t d = {0};
    if (kind == 0)
        db_lease_take(f->db, game, node, ttl, fx_on_done, &d);
    else if (kind == 1)
        db_lease_renew(f->db, node, ttl, NULL, fx_on_done, &d);
    else
        db_lease_release(f->db, game, node, fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.calls, 1);
    if (id)
        *id = d.id;
    return d.status;
}

static const char *holder(fx_t *f, int64_t game)
{
    static text_res_t r;
    r = (text_res_t){0};
    db_lease_holder(f->db, game, on_holder, &r);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    return r.status == DB_OK ? r.text : r.status == DB_ENOTFOUND ? "(none)" : "(error)";
}

/* A game's lease: one node at a time; its own again at once; another's
 * only once it has expired (a node that stopped renewing); a heartbeat
 * renews what the node still holds. */
START_TEST(game_leases_one_node_at_a_time)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "Lea"), 1), n = -1;
    ck_assert_str_eq(holder(&f, g), "(none)");
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", 60000, NULL), DB_OK);
    ck_assert_int_eq(lease_op(&f, 0, g, "node-b", 60000, NULL), DB_ENOTFOUND);
    ck_assert_str_eq(holder(&f, g), "node-a");
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", 60000, NULL), DB_OK);
    ck_assert_int_eq(lease_op(&f, 1, 0, "node-a", 60000, &n), DB_OK);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(lease_op(&f, 2, g, "node-b", 0, NULL), DB_OK); /* not b's to drop */
    ck_assert_str_eq(holder(&f, g), "node-a");
    /* a stops renewing: its lease runs out, and b takes the game */
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", -1, NULL), DB_OK);
    ck_assert_str_eq(holder(&f, g), "(none)");
    ck_assert_int_eq(lease_op(&f, 0, g, "node-b", 60000, NULL), DB_OK);
    ck_assert_str_eq(holder(&f, g), "node-b");
    ck_assert_int_eq(lease_op(&f, 1, 0, "node-a", 60000, &n), DB_OK);
    ck_assert_int_eq(n, 0); /* a's heartbeat finds nothing left to renew */
    ck_assert_int_eq(lease_op(&f, 2, g, "node-b", 0, NULL), DB_OK);
    ck_assert_str_eq(holder(&f, g), "(none)");
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", 60000, NULL), DB_OK);
    fx_close(&f);
}
END_TEST

/* One row of game g, seq seq, on f's handle: its status. */
static int append_one(fx_t *f, int64_t g, int64_t seq)
{
    fx_done_t d = {0};
    const uint8_t k = 'h';
    db_journal_append(f->db, g, seq, &k, 1, 0, fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.calls, 1);
    return d.status;
}

static int snapshot_one(fx_t *f, int64_t g, int64_t seq)
{
    fx_done_t d = {0};
    db_snapshot_save(f->db, g, seq, seq, (const uint8_t *)"snap", 4, fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.calls, 1);
    return d.status;
}

/* fx_open with a short wait for another program's lock: a locked-out
 * write fails in busy_ms, not the default 5 s. */
static void fx_open_busy(fx_t *f, int busy_ms)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/warren-dbtest-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/w.db", f->dir);
    ck_assert_int_eq(uv_loop_init(&f->loop), 0);
    char err[256];
    db_guard_t g = {.busy_ms = busy_ms};
    f->db = db_open_guarded(&f->loop, f->path, &g, NULL, err, sizeof err);
    ck_assert_msg(f->db != NULL, "db_open_guarded: %s", err);
}

/* Another program holds the file's write lock past the busy timeout while
 * seq is queued: the batch fails whole. */
static int append_locked_out(fx_t *f, int64_t g, int64_t seq, bool sync)
{
    sqlite3 *h;
    fx_done_t d = {0};
    const uint8_t k = 'h';
    ck_assert_int_eq(sqlite3_open(f->path, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    db_journal_append(f->db, g, seq, &k, 1, 0, fx_on_done, &d);
    int ret = sync ? db_flush_sync(f->db) : DB_OK;
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    ck_assert_int_eq(d.status, DB_ERR);
    return ret;
}

/* A db_flush_sync (a shutdown's last) tells the failure of a batch that
 * failed while it waited, not of one that failed before and was told to
 * its own ops (the false "final flush failed" after a failover). */
START_TEST(flush_sync_tells_only_its_own_batches)
{
    fx_t f;
    fx_open_busy(&f, 250);
    int64_t g = make_game(&f, make_user(&f, "Syd"), 21);
    append_locked_out(&f, g, 1, false);
    fx_done_t d = {0};
    db_journal_append(f.db, g, 1, (const uint8_t *)"h", 1, 0, fx_on_done, &d);
    ck_assert_int_eq(db_flush_sync(f.db), DB_OK);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(append_locked_out(&f, g, 2, true), DB_ERR); /* its own: told */
    ck_assert_ptr_nonnull(strstr(db_error(f.db), "locked"));
    fx_close(&f);
}
END_TEST

/* Fenced by node-a's leases: a's journal rows are stored only while a
 * holds the game's lease (DB_ELEASE otherwise: before it took it, after
 * b took it over), a's snapshots unless another node holds it; a clean
 * stop's release drops every lease of a at once. */
START_TEST(journal_fenced_by_the_lease)
{
    fx_t f;
    fx_open(&f);
    int64_t u = make_user(&f, "Fen"), g = make_game(&f, u, 1), n = -1;
    ck_assert_int_eq(append_one(&f, g, 1), DB_OK); /* not fenced yet: as one node */
    db_lease_fence(f.db, "node-a", 60000);
    ck_assert_int_eq(append_one(&f, g, 2), DB_ELEASE); /* no lease */
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", 60000, NULL), DB_OK);
    ck_assert_int_eq(append_one(&f, g, 2), DB_OK);
    ck_assert_int_eq(append_one(&f, g, 9), DB_ENOTFOUND); /* a gap, not the lease */
    ck_assert_int_eq(snapshot_one(&f, g, 2), DB_OK);
    /* a stops renewing; b takes the game over */
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", -1, NULL), DB_OK);
    ck_assert_int_eq(append_one(&f, g, 3), DB_OK); /* expired, but still a's: no one took it */
    ck_assert_int_eq(lease_op(&f, 0, g, "node-b", 60000, NULL), DB_OK);
    ck_assert_int_eq(append_one(&f, g, 4), DB_ELEASE);
    ck_assert_int_eq(snapshot_one(&f, g, 3), DB_ENOTFOUND);
    journal_res_t j = {0};
    db_journal_read(f.db, g, 0, on_journal, &j);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(j.n, 3);
    /* b let it go: a may store a snapshot of what it has, no journal row */
    ck_assert_int_eq(lease_op(&f, 2, g, "node-b", 0, NULL), DB_OK);
    ck_assert_int_eq(snapshot_one(&f, g, 3), DB_OK);
    ck_assert_int_eq(append_one(&f, g, 4), DB_ELEASE);
    /* a game a fenced node makes is its own from its first row */
    int64_t g4 = make_game(&f, make_user(&f, "Fen4"), 4);
    ck_assert_str_eq(holder(&f, g4), "node-a");
    ck_assert_int_eq(append_one(&f, g4, 1), DB_OK);
    db_game_new_t dg = {.user = make_user(&f, "Fen5"), .seed = 5, .content_version = "c1"};
    fx_done_t dd = {0};
    int64_t g5 = db_daily_create(f.db, "2026-11-28", &dg, (const uint8_t *)"a", 1, fx_on_done, &dd);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(dd.status, DB_OK);
    ck_assert_str_eq(holder(&f, g5), "node-a"); /* the daily game's too */
    ck_assert_int_eq(append_one(&f, g5, 2), DB_OK);
    /* release-all: every lease of a node, none of another's */
    int64_t g2 = make_game(&f, make_user(&f, "Fen2"), 2),
            g3 = make_game(&f, make_user(&f, "Fen3"), 3);
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", 60000, NULL), DB_OK);
    ck_assert_str_eq(holder(&f, g2), "node-a"); /* made by a, as g4 */
    ck_assert_int_eq(lease_op(&f, 0, g3, "node-a", -1, NULL), DB_OK);
    ck_assert_int_eq(lease_op(&f, 0, g3, "node-b", 60000, NULL), DB_OK);
    fx_done_t d = {0};
    db_lease_release_node(f.db, "node-a", fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(d.id, 4); /* g, g2, g4, g5 */
    ck_assert_str_eq(holder(&f, g), "(none)");
    ck_assert_str_eq(holder(&f, g3), "node-b");
    ck_assert_int_eq(lease_op(&f, 1, 0, "node-a", 60000, &n), DB_OK);
    ck_assert_int_eq(n, 0);
    fx_close(&f);
}
END_TEST

/* The game writes besides the journal (progress, the end record, broken)
 * of write kind 0, 1, 2: DB_OK, or DB_ELEASE when fenced off. */
static int game_write(fx_t *f, int kind, int64_t g)
{
    fx_done_t d = {0};
    db_progress_t p = {.turns = 7, .depth = 2, .max_depth = 3, .xl = 1, .race = "", .cls = ""};
    db_game_end_t end = {
        .end_time = 9, .turns = 8, .cause = "fenced", .end_kind = "quit", .race = "", .cls = ""};
    if (kind == 0)
        db_game_progress(f->db, g, &p, fx_on_done, &d);
    else if (kind == 1)
        db_game_finish(f->db, g, &end, NULL, 0, "dump", 4, fx_on_done, &d);
    else
        db_game_mark_broken(f->db, g, "fenced", fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.calls, 1);
    return d.status;
}

static db_game_t game_row(fx_t *f, int64_t g)
{
    games_res_t r = {0};
    db_game_get(f->db, g, on_game, &r);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.status, DB_OK);
    return r.g[0];
}

/* Fenced as journal appends are: a node's progress, end record and
 * broken mark of a game are stored only while it holds the game's lease
 * (expired but not taken still counts); once another node took it they
 * are refused whole (DB_ELEASE) and the row stays as the other left it. */
START_TEST(game_writes_fenced_by_the_lease)
{
    fx_t f;
    fx_open(&f);
    int64_t g = make_game(&f, make_user(&f, "Gwf"), 1);
    db_lease_fence(f.db, "node-a", 60000);
    for (int kind = 0; kind < 3; kind++) /* no lease yet */
        ck_assert_int_eq(game_write(&f, kind, g), DB_ELEASE);
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", 60000, NULL), DB_OK);
    ck_assert_int_eq(game_write(&f, 0, g), DB_OK);
    ck_assert_int_eq(game_row(&f, g).turns, 7);
    /* a's lease lapses: still a's until b takes it */
    ck_assert_int_eq(lease_op(&f, 0, g, "node-a", -1, NULL), DB_OK);
    ck_assert_int_eq(game_write(&f, 0, g), DB_OK);
    ck_assert_int_eq(lease_op(&f, 0, g, "node-b", 60000, NULL), DB_OK);
    for (int kind = 0; kind < 3; kind++)
        ck_assert_int_eq(game_write(&f, kind, g), DB_ELEASE);
    db_game_t row = game_row(&f, g);
    ck_assert_int_eq(row.state, DB_GAME_LIVE);
    ck_assert_int_eq(row.end_time, 0);
    ck_assert_str_eq(row.broken_reason, "");
    /* a game of its own: a ends it */
    int64_t g2 = make_game(&f, make_user(&f, "Gwf2"), 2);
    ck_assert_int_eq(game_write(&f, 1, g2), DB_OK);
    ck_assert_int_eq(game_row(&f, g2).state, DB_GAME_FINISHED);
    int64_t g3 = make_game(&f, make_user(&f, "Gwf3"), 3);
    ck_assert_int_eq(game_write(&f, 2, g3), DB_OK);
    ck_assert_int_eq(game_row(&f, g3).state, DB_GAME_BROKEN);
    fx_close(&f);
}
END_TEST

typedef struct {
    int status;
    size_t n;
    db_pair_t rows[8];
} gone_t;

static void on_gone(void *ud, int status, const db_pair_t *rows, size_t n)
{
    gone_t *g = ud;
    g->status = status;
    g->n = n;
    for (size_t i = 0; i < n && i < 8; i++)
        g->rows[i] = rows[i];
}

/* The accounts read again after a listener's gap: one query for all. */
START_TEST(accounts_deleted_or_locked_read_in_one_query)
{
    fx_t f;
    fx_open(&f);
    int64_t kept = make_user(&f, "Ida"), locked = make_user(&f, "Jon");
    fx_done_t d = {0};
    db_user_set_locked(f.db, locked, true, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    int64_t ids[] = {kept, locked, 999999};
    gone_t g = {0};
    db_users_gone(f.db, ids, 3, on_gone, &g);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.status, DB_OK);
    ck_assert_int_eq(g.n, 2);
    for (size_t i = 0; i < 2; i++) /* a locked account's b is 1, a deleted one's 0 */
        ck_assert_int_eq(g.rows[i].b, g.rows[i].a == locked);
    ck_assert_int_eq(g.rows[0].a + g.rows[1].a, locked + 999999);
    fx_close(&f);
}
END_TEST

/* Web logins looked up again after a listener's gap: one query for
 * all, each answered by its place (a session still the account's is
 * not); a login made past the account's cap says how many it ended. */
START_TEST(logins_ended_read_in_one_query)
{
    fx_t f;
    fx_open(&f);
    int64_t kay = make_user(&f, "Kay"), lot = make_user(&f, "Lot");
    fx_done_t d = {0};
    db_session_create(f.db, "aa01", kay, 5000, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(d.id, 0); /* under the cap: none ended */
    db_session_create(f.db, "bb02", lot, 5000, fx_on_done, &d);
    db_session_create(f.db, "cc03", lot, 10, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_user_set_locked(f.db, lot, true, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    const char *hashes[] = {"aa01", "bb02", "dd04", "aa01", "aa01", "not hex"};
    int64_t users[] = {kay, lot, kay, lot, 999999, kay};
    gone_t g = {0};
    db_logins_gone(f.db, hashes, users, 6, 100, on_gone, &g);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g.status, DB_OK);
    ck_assert_uint_eq(g.n, 5);
    /* 1: locked; 2: no such session; 3: another account's (locked too);
     * 4: no such account; 5: a hash no session has */
    ck_assert_int_eq(g.rows[0].a, 1);
    ck_assert_int_eq(g.rows[0].b, DB_LOGIN_LOCKED);
    ck_assert_int_eq(g.rows[1].a, 2);
    ck_assert_int_eq(g.rows[1].b, DB_LOGIN_ENDED);
    ck_assert_int_eq(g.rows[2].a, 3);
    ck_assert_int_eq(g.rows[2].b, DB_LOGIN_LOCKED);
    ck_assert_int_eq(g.rows[3].a, 4);
    ck_assert_int_eq(g.rows[3].b, DB_LOGIN_DELETED);
    ck_assert_int_eq(g.rows[4].a, 5);
    ck_assert_int_eq(g.rows[4].b, DB_LOGIN_ENDED);
    g = (gone_t){0};
    const char *expired[] = {"cc03"};
    db_user_set_locked(f.db, lot, false, fx_on_done, &d);
    db_logins_gone(f.db, expired, &lot, 1, 100, on_gone, &g); /* expired at 10 */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_int_eq(g.rows[0].b, DB_LOGIN_ENDED);
    for (int i = 0; i < DB_SESSIONS_PER_USER - 1; i++) {
        char h[16];
        snprintf(h, sizeof h, "ee%02d", i);
        db_session_create(f.db, h, kay, 6000 + i, fx_on_done, &d);
        uv_run(&f.loop, UV_RUN_DEFAULT);
        ck_assert_int_eq(d.id, 0);
    }
    db_session_create(f.db, "ff99", kay, 7000, fx_on_done, &d); /* aa01 is past the cap */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(d.id, 1);
    fx_close(&f);
}
END_TEST

Suite *suite_db_store(void)
{
    Suite *s = suite_create("db_store");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, open_migrates_and_reopens);
    tcase_add_test(tc, journal_rows_from_version_1_read_unknown_times);
    tcase_add_test(tc, journal_append_times_kept);
    tcase_add_test(tc, group_commit_one_transaction_per_turn);
    tcase_add_test(tc, a_key_goes_ahead_of_game_starts_queued_before_it);
    tcase_add_test(tc, a_commits_answers_come_as_one_round);
    tcase_add_test(tc, a_bursts_answers_come_a_budget_a_turn);
    tcase_add_test(tc, wal_checkpointed_beside_the_writer);
    tcase_add_test(tc, checkpointer_woken_once_per_request);
    tcase_add_test(tc, two_loops_share_one_database);
    tcase_add_test(tc, journal_order_and_duplicates);
    tcase_add_test(tc, snapshot_and_later_journal);
    tcase_add_test(tc, finish_unfinished_scores);
    tcase_add_test(tc, users_and_sessions);
    tcase_add_test(tc, accounts_deleted_or_locked_read_in_one_query);
    tcase_add_test(tc, logins_ended_read_in_one_query);
    tcase_add_test(tc, close_delivers_pending);
    tcase_add_test(tc, open_failures);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, acknowledged_writes_survive_sigkill);
    tcase_add_test(tc, game_ids_come_from_the_database);
    tcase_add_test(tc, game_leases_one_node_at_a_time);
    tcase_add_test(tc, journal_fenced_by_the_lease);
    tcase_add_test(tc, game_writes_fenced_by_the_lease);
    suite_add_tcase(s, tc);
    TCase *faults = tcase_create("storage faults");
    tcase_set_timeout(faults, 30);
    tcase_add_test(faults, journal_has_no_gaps_and_snapshots_follow_it);
    tcase_add_test(faults, max_size_fails_like_a_full_disk);
    tcase_add_test(faults, flush_sync_tells_only_its_own_batches);
    tcase_add_test(faults, rows_after_a_gap_set_aside);
    tcase_add_test(faults, process_init_turns_sqlite_memory_statistics_off);
    tcase_add_test(faults, broken_games_listed_and_told);
    suite_add_tcase(s, faults);
    return s;
}

/* The same tests on PostgreSQL, where WARREN_PG_URL names a server
 * (tests/integration/test_storage_pg.py runs them): every one that is not
 * about the SQLite file itself. Without it the suite has no tests. */
Suite *suite_db_store_pg(void)
{
    Suite *s = suite_create("db_store_pg");
    if (!getenv("WARREN_PG_URL"))
        return s;
    TCase *tc = tcase_create("postgresql");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, fx_use_pg, NULL);
    tcase_add_test(tc, open_migrates_and_reopens);
    tcase_add_test(tc, group_commit_one_transaction_per_turn);
    tcase_add_test(tc, a_key_goes_ahead_of_game_starts_queued_before_it);
    tcase_add_test(tc, a_key_is_written_while_two_batches_are_held);
    tcase_add_test(tc, a_game_start_is_not_held_by_a_key_queued_after_it);
    tcase_add_test(tc, journal_append_times_kept);
    tcase_add_test(tc, a_bursts_answers_come_a_budget_a_turn);
    tcase_add_test(tc, two_loops_share_one_database);
    tcase_add_test(tc, journal_order_and_duplicates);
    tcase_add_test(tc, snapshot_and_later_journal);
    tcase_add_test(tc, finish_unfinished_scores);
    tcase_add_test(tc, users_and_sessions);
    tcase_add_test(tc, accounts_deleted_or_locked_read_in_one_query);
    tcase_add_test(tc, logins_ended_read_in_one_query);
    tcase_add_test(tc, close_delivers_pending);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, acknowledged_writes_survive_sigkill);
    tcase_add_test(tc, journal_has_no_gaps_and_snapshots_follow_it);
    tcase_add_test(tc, broken_games_listed_and_told);
    tcase_add_test(tc, game_ids_come_from_the_database);
    tcase_add_test(tc, game_leases_one_node_at_a_time);
    tcase_add_test(tc, journal_fenced_by_the_lease);
    tcase_add_test(tc, game_writes_fenced_by_the_lease);
    suite_add_tcase(s, tc);
    return s;
}
