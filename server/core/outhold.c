/* outhold — a round's writes held and written back to back; see outhold.h. */
#include "outhold.h"
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "conn.h"
#include "server.h"

/* One conn's bytes that came one after another: [off, off + len) of the
 * held bytes. */
typedef struct {
    conn_t *c; /* a ref held */
    size_t off, len;
} held_run_t;

struct outhold {
    int depth; /* rounds begun and not ended; 0: nothing is held */
    buf_t bytes;
    held_run_t run[OUTHOLD_CONNS];
    int n;
};

void outhold_begin(server_t *s)
{
    if (!s->hold && !(s->hold = calloc(1, sizeof *s->hold)))
        return; /* out of memory: this round writes as it goes */
    s->hold->depth++;
}

/* Writes what is held, in order, and empties the hold. A write may close
 * its conn, and what that sets off may write to others: the runs are taken
 * out first and nothing is held while they go, so those writes go out at
 * once (a round begun meanwhile holds afresh). */
static void hold_flush(struct outhold *h)
{
    held_run_t run[OUTHOLD_CONNS];
    int n = h->n, depth = h->depth;
    memcpy(run, h->run, sizeof run[0] * (size_t)n);
    buf_t bytes = h->bytes;
    buf_init(&h->bytes);
    h->n = 0;
    h->depth = 0;
    for (int i = 0; i < n; i++) {
        conn_t *c = run[i].c;
        if (!c->closing)
            c->ops->send_held(c, bytes.data + run[i].off, run[i].len);
        conn_unref(c);
    }
    h->depth += depth;
    if (!h->bytes.data) { /* its memory kept for the next round */
        buf_reset(&bytes);
        h->bytes = bytes;
    } else {
        buf_free(&bytes);
    }
}

void outhold_end(server_t *s)
{
    struct outhold *h = s->hold;
    if (!h || h->depth == 0 || --h->depth > 0)
        return;
    hold_flush(h);
}

void outhold_flush(server_t *s)
{
    if (s->hold && s->hold->n > 0)
        hold_flush(s->hold);
}

void outhold_round(void *srv, bool begin)
{
    if (begin)
        outhold_begin(srv);
    else
        outhold_end(srv);
}

bool outhold_add(conn_t *c, const void *data, size_t len)
{
    struct outhold *h = c->srv->hold;
    if (!h || h->depth == 0)
        return false;
    bool joins = h->n > 0 && h->run[h->n - 1].c == c;
    if ((!joins && h->n == OUTHOLD_CONNS) || h->bytes.len + len > OUTHOLD_BYTES) {
        hold_flush(h); /* the cap: what is held goes now, this write after it */
        joins = false;
        if (len > OUTHOLD_BYTES || h->depth == 0)
            return false; /* written now, nothing held before it */
    }
    if (!buf_reserve(&h->bytes, len)) {
        hold_flush(h); /* out of memory: written now, after what was held */
        return false;
    }
    buf_put(&h->bytes, data, len);
    if (joins) {
        h->run[h->n - 1].len += len;
        return true;
    }
    conn_ref(c);
    h->run[h->n++] = (held_run_t){c, h->bytes.len - len, len};
    return true;
}

void outhold_free(server_t *s)
{
    if (!s->hold)
        return;
    buf_free(&s->hold->bytes);
    free(s->hold);
    s->hold = NULL;
}
