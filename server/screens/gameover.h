/* gameover — the last screen of a game, for its player and its watchers:
 * how it ended, the score, its place on the high scores and the address of
 * its page (cfg.public_url, else the web listener's address), then the menu.
 *
 * session.c makes one when a game ends, adds each viewer it takes off the
 * game (they wait in CONN_WAIT, referenced) and starts it: once the place
 * is read from the database every viewer still waiting sees the screen.
 * The gameover_t frees itself. Loop thread only. */
#ifndef WARREN_GAMEOVER_H
#define WARREN_GAMEOVER_H
#include "conn.h"
#include "game.h"

typedef struct gameover gameover_t;

/* NULL when out of memory (then nobody waits: session.c says it at once). */
gameover_t *gameover_new(server_t *srv, int64_t game_id, const char *player,
                         const game_status_t *st, int viewers);
void gameover_add(gameover_t *g, conn_t *c, bool player);
void gameover_start(gameover_t *g);
/* The address of a game's page: "URL/game/ID", "" when there is no site. */
void gameover_game_url(const server_t *srv, int64_t game_id, char *out, size_t n);

#endif
