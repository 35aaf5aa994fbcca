/* worldmap — the surface world (see worldmap.h). The steps, in order:
 * land (noise less a fall-off from the centre, cut at the sea level that
 * leaves land_pct of the map dry; only the largest land mass is kept and
 * water the sea cannot reach becomes lakes), rivers (from highland springs
 * down the drainage of a flood from the sea, so each finds the sea, a lake
 * or another river; a deep pit on the way becomes a lake), territories
 * (random flood growth from spaced seed points, slowed on highland, so
 * borders wander), towns (a seat in every territory, coast and riverside
 * first), water routes (along rivers across borders, and sea lanes joining
 * every territory's port), and names last, from a stream of their own so
 * the syllable tables never move the land. */
#include "worldmap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "content.h"
#include "rng.h"

#define WORLD_SALT 0x776f726c646d6170ull /* "worldmap": far from any level id */

static const int DX8[8] = {0, 1, 0, -1, 1, 1, -1, -1}, DY8[8] = {-1, 0, 1, 0, -1, 1, 1, -1};

typedef struct {
    worldmap_t *w;
    const worldmap_params_t *p;
    rng_t r;
    int32_t *height; /* w*h */
    int32_t *queue;  /* w*h * 5: flood fills and growth frontiers */
} gen_t;

static int in_map(const worldmap_t *w, int x, int y)
{
    return x >= 0 && y >= 0 && x < w->w && y < w->h;
}

/* Squared distance with rows counted double: a cell is twice as tall. */
static int dist2(int x0, int y0, int x1, int y1)
{
    return (x1 - x0) * (x1 - x0) + 4 * (y1 - y0) * (y1 - y0);
}

/* ---- land ------------------------------------------------------------------------- */

/* Value noise: a lattice of random heights every `period` cells, blended
 * linearly (rows count double, as in dist2). 0..255. */
static int32_t noise_at(uint64_t seed, int x, int y, int period)
{
    int Y = 2 * y, lx = x / period, ly = Y / period, fx = x % period, fy = Y % period;
    int32_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = (int32_t)(rng_hash2(seed, (uint64_t)(lx + (i & 1)) << 32 | (uint32_t)(ly + i / 2)) &
                         255);
    int32_t top = v[0] * (period - fx) + v[1] * fx, bot = v[2] * (period - fx) + v[3] * fx;
    return (top * (period - fy) + bot * fy) / (period * period);
}

