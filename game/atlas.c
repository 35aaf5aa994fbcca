/* atlas — the maps of a game and how they join (see atlas.h). The table
 * is made in this order, each step from the world map and a stream of
 * the atlas's own (so nothing a player does moves it): the towns and
 * territories copied, each territory's distance from home (borders
 * crossed), its entrance and its branch's theme and depth, the roads
 * (a spanning tree of the cheapest ways over land between towns) and the
 * water links (the world map's routes, between the towns where each
 * territory takes ship). */
#include "atlas.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "level.h"
#include "world.h"

_Static_assert(ATLAS_WARREN_MAX == WORLD_MAX_DEPTH, "the Warren's levels are the first ids");

#define ATLAS_SALT  0x61746c6173ull /* "atlas": the table's own stream */
#define HOME_DANGER 1
#define HOP_DANGER  3  /* danger per border crossed from home */
#define DANGER_MAX  14 /* a territory's; its branch goes deeper */

/* ---- ids ------------------------------------------------------------------------- */

int atlas_kind(int id)
{
    if (id == 0 || (id >= ATLAS_TOWN0 && id < ATLAS_BRANCH0))
        return ATLAS_TOWN;
    if (id >= 1 && id <= ATLAS_WARREN_MAX)
        return ATLAS_WARREN;
    if (id == ATLAS_OVERLAND)
        return ATLAS_WILDS;
    return id >= ATLAS_BRANCH0 && id < LEVEL_IDS ? ATLAS_BRANCH : ATLAS_NONE;
}

int atlas_town_id(const game_t *g, int town)
{
    const atlas_table_t *t = g->atlas.t;
    return t && town == t->home ? 0 : ATLAS_TOWN0 + town;
}

int atlas_town_of(const game_t *g, int id)
{
    const atlas_table_t *t = g->atlas.t;
    if (!t)
        return -1;
    if (id == 0)
        return t->home;
    int i = id - ATLAS_TOWN0;
    return id >= ATLAS_TOWN0 && i < t->n_towns && i != t->home ? i : -1;
}

int atlas_branch_id(int terr, int k)
{
    return ATLAS_BRANCH0 + terr * BRANCH_LEVELS_MAX + k - 1;
}

bool atlas_branch_of(int id, int *terr, int *k)
{
    if (atlas_kind(id) != ATLAS_BRANCH)
        return false;
    *terr = (id - ATLAS_BRANCH0) / BRANCH_LEVELS_MAX;
    *k = (id - ATLAS_BRANCH0) % BRANCH_LEVELS_MAX + 1;
    return true;
}

/* The territory whose branch id is, and which level; NULL when id is no
 * level of a branch this world has. */
static const atlas_terr_t *branch_terr(const game_t *g, int id, int *k)
{
    int terr;
    if (!g->atlas.t || !atlas_branch_of(id, &terr, k) || terr >= g->atlas.t->n_terrs)
        return NULL;
    const atlas_terr_t *tr = &g->atlas.t->terrs[terr];
    return *k <= tr->levels ? tr : NULL;
}

int atlas_danger(const game_t *g, int id)
{
    int k;
    if (atlas_kind(id) == ATLAS_WARREN)
        return id;
    const atlas_terr_t *tr = branch_terr(g, id, &k);
    return tr ? tr->danger + k - 1 : 0;
}

int atlas_below(const game_t *g, int id)
{
    int k;
    if (id >= 0 && id < ATLAS_WARREN_MAX)
        return id + 1;
    const atlas_terr_t *tr = branch_terr(g, id, &k);
    return tr && k < tr->levels ? id + 1 : -1;
}

int atlas_above(const game_t *g, int id)
{
    int k;
    if (id >= 1 && id <= ATLAS_WARREN_MAX)
        return id - 1;
    const atlas_terr_t *tr = branch_terr(g, id, &k);
    return !tr ? -1 : k > 1 ? id - 1 : ATLAS_OVERLAND;
}

void atlas_size(const game_t *g, int id, int *w, int *h)
{
    const atlas_table_t *t = g->atlas.t;
    bool wilds = id == ATLAS_OVERLAND && t;
    *w = wilds ? t->w : MAPGEN_DEFAULT_W;
    *h = wilds ? t->h : MAPGEN_DEFAULT_H;
}

