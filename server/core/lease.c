/* lease — this node's leases on its games (lease.h): taking one (and
 * naming the holder when another node has it), the heartbeat, the
 * releases, and the end of a session whose lease was lost. */
#include "lease.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "backend.h"
#include "log.h"
#include "notify.h"
#include "peer.h"
#include "server.h"
#include "session_impl.h"
#include "shard.h"

bool lease_on(const server_t *s)
{
    return s->lease.on;
}

/* ---- the heartbeat -------------------------------------------------------------- */

static void on_renewed(void *ud, int status, int64_t n)
{
    server_t *home = ud;
    if (status == DB_OK) {
        if (home->lease.failing_at)
            log_info("lease renewal works again: %lld leases of node %s", (long long)n,
                     home->cfg.node);
        home->lease.failing_at = 0;
        home->lease.renewed = n;
        return;
    }
    if (!home->lease.failing_at) /* once per change: other nodes take the games at expiry */
        log_error("lease renewal failed (node %s): %s; its games go to other nodes once "
                  "their leases expire",
                  home->cfg.node, db_error(home->db));
    home->lease.failing_at = (int64_t)time(NULL);
}

/* ---- stopped nodes' heartbeat rows ----------------------------------------------- */

/* A node's row goes a day after its heartbeat lapsed, once it holds no
 * lease: before, the node may only be paused or cut off (a stall, a
 * database failover past the ttl) or restarting, and its row is how other
 * nodes tell it lapsed (peer.c takes its games off their lists) and how an
 * operator sees when it last beat. A row of a node still holding leases
 * stays whatever its age: the lapsed games are found through it
 * (db_games_lease_lapsed), so they are restored elsewhere first. */
#define NODES_PRUNE_AFTER_MS (24 * 3600 * 1000)
#define NODES_PRUNE_EVERY_S  3600 /* home's ticks between two prunings (and one at start) */

static void on_nodes_pruned(void *ud, int status, int64_t n)
{
    server_t *home = ud;
    if (status != DB_OK)
        log_warn("stopped nodes' rows not pruned: %s", db_error(home->db));
    else if (n)
        log_info("nodes pruned: %lld stopped a day ago or more, holding no lease", (long long)n);
}

static void nodes_prune(server_t *home)
{
    db_nodes_prune(home->db, NODES_PRUNE_AFTER_MS, on_nodes_pruned, home);
}

static void on_beat(uv_timer_t *t)
{
    server_t *home = t->data;
    db_lease_renew(home->db, home->cfg.node, home->cfg.lease_ttl_ms, peer_summary(home), on_renewed,
                   home); /* what its games show rides along (peer.h) */
}

void lease_start(server_t *home)
{
    home->lease.on = db_is_server(home->cfg.db);
    if (!home->lease.on)
        return;
    db_lease_fence(home->db, home->cfg.node, home->cfg.lease_ttl_ms);
    uv_timer_init(home->loop, &home->lease.beat);
    home->lease.beat.data = home;
    home->lease.beating = true;
    uint64_t every = (uint64_t)home->cfg.lease_renew_ms;
    uv_timer_start(&home->lease.beat, on_beat, every, every);
    uv_unref((uv_handle_t *)&home->lease.beat); /* never keeps a stop going: its work does */
    on_beat(&home->lease.beat); /* the node's row at once, before any game is taken */
    nodes_prune(home);
    log_info("node %s: game leases of %d ms, renewed every %d ms", home->cfg.node,
             home->cfg.lease_ttl_ms, home->cfg.lease_renew_ms);
    notify_start(home);
}

void lease_init(server_t *s, const server_t *home)
{
    s->lease.on = home->lease.on;
}

void lease_close(server_t *home)
{
    notify_stop(home);
    if (!home->lease.beating)
        return;
    home->lease.beating = false;
    uv_timer_stop(&home->lease.beat);
    uv_close((uv_handle_t *)&home->lease.beat, NULL);
}

static void on_released_all(void *ud, int status, int64_t n)
{
    server_t *home = ud;
    if (status == DB_OK)
        log_info("node %s: %lld game leases released", home->cfg.node, (long long)n);
    else
        log_error("node %s: leases not released (%s): they expire in %d ms", home->cfg.node,
                  db_error(home->db), home->cfg.lease_ttl_ms);
}

void lease_stop(server_t *home)
{
    if (!home->lease.on || home->lease.stopped)
        return;
    home->lease.stopped = true;
    lease_close(home);
    db_lease_release_node(home->db, home->cfg.node, on_released_all, home);
}

/* ---- one game's lease ------------------------------------------------------------ */

typedef struct {
    server_t *srv;
    int64_t game;
    lease_cb cb;
    void *ud;
} take_t;

