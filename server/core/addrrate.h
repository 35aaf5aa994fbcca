/* addrrate — a token bucket per client address: how often one address may
 * knock (an HTTP request, a websocket upgrade, a telnet connection), a
 * steady rate with a burst, so that one client opening and closing
 * connections as fast as the loop accepts them gets no more than its
 * share of the loop (`request-rate`, `request-burst`).
 *
 * Memory is bounded whatever comes: the buckets are one array of
 * ADDRRATE_SLOTS made with the table; a new address, the array full, takes
 * the place of the least recently seen one. An address forgotten starts
 * again with a full bucket, as an address never seen does: rotating
 * addresses (an IPv6 block) can only make the table forget, never grow
 * it, and what it forgets first is the address that knocked longest ago,
 * whose bucket has most likely refilled already. A flood from one address
 * keeps its own bucket the most recent, so it is never the one forgotten.
 * Places are found by a keyed hash (SipHash, a random key per table), so
 * addresses cannot be chosen to pile up on one chain.
 *
 * Time is the caller's (milliseconds, uv_now), so tests drive it; a clock a
 * little behind the last reading (another loop's) counts as no time.
 * Ownership: addrrate_new / addrrate_free pair. Any thread: a mutex guards
 * it (telnet conns live on every loop). */
#ifndef WARREN_ADDRRATE_H
#define WARREN_ADDRRATE_H
#include <stdbool.h>
#include <stdint.h>

#define ADDRRATE_SLOTS    4096 /* addresses remembered */
#define ADDRRATE_ADDR_MAX 64   /* an address, cut here (budget.h's length) */

typedef struct addrrate addrrate_t;

/* per_sec knocks a second from one address, bursts of burst (at least 1).
 * NULL when per_sec is 0 (no limit), out of memory or libsodium cannot
 * start (hmap_secret_init). */
addrrate_t *addrrate_new(unsigned per_sec, unsigned burst);
void addrrate_free(addrrate_t *r); /* NULL is fine */

/* One knock from addr at now_ms: 0 when it may pass (a token spent), else
 * the milliseconds until it would (nothing spent). A NULL table, or an
 * empty or NULL address, always passes. */
uint64_t addrrate_take(addrrate_t *r, const char *addr, uint64_t now_ms);

/* What the unit tests check: addresses remembered now, and whether addr is
 * one of them. */
int addrrate_count(addrrate_t *r);
bool addrrate_knows(addrrate_t *r, const char *addr);

#endif