static void raise_heights(gen_t *g, uint64_t seed)
{
    static const int PERIOD[4] = {24, 12, 6, 3}, WEIGHT[4] = {8, 4, 2, 1};
    const worldmap_t *w = g->w;
    for (int y = 0; y < w->h; y++)
        for (int x = 0; x < w->w; x++) {
            int32_t h = 0;
            for (int o = 0; o < 4; o++)
                h += WEIGHT[o] * noise_at(rng_hash2(seed, (uint64_t)o), x, y, PERIOD[o]);
            /* per mille from the centre to each edge: the land gathers in the middle */
            int32_t ex = (2 * x - (w->w - 1)) * 1000 / (w->w - 1);
            int32_t ey = (2 * y - (w->h - 1)) * 1000 / (w->h - 1);
            g->height[y * w->w + x] = (h / 15 - 128) * 3 - (ex * ex + ey * ey) / 4000;
        }
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The height above which land_pct of the map lies (pct of the sorted heights). */
static int32_t level_at(gen_t *g, int n, int pct)
{
    memcpy(g->queue, g->height, (size_t)n * sizeof *g->queue);
    qsort(g->queue, (size_t)n, sizeof *g->queue, cmp_i32);
    int i = n - 1 - n * pct / 100;
    return g->queue[i < 0 ? 0 : i];
}

/* 4-connected fill over cells of kind `k` from start, marking them in
 * mark with `m`; returns how many. */
static int fill(gen_t *g, uint8_t *mark, int start, uint8_t k, uint8_t m)
{
    worldmap_t *w = g->w;
    int head = 0, tail = 0;
    g->queue[tail++] = start;
    mark[start] = m;
    while (head < tail) {
        int c = g->queue[head++], x = c % w->w, y = c / w->w;
        for (int d = 0; d < 4; d++) {
            int nx = x + DX8[d], ny = y + DY8[d], nc = ny * w->w + nx;
            if (in_map(w, nx, ny) && w->kind[nc] == k && mark[nc] != m) {
                mark[nc] = m;
                g->queue[tail++] = nc;
            }
        }
    }
    return tail;
}

/* Only the largest land mass stays; water out of the sea's reach is lake. */
static void shape_coast(gen_t *g, uint8_t *mark)
{
    worldmap_t *w = g->w;
    int n = w->w * w->h, best = -1, best_n = 0;
    memset(mark, 0, (size_t)(unsigned)n);
    for (int c = 0; c < n; c++)
        if (w->kind[c] == WM_LAND && !mark[c]) {
            int k = fill(g, mark, c, WM_LAND, 1);
            if (k > best_n)
                best_n = k, best = c;
        }
    memset(mark, 0, (size_t)(unsigned)n);
    if (best >= 0)
        fill(g, mark, best, WM_LAND, 1);
    for (int c = 0; c < n; c++)
        if (w->kind[c] == WM_LAND && !mark[c])
            w->kind[c] = WM_SEA;
    memset(mark, 0, (size_t)(unsigned)n);
    fill(g, mark, 0, WM_SEA, 1); /* the corner is always sea: the edges are */
    for (int c = 0; c < n; c++)
        if (w->kind[c] == WM_SEA && !mark[c])
            w->kind[c] = WM_LAKE;
}

static void make_land(gen_t *g, uint8_t *mark)
{
    worldmap_t *w = g->w;
    int n = w->w * w->h;
    uint64_t lo = rng_next(&g->r), hi = rng_next(&g->r); /* in this order, always */
    raise_heights(g, lo | hi << 32);
    int32_t sea = level_at(g, n, g->p->land_pct);
    for (int y = 0; y < w->h; y++)
        for (int x = 0; x < w->w; x++) {
            int edge = x == 0 || y == 0 || x == w->w - 1 || y == w->h - 1;
            w->kind[y * w->w + x] = !edge && g->height[y * w->w + x] > sea ? WM_LAND : WM_SEA;
        }
    shape_coast(g, mark);
    /* highland: the top fifth of the land */
    int nl = 0;
    for (int c = 0; c < n; c++)
        if (w->kind[c] == WM_LAND)
            g->queue[nl++] = g->height[c];
    qsort(g->queue, (size_t)nl, sizeof *g->queue, cmp_i32);
    int32_t hill = nl ? g->queue[nl - 1 - nl / 5] : 0;
    for (int c = 0; c < n; c++)
        w->high[c] = w->kind[c] == WM_LAND && g->height[c] > hill;
}

static int next_to(const worldmap_t *w, int c, uint8_t k)
{
    for (int d = 0; d < 8; d++) {
        int nx = c % w->w + DX8[d], ny = c / w->w + DY8[d];
        if (in_map(w, nx, ny) && w->kind[ny * w->w + nx] == k)
            return 1;
    }
    return 0;
}

/* ---- territories ------------------------------------------------------------------- */

static int land_cells(gen_t *g, int32_t *out)
{
    int n = 0;
    for (int c = 0; c < g->w->w * g->w->h; c++)
        if (g->w->kind[c] == WM_LAND)
            out[n++] = c;
    return n;
}

/* Seed points on land, as far apart as the land allows. */
static void place_seeds(gen_t *g, int want)
{
    worldmap_t *w = g->w;
    int nl = land_cells(g, g->queue);
    if (want > nl / 10)
        want = nl / 10 ? nl / 10 : 1;
    int spacing2 = nl * 4 / (want ? want : 1); /* about the area each should get */
    while (w->n_terrs < want && nl > 0) {
        for (int t = 0; t < 200 && w->n_terrs < want; t++) {
            int c = g->queue[rng_below(&g->r, (uint32_t)nl)], x = c % w->w, y = c / w->w, ok = 1;
            for (int i = 0; i < w->n_terrs && ok; i++)
                ok = dist2(x, y, w->terrs[i].x, w->terrs[i].y) >= spacing2 && w->terr[c] == 0;
            if (ok) {
                w->terrs[w->n_terrs] = (worldmap_territory_t){.x = (int16_t)x, .y = (int16_t)y};
                w->terr[c] = (uint8_t)++w->n_terrs;
            }
        }
        spacing2 = spacing2 * 3 / 4;
    }
}

/* Random flood growth: a random frontier cell is taken each step, so every
 * territory is one connected piece of land with a ragged border. */
static void grow_territories(gen_t *g)
{
    worldmap_t *w = g->w;
    int32_t *f = g->queue; /* entries: cell * 32 + territory */
    int nf = 0;
    for (int c = 0; c < w->w * w->h; c++) /* the seeds hold their own cells */
        for (int d = 0; d < 4 && w->terr[c]; d++) {
            int nx = c % w->w + DX8[d], ny = c / w->w + DY8[d], nc = ny * w->w + nx;
            if (in_map(w, nx, ny) && w->kind[nc] == WM_LAND && !w->terr[nc])
                f[nf++] = nc * 32 + w->terr[c];
        }
    while (nf > 0) {
        int i = (int)rng_below(&g->r, (uint32_t)nf), e = f[i], c = e / 32, t = e % 32;
        if (w->terr[c])
            f[i] = f[--nf];
        else if (w->high[c] && rng_percent(&g->r, 60))
            continue; /* highland slows it: the cell waits for a later draw */
        else {
            f[i] = f[--nf];
            w->terr[c] = (uint8_t)t;
            for (int d = 0; d < 4; d++) {
                int nx = c % w->w + DX8[d], ny = c / w->w + DY8[d], nc = ny * w->w + nx;
                if (in_map(w, nx, ny) && w->kind[nc] == WM_LAND && !w->terr[nc])
                    f[nf++] = nc * 32 + t;
            }
        }
    }
    for (int c = 0; c < w->w * w->h; c++)
        if (w->terr[c]) {
            worldmap_territory_t *t = &w->terrs[w->terr[c] - 1];
            t->cells++;
            t->coast |= (uint8_t)next_to(w, c, WM_SEA);
        }
}

/* ---- rivers ------------------------------------------------------------------------ */

/* Turns c into lake if the rest of the land stays one piece; 1 if it did. */
static int lake_keeps_land(gen_t *g, int c)
{
    worldmap_t *w = g->w;
    int n = w->w * w->h, nl = 0, other = -1;
    for (int k = 0; k < n; k++)
        if (w->kind[k] == WM_LAND && k != c)
            nl++, other = k;
    if (other < 0)
        return 0;
    w->kind[c] = WM_LAKE;
    uint8_t *mark = (uint8_t *)(g->queue + n); /* fill's queue is the first n */
    memset(mark, 0, (size_t)(unsigned)n);
    if (fill(g, mark, other, WM_LAND, 1) == nl)
        return 1;
    w->kind[c] = WM_LAND;
    return 0;
}

/* A min-heap of (height, cell) keys for the drainage below. */
typedef struct {
    int64_t *k;
    int n;
} heap_t;

static void heap_push(heap_t *h, int64_t key)
{
    int i = h->n++;
    for (; i > 0 && h->k[(i - 1) / 2] > key; i = (i - 1) / 2)
        h->k[i] = h->k[(i - 1) / 2];
    h->k[i] = key;
}

static int64_t heap_pop(heap_t *h)
{
    int64_t top = h->k[0], last = h->k[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->k[c + 1] < h->k[c])
            c++;
        if (h->k[c] >= last)
            break;
        h->k[i] = h->k[c];
        i = c;
    }
    if (h->n > 0)
        h->k[i] = last;
    return top;
}

