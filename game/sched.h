/* sched — the continuous-time scheduler: a binary min-heap of events keyed
 * by (tick, seq). seq is a counter bumped by every push, so events at the
 * same tick run in the order they were scheduled: ties are deterministic.
 *
 * An event is data, never a pointer: a function id (an index into a const
 * table the caller owns, see world.h's SCHED_FN_LIST), a target handle and
 * two integer arguments. That is what makes the schedule saveable.
 * Cancelling by handle removes every event aimed at that object (a dead
 * creature's turns, an ended effect's ticks).
 *
 * Time: 100 ticks is one normal move (SCHED_MOVE), 141 a diagonal one. */
#ifndef WARREN_SCHED_H
#define WARREN_SCHED_H
#include <stdbool.h>
#include <stdint.h>
#include "alloc.h"
#include "obj.h"
#include "ser.h"

#define SCHED_MOVE       100
#define SCHED_DIAG       141
#define SCHED_MAX_EVENTS 65536u

typedef struct {
    uint64_t tick;
    uint64_t seq;
    uint16_t fn;
    handle_t target;
    int32_t arg[2];
} event_t;

typedef struct {
    event_t *heap;
    uint32_t n, cap;
    uint64_t now; /* tick of the last event popped */
    uint64_t next_seq;
    galloc_t *al; /* borrowed */
} sched_t;

void sched_init(sched_t *s, galloc_t *al);
void sched_free(sched_t *s);
/* Schedules fn on target at absolute tick `at` (clamped to now: the past is
 * gone). Returns 0, or -1 on OOM / full queue (nothing scheduled). */
int sched_push(sched_t *s, uint64_t at, uint16_t fn, handle_t target, int32_t a0, int32_t a1);
/* Pops the earliest event into *out and advances now to its tick.
 * False when empty. */
bool sched_pop(sched_t *s, event_t *out);
/* Removes every event whose target is h; returns how many. */
int sched_cancel(sched_t *s, handle_t h);
/* Speed-scaled cost: base ticks at `speed` percent (100 normal, 200 twice
 * as fast). Never below 1. */
uint32_t sched_cost(uint32_t base, int speed);

void sched_save(const sched_t *s, ser_t *out);
/* Loads into an empty scheduler; fn ids >= nfn are rejected. */
int sched_load(sched_t *s, rd_t *in, uint16_t nfn);

#endif
