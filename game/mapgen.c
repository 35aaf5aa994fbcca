/* mapgen — dungeon levels and the town from a seed.
 *
 * Order of work for a dungeon level:
 *   1. a jittered grid; each grid cell gets a room shape, a cave, a vault or
 *      nothing (a corridor junction); each feature is walled as it is made;
 *   2. corridors along a random spanning tree of the grid plus a few loops;
 *   3. flood fill: every passable area not joined to the largest one is
 *      joined by the shortest dig;
 *   4. dead-end corridors are trimmed, walls grown around every open cell,
 *      doors that do not sit in a wall are turned to floor;
 *   5. stairs: up on a room floor, down on the farthest room floors.
 * Connectivity is 4-way, so it also holds for 8-way movement. */
#include "mapgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VAULT_MAX_W 40
#define VAULT_MAX_H 24
#define GRID_CELL_W 20
#define GRID_CELL_H 12
#define NO_TERRAIN  255

/* ---- terrain and shape tables --------------------------------------------- */

typedef struct {
    uint8_t passable, opaque;
    char glyph;
} terrain_info_t;

static const terrain_info_t terrain_info[MAP_TERRAIN_COUNT] = {
    [MAP_ROCK] = {0, 1, ' '},        [MAP_WALL] = {0, 1, '#'},
    [MAP_FLOOR] = {1, 0, '.'},       [MAP_CORRIDOR] = {1, 0, ','},
    [MAP_DOOR_CLOSED] = {1, 1, '+'}, [MAP_DOOR_OPEN] = {1, 0, '\''},
    [MAP_STAIRS_UP] = {1, 0, '<'},   [MAP_STAIRS_DOWN] = {1, 0, '>'},
    [MAP_WATER] = {1, 0, '~'},       [MAP_DEEP_WATER] = {0, 0, 'W'},
    [MAP_GRASS] = {1, 0, '"'},       [MAP_TREE] = {0, 1, 'T'},
    [MAP_RUBBLE] = {1, 1, ':'},      [MAP_DOOR_LOCKED] = {0, 1, '+'},
    [MAP_DOOR_SECRET] = {0, 1, '#'}, [MAP_DOOR_BROKEN] = {1, 0, '\''},
    [MAP_LAVA] = {0, 0, '='},        [MAP_CHASM] = {0, 0, '0'},
    [MAP_GATE] = {1, 0, '<'},        [MAP_SEA] = {0, 0, '~'},
    [MAP_LAKE] = {0, 0, '~'},        [MAP_SEA_LANE] = {0, 0, '~'},
    [MAP_PLAINS] = {1, 0, '"'},      [MAP_HILLS] = {1, 0, '^'},
    [MAP_RIVER] = {1, 0, '='},       [MAP_ROAD] = {1, 0, '.'},
    [MAP_TOWN] = {1, 0, '*'},        [MAP_ENTRANCE] = {1, 0, '>'},
};

static const char *const shape_names[SHAPE_COUNT] = {
    "rect", "octagon", "cross", "circle", "pillared", "overlap",
    "cave", "rough",   "vault", "town",   "building",
};

int mapgen_passable(uint8_t t)
{
    return t < MAP_TERRAIN_COUNT && terrain_info[t].passable;
}

int mapgen_opaque(uint8_t t)
{
    return t >= MAP_TERRAIN_COUNT || terrain_info[t].opaque;
}

char mapgen_terrain_glyph(uint8_t t)
{
    return t < MAP_TERRAIN_COUNT ? terrain_info[t].glyph : '?';
}

const char *mapgen_shape_name(uint8_t s)
{
    return s < SHAPE_COUNT ? shape_names[s] : "?";
}

/* ---- built-in content ------------------------------------------------------- */

#define SH(s) (1u << (s))
#define ROOMS                                                                  \
    (SH(SHAPE_RECT) | SH(SHAPE_OCTAGON) | SH(SHAPE_CROSS) | SH(SHAPE_CIRCLE) | \
     SH(SHAPE_PILLARED) | SH(SHAPE_OVERLAP))
#define CAVES (SH(SHAPE_CAVE_LIFE) | SH(SHAPE_CAVE_ROUGH))

static const mapgen_region_type_t default_rtypes[] = {
    {"the town of Burrowmouth", 0, 0, 1, SH(SHAPE_TOWN), 1},
    {"a cottage", 0, 0, 4, SH(SHAPE_BUILDING), 1},
    {"the general store", 0, 0, 1, SH(SHAPE_BUILDING), 1},
    {"the temple", 0, 0, 1, SH(SHAPE_BUILDING), 1},
    {"a dusty room", 1, 20, 10, ROOMS, -1},
    {"a guard room", 2, 14, 5, SH(SHAPE_RECT) | SH(SHAPE_OCTAGON) | SH(SHAPE_CROSS), -1},
    {"a pillared hall", 1, 20, 8, SH(SHAPE_PILLARED), -1},
    {"a flooded hall", 3, 20, 4, SH(SHAPE_RECT) | SH(SHAPE_OVERLAP) | SH(SHAPE_PILLARED), 0},
    {"a shrine", 4, 20, 3, SH(SHAPE_CIRCLE) | SH(SHAPE_OCTAGON) | SH(SHAPE_CROSS), 1},
    {"a dark crypt", 10, 20, 5, ROOMS, 0},
    {"a hall of the old kings", 12, 20, 3, SH(SHAPE_PILLARED) | SH(SHAPE_OVERLAP), 1},
    {"a kobold warren", 1, 8, 8, CAVES, 0},
    {"a bat roost", 3, 15, 3, CAVES, 0},
    {"a fungus grotto", 5, 20, 6, CAVES, -1},
    {"a collapsed tunnel", 1, 20, 4, SH(SHAPE_CAVE_ROUGH), 0},
    {"a forgotten vault", 1, 20, 5, SH(SHAPE_VAULT), -1},
};

/* Spots: digits for monsters, letters for treasure (the engine decides). */
static const mapgen_vault_t default_vaults[] = {
    {"closet of treasures",
     "#######\n"
     "#a...b#\n"
     "#.###.#\n"
     "#.#c#.#\n"
     "#.#+#.#\n"
     "#..1..#\n"
     "###+###",
     NULL, 1, 20, 10},
    {"pillared shrine",
     "  #####  \n"
     " ##...## \n"
     "##.#.#.##\n"
     "+...1...+\n"
     "##.#a#.##\n"
     " ##...## \n"
     "  ##+##  ",
     NULL, 2, 20, 8},
    {"moated keep",
     "WWWWWWWWWWWWW\n"
     "W###########W\n"
     "W#2.......3#W\n"
     "W#...a.b...#W\n"
     "W#####+#####W\n"
     "WWWWWW~WWWWWW",
     NULL, 4, 20, 5},
    {"kobold den",
     "  ####### \n"
     " ##1...2##\n"
     "##..:..:.#\n"
     "+...3.K..+\n"
     "##..:....#\n"
     " ###...###\n"
     "   ##+##  ",
     "K.", 1, 9, 8},
    {"flooded cell block",
     "###########\n"
     "#1#2#3#4#5#\n"
     "#+#+#+#+#+#\n"
     "+~~~~~~~~~+\n"
     "#+#+#+#+#+#\n"
     "#a#.#b#.#c#\n"
     "###########",
     NULL, 6, 20, 4},
};

