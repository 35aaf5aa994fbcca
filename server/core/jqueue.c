/* jqueue — journal rows on their way to the database; see jqueue.h. */
#include "jqueue.h"
#include <stdlib.h>
#include <string.h>

void jqueue_init(jqueue_t *q)
{
    memset(q, 0, sizeof *q);
}

void jqueue_free(jqueue_t *q)
{
    free(q->rows);
    jqueue_init(q);
}

/* Room for one more row at the end: the front is compacted first, the
 * array grows only when it is full. */
static int make_room(jqueue_t *q)
{
    if (q->n < q->cap)
        return 0;
    if (q->head > 0) {
        memmove(q->rows, q->rows + q->head, (q->n - q->head) * sizeof *q->rows);
        q->n -= q->head;
        q->head = 0;
        return 0;
    }
    size_t cap = q->cap ? q->cap * 2 : 16;
    jqueue_row_t *r = realloc(q->rows, cap * sizeof *r);
    if (!r)
        return -1;
    q->rows = r;
    q->cap = cap;
    return 0;
}

const jqueue_row_t *jqueue_push(jqueue_t *q, uint64_t seq, const uint8_t *keys, size_t len,
                                int64_t ms)
{
    if (q->paused || len > JQUEUE_KEYS_MAX || make_room(q))
        return NULL;
    jqueue_row_t *r = &q->rows[q->n++];
    *r = (jqueue_row_t){.seq = seq, .ms = ms, .len = (uint8_t)len};
    if (len)
        memcpy(r->keys, keys, len);
    q->inflight++;
    return r;
}

/* Removes the row at index i of the live part (the oldest in flight). */
static void remove_at(jqueue_t *q, size_t i)
{
    size_t at = q->head + i;
    if (i == 0) {
        q->head++;
    } else {
        memmove(q->rows + at, q->rows + at + 1, (q->n - at - 1) * sizeof *q->rows);
        q->n--;
    }
    if (q->head == q->n)
        q->head = q->n = 0;
}

jqueue_event_t jqueue_done(jqueue_t *q, bool ok)
{
    if (q->inflight == 0)
        return JQ_WAIT; /* nothing was owed: ignore */
    q->inflight--;
    if (!ok) {
        q->held++; /* the oldest in flight sits right after the held rows */
        if (!q->paused) {
            q->paused = true;
            return JQ_PAUSED;
        }
        return JQ_WAIT;
    }
    uint64_t seq = q->rows[q->head + q->held].seq;
    if (seq > q->stored)
        q->stored = seq;
    remove_at(q, q->held);
    if (q->inflight > 0 || q->held > 0)
        return JQ_WAIT;
    if (q->paused) {
        q->paused = false;
        return JQ_RESUMED;
    }
    return JQ_STORED;
}

bool jqueue_paused(const jqueue_t *q)
{
    return q->paused;
}

bool jqueue_empty(const jqueue_t *q)
{
    return q->held == 0 && q->inflight == 0;
}

bool jqueue_retry_due(const jqueue_t *q)
{
    return q->held > 0 && q->inflight == 0;
}

size_t jqueue_unstored(const jqueue_t *q)
{
    return q->held + q->inflight;
}

const jqueue_row_t *jqueue_take_held(jqueue_t *q, size_t *n)
{
    *n = q->inflight == 0 ? q->held : 0; /* held rows go first, before newer ones */
    q->inflight += *n;
    q->held -= *n;
    return q->rows + q->head;
}

size_t jqueue_drop_held(jqueue_t *q)
{
    size_t n = q->held;
    for (size_t i = 0; i < n; i++)
        remove_at(q, 0);
    q->held = 0;
    return n;
}

uint32_t jqueue_backoff(uint32_t prev_ms)
{
    if (prev_ms < JQUEUE_DELAY_MIN)
        return JQUEUE_DELAY_MIN;
    return prev_ms >= JQUEUE_DELAY_MAX / 2 ? JQUEUE_DELAY_MAX : prev_ms * 2;
}
