/* logcap — the log's cap on lines other parties can make it write (a bad
 * request, a failed login, a refused connection, a stranger on the peer
 * port): one hostile client must not fill the operator's disk.
 *
 * A line has a kind (its text less the address and counts) and an
 * address. Each kind is said at most per_addr times (1 unless the kind
 * says more) per window from one address, and at most max times per window
 * from all addresses together; the others are held back and counted, per
 * kind, and
 * the next line of that kind that is written says how many were held back
 * since its last one ("(N such lines held back)"). A count left over when
 * the window has passed is said by logcap_flush (a tick), so nothing held
 * back goes unsaid: "held back: N lines of <kind> in 10 s (the last from
 * ADDR)".
 *
 * Memory is bounded whatever comes: LOGCAP_PAIRS (kind, address) pairs are
 * remembered, the least recently said forgotten first (an address
 * forgotten may be said again, within the kind's cap), and LOGCAP_KINDS
 * kinds (more share the last place).
 *
 * Time is the caller's (milliseconds, uv_now), so tests drive it; a clock
 * a little behind the last reading (another loop's) counts as no time.
 * Ownership: logcap_new / logcap_free pair. Any thread: a mutex guards it
 * (telnet conns live on every loop). */
#ifndef WARREN_LOGCAP_H
#define WARREN_LOGCAP_H
#include <stdbool.h>
#include <stdint.h>
#include "log.h"

#define LOGCAP_PAIRS     256   /* (kind, address) pairs remembered */
#define LOGCAP_KINDS     64    /* kinds told apart */
#define LOGCAP_WINDOW_MS 10000 /* once per kind per address in this */
#define LOGCAP_KIND_MAX  20    /* lines of one kind per window, all addresses */

typedef struct logcap logcap_t;

/* A kind of line; callers keep one const per kind (the same each call). */
typedef struct {
    const char *name;  /* the line's text less addresses and counts */
    unsigned per_addr; /* lines from one address per window; 0: 1 */
    unsigned max;      /* lines from all addresses per window; 0: LOGCAP_KIND_MAX */
} logcap_kind_t;

/* window_ms 0: LOGCAP_WINDOW_MS. NULL when out of memory or libsodium
 * cannot start (hmap_secret_init). */
logcap_t *logcap_new(uint64_t window_ms);
void logcap_free(logcap_t *c); /* NULL is fine */

/* Whether a line of kind about addr may be written at now_ms; when it may,
 * *held is how many lines of kind were held back since the last one
 * written. False counts one more held back. A NULL cap allows everything
 * (held 0). */
bool logcap_may(logcap_t *c, const logcap_kind_t *kind, const char *addr, uint64_t now_ms,
                unsigned *held);

/* logcap_may, then the line: fmt's text, and " (N such lines held back)"
 * when N > 0. Returns whether it was written. */
bool logcap_say(logcap_t *c, uint64_t now_ms, log_level_t lvl, const logcap_kind_t *kind,
                const char *addr, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* logcap_say about what one account does from one address: the pair is
 * "ADDR USER", so one account's lines from one place are capped without
 * holding back another's (a stranger's, user NULL or "": the address). */
bool logcap_say_user(logcap_t *c, uint64_t now_ms, log_level_t lvl, const logcap_kind_t *kind,
                     const char *addr, const char *user, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Says every count held back whose kind has had no line for a window.
 * Returns how many lines it wrote. */
int logcap_flush(logcap_t *c, uint64_t now_ms);

/* What the unit tests check: pairs remembered now, and whether (kind,
 * addr) is one of them. */
int logcap_pairs(logcap_t *c);
bool logcap_knows(logcap_t *c, const char *kind, const char *addr);

#endif