static int atlas_town_at_cell(const atlas_table_t *t, int x, int y)
{
    for (int i = 0; t && i < t->n_towns; i++)
        if (t->towns[i].x == x && t->towns[i].y == y)
            return i;
    return -1;
}

int atlas_town_at(const game_t *g, int x, int y)
{
    return atlas_town_at_cell(g->atlas.t, x, y);
}

int atlas_entrance_at(const game_t *g, int x, int y)
{
    const atlas_table_t *t = g->atlas.t;
    for (int i = 0; t && i < t->n_terrs; i++)
        if (t->terrs[i].levels && t->terrs[i].ex == x && t->terrs[i].ey == y)
            return i;
    return -1;
}

int atlas_terr_at(const game_t *g, int x, int y)
{
    const level_t *lv = g->levels[ATLAS_OVERLAND];
    if (!g->atlas.t || !lv || !level_in(lv, x, y))
        return -1;
    int r = lv->region[y * lv->w + x];
    return r >= 1 && r <= g->atlas.t->n_terrs ? r - 1 : -1;
}

/* ---- names ----------------------------------------------------------------------- */

void atlas_branch_name(const game_t *g, int terr, char *out, size_t n)
{
    const atlas_table_t *t = g->atlas.t;
    const atlas_terr_t *tr = t && terr >= 0 && terr < t->n_terrs ? &t->terrs[terr] : NULL;
    if (!tr || tr->theme >= g->c->n_branches)
        snprintf(out, n, "a dungeon");
    else
        snprintf(out, n, "%s of %s", g->c->branches[tr->theme].name, tr->name);
}

static const char *terr_name(const game_t *g, int terr)
{
    return terr >= 0 ? g->atlas.t->terrs[terr].name : "the wilds";
}

static int player_terr(const game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    return p ? atlas_terr_at(g, p->x, p->y) : -1;
}

void atlas_where(const game_t *g, char *out, size_t n)
{
    int town = atlas_town_of(g, g->depth), terr, k;
    if (atlas_kind(g->depth) == ATLAS_WARREN || (g->depth != 0 && !g->atlas.t))
        snprintf(out, n, "on level %d", g->depth);
    else if (g->depth == 0)
        snprintf(out, n, "in the town");
    else if (town >= 0)
        snprintf(out, n, "in %s", g->atlas.t->towns[town].name);
    else if (g->depth == ATLAS_OVERLAND)
        snprintf(out, n, "in the wilds of %s", terr_name(g, player_terr(g)));
    else if (atlas_branch_of(g->depth, &terr, &k)) {
        char name[64];
        atlas_branch_name(g, terr, name, sizeof name);
        snprintf(out, n, "on level %d of %s", k, name);
    } else
        snprintf(out, n, "somewhere");
}

void atlas_place(const game_t *g, char *out, size_t n)
{
    int town = atlas_town_of(g, g->depth), terr, k;
    if (atlas_kind(g->depth) == ATLAS_WARREN || (g->depth != 0 && !g->atlas.t))
        snprintf(out, n, "Depth %d", g->depth);
    else if (g->depth == 0)
        snprintf(out, n, "Town");
    else if (town >= 0)
        snprintf(out, n, "%s", g->atlas.t->towns[town].name);
    else if (g->depth == ATLAS_OVERLAND)
        snprintf(out, n, "%s", terr_name(g, player_terr(g)));
    else if (atlas_branch_of(g->depth, &terr, &k) && terr < g->atlas.t->n_terrs &&
             g->atlas.t->terrs[terr].theme < g->c->n_branches) {
        const char *th = g->c->branches[g->atlas.t->terrs[terr].theme].name;
        if (!strncmp(th, "the ", 4))
            th += 4;
        snprintf(out, n, "%c%s %d", th[0] >= 'a' && th[0] <= 'z' ? th[0] - 'a' + 'A' : th[0],
                 th + 1, k);
    } else
        snprintf(out, n, "Depth %d", atlas_danger(g, g->depth));
}

