/* Unit tests: server/core/frames' grids — a game keeps one grid (its
 * viewers' baseline); each frame is drawn into the loop's frame grid and
 * swapped with the baseline, so games of different sizes take turns with
 * the same one and each baseline holds its own game's last frame; and
 * watchers at the game's own size, their line on their bottom row, share
 * one encoding of their frame. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "backend.h"
#include "conn.h"
#include "frames.h"
#include "hooks.h"
#include "json.h"
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

/* A game whose state the layers above know (as Warren's): its watchers'
 * line may keep its bottom row (a hosted game's only for a while). */
static bool test_status(const session_t *s, session_status_t *st)
{
    (void)s;
    st->depth = 1;
    return true;
}

static const backend_ops_t TEST_OPS = {
    .kind = "test", .draw = test_draw, .free = test_free, .status = test_status};

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
    ck_assert_int_eq(server_init(&srv, &loop), 0);
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

/* ---- watchers sharing a frame of their own size ---------------------------------------- */

/* A terminal gateway for the test: what each conn was sent, kept whole. */
typedef struct {
    conn_t c;
    buf_t got;
    uint64_t last; /* when it was last written, in writes to any of them */
} tconn_t;

static uint64_t writes;

static void tc_write(conn_t *c, const void *data, size_t len, bool text)
{
    (void)text;
    buf_put(&((tconn_t *)c)->got, data, len);
    ((tconn_t *)c)->last = ++writes;
}

static bool tc_writable(const conn_t *c)
{
    (void)c;
    return true;
}

static const conn_ops_t TC_OPS = {.write = tc_write, .writable = tc_writable};

/* The watch line's stand-in (watch.c's draws whom and how many): the
 * bottom row; one conn has help up, so draws its own frames. */
static const style_t LINE_ST = {0, 14, 0};
static const conn_t *helped;

static void tw_line(const session_t *s, screen_t *scr)
{
    screen_fill(scr, 0, scr->h - 1, scr->w, 1, ' ', LINE_ST);
    screen_textf(scr, 0, scr->h - 1, LINE_ST, "Watching %s, %d watching", s->user, s->nwatchers);
}

static void tw_draw(session_t *s, conn_t *c, screen_t *scr)
{
    tw_line(s, scr);
    if (c == helped)
        screen_text(scr, 10, 10, LINE_ST, "help");
}

static bool tw_own(const conn_t *c)
{
    return c == helped;
}

static bool tw_footer(session_t *s, conn_t *c, char *out, size_t n, bool force)
{
    (void)c, (void)force;
    snprintf(out, n, "Watching %s", s->user);
    return true;
}

/* What an 80x24 watcher of s should get for s's last frame, its terminal
 * showing prev (the frame before with the line): the diff; prev moves on. */
static void expected_diff(const session_t *s, screen_t *prev, const ansi_profile_t *p, buf_t *out)
{
    screen_t *next = screen_new(prev->w, prev->h);
    ck_assert_ptr_nonnull(next);
    screen_copy(next, prev);
    screen_clean(next);
    screen_copy(next, s->sent);
    tw_line(s, next);
    buf_reset(out);
    ansi_diff(p, prev, next, out);
    screen_copy(prev, next);
    screen_free(next);
}

#define NW 40

/* A game watched by a crowd of n 80x24 watchers through the stand-ins
 * above: the loop, server and hooks it needs, opened and closed whole. */
typedef struct {
    uv_loop_t loop;
    server_t srv;
    hooks_t hk;
    session_t *a;
    tconn_t *w;
    int n;
    screen_t *prev; /* crowd_start's: their terminals' last frame */
    buf_t want;     /* crowd_frame's: the bytes each got */
} crowd_t;