static void on_holder(void *ud, int status, const char *text, size_t len)
{
    take_t *t = ud;
    char who[64] = "";
    if (status == DB_OK) /* else gone meanwhile (released, expired): still not ours now */
        snprintf(who, sizeof who, "%.*s", (int)len, text);
    t->cb(t->ud, DB_ENOTFOUND, who[0] ? who : "another node");
    free(t);
}

static void on_taken(void *ud, int status, int64_t unused)
{
    take_t *t = ud;
    (void)unused;
    if (status == DB_ENOTFOUND) { /* another node's: which one, for the player */
        db_lease_holder(t->srv->db, t->game, on_holder, t);
        return;
    }
    if (status != DB_OK)
        log_error("lease of game=%lld not taken: %s", (long long)t->game, db_error(t->srv->db));
    t->cb(t->ud, status, NULL);
    free(t);
}

void lease_take(server_t *s, int64_t game, lease_cb cb, void *ud)
{
    take_t *t = s->lease.on ? malloc(sizeof *t) : NULL;
    if (!t) {
        cb(ud, s->lease.on ? DB_ENOMEM : DB_OK, NULL);
        return;
    }
    *t = (take_t){s, game, cb, ud};
    db_lease_take(s->db, game, s->cfg.node, s->cfg.lease_ttl_ms, on_taken, t);
}

void lease_release(server_t *s, int64_t game)
{
    if (s->lease.on)
        db_lease_release(s->db, game, s->cfg.node, NULL, NULL);
}

void lease_let_go(server_t *s, int64_t game)
{
    if (s->lease.on)
        db_lease_let_go(s->db, game, s->cfg.node, NULL, NULL);
}

/* ---- a lost lease ---------------------------------------------------------------- */

/* Whether this session ran its game under a lease of this node when the
 * check was asked (one taken since may not be in what it read). */
