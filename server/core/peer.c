/* peer — watching across nodes (peer.h): the lists' mirrors, the links
 * between nodes, the feeds of this node's games to them. */
#include "peer.h"
#include <sodium.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "backend.h"
#include "db.h"
#include "frames.h"
#include "lease.h"
#include "listener.h"
#include "log.h"
#include "logcap.h"
#include "peersum.h"
#include "peerwire.h"
#include "server.h"
#include "session_impl.h"
#include "shard.h"

#define PEER_LINKS_MAX   64    /* links at once past HELLO, and this node's own calls */
#define PEER_PENDING_MAX 16    /* links called in, their HELLO not yet through */
#define PEER_HELLO_MS    5000  /* a link called in sends its HELLO within this */
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
    bool pending;    /* called in, its HELLO not yet through: counted in npending */
    bool versioned;  /* this node's call sent its version (peerwire.h: HELLO) */
    int version;     /* the other node's stream (its HELLO's) */
    uint64_t opened; /* when it was accepted (uv_now) */
    uint8_t *in;
    size_t in_len, in_cap;
    size_t queued; /* bytes written, not yet sent */
    int nfeeds;    /* this node's games streamed on it (at most cfg.peer_max_games) */
    uv_connect_t conn;
} link_t;

/* An item of one of peers' maps by game (feeds, entries): its place in
 * the map and the game it is of (keyed_get, keyed_add). */
typedef struct {
    hnode_t hn;
    int64_t game;
} keyed_t;

/* Home's side of one of this node's games streamed to other nodes: the
 * links it goes to. The game runs on loop k, which encodes its frames
 * (its session's struct peer_feed) and posts them here. */
typedef struct feed {
    list_t node; /* peers' feeds */
    keyed_t key; /* peers' feeds by game: key.game is the game */
    server_t *k;
    int n;
    struct {
        link_t *l;
        bool need_key; /* its next SCREEN must be a keyframe: diffs skip it */
        bool asked;    /* that keyframe is asked of the game's loop */
    } subs[FEED_NODES_MAX];
} feed_t;

/* The game's loop's side (session_t.peer): what the last frame streamed
 * showed, and a buffer to encode the next. That loop's thread only. */
struct peer_feed {
    screen_t *last;
    buf_t out;
};

/* What the list says of another node's game: its row's, then what its
 * node's heartbeat said of it since (summed), which is newer. */
typedef struct {
    char node[PEER_TEXT_MAX + 1]; /* the node holding its lease */
    bool away;                    /* its player left: kept there, detached */
    char race[DB_SHORT_MAX], cls[DB_SHORT_MAX];
    int depth, max_depth, xl;
    int64_t turns;
    bool summed;          /* its node's heartbeat said it: w, h and last_key_ms too */
    int w, h;             /* its player's terminal (0 x 0: nobody plays it) */
    uint64_t last_key_ms; /* its player's last key, by home's clock (now_ms) */
    /* a hosted game (a negative id): what its node's heartbeat says of it,
     * its only word (no lease, no row) */
    bool hosted;
    char kind[32], kind_name[64];
    int min_w, min_h;
} pgame_t;

/* Another node's live game as the list read it, counted in "playing now"
 * here; it has a mirror session while cfg.peer_max_games allow. */
typedef struct entry {
    list_t node; /* peers' entries */
    list_t wait; /* peers' entries with no mirror (linked then) */
    keyed_t key; /* peers' entries by game: key.game is the game */
    int64_t user;
    char player[DB_NAME_MAX];
    pgame_t st;
    struct mirror *m; /* its mirror, NULL while none */
    uint64_t seen;    /* the full read that last named it */
    uint64_t retry;   /* no new mirror before this read (its last one was just dropped) */
} entry_t;

/* Another node's game (a session of kind "remote": its s->bk). */
typedef struct mirror {
    list_t node; /* peers' mirrors */
    peers_t *p;
    session_t *s;
    link_t *l;       /* the link its frames come on, once asked */
    screen_t *scr;   /* its screen as the last frame left it */
    entry_t *e;      /* its list entry; NULL once the list lost it */
    pgame_t st;      /* what the list said of it last */
    bool asked;      /* its holder is looked up or WATCH sent */
    bool framed;     /* a SCREEN came: scr has the player's size */
    uint64_t ending; /* the read its entry went at, while its watchers wait */
} mirror_t;

/* Another node the list named: its leases are checked once a read, and
 * what its heartbeat says of its games read when it said something new. */
typedef struct {
    char name[PEER_TEXT_MAX + 1];
    bool lapsed; /* its leases expired: its games are off the list */
    bool asking;
    int64_t sum_at;      /* when it said sum (the database's clock; 0: never) */
    uint64_t sum_base;   /* that moment by home's clock (now_ms) */
    peersum_game_t *sum; /* what it said, by game (owned) */
    size_t nsum;
} pnode_t;

struct peers {
    server_t *home;
    listener_t *lis;
    list_t links, feeds, mirrors, entries, waiting;
    hmap_t feed_by_game, entry_by_game;
    int nlinks, npending, nmirrors, nentries, nwaiting;
    bool listing, stopped;
    bool synced;         /* a full read is done: changes are read since cursor */
    int64_t cursor;      /* the change number the next read starts from */
    int64_t next_cursor; /* a full read's, once it is done */
    uint64_t last_ok;    /* when a read last worked (uv_now) */
    uint64_t reads;      /* list reads so far */
    uint64_t rows;       /* rows those reads returned */
    pnode_t nodes[PEER_LINKS_MAX];
    int nnodes;
    buf_t out; /* a message being encoded */
    /* nodes that hung up on a HELLO with a version (an older build):
     * called without it since */
    char plain[PEER_LINKS_MAX][PEER_TEXT_MAX + 1];
    int nplain;
    bool asking_nodes; /* the fresh nodes' names are asked */
    /* what this node's games show, for its heartbeat (peer_summary) */
    buf_t sum;
    uint64_t sum_hash; /* of the last one given */
    int sum_beats;     /* heartbeats since */
    bool sum_given;
    /* a node went away under watched games: the list is read every
     * SOON_MS until soon_until (uv_now), so each game is listed again
     * soon after another node resumed it, not up to a second after */
    uv_timer_t soon;
    uint64_t soon_until;
};

static const backend_ops_t backend_remote;
static void entry_wait(peers_t *p, entry_t *e, uint64_t retry);

/* ---- writing ------------------------------------------------------------------------ */

/* Encoded bytes on their way, shared by every link they are written to
 * (home's thread only once handed over). */
typedef struct {
    int refs;
    size_t n;
    char data[];
} pmsg_t;

static pmsg_t *pmsg_of(const buf_t *b)
{
    pmsg_t *m = b->failed || !b->len ? NULL : malloc(sizeof *m + b->len);
    if (m) {
        m->refs = 1;
        m->n = b->len;
        memcpy(m->data, b->data, b->len);
    }
    return m;
}

static void pmsg_unref(pmsg_t *m)
{
    if (m && --m->refs == 0)
        free(m);
}

typedef struct {
    uv_write_t req;
    link_t *l;
    pmsg_t *m;
} wreq_t;

static void feeds_catch_up(link_t *l);