const mapgen_vault_t *mapgen_default_vaults(int *n)
{
    if (n)
        *n = (int)(sizeof default_vaults / sizeof default_vaults[0]);
    return default_vaults;
}

static const mapgen_region_type_t *mapgen_default_region_types(int *n)
{
    if (n)
        *n = (int)(sizeof default_rtypes / sizeof default_rtypes[0]);
    return default_rtypes;
}

/* ---- vault prefabs ------------------------------------------------------------ */

static uint8_t glyph_terrain(char c)
{
    switch (c) {
    case '#': return MAP_WALL;
    case '.': return MAP_FLOOR;
    case '+': return MAP_DOOR_CLOSED;
    case '\'': return MAP_DOOR_OPEN;
    case '~': return MAP_WATER;
    case 'W': return MAP_DEEP_WATER;
    case ':': return MAP_RUBBLE;
    default: return NO_TERRAIN;
    }
}

static int is_spot_glyph(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
}

/* The terrain a vault glyph makes; NO_TERRAIN for ' ' and unknown glyphs. */
static uint8_t vault_glyph_terrain(const mapgen_vault_t *v, char c, int *spot)
{
    *spot = 0;
    if (v->legend)
        for (const char *l = v->legend; l[0] && l[1]; l += 2)
            if (l[0] == c) {
                *spot = 1;
                return glyph_terrain(l[1]);
            }
    if (is_spot_glyph(c)) {
        *spot = 1;
        return MAP_FLOOR;
    }
    return glyph_terrain(c);
}

/* Measures the rows: 0 with *vw, *vh, or -1 when ragged, empty or too big. */
static int vault_size(const mapgen_vault_t *v, int *vw, int *vh)
{
    if (!v || !v->rows || !v->rows[0])
        return -1;
    int w = -1, h = 0, len = 0;
    for (const char *s = v->rows;; s++) {
        if (*s == '\n' || *s == 0) {
            /* trailing spaces may be left off: rows pad with spaces */
            if (len > w)
                w = len;
            h++;
            len = 0;
            if (*s == 0)
                break;
        } else {
            len++;
        }
    }
    if (w <= 0 || w > VAULT_MAX_W || h > VAULT_MAX_H)
        return -1;
    *vw = w;
    *vh = h;
    return 0;
}

/* Unpacks rows into a w*h grid padded with spaces. */
static void vault_grid(const mapgen_vault_t *v, int vw, char *grid)
{
    int x = 0, y = 0;
    memset(grid, ' ', (size_t)vw * VAULT_MAX_H);
    for (const char *s = v->rows; *s; s++) {
        if (*s == '\n') {
            y++;
            x = 0;
        } else {
            grid[y * vw + x++] = *s;
        }
    }
}

/* Where source cell (sx, sy) lands under orientation o. */
static void vault_xform(int vw, int vh, int o, int sx, int sy, int *dx, int *dy)
{
    int x = (o & 1) ? vw - 1 - sx : sx, y = sy, w = vw, h = vh;
    for (int r = (o >> 1) & 3; r > 0; r--) {
        int nx = h - 1 - y; /* clockwise: the top row becomes the right column */
        y = x;
        x = nx;
        int t = w;
        w = h;
        h = t;
    }
    *dx = x;
    *dy = y;
}

/* Transformed grid into out (dw*dh chars); returns 0 or -1. */
static int vault_oriented(const mapgen_vault_t *v, int o, char *out, int *dw, int *dh)
{
    int vw, vh;
    char src[VAULT_MAX_W * VAULT_MAX_H];
    if (vault_size(v, &vw, &vh) < 0)
        return -1;
    vault_grid(v, vw, src);
    *dw = (o & 2) ? vh : vw;
    *dh = (o & 2) ? vw : vh;
    for (int y = 0; y < vh; y++)
        for (int x = 0; x < vw; x++) {
            int dx, dy;
            vault_xform(vw, vh, o, x, y, &dx, &dy);
            out[dy * *dw + dx] = src[y * vw + x];
        }
    return 0;
}

static void set_err(char *err, size_t errlen, const char *what, const char *name)
{
    if (err && errlen)
        snprintf(err, errlen, "%s%s%s", name ? name : "", name ? ": " : "", what);
}

int mapgen_vault_check(const mapgen_vault_t *v, char *err, size_t errlen)
{
    int vw, vh, spot, open = 0;
    if (!v || !v->name)
        return set_err(err, errlen, "vault without a name", NULL), -1;
    if (vault_size(v, &vw, &vh) < 0)
        return set_err(err, errlen, "rows empty or larger than 40x24", v->name), -1;
    if (v->weight < 0 || v->min_depth < 1 || v->max_depth < v->min_depth)
        return set_err(err, errlen, "bad weight or depth range", v->name), -1;
    if (v->legend) {
        size_t n = strlen(v->legend);
        if (n % 2)
            return set_err(err, errlen, "legend must be glyph/terrain pairs", v->name), -1;
        for (size_t i = 0; i < n; i += 2)
            if (glyph_terrain(v->legend[i + 1]) == NO_TERRAIN || v->legend[i] == ' ')
                return set_err(err, errlen, "legend maps to an unknown terrain", v->name), -1;
    }
    for (const char *s = v->rows; *s; s++) {
        if (*s == '\n' || *s == ' ')
            continue;
        uint8_t t = vault_glyph_terrain(v, *s, &spot);
        if (t == NO_TERRAIN)
            return set_err(err, errlen, "unknown glyph in rows", v->name), -1;
        open += mapgen_passable(t);
    }
    if (!open)
        return set_err(err, errlen, "no open cell", v->name), -1;
    return 0;
}

/* ---- the generator state -------------------------------------------------------- */

typedef struct {
    int x0, y0, x1, y1; /* inclusive */
} box_t;

typedef struct {
    mapgen_level_t *lv;
    rng_t *rng;
    const mapgen_vault_t *vaults;
    int nvaults;
    const mapgen_region_type_t *rtypes;
    int nrtypes;
    const int *room_weights;
    int w, h, depth;
    int *queue;    /* w*h cells */
    int32_t *mark; /* w*h scratch: labels, distances, parents */
    uint8_t *tmp;  /* w*h scratch for cellular automata */
} gen_t;

static inline int idx(const gen_t *g, int x, int y)
{
    return y * g->w + x;
}

static inline uint8_t *cell(gen_t *g, int x, int y)
{
    return &g->lv->terrain[idx(g, x, y)];
}

static inline int inside(const gen_t *g, int x, int y)
{
    return x > 0 && y > 0 && x < g->w - 1 && y < g->h - 1;
}

static const int dir4[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};

