/* hostcopy — a hosted game's files kept in the shared database, so the
 * game outlives the node that ran it.
 *
 * With several nodes on one PostgreSQL (lease_on), each player's files of
 * a hosted game (their directory: saves, level and lock files, rc file;
 * hostfiles.h) are read by the spawner as the game's user (spawner.h:
 * spawner_files_read, a child of its own, never through a link) and
 * stored by the writer thread (db_hosted.h: a row a file, one set a
 * player with its generation and the node holding the game): at most
 * every HOSTCOPY_EVERY_MS while the program writes to its terminal, and
 * once more when it ended (NetHack saved); the spawner answers a read of
 * a directory in which nothing changed since the last read at once,
 * reading nothing (SPAWNER_FILES_SAME). A copy the same as the last
 * stored is not written again. Each game's copies keep to the section's
 * copy-rate: after a copy of B bytes stored, the next read waits
 * max(HOSTCOPY_EVERY_MS, B / copy-rate), so a program that rewrites big
 * files all the time writes no more than that to the database (each read
 * held back counted, server.h's hostcopies, and logged once a game); the
 * copy at its end is never held back, nor dropped when the spawner has
 * no place for it (SPAWNER_FILES_FULL: many games ended at once), but
 * waits in turn: the last copies waiting are first in first out (one
 * queue a server), the first asked again whenever the spawner frees a
 * place (an answer to any request of a player's files, rc file or
 * xlogfile, a program's exit: spawner_on_place) or, failing that, every
 * HOSTCOPY_RETRY_MS, and a running game's read takes no place while
 * any waits; each is given up after
 * HOSTCOPY_RETRIES of those HOSTCOPY_RETRY_MS waiting (logged, counted:
 * hostcopies.given_up), the files left on this node's disk. A running game's read refused so is asked again
 * in turn (counted, hostcopies.refused, and logged once a game, with
 * its count as the game ends). While its program runs, only a still
 * set is copied (spawner.h: SPAWNER_FILES_BUSY): nothing in the player's
 * directory changed within SPAWNER_FILES_QUIET_MS before the read nor
 * while it read, so no copy is of a save half written; a read
 * put off so (counted, hostcopies.busy, and logged once a game) is
 * asked again every HOSTCOPY_RETRY_MS until one is still, and once the
 * program ended everything is read. Files over the section's copy-max
 * are not copied: logged, the set marked, the player told at the game's
 * end.
 *
 * Before a new run of a game starts on a node, the player's set is read:
 * when another node holds it (wrote it last), its files are written into
 * the player's directory here first (spawner_files_write), so the program
 * finds its save (or its level files, as after a crash on one machine).
 * A new run on the node that ran the one before may start while that
 * run's last copy is on its way (waiting for a place, or its read not
 * answered yet): the copies of both are stored in the order they were
 * read, one read before a stored copy of the other run's is dropped
 * (logged), so the database never goes back to older files.
 * When the game still runs on another live node (its heartbeat names it:
 * until its last copy there is stored or given up, the program ended or
 * not), or its files were over copy-max there, or were read there as other ids
 * than the game's programs run as here (each copy records its uid and
 * gid: a game may name its files by uid, as NetHack does), the player is
 * told so in plain words and nothing starts. This node then holds the
 * set.
 *
 * With SQLite (one machine), or copy-max 0, nothing is copied: a start
 * goes on at once, as before. Home's loop only. */
#ifndef WARREN_HOSTCOPY_H
#define WARREN_HOSTCOPY_H
#include <stdbool.h>
#include <stdint.h>
#include "gamecfg.h"
#include "server.h"

typedef struct conn conn_t;

#define HOSTCOPY_EVERY_MS     2000 /* a running game's files are copied at most this often */
#define HOSTCOPY_RETRY_MS     500  /* ... read again this soon after a read put off */
/* A last copy asked again at most this often (2 minutes), then given up:
 * its files stay on this node's disk; fewer once warrend stops, within
 * deploy/warrend.service's TimeoutStopSec (60 s). */
#define HOSTCOPY_RETRIES      (120000 / HOSTCOPY_RETRY_MS)
#define HOSTCOPY_STOP_RETRIES (30000 / HOSTCOPY_RETRY_MS)

/* What starts the game once its files are in place (hostgame.c). */
typedef void hostcopy_go_fn(conn_t *c, const gamecfg_t *g);

/* Before a new run of g for c: go(c, g) once the player's files here are
 * the newest the database holds, or c back in its menu, told why not.
 * go is called within this call when nothing is copied; else later, and
 * only while c still waits for it (CONN_WAIT, the same account). */
void hostcopy_before(conn_t *c, const gamecfg_t *g, hostcopy_go_fn *go);

typedef struct hostcopy hostcopy_t;

/* A running game's copies: user's files of g in their directory dir
 * (the account's game name); game its session's id. NULL when nothing
 * is copied (SQLite, copy-max 0, out of memory). Until hc frees itself
 * (after its last copy), the node's heartbeat names the game (peer.h:
 * peer_hosted_t). */
hostcopy_t *hostcopy_new(server_t *srv, int64_t game, int64_t user, const char *player,
                         const gamecfg_t *g, const char *dir);
/* The program wrote to its terminal: a copy within HOSTCOPY_EVERY_MS,
 * or later when copy-rate holds it back. */
void hostcopy_changed(hostcopy_t *hc);
/* Whether the player's files were over copy-max at the last copy. */
bool hostcopy_over(const hostcopy_t *hc);
/* The game is over here (its program ended, or its session goes): one
 * last copy, then hc frees itself. NULL is fine. */
void hostcopy_end(hostcopy_t *hc);

/* Home's spawner asks the last copies waiting for a place again as soon
 * as one frees (spawner_on_place). */
void hostcopy_attach(server_t *home);

/* A clean stop (home, its hosted games hung up): fn(home) once every
 * game's last copy here is stored (queued to the writer) or given up; at
 * once when none is on its way. The stop lets the node's heartbeat go in
 * fn (lease_stop): until then other nodes still list its hosted games as
 * running here, so none starts one from the copy before its last (the
 * player's last moves lost). The wait is the one the loop makes anyway
 * (a last copy keeps it alive, HOSTCOPY_STOP_RETRIES at most). */
void hostcopy_after_last(server_t *home, void (*fn)(server_t *home));

#endif