/* ---- territories: distance from home, entrances, branches ------------------------ */

static const int DX8[8] = {0, 1, 0, -1, 1, 1, -1, -1}, DY8[8] = {-1, 0, 1, 0, -1, 1, 1, -1};

static bool in_world(const worldmap_t *w, int x, int y)
{
    return x >= 0 && y >= 0 && x < w->w && y < w->h;
}

/* Borders crossed from the home town's territory, by land. */
static void territory_hops(const worldmap_t *w, atlas_table_t *t)
{
    uint8_t adj[WORLD_TERR_MAX][WORLD_TERR_MAX] = {{0}};
    for (int y = 0; y < w->h; y++)
        for (int x = 0; x < w->w; x++)
            for (int d = 1; d <= 2; d++) { /* east and south neighbours */
                int nx = x + DX8[d], ny = y + DY8[d], a = w->terr[y * w->w + x];
                int b = in_world(w, nx, ny) ? w->terr[ny * w->w + nx] : 0;
                if (a && b && a != b)
                    adj[a - 1][b - 1] = adj[b - 1][a - 1] = 1;
            }
    int queue[WORLD_TERR_MAX], head = 0, tail = 0, home = t->towns[t->home].terr;
    for (int i = 0; i < t->n_terrs; i++)
        t->terrs[i].hops = 255;
    t->terrs[home].hops = 0;
    queue[tail++] = home;
    while (head < tail) {
        int a = queue[head++];
        for (int b = 0; b < t->n_terrs; b++)
            if (adj[a][b] && t->terrs[b].hops == 255) {
                t->terrs[b].hops = (uint8_t)(t->terrs[a].hops + 1);
                queue[tail++] = b;
            }
    }
}

/* A territory's entrance: off the rivers, away from its towns, on high
 * ground when it can; -1 when it has no room. */
static int entrance_site(const worldmap_t *w, const atlas_table_t *t, int terr, rng_t *r)
{
    int best = -1, bs = -1;
    for (int y = 1; y < w->h - 1; y++)
        for (int x = 1; x < w->w - 1; x++) {
            int c = y * w->w + x, near = 1 << 20;
            if (w->terr[c] != terr + 1 || w->river[c])
                continue;
            for (int i = 0; i < t->n_towns; i++) {
                int dx = x - t->towns[i].x, dy = y - t->towns[i].y, d2 = dx * dx + 4 * dy * dy;
                near = d2 < near ? d2 : near;
            }
            int s = (near > 64 ? 64 : near) + (w->high[c] ? 30 : 0) + (int)rng_below(r, 16);
            if (near > 4 && s > bs)
                bs = s, best = c;
        }
    return best;
}

/* Every territory but home's gets an entrance, a theme and a depth. */
static void territory_branches(const game_t *g, const worldmap_t *w, atlas_table_t *t, rng_t *r)
{
    int home = t->towns[t->home].terr, nth = g->c->n_branches;
    for (int i = 0; i < t->n_terrs; i++) {
        atlas_terr_t *tr = &t->terrs[i];
        int hops = tr->hops == 255 ? 1 : tr->hops, d = HOP_DANGER * hops;
        tr->danger = (uint8_t)(i == home ? HOME_DANGER : d > DANGER_MAX ? DANGER_MAX : d);
        tr->theme = 255, tr->levels = 0, tr->ex = tr->ey = -1;
        int c = i == home || !nth ? -1 : entrance_site(w, t, i, r);
        if (c < 0)
            continue;
        tr->ex = (int16_t)(c % w->w), tr->ey = (int16_t)(c / w->w);
        tr->theme = (uint8_t)((i + (int)rng_below(r, (uint32_t)nth)) % nth);
        int levels = 2 + (hops < 3 ? hops : 3) + (int)rng_below(r, 2);
        tr->levels = (uint8_t)(levels > BRANCH_LEVELS_MAX ? BRANCH_LEVELS_MAX : levels);
    }
}

/* ---- roads ------------------------------------------------------------------------ */

typedef struct {
    int64_t *k;
    int n;
} aheap_t;

