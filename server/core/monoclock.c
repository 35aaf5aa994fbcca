/* monoclock — now on the monotonic clock (monoclock.h). */
#include "monoclock.h"
#include <time.h>

uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t mono_ms(void)
{
    return (int64_t)(mono_ns() / 1000000u);
}
