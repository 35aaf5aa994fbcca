/* Unit tests: the db layer on PostgreSQL — every statement of the table
 * prepared there and checked against its row, the migrations, group
 * commit with a failing op undone alone, the journal, snapshots, resume,
 * finishing and reading games, reopening. A real server: the suite runs
 * where WARREN_PG_URL names one (tests/integration/test_storage_pg.py
 * starts a private cluster and runs this suite against it); without it
 * the suite has no tests. Each test works in a schema of its own. */
#include <arpa/inet.h>
#include <check.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>
#include <uv.h>
#include "db.h"
#include "db_fixture.h"
#include "db_internal.h"
#include "db_listen.h"
#include "db_records.h"
#include "peersum.h"

/* A fresh schema of the server's database (db_fixture.h). */
static void pg_open(fx_t *f)
{
    fx_use_pg();
    ck_assert_ptr_nonnull(*fx_pg());
    fx_open(f);
}

typedef struct {
    int status;
    bool has_snap;
    int64_t snap_seq, game;
    char snap[32];
    size_t n;
    int64_t seq[8];
    uint8_t keys[8][4];
    size_t len[8];
} resume_res_t;

static void on_resume(void *ud, int status, const db_resume_t *r)
{
    resume_res_t *x = ud;
    x->status = status;
    if (!r)
        return;
    x->game = r->game.id;
    x->has_snap = r->has_snapshot;
    x->snap_seq = r->snap_seq;
    if (r->has_snapshot)
        snprintf(x->snap, sizeof x->snap, "%.*s", (int)r->snap_len, (const char *)r->snap);
    x->n = r->nrows;
    for (size_t i = 0; i < r->nrows && i < 8; i++) {
        x->seq[i] = r->rows[i].seq;
        x->len[i] = r->rows[i].len;
        memcpy(x->keys[i], r->rows[i].keys, r->rows[i].len < 4 ? r->rows[i].len : 4);
    }
}

typedef struct {
    int status;
    size_t n;
    db_game_t g[4];
} games_res_t;

static void on_games(void *ud, int status, const db_game_t *g, size_t n)
{
    games_res_t *r = ud;
    r->status = status;
    r->n = n;
    for (size_t i = 0; i < n && i < 4; i++)
        r->g[i] = g[i];
}

static void on_game(void *ud, int status, const db_game_t *g)
{
    on_games(ud, status, g, g ? 1 : 0);
}