static void aheap_push(aheap_t *h, int64_t key)
{
    int i = h->n++;
    for (; i > 0 && h->k[(i - 1) / 2] > key; i = (i - 1) / 2)
        h->k[i] = h->k[(i - 1) / 2];
    h->k[i] = key;
}

static int64_t aheap_pop(aheap_t *h)
{
    int64_t top = h->k[0], last = h->k[--h->n];
    int i = 0;
    for (int c; (c = 2 * i + 1) < h->n; i = c) {
        if (c + 1 < h->n && h->k[c + 1] < h->k[c])
            c++;
        if (h->k[c] >= last)
            break;
        h->k[i] = h->k[c];
    }
    if (h->n > 0)
        h->k[i] = last;
    return top;
}

/* The road network grows from the home town: each round the cheapest way
 * over land from any road (or town on one) to a town not yet on one is
 * laid, so roads branch off roads. Every cell of the network knows the
 * town whose road laid it and how far along that road it lies, which
 * makes each new road a link between its town and that one. */
typedef struct {
    const worldmap_t *w;
    atlas_table_t *t;
    int32_t *dist, *par, *owner, *along; /* w*h each; owner -1: no road */
    uint8_t *cost;                       /* w*h: a step onto the cell; 0 no road goes there */
    int64_t *heap;                       /* 8 a cell, and the network's cells */
} roads_t;

/* What a step onto each cell costs a road-builder: water and dungeon
 * entrances take no road, fords and hills are dear. */
static void road_costs(roads_t *rs)
{
    const worldmap_t *w = rs->w;
    for (int c = 0; c < w->w * w->h; c++)
        rs->cost[c] = w->kind[c] != WM_LAND ? 0 : w->river[c] ? 30 : w->high[c] ? 25 : 10;
    for (int i = 0; i < rs->t->n_terrs; i++)
        if (rs->t->terrs[i].ex >= 0)
            rs->cost[rs->t->terrs[i].ey * w->w + rs->t->terrs[i].ex] = 0;
}

/* Cheapest ways from the network (every owned cell) until a town off it
 * is reached: that town, or -1 when none can be. */
static int road_search(roads_t *rs)
{
    const worldmap_t *w = rs->w;
    int n = w->w * w->h;
    aheap_t h = {rs->heap, 0};
    for (int c = 0; c < n; c++) {
        rs->dist[c] = rs->owner[c] >= 0 ? 0 : -1;
        if (rs->owner[c] >= 0)
            rs->par[c] = -1, aheap_push(&h, c);
    }
    while (h.n > 0) {
        int64_t key = aheap_pop(&h);
        int c = (int)(key & 0xffff), d = (int)(key >> 16);
        if (d > rs->dist[c])
            continue;
        int town = rs->owner[c] < 0 ? atlas_town_at_cell(rs->t, c % w->w, c / w->w) : -1;
        if (town >= 0)
            return town;
        for (int k = 0; k < 8; k++) {
            int nx = c % w->w + DX8[k], ny = c / w->w + DY8[k], nc = ny * w->w + nx;
            if (!in_world(w, nx, ny) || !rs->cost[nc])
                continue;
            int nd = d + (k < 4 ? rs->cost[nc] : rs->cost[nc] * 14 / 10);
            if (rs->dist[nc] < 0 || nd < rs->dist[nc]) {
                rs->dist[nc] = nd, rs->par[nc] = c;
                aheap_push(&h, (int64_t)nd << 16 | nc);
            }
        }
    }
    return -1;
}

/* Lays the way to town b (after road_search): its cells join the network
 * as b's road; a link from b to the road's owner where it branches off. */
static void road_lay(roads_t *rs, int b, uint8_t *road)
{
    const worldmap_t *w = rs->w;
    int start = rs->t->towns[b].y * w->w + rs->t->towns[b].x, len = 0, c = start;
    for (; rs->par[c] >= 0; c = rs->par[c])
        len++;
    int from = rs->owner[c], at = rs->along[c] + len; /* c: where it branches off */
    for (int k = start, i = 0; k != c; k = rs->par[k], i++) {
        rs->owner[k] = b, rs->along[k] = i;
        if (road)
            road[k] = 1;
    }
    if (road)
        road[c] = 1;
    atlas_table_t *t = rs->t;
    if (t->n_links < ATLAS_LINKS_MAX)
        t->links[t->n_links++] =
            (atlas_link_t){(uint8_t)from, (uint8_t)b, ATLAS_BY_ROAD, 0, (uint16_t)at};
}

