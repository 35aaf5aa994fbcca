/* level — one level's arrays, regions and generation, what stands on a
 * cell, and the stairs (see level.h). */
#include "level.h"
#include <string.h>
#include "creature.h"
#include "end.h"
#include "item.h"
#include "msg.h"
#include "status.h"
#include "trap.h"

level_t *level_new(game_t *g, int w, int h, int depth)
{
    level_t *lv = gcalloc(&g->al, 1, sizeof *lv);
    if (!lv)
        return NULL;
    lv->w = (int16_t)w;
    lv->h = (int16_t)h;
    lv->depth = (int16_t)depth;
    size_t n = (size_t)w * (size_t)h;
    lv->terrain = gcalloc(&g->al, n, 1);
    lv->seen = gcalloc(&g->al, n, 1);
    lv->region = gcalloc(&g->al, n, 1);
    lv->trap = gcalloc(&g->al, n, 1);
    if (!lv->terrain || !lv->seen || !lv->region || !lv->trap) {
        level_free(g, lv);
        return NULL;
    }
    lv->down_x = lv->down_y = -1;
    return lv;
}

void level_sleep(game_t *g, level_t *lv)
{
    if (!lv)
        return;
    gfree(&g->al, lv->vis);
    gfree(&g->al, lv->opaque);
    gfree(&g->al, lv->lit);
    lv->vis = lv->opaque = lv->lit = NULL;
    lv->opaque_ok = lv->fov_ok = 0;
}

int level_live(game_t *g, level_t *lv)
{
    if (lv->vis)
        return 0;
    size_t n = (size_t)lv->w * (size_t)lv->h;
    lv->vis = gcalloc(&g->al, n, 1);
    lv->opaque = gcalloc(&g->al, n, 1);
    lv->lit = gcalloc(&g->al, n, 1);
    if (!lv->vis || !lv->opaque || !lv->lit) {
        level_sleep(g, lv);
        return -1;
    }
    lv->opaque_ok = lv->fov_ok = 0;
    return 0;
}

void level_free(game_t *g, level_t *lv)
{
    if (!lv)
        return;
    level_sleep(g, lv);
    gfree(&g->al, lv->terrain);
    gfree(&g->al, lv->seen);
    gfree(&g->al, lv->region);
    gfree(&g->al, lv->trap);
    gfree(&g->al, lv->regions);
    gfree(&g->al, lv);
}

int level_set_regions(game_t *g, level_t *lv, int n)
{
    gfree(&g->al, lv->regions);
    lv->regions = n > 0 ? gcalloc(&g->al, (size_t)n, sizeof *lv->regions) : NULL;
    lv->nregions = lv->regions ? (uint16_t)n : 0;
    return n > 0 && !lv->regions ? -1 : 0;
}

bool level_in(const level_t *lv, int x, int y)
{
    return x >= 0 && y >= 0 && x < lv->w && y < lv->h;
}

bool level_visible(const level_t *lv, int x, int y)
{
    return lv && lv->vis && level_in(lv, x, y) && lv->vis[y * lv->w + x];
}

uint8_t level_terrain(const level_t *lv, int x, int y)
{
    return level_in(lv, x, y) ? lv->terrain[y * lv->w + x] : MAP_ROCK;
}

level_t *level_current(game_t *g)
{
    return g->depth >= 0 && g->depth <= WORLD_MAX_DEPTH ? g->levels[g->depth] : NULL;
}

bool level_passable(game_t *g, const level_t *lv, int x, int y)
{
    uint8_t t = level_terrain(lv, x, y);
    return t < g->c->n_terrain && (g->c->terrain[t].flags & TF_PASSABLE);
}

bool level_walkable(game_t *g, const level_t *lv, int x, int y)
{
    return level_passable(g, lv, x, y) || level_terrain(lv, x, y) == MAP_DOOR_CLOSED;
}

handle_t level_creature_at(game_t *g, int depth, int x, int y)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && o->depth == depth && o->x == x && o->y == y)
            return h;
    }
    return HANDLE_NONE;
}

const region_kind_t *level_region_kind(const game_t *g, const level_t *lv, int x, int y)
{
    if (!lv || !level_in(lv, x, y))
        return NULL;
    int r = lv->region[y * lv->w + x];
    if (r < 1 || r > lv->nregions)
        return NULL;
    int k = lv->regions[r - 1].kind;
    return k >= 0 && k < g->c->n_regions ? &g->c->regions[k] : NULL;
}

/* The level comes from mapgen, fed by the level's own stream, so a level
 * is the same whatever the player did before reaching it. mapgen's arrays
 * are scratch: terrain and regions are copied into the game's counted heap. */
