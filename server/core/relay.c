/* relay — a home conn in a game on another loop; see relay.h. */
#include "relay.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "readturn.h"
#include "server.h"
#include "session.h"
#include "shard.h"

/* What a conn's gateway decides, copied to its stand-in whenever it changes. */
typedef struct {
    int raw_w, raw_h, w, h;
    bool json, two_cell, turns;
    char term[40];
    ansi_profile_t prof;
    int prof_id;
} view_t;

struct relay {
    conn_t conn; /* the stand-in, on the game's loop: first member */
    server_t *home, *game;
    conn_t *peer;           /* the real conn: home's thread only; NULL once let go */
    atomic_int refs;        /* the two sides and each post on its way */
    atomic_size_t inflight; /* bytes posted home, not handed to the peer yet */
    atomic_bool home_ok;    /* the peer's queue was below its limit at its last write */
    atomic_bool owed;       /* the stand-in found itself unwritable: a drain is owed */
    bool browser;
    view_t view_next;        /* the game's loop's: the last view posted (mark_view) */
    struct rmsg *calls;      /* the game's loop's: calls waiting behind kept keys (mark_call), */
    struct rmsg **calls_end; /* oldest first; each holds its post's ref */
};

/* One post: the relay, and what it carries. */
typedef struct rmsg {
    relay_t *rl;
    struct rmsg *next; /* relay_t.calls */
    key_event_t key;
    view_t view;
    int64_t game_id;
    uint64_t conn_id;
    int64_t user_id;
    char user[32], ip[64];
    int what;    /* relay_menu_t; conn_place_t; a relay_fn's arg */
    relay_fn fn; /* relay_to_game, relay_to_home */
    bool text;   /* data: a JSON message, not terminal bytes */
    bool has;    /* data holds a message (NULL otherwise) */
    uint64_t id; /* data: bytes shared by many conns (conn_write_shared); 0: not */
    size_t len;
    char data[];
} rmsg_t;

static void relay_put(relay_t *rl)
{
    if (atomic_fetch_sub(&rl->refs, 1) == 1)
        free(rl);
}

static rmsg_t *rmsg_new(relay_t *rl, const void *data, size_t len)
{
    rmsg_t *m = calloc(1, sizeof *m + len + 1);
    if (!m)
        return NULL;
    m->rl = rl;
    if (data) {
        memcpy(m->data, data, len);
        m->len = len;
        m->has = true;
    }
    return m;
}

/* Posts m to a side; false (m freed) when that loop has stopped. */
static bool rmsg_post(server_t *to, shard_fn fn, rmsg_t *m)
{
    if (!m)
        return false;
    atomic_fetch_add(&m->rl->refs, 1);
    if (shard_post(to, fn, m) == 0)
        return true;
    relay_put(m->rl);
    free(m);
    return false;
}

static void rmsg_done(rmsg_t *m)
{
    relay_put(m->rl);
    free(m);
}

/* The calls still waiting when the stand-in goes: dropped, their refs given back. */
static void calls_drop(relay_t *rl)
{
    while (rl->calls) {
        rmsg_t *m = rl->calls;
        rl->calls = m->next;
        rmsg_done(m);
    }
    rl->calls_end = &rl->calls;
}

static void view_of_conn(const conn_t *c, view_t *v)
{
    *v = (view_t){c->raw_w, c->raw_h, c->w, c->h, c->json, c->two_cell, c->turns};
    memcpy(v->term, c->term, sizeof v->term);
    v->prof = c->prof;
    v->prof_id = c->prof_id;
}

static void view_apply(conn_t *r, const view_t *v)
{
    r->raw_w = v->raw_w;
    r->raw_h = v->raw_h;
    r->w = v->w;
    r->h = v->h;
    r->json = v->json;
    r->two_cell = v->two_cell;
    r->turns = v->turns;
    memcpy(r->term, v->term, sizeof r->term);
    r->prof = v->prof;
    r->prof_id = v->prof_id;
}

/* ---- home: the real conn ------------------------------------------------------------ */

/* The peer of m's relay, if it is still linked to it. */
static conn_t *linked_peer(const rmsg_t *m)
{
    conn_t *c = m->rl->peer;
    return c && c->relay == m->rl ? c : NULL;
}

static void unlink_peer(conn_t *c)
{
    relay_t *rl = c->relay;
    c->relay = NULL;
    rl->peer = NULL;
    relay_put(rl);
}