static bool leased(const session_t *s, uint64_t asked_ms)
{
    return s->game && !s->let_go && !s->fenced && !s->ended && !s->dead && s->leased_ms < asked_ms;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void on_held(void *ud, int status, const int64_t *games, size_t n)
{
    server_t *s = ud;
    s->lease.checking = false;
    if (status != DB_OK || s->stopping) /* a read that failed proves nothing */
        return;
    LIST_EACH (it, &s->sessions) {
        session_t *x = LIST_ITEM(it, session_t, node);
        bool held = n && bsearch(&x->game_id, games, n, sizeof *games, cmp_id);
        if (leased(x, s->lease.check_ms) && !held)
            lease_lost(x, "its lease is no longer this node's");
    }
}

/* ---- a stopped node's games ------------------------------------------------------ */

typedef struct {
    size_t ok, broken;
} lapsed_t;

static void lapsed_add(server_t *home, void *ud)
{
    lapsed_t *r = ud;
    if (r->ok || r->broken)
        log_info("lapsed leases: %zu games of a stopped node restored here, %zu broken", r->ok,
                 r->broken);
    home->lease.lapsed_runs--;
    free(r);
}

void lease_lapsed_done(server_t *k, size_t ok, size_t broken)
{
    server_t *home = shard_at(k, 0);
    lapsed_t *r = malloc(sizeof *r);
    if (!r) { /* the count is off by one: no more rounds, which is safe */
        log_error("lapsed leases: out of memory");
        return;
    }
    *r = (lapsed_t){ok, broken};
    if (home == k)
        lapsed_add(home, r);
    else if (shard_post(home, lapsed_add, r))
        free(r);
}

typedef struct {
    int64_t *ids;
    size_t n;
} lapsed_ids_t;

static void restore_on_loop(server_t *k, void *ud)
{
    lapsed_ids_t *l = ud;
    if (k->stopping || session_restore_lapsed(k, l->ids, l->n)) {
        if (k->stopping)
            free(l->ids);
        lease_lapsed_done(k, 0, 0);
    }
    free(l);
}

/* Home: each loop gets its own of the games (by account, as at start). */
static void on_lapsed(void *ud, int status, const db_game_t *games, size_t n)
{
    server_t *home = ud;
    home->lease.lapsed_runs = 0;
    for (int i = 0; status == DB_OK && n && !home->stopping && i < shard_count(home); i++) {
        server_t *k = shard_at(home, i);
        lapsed_ids_t *l = calloc(1, sizeof *l);
        int64_t *ids = l ? malloc(n * sizeof *ids) : NULL;
        for (size_t j = 0; ids && j < n; j++)
            if (shard_of_user(home, games[j].user) == k)
                ids[l->n++] = games[j].id;
        if (!ids || !l->n) {
            free(ids);
            free(l);
            continue;
        }
        l->ids = ids;
        home->lease.lapsed_runs++;
        if (k == home)
            restore_on_loop(k, l);
        else if (shard_post(k, restore_on_loop, l)) {
            home->lease.lapsed_runs--;
            free(ids);
            free(l);
        }
    }
}

/* Home, about once a lease's time, when no round is on. */
static void lapsed_tick(server_t *home)
{
    uint64_t every = ((uint64_t)home->cfg.lease_ttl_ms + 999) / 1000;
    if (home->shard != 0 || home->lease.lapsed_runs || home->recovering || home->ticks % every)
        return;
    home->lease.lapsed_runs = 1; /* the read's own, until on_lapsed */
    db_games_lease_lapsed(home->db, home->cfg.node, LEASE_LAPSED_MAX, on_lapsed, home);
}

void lease_tick(server_t *s)
{
    if (s->lease.on && !s->stopping)
        lapsed_tick(s);
    if (s->lease.on && !s->stopping && s->shard == 0 && s->ticks &&
        s->ticks % NODES_PRUNE_EVERY_S == 0)
        nodes_prune(s);
    uint64_t every = ((uint64_t)s->cfg.lease_renew_ms + 999) / 1000;
    if (!s->lease.on || s->stopping || s->lease.checking || !s->nsessions || s->ticks % every)
        return;
    s->lease.checking = true;
    s->lease.check_ms = now_ms(s);
    db_leases_of_node(s->db, s->cfg.node, on_held, s);
}

static const char LOST_LINE[] = "\r\n\r\nThis game is now run by another server, so it stops "
                                "here. Connect again to go on playing it.\r\n";

void lease_lost(session_t *s, const char *why)
{
    if (s->fenced)
        return;
    s->fenced = true; /* no more writes of it from here: no snapshot, no release */
    log_error("lease lost user=%s game=%lld seq=%llu (%s): another node runs it; its player "
              "is sent off",
              s->user, (long long)s->game_id, (unsigned long long)s->seq, why);
    session_drop(s, LOST_LINE, "That game now runs on another server.");
}

/* ---- takeover: another node asks for a game of this one ----------------------------- */

static const char MOVED_LINE[] = "\r\n\r\nYour game moved to another connection: you logged in "
                                 "there. It is saved and goes on there.\r\n";

typedef struct {
    server_t *k;
    int64_t game, user_id;
} give_t;

/* The game here, run under this node's lease as far as this loop knows. */
static session_t *givable(server_t *k, int64_t game)
{
    session_t *s = session_find_game(k, game);
    bool ok = s && s->game && !s->fenced && !s->dead && !s->ended && !s->let_go && k->lease.on;
    return ok ? s : NULL;
}

/* Saved, its lease let go after its last rows (as a detach does), its
 * player told and disconnected. */
static void give(server_t *k, session_t *s)
{
    log_info("game wanted by another node user=%s game=%lld seq=%llu: saved and let go", s->user,
             (long long)s->game_id, (unsigned long long)s->seq);
    conn_t *p = s->player;
    if (p) {
        session_detach(p, NULL); /* saves it and releases the lease (session.c) */
        conn_tell_close(p, MOVED_LINE, "game moved");
        return;
    }
    s->ops->save(s, "moved");
    if (!jqueue_paused(&s->jq)) {
        lease_let_go(k, s->game_id);
        s->let_go = true;
    }
}

/* Whose lease it is now: a request heard late (this node was paused
 * past its lease) finds the game another node's, which it is already
 * running: lost here, not saved over. A lease lapsed but still free is
 * this node's to give. */
static void on_give_holder(void *ud, int status, const char *text, size_t len)
{
    give_t *g = ud;
    server_t *k = g->k;
    session_t *s = givable(k, g->game);
    bool ours = status == DB_ENOTFOUND ||
                (status == DB_OK && len == strlen(k->cfg.node) && !memcmp(text, k->cfg.node, len));
    free(g);
    if (s && ours)
        give(k, s);
    else if (s && status == DB_OK)
        lease_lost(s, "its lease is no longer this node's");
}

/* On the game's loop: who holds its lease is read first. */
static void give_on_loop(server_t *k, void *ud)
{
    give_t *g = ud;
    g->k = k;
    if (!givable(k, g->game)) {
        free(g);
        return;
    }
    db_lease_holder(k->db, g->game, on_give_holder, g);
}

void lease_give_notified(server_t *home, const char *to, int64_t game, int64_t user_id)
{
    (void)to;
    give_t *g = malloc(sizeof *g);
    if (!g)
        return; /* the asker takes the game when its lease lapses */
    *g = (give_t){NULL, game, user_id};
    if (shard_post(shard_of_user(home, user_id), give_on_loop, g) != 0)
        free(g);
}
