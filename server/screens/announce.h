/* announce — the administrator's announcement (`warren-admin announce`):
 * a line over the bottom row of every menu, on every loop, for
 * ANNOUNCE_MS, then taken down (announce_tick); over a game's bottom row
 * only for its first ANNOUNCE_GAME_MS, since that row is the game's own
 * (NetHack's status line): each loop's tick takes it off its games. The text is kept in
 * each loop's server_t (announce, announce_until): home writes its own and
 * posts each other loop a copy. Loop thread only. */
#ifndef WARREN_ANNOUNCE_H
#define WARREN_ANNOUNCE_H
#include "server.h"
#include "session.h"

#define ANNOUNCE_MS      (5 * 60 * 1000)
#define ANNOUNCE_GAME_MS (8 * 1000)

/* From home: text is shown from now on ("" takes it down); every menu
 * and game on every loop is redrawn with it. */
void announce_set(server_t *home, const char *text);
/* Over the bottom row of scr, if one is up on s's loop. */
void announce_draw(server_t *s, screen_t *scr);
/* The same over a game's frame (hooks.h: an overlay), for its first
 * ANNOUNCE_GAME_MS; announce_on_games says whether that is now. */
void announce_overlay(session_t *s, screen_t *scr);
bool announce_on_games(const server_t *k);
/* Home, once a second: an expired announcement comes down. */
void announce_tick(server_t *home);
/* Every loop, once a second (hooks.h: tick): the games' line comes down. */
void announce_game_tick(server_t *k);

#endif
