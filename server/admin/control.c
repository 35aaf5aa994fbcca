/* control — the admin control socket. warren-admin connects to a Unix
 * socket that only the daemon's user can open (mode 0600), sends one line
 * "COMMAND ARGS" and reads the answer: lines of text, then "ok" or
 * "error: MESSAGE", then the daemon closes. Commands that need the database
 * go through db/ and accounts/ (threads), so the loop never waits.
 *
 *   users                 every account: name, created, locked, games, live game
 *   games                 live games: player, game, depth, turn, idle, watchers
 *   lock NAME, unlock NAME
 *   passwd NAME PASSWORD  the rest of the line is the password
 *   announce TEXT         shown on every menu for ANNOUNCE_MS, games ANNOUNCE_GAME_MS; "" clears
 *   health                quick check, sizes, unfinished games, journal rows, storage
 *                         (ok / failing since T / stalled / lost, last error, cap),
 *                         broken games
 *   check-db              the full integrity check, on a reader thread
 *   db-max-size BYTES     caps the database now (K, M, G; 0 lifts it), until restart
 *   kick, ban, unban, bans, end, delete, rename, mute, unmute: control_mod.c
 *   drain SECONDS [TEXT], drain-status: control_drain.c
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "control.h"
#include "announce.h"
#include "control_impl.h"
#include "control_parse.h"
#include "daily.h"
#include "log.h"
#include "menu.h"
#include "notify.h"
#include "peer.h"
#include "readturn.h"
#include "server.h"
#include "session.h"
#include "shard.h"
#include "webgw.h"
#include "accounts.h"

#define HEALTH_BROKEN_MAX 20 /* broken games listed, newest first */
#define CTL_CONNS_MAX     32 /* open control connections; more are told busy */
#define CTL_WAIT_S        10 /* for a command line, or for the peer to close after */
#define CTL_WAIT_MS       (CTL_WAIT_S * 1000)
#define STR(x)            #x
#define XSTR(x)           STR(x)

/* The control socket (server_t.control). */
struct control {
    uv_pipe_t listener;
    uv_timer_t sweep; /* closes connections past CTL_WAIT_MS (while on) */
    bool on;
    list_t ctls; /* open control connections (ctl_t.node) */
    int nctls;
};

/* ---- lifetime and replies -------------------------------------------------------- */

void ctl_unref(ctl_t *c)
{
    if (--c->refs > 0)
        return;
    buf_free(&c->out);
    free(c);
}

static void on_ctl_closed(uv_handle_t *h)
{
    ctl_unref(h->data);
}

static void ctl_close(ctl_t *c)
{
    if (c->closing)
        return;
    c->closing = true;
    list_remove(&c->node);
    c->srv->control->nctls--;
    uv_close((uv_handle_t *)&c->pipe, on_ctl_closed);
}

static void on_ctl_shutdown(uv_shutdown_t *req, int status)
{
    ctl_t *c = req->data;
    c->shut_done = true;
    if (status < 0 || c->peer_done)
        ctl_close(c);
    ctl_unref(c);
}

/* The answer is out: end our side and read (and drop) until the peer
 * closes, so unread input never turns the close into a reset that could
 * swallow the answer. */
static void on_ctl_written(uv_write_t *w, int status)
{
    ctl_t *c = w->data;
    free(w);
    c->shut.data = c;
    if (status < 0 || c->closing ||
        uv_shutdown(&c->shut, (uv_stream_t *)&c->pipe, on_ctl_shutdown) < 0) {
        ctl_close(c);
        return;
    }
    c->refs++;
}

/* Sends what was collected in c->out plus the last line, then closes. */
void ctl_finish(ctl_t *c, const char *error)
{
    if (c->closing)
        return;
    if (error)
        buf_printf(&c->out, "error: %s\n", error);
    else
        buf_puts(&c->out, "ok\n");
    uv_write_t *w = malloc(sizeof *w);
    uv_buf_t b = uv_buf_init(c->out.data, (unsigned)c->out.len);
    if (w)
        w->data = c;
    if (!w || uv_write(w, (uv_stream_t *)&c->pipe, &b, 1, on_ctl_written) < 0) {
        free(w);
        ctl_close(c);
    }
}