static void on_written(uv_write_t *req, int status)
{
    wreq_t *w = (wreq_t *)req;
    link_t *l = w->l;
    l->queued -= w->m->n;
    pmsg_unref(w->m);
    free(w);
    if (status == 0 && l->want_key && !l->closing &&
        l->queued < (size_t)l->p->home->cfg.peer_queue / 2)
        feeds_catch_up(l);
}

/* m's bytes to l; -1 (nothing sent) past the queue's cap or out of memory. */
static int link_write(link_t *l, pmsg_t *m)
{
    if (l->closing || !m)
        return -1;
    if (l->queued + m->n > (size_t)l->p->home->cfg.peer_queue)
        return -1;
    wreq_t *w = malloc(sizeof *w);
    if (!w)
        return -1;
    w->l = l;
    w->m = m;
    uv_buf_t ub = uv_buf_init(m->data, (unsigned)m->n);
    if (uv_write(&w->req, (uv_stream_t *)&l->tcp, &ub, 1, on_written) < 0) {
        free(w);
        return -1;
    }
    m->refs++;
    l->queued += m->n;
    return 0;
}

static int link_send(link_t *l, const buf_t *b)
{
    pmsg_t *m = pmsg_of(b);
    int r = link_write(l, m);
    pmsg_unref(m);
    return r;
}

/* ---- feeds: this node's games to other nodes ------------------------------------ */

/* Between home and a game's loop: a command (home to the loop: stream
 * game, with a keyframe now, or stop) or what the loop streams (to home:
 * a keyframe, a change, or the game gone, encoded). Posted (shard.h), so
 * each side sees the other's in order; with one loop, home posts to
 * itself. */
enum { OUT_KEY, OUT_FRAME, OUT_GONE };

typedef struct {
    server_t *k; /* the game's loop */
    int64_t game;
    int kind;
    pmsg_t *m;
} feed_msg_t;

static void home_feed_msg(server_t *home, void *ud);
static void loop_feed_on(server_t *k, void *ud);
static void loop_feed_off(server_t *k, void *ud);

static void feed_post(server_t *to, shard_fn fn, server_t *k, int64_t game, int kind, pmsg_t *m)
{
    feed_msg_t *fm = malloc(sizeof *fm);
    if (fm)
        *fm = (feed_msg_t){k, game, kind, m};
    if (!fm || shard_post(to, fn, fm)) {
        pmsg_unref(m); /* that loop stopped: its games went with it */
        free(fm);
    }
}

static keyed_t *keyed_get(const hmap_t *m, int64_t game)
{
    HMAP_EACH(it, m, hmap_hash_u64((uint64_t)game))
    {
        keyed_t *k = HMAP_ITEM(it, keyed_t, hn);
        if (k->game == game)
            return k;
    }
    return NULL;
}

/* k into m as game's; -1 when out of memory (k not added). */
static int keyed_add(hmap_t *m, keyed_t *k, int64_t game)
{
    k->game = game;
    return hmap_add(m, &k->hn, hmap_hash_u64((uint64_t)game));
}

static feed_t *feed_get(peers_t *p, int64_t game)
{
    keyed_t *k = keyed_get(&p->feed_by_game, game);
    return k ? HMAP_ITEM(k, feed_t, key) : NULL;
}

static int feed_find(const feed_t *f, const link_t *l)
{
    for (int i = 0; i < f->n; i++)
        if (f->subs[i].l == l)
            return i;
    return -1;
}

static void feed_free(peers_t *p, feed_t *f)
{
    list_remove(&f->node);
    hmap_del(&p->feed_by_game, &f->key.hn);
    free(f);
}

/* Sub i leaves; the last one's going stops the game's loop encoding. */
static void feed_drop_sub(peers_t *p, feed_t *f, int i)
{
    f->subs[i].l->nfeeds--;
    f->subs[i] = f->subs[--f->n];
    if (f->n)
        return;
    feed_post(f->k, loop_feed_off, f->k, f->key.game, 0, NULL);
    feed_free(p, f);
}

/* Sub i waits for a keyframe: asked of the game's loop once. */
static void feed_ask_key(feed_t *f, int i)
{
    f->subs[i].need_key = true;
    if (f->subs[i].asked)
        return;
    f->subs[i].asked = true;
    feed_post(f->k, loop_feed_on, f->k, f->key.game, 0, NULL);
}

static void feeds_catch_up(link_t *l)
{
    l->want_key = false;
    LIST_EACH (it, &l->p->feeds) {
        feed_t *f = LIST_ITEM(it, feed_t, node);
        int i = feed_find(f, l);
        if (i >= 0 && f->subs[i].need_key)
            feed_ask_key(f, i);
    }
}

/* Sub i gets m; a keyframe that cannot be queued now waits for the link
 * to drain, a change that cannot makes the sub wait for a keyframe. */
static void feed_deliver(feed_t *f, int i, int kind, pmsg_t *m)
{
    link_t *l = f->subs[i].l;
    if ((kind == OUT_KEY) != f->subs[i].need_key)
        return; /* a change before its keyframe, or a keyframe it needs not */
    if (kind == OUT_KEY)
        f->subs[i].asked = false;
    if (link_write(l, m) == 0) {
        f->subs[i].need_key = false;
        return;
    }
    f->subs[i].need_key = true;
    l->want_key = true;
    if (kind == OUT_FRAME)
        log_info("peer link %s: %zu bytes queued, game=%lld waits for a keyframe", l->name,
                 l->queued, (long long)f->key.game);
}

/* On home: what a game's loop streams goes to the game's links. */
static void home_feed_msg(server_t *home, void *ud)
{
    feed_msg_t *fm = ud;
    peers_t *p = home->peer;
    feed_t *f = p && !p->stopped ? feed_get(p, fm->game) : NULL;
    if (!f && p && !p->stopped && fm->kind != OUT_GONE)
        feed_post(fm->k, loop_feed_off, fm->k, fm->game, 0, NULL); /* nobody wants it now */
    else if (f && fm->kind == OUT_GONE) {
        for (int i = 0; i < f->n; i++) {
            link_write(f->subs[i].l, fm->m);
            f->subs[i].l->nfeeds--;
        }
        feed_free(p, f);
    } else if (f)
        for (int i = 0; i < f->n; i++)
            feed_deliver(f, i, fm->kind, fm->m);
    pmsg_unref(fm->m);
    free(fm);
}

/* Whether s is a live Warren game of this node's (streamed, summed). */
static bool own_game(const session_t *s)
{
    return s && s->game && !s->dead && !s->ended && !s->mirror;
}

/* Whether s is a live hosted game of this node's (streamed, summed with
 * what lists need of it: no other node has a row of it). */
static bool own_hosted(const session_t *s)
{
    return s && !s->game && s->game_id < 0 && !s->dead && !s->ended && !s->mirror;
}

/* On game's loop: the session that may be streamed, or NULL. */
static session_t *loop_game(server_t *k, int64_t game)
{
    session_t *s = session_find_game(k, game);
    return own_game(s) || own_hosted(s) ? s : NULL;
}

static void loop_feed_free(session_t *s)
{
    screen_free(s->peer->last);
    buf_free(&s->peer->out);
    free(s->peer);
    s->peer = NULL;
}

