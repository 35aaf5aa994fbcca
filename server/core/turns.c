/* turns — see turns.h. */
#include "turns.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "log.h"

static int bucket(uint64_t ns)
{
    uint64_t us = ns / 1000;
    int b = 0;
    for (uint64_t lim = 64; us >= lim && b < TURNS_BUCKETS - 1; lim <<= 1)
        b++;
    return b;
}

static const char *what_names(unsigned what, char *out, size_t cap)
{
    static const char *const names[] = {"menu", "lobby", "tick", "status"};
    size_t len = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (what & (1u << i) && len < cap)
            len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "+" : "", names[i]);
    if (!len)
        snprintf(out, cap, "-");
    return out;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The meter's part of a turn's end (on_prepare, while on). */
static void measure(turns_t *t, uv_loop_t *loop)
{
    uint64_t now = uv_hrtime(), idle = uv_metrics_idle_time(loop), cpu_now = thread_cpu_ns();
    uint64_t span = now - t->last_ns, waited = idle - t->last_idle_ns;
    uint64_t busy = span > waited ? span - waited : 0, cpu = cpu_now - t->last_cpu_ns;
    t->last_ns = now;
    t->last_idle_ns = idle;
    t->last_cpu_ns = cpu_now;
    t->metered++;
    t->hist[bucket(cpu)]++;
    if (busy > t->max_ns)
        t->max_ns = busy;
    if (cpu > t->max_cpu_ns) {
        t->max_cpu_ns = cpu;
        t->max_what = t->what;
    }
    for (int k = 0; k < TURN_COUNTS; k++)
        if (t->count[k] > t->count_max[k])
            t->count_max[k] = t->count[k];
    if (t->log_ns && cpu >= t->log_ns) {
        char w[64];
        log_info("turn %llu us cpu %llu us: %s, redraws %u games %u previews %u, viewers %llu us",
                 (unsigned long long)(busy / 1000), (unsigned long long)(cpu / 1000),
                 what_names(t->what, w, sizeof w), t->count[TURN_REDRAWS], t->count[TURN_GAMES],
                 t->count[TURN_PREVIEWS], (unsigned long long)(t->viewer_ns / 1000));
    }
    if (t->viewer_ns > t->viewer_max_ns)
        t->viewer_max_ns = t->viewer_ns;
    t->viewer_slow += t->viewer_ns >= 1000000;
    t->lobby_with_menu += (t->what & (TURN_STATUS | TURN_MENU)) == (TURN_STATUS | TURN_MENU);
    t->viewer_ns = 0;
    t->what = 0;
    memset(t->count, 0, sizeof t->count);
}

/* Just before the poll: the turn since the last poll ended. */
static void on_prepare(uv_prepare_t *h)
{
    turns_t *t = h->data;
    t->n++;
    if (t->on)
        measure(t, h->loop);
}

void turns_meter_on(turns_t *t)
{
    /* libuv times its polls from now on, not before: that costs it
     * clock reads and a first poll that does not wait, each turn */
    if (t->on || !t->prep.loop || uv_loop_configure(t->prep.loop, UV_METRICS_IDLE_TIME))
        return;
    t->on = true;
    t->on_s = (uint64_t)time(NULL);
    t->last_ns = uv_hrtime();
    t->last_idle_ns = uv_metrics_idle_time(t->prep.loop);
    t->last_cpu_ns = thread_cpu_ns();
}

int turns_start(turns_t *t, uv_loop_t *loop)
{
    const char *env = getenv("WARREN_TURN_LOG_US");
    t->log_ns = env ? strtoull(env, NULL, 10) * 1000 : 0;
    int err = uv_prepare_init(loop, &t->prep);
    if (err)
        return err;
    t->prep.data = t;
    uv_unref((uv_handle_t *)&t->prep);
    err = uv_prepare_start(&t->prep, on_prepare);
    if (!err && env)
        turns_meter_on(t);
    return err;
}

void turns_stop(turns_t *t)
{
    if (t->prep.loop && !uv_is_closing((uv_handle_t *)&t->prep))
        uv_close((uv_handle_t *)&t->prep, NULL);
}

void turns_describe(const turns_t *t, char *out, size_t cap)
{
    if (!t->on) {
        snprintf(out, cap, "loop turns: %llu; not measured (the meter is off)",
                 (unsigned long long)t->n);
        return;
    }
    char w[64], since[32];
    time_t on = (time_t)t->on_s;
    struct tm tm;
    if (!gmtime_r(&on, &tm) || !strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(since, sizeof since, "?");
    long long ago = (long long)time(NULL) - (long long)t->on_s;
    int len = snprintf(
        out, cap,
        "loop turns: %llu; since the meter went on at %s (%lld s ago): %llu, longest %llu us, "
        "most CPU %llu us (%s); most in one turn: %u menu redraws, %u lobby games, %u previews; "
        "viewers' work: most %llu us in one turn, 1 ms or more in %llu; "
        "lobby rounds beside menu redraws: %llu; CPU per turn",
        (unsigned long long)t->n, since, ago, (unsigned long long)t->metered,
        (unsigned long long)(t->max_ns / 1000), (unsigned long long)(t->max_cpu_ns / 1000),
        what_names(t->max_what, w, sizeof w), t->count_max[TURN_REDRAWS], t->count_max[TURN_GAMES],
        t->count_max[TURN_PREVIEWS], (unsigned long long)(t->viewer_max_ns / 1000),
        (unsigned long long)t->viewer_slow, (unsigned long long)t->lobby_with_menu);
    for (int b = 0; b < TURNS_BUCKETS && len > 0 && (size_t)len < cap; b++)
        if (t->hist[b])
            len += snprintf(out + len, cap - (size_t)len, " %s%llu us: %llu",
                            b == TURNS_BUCKETS - 1 ? ">=" : "<",
                            64ull << (b == TURNS_BUCKETS - 1 ? b - 1 : b),
                            (unsigned long long)t->hist[b]);
}
