/* announce — the administrator's announcement (`warren-admin announce`):
 * a line over the bottom row of every menu and every game, on every loop,
 * for ANNOUNCE_MS, then taken down (announce_tick). The text is kept in
 * each loop's server_t (announce, announce_until): home writes its own and
 * posts each other loop a copy. Loop thread only. */
#ifndef WARREN_ANNOUNCE_H
#define WARREN_ANNOUNCE_H
#include "server.h"
#include "session.h"

#define ANNOUNCE_MS (5 * 60 * 1000)

/* From home: text is shown from now on ("" takes it down); every menu
 * and game on every loop is redrawn with it. */
void announce_set(server_t *home, const char *text);
/* Over the bottom row of scr, if one is up on s's loop. */
void announce_draw(server_t *s, screen_t *scr);
/* The same over a game's frame (hooks.h: an overlay). */
void announce_overlay(session_t *s, screen_t *scr);
/* Home, once a second: an expired announcement comes down. */
void announce_tick(server_t *home);

#endif