static int pick_weighted(rng_t *r, const int *w, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += w[i] > 0 ? w[i] : 0;
    if (total <= 0)
        return -1;
    int v = (int)rng_below(r, (uint32_t)total);
    for (int i = 0; i < n; i++) {
        if (w[i] <= 0)
            continue;
        if (v < w[i])
            return i;
        v -= w[i];
    }
    return n - 1;
}

/* Region type for a new region by depth and shape; -1 when none fits. */
static int pick_region_type(gen_t *g, int shape)
{
    int w[64], map[64], n = 0;
    for (int i = 0; i < g->nrtypes && n < 64; i++) {
        const mapgen_region_type_t *t = &g->rtypes[i];
        if (g->depth < t->min_depth || g->depth > t->max_depth)
            continue;
        if (t->shapes && !(t->shapes & SH(shape)))
            continue;
        w[n] = t->weight;
        map[n++] = i;
    }
    int k = pick_weighted(g->rng, w, n);
    return k < 0 ? -1 : map[k];
}

static int region_lit(gen_t *g, int shape, int type)
{
    if (type >= 0 && g->rtypes[type].lit >= 0)
        return g->rtypes[type].lit;
    if (shape == SHAPE_TOWN || shape == SHAPE_BUILDING)
        return 1;
    if (shape == SHAPE_CAVE_LIFE || shape == SHAPE_CAVE_ROUGH)
        return rng_percent(g->rng, 20);
    return rng_percent(g->rng, 100 - g->depth * 4);
}

/* A new region: returns its id (index + 1), or 0 when the list is full. */
static int region_add(gen_t *g, int shape, box_t b, int vault, int orient)
{
    mapgen_level_t *lv = g->lv;
    if (lv->nregions >= MAPGEN_MAX_REGIONS)
        return 0;
    mapgen_region_t *r = &lv->regions[lv->nregions++];
    int type = pick_region_type(g, shape);
    *r = (mapgen_region_t){(uint8_t)shape,
                           (uint8_t)region_lit(g, shape, type),
                           (int16_t)type,
                           (int16_t)vault,
                           (int16_t)b.x0,
                           (int16_t)b.y0,
                           (int16_t)(b.x1 - b.x0 + 1),
                           (int16_t)(b.y1 - b.y0 + 1),
                           (uint8_t)orient};
    return lv->nregions;
}

static void put(gen_t *g, int x, int y, uint8_t t, int region)
{
    if (!inside(g, x, y))
        return;
    *cell(g, x, y) = t;
    g->lv->region[idx(g, x, y)] = (uint8_t)region;
}

/* Surrounds the open cells in box b (grown by one) with walls. */
static void wall_box(gen_t *g, box_t b)
{
    for (int y = b.y0 - 1; y <= b.y1 + 1; y++)
        for (int x = b.x0 - 1; x <= b.x1 + 1; x++) {
            if (!inside(g, x, y) || *cell(g, x, y) != MAP_ROCK)
                continue;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    uint8_t t = g->lv->terrain[idx(g, x + dx, y + dy)];
                    if (mapgen_passable(t) || t == MAP_DEEP_WATER) {
                        *cell(g, x, y) = MAP_WALL;
                        dx = dy = 2;
                    }
                }
        }
}

/* ---- room shapes: each decides per cell inside its box --------------------- */

typedef int (*shape_fn)(box_t b, int x, int y, int a);

static int in_rect(box_t b, int x, int y, int a)
{
    (void)b, (void)x, (void)y, (void)a;
    return 1;
}

static int in_octagon(box_t b, int x, int y, int cut)
{
    int dx = x - b.x0 < b.x1 - x ? x - b.x0 : b.x1 - x;
    int dy = y - b.y0 < b.y1 - y ? y - b.y0 : b.y1 - y;
    return dx + dy >= cut;
}

static int in_cross(box_t b, int x, int y, int a)
{
    int cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
    int hw = (b.x1 - b.x0 + 1) / 6 + 1, hh = (b.y1 - b.y0 + 1) / 6 + (a & 1);
    return (x >= cx - hw && x <= cx + hw) || (y >= cy - hh && y <= cy + hh);
}

static int in_circle(box_t b, int x, int y, int a)
{
    (void)a;
    int rx2 = b.x1 - b.x0, ry2 = b.y1 - b.y0; /* twice the radii */
    int dx = 2 * x - (b.x0 + b.x1), dy = 2 * y - (b.y0 + b.y1);
    /* ellipse (dx/rx2)^2 + (dy/ry2)^2 <= 1, in integers, a little generous */
    return (int64_t)dx * dx * ry2 * ry2 + (int64_t)dy * dy * rx2 * rx2 <=
           (int64_t)rx2 * rx2 * ry2 * ry2 + (int64_t)rx2 * ry2 * (rx2 + ry2) / 2;
}

static const shape_fn shape_fns[] = {
    [SHAPE_RECT] = in_rect,     [SHAPE_OCTAGON] = in_octagon, [SHAPE_CROSS] = in_cross,
    [SHAPE_CIRCLE] = in_circle, [SHAPE_PILLARED] = in_rect,   [SHAPE_OVERLAP] = in_rect,
};

static void carve_shape(gen_t *g, int shape, box_t b, int a, int region)
{
    for (int y = b.y0; y <= b.y1; y++)
        for (int x = b.x0; x <= b.x1; x++)
            if (shape_fns[shape](b, x, y, a))
                put(g, x, y, MAP_FLOOR, region);
}

/* A random sub-box of at least mw x mh inside b (b must be big enough). */
static box_t sub_box(rng_t *r, box_t b, int mw, int mh, int maxw, int maxh)
{
    int bw = b.x1 - b.x0 + 1, bh = b.y1 - b.y0 + 1;
    if (maxw > bw)
        maxw = bw;
    if (maxh > bh)
        maxh = bh;
    int w = rng_range(r, mw < maxw ? mw : maxw, maxw),
        h = rng_range(r, mh < maxh ? mh : maxh, maxh);
    int x = b.x0 + (int)rng_below(r, (uint32_t)(bw - w + 1));
    int y = b.y0 + (int)rng_below(r, (uint32_t)(bh - h + 1));
    return (box_t){x, y, x + w - 1, y + h - 1};
}

static void add_pillars(gen_t *g, box_t b, int region)
{
    /* every other cell, one in from the walls: the aisles stay open */
    int sx = ((b.x1 - b.x0) % 2 == 0) ? 1 : 2;
    for (int y = b.y0 + 1; y < b.y1; y += 2)
        for (int x = b.x0 + sx; x < b.x1; x += 2)
            put(g, x, y, MAP_WALL, region);
}

static void add_pool(gen_t *g, box_t b, int region)
{
    box_t p = {b.x0 + 2, b.y0 + 2, b.x1 - 2, b.y1 - 2};
    if (p.x1 - p.x0 < 2 || p.y1 - p.y0 < 1)
        return;
    for (int y = p.y0; y <= p.y1; y++)
        for (int x = p.x0; x <= p.x1; x++) {
            if (!in_circle(p, x, y, 0))
                continue;
            int edge = x == p.x0 || x == p.x1 || y == p.y0 || y == p.y1;
            put(g, x, y, edge ? MAP_WATER : MAP_DEEP_WATER, region);
        }
}

