/* hosted_bench — what a hosted terminal game costs the daemon: libvterm fed
 * a NetHack-like full screen and a NetHack-like move, copied into Warren's
 * grid; the copy alone; raw output throughput; memory per game. Median of
 * many rounds, thread CPU time.
 *
 *   hosted_bench
 *   hosted_bench --walk FILE   only the render of a real game: FILE from
 *                              tests/load/nethack_capture.py, each piece
 *                              synced into a copy of the frame before, by
 *                              changed rows and whole (hosted.walk.sync.*)
 *   BENCH hosted.full80x24.bytes X bytes   (output of one full redraw)
 *   BENCH hosted.full80x24.us X us         (vtgrid_write + vtgrid_sync)
 *   BENCH hosted.copy80x24.us X us         (vtgrid_sync of every cell)
 *   BENCH hosted.copy80x24.grid_bytes X bytes (the screen_t cells written)
 *   BENCH hosted.move.bytes X bytes        (output of one move)
 *   BENCH hosted.move.us X us              (vtgrid_write + vtgrid_sync)
 *   BENCH hosted.move.cells X cells        (cells read back from libvterm)
 *   BENCH hosted.parse.mb_per_s X MB/s     (coloured lines, as a flood)
 *   BENCH hosted.spawn.us X us             (ptyproc_spawn of /bin/true to its answer:
 *                                          the request to the spawner, the player's
 *                                          directory checked, its fork and exec)
 *   BENCH hosted.spawn.playground.us X us  (the same with a playground of the
 *                                          player's own, NetHack's seven shared
 *                                          files bound into it)
 *   BENCH hosted.memory80x24.bytes X bytes (ptyproc with its libvterm, a grid)
 *   BENCH hosted.memory200x60.bytes X bytes
 *   BENCH hosted.record.compress.us X us   (zlib of one recording chunk,
 *                                          HOSTREC_CHUNK_RAW of moves and redraws,
 *                                          as the loop does it)
 *   BENCH hosted.record.chunk.ratio X      (that chunk stored / raw) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "buf.h"
#include "hosted/hostrec.h"
#include "hosted/ptyproc.h"
#include "hosted/recchunk.h"
#include "hosted/spawner.h"
#include "hosted/vtgrid.h"
#include "benchtime.h"

#define ROUNDS 2001

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* A full NetHack-style redraw: clear, 21 map rows of glyphs whose colour
 * changes every few cells, two status lines. */
static void full_screen(buf_t *b, int round)
{
    static const char glyphs[] = ".#|-+@d<>%)[!?=/\"*`";
    buf_puts(b, "\x1b[H\x1b[2J");
    for (int y = 2; y <= 22; y++) {
        buf_printf(b, "\x1b[%d;1H", y);
        for (int x = 0; x < 79; x++) {
            if (x % 4 == 0)
                buf_printf(b, "\x1b[%d;3%dm", (x + y) % 2, (x + y + round) % 8);
            buf_putc(b, glyphs[(x * 7 + y * 3 + round) % (sizeof glyphs - 1)]);
        }
        buf_puts(b, "\x1b[0m");
    }
    buf_printf(b,
               "\x1b[23;1HHostedtest the Stripling  St:18/01 Dx:17 Co:18 In:8 Wi:7 Ch:6 "
               "Chaotic\x1b[24;1HDlvl:1 $:0 HP:15(15) Pw:2(2) AC:8 Xp:1 T:%d",
               round);
}

/* One move: the old square, the hero a cell on, the turn counter, a message. */
static void move(buf_t *b, int round)
{
    int x = 10 + round % 60;
    buf_printf(b, "\x1b[H\x1b[K\x1b[12;%dH.\x1b[1m\x1b[37m@\x1b[0m\x1b[24;38H%d\x1b[12;%dH", x,
               round, x + 1);
}

