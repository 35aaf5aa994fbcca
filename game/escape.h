/* escape — the endgame: taking the Heartstone wakes the Warren, every
 * level climbed with it collapses behind the climber and sends pursuers,
 * and the chase goes on out of the town across the overland: no town
 * shelters the stone but a safe one, the seat of a territory other than
 * home's (atlas.h), and walking in at its gates wins (the victory screen:
 * prompt_of gives a won game PROMPT_VICTORY's row). On the surface the
 * hunters come from ESCAPE_SURFACE_DANGER: ESCAPE_SURFACE_PURSUERS when
 * the bearer comes out into a town or the wilds, and on each step in the
 * wilds ESCAPE_SURFACE_PCT more chance of meeting more (overland.c).
 *
 * Pursuers come from the one monster table (creature.h) as of a level
 * ESCAPE_DEEPER below, awake and hunting, ESCAPE_NEAR_MIN to
 * ESCAPE_NEAR_MAX cells from the arrival; the down stairs the climber
 * came up by turn to rubble, and rubble falls around them. */
#ifndef WARREN_ESCAPE_H
#define WARREN_ESCAPE_H
#include "world.h"

#define ESCAPE_DEEPER           1
#define ESCAPE_NEAR_MIN         4
#define ESCAPE_NEAR_MAX         12
#define ESCAPE_SURFACE_DANGER   12
#define ESCAPE_SURFACE_PURSUERS 2
#define ESCAPE_SURFACE_PCT      8

/* The warden has fallen and the stone is the player's: the level wakes. */
void escape_wake(game_t *g);
/* The player has just climbed to a level with the stone: pursuers and
 * the collapse. 0, or -1 (OOM). */
int escape_arrive(game_t *g);
/* How many pursuers a level of this depth sends. */
int escape_pursuers(int depth);
/* The bearer has come out into a town that is not safe (the home town
 * from the Warren, or another): hunters at its heels, and where to run.
 * 0, or -1 (OOM). */
int escape_town(game_t *g);
/* The bearer has come out onto the overland: hunters. 0, or -1 (OOM). */
int escape_surface(game_t *g);
/* Walking into a safe town with the stone: the victory. */
void escape_win(game_t *g);
/* The victory screen (prompt.h's PROMPT_VICTORY row). */
int escape_victory_key(game_t *g, key_event_t k);
void escape_victory_draw(game_t *g, screen_t *s);

#endif
