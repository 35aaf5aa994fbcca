/* peer — watching across nodes (peer.h): the lists' mirrors, the links
 * between nodes, the feeds of this node's games to them. */
#include "peer.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "backend.h"
#include "db.h"
#include "frames.h"
#include "lease.h"
#include "listener.h"
#include "log.h"
#include "peerwire.h"
#include "server.h"
#include "session_impl.h"

#define PEER_LINKS_MAX   64    /* links at once (nodes of a cluster, and strangers) */
#define FEED_NODES_MAX   16    /* nodes one game streams to */
#define PEER_SNDBUF      65536 /* the kernel's part of a link's queue: peer-queue bounds the rest */
#define PEER_KEEPALIVE_S 10    /* idle seconds before the kernel probes a link */

typedef struct peers peers_t;

typedef struct link {
    list_t node; /* peers' links */
    peers_t *p;
    uv_tcp_t tcp;
    char name[PEER_TEXT_MAX + 1]; /* the other node ("" until its HELLO) */
    char addr[64];
    bool ready, outbound, closing, want_key;
    uint8_t *in;
    size_t in_len, in_cap;
    size_t queued; /* bytes written, not yet sent */
    int nfeeds;    /* this node's games streamed on it (at most cfg.peer_max_games) */
    uv_connect_t conn;
} link_t;

/* This node's game s streamed to the links in subs. */
typedef struct peer_feed {
    list_t node; /* peers' feeds */
    session_t *s;
    screen_t *last; /* what the last frame streamed showed */
    int n;
    struct {
        link_t *l;
        bool need_key;
    } subs[FEED_NODES_MAX];
} feed_t;

/* Another node's game (a session of kind "remote": its s->bk). */
typedef struct {
    list_t node; /* peers' mirrors */
    peers_t *p;
    session_t *s;
    link_t *l;     /* the link its frames come on, once asked */
    screen_t *scr; /* its screen as the last frame left it */
    db_game_t row; /* what the list read of it */
    bool asked;    /* its holder is looked up or WATCH sent */
    uint64_t seen; /* the list read that last named it */
} mirror_t;

struct peers {
    server_t *home;
    listener_t *lis;
    list_t links, feeds, mirrors;
    int nlinks, nmirrors;
    bool listing, stopped;
    uint64_t reads; /* list reads so far */
    buf_t out;      /* a message being encoded */
};

static const backend_ops_t backend_remote;

/* ---- writing ------------------------------------------------------------------------ */

typedef struct {
    uv_write_t req;
    link_t *l;
    size_t n;
    char data[];
} wreq_t;

static void feeds_catch_up(link_t *l);

static void on_written(uv_write_t *req, int status)
{
    wreq_t *w = (wreq_t *)req;
    link_t *l = w->l;
    l->queued -= w->n;
    free(w);
    if (status == 0 && l->want_key && !l->closing &&
        l->queued < (size_t)l->p->home->cfg.peer_queue / 2)
        feeds_catch_up(l);
}

/* b's bytes to l; -1 (nothing sent) past the queue's cap or out of memory. */
static int link_send(link_t *l, const buf_t *b)
{
    if (l->closing || b->failed || !b->len)
        return -1;
    if (l->queued + b->len > (size_t)l->p->home->cfg.peer_queue)
        return -1;
    wreq_t *w = malloc(sizeof *w + b->len);
    if (!w)
        return -1;
    w->l = l;
    w->n = b->len;
    memcpy(w->data, b->data, b->len);
    uv_buf_t ub = uv_buf_init(w->data, (unsigned)b->len);
    if (uv_write(&w->req, (uv_stream_t *)&l->tcp, &ub, 1, on_written) < 0) {
        free(w);
        return -1;
    }
    l->queued += b->len;
    return 0;
}

/* ---- feeds: this node's games to other nodes ------------------------------------ */

