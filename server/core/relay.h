/* relay — a conn on the home loop that plays or watches a game on another
 * loop (shard.h): a browser's, whose gateway cannot move it (conn_ops_t
 * move is NULL; a telnet conn is handed to the game's loop instead).
 *
 * The game's loop sees a stand-in conn, the relay, with the conn's size,
 * terminal and account copied: sessions, watchers' overlays and chat use it
 * as any conn. Its writes travel home as posts and go out on the real conn;
 * the real conn's keys, sizes and drains travel the other way, and so do
 * the calls of the layers above (relay_to_game, relay_to_home: a chat
 * line, a watcher's next game). When the game lets it go (conn_menu,
 * conn_message: conn.c asks relay_menu), the real conn is back in the
 * menu at home.
 *
 * Ownership: a relay is held by each side (the home conn while linked, the
 * stand-in until released) and by every post on its way; the last lets go.
 * Each side touches only its own fields. */
#ifndef WARREN_RELAY_H
#define WARREN_RELAY_H
#include <stddef.h>
#include <stdint.h>
#include "conn.h"
#include "keys.h"

typedef struct relay relay_t;

/* Home: c (in the menu) plays its Warren game on loop k, or watches the
 * game game_id there (0: plays). c waits meanwhile. */
void relay_start(conn_t *c, server_t *k, int64_t game_id);
/* Home: c's key, its new size or options, its output queue emptied. */
void relay_key(conn_t *c, key_event_t k);
void relay_resized(conn_t *c);
void relay_drained(conn_t *c);
/* Home: c leaves its game; the menu with why, unless NULL or closing. */
void relay_detach(conn_t *c, const char *why);
/* Home: the loop of c's game, and (that loop parked) the session its
 * stand-in views, NULL while it has none. */
server_t *relay_game_loop(const conn_t *c);
const session_t *relay_session(const conn_t *c);
/* What a layer above asks of the other side, carried in order with the
 * rest: fn runs there with a copy of data (len bytes, NUL added; NULL: no
 * data) and arg, given the conn of that side while it is open (the
 * stand-in, while linked for the real conn). A post that cannot go (a
 * loop stopping, out of memory) is dropped. */
typedef void (*relay_fn)(conn_t *c, const char *data, size_t len, int arg);
/* Home: fn on the game's loop with the stand-in of c. */
void relay_to_game(conn_t *c, relay_fn fn, const char *data, size_t len, int arg);
/* The game's loop: fn at home with the real conn of the stand-in r. */
void relay_to_home(conn_t *r, relay_fn fn, const char *data, size_t len, int arg);

/* The game's loop, from conn.c: the stand-in r is sent to the menu
 * (enter), told a message (message) or too small (too_small); the others
 * are nothing to it. */
typedef enum { RELAY_ENTER, RELAY_MESSAGE, RELAY_TOO_SMALL, RELAY_OTHER } relay_menu_t;
void relay_menu(conn_t *r, relay_menu_t what, const char *msg);
/* The game's loop stops: r leaves its game without a word home (home
 * closes the real conn itself). */
void relay_stop(conn_t *r);
/* The game's loop, from conn_set_place: r now plays or watches. */
void relay_placed(conn_t *r);

#endif