const char *db_msg(server_t *s, int status)
{
    return status == DB_ENOTFOUND   ? "no such account"
           : status == DB_EEXISTS   ? "that name is taken"
           : status == DB_ECONFLICT ? DB_CONFLICT_MSG
                                    : db_error(s->db);
}

void ctl_fail(ctl_t *c, int status, const char *outcome)
{
    if (status != DB_ECONFLICT)
        return ctl_finish(c, db_msg(c->srv, status));
    char why[400];
    const char *what = c->name[0] ? c->name : c->net;
    snprintf(why, sizeof why,
             "the database was busy with %s%s at the same moment (another transaction held "
             "them on each of %d tries); %s (try again)",
             what[0] ? "the rows of " : "the same rows", what, DB_CONFLICT_TRIES,
             outcome ? outcome : "nothing changed");
    ctl_finish(c, why);
}

/* ---- users and games ------------------------------------------------------------------ */

static void on_users(void *ud, int status, const db_user_info_t *u, size_t n)
{
    ctl_t *c = ud;
    if (status == DB_OK) {
        buf_printf(&c->out, "%-20s %-10s %-6s %6s %-9s %s\n", "NAME", "CREATED", "LOCKED", "GAMES",
                   "LIVE-GAME", "GAME-NAME");
        for (size_t i = 0; i < n; i++) {
            char day[16] = "-";
            time_t t = (time_t)u[i].created;
            struct tm tm;
            if (gmtime_r(&t, &tm))
                strftime(day, sizeof day, "%Y-%m-%d", &tm);
            buf_printf(&c->out, "%-20s %-10s %-6s %6lld %-9lld %s\n", u[i].name, day,
                       u[i].locked ? "yes" : "no", (long long)u[i].games, (long long)u[i].live_game,
                       u[i].game_name);
        }
    }
    ctl_finish(c, status == DB_OK ? NULL : db_msg(c->srv, status));
    ctl_unref(c);
}

static void cmd_users(ctl_t *c, char *arg)
{
    (void)arg;
    c->refs++;
    db_users_list(c->srv->db, on_users, c);
}

/* The rows of loop k's live games (k parked unless it is home). A hosted
 * game's id is its recording's (/hosted/ID; "-" until it is stored), its
 * depth and turn what its status pattern reads (0 without one); NODE is
 * the node running it (another node's game is listed here: peer.h). */
static void games_of_loop(ctl_t *c, server_t *k, uint64_t now)
{
    LIST_EACH (it, &k->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        if (s->ended)
            continue;
        session_status_t st;
        bool warren = session_status(s, &st) || s->game_id > 0;
        char term[24], id[24] = "-";
        session_term_text(s, term, sizeof term);
        if (warren || st.hosted_id > 0)
            snprintf(id, sizeof id, "%lld", (long long)(warren ? s->game_id : st.hosted_id));
        uint64_t idle = now > s->last_key_ms ? (now - s->last_key_ms) / 1000 : 0;
        const char *node = peer_node_of(s);
        if (!node)
            node = k->cfg.node[0] ? k->cfg.node : "-";
        buf_printf(&c->out, "%-20s %-10.31s %8s %5d %8llu %5llus %5d %-8s %s\n", s->user, s->kind,
                   id, st.depth, (unsigned long long)st.turn, (unsigned long long)idle,
                   s->nwatchers, node, term);
    }
}

static void cmd_games(ctl_t *c, char *arg)
{
    (void)arg;
    server_t *srv = c->srv;
    buf_printf(&c->out, "%-20s %-10s %8s %5s %8s %6s %5s %-8s %s\n", "PLAYER", "KIND", "GAME",
               "DEPTH", "TURN", "IDLE", "WATCH", "NODE", "TERM");
    shards_lock_all(srv);
    for (int i = 0; i < shard_count(srv); i++)
        games_of_loop(c, shard_at(srv, i), now_ms(srv));
    shards_unlock_all(srv);
    peer_stats_t ps;
    peer_stats(srv, &ps);
    if (ps.games > ps.mirrors) /* past peer-max-games: counted, not listed */
        buf_printf(&c->out, "and %d more on other nodes\n", ps.games - ps.mirrors);
    buf_printf(&c->out, "node: %s\n", srv->cfg.node); /* this node's name */
    ctl_finish(c, NULL);
}

