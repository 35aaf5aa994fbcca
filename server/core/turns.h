/* turns — a loop's turns: the loop's work between two polls.
 *
 * Counted always (turns_now): work spread over turns (a slice a turn)
 * asks it whether two pieces fell in one turn. A handle of the loop's
 * own adds one at each poll; that is all it does while the meter is off.
 *
 * Measured only while wanted (the meter): switched on by the first
 * warren-admin health and kept on, or from the start when
 * WARREN_TURN_LOG_US=N is set (then every turn of N µs of CPU or more is
 * logged with what ran in it). While on, each turn's CPU time (the loop
 * thread's clock, a system call a turn: why it is off until asked) and
 * its length (libuv's idle time taken out) go into a histogram and the
 * longest, with what viewers' work ran in the longest (TURN_* bits each
 * part of the daemon sets while it runs). A player's key waits for at
 * most the turn it came in.
 *
 * Besides the times, the viewers' work per turn as counts (rows drawn:
 * watch-list terminals redrawn, lobby games and previews sent), which do
 * not depend on the machine: their largest in one turn. Loop thread only;
 * the home loop's. */
#ifndef WARREN_TURNS_H
#define WARREN_TURNS_H
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

enum {
    TURN_MENU = 1u << 0,  /* watch-list and other menu terminals redrawn */
    TURN_LOBBY = 1u << 1, /* the lobby's list or previews built and sent */
    TURN_TICK = 1u << 2,  /* the one-second tick */
    TURN_STATUS = 1u << 3 /* watcher counts and sizes to websockets */
};

/* What viewers' work is counted in, per turn. */
enum { TURN_REDRAWS, TURN_GAMES, TURN_PREVIEWS, TURN_COUNTS };

#define TURNS_BUCKETS 16 /* < 64 µs, < 128 µs, ... doubling; the last: the rest */

typedef struct turns {
    /* read-only (turns_now): the loop's turns so far, meter on or off */
    uint64_t n;
    /* private */
    uv_prepare_t prep;
    bool on;          /* the meter: the rest is kept only while on */
    uint64_t on_s;    /* when it was switched on, s since the epoch */
    uint64_t metered; /* turns measured since then */
    uint64_t last_ns, last_idle_ns, last_cpu_ns;
    uint64_t hist[TURNS_BUCKETS]; /* by the loop thread's CPU time in the turn */
    uint64_t max_ns;              /* the longest turn, by the clock (preemption counts too) */
    uint64_t max_cpu_ns;          /* the most CPU one turn took */
    unsigned max_what;            /* TURN_* of that one */
    unsigned what;                /* TURN_* of the turn running */
    uint64_t log_ns;              /* WARREN_TURN_LOG_US; 0: none logged */
    /* viewers' work this turn (TURN_REDRAWS: menu terminals redrawn,
     * TURN_GAMES: lobby list entries, TURN_PREVIEWS: lobby previews
     * encoded), and the most of each in one turn */
    uint32_t count[TURN_COUNTS], count_max[TURN_COUNTS];
    /* the time viewers' work took this turn (turns_begin/turns_end around
     * it), the most in one turn, and the turns it took 1 ms or more in */
    uint64_t viewer_ns, viewer_max_ns, viewer_slow;
    /* turns that held both the lobby's round (TURN_STATUS) and watch-list
     * redraws (TURN_MENU): the two are kept apart, so none */
    uint64_t lobby_with_menu;
} turns_t;

/* Before uv_run: the count starts, and the meter if WARREN_TURN_LOG_US
 * is set. */
int turns_start(turns_t *t, uv_loop_t *loop);
void turns_stop(turns_t *t);
/* The loop's turn number: equal for two calls in one turn. */
static inline uint64_t turns_now(const turns_t *t)
{
    return t->n;
}
/* Switches the meter on, kept on (after turns_start; no-op when on). */
void turns_meter_on(turns_t *t);
/* Viewers' work of this turn: what (TURN_MENU...) ran. */
static inline void turns_ran(turns_t *t, unsigned what)
{
    if (t->on)
        t->what |= what;
}
/* ... and n more of kind (TURN_REDRAWS...) done in it. */
static inline void turns_note(turns_t *t, unsigned what, int kind, uint32_t n)
{
    if (t->on) {
        t->what |= what;
        t->count[kind] += n;
    }
}
/* Around a piece of viewers' work: its time is added to the turn's. */
static inline uint64_t turns_begin(const turns_t *t)
{
    return t->on ? uv_hrtime() : 0;
}
static inline void turns_end(turns_t *t, uint64_t began)
{
    if (t->on && began)
        t->viewer_ns += uv_hrtime() - began;
}
/* "loop turns ..." into out (a line, no newline): since the meter was
 * switched on. */
void turns_describe(const turns_t *t, char *out, size_t cap);

#endif
