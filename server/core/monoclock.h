/* monoclock — now on the monotonic clock (CLOCK_MONOTONIC): never stepped
 * by a change of the wall clock, for expiries and stall watches. Any
 * thread. */
#ifndef WARREN_MONOCLOCK_H
#define WARREN_MONOCLOCK_H
#include <stdint.h>

uint64_t mono_ns(void); /* nanoseconds since an arbitrary start */
int64_t mono_ms(void);  /* the same, in milliseconds */

#endif