static void home_out(server_t *home, void *ud)
{
    rmsg_t *m = ud;
    relay_t *rl = m->rl;
    conn_t *c = linked_peer(m);
    (void)home;
    if (c && !c->closing) {
        /* A frame after one the peer's queue refused would draw on a screen
         * that lacks it: dropped until the keyframe its drain brings. */
        if (m->text || !c->need_key)
            conn_write_shared(c, m->data, m->len, m->text, m->id);
        atomic_store(&rl->home_ok, conn_writable(c) && !c->need_key);
    }
    atomic_fetch_sub(&rl->inflight, m->len);
    rmsg_done(m);
}

static void game_drained(server_t *k, void *ud);

/* The stand-in waits for a drain: owed once, paid once. */
static void pay_drain(relay_t *rl)
{
    if (atomic_exchange(&rl->owed, false))
        rmsg_post(rl->game, game_drained, rmsg_new(rl, NULL, 0));
}

static void home_want(server_t *home, void *ud)
{
    rmsg_t *m = ud;
    conn_t *c = linked_peer(m);
    (void)home;
    if (c && !c->closing && conn_writable(c) && !c->need_key) {
        atomic_store(&m->rl->home_ok, true);
        pay_drain(m->rl);
    } /* else the peer's own drain pays it (relay_drained) */
    rmsg_done(m);
}

static void home_close(server_t *home, void *ud)
{
    rmsg_t *m = ud;
    conn_t *c = linked_peer(m);
    (void)home;
    if (c) {
        unlink_peer(c);
        conn_close(c, m->has ? m->data : "");
    }
    rmsg_done(m);
}

static void home_menu(server_t *home, void *ud)
{
    rmsg_t *m = ud;
    conn_t *c = linked_peer(m);
    (void)home;
    if (c && m->what == RELAY_TOO_SMALL) {
        conn_too_small(c);
    } else if (c) {
        unlink_peer(c);
        if (!c->closing && m->what == RELAY_MESSAGE)
            conn_message(c, m->data);
        else if (!c->closing)
            conn_menu(c, m->has ? m->data : NULL);
    }
    rmsg_done(m);
}

static void home_placed(server_t *home, void *ud)
{
    rmsg_t *m = ud;
    conn_t *c = linked_peer(m);
    (void)home;
    if (c && !c->closing) {
        conn_set_place(c, (conn_place_t)m->what);
        screen_free(c->scr); /* the game's frames come whole from its loop */
        screen_free(c->shown);
        c->scr = c->shown = NULL;
        c->shown_valid = false;
    }
    rmsg_done(m);
}

/* ---- the game's loop: the stand-in ------------------------------------------------- */

static relay_t *relay_of(const conn_t *r)
{
    return (relay_t *)r;
}

static void game_unref(server_t *k, void *ud)
{
    rmsg_t *m = ud;
    (void)k;
    conn_unref(&m->rl->conn);
    rmsg_done(m);
}

/* The stand-in is done: closing now, released once the calls up the stack
 * (and any request holding it) let go. */
static void let_go(conn_t *r)
{
    if (r->closing)
        return;
    r->closing = true;
    conn_ref(r);
    if (!rmsg_post(r->srv, game_unref, rmsg_new(relay_of(r), NULL, 0)))
        conn_unref(r); /* the loop is stopping: nothing above still holds it */
}

void relay_stop(conn_t *r)
{
    if (r->sess)
        session_detach(r, NULL);
    let_go(r);
}

/* Frames go home in a post each; shared ones keep their id there, so the
 * gateway at home queues one copy for every conn they reach. */
static void op_write_shared(conn_t *r, const void *data, size_t len, bool text, uint64_t id)
{
    relay_t *rl = relay_of(r);
    rmsg_t *m = rmsg_new(rl, data, len);
    if (!m) {
        r->need_key = true;
        return;
    }
    m->text = text;
    m->id = id;
    atomic_fetch_add(&rl->inflight, len);
    if (!rmsg_post(rl->home, home_out, m))
        atomic_fetch_sub(&rl->inflight, len);
}

static void op_write(conn_t *r, const void *data, size_t len, bool text)
{
    op_write_shared(r, data, len, text, 0);
}

static bool op_writable(const conn_t *r)
{
    relay_t *rl = relay_of(r);
    if (atomic_load(&rl->home_ok) && atomic_load(&rl->inflight) < (size_t)r->srv->cfg.outq_max)
        return true;
    if (!atomic_exchange(&rl->owed, true))
        rmsg_post(rl->home, home_want, rmsg_new(rl, NULL, 0));
    return false;
}