static int feed_find(const feed_t *f, const link_t *l)
{
    for (int i = 0; i < f->n; i++)
        if (f->subs[i].l == l)
            return i;
    return -1;
}

static void feed_drop_sub(session_t *s, int i)
{
    feed_t *f = s->peer;
    f->subs[i].l->nfeeds--;
    f->subs[i] = f->subs[--f->n];
    if (f->n)
        return;
    list_remove(&f->node);
    screen_free(f->last);
    free(f);
    s->peer = NULL;
}

/* A keyframe of s's screen to sub i, or it waits for the queue to drain. */
static void feed_keyframe(session_t *s, int i)
{
    feed_t *f = s->peer;
    link_t *l = f->subs[i].l;
    buf_t *b = &l->p->out;
    buf_reset(b);
    peerwire_screen(b, s->game_id, s->sent, NULL);
    f->subs[i].need_key = link_send(l, b) < 0;
    l->want_key |= f->subs[i].need_key;
}

static void feeds_catch_up(link_t *l)
{
    l->want_key = false;
    LIST_EACH (it, &l->p->feeds) {
        feed_t *f = LIST_ITEM(it, feed_t, node);
        int i = feed_find(f, l);
        if (i >= 0 && f->subs[i].need_key)
            feed_keyframe(f->s, i);
    }
}

static void feed_watch(link_t *l, int64_t game)
{
    session_t *s = session_find_game(l->p->home, game);
    buf_t *b = &l->p->out;
    bool full = l->nfeeds >= l->p->home->cfg.peer_max_games;
    if (!s || !s->game || s->dead || s->ended || s->ops == &backend_remote ||
        (full && !(s->peer && feed_find(s->peer, l) >= 0))) {
        buf_reset(b);
        peerwire_gone(b, game,
                      full ? "Too many games are watched from that server."
                           : "That game cannot be watched from another server.");
        link_send(l, b);
        return;
    }
    feed_t *f = s->peer;
    if (!f && (f = calloc(1, sizeof *f))) {
        f->s = s;
        s->peer = f;
        list_push_back(&l->p->feeds, &f->node);
    }
    if (!f || (feed_find(f, l) < 0 && f->n == FEED_NODES_MAX))
        return; /* at its cap: that node's mirror waits, its watchers see the last screen */
    int i = feed_find(f, l);
    if (i < 0) {
        f->subs[i = f->n++].l = l;
        l->nfeeds++;
    }
    feed_keyframe(s, i);
    log_info("peer feed game=%lld to=%s nodes=%d", (long long)game, l->name, f->n);
}

static void feed_unwatch(link_t *l, int64_t game)
{
    session_t *s = session_find_game(l->p->home, game);
    int i = s && s->peer ? feed_find(s->peer, l) : -1;
    if (i >= 0) {
        feed_drop_sub(s, i);
        log_info("peer unfeed game=%lld to=%s", (long long)game, l->name);
    }
}

void peer_frame(session_t *s)
{
    feed_t *f = s->peer;
    buf_t *b = &s->srv->peer->out;
    buf_reset(b);
    if (peerwire_screen(b, s->game_id, s->sent, f->last) <= 0)
        return; /* nothing changed (or out of memory: the next frame's keyframe) */
    for (int i = 0; i < f->n; i++) {
        if (f->subs[i].need_key)
            continue; /* its keyframe comes when its queue drains */
        if (link_send(f->subs[i].l, b) < 0) {
            f->subs[i].need_key = true;
            f->subs[i].l->want_key = true;
            log_info("peer link %s: %zu bytes queued, game=%lld waits for a keyframe",
                     f->subs[i].l->name, f->subs[i].l->queued, (long long)s->game_id);
        }
    }
    if (!f->last)
        f->last = screen_new(s->sent->w, s->sent->h);
    if (!f->last || screen_copy(f->last, s->sent) < 0) {
        screen_free(f->last); /* every link then gets a keyframe-sized change */
        f->last = NULL;
    }
}

