/* level — one level's arrays, regions and generation, what stands on a
 * cell, and the stairs (see level.h). */
#include "level.h"
#include <string.h>
#include "creature.h"
#include "escape.h"
#include "item.h"
#include "msg.h"
#include "overland.h"
#include "shop.h"
#include "special.h"
#include "status.h"
#include "trap.h"
#include "vision.h"

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
    level_all_changed(lv); /* nothing of it compared yet */
    return lv;
}

void level_sleep(game_t *g, level_t *lv)
{
    if (!lv)
        return;
    gfree(&g->al, lv->vis);
    gfree(&g->al, lv->opaque);
    gfree(&g->al, lv->lit);
    gfree(&g->al, lv->kept);
    gfree(&g->al, lv->flips);
    gfree(&g->al, lv->sky);
    lv->vis = lv->opaque = lv->lit = NULL;
    lv->kept = lv->flips = lv->sky = NULL;
    lv->flip_rows = 0;
    lv->opaque_ok = lv->fov_ok = lv->kept_ok = lv->kept_diff = 0;
    if (g->reg.ix.depth == lv->depth)
        reg_index_close(&g->reg);
}

/* The map index (obj.h) follows the live level; without memory for it
 * (it stays closed) every look walks all objects, to the same answers. */
int level_live(game_t *g, level_t *lv)
{
    if (g->reg.ix.depth != lv->depth)
        (void)reg_index_open(&g->reg, lv->depth, lv->w, lv->h);
    if (lv->vis)
        return 0;
    size_t n = (size_t)lv->w * (size_t)lv->h;
    lv->vis = gcalloc(&g->al, n, 1);
    lv->opaque = gcalloc(&g->al, n, 1);
    lv->lit = gcalloc(&g->al, n, 1);
    lv->kept = gcalloc(&g->al, VISION_KEPT_WORDS, sizeof *lv->kept);
    size_t rows = lv->h < LEVEL_DIRTY_ROWS ? (size_t)lv->h : LEVEL_DIRTY_ROWS;
    lv->flips = gcalloc(&g->al, rows * level_flip_words(lv) + 1, sizeof *lv->flips);
    lv->flip_rows = 0;
    lv->sky = gcalloc(&g->al, (size_t)lv->h * level_flip_words(lv) + 1, sizeof *lv->sky);
    lv->sky_ok = 0;
    if (!lv->vis || !lv->opaque || !lv->lit || !lv->kept || !lv->flips || !lv->sky) {
        level_sleep(g, lv);
        return -1;
    }
    lv->opaque_ok = lv->fov_ok = lv->kept_ok = lv->kept_diff = 0;
    level_all_changed(lv); /* vis new, all zeros */
    return 0;
}

void level_vis_flipped(level_t *lv, int y, int x0, const uint64_t bits[2])
{
    if (!(bits[0] | bits[1]))
        return;
    if (!lv->flips || y < 0 || y >= LEVEL_DIRTY_ROWS || y >= lv->h || x0 < 0) {
        level_row_changed(lv, y);
        return;
    }
    size_t nw = level_flip_words(lv);
    uint64_t *row = lv->flips + (size_t)y * nw;
    for (int w = 0; w < 2; w++) {
        size_t at = (size_t)x0 + 64 * (size_t)w, i = at / 64, s = at % 64;
        if (!bits[w])
            continue;
        if (i < nw)
            row[i] ^= bits[w] << s;
        if (s && i + 1 < nw)
            row[i + 1] ^= bits[w] >> (64 - s);
    }
    lv->flip_rows |= 1ull << y;
}

void level_flips_clear(level_t *lv)
{
    size_t nw = level_flip_words(lv);
    for (uint64_t r = lv->flip_rows; r && lv->flips; r &= r - 1)
        memset(lv->flips + (size_t)__builtin_ctzll(r) * nw, 0, nw * sizeof *lv->flips);
    lv->flip_rows = 0;
}

/* Whether level cell i lies under the sky, from its region byte. */
static bool sky_of_region(const game_t *g, const level_t *lv, size_t i)
{
    int r = lv->region[i];
    if (r < 1 || r > lv->nregions)
        return false;
    int k = lv->regions[r - 1].kind;
    return k >= 0 && k < g->c->n_regions && (g->c->regions[k].flags & RF_SKY);
}