static void op_close(conn_t *r, const char *why)
{
    relay_t *rl = relay_of(r);
    if (r->closing)
        return;
    rmsg_post(rl->home, home_close, rmsg_new(rl, why, why ? strlen(why) : 0));
    relay_stop(r);
}

static void op_leave(conn_t *r, const char *msg)
{
    relay_menu(r, RELAY_ENTER, msg);
}

static void op_release(conn_t *r)
{
    conn_fini(r);
    calls_drop(relay_of(r));
    relay_put(relay_of(r));
}

static const conn_ops_t relay_term_ops = {
    .browser = false,
    .write = op_write,
    .writable = op_writable,
    .close = op_close,
    .leave = NULL,
    .release = op_release,
    .relay = true,
};
static const conn_ops_t relay_web_ops = {
    .browser = true,
    .write = op_write,
    .write_shared = op_write_shared,
    .writable = op_writable,
    .close = op_close,
    .leave = op_leave,
    .release = op_release,
    .relay = true,
};

void relay_menu(conn_t *r, relay_menu_t what, const char *msg)
{
    if (what == RELAY_OTHER || r->closing)
        return;
    rmsg_t *m = rmsg_new(relay_of(r), msg, msg ? strlen(msg) : 0);
    if (m)
        m->what = what;
    rmsg_post(relay_of(r)->home, home_menu, m);
    if (what != RELAY_TOO_SMALL)
        let_go(r);
}

/* A relay_to_home call, at home: to the peer while it is linked and open. */
static void home_call(server_t *home, void *ud)
{
    rmsg_t *m = ud;
    conn_t *c = linked_peer(m);
    (void)home;
    if (c && !c->closing)
        m->fn(c, m->data, m->len, m->what);
    rmsg_done(m);
}

void relay_to_home(conn_t *r, relay_fn fn, const char *data, size_t len, int arg)
{
    rmsg_t *m = rmsg_new(relay_of(r), data, len);
    if (m) {
        m->fn = fn;
        m->what = arg;
    }
    rmsg_post(relay_of(r)->home, home_call, m);
}

void relay_placed(conn_t *r)
{
    if (r->place != CONN_PLAY && r->place != CONN_WATCH)
        return;
    rmsg_t *m = rmsg_new(relay_of(r), NULL, 0);
    if (m)
        m->what = r->place;
    rmsg_post(relay_of(r)->home, home_placed, m);
}

static void game_open(server_t *k, void *ud)
{
    rmsg_t *m = ud;
    relay_t *rl = m->rl;
    conn_t *r = &rl->conn;
    if (conn_init(r, k, rl->browser ? &relay_web_ops : &relay_term_ops)) {
        relay_menu(r, RELAY_ENTER, "Out of memory.");
        return rmsg_done(m);
    }
    r->id = m->conn_id;
    conn_set_ip(r, m->ip);
    conn_set_user(r, m->user_id, m->user, ""); /* Warren's games only: no hosted one */
    view_apply(r, &m->view);
    if (!m->game_id) {
        session_play(r);
        return rmsg_done(m);
    }
    session_t *s = session_find_game(k, m->game_id);
    if (!s || s->ended)
        conn_menu(r, "That game has ended.");
    else
        session_watch(r, s);
    rmsg_done(m);
}

static void game_key(server_t *k, void *ud)
{
    rmsg_t *m = ud;
    conn_t *r = &m->rl->conn;
    (void)k;
    if (!r->closing) /* held while its game loads (conn_play_held); a turn's share */
        conn_key(r, m->key);
    rmsg_done(m);
}

static void view_now(conn_t *r, const view_t *v)
{
    view_apply(r, v);
    r->shown_valid = false;
    if (r->sess)
        session_resized(r);
}

/* A view posted after keys the stand-in keeps for a later turn
 * (readturn.h): applied after them, so they are drawn as they were typed.
 * Several such: each applies the last posted. */
static void mark_view(conn_t *r, const readmark_t *mk)
{
    (void)mk;
    if (!r->closing)
        view_now(r, &relay_of(r)->view_next);
}

static void game_view(server_t *k, void *ud)
{
    rmsg_t *m = ud;
    conn_t *r = &m->rl->conn;
    (void)k;
    if (!r->closing) {
        m->rl->view_next = m->view;
        if (!readturn_keep_mark(r, &(readmark_t){.run = mark_view}))
            view_now(r, &m->view);
    }
    rmsg_done(m);
}

static void game_drained(server_t *k, void *ud)
{
    rmsg_t *m = ud;
    conn_t *r = &m->rl->conn;
    (void)k;
    if (!r->closing && r->sess && r->need_key)
        session_drained(r);
    rmsg_done(m);
}

