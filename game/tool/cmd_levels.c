/* warren-engine levels — generates levels and reports what they hold.
 *
 *   levels [--seed S] [--count N] [--depth D] [--size WxH] [--show] [--bench]
 *
 * Level k is depth k % 21 (0 = the town) of the game seeded S + k / 21,
 * generated exactly as a game does: rng_hash2(game_seed, depth), stream 1.
 * One line per level, then "levels N reachable_min P". Exit status 1 when
 * a level fails or leaves an open cell unreachable.
 * --bench prints BENCH engine.levelgen.us (median of 200 levels) and
 * BENCH engine.fov.us (radius 8 from cells inside life caves). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fov.h"
#include "level.h"
#include "mapgen.h"
#include "tool.h"

#define LEVELS_PER_GAME 21

typedef struct {
    uint64_t seed;
    int count, depth, w, h, show, bench;
} levels_opts_t;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* c: the game's content (its vaults, regions and rooms). */
static int levels_make(const content_t *c, mapgen_level_t *lv, uint64_t game_seed, int depth, int w,
                       int h, char *err, size_t errlen)
{
    rng_t r;
    rng_seed(&r, rng_hash2(game_seed, (uint64_t)depth), 1);
    mapgen_params_t p = level_params(c, w, h, depth);
    return mapgen_generate(lv, &p, &r, err, errlen);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double levels_bench_levelgen_us(const content_t *c)
{
    enum { N = 200 };
    double t[N];
    char err[128];
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    if (!lv)
        return -1;
    for (int i = 0; i < N; i++) {
        double t0 = now_us();
        levels_make(c, lv, 1000 + (uint64_t)i, 1 + i % 20, 0, 0, err, sizeof err);
        t[i] = now_us() - t0;
    }
    mapgen_level_free(lv);
    qsort(t, N, sizeof t[0], cmp_double);
    return (t[N / 2 - 1] + t[N / 2]) / 2;
}

/* A cell of a life cave near its middle, or -1. */
static int cave_origin(const mapgen_level_t *lv)
{
    for (int i = 0; i < lv->nregions; i++) {
        const mapgen_region_t *r = &lv->regions[i];
        if (r->shape != SHAPE_CAVE_LIFE)
            continue;
        int cx = r->x + r->w / 2, cy = r->y + r->h / 2, best = -1, bestd = 1 << 30;
        for (int y = r->y; y < r->y + r->h; y++)
            for (int x = r->x; x < r->x + r->w; x++) {
                int c = y * lv->w + x, d = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                if (lv->region[c] == i + 1 && mapgen_passable(lv->terrain[c]) && d < bestd)
                    best = c, bestd = d;
            }
        if (best >= 0)
            return best;
    }
    return -1;
}

double levels_bench_fov_us(const content_t *c)
{
    enum { ORIGINS = 41, REPS = 400 };
    double t[ORIGINS];
    int n = 0;
    char err[128];
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    uint8_t *opaque = malloc((size_t)(MAPGEN_DEFAULT_W * MAPGEN_DEFAULT_H));
    uint8_t *lit = malloc((size_t)(MAPGEN_DEFAULT_W * MAPGEN_DEFAULT_H));
    uint8_t *vis = malloc((size_t)(MAPGEN_DEFAULT_W * MAPGEN_DEFAULT_H));
    for (uint64_t seed = 1; lv && opaque && lit && vis && n < ORIGINS && seed < 5000; seed++) {
        if (levels_make(c, lv, seed, 1 + (int)(seed % 20), 0, 0, err, sizeof err) < 0)
            continue;
        int o = cave_origin(lv);
        if (o < 0)
            continue;
        mapgen_fill_opaque(lv, opaque);
        mapgen_fill_lit(lv, lit);
        fov_map_t m = {lv->w, lv->h, opaque, NULL, NULL, lit};
        double t0 = now_us();
        for (int k = 0; k < REPS; k++)
            fov_compute(&m, o % lv->w, o / lv->w, 8, vis);
        t[n++] = (now_us() - t0) / REPS;
    }
    mapgen_level_free(lv);
    free(opaque);
    free(lit);
    free(vis);
    if (n == 0)
        return -1;
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

static void levels_show(const mapgen_level_t *lv)
{
    char row[MAPGEN_MAX_W + 1];
    for (int y = 0; y < lv->h; y++) {
        for (int x = 0; x < lv->w; x++)
            row[x] = mapgen_terrain_glyph(lv->terrain[y * lv->w + x]);
        row[lv->w] = 0;
        printf("%s\n", row);
    }
}

/* One line about a level; returns its reachable percentage (floor). */
static int levels_report(int k, uint64_t game_seed, const mapgen_level_t *lv)
{
    int shapes[SHAPE_COUNT] = {0}, named = 0, open, reach;
    for (int i = 0; i < lv->nregions; i++) {
        shapes[lv->regions[i].shape]++;
        named += lv->regions[i].type >= 0;
    }
    mapgen_count_reachable(lv, &open, &reach);
    int pct = open ? (int)((int64_t)reach * 100 / open) : 0;
    printf("level %d seed %llu depth %d size %dx%d rooms", k, (unsigned long long)game_seed,
           lv->depth, lv->w, lv->h);
    for (int s = SHAPE_RECT; s <= SHAPE_OVERLAP; s++)
        printf(" %s=%d", mapgen_shape_name((uint8_t)s), shapes[s]);
    printf(" caves life=%d rough=%d vaults %d buildings %d regions %d named %d spots %d open %d "
           "reachable %d\n",
           shapes[SHAPE_CAVE_LIFE], shapes[SHAPE_CAVE_ROUGH], shapes[SHAPE_VAULT],
           shapes[SHAPE_BUILDING], lv->nregions, named, lv->nspots, open, pct);
    return pct;
}

static int levels_args(int argc, char **argv, levels_opts_t *o)
{
    *o = (levels_opts_t){1, LEVELS_PER_GAME, -1, 0, 0, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--show"))
            o->show = 1;
        else if (!strcmp(a, "--bench"))
            o->bench = 1;
        else if (!v)
            return -1;
        else if (!strcmp(a, "--seed"))
            o->seed = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--count"))
            o->count = atoi(v), i++;
        else if (!strcmp(a, "--depth"))
            o->depth = atoi(v), i++;
        else if (!strcmp(a, "--size") && sscanf(v, "%dx%d", &o->w, &o->h) == 2)
            i++;
        else
            return -1;
    }
    return o->count < 0 || o->depth > 99 ? -1 : 0;
}

int cmd_levels(int argc, char **argv)
{
    levels_opts_t o;
    if (levels_args(argc, argv, &o) < 0) {
        fprintf(stderr,
                "usage: warren-engine levels [--seed S] [--count N] [--depth D] [--size WxH] "
                "[--show] [--bench]\n");
        return 2;
    }
    char err[160];
    content_t *c = content_load(NULL, err, sizeof err);
    if (!c) {
        fprintf(stderr, "levels: %s\n", err);
        return 1;
    }
    if (o.bench) {
        printf("BENCH engine.levelgen.us %.1f us\n", levels_bench_levelgen_us(c));
        printf("BENCH engine.fov.us %.2f us\n", levels_bench_fov_us(c));
        content_free(c);
        return 0;
    }
    mapgen_level_t *lv = mapgen_level_new(o.w, o.h);
    if (!lv) {
        fprintf(stderr, "levels: bad size %dx%d\n", o.w, o.h);
        content_free(c);
        return 2;
    }
    int min = 100, failed = 0;
    for (int k = 0; k < o.count; k++) {
        uint64_t game_seed = o.seed + (uint64_t)(k / LEVELS_PER_GAME);
        int depth = o.depth >= 0 ? o.depth : k % LEVELS_PER_GAME;
        if (levels_make(c, lv, game_seed, depth, o.w, o.h, err, sizeof err) < 0) {
            printf("level %d seed %llu depth %d error %s\n", k, (unsigned long long)game_seed,
                   depth, err);
            failed = 1;
            min = 0;
            continue;
        }
        int pct = levels_report(k, game_seed, lv);
        if (pct < min)
            min = pct;
        if (o.show)
            levels_show(lv);
    }
    printf("levels %d reachable_min %d\n", o.count, min);
    mapgen_level_free(lv);
    content_free(c);
    return failed || min < 100;
}