int atlas_roads(const worldmap_t *w, atlas_table_t *t, uint8_t *road)
{
    int n = w->w * w->h;
    roads_t rs = {w,
                  t,
                  malloc((size_t)n * 4 * sizeof(int32_t)),
                  NULL,
                  NULL,
                  NULL,
                  malloc((size_t)n),
                  malloc((size_t)n * 9 * sizeof(int64_t))};
    if (!rs.dist || !rs.cost || !rs.heap) {
        free(rs.dist), free(rs.cost), free(rs.heap);
        return -1;
    }
    rs.par = rs.dist + n, rs.owner = rs.par + n, rs.along = rs.owner + n;
    road_costs(&rs);
    for (int c = 0; c < n; c++)
        rs.owner[c] = -1;
    int home = t->towns[t->home].y * w->w + t->towns[t->home].x;
    rs.owner[home] = t->home, rs.along[home] = 0;
    for (int b; (b = road_search(&rs)) >= 0;)
        road_lay(&rs, b, road);
    free(rs.dist), free(rs.cost), free(rs.heap);
    return 0;
}

/* ---- water links ------------------------------------------------------------------ */

/* The first port town of territory terr; -1 none. */
static int first_port(const atlas_table_t *t, int terr)
{
    for (int i = 0; i < t->n_towns; i++)
        if (t->towns[i].terr == terr && t->towns[i].port)
            return i;
    return -1;
}

/* Cells over the sea between the water beside town a and beside town b
 * (8 ways); -1 when no sea joins them. queue: w*h scratch. */
static int sea_distance(const worldmap_t *w, const atlas_table_t *t, int a, int b, int32_t *dist)
{
    int n = w->w * w->h, head = 0, tail = 0;
    int32_t *queue = dist + n;
    for (int c = 0; c < n; c++)
        dist[c] = -1;
    for (int k = 0; k < 8; k++) {
        int x = t->towns[a].x + DX8[k], y = t->towns[a].y + DY8[k], c = y * w->w + x;
        if (in_world(w, x, y) && w->kind[c] == WM_SEA && dist[c] < 0)
            dist[c] = 1, queue[tail++] = c;
    }
    while (head < tail) {
        int c = queue[head++];
        int dx = c % w->w - t->towns[b].x, dy = c / w->w - t->towns[b].y;
        if (dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1)
            return dist[c];
        for (int k = 0; k < 8; k++) {
            int x = c % w->w + DX8[k], y = c / w->w + DY8[k], nc = y * w->w + x;
            if (in_world(w, x, y) && w->kind[nc] == WM_SEA && dist[nc] < 0)
                dist[nc] = dist[c] + 1, queue[tail++] = nc;
        }
    }
    return -1;
}

/* The town of territory terr nearest river r's cells there; -1 none. */
static int river_landing(const worldmap_t *w, const atlas_table_t *t, int terr, int r)
{
    int best = -1, bd = 1 << 20;
    const worldmap_river_t *rv = &w->rivers[r];
    for (int i = 0; i < t->n_towns; i++) {
        if (t->towns[i].terr != terr)
            continue;
        for (int k = 0; k < rv->len; k++) {
            int c = rv->path[k], dx = abs(c % w->w - t->towns[i].x),
                dy = abs(c / w->w - t->towns[i].y), d = dx > dy ? dx : dy;
            if (w->terr[c] == terr + 1 && d < bd)
                bd = d, best = i;
        }
    }
    return best;
}

static void link_add(atlas_table_t *t, int a, int b, int by, int river, int len)
{
    for (int i = 0; i < t->n_links; i++)
        if (t->links[i].by == by && ((t->links[i].a == a && t->links[i].b == b) ||
                                     (t->links[i].a == b && t->links[i].b == a)))
            return;
    if (a != b && a >= 0 && b >= 0 && len > 0 && t->n_links < ATLAS_LINKS_MAX)
        t->links[t->n_links++] =
            (atlas_link_t){(uint8_t)a, (uint8_t)b, (uint8_t)by, (uint8_t)river, (uint16_t)len};
}

