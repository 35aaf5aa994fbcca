/* watch — what a terminal watcher has beyond the player's screen: a line
 * naming the player, game, depth and watchers (or that the player left)
 * and ending "q stops · ? help", below the game on a taller terminal (the
 * footer), else over its own frame's bottom row; and keys:
 *   q      stop watching          ?      help (also who, what, how deep)
 *   < >    the previous / next live game (by player name)
 *   :      a chat line (chat.c), Enter sends, Esc cancels
 * While help, a line being typed or a notice is up, or with no row below
 * the game, the watcher gets its own frames (frames.c asks watch_overlay);
 * otherwise it shares the player's.
 *
 * Its state is the conn's (conn_t.watch), made on first use and freed by
 * conn_fini (watch_free). Loop thread only. */
#ifndef WARREN_WATCH_H
#define WARREN_WATCH_H
#include <stdbool.h>
#include <stddef.h>
#include "conn.h"
#include "keys.h"
#include "screen.h"

typedef struct watchview watchview_t;

/* A watcher's key: true when watch took it ('q' is left to session.c). */
bool watch_key(conn_t *c, session_t *s, key_event_t k);
bool watch_overlay(const conn_t *c);
/* The overlays over a frame drawn at the watcher's own size. */
void watch_draw(session_t *s, conn_t *c, screen_t *scr);
/* The footer line into out (n >= 2); false when it equals the one last
 * written and force is not set (nothing to write). */
bool watch_footer(session_t *s, conn_t *c, char *out, size_t n, bool force);
/* c begins to watch s: a hosted game's watcher is told whom for a while */
void watch_begun(conn_t *c, session_t *s);
void watch_tick(server_t *srv); /* notices that expired come down */
/* From home, what < and > pick: the live Warren game whose player comes
 * after name (dir > 0) or before it among every loop's, around the end,
 * never viewer's own nor name's; its id and loop (*at), or 0 (*at NULL)
 * when there is none. Each loop's index by name (server.h's
 * sess_by_player) is read with the other loops parked. */
int64_t watch_pick(server_t *home, int64_t viewer, const char *name, int dir, server_t **at);
void watch_free(watchview_t *w);

#endif
