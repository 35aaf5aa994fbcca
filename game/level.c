/* level — one level's arrays, and its generation from the level's own seed. */
#include <string.h>
#include "mapgen.h"
#include "world.h"

level_t *level_new(game_t *g, int w, int h, int depth)
{
    level_t *lv = gcalloc(&g->al, 1, sizeof *lv);
    if (!lv) return NULL;
    lv->w = (int16_t)w;
    lv->h = (int16_t)h;
    lv->depth = (int16_t)depth;
    size_t n = (size_t)w * (size_t)h;
    lv->terrain = gcalloc(&g->al, n, 1);
    lv->seen = gcalloc(&g->al, n, 1);
    lv->vis = gcalloc(&g->al, n, 1);
    lv->opaque = gcalloc(&g->al, n, 1);
    if (!lv->terrain || !lv->seen || !lv->vis || !lv->opaque) {
        level_free(g, lv);
        return NULL;
    }
    lv->down_x = lv->down_y = -1;
    return lv;
}

void level_free(game_t *g, level_t *lv)
{
    if (!lv) return;
    gfree(&g->al, lv->terrain);
    gfree(&g->al, lv->seen);
    gfree(&g->al, lv->vis);
    gfree(&g->al, lv->opaque);
    gfree(&g->al, lv);
}

bool level_in(const level_t *lv, int x, int y) { return x >= 0 && y >= 0 && x < lv->w && y < lv->h; }

uint8_t level_terrain(const level_t *lv, int x, int y)
{
    return level_in(lv, x, y) ? lv->terrain[y * lv->w + x] : MAP_ROCK;
}

/* The level comes from mapgen, fed by the level's own stream, so a level
 * is the same whatever the player did before reaching it. mapgen's arrays
 * are scratch: the terrain is copied into the game's counted heap. */
int level_generate(game_t *g, level_t *lv)
{
    rng_seed(&lv->gen, rng_hash2(g->seed, (uint64_t)lv->depth), 1);
    mapgen_level_t *m = mapgen_level_new(lv->w, lv->h);
    if (!m) return -1;
    mapgen_params_t p = {.w = lv->w, .h = lv->h, .depth = lv->depth, .bottom = lv->depth >= WORLD_MAX_DEPTH};
    int r = mapgen_generate(m, &p, &lv->gen, NULL, 0);
    if (r == 0) {
        memcpy(lv->terrain, m->terrain, (size_t)lv->w * (size_t)lv->h);
        lv->up_x = (int16_t)m->up_x;
        lv->up_y = (int16_t)m->up_y;
        lv->down_x = (int16_t)m->down_x;
        lv->down_y = (int16_t)m->down_y;
    }
    mapgen_level_free(m);
    return r == 0 ? 0 : -1;
}