mapgen_params_t level_params(const content_t *c, int w, int h, int depth)
{
    bool rooms = false;
    for (int i = 0; i < SHAPE_COUNT; i++)
        rooms |= c->room_weights[i] > 0;
    return (mapgen_params_t){.w = w,
                             .h = h,
                             .depth = depth,
                             .bottom = depth >= WORLD_MAX_DEPTH,
                             .vaults = c->vaults,
                             .nvaults = c->n_vaults,
                             .rtypes = c->rtypes,
                             .nrtypes = c->n_regions,
                             .room_weights = rooms ? c->room_weights : NULL};
}

int level_generate(game_t *g, level_t *lv)
{
    const content_t *c = g->c;
    rng_seed(&lv->gen, rng_hash2(g->seed, (uint64_t)lv->depth), 1);
    mapgen_level_t *m = mapgen_level_new(lv->w, lv->h);
    if (!m)
        return -1;
    mapgen_params_t p = level_params(c, lv->w, lv->h, lv->depth);
    int r = mapgen_generate(m, &p, &lv->gen, NULL, 0);
    if (r == 0 && level_set_regions(g, lv, m->nregions) < 0)
        r = -1;
    if (r == 0) {
        size_t n = (size_t)lv->w * (size_t)lv->h;
        memcpy(lv->terrain, m->terrain, n);
        memcpy(lv->region, m->region, n);
        for (int i = 0; i < m->nregions; i++)
            lv->regions[i] = (level_region_t){c->rtypes ? m->regions[i].type : -1,
                                              m->regions[i].lit, m->regions[i].shape};
        lv->up_x = (int16_t)m->up_x;
        lv->up_y = (int16_t)m->up_y;
        lv->down_x = (int16_t)m->down_x;
        lv->down_y = (int16_t)m->down_y;
    }
    mapgen_level_free(m);
    if (r != 0)
        return -1;
    trap_hide(g, lv); /* locked and secret doors, traps: a stream of their own */
    /* treasure from a stream of its own: placed once, with the level */
    rng_t items;
    rng_seed(&items, rng_hash2(g->seed, 0x1000u + (uint64_t)lv->depth), 4);
    return g->levels[lv->depth] == lv && lv->depth > 0 ? item_populate(g, lv->depth, &items) : 0;
}

/* ---- stairs ----------------------------------------------------------------- */

/* Creatures of the arrival level get turns again (they froze when we left). */
static void wake_level(game_t *g, int depth)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != depth || h == g->player)
            continue;
        bool pending = false;
        for (uint32_t i = 0; i < g->sched.n && !pending; i++)
            pending = g->sched.heap[i].target == h;
        if (!pending)
            sched_push(&g->sched, g->sched.now + sched_cost(SCHED_MOVE, status_speed(g, h)),
                       FN_MONSTER_TURN, h, 0, 0);
    }
}

int level_stairs(game_t *g, int dir)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    uint8_t t = level_terrain(level_current(g), p->x, p->y);
    if (t != (dir > 0 ? MAP_STAIRS_DOWN : MAP_STAIRS_UP)) {
        msg_add(g, "There is no staircase %s here.", dir > 0 ? "down" : "up");
        return 0;
    }
    int nd = g->depth + dir;
    if (nd < 1 && g->pc.heartstone) {
        end_win(g);
        return SCHED_MOVE;
    }
    if (nd < 0 || nd > WORLD_MAX_DEPTH) {
        msg_add(g, "The stairs end here.");
        return 0;
    }
    if (level_enter(g, nd) < 0)
        return 0;
    msg_add(g, nd ? "You %s the stairs." : "You %s the stairs into the daylight of the town.",
            dir > 0 ? "descend" : "climb");
    return SCHED_MOVE;
}

int level_enter(game_t *g, int nd)
{
    obj_t *p;
    level_t *lv = level_current(g);
    int dir = nd > g->depth ? 1 : -1;
    if (!g->levels[nd]) {
        level_t *n = level_new(g, lv->w, lv->h, nd);
        if (!n)
            return -1;
        g->levels[nd] = n;
        if (level_generate(g, n) < 0 || (nd > 0 && creature_populate(g, n) < 0))
            return -1;
    }
    level_t *to = g->levels[nd];
    level_sleep(g, lv);              /* only the current level stays live */
    p = reg_get(&g->reg, g->player); /* populating may have moved the registry */
    g->depth = (int16_t)nd;
    p->depth = (int16_t)nd;
    p->x = dir > 0 ? to->up_x : to->down_x;
    p->y = dir > 0 ? to->up_y : to->down_y;
    g->level_changes++;
    if (nd > g->max_depth) {
        g->max_depth = (int16_t)nd;
        g->score += 50;
        msg_milestone(g, "depth", "reached level %d", nd);
    }
    wake_level(g, nd);
    return 0;
}
