/* hostrec — the recording of one hosted game as it runs: every read of the
 * program's output and every window size, timed in milliseconds since the
 * game's start, collected into chunks (recchunk.h) that go through the
 * database writer (db_hosted.h) every HOSTREC_FLUSH_MS of activity or
 * HOSTREC_CHUNK_RAW bytes, and at every save point.
 *
 * The recording is the hosted_games row of the player's game: the open one
 * of this user and [game ID] when there is one (a program hung up or cut
 * off by a crash restores its save and goes on), else a new row. Output
 * is recorded up to record-max bytes (the read that crosses it up to the
 * byte), the rest not: the row is marked truncated and the game goes on.
 * Once the row is known, its cap is lower when the account's other rows
 * begun in the last 24 hours leave less than that of record-per-day (so
 * one account playing game after game cannot grow the database without
 * bound; output before the row was known is cut at it too); when they
 * hold all of it, no row is made and the game runs unrecorded.
 *
 * Compression runs on the loop: a chunk is at most about 80 KB raw, about
 * a millisecond of zlib, and a flooding program is read at most
 * PTYPROC_READ_BUDGET bytes per loop turn (about 4 turns per chunk).
 *
 * Lifetime: hostrec_open returns an object owned by the hosted game;
 * hostrec_close hands it back (it writes what it holds and frees itself
 * once its database answer and timer are done). Loop thread only; close
 * before the database is closed. */
#ifndef WARREN_HOSTREC_H
#define WARREN_HOSTREC_H
#include <stddef.h>
#include <stdint.h>
#include "db.h"
#include "server.h"

#define HOSTREC_FLUSH_MS  2000        /* a chunk is written this long after its first record */
#define HOSTREC_CHUNK_RAW (64 * 1024) /* ... or once it holds this many raw bytes */

typedef struct hostrec hostrec_t;

/* Starts recording user's game of [game ID] game, whose window is w x h.
 * NULL when record-max is 0 or out of memory (the game runs unrecorded). */
hostrec_t *hostrec_open(server_t *srv, int64_t user, const char *game, int w, int h);
/* The recording's row (/hosted/ID); 0 while the database has not answered
 * or for NULL. */
int64_t hostrec_id(const hostrec_t *r);
/* The program's output as read (copied), and a new window size. */
void hostrec_output(hostrec_t *r, const char *bytes, size_t len);
void hostrec_resize(hostrec_t *r, int w, int h);
/* Writes the chunk being collected now (a save point: detach, shutdown). */
void hostrec_flush(hostrec_t *r);
/* The program ended: the row gets its end time and, given score (an
 * xlogfile row, stored here as db_hosted_score_add does), its link to that
 * score row. r may not be NULL. */
void hostrec_end(hostrec_t *r, const db_hosted_score_t *score);
/* Flushes and lets go of r (NULL is fine). The row stays as it is. */
void hostrec_close(hostrec_t *r);

#endif