#define KEY(hgt, c) ((int64_t)((hgt) + 100000) << 20 | (c))

#define MEANDER 40 /* how far from the steepest way a river may wander */

/* Where water on each land cell runs (flow[c], a neighbour; -1 on water):
 * flooding inward from the sea, lowest first, so every land cell drains
 * to the sea even out of a pit; fillh[c] is the level its pit fills to. */
static void drainage(gen_t *g, int32_t *flow, int32_t *fillh, int64_t *keys)
{
    worldmap_t *w = g->w;
    int n = w->w * w->h;
    heap_t h = {keys, 0};
    for (int c = 0; c < n; c++) {
        flow[c] = -1;
        fillh[c] = g->height[c];
        if (w->kind[c] == WM_SEA)
            heap_push(&h, KEY(g->height[c], c));
    }
    while (h.n > 0) {
        int c = (int)(heap_pop(&h) & 0xfffff), x = c % w->w, y = c / w->w;
        for (int d = 0; d < 8; d++) {
            int nx = x + DX8[d], ny = y + DY8[d], nc = ny * w->w + nx;
            if (!in_map(w, nx, ny) || w->kind[nc] != WM_LAND || flow[nc] >= 0)
                continue;
            flow[nc] = c;
            if (fillh[nc] < fillh[c])
                fillh[nc] = fillh[c];
            heap_push(&h, KEY(fillh[nc], nc));
        }
    }
    /* downhill where the land falls, a little astray so rivers wind; the
     * flood's way on a filled pit's flat */
    for (int c = 0; c < n; c++) {
        int best = -1, bv = 0, x = c % w->w, y = c / w->w;
        for (int d = 0; d < 8 && flow[c] >= 0; d++) {
            int nx = x + DX8[d], ny = y + DY8[d], nc = ny * w->w + nx;
            if (!in_map(w, nx, ny) || w->kind[nc] != WM_LAND || fillh[nc] >= fillh[c])
                continue;
            int v = fillh[nc] + (int)rng_below(&g->r, MEANDER);
            if (best < 0 || v < bv)
                best = nc, bv = v;
        }
        if (best >= 0)
            flow[c] = best;
    }
}

