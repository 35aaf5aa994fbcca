/* hashq — the password hashing queue: argon2 work off the loop, bounded,
 * fair between addresses, and never in the game's way.
 *
 * Jobs run on a few threads of their own at the lowest CPU priority (nice
 * 19), so a storm of logins takes only the CPU the games leave over. They
 * wait in one line per address; the threads serve the lines in turn (round
 * robin), lines of addresses that have failed before only when no other
 * line waits, so a person logging in from a clean address is served next
 * even while strangers hammer the door. The queue holds at most max_jobs
 * jobs (waiting or running) and per_addr from one address; its last
 * quarter only takes addresses with no job in it that are not suspect, so
 * a newcomer gets in during a storm. Past that, hashq_submit refuses at
 * once ("busy, try again").
 *
 * Threads: submit and free on the loop thread; work runs on a queue thread
 * (it must touch nothing the loop owns), done on the loop thread after it.
 * Ownership: hashq_new / hashq_free pair. */
#ifndef WARREN_HASHQ_H
#define WARREN_HASHQ_H
#include <stdbool.h>
#include <uv.h>

typedef struct hashq hashq_t;
typedef void (*hashq_fn)(void *job);

/* NULL when out of memory or a thread cannot start. */
hashq_t *hashq_new(uv_loop_t *loop, int threads, int max_jobs, int per_addr);
/* Joins the threads (a running job finishes first), then calls done for
 * every job not yet done, at once: done must check whether its owner is
 * going away. NULL is fine. */
void hashq_free(hashq_t *q);

/* Queues work(job), then done(job) on the loop. addr names the line (an
 * address); suspect puts that line behind the others. Returns 0, or -1 when
 * the queue or the address's line is full (nothing queued). */
int hashq_submit(hashq_t *q, const char *addr, bool suspect, hashq_fn work, hashq_fn done,
                 void *job);
/* Whether a job from addr would be taken now. */
bool hashq_room(hashq_t *q, const char *addr, bool suspect);
/* Jobs waiting or running (the unit tests read it). */
int hashq_pending(hashq_t *q);

#endif