static void crowd_open(crowd_t *cr, int n)
{
    memset(cr, 0, sizeof *cr);
    ck_assert_int_eq(uv_loop_init(&cr->loop), 0);
    ck_assert_int_eq(server_init(&cr->srv, &cr->loop), 0);
    cr->hk = hooks_none;
    cr->hk.watcher_draw = tw_draw, cr->hk.watcher_own = tw_own, cr->hk.watcher_footer = tw_footer;
    cr->srv.hooks = &cr->hk;
    cr->srv.cfg.input_rate = 100;
    helped = NULL;
    cr->a = session_new(&cr->srv, 1, 1, "amy", &TEST_OPS);
    ck_assert_ptr_nonnull(cr->a);
    cr->n = n;
    cr->w = calloc((size_t)n, sizeof *cr->w);
    ck_assert_ptr_nonnull(cr->w);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(conn_init(&cr->w[i].c, &cr->srv, &TC_OPS), 0);
        cr->w[i].c.w = TERM_MIN_W, cr->w[i].c.h = TERM_MIN_H;
        session_watch(&cr->w[i].c, cr->a);
    }
}

static void crowd_close(crowd_t *cr)
{
    session_free(cr->a);
    session_free_all(&cr->srv);
    for (int i = 0; i < cr->n; i++) {
        conn_fini(&cr->w[i].c);
        buf_free(&cr->w[i].got);
    }
    free(cr->w);
    screen_free(cr->prev);
    buf_free(&cr->want);
    server_bufs_free(&cr->srv);
    uv_run(&cr->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&cr->loop), 0);
}

/* A crowd of n that all had a frame (the same count on their line now),
 * their terminals' frame kept for the next one's diff. */
static void crowd_start(crowd_t *cr, int n)
{
    crowd_open(cr, n);
    frames_broadcast(cr->a);
    cr->prev = screen_new(TERM_MIN_W, TERM_MIN_H);
    ck_assert_ptr_nonnull(cr->prev);
    screen_copy(cr->prev, cr->a->sent);
    tw_line(cr->a, cr->prev);
}

/* The crowd's next frame: every watcher gets the diff from its last,
 * the same bytes (in cr->want). */
static void crowd_frame(crowd_t *cr)
{
    for (int i = 0; i < cr->n; i++)
        buf_reset(&cr->w[i].got);
    frames_broadcast(cr->a);
    expected_diff(cr->a, cr->prev, &cr->w[0].c.prof, &cr->want);
    ck_assert_uint_gt(cr->want.len, 0);
    for (int i = 0; i < cr->n; i++) {
        ck_assert_uint_eq(cr->w[i].got.len, cr->want.len);
        ck_assert_mem_eq(cr->w[i].got.data, cr->want.data, cr->want.len);
    }
}

/* 40 watchers at the game's own size (no row below it for their line, so
 * the line goes on their bottom row) cost one encoding a frame, not 40,
 * and each gets the bytes that take its terminal to the game's frame with
 * the line; one with help up draws its own; a keyframe joins the group. */
START_TEST(same_size_watchers_share_one_encoding)
{
    crowd_t cr;
    crowd_start(&cr, NW);
    session_t *a = cr.a;
    tconn_t *w = cr.w;
    for (int round = 0; round < 3; round++) {
        uint64_t before = cr.srv.frame_encodes;
        crowd_frame(&cr);
        ck_assert_uint_eq(cr.srv.frame_encodes - before, 1); /* not one per watcher */
    }
    /* help up on one: it draws alone, the others still share */
    helped = &w[3].c;
    session_view_changed(&w[3].c);
    uint64_t before = cr.srv.frame_encodes;
    frames_broadcast(a);
    ck_assert_uint_eq(cr.srv.frame_encodes - before, 2);
    ck_assert_ptr_nonnull(memmem(w[3].got.data, w[3].got.len, "help", 4));
    /* help closed: a keyframe of the group's frame, then its diffs again */
    helped = NULL;
    buf_reset(&w[3].got);
    session_view_changed(&w[3].c);
    ck_assert_ptr_nonnull(memmem(w[3].got.data, w[3].got.len, "Watching amy, 40 watching", 25));
    crowd_frame(&cr);
    crowd_close(&cr);
}
END_TEST

/* A crowd joining one game: each join redraws for everyone only while the
 * crowd is small; past that the count is drawn once a tick (else 5,000
 * joining cost 12 million frames), and then every watcher has it. */
