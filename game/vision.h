/* vision — what the player sees: symmetric shadowcasting (fov.h) from the
 * player over the live level, as far as the light radius (one cell in a
 * dark region, or blind) and farther only into lit regions, never past
 * the sight box (2 * SIGHT_X + 1 columns and 2 * SIGHT_Y + 1 rows round
 * the player, moved in from the map's edges: what a map view of 80x21
 * tiles shows round it, so everything in sight can be drawn); what is
 * seen is remembered (level_t.seen). */
#ifndef WARREN_VISION_H
#define WARREN_VISION_H
#include <stdbool.h>
#include "game.h"
#include "obj.h"

#define LIGHT_RADIUS 7
#define SIGHT_X      39
#define SIGHT_Y      10

/* The view before the current one is kept packed, a bit a cell of its
 * sight box: two words a row (up to 128 columns). */
#define VISION_KEPT_ROWS  (2 * SIGHT_Y + 1)
#define VISION_KEPT_WORDS (2 * VISION_KEPT_ROWS)
_Static_assert(2 * SIGHT_X + 1 <= 128, "a kept row is two words");

/* Recomputes the current level's view (after the player or the map
 * moved). */
void vision_update(game_t *g);

/* The map view's anchor (game_t.view_x/y): render.c centres the view on
 * it. It moves once a key (game_input), from where the key left the
 * player, and only when the player stands more than ANCHOR_SLACK_X
 * columns or ANCHOR_SLACK_Y rows from it; then across it centres on the
 * player and down it moves only as far as it must (vision.c, ANCHOR_RULE).
 * With these, a view of 40x21 tiles or more keeps the player a quarter
 * of the view from its edges without scrolling under every step. */
#define ANCHOR_SLACK_X 9
#define ANCHOR_SLACK_Y 5
void vision_anchor(game_t *g);
/* The anchor's next place on one axis (0: columns, 1: rows) of a map of
 * map cells, for the player at p. */
int vision_anchor_axis(int axis, int anchor, int p, int map);
/* True when the player sees h now (the player always sees itself; a
 * disguised creature is seen as what it passes for, not as itself). */
bool vision_sees(game_t *g, handle_t h);
/* True when a sees b on the current level: the player's view when either
 * is the player (sight is symmetric), else a line of sight within the
 * light radius or into a lit region. */
bool vision_between(game_t *g, handle_t a, handle_t b);

#endif
