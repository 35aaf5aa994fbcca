/* addrrate_bench — what the request rate's check costs a request
 * (server/core/addrrate.c: addrrate_take, its mutex and keyed hash
 * included). Thread CPU time, the median of 31 batches.
 *
 *   addrrate_bench
 *   BENCH server.addrrate.one.ns X       (one address knocking again and again)
 *   BENCH server.addrrate.known.ns X     (1,000 addresses in turn, all remembered)
 *   BENCH server.addrrate.rotating.ns X  (a new address each time, the table full:
 *                                         each one forgets the least recently seen) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "addrrate.h"
#include "benchtime.h"

enum { BATCHES = 31, REPS = 20000, KNOWN = 1000 };

typedef enum { ONE, KNOWN_SET, ROTATING } knocks_t;

/* One batch of REPS knocks; ns per knock. */
static double batch(addrrate_t *r, char (*addrs)[48], knocks_t m, unsigned *next, uint64_t *now)
{
    double t0 = thread_ns();
    for (int i = 0; i < REPS; i++) {
        const char *a = addrs[0];
        if (m == KNOWN_SET)
            a = addrs[i % KNOWN];
        else if (m == ROTATING) {
            snprintf(addrs[KNOWN], 48, "2001:db8:%x::%x", (*next >> 16) & 0xffff, *next & 0xffff);
            (*next)++;
            a = addrs[KNOWN];
        }
        volatile uint64_t w = addrrate_take(r, a, (*now)++ / 16);
        (void)w;
    }
    return (thread_ns() - t0) / REPS;
}

static void run(const char *name, knocks_t m)
{
    static char addrs[KNOWN + 1][48];
    for (int i = 0; i < KNOWN; i++)
        snprintf(addrs[i], sizeof addrs[i], "10.%d.%d.%d", i >> 16, (i >> 8) & 255, i & 255);
    addrrate_t *r = addrrate_new(20, 200);
    if (!r)
        exit(1);
    unsigned next = 0;
    uint64_t now = 0;
    double ns[BATCHES];
    batch(r, addrs, m, &next, &now); /* warm: the table full when rotating */
    for (int b = 0; b < BATCHES; b++)
        ns[b] = batch(r, addrs, m, &next, &now);
    qsort(ns, BATCHES, sizeof ns[0], cmp_double);
    printf("BENCH server.addrrate.%s.ns %.1f\n", name, ns[BATCHES / 2]);
    addrrate_free(r);
}

int main(void)
{
    run("one", ONE);
    run("known", KNOWN_SET);
    run("rotating", ROTATING);
    return 0;
}