void peer_session_gone(session_t *s)
{
    buf_t *b = &s->srv->peer->out;
    while (s->peer) {
        feed_t *f = s->peer;
        buf_reset(b);
        peerwire_gone(b, s->game_id, "That game is over or left its server.");
        link_send(f->subs[f->n - 1].l, b);
        feed_drop_sub(s, f->n - 1);
    }
}

/* ---- mirrors: other nodes' games here ----------------------------------------------- */

static mirror_t *mirror_of(const session_t *s)
{
    return s && s->ops == &backend_remote ? s->bk : NULL;
}

static mirror_t *mirror_find(peers_t *p, int64_t game)
{
    return mirror_of(session_find_game(p->home, game));
}

static void mirror_drop(mirror_t *m, const char *msg)
{
    session_drop(m->s, "", msg); /* no player: its watchers go to the menu told msg */
}

static link_t *link_named(peers_t *p, const char *name);
static void mirror_unwatch(mirror_t *m);
static link_t *link_connect(peers_t *p, const char *name);

static void mirror_ask(mirror_t *m, link_t *l)
{
    m->l = l;
    if (!l->ready)
        return; /* asked once its HELLO is answered (link_ready) */
    buf_t *b = &m->p->out;
    buf_reset(b);
    peerwire_game(b, PEER_WATCH, m->s->game_id);
    if (link_send(l, b) < 0)
        mirror_drop(m, "That game's server is too busy to show it here.");
}

typedef struct {
    peers_t *p;
    int64_t game;
} holder_t;

static void on_holder(void *ud, int status, const char *node, size_t len)
{
    holder_t *h = ud;
    mirror_t *m = mirror_find(h->p, h->game);
    (void)len;
    free(h);
    if (!m || m->p->stopped || !m->asked)
        return; /* gone, or its watchers left meanwhile */
    link_t *l = status == DB_OK ? link_named(m->p, node) : NULL;
    if (status == DB_OK && !l)
        l = link_connect(m->p, node);
    if (!l) {
        mirror_drop(m, status == DB_OK ? "That game's server cannot be reached from here."
                                       : "That game is not running anymore.");
        return;
    }
    mirror_ask(m, l);
}

/* The first watcher came: the game's holder is looked up and asked. */
static void remote_watched(session_t *s)
{
    mirror_t *m = s->bk;
    holder_t *h = m->asked ? NULL : malloc(sizeof *h);
    if (!h)
        return;
    m->asked = true;
    *h = (holder_t){m->p, s->game_id};
    db_lease_holder(m->p->home->db, s->game_id, on_holder, h);
}

static void remote_draw(const session_t *s, screen_t *scr, const session_view_t *v)
{
    const mirror_t *m = s->bk;
    (void)v;
    screen_blit(scr, m->scr);
}

static bool remote_status(const session_t *s, session_status_t *st)
{
    const mirror_t *m = s->bk;
    snprintf(st->race, sizeof st->race, "%s", m->row.race);
    snprintf(st->cls, sizeof st->cls, "%s", m->row.cls);
    st->depth = m->row.depth, st->max_depth = m->row.max_depth, st->xl = m->row.xl;
    st->turn = (uint64_t)m->row.turns;
    return true;
}

static void remote_key(conn_t *c, session_t *s, key_event_t k)
{
    (void)c, (void)s, (void)k; /* nobody plays a mirror: its player is elsewhere */
}

static void remote_save(session_t *s, const char *why)
{
    (void)s, (void)why; /* its own node stores it */
}

static bool remote_stop(session_t *s)
{
    (void)s;
    return false;
}

static void remote_free(session_t *s)
{
    mirror_t *m = s->bk;
    if (!m->p->stopped)
        mirror_unwatch(m);
    list_remove(&m->node);
    m->p->nmirrors--;
    screen_free(m->scr);
    free(m);
}