static int64_t make_user(fx_t *f, const char *name, const char *key)
{
    fx_done_t d = {0};
    db_user_create(f->db, name, key, "$argon2id$fake", 1000, fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_gt(d.id, 0);
    return d.id;
}

static int64_t make_game(fx_t *f, int64_t user)
{
    db_game_new_t g = {.user = user,
                       .seed = 0xfedcba9876543210ull, /* above INT64_MAX: stored signed */
                       .content_version = "c1",
                       .race = "human",
                       .cls = "fighter",
                       .start_time = 2000};
    fx_done_t d = {0};
    int64_t id = db_game_create(f->db, &g, fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    return id;
}

/* ---- recorders for the social, records and hosted reads ---- */

typedef struct {
    int status;
    size_t n;
    int64_t num; /* rank, or the one row's until / bytes */
    char text[64];
    bool flag;
    int64_t count; /* totals' finished, or chunks */
} any_res_t;

static void on_number(void *ud, int status, int64_t n)
{
    *(any_res_t *)ud = (any_res_t){.status = status, .num = n};
}

static void on_sanctions(void *ud, int status, const db_sanction_t *s, size_t n)
{
    any_res_t *r = ud;
    *r = (any_res_t){.status = status, .n = n};
    if (n) {
        r->num = s[0].until;
        snprintf(r->text, sizeof r->text, "%s", s[0].net);
    }
}

static void on_mail(void *ud, int status, const db_mail_t *m, size_t n)
{
    any_res_t *r = ud;
    *r = (any_res_t){.status = status, .n = n};
    if (n)
        snprintf(r->text, sizeof r->text, "%.20s:%.20s", m[0].from, m[0].text);
}

static void on_totals(void *ud, int status, const db_player_totals_t *t)
{
    any_res_t *r = ud;
    *r = (any_res_t){.status = status};
    if (t)
        r->count = t->finished, r->num = t->games;
}

static void on_hosted(void *ud, int status, const db_hosted_score_t *h, size_t n)
{
    (void)h;
    *(any_res_t *)ud = (any_res_t){.status = status, .n = n};
}

static void on_hosted_game(void *ud, int status, const db_hosted_game_t *g,
                           const db_hosted_score_t *score, const db_hosted_chunk_t *c, size_t n)
{
    (void)score;
    (void)c;
    any_res_t *r = ud;
    *r = (any_res_t){.status = status, .n = n};
    if (!g)
        return;
    r->num = g->bytes;
    r->flag = g->truncated;
    r->count = g->chunks;
    snprintf(r->text, sizeof r->text, "%lld", (long long)g->id);
}

/* ---- tests ---- */

START_TEST(every_statement_prepares_on_postgresql)
{
    fx_t f;
    pg_open(&f);
    ck_assert_int_eq(db_schema_version(f.db), db_pg_migration_count());
    ck_assert_int_eq(db_pg_migration_count(), db_migration_count());
    db_conn_t c = {0};
    char err[256] = "";
    ck_assert_msg(db_pg_connect(&c, f.path, false, err, sizeof err) == DB_OK, "%s", err);
    for (int i = 0; i < DB_STMT_COUNT; i++)
        ck_assert_msg(db_pg_verify(&c, i, err, sizeof err) == DB_OK, "%s", err);
    c.be->close(&c);
    fx_close(&f);
}
END_TEST

/* The ?N and user rewriting leaves quoted text and longer words alone. */
START_TEST(statements_are_translated_for_postgresql)
{
    db_stmt_def_t d = {.name = "T",
                       .sql = "SELECT 'a?1 user', users.id, g.user FROM users WHERE user = ?12"};
    char out[256];
    ck_assert_str_eq(db_pg_sql(&d, out, sizeof out),
                     "SELECT 'a?1 user', users.id, g.\"user\" FROM users WHERE \"user\" = $12");
    ck_assert_ptr_null(db_pg_sql(&d, out, 10));
}
END_TEST

START_TEST(group_commit_undoes_a_failing_op_alone)
{
    fx_t f;
    pg_open(&f);
    int64_t u = make_user(&f, "Bob-1", "bob-1");
    fx_user_t r = {0};
    db_user_by_name(f.db, "BOB-1", fx_on_user, &r);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.status, DB_OK);
    ck_assert_str_eq(r.u.game_name, "Bob_1"); /* the trigger of migration 8 */
    int64_t g = make_game(&f, u);
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    /* One loop turn: 20 appends, a duplicate name, a gap in the journal. */
    fx_done_t d[20] = {{0}}, dup = {0}, gap = {0};
    for (int i = 0; i < 20; i++) {
        uint8_t k = (uint8_t)i;
        db_journal_append(f.db, g, i + 1, &k, 1, 5, fx_on_done, &d[i]);
        if (i == 10)
            db_user_create(f.db, "BOB-1", "bob-1", "$h", 1, fx_on_done, &dup);
    }
    db_journal_append(f.db, g, 30, (const uint8_t *)"x", 1, 5, fx_on_done, &gap);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_stats(f.db, &s1);
    /* the appends and the gap in one, the account's write in a batch of
     * its own (db.c's take: a row of it may be held by another session) */
    ck_assert_uint_eq(s1.commits - s0.commits, 2);
    ck_assert_uint_eq(s1.writes - s0.writes, 22);
    for (int i = 0; i < 20; i++)
        ck_assert_msg(d[i].status == DB_OK, "append %d: %d", i, d[i].status);
    ck_assert_int_eq(dup.status, DB_EEXISTS);
    ck_assert_int_eq(gap.status, DB_ENOTFOUND);
    resume_res_t x = {0};
    db_game_resume(f.db, g, on_resume, &x);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(x.status, DB_OK);
    ck_assert_uint_eq(x.n, 20);
    ck_assert_int_eq(x.seq[7], 8);
    fx_close(&f);
}
END_TEST

START_TEST(journal_snapshot_resume_finish_and_reopen)
{
    fx_t f;
    pg_open(&f);
    int64_t u = make_user(&f, "Ann", "ann");
    int64_t g = make_game(&f, u);
    static const uint8_t keys[3][3] = {{0x00, 0xff, 0x5c}, {'a', 0, 'b'}, {'\\', 'x', '0'}};
    fx_done_t d[3] = {{0}}, snap = {0};
    for (int i = 0; i < 3; i++)
        db_journal_append(f.db, g, i + 1, keys[i], 3, 7, fx_on_done, &d[i]);
    db_snapshot_save(f.db, g, 40, 2, (const uint8_t *)"snap\0shot", 9, fx_on_done, &snap);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(snap.status, DB_OK);
    resume_res_t x = {0};
    db_game_resume(f.db, g, on_resume, &x);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(x.status, DB_OK);
    ck_assert(x.has_snap);
    ck_assert_int_eq(x.snap_seq, 2);
    ck_assert_str_eq(x.snap, "snap"); /* the bytes after the NUL are there too: */
    ck_assert_uint_eq(x.n, 1);        /* the row after the snapshot */
    ck_assert_int_eq(x.seq[0], 3);
    ck_assert_uint_eq(x.len[0], 3);
    ck_assert_mem_eq(x.keys[0], keys[2], 3);
    db_game_end_t end = {.end_time = 3000,
                         .turns = 40,
                         .depth = 2,
                         .max_depth = 3,
                         .xl = 4,
                         .score = 1234,
                         .cause = "killed by a newt",
                         .end_kind = "dead"};
    db_milestone_t ms[2] = {{1, 1, "start", "began"}, {30, 3, "depth", "went down"}};
    fx_done_t fin = {0};
    db_game_finish(f.db, g, &end, ms, 2, "dump", 4, fx_on_done, &fin);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(fin.status, DB_OK);
    int64_t id = db_next_game_id_(f.db);
    db_close(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    char err[256];
    f.db = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(f.db != NULL, "%s", err);
    ck_assert_int_gt(db_next_game_id_(f.db), id); /* the sequence never goes back */
    games_res_t top = {0};
    db_scores_top(f.db, 10, 0, on_games, &top);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(top.status, DB_OK);
    ck_assert_uint_eq(top.n, 1);
    ck_assert_int_eq(top.g[0].score, 1234);
    ck_assert_uint_eq(top.g[0].seed, 0xfedcba9876543210ull);
    ck_assert_str_eq(top.g[0].player, "Ann");
    ck_assert_int_eq(top.g[0].state, DB_GAME_FINISHED);
    ck_assert_str_eq(top.g[0].cause, "killed by a newt");
    fx_close(&f);
}
END_TEST

static void run(fx_t *f)
{
    uv_run(&f->loop, UV_RUN_DEFAULT);
}

/* Upserts, ignored inserts, case-insensitive filters, sums and ranks: the
 * rows written twice, once per dialect, do the same. */
START_TEST(rows_of_two_dialects_agree)
{
    fx_t f;
    pg_open(&f);
    int64_t ann = make_user(&f, "Ann", "ann"), bob = make_user(&f, "bob", "bob");
    int64_t g = make_game(&f, ann);
    db_game_end_t end = {.end_time = 3000, .score = 50, .cause = "x", .end_kind = "quit"};
    db_game_finish(f.db, g, &end, NULL, 0, "", 0, NULL, NULL);
    for (int i = 1; i <= 2; i++) {
        db_ban_put(f.db, "10.0.0.0/8", 100 * i, 1, NULL, NULL);
        db_mute_put(f.db, bob, 100 * i, NULL, NULL);
    }
    db_mail_send(f.db, bob, ann, 10, "hello", 5, NULL, NULL);
    any_res_t bans, mutes, mail, rank, totals;
    games_res_t human = {0};
    db_bans_list(f.db, on_sanctions, &bans);
    db_mutes_list(f.db, on_sanctions, &mutes);
    db_mail_unseen(f.db, bob, on_mail, &mail);
    db_game_rank(f.db, g, on_number, &rank);
    db_player_totals(f.db, ann, on_totals, &totals);
    db_scores_filtered(f.db, &(db_scores_filter_t){.race = "HUMAN", .limit = 5}, on_games, &human);
    run(&f);
    ck_assert_uint_eq(bans.n, 1);
    ck_assert_int_eq(bans.num, 200);
    ck_assert_uint_eq(mutes.n, 1);
    ck_assert_str_eq(mutes.text, "bob");
    ck_assert_int_eq(mutes.num, 200);
    ck_assert_str_eq(mail.text, "Ann:hello");
    ck_assert_int_eq(rank.status, DB_OK);
    ck_assert_int_eq(rank.num, 1);
    ck_assert_int_eq(totals.count, 1);
    ck_assert_int_eq(totals.num, 1);
    ck_assert_int_eq(human.status, DB_OK);
    ck_assert_uint_eq(human.n, 1);
    fx_close(&f);
}
END_TEST

/* Hosted games: a score row stored once however often it is added, bytes
 * summed and truncated kept; a deleted account's game name retired. */
START_TEST(hosted_rows_and_retired_names)
{
    fx_t f;
    pg_open(&f);
    int64_t bob = make_user(&f, "bob", "bob");
    any_res_t open = {0}, got = {0}, top = {0};
    db_hosted_game_open(f.db, bob, "nethack", 5, 80, 24, 0, on_hosted_game, &open);
    run(&f);
    ck_assert_int_eq(open.status, DB_OK);
    int64_t id = strtoll(open.text, NULL, 10);
    db_hosted_chunk_add(f.db, id, 1, "ab", 2, 10, true, NULL, NULL);
    db_hosted_chunk_add(f.db, id, 2, "cd", 2, 5, false, NULL, NULL);
    db_hosted_score_t sc = {.user = bob,
                            .game = "nethack",
                            .name = "bob",
                            .role = "Val",
                            .race = "Hum",
                            .gender = "Fem",
                            .align = "Neu",
                            .death = "quit",
                            .points = 7,
                            .start_time = 5,
                            .end_time = 9};
    db_hosted_score_add(f.db, &sc, NULL, NULL);
    db_hosted_score_add(f.db, &sc, NULL, NULL);
    db_hosted_game_get(f.db, id, on_hosted_game, &got);
    db_hosted_scores_top(f.db, "nethack", 10, 0, on_hosted, &top);
    run(&f);
    ck_assert_int_eq(got.num, 15);
    ck_assert(got.flag);
    ck_assert_int_eq(got.count, 2);
    ck_assert_uint_eq(top.n, 1);
    fx_done_t del = {0};
    db_hosted_game_end(f.db, id, 9, NULL, NULL, NULL);
    db_user_delete(f.db, bob, NULL, fx_on_done, &del);
    run(&f);
    ck_assert_int_eq(del.status, DB_OK);
    make_user(&f, "Bob", "bob");
    fx_user_t r = {0};
    db_user_by_name(f.db, "bob", fx_on_user, &r);
    run(&f);
    ck_assert_str_eq(r.u.game_name, "Bob2"); /* "bob" stays retired */
    fx_close(&f);
}
END_TEST

/* One value of a query on the server (pg_count) or in f's own schema. */
static int pg_count(const char *sql)
{
    return (int)fx_pg_count(getenv("WARREN_PG_URL"), sql);
}

static int fx_count(const fx_t *f, const char *sql)
{
    return (int)fx_pg_count(f->path, sql);
}

/* A batch whose ops all succeed is sent at once, in one transaction
 * without savepoints: its rows carry the transaction's own id (xmin), not
 * one savepoint's each as when every op runs in its own savepoint, a
 * round trip each. 300 appends: more than one pipeline's worth. */
START_TEST(a_batch_that_succeeds_is_sent_at_once)
{
    fx_t f;
    pg_open(&f);
    int64_t g = make_game(&f, make_user(&f, "Eve", "eve"));
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    db_set_autoflush(f.db, false); /* one batch */
    static fx_done_t d[300];
    memset(d, 0, sizeof d);
    for (int i = 0; i < 300; i++) {
        uint8_t k = (uint8_t)i;
        db_journal_append(f.db, g, i + 1, &k, 1, 5, fx_on_done, &d[i]);
    }
    db_flush(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    db_stats(f.db, &s1);
    ck_assert_uint_eq(s1.commits - s0.commits, 1);
    ck_assert_uint_eq(s1.writes - s0.writes, 300);
    ck_assert_uint_eq(s1.failed - s0.failed, 0);
    for (int i = 0; i < 300; i++)
        ck_assert_msg(d[i].status == DB_OK, "append %d: %d", i, d[i].status);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM journal WHERE game = %lld", (long long)g);
    ck_assert_int_eq(fx_count(&f, sql), 300);
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT xmin::text) FROM journal WHERE game = %lld",
             (long long)g);
    ck_assert_int_eq(fx_count(&f, sql), 1);
    fx_close(&f);
}
END_TEST

/* Journal rows handed to the writers one batch at a time, round robin
 * over three games (and one game alone): a batch of appends is written on
 * the second connection beside the one in flight, but never a game's row
 * beside the batch holding the row before it, which it would not see (a
 * gap: DB_ENOTFOUND) or would commit before. Every row is stored, in
 * order, and some batches did overlap. */
START_TEST(a_games_rows_commit_in_order_across_two_writers)
{
    fx_t f;
    pg_open(&f);
    static const char *const names[3][2] = {{"Jo", "jo"}, {"Kit", "kit"}, {"Lu", "lu"}};
    int64_t g[3];
    for (int i = 0; i < 3; i++)
        g[i] = make_game(&f, make_user(&f, names[i][0], names[i][1]));
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    db_set_autoflush(f.db, false);
    enum { ROWS = 600, ROUNDS = 5 };
    static fx_done_t d[ROWS];
    int64_t next[3] = {1, 1, 1};
    int rounds = 0;
    /* a round again while none overlapped: on a machine busy enough, one
     * writer may take a whole round before another wakes */
    do {
        memset(d, 0, sizeof d);
        for (int i = 0; i < ROWS; i++) {
            int which = i < ROWS / 2 ? i % 3 : 0;
            uint8_t k = (uint8_t)i;
            db_journal_append(f.db, g[which], next[which]++, &k, 1, 5, fx_on_done, &d[i]);
            db_flush(f.db);
            if (i % 5 == 0)
                usleep(300); /* a writer busy while the other takes the next */
        }
        uv_run(&f.loop, UV_RUN_DEFAULT);
        db_stats(f.db, &s1);
        for (int i = 0; i < ROWS; i++)
            ck_assert_msg(d[i].status == DB_OK, "append %d: %d", i, d[i].status);
        rounds++;
    } while (s1.overlaps == s0.overlaps && rounds < ROUNDS);
    ck_assert_uint_eq(s1.failed - s0.failed, 0);
    ck_assert_uint_gt(s1.overlaps - s0.overlaps, 0);
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM journal WHERE game IN (%lld, %lld, %lld) AND keys IS NOT NULL",
             (long long)g[0], (long long)g[1], (long long)g[2]);
    ck_assert_int_eq(fx_count(&f, sql), ROWS * rounds);
    snprintf(sql, sizeof sql, "SELECT max(seq) FROM journal WHERE game = %lld", (long long)g[0]);
    ck_assert_int_eq(fx_count(&f, sql), next[0] - 1);
    ck_assert_int_eq(next[0] - 1, (ROWS / 2 + ROWS / 6) * rounds);
    fx_close(&f);
}
END_TEST