/* ---- lock, unlock, passwd ------------------------------------------------------------------ */

static void locked(ctl_t *c, int n, int64_t game)
{
    (void)n;
    moderation_send_off_nodes(c->srv, c->user_id, MOD_LOCKED, NULL); /* at other nodes too */
    buf_printf(&c->out, "%s locked: %s\n", c->name,
               game ? "its live game was saved and detached" : "no live game");
    ctl_finish(c, NULL);
}

static void on_locked(void *ud, int status, int64_t id)
{
    ctl_t *c = ud;
    (void)id;
    if (status == DB_OK && c->lock) {
        accounts_sent_off(c->srv->acc, c->user_id, ACCOUNTS_ELOCKED, NULL); /* logins in flight */
        ctl_sweep_off(c, SWEEP_LOG_OUT, GAME_CLOSE, MOD_LOCKED, locked);
    } else {
        if (status == DB_OK) { /* what it did, never silence */
            buf_printf(&c->out, "%s unlocked: it may log in again\n", c->name);
            ctl_finish(c, NULL);
        } else {
            ctl_fail(c, status, NULL);
        }
    }
    ctl_unref(c);
}

static void lock_user(ctl_t *c, const db_user_t *u)
{
    log_info("admin: %s user=%s", c->lock ? "lock" : "unlock", u->name);
    db_user_set_locked(c->srv->db, u->id, c->lock, on_locked, c);
}

static void lock_start(ctl_t *c, char *name, bool lock)
{
    c->lock = lock;
    ctl_with_user(c, name, lock_user);
}

static void cmd_lock(ctl_t *c, char *arg)
{
    lock_start(c, arg, true);
}

static void cmd_unlock(ctl_t *c, char *arg)
{
    lock_start(c, arg, false);
}

static void on_reset(void *ud, int status, const db_user_t *u, const char *msg)
{
    ctl_t *c = ud;
    if (status == ACCOUNTS_OK) {
        log_info("admin: passwd user=%s", u ? u->name : c->name);
        if (u)
            webgw_revoke(c->srv, u->id, NULL); /* its open browsers log in again */
        buf_printf(&c->out, "password of %s changed; its browsers must log in again\n",
                   u ? u->name : c->name);
    }
    ctl_finish(c, status == ACCOUNTS_OK ? NULL : msg);
    ctl_unref(c);
}

static void cmd_passwd(ctl_t *c, char *arg)
{
    char *pw = strchr(arg, ' '); /* control_parse checked there is one */
    *pw++ = '\0';
    snprintf(c->name, sizeof c->name, "%s", arg);
    c->refs++;
    if (accounts_reset_password(c->srv->acc, arg, pw, strlen(pw), on_reset, c) != 0) {
        ctl_finish(c, "the account service is not available");
        ctl_unref(c);
    }
}

/* ---- announcements ---------------------------------------------------------------------- */

/* Telnet conns on every loop (each loop counts its own). */
static int conns_all(server_t *home)
{
    int n = 0;
    shards_lock_all(home);
    for (int i = 0; i < shard_count(home); i++)
        n += shard_at(home, i)->nconns;
    shards_unlock_all(home);
    return n;
}

static void cmd_announce(ctl_t *c, char *arg)
{
    log_info("admin: announce \"%s\"", arg);
    announce_set(c->srv, arg);
    buf_printf(&c->out, "shown to %d connections\n", conns_all(c->srv));
    ctl_finish(c, NULL);
}

/* ---- health --------------------------------------------------------------------------------- */

/* "2026-01-02 03:04:05 UTC" */
static void utc_time(int64_t t, char *out, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(out, n, "%lld", (long long)t);
}

/* Whether journal appends work, since when they fail, the last error. */
/* Every loop's storage state in one: games paused anywhere, the earliest
 * failure, the latest error (the cap is the database's, set at home). */
