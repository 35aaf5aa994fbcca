/* Unit tests: db — hosted games' recordings (db_hosted.h): one open row per
 * player and game, chunks numbered in commit order, counts and the
 * truncated flag, the end linking the score row, and deletion with the
 * account. A real SQLite file, a real libuv loop. */
#include <check.h>
#include <string.h>
#include "db.h"
#include "db_fixture.h"
#include "db_hosted.h"
#include "db_records.h"

/* A write that must succeed: its id into *ud. */
static void on_id(void *ud, int status, int64_t id)
{
    ck_assert_int_eq(status, DB_OK);
    *(int64_t *)ud = id;
}

typedef struct {
    int status;
    db_hosted_game_t g;
    bool has_score;
    db_hosted_score_t score;
    char score_name[32];
    size_t n;
    int64_t seq[8], ms[8];
    char data[8][8];
} rec_res_t;

static void on_rec(void *ud, int status, const db_hosted_game_t *g, const db_hosted_score_t *s,
                   const db_hosted_chunk_t *c, size_t n)
{
    rec_res_t *r = ud;
    r->status = status;
    if (g)
        r->g = *g;
    if ((r->has_score = s != NULL)) {
        r->score = *s;
        snprintf(r->score_name, sizeof r->score_name, "%s", s->name);
    }
    r->n = n;
    for (size_t i = 0; i < n && i < 8; i++) {
        r->seq[i] = c[i].seq;
        r->ms[i] = c[i].ms;
        snprintf(r->data[i], sizeof r->data[i], "%.*s", (int)c[i].len, (const char *)c[i].data);
    }
}

typedef struct {
    size_t n;
    int64_t recording;
} scores_res_t;

static void on_scores(void *ud, int status, const db_hosted_score_t *r, size_t n)
{
    scores_res_t *s = ud;
    ck_assert_int_eq(status, DB_OK);
    s->n = n;
    s->recording = n ? r[0].recording : -1;
}

static rec_res_t open_rec(fx_t *f, int64_t user, const char *game)
{
    rec_res_t r = {0};
    db_hosted_game_open(f->db, user, game, 1000, 80, 24, 0, on_rec, &r);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.status, DB_OK);
    return r;
}

START_TEST(recordings_rows_chunks_end_and_deletion)
{
    fx_t f;
    fx_open(&f);
    int64_t user = 0;
    db_user_create(f.db, "Rec", "rec", "$argon2id$fake", 1, on_id, &user);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_gt(user, 0);
    rec_res_t a = open_rec(&f, user, "nethack");
    ck_assert_int_gt(a.g.id, 0);
    ck_assert_str_eq(a.g.player, "Rec");
    ck_assert_str_eq(a.g.game, "nethack");
    ck_assert_int_eq(a.g.width * 100 + a.g.height, 8024);
    ck_assert_int_eq(a.g.chunks + a.g.bytes + a.g.end_time, 0);
    ck_assert_int_eq(open_rec(&f, user, "nethack").g.id, a.g.id); /* the open one goes on */
    ck_assert_int_ne(open_rec(&f, user, "crawl").g.id, a.g.id);
    db_hosted_chunk_add(f.db, a.g.id, 5, "abc", 3, 10, false, NULL, NULL);
    db_hosted_chunk_add(f.db, a.g.id, 900, "de", 2, 5, false, NULL, NULL);
    db_hosted_chunk_add(f.db, a.g.id, 0, NULL, 0, 0, true, NULL, NULL); /* the flag alone */
    rec_res_t c = {0}, part = {0}, upto = {0};
    db_hosted_game_chunks(f.db, a.g.id, 0, 1000, 10, on_rec, &c);
    db_hosted_game_chunks(f.db, a.g.id, 1, 1000, 10, on_rec, &part); /* after the first */
    db_hosted_game_chunks(f.db, a.g.id, 0, 1, 10, on_rec, &upto);    /* up to the first */
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_uint_eq(part.n, 1);
    ck_assert_int_eq(part.seq[0], 2);
    ck_assert_uint_eq(upto.n, 1);
    ck_assert_int_eq(upto.seq[0], 1);
    ck_assert_int_eq(c.status, DB_OK);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_int_eq(c.seq[0] * 10 + c.seq[1], 12);
    ck_assert_int_eq(c.ms[1], 900);
    ck_assert_str_eq(c.data[0], "abc");
    ck_assert_str_eq(c.data[1], "de");
    ck_assert_int_eq(c.g.bytes, 15);
    ck_assert(c.g.truncated);
    ck_assert_int_eq(c.g.chunks, 2);
    ck_assert_int_eq(c.g.last_ms, 900);
    ck_assert(!c.has_score);

    db_hosted_score_t s = {user,   "nethack", "Rec", "Val", "Hum", "Fem", "Neu",
                           "quit", 1,         7,     30,    60,    1000,  1100};
    db_hosted_game_end(f.db, a.g.id, 1100, &s, NULL, NULL);
    rec_res_t e = {0};
    db_hosted_game_get(f.db, a.g.id, on_rec, &e);
    scores_res_t sc = {0};
    db_hosted_scores_of_user(f.db, user, 10, on_scores, &sc);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(e.g.end_time, 1100);
    ck_assert(e.has_score);
    ck_assert_str_eq(e.score_name, "Rec");
    ck_assert_int_eq(e.score.recording, a.g.id);
    ck_assert_int_gt(e.g.score, 0);
    ck_assert_uint_eq(sc.n, 1);
    ck_assert_int_eq(sc.recording, a.g.id);
    ck_assert_int_ne(open_rec(&f, user, "nethack").g.id, a.g.id); /* ended: a new row */

    int64_t deleted = 0;
    db_user_delete(f.db, user, NULL, on_id, &deleted);
    rec_res_t gone = {0};
    db_hosted_game_get(f.db, a.g.id, on_rec, &gone);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(deleted, user);
    ck_assert_int_eq(gone.status, DB_ENOTFOUND);
    fx_close(&f);
}
END_TEST

Suite *suite_db_hosted(void)
{
    Suite *s = suite_create("db_hosted");
    TCase *tc = tcase_create("hosted");
    tcase_add_test(tc, recordings_rows_chunks_end_and_deletion);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on PostgreSQL where WARREN_PG_URL names a server. */
Suite *suite_db_hosted_pg(void)
{
    Suite *s = suite_create("db_hosted_pg");
    if (!getenv("WARREN_PG_URL"))
        return s;
    TCase *tc = tcase_create("postgresql");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, fx_use_pg, NULL);
    tcase_add_test(tc, recordings_rows_chunks_end_and_deletion);
    suite_add_tcase(s, tc);
    return s;
}
