/* jqueue — a game's journal rows on their way to the database, and what
 * follows from each append's outcome. Pure: no clock, no I/O; the session
 * submits each row, reports each outcome, and acts on the answer.
 *
 * A frame is an acknowledgement: it may go out only when every key the
 * engine has applied is stored (JQ_STORED, JQ_RESUMED). A failed append
 * keeps its row and pauses the game (JQ_PAUSED): the session applies no
 * more keys, and every later row in flight fails too (the database stores
 * no row whose predecessor is missing). Once nothing is in flight the held
 * rows wait for a retry (jqueue_retry_due); jqueue_take_held hands them
 * back, in order, to be submitted again. When a retry has stored them all
 * the game resumes (JQ_RESUMED).
 *
 * Outcomes must be reported in the order the rows were submitted (the
 * database's write order). Retries are paced by jqueue_backoff: 100 ms,
 * doubling to 5 s.
 *
 * Ownership: the caller owns the jqueue_t; jqueue_free releases its rows. */
#ifndef WARREN_JQUEUE_H
#define WARREN_JQUEUE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JQUEUE_KEYS_MAX  8    /* bytes of one row's packed keys */
#define JQUEUE_DELAY_MIN 100  /* ms before the first retry */
#define JQUEUE_DELAY_MAX 5000 /* ms between retries at most */

typedef struct {
    uint64_t seq;
    int64_t ms; /* the row's time (db_journal_append) */
    uint8_t len;
    uint8_t keys[JQUEUE_KEYS_MAX];
} jqueue_row_t;

typedef struct {
    jqueue_row_t *rows; /* [head, n): held rows first, then rows in flight */
    size_t head, n, cap;
    size_t held;     /* failed, waiting for a retry */
    size_t inflight; /* submitted, outcome owed */
    bool paused;     /* an append failed and no retry has stored everything since */
    uint64_t stored; /* the newest seq known stored */
} jqueue_t;

typedef enum {
    JQ_WAIT,    /* outcomes still owed, or held rows wait for a retry */
    JQ_STORED,  /* every row is stored: the frame may go */
    JQ_PAUSED,  /* the first failure: stop applying keys, tell the viewers */
    JQ_RESUMED, /* a retry stored every held row: keys and frames again */
} jqueue_event_t;

void jqueue_init(jqueue_t *q);
void jqueue_free(jqueue_t *q);
/* A row about to be submitted (in flight from now): its copy, valid until
 * the next call that changes q; NULL while paused, when out of memory or
 * when keys do not fit (then nothing changed). */
const jqueue_row_t *jqueue_push(jqueue_t *q, uint64_t seq, const uint8_t *keys, size_t len,
                                int64_t ms);
/* The outcome of the oldest row in flight (ok: stored). */
jqueue_event_t jqueue_done(jqueue_t *q, bool ok);
bool jqueue_paused(const jqueue_t *q);
bool jqueue_empty(const jqueue_t *q);      /* nothing held or in flight */
bool jqueue_retry_due(const jqueue_t *q);  /* held rows and nothing in flight */
size_t jqueue_unstored(const jqueue_t *q); /* rows held or in flight */
/* The held rows, oldest first, now in flight again; *n of them. The
 * pointer is valid until the next call that changes q. */
const jqueue_row_t *jqueue_take_held(jqueue_t *q, size_t *n);
/* Drops every held row (given up: they were never acknowledged); returns
 * how many. Rows in flight stay. */
size_t jqueue_drop_held(jqueue_t *q);
/* The delay before the next retry after one of prev_ms (0: the first). */
uint32_t jqueue_backoff(uint32_t prev_ms);

#endif
