/* bench-protocol — bytes and encode times of the frame encoders on a
 * realistic dungeon screen. Prints only lines `BENCH <name> <value> <unit>`.
 *
 * "step" is the commonest frame in play: the player moves one cell (the old
 * cell becomes floor, the new one shows '@'), the turn counter in the status
 * line ticks, and the cursor follows the player. Times are the median over
 * batches of many encodes each, in thread CPU time (CLOCK_THREAD_CPUTIME_ID)
 * so that other processes sharing the machine do not move them.
 *
 *   bench-protocol                 the BENCH lines
 *   bench-protocol repeat JOB N    encode JOB (ansi.step, ansi.key80x24,
 *                                  ansi.key200x60, ansi.shift1) N times and
 *                                  print nothing: for instruction counts
 *                                  under callgrind
 *
 * "shift1" is the view sliding one column sideways over a field of grass
 * and trees (the Town's, as the player walks off its west edge): every
 * map row moved, the encoder's search for a shift and its plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ansi.h"
#include "json.h"

#define BATCHES 31

static const style_t WALL = {250, SCREEN_DEFAULT_COLOR, 0};
static const style_t FLOOR = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, 0};
static const style_t DOOR = {130, SCREEN_DEFAULT_COLOR, 0};
static const style_t CORR = {244, SCREEN_DEFAULT_COLOR, 0};
static const style_t HERO = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};

/* A monster or item glyph in its colour. */
typedef struct {
    uint32_t ch;
    style_t st;
} thing_t;

static const thing_t THINGS[] = {
    {'d', {1, SCREEN_DEFAULT_COLOR, 0}},
    {'F', {2, SCREEN_DEFAULT_COLOR, 0}},
    {'k', {12, SCREEN_DEFAULT_COLOR, 0}},
    {'$', {11, SCREEN_DEFAULT_COLOR, ATTR_BOLD}},
    {')', {6, SCREEN_DEFAULT_COLOR, 0}},
    {'{', {4, SCREEN_DEFAULT_COLOR, 0}},
    {'>', {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_BOLD}},
    {'Z', {196, SCREEN_DEFAULT_COLOR, 0}},
    {'!', {201, SCREEN_DEFAULT_COLOR, 0}},
};

/* One room with walls, floor, a door and a thing or two inside. */
static void draw_room(screen_t *s, int x, int y, int w, int h, int k)
{
    screen_box(s, x, y, w, h, WALL);
    screen_fill(s, x + 1, y + 1, w - 2, h - 2, 0xB7, FLOOR);
    screen_put(s, x + w - 1, y + h / 2, '+', DOOR);
    const thing_t *t = &THINGS[k % (int)(sizeof THINGS / sizeof THINGS[0])];
    screen_put(s, x + 1 + k % (w - 2), y + 1 + k % (h - 2), t->ch, t->st);
    t = &THINGS[(k * 7 + 3) % (int)(sizeof THINGS / sizeof THINGS[0])];
    screen_put(s, x + w - 2, y + h - 2, t->ch, t->st);
}

static void draw_status(screen_t *s, long turn)
{
    style_t name = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    screen_textf(s, 0, s->h - 2, name, "Agnes the Stripling");
    screen_textf(s, 20, s->h - 2, STYLE_DEFAULT, "St:16 Dx:14 Co:17 In:9 Wi:11 Ch:8 Lawful");
    screen_textf(s, 0, s->h - 1, STYLE_DEFAULT, "Dlvl:3 $:127 HP:");
    style_t hp = {2, SCREEN_DEFAULT_COLOR, 0};
    screen_textf(s, 16, s->h - 1, hp, "24(24)");
    screen_textf(s, 22, s->h - 1, STYLE_DEFAULT, " Pw:7(7) AC:6 Xp:3/41 T:%ld", turn);
}

/* A dungeon level: rooms in a grid joined by corridors, a message line and
 * two status lines. The player stands in the first room. */
static screen_t *dungeon_new(int w, int h, long turn, int px, int py)
{
    screen_t *s = screen_new(w, h);
    if (!s)
        return NULL;
    screen_text(s, 0, 0, STYLE_DEFAULT, "You hear the footsteps of a guard on patrol.");
    int k = 0;
    for (int ry = 2; ry + 7 < h - 2; ry += 9)
        for (int rx = 2; rx + 16 < w; rx += 22, k++) {
            int rw = 10 + k % 7, rh = 5 + k % 3;
            draw_room(s, rx, ry, rw, rh, k);
            for (int cx = rx + rw; cx < rx + 22 && cx < w; cx++)
                screen_put(s, cx, ry + rh / 2, '#', CORR);
        }
    draw_status(s, turn);
    screen_put(s, px, py, '@', HERO);
    screen_cursor(s, px, py, true);
    return s;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef void (*encode_fn)(const void *ctx, buf_t *out);

/* Median over batches of the mean ns per call. */
static double time_ns(encode_fn fn, const void *ctx, int per_batch)
{
    double t[BATCHES];
    buf_t out;
    buf_init(&out);
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < per_batch; i++) {
            buf_reset(&out);
            fn(ctx, &out);
        }
        t[b] = (now_ns() - t0) / per_batch;
    }
    buf_free(&out);
    qsort(t, BATCHES, sizeof t[0], cmp_double);
    return t[BATCHES / 2];
}

static size_t bytes_of(encode_fn fn, const void *ctx)
{
    buf_t out;
    buf_init(&out);
    fn(ctx, &out);
    size_t n = out.len;
    buf_free(&out);
    return n;
}

