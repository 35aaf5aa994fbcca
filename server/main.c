/* warrend — the Warren daemon: one libuv loop serving telnet (TCP and a
 * Unix socket) and the web gateway, hosting every live game. See
 * server/core/server.h for the pieces and server/core/config.h for the settings. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "accounts.h"
#include "addrrate.h"
#include "announce.h"
#include "budget.h"
#include "logcap.h"
#include "control.h"
#include "daily.h"
#include "hooks.h"
#include "hostcap.h"
#include "hostcopy.h"
#include "hostgame.h"
#include "log.h"
#include "menu.h"
#include "moderation.h"
#include "notify.h"
#include "peer.h"
#include "readturn.h"
#include "privsep.h"
#include "pool.h"
#include "records.h"
#include "routes.h"
#include "screens.h"
#include "server.h"
#include "session.h"
#include "shard.h"
#include "spawner.h"
#include "telnet.h"
#include "web.h"
#include "webgw.h"
#include "retention.h"

static void on_tick(uv_timer_t *t)
{
    server_t *s = t->data;
    turns_ran(&s->turns, TURN_TICK);
    telnetgw_tick(s);
    server_tick(s);
    menu_tick(s);
    webgw_tick(s);
    announce_tick(s);
    retention_tick(s);
}

/* What the layers above the core register with it (hooks.h), before any
 * loop runs; the table lives as long as main. */
static void hooks_register(hooks_t *h)
{
    screens_hooks(h);
    telnetgw_hooks(h);
    webgw_hooks(h);
    hostgame_hooks(h);
    records_hooks(h);
}

/* The stall probe: a timer every LOOP_PROBE_MS that notes how late it
 * fired. A turn of the loop that ran LOOP_STALL_MS or longer (every game
 * waited that long) is logged, so an operator and the benchmarks see it. */
#define LOOP_PROBE_MS 10
#define LOOP_STALL_MS 50

static void on_probe(uv_timer_t *t)
{
    server_t *s = t->data;
    uint64_t now = uv_hrtime();
    if (now > s->probe_due_ns && now - s->probe_due_ns >= LOOP_STALL_MS * 1000000ull)
        log_warn("loop stalled %llu ms", (unsigned long long)(now - s->probe_due_ns) / 1000000);
    s->probe_due_ns = now + LOOP_PROBE_MS * 1000000ull;
}

static void probe_start(server_t *s)
{
    uv_timer_init(s->loop, &s->probe);
    s->probe.data = s;
    uv_unref((uv_handle_t *)&s->probe); /* it never keeps the loop alive */
    s->probe_due_ns = uv_hrtime() + LOOP_PROBE_MS * 1000000ull;
    uv_timer_start(&s->probe, on_probe, LOOP_PROBE_MS, LOOP_PROBE_MS);
}

/* Every game's keys are stored, or given up after a few retries. */
static void shutdown_finish(server_t *s)
{
    /* after every game's last rows and hosted files: other nodes may take them at once */
    hostcopy_after_last(s, lease_stop);
    int ret = db_flush_sync(s->db);
    if (ret != DB_OK)
        log_error("final flush failed: %s", db_error(s->db));
    uv_timer_stop(&s->tick);
    uv_close((uv_handle_t *)&s->tick, NULL);
    uv_close((uv_handle_t *)&s->probe, NULL);
    turns_stop(&s->turns);
    menu_tick_close(s);
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    shard_mailbox_close(s);
}

/* Home's games are stored: every connection is told and closed (a game on
 * another loop is left there), then the other loops store theirs and stop. */
static void shutdown_stored(server_t *s)
{
    server_close_conns(s);
    shards_shutdown(s, shutdown_finish);
}

static void on_signal(uv_signal_t *h, int signum)
{
    server_t *s = h->data;
    if (s->stopping)
        return;
    s->stopping = true;
    log_info("signal %d: shutting down", signum);
    spawner_stop(s->spawner); /* rc files in flight: answered now, before their players go */
    telnetgw_stop(s);
    control_stop(s);
    peer_stop(s);
    webgw_stop(s);
    readturn_close(s); /* keys kept for a later turn are played first */
    session_shutdown_all(s);
    storage_shutdown(s, shutdown_stored);
}

/* Descriptors kept out of the connection budget: the database, the loop,
 * listeners, files being served, and the sockets being turned away politely
 * (web_door.h: WEB_DOOR_REFUSING_MAX). */
#define FD_RESERVE 256

/* The connection budget: max-connections, but never more than the
 * descriptors allow once the soft limit is raised to the hard one, so the
 * daemon refuses politely before accept() starts failing. */