static void storage_of_all(server_t *home, storage_t *all)
{
    *all = home->storage;
    shards_lock_all(home);
    for (int i = 1; i < shard_count(home); i++) {
        const storage_t *k = &shard_at(home, i)->storage;
        if (k->npaused > 0 && (all->npaused == 0 || k->since < all->since))
            all->since = k->since;
        all->npaused += k->npaused;
        if (k->error[0] && k->error_at >= all->error_at) {
            memcpy(all->error, k->error, sizeof all->error);
            all->error_at = k->error_at;
        }
    }
    shards_unlock_all(home);
}

/* Lost, failing, stalled (home keeps the database-wide part), or ok. */
static void health_state(ctl_t *c, const storage_t *st)
{
    char when[40];
    int64_t now = (int64_t)time(NULL);
    if (st->lost) {
        utc_time(st->lost_at, when, sizeof when);
        buf_printf(&c->out,
                   "storage: lost since %s: %s; nothing is acknowledged until it is restored "
                   "and warrend restarted\n",
                   when, st->lost_why);
    }
    if (st->npaused > 0) {
        utc_time(st->since, when, sizeof when);
        buf_printf(&c->out, "storage: failing since %s (%lld s), %d games paused\n", when,
                   (long long)(now - st->since), st->npaused);
    }
    if (st->stall_since) {
        utc_time(st->stall_since, when, sizeof when);
        buf_printf(&c->out,
                   "storage: stalled since %s (%lld s): a database write has not "
                   "finished\n",
                   when, (long long)(now - st->stall_since));
    }
    if (!st->lost && st->npaused == 0 && !st->stall_since)
        buf_puts(&c->out, "storage: ok\n");
}

static void health_storage(ctl_t *c)
{
    storage_t all;
    storage_of_all(c->srv, &all);
    const storage_t *st = &all;
    char when[40];
    health_state(c, st);
    if (st->error[0]) {
        utc_time(st->error_at, when, sizeof when);
        buf_printf(&c->out, "storage last error: %s (%s)\n", st->error, when);
    }
    if (st->cap > 0)
        buf_printf(&c->out, "database cap: %lld bytes\n", (long long)st->cap);
    else
        buf_puts(&c->out, "database cap: none\n");
}

static void on_broken(void *ud, int status, const db_game_t *g, size_t n)
{
    ctl_t *c = ud;
    if (status == DB_OK) {
        for (size_t i = 0; i < n; i++)
            buf_printf(&c->out, "broken game %lld user=%s%s: %s\n", (long long)g[i].id, g[i].player,
                       g[i].broken_told ? " (told)" : "", g[i].broken_reason);
    }
    ctl_finish(c, status == DB_OK ? NULL : db_error(c->srv->db));
    ctl_unref(c);
}

/* This node and its leases (lease.h). */
static void health_node(ctl_t *c)
{
    const server_t *s = c->srv;
    if (!lease_on(s)) {
        buf_printf(&c->out, "node: %s (one node: no leases)\n", s->cfg.node);
        return;
    }
    buf_printf(&c->out, "node: %s, %lld game leases, renewed every %d ms, lasting %d ms%s\n",
               s->cfg.node, (long long)s->lease.renewed, s->cfg.lease_renew_ms, s->cfg.lease_ttl_ms,
               s->lease.failing_at ? "; renewals FAILING" : "");
    peer_stats_t ps;
    peer_stats(s, &ps);
    buf_printf(&c->out, "other nodes: %d games (%d listed here); %llu list reads, %llu rows read\n",
               ps.games, ps.mirrors, (unsigned long long)ps.reads, (unsigned long long)ps.rows);
    notify_stats_t ns;
    notify_stats(s, &ns);
    buf_printf(&c->out,
               "node events: %llu notifications heard, %llu reads of the log, %llu events "
               "read\n",
               (unsigned long long)ns.heard, (unsigned long long)ns.reads,
               (unsigned long long)ns.events);
    buf_printf(&c->out,
               "hosted copies: %llu reads asked, %llu unchanged (nothing read), %llu stored, "
               "%llu held back by copy-rate, %llu put off while written, %llu last copies asked "
               "again for a place, %llu last copies given up, %llu reads refused while games "
               "ran\n",
               (unsigned long long)s->hostcopies.asked, (unsigned long long)s->hostcopies.same,
               (unsigned long long)s->hostcopies.stored,
               (unsigned long long)s->hostcopies.throttled, (unsigned long long)s->hostcopies.busy,
               (unsigned long long)s->hostcopies.waited, (unsigned long long)s->hostcopies.given_up,
               (unsigned long long)s->hostcopies.refused);
}