/* Ten appends to game g (seq 1..10) with, after the fifth, one to
 * odd_game at odd_seq (odd told its end): all in one batch, which commits
 * once and fails the odd one alone. Returns the batch's writes. */
static uint64_t ten_and_an_odd_one(fx_t *f, int64_t g, int64_t odd_game, int64_t odd_seq,
                                   fx_done_t *odd)
{
    db_stats_t s0, s1;
    db_stats(f->db, &s0);
    fx_done_t d[10] = {{0}};
    for (int i = 0; i < 10; i++) {
        uint8_t k = (uint8_t)i;
        db_journal_append(f->db, g, i + 1, &k, 1, 5, fx_on_done, &d[i]);
        if (i == 4)
            db_journal_append(f->db, odd_game, odd_seq, &k, 1, 5, fx_on_done, odd);
    }
    uv_run(&f->loop, UV_RUN_DEFAULT);
    db_stats(f->db, &s1);
    ck_assert_uint_eq(s1.commits - s0.commits, 1);
    ck_assert_uint_eq(s1.failed - s0.failed, 1);
    for (int i = 0; i < 10; i++)
        ck_assert_msg(d[i].status == DB_OK, "append %d: %d", i, d[i].status);
    return s1.writes - s0.writes;
}

/* A batch of one-statement ops goes with its COMMIT in one round trip: an
 * append that finds a gap (it changes no row) fails alone, the others are
 * stored in that one transaction, not run again op by op in savepoints. */
START_TEST(a_gap_fails_alone_in_a_batch_sent_with_its_commit)
{
    fx_t f;
    pg_open(&f);
    int64_t g = make_game(&f, make_user(&f, "Fay", "fay"));
    fx_done_t gap = {0};
    ck_assert_uint_eq(ten_and_an_odd_one(&f, g, g, 30, &gap), 11);
    ck_assert_int_eq(gap.status, DB_ENOTFOUND);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM journal WHERE game = %lld AND seq <= 10",
             (long long)g);
    ck_assert_int_eq(fx_count(&f, sql), 10);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM journal WHERE game = %lld AND seq = 30",
             (long long)g);
    ck_assert_int_eq(fx_count(&f, sql), 0);
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT xmin::text) FROM journal WHERE game = %lld",
             (long long)g);
    ck_assert_int_eq(fx_count(&f, sql), 1);
    fx_close(&f);
}
END_TEST

/* Fenced appends go with their COMMIT at once too: one to a game whose
 * lease another node holds fails alone with DB_ELEASE, told after the
 * commit; the node's own rows are stored in that one transaction. */
START_TEST(a_fenced_batch_sent_with_its_commit_refuses_another_nodes_game)
{
    fx_t f;
    pg_open(&f);
    int64_t mine = make_game(&f, make_user(&f, "Gil", "gil"));
    int64_t theirs = make_game(&f, make_user(&f, "Hal", "hal"));
    fx_done_t ta = {0}, tb = {0};
    db_lease_take(f.db, mine, "node-a", 60000, fx_on_done, &ta);
    db_lease_take(f.db, theirs, "node-b", 60000, fx_on_done, &tb);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(ta.status, DB_OK);
    ck_assert_int_eq(tb.status, DB_OK);
    db_lease_fence(f.db, "node-a", 60000);
    fx_done_t refused = {0};
    ten_and_an_odd_one(&f, mine, theirs, 1, &refused);
    ck_assert_int_eq(refused.status, DB_ELEASE);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM journal WHERE game = %lld", (long long)theirs);
    ck_assert_int_eq(fx_count(&f, sql), 0);
    snprintf(sql, sizeof sql,
             "SELECT count(*) * 100 + count(DISTINCT xmin::text) FROM journal WHERE game = %lld",
             (long long)mine);
    ck_assert_int_eq(fx_count(&f, sql), 1001); /* 10 rows, one transaction */
    fx_close(&f);
}
END_TEST

/* Every connection of the daemon's dropped by the server (a restart, an
 * administrator's pg_terminate_backend, a failover) between two batches:
 * the next write and read connect again and succeed, set up as at the
 * start (named, the reader read-only), so it works again next time. */
START_TEST(dropped_connections_are_made_again)
{
    fx_t f;
    pg_open(&f);
    static const char *const names[2][2] = {{"Cy", "cy"}, {"Di", "di"}};
    for (int round = 0; round < 2; round++) {
        int64_t u = make_user(&f, names[round][0], names[round][1]);
        /* the writer and a reader at least, named as at the start */
        ck_assert_int_ge(pg_count("SELECT count(pg_terminate_backend(pid)) FROM "
                                  "pg_stat_activity WHERE application_name LIKE 'warrend %'"),
                         2);
        usleep(100 * 1000); /* the server closes them */
        int64_t g = make_game(&f, u);
        games_res_t got = {0};
        db_game_get(f.db, g, on_game, &got);
        run(&f);
        ck_assert_int_eq(got.status, DB_OK);
        ck_assert_int_eq(got.g[0].user, u);
        ck_assert_int_ge(pg_count("SELECT count(*) FROM pg_stat_activity WHERE "
                                  "application_name = 'warrend reader'"),
                         1);
    }
    fx_close(&f);
}
END_TEST

/* A port on 127.0.0.1 that takes connections and never answers them, as
 * a server whose machine is gone holds a client until connect_timeout. */
