/* gameover — the last screen of a game, for its player and its watchers:
 * how it ended, the score, its place on the high scores and the address of
 * its page (cfg.public_url, else the web listener's address), then the menu.
 *
 * The session, once its game ended, hands over the viewers it took off
 * the game (hooks.h: game_over). They wait in CONN_WAIT, referenced; once
 * the place is read from the database every viewer still waiting sees the
 * screen. Loop thread only. */
#ifndef WARREN_GAMEOVER_H
#define WARREN_GAMEOVER_H
#include "hooks.h"
#include "session.h"

/* hooks_t.game_over: the n viewers v of the game that ended as end says;
 * false when out of memory (nobody waits). */
bool gameover_show(server_t *srv, const session_end_t *end, const hooks_viewer_t *v, int n);

#endif
