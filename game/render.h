/* render — the view at any grid size from 20x5 up: the message line, the
 * map (centred, or scrolled to the player), the status line and the help
 * line, or the current prompt's screen (prompt.h). Reads the state, never
 * changes it. */
#ifndef WARREN_RENDER_H
#define WARREN_RENDER_H
#include "game.h"

void render_world(game_t *g, screen_t *s, const game_view_t *view);

#endif
