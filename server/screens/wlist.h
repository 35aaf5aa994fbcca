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
 * When a log was lost (or on first use) the rows are rebuilt from the
 * games: a row whose game is still the one it was keeps its place in the
 * order they came, the others come after it in the order their games
 * started (their came_stamp), as the changes would have brought them.
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
#include "list.h"
#include "server.h"
#include "session.h"

typedef struct wl_row {
    hnode_t hn;     /* the cache's rows by game */
    list_t came;    /* the cache's rows in the order they came */
    uint64_t seq;   /* the how-manieth row to come */
    uint64_t stamp; /* its game's came_stamp (session.h): the order they came in */
    bool kept;      /* wlist.c's: found live by the rebuild under way */
    server_t *k;    /* the loop the game is on */
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

/* One viewer's page as drawn, so that a letter always means the game the
 * viewer saw under it: the games stay under their letters while the page
 * is shown. A game that ends keeps its letter, marked ended, for
 * WL_GONE_KEEP_MS (a key typed for it may still be on its way); after
 * that a new game may take it, and the last letters are freed. A new game
 * takes a free letter below the others, so no letter ever moves to
 * another game; new games take theirs in the order they started, whichever
 * loops they are on (the changes' stamps: wl_apply_all). The page is laid
 * anew in its order when the viewer opens the list, turns a page or sorts. */
#define WL_VIEW_ROWS    15
#define WL_GONE_KEEP_MS 10000

typedef struct wl_slot {
    server_t *k; /* the loop the game is on */
    int64_t game_id, user_id;
    char user[32];
    uint64_t gone_ms; /* when it was first seen gone; 0 while live */
} wl_slot_t;

typedef struct wl_view {
    wl_slot_t slot[WL_VIEW_ROWS];
    int n;        /* slots in use: slot[0, n) */
    uint64_t seq; /* rows that came from this seq on are not placed yet */
} wl_view_t;

/* v laid as page `page` (WL_VIEW_ROWS games) of order `key`, the page
 * kept within the games; returns the page laid. */
int wlist_view_lay(server_t *home, wl_view_t *v, int key, int page);
/* v brought up to date (now_ms the loop's clock): slots whose game went
 * are marked, new games take free slots. */
void wlist_view_update(server_t *home, wl_view_t *v, uint64_t now_ms);
/* The live row under slot i of v, as of the latest sync; NULL when the
 * slot is free or its game went. Valid until the next sync. */
const wl_row_t *wlist_view_row(server_t *home, const wl_view_t *v, int i);
/* How many games are live, as of the latest sync. */
size_t wlist_count(server_t *home);

#endif