static void loop_gone(server_t *k, int64_t game, const char *why)
{
    buf_t b;
    buf_init(&b);
    peerwire_gone(&b, game, why);
    feed_post(shard_at(k, 0), home_feed_msg, k, game, OUT_GONE, pmsg_of(&b));
    buf_free(&b);
}

/* On the game's loop: stream game (if not yet), a keyframe of it now;
 * the game gone (why) when it does not run here. */
static void loop_feed_start(server_t *k, int64_t game, const char *why)
{
    session_t *s = loop_game(k, game);
    if (s && !s->peer && (s->peer = calloc(1, sizeof *s->peer)))
        buf_init(&s->peer->out);
    if (!s || !s->peer) {
        loop_gone(k, game, why);
        return;
    }
    buf_t *b = &s->peer->out;
    buf_reset(b);
    peerwire_screen(b, s->game_id, s->sent, NULL);
    feed_post(shard_at(k, 0), home_feed_msg, k, s->game_id, OUT_KEY, pmsg_of(b));
}

/* A game a player's load is resuming here (its lease taken) is answered
 * once it runs, not refused meanwhile: peer_resume_done. */
static void loop_feed_on(server_t *k, void *ud)
{
    feed_msg_t *fm = ud;
    if (loop_game(k, fm->game) || !session_watch_held(k, fm->game))
        loop_feed_start(k, fm->game, "That game is over or left its server.");
    free(fm);
}

void peer_resume_done(server_t *k, int64_t game)
{
    if (!loop_game(k, game))
        log_info("peer feed game=%lld: not resumed here, the nodes that asked for it are told",
                 (long long)game);
    loop_feed_start(k, game, "That game could not be resumed on its server.");
}

static void loop_feed_off(server_t *k, void *ud)
{
    feed_msg_t *fm = ud;
    session_t *s = session_find_game(k, fm->game);
    if (s && s->peer)
        loop_feed_free(s);
    free(fm);
}

/* The loop whose session runs game, or where a player's resume of it is
 * under way (*resuming), others parked while looked at; NULL when none.
 * Home only. */
static server_t *game_loop(server_t *home, int64_t game, bool *resuming)
{
    for (int i = 0; i < shard_count(home); i++) {
        server_t *k = shard_at(home, i);
        shard_lock(k);
        bool here = loop_game(k, game) != NULL;
        bool soon = !here && session_resuming(k, game);
        shard_unlock(k);
        if (here || soon) {
            *resuming = soon;
            return k;
        }
    }
    return NULL;
}

/* A WATCH refused: the asking node is told why, the log says so (capped:
 * another node's asks make these lines). */
static void feed_refuse(link_t *l, int64_t game, const char *why)
{
    static const logcap_kind_t refused = {"peer feed refused", 5, 0};
    peers_t *p = l->p;
    logcap_say(p->home->strangers, uv_now(p->home->loop), LOG_INFO, &refused, l->name,
               "peer feed refused game=%lld to=%s: %s", (long long)game, l->name, why);
    buf_t *b = &p->out;
    buf_reset(b);
    peerwire_gone(b, game, why);
    link_send(l, b);
}

static feed_t *feed_new(peers_t *p, int64_t game, server_t *k)
{
    feed_t *f = calloc(1, sizeof *f);
    if (!f || keyed_add(&p->feed_by_game, &f->key, game) < 0) {
        free(f);
        return NULL;
    }
    f->k = k;
    list_push_back(&p->feeds, &f->node);
    return f;
}

/* The reason a WATCH of game on l is refused, or NULL with *k its loop
 * (*resuming: the game is being resumed there, not running yet). */
static const char *feed_refusal(link_t *l, const feed_t *f, int64_t game, server_t **k,
                                bool *resuming)
{
    if (l->nfeeds >= l->p->home->cfg.peer_max_games)
        return "Too many games are watched from that server.";
    *k = f ? f->k : game_loop(l->p->home, game, resuming);
    return *k ? NULL : "That game cannot be watched from another server.";
}

static void feed_watch(link_t *l, int64_t game)
{
    peers_t *p = l->p;
    feed_t *f = feed_get(p, game);
    server_t *k = NULL;
    const char *why = NULL;
    bool resuming = false;
    if (f && feed_find(f, l) >= 0) { /* asked again: a whole screen */
        feed_ask_key(f, feed_find(f, l));
        return;
    }
    if ((why = feed_refusal(l, f, game, &k, &resuming))) {
        feed_refuse(l, game, why);
        return;
    }
    if ((!f && !(f = feed_new(p, game, k))) || f->n == FEED_NODES_MAX)
        return; /* at its cap: that node's mirror waits, its watchers see the last screen */
    int i = f->n++;
    f->subs[i].l = l;
    f->subs[i].asked = false;
    l->nfeeds++;
    feed_ask_key(f, i);
    log_info("peer feed game=%lld to=%s nodes=%d loop=%d%s", (long long)game, l->name, f->n,
             k->shard, resuming ? " (held: its resume here is under way)" : "");
}

static void feed_unwatch(link_t *l, int64_t game)
{
    feed_t *f = feed_get(l->p, game);
    int i = f ? feed_find(f, l) : -1;
    if (i >= 0) {
        feed_drop_sub(l->p, f, i);
        log_info("peer unfeed game=%lld to=%s", (long long)game, l->name);
    }
}

/* On the game's loop, after a frame of s went out: the change to home. */
void peer_frame(session_t *s)
{
    struct peer_feed *f = s->peer;
    buf_t *b = &f->out;
    buf_reset(b);
    if (peerwire_screen(b, s->game_id, s->sent, f->last) <= 0)
        return; /* nothing changed (or out of memory: the next frame's keyframe) */
    feed_post(shard_at(s->srv, 0), home_feed_msg, s->srv, s->game_id, OUT_FRAME, pmsg_of(b));
    if (!f->last)
        f->last = screen_new(s->sent->w, s->sent->h);
    if (!f->last || screen_copy(f->last, s->sent) < 0) {
        screen_free(f->last); /* every link then gets a keyframe-sized change */
        f->last = NULL;
    }
}

void peer_session_gone(session_t *s)
{
    loop_feed_free(s);
    loop_gone(s->srv, s->game_id, "That game is over or left its server.");
}

/* ---- what this node's games show, said at each heartbeat ------------------------------ */

#define SUM_EVERY 10 /* heartbeats at most between two summaries, changed or not */

static uint64_t hash_mix(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL; /* FNV-1a */
    return h;
}

/* s's line into p->sum (s's loop parked); returns h mixed with what it
 * shows that only a change of the game moves (its last key, not its idle). */
