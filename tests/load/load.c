/* warren-load — N telnet players and M watchers against a running warrend,
 * each session driven by what its screen shows (sess.c). The run:
 *   ramp-up   at most --inflight sessions at a time connect, register and
 *             start a game (watchers start once player 0 plays);
 *   warm-up   once every session plays, keys for --warmup seconds;
 *   window    keys for --seconds, measured; then outstanding keys drain.
 * Each player keys once per --interval at its own offset in the interval
 * (the offsets spread evenly), and only once its last key was answered; a
 * key that falls due before that is late, counted, and sent on the answer.
 * The players' move-and-wait patterns start out of step (--in-step: all
 * alike). The report gives each second of the window on a line: keys, slow
 * keys, the slowest, and the tool's own longest pause (its loop, not the
 * daemon's: a spike with no pause there is the daemon's).
 * With --saturate each player keys again as soon as it is answered. With
 * --detach-all, every session but player 0 then closes at once while
 * player 0 keys back to back: its slowest answer is the daemon's longest
 * stall while it detaches and saves those games. With --hosted KEY the
 * players start the hosted game on menu key KEY (Debian's NetHack), take
 * its random character, and then move: a key that draws nothing before
 * the player's next one falls due (a wall) is counted, not waited for,
 * and only answered keys are timed. --watched G spreads the watchers over
 * the first G players' games. With --reconnect a player whose connection
 * closes after it played connects again, logs in and presses p, as a
 * person does when their server dies or drains (again when told its game
 * runs elsewhere): timed from the new connection to its game's frame.
 * A watcher's frame is timed from its player's last one; a watcher sent
 * back to the menus (its game ended or moved) is timed apart, from then to
 * its game's screen again, and its player's frames meanwhile are not its.
 * SIGUSR1 prints a mark, the figures since the last one, and writes the
 * --acked file. The daemon should run with --test-hooks (cheap password
 * hashes). */
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "load.h"

#define TICK_MS  1  /* key pacing */
#define SWEEP_MS 25 /* time-outs, retries */
#define NS       1000000000.0

/* ---- options ------------------------------------------------------------------------ */

typedef enum { OPT_INT, OPT_NUM, OPT_STR, OPT_FLAG } opt_kind_t;

typedef struct {
    const char *name, *arg;
    opt_kind_t kind;
    size_t off;
    double lo, hi;
    const char *help;
} opt_t;

