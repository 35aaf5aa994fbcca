/* wlist — the watch list's data: every live game of every loop as a row,
 * kept up to date from the loops' change logs (server_t.changes: a game
 * came, ended or went) instead of a walk of every session, and the orders
 * the watch list shows them in.
 *
 * The rows are kept in the player order (by name) at all times: a game
 * that comes is put in its place, one that goes is taken out. The other
 * orders are made when a viewer asks for them, at most once a tick, from
 * what the loops already keep: the latest keyed from each loop's
 * by_recency list, the watched from its watched list (then the rest by
 * name), each only as far as the viewer's page. Depth and turn are read
 * from every game once a tick while someone looks at those orders.
 *
 * The cost per tick is the changes (games that came or went) and what is
 * shown, not the number of games: 100 viewers of 10,000 games cost no
 * walk. With --test-lists every sync is checked against a rebuild from
 * the sessions, and a difference is logged ("watch list differs").
 *
 * Home loop only: other loops are parked (shard_lock) while read. The
 * cache is the home server_t's `wl`; menu_cache_free frees it. */
#ifndef WARREN_WLIST_H
#define WARREN_WLIST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hmap.h"
#include "server.h"
#include "session.h"

typedef struct wl_row {
    hnode_t hn;  /* the cache's rows by game */
    server_t *k; /* the loop the game is on */
    int64_t game_id, user_id;
    char user[32];
    uint64_t last_key_ms;
    int watchers, depth;
    uint64_t turn;
    uint64_t mark; /* wlist.c's: in the watched part of an order */
    /* what a shown row says, read once a tick by its first viewer */
    uint64_t detail_tick; /* ticks + 1 when read; 0 never */
    char race_cls[40], term[16];
} wl_row_t;

enum { WL_BY_PLAYER, WL_BY_DEPTH, WL_BY_TURN, WL_BY_IDLE, WL_BY_WATCHERS, WL_ORDERS };

/* The live games in order `key` (WL_BY_*), the first min(need, *n) of
 * them at least; *n is how many games are live. NULL (and *n 0) when out
 * of memory. Valid until the next call. */
const wl_row_t *const *wlist_order(server_t *home, int key, size_t need, size_t *n);
/* rows[from, to) filled in with what they show, as their games are now:
 * every loop parked once for all of them, each row once a tick. */
void wlist_detail(server_t *home, const wl_row_t *const *rows, size_t from, size_t to);
/* The loops' changes applied now, not at the next tick (before acting on
 * a viewer's pick). */
void wlist_sync(server_t *home);
/* The game of row r on its loop (parked by the caller), NULL once it went. */
session_t *wlist_game(const wl_row_t *r);
void wlist_free(server_t *home);

#endif
