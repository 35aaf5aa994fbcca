/* recency_bench — what placing another node's game (a mirror) among the
 * latest keyed costs at 10,000 sessions, and what the lists' read of the
 * latest keyed costs with 1,000 mirrors placed past the walk (server/core
 * session.c: session_keyed_at, session_each_recent). Thread CPU time, the
 * median of 31 batches.
 *
 *   recency_bench
 *   BENCH server.recency.place.ns X ns       (a mirror 300+ places back: the bounded walk)
 *   BENCH server.recency.place_all.ns X ns   (the same by a walk of every session, as it
 *                                             was before the bound: for comparison)
 *   BENCH server.recency.read100.ns X ns     (a lobby's 100 latest, no mirror past the walk)
 *   BENCH server.recency.read100_late.ns X ns (the same, 1,000 mirrors past the walk) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "server.h"
#include "session.h"
#include "benchtime.h"

enum { N = 10000, LATE = 1000 };

/* The walk of every session newer than ms (the placement before the bound). */
static void keyed_at_all(session_t *s, uint64_t ms)
{
    s->last_key_ms = ms;
    list_remove(&s->rnode);
    list_t *head = &s->srv->by_recency, *at = head;
    LIST_EACH (it, head) {
        if (LIST_ITEM(it, session_t, rnode)->last_key_ms <= ms)
            break;
        at = it;
    }
    list_insert_after(at, &s->rnode);
}

static bool take(void *ud, session_t *s)
{
    (*(size_t *)ud) += s->last_key_ms != 0;
    return true;
}

static server_t srv;
static session_t sess[N], mirrors[LATE];

static void job_place(int rep)
{
    session_keyed_at(&mirrors[0], 1000 + (uint64_t)(rep & 1)); /* older than every session */
}

static void job_place_all(int rep)
{
    keyed_at_all(&mirrors[0], 1000 + (uint64_t)(rep & 1));
}

static size_t sink;

static void job_read(int rep)
{
    (void)rep;
    session_each_recent(&srv, 100, take, &sink);
}

int main(void)
{
    list_init(&srv.by_recency);
    list_init(&srv.recency_late);
    for (int i = 0; i < N; i++) { /* keyed one a millisecond: the newest first */
        sess[i] = (session_t){.srv = &srv, .last_key_ms = 10000 + (uint64_t)i};
        list_push_front(&srv.by_recency, &sess[i].rnode);
    }
    for (int i = 0; i < LATE; i++) {
        mirrors[i] = (session_t){.srv = &srv};
        list_init(&mirrors[i].rnode);
    }
    printf("BENCH server.recency.place.ns %.0f ns\n", median_ns(job_place));
    printf("BENCH server.recency.place_all.ns %.0f ns\n", median_ns(job_place_all));
    list_remove(&mirrors[0].rnode);
    printf("BENCH server.recency.read100.ns %.0f ns\n", median_ns(job_read));
    for (int i = 0; i < LATE; i++)
        session_keyed_at(&mirrors[i], 1000 + (uint64_t)i);
    printf("BENCH server.recency.read100_late.ns %.0f ns\n", median_ns(job_read));
    return sink == 0;
}