static const backend_ops_t backend_remote = {
    .kind = "remote",
    .key = remote_key,
    .draw = remote_draw,
    .save = remote_save,
    .stop = remote_stop,
    .status = remote_status,
    .watched = remote_watched,
    .free = remote_free,
};

static void mirror_new(peers_t *p, const db_game_t *g)
{
    mirror_t *m = calloc(1, sizeof *m);
    if (m && !(m->scr = screen_new(TERM_MIN_W, TERM_MIN_H))) {
        free(m);
        return;
    }
    session_t *s = m ? session_new(p->home, g->id, g->user, g->player, &backend_remote) : NULL;
    if (!s) {
        screen_free(m ? m->scr : NULL);
        free(m);
        return;
    }
    m->p = p;
    m->s = s;
    m->row = *g;
    s->bk = m;
    s->mirror = true; /* its player's own lookups pass it by (session.c) */
    snprintf(s->kind, sizeof s->kind, "warren"); /* listed and watched as one of ours */
    snprintf(s->kind_name, sizeof s->kind_name, "Warren");
    list_push_back(&p->mirrors, &m->node);
    p->nmirrors++;
}

/* A SCREEN for a mirror on l: applied, and its watchers get the frame. */
static int mirror_frame(link_t *l, const peer_msg_t *msg, const char **why)
{
    mirror_t *m = mirror_find(l->p, msg->game);
    if (!m || m->l != l)
        return 0; /* unwatched meanwhile: an UNWATCH is on its way */
    bool resized = m->scr->w != msg->w || m->scr->h != msg->h;
    if (peerwire_apply(msg, m->scr, why) < 0)
        return -1;
    if (resized && screen_resize(m->s->sent, msg->w, msg->h) == 0)
        frames_layout(m->s); /* the watchers' grid follows, everyone gets a keyframe */
    else
        session_output(m->s);
    return 0;
}

/* ---- the list of other nodes' games ------------------------------------------------ */

static void on_list(void *ud, int status, const db_game_t *games, size_t n)
{
    peers_t *p = ud;
    p->listing = false;
    if (status != DB_OK || p->stopped)
        return;
    uint64_t read = ++p->reads;
    for (size_t i = 0; i < n; i++) {
        session_t *s = session_find_game(p->home, games[i].id);
        mirror_t *m = mirror_of(s);
        if (m) {
            m->seen = read;
            m->row = games[i];
        } else if (!s && p->nmirrors < p->home->cfg.peer_max_games) {
            mirror_new(p, &games[i]);
            if ((m = mirror_find(p, games[i].id)))
                m->seen = read;
        }
    }
    /* gone from the list: ended, or its node lost its lease (a watched
     * one also hears it from its node, or loses its link) */
    LIST_EACH (it, &p->mirrors) {
        mirror_t *m = LIST_ITEM(it, mirror_t, node);
        /* a watched one waits a few reads: its node's GONE may have been
         * lost to a full queue, and then nothing else would end it */
        if (m->seen != read && (!m->s->nwatchers || read - m->seen >= 3))
            mirror_drop(m, "That game ended.");
        else if (m->asked && !m->s->nwatchers)
            mirror_unwatch(m);
    }
}

void peer_game_here(server_t *srv, int64_t game)
{
    mirror_t *m = mirror_find(srv->peer, game);
    if (m)
        mirror_drop(m, "That game now runs on this server: pick it again to watch it.");
}

/* A mirror nobody watches any more: its node stops sending it. */
static void mirror_unwatch(mirror_t *m)
{
    if (m->l && m->l->ready && !m->l->closing) {
        buf_t *b = &m->p->out;
        buf_reset(b);
        peerwire_game(b, PEER_UNWATCH, m->s->game_id);
        link_send(m->l, b);
    }
    m->l = NULL;
    m->asked = false;
}

