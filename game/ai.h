/* ai — monsters: each turn a sum of pulls and pushes over the player's
 * distance map (hunt, flee towards friends, fight when cornered, hunt by
 * memory, wander), spells by purpose, and items (quaff, zap, pick up).
 *
 * The distance map is one bounded breadth-first search from the player,
 * made at most once per player move when first needed, shared by every
 * monster (derived, never saved: when it is made never changes it). */
#ifndef WARREN_AI_H
#define WARREN_AI_H
#include "game.h"
#include "obj.h"

void ai_monster_turn(game_t *g, handle_t h);   /* acts, then schedules its next turn */
void ai_dmap_update(game_t *g);                /* the player's distance map, when stale */
int ai_dmap_at(const game_t *g, int x, int y); /* steps from the player, -1 unknown */

#endif
