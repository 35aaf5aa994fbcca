/* readturn — a loop turn's share of input.
 *
 * libuv hands every socket ready in a turn to one poll, and each key's
 * step (a game's, a menu's) runs as it is read: ten thousand players
 * keying in the same second held one turn, and with it every timer,
 * heartbeat and other socket, for close to 200 ms. So a turn handles keys
 * for READTURN_NS, measured from its first key; a key that comes after is
 * kept, in order, with its conn's, and its conn's reading paused
 * (conn_ops_t.pause: the kernel keeps the rest and TCP pushes back). The
 * next turns play the kept keys first (an idle handle, before the poll),
 * conns in the order they were kept, each conn's keys in theirs, a conn
 * cut short by the budget first again; a conn whose keys are all played
 * reads again. A conn keeps at most READTURN_KEPT_MAX keys (8 KB, far
 * more than a player types in a turn; a paste can be more: a telnet read
 * is up to 4 KB, a websocket message 64 KB); at one past that its kept
 * keys and that one are played at once, in order, over the budget: no
 * key is ever lost or played out of turn.
 *
 * Input that is not a key keeps its place too: a size, a terminal type,
 * a protocol error or the peer's end that comes after kept keys is a
 * mark (readturn_keep_mark), played in its turn between the keys, so the
 * keys typed before a resize are drawn at the old size and a peer that
 * types and hangs up has every key it sent played before its conn
 * closes. A conn keeps at most READTURN_MARKS_MAX marks; one past that
 * plays its kept input at once, as the keys' cap does.
 *
 * Tests set a budget in keys instead (test-read-budget = N: N keys a
 * turn). conn_key asks readturn_keep first. The state is the loop's
 * (server_t.readturn), made at its first key; loop thread only. */
#ifndef WARREN_READTURN_H
#define WARREN_READTURN_H
#include <stdbool.h>
#include <stdint.h>
#include "keys.h"

typedef struct server server_t;
typedef struct conn conn_t;

#ifndef READTURN_NS /* a build may set another, to compare (-DREADTURN_NS=...) */
#define READTURN_NS 8000000u
#endif
#define READTURN_KEPT_MAX  1024
#define READTURN_MARKS_MAX 16

/* Input that is not a key: run(c, m) plays it, a, b and why its own
 * (why a string constant). */
typedef struct readmark readmark_t;
struct readmark {
    void (*run)(conn_t *c, const readmark_t *m);
    int a, b;
    const char *why;
};

/* Whether k, a key c typed, is kept for a later turn (true: the caller is
 * done with it) or is c's to handle now (false; it is counted). */
bool readturn_keep(conn_t *c, key_event_t k);
/* Whether m, input of c's that is not a key, waits behind c's kept input
 * (true: it is kept, m copied, and run in its turn) or is the caller's to
 * handle now (false: c has nothing kept). */
bool readturn_keep_mark(conn_t *c, const readmark_t *m);
/* c leaves this loop (conn_to_game): its kept keys and marks are played
 * now, over the budget, in order, and it reads again. */
void readturn_flush(conn_t *c);
/* c is freed: its kept keys and marks go with it (conn_fini). */
void readturn_drop(conn_t *c);
/* Turns so far that ended with keys kept, and the keys kept (health):
 * with a budget of one key a turn, at least one turn per kept key but
 * the last. */
uint64_t readturn_kept_turns(const server_t *s);
uint64_t readturn_kept_keys(const server_t *s);
/* The bytes the loop's conns hold for kept keys now (health). */
uint64_t readturn_ring_bytes(const server_t *s);
/* The loop stops: the keys kept are played now (before the games are
 * saved), its handles close; keys after this are handled at once. */
void readturn_close(server_t *s);
/* After the loop ran down (server_bufs_free). */
void readturn_free(server_t *s);

#endif