#define O(f) offsetof(load_opts_t, f)
static const opt_t OPTS[] = {
    {"--host", "ADDR", OPT_STR, O(host), 0, 0, "the daemon's IPv4 address (127.0.0.1)"},
    {"--watch-host", "ADDR", OPT_STR, O(watch_host), 0, 0,
     "the watchers connect there instead (another node of a cluster; same port)"},
    {"--port", "PORT", OPT_INT, O(port), 1, 65535, "its telnet port (2323)"},
    {"--n", "N", OPT_INT, O(n), 1, 1000000, "players (100)"},
    {"--m", "M", OPT_INT, O(m), 0, 1000000, "watchers of player 0's game (0)"},
    {"--watched", "G", OPT_INT, O(watched), 1, 1000000,
     "the watchers spread over the first G players' games (1)"},
    {"--hosted", "KEY", OPT_STR, O(hosted), 0, 0,
     "play the hosted NetHack on menu key KEY: moves, only answered keys timed (off)"},
    {"--seconds", "S", OPT_NUM, O(seconds), 0.1, 86400, "the measured window (10)"},
    {"--warmup", "S", OPT_NUM, O(warmup), 0, 3600, "keys before the window, not measured (1)"},
    {"--interval", "S", OPT_NUM, O(interval), 0.001, 3600, "time between one player's keys (1)"},
    {"--in-step", NULL, OPT_FLAG, O(in_step), 0, 0,
     "every player types the same key of its pattern in the same second (off: out of step)"},
    {"--saturate", NULL, OPT_FLAG, O(saturate), 0, 0,
     "key again as soon as answered: the daemon's maximum keys/s"},
    {"--inflight", "K", OPT_INT, O(inflight), 1, 1000000,
     "sessions connecting and registering at once (64)"},
    {"--tag", "TAG", OPT_STR, O(tag), 0, 0, "suffix of the BENCH names, e.g. .n1000"},
    {"--pid", "PID", OPT_INT, O(pid), 1, INT_MAX, "the daemon's pid: report its RSS per player"},
    {"--term", "NAME", OPT_STR, O(term), 0, 0, "terminal type to report (xterm-256color)"},
    {"--key-timeout", "S", OPT_NUM, O(key_timeout), 0.1, 3600,
     "a key with no frame after S seconds is lost (10)"},
    {"--ramp-timeout", "S", OPT_NUM, O(ramp_timeout), 1, 3600,
     "a session with no new screen for S seconds in the menus fails (30)"},
    {"--detach-all", "S", OPT_NUM, O(detach_all), 0, 600,
     "after the window, close all but player 0 at once; time its keys for S s (0: off)"},
    {"--reconnect", NULL, OPT_FLAG, O(reconnect), 0, 0,
     "a player dropped after it played connects again, logs in and resumes (off)"},
    {"--bind", "ADDR", OPT_STR, O(bind), 0, 0,
     "sessions connect from ADDR and the --bind-count addresses after it (the kernel's)"},
    {"--bind-count", "K", OPT_INT, O(bind_count), 1, 65536, "addresses from --bind on (1)"},
    {"--acked", "FILE", OPT_STR, O(acked), 0, 0,
     "at the end and at each mark, each player's name and its game's answered keys, a line "
     "each; the run ends "
     "when the daemon went away (every player dropped)"},
    {"--help", NULL, OPT_FLAG, O(help), 0, 0, "this text"},
};
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: warren-load [options]\n"
               "Drives telnet players (and watchers) against warrend and prints BENCH lines:\n"
               "key-to-frame latency, keys/s, late keys, failed sessions, ramp-up time,\n"
               "watcher delay, RSS per player. Exit 0 only when every session played and\n"
               "every key was answered; 1 otherwise; 2 for bad options. SIGUSR1 prints a mark:\n"
               "the figures since the last one, and writes the --acked file.\n\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char left[32];
        snprintf(left, sizeof left, "%s%s%s", OPTS[i].name, OPTS[i].arg ? " " : "",
                 OPTS[i].arg ? OPTS[i].arg : "");
        fprintf(f, "  %-20s %s\n", left, OPTS[i].help);
    }
}

static int opt_set(load_opts_t *o, const opt_t *d, const char *v)
{
    char *end = NULL;
    void *field = (char *)o + d->off;
    if (d->kind == OPT_STR) {
        *(const char **)field = v;
        return 0;
    }
    double x = strtod(v, &end);
    if (end == v || *end || x < d->lo || x > d->hi)
        return -1;
    if (d->kind == OPT_INT) {
        if (x != (double)(int)x)
            return -1;
        *(int *)field = (int)x;
    } else {
        *(double *)field = x;
    }
    return 0;
}