/* How deep a pit must be for a river to end in a lake there. */
#define LAKE_DEPTH 12

/* Follows the water down from the spring at c into r's path; returns its
 * length, 0 when it comes to nothing (too short). */
static int trace_river(gen_t *g, worldmap_river_t *r, int c, int id, const int32_t *flow,
                       const int32_t *fillh)
{
    worldmap_t *w = g->w;
    int len = 0;
    for (;;) {
        r->path[len++] = (uint16_t)c;
        w->river[c] = (uint8_t)id;
        int x = c % w->w, y = c / w->w;
        for (int d = 0; d < 8; d++) {
            int nx = x + DX8[d], ny = y + DY8[d], nc = ny * w->w + nx;
            if (!in_map(w, nx, ny))
                continue;
            if (w->kind[nc] != WM_LAND)
                r->to = w->kind[nc] == WM_SEA ? WM_TO_SEA : WM_TO_LAKE;
            else if (w->river[nc] && w->river[nc] != id)
                r->to = WM_TO_RIVER, r->into = (uint8_t)(w->river[nc] - 1);
            if (r->to != 255)
                return len;
        }
        /* a deep pit: the water gathers into a lake there, unless that cuts the land */
        if (len >= 4 && fillh[c] - g->height[c] >= LAKE_DEPTH && lake_keeps_land(g, c)) {
            w->river[c] = 0, w->high[c] = 0;
            r->to = WM_TO_LAKE;
            return len - 1;
        }
        if (flow[c] < 0 || w->kind[flow[c]] != WM_LAND)
            return 0; /* cannot happen: a cell draining to water stopped above */
        c = flow[c];
    }
}

/* Whether c lies within a few cells of a river already made. */
static int near_river(const worldmap_t *w, int c)
{
    for (int i = 0; i < w->n_rivers; i++)
        for (int k = 0; k < w->rivers[i].len; k++) {
            int cell = w->rivers[i].path[k];
            if (dist2(c % w->w, c / w->w, cell % w->w, cell / w->w) < 25)
                return 1;
        }
    return 0;
}

static void make_rivers(gen_t *g, int want)
{
    worldmap_t *w = g->w;
    int n = w->w * w->h, ns = 0;
    int32_t *spring = g->queue + 2 * n; /* fill (lakes) uses the first two n */
    int64_t *keys = malloc((size_t)n * (sizeof *keys + 2 * sizeof(int32_t)));
    if (!keys)
        return;
    int32_t *flow = (int32_t *)(keys + n), *fillh = flow + n;
    drainage(g, flow, fillh, keys);
    for (int c = 0; c < n; c++)
        if (w->high[c] && !next_to(w, c, WM_SEA) && !next_to(w, c, WM_LAKE))
            spring[ns++] = c;
    for (int tries = 0; tries < 100 && w->n_rivers < want && ns > 0; tries++) {
        int c = spring[rng_below(&g->r, (uint32_t)ns)];
        if (near_river(w, c) || w->kind[c] != WM_LAND)
            continue;
        worldmap_river_t *r = &w->rivers[w->n_rivers];
        r->to = 255;
        if (!r->path && !(r->path = malloc((size_t)n * sizeof *r->path)))
            break;
        int len = trace_river(g, r, c, w->n_rivers + 1, flow, fillh);
        if (len >= 3) {
            r->len = (uint16_t)len;
            w->n_rivers++;
            continue;
        }
        for (int k = 0; k < n; k++) /* undo the short one */
            if (w->river[k] == w->n_rivers + 1)
                w->river[k] = 0;
        r->to = 0, r->len = 0;
    }
    free(keys);
}

/* ---- towns ------------------------------------------------------------------------- */

static int next_to_river(const worldmap_t *w, int c)
{
    for (int d = 0; d < 8; d++) {
        int nx = c % w->w + DX8[d], ny = c / w->w + DY8[d];
        if (in_map(w, nx, ny) && w->river[ny * w->w + nx])
            return 1;
    }
    return 0;
}

