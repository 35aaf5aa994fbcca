/* render — the view at any grid size from 20x5 up: the message line, the
 * map (centred when it fits, else on the view's anchor, a few cells behind
 * the player, or at the nearer end of a map little wider than the view,
 * moved as little as it takes to keep the player a quarter of the view
 * from the edges the map goes on past and to show every creature in
 * sight), the status line and the help line, or the current prompt's
 * screen (prompt.h); a list (PF_LIST, the item lists) sits over the map's
 * right side in a box when it fits there. A pure function of
 * the state and the view: it never changes the state; the frame it keeps to
 * draw only what changed is derived. */
#ifndef WARREN_RENDER_H
#define WARREN_RENDER_H
#include "game.h"

/* Draws the whole view into s (any size): the game keeps the last frame
 * it drew (render_frame) and copies it, so only what changed is drawn
 * again; rows of s that change become dirty. */
void render_world(game_t *g, screen_t *s, const game_view_t *view);
/* The kept frame brought up to date at w x h: only what changed since the
 * last call is drawn, and its dirty rows are the rows that changed (all
 * of them after a new size). Borrowed, valid until the next call or
 * render_free. NULL when the frame keeps another size (a few calls in a
 * row at a new size move it) or out of memory. */
const screen_t *render_frame(game_t *g, int w, int h, const game_view_t *view);
/* The reference: everything drawn from nothing into s (cleared first). */
void render_full(game_t *g, screen_t *s, const game_view_t *view);
/* Frees the kept frame (game_free does; it is made again when needed). */
void render_free(game_t *g);

#endif