typedef struct {
    ansi_profile_t prof;
    const screen_t *a, *b;
} job_t;

static void ansi_step(const void *ctx, buf_t *out)
{
    const job_t *j = ctx;
    ansi_diff(&j->prof, j->a, j->b, out);
}

static void ansi_key(const void *ctx, buf_t *out)
{
    const job_t *j = ctx;
    ansi_keyframe(&j->prof, j->b, out);
}

static void json_step(const void *ctx, buf_t *out)
{
    const job_t *j = ctx;
    json_frame(j->a, j->b, 1235, out);
}

static void json_key(const void *ctx, buf_t *out)
{
    const job_t *j = ctx;
    json_frame(NULL, j->b, 1, out);
}

static void bench_line(const char *name, double v, const char *unit)
{
    printf("BENCH %s %.0f %s\n", name, v, unit);
}

/* A field of grass and trees over rows 1-21, seen from column ox, the
 * player at (40, 11) and the status line below. */
static void field_draw(screen_t *s, int ox)
{
    const style_t green = {2, SCREEN_DEFAULT_COLOR, 0};
    for (int y = 1; y <= 21; y++)
        for (int x = 0; x < s->w; x++) {
            unsigned h = (unsigned)(x + ox) * 2654435761u ^ (unsigned)y * 40503u;
            screen_put(s, x, y, (h >> 7) % 17 ? '"' : 0x2663, green);
        }
    screen_put(s, 40, 11, '@', HERO);
    screen_textf(s, 0, 22, STYLE_DEFAULT, "Adventurer the dwarf fighter  XL 1  Town  T:%d", 9 + ox);
    screen_cursor(s, 40, 11, true);
}

/* Encodes one job n times (for valgrind --tool=callgrind). */
static int repeat(const char *name, int n, const job_t *const *jobs)
{
    static const char *const NAMES[] = {"ansi.step", "ansi.key80x24", "ansi.key200x60",
                                        "ansi.shift1"};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        if (strcmp(name, NAMES[i]) != 0)
            continue;
        buf_t out;
        buf_init(&out);
        for (int k = 0; k < n; k++) {
            buf_reset(&out);
            (i == 0 || i == 3 ? ansi_step : ansi_key)(jobs[i], &out);
        }
        buf_free(&out);
        return 0;
    }
    fprintf(stderr, "bench-protocol: unknown job %s\n", name);
    return 2;
}

int main(int argc, char **argv)
{
    const int px = 5, py = 4;
    screen_t *a = dungeon_new(80, 24, 1234, px, py);
    screen_t *b = dungeon_new(80, 24, 1234, px, py);
    screen_t *big = dungeon_new(200, 60, 1234, px, py);
    screen_t *fa = screen_new(80, 24), *fb = screen_new(80, 24);
    if (!a || !b || !big || !fa || !fb)
        return 1;
    field_draw(fa, 1);
    field_draw(fb, 0); /* one step west: the view slid one column right */
    /* the step: b is a after the player moved one cell right */
    screen_clean(b);
    screen_put(b, px, py, 0xB7, FLOOR);
    screen_put(b, px + 1, py, '@', HERO);
    draw_status(b, 1235);
    screen_cursor(b, px + 1, py, true);

    job_t step = {{ANSI_COLORS_256, true, false, false, false}, a, b};
    job_t key80 = {{ANSI_COLORS_256, true, false, false, false}, NULL, a};
    job_t key200 = {{ANSI_COLORS_256, true, false, false, false}, NULL, big};
    job_t shift1 = {{ANSI_COLORS_256, true, false, false, false}, fa, fb};
    ansi_profile_for_term(&shift1.prof, "xterm-256color"); /* REP: the shift is tried */
    const job_t *const jobs[] = {&step, &key80, &key200, &shift1};
    if (argc == 4 && strcmp(argv[1], "repeat") == 0) {
        int ret = repeat(argv[2], atoi(argv[3]), jobs);
        screen_free(fa);
        screen_free(fb);
        screen_free(a);
        screen_free(b);
        screen_free(big);
        return ret;
    }
    bench_line("protocol.ansi.step.bytes", (double)bytes_of(ansi_step, &step), "bytes");
    bench_line("protocol.ansi.step.ns", time_ns(ansi_step, &step, 2000), "ns");
    bench_line("protocol.ansi.key80x24.bytes", (double)bytes_of(ansi_key, &key80), "bytes");
    bench_line("protocol.ansi.key80x24.ns", time_ns(ansi_key, &key80, 200), "ns");
    bench_line("protocol.ansi.key200x60.bytes", (double)bytes_of(ansi_key, &key200), "bytes");
    bench_line("protocol.ansi.key200x60.ns", time_ns(ansi_key, &key200, 50), "ns");
    bench_line("protocol.ansi.shift1.bytes", (double)bytes_of(ansi_step, &shift1), "bytes");
    bench_line("protocol.ansi.shift1.ns", time_ns(ansi_step, &shift1, 200), "ns");
    bench_line("protocol.json.step.bytes", (double)bytes_of(json_step, &step), "bytes");
    bench_line("protocol.json.step.ns", time_ns(json_step, &step, 2000), "ns");
    bench_line("protocol.json.key80x24.bytes", (double)bytes_of(json_key, &key80), "bytes");
    bench_line("protocol.json.key80x24.ns", time_ns(json_key, &key80, 200), "ns");
    screen_free(a);
    screen_free(b);
    screen_free(big);
    screen_free(fa);
    screen_free(fb);
    return 0;
}
