/* level — one level of the Warren: its arrays and regions, its generation
 * from the level's own seed (the same whatever the player did before),
 * what stands on a cell, and the stairs between levels.
 *
 * Only the current level is live: level_live allocates its derived arrays
 * (vis, opaque, lit) and level_sleep drops them when the player leaves. */
#ifndef WARREN_LEVEL_H
#define WARREN_LEVEL_H
#include <stdbool.h>
#include <stdint.h>
#include "mapgen.h"
#include "world.h"

level_t *level_new(game_t *g, int w, int h, int depth); /* NULL on OOM */
void level_free(game_t *g, level_t *lv);
/* Terrain, regions and treasure from the level's streams: 0 or -1 (OOM). */
int level_generate(game_t *g, level_t *lv);
/* What mapgen gets for a level of this content (vaults, regions, rooms). */
mapgen_params_t level_params(const content_t *c, int w, int h, int depth);
/* Sets the region table to n entries (zeroed); 0 or -1 (OOM). */
int level_set_regions(game_t *g, level_t *lv, int n);
/* Allocates vis/opaque/lit (0 or -1) and opens the registry's map index
 * for it (obj.h); level_sleep closes it. */
int level_live(game_t *g, level_t *lv);
void level_sleep(game_t *g, level_t *lv);

/* The player's level; whether (x, y) is on lv; its terrain there (rock
 * outside); whether it is in view now. Inline: every turn asks them often. */
static inline level_t *level_current(game_t *g)
{
    return g->depth >= 0 && g->depth < LEVEL_IDS ? g->levels[g->depth] : NULL;
}

static inline bool level_in(const level_t *lv, int x, int y)
{
    return x >= 0 && y >= 0 && x < lv->w && y < lv->h;
}

static inline uint8_t level_terrain(const level_t *lv, int x, int y)
{
    return level_in(lv, x, y) ? lv->terrain[y * lv->w + x] : MAP_ROCK;
}

static inline bool level_visible(const level_t *lv, int x, int y)
{
    return lv && lv->vis && level_in(lv, x, y) && lv->vis[y * lv->w + x];
}

/* Marks of the rows the render compares (level_t.dirty): row y, rows
 * [y0, y1), every row; and whether row y is marked. Whatever writes
 * terrain or seen (or vis) marks the rows it wrote, or a kept frame
 * shows them stale. */
static inline void level_row_changed(level_t *lv, int y)
{
    if (y >= 0 && y < LEVEL_DIRTY_ROWS)
        lv->dirty |= 1ull << y;
}

static inline void level_rows_changed(level_t *lv, int y0, int y1)
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < LEVEL_DIRTY_ROWS; y++)
        lv->dirty |= 1ull << y;
}

static inline void level_all_changed(level_t *lv)
{
    lv->dirty = ~0ull;
}

static inline bool level_row_dirty(const level_t *lv, int y)
{
    return y >= LEVEL_DIRTY_ROWS || ((lv->dirty >> y) & 1);
}

/* The words a row of level_t.flips takes: a bit a cell. */
static inline size_t level_flip_words(const level_t *lv)
{
    return ((size_t)lv->w + 63) / 64;
}

/* Whether row y's vis changed since the render's last compare only in
 * the cells level_t.flips holds (the row is not marked). */
static inline bool level_row_flipped(const level_t *lv, int y)
{
    return y < LEVEL_DIRTY_ROWS && ((lv->flip_rows >> y) & 1) && !((lv->dirty >> y) & 1);
}

/* Row y's vis flipped in the cells x0 + j for each bit j of bits (two
 * words: 128 cells on the level from x0): recorded in level_t.flips, or
 * the row marked where flips cannot hold it. */
void level_vis_flipped(level_t *lv, int y, int x0, const uint64_t bits[2]);
/* The flips the render took (or need not take: the rows were compared
 * whole) forgotten: flips all zero, flip_rows 0. */
void level_flips_clear(level_t *lv);

/* level_t.sky made from the region bytes and kinds as they are now,
 * unless sky_ok (nothing to do on a level not live). */
void level_sky_ready(const game_t *g, level_t *lv);
/* The level's region bytes or its regions' kinds changed: level_t.sky
 * made again before its next read. */
static inline void level_regions_changed(level_t *lv)
{
    lv->sky_ok = 0;
}

/* Whether cell (x, y) of a level whose sky is ready lies under the sky. */
static inline bool level_sky_xy(const level_t *lv, int x, int y)
{
    const uint64_t *row = lv->sky + (size_t)y * level_flip_words(lv);
    return (row[x / 64] >> (x % 64)) & 1;
}

/* Bit j set where cell (x + j, y) lies under the sky, for the sixteen
 * cells from x on (on the level: the caller checks), of a level whose
 * sky is ready: a word or two read, not sixteen region bytes. */
static inline unsigned level_sky16(const level_t *lv, int x, int y)
{
    size_t nw = level_flip_words(lv);
    const uint64_t *row = lv->sky + (size_t)y * nw;
    size_t w = (size_t)x / 64, s = (size_t)x % 64;
    uint64_t b = row[w] >> s;
    if (s > 48 && w + 1 < nw)
        b |= row[w + 1] << (64 - s);
    return (unsigned)(b & 0xFFFFu);
}

/* Cells of level_t.sky that differ from the region bytes and kinds (a
 * check: 0 when it is right or not ready). */
long level_sky_wrong(const game_t *g, const level_t *lv);

/* Terrain t, or memory m, at level cell i, the row marked. */
static inline void level_set_terrain(level_t *lv, int i, uint8_t t)
{
    lv->terrain[i] = t;
    level_row_changed(lv, i / lv->w);
    if (t == MAP_DOOR_SECRET && i / lv->w < LEVEL_DIRTY_ROWS)
        lv->hidden_rows |= 1ull << (i / lv->w); /* a search looks at its row */
}

static inline void level_set_seen(level_t *lv, int i, uint8_t m)
{
    lv->seen[i] = m;
    level_row_changed(lv, i / lv->w);
}

bool level_passable(game_t *g, const level_t *lv, int x, int y);
bool level_walkable(game_t *g, const level_t *lv, int x, int y); /* passable or a closed door */
handle_t level_creature_at(game_t *g, int depth, int x, int y);  /* HANDLE_NONE: none */
/* The region kind at (x, y), or NULL (none, or content without regions). */
const region_kind_t *level_region_kind(const game_t *g, const level_t *lv, int x, int y);

/* The player takes the stairs here, or a way in or out of a town or a
 * dungeon on the overland (+1 down or in, -1 up or out): ticks spent, 0
 * refused (a message says why). */
int level_stairs(game_t *g, int dir);
/* The map of id nd (atlas.h), made (and peopled, a dungeon level) when
 * new; NULL on OOM or a bad id. */
level_t *level_make(game_t *g, int nd);
/* The player arrives on map nd (made when new) at (x, y): 0, or -1 (OOM). */
int level_arrive(game_t *g, int nd, int x, int y);
/* The player arrives on level nd (made when new) at its up stairs when
 * going down, its down stairs when going up: 0, or -1 (OOM). */
int level_enter(game_t *g, int nd);

#endif
