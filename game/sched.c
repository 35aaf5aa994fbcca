/* sched — binary heap on (tick, seq). */
#include "sched.h"
#include <string.h>

void sched_init(sched_t *s, galloc_t *al)
{
    memset(s, 0, sizeof *s);
    s->al = al;
}

void sched_free(sched_t *s)
{
    gfree(s->al, s->heap);
    s->heap = NULL;
    s->n = s->cap = 0;
}

static inline bool ev_before(const event_t *a, const event_t *b)
{
    return a->tick < b->tick || (a->tick == b->tick && a->seq < b->seq);
}

static void sift_up(event_t *h, uint32_t i)
{
    event_t e = h[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!ev_before(&e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static void sift_down(event_t *h, uint32_t n, uint32_t i)
{
    event_t e = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_before(&h[c + 1], &h[c]))
            c++;
        if (!ev_before(&h[c], &e))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

static int sched_reserve(sched_t *s, uint32_t want)
{
    if (want <= s->cap)
        return 0;
    if (want > SCHED_MAX_EVENTS)
        return -1;
    uint32_t cap = s->cap ? s->cap * 2 : 16;
    while (cap < want)
        cap *= 2;
    event_t *h = grealloc(s->al, s->heap, cap * sizeof *h);
    if (!h)
        return -1;
    s->heap = h;
    s->cap = cap;
    return 0;
}

static int sched_insert(sched_t *s, const event_t *e)
{
    if (sched_reserve(s, s->n + 1) < 0)
        return -1;
    s->heap[s->n] = *e;
    sift_up(s->heap, s->n);
    s->n++;
    return 0;
}

int sched_push(sched_t *s, uint64_t at, uint16_t fn, handle_t target, int32_t a0, int32_t a1)
{
    event_t e = {at < s->now ? s->now : at, s->next_seq, fn, target, {a0, a1}};
    if (sched_insert(s, &e) < 0)
        return -1;
    s->next_seq++;
    return 0;
}

bool sched_pop(sched_t *s, event_t *out)
{
    if (s->n == 0)
        return false;
    *out = s->heap[0];
    s->n--;
    if (s->n) {
        s->heap[0] = s->heap[s->n];
        sift_down(s->heap, s->n, 0);
    }
    s->now = out->tick;
    return true;
}

int sched_cancel(sched_t *s, handle_t h)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->heap[i].target != h)
            s->heap[kept++] = s->heap[i];
    int removed = (int)(s->n - kept);
    s->n = kept;
    /* rebuild only when something left: order of (tick, seq) is total, so the
     * pop sequence does not depend on the layout */
    if (removed)
        for (uint32_t i = kept / 2; i-- > 0;)
            sift_down(s->heap, s->n, i);
    return removed;
}

uint32_t sched_cost(uint32_t base, int speed)
{
    if (speed < 1)
        speed = 1;
    uint32_t c = (uint32_t)(((uint64_t)base * 100u + (uint64_t)speed / 2) / (uint64_t)speed);
    return c ? c : 1;
}

void sched_save(const sched_t *s, ser_t *out)
{
    ser_u64(out, s->now);
    ser_u64(out, s->next_seq);
    ser_u32(out, s->n);
    for (uint32_t i = 0; i < s->n; i++) {
        const event_t *e = &s->heap[i];
        ser_u64(out, e->tick);
        ser_u64(out, e->seq);
        ser_u16(out, e->fn);
        ser_u32(out, e->target);
        ser_i32(out, e->arg[0]);
        ser_i32(out, e->arg[1]);
    }
}

int sched_load(sched_t *s, rd_t *in, uint16_t nfn)
{
    s->now = rd_u64(in);
    s->next_seq = rd_u64(in);
    uint32_t n = rd_u32(in);
    if (in->bad)
        return -1;
    if (n > SCHED_MAX_EVENTS || n > (in->len - in->pos) / 30) {
        rd_fail(in, "bad event count");
        return -1;
    }
    if (sched_reserve(s, n) < 0) {
        rd_fail(in, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        event_t e;
        e.tick = rd_u64(in);
        e.seq = rd_u64(in);
        e.fn = rd_u16(in);
        e.target = rd_u32(in);
        e.arg[0] = rd_i32(in);
        e.arg[1] = rd_i32(in);
        if (in->bad)
            return -1;
        if (e.fn >= nfn || e.tick < s->now || e.seq >= s->next_seq) {
            rd_fail(in, "bad event");
            return -1;
        }
        /* inserting a valid heap in array order reproduces it exactly;
         * a damaged order is repaired instead of trusted */
        sched_insert(s, &e);
    }
    return 0;
}