static budget_t *budget_open(const config_t *cfg)
{
    struct rlimit rl;
    long long fds = -1;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        if (rl.rlim_cur < rl.rlim_max) {
            struct rlimit up = {rl.rlim_max, rl.rlim_max};
            if (setrlimit(RLIMIT_NOFILE, &up) == 0)
                rl = up;
        }
        fds = rl.rlim_cur == RLIM_INFINITY ? -1 : (long long)rl.rlim_cur;
    }
    int total = cfg->max_conns;
    if (fds >= 0 && fds - FD_RESERVE < total)
        total = fds - FD_RESERVE > 1 ? (int)(fds - FD_RESERVE) : 1;
    if (total < cfg->max_conns)
        log_warn("connections: at most %d, %d per address: max-connections %d is cut to the "
                 "descriptor limit %lld less %d kept for files and listeners (raise it: "
                 "ulimit -n, systemd's LimitNOFILE)",
                 total, cfg->max_per_ip, cfg->max_conns, fds, FD_RESERVE);
    else
        log_info("connections: at most %d, %d per address (descriptors %lld)", total,
                 cfg->max_per_ip, fds);
    log_info("per-address limits count IPv6 addresses by their first %d bits (ipv6-prefix)",
             cfg->ipv6_prefix);
    return budget_new(total, cfg->max_per_ip);
}

/* The request rate per address (addrrate.h); NULL when off. */
static int pace_open(server_t *s)
{
    if (!s->cfg.request_rate) {
        log_info("requests: no limit a second per address (request-rate 0)");
        return 0;
    }
    s->pace = addrrate_new((unsigned)s->cfg.request_rate, (unsigned)s->cfg.request_burst);
    if (!s->pace)
        return -1;
    log_info("requests: %d a second per address, bursts of %d (%d addresses remembered)",
             s->cfg.request_rate, s->cfg.request_burst, ADDRRATE_SLOTS);
    return 0;
}

static int server_open(server_t *s)
{
    char err[512];
    s->content = content_load(s->cfg.content[0] ? s->cfg.content : NULL, err, sizeof err);
    if (!s->content)
        return log_error("content: %s", err), -1;
    log_info("content %s", content_version(s->content));
    s->vm = script_vm_new();
    if (!s->vm)
        return log_error("content: cannot start the script vm"), -1;
    if (spawner_attach(s->spawner, s->loop) < 0)
        return log_error("spawner: cannot watch it on the loop"), -1;
    hostcopy_attach(s);
    char want[DB_SECRET_HEX + 1], held[DB_SECRET_HEX + 1] = "";
    if (daily_open(s, want)) /* daily-secret's file, or the secret for the database */
        return -1;
    /* the database checked, its id kept, the daily secret stored once, then its cap */
    int opened = storage_open(s, want[0] ? want : NULL, held);
    if (opened == 0)
        opened = daily_keep(s, want, held);
    sodium_memzero(want, sizeof want);
    sodium_memzero(held, sizeof held);
    if (opened)
        return -1;
    if (shard_mailbox_open(s))
        return log_error("loops: out of memory"), -1;
    accounts_config_t ac;
    accounts_config_default(&ac);
    if (s->cfg.test_hooks) { /* cheap hashes keep the test suites fast */
        ac.opslimit = 1;
        ac.memlimit = 8192;
    }
    ac.verify_delay_ms = (unsigned)s->cfg.test_login_delay;
    ac.register_per_ip = (unsigned)s->cfg.register_per_hour;
    /* register-per-hour = 0 (load tests, a closed site) lifts both limits */
    ac.register_all = s->cfg.register_per_hour ? (unsigned)s->cfg.register_all_per_hour : 0;
    s->acc = accounts_new(s->loop, s->db, &ac);
    if (!s->acc)
        return log_error("accounts: cannot start"), -1;
    s->budget = budget_open(&s->cfg);
    s->strangers = logcap_new(0);
    if (!s->budget || !s->strangers || pace_open(s) || !(s->mod = moderation_new()) ||
        hostcap_open(s))
        return log_error("connections: out of memory"), -1;
    storage_log_conflicts(s); /* capped by strangers */
    moderation_load(s);       /* bans and mutes, before the first connection */
    if (shards_start(s))
        return -1;
    char root[4096];
    s->records = records_new(s, web_default_root(root, sizeof root));
    if (!s->records)
        return log_error("records: out of memory"), -1;
    if (telnetgw_listen(s) || control_listen(s) || peer_start(s))
        return -1;
    webgw_start(s, WEB_ROUTES, WEB_NROUTES);
    int err_sig = uv_signal_init(s->loop, &s->sigterm);
    if (err_sig || (err_sig = uv_signal_init(s->loop, &s->sigint)))
        return log_error("signals: %s", uv_strerror(err_sig)), -1;
    s->sigterm.data = s->sigint.data = s;
    uv_signal_start(&s->sigterm, on_signal, SIGTERM);
    uv_signal_start(&s->sigint, on_signal, SIGINT);
    uv_timer_init(s->loop, &s->tick);
    s->tick.data = s;
    uv_timer_start(&s->tick, on_tick, 1000, 1000);
    probe_start(s);
    if (turns_start(&s->turns, s->loop))
        return log_error("loop: cannot measure its turns"), -1;
    int ret = session_recover_all(s);
    records_verify_backlog(s); /* after recovery: games it finishes are queued too */
    return ret;
}

