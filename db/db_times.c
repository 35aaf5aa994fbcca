/* db_times — where the time of the loops' journal appends went (db.h,
 * db_write_times): the last DB_TIMES_MAX appends, each with the moment
 * its callback came and its three parts, read over a window of time. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

static uint32_t us_of(uint64_t from, uint64_t to)
{
    uint64_t us = to > from ? (to - from) / 1000u : 0;
    return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

void db_times_add(db_timering_t *r, const uint64_t t[4])
{
    if (!r->v && !(r->v = calloc(DB_TIMES_MAX, sizeof *r->v)))
        return; /* out of memory: this one goes untimed */
    db_time_t *e = &r->v[r->head];
    *e = (db_time_t){t[3], us_of(t[0], t[1]), us_of(t[1], t[2]), us_of(t[2], t[3])};
    r->head = (r->head + 1) % DB_TIMES_MAX;
    if (r->n < DB_TIMES_MAX)
        r->n++;
}

void db_times_free(db_timering_t *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}

static uint32_t whole(const db_time_t *e)
{
    return e->queue_us + e->commit_us + e->back_us;
}

static int by_whole(const void *a, const void *b)
{
    uint32_t x = whole(a), y = whole(b);
    return (x > y) - (x < y);
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The value at fraction q of v's n sorted values (nearest rank). */
static double pct(const uint32_t *v, size_t n, double q)
{
    size_t i = (size_t)(q * (double)n);
    return n ? v[i < n ? i : n - 1] : 0;
}

/* The p99 of one part over the n appends of w. */
static double part_p99(const db_time_t *w, size_t n, size_t off, uint32_t *tmp)
{
    for (size_t i = 0; i < n; i++)
        memcpy(&tmp[i], (const char *)&w[i] + off, sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, by_u32);
    return pct(tmp, n, 0.99);
}

void db_times_read(const db_timering_t *r, uint64_t now, uint64_t window_ns, db_times_t *out)
{
    memset(out, 0, sizeof *out);
    db_time_t *w = r->n ? malloc(r->n * sizeof *w) : NULL;
    uint32_t *tmp = r->n ? malloc(r->n * sizeof *tmp) : NULL;
    size_t n = 0;
    for (size_t i = 0; w && tmp && i < r->n; i++)
        if (r->v[i].end_ns + window_ns >= now)
            w[n++] = r->v[i];
    out->n = n;
    if (n) {
        qsort(w, n, sizeof *w, by_whole);
        for (size_t i = 0; i < n; i++)
            tmp[i] = whole(&w[i]);
        out->p50 = pct(tmp, n, 0.5);
        out->p99 = pct(tmp, n, 0.99);
        out->max = tmp[n - 1];
        size_t from = (size_t)(0.99 * (double)n), k = n - (from < n ? from : n - 1);
        for (size_t i = n - k; i < n; i++) {
            out->slow_queue += w[i].queue_us / (double)k;
            out->slow_commit += w[i].commit_us / (double)k;
            out->slow_back += w[i].back_us / (double)k;
        }
        out->queue_p99 = part_p99(w, n, offsetof(db_time_t, queue_us), tmp);
        out->commit_p99 = part_p99(w, n, offsetof(db_time_t, commit_us), tmp);
        out->back_p99 = part_p99(w, n, offsetof(db_time_t, back_us), tmp);
    }
    free(w);
    free(tmp);
}