static void room_make(gen_t *g, box_t area)
{
    static const int weights[] = {
        [SHAPE_RECT] = 30,   [SHAPE_OCTAGON] = 12,  [SHAPE_CROSS] = 12,
        [SHAPE_CIRCLE] = 10, [SHAPE_PILLARED] = 10, [SHAPE_OVERLAP] = 12,
    };
    int shape =
        pick_weighted(g->rng, g->room_weights ? g->room_weights : weights, SHAPE_OVERLAP + 1);
    if (shape < 0)
        shape = SHAPE_RECT;
    box_t b = sub_box(g->rng, area, 5, 4, 16, 9);
    int bw = b.x1 - b.x0 + 1, bh = b.y1 - b.y0 + 1;
    if ((shape == SHAPE_PILLARED && (bw < 7 || bh < 5)) || bw < 5 || bh < 5)
        shape = SHAPE_RECT;
    int region = region_add(g, shape, b, -1, 0);
    int a = shape == SHAPE_OCTAGON ? (bw < bh ? bw : bh) / 3 : (int)rng_below(g->rng, 2);
    if (shape == SHAPE_OVERLAP) {
        /* two rectangles sharing some cells: an L, T or plus */
        box_t one = sub_box(g->rng, b, bw / 2 + 1, 3, bw, bh / 2 + 1);
        box_t two = sub_box(g->rng, b, 3, bh / 2 + 1, bw / 2 + 1, bh);
        if (two.x0 > one.x1)
            two.x0 = one.x1;
        if (two.y0 > one.y1)
            two.y0 = one.y1;
        if (two.y1 < one.y0)
            two.y1 = one.y0;
        if (two.x1 < one.x0)
            two.x1 = one.x0;
        carve_shape(g, SHAPE_RECT, one, 0, region);
        carve_shape(g, SHAPE_RECT, two, 0, region);
    } else {
        carve_shape(g, shape, b, a, region);
    }
    if (shape == SHAPE_PILLARED)
        add_pillars(g, b, region);
    else if (shape == SHAPE_RECT && bw >= 8 && bh >= 6 && rng_percent(g->rng, 10 + g->depth))
        add_pool(g, b, region);
    wall_box(g, b);
}

/* ---- caves ------------------------------------------------------------------- */

/* Keeps the largest 4-connected open part inside b (region cells), fills the
 * rest back with rock. Returns its size. */
static int keep_largest(gen_t *g, box_t b, int region)
{
    int best = 0, best_label = 0, label = 0;
    for (int y = b.y0; y <= b.y1; y++)
        for (int x = b.x0; x <= b.x1; x++)
            g->mark[idx(g, x, y)] = 0;
    for (int y = b.y0; y <= b.y1; y++)
        for (int x = b.x0; x <= b.x1; x++) {
            int i = idx(g, x, y);
            if (g->mark[i] || g->lv->region[i] != region || !mapgen_passable(g->lv->terrain[i]))
                continue;
            int head = 0, tail = 0;
            g->mark[i] = ++label;
            g->queue[tail++] = i;
            while (head < tail) {
                int c = g->queue[head++], cx = c % g->w, cy = c / g->w;
                for (int d = 0; d < 4; d++) {
                    int nx = cx + dir4[d][0], ny = cy + dir4[d][1], n = idx(g, nx, ny);
                    if (nx < b.x0 || ny < b.y0 || nx > b.x1 || ny > b.y1)
                        continue;
                    if (g->mark[n] || g->lv->region[n] != region ||
                        !mapgen_passable(g->lv->terrain[n]))
                        continue;
                    g->mark[n] = label;
                    g->queue[tail++] = n;
                }
            }
            if (tail > best)
                best = tail, best_label = label;
        }
    for (int y = b.y0; y <= b.y1; y++)
        for (int x = b.x0; x <= b.x1; x++) {
            int i = idx(g, x, y);
            if (g->lv->region[i] == region && g->mark[i] != best_label)
                put(g, x, y, MAP_ROCK, 0);
        }
    return best;
}

/* Cellular "life" cave: random fill, then the 4-5 rule a few times. */
static void cave_life(gen_t *g, box_t b, int region)
{
    int bw = b.x1 - b.x0 + 1, bh = b.y1 - b.y0 + 1;
    uint8_t *cur = g->tmp, *next = g->tmp + bw * bh;
    for (int i = 0; i < bw * bh; i++)
        cur[i] = (uint8_t)rng_percent(g->rng, 44);
    for (int it = 0; it < 4; it++) {
        for (int y = 0; y < bh; y++)
            for (int x = 0; x < bw; x++) {
                int walls = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int nx = x + dx, ny = y + dy;
                        walls += (nx < 0 || ny < 0 || nx >= bw || ny >= bh) ? 1 : cur[ny * bw + nx];
                    }
                next[y * bw + x] = walls >= 5;
            }
        uint8_t *t = cur;
        cur = next;
        next = t;
    }
    for (int y = 0; y < bh; y++)
        for (int x = 0; x < bw; x++)
            if (!cur[y * bw + x])
                put(g, b.x0 + x, b.y0 + y, MAP_FLOOR, region);
}

/* Rough cave: a drunkard's walk from the middle. */
static void cave_rough(gen_t *g, box_t b, int region)
{
    int x = (b.x0 + b.x1) / 2, y = (b.y0 + b.y1) / 2;
    int steps = (b.x1 - b.x0 + 1) * (b.y1 - b.y0 + 1) * 2 / 3;
    for (int i = 0; i < steps; i++) {
        put(g, x, y, MAP_FLOOR, region);
        const int *d = dir4[rng_below(g->rng, 4)];
        if (x + d[0] >= b.x0 && x + d[0] <= b.x1)
            x += d[0];
        if (y + d[1] >= b.y0 && y + d[1] <= b.y1)
            y += d[1];
    }
}

static void cave_make(gen_t *g, box_t area, int rough)
{
    box_t b = sub_box(g->rng, area, 10, 7, 30, 14);
    int region = region_add(g, rough ? SHAPE_CAVE_ROUGH : SHAPE_CAVE_LIFE, b, -1, 0);
    if (rough)
        cave_rough(g, b, region);
    else
        cave_life(g, b, region);
    if (keep_largest(g, b, region) < 8) {
        /* too little cave: a plain room instead, same region */
        mapgen_region_t *reg = &g->lv->regions[region - 1];
        reg->shape = SHAPE_RECT;
        reg->type = (int16_t)pick_region_type(g, SHAPE_RECT);
        reg->lit = (uint8_t)region_lit(g, SHAPE_RECT, reg->type);
        box_t r = sub_box(g->rng, b, 4, 3, 6, 4);
        carve_shape(g, SHAPE_RECT, r, 0, region);
    }
    wall_box(g, b);
}

/* ---- vaults in the level ---------------------------------------------------- */

static int vault_pick(gen_t *g)
{
    int w[64], map[64], n = 0;
    for (int i = 0; i < g->nvaults && n < 64; i++) {
        const mapgen_vault_t *v = &g->vaults[i];
        if (g->depth < v->min_depth || g->depth > v->max_depth)
            continue;
        w[n] = v->weight;
        map[n++] = i;
    }
    int k = pick_weighted(g->rng, w, n);
    return k < 0 ? -1 : map[k];
}