/* New accounts against register-all-per-hour (accounts.h). */
static void health_regs(ctl_t *c)
{
    accounts_regs_t r;
    accounts_regs(c->srv->acc, uv_now(c->srv->loop), &r);
    if (r.cap)
        buf_printf(&c->out,
                   "registrations: %u made this hour of register-all-per-hour %u, %u being "
                   "made, %llu refused by it\n",
                   r.made, r.cap, r.making, (unsigned long long)r.refused);
    else
        buf_printf(&c->out, "registrations: no limit in all (%u being made)\n", r.making);
}

/* Where this node's daily secret comes from: daily-secret's file that is
 * not the database's secret gives this node's players another daily game. */
static void health_daily(ctl_t *c)
{
    char daily[600];
    daily_describe(c->srv, daily, sizeof daily);
    buf_printf(&c->out, "daily secret: %s\n", daily);
}

/* Where the home loop's journal appends of the last HEALTH_TIMES_MS spent
 * their time (db_write_times): what a key waits for before its frame. */
#define HEALTH_TIMES_MS 10000

static void health_times(ctl_t *c)
{
    db_times_t t;
    db_write_times(c->srv->db, HEALTH_TIMES_MS, &t);
    if (!t.n)
        return;
    buf_printf(&c->out,
               "journal appends, last %d s: %zu, submit to callback p50 %.0f p99 %.0f max %.0f us; "
               "p99 of queue %.0f commit %.0f back %.0f us; slowest 1%%: queue %.0f commit %.0f "
               "back %.0f us\n",
               HEALTH_TIMES_MS / 1000, t.n, t.p50, t.p99, t.max, t.queue_p99, t.commit_p99,
               t.back_p99, t.slow_queue, t.slow_commit, t.slow_back);
}

