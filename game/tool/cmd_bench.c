/* warren-engine bench — BENCH <name> <value> <unit> lines for the engine. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "event.h"
#include "game.h"
#include "sched.h"
#include "tool.h"
#include "world.h"

static double now_ns(void)
{
    struct timespec ts;
    /* CPU time of this thread: figures stay meaningful on a busy machine */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void bench_line(const char *name, double v, const char *unit)
{
    printf("BENCH %s %.*f %s\n", name, v < 100 ? 1 : 0, v, unit);
}

/* A queue of 64 pending events; each step pops the earliest and pushes it back later. */
static void bench_sched(void)
{
    galloc_t al = {0};
    sched_t s;
    sched_init(&s, &al);
    for (int i = 0; i < 64; i++)
        sched_push(&s, (uint64_t)(i * 37 % 100), 1, (handle_t)i + 1, 0, 0);
    const int n = 2000000;
    double t0 = now_ns();
    event_t ev;
    for (int i = 0; i < n; i++) {
        sched_pop(&s, &ev);
        sched_push(&s, ev.tick + 100 + (uint64_t)(i & 63), ev.fn, ev.target, 0, 0);
    }
    bench_line("engine.sched.event.ns", (now_ns() - t0) / n, "ns");
    sched_free(&s);
}

static void bench_dispatch(game_t *g)
{
    handle_t other = reg_next(&g->reg, g->player);
    ev_info_t e = {.type = EV_TEST, .actor = g->player, .victim = other, .map = g->depth};
    const int n = 1000000;
    double t0 = now_ns();
    for (int i = 0; i < n; i++)
        event_throw(g, &e);
    bench_line("engine.dispatch.ns", (now_ns() - t0) / n, "ns");
}

static void bench_snapshot(const content_t *c, game_t *g)
{
    buf_t b;
    buf_init(&b);
    const int n = 2000;
    double t0 = now_ns();
    for (int i = 0; i < n; i++) {
        buf_reset(&b);
        game_snapshot(g, &b);
    }
    double snap = (now_ns() - t0) / n;
    char err[128];
    t0 = now_ns();
    for (int i = 0; i < n; i++)
        game_free(game_load(c, (const uint8_t *)b.data, b.len, err, sizeof err));
    double load = (now_ns() - t0) / n;
    bench_line("engine.snapshot.bytes", (double)b.len, "bytes");
    bench_line("engine.snapshot.ns", snap, "ns");
    bench_line("engine.load.ns", load, "ns");
    buf_free(&b);
}

/* Player moves (vi-keys, round a square) with the creatures acting. */
static void bench_turn(const content_t *c, script_vm_t *vm)
{
    static const char KEYS[] = "hhhhjjjjllllkkkkyubnhjkl.";
    const int n = 200000;
    double total = 0;
    uint64_t seed = 1;
    game_t *g = game_new(c, seed, NULL);
    for (int i = 0; i < n && g; i++) {
        key_event_t k = {(uint32_t)KEYS[i % (int)(sizeof KEYS - 1)], 0};
        double t0 = now_ns();
        game_state_t st = game_input(g, vm, k);
        total += now_ns() - t0;
        if (st != GAME_RUNNING) {
            game_free(g);
            g = game_new(c, ++seed, NULL);
        }
    }
    game_free(g);
    bench_line("engine.turn.ns", total / n, "ns");
}

/* The surface (docs/OVERLAND.md): making a game, the atlas the first time
 * a game leaves its town, the overland made by that first <, and a step
 * out there (walks to and fro on the overland, creatures met and all). */
static void bench_surface(const content_t *c, script_vm_t *vm)
{
    enum { GAMES = 40, STEPS = 200 };
    double made = 0, atlas = 0, out = 0, steps = 0;
    int nsteps = 0;
    for (uint64_t seed = 1; seed <= GAMES; seed++) {
        double t0 = now_ns();
        game_t *g = game_new(c, seed, NULL);
        double t1 = now_ns();
        game_input(g, vm, (key_event_t){'*', 0}); /* a random character, on the west gate */
        double t2 = now_ns();
        atlas_need(g);
        double t3 = now_ns();
        game_input(g, vm, (key_event_t){'<', 0});
        double t4 = now_ns();
        made += t1 - t0, atlas += t3 - t2, out += t4 - t3;
        for (int i = 0; i < STEPS && g->depth == ATLAS_OVERLAND && g->state == GAME_RUNNING; i++) {
            reg_get(&g->reg, g->player)->hp = 1000; /* the walk goes on whatever it meets */
            key_event_t k = {g->prompt ? ' ' : (uint32_t) "lh"[i % 2], 0};
            double t5 = now_ns();
            game_input(g, vm, k);
            steps += now_ns() - t5, nsteps++;
        }
        game_free(g);
    }
    bench_line("engine.new.us", made / GAMES / 1000, "us");
    bench_line("engine.atlas.us", atlas / GAMES / 1000, "us");
    bench_line("engine.overland.us", out / GAMES / 1000, "us");
    bench_line("engine.overland.step.us", nsteps ? steps / nsteps / 1000 : 0, "us");
}