void level_sky_ready(const game_t *g, level_t *lv)
{
    if (!lv->sky || lv->sky_ok)
        return;
    size_t nw = level_flip_words(lv);
    memset(lv->sky, 0, (size_t)lv->h * nw * sizeof *lv->sky);
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w; x++)
            if (sky_of_region(g, lv, (size_t)y * (size_t)lv->w + (size_t)x))
                lv->sky[(size_t)y * nw + (size_t)x / 64] |= 1ull << (x % 64);
    lv->sky_ok = 1;
}

long level_sky_wrong(const game_t *g, const level_t *lv)
{
    long wrong = 0;
    for (int y = 0; lv->sky && lv->sky_ok && y < lv->h; y++)
        for (int x = 0; x < lv->w; x++)
            wrong += level_sky_xy(lv, x, y) !=
                     sky_of_region(g, lv, (size_t)y * (size_t)lv->w + (size_t)x);
    return wrong;
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
    level_regions_changed(lv);
    return n > 0 && !lv->regions ? -1 : 0;
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
    if (reg_index_covers(&g->reg, depth, x, y)) {
        for (handle_t h = reg_index_at(&g->reg, x, y); h; h = reg_index_next_at(&g->reg, h))
            if (reg_get(&g->reg, h)->type == OBJ_CREATURE)
                return h;
        return HANDLE_NONE;
    }
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

/* A vault's marks: a letter is treasure (as from two levels deeper), a
 * digit a monster asleep at its post (from the level's own streams). */
static int vault_spots(game_t *g, level_t *lv, const mapgen_level_t *m)
{
    rng_t r;
    rng_seed(&r, rng_hash2(g->seed, 0x5000u + (uint64_t)lv->depth), 6);
    int danger = atlas_danger(g, lv->depth);
    for (int i = 0; i < m->nspots && danger > 0; i++) {
        const mapgen_spot_t *s = &m->spots[i];
        int ux = s->x - lv->up_x, uy = s->y - lv->up_y;
        if (lv->terrain[s->y * lv->w + s->x] != MAP_FLOOR)
            continue;
        bool near = ux * ux + uy * uy < POPULATE_CLEAR * POPULATE_CLEAR;
        if (s->glyph >= 'a' && s->glyph <= 'z' &&
            item_treasure_at(g, lv->depth, danger + 2, s->x, s->y, &r) < 0)
            return -1;
        int kind = s->glyph >= '0' && s->glyph <= '9' && !near &&
                           !level_creature_at(g, lv->depth, s->x, s->y)
                       ? creature_pick_kind(g, &r, danger)
                       : -1;
        if (kind >= 0 && !creature_make(g, (uint16_t)kind, lv->depth, s->x, s->y, &r, MAKE_SLEEPY))
            return -1;
    }
    return 0;
}

/* The map from mapgen at its danger: terrain, regions, stairs, and what
 * its vaults' marks hold. 0 or -1 (OOM). */
static int level_layout(game_t *g, level_t *lv, int danger)
{
    const content_t *c = g->c;
    mapgen_level_t *m = mapgen_level_new(lv->w, lv->h);
    if (!m)
        return -1;
    mapgen_params_t p = level_params(c, lv->w, lv->h, danger);
    p.bottom = atlas_below(g, lv->depth) < 0;
    int r = mapgen_generate(m, &p, &lv->gen, NULL, 0);
    if (r == 0 && level_set_regions(g, lv, m->nregions) < 0)
        r = -1;
    if (r == 0) {
        size_t n = (size_t)lv->w * (size_t)lv->h;
        memcpy(lv->terrain, m->terrain, n);
        memcpy(lv->region, m->region, n);
        level_all_changed(lv);
        for (int i = 0; i < m->nregions; i++)
            lv->regions[i] = (level_region_t){c->rtypes ? m->regions[i].type : -1,
                                              m->regions[i].lit, m->regions[i].shape};
        lv->up_x = (int16_t)m->up_x;
        lv->up_y = (int16_t)m->up_y;
        lv->down_x = (int16_t)m->down_x;
        lv->down_y = (int16_t)m->down_y;
    }
    if (r == 0 && g->levels[lv->depth] == lv && vault_spots(g, lv, m) < 0)
        r = -1;
    mapgen_level_free(m);
    return r != 0 ? -1 : 0;
}

/* A map of the surface beyond the town is made by overland.c; the town,
 * the Warren and the branches by mapgen at the map's danger (atlas.h). */
int level_generate(game_t *g, level_t *lv)
{
    rng_seed(&lv->gen, rng_hash2(g->seed, (uint64_t)lv->depth), 1);
    if (atlas_kind(lv->depth) == ATLAS_WILDS)
        return overland_generate(g, lv);
    int danger = atlas_danger(g, lv->depth);
    if (level_layout(g, lv, danger) < 0)
        return -1;
    if (special_apply(g, lv) < 0) /* a special level's terrain: before doors and traps */
        return -1;
    trap_hide(g, lv); /* locked and secret doors, traps: a stream of their own */
    /* treasure from a stream of its own: placed once, with the level */
    rng_t items;
    rng_seed(&items, rng_hash2(g->seed, 0x1000u + (uint64_t)lv->depth), 4);
    if (g->levels[lv->depth] == lv && danger > 0 && item_populate(g, lv->depth, &items) < 0)
        return -1;
    if (shop_populate(g, lv) < 0) /* the town's keepers, maybe a dungeon shop */
        return -1;
    return overland_level(g, lv); /* the towns' ways out, a branch's hoard */
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

/* The way out of a town, and every way in or out on the overland, is
 * overland.c's; stairs are the Warren's and the branches'. */
int level_stairs(game_t *g, int dir)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    uint8_t t = level_terrain(level_current(g), p->x, p->y);
    if (g->depth == ATLAS_OVERLAND || t == MAP_GATE)
        return overland_stairs(g, dir);
    if (t != (dir > 0 ? MAP_STAIRS_DOWN : MAP_STAIRS_UP)) {
        msg_add(g, "There is no staircase %s here.", dir > 0 ? "down" : "up");
        return 0;
    }
    int nd = dir > 0 ? atlas_below(g, g->depth) : atlas_above(g, g->depth);
    if (nd < 0) {
        msg_add(g, "The stairs end here.");
        return 0;
    }
    if (nd == ATLAS_OVERLAND)
        return overland_stairs(g, dir); /* out of a branch */
    /* said first: what waits at their foot (a warren, the collapse) follows */
    msg_add(g, nd ? "You %s the stairs." : "You %s the stairs into the daylight of the town.",
            dir > 0 ? "descend" : "climb");
    if (level_enter(g, nd) < 0)
        return 0;
    if (nd == 0 && g->pc.heartstone && !atlas_world(g))
        escape_win(g); /* no world beyond the town: the town is the end of the chase */
    else if (nd == 0 && g->pc.heartstone && escape_town(g) < 0)
        return 0;
    return SCHED_MOVE;
}

level_t *level_make(game_t *g, int nd)
{
    if (nd < 0 || nd >= LEVEL_IDS)
        return NULL;
    if (!g->levels[nd]) {
        int w, h;
        atlas_size(g, nd, &w, &h);
        level_t *n = level_new(g, w, h, nd);
        if (!n)
            return NULL;
        g->levels[nd] = n;
        int k = atlas_kind(nd);
        if (level_generate(g, n) < 0 ||
            ((k == ATLAS_WARREN || k == ATLAS_BRANCH) && creature_populate(g, n) < 0))
            return NULL;
    }
    return g->levels[nd];
}

int level_arrive(game_t *g, int nd, int x, int y)
{
    level_t *lv = level_current(g), *to = level_make(g, nd);
    if (!to)
        return -1;
    level_sleep(g, lv);                     /* only the current level stays live */
    obj_t *p = reg_get(&g->reg, g->player); /* populating may have moved the registry */
    g->depth = (int16_t)nd;
    p->depth = (int16_t)nd;
    p->x = (int16_t)x;
    p->y = (int16_t)y;
    reg_refile(&g->reg, g->player);
    g->level_changes++;
    if (atlas_kind(nd) == ATLAS_WARREN && nd > g->max_depth) {
        g->max_depth = (int16_t)nd;
        g->score += 50;
        msg_milestone(g, "depth", "reached level %d", nd);
    }
    wake_level(g, nd);
    special_arrive(g);
    return 0;
}

int level_enter(game_t *g, int nd)
{
    int dir = nd > g->depth ? 1 : -1;
    const level_t *to = level_make(g, nd);
    if (!to ||
        level_arrive(g, nd, dir > 0 ? to->up_x : to->down_x, dir > 0 ? to->up_y : to->down_y) < 0)
        return -1;
    return dir < 0 && atlas_kind(nd) == ATLAS_WARREN && g->pc.heartstone ? escape_arrive(g) : 0;
}