void peer_tick(server_t *home)
{
    peers_t *p = home->peer;
    if (!p || p->stopped || p->listing || home->stopping)
        return;
    p->listing = true;
    db_games_leased_elsewhere(home->db, home->cfg.node, (size_t)home->cfg.peer_max_games + 1,
                              on_list, p);
}

/* ---- links: one connection per pair of nodes ----------------------------------------- */

/* The address cfg.peers gives node name, into host and *port; false if none. */
static bool peer_addr(const config_t *cfg, const char *name, char *host, size_t n, int *port)
{
    size_t len = strlen(name);
    for (const char *e = cfg->peers; *e;) {
        const char *end = strchr(e, ',');
        size_t elen = end ? (size_t)(end - e) : strlen(e);
        char addr[128];
        if (elen > len && e[len] == '=' && !strncmp(e, name, len) && elen - len - 1 < sizeof addr) {
            memcpy(addr, e + len + 1, elen - len - 1);
            addr[elen - len - 1] = 0;
            return config_split_addr(addr, host, n, port) == 0;
        }
        e = end ? end + 1 : e + elen;
    }
    return false;
}

/* Whether an address is one cfg.peers names (a node trusted by address). */
static bool peer_trusted_addr(const config_t *cfg, const char *ip)
{
    for (const char *e = cfg->peers; *e;) {
        const char *eq = strchr(e, '='), *end = strchr(e, ',');
        size_t elen = end ? (size_t)(end - e) : strlen(e);
        char host[128];
        int port;
        char addr[160];
        if (eq && eq < e + elen && (size_t)(e + elen - eq - 1) < sizeof addr) {
            memcpy(addr, eq + 1, (size_t)(e + elen - eq - 1));
            addr[e + elen - eq - 1] = 0;
            if (config_split_addr(addr, host, sizeof host, &port) == 0 && !strcmp(host, ip))
                return true;
        }
        e = end ? end + 1 : e + elen;
    }
    return false;
}

static link_t *link_named(peers_t *p, const char *name)
{
    LIST_EACH (it, &p->links) {
        link_t *l = LIST_ITEM(it, link_t, node);
        if (!l->closing && !strcmp(l->name, name))
            return l;
    }
    return NULL;
}

static void on_link_closed(uv_handle_t *h)
{
    link_t *l = h->data;
    free(l->in);
    free(l);
}

/* l goes: the feeds to it stop, its mirrors' watchers are told. */
static void link_close(link_t *l, const char *why)
{
    if (l->closing)
        return;
    l->closing = true;
    peers_t *p = l->p;
    log_info("peer link %s (%s) closed: %s", l->name[0] ? l->name : "?", l->addr, why);
    LIST_EACH (it, &p->feeds) {
        feed_t *f = LIST_ITEM(it, feed_t, node);
        int i = feed_find(f, l);
        if (i >= 0)
            feed_drop_sub(f->s, i);
    }
    LIST_EACH (it, &p->mirrors) {
        mirror_t *m = LIST_ITEM(it, mirror_t, node);
        if (m->l == l)
            mirror_drop(m, "The server running that game went away.");
    }
    list_remove(&l->node);
    p->nlinks--;
    uv_close((uv_handle_t *)&l->tcp, on_link_closed);
}

static link_t *link_new(peers_t *p, const char *addr)
{
    link_t *l = p->nlinks < PEER_LINKS_MAX ? calloc(1, sizeof *l) : NULL;
    if (!l)
        return NULL;
    l->p = p;
    snprintf(l->addr, sizeof l->addr, "%s", addr);
    uv_tcp_init(p->home->loop, &l->tcp);
    l->tcp.data = l;
    list_push_back(&p->links, &l->node);
    p->nlinks++;
    return l;
}

/* Both HELLOs are through: the mirrors waiting for l ask for their games. */
static void link_ready(link_t *l)
{
    l->ready = true;
    log_info("peer link %s (%s) ready", l->name, l->addr);
    LIST_EACH (it, &l->p->mirrors) {
        mirror_t *m = LIST_ITEM(it, mirror_t, node);
        if (m->l == l)
            mirror_ask(m, l);
    }
}