static int mute_port(int *fd)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(*fd, 0);
    ck_assert_int_eq(bind(*fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(*fd, 8), 0);
    ck_assert_int_eq(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
    return ntohs(a.sin_port);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The writer's connection dropped by the server between two batches of
 * journal rows (one trip each: the statements and COMMIT sent at once):
 * the next batch finds it gone before sending, connects again and is
 * stored, not failed as a COMMIT whose answer was lost. */
START_TEST(a_batch_sent_at_once_after_a_drop_connects_again)
{
    fx_t f;
    pg_open(&f);
    int64_t g = make_game(&f, make_user(&f, "Ivy", "ivy"));
    for (int round = 0; round < 3; round++) {
        fx_done_t d[4] = {{0}};
        for (int i = 0; i < 4; i++) {
            uint8_t k = (uint8_t)i;
            db_journal_append(f.db, g, round * 4 + i + 1, &k, 1, 5, fx_on_done, &d[i]);
        }
        run(&f);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(d[i].status == DB_OK, "round %d append %d: %d", round, i, d[i].status);
        ck_assert_int_ge(pg_count("SELECT count(pg_terminate_backend(pid)) FROM "
                                  "pg_stat_activity WHERE application_name = 'warrend writer'"),
                         1);
        usleep(100 * 1000); /* the server closes it */
    }
    fx_close(&f);
}
END_TEST

/* A URL naming a dead host (an old primary) before the live one: the
 * first connection waits out its connect_timeout once; after the
 * connection drops, connecting again starts at the host that answered
 * and does not wait on the dead one again. */
START_TEST(a_reconnect_tries_the_host_that_answered_first)
{
    PGconn *p = PQconnectdb(getenv("WARREN_PG_URL"));
    ck_assert_int_eq(PQstatus(p), CONNECTION_OK);
    int mute, port = mute_port(&mute);
    char url[1024], out[32];
    snprintf(url, sizeof url,
             "host=127.0.0.1,%s port=%d,%s dbname=%s user=%s connect_timeout=2 sslmode=disable",
             PQhost(p), port, PQport(p), PQdb(p), PQuser(p));
    PQfinish(p);
    db_conn_t c = {0};
    char err[256] = "";
    ck_assert_msg(db_pg_connect(&c, url, false, err, sizeof err) == DB_OK, "%s", err);
    ck_assert_int_eq(db_pg_query_text(&c, "SELECT pg_terminate_backend(pg_backend_pid())::text",
                                      out, sizeof out),
                     DB_ERR);
    ck_assert_int_ne(PQstatus((PGconn *)c.pg), CONNECTION_OK);
    double t0 = seconds();
    ck_assert_msg(c.be->exec(&c, DB_STMT_BEGIN) == DB_OK, "%s", c.err);
    double took = seconds() - t0;
    ck_assert_msg(took < 1.0, "connecting again took %.1f s", took);
    ck_assert_int_eq(c.be->exec(&c, DB_STMT_ROLLBACK), DB_OK);
    c.be->close(&c);
    close(mute);
}
END_TEST

/* "table.column" of every column of the SQLite schema, sorted, into out
 * (one per line). */
static void sqlite_columns(char *out, size_t n)
{
    sqlite3 *h;
    int v = 0;
    char err[256] = "";
    ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
    ck_assert_msg(db_migrate(h, &v, err, sizeof err) == DB_OK, "%s", err);
    sqlite3_stmt *st;
    ck_assert_int_eq(
        sqlite3_prepare_v2(h,
                           "SELECT group_concat(c, char(10)) FROM (SELECT t.name || "
                           "'.' || p.name AS c FROM sqlite_master t, "
                           "pragma_table_info(t.name) p WHERE t.type = 'table' AND t.name NOT IN "
                           "('game_ids', 'lease_chg') "
                           "ORDER BY c)",
                           -1, &st, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* The two lists of migrations make the same tables with the same columns
 * (PostgreSQL's own: its version table, the milestones' order; SQLite's
 * game_ids row is PostgreSQL's sequence game_ids, and its lease_chg row
 * the changing transaction's id). */
START_TEST(both_schemas_have_the_same_columns)
{
    fx_t f;
    pg_open(&f);
    static char lite[8192], pg[8192];
    sqlite_columns(lite, sizeof lite);
    db_conn_t c = {0};
    char err[256] = "";
    ck_assert_msg(db_pg_connect(&c, f.path, true, err, sizeof err) == DB_OK, "%s", err);
    ck_assert_int_eq(
        db_pg_query_text(&c,
                         "SELECT string_agg(c, chr(10) ORDER BY c COLLATE \"C\") FROM (SELECT "
                         "table_name || '.' || column_name AS c FROM information_schema.columns "
                         "WHERE table_schema = current_schema() AND table_name <> "
                         "'schema_version' AND (table_name, column_name) <> ('milestones', "
                         "'id')) x",
                         pg, sizeof pg),
        DB_OK);
    int64_t seqs = 0; /* SQLite's counter row (left out above) is a sequence here */
    ck_assert_int_eq(db_pg_query_int(&c,
                                     "SELECT count(*) FROM pg_sequences WHERE schemaname = "
                                     "current_schema() AND sequencename = 'game_ids'",
                                     &seqs),
                     DB_OK);
    ck_assert_int_eq(seqs, 1);
    c.be->close(&c);
    ck_assert_str_eq(pg, lite);
    fx_close(&f);
}
END_TEST

/* Two daemons on one database (two handles, each its own writer and its
 * own block of ids): the ids they give never meet, and each one's game is
 * stored. */
START_TEST(two_nodes_never_give_the_same_game_id)
{
    fx_t f;
    pg_open(&f);
    char err[256];
    db_t *other = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(other != NULL, "%s", err);
    enum { N = DB_IDS_CAP * 2 };
    static int64_t ids[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        ids[i] = db_next_game_id_(i % 2 ? other : f.db);
        ck_assert_int_gt(ids[i], 0);
        for (int k = 0; k < i; k++)
            ck_assert_int_ne(ids[k], ids[i]);
    }
    int64_t a = make_user(&f, "Ann", "ann"), b = make_user(&f, "Bob", "bob");
    db_game_new_t g = {.user = b, .seed = 1, .content_version = "c1", .start_time = 1};
    fx_done_t d = {0};
    int64_t on_other = db_game_create(other, &g, fx_on_done, &d);
    int64_t here = make_game(&f, a);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_ne(here, on_other);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM games"), 2);
    db_close(other);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    fx_close(&f);
}
END_TEST

static void on_text_status(void *ud, int status, const char *text, size_t len)
{
    (void)len;
    snprintf(ud, 32, "%s", status == DB_OK && text ? text : "");
}

/* Two nodes asking for the same game's lease at once (two handles, two
 * writers): exactly one gets it, and the database names that one. */
START_TEST(two_nodes_racing_for_a_lease_one_wins)
{
    fx_t f;
    pg_open(&f);
    char err[256];
    db_t *other = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(other != NULL, "%s", err);
    int64_t g = make_game(&f, make_user(&f, "Ann", "ann"));
    for (int round = 0; round < 20; round++) {
        fx_done_t a = {0}, b = {0};
        db_lease_take(f.db, g, "node-a", 60000, fx_on_done, &a);
        db_lease_take(other, g, "node-b", 60000, fx_on_done, &b);
        uv_run(&f.loop, UV_RUN_DEFAULT);
        ck_assert_msg((a.status == DB_OK) != (b.status == DB_OK), "a %d, b %d", a.status, b.status);
        char who[32] = "";
        db_lease_holder(other, g, on_text_status, who);
        uv_run(&f.loop, UV_RUN_DEFAULT);
        ck_assert_str_eq(who, a.status == DB_OK ? "node-a" : "node-b");
        fx_done_t gone = {0}; /* the winner lets it lapse: the next round races again */
        db_lease_take(a.status == DB_OK ? f.db : other, g, who, -1, fx_on_done, &gone);
        uv_run(&f.loop, UV_RUN_DEFAULT);
        ck_assert_int_eq(gone.status, DB_OK);
    }
    db_close(other);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    fx_close(&f);
}
END_TEST

/* A takeover in the middle of a node's stream of journal rows: a keeps
 * TAKEOVER_WINDOW rows on their way, the next queued as one is answered,
 * b asks for the game once a has TAKEOVER_AT stored, and a goes on until
 * TAKEOVER_WINDOW rows after b's take is answered. How long the take
 * waits is PostgreSQL's to say: its FOR UPDATE waits while a's batches
 * hold the row FOR SHARE, and each next batch of a's may lock it again
 * before the waiting take wakes (more often the busier the machine), so
 * a fixed stream could end before the take: no row would then race it.
 * TAKEOVER_ROWS only bounds a take that never comes. */
#define TAKEOVER_ROWS   20000
#define TAKEOVER_WINDOW 16
#define TAKEOVER_AT     60
typedef struct takeover takeover_t;
typedef struct {
    takeover_t *t;
    int seq;
} takeover_row_t;
struct takeover {
    db_t *a, *b;
    int64_t game;
    int next, acked;
    int last; /* the last row a queues: TAKEOVER_WINDOW after the take's answer */
    int status[TAKEOVER_ROWS + 1]; /* each row's answer; 1 until it comes */
    takeover_row_t row[TAKEOVER_ROWS + 1];
    int taken;    /* b's take: its status (1 until it comes) */
    int64_t seen; /* rows b read right after its take */
    int read_status;
};

static void on_seen(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    takeover_t *t = ud;
    (void)rows;
    t->read_status = status;
    t->seen = (int64_t)n;
}

static void on_took(void *ud, int status, int64_t id)
{
    takeover_t *t = ud;
    (void)id;
    t->taken = status;
    t->last = t->next + TAKEOVER_WINDOW;
    db_journal_read(t->b, t->game, 0, on_seen, t); /* what b resumes from */
}

static void on_row(void *ud, int status, int64_t unused);

static void takeover_next(takeover_t *t)
{
    static const uint8_t k = 'j';
    if (t->next > TAKEOVER_ROWS || (t->taken != 1 && t->next > t->last))
        return;
    takeover_row_t *r = &t->row[t->next];
    *r = (takeover_row_t){t, t->next++};
    db_journal_append(t->a, t->game, r->seq, &k, 1, 0, on_row, r);
}

static void on_row(void *ud, int status, int64_t unused)
{
    takeover_row_t *r = ud; /* a failed op's id is 0: the row says which it was */
    takeover_t *t = r->t;
    (void)unused;
    t->status[r->seq] = status;
    if (status == DB_OK && ++t->acked == TAKEOVER_AT)
        db_lease_take(t->b, t->game, "node-b", 60000, on_took, t);
    takeover_next(t);
}

/* Node a stores a stream of rows while node b takes the game over (a's
 * lease lapsed): b's read right after its take holds every row a was told
 * was stored, and a is refused every row after it (DB_ELEASE), so no row
 * a acknowledged is missing where b goes on. */
START_TEST(a_takeover_loses_no_acknowledged_row)
{
    fx_t f;
    pg_open(&f);
    char err[256];
    static takeover_t t;
    t = (takeover_t){
        .a = f.db, .b = db_open(&f.loop, f.path, err, sizeof err), .next = 1, .taken = 1};
    ck_assert_msg(t.b != NULL, "%s", err);
    t.game = make_game(&f, make_user(&f, "Ann", "ann"));
    for (int i = 0; i <= TAKEOVER_ROWS; i++)
        t.status[i] = 1;
    db_lease_fence(f.db, "node-a", 60000);
    fx_done_t d = {0};
    db_lease_take(f.db, t.game, "node-a", -1, fx_on_done, &d); /* a's, and lapsed at once */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    for (int i = 0; i < TAKEOVER_WINDOW; i++)
        takeover_next(&t);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(t.taken, DB_OK);
    ck_assert_int_eq(t.read_status, DB_OK);
    int64_t stored = 0;
    ck_assert_msg(t.next <= TAKEOVER_ROWS, "no take in %d rows", TAKEOVER_ROWS);
    for (int i = 1; i < t.next; i++) {
        ck_assert_msg(t.status[i] == DB_OK || t.status[i] == DB_ELEASE, "row %d: %d", i,
                      t.status[i]);
        if (t.status[i] == DB_OK) {
            ck_assert_int_eq(stored, i - 1); /* the stored ones come first */
            stored = i;
        }
    }
    ck_assert_int_eq(t.seen, stored);
    ck_assert_int_ge(stored, TAKEOVER_AT);
    ck_assert_int_lt(stored, t.last - TAKEOVER_WINDOW); /* those queued after its answer refused */
    db_close(t.b);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    fx_close(&f);
}
END_TEST

/* The rows of table the server counts as updated in the test's schema
 * (pg_stat_user_tables; a backend's counts arrive once it ends). */
static int64_t rows_updated(const char *url, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables "
             "WHERE schemaname = current_schema() AND relname = '%s'",
             table);
    return fx_pg_count(url, sql);
}

static void pg_run_sql(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    PGresult *r = PQexec(c, sql);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
}

/* The lapsed check's plan, run (EXPLAIN ANALYZE) for node, ?2 = 16: the
 * lines of it that read leases. */
static void lapsed_plan_of_leases(const char *url, const char *node, char *out, size_t n)
{
    const char *sql = db_stmt_defs[DB_STMT_GAMES_LEASE_LAPSED].pg_sql;
    char q[8192] = "EXPLAIN ANALYZE ";
    size_t len = strlen(q);
    for (const char *p = sql; *p && len + 80 < sizeof q; p++) {
        if (p[0] == '?' && (p[1] == '1' || p[1] == '2'))
            len += (size_t)snprintf(q + len, sizeof q - len, p[1] == '1' ? "'%s'" : "16", node),
                p++;
        else
            q[len++] = *p;
    }
    q[len] = 0;
    PGconn *c = PQconnectdb(url);
    PGresult *r = PQexec(c, q);
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s", PQresultErrorMessage(r));
    out[0] = 0;
    for (int i = 0, at = 0; i < PQntuples(r); i++)
        if (strstr(PQgetvalue(r, i, 0), "leases") && at + 200 < (int)n)
            at += snprintf(out + at, n - (size_t)at, "%s\n", PQgetvalue(r, i, 0));
    PQclear(r);
    PQfinish(c);
}

/* The lines of plan that read games, as PostgreSQL would run the score
 * statement d for race, class and since (a custom or a generic plan), with
 * sequential scans priced out: a plan that finds no index range to read
 * still scans. */
static void scores_plan(const char *url, const db_stmt_def_t *d, const char *mode, const char *args,
                        char *out, size_t n)
{
    char sql[4096], q[4608];
    ck_assert_ptr_nonnull(db_pg_sql(d, sql, sizeof sql));
    PGconn *c = PQconnectdb(url);
    snprintf(q, sizeof q,
             "SET enable_seqscan = off; SET plan_cache_mode = %s; "
             "PREPARE s(text, text, bigint, bigint, bigint) AS %s",
             mode, sql);
    PGresult *r = PQexec(c, q);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
    PQclear(r);
    snprintf(q, sizeof q, "EXPLAIN EXECUTE s(%s, 100, 0)", args);
    r = PQexec(c, q);
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s", PQresultErrorMessage(r));
    size_t at = 0;
    out[0] = 0;
    for (int i = 0; i < PQntuples(r) && at + 200 < n; i++)
        at += (size_t)snprintf(out + at, n - at, "%s\n", PQgetvalue(r, i, 0));
    PQclear(r);
    PQfinish(c);
}

/* The score pages' statements (every row named SCORES_*): a race, class
 * or period filter reads games through an index condition (a range),
 * never a whole scan of games nor a walk of games_by_score testing each
 * row; only the unfiltered page walks games_by_score, to its limit. */
START_TEST(score_filters_read_index_ranges_on_postgresql)
{
    fx_t f;
    pg_open(&f);
    /* 20,000 finished games of four races and four classes, analyzed: the
     * planner's choices on an empty table say nothing */
    PGconn *c = PQconnectdb(f.path);
    PGresult *r = PQexec(
        c, "INSERT INTO users(id, name, name_key, pwhash, created) VALUES (1, 'a', 'a', 'x', 0); "
           "INSERT INTO games(id, \"user\", seed, content_version, race, class, start_time, "
           "end_time, score, state) SELECT i, 1, i, 'x', (ARRAY['human', 'elf', 'dwarf', "
           "'gnome'])[i % 4 + 1], (ARRAY['fighter', 'rogue', 'wizard', 'cleric'])[i / 4 % 4 + "
           "1], 1000 + i * 100, 1050 + i * 100, i * 7919 % 100003, 'finished' "
           "FROM generate_series(1, 20000) i; ANALYZE games");
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
    static const char *const modes[] = {"force_custom_plan", "force_generic_plan"};
    static const char *const args[] = {"'Elf', 'rogue', 0", "'', '', 1500000"};
    char plan[8192];
    int seen = 0;
    for (int i = 0; i < DB_STMT_COUNT; i++) {
        const db_stmt_def_t *d = &db_stmt_defs[i];
        if (strncmp(d->name, "SCORES_", 7) != 0)
            continue;
        seen++;
        bool top = strcmp(d->name, "SCORES_TOP") == 0;
        bool since = strcmp(d->name, "SCORES_SINCE") == 0; /* DB_SCORES_SINCE_SQL */
        for (int m = 0; m < 2; m++)
            for (int a = 0; a < 2; a++) {
                scores_plan(f.path, d, modes[m], args[a], plan, sizeof plan);
                ck_assert_msg(!strstr(plan, "Seq Scan on games"), "%s: %s", d->name, plan);
                if (top || since)
                    ck_assert_msg(strstr(plan, top ? "games_by_score" : "games_by_end"), "%s",
                                  plan);
                else
                    ck_assert_msg((strstr(plan, "Index Cond: (lower(") ||
                                   strstr(plan, "Index Cond: ((lower(")) &&
                                      !strstr(plan, "games_by_score"),
                                  "%s %s: %s", d->name, modes[m], plan);
            }
    }
    ck_assert_int_ge(seen, 1);
    fx_close(&f);
}
END_TEST

#define IDLE_GAMES 1000

/* IDLE_GAMES games, each its player's, all leased by node-a. */
static void node_a_holds_games(const fx_t *f)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO users(name, name_key, pwhash, created) SELECT 'u' || i, 'u' || i, "
             "'x', 1 FROM generate_series(1, %d) i; "
             "INSERT INTO games(id, \"user\", seed, content_version, race, class, start_time) "
             "SELECT id, id, 1, 'c1', 'human', 'fighter', 1 FROM users; "
             "INSERT INTO nodes(node, expires) VALUES ('node-a', 0); "
             "INSERT INTO leases(game, node) SELECT id, 'node-a' FROM games",
             IDLE_GAMES);
    pg_run_sql(f->path, sql);
}

/* What a renewal writes with IDLE_GAMES idle games of the node: one row
 * (its heartbeat in nodes), none of the leases; printed as a BENCH line. */
START_TEST(a_renewal_writes_one_row_whatever_the_games)
{
    fx_t f;
    pg_open(&f);
    node_a_holds_games(&f);
    int64_t leases0 = rows_updated(f.path, "leases"), nodes0 = rows_updated(f.path, "nodes");
    char err[256];
    db_t *b = db_open(&f.loop, f.path, err, sizeof err); /* the renewal's own backend */
    ck_assert_msg(b != NULL, "%s", err);
    fx_done_t d = {0};
    db_lease_renew(b, "node-a", 60000, NULL, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(d.id, IDLE_GAMES); /* the leases it holds, for health */
    db_close(b);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    int64_t leases = 0, nodes = 0;
    for (int i = 0; i < 100 && !leases && !nodes; i++) { /* the ended backend's counts */
        usleep(i ? 100000 : 0);
        leases = rows_updated(f.path, "leases") - leases0;
        nodes = rows_updated(f.path, "nodes") - nodes0;
    }
    printf("BENCH db.lease.renew.rows_updated %lld rows (%d idle games: leases %lld, nodes "
           "%lld)\n",
           (long long)(leases + nodes), IDLE_GAMES, (long long)leases, (long long)nodes);
    fflush(stdout); /* before an assertion ends the test's process */
    ck_assert_int_eq(leases, 0);
    ck_assert_int_eq(nodes, 1);
    /* no node lapsed: the lapsed check reads no lease at all */
    char plan[4096];
    lapsed_plan_of_leases(f.path, "node-b", plan, sizeof plan);
    for (const char *l = plan; (l = strstr(l, "Scan")); l++) {
        const char *eol = strchr(l, '\n');
        ck_assert_msg(eol && memmem(l, (size_t)(eol - l), "never executed", 14), "%s", plan);
    }
    fx_close(&f);
}
END_TEST

typedef struct {
    int calls, status;
    db_peer_node_t r;
    char *games;
} node_read_t;

static void on_node(void *ud, int status, const db_peer_node_t *r)
{
    node_read_t *n = ud;
    n->calls++;
    n->status = status;
    if (r) {
        n->r = *r;
        n->games = r->games ? strndup(r->games, r->len) : NULL;
    }
}

/* A renewal that says what IDLE_GAMES games show (peersum.h) still writes
 * one row; another node reads the text once, then only the row's time
 * while nothing new is said. Its size, as sent and as stored, printed as
 * BENCH lines. */
START_TEST(a_renewal_says_its_games_in_its_one_row)
{
    fx_t f;
    pg_open(&f);
    node_a_holds_games(&f);
    buf_t text;
    buf_init(&text);
    for (int i = 1; i <= IDLE_GAMES; i++) /* games well under way, as a node says them */
        peersum_put(&text, &(peersum_game_t){.game = i,
                                             .depth = 1 + i % 12,
                                             .max_depth = 12,
                                             .xl = 1 + i % 20,
                                             .w = 80,
                                             .h = 24,
                                             .turn = 10000 + (uint64_t)i * 37,
                                             .idle_ms = (uint64_t)i * 1013,
                                             .race = "halfling",
                                             .cls = "wizard"});
    buf_putc(&text, 0);
    int64_t leases0 = rows_updated(f.path, "leases"), nodes0 = rows_updated(f.path, "nodes");
    char err[256];
    db_t *b = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    fx_done_t d = {0};
    db_lease_renew(b, "node-a", 60000, text.data, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    node_read_t first = {0}, again = {0};
    db_peer_node(b, "node-a", 0, on_node, &first);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(first.status, DB_OK);
    ck_assert(first.r.alive && first.r.at > 0 && first.r.age_ms >= 0);
    ck_assert_str_eq(first.games, text.data);
    db_peer_node(b, "node-a", first.r.at, on_node, &again); /* nothing new said */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(again.status, DB_OK);
    ck_assert_ptr_null(again.games);
    ck_assert_int_eq(again.r.at, first.r.at);
    db_close(b);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    int64_t leases = 0, nodes = 0;
    for (int i = 0; i < 100 && !nodes; i++) { /* the ended backend's counts */
        usleep(i ? 100000 : 0);
        leases = rows_updated(f.path, "leases") - leases0;
        nodes = rows_updated(f.path, "nodes") - nodes0;
    }
    int64_t stored = fx_pg_count(f.path, "SELECT pg_column_size(games) FROM nodes");
    printf("BENCH db.lease.renew.games.bytes %zu bytes (%d games said, stored %lld bytes; "
           "rows written: leases %lld, nodes %lld)\n",
           text.len - 1, IDLE_GAMES, (long long)stored, (long long)leases, (long long)nodes);
    fflush(stdout);
    ck_assert_int_eq(leases, 0);
    ck_assert_int_eq(nodes, 1);
    free(first.games);
    buf_free(&text);
    fx_close(&f);
}
END_TEST

#define KEY_A "0123456789abcdef0000000000000001"

typedef struct {
    int calls, status;
    size_t n, total; /* n: the first 8 kept below; total: every event read */
    int64_t next, id[8], first, last;
    char payload[8][64], key[8][DB_EVENT_KEY_LEN + 1];
} events_t;

static void on_events(void *ud, int status, const db_node_event_t *rows, size_t n)
{
    events_t *e = ud;
    e->calls++;
    e->status = status;
    e->n = e->total = 0;
    for (size_t i = 0; i < n && status == DB_OK; i++) {
        e->next = rows[i].next;
        if (rows[i].id > 0) {
            e->first = e->total++ ? e->first : rows[i].id;
            e->last = rows[i].id;
        }
        if (rows[i].id > 0 && e->n < 8) {
            e->id[e->n] = rows[i].id;
            snprintf(e->key[e->n], sizeof e->key[0], "%s", rows[i].key);
            snprintf(e->payload[e->n++], sizeof e->payload[0], "%s", rows[i].payload);
        }
    }
}

/* What a listener heard: the first 4 notifications' texts, and how many. */
typedef struct {
    char text[4][128];
    int n;
} heard_t;

static void heard_one(void *ud, const char *payload)
{
    heard_t *h = ud;
    if (h->n < 4)
        snprintf(h->text[h->n], sizeof h->text[0], "%s", payload);
    h->n++;
}

/* What l hears within wait_ms (until one comes), then 200 ms more. */
static heard_t hear(db_listen_t *l, int wait_ms)
{
    heard_t h = {0};
    char err[256] = "";
    for (int t = 0; t < wait_ms / 20 && h.n == 0; t++) {
        ck_assert_msg(db_listen_read(l, heard_one, &h, err, sizeof err) == DB_OK, "%s", err);
        if (h.n == 0)
            usleep(20000);
    }
    usleep(200000);
    ck_assert_msg(db_listen_read(l, heard_one, &h, err, sizeof err) == DB_OK, "%s", err);
    return h;
}

static events_t events_since(fx_t *f, int64_t from, const char *node)
{
    events_t e = {0};
    db_events_since(f->db, from, node, on_events, &e);
    run(f);
    ck_assert_int_eq(e.calls, 1);
    ck_assert_int_eq(e.status, DB_OK);
    return e;
}

/* The event log (db_listen.h): an event written by a transaction that
 * began before another's but commits after it is not passed over: the
 * read after the later one's commit stops its cursor below the open
 * one, and the next read returns it. A node's own events are not read. */
START_TEST(a_late_committing_event_is_read_after_its_commit)
{
    fx_t f;
    pg_open(&f);
    db_lease_fence(f.db, "node-a", 60000);
    events_t first = events_since(&f, INT64_MAX, "node-b");
    ck_assert_int_eq(first.n, 0);
    PGconn *late = PQconnectdb(f.path);
    PGresult *r = PQexec(late, "BEGIN; INSERT INTO node_events(xid, origin, at, payload) VALUES "
                               "(pg_current_xact_id()::text::bigint, 'node-c', 0, 'kick * c 7 0')");
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(late));
    PQclear(r);
    db_notify(f.db, DB_NOTIFY_CHANNEL, "kick * node-a 8 0", KEY_A, NULL, NULL);
    db_flush(f.db);
    run(&f);
    events_t seen = events_since(&f, first.next, "node-b");
    ck_assert_int_eq(seen.n, 1);
    ck_assert_str_eq(seen.payload[0], "kick * node-a 8 0");
    ck_assert_int_eq(events_since(&f, first.next, "node-a").n, 0); /* its own */
    r = PQexec(late, "COMMIT");
    PQclear(r);
    PQfinish(late);
    events_t after = events_since(&f, seen.next, "node-b");
    ck_assert_int_eq(after.n, 2); /* the late one, and the other again (applied once by id) */
    ck_assert_str_eq(after.payload[0], "kick * c 7 0"); /* by id: it was written first */
    ck_assert_str_eq(after.payload[1], "kick * node-a 8 0");
    ck_assert_int_eq(events_since(&f, after.next, "node-b").n, 0);
    db_events_prune(f.db); /* the late one, written at time 0, is old: it goes */
    db_flush(f.db);
    run(&f);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM node_events WHERE origin = 'node-a'"), 1);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM node_events"), 1);
    fx_close(&f);
}
END_TEST

static void on_written(void *ud, int status, int64_t id)
{
    (void)id;
    *(int *)ud = status;
}

/* An event written again under its key (its first commit's answer lost,
 * notify.h) is DB_OK and adds neither a row nor a notification: a
 * listener hears the first once, "ID XID KEY PAYLOAD", and a read of the
 * log returns it once, with its key. Another key is another event. */
START_TEST(an_event_written_again_under_its_key_is_one_event)
{
    fx_t f;
    pg_open(&f);
    db_lease_fence(f.db, "node-a", 60000);
    char err[256] = "";
    db_listen_t *l = db_listen_open(f.path, DB_NOTIFY_CHANNEL, err, sizeof err);
    ck_assert_msg(l != NULL, "%s", err);
    events_t first = events_since(&f, INT64_MAX, "node-b");
    int st[3] = {-1, -1, -1};
    for (int i = 0; i < 2; i++) {
        db_notify(f.db, DB_NOTIFY_CHANNEL, "kick * node-a 8 0", KEY_A, on_written, &st[i]);
        db_flush(f.db);
        run(&f);
        ck_assert_int_eq(st[i], DB_OK);
    }
    db_notify(f.db, DB_NOTIFY_CHANNEL, "kick * node-a 8 0", KEY_A "0", on_written, &st[2]);
    db_flush(f.db);
    run(&f);
    ck_assert_int_eq(st[2], DB_EINVAL); /* a key longer than a key is no key */
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM node_events"), 1);
    events_t seen = events_since(&f, first.next, "node-b");
    ck_assert_int_eq(seen.n, 1);
    ck_assert_str_eq(seen.key[0], KEY_A);
    heard_t h = hear(l, 2000);
    ck_assert_int_eq(h.n, 1);
    char want[128];
    snprintf(want, sizeof want, "%lld ", (long long)seen.id[0]);
    ck_assert_msg(strncmp(h.text[0], want, strlen(want)) == 0, "%s", h.text[0]);
    ck_assert_msg(strstr(h.text[0], " " KEY_A " kick * node-a 8 0") != NULL, "%s", h.text[0]);
    db_listen_close(l);
    fx_close(&f);
}
END_TEST

#define KEY_B "0123456789abcdef0000000000000002"

/* db_notify of payload under key; its answer. */
static int notify_once_more(fx_t *f, const char *payload, const char *key)
{
    int st = -1;
    db_notify(f->db, DB_NOTIFY_CHANNEL, payload, key, on_written, &st);
    db_flush(f->db);
    run(f);
    return st;
}

/* A sender writes an event again up to DB_EVENTS_RESEND_MS after it sent
 * it (notify.c's outbox), whatever came meanwhile: the log's pruning
 * keeps its first row, so its key still makes the new write none. One
 * written that long ago (KEY_A, its row's clock set back), and one
 * followed by more events of other nodes than a read takes (KEY_B): after
 * a prune each is written again, and each is still its one first row. */
START_TEST(an_event_written_again_as_late_as_its_sender_may_is_one_event)
{
    fx_t f;
    pg_open(&f);
    db_lease_fence(f.db, "node-a", 60000);
    ck_assert_int_eq(notify_once_more(&f, "sanctions * node-a 0 0", KEY_A), DB_OK);
    ck_assert_int_eq(notify_once_more(&f, "mail * node-a 3 0", KEY_B), DB_OK);
    char sql[512];
    snprintf(sql, sizeof sql,
             "UPDATE node_events SET at = at - %d WHERE event_key = '" KEY_A "'; "
             "INSERT INTO node_events(xid, origin, at, payload) SELECT "
             "pg_current_xact_id()::text::bigint, 'node-c', " DB_NOW_MS_PG ", 'kick * c ' || i "
             "|| ' 0' FROM generate_series(1, %d) i",
             DB_EVENTS_RESEND_MS, DB_EVENTS_KEEP_ROWS + 4);
    pg_run_sql(f.path, sql);
    int64_t a = fx_count(&f, "SELECT id FROM node_events WHERE event_key = '" KEY_A "'");
    int64_t b = fx_count(&f, "SELECT id FROM node_events WHERE event_key = '" KEY_B "'");
    db_events_prune(f.db);
    db_flush(f.db);
    run(&f);
    ck_assert_int_eq(notify_once_more(&f, "sanctions * node-a 0 0", KEY_A), DB_OK);
    ck_assert_int_eq(notify_once_more(&f, "mail * node-a 3 0", KEY_B), DB_OK);
    ck_assert_int_eq(fx_count(&f, "SELECT id FROM node_events WHERE event_key = '" KEY_A "'"), a);
    ck_assert_int_eq(fx_count(&f, "SELECT id FROM node_events WHERE event_key = '" KEY_B "'"), b);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM node_events WHERE origin = 'node-a'"), 2);
    fx_close(&f);
}
END_TEST

/* A read of the log takes only its newest DB_EVENTS_KEEP_ROWS ids,
 * pruned or not yet (db_listen.h): what a reader remembers as applied
 * (notify.h), so no older row comes back to be applied twice. */
START_TEST(a_read_of_the_log_takes_only_what_it_keeps)
{
    fx_t f;
    pg_open(&f);
    events_t first = events_since(&f, INT64_MAX, "node-b");
    PGconn *h = PQconnectdb(f.path);
    PGresult *r = PQexec(h, "INSERT INTO node_events(xid, origin, at, payload) SELECT "
                            "pg_current_xact_id()::text::bigint, 'node-c', 0, 'kick * c ' || i "
                            "|| ' 0' FROM generate_series(1, 4100) i");
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(h));
    PQclear(r);
    PQfinish(h);
    events_t got = events_since(&f, first.next, "node-b");
    ck_assert_int_eq(got.total, DB_EVENTS_KEEP_ROWS);
    ck_assert_int_eq(got.last - got.first, DB_EVENTS_KEEP_ROWS - 1);
    ck_assert_str_eq(got.payload[0], "kick * c 5 0"); /* the four oldest left out */
    fx_close(&f);
}
END_TEST

/* Two nodes starting on one database, each with a daily secret of its own
 * to store (db_guard_t.daily_secret): the first stored is the one both
 * are given, the second start leaves the row as it was (its xmin, the
 * transaction that wrote it, unchanged: a start once the row is there
 * writes nothing), a third only reading it (daily_read) is given it too,
 * and a secret that is no hex is refused. */
START_TEST(two_nodes_are_given_one_daily_secret)
{
    fx_t f;
    pg_open(&f);
    char err[256];
    const char *a = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const char *b = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
    db_guard_t ga = {.daily_secret = a}, gb = {.daily_secret = b};
    db_opened_t oa, ob;
    db_t *x = db_open_guarded(&f.loop, f.path, &ga, &oa, err, sizeof err);
    ck_assert_msg(x != NULL, "%s", err);
    const char *xmin = "SELECT xmin::text::bigint FROM meta WHERE key = 'daily_secret'";
    int64_t written = fx_pg_count(f.path, xmin);
    db_t *y = db_open_guarded(&f.loop, f.path, &gb, &ob, err, sizeof err);
    ck_assert_msg(y != NULL, "%s", err);
    ck_assert_str_eq(oa.daily_secret, a);
    ck_assert_str_eq(ob.daily_secret, a);
    ck_assert_int_eq(fx_pg_count(f.path, xmin), written);
    ck_assert_int_eq(fx_pg_count(f.path, "SELECT count(*) FROM meta WHERE key = 'daily_secret'"),
                     1);
    db_guard_t only_read = {.daily_read = true}; /* daily-secret's node: compares, stores none */
    db_t *z = db_open_guarded(&f.loop, f.path, &only_read, &ob, err, sizeof err);
    ck_assert_msg(z != NULL, "%s", err);
    ck_assert_str_eq(ob.daily_secret, a);
    ck_assert_int_eq(fx_pg_count(f.path, xmin), written);
    db_close(z);
    db_guard_t bad = {.daily_secret = "0123456789abcdeX"};
    ck_assert_ptr_null(db_open_guarded(&f.loop, f.path, &bad, &ob, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "daily secret"));
    db_close(x);
    db_close(y);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    fx_close(&f);
}
END_TEST

/* A trigger that refuses the update of users.locked as PostgreSQL ends a
 * deadlock's victim (SQLSTATE 40P01) while the sequence tries, counting
 * each run of the update, is at most fails. */
static void refuse_locks(fx_t *f, int fails)
{
    char sql[600];
    snprintf(sql, sizeof sql,
             "CREATE SEQUENCE tries; "
             "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
             "IF nextval('tries') <= %d THEN "
             "RAISE EXCEPTION 'deadlock detected' USING ERRCODE = 'deadlock_detected'; "
             "END IF; RETURN NEW; END $$; "
             "CREATE TRIGGER refuse BEFORE UPDATE OF locked ON users "
             "FOR EACH ROW EXECUTE FUNCTION refuse()",
             fails);
    PGconn *c = PQconnectdb(f->path);
    PGresult *r = PQexec(c, sql);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* A lock and a new account in one batch (one transaction). */
static void lock_beside_create(fx_t *f, int64_t u, fx_done_t *lock, fx_done_t *made)
{
    db_set_autoflush(f->db, false);
    db_user_set_locked(f->db, u, true, fx_on_done, lock);
    db_user_create(f->db, "Cy", "cy", "$argon2id$fake", 1000, fx_on_done, made);
    db_flush(f->db);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    db_set_autoflush(f->db, true);
}

/* The batch ended by a conflict twice (sent at once: each run again
 * whole after a pause, never op by op first) is done by its third try:
 * both ops done, two retries counted. */
START_TEST(a_conflict_is_passed_by_running_the_batch_again)
{
    fx_t f;
    pg_open(&f);
    int64_t u = make_user(&f, "Ann", "ann");
    refuse_locks(&f, 2);
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    fx_done_t lock = {0}, made = {0};
    lock_beside_create(&f, u, &lock, &made);
    db_stats(f.db, &s1);
    ck_assert_int_eq(lock.status, DB_OK);
    ck_assert_int_eq(made.status, DB_OK);
    ck_assert_uint_eq(s1.retries - s0.retries, 2);
    ck_assert_uint_eq(s1.conflicts - s0.conflicts, 0);
    ck_assert_uint_eq(s1.commits - s0.commits, 1);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM users WHERE locked <> 0 AND name = 'Ann'"),
                     1);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM users WHERE name = 'Cy'"), 1);
    ck_assert_int_eq(fx_count(&f, "SELECT last_value FROM tries"), 3);
    fx_close(&f);
}
END_TEST

/* Each conflict a batch meets, as db_on_conflict tells it (a writer
 * thread's, read once the batch is answered). */
typedef struct {
    int n, again;
    db_conflict_t last;
} conflicts_seen_t;

static void on_conflict_seen(void *ud, const db_conflict_t *what)
{
    conflicts_seen_t *c = ud;
    c->n++;
    c->again += what->again;
    c->last = *what;
}

/* A conflict on every try: the batch is tried DB_RETRY_TRIES times, no
 * more (each try sends it at once and is ended by it, the last runs it op
 * by op then: one more run of the lock), its pauses within their bounds;
 * the last try commits the other op and fails the lock alone with words,
 * not the server's message. Each try's conflict is told, with its
 * SQLSTATE, op, kinds and try. */
START_TEST(a_conflict_on_every_try_fails_its_op_alone_after_the_tries)
{
    for (int i = 1; i < DB_RETRY_TRIES; i++)
        for (int k = 0; k < 50; k++) {
            uint32_t ms = db_retry_pause_ms(i), base = DB_RETRY_PAUSE_MS << (i - 1);
            ck_assert_uint_ge(ms, base);
            ck_assert_uint_lt(ms, 2 * base);
        }
    fx_t f;
    pg_open(&f);
    int64_t u = make_user(&f, "Ann", "ann");
    refuse_locks(&f, 1000000);
    conflicts_seen_t seen = {0};
    db_on_conflict(f.db, on_conflict_seen, &seen);
    db_stats_t s0, s1;
    db_stats(f.db, &s0);
    fx_done_t lock = {0}, made = {0};
    lock_beside_create(&f, u, &lock, &made);
    db_stats(f.db, &s1);
    ck_assert_int_eq(lock.status, DB_ECONFLICT);
    ck_assert_str_eq(db_error(f.db), DB_CONFLICT_MSG);
    ck_assert_int_eq(made.status, DB_OK);
    ck_assert_uint_eq(s1.retries - s0.retries, DB_RETRY_TRIES - 1);
    ck_assert_uint_eq(s1.conflicts - s0.conflicts, 1);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM users WHERE locked <> 0"), 0);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM users WHERE name = 'Cy'"), 1);
    ck_assert_int_eq(fx_count(&f, "SELECT last_value FROM tries"), DB_RETRY_TRIES + 1);
    ck_assert_int_eq(seen.n, DB_RETRY_TRIES);
    ck_assert_int_eq(seen.again, DB_RETRY_TRIES - 1);
    ck_assert(!seen.last.again);
    ck_assert_int_eq(seen.last.tried, DB_RETRY_TRIES);
    ck_assert_int_eq(seen.last.tries, DB_RETRY_TRIES);
    ck_assert_str_eq(seen.last.sqlstate, "40P01");
    ck_assert_str_eq(seen.last.op, "USER_SET_LOCKED");
    ck_assert_uint_eq(seen.last.ops, 2);
    ck_assert_msg(strncmp(seen.last.kinds, "USER_SET_LOCKED, ", 17) == 0, "%s", seen.last.kinds);
    fx_close(&f);
}
END_TEST