/* Towns like the coast, rivers, lakes and the lowland. */
static int town_score(gen_t *g, int c)
{
    const worldmap_t *w = g->w;
    return 4 * next_to(w, c, WM_SEA) + 3 * next_to_river(w, c) + 2 * next_to(w, c, WM_LAKE) +
           2 * !w->high[c] + (int)rng_below(&g->r, 4);
}

static int town_spaced(const worldmap_t *w, int x, int y)
{
    for (int i = 0; i < w->n_towns; i++)
        if (dist2(x, y, w->towns[i].x, w->towns[i].y) < 20)
            return 0;
    return 1;
}

/* The best cell of territory t for a town; strict 0: spaced from the
 * others and off the rivers, 1: off the rivers, 2: anywhere. -1: none. */
static int town_site(gen_t *g, int t, int strict)
{
    const worldmap_t *w = g->w;
    int best = -1, bs = -1;
    for (int c = 0; c < w->w * w->h; c++) {
        if (w->terr[c] != t + 1 || (strict < 2 && w->river[c]) ||
            (strict < 1 && !town_spaced(w, c % w->w, c / w->w)))
            continue;
        int s = town_score(g, c);
        if (s > bs)
            bs = s, best = c;
    }
    return best;
}

static void town_add(worldmap_t *w, int t, int c)
{
    w->towns[w->n_towns++] = (worldmap_town_t){.x = (int16_t)(c % w->w),
                                               .y = (int16_t)(c / w->w),
                                               .territory = (uint8_t)t,
                                               .port = (uint8_t)next_to(w, c, WM_SEA)};
}

/* Every territory its seat first (closer to others if it must be), then
 * the towns it wants beyond that, where there is room. */
static void place_towns(gen_t *g)
{
    worldmap_t *w = g->w;
    int want[WORLD_TERR_MAX];
    for (int t = 0; t < w->n_terrs; t++) {
        want[t] = rng_range(&g->r, g->p->towns[0], g->p->towns[1]) - 1;
        int c = -1;
        for (int strict = 0; strict < 3 && c < 0; strict++)
            c = town_site(g, t, strict);
        w->terrs[t].seat = (uint8_t)w->n_towns;
        town_add(w, t, c); /* a territory has a cell at least */
    }
    for (int t = 0; t < w->n_terrs; t++)
        for (int i = 0; i < want[t] && w->n_towns < WORLD_TOWN_MAX; i++) {
            int c = town_site(g, t, 0);
            if (c < 0)
                break;
            town_add(w, t, c);
        }
}

/* The player's town is a border town: the one with most other
 * territories close by. */
static int home_town(const worldmap_t *w)
{
    int best = 0, bn = -1;
    for (int i = 0; i < w->n_towns; i++) {
        const worldmap_town_t *t = &w->towns[i];
        uint32_t seen = 0;
        for (int y = t->y - 2; y <= t->y + 2; y++)
            for (int x = t->x - 4; x <= t->x + 4; x++)
                if (in_map(w, x, y) && w->terr[y * w->w + x] &&
                    w->terr[y * w->w + x] != t->territory + 1)
                    seen |= 1u << (w->terr[y * w->w + x] - 1);
        int n = __builtin_popcount(seen);
        if (n > bn)
            bn = n, best = i;
    }
    return best;
}

/* ---- water routes ------------------------------------------------------------------ */

static void add_route(worldmap_t *w, int a, int b, int by, int river)
{
    if (a == b)
        return;
    if (a > b)
        a ^= b, b ^= a, a ^= b;
    for (int i = 0; i < w->n_routes; i++)
        if (w->routes[i].a == a && w->routes[i].b == b && w->routes[i].by == by)
            return;
    if (w->n_routes < (int)(sizeof w->routes / sizeof w->routes[0]))
        w->routes[w->n_routes++] =
            (worldmap_route_t){(uint8_t)a, (uint8_t)b, (uint8_t)by, (uint8_t)river};
}

/* A river links each pair of territories it runs between. */
static void river_routes(worldmap_t *w)
{
    for (int i = 0; i < w->n_rivers; i++) {
        const worldmap_river_t *r = &w->rivers[i];
        for (int k = 1; k < r->len; k++) {
            int a = w->terr[r->path[k - 1]], b = w->terr[r->path[k]];
            if (a && b && a != b)
                add_route(w, a - 1, b - 1, WM_BY_RIVER, i);
        }
    }
}