static void server_free(server_t *s)
{
    accounts_free(s->acc);
    if (s->stopping) /* a clean stop whose last copies never said they ended: released now */
        lease_stop(s);
    db_close(s->db);
    uv_run(s->loop, UV_RUN_DEFAULT); /* close callbacks of db, accounts, conns */
    notify_outbox_free(s);           /* its writes all answered by now */
    shards_free(s);                  /* their threads end with their loops */
    webgw_free(s);
    telnetgw_free(s);
    control_free(s);
    records_free(s->records);
    session_free_all(s);
    peer_free(s); /* after the sessions: mirrors are among them */
    menu_cache_free(s);
    script_vm_free(s->vm); /* before the content it ran */
    content_free(s->content);
    server_bufs_free(s);
    hostcap_close(s);       /* after the sessions, whose hosted games held slots */
    budget_free(s->budget); /* last: the gateways release their slots as they close */
    addrrate_free(s->pace);
    logcap_free(s->strangers);
    moderation_free(s->mod);
    shard_mailbox_free(s);
}

/* server_open failed part way: close what it opened before server_free. */
static void server_unwind(server_t *s)
{
    shards_shutdown(s, shard_mailbox_close); /* server_free's run lets them stop */
    telnetgw_stop(s);
    control_stop(s);
    webgw_stop(s);
    storage_close(s);
    lease_close(s);
    if (s->tick.loop)
        uv_close((uv_handle_t *)&s->tick, NULL);
    if (s->probe.loop)
        uv_close((uv_handle_t *)&s->probe, NULL);
    turns_stop(&s->turns);
    menu_tick_close(s);
    if (s->sigterm.loop)
        uv_close((uv_handle_t *)&s->sigterm, NULL);
    if (s->sigint.loop)
        uv_close((uv_handle_t *)&s->sigint, NULL);
}

int main(int argc, char **argv)
{
    server_t srv;
    memset(&srv, 0, sizeof srv);
    config_defaults(&srv.cfg);
    char err[512];
    if (config_from_args(&srv.cfg, argc, argv, err, sizeof err)) {
        fprintf(stderr, "warrend: %s\n", err);
        return 2;
    }
    /* a database password given as an argument: out of ps (the spawner,
     * forked next, shows the same argv) */
    bool pw_in_args = false;
    for (int i = 1; i < argc; i++)
        pw_in_args |= db_hide_secret(argv[i]);
    if (srv.cfg.help) {
        config_print_usage(stdout);
        return 0;
    }
    if (srv.cfg.version) {
        printf("warrend %s\n", WARREN_VERSION);
        return 0;
    }
    db_process_init(); /* before any thread */
    /* before any thread and any other file: the spawner keeps root's rights */
    if (privsep_start(&srv.cfg, &srv.spawner, err, sizeof err) < 0) {
        fprintf(stderr, "warrend: %s\n", err);
        spawner_free(srv.spawner);
        config_free(&srv.cfg);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    char tests[256];
    if (config_test_keys(&srv.cfg, tests, sizeof tests))
        log_warn("TEST-ONLY SETTINGS: %s: never on a server people use (they weaken it: cheap "
                 "password hashes, a state-hash key, slowed logins; deploy/warren.conf)",
                 tests);
    if (pw_in_args)
        log_warn("the database password was given as an argument: hidden from ps once read, "
                 "shown there until then; keep it in a passfile (deploy/RUNNING.md)");
    uv_loop_t loop;
    int uerr = uv_loop_init(&loop);
    if (uerr) {
        log_error("cannot start the loop: %s", uv_strerror(uerr));
        return 1;
    }
    int ret = server_init(&srv, &loop); /* no random keys: its tables open to floods */
    if (ret)
        log_error("libsodium cannot start (sodium_init failed): the tables of names and "
                  "addresses need its random keys");
    hooks_t hooks = {0};
    hooks_register(&hooks);
    srv.hooks = &hooks;
    if (ret == 0)
        ret = hooks.full          ? (log_error("hooks: a list is full (HOOKS_MAX)"), -1)
              : pool_start(&loop) ? -1
                                  : server_open(&srv);
    if (ret == 0) {
        log_info("warrend %s ready", WARREN_VERSION);
        uv_run(&loop, UV_RUN_DEFAULT);
    } else {
        server_unwind(&srv);
    }
    server_free(&srv);
    spawner_free(srv.spawner); /* every hosted program has ended: it exits at once */
    config_free(&srv.cfg);
    uv_loop_close(&loop);
    log_info("warrend stopped");
    return ret == 0 ? 0 : 1;
}
