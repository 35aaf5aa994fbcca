/* hostgame — a hosted game ([game ID] of warren.conf) as a session's
 * game: the program runs under a pty (ptyproc.h) and its screen is the
 * session's frame, so players, watchers and gateways see it like Warren's
 * own (backend.h, backend_pty).
 *
 * Detaching keeps the program running for the grace period; then it gets
 * SIGHUP (NetHack saves) and the session goes once it exited. Choosing the
 * game again starts the program again: a game that saved restores itself.
 * When the program ends on its own, its xlogfile row (if configured) says
 * how the game ended. */
#ifndef WARREN_HOSTGAME_H
#define WARREN_HOSTGAME_H
#include "buf.h"
#include "conn.h"
#include "gamecfg.h"
#include "keys.h"

/* The player of c plays game g: the live one of that kind, else a new
 * run of the program. On failure the player is back in the menu, told. */
void hostgame_play(conn_t *c, const gamecfg_t *g);

/* Appends the bytes of a key as a terminal sends them (xterm). */
void hostgame_key_bytes(key_event_t k, buf_t *out);

#endif
