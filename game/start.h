/* start — making a game: an empty one (no level yet: tests build on it,
 * and a snapshot loads into it), then the town with the player and the
 * creation screen. */
#ifndef WARREN_START_H
#define WARREN_START_H
#include <stdint.h>
#include "game.h"

/* A game without a level on content c (borrowed: it must outlive the
 * game); NULL on OOM. Free with game_free. */
game_t *start_empty(const content_t *c, uint64_t seed);
/* Level 1 with the player and monsters, the creation screen up: 0, or -1
 * on OOM (game_free cleans up). */
int start_world(game_t *g);

#endif