static uint64_t sum_game(peers_t *p, const session_t *s, uint64_t now, uint64_t h)
{
    session_status_t st = {0};
    peersum_game_t g;
    memset(&g, 0, sizeof g); /* the padding too: g is hashed whole */
    session_status(s, &st);
    g.game = s->game_id;
    g.depth = st.depth, g.max_depth = st.max_depth, g.xl = st.xl;
    g.turn = st.turn;
    session_played(s, &g.w, &g.h);
    snprintf(g.race, sizeof g.race, "%s", st.race);
    snprintf(g.cls, sizeof g.cls, "%s", st.cls);
    g.idle_ms = now > s->last_key_ms ? now - s->last_key_ms : 0;
    if (own_hosted(s)) { /* what another node lists it by */
        g.max_depth = st.depth;
        snprintf(g.kind, sizeof g.kind, "%s", s->kind);
        snprintf(g.name, sizeof g.name, "%s", s->kind_name);
        snprintf(g.player, sizeof g.player, "%s", s->user);
        g.user = s->user_id;
        g.min_w = s->min_w, g.min_h = s->min_h;
        g.away = !s->player;
    }
    peersum_put(&p->sum, &g);
    g.idle_ms = s->last_key_ms;
    return hash_mix(h, &g, sizeof g);
}

/* The line of a hosted game whose session gives none but whose last copy
 * is on its way (peer.h: peer_hosted_t): away, nothing on its screen. */
static uint64_t sum_left(peers_t *p, const peer_hosted_t *l, uint64_t h)
{
    peersum_game_t g;
    memset(&g, 0, sizeof g); /* the padding too: g is hashed whole */
    g.game = l->game;
    snprintf(g.kind, sizeof g.kind, "%s", l->g->id);
    snprintf(g.name, sizeof g.name, "%s", l->g->name);
    snprintf(g.player, sizeof g.player, "%s", l->player);
    g.user = l->user;
    g.min_w = l->g->min_size[0], g.min_h = l->g->min_size[1];
    g.away = true;
    peersum_put(&p->sum, &g);
    return hash_mix(h, &g, sizeof g);
}

