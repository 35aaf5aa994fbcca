/* ratelimit — token buckets: a steady rate with a burst allowance, for input
 * bytes per connection (conn.c) and chat lines per websocket (webgw.c).
 * The state is opaque: only ratelimit_take spends it. The caller passes the
 * time (uv_now, milliseconds), so the buckets are testable and never read
 * a clock. */
#ifndef WARREN_RATELIMIT_H
#define WARREN_RATELIMIT_H
#include <stddef.h>
#include <stdint.h>

typedef struct ratelimit ratelimit_t;

/* A full bucket of burst units refilling at per_sec. NULL when out of
 * memory. */
ratelimit_t *ratelimit_new(double per_sec, double burst, uint64_t now_ms);
void ratelimit_free(ratelimit_t *l); /* NULL is fine */
/* How many of n units may pass at now_ms (all, some or none); those are
 * spent. */
size_t ratelimit_take(ratelimit_t *l, size_t n, uint64_t now_ms);

#endif