/* Distances over the sea (8 ways) from the sea next to town `from`;
 * dist[c] -1 where it does not reach, par[c] the cell it came from. */
static void sea_bfs(gen_t *g, int from, int32_t *dist, int32_t *par)
{
    worldmap_t *w = g->w;
    int n = w->w * w->h, head = 0, tail = 0;
    for (int c = 0; c < n; c++)
        dist[c] = -1;
    const worldmap_town_t *t = &w->towns[from];
    for (int d = 0; d < 8; d++) {
        int nx = t->x + DX8[d], ny = t->y + DY8[d], nc = ny * w->w + nx;
        if (in_map(w, nx, ny) && w->kind[nc] == WM_SEA && dist[nc] < 0)
            dist[nc] = 1, par[nc] = -1, g->queue[tail++] = nc;
    }
    while (head < tail) {
        int c = g->queue[head++];
        for (int d = 0; d < 8; d++) {
            int nx = c % w->w + DX8[d], ny = c / w->w + DY8[d], nc = ny * w->w + nx;
            if (in_map(w, nx, ny) && w->kind[nc] == WM_SEA && dist[nc] < 0)
                dist[nc] = dist[c] + 1, par[nc] = c, g->queue[tail++] = nc;
        }
    }
}

/* The sea cell next to town `to` nearest by dist (-1: none reached). */
static int sea_end(const worldmap_t *w, int to, const int32_t *dist)
{
    int best = -1;
    const worldmap_town_t *t = &w->towns[to];
    for (int d = 0; d < 8; d++) {
        int nx = t->x + DX8[d], ny = t->y + DY8[d], nc = ny * w->w + nx;
        if (in_map(w, nx, ny) && dist[nc] >= 0 && (best < 0 || dist[nc] < dist[best]))
            best = nc;
    }
    return best;
}

/* Sea routes join every territory's port (its first port town) by the
 * shortest lanes that link them all (a minimum spanning tree). */
static int sea_routes(gen_t *g)
{
    worldmap_t *w = g->w;
    int n = w->w * w->h, port[WORLD_TERR_MAX], np = 0;
    for (int t = 0; t < w->n_terrs; t++)
        for (int i = 0; i < w->n_towns; i++)
            if (w->towns[i].territory == t && w->towns[i].port) {
                port[np++] = i;
                break;
            }
    int32_t *dist = malloc((size_t)n * 2 * sizeof *dist), *par = dist + n;
    if (!dist)
        return -1;
    int in[WORLD_TERR_MAX] = {1}, from[WORLD_TERR_MAX];
    int32_t best[WORLD_TERR_MAX];
    for (int k = 0; k < np; k++)
        best[k] = -1;
    for (int added = 1, cur = 0; added < np; added++) {
        sea_bfs(g, port[cur], dist, par);
        for (int k = 0; k < np; k++) {
            int e = in[k] ? -1 : sea_end(w, port[k], dist);
            if (e >= 0 && (best[k] < 0 || dist[e] < best[k]))
                best[k] = dist[e], from[k] = cur;
        }
        int next = -1;
        for (int k = 0; k < np; k++)
            if (!in[k] && best[k] >= 0 && (next < 0 || best[k] < best[next]))
                next = k;
        if (next < 0)
            break; /* the rest lie on no shared sea */
        in[next] = 1;
        sea_bfs(g, port[from[next]], dist, par); /* the lane itself, marked */
        for (int c = sea_end(w, port[next], dist); c >= 0; c = par[c])
            w->lane[c] = 1;
        add_route(w, w->towns[port[from[next]]].territory, w->towns[port[next]].territory,
                  WM_BY_SEA, 0);
        cur = next;
    }
    free(dist);
    return 0;
}

/* ---- names ------------------------------------------------------------------------- */

typedef struct {
    const worldmap_params_t *p;
    rng_t r;
    const char *taken[1 + WORLD_TERR_MAX + WORLD_TOWN_MAX + WORLD_RIVER_MAX];
    int n_taken;
} namer_t;

static void syl_add(namer_t *nm, char *out, size_t cap, int list)
{
    int n = nm->p->n_syl[list];
    if (n > 0) {
        const char *s = nm->p->syl[list][rng_below(&nm->r, (uint32_t)n)];
        size_t len = strlen(out);
        if (len + strlen(s) < cap)
            memcpy(out + len, s, strlen(s) + 1);
    }
}

/* Well formed: a capital and small letters, 3 to 20 of them, never the
 * same letter three times running. */