static void on_health(void *ud, int status, const db_health_t *h)
{
    ctl_t *c = ud;
    if (status == DB_OK) {
        db_stats_t st;
        db_stats(c->srv->db, &st);
        buf_printf(&c->out, "integrity: %s\n", h->integrity);
        buf_printf(&c->out, "schema: version %d\n", h->schema_version);
        buf_printf(&c->out, "database: %lld bytes (%lld pages of %lld, %lld free)\n",
                   (long long)(h->page_count * h->page_size), (long long)h->page_count,
                   (long long)h->page_size, (long long)h->freelist_pages);
        buf_printf(&c->out, "wal: %lld bytes\n", (long long)h->wal_bytes);
        buf_printf(&c->out, "users: %lld (%lld locked)\n", (long long)h->users,
                   (long long)h->locked_users);
        buf_printf(&c->out, "games: %lld unfinished, %lld finished, %lld broken\n",
                   (long long)h->games_live, (long long)h->games_finished,
                   (long long)h->games_broken);
        buf_printf(&c->out, "journal: %lld rows, %lld key bytes, %lld set aside after gaps\n",
                   (long long)h->journal_rows, (long long)h->journal_bytes,
                   (long long)h->journal_aside);
        buf_printf(&c->out, "snapshots: %lld, %lld bytes\n", (long long)h->snapshots,
                   (long long)h->snapshot_bytes);
        int nsess = 0;
        uint64_t kept_keys = 0, kept_turns = 0, ring_bytes = 0;
        shards_lock_all(c->srv);
        for (int i = 0; i < shard_count(c->srv); i++) {
            nsess += shard_at(c->srv, i)->nsessions;
            kept_keys += readturn_kept_keys(shard_at(c->srv, i));
            kept_turns += readturn_kept_turns(shard_at(c->srv, i));
            ring_bytes += readturn_ring_bytes(shard_at(c->srv, i));
        }
        shards_unlock_all(c->srv);
        buf_printf(&c->out, "live: %d sessions, %d connections\n", nsess, conns_all(c->srv));
        health_regs(c);
        buf_printf(&c->out,
                   "input: %llu keys kept past a turn's share, %llu turns ended with keys kept\n",
                   (unsigned long long)kept_keys, (unsigned long long)kept_turns);
        buf_printf(&c->out, "input held: %llu bytes for keys kept now\n",
                   (unsigned long long)ring_bytes);
        buf_printf(&c->out, "screens: %lld cells past 80x24 (screen-cells %d)\n",
                   (long long)atomic_load(&shard_at(c->srv, 0)->big_cells),
                   c->srv->cfg.screen_cells);
        if (c->srv->web)
            buf_printf(&c->out, "lobby feed: %llu reads of the database\n",
                       (unsigned long long)((webgw_t *)c->srv->web)->feed_reads);
        health_node(c);
        health_daily(c);
        buf_printf(&c->out, "writer: %llu commits, %llu writes, %llu failed, %llu pending\n",
                   (unsigned long long)st.commits, (unsigned long long)st.writes,
                   (unsigned long long)st.failed, (unsigned long long)st.pending);
        buf_printf(&c->out,
                   "conflicts: %llu transactions run again after a deadlock, a serialization "
                   "failure or a lock waited for too long, %llu writes failed by one on every "
                   "try\n",
                   (unsigned long long)st.retries, (unsigned long long)st.conflicts);
        health_times(c);
        char turns[512];
        turns_describe(&c->srv->turns, turns, sizeof turns);
        buf_printf(&c->out, "%s\n", turns);
        health_storage(c);
        db_games_broken(c->srv->db, HEALTH_BROKEN_MAX, on_broken, c); /* finishes the answer */
        return;
    }
    /* The database cannot be read (a damaged file): what the daemon knows still helps. */
    buf_printf(&c->out, "integrity: cannot read the database: %s (warren-admin check-db)\n",
               db_error(c->srv->db));
    health_storage(c);
    ctl_finish(c, db_error(c->srv->db));
    ctl_unref(c);
}

/* ---- the full check ------------------------------------------------------------------------ */

static void on_checked(void *ud, int status, const db_check_t *r)
{
    ctl_t *c = ud;
    if (status == DB_OK) {
        if (r->problems)
            buf_printf(&c->out, "%s\n", r->text);
        buf_printf(&c->out, "integrity: %s (%lld ms)\n", r->problems ? "damaged" : "ok",
                   (long long)r->ms);
        if (r->problems)
            log_error("admin: check-db: the database is damaged (%d problems, the first: %.200s)",
                      r->problems, r->text);
        else
            log_info("admin: check-db: ok (%lld ms)", (long long)r->ms);
    } else {
        log_error("admin: check-db: %s", db_error(c->srv->db));
    }
    ctl_finish(c, status == DB_OK ? (r->problems ? "the database is damaged: restore it from a "
                                                   "backup (deploy/RUNNING.md)"
                                                 : NULL)
                                  : db_error(c->srv->db));
    ctl_unref(c);
}

static void cmd_check_db(ctl_t *c, char *arg)
{
    (void)arg;
    log_info("admin: check-db");
    c->refs++;
    db_check(c->srv->db, on_checked, c);
}

static void cmd_health(ctl_t *c, char *arg)
{
    (void)arg;
    /* the loop's turns are measured from the first health on */
    turns_meter_on(&c->srv->turns);
    if (c->srv->storage.stall_since) { /* its reads would wait behind the stalled write */
        buf_puts(&c->out, "database: not read while a write is stalled\n");
        health_storage(c);
        ctl_finish(c, NULL);
        return;
    }
    c->refs++;
    db_health(c->srv->db, on_health, c);
}

/* ---- reading the command ------------------------------------------------------------------ */

/* ---- the database cap ----------------------------------------------------------------------- */

