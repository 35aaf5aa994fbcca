/* Unit tests: server/core/frames' grids — a game keeps one grid (its
 * viewers' baseline); each frame is drawn into the loop's frame grid and
 * swapped with the baseline, so games of different sizes take turns with
 * the same one and each baseline holds its own game's last frame. */
#include <check.h>
#include <string.h>
#include <uv.h>
#include "backend.h"
#include "frames.h"
#include "server.h"
#include "session_impl.h"

/* The test backend draws its game id and a counter into row 0. */
static int draws;

static void test_draw(const session_t *s, screen_t *scr, const session_view_t *v)
{
    (void)v;
    char text[40];
    snprintf(text, sizeof text, "game %lld frame %d", (long long)s->game_id, ++draws);
    screen_clear(scr);
    screen_text(scr, 0, 0, (style_t){SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, 0}, text);
}

static void test_free(session_t *s)
{
    (void)s;
}

static const backend_ops_t TEST_OPS = {.kind = "test", .draw = test_draw, .free = test_free};

static void row0(const screen_t *g, char *out, int n)
{
    int i = 0;
    for (; i < n - 1 && i < g->w; i++)
        out[i] = (char)screen_at(g, i, 0)->ch;
    while (i > 0 && out[i - 1] == ' ')
        i--;
    out[i] = '\0';
}

START_TEST(one_grid_a_game_and_the_loop_draws_in_its_own)
{
    uv_loop_t loop;
    server_t srv;
    memset(&srv, 0, sizeof srv);
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    server_init(&srv, &loop);
    draws = 0;
    session_t *a = session_new(&srv, 1, 1, "amy", &TEST_OPS);
    session_t *b = session_new(&srv, 2, 2, "bob", &TEST_OPS);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_eq(a->grid, a->sent); /* one grid: its size is read through either */
    ck_assert_int_eq(screen_resize(b->sent, 100, 30), 0);
    char text[120];
    for (int i = 0; i < 3; i++) {
        frames_broadcast(a);
        frames_broadcast(b);
    }
    ck_assert_ptr_eq(a->grid, a->sent);
    ck_assert_ptr_eq(b->grid, b->sent);
    ck_assert_ptr_nonnull(srv.frame_grid); /* the loop's, kept for the next frame */
    ck_assert_ptr_ne(srv.frame_grid, a->sent);
    ck_assert_ptr_ne(srv.frame_grid, b->sent);
    ck_assert_int_eq(a->sent->w, TERM_MIN_W);
    ck_assert_int_eq(b->sent->w, 100);
    ck_assert_int_eq(b->sent->h, 30);
    row0(a->sent, text, sizeof text);
    ck_assert_str_eq(text, "game 1 frame 5");
    row0(b->sent, text, sizeof text);
    ck_assert_str_eq(text, "game 2 frame 6");
    ck_assert_int_eq(a->frame_seq, 3);
    session_free(a);
    session_free(b);
    session_free_all(&srv);
    server_bufs_free(&srv);
    ck_assert_ptr_null(srv.frame_grid);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *suite_server_frames(void)
{
    Suite *s = suite_create("server_frames");
    TCase *t = tcase_create("grids");
    tcase_add_test(t, one_grid_a_game_and_the_loop_draws_in_its_own);
    suite_add_tcase(s, t);
    return s;
}
