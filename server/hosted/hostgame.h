/* hostgame — a hosted game ([game ID] of warren.conf) as a session's
 * game: the program runs under a pty (ptyproc.h) and its screen is the
 * session's frame, so players, watchers and gateways see it like Warren's
 * own (backend.h).
 *
 * Detaching keeps the program running for the grace period; then it gets
 * SIGHUP (NetHack saves) and the session goes once it exited. Choosing the
 * game again starts the program again: a game that saved restores itself.
 * When the program ends on its own, its xlogfile row (if configured) says
 * how the game ended: a shared xlogfile is read at once, a player's own
 * ("%d/PATH") by the spawner as the game's user, the session finishing
 * on its answer. Its output is recorded as it is read (hostrec.h).
 *
 * The program's terminal is the player's, never below its section's
 * min-size (80x24 at least, session_t.min_w and min_h): a player or
 * watcher whose terminal is below it is told the size the game needs
 * (conn_small); a player's below it both ways keeps the program at its
 * size, or starts it at min-size (frames.c).
 *
 * The spawner keeps each player's directory to its section's disk caps
 * (spawner.h): a start it refuses for them tells the player by how much
 * (a screen of its own), and a game it stops for them ends as after the
 * grace period, its player back in the menu told why.
 *
 * With nodes on one PostgreSQL, the player's files are copied into the
 * database as the game runs and restored before a new run on another
 * node (hostcopy.h), so a game outlives the node that ran it. */
#ifndef WARREN_HOSTGAME_H
#define WARREN_HOSTGAME_H
#include "hooks.h"

/* Registers hosted games with the core (hooks.h: hosted): the menu and
 * the web gateway start them, and the editors read and write the
 * players' rc files ([game ID] rcfile), through it:
 *   play     the player of c plays game g: the live one of that kind,
 *            else a new run of the program; on failure the player is
 *            back in the menu, told
 *   rc_load  user (the account's game name, conn_t.game_name, whose
 *            directory holds the file): the player's rc file of g,
 *            copied from rc-default first when missing (empty when there
 *            is no default), to fn; -1 with err at once when g has no
 *            rcfile; the file too large, unreadable, or the spawner too
 *            slow (spawner.h: SPAWNER_TIMEOUT_MS) come to fn as err
 *   rc_save  replaces it with text (len bytes: no NUL, at most
 *            GAMECFG_RC_MAX), owned by the game's user; the answer to fn
 * The spawner does the I/O (spawner.h): the loop never waits for it. */
void hostgame_hooks(hooks_t *h);

#endif
