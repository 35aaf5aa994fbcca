/* special — terrain that matters and the special levels of content.
 *
 * Hazards (content terrain `hazard`): deep water, lava and chasms keep
 * monsters out (they are not passable) but the player may step in: deep
 * water is swum (a pack over SWIM_LOAD drags the swimmer under and a
 * thing may sink), lava burns, a chasm drops the player to the level
 * below. Slow terrain (`move`, rubble) costs more time to enter.
 *
 * Special levels (special_level_t, game/content/special.lua) reshape the
 * level of their depth after the generator: rooms renamed, blobs of
 * water, lava, chasm or rubble laid so that every part stays reachable
 * without crossing a hazard, extra creatures, a message on arrival. */
#ifndef WARREN_SPECIAL_H
#define WARREN_SPECIAL_H
#include <stdbool.h>
#include "world.h"

#define SWIM_LOAD (CARRY_CAPACITY / 3) /* tenths of a pound a swimmer keeps up */

/* What stepping into a terrain does (terrain_kind_t.hazard): X(ID, fn),
 * fn special.c's function for it (NULL: nothing). Content names a hazard
 * in lower case ("burn"). Monsters never enter a hazard; the player may. */
#define HAZARD_LIST(X)                                                                      \
    X(NONE, NULL)                                                                           \
    X(SWIM, hazard_swim) /* deep water: the player swims, a heavy pack drags, items sink */ \
    X(BURN, hazard_burn) /* lava: fire damage of its dice */                                \
    X(FALL, hazard_fall) /* a chasm: down to the next level, hurt by its dice */
enum {
#define HAZARD_ENUM_(id, fn) HAZARD_##id,
    HAZARD_LIST(HAZARD_ENUM_)
#undef HAZARD_ENUM_
        HAZARDS
};

/* The special level of this depth, or NULL. */
const special_level_t *special_of(const content_t *c, int depth);
/* Its terrain and regions for a new level (before doors and traps), from
 * the level's own stream: 0 or -1 (OOM). */
int special_apply(game_t *g, level_t *lv);
/* Its extra creatures (after the level's own): 0 or -1 (OOM). */
int special_populate(game_t *g, level_t *lv);
/* The first arrival on a special level tells its message. */
void special_arrive(game_t *g);
/* The hazard of terrain t (HAZARD_*), and whether who may step onto it
 * (the player only). */
int special_hazard(const game_t *g, uint8_t t);
bool special_may_enter(const game_t *g, handle_t who, uint8_t t);
/* A step's ticks onto (x, y) of the current level (slow terrain). */
int special_step_cost(const game_t *g, int ticks, int x, int y);
/* After the player's step: what the hazard underfoot does. */
void special_underfoot(game_t *g);

#endif