static void spot_add(gen_t *g, int x, int y, char c, int region)
{
    mapgen_level_t *lv = g->lv;
    if (lv->nspots >= MAPGEN_MAX_SPOTS)
        return;
    lv->spots[lv->nspots++] = (mapgen_spot_t){(int16_t)x, (int16_t)y, c, (uint8_t)(region - 1)};
}

/* Places a vault in area; returns 0, or -1 when none fits (caller makes a room). */
static int vault_make(gen_t *g, box_t area)
{
    int vi = vault_pick(g);
    if (vi < 0)
        return -1;
    const mapgen_vault_t *v = &g->vaults[vi];
    int o = (int)rng_below(g->rng, 8), dw, dh;
    char grid[VAULT_MAX_W * VAULT_MAX_H];
    if (vault_oriented(v, o, grid, &dw, &dh) < 0)
        return -1;
    int aw = area.x1 - area.x0 + 1, ah = area.y1 - area.y0 + 1;
    if (dw > aw || dh > ah) {
        o ^= 2; /* turned a quarter it may fit */
        if (vault_oriented(v, o, grid, &dw, &dh) < 0 || dw > aw || dh > ah)
            return -1;
    }
    int x0 = area.x0 + (int)rng_below(g->rng, (uint32_t)(aw - dw + 1));
    int y0 = area.y0 + (int)rng_below(g->rng, (uint32_t)(ah - dh + 1));
    box_t b = {x0, y0, x0 + dw - 1, y0 + dh - 1};
    int region = region_add(g, SHAPE_VAULT, b, vi, o);
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++) {
            int spot;
            char c = grid[y * dw + x];
            uint8_t t = vault_glyph_terrain(v, c, &spot);
            if (t == NO_TERRAIN)
                continue;
            put(g, x0 + x, y0 + y, t, region);
            if (spot)
                spot_add(g, x0 + x, y0 + y, c, region);
        }
    wall_box(g, b);
    return 0;
}

/* ---- the grid and its corridors ------------------------------------------------ */

enum { FEAT_ROOM, FEAT_LIFE, FEAT_ROUGH, FEAT_VAULT, FEAT_NONE };

/* The open cell nearest the middle of b, or the middle itself. */
static int anchor_of(gen_t *g, box_t b)
{
    int cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2, best = -1, bestd = 1 << 30;
    for (int y = b.y0; y <= b.y1; y++)
        for (int x = b.x0; x <= b.x1; x++) {
            if (!mapgen_passable(*cell(g, x, y)))
                continue;
            int d = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            if (d < bestd)
                bestd = d, best = idx(g, x, y);
        }
    return best >= 0 ? best : idx(g, cx, cy);
}

static void feature_make(gen_t *g, box_t area)
{
    int d = g->depth;
    if (g->lv->nregions >= MAPGEN_MAX_REGIONS)
        return; /* full: a junction instead */
    int w[] = {[FEAT_ROOM] = 60 - d,
               [FEAT_LIFE] = 8 + d / 2,
               [FEAT_ROUGH] = 6 + d / 2,
               [FEAT_VAULT] = 7 + d / 4,
               [FEAT_NONE] = 8};
    switch (pick_weighted(g->rng, w, FEAT_NONE + 1)) {
    case FEAT_LIFE: cave_make(g, area, 0); break;
    case FEAT_ROUGH: cave_make(g, area, 1); break;
    case FEAT_VAULT:
        if (vault_make(g, area) < 0)
            room_make(g, area);
        break;
    case FEAT_NONE: break;
    default: room_make(g, area); break;
    }
}

static void dig_cell(gen_t *g, int x, int y)
{
    if (!inside(g, x, y))
        return;
    uint8_t *t = cell(g, x, y);
    if (*t == MAP_ROCK || *t == MAP_TREE)
        *t = g->depth ? MAP_CORRIDOR : MAP_GRASS;
    else if (*t == MAP_WALL)
        *t = rng_percent(g->rng, 70) ? MAP_DOOR_CLOSED : MAP_DOOR_OPEN;
    else if (*t == MAP_DEEP_WATER)
        *t = MAP_WATER;
}

/* Walks straight legs through the waypoints (x, y pairs). With dig it
 * digs them; without, it returns the cost: wall cells crossed (running
 * along a room's wall is what makes a corridor ugly) weigh much more than
 * cells of rock. */
static int corridor_walk(gen_t *g, const int *pts, int npts, int dig)
{
    int x = pts[0], y = pts[1], cost = 0;
    for (int i = 1; i < npts; i++) {
        int tx = pts[2 * i], ty = pts[2 * i + 1];
        while (x != tx || y != ty) {
            if (dig)
                dig_cell(g, x, y);
            else
                cost += *cell(g, x, y) == MAP_WALL ? 8 : 1;
            if (x != tx)
                x += tx > x ? 1 : -1;
            else
                y += ty > y ? 1 : -1;
        }
    }
    if (dig)
        dig_cell(g, x, y);
    return cost;
}

/* A corridor from cell a to cell b: the cheapest of two L shapes and two
 * Z shapes (ties go to the first in a random order). */
static void dig_corridor(gen_t *g, int a, int b)
{
    int ax = a % g->w, ay = a / g->w, bx = b % g->w, by = b / g->w;
    int mx = (ax + bx) / 2, my = (ay + by) / 2;
    const int paths[4][8] = {
        {ax, ay, bx, ay, bx, by, bx, by},
        {ax, ay, ax, by, bx, by, bx, by},
        {ax, ay, mx, ay, mx, by, bx, by},
        {ax, ay, ax, my, bx, my, bx, by},
    };
    int first = (int)rng_below(g->rng, 4), best = first, best_cost = 1 << 30;
    for (int k = 0; k < 4; k++) {
        int i = (first + k) % 4, c = corridor_walk(g, paths[i], 4, 0);
        if (c < best_cost)
            best_cost = c, best = i;
    }
    corridor_walk(g, paths[best], 4, 1);
}

static int uf_find(int *p, int i)
{
    while (p[i] != i)
        i = p[i] = p[p[i]];
    return i;
}

/* Corridors along a random spanning tree of the grid, plus some loops. */
static void grid_connect(gen_t *g, const int *anchor, int gw, int gh)
{
    int edges[2 * 16 * 16][2], ne = 0, parent[16 * 16];
    for (int i = 0; i < gw * gh; i++)
        parent[i] = i;
    for (int y = 0; y < gh; y++)
        for (int x = 0; x < gw; x++) {
            if (x + 1 < gw)
                edges[ne][0] = y * gw + x, edges[ne++][1] = y * gw + x + 1;
            if (y + 1 < gh)
                edges[ne][0] = y * gw + x, edges[ne++][1] = (y + 1) * gw + x;
        }
    for (int i = ne - 1; i > 0; i--) { /* shuffle */
        int j = (int)rng_below(g->rng, (uint32_t)(i + 1)), a = edges[i][0], b = edges[i][1];
        edges[i][0] = edges[j][0], edges[i][1] = edges[j][1];
        edges[j][0] = a, edges[j][1] = b;
    }
    for (int i = 0; i < ne; i++) {
        int ra = uf_find(parent, edges[i][0]), rb = uf_find(parent, edges[i][1]);
        if (ra != rb)
            parent[ra] = rb;
        else if (!rng_percent(g->rng, 20))
            continue;
        dig_corridor(g, anchor[edges[i][0]], anchor[edges[i][1]]);
    }
}

