/* Unit tests: db/db_daily — an account's state for a day (new, live,
 * another game, done), the game, its daily row and its first journal row
 * made in one transaction (a second attempt leaves no game behind), and a
 * day's board (verified games first, by score). A real SQLite file. */
#include <check.h>
#include <string.h>
#include "db_daily.h"
#include "db_fixture.h"

typedef struct {
    int calls, status;
    int64_t id;
} res_t;

static void on_done(void *ud, int status, int64_t id)
{
    res_t *r = ud;
    r->calls++;
    r->status = status;
    r->id = id;
}

typedef struct {
    int status;
    size_t n;
    int64_t ids[8];
    int verified[8];
} board_t;

static void on_board(void *ud, int status, const db_game_t *g, size_t n)
{
    board_t *b = ud;
    b->status = status;
    b->n = n;
    for (size_t i = 0; i < n && i < 8; i++) {
        b->ids[i] = g[i].id;
        b->verified[i] = g[i].verified;
    }
}

static int64_t user(fx_t *f, const char *name)
{
    res_t r = {0};
    db_user_create(f->db, name, name, "$argon2id$fake", 1000, on_done, &r);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.status, DB_OK);
    return r.id;
}

static int state(fx_t *f, const char *day, int64_t u)
{
    res_t r = {0};
    db_daily_state(f->db, day, u, on_done, &r);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.calls, 1);
    ck_assert_int_eq(r.status, DB_OK);
    return (int)r.id;
}

/* The day's attempt of u: its id (> 0) or the failure's status. */
static int64_t attempt(fx_t *f, const char *day, int64_t u)
{
    db_game_new_t g = {
        .user = u, .seed = 42, .content_version = "c1", .race = "", .cls = "", .start_time = 5};
    const uint8_t key[] = {' '};
    res_t r = {0};
    int64_t id = db_daily_create(f->db, day, &g, key, 1, on_done, &r);
    ck_assert_int_gt(id, 0);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.calls, 1);
    return r.status == DB_OK ? id : r.status;
}

static void finish(fx_t *f, int64_t game, int64_t score)
{
    db_game_end_t end = {.end_time = 10, .score = score, .cause = "quit", .end_kind = "quit"};
    res_t r = {0};
    db_game_finish(f->db, game, &end, NULL, 0, "dump", 4, on_done, &r);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.status, DB_OK);
}

START_TEST(one_attempt_a_day)
{
    fx_t f;
    fx_open(&f);
    int64_t u = user(&f, "ada");
    const char *day = "2026-11-28";
    ck_assert_int_eq(state(&f, day, u), DB_DAILY_NEW);
    int64_t g = attempt(&f, day, u);
    ck_assert_int_gt(g, 0);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal WHERE seq = 1"), 1);
    ck_assert_int_eq(state(&f, day, u), DB_DAILY_LIVE);
    ck_assert_int_eq(state(&f, "2026-11-29", u), DB_DAILY_OTHER); /* yesterday's runs on */
    ck_assert_int_eq(attempt(&f, day, u), DB_EEXISTS);            /* one live game */
    finish(&f, g, 10);
    ck_assert_int_eq(state(&f, day, u), DB_DAILY_DONE);
    /* the game row is made before the daily row: refused, it is undone too */
    ck_assert_int_eq(attempt(&f, day, u), DB_EEXISTS);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM games"), 1);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM journal"), 1);
    ck_assert_int_eq(state(&f, "2026-11-29", u), DB_DAILY_NEW);
    fx_close(&f);
}
END_TEST

START_TEST(board_ranks_verified_first)
{
    fx_t f;
    fx_open(&f);
    const char *day = "2026-11-28";
    int64_t u1 = user(&f, "bea"), u2 = user(&f, "cal"), u3 = user(&f, "dee");
    int64_t g1 = attempt(&f, day, u1), g2 = attempt(&f, day, u2), g3 = attempt(&f, day, u3);
    finish(&f, g1, 100);
    finish(&f, g2, 50);
    res_t r = {0};
    db_game_set_verified(f.db, g2, 1, on_done, &r);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    board_t b = {0};
    db_daily_board(f.db, day, 10, on_board, &b);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(b.status, DB_OK);
    ck_assert_uint_eq(b.n, 3);
    ck_assert_int_eq(b.ids[0], g2); /* verified, though it scored less */
    ck_assert_int_eq(b.verified[0], 1);
    ck_assert_int_eq(b.ids[1], g1); /* unchecked */
    ck_assert_int_eq(b.ids[2], g3); /* live */
    memset(&b, 0, sizeof b);
    db_daily_board(f.db, "2026-11-27", 10, on_board, &b);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_uint_eq(b.n, 0);
    fx_close(&f);
}
END_TEST

START_TEST(bad_arguments)
{
    fx_t f;
    fx_open(&f);
    db_game_new_t g = {.user = 1, .seed = 1, .content_version = "c1"};
    const uint8_t key[] = {' '};
    ck_assert_int_eq(db_daily_create(f.db, "2026-1-1", &g, key, 1, NULL, NULL), DB_EINVAL);
    ck_assert_int_eq(db_daily_create(f.db, NULL, &g, key, 1, NULL, NULL), DB_EINVAL);
    ck_assert_int_eq(db_daily_create(f.db, "2026-11-28", &g, key, 0, NULL, NULL), DB_EINVAL);
    fx_close(&f);
}
END_TEST

Suite *suite_db_daily(void)
{
    Suite *s = suite_create("db_daily");
    TCase *t = tcase_create("daily");
    tcase_add_test(t, one_attempt_a_day);
    tcase_add_test(t, board_ranks_verified_first);
    tcase_add_test(t, bad_arguments);
    suite_add_tcase(s, t);
    return s;
}