static void bench_full(void)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    buf_t b;
    buf_init(&b);
    double *full = calloc(ROUNDS, sizeof *full), *copy = calloc(ROUNDS, sizeof *copy);
    size_t bytes = 0;
    for (int r = 0; r < ROUNDS; r++) {
        buf_reset(&b);
        full_screen(&b, r);
        bytes = b.len;
        double t0 = cpu_us();
        vtgrid_write(g, b.data, b.len);
        vtgrid_sync(g, s, false);
        double t1 = cpu_us();
        vtgrid_sync(g, s, true);
        double t2 = cpu_us();
        full[r] = t1 - t0;
        copy[r] = t2 - t1;
        screen_clean(s);
    }
    printf("BENCH hosted.full80x24.bytes %zu bytes\n", bytes);
    printf("BENCH hosted.full80x24.us %.1f us\n", median(full, ROUNDS));
    printf("BENCH hosted.copy80x24.us %.1f us\n", median(copy, ROUNDS));
    printf("BENCH hosted.copy80x24.grid_bytes %zu bytes\n", sizeof(cell_t) * 80 * 24);
    free(full);
    free(copy);
    buf_free(&b);
    screen_free(s);
    vtgrid_free(g);
}

static void bench_move(void)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    buf_t b;
    buf_init(&b);
    full_screen(&b, 0);
    vtgrid_write(g, b.data, b.len);
    vtgrid_sync(g, s, true);
    double *t = calloc(ROUNDS, sizeof *t);
    int cells = 0;
    size_t bytes = 0;
    for (int r = 0; r < ROUNDS; r++) {
        buf_reset(&b);
        move(&b, r);
        bytes = b.len;
        double t0 = cpu_us();
        vtgrid_write(g, b.data, b.len);
        cells = vtgrid_sync(g, s, false);
        t[r] = cpu_us() - t0;
        screen_clean(s);
    }
    printf("BENCH hosted.move.bytes %zu bytes\n", bytes);
    printf("BENCH hosted.move.us %.2f us\n", median(t, ROUNDS));
    printf("BENCH hosted.move.cells %d cells\n", cells);
    free(t);
    buf_free(&b);
    screen_free(s);
    vtgrid_free(g);
}

/* ---- the render of a real game (--walk FILE) --------------------------------- */

#define WALK_PIECES 4096

typedef struct {
    buf_t data;
    size_t off[WALK_PIECES], len[WALK_PIECES];
    int n;
} walk_t;

/* A capture of tests/load/nethack_capture.py: 0, or -1 with a message. */
static int walk_load(walk_t *w, const char *path)
{
    FILE *f = fopen(path, "rb");
    char chunk[65536];
    size_t n;
    buf_init(&w->data);
    w->n = 0;
    if (!f)
        return fprintf(stderr, "hosted_bench: %s: cannot open\n", path), -1;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_put(&w->data, chunk, n);
    fclose(f);
    for (size_t at = 0; at + 4 <= w->data.len && w->n < WALK_PIECES; w->n++) {
        const unsigned char *p = (const unsigned char *)w->data.data + at;
        size_t len = p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
        if (len > w->data.len - at - 4)
            return fprintf(stderr, "hosted_bench: %s: cut short\n", path), -1;
        w->off[w->n] = at + 4;
        w->len[w->n] = len;
        at += 4 + len;
    }
    return w->n ? 0 : (fprintf(stderr, "hosted_bench: %s: empty\n", path), -1);
}

/* One replay of the walk drawn as the daemon draws a hosted game's frames:
 * each into a copy of the frame sent before (frames.c), the terminal
 * synced into it, whole (all) or by its changed rows. Returns the sync's
 * microseconds per piece; *cells the cells read. */
static double walk_once(const walk_t *w, bool all, long *cells)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *sent = screen_new(80, 24), *grid = screen_new(80, 24);
    double us = 0;
    *cells = 0;
    for (int i = 0; i < w->n; i++) {
        vtgrid_write(g, w->data.data + w->off[i], w->len[i]);
        screen_copy(grid, sent);
        screen_clean(grid);
        double t0 = cpu_us();
        *cells += vtgrid_sync(g, grid, all);
        us += cpu_us() - t0;
        screen_t *t = sent;
        sent = grid;
        grid = t;
    }
    screen_free(sent);
    screen_free(grid);
    vtgrid_free(g);
    return us / w->n;
}

