/* ratelimit — token buckets; see ratelimit.h. */
#include "ratelimit.h"
#include <stdlib.h>

struct ratelimit {
    double per_sec, burst;
    double tokens;
    uint64_t last_ms; /* when tokens was last filled */
};

ratelimit_t *ratelimit_new(double per_sec, double burst, uint64_t now_ms)
{
    ratelimit_t *l = malloc(sizeof *l);
    if (l)
        *l = (ratelimit_t){per_sec, burst, burst, now_ms};
    return l;
}

void ratelimit_free(ratelimit_t *l)
{
    free(l);
}

size_t ratelimit_take(ratelimit_t *l, size_t n, uint64_t now_ms)
{
    if (now_ms > l->last_ms) { /* a conn changing loops may read a clock a little behind */
        l->tokens += (double)(now_ms - l->last_ms) * l->per_sec / 1000.0;
        l->last_ms = now_ms;
    }
    if (l->tokens > l->burst)
        l->tokens = l->burst;
    size_t allow = l->tokens >= (double)n ? n : (size_t)l->tokens;
    l->tokens -= (double)allow;
    return allow;
}