static void dungeon_layout(gen_t *g)
{
    int gw = (g->w - 2) / GRID_CELL_W, gh = (g->h - 2) / GRID_CELL_H, anchor[16 * 16];
    if (gw < 3)
        gw = 3; /* small maps get small cells rather than few */
    if (gh < 2)
        gh = 2;
    if (gw > 16)
        gw = 16;
    if (gh > 16)
        gh = 16;
    for (int j = 0; j < gh; j++)
        for (int i = 0; i < gw; i++) {
            box_t cellb = {1 + i * (g->w - 2) / gw, 1 + j * (g->h - 2) / gh,
                           (i + 1) * (g->w - 2) / gw, (j + 1) * (g->h - 2) / gh};
            box_t area = {cellb.x0 + 1, cellb.y0 + 1, cellb.x1 - 1, cellb.y1 - 1};
            int before = g->lv->nregions;
            feature_make(g, area);
            if (g->lv->nregions > before) {
                const mapgen_region_t *r = &g->lv->regions[before];
                anchor[j * gw + i] =
                    anchor_of(g, (box_t){r->x, r->y, r->x + r->w - 1, r->y + r->h - 1});
            } else {
                /* an empty cell: a corridor junction somewhere inside */
                int x = rng_range(g->rng, area.x0, area.x1),
                    y = rng_range(g->rng, area.y0, area.y1);
                anchor[j * gw + i] = idx(g, x, y);
                dig_cell(g, x, y);
            }
        }
    grid_connect(g, anchor, gw, gh);
}

/* ---- connectivity ------------------------------------------------------------ */

/* Labels 4-connected passable areas in g->mark (0 = not passable); returns
 * the label of the largest, and the number of labels in *n. */
static int label_areas(gen_t *g, int *n)
{
    int label = 0, best = 0, best_size = 0, cells = g->w * g->h;
    for (int i = 0; i < cells; i++)
        g->mark[i] = 0;
    for (int i = 0; i < cells; i++) {
        if (g->mark[i] || !mapgen_passable(g->lv->terrain[i]))
            continue;
        int head = 0, tail = 0;
        g->mark[i] = ++label;
        g->queue[tail++] = i;
        while (head < tail) {
            int c = g->queue[head++];
            for (int d = 0; d < 4; d++) {
                int nb = c + dir4[d][0] + dir4[d][1] * g->w;
                if (g->mark[nb] || !mapgen_passable(g->lv->terrain[nb]))
                    continue;
                g->mark[nb] = label;
                g->queue[tail++] = nb;
            }
        }
        if (tail > best_size)
            best_size = tail, best = label;
    }
    *n = label;
    return best;
}

/* Digs the shortest way from area `from` to area `to` (labels in mark);
 * the dug cells and the area take the label `to`. */
static void join_area(gen_t *g, int from, int to, int32_t *parent)
{
    int cells = g->w * g->h, head = 0, tail = 0, hit = -1;
    for (int i = 0; i < cells; i++) {
        parent[i] = -2;
        if (g->mark[i] == from)
            parent[i] = -1, g->queue[tail++] = i;
    }
    while (head < tail && hit < 0) {
        int c = g->queue[head++], cx = c % g->w, cy = c / g->w;
        for (int d = 0; d < 4 && hit < 0; d++) {
            int nx = cx + dir4[d][0], ny = cy + dir4[d][1], nb = idx(g, nx, ny);
            if (!inside(g, nx, ny) || parent[nb] != -2)
                continue;
            parent[nb] = c;
            if (g->mark[nb] == to)
                hit = nb;
            else
                g->queue[tail++] = nb;
        }
    }
    if (hit < 0)
        return; /* cannot happen: the inside of the map is one piece */
    for (int c = parent[hit]; c >= 0 && g->mark[c] != from; c = parent[c]) {
        dig_cell(g, c % g->w, c / g->w);
        g->mark[c] = to;
    }
    for (int i = 0; i < cells; i++)
        if (g->mark[i] == from)
            g->mark[i] = to;
}

/* Joins every passable area to the largest one. Returns 0 or -3 (OOM). */
static int join_all(gen_t *g)
{
    int n, main_label = label_areas(g, &n);
    if (n <= 1)
        return 0;
    int32_t *parent = malloc(sizeof *parent * (size_t)(g->w * g->h));
    if (!parent)
        return -3;
    for (int l = 1; l <= n; l++)
        if (l != main_label)
            join_area(g, l, main_label, parent);
    free(parent);
    return 0;
}

static int open_degree(gen_t *g, int i)
{
    int n = 0;
    for (int d = 0; d < 4; d++)
        n += mapgen_passable(g->lv->terrain[i + dir4[d][0] + dir4[d][1] * g->w]);
    return n;
}

static int trimmable(gen_t *g, int i)
{
    uint8_t t = g->lv->terrain[i];
    return (t == MAP_CORRIDOR || t == MAP_DOOR_CLOSED || t == MAP_DOOR_OPEN) &&
           open_degree(g, i) <= 1;
}

/* Removing a cell with at most one open neighbour never splits an area. */
static void trim_dead_ends(gen_t *g)
{
    int tail = 0, cells = g->w * g->h;
    for (int i = 0; i < cells; i++)
        if (g->lv->terrain[i] != MAP_ROCK && trimmable(g, i))
            g->queue[tail++] = i;
    while (tail > 0) {
        int c = g->queue[--tail];
        if (!trimmable(g, c))
            continue;
        g->lv->terrain[c] = g->lv->terrain[c] == MAP_CORRIDOR ? MAP_ROCK : MAP_WALL;
        for (int d = 0; d < 4; d++) {
            int nb = c + dir4[d][0] + dir4[d][1] * g->w;
            if (trimmable(g, nb))
                g->queue[tail++] = nb;
        }
    }
}

/* Walls around every open cell (taking the region of a room next to it),
 * and doors that are not in a straight wall become floor. */