static void bench_walk(const char *path)
{
    enum { RUNS = 101 };
    static walk_t w;
    if (walk_load(&w, path) < 0)
        exit(1);
    static const char *const NAME[2] = {"damaged", "all"};
    double t[2][RUNS];
    long cells[2];
    for (int r = 0; r < RUNS; r++) /* interleaved: the machine's load falls on both */
        for (int m = 0; m < 2; m++)
            t[m][r] = walk_once(&w, m == 1, &cells[m]);
    for (int m = 0; m < 2; m++) {
        printf("BENCH hosted.walk.sync.%s.us %.3f us\n", NAME[m], median(t[m], RUNS));
        printf("BENCH hosted.walk.sync.%s.cells %.1f cells\n", NAME[m], (double)cells[m] / w.n);
    }
    printf("BENCH hosted.walk.sync.ratio %.3f (damaged / all, %d frames)\n",
           median(t[0], RUNS) / median(t[1], RUNS), w.n);
    buf_free(&w.data);
}

static void bench_parse(void)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    char line[128];
    buf_t b;
    buf_init(&b);
    for (unsigned long i = 0; b.len < (1u << 20); i++) {
        snprintf(line, sizeof line, "\x1b[3%lumflood %012lu abcdefghijklmnopqrstuvwxyz\x1b[0m\r\n",
                 i % 8, i);
        buf_puts(&b, line);
    }
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = cpu_us();
        vtgrid_write(g, b.data, b.len);
        double us = cpu_us() - t0;
        best = us < best ? us : best;
    }
    printf("BENCH hosted.parse.mb_per_s %.1f MB/s\n", b.len / best);
    buf_free(&b);
    vtgrid_free(g);
}

/* A spawner (as warrend has one) for three games, its games-dir and a
 * playground (NetHack's shared files, empty) in a directory of its own
 * under /tmp. */
typedef struct {
    char dir[64];
    gamecfg_list_t games;
    spawner_t *sp;
} bench_spawner_t;

#define BENCH_SHARED "record logfile xlogfile perm nhdat symbols license"

/* dir/pg holding an empty file for each shared name; 0 or -1. */
static int playground_up(const char *dir)
{
    char path[160], names[] = BENCH_SHARED;
    snprintf(path, sizeof path, "%s/pg", dir);
    if (mkdir(path, 0755) < 0)
        return -1;
    for (char *n = strtok(names, " "); n; n = strtok(NULL, " ")) {
        snprintf(path, sizeof path, "%s/pg/%s", dir, n);
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        fclose(f);
    }
    return 0;
}

static void spawner_up(bench_spawner_t *b)
{
    char cfg[512], err[300] = "", gdir[96];
    snprintf(b->dir, sizeof b->dir, "/tmp/warren-bench-XXXXXX");
    memset(&b->games, 0, sizeof b->games);
    spawner_cfg_t sc;
    if (!mkdtemp(b->dir) || chmod(b->dir, 0711) < 0 || playground_up(b->dir) < 0 ||
        snprintf(cfg, sizeof cfg,
                 "[game sleep]\ncommand = /bin/sleep 5\n[game true]\ncommand = /bin/true\n"
                 "[game pg]\ncommand = /bin/true\nplayground = %s/pg\n"
                 "playground-shared = " BENCH_SHARED "\n",
                 b->dir) < 0 ||
        gamecfg_parse(&b->games, cfg, strlen(cfg), 1, err, sizeof err) < 0 ||
        snprintf(gdir, sizeof gdir, "%s/games", b->dir) < 0 ||
        spawner_config(&sc, &b->games, "warren-games", gdir, getuid(), getgid(), err, sizeof err) <
            0 ||
        !(b->sp = spawner_start(&sc, err, sizeof err))) {
        fprintf(stderr, "hosted_bench: spawner: %s\n", err);
        exit(1);
    }
}

static void spawner_down(bench_spawner_t *b)
{
    spawner_free(b->sp);
    gamecfg_list_free(&b->games);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "hosted_bench: could not remove %s\n", b->dir);
}

/* The start's answer: *user set (1 running, -1 not). */
static void on_bench_started(ptyproc_t *p, const char *err, void *user)
{
    (void)p;
    if (err)
        fprintf(stderr, "hosted_bench: %s\n", err);
    *(int *)user = err ? -1 : 1;
}

