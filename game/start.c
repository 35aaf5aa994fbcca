/* start — making a game (see start.h). */
#include "start.h"
#include <stdio.h>
#include <string.h>
#include "chargen.h"
#include "creature.h"
#include "level.h"
#include "vision.h"
#include "world.h"

#define LEVEL_W MAPGEN_DEFAULT_W
#define LEVEL_H MAPGEN_DEFAULT_H

game_t *start_empty(const content_t *c, uint64_t seed)
{
    galloc_t al = {0};
    game_t *g = galloc(&al, sizeof *g);
    if (!g)
        return NULL;
    memset(g, 0, sizeof *g);
    g->al = al;
    g->c = c;
    g->seed = seed;
    rng_seed(&g->play, rng_hash2(seed, 0x706c6179u), 2);
    rng_seed(&g->cosmetic, rng_hash2(seed, 0x636f736du), 3);
    reg_init(&g->reg, &g->al);
    sched_init(&g->sched, &g->al);
    g->depth = g->max_depth = 1;
    g->pc.xl = 1;
    g->dmap_depth = -1;
    snprintf(g->name, sizeof g->name, "Adventurer");
    if (item_state_init(g) < 0) {
        game_free(g);
        return NULL;
    }
    return g;
}

/* A game begins in the town on the surface (depth 0): no monsters, no
 * treasure; its down stairs lead to level 1, its gates out to the
 * overland (overland.h). The player starts at the west gate. The town is
 * home: its layout is known from the start (SEEN_MAP), so travel goes to
 * its shops and stairs at once; what lies in them is seen by going. */
int start_world(game_t *g)
{
    level_t *lv = level_new(g, LEVEL_W, LEVEL_H, 0);
    if (!lv)
        return -1;
    g->levels[0] = lv;
    g->depth = g->max_depth = 0;
    if (level_generate(g, lv) < 0)
        return -1;
    memset(lv->seen, SEEN_MAP, (size_t)lv->w * (size_t)lv->h); /* home: its layout known */
    level_all_changed(lv);
    g->player = creature_spawn(g, g->c->player_kind, 0, lv->up_x, lv->up_y);
    obj_t *p = reg_get(&g->reg, g->player);
    if (!p)
        return -1;
    p->flags |= OF_PLAYER;
    if (sched_push(&g->sched, 8 * SCHED_MOVE, FN_REGEN, g->player, 0, 0) < 0)
        return -1;
    p = reg_get(&g->reg, g->player);
    p->magnitude = -1;
    if (sched_push(&g->sched, SCHED_MOVE, FN_HUNGER, g->player, 0, 0) < 0)
        return -1;
    chargen_begin(g);
    g->view_x = (int16_t)p->x, g->view_y = (int16_t)p->y; /* the view starts centred */
    vision_update(g);
    return 0;
}