/* 0: go on; else the exit status. */
static int parse_args(load_opts_t *o, int argc, char **argv)
{
    *o = (load_opts_t){.host = "127.0.0.1",
                       .tag = "",
                       .term = "xterm-256color",
                       .port = 2323,
                       .n = 100,
                       .watched = 1,
                       .inflight = 64,
                       .bind_count = 1,
                       .seconds = 10,
                       .warmup = 1,
                       .interval = 1,
                       .key_timeout = 10,
                       .ramp_timeout = 30};
    for (int i = 1; i < argc; i++) {
        const opt_t *d = NULL;
        for (size_t k = 0; k < NOPTS && !d; k++)
            if (!strcmp(argv[i], OPTS[k].name))
                d = &OPTS[k];
        if (!d) {
            fprintf(stderr, "warren-load: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (d->kind == OPT_FLAG) {
            *(int *)((char *)o + d->off) = 1;
            continue;
        }
        if (i + 1 >= argc || opt_set(o, d, argv[i + 1])) {
            if (d->kind == OPT_STR)
                fprintf(stderr, "warren-load: %s needs %s\n", d->name, d->arg);
            else
                fprintf(stderr, "warren-load: %s needs %s from %.10g to %.10g\n", d->name, d->arg,
                        d->lo, d->hi);
            fprintf(stderr, "(warren-load --help lists the options)\n");
            return 2;
        }
        i++;
    }
    if (o->help) {
        usage(stdout);
        return -1;
    }
    return 0;
}

/* ---- figures ---------------------------------------------------------------------------- */

void samples_push(samples_t *a, uint64_t v)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 4096;
        uint64_t *nv = realloc(a->v, cap * sizeof *nv);
        if (!nv)
            return; /* a sample short, not a crash */
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The p-quantile in microseconds; a must be sorted. */
static double pct_us(const samples_t *a, double p)
{
    return a->n ? (double)a->v[(size_t)(p * (double)(a->n - 1))] / 1000.0 : 0;
}

static long rss_of(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

/* The process's user + system CPU, all threads, in clock ticks (-1: gone). */
static long long cpu_of(int pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    char *end = f && fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
    unsigned long long ut, st;
    long long ticks = -1;
    if (end &&
        sscanf(end + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
        ticks = (long long)(ut + st);
    if (f)
        fclose(f);
    return ticks;
}

static void finish(load_t *L);

/* ---- ramp-up ------------------------------------------------------------------------------ */

static void begin_run(load_t *L)
{
    uint64_t now = uv_hrtime();
    L->ramp_ns = now - L->ramp_t0;
    printf("# ramp-up: %d of %d sessions in play after %.0f ms (%d at once), %d failed\n", L->ready,
           L->total, (double)L->ramp_ns / 1e6, L->o.inflight, L->failed);
    if (L->o.pid)
        printf("# rss at play %ld\n", rss_of(L->o.pid));
    fflush(stdout);
    L->t0 = now + TICK_MS * 1000000ull;
    L->t_meas = L->t0 + (uint64_t)(L->o.warmup * NS);
    L->t_end = L->t_meas + (uint64_t)(L->o.seconds * NS);
    L->interval_ns = (uint64_t)(L->o.interval * NS);
    L->nsecs = (size_t)L->o.seconds + 1;
    L->secs = calloc(L->nsecs, sizeof *L->secs);
    if (!L->secs)
        L->nsecs = 0; /* no timeline, the rest as ever */
    L->phase = PH_RUN;
    if (L->ready == 0)
        finish(L); /* nobody to key */
}

/* Starts sessions while fewer than --inflight are on their way to play;
 * watchers wait for player 0's game. Ends the ramp-up when none is left. */
static void start_more(load_t *L)
{
    while (L->phase == PH_RAMP && L->inflight < L->o.inflight && L->next_start < L->total) {
        sess_t *s = &L->s[L->next_start];
        if (s->watcher && L->s[s->target].state == SS_FAILED) {
            L->next_start++;
            sess_fail(s, "its player never played: nothing to watch");
            continue;
        }
        if (s->watcher && L->s[s->target].state != SS_PLAY)
            break;
        L->next_start++;
        L->inflight++;
        s->in_ramp = true;
        sess_start(s);
    }
    if (L->phase == PH_RAMP && L->ready + L->failed == L->total)
        begin_run(L);
}

void load_playing(load_t *L, sess_t *s)
{
    if (s->reached) { /* back from the menus after a game ended */
        if (L->o.saturate && L->phase == PH_RUN && L->kicked && !s->watcher)
            sess_key(s, 0);
        return;
    }
    s->reached = true;
    s->in_ramp = false;
    L->inflight--;
    L->ready++;
    start_more(L);
}

void load_failed(load_t *L, sess_t *s)
{
    if (s->sent_ns) {
        L->outstanding--;
        s->sent_ns = 0;
    }
    if (s->reached) {
        L->dropped++;
        if (L->o.acked && L->dropped == L->ready && L->phase == PH_RUN)
            finish(L); /* the daemon went away: what was answered is written */
        return;
    }
    L->failed++;
    if (s->in_ramp) {
        s->in_ramp = false;
        L->inflight--;
    }
    start_more(L);
}

/* The window's second of time t, or NULL outside it. */
static second_t *second_of(load_t *L, uint64_t t)
{
    if (t < L->t_meas || !L->nsecs)
        return NULL;
    uint64_t i = (t - L->t_meas) / 1000000000ull;
    return i < L->nsecs ? &L->secs[i] : NULL;
}

void load_timed(load_t *L, uint64_t sent, uint64_t took)
{
    second_t *sec = second_of(L, sent);
    if (!sec)
        return;
    sec->keys++;
    sec->over5ms += took >= 5000000ull;
    sec->over50ms += took >= 50000000ull;
    if (took > sec->max_ns)
        sec->max_ns = took;
}

/* The load tool's own pauses: the time since its last tick, in the
 * second it ended (its loop reading, writing or sweeping meanwhile). */
static void tick_gap(load_t *L, uint64_t now)
{
    second_t *sec = L->phase == PH_RUN ? second_of(L, now) : NULL;
    if (sec && L->last_tick && now - L->last_tick > sec->tick_gap_ns)
        sec->tick_gap_ns = now - L->last_tick;
    L->last_tick = now;
}

/* ---- keys ----------------------------------------------------------------------------------- */

static bool keying(const load_t *L, uint64_t now)
{
    return L->phase == PH_RUN && now < L->t_end;
}

void load_answered(load_t *L, sess_t *s)
{
    uint64_t due = s->late_due;
    s->late_due = 0;
    if (L->phase == PH_DETACH) {
        if (uv_hrtime() < L->detach_end)
            sess_key(s, 0);
        return;
    }
    if (!keying(L, uv_hrtime()))
        return;
    if (due || L->o.saturate)
        sess_key(s, due);
}

/* Player i's k-th key falls due now: send it, or count it late. */
static void key_due(load_t *L, sess_t *s, uint64_t due)
{
    if (s->state != SS_PLAY || s->paused) {
        L->skipped += s->state == SS_MENU && due >= L->t_meas; /* its game ended */
        L->held += s->paused;
        return;
    }
    if (s->sent_ns && L->o.hosted) { /* it drew nothing (a wall): the next key goes */
        L->noanswer += s->measured;
        L->outstanding--;
        s->sent_ns = 0;
    }
    if (s->sent_ns) {
        L->late += due >= L->t_meas;
        if (!s->late_due)
            s->late_due = due;
        return;
    }
    sess_key(s, due);
}

/* Walks the players in due order: player i keys at t0 + k * interval +
 * i * interval / n. */
static void pace(load_t *L, uint64_t now)
{
    uint64_t n = (uint64_t)L->o.n;
    for (;;) {
        uint64_t due = L->t0 + L->cur_k * L->interval_ns + L->interval_ns * (uint64_t)L->cur_i / n;
        if (due > now || due >= L->t_end)
            return;
        key_due(L, &L->s[L->cur_i], due);
        if (++L->cur_i == L->o.n) {
            L->cur_i = 0;
            L->cur_k++;
        }
    }
}

static void finish(load_t *L)
{
    L->phase = PH_DONE;
    if (L->o.pid)
        L->rss_end = rss_of(L->o.pid);
    uv_close((uv_handle_t *)&L->tick, NULL);
    uv_close((uv_handle_t *)&L->sweep, NULL);
    uv_close((uv_handle_t *)&L->usr1, NULL);
    for (int i = 0; i < L->total; i++)
        sess_close(&L->s[i]);
}

/* --detach-all: every session but player 0 closes now; player 0 keys on. */
static void detach_all(load_t *L, uint64_t now)
{
    L->phase = PH_DETACH;
    L->detach_end = now + (uint64_t)(L->o.detach_all * NS);
    for (int i = 1; i < L->total; i++)
        sess_close(&L->s[i]);
    sess_key(&L->s[0], 0);
}

/* A key of player 0 during --detach-all came back after took ns. */
void load_detach_answer(load_t *L, uint64_t took)
{
    L->detach_keys++;
    if (took > L->stall_ns)
        L->stall_ns = took;
}

static void detach_tick(load_t *L, uint64_t now)
{
    const sess_t *p = &L->s[0];
    if (p->sent_ns && p->sent_ns < now && now - p->sent_ns > L->stall_ns)
        L->stall_ns = now - p->sent_ns; /* still waiting: at least this long */
    bool waiting =
        p->sent_ns && p->state == SS_PLAY && now - p->sent_ns < (uint64_t)(L->o.key_timeout * NS);
    if (now >= L->detach_end && !waiting)
        finish(L);
}

static void on_tick(uv_timer_t *t)
{
    load_t *L = t->data;
    uint64_t now = uv_hrtime();
    tick_gap(L, now);
    if (L->phase == PH_RUN && now >= L->t0) {
        if (!L->o.saturate)
            pace(L, now);
        else if (!L->kicked)
            for (int i = 0; i < L->o.n; i++)
                if (L->s[i].state == SS_PLAY)
                    sess_key(&L->s[i], 0);
        L->kicked = true;
        if (L->o.pid && L->cpu_meas < 0 && now >= L->t_meas)
            L->cpu_meas = cpu_of(L->o.pid);
        if (now >= L->t_end) {
            L->phase = PH_DRAIN;
            L->cpu_end = L->o.pid ? cpu_of(L->o.pid) : -1;
        }
    }
    if (L->phase == PH_DRAIN &&
        (L->outstanding == 0 || now - L->t_end > (uint64_t)(L->o.key_timeout * NS))) {
        if (L->o.detach_all > 0 && L->s[0].state == SS_PLAY && !L->s[0].sent_ns)
            detach_all(L, now);
        else
            finish(L);
    }
    if (L->phase == PH_DETACH)
        detach_tick(L, now);
}

/* Keys that never got a frame, and sessions stuck in the menus. */
static void on_sweep(uv_timer_t *t)
{
    load_t *L = t->data;
    uint64_t now = uv_hrtime();
    uint64_t key_to = (uint64_t)(L->o.key_timeout * NS),
             ramp_to = (uint64_t)(L->o.ramp_timeout * NS);
    for (int i = 0; i < L->total && L->phase != PH_DONE; i++) {
        sess_t *s = &L->s[i];
        if (s->sent_ns && now - s->sent_ns > key_to) {
            L->unanswered++;
            L->outstanding--;
            s->sent_ns = 0;
        }
        if (s->state == SS_MENU && s->retry_ns && now >= s->retry_ns)
            sess_retry(s);
        if (s->state == SS_MENU && now - s->progress_ns > ramp_to)
            sess_fail(s, "no new screen in the menus");
        sess_tick(s, now); /* last: a new connection's progress_ns is after now */
    }
}

/* ---- report --------------------------------------------------------------------------------- */

/* Times with a decimal, counts and bytes without. */
static void bench(const load_t *L, const char *name, double v)
{
    printf("BENCH server.%s%s %.1f\n", name, L->o.tag, v);
}

static void bench_count(const load_t *L, const char *name, long long v)
{
    printf("BENCH server.%s%s %lld\n", name, L->o.tag, v);
}

static void report_keys(load_t *L)
{
    if (L->lat.n)
        qsort(L->lat.v, L->lat.n, sizeof *L->lat.v, cmp_u64);
    printf("# window %.1f s: keys sent %llu, answered %llu, late %llu, unanswered %llu; "
           "%llu due in the menus, %llu games ended\n",
           L->o.seconds, (unsigned long long)L->sent, (unsigned long long)L->answered,
           (unsigned long long)L->late, (unsigned long long)L->unanswered,
           (unsigned long long)L->skipped, (unsigned long long)L->games_ended);
    if (L->in_doubt || L->held)
        printf("# storage paused games: %llu keys out then (neither answered nor lost), "
               "%llu keys not sent while paused\n",
               (unsigned long long)L->in_doubt, (unsigned long long)L->held);
    printf("# latency us: p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f (%zu keys)\n",
           pct_us(&L->lat, 0.5), pct_us(&L->lat, 0.9), pct_us(&L->lat, 0.99),
           pct_us(&L->lat, 0.999), pct_us(&L->lat, 1), L->lat.n);
    double kps = (double)L->answered / L->o.seconds;
    if (L->o.saturate) {
        bench(L, "keys_per_s.max", kps);
        bench(L, "latency.saturated.p50.us", pct_us(&L->lat, 0.5));
        bench(L, "latency.saturated.p99.us", pct_us(&L->lat, 0.99));
    } else {
        bench(L, "latency.p50.us", pct_us(&L->lat, 0.5));
        bench(L, "latency.p99.us", pct_us(&L->lat, 0.99));
        bench(L, "keys_per_s", kps);
        bench_count(L, "keys.late", (long long)L->late);
    }
}

/* --hosted: the figures under hosted.*: times in ms, answered keys of those sent. */
static void report_hosted(const load_t *L)
{
    uint64_t sent = L->sent;
    printf("# hosted: keys answered %llu of %llu sent in the window (%llu drew nothing)\n",
           (unsigned long long)L->answered, (unsigned long long)sent,
           (unsigned long long)L->noanswer);
    printf("# hosted: %llu more keys answered NetHack's --More-- or questions, not timed\n",
           (unsigned long long)L->answers);
    printf("BENCH hosted%s.p50.ms %.2f\n", L->o.tag, pct_us(&L->lat, 0.5) / 1000);
    printf("BENCH hosted%s.p99.ms %.2f\n", L->o.tag, pct_us(&L->lat, 0.99) / 1000);
    printf("BENCH hosted%s.answered %.3f\n", L->o.tag,
           sent ? (double)L->answered / (double)sent : 0);
    if (L->o.m)
        printf("BENCH hosted%s.watch.delay.p99.ms %.2f\n", L->o.tag, pct_us(&L->wdel, 0.99) / 1000);
}

/* Second by second of the window: a spike every few seconds points at
 * a periodic job of the daemon, a long tick gap at the load tool. */
static void report_timeline(const load_t *L)
{
    uint64_t worst_gap = 0;
    int slow = 0;
    for (size_t i = 0; i < L->nsecs; i++) {
        const second_t *c = &L->secs[i];
        if (!c->keys && !c->tick_gap_ns)
            continue;
        printf("# second %zu: keys %llu, >=5 ms %llu, >=50 ms %llu, slowest %.1f ms, "
               "load tool's longest tick gap %.1f ms\n",
               i, (unsigned long long)c->keys, (unsigned long long)c->over5ms,
               (unsigned long long)c->over50ms, (double)c->max_ns / 1e6,
               (double)c->tick_gap_ns / 1e6);
        slow += c->over50ms > 0;
        if (c->tick_gap_ns > worst_gap)
            worst_gap = c->tick_gap_ns;
    }
    bench_count(L, "latency.seconds_over_50ms", slow);
    bench(L, "load.tick_gap.max.ms", (double)worst_gap / 1e6);
}

static void report(load_t *L)
{
    if (L->dropped)
        printf("# %d sessions lost after they had played\n", L->dropped);
    if (L->busy)
        printf("# %d registrations refused as busy, tried again\n", L->busy);
    bench(L, "rampup.ms", (double)L->ramp_ns / 1e6);
    bench_count(L, "sessions.failed", L->failed + L->dropped);
    report_keys(L);
    if (!L->o.saturate && !L->o.hosted)
        report_timeline(L);
    if (L->o.pid)
        bench_count(L, "rss.per_session.bytes", (L->rss_end - L->rss0) / L->o.n);
    /* the daemon's CPU over the measured window per key answered in it */
    if (L->cpu_meas >= 0 && L->cpu_end >= L->cpu_meas && L->answered)
        bench(L, "cpu_per_key.us",
              (double)(L->cpu_end - L->cpu_meas) * 1e6 / (double)sysconf(_SC_CLK_TCK) /
                  (double)L->answered);
    if (L->o.detach_all > 0) {
        printf("# detach-all: %d sessions closed at once; player 0's keys: %llu answered, "
               "slowest %.1f ms\n",
               L->total - 1, (unsigned long long)L->detach_keys, (double)L->stall_ns / 1e6);
        bench(L, "detach_all.stall.ms", (double)L->stall_ns / 1e6);
    }
    if (L->o.m) {
        if (L->wdel.n)
            qsort(L->wdel.v, L->wdel.n, sizeof *L->wdel.v, cmp_u64);
        printf("# watcher delay us: p50 %.1f p99 %.1f max %.1f (%zu frames)\n",
               pct_us(&L->wdel, 0.5), pct_us(&L->wdel, 0.99), pct_us(&L->wdel, 1), L->wdel.n);
        printf("BENCH server.watch.delay.p99.us %.1f\n", pct_us(&L->wdel, 0.99));
        if (L->wkey.n)
            qsort(L->wkey.v, L->wkey.n, sizeof *L->wkey.v, cmp_u64);
        printf("# watcher delay from the key us: p50 %.1f p99 %.1f max %.1f (%zu frames)\n",
               pct_us(&L->wkey, 0.5), pct_us(&L->wkey, 0.99), pct_us(&L->wkey, 1), L->wkey.n);
        if (L->wback.n)
            qsort(L->wback.v, L->wback.n, sizeof *L->wback.v, cmp_u64);
        printf("# watchers back on their game ms: p50 %.1f p99 %.1f max %.1f (%zu returns)\n",
               pct_us(&L->wback, 0.5) / 1000, pct_us(&L->wback, 0.99) / 1000,
               pct_us(&L->wback, 1) / 1000, L->wback.n);
    }
    if (L->o.hosted)
        report_hosted(L);
    if (L->o.reconnect) {
        if (L->resume.n)
            qsort(L->resume.v, L->resume.n, sizeof *L->resume.v, cmp_u64);
        printf("# reconnect: %llu returns (p50 %.1f p99 %.1f ms), %llu told elsewhere, "
               "%llu new games instead, %d still returning\n",
               (unsigned long long)L->rejoined, pct_us(&L->resume, 0.5) / 1000,
               pct_us(&L->resume, 0.99) / 1000, (unsigned long long)L->told,
               (unsigned long long)L->rejoin_new, L->rejoining);
    }
}

/* ---- marks (SIGUSR1) ---------------------------------------------------------------- */

/* The p-quantile (us) of a's samples from index from on; a stays as it is. */
static double since_pct(const samples_t *a, size_t from, double p)
{
    size_t n = a->n > from ? a->n - from : 0;
    uint64_t *v = n ? malloc(n * sizeof *v) : NULL;
    if (!v)
        return 0;
    memcpy(v, a->v + from, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_u64);
    samples_t s = {v, n, n};
    double r = pct_us(&s, p);
    free(v);
    return r;
}

static int write_acked(const load_t *L);

/* One line of what happened since the last mark, for a scenario in
 * steps: sessions playing and watching now, key latency, the watchers'
 * delay from the key, the returns; then the --acked file as it is now. */
static void on_usr1(uv_signal_t *h, int sig)
{
    load_t *L = h->data;
    (void)sig;
    int playing = 0, following = 0, failed = 0;
    if (L->o.acked) /* first: a reader of the mark's line finds the file as of it */
        write_acked(L);
    for (int i = 0; i < L->total; i++) {
        const sess_t *s = &L->s[i];
        playing += !s->watcher && s->state == SS_PLAY;
        following += sess_following(s);
        failed += s->state == SS_FAILED;
    }
    printf("# mark %d: playing=%d players=%d following=%d watchers=%d failed=%d rejoining=%d "
           "keys=%zu key.p50.us=%.1f key.p99.us=%.1f wkey.n=%zu wkey.p50.us=%.1f "
           "wkey.p99.us=%.1f wdel.p99.us=%.1f resumes=%zu resume.p50.ms=%.1f "
           "resume.p99.ms=%.1f told=%llu new_games=%llu in_doubt=%llu watch_ends=%llu "
           "watch_nudges=%llu wback.n=%zu wback.p50.ms=%.1f wback.p99.ms=%.1f\n",
           ++L->marks, playing, L->o.n, following, L->o.m, failed, L->rejoining,
           L->lat.n - L->mark_lat, since_pct(&L->lat, L->mark_lat, 0.5),
           since_pct(&L->lat, L->mark_lat, 0.99), L->wkey.n - L->mark_wkey,
           since_pct(&L->wkey, L->mark_wkey, 0.5), since_pct(&L->wkey, L->mark_wkey, 0.99),
           since_pct(&L->wdel, L->mark_wdel, 0.99), L->resume.n - L->mark_resume,
           since_pct(&L->resume, L->mark_resume, 0.5) / 1000,
           since_pct(&L->resume, L->mark_resume, 0.99) / 1000, (unsigned long long)L->told,
           (unsigned long long)L->rejoin_new, (unsigned long long)L->in_doubt,
           (unsigned long long)L->watch_ends, (unsigned long long)L->watch_nudges,
           L->wback.n - L->mark_wback, since_pct(&L->wback, L->mark_wback, 0.5) / 1000,
           since_pct(&L->wback, L->mark_wback, 0.99) / 1000);
    fflush(stdout);
    int shown = 0; /* a session neither playing nor following: what it shows */
    for (int i = 0; i < L->total && shown < 2; i++) {
        const sess_t *s = &L->s[i];
        if (s->watcher ? sess_following(s) : s->state == SS_PLAY)
            continue;
        printf("# mark %d: %s %d not in play (state %d%s%s, its player %s), its screen:\n",
               L->marks, s->watcher ? "watcher" : "player", i, (int)s->state,
               s->picked ? ", picked" : "", s->leaving ? ", leaving" : "",
               L->s[s->target].state == SS_PLAY ? "plays" : "does not play");
        fflush(stdout);
        sess_print_screen(s, stdout);
        shown++;
    }
    fflush(stdout);
    L->mark_lat = L->lat.n;
    L->mark_wkey = L->wkey.n;
    L->mark_wdel = L->wdel.n;
    L->mark_resume = L->resume.n;
    L->mark_wback = L->wback.n;
}

/* ---- main ---------------------------------------------------------------------------------- */

static int load_init(load_t *L)
{
    L->loop = uv_default_loop();
    if (uv_ip4_addr(L->o.host, L->o.port, &L->addr)) {
        fprintf(stderr, "warren-load: bad address %s\n", L->o.host);
        return 2;
    }
    if (L->o.watch_host && uv_ip4_addr(L->o.watch_host, L->o.port, &L->waddr)) {
        fprintf(stderr, "warren-load: bad address %s\n", L->o.watch_host);
        return 2;
    }
    if (L->o.bind && uv_ip4_addr(L->o.bind, 0, &L->baddr)) {
        fprintf(stderr, "warren-load: bad address %s\n", L->o.bind);
        return 2;
    }
    L->total = L->o.n + L->o.m;
    L->s = calloc((size_t)L->total, sizeof *L->s);
    if (!L->s)
        return 1;
    /* names sort in player order within a run, and differ between runs */
    int run = (int)(uv_hrtime() / 1000 % 100000);
    for (int i = 0; i < L->total; i++) {
        sess_t *s = &L->s[i];
        s->L = L;
        s->idx = i;
        s->watcher = i >= L->o.n;
        s->target = s->watcher ? (i - L->o.n) % (L->o.watched < L->o.n ? L->o.watched : L->o.n) : i;
        vt_init(&s->vt);
        /* Players' key patterns out of step, as people's are: in step,
         * all 10,000 make the same move in the same second (the first
         * step that scrolls the view sideways from the start, a frame
         * five times a key's usual CPU) and the daemon's p99 measures
         * that herd, not its players. --in-step keeps the herd. */
        s->keyno = L->o.in_step ? 0 : (unsigned)i;
        snprintf(s->name, sizeof s->name, "ld%05d_%06d", run, i);
    }
    uv_timer_init(L->loop, &L->tick);
    uv_timer_init(L->loop, &L->sweep);
    uv_signal_init(L->loop, &L->usr1);
    L->tick.data = L->sweep.data = L->usr1.data = L;
    uv_signal_start(&L->usr1, on_usr1, SIGUSR1);
    uv_unref((uv_handle_t *)&L->usr1); /* marks keep no run alive */
    return 0;
}

/* --acked: what every player saw answered in its current game; the file
 * replaced whole (a mark writes it while a reader may look). */
static int write_acked(const load_t *L)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.new", L->o.acked);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        perror(tmp);
        return -1;
    }
    for (int i = 0; i < L->o.n; i++)
        fprintf(f, "%s %u\n", L->s[i].name, L->s[i].acked);
    if (fclose(f) || rename(tmp, L->o.acked)) {
        perror(L->o.acked);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static load_t L; /* large (the read buffer); zeroed */
    int ret = parse_args(&L.o, argc, argv);
    if (ret)
        return ret < 0 ? 0 : ret;
    if ((ret = load_init(&L)))
        return ret;
    L.rss0 = L.o.pid ? rss_of(L.o.pid) : 0;
    L.cpu_meas = L.cpu_end = -1;
    L.ramp_t0 = uv_hrtime();
    uv_timer_start(&L.tick, on_tick, TICK_MS, TICK_MS);
    uv_timer_start(&L.sweep, on_sweep, SWEEP_MS, SWEEP_MS);
    start_more(&L);
    uv_run(L.loop, UV_RUN_DEFAULT);
    report(&L);
    if (L.o.acked && write_acked(&L))
        ret = 1;
    /* a hosted key may draw nothing (a wall): only sessions must not fail */
    bool ok = L.failed == 0 && L.dropped == 0 && (L.unanswered == 0 || L.o.hosted) && L.lat.n > 0 &&
              L.rejoin_new == 0 && L.rejoining == 0;
    free(L.s);
    free(L.lat.v);
    free(L.secs);
    free(L.wdel.v);
    free(L.wkey.v);
    free(L.resume.v);
    free(L.wback.v);
    uv_loop_close(L.loop);
    return ok && !ret ? 0 : 1;
}
