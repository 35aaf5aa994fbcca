/* turn — the world between the player's turns: the scheduler's function
 * table (world.h's SCHED_FN_LIST ids) and running the schedule until the
 * player must act again. */
#ifndef WARREN_TURN_H
#define WARREN_TURN_H
#include "game.h"

/* Runs the schedule until the player's turn comes (or the game ends). */
void turn_run(game_t *g);
/* The player's action took cost ticks (0 or less: none, nothing runs):
 * the world runs until the player's next turn, the view before and after. */
void turn_advance(game_t *g, int cost);

#endif