/* Starts o and runs the loop until the program runs (or exits 1). */
static ptyproc_t *spawn_wait(bench_spawner_t *b, uv_loop_t *loop, const ptyproc_opts_t *o)
{
    ptyproc_cbs_t cbs = {NULL, NULL, on_bench_started};
    char err[300];
    int state = 0;
    ptyproc_t *p;
    if (ptyproc_spawn(loop, b->sp, o, &cbs, &state, &p, err, sizeof err) < 0) {
        fprintf(stderr, "hosted_bench: %s\n", err);
        exit(1);
    }
    while (state == 0)
        uv_run(loop, UV_RUN_ONCE);
    if (state < 0)
        exit(1);
    return p;
}

/* A hosted game's daemon-side memory: a real ptyproc (its grid's libvterm
 * state included) running sleep, plus the session's screen_t. */
static void bench_memory(bench_spawner_t *b, uv_loop_t *loop, int w, int h)
{
    ptyproc_opts_t o = {"sleep", "bench", "bench", w, h};
    ptyproc_t *p = spawn_wait(b, loop, &o);
    size_t grid = sizeof(screen_t) + sizeof(cell_t) * (size_t)w * (size_t)h + (size_t)h;
    printf("BENCH hosted.memory%dx%d.bytes %zu bytes\n", w, h, ptyproc_memory(p) + grid);
    ptyproc_close(p);
    uv_run(loop, UV_RUN_DEFAULT);
}

static double wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The time to start a game: the spawner's round trip, its checks of the
 * player's directory, openpty, fork, the child's set-up until exec (the
 * loop goes on meanwhile; this waits for the answer). */
static void bench_spawn(bench_spawner_t *b, uv_loop_t *loop, const char *game, const char *what)
{
    enum { N = 51 };
    ptyproc_opts_t o = {game, "bench", "bench", 80, 24};
    double t[N];
    for (int i = 0; i < N; i++) {
        double t0 = wall_us();
        ptyproc_t *p = spawn_wait(b, loop, &o);
        t[i] = wall_us() - t0;
        ptyproc_close(p);
        uv_run(loop, UV_RUN_DEFAULT);
    }
    printf("BENCH hosted.spawn%s.us %.0f us\n", what, median(t, N));
}

/* A chunk as a game fills it: a redraw now and then, moves between. */
static void bench_record(void)
{
    recchunk_t c;
    recchunk_init(&c);
    buf_t b, z;
    buf_init(&b);
    buf_init(&z);
    for (int r = 0; c.raw.len < HOSTREC_CHUNK_RAW; r++) {
        buf_reset(&b);
        if (r % 40 == 0)
            full_screen(&b, r);
        else
            move(&b, r);
        recchunk_output(&c, (uint64_t)r * 150, b.data, b.len);
    }
    enum { N = 201 };
    double t[N];
    for (int i = 0; i < N; i++) {
        buf_reset(&z);
        double t0 = cpu_us();
        recchunk_compress(&c, &z);
        t[i] = cpu_us() - t0;
    }
    printf("BENCH hosted.record.compress.us %.0f us\n", median(t, N));
    printf("BENCH hosted.record.chunk.ratio %.3f\n", (double)z.len / (double)c.raw.len);
    buf_free(&b);
    buf_free(&z);
    recchunk_free(&c);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--walk") == 0) {
        bench_walk(argv[2]);
        return 0;
    }
    bench_spawner_t sp;
    spawner_up(&sp); /* first: a fork of this process, before anything else */
    bench_record();
    bench_full();
    bench_move();
    bench_parse();
    uv_loop_t loop;
    uv_loop_init(&loop);
    spawner_attach(sp.sp, &loop);
    bench_spawn(&sp, &loop, "true", "");
    bench_spawn(&sp, &loop, "pg", ".playground");
    bench_memory(&sp, &loop, 80, 24);
    bench_memory(&sp, &loop, 200, 60);
    spawner_down(&sp);
    uv_loop_close(&loop);
    return 0;
}