static int link_hello(link_t *l, const peer_msg_t *m, const char **why)
{
    const config_t *cfg = &l->p->home->cfg;
    if (l->outbound) { /* the node we called answers */
        if (strcmp(m->node, l->name)) {
            *why = "the node answering is not the one called";
            return -1;
        }
        link_ready(l);
        return 0;
    }
    size_t n = strlen(cfg->peer_secret);
    bool secret = n && n == strlen(m->secret) && /* in constant time: no guessing by timing */
                  sodium_memcmp(cfg->peer_secret, m->secret, n) == 0;
    if (!secret && !peer_trusted_addr(cfg, l->addr)) {
        *why = "neither a configured peer address nor the peer secret";
        return -1;
    }
    if (!m->node[0] || !strcmp(m->node, cfg->node)) {
        *why = "a bad node name";
        return -1;
    }
    snprintf(l->name, sizeof l->name, "%s", m->node);
    buf_t *b = &l->p->out;
    buf_reset(b);
    peerwire_hello(b, cfg->peer_secret, cfg->node);
    link_send(l, b);
    link_ready(l);
    return 0;
}

static int link_message(link_t *l, const peer_msg_t *m, const char **why)
{
    if (!l->ready && m->type != PEER_HELLO) {
        *why = "a message before HELLO";
        return -1;
    }
    switch (m->type) {
    case PEER_HELLO:
        if (l->ready) {
            *why = "a second HELLO";
            return -1;
        }
        return link_hello(l, m, why);
    case PEER_WATCH: feed_watch(l, m->game); return 0;
    case PEER_UNWATCH: feed_unwatch(l, m->game); return 0;
    case PEER_SCREEN: return mirror_frame(l, m, why);
    default: { /* PEER_GONE */
        mirror_t *mi = mirror_find(l->p, m->game);
        if (mi && mi->l == l)
            mirror_drop(mi, m->reason[0] ? m->reason : "That game is over.");
        return 0;
    }
    }
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *out)
{
    link_t *l = h->data;
    (void)want;
    size_t room = 65536;
    if (l->in_cap - l->in_len < room && l->in_len + room <= PEER_MSG_MAX + 4 + room) {
        uint8_t *n = realloc(l->in, l->in_len + room);
        if (n)
            l->in = n, l->in_cap = l->in_len + room;
    }
    *out = uv_buf_init((char *)l->in + l->in_len, (unsigned)(l->in_cap - l->in_len));
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    link_t *l = st->data;
    (void)buf;
    if (n < 0) {
        link_close(l, n == UV_EOF ? "the other node closed it" : uv_strerror((int)n));
        return;
    }
    l->in_len += (size_t)n;
    size_t at = 0, used = 0;
    peer_msg_t m;
    const char *why = NULL;
    int r = 0;
    while (!l->closing && (r = peerwire_next(l->in + at, l->in_len - at, &used, &m, &why)) > 0) {
        at += used;
        if (link_message(l, &m, &why) < 0)
            r = -1;
        if (r < 0)
            break;
    }
    if (r < 0) {
        log_warn("peer link %s (%s): %s", l->name[0] ? l->name : "?", l->addr, why ? why : "?");
        link_close(l, "bad input");
        return;
    }
    if (!l->closing) {
        memmove(l->in, l->in + at, l->in_len - at);
        l->in_len -= at;
    }
}

/* A link's socket: a small kernel buffer (peer-queue bounds the rest)
 * and keepalives, so a node cut off is found out without traffic. */
static void link_tune(link_t *l)
{
    int sndbuf = PEER_SNDBUF;
    uv_send_buffer_size((uv_handle_t *)&l->tcp, &sndbuf);
    uv_tcp_keepalive(&l->tcp, 1, PEER_KEEPALIVE_S);
}