static void finish_walls(gen_t *g)
{
    mapgen_level_t *lv = g->lv;
    for (int y = 1; y < g->h - 1; y++)
        for (int x = 1; x < g->w - 1; x++) {
            int i = idx(g, x, y);
            uint8_t t = lv->terrain[i];
            if (t != MAP_ROCK && t != MAP_WALL)
                continue;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int n = i + dx + dy * g->w;
                    if (!mapgen_passable(lv->terrain[n]) && lv->terrain[n] != MAP_DEEP_WATER)
                        continue;
                    lv->terrain[i] = MAP_WALL;
                    if (!lv->region[i])
                        lv->region[i] = lv->region[n];
                }
        }
    for (int y = 1; y < g->h - 1; y++)
        for (int x = 1; x < g->w - 1; x++) {
            int i = idx(g, x, y);
            uint8_t t = lv->terrain[i];
            if (t != MAP_DOOR_CLOSED && t != MAP_DOOR_OPEN)
                continue;
            int n = mapgen_passable(lv->terrain[i - g->w]),
                s = mapgen_passable(lv->terrain[i + g->w]);
            int e = mapgen_passable(lv->terrain[i + 1]), w = mapgen_passable(lv->terrain[i - 1]);
            int in_wall = (n && s && !e && !w && lv->terrain[i + 1] == MAP_WALL &&
                           lv->terrain[i - 1] == MAP_WALL) ||
                          (e && w && !n && !s && lv->terrain[i - g->w] == MAP_WALL &&
                           lv->terrain[i + g->w] == MAP_WALL);
            if (!in_wall)
                lv->terrain[i] = lv->region[i] ? MAP_FLOOR : MAP_CORRIDOR;
        }
}

/* ---- stairs ---------------------------------------------------------------------- */

/* Path distances from cell start over passable cells into g->mark (-1 unreached). */
static void distances(gen_t *g, int start)
{
    int cells = g->w * g->h, head = 0, tail = 0;
    for (int i = 0; i < cells; i++)
        g->mark[i] = -1;
    g->mark[start] = 0;
    g->queue[tail++] = start;
    while (head < tail) {
        int c = g->queue[head++];
        for (int d = 0; d < 4; d++) {
            int nb = c + dir4[d][0] + dir4[d][1] * g->w;
            if (g->mark[nb] >= 0 || !mapgen_passable(g->lv->terrain[nb]))
                continue;
            g->mark[nb] = g->mark[c] + 1;
            g->queue[tail++] = nb;
        }
    }
}

/* A good stair cell: room floor, not in a vault, no door beside it. */
static int stair_ok(gen_t *g, int i)
{
    const mapgen_level_t *lv = g->lv;
    if (lv->terrain[i] != MAP_FLOOR || !lv->region[i])
        return 0;
    if (lv->regions[lv->region[i] - 1].shape == SHAPE_VAULT)
        return 0;
    for (int d = 0; d < 4; d++) {
        uint8_t t = lv->terrain[i + dir4[d][0] + dir4[d][1] * g->w];
        if (t == MAP_DOOR_CLOSED || t == MAP_DOOR_OPEN)
            return 0;
    }
    return 1;
}

/* The k-th cell (0-based, in reading order) meeting ok with mark >= min. */
static int nth_cell(gen_t *g, int k, int min, int need_ok)
{
    int cells = g->w * g->h;
    for (int i = 0; i < cells; i++) {
        if (need_ok ? !stair_ok(g, i) : !mapgen_passable(g->lv->terrain[i]))
            continue;
        if (g->mark[i] < min)
            continue;
        if (k-- == 0)
            return i;
    }
    return -1;
}

static int count_cells(gen_t *g, int min, int need_ok)
{
    int n = 0, cells = g->w * g->h;
    for (int i = 0; i < cells; i++)
        n += (need_ok ? stair_ok(g, i) : mapgen_passable(g->lv->terrain[i])) && g->mark[i] >= min;
    return n;
}

static void place_stairs(gen_t *g, int bottom)
{
    mapgen_level_t *lv = g->lv;
    int cells = g->w * g->h;
    for (int i = 0; i < cells; i++)
        g->mark[i] = 0;
    int need_ok = count_cells(g, 0, 1) > 0;
    int up = nth_cell(g, (int)rng_below(g->rng, (uint32_t)count_cells(g, 0, need_ok)), 0, need_ok);
    if (up < 0) { /* nothing open at all: make one cell */
        up = idx(g, g->w / 2, g->h / 2);
        lv->terrain[up] = MAP_FLOOR;
        finish_walls(g);
    }
    lv->terrain[up] = MAP_STAIRS_UP;
    lv->up_x = up % g->w, lv->up_y = up / g->w;
    if (bottom)
        return;
    distances(g, up);
    int far = 0;
    for (int i = 0; i < cells; i++)
        if (g->mark[i] > far && (need_ok ? stair_ok(g, i) : mapgen_passable(lv->terrain[i])))
            far = g->mark[i];
    int min = far * 4 / 5, n = count_cells(g, min, need_ok);
    int down = nth_cell(g, (int)rng_below(g->rng, (uint32_t)n), min, need_ok);
    if (down < 0 || down == up)
        return;
    lv->terrain[down] = MAP_STAIRS_DOWN;
    lv->down_x = down % g->w, lv->down_y = down / g->w;
}

/* ---- the town ------------------------------------------------------------------- */

#define TOWN_HOUSES_MIN 5

static int area_clear(gen_t *g, box_t b)
{
    for (int y = b.y0 - 2; y <= b.y1 + 2; y++)
        for (int x = b.x0 - 2; x <= b.x1 + 2; x++)
            if (!inside(g, x, y) || *cell(g, x, y) != MAP_GRASS || g->lv->region[idx(g, x, y)] != 1)
                return 0;
    return 1;
}

static int town_house(gen_t *g, int top)
{
    int bw = rng_range(g->rng, 7, 12), bh = rng_range(g->rng, 5, 7), mid = g->h / 2;
    for (int tries = 0; tries < 20; tries++) {
        int x = rng_range(g->rng, 3, g->w - 4 - bw);
        int y =
            top ? rng_range(g->rng, 3, mid - 2 - bh) : rng_range(g->rng, mid + 3, g->h - 4 - bh);
        box_t b = {x, y, x + bw - 1, y + bh - 1};
        if (y < 3 || !area_clear(g, b))
            continue;
        int region = region_add(g, SHAPE_BUILDING, b, -1, 0);
        for (int yy = b.y0; yy <= b.y1; yy++)
            for (int xx = b.x0; xx <= b.x1; xx++) {
                int edge = xx == b.x0 || xx == b.x1 || yy == b.y0 || yy == b.y1;
                put(g, xx, yy, edge ? MAP_WALL : MAP_FLOOR, region);
            }
        /* the door faces the road */
        put(g, rng_range(g->rng, b.x0 + 1, b.x1 - 1), top ? b.y1 : b.y0, MAP_DOOR_CLOSED, region);
        return 1;
    }
    return 0;
}