static void on_cap_set(void *ud, int status, int64_t cap)
{
    ctl_t *c = ud;
    if (status == DB_OK && cap > 0)
        buf_printf(&c->out, "database cap: %lld bytes\n", (long long)cap);
    else if (status == DB_OK)
        buf_puts(&c->out, "database cap: none\n");
    ctl_finish(c, status == DB_OK ? NULL : db_error(c->srv->db));
    ctl_unref(c);
}

static void cmd_db_max_size(ctl_t *c, char *arg)
{
    int64_t bytes = 0;
    config_parse_size(arg, &bytes); /* control_parse checked it */
    log_info("admin: db-max-size %s", arg);
    c->refs++;
    storage_set_cap(c->srv, bytes, on_cap_set, c);
}

static const ctl_fn HANDLERS[CTL_NCMDS] = {
    [CTL_USERS] = cmd_users,   [CTL_GAMES] = cmd_games,
    [CTL_LOCK] = cmd_lock,     [CTL_UNLOCK] = cmd_unlock,
    [CTL_PASSWD] = cmd_passwd, [CTL_ANNOUNCE] = cmd_announce,
    [CTL_HEALTH] = cmd_health, [CTL_CHECK_DB] = cmd_check_db,
    [CTL_KICK] = cmd_kick,     [CTL_BAN] = cmd_ban,
    [CTL_UNBAN] = cmd_unban,   [CTL_BANS] = cmd_bans,
    [CTL_END] = cmd_end,       [CTL_DELETE] = cmd_delete,
    [CTL_RENAME] = cmd_rename, [CTL_MUTE] = cmd_mute,
    [CTL_UNMUTE] = cmd_unmute, [CTL_DB_MAX_SIZE] = cmd_db_max_size,
    [CTL_DRAIN] = cmd_drain,   [CTL_DRAIN_STATUS] = cmd_drain_status,
};

/* Until the line is complete, bytes go after what came; then c->line is
 * only a place to drop the rest. */
static void on_ctl_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    ctl_t *c = h->data;
    (void)hint;
    size_t at = c->started ? 0 : c->len;
    b->base = c->line + at;
    b->len = CTL_LINE_MAX - at;
}

static void on_ctl_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    ctl_t *c = st->data;
    (void)b;
    if (n < 0) {
        /* The peer is done sending. Before a whole command that is the end;
         * after one, its answer still goes out (echo health | socat ...). */
        if (!c->started || c->shut_done)
            ctl_close(c);
        else
            c->peer_done = true;
        return;
    }
    if (n == 0 || c->started || c->closing)
        return;
    c->len += (size_t)n;
    ctl_cmd_t cmd;
    char arg[CTL_LINE_MAX];
    const char *err = NULL;
    int ret = control_parse(c->line, c->len, &cmd, arg, sizeof arg, &err);
    if (ret == 0)
        return;
    c->started = true;
    /* the line may hold a password: wipe it as soon as it is parsed */
    memset(c->line, 0, sizeof c->line);
    if (ret < 0)
        ctl_finish(c, err);
    else
        HANDLERS[cmd](c, arg);
    memset(arg, 0, sizeof arg);
}

static void on_ctl_connection(uv_stream_t *ls, int status)
{
    server_t *s = ls->data;
    if (status < 0 || s->stopping)
        return;
    ctl_t *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->srv = s;
    c->refs = 1;
    c->opened_ms = uv_now(s->loop);
    list_push_front(&s->control->ctls, &c->node);
    s->control->nctls++;
    buf_init(&c->out);
    uv_pipe_init(s->loop, &c->pipe, 0);
    c->pipe.data = c;
    if (uv_accept(ls, (uv_stream_t *)&c->pipe) ||
        uv_read_start((uv_stream_t *)&c->pipe, on_ctl_alloc, on_ctl_read)) {
        ctl_close(c);
        return;
    }
    if (s->control->nctls > CTL_CONNS_MAX) {
        c->started = true; /* what it sends is dropped */
        ctl_finish(c, "busy: " XSTR(CTL_CONNS_MAX) " control connections are open; try again");
    }
}

