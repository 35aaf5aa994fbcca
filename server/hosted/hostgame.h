/* hostgame — a hosted game ([game ID] of warren.conf) as a session's
 * game: the program runs under a pty (ptyproc.h) and its screen is the
 * session's frame, so players, watchers and gateways see it like Warren's
 * own (backend.h, backend_pty).
 *
 * Detaching keeps the program running for the grace period; then it gets
 * SIGHUP (NetHack saves) and the session goes once it exited. Choosing the
 * game again starts the program again: a game that saved restores itself.
 * When the program ends on its own, its xlogfile row (if configured) says
 * how the game ended. Its output is recorded as it is read (hostrec.h). */
#ifndef WARREN_HOSTGAME_H
#define WARREN_HOSTGAME_H
#include "buf.h"
#include "conn.h"
#include "gamecfg.h"
#include "keys.h"
#include "server.h"

/* The player of c plays game g: the live one of that kind, else a new
 * run of the program. On failure the player is back in the menu, told. */
void hostgame_play(conn_t *c, const gamecfg_t *g);

/* rc files (the players' copies, [game ID] rcfile): read and written
 * whole by the editors (telnet menu, /options/ID). At most HOSTGAME_RC_MAX
 * bytes; small files, so the loop does the I/O. */
#define HOSTGAME_RC_MAX 8192
/* user: the account's game name (conn_t.game_name), whose directory holds
 * the rc file. The player's rc file of g into out: copied from rc-default first when
 * missing (empty when there is no default). 0, or -1 with err (g has no
 * rcfile, the file is too large or cannot be read). */
int hostgame_rc_load(server_t *srv, const gamecfg_t *g, const char *user, buf_t *out, char *err,
                     size_t errlen);
/* Replaces the player's rc file of g with text (len bytes: no NUL, at most
 * HOSTGAME_RC_MAX), owned by the game's user. 0, or -1 with err. */
int hostgame_rc_save(server_t *srv, const gamecfg_t *g, const char *user, const char *text,
                     size_t len, char *err, size_t errlen);

/* Appends the bytes of a key as a terminal sends them (xterm). */
void hostgame_key_bytes(key_event_t k, buf_t *out);

#endif