/* A session holding Ann's users row (FOR UPDATE, its transaction left
 * open): its connection. */
static PGconn *hold_user_row(const fx_t *f, const char *name)
{
    char sql[160];
    snprintf(sql, sizeof sql, "BEGIN; SELECT id FROM users WHERE name = '%s' FOR UPDATE", name);
    PGconn *c = PQconnectdb(f->path);
    PGresult *r = PQexec(c, sql);
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    return c;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The loop's turns until d is answered: the ms it took from start. */
static double answered_after(fx_t *f, const fx_done_t *d, double start)
{
    while (d->calls == 0)
        uv_run(&f->loop, UV_RUN_ONCE);
    return now_ms() - start;
}

/* Whether a writer of the daemon waits for a lock now (seen by c). */
static bool writer_waits(PGconn *c)
{
    PGresult *r = PQexec(c, "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                            "'warrend writer' AND wait_event_type = 'Lock'");
    bool waits = PQresultStatus(r) == PGRES_TUPLES_OK && atoi(PQgetvalue(r, 0, 0)) > 0;
    PQclear(r);
    return waits;
}

/* A lock of an account whose row another session holds waits for it
 * (DB_LOCK_WAIT_MS a try, then fails as a conflict), but holds up no
 * other game's append: one queued with it (the same flush) and one
 * queued while its writer waits are each stored and answered well
 * before a single lock wait, long before the lock is given up on. */
START_TEST(an_accounts_held_row_holds_up_no_other_games_append)
{
    fx_t f;
    pg_open(&f);
    int64_t ann = make_user(&f, "Ann", "ann");
    int64_t g = make_game(&f, make_user(&f, "Bo", "bo"));
    fx_done_t first = {0};
    db_journal_append(f.db, g, 1, (const uint8_t *)"a", 1, 0, fx_on_done, &first);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(first.status, DB_OK);
    PGconn *held = hold_user_row(&f, "Ann");
    PGconn *look = PQconnectdb(f.path);
    fx_done_t lock = {0}, with = {0}, later = {0};
    double start = now_ms();
    db_set_autoflush(f.db, false);
    db_user_set_locked(f.db, ann, true, fx_on_done, &lock);
    db_journal_append(f.db, g, 2, (const uint8_t *)"b", 1, 0, fx_on_done, &with);
    db_flush(f.db);
    double with_ms = answered_after(&f, &with, start);
    while (!writer_waits(look) && lock.calls == 0)
        uv_run(&f.loop, UV_RUN_NOWAIT);
    double later_start = now_ms();
    db_journal_append(f.db, g, 3, (const uint8_t *)"c", 1, 0, fx_on_done, &later);
    db_flush(f.db);
    double later_ms = answered_after(&f, &later, later_start);
    bool lock_waited = lock.calls == 0;
    answered_after(&f, &lock, start);
    double lock_ms = now_ms() - start;
    db_set_autoflush(f.db, true);
    PQclear(PQexec(held, "ROLLBACK"));
    PQfinish(held);
    PQfinish(look);
    ck_assert_int_eq(with.status, DB_OK);
    ck_assert_int_eq(later.status, DB_OK);
    ck_assert_int_eq(lock.status, DB_ECONFLICT);
    ck_assert_msg(lock_waited, "the lock was answered before the later append");
    ck_assert_msg(with_ms < DB_LOCK_WAIT_MS / 2, "an append in the lock's flush: %.0f ms", with_ms);
    ck_assert_msg(later_ms < DB_LOCK_WAIT_MS / 2, "an append while the lock waits: %.0f ms",
                  later_ms);
    ck_assert_msg(lock_ms >= 3 * DB_LOCK_WAIT_MS, "the lock's tries: %.0f ms", lock_ms);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM journal"), 3);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM users WHERE locked <> 0"), 0);
    fx_close(&f);
}
END_TEST

