/* bench_bot — engine figures over bot play (bot.h): the time of one
 * player input in the town and the Warren's levels 1-10 (median and p99,
 * AI, vision and all; the bot's walk on the surface goes untimed), and a
 * game's heap and compressed snapshot once it has visited 10 levels. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bot.h"
#include "game.h"
#include "script.h"
#include "tool.h"

#define BENCH_SAMPLES  60000
#define BENCH_MAX_KEYS 30000

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Plays seeded bot games, timing each input that passes game time (a
 * turn; prompts and screens are not turns) while the game is at depth
 * 1-10; the first game that reaches depth 10 alive gives the heap and
 * snapshot figures (heap <= 0 when none did). */
int bench_bot(const content_t *c, bench_bot_t *out)
{
    script_vm_t *vm = script_vm_new();
    double *t = malloc(BENCH_SAMPLES * sizeof *t);
    if (!vm || !t) {
        script_vm_free(vm);
        free(t);
        return -1;
    }
    size_t n = 0;
    out->heap = out->snapshot = -1;
    for (uint64_t seed = 1; seed < 200 && (n < BENCH_SAMPLES || out->heap < 0); seed++) {
        game_t *g = game_new(c, seed, NULL);
        bot_t b;
        bot_init(&b, seed, -1);
        for (int i = 0; g && g->state == GAME_RUNNING && i < BENCH_MAX_KEYS && g->max_depth <= 10;
             i++) {
            key_event_t k = bot_next_key(&b, g);
            uint64_t now = g->sched.now;
            int at = g->depth;
            double t0 = cpu_ns();
            game_input(g, vm, k);
            double dt = cpu_ns() - t0;
            if (n < BENCH_SAMPLES && g->sched.now != now && at <= 10 && g->depth <= 10)
                t[n++] = dt; /* a turn in the town or the Warren: game time passed */
            if (out->heap < 0 && g->max_depth >= 10 && g->state == GAME_RUNNING) {
                buf_t blob;
                buf_init(&blob);
                if (game_snapshot(g, &blob) == 0) {
                    out->heap = (double)g->al.bytes;
                    out->snapshot = (double)blob.len;
                }
                buf_free(&blob);
            }
        }
        bot_free(&b);
        game_free(g);
    }
    qsort(t, n, sizeof *t, cmp_double);
    out->samples = (double)n;
    out->median_us = n ? t[n / 2] / 1000.0 : 0;
    out->p99_us = n ? t[n * 99 / 100] / 1000.0 : 0;
    script_vm_forget(vm, c);
    script_vm_free(vm);
    free(t);
    return 0;
}
