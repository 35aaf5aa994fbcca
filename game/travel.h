/* travel — many steps with one key: travel `_` to a spot chosen with a
 * cursor and explore `o` to the nearest item seen and not yet visited
 * (stood on or put down: IF_VISITED; not a shop's stock), else to the
 * nearest unexplored place, stopping on an item to say what lies there
 * (item_arrive: gold and the player's own missiles are taken up as any
 * step takes them, nothing else), and run (shifted hjklyubn) one way.
 * Travel and explore walk the
 * known map by a breadth-first search from their goal and stop when a
 * monster hunting you is in view or one comes into view (one that has not
 * noticed you and was in view as the walk began does not stop it), when
 * an item comes into sight for the first time, when something new is said
 * or hurts, or when there is nothing left to do. Also the look cursor
 * (`;`, `x`): what a creature, an item or a place is. */
#ifndef WARREN_TRAVEL_H
#define WARREN_TRAVEL_H
#include "game.h"

/* Commands (cmd.c's table): ticks spent by the first step (explore), or
 * 0 when a cursor prompt opened (travel, look). */
int travel_explore(game_t *g);
/* Shifted hjklyubn: a step that way, then on while nothing new happens,
 * along a corridor's bends, to a door, stairs, an item, a side passage
 * or a wall. Its ticks, as a step's. */
int travel_run(game_t *g, int dx, int dy);
int travel_choose(game_t *g);
int travel_look(game_t *g);
/* Whether a travel or an exploration is walking (not a run one way):
 * what it passes again, seen before, it passes unsaid. */
bool travel_walking(const game_t *g);
/* Prompt rows (prompt.c): the travel and look cursors. */
int travel_key(game_t *g, key_event_t k);
void travel_draw(game_t *g, screen_t *s);
int travel_look_key(game_t *g, key_event_t k);
void travel_look_draw(game_t *g, screen_t *s);
/* After the first step of a travel or exploration (within one input):
 * step on while nothing new happens. */
void travel_keep_going(game_t *g);
/* The goal map a travel keeps from one step of its walk to the next,
 * searched again only where the known map changed (NULL when there is no
 * room: each step searches its own). */
typedef struct travel_map travel_map_t;
travel_map_t *travel_map_new(game_t *g);
void travel_map_free(game_t *g, travel_map_t *m);
/* One later step of the walk under way (travel_keep_going's, m kept
 * between its steps, or NULL): its ticks, or 0 to stop. */
int travel_walk_step(game_t *g, travel_map_t *m);

#endif