const char *peer_summary(server_t *home)
{
    peers_t *p = home->peer;
    if (!p || p->stopped)
        return NULL;
    buf_reset(&p->sum);
    uint64_t h = 14695981039346656037ULL;
    size_t n = 0;
    for (int i = 0; i < shard_count(home); i++) {
        server_t *k = shard_at(home, i);
        shard_lock(k);
        uint64_t now = now_ms(k);
        LIST_EACH (it, &k->sessions) {
            const session_t *s = LIST_ITEM(it, session_t, node);
            if ((!own_game(s) && !own_hosted(s)) || n == PEERSUM_GAMES_MAX)
                continue;
            h = sum_game(p, s, now, h);
            n++;
        }
        shard_unlock(k);
    }
    LIST_EACH (it, &home->hostcopies.games) { /* hosted games run on home */
        const peer_hosted_t *l = LIST_ITEM(it, peer_hosted_t, node);
        if (n == PEERSUM_GAMES_MAX || own_hosted(session_find_game(home, l->game)))
            continue; /* its session's line is given */
        h = sum_left(p, l, h);
        n++;
    }
    buf_putc(&p->sum, 0); /* a C string for the statement */
    if (p->sum.failed)
        return NULL; /* out of memory: the heartbeat goes without */
    if (p->sum_given && h == p->sum_hash && ++p->sum_beats < SUM_EVERY)
        return NULL;
    p->sum_given = true;
    p->sum_hash = h;
    p->sum_beats = 0;
    return p->sum.data;
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
static void links_sweep(peers_t *p, bool full);

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

/* The node running h's game is node (NULL: none): asked for it. */
static void holder_found(holder_t *h, const char *node)
{
    mirror_t *m = mirror_find(h->p, h->game);
    free(h);
    if (!m || m->p->stopped || !m->asked)
        return; /* gone, or its watchers left meanwhile */
    link_t *l = node ? link_named(m->p, node) : NULL;
    if (node && !l)
        l = link_connect(m->p, node);
    if (!l) {
        mirror_drop(m, node ? "That game's server cannot be reached from here."
                            : "That game is not running anymore.");
        return;
    }
    mirror_ask(m, l);
}

static void on_holder(void *ud, int status, const char *node, size_t len)
{
    (void)len;
    holder_found(ud, status == DB_OK ? node : NULL);
}

/* A hosted game's node is the one whose heartbeat names it (it has no
 * lease): asked from home's next turn, as a lease holder's answer is. */
static void hosted_holder(server_t *home, void *ud)
{
    holder_t *h = ud;
    mirror_t *m = home->peer ? mirror_find(home->peer, h->game) : NULL;
    if (!m) {
        free(h);
        return;
    }
    holder_found(h, m->st.node);
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
    if (!m->st.hosted)
        db_lease_holder(m->p->home->db, s->game_id, on_holder, h);
    else if (shard_post(m->p->home, hosted_holder, h))
        free(h);
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
    snprintf(st->race, sizeof st->race, "%s", m->st.race);
    snprintf(st->cls, sizeof st->cls, "%s", m->st.cls);
    st->depth = m->st.depth, st->max_depth = m->st.max_depth, st->xl = m->st.xl;
    st->turn = (uint64_t)m->st.turns;
    return !m->st.hosted; /* a hosted game's race and class are not known */
}

static bool remote_hosted(const session_t *s)
{
    const mirror_t *m = s->bk;
    return m->st.hosted;
}

/* Played there now (as the list says), at the size its frames have while
 * they come, else the size its node's heartbeat said; that says none for
 * a game its player had left (until the beat after their return), so the
 * size of frames seen here before stands in. */
static bool remote_played(const session_t *s, int *w, int *h)
{
    const mirror_t *m = s->bk;
    bool framed = m->framed && (m->l || !m->st.summed || !m->st.w);
    *w = framed ? m->scr->w : m->st.summed ? m->st.w : 0;
    *h = framed ? m->scr->h : m->st.summed ? m->st.h : 0;
    return !m->st.away;
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
    if (m->e) /* its game is still listed: a mirror again in a few reads */
        entry_wait(m->p, m->e, m->p->reads + 3);
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
    .hosted = remote_hosted,
    .watched = remote_watched,
    .played = remote_played,
    .free = remote_free,
};

#define KEY_JITTER_MS 250 /* a last key said again this close is the same one */

/* The mirror's last key as its node said it (its idle): placed among the
 * latest keyed (session_keyed_at), unless it is the one said before. */
static void mirror_keyed_at(mirror_t *m, uint64_t ms)
{
    session_t *s = m->s;
    uint64_t d = ms > s->last_key_ms ? ms - s->last_key_ms : s->last_key_ms - ms;
    if (d >= KEY_JITTER_MS)
        session_keyed_at(s, ms);
}

/* What the list now says of m's game. */
static void mirror_show(mirror_t *m, const pgame_t *st)
{
    m->st = *st;
    session_set_away(m->s, st->away); /* left out of "playing now" here too */
    if (st->summed)
        mirror_keyed_at(m, st->last_key_ms);
}

static void mirror_new(peers_t *p, entry_t *e)
{
    mirror_t *m = calloc(1, sizeof *m);
    if (m && !(m->scr = screen_new(TERM_MIN_W, TERM_MIN_H))) {
        free(m);
        return;
    }
    session_t *s =
        m ? session_new(p->home, e->key.game, e->user, e->player, &backend_remote) : NULL;
    if (!s) {
        screen_free(m ? m->scr : NULL);
        free(m);
        return;
    }
    m->p = p;
    m->s = s;
    m->e = e;
    mirror_show(m, &e->st);
    e->m = m;
    list_remove(&e->wait);
    p->nwaiting--;
    s->bk = m;
    s->mirror = true;   /* its player's own lookups pass it by (session.c) */
    if (e->st.hosted) { /* listed and watched as the hosted game it is there */
        snprintf(s->kind, sizeof s->kind, "%s", e->st.kind);
        snprintf(s->kind_name, sizeof s->kind_name, "%s", e->st.kind_name);
        s->min_w = e->st.min_w > s->min_w ? e->st.min_w : s->min_w;
        s->min_h = e->st.min_h > s->min_h ? e->st.min_h : s->min_h;
    } else { /* listed and watched as one of ours */
        snprintf(s->kind, sizeof s->kind, "warren");
        snprintf(s->kind_name, sizeof s->kind_name, "Warren");
    }
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
    m->framed = true;
    if (resized && screen_resize(m->s->sent, msg->w, msg->h) == 0)
        frames_layout(m->s); /* the watchers' grid follows, everyone gets a keyframe */
    else
        session_output(m->s);
    return 0;
}

/* ---- the list of other nodes' games --------------------------------------------------- */

#define ENTRIES_MAX     20000 /* other nodes' games known here at most (a full read holds them all) */
#define RESYNC_AFTER_MS 300000 /* reads failing this long: read everything again */
#define PRUNE_EVERY     60     /* reads between two prunings of old tombstones */
#define TOMBSTONE_MS    600000 /* how long a tombstone is kept: well past RESYNC_AFTER_MS */

static void publish_count(peers_t *p)
{
    int away = 0;
    LIST_EACH (it, &p->waiting)
        away += LIST_ITEM(it, entry_t, wait)->st.away;
    atomic_store(&p->home->peer_unlisted, p->nwaiting); /* mirrors count as sessions */
    atomic_store(&p->home->peer_unlisted_away, away);
}

static entry_t *entry_get(peers_t *p, int64_t game)
{
    keyed_t *k = keyed_get(&p->entry_by_game, game);
    return k ? HMAP_ITEM(k, entry_t, key) : NULL;
}

/* e waits for a mirror (made from read retry on, while the cap allows). */
static void entry_wait(peers_t *p, entry_t *e, uint64_t retry)
{
    e->m = NULL;
    e->retry = retry;
    if (!list_linked(&e->wait)) {
        list_push_back(&p->waiting, &e->wait);
        p->nwaiting++;
    }
}

/* e leaves the list: its mirror goes, told why (a watched one waits a few
 * reads for its node's own word, which says more). */
static void entry_del(peers_t *p, entry_t *e, const char *why)
{
    mirror_t *m = e->m;
    if (m) {
        m->e = NULL;
        if (m->s->nwatchers && !m->ending)
            m->ending = p->reads + 1;
        else if (!m->s->nwatchers)
            mirror_drop(m, why);
    }
    if (list_linked(&e->wait)) {
        list_remove(&e->wait);
        p->nwaiting--;
    }
    list_remove(&e->node);
    hmap_del(&p->entry_by_game, &e->key.hn);
    p->nentries--;
    free(e);
}

static void pgame_of(pgame_t *st, const db_peer_game_t *r)
{
    snprintf(st->node, sizeof st->node, "%s", r->node);
    st->away = r->away;
    snprintf(st->race, sizeof st->race, "%s", r->g.race);
    snprintf(st->cls, sizeof st->cls, "%s", r->g.cls);
    st->depth = r->g.depth, st->max_depth = r->g.max_depth, st->xl = r->g.xl;
    st->turns = r->g.turns;
    st->summed = false;
}

static void node_seen(peers_t *p, const char *name);
static pnode_t *node_named(peers_t *p, const char *name);

/* What e's node last said of it, over what its row says: newer (its row
 * is written at saves). */
static void entry_sum(peers_t *p, entry_t *e)
{
    const pnode_t *n = node_named(p, e->st.node);
    const peersum_game_t *g = n ? peersum_find(n->sum, n->nsum, e->key.game) : NULL;
    pgame_t *st = &e->st;
    st->summed = g != NULL;
    if (!g)
        return;
    snprintf(st->race, sizeof st->race, "%s", g->race);
    snprintf(st->cls, sizeof st->cls, "%s", g->cls);
    st->depth = g->depth, st->max_depth = g->max_depth, st->xl = g->xl;
    st->turns = (int64_t)g->turn;
    st->w = g->w, st->h = g->h;
    st->last_key_ms = n->sum_base > g->idle_ms ? n->sum_base - g->idle_ms : 0;
    if (!st->hosted)
        return;
    st->away = g->away;
    snprintf(st->kind, sizeof st->kind, "%s", g->kind[0] ? g->kind : "hosted");
    snprintf(st->kind_name, sizeof st->kind_name, "%s", g->name[0] ? g->name : st->kind);
    st->min_w = g->min_w, st->min_h = g->min_h;
}

/* game's entry, made (waiting for a mirror) when there is none; NULL past
 * the cap or out of memory. */
static entry_t *entry_of(peers_t *p, int64_t game, int64_t user, const char *player)
{
    entry_t *e = entry_get(p, game);
    if (!e && p->nentries < ENTRIES_MAX && (e = calloc(1, sizeof *e))) {
        if (keyed_add(&p->entry_by_game, &e->key, game) < 0) {
            free(e);
            return NULL;
        }
        e->user = user;
        snprintf(e->player, sizeof e->player, "%s", player);
        list_init(&e->wait);
        list_push_back(&p->entries, &e->node);
        p->nentries++;
        entry_wait(p, e, 0);
    }
    return e;
}

/* m's game now runs on node: its watchers stay, its frames come from
 * node from now on (a keyframe first), asked there as at a first watcher
 * (one still looking for its holder asks the one it finds). */
static void mirror_moved(mirror_t *m, const char *node)
{
    if (!m->l || !strcmp(m->l->name, node))
        return;
    mirror_unwatch(m);
    m->asked = true;
    link_t *l = link_named(m->p, node);
    if (!l)
        l = link_connect(m->p, node);
    if (!l) {
        mirror_drop(m, "That game's server cannot be reached from here.");
        return;
    }
    log_info("peer watch game=%lld moved to %s", (long long)m->s->game_id, node);
    mirror_ask(m, l);
}

/* Row r of another node's live game: listed, or its entry brought up to
 * date. One that moved to another node gets its mirror at this read: the
 * pause after a dropped mirror (remote_free) is for the node that dropped
 * it, not for the game's new one, whose watchers were told it went. */
static entry_t *entry_put(peers_t *p, const db_peer_game_t *r)
{
    entry_t *e = entry_of(p, r->g.id, r->g.user, r->g.player);
    if (!e)
        return NULL;
    bool moved = e->st.node[0] && strcmp(e->st.node, r->node);
    if (moved)
        e->retry = 0;
    pgame_of(&e->st, r);
    if (moved && e->m)
        mirror_moved(e->m, r->node);
    node_seen(p, r->node);
    entry_sum(p, e);
    if (e->m)
        mirror_show(e->m, &e->st);
    return e;
}

/* Entries with no mirror get one while the cap allows (each read). */
static void mirrors_fill(peers_t *p)
{
    LIST_EACH (it, &p->waiting) {
        entry_t *e = LIST_ITEM(it, entry_t, wait);
        if (p->nmirrors >= p->home->cfg.peer_max_games)
            break;
        if (e->retry <= p->reads && !session_find_game(p->home, e->key.game))
            mirror_new(p, e);
    }
}

/* Each read: a mirror nobody watches stops its stream; one whose game left
 * the list and whose node said nothing meanwhile ends. */
static void mirrors_sweep(peers_t *p)
{
    LIST_EACH (it, &p->mirrors) {
        mirror_t *m = LIST_ITEM(it, mirror_t, node);
        if (m->ending && (!m->s->nwatchers || p->reads >= m->ending + 3))
            mirror_drop(m, "That game ended.");
        else if (m->asked && !m->s->nwatchers)
            mirror_unwatch(m);
    }
}

static void list_done(peers_t *p, size_t n)
{
    p->listing = false;
    p->reads++;
    p->rows += n;
    p->last_ok = uv_now(p->home->loop);
    mirrors_fill(p);
    mirrors_sweep(p);
    publish_count(p);
}

/* A full read: every other node's live game; what it does not name goes. */
static void on_full(void *ud, int status, const db_peer_game_t *rows, size_t n)
{
    peers_t *p = ud;
    if (status != DB_OK || p->stopped) {
        p->listing = false;
        return;
    }
    uint64_t read = p->reads + 1;
    for (size_t i = 0; i < n; i++) {
        entry_t *e = entry_put(p, &rows[i]);
        if (e)
            e->seen = read;
    }
    LIST_EACH (it, &p->entries) {
        entry_t *e = LIST_ITEM(it, entry_t, node);
        if (e->seen != read && !e->st.hosted) /* hosted: their nodes' heartbeats say */
            entry_del(p, e, "That game ended.");
    }
    if (n >= ENTRIES_MAX)
        log_warn("peer list: more than %d games on other nodes; the rest are not counted",
                 ENTRIES_MAX);
    p->cursor = p->next_cursor;
    p->synced = true;
    list_done(p, n);
}

static void on_cursor(void *ud, int status, int64_t n)
{
    peers_t *p = ud;
    if (status != DB_OK || p->stopped) {
        p->listing = false;
        return;
    }
    p->next_cursor = n; /* what changes during the full read is read after it */
    db_peer_games_all(p->home->db, p->home->cfg.node, ENTRIES_MAX, on_full, p);
}

/* Changes since the last read, in order: a lease row names its holder (a
 * game of this node's, or one over, is off the list); a tombstone (node
 * "") says the lease went. */
static void on_changes(void *ud, int status, const db_peer_game_t *rows, size_t n)
{
    peers_t *p = ud;
    if (status != DB_OK || p->stopped) {
        p->listing = false;
        if (!p->stopped && uv_now(p->home->loop) - p->last_ok > RESYNC_AFTER_MS)
            p->synced = false; /* tombstones may be pruned meanwhile */
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const db_peer_game_t *r = &rows[i];
        bool listed =
            r->node[0] && strcmp(r->node, p->home->cfg.node) && r->g.state == DB_GAME_LIVE;
        entry_t *e = listed ? entry_put(p, r) : entry_get(p, r->g.id);
        if (!listed && e)
            entry_del(p, e, "That game ended.");
        if (r->chg >= p->cursor)
            p->cursor = r->chg + 1;
    }
    list_done(p, n);
}

/* ---- other nodes' liveness: a node that stops renewing loses its games ---- */

static pnode_t *node_named(peers_t *p, const char *name)
{
    for (int i = 0; i < p->nnodes; i++)
        if (!strcmp(p->nodes[i].name, name))
            return &p->nodes[i];
    return NULL;
}

static void node_seen(peers_t *p, const char *name)
{
    pnode_t *n = node_named(p, name);
    if (n && n->lapsed) { /* renewing again: its games are read again */
        n->lapsed = false;
        p->synced = false;
    }
    if (n || p->nnodes == PEER_LINKS_MAX)
        return;
    n = &p->nodes[p->nnodes++];
    *n = (pnode_t){0};
    snprintf(n->name, sizeof n->name, "%s", name);
}

typedef struct {
    peers_t *p;
    char name[PEER_TEXT_MAX + 1];
} alive_t;

static void nodes_lapse(peers_t *p, pnode_t *n)
{
    n->lapsed = true;
    log_info("peer list: node %s stopped renewing its leases: its games are off the list", n->name);
    LIST_EACH (it, &p->entries) {
        entry_t *e = LIST_ITEM(it, entry_t, node);
        if (!strcmp(e->st.node, n->name))
            entry_del(p, e, "The server running that game stopped.");
    }
    publish_count(p);
}

/* n said anew what its games show (r): kept, and its games' entries and
 * mirrors show it. Bad text is logged and kept as nothing said. */
static void node_said(peers_t *p, pnode_t *n, const db_peer_node_t *r)
{
    peersum_game_t *v = NULL;
    size_t nv = 0;
    const char *why = NULL;
    if (peersum_parse(r->games, r->len, &v, &nv, &why) < 0)
        log_warn("peer list: what node %s says of its games is not read: %s", n->name, why);
    free(n->sum);
    n->sum = v;
    n->nsum = nv;
    n->sum_at = r->at;
    uint64_t now = now_ms(p->home), age = r->age_ms > 0 ? (uint64_t)r->age_ms : 0;
    n->sum_base = now > age ? now - age : 0;
    LIST_EACH (it, &p->entries) {
        entry_t *e = LIST_ITEM(it, entry_t, node);
        if (strcmp(e->st.node, n->name))
            continue;
        entry_sum(p, e);
        if (e->m)
            mirror_show(e->m, &e->st);
    }
}

/* n's hosted games as its heartbeat last said them (none while it
 * lapsed): listed, and those it no longer names gone. */
static void hosted_sync(peers_t *p, pnode_t *n)
{
    for (size_t i = 0; i < n->nsum && !n->lapsed; i++) {
        const peersum_game_t *g = &n->sum[i];
        entry_t *e = g->game < 0 && g->user > 0 && g->player[0]
                         ? entry_of(p, g->game, g->user, g->player)
                         : NULL;
        if (!e || (e->st.node[0] && strcmp(e->st.node, n->name)))
            continue; /* not a hosted game's line, or named by two nodes: the first kept */
        snprintf(e->st.node, sizeof e->st.node, "%s", n->name);
        e->st.hosted = true;
        entry_sum(p, e);
        if (e->m)
            mirror_show(e->m, &e->st);
    }
    LIST_EACH (it, &p->entries) {
        entry_t *e = LIST_ITEM(it, entry_t, node);
        if (e->st.hosted && !strcmp(e->st.node, n->name) &&
            (n->lapsed || !peersum_find(n->sum, n->nsum, e->key.game)))
            entry_del(p, e, "That game ended.");
    }
    publish_count(p);
}

static void on_node(void *ud, int status, const db_peer_node_t *r)
{
    alive_t *a = ud;
    peers_t *p = a->p;
    pnode_t *n = p->stopped ? NULL : node_named(p, a->name);
    p->rows += status == DB_OK;
    if (n && status == DB_ENOTFOUND) { /* lapsed, holding nothing: forgotten */
        free(n->sum);
        n->sum = NULL, n->nsum = 0;
        n->lapsed = true;
        hosted_sync(p, n); /* its hosted games go */
        *n = p->nodes[--p->nnodes];
    } else if (n && status == DB_OK) {
        bool back = r->alive && n->lapsed;
        n->asking = false;
        if (r->games)
            node_said(p, n, r);
        if (!r->alive && !n->lapsed)
            nodes_lapse(p, n);
        else if (back)
            node_seen(p, n->name);
        if (r->games || back)
            hosted_sync(p, n);
    } else if (n)
        n->asking = false;
    free(a);
}

static void nodes_check(peers_t *p)
{
    for (int i = 0; i < p->nnodes; i++) {
        pnode_t *n = &p->nodes[i];
        alive_t *a = n->asking ? NULL : malloc(sizeof *a);
        if (!a)
            continue;
        n->asking = true;
        a->p = p;
        snprintf(a->name, sizeof a->name, "%s", n->name);
        db_peer_node(p->home->db, n->name, n->sum_at, on_node, a);
    }
}

/* The nodes whose heartbeat is fresh: known from now on (one running only
 * hosted games holds no lease, so no row of the list names it). */
static void on_nodes(void *ud, int status, const char *names, size_t len)
{
    peers_t *p = ud;
    p->asking_nodes = false;
    if (status != DB_OK || p->stopped || !names)
        return;
    for (const char *at = names, *end = names + len; at < end;) {
        const char *comma = memchr(at, ',', (size_t)(end - at));
        size_t n = comma ? (size_t)(comma - at) : (size_t)(end - at);
        char name[PEER_TEXT_MAX + 1];
        if (n && n <= PEER_TEXT_MAX) {
            memcpy(name, at, n);
            name[n] = 0;
            node_seen(p, name);
        }
        at += n + 1;
    }
}

/* The list read again (changes since the last read, the other nodes'
 * liveness), unless a read is in flight. */
static void list_read(peers_t *p)
{
    server_t *home = p->home;
    if (p->listing)
        return;
    p->listing = true;
    if (!p->synced) {
        db_peer_cursor(home->db, on_cursor, p);
        return;
    }
    db_peer_games_changed(home->db, p->cursor, on_changes, p);
    nodes_check(p);
    if (!p->asking_nodes) {
        p->asking_nodes = true;
        db_peer_nodes(home->db, home->cfg.node, on_nodes, p);
    }
    if (p->reads % PRUNE_EVERY == 0)
        db_peer_prune(home->db, TOMBSTONE_MS, NULL, NULL);
}

void peer_tick(server_t *home)
{
    peers_t *p = home->peer;
    if (!p || p->stopped || home->stopping)
        return;
    links_sweep(p, false);
    list_read(p);
}

#define SOON_MS      200  /* between two reads after a node went away */
#define SOON_PAST_MS 2000 /* read so past its leases' lapse */

static void on_soon(uv_timer_t *t)
{
    peers_t *p = t->data;
    if (p->stopped || p->home->stopping || uv_now(t->loop) >= p->soon_until)
        uv_timer_stop(t);
    else
        list_read(p);
}

/* A node went away with games watched here: their new nodes resume them
 * once its leases lapse; the list is read every SOON_MS until a while
 * after that. */
static void list_soon(peers_t *p)
{
    if (p->stopped)
        return;
    p->soon_until = uv_now(p->home->loop) + (uint64_t)p->home->cfg.lease_ttl_ms + SOON_PAST_MS;
    if (!uv_is_active((uv_handle_t *)&p->soon))
        uv_timer_start(&p->soon, on_soon, SOON_MS, SOON_MS);
}

void peer_stats(const server_t *home, peer_stats_t *st)
{
    const peers_t *p = home->peer;
    *st = (peer_stats_t){0};
    if (!p)
        return;
    st->games = p->nentries;
    st->mirrors = p->nmirrors;
    st->reads = p->reads;
    st->rows = p->rows;
}

const char *peer_node_of(const session_t *s)
{
    const mirror_t *m = mirror_of(s);
    return m ? m->st.node : NULL;
}

static void home_game_here(server_t *home, void *ud)
{
    int64_t *game = ud;
    mirror_t *m = home->peer ? mirror_find(home->peer, *game) : NULL;
    if (m)
        mirror_drop(m, "That game now runs on this server: pick it again to watch it.");
    free(game);
}

void peer_game_here(server_t *srv, int64_t game)
{
    if (!lease_on(srv))
        return;
    int64_t *g = malloc(sizeof *g);
    if (!g)
        return;
    *g = game;
    if (srv->shard == 0)
        home_game_here(srv, g); /* now: the session about to be made is the game's one */
    else if (shard_post(shard_at(srv, 0), home_game_here, g))
        free(g);
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

/* A line about a link from a stranger (refused, or called in and not
 * yet past its HELLO), under the log's cap (logcap.h): a flood of
 * strangers costs the log a few lines. */
static void stranger_say(peers_t *p, const char *addr, const char *what)
{
    logcap_say(p->home->strangers, uv_now(p->home->loop), LOG_WARN, &(logcap_kind_t){.name = what},
               addr, "peer link ? (%s): %s", addr, what);
}

/* l goes: the feeds to it stop, its mirrors' watchers are told. */
static void link_close(link_t *l, const char *why)
{
    if (l->closing)
        return;
    l->closing = true;
    peers_t *p = l->p;
    if (l->pending)
        stranger_say(p, l->addr, why);
    else
        log_info("peer link %s (%s) closed: %s", l->name[0] ? l->name : "?", l->addr, why);
    LIST_EACH (it, &p->feeds) {
        feed_t *f = LIST_ITEM(it, feed_t, node);
        int i = feed_find(f, l);
        if (i >= 0)
            feed_drop_sub(p, f, i);
    }
    bool watched = false;
    LIST_EACH (it, &p->mirrors) {
        mirror_t *m = LIST_ITEM(it, mirror_t, node);
        if (m->l == l) {
            watched = true;
            mirror_drop(m, "The server running that game went away.");
        }
    }
    if (watched)
        list_soon(p);
    list_remove(&l->node);
    if (l->pending)
        p->npending--;
    else
        p->nlinks--;
    uv_close((uv_handle_t *)&l->tcp, on_link_closed);
}

/* A link to or from addr; pending: called in, counted apart until its
 * HELLO is through. NULL past its count's cap or out of memory. */
static link_t *link_new(peers_t *p, const char *addr, bool pending)
{
    bool room = pending ? p->npending < PEER_PENDING_MAX : p->nlinks < PEER_LINKS_MAX;
    link_t *l = room ? calloc(1, sizeof *l) : NULL;
    if (!l)
        return NULL;
    l->p = p;
    l->pending = pending;
    l->opened = uv_now(p->home->loop);
    snprintf(l->addr, sizeof l->addr, "%s", addr);
    uv_tcp_init(p->home->loop, &l->tcp);
    l->tcp.data = l;
    list_push_back(&p->links, &l->node);
    if (pending)
        p->npending++;
    else
        p->nlinks++;
    return l;
}

/* The links whose HELLO is late (called in, or this node's calls that
 * are not answered: a node hung, or an address that never speaks), or
 * (oldest first) the one called in making room for another when every
 * pending place is taken (full). */
static void links_sweep(peers_t *p, bool full)
{
    uint64_t now = uv_now(p->home->loop);
    LIST_EACH (it, &p->links) {
        link_t *l = LIST_ITEM(it, link_t, node);
        if (l->ready || l->closing || (full && !l->pending))
            continue;
        if (full) {
            link_close(l, "too many links waiting for a HELLO: the oldest goes");
            return;
        }
        if (now - l->opened < PEER_HELLO_MS)
            continue;
        if (l->outbound)
            log_warn("peer link %s (%s): called, no HELLO back in %d s: is that node hung, or "
                     "is its address in peers wrong?",
                     l->name, l->addr, PEER_HELLO_MS / 1000);
        link_close(l, l->outbound ? "no HELLO in time from the node called" : "no HELLO in time");
    }
}

/* Both HELLOs are through: the mirrors waiting for l ask for their games. */
static void link_ready(link_t *l)
{
    l->ready = true;
    log_info("peer link %s (%s) ready, version %d", l->name, l->addr, l->version);
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
        l->version = m->version;
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
    peers_t *p = l->p;
    if (p->nlinks >= PEER_LINKS_MAX) {
        *why = "links past HELLO at their most";
        return -1;
    }
    l->pending = false; /* counted with the nodes' links from now on */
    p->npending--;
    p->nlinks++;
    snprintf(l->name, sizeof l->name, "%s", m->node);
    l->version = m->version;
    buf_t *b = &l->p->out;
    buf_reset(b);
    /* a caller of an older build refuses a version it did not send one of */
    peerwire_hello(b, cfg->peer_secret, cfg->node, m->version > 1 ? PEER_VERSION : 0);
    link_send(l, b);
    link_ready(l);
    return 0;
}

static int link_message(link_t *l, const peer_msg_t *m, const char **why)
{
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
    case PEER_UNKNOWN: return 0; /* a newer build's: skipped */
    default: {                   /* PEER_GONE */
        mirror_t *mi = mirror_find(l->p, m->game);
        if (mi && mi->l == l)
            mirror_drop(mi, m->reason[0] ? m->reason : "That game is over.");
        return 0;
    }
    }
}

/* Before its HELLO a link reads no more than a HELLO's bytes; then up
 * to a message of the largest size, 64 KiB at a time. */
static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *out)
{
    link_t *l = h->data;
    (void)want;
    if (!l->ready && !l->in) {
        l->in = malloc(4 + PEER_HELLO_MAX);
        l->in_cap = l->in ? 4 + PEER_HELLO_MAX : 0;
    }
    size_t room = 65536;
    if (l->ready && l->in_cap - l->in_len < room && l->in_len + room <= PEER_MSG_MAX + 4 + room) {
        uint8_t *n = realloc(l->in, l->in_len + room);
        if (n)
            l->in = n, l->in_cap = l->in_len + room;
    }
    *out = uv_buf_init((char *)l->in + l->in_len, (unsigned)(l->in_cap - l->in_len));
}

