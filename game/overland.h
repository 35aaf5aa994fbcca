/* overland — the surface walked: the continent of the game's seed as a
 * map (atlas.h's ATLAS_OVERLAND) made from the world map (worldmap.h) —
 * sea, lakes and sea routes, open land, hills, fords, the roads between
 * the towns, the towns and every territory's dungeon entrance — walked a
 * cell per step at its own scale (a step there takes its terrain's
 * `move` of time, for monsters met there as much as for the player).
 *
 * Ways in and out: a town's paths through its trees end at its gates (<
 * on one leaves) for its cell on the overland; > on a town's cell enters it, on an entrance the first level
 * of its territory's branch, whose up stairs lead back out. On the
 * overland each step may meet an encounter from its territory's danger;
 * the creatures met stay behind when the player goes in anywhere.
 *
 * The overland and the towns are made once and kept like any level; what
 * this module adds to the state is atlas_t's counts. */
#ifndef WARREN_OVERLAND_H
#define WARREN_OVERLAND_H
#include <stdbool.h>
#include "world.h"

#define ENCOUNTER_PCT   7 /* a step's chance of an encounter in the wilds */
#define ENCOUNTER_CROWD 6 /* none while this many creatures are out there already */

/* The overland's terrain, regions (one a territory, one the sea) and
 * memory (the continent is known): 0, or -1 (OOM; no world). */
int overland_generate(game_t *g, level_t *lv);
/* After a map of another kind is made: a town's gates (and no stairs but
 * the home town's), a branch's hoard on its last level. 0 or -1 (OOM). */
int overland_level(game_t *g, level_t *lv);
/* The town's ways out for a town level made before they existed (a
 * snapshot of an older format). */
void overland_gates(game_t *g, level_t *lv);
/* > and < where the overland's ways are (level_stairs hands them over):
 * ticks spent, 0 refused with a message. */
int overland_stairs(game_t *g, int dir);
/* After each step of the player's: on the overland, the count, what lies
 * here, and maybe an encounter. */
void overland_step(game_t *g);

#endif