static int water_links(const worldmap_t *w, atlas_table_t *t)
{
    int32_t *dist = malloc((size_t)w->w * (size_t)w->h * 2 * sizeof *dist);
    if (!dist)
        return -1;
    for (int i = 0; i < w->n_routes; i++) {
        const worldmap_route_t *r = &w->routes[i];
        if (r->by == WM_BY_SEA) {
            int a = first_port(t, r->a), b = first_port(t, r->b);
            if (a >= 0 && b >= 0)
                link_add(t, a, b, ATLAS_BY_SEA, 0, sea_distance(w, t, a, b, dist));
            continue;
        }
        int a = river_landing(w, t, r->a, r->river), b = river_landing(w, t, r->b, r->river);
        if (a >= 0 && b >= 0) {
            int dx = abs(t->towns[a].x - t->towns[b].x), dy = abs(t->towns[a].y - t->towns[b].y);
            link_add(t, a, b, ATLAS_BY_RIVER, r->river, (dx > dy ? dx : dy) * 3 / 2 + 1);
        }
    }
    free(dist);
    return 0;
}

/* ---- the table ------------------------------------------------------------------- */

static void copy_world(const worldmap_t *w, atlas_table_t *t)
{
    memcpy(t->continent, w->name, sizeof t->continent);
    t->w = w->w, t->h = w->h, t->n_towns = w->n_towns, t->n_terrs = w->n_terrs, t->home = w->home;
    for (int i = 0; i < w->n_towns; i++) {
        const worldmap_town_t *s = &w->towns[i];
        atlas_town_t *d = &t->towns[i];
        memcpy(d->name, s->name, sizeof d->name);
        d->x = s->x, d->y = s->y, d->terr = s->territory, d->port = s->port;
        d->safe = s->territory != w->towns[w->home].territory && w->terrs[s->territory].seat == i;
    }
    for (int i = 0; i < w->n_terrs; i++)
        memcpy(t->terrs[i].name, w->terrs[i].name, sizeof t->terrs[i].name);
    for (int i = 0; i < w->n_rivers; i++)
        memcpy(t->rivers[i], w->rivers[i].name, sizeof t->rivers[i]);
}

bool atlas_world(const game_t *g)
{
    return g->c->world.n_syl[WSYL_vowels] > 0;
}

int atlas_need(game_t *g)
{
    if (g->atlas.t || !atlas_world(g))
        return 0;
    char err[96];
    worldmap_t *w = worldmap_new(g->c, g->seed, err, sizeof err);
    if (!w)
        return -1;
    atlas_table_t *t = gcalloc(&g->al, 1, sizeof *t);
    int ret = t ? 0 : -1;
    if (t) {
        rng_t r;
        rng_seed(&r, rng_hash2(g->seed, ATLAS_SALT), 7);
        copy_world(w, t);
        territory_hops(w, t);
        territory_branches(g, w, t, &r);
        ret = atlas_roads(w, t, NULL) < 0 || water_links(w, t) < 0 ? -1 : 0;
    }
    worldmap_free(w);
    if (ret < 0)
        gfree(&g->al, t);
    else
        g->atlas.t = t;
    return ret;
}

void atlas_free(game_t *g)
{
    gfree(&g->al, g->atlas.t);
    g->atlas.t = NULL;
}

void atlas_save(const game_t *g, ser_t *s)
{
    ser_u32(s, g->atlas.steps);
    ser_u32(s, g->atlas.encounters);
    ser_u32(s, g->atlas.told);
}

void atlas_load(game_t *g, rd_t *in)
{
    g->atlas.steps = rd_u32(in);
    g->atlas.encounters = rd_u32(in);
    g->atlas.told = rd_u32(in);
    if (g->atlas.encounters > g->atlas.steps || (g->atlas.told >> WORLD_TERR_MAX))
        rd_fail(in, "bad overland counts");
}
