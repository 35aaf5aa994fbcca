/* control_drain — `drain SECONDS [TEXT]` and `drain-status`: taking this
 * node out of service for a rolling upgrade (drain.h says what the other
 * layers do meanwhile).
 *
 * A drain announces its message on every terminal at once and sets
 * server_t.drain, so /health answers 503 and no game starts here; then it
 * waits until no player is in a game, but at least DRAIN_NOTICE_MS (the
 * balancer's health check sees 503 and players read the message) and at
 * most SECONDS. Then it sends the daemon SIGTERM: the clean stop saves
 * every game, bids every player goodbye with the message, and exits 0,
 * exactly as when an operator stops the service. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "announce.h"
#include "control_impl.h"
#include "drain.h"
#include "log.h"
#include "shard.h"

#define DRAIN_NOTICE_MS 2000 /* from the announcement to the earliest stop */
#define DRAIN_POLL_MS   250  /* how often a drain looks for players left */

/* The clean stop: SIGTERM's own path in main.c, whatever it grows to do. */
static void drain_stop(drain_t *d, const char *why)
{
    d->stopping = true;
    uv_timer_stop(&d->timer);
    log_info("drain: %s; stopping cleanly", why);
    int err = uv_kill(getpid(), SIGTERM);
    if (err)
        log_error("drain: cannot signal the daemon: %s", uv_strerror(err));
}

static void on_drain_tick(uv_timer_t *t)
{
    server_t *home = t->data;
    drain_t *d = home->drain;
    uint64_t now = uv_now(home->loop);
    if (home->stopping || d->stopping)
        return;
    if (now >= d->deadline_ms)
        drain_stop(d, "the deadline came");
    else if (now - d->start_ms >= DRAIN_NOTICE_MS && drain_players(home) == 0)
        drain_stop(d, "no player is in a game");
}

/* "2026-01-02 03:04:05 UTC" */
static void drain_when(int64_t t, char *out, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(out, n, "%lld", (long long)t);
}

void cmd_drain(ctl_t *c, char *arg)
{
    server_t *home = c->srv;
    char *text = strchr(arg, ' '); /* control_parse checked SECONDS */
    long secs = strtol(arg, NULL, 10);
    if (home->drain)
        return ctl_finish(c, "a drain is under way already (warren-admin drain --status)");
    drain_t *d = calloc(1, sizeof *d);
    if (!d)
        return ctl_finish(c, "out of memory");
    d->since = (int64_t)time(NULL);
    d->start_ms = uv_now(home->loop);
    d->deadline_ms = d->start_ms + (uint64_t)secs * 1000;
    snprintf(d->message, sizeof d->message, "%s",
             text && text[1] ? text + 1 : DRAIN_DEFAULT_MESSAGE);
    uv_timer_init(home->loop, &d->timer);
    d->timer.data = home;
    uv_timer_start(&d->timer, on_drain_tick, DRAIN_POLL_MS, DRAIN_POLL_MS);
    home->drain = d;
    log_info("admin: drain deadline=%lds message=\"%s\"", secs, d->message);
    announce_set(home, d->message);
    buf_printf(&c->out,
               "draining: /health answers 503, no new game starts here; %d players in games "
               "told; warrend stops cleanly once none is left, within %ld s\n",
               drain_players(home), secs);
    ctl_finish(c, NULL);
}

void cmd_drain_status(ctl_t *c, char *arg)
{
    server_t *home = c->srv;
    const drain_t *d = home->drain;
    char when[40];
    (void)arg;
    if (!d) {
        buf_puts(&c->out, "draining: no\n");
        return ctl_finish(c, NULL);
    }
    uint64_t now = uv_now(home->loop);
    drain_when(d->since, when, sizeof when);
    buf_printf(&c->out, "draining: since %s (%llu s)\n", when,
               (unsigned long long)(now - d->start_ms) / 1000);
    if (d->stopping)
        buf_puts(&c->out, "stop: under way\n");
    else
        buf_printf(&c->out, "stop: within %llu s, or once no player is in a game\n",
                   (unsigned long long)(d->deadline_ms > now ? d->deadline_ms - now : 0) / 1000);
    buf_printf(&c->out, "players in games: %d\n", drain_players(home));
    buf_printf(&c->out, "message: %s\n", d->message);
    ctl_finish(c, NULL);
}

void ctl_drain_close(server_t *home)
{
    drain_t *d = home->drain;
    if (d && !uv_is_closing((uv_handle_t *)&d->timer)) {
        uv_timer_stop(&d->timer);
        uv_close((uv_handle_t *)&d->timer, NULL);
    }
}
