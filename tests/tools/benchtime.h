/* benchtime.h — what the in-process benchmarks of tests/tools share: the
 * thread's CPU clock and the order of doubles for their medians. */
#ifndef WARREN_BENCHTIME_H
#define WARREN_BENCHTIME_H

#include <stdlib.h>
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

/* A job of the benchmarks: one run of what is timed, rep its number. */
typedef void (*job_fn)(int rep);

/* The median ns of one job run over 31 batches of 200 runs. */
static inline double median_ns(job_fn job)
{
    enum { BATCHES = 31, REPS = 200 };
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = thread_ns();
        for (int r = 0; r < REPS; r++)
            job(r);
        t[b] = (thread_ns() - t0) / REPS;
    }
    qsort(t, BATCHES, sizeof *t, cmp_double);
    return t[BATCHES / 2];
}

#endif