static bool node_plain(const peers_t *p, const char *name)
{
    for (int i = 0; i < p->nplain; i++)
        if (!strcmp(p->plain[i], name))
            return true;
    return false;
}

/* l, this node's call, was hung up on before its HELLO was answered: if
 * that HELLO had a version, the node called may be of a build before
 * versions, which refuses it. It is called again without, its mirrors
 * waiting on the new link; false when l is not such a call. */
static bool link_call_plain(link_t *l)
{
    peers_t *p = l->p;
    if (!l->outbound || l->ready || l->closing || !l->versioned || p->stopped)
        return false;
    if (!node_plain(p, l->name) && p->nplain < PEER_LINKS_MAX)
        snprintf(p->plain[p->nplain++], sizeof p->plain[0], "%s", l->name);
    log_info("peer link %s (%s): hung up on a HELLO with a version: called again without it "
             "(a node of an older build)",
             l->name, l->addr);
    link_t *again = link_connect(p, l->name);
    if (again)
        LIST_EACH (it, &p->mirrors) {
            mirror_t *m = LIST_ITEM(it, mirror_t, node);
            if (m->l == l)
                m->l = again;
        }
    link_close(l, "called again without a version");
    return true;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    link_t *l = st->data;
    (void)buf;
    if (n < 0) {
        if (!link_call_plain(l))
            link_close(l, n == UV_EOF ? "the other node closed it" : uv_strerror((int)n));
        return;
    }
    l->in_len += (size_t)n;
    size_t at = 0, used = 0;
    peer_msg_t m;
    const char *why = NULL;
    int r = 0;
    while (!l->closing &&
           (r = peerwire_next_link(l->in + at, l->in_len - at, l->ready, &used, &m, &why)) > 0) {
        at += used;
        if (link_message(l, &m, &why) < 0)
            r = -1;
        if (r < 0)
            break;
    }
    if (r < 0) {
        if (l->pending) { /* said once, by link_close */
            link_close(l, why ? why : "bad input");
            return;
        }
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
    l->versioned = !node_plain(l->p, l->name);
    peerwire_hello(b, cfg->peer_secret, cfg->node, l->versioned ? PEER_VERSION : 0);
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
    link_t *l = link_new(p, host, false);
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
    const config_t *cfg = &p->home->cfg;
    if (!cfg->peer_secret[0] && !peer_trusted_addr(cfg, addr)) {
        close(fd); /* its HELLO could not be trusted: no secret, an address not named */
        stranger_say(p, addr, "refused: not an address peers names, and no peer-secret");
        return;
    }
    if (!p->stopped && p->npending >= PEER_PENDING_MAX)
        links_sweep(p, true);
    link_t *l = p->stopped ? NULL : link_new(p, addr, true);
    if (!l) {
        close(fd);
        stranger_say(p, addr, "refused: this node stops, or no room or memory");
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
    if (!lease_on(home)) {
        if (cfg->peer_listen[0] || cfg->peers[0])
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
    list_init(&p->entries);
    list_init(&p->waiting);
    hmap_init(&p->feed_by_game);
    hmap_init(&p->entry_by_game);
    buf_init(&p->out);
    buf_init(&p->sum);
    uv_timer_init(home->loop, &p->soon);
    p->soon.data = p;
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
    uv_close((uv_handle_t *)&p->soon, NULL);
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
    LIST_EACH (it, &p->feeds) /* their loops stopped with their games */
        feed_free(p, LIST_ITEM(it, feed_t, node));
    hmap_fini(&p->feed_by_game);
    LIST_EACH (it, &p->entries) { /* their mirrors went with the sessions */
        entry_t *e = LIST_ITEM(it, entry_t, node);
        hmap_del(&p->entry_by_game, &e->key.hn);
        free(e);
    }
    hmap_fini(&p->entry_by_game);
    for (int i = 0; i < p->nnodes; i++)
        free(p->nodes[i].sum);
    buf_free(&p->out);
    buf_free(&p->sum);
    if (!uv_is_closing((uv_handle_t *)&p->soon)) { /* never stopped: a start that failed */
        uv_close((uv_handle_t *)&p->soon, NULL);
        uv_run(home->loop, UV_RUN_NOWAIT);
    }
    free(p);
    home->peer = NULL;
}
