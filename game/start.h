/* start — making a game: an empty one (no level yet: tests build on it,
 * and a snapshot loads into it), then level 1 with the player, its
 * monsters and the creation screen. Also a test-only start, declared
 * here and not in game.h so that the server cannot reach it. */
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
/* Test-only: a strong human fighter beside the warden at depth 20 (0 or -1). */
int start_hero(game_t *g);

#endif