START_TEST(a_crowd_joining_redraws_its_count_once_a_tick)
{
    enum { N = 100 };
    crowd_t cr;
    crowd_open(&cr, N);
    session_t *a = cr.a;
    tconn_t *w = cr.w;
    ck_assert_uint_le(a->frame_seq, 16); /* not one frame a join */
    for (int i = 0; i < N; i++)
        buf_reset(&w[i].got);
    session_tick(&cr.srv);
    ck_assert_uint_le(a->frame_seq, 17);
    for (int i = 0; i < N; i++)
        ck_assert_ptr_nonnull(
            memmem(w[i].got.data, w[i].got.len, "00 watching", 11)); /* 16 -> 100 */
    session_tick(&cr.srv);                                           /* nothing more to draw */
    ck_assert_uint_le(a->frame_seq, 17);
    crowd_close(&cr);
}
END_TEST

/* A crowd's frames do not always reach the same watcher last (for 5,000
 * on one game, the last copy leaves a whole fan-out after the first):
 * each frame's walk starts elsewhere, and still every watcher gets every
 * frame's bytes, once. */
START_TEST(a_crowd_s_last_copy_goes_round)
{
    enum { FRAMES = 20 };
    crowd_t cr;
    crowd_start(&cr, NW);
    tconn_t *w = cr.w;
    int last_times[NW] = {0}, lasts = 0;
    for (int f = 0; f < FRAMES; f++) {
        uint64_t from = writes;
        crowd_frame(&cr);
        ck_assert_uint_eq(writes - from, NW); /* one write each */
        int last = 0;
        for (int i = 0; i < NW; i++) {
            ck_assert_uint_gt(w[i].last, from);
            last = w[i].last > w[last].last ? i : last;
        }
        lasts += last_times[last]++ == 0;
    }
    for (int i = 0; i < NW; i++)
        ck_assert_int_le(last_times[i], 2);
    ck_assert_int_ge(lasts, FRAMES - 5);
    crowd_close(&cr);
}
END_TEST

/* ---- a frame drawn over the baseline in place -------------------------------------------- */

/* A backend that changes a few rows a frame, now and then none, all (a
 * clear, the rows moved up: a scroll) or a row moved sideways, and moves
 * the cursor: every way the diff reads the frame before. */
static uint32_t rnd;

static uint32_t next_rnd(void)
{
    rnd = rnd * 1103515245u + 12345u;
    return rnd >> 8;
}

static void moved_draw(screen_t *scr, int dy, int dx)
{
    int y0 = dy ? 1 : (int)(next_rnd() % (uint32_t)scr->h);
    for (int y = y0; y < (dy ? scr->h : y0 + 1); y++)
        for (int x = dx; x < scr->w; x++) {
            const cell_t *c = screen_at(scr, x, y);
            screen_put(scr, x - dx, y - dy, c->ch, (style_t){c->fg, c->bg, c->attr});
        }
}

static void rand_draw(const session_t *s, screen_t *scr, const session_view_t *v)
{
    (void)s, (void)v;
    uint32_t r = next_rnd();
    if (r % 31 == 0)
        screen_clear(scr);
    if (r % 7 == 1)
        moved_draw(scr, 1, 0);
    if (r % 5 == 2)
        moved_draw(scr, 0, 2);
    for (int i = (int)(r >> 4) % 6; i > 0; i--) {
        uint32_t q = next_rnd();
        screen_textf(scr, (int)(q % 50), (int)(q >> 6) % scr->h,
                     (style_t){(uint16_t)(q >> 11) % 16, SCREEN_DEFAULT_COLOR, 0},
                     "row %u of the frame %u", q % 977, q % 13);
    }
    uint32_t q = next_rnd();
    screen_cursor(scr, (int)(q % (uint32_t)scr->w), (int)(q >> 7) % scr->h, (q >> 3) & 1);
}

static const backend_ops_t RAND_OPS = {.kind = "test", .draw = rand_draw, .free = test_free};

/* With keyed set, the frame's first write asks a keyframe for a watcher
 * not yet sent the frame (one behind, drained mid-frame): it must be of
 * the frame its diff then starts from. */
static tconn_t *keyed_among;
static int keyed_n, keyed;
static session_t *keyed_sess;

static void tc_write_keys(conn_t *c, const void *data, size_t len, bool text)
{
    tc_write(c, data, len, text);
    if (!keyed_among)
        return;
    tconn_t *w = keyed_among;
    keyed_among = NULL;
    for (int i = keyed_n - 1; i >= 0; i--)
        if (&w[i].c != c && w[i].got.len == 0) {
            keyed = i;
            frames_keyframe(keyed_sess, &w[i].c);
            return;
        }
}