static void town_layout(gen_t *g)
{
    box_t all = {1, 1, g->w - 2, g->h - 2};
    int town = region_add(g, SHAPE_TOWN, all, -1, 0), mid = g->h / 2;
    for (int y = 0; y < g->h; y++)
        for (int x = 0; x < g->w; x++) { /* grass in a ring of trees, all under the sky */
            *cell(g, x, y) = inside(g, x, y) ? MAP_GRASS : MAP_TREE;
            g->lv->region[idx(g, x, y)] = (uint8_t)town;
        }
    /* the town's shops (content) take the first buildings: at least TOWN_HOUSES_MIN */
    int houses = rng_range(g->rng, 5, 8), built = 0;
    for (int i = 0; i < houses || (built < TOWN_HOUSES_MIN && i < 4 * houses); i++)
        built += town_house(g, i & 1);
    for (int y = 1; y < g->h - 1; y++)
        for (int x = 1; x < g->w - 1; x++)
            if (*cell(g, x, y) == MAP_GRASS && area_clear(g, (box_t){x, y, x, y}) &&
                rng_percent(g->rng, 4))
                *cell(g, x, y) = MAP_TREE;
    for (int x = 1; x < g->w - 1; x++)
        put(g, x, mid, MAP_FLOOR, town); /* the road */
    g->lv->up_x = 1, g->lv->up_y = mid;
    int dx = g->w * 3 / 4 + (int)rng_below(g->rng, (uint32_t)(g->w / 8));
    put(g, dx, mid, MAP_STAIRS_DOWN, town);
    g->lv->down_x = dx, g->lv->down_y = mid;
}

/* ---- levels ------------------------------------------------------------------- */

mapgen_level_t *mapgen_level_new(int w, int h)
{
    if (w == 0)
        w = MAPGEN_DEFAULT_W;
    if (h == 0)
        h = MAPGEN_DEFAULT_H;
    if (w < MAPGEN_MIN_W || h < MAPGEN_MIN_H || w > MAPGEN_MAX_W || h > MAPGEN_MAX_H)
        return NULL;
    mapgen_level_t *lv = calloc(1, sizeof *lv);
    if (!lv)
        return NULL;
    lv->w = w, lv->h = h;
    lv->terrain = calloc((size_t)(w * h), 1);
    lv->region = calloc((size_t)(w * h), 1);
    if (!lv->terrain || !lv->region) {
        mapgen_level_free(lv);
        return NULL;
    }
    return lv;
}

void mapgen_level_free(mapgen_level_t *lv)
{
    if (!lv)
        return;
    free(lv->terrain);
    free(lv->region);
    free(lv);
}

static int check_params(const mapgen_level_t *lv, const mapgen_params_t *p, char *err,
                        size_t errlen)
{
    int w = p->w ? p->w : MAPGEN_DEFAULT_W, h = p->h ? p->h : MAPGEN_DEFAULT_H;
    if (w != lv->w || h != lv->h)
        return set_err(err, errlen, "level size differs from params", NULL), -1;
    if (p->depth < 0 || p->depth > 99)
        return set_err(err, errlen, "depth out of range", NULL), -1;
    if ((p->vaults && p->nvaults < 0) || (p->rtypes && p->nrtypes < 0))
        return set_err(err, errlen, "negative content count", NULL), -1;
    for (int i = 0; p->vaults && i < p->nvaults; i++)
        if (mapgen_vault_check(&p->vaults[i], err, errlen) < 0)
            return -2;
    for (int i = 0; p->rtypes && i < p->nrtypes; i++) {
        const mapgen_region_type_t *t = &p->rtypes[i];
        if (!t->name || t->weight < 0 || t->max_depth < t->min_depth || t->lit < -1 || t->lit > 1)
            return set_err(err, errlen, "bad region type", t->name), -2;
    }
    return 0;
}

static void level_reset(mapgen_level_t *lv, int depth)
{
    size_t n = (size_t)(lv->w * lv->h);
    memset(lv->terrain, MAP_ROCK, n);
    memset(lv->region, 0, n);
    lv->depth = depth;
    lv->nregions = lv->nspots = 0;
    lv->up_x = lv->up_y = lv->down_x = lv->down_y = -1;
}

int mapgen_generate(mapgen_level_t *lv, const mapgen_params_t *p, rng_t *rng, char *err,
                    size_t errlen)
{
    if (!lv || !p || !rng)
        return set_err(err, errlen, "missing argument", NULL), -1;
    int ret = check_params(lv, p, err, errlen);
    if (ret < 0)
        return ret;
    gen_t g = {lv,    rng,   p->vaults, p->nvaults, p->rtypes, p->nrtypes, p->room_weights,
               lv->w, lv->h, p->depth,  0,          0,         0};
    if (!g.vaults)
        g.vaults = mapgen_default_vaults(&g.nvaults);
    if (!g.rtypes)
        g.rtypes = mapgen_default_region_types(&g.nrtypes);
    size_t cells = (size_t)(g.w * g.h);
    g.queue = malloc(sizeof *g.queue * cells * 2);
    g.mark = malloc(sizeof *g.mark * cells);
    g.tmp = malloc(cells * 2);
    if (!g.queue || !g.mark || !g.tmp) {
        ret = -3;
        set_err(err, errlen, "out of memory", NULL);
    } else {
        level_reset(lv, p->depth);
        if (p->depth == 0)
            town_layout(&g);
        else
            dungeon_layout(&g);
        ret = join_all(&g);
        if (ret == 0 && p->depth > 0) {
            trim_dead_ends(&g);
            finish_walls(&g);
            place_stairs(&g, p->bottom);
        }
        if (ret < 0)
            set_err(err, errlen, "out of memory", NULL);
    }
    free(g.queue);
    free(g.mark);
    free(g.tmp);
    return ret;
}

void mapgen_count_reachable(const mapgen_level_t *lv, int *open, int *reachable)
{
    int cells = lv->w * lv->h, n = 0, r = 0;
    for (int i = 0; i < cells; i++)
        n += mapgen_passable(lv->terrain[i]);
    int *queue = malloc(sizeof *queue * (size_t)cells);
    uint8_t *seen = calloc((size_t)cells, 1);
    if (queue && seen && lv->up_x >= 0 &&
        mapgen_passable(lv->terrain[lv->up_y * lv->w + lv->up_x])) {
        int head = 0, tail = 0, s = lv->up_y * lv->w + lv->up_x;
        seen[s] = 1;
        queue[tail++] = s;
        while (head < tail) {
            int c = queue[head++], cx = c % lv->w, cy = c / lv->w;
            for (int d = 0; d < 4; d++) {
                int nx = cx + dir4[d][0], ny = cy + dir4[d][1];
                if (nx < 0 || ny < 0 || nx >= lv->w || ny >= lv->h)
                    continue;
                int nb = ny * lv->w + nx;
                if (seen[nb] || !mapgen_passable(lv->terrain[nb]))
                    continue;
                seen[nb] = 1;
                queue[tail++] = nb;
            }
        }
        r = tail;
    }
    free(queue);
    free(seen);
    if (open)
        *open = n;
    if (reachable)
        *reachable = r;
}

void mapgen_fill_lit(const mapgen_level_t *lv, uint8_t *lit_out)
{
    int cells = lv->w * lv->h;
    for (int i = 0; i < cells; i++)
        lit_out[i] =
            lv->region[i] && lv->region[i] <= lv->nregions && lv->regions[lv->region[i] - 1].lit;
}

void mapgen_fill_opaque(const mapgen_level_t *lv, uint8_t *opaque_out)
{
    int cells = lv->w * lv->h;
    for (int i = 0; i < cells; i++)
        opaque_out[i] = (uint8_t)mapgen_opaque(lv->terrain[i]);
}