static int name_ok(const char *s)
{
    size_t len = strlen(s);
    if (len < 3 || len > 20 || s[0] < 'A' || s[0] > 'Z')
        return 0;
    for (size_t i = 1; i < len; i++)
        if (s[i] < 'a' || s[i] > 'z' || (i >= 2 && s[i] == s[i - 1] && s[i] == s[i - 2]))
            return 0;
    return 1;
}

/* A new name of nsyl syllables and an ending from list `ends` (-1: none),
 * unlike every name given so far; -1 when none comes in many tries. */
static int name_make(namer_t *nm, char out[WORLD_NAME_LEN], int nsyl, int ends)
{
    for (int tries = 0; tries < 500; tries++) {
        char s[64] = "";
        int k = nsyl + (int)rng_below(&nm->r, 2);
        for (int i = 0; i < k; i++) {
            syl_add(nm, s, sizeof s, WSYL_onsets);
            syl_add(nm, s, sizeof s, WSYL_vowels);
        }
        syl_add(nm, s, sizeof s, WSYL_codas);
        if (ends >= 0)
            syl_add(nm, s, sizeof s, ends);
        if (s[0] >= 'a' && s[0] <= 'z')
            s[0] = (char)(s[0] - 'a' + 'A');
        int fresh = name_ok(s);
        for (int i = 0; i < nm->n_taken && fresh; i++)
            fresh = strcasecmp(nm->taken[i], s) != 0;
        if (fresh) {
            memcpy(out, s, strlen(s) + 1);
            nm->taken[nm->n_taken++] = out;
            return 0;
        }
    }
    return -1;
}

static int give_names(worldmap_t *w, const worldmap_params_t *p, uint64_t wseed)
{
    namer_t nm = {.p = p};
    rng_seed(&nm.r, wseed, 2);
    if (p->home[0]) { /* the content names the player's town */
        memcpy(w->towns[w->home].name, p->home, sizeof p->home);
        nm.taken[nm.n_taken++] = w->towns[w->home].name;
    }
    int failed = name_make(&nm, w->name, 2, -1);
    for (int i = 0; i < w->n_terrs; i++)
        failed |= name_make(&nm, w->terrs[i].name, 1, WSYL_territory_ends);
    for (int i = 0; i < w->n_towns; i++)
        if (i != w->home || !p->home[0])
            failed |= name_make(&nm, w->towns[i].name, 1, WSYL_town_ends);
    for (int i = 0; i < w->n_rivers; i++)
        failed |= name_make(&nm, w->rivers[i].name, 1, WSYL_river_ends);
    return failed;
}

/* ---- the whole ------------------------------------------------------------------------ */

void worldmap_free(worldmap_t *w)
{
    if (!w)
        return;
    for (int i = 0; i < WORLD_RIVER_MAX; i++)
        free(w->rivers[i].path);
    free(w->kind);
    free(w);
}

static int range_of(rng_t *r, const uint8_t lohi[2], int cap)
{
    int v = rng_range(r, lohi[0], lohi[1]);
    return v > cap ? cap : v;
}