/* Connections past CTL_WAIT_MS that sent no command line are told so
 * and closed, as are those whose answer is out but that stay open; a
 * command still at work is left to finish. */
static void on_ctl_sweep(uv_timer_t *t)
{
    server_t *s = t->data;
    uint64_t now = uv_now(s->loop);
    LIST_EACH (it, &s->control->ctls) {
        ctl_t *c = LIST_ITEM(it, ctl_t, node);
        if (now - c->opened_ms < CTL_WAIT_MS || c->closing)
            continue;
        if (c->shut_done)
            ctl_close(c);
        else if (!c->started) {
            c->started = true;
            memset(c->line, 0, sizeof c->line);
            ctl_finish(c, "no command line in " XSTR(CTL_WAIT_S) " seconds");
        }
    }
}

/* What is at path may go: nothing, or a socket nobody listens on (left
 * by a crash). A file of another kind (a path given by mistake: the
 * database, a log) or a daemon's live socket stays, and we do not start. */
static int stale_socket_gone(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0
                               : (log_error("control socket %s: %s", path, strerror(errno)), -1);
    if (!S_ISSOCK(st.st_mode))
        return log_error("control socket %s: a file that is not a socket is there: not removed "
                         "(choose another --control path)",
                         path),
               -1;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool live = fd >= 0 && strlen(path) < sizeof sa.sun_path &&
                (memcpy(sa.sun_path, path, strlen(path)),
                 connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    if (fd >= 0)
        close(fd);
    if (live)
        return log_error("control socket %s: another daemon is listening there", path), -1;
    unlink(path);
    return 0;
}

/* A listening socket bound at path, made 0600 before bind (fchmod on the
 * socket: Linux gives the file bind creates the socket's mode), so no
 * call ever sets a mode through path, which a link put there could
 * redirect. A negative errno on failure. */
static int bind_private(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (fchmod(fd, 0600) != 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    return fd;
}

/* bound 0600, then listen: nobody else can connect in between. */
int control_listen(server_t *s)
{
    char path[300];
    if (config_control_path(&s->cfg, path, sizeof path))
        return log_error("control socket path too long"), -1;
    struct control *ctl = s->control = calloc(1, sizeof *s->control);
    if (!ctl)
        return log_error("control socket: out of memory"), -1;
    list_init(&ctl->ctls);
    if (stale_socket_gone(path) < 0)
        return -1; /* not on: stopping leaves the path alone */
    uv_pipe_init(s->loop, &ctl->listener, 0);
    ctl->listener.data = s;
    ctl->on = true;
    int fd = bind_private(path);
    int ret = fd < 0 ? uv_translate_sys_error(-fd) : uv_pipe_open(&ctl->listener, fd);
    if (fd >= 0 && ret)
        close(fd);
    if (!ret)
        ret = uv_listen((uv_stream_t *)&ctl->listener, 16, on_ctl_connection);
    uv_timer_init(s->loop, &ctl->sweep);
    ctl->sweep.data = s;
    uv_timer_start(&ctl->sweep, on_ctl_sweep, 1000, 1000);
    uv_unref((uv_handle_t *)&ctl->sweep);
    if (ret)
        return log_error("control socket %s: %s", path, uv_strerror(ret)), -1;
    log_info("listening control %s", path);
    return 0;
}

void control_stop(server_t *s)
{
    char path[300];
    struct control *ctl = s->control;
    ctl_drain_close(s);
    if (!ctl)
        return;
    for (list_t *it; (it = list_front(&ctl->ctls));) /* a request still running finishes quietly */
        ctl_close(LIST_ITEM(it, ctl_t, node));
    if (!ctl->on || uv_is_closing((uv_handle_t *)&ctl->listener))
        return;
    uv_close((uv_handle_t *)&ctl->sweep, NULL);
    uv_close((uv_handle_t *)&ctl->listener, NULL);
    if (config_control_path(&s->cfg, path, sizeof path) == 0)
        unlink(path);
}

void control_free(server_t *s)
{
    free(s->control);
    s->control = NULL;
    free(s->drain); /* its timer closed in control_stop; conn_bye read it till now */
    s->drain = NULL;
}
