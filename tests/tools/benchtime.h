/* benchtime.h — what the in-process benchmarks of tests/tools share: the
 * thread's CPU clock and the order of doubles for their medians. */
#ifndef WARREN_BENCHTIME_H
#define WARREN_BENCHTIME_H

#include <time.h>

/* The calling thread's CPU time, in nanoseconds. */
static inline double thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* qsort's order of doubles, smallest first. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