static const conn_ops_t TK_OPS = {.write = tc_write_keys, .writable = tc_writable};

/* Frames drawn over the baseline in place, each row they change kept
 * first: every watcher gets, frame after frame, the bytes a whole copy of
 * the frame before gives (xterm, vt100, JSON), and a keyframe asked in the
 * midst of a frame's sends is of the frame before, whole. */
START_TEST(frames_drawn_in_place_send_what_a_whole_copy_sends)
{
    enum { NV = 4 };
    static const char *const TERMS[NV] = {"xterm-256color", "vt100", "xterm-256color", "xterm"};
    uv_loop_t loop;
    server_t srv;
    memset(&srv, 0, sizeof srv);
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    ck_assert_int_eq(server_init(&srv, &loop), 0);
    srv.cfg.input_rate = 100;
    rnd = 7;
    session_t *a = session_new(&srv, 1, 1, "amy", &RAND_OPS);
    ck_assert_ptr_nonnull(a);
    tconn_t w[NV];
    memset(w, 0, sizeof w);
    for (int i = 0; i < NV; i++) {
        ck_assert_int_eq(conn_init(&w[i].c, &srv, &TK_OPS), 0);
        w[i].c.w = TERM_MIN_W, w[i].c.h = TERM_MIN_H;
        ansi_profile_for_term(&w[i].c.prof, TERMS[i]);
        w[i].c.prof_id = ansi_profile_id(&w[i].c.prof);
        w[i].c.json = i == 2;
        session_watch(&w[i].c, a);
    }
    screen_t *prev = screen_new(TERM_MIN_W, TERM_MIN_H), *next = screen_new(1, 1);
    buf_t want;
    buf_init(&want);
    frames_broadcast(a);
    screen_copy(prev, a->sent);
    int nkeyed = 0;
    for (int f = 0; f < 400; f++) {
        for (int i = 0; i < NV; i++)
            buf_reset(&w[i].got);
        keyed_sess = a, keyed_n = NV, keyed = -1;
        keyed_among = f % 3 == 0 ? w : NULL;
        frames_broadcast(a);
        keyed_among = NULL;
        nkeyed += keyed >= 0;
        screen_copy(next, prev);
        screen_clean(next);
        screen_copy(next, a->sent); /* dirty: the rows that changed */
        for (int i = 0; i < NV; i++) {
            buf_reset(&want);
            if (i == keyed && w[i].c.json)
                json_frame(NULL, prev, a->frame_seq, &want);
            else if (i == keyed)
                ansi_keyframe(&w[i].c.prof, prev, &want);
            if (w[i].c.json)
                json_frame(prev, next, a->frame_seq, &want);
            else
                ansi_diff(&w[i].c.prof, prev, next, &want);
            ck_assert_msg(w[i].got.len == want.len &&
                              memcmp(w[i].got.data, want.data, want.len) == 0,
                          "frame %d, watcher %d: %zu bytes, a whole copy gives %zu", f, i,
                          w[i].got.len, want.len);
        }
        screen_copy(prev, next);
    }
    ck_assert_int_gt(nkeyed, 100);
    ck_assert_ptr_null(a->before);
    buf_free(&want);
    screen_free(prev), screen_free(next);
    session_free(a);
    session_free_all(&srv);
    for (int i = 0; i < NV; i++) {
        conn_fini(&w[i].c);
        buf_free(&w[i].got);
    }
    server_bufs_free(&srv);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *suite_server_frames(void)
{
    Suite *s = suite_create("server_frames");
    TCase *t = tcase_create("grids");
    tcase_add_test(t, one_grid_a_game_and_the_loop_draws_in_its_own);
    tcase_add_test(t, same_size_watchers_share_one_encoding);
    tcase_add_test(t, a_crowd_joining_redraws_its_count_once_a_tick);
    tcase_add_test(t, a_crowd_s_last_copy_goes_round);
    tcase_add_test(t, frames_drawn_in_place_send_what_a_whole_copy_sends);
    suite_add_tcase(s, t);
    return s;
}