/* The player left after keys the stand-in keeps for a later turn: they
 * were sent, so they are played first (what they draw goes nowhere). */
static void mark_detach(conn_t *r, const readmark_t *mk)
{
    (void)mk;
    if (!r->closing)
        relay_stop(r);
}

static void game_detach(server_t *k, void *ud)
{
    rmsg_t *m = ud;
    conn_t *r = &m->rl->conn;
    (void)k;
    if (!r->closing && !readturn_keep_mark(r, &(readmark_t){.run = mark_detach}))
        relay_stop(r);
    rmsg_done(m);
}

/* A relay_to_game call posted after keys the stand-in keeps for a later
 * turn (readturn.h): made after them, in the order posted (a chat line
 * typed after keys is said after what they draw). */
static void mark_call(conn_t *r, const readmark_t *mk)
{
    relay_t *rl = relay_of(r);
    rmsg_t *m = rl->calls;
    (void)mk;
    if (!m)
        return;
    rl->calls = m->next;
    if (!rl->calls)
        rl->calls_end = &rl->calls;
    if (!r->closing)
        m->fn(r, m->data, m->len, m->what);
    rmsg_done(m);
}

/* A relay_to_game call, on the game's loop: to the stand-in while it is open. */
static void game_call(server_t *k, void *ud)
{
    rmsg_t *m = ud;
    relay_t *rl = m->rl;
    conn_t *r = &rl->conn;
    (void)k;
    if (!r->closing && readturn_keep_mark(r, &(readmark_t){.run = mark_call})) {
        m->next = NULL;
        *rl->calls_end = m;
        rl->calls_end = &m->next;
        return;
    }
    if (!r->closing)
        m->fn(r, m->data, m->len, m->what);
    rmsg_done(m);
}

/* ---- home: the calls ----------------------------------------------------------------- */

void relay_start(conn_t *c, server_t *k, int64_t game_id)
{
    relay_t *rl = calloc(1, sizeof *rl);
    rmsg_t *m = rl ? rmsg_new(rl, NULL, 0) : NULL;
    if (!m) {
        free(rl);
        conn_menu(c, "Out of memory.");
        return;
    }
    rl->home = c->srv;
    rl->game = k;
    rl->peer = c;
    rl->browser = c->ops->browser;
    rl->calls_end = &rl->calls;
    atomic_init(&rl->refs, 2); /* the peer, the stand-in */
    atomic_init(&rl->home_ok, conn_writable(c));
    m->game_id = game_id;
    m->conn_id = c->id;
    m->user_id = c->user_id;
    memcpy(m->user, c->user, sizeof m->user);
    memcpy(m->ip, c->ip, sizeof m->ip);
    view_of_conn(c, &m->view);
    c->relay = rl;
    if (!rmsg_post(k, game_open, m)) {
        c->relay = NULL;
        free(rl);
        conn_menu(c, "The server is shutting down.");
        return;
    }
    if (c->ops->browser) /* a page has no menu: its game's first frame is next */
        conn_set_place(c, CONN_WAIT);
    else
        conn_wait(c);
}

server_t *relay_game_loop(const conn_t *c)
{
    return c->relay->game;
}

const session_t *relay_session(const conn_t *c)
{
    const conn_t *r = &c->relay->conn;
    return r->closing ? NULL : r->sess;
}

void relay_key(conn_t *c, key_event_t k)
{
    rmsg_t *m = rmsg_new(c->relay, NULL, 0);
    if (m)
        m->key = k;
    rmsg_post(c->relay->game, game_key, m);
}

void relay_resized(conn_t *c)
{
    rmsg_t *m = rmsg_new(c->relay, NULL, 0);
    if (m)
        view_of_conn(c, &m->view);
    rmsg_post(c->relay->game, game_view, m);
}

void relay_drained(conn_t *c)
{
    c->need_key = false; /* the stand-in's keyframe comes next */
    atomic_store(&c->relay->home_ok, true);
    pay_drain(c->relay);
}

void relay_detach(conn_t *c, const char *why)
{
    relay_t *rl = c->relay;
    rmsg_post(rl->game, game_detach, rmsg_new(rl, NULL, 0));
    unlink_peer(c);
    if (why && !c->closing)
        conn_menu(c, why);
}

void relay_to_game(conn_t *c, relay_fn fn, const char *data, size_t len, int arg)
{
    rmsg_t *m = rmsg_new(c->relay, data, len);
    if (m) {
        m->fn = fn;
        m->what = arg;
    }
    rmsg_post(c->relay->game, game_call, m);
}
