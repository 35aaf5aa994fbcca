/* bench_walk — the seeded 200-key walk at 80x24: what each key costs to
 * draw and to send over the real ANSI encoder (the profile telnet gives an
 * xterm-256color terminal), as a player's session does it: render into the
 * grid, diff against what the terminal shows, the grid becomes the baseline. */
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <time.h>
#include "ansi.h"
#include "game.h"
#include "tool.h"

#define WALK_KEYS   200
#define WALK_ROUNDS 40 /* walks timed for the CPU figures */

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The walk's keys: the eight directions drawn from a fixed xorshift. */
void bench_walk_keys(char *keys, int n)
{
    static const char DIRS[] = "hjklyubn";
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        keys[i] = DIRS[x % 8];
    }
}

/* The same frame the way a host can take it without a copy: the game's
 * kept frame (game_frame) diffed against what the terminal shows, and
 * only its changed rows copied there. CPU ns; the bytes go to b. */
static double frame_step(game_t *g, const ansi_profile_t *prof, const game_view_t *v,
                         screen_t *shown, buf_t *b)
{
    buf_reset(b);
    double t0 = cpu_ns();
    const screen_t *f = game_frame(g, shown->w, shown->h, v);
    if (!f)
        return 0;
    ansi_diff(prof, shown, f, b);
    for (int y = 0; y < f->h; y++)
        if (f->dirty[y])
            memcpy(shown->cells + (size_t)y * (size_t)f->w, f->cells + (size_t)y * (size_t)f->w,
                   sizeof(cell_t) * (size_t)f->w);
    screen_cursor(shown, f->cur_x, f->cur_y, f->cur_visible);
    return cpu_ns() - t0;
}

/* The frame after a key the way a session takes it: rendered into the
 * grid, diffed against what the terminal shows, the grid becomes that. */
static void grid_step(game_t *g, const ansi_profile_t *prof, const game_view_t *v, screen_t *grid,
                      screen_t *sent, buf_t *b, bench_walk_t *out)
{
    double t0 = cpu_ns();
    game_render(g, grid, v);
    double t1 = cpu_ns();
    ansi_diff(prof, sent, grid, b);
    screen_copy(sent, grid);
    screen_clean(sent);
    screen_clean(grid);
    out->render_ns += t1 - t0;
    out->diff_ns += cpu_ns() - t1;
}

int bench_play_start(bench_play_t *p, const content_t *c, script_vm_t *vm)
{
    ansi_profile_for_term(&p->prof, "xterm-256color");
    p->g = game_new(c, 1, NULL);
    p->grid = screen_new(80, 24);
    p->sent = screen_new(80, 24);
    buf_init(&p->b);
    p->v = (game_view_t){0};
    if (!p->g || !p->grid || !p->sent)
        return -1;
    game_input(p->g, vm, (key_event_t){'x', 0}); /* a random character */
    game_render(p->g, p->grid, &p->v);
    ansi_keyframe(&p->prof, p->grid, &p->b);
    screen_copy(p->sent, p->grid);
    screen_clean(p->sent);
    screen_clean(p->grid);
    return 0;
}

void bench_play_end(bench_play_t *p)
{
    buf_free(&p->b);
    screen_free(p->grid);
    screen_free(p->sent);
    game_free(p->g);
}

/* One walk from a fresh game of seed 1, each frame taken through the grid
 * (game_render) or the kept frame (by_frame: game_frame); adds the bytes
 * sent and the CPU spent to out. -1 when the game cannot start. */
static int walk_once(const content_t *c, script_vm_t *vm, const char *keys, bool by_frame,
                     bench_walk_t *out)
{
    bench_play_t p;
    int ret = bench_play_start(&p, c, vm);
    for (int i = 0; ret == 0 && i < WALK_KEYS; i++) {
        game_input(p.g, vm, (key_event_t){(uint32_t)keys[i], 0});
        buf_reset(&p.b);
        if (by_frame)
            out->frame_ns += frame_step(p.g, &p.prof, &p.v, p.sent, &p.b);
        else
            grid_step(p.g, &p.prof, &p.v, p.grid, p.sent, &p.b, out);
        out->bytes += (double)p.b.len;
        out->keys++;
    }
    bench_play_end(&p);
    return ret;
}

int bench_walk(const content_t *c, script_vm_t *vm, bench_walk_t *out)
{
    char keys[WALK_KEYS];
    bench_walk_keys(keys, WALK_KEYS);
    bench_walk_t grid = {0}, frame = {0};
    if (walk_once(c, vm, keys, false, &grid) < 0)
        return -1;
    out->bytes = grid.bytes / grid.keys;
    grid = (bench_walk_t){0};
    for (int r = 0; r < WALK_ROUNDS; r++)
        if (walk_once(c, vm, keys, false, &grid) < 0 || walk_once(c, vm, keys, true, &frame) < 0)
            return -1;
    out->render_ns = grid.render_ns / grid.keys;
    out->diff_ns = grid.diff_ns / grid.keys;
    out->frame_ns = frame.frame_ns / frame.keys;
    out->keys = WALK_KEYS;
    return 0;
}
