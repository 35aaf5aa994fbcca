/* outhold — a round of the journal's answers written back to back.
 *
 * The journal answers a commit's keys in rounds on the loop (db_on_round:
 * a commit's, or a turn's few ms of a large one), each key with its
 * game's frame. Written as each frame is drawn, the
 * round's writes come a render apart, and a reader on the same machine (a
 * gateway, a proxy, the load tool over loopback) is woken from its sleep by
 * nearly every one: the wake-up, an interrupt to the other core, is paid
 * inside the write. Held while the round is drawn and written together at
 * its end, they wake each reader about once a round.
 *
 * A transport that holds its writes (conn_ops_t.send_held) offers each of
 * them to outhold_add first; what it keeps (a copy) goes out through
 * send_held at the round's end, in the order written, a conn's bytes that
 * came one after another in one call. The held bytes are capped
 * (OUTHOLD_CONNS conns' runs, OUTHOLD_BYTES bytes): past the cap what is
 * held goes out at once and holding starts over, so no frame waits for
 * more than about OUTHOLD_CONNS renders (a quarter of a millisecond).
 * Loop thread only; the state is the loop's (server_t.hold), made at the
 * first round and freed by outhold_free. */
#ifndef WARREN_OUTHOLD_H
#define WARREN_OUTHOLD_H
#include <stdbool.h>
#include <stddef.h>

typedef struct server server_t;
typedef struct conn conn_t;

#define OUTHOLD_CONNS 16
#define OUTHOLD_BYTES (256 * 1024)

/* A round begins (rounds nest: the outermost one's end writes). Out of
 * memory: nothing is held this round. */
void outhold_begin(server_t *s);
/* The round ends: what it held is written (send_held), conn by conn. */
void outhold_end(server_t *s);
/* Keeps a copy of c's bytes for the round's end: true; false when no
 * round is on (the caller writes them now). Holds a ref on c meanwhile. */
bool outhold_add(conn_t *c, const void *data, size_t len);
/* What is held goes now (the round goes on holding): a gateway about to
 * close a conn calls it first, so what the round wrote to it (a goodbye)
 * goes out before the close. */
void outhold_flush(server_t *s);
/* outhold_begin (begin) or outhold_end for the server srv: what
 * db_on_round calls (storage_init sets it). */
void outhold_round(void *srv, bool begin);
/* Nothing may be held (no round on). */
void outhold_free(server_t *s);

#endif