/* A node's event queued right after an account's write (a ban's, a
 * mute's: moderation_tell_nodes) commits after it, even while the write
 * waits for a row another session holds: the other nodes, told, read the
 * row again and find it there. An append queued after the event is not
 * held up by it. */
START_TEST(a_node_event_commits_after_the_accounts_write_before_it)
{
    fx_t f;
    pg_open(&f);
    int64_t ann = make_user(&f, "Ann", "ann");
    int64_t g = make_game(&f, make_user(&f, "Bo", "bo"));
    PGconn *held = hold_user_row(&f, "Ann");
    PGconn *look = PQconnectdb(f.path);
    fx_done_t lock = {0}, later = {0};
    int told = -1;
    double start = now_ms();
    db_set_autoflush(f.db, false);
    db_user_set_locked(f.db, ann, true, fx_on_done, &lock);
    db_notify(f.db, DB_NOTIFY_CHANNEL, "sanctions * node-a 0 0", KEY_A, on_written, &told);
    db_journal_append(f.db, g, 1, (const uint8_t *)"a", 1, 0, fx_on_done, &later);
    db_flush(f.db);
    double later_ms = answered_after(&f, &later, start);
    while (!writer_waits(look) && lock.calls == 0)
        uv_run(&f.loop, UV_RUN_NOWAIT);
    double waits_at = now_ms();
    while (now_ms() - waits_at < DB_LOCK_WAIT_MS / 2 && told == -1) {
        uv_run(&f.loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
    int told_while_held = told;
    bool lock_waited = lock.calls == 0;
    int64_t rows_while_held = fx_count(&f, "SELECT count(*) FROM node_events");
    PQclear(PQexec(held, "ROLLBACK"));
    PQfinish(held);
    PQfinish(look);
    answered_after(&f, &lock, start);
    while (told == -1)
        uv_run(&f.loop, UV_RUN_ONCE);
    db_set_autoflush(f.db, true);
    ck_assert_msg(lock_waited, "the lock was answered before the row was let go");
    ck_assert_msg(told_while_held == -1 && rows_while_held == 0,
                  "the event was stored while the lock before it waited (%d, %lld rows)",
                  told_while_held, (long long)rows_while_held);
    ck_assert_int_eq(lock.status, DB_OK);
    ck_assert_int_eq(told, DB_OK);
    ck_assert_int_eq(later.status, DB_OK);
    ck_assert_msg(later_ms < DB_LOCK_WAIT_MS / 2, "an append after the event: %.0f ms", later_ms);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM node_events"), 1);
    ck_assert_int_eq(fx_count(&f, "SELECT count(*) FROM users WHERE locked <> 0"), 1);
    fx_close(&f);
}
END_TEST

Suite *suite_db_pg(void)
{
    Suite *s = suite_create("db_pg");
    if (!getenv("WARREN_PG_URL"))
        return s;
    TCase *t = tcase_create("postgresql");
    tcase_set_timeout(t, 30); /* a reconnect's test waits a connect_timeout once */
    tcase_add_test(t, statements_are_translated_for_postgresql);
    tcase_add_test(t, two_nodes_are_given_one_daily_secret);
    tcase_add_test(t, every_statement_prepares_on_postgresql);
    tcase_add_test(t, group_commit_undoes_a_failing_op_alone);
    tcase_add_test(t, a_conflict_is_passed_by_running_the_batch_again);
    tcase_add_test(t, a_conflict_on_every_try_fails_its_op_alone_after_the_tries);
    tcase_add_test(t, an_accounts_held_row_holds_up_no_other_games_append);
    tcase_add_test(t, a_node_event_commits_after_the_accounts_write_before_it);
    tcase_add_test(t, a_batch_that_succeeds_is_sent_at_once);
    tcase_add_test(t, a_games_rows_commit_in_order_across_two_writers);
    tcase_add_test(t, a_gap_fails_alone_in_a_batch_sent_with_its_commit);
    tcase_add_test(t, a_fenced_batch_sent_with_its_commit_refuses_another_nodes_game);
    tcase_add_test(t, journal_snapshot_resume_finish_and_reopen);
    tcase_add_test(t, rows_of_two_dialects_agree);
    tcase_add_test(t, hosted_rows_and_retired_names);
    tcase_add_test(t, dropped_connections_are_made_again);
    tcase_add_test(t, a_batch_sent_at_once_after_a_drop_connects_again);
    tcase_add_test(t, a_reconnect_tries_the_host_that_answered_first);
    tcase_add_test(t, both_schemas_have_the_same_columns);
    tcase_add_test(t, score_filters_read_index_ranges_on_postgresql);
    tcase_add_test(t, two_nodes_never_give_the_same_game_id);
    tcase_add_test(t, two_nodes_racing_for_a_lease_one_wins);
    tcase_add_test(t, a_takeover_loses_no_acknowledged_row);
    tcase_add_test(t, a_renewal_writes_one_row_whatever_the_games);
    tcase_add_test(t, a_renewal_says_its_games_in_its_one_row);
    tcase_add_test(t, a_late_committing_event_is_read_after_its_commit);
    tcase_add_test(t, a_read_of_the_log_takes_only_what_it_keeps);
    tcase_add_test(t, an_event_written_again_under_its_key_is_one_event);
    tcase_add_test(t, an_event_written_again_as_late_as_its_sender_may_is_one_event);
    suite_add_tcase(s, t);
    return s;
}