/* walk.bytes_per_key.KIND, walk.cells_per_key.KIND and their ratio. */
static void bench_kind_lines(const content_t *c, script_vm_t *vm)
{
    bench_kind_t k[8];
    int n = bench_kinds(c, vm, k, 8);
    for (int i = 0; i < n; i++) {
        char name[80];
        if (!k[i].keys)
            continue;
        snprintf(name, sizeof name, "walk.bytes_per_key.%s", k[i].name);
        bench_line(name, k[i].bytes / k[i].keys, "bytes");
        snprintf(name, sizeof name, "walk.cells_per_key.%s", k[i].name);
        bench_line(name, k[i].cells / k[i].keys, "cells");
        snprintf(name, sizeof name, "walk.bytes_per_cell.%s", k[i].name);
        bench_line(name, k[i].cells ? k[i].bytes / k[i].cells : 0, "bytes");
    }
}

/* Level generation, vision and bot play. */
static void bench_rest(const content_t *c)
{
    bench_line("engine.levelgen.us", levels_bench_levelgen_us(c), "us");
    bench_line("engine.fov.us", levels_bench_fov_us(c), "us");
    bench_bot_t bb;
    if (bench_bot(c, &bb) == 0) {
        bench_line("engine.turn.median.us", bb.median_us, "us");
        bench_line("engine.turn.p99.us", bb.p99_us, "us");
        bench_line("engine.game.heap.bytes.10levels", bb.heap, "bytes");
        bench_line("engine.snapshot.bytes.10levels", bb.snapshot, "bytes");
    }
}

/* "bench kinds": only the bytes per key by kind of play (deterministic,
 * a second's work: what a change to the drawing is measured with). */
static int bench_kinds_only(void)
{
    char err[160];
    content_t *c = content_load(NULL, err, sizeof err);
    script_vm_t *vm = c ? script_vm_new() : NULL;
    if (vm)
        bench_kind_lines(c, vm);
    else
        fprintf(stderr, "bench: cannot start: %s\n", c ? "out of memory" : err);
    script_vm_free(vm);
    content_free(c);
    return vm ? 0 : 1;
}

/* "bench keys KIND": each key of a kind of play (or of the walk) and what
 * its frame cost. */
static int bench_keys(const char *kind)
{
    char err[160];
    content_t *c = content_load(NULL, err, sizeof err);
    script_vm_t *vm = c ? script_vm_new() : NULL;
    int ret = vm ? bench_kind_trace(c, vm, kind, stdout) : -1;
    if (!vm)
        fprintf(stderr, "bench: cannot start: %s\n", c ? "out of memory" : err);
    else if (ret < 0)
        fprintf(stderr, "bench: no kind of play '%s'\n", kind);
    script_vm_free(vm);
    content_free(c);
    return ret < 0 ? 1 : 0;
}

/* "bench walk": only the walk, the benchmarks' calibration workload;
 * "bench kinds": only the kinds of play; "bench keys KIND": one kind's
 * keys one by one. */
int cmd_bench(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "kinds"))
        return bench_kinds_only();
    if (argc > 2 && !strcmp(argv[1], "keys"))
        return bench_keys(argv[2]);
    bool walk_only = argc > 1 && !strcmp(argv[1], "walk");
    char err[160];
    content_t *c = content_load(NULL, err, sizeof err);
    game_t *g = c ? game_new(c, 1, NULL) : NULL;
    if (!g) {
        fprintf(stderr, "bench: cannot start: %s\n", c ? "out of memory" : err);
        return 1;
    }
    if (!walk_only) {
        bench_sched();
        bench_dispatch(g);
        bench_snapshot(c, g);
        bench_line("engine.game.heap.bytes", (double)g->al.bytes, "bytes");
    }
    script_vm_t *vm = script_vm_new();
    bench_walk_t w;
    if (vm && bench_walk(c, vm, &w) == 0) {
        bench_line("walk.bytes_per_key", w.bytes, "bytes");
        bench_line("walk.render.ns", w.render_ns, "ns");
        bench_line("walk.diff.ns", w.diff_ns, "ns");
        bench_line("walk.render_diff.ns", w.render_ns + w.diff_ns, "ns");
        if (w.frame_ns > 0)
            bench_line("walk.frame_diff.ns", w.frame_ns, "ns");
    }
    if (vm && !walk_only)
        bench_kind_lines(c, vm);
    if (vm && !walk_only)
        bench_turn(c, vm);
    if (vm && !walk_only)
        bench_surface(c, vm);
    script_vm_free(vm);
    if (!walk_only)
        bench_rest(c);
    game_free(g);
    content_free(c);
    return 0;
}
