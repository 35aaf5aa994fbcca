/* shard — `loops = N`: Warren's games spread over N libuv loops, one thread
 * each.
 *
 * Loop 0 is the home loop: it runs everything that is not a Warren game
 * session (listeners, gateways, connections outside Warren games, menus,
 * accounts, the web site, hosted games, the control socket, signals).
 * Loops 1..N-1 run only Warren game sessions and the terminals in them: an
 * account's game always lives on loop user_id % N, the same loop on every
 * run, so its journal, snapshots and recovery stay on one thread. Each loop is a server_t of its own (its
 * sessions, their lists, its script vm, its database handle from
 * db_attach, its one-second tick); the configuration, content, database
 * file and writer, moderation and the connection budget are shared.
 *
 * How the loops talk:
 *   shard_post    runs a function on another loop's thread, in the order
 *                 posted (a mailbox woken by uv_async). A terminal in a
 *                 game elsewhere is handed to that loop in a post (its
 *                 socket moves; conn_to_game) and comes home for the menu;
 *                 a browser stays on loop 0, and a game elsewhere sees it
 *                 through a relay conn (relay.h) fed by posts.
 *   shards_each   runs a function on every loop in turn (the admin's
 *                 commands on connections, wherever they are).
 *   shard_lock    loop 0 parks another loop between two of its callbacks
 *                 (asked through a uv_async, it waits in that callback)
 *                 and reads or changes its sessions directly: the watch
 *                 list, the lobby, the admin's commands. Only loop 0 parks
 *                 others, and a parked loop waits for nothing of loop 0's,
 *                 so there is no deadlock.
 *
 * With loops = 1 (the default) there is no other loop: every call below
 * is about loop 0 itself and costs nothing. */
#ifndef WARREN_SHARD_H
#define WARREN_SHARD_H
#include <stdbool.h>
#include <stdint.h>

typedef struct server server_t;
typedef struct shards shards_t;
typedef void (*shard_fn)(server_t *on, void *ud);

#define LOOPS_MAX 64

/* Starts loops 1..cfg.loops-1 beside home (after server_open made its
 * content and database). Returns 0, or -1 with the reason logged. */
int shards_start(server_t *home);
/* Shutdown: every other loop saves its games and stores their keys, then
 * stops; done runs on home once all have. Immediate without other loops. */
void shards_shutdown(server_t *home, void (*done)(server_t *home));
/* After home's loop ran down: joins the threads, frees the loops. */
void shards_free(server_t *home);

/* The next of one count shared by every loop (any thread): of two
 * stamps, the smaller was taken first, whichever loops took them. With
 * one loop, its own count (its thread only). Never 0. */
uint64_t shard_stamp(server_t *any);

int shard_count(const server_t *any);
server_t *shard_at(const server_t *any, int i); /* 0: home */
/* The loop whose sessions hold this account's Warren game. */
server_t *shard_of_user(const server_t *any, int64_t user_id);

/* Games paused for storage on every loop (storage.c keeps it): they share
 * one database, so a failure on one loop refuses new games on all. */
void shard_paused_add(server_t *any, int d);
int shard_paused_all(const server_t *any);

/* Runs fn(to, ud) on to's thread after what was posted before. Returns 0,
 * or -1 when to is stopped (fn never runs: the caller frees ud). Any thread. */
int shard_post(server_t *to, shard_fn fn, void *ud);
/* Mailbox of one loop: made by server_init's caller, closed at shutdown. */
int shard_mailbox_open(server_t *s);
void shard_mailbox_close(server_t *s);
void shard_mailbox_free(server_t *s);

/* From home: fn(k, ud) on every loop's thread, for what lives there (a
 * conn handed to a game's loop): home's now, each other loop's in turn on
 * its own thread, then home's again (what came home meanwhile), then
 * done(home, ud). A conn on its way between loops is met on one of them.
 * fn may run on several threads at once. */
void shards_each(server_t *home, shard_fn fn, void *ud, shard_fn done);

/* From home only: k's loop is parked until shard_unlock (no-op for home). */
void shard_lock(server_t *k);
void shard_unlock(server_t *k);
/* From home only: every other loop parked, for a read across all of them. */
void shards_lock_all(server_t *home);
void shards_unlock_all(server_t *home);

#endif