static void on_connected(uv_connect_t *req, int status)
{
    link_t *l = req->data;
    if (l->closing)
        return;
    if (status < 0) {
        link_close(l, uv_strerror(status));
        return;
    }
    const config_t *cfg = &l->p->home->cfg;
    buf_t *b = &l->p->out;
    buf_reset(b);
    peerwire_hello(b, cfg->peer_secret, cfg->node);
    if (link_send(l, b) < 0 || uv_read_start((uv_stream_t *)&l->tcp, on_alloc, on_read) < 0)
        link_close(l, "cannot write or read");
}

/* A link to node name at the address cfg.peers gives it; NULL if none. */
static link_t *link_connect(peers_t *p, const char *name)
{
    char host[128];
    int port;
    struct sockaddr_storage ss;
    if (!peer_addr(&p->home->cfg, name, host, sizeof host, &port)) {
        log_warn("peer %s: not in peers, so its games cannot be watched here", name);
        return NULL;
    }
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)&ss) &&
        uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss))
        return NULL;
    link_t *l = link_new(p, host);
    if (!l)
        return NULL;
    l->outbound = true;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->conn.data = l;
    if (uv_tcp_connect(&l->conn, &l->tcp, (struct sockaddr *)&ss, on_connected) < 0) {
        link_close(l, "cannot connect");
        return NULL;
    }
    uv_tcp_nodelay(&l->tcp, 1);
    link_tune(l);
    return l;
}

static void on_accept(void *ud, int fd, const char *addr)
{
    peers_t *p = ud;
    link_t *l = p->stopped ? NULL : link_new(p, addr);
    if (!l) {
        close(fd);
        log_warn("peer link from %s refused: %d links at most", addr, PEER_LINKS_MAX);
        return;
    }
    if (uv_tcp_open(&l->tcp, fd) < 0 ||
        uv_read_start((uv_stream_t *)&l->tcp, on_alloc, on_read) < 0) {
        close(fd);
        link_close(l, "cannot open");
        return;
    }
    uv_tcp_nodelay(&l->tcp, 1);
    link_tune(l);
}

/* ---- start and stop ------------------------------------------------------------------ */

int peer_start(server_t *home)
{
    const config_t *cfg = &home->cfg;
    if (!cfg->peer_listen[0] && !cfg->peers[0])
        return 0;
    if (!lease_on(home)) {
        log_warn("peer-listen and peers are for nodes sharing a PostgreSQL database: ignored");
        return 0;
    }
    peers_t *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->home = home;
    list_init(&p->links);
    list_init(&p->feeds);
    list_init(&p->mirrors);
    buf_init(&p->out);
    home->peer = p;
    if (!cfg->peer_listen[0])
        return 0;
    char addr[80], err[256];
    snprintf(addr, sizeof addr, "%s%s", cfg->peer_listen[0] == ':' ? "127.0.0.1" : "",
             cfg->peer_listen);
    p->lis = listener_tcp(home->loop, "peer", addr, 64, on_accept, p, err, sizeof err);
    if (!p->lis) {
        log_error("peer-listen %s: %s", addr, err);
        return -1;
    }
    char host[64];
    int port;
    if (config_split_addr(addr, host, sizeof host, &port) == 0) /* port 0: the one picked */
        log_info("peer stream listening on %s:%d (node %s)", host, listener_port(p->lis),
                 cfg->node);
    return 0;
}

void peer_stop(server_t *home)
{
    peers_t *p = home->peer;
    if (!p || p->stopped)
        return;
    p->stopped = true;
    if (p->lis)
        listener_close(p->lis);
    p->lis = NULL;
    LIST_EACH (it, &p->links)
        link_close(LIST_ITEM(it, link_t, node), "this node stops");
}

void peer_free(server_t *home)
{
    peers_t *p = home->peer;
    if (!p)
        return;
    buf_free(&p->out);
    free(p);
    home->peer = NULL;
}