worldmap_t *worldmap_make(const worldmap_params_t *p, uint64_t seed, char *err, size_t errlen)
{
    if (!p->n_syl[WSYL_vowels] || p->w < 16 || p->h < 8) {
        snprintf(err, errlen, "the content declares no world");
        return NULL;
    }
    worldmap_t *w = calloc(1, sizeof *w);
    int n = p->w * p->h;
    gen_t g = {w, p, {0}, NULL, NULL};
    if (w)
        w->kind = calloc((size_t)n, 5);
    if (w && w->kind)
        g.height = malloc((size_t)n * 6 * sizeof *g.height);
    if (!g.height) {
        worldmap_free(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g.queue = g.height + n;
    w->w = p->w, w->h = p->h;
    w->high = w->kind + n, w->terr = w->kind + 2 * n, w->river = w->kind + 3 * n;
    w->lane = w->kind + 4 * n;
    uint64_t wseed = rng_hash2(seed, WORLD_SALT);
    rng_seed(&g.r, wseed, 1);
    make_land(&g, w->lane); /* lane: scratch until the routes */
    make_rivers(&g, range_of(&g.r, p->rivers, WORLD_RIVER_MAX));
    place_seeds(&g, range_of(&g.r, p->territories, WORLD_TERR_MAX));
    grow_territories(&g);
    place_towns(&g);
    w->home = home_town(w);
    memset(w->lane, 0, (size_t)(unsigned)n);
    river_routes(w);
    int routes = sea_routes(&g);
    free(g.height);
    if (routes < 0 || give_names(w, p, wseed) < 0) {
        snprintf(err, errlen, routes < 0 ? "out of memory" : "the syllables make too few names");
        worldmap_free(w);
        return NULL;
    }
    return w;
}

worldmap_t *worldmap_new(const content_t *c, uint64_t seed, char *err, size_t errlen)
{
    return worldmap_make(&c->world, seed, err, errlen);
}

/* ---- drawing ----------------------------------------------------------------------- */

static char river_glyph(const worldmap_t *w, int c)
{
    const worldmap_river_t *r = &w->rivers[w->river[c] - 1];
    int k = 0;
    while (k + 1 < r->len && r->path[k] != c)
        k++;
    if (r->len < 2)
        return '-';
    int a = k + 1 < r->len ? r->path[k] : r->path[k - 1], b = r->path[k + 1 < r->len ? k + 1 : k];
    int dx = b % w->w - a % w->w, dy = b / w->w - a / w->w;
    return dy == 0 ? '-' : dx == 0 ? '|' : (dx > 0) == (dy > 0) ? '\\' : '/';
}

char worldmap_glyph(const worldmap_t *w, int x, int y, int letters)
{
    if (!in_map(w, x, y))
        return ' ';
    for (int i = 0; i < w->n_towns; i++)
        if (w->towns[i].x == x && w->towns[i].y == y)
            return i == w->home ? '@' : '*';
    int c = y * w->w + x;
    if (w->kind[c] != WM_LAND)
        return w->lane[c] ? ':' : '~';
    if (w->river[c])
        return river_glyph(w, c);
    if (letters)
        return (char)('a' + w->terr[c] - 1);
    return w->high[c] ? '^' : '.';
}

static const char *river_end(const worldmap_t *w, const worldmap_river_t *r, char *buf, size_t n)
{
    if (r->to == WM_TO_RIVER)
        snprintf(buf, n, "into the %s", w->rivers[r->into].name);
    else
        snprintf(buf, n, "%s", r->to == WM_TO_SEA ? "to the sea" : "to a lake");
    return buf;
}

static void text_legend(const worldmap_t *w, buf_t *out)
{
    const worldmap_town_t *home = &w->towns[w->home];
    buf_printf(out, "~ sea and lakes  : sea route  -|/\\ river  * town  @ your town  a-%c land\n",
               'a' + w->n_terrs - 1);
    buf_printf(out, "Your town: %s, in %s (%c).\nTerritories:\n", home->name,
               w->terrs[home->territory].name, 'a' + home->territory);
    for (int t = 0; t < w->n_terrs; t++) {
        buf_printf(out, "  %c %s%s:", 'a' + t, w->terrs[t].name,
                   w->terrs[t].coast ? " (coast)" : "");
        for (int i = 0, first = 1; i < w->n_towns; i++)
            if (w->towns[i].territory == t) {
                int seat = i == w->terrs[t].seat, port = w->towns[i].port;
                buf_printf(out, "%s %s%s%s%s%s", first ? "" : ",", w->towns[i].name,
                           seat || port ? " (" : "", seat ? "seat" : "", seat && port ? ", " : "",
                           port   ? "port)"
                           : seat ? ")"
                                  : "");
                first = 0;
            }
        buf_putc(out, '\n');
    }
    buf_puts(out, "Rivers:\n");
    for (int i = 0; i < w->n_rivers; i++) {
        char end[64];
        buf_printf(out, "  %s, from %s %s\n", w->rivers[i].name,
                   w->terrs[w->terr[w->rivers[i].path[0]] - 1].name,
                   river_end(w, &w->rivers[i], end, sizeof end));
    }
    buf_puts(out, "Water routes:\n");
    for (int i = 0; i < w->n_routes; i++) {
        const worldmap_route_t *r = &w->routes[i];
        buf_printf(out, "  %s - %s, %s%s\n", w->terrs[r->a].name, w->terrs[r->b].name,
                   r->by == WM_BY_SEA ? "by sea" : "along the ",
                   r->by == WM_BY_SEA ? "" : w->rivers[r->river].name);
    }
}

void worldmap_text(const worldmap_t *w, buf_t *out)
{
    buf_printf(out, "The continent of %s\n", w->name);
    for (int y = 0; y < w->h; y++) {
        for (int x = 0; x < w->w; x++)
            buf_putc(out, worldmap_glyph(w, x, y, 1));
        buf_putc(out, '\n');
    }
    text_legend(w, out);
}
