/* telnet — the telnet gateway: listeners on TCP and the Unix socket,
 * libtelnet negotiation, terminal size and type, and the bounded output
 * queue. Bytes become key events here and nothing else; what keys mean is
 * the menu's and the session's business (conn_key routes them).
 *
 * A telnet conn is a tconn_t: the shared conn_t (conn.h) first, then the
 * transport's own state, which no other file sees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "telnet.h"
#include "addrkey.h"
#include "addrrate.h"
#include "budget.h"
#include "drain.h"
#include "hooks.h"
#include "input.h"
#include "listener.h"
#include "log.h"
#include "logcap.h"
#include "menu.h"
#include "outhold.h"
#include "proxyproto.h"
#include "proxywait.h"
#include "readturn.h"
#include "server.h"
#include "session.h"
#include "shard.h"
#include "watch.h"

#define ESC_DELAY_MS 50
/* How long a Unix socket's client has to say what address it speaks for
 * (NEW-ENVIRON IS, or a terminal type without offering NEW-ENVIRON): then
 * it is told and closed, never let on as "local" (telnetgw_tick). */
#define ENV_WAIT_MS  10000

/* Lines the other end can make at will, under the log's cap (logcap.h):
 * a connection's life a few times per address in a window, each kind of
 * bad or refused one once. */
static const logcap_kind_t SAY_CONNECT = {"connect", 5, 200},
                           SAY_CONNECT_UNIX = {"connect via unix", 200, 200},
                           SAY_DISCONNECT = {"disconnect", 5, 200},
                           SAY_REMOTE_ADDR = {"remote-addr", 5, 200}, SAY_ERROR = {"telnet error"},
                           SAY_PROXY = {"telnet PROXY header from an untrusted address"},
                           SAY_REFUSED[] = {{"refused telnet: per-address limit"},
                                            {"refused telnet: banned"},
                                            {"refused telnet: server full"},
                                            {"refused telnet: draining"},
                                            {"refused telnet: connection rate"}};
static const char *const REFUSED_WHY[] = {"per-address limit", "banned", "server full", "draining",
                                          "connection rate"};

/* Why a connection is turned away: the index of SAY_REFUSED, REFUSED_WHY
 * and REFUSED_TOLD. */
typedef enum { REFUSE_ADDR, REFUSE_BANNED, REFUSE_FULL, REFUSE_DRAINING, REFUSE_RATE } refusal_t;

/* The refusal a budget's answer (budget.h) means; -1 for BUDGET_OK. */
static int refusal_of(int budget_ret)
{
    return budget_ret == BUDGET_OK       ? -1
           : budget_ret == BUDGET_ADDR   ? REFUSE_ADDR
           : budget_ret == BUDGET_BANNED ? REFUSE_BANNED
                                         : REFUSE_FULL;
}

/* What a connection turned away is told, by reason (REFUSED_WHY's order;
 * draining says the drain's own message). */
static const char *const REFUSED_TOLD[] = {
    "Too many connections from your address.\r\n", "Connections from your address are refused.\r\n",
    "The server is full. Please try again later.\r\n", NULL,
    "Too many connections from your address in a short time. Please try again in a "
    "moment.\r\n"};

/* A conn handed to another loop (loops = N) goes through these states. */
typedef enum {
    MV_NONE,    /* reading on its loop */
    MV_QUIET,   /* reading stopped; waits for its writes and its requests to end */
    MV_CLOSING, /* its socket duplicated, its handles closing here */
    MV_CLOSED,  /* handles closed; posted once no request holds it */
} mv_state_t;

typedef struct {
    conn_t c; /* first: the ops get a conn_t * */
    union {
        uv_handle_t handle;
        uv_stream_t stream;
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } io;
    uv_timer_t esc_timer;
    uv_timer_t size_timer; /* a held size change is drawn (size_changed) */
    int handles_open;      /* libuv handles not yet closed */
    bool is_unix, env_asked;
    /* A Unix socket's keys wait until its client said whether it has an
     * address (NEW-ENVIRON IS; or its terminal type, having not offered
     * NEW-ENVIRON): keys typed ahead must not count against "local" (a
     * login's throttle) nor pass a ban on their address. */
    bool env_wait;
    uint64_t env_since_ms;   /* when the wait began (ENV_WAIT_MS) */
    unsigned char held[256]; /* those keys; past this, dropped */
    size_t nheld;
    bool read_any;    /* its first bytes came (checked for a PROXY header) */
    bool size_held;   /* raw_w, raw_h or the profile changed, not drawn yet */
    bool redraw_held; /* ... and the screen is drawn whole even at the same size */
    /* Its peer is gone (a write failed) while its keys wait for a later
     * turn (readturn.h): they are played, their output dropped, then it
     * closes. */
    bool gone;
    char term_kept[40]; /* a terminal type that waits behind kept keys (on_ttype) */
    telnet_t *tn;
    keydec_t kd;
    size_t outq; /* bytes handed to uv_write, not yet written */
    uint64_t last_input_ms;
    budget_slot_t slot; /* its place in the connection budget (server_t.budget) */
    list_t eof_node;    /* on telnetgw.eofs while its end waits (close_soon) */
    const char *eof_why;
    /* on its way to another loop (op_move) */
    mv_state_t mv;
    server_t *mv_to;
    conn_dest_t mv_dest;
    int mv_fd; /* the socket, duplicated: the handles' own closes with them */
} tconn_t;

/* The listeners (server_t.telnet). */
struct telnetgw {
    listener_t *tcp, *unix_sock;
    proxywait_t *proxied; /* proxy-from's sockets until their PROXY header came */
    list_t eofs;          /* tconn_t.eof_node: ended by the peer, not closed yet */
    uv_idle_t eof_idle;   /* closes them a few per loop turn */
    /* What a read reads into: a read's bytes are handled before the loop
     * reads again, so one buffer a loop serves every conn (in use: a
     * read's own from malloc) */
    bool rbuf_busy;
    char rbuf[4096];
};

typedef struct {
    uv_write_t req;
    size_t len;
    char data[];
} wreq_t;

/* Every conn of telnet_ops is a tconn_t, whose first member it is. */
static tconn_t *tconn_of(const conn_t *c)
{
    return (tconn_t *)c;
}

/* Its handles on the loop on, and its place on that loop's conns. */
static void open_handles(tconn_t *t, server_t *on)
{
    if (t->is_unix)
        uv_pipe_init(on->loop, &t->io.pipe, 0);
    else
        uv_tcp_init(on->loop, &t->io.tcp);
    uv_timer_init(on->loop, &t->esc_timer);
    uv_timer_init(on->loop, &t->size_timer);
    t->io.handle.data = t;
    t->esc_timer.data = t;
    t->size_timer.data = t;
    t->handles_open = 3;
    list_push_front(&on->conns, &t->c.node);
    on->nconns++;
}

/* ---- lifetime ------------------------------------------------------------------- */

static void tconn_free(tconn_t *t)
{
    if (list_linked(&t->c.node)) {
        list_remove(&t->c.node);
        t->c.srv->nconns--;
    }
    if (t->mv >= MV_CLOSING)
        close(t->mv_fd);
    budget_release(t->c.srv->budget, &t->slot);
    if (t->tn)
        telnet_free(t->tn);
    conn_fini(&t->c);
    free(t);
}

static void move_on(tconn_t *t);

static void on_handle_closed(uv_handle_t *h)
{
    tconn_t *t = h->data;
    if (--t->handles_open != 0)
        return;
    if (t->mv == MV_CLOSING && !t->c.closing) {
        t->mv = MV_CLOSED;
        move_on(t);
    } else if (t->c.refs == 0) {
        tconn_free(t);
    }
}

static void close_handles(tconn_t *t)
{
    if (t->mv >= MV_CLOSING) /* closing already, for the move */
        return;
    uv_close((uv_handle_t *)&t->esc_timer, on_handle_closed);
    uv_close((uv_handle_t *)&t->size_timer, on_handle_closed);
    uv_close(&t->io.handle, on_handle_closed);
}

static void on_mark_close(conn_t *c, const readmark_t *m)
{
    conn_close(c, m->why);
}

/* A close for why that waits behind keys kept for a later turn (they
 * were read: they count as sent); false: none is kept, close now. */
static bool close_kept(tconn_t *t, const char *why)
{
    return readturn_keep_mark(&t->c, &(readmark_t){.run = on_mark_close, .why = why});
}

/* The peer is gone (a write failed): closed now, or once its kept keys
 * are played, their output dropped. */
static void peer_ended(tconn_t *t, const char *why)
{
    if (close_kept(t, why))
        t->gone = true;
    else
        conn_close(&t->c, why);
}

static void op_close(conn_t *c, const char *why)
{
    if (c->closing)
        return;
    outhold_flush(c->srv); /* what a round wrote to it goes before the close */
    if (c->closing)
        return; /* that write failed and closed it */
    c->closing = true;
    logcap_say_user(c->srv->strangers, now_ms(c->srv), LOG_INFO, &SAY_DISCONNECT, c->key, c->user,
                    "disconnect conn=%llu ip=%s user=%s reason=%s", (unsigned long long)c->id,
                    c->ip, c->user[0] ? c->user : "-", why);
    if (conn_in_game(c))
        conn_detach(c, NULL);
    close_handles(tconn_of(c));
}

static void op_release(conn_t *c)
{
    tconn_t *t = tconn_of(c);
    if (t->handles_open == 0)
        tconn_free(t);
}

static void op_settled(conn_t *c)
{
    tconn_t *t = tconn_of(c);
    if (t->mv != MV_NONE)
        move_on(t);
}

/* ---- output ------------------------------------------------------------------------ */

static bool op_writable(const conn_t *c)
{
    const tconn_t *t = tconn_of(c);
    return !c->closing && t->mv < MV_CLOSING && t->outq < (size_t)c->srv->cfg.outq_max;
}

static void on_written(uv_write_t *req, int status)
{
    wreq_t *w = (wreq_t *)req;
    tconn_t *t = req->data;
    conn_t *c = &t->c;
    t->outq -= w->len;
    free(w);
    if (status < 0 && !c->closing)
        peer_ended(t, uv_strerror(status));
    else if (!c->closing && t->mv == MV_NONE && t->outq == 0 && c->need_key)
        conn_drained(c);
    conn_unref(c);
}

/* Raw bytes to the socket (already telnet-encoded). Most frames fit in the
 * socket buffer: they are written straight from the caller's buffer and only
 * what the kernel did not take is copied into a queued write. */
static void send_now(tconn_t *t, const char *data, size_t len)
{
    conn_t *c = &t->c;
    /* moving: its next loop redraws; gone: nobody reads it any more */
    if (c->closing || len == 0 || t->gone || t->mv >= MV_CLOSING)
        return;
    if (t->outq == 0) {
        uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
        int n = uv_try_write(&t->io.stream, &b, 1);
        if (n == (int)len)
            return;
        if (n > 0) {
            data += n;
            len -= (size_t)n;
        } else if (n != UV_EAGAIN && n != UV_ENOSYS) {
            peer_ended(t, uv_strerror(n));
            return;
        }
    }
    wreq_t *w = malloc(sizeof *w + len);
    if (!w) {
        conn_close(c, "out of memory");
        return;
    }
    memcpy(w->data, data, len);
    w->len = len;
    w->req.data = t;
    uv_buf_t b = uv_buf_init(w->data, (unsigned)len);
    int ret = uv_write(&w->req, &t->io.stream, &b, 1, on_written);
    if (ret < 0) {
        free(w);
        peer_ended(t, uv_strerror(ret));
        return;
    }
    t->outq += w->len;
    conn_ref(c);
}

/* What a round of the journal's answers writes is held to its end and
 * written with the round's other frames (outhold.h); the rest goes now. */
static void send_raw(tconn_t *t, const char *data, size_t len)
{
    conn_t *c = &t->c;
    if (c->closing || len == 0 || t->mv >= MV_CLOSING)
        return;
    if (!outhold_add(c, data, len))
        send_now(t, data, len);
}

static void op_send_held(conn_t *c, const void *data, size_t len)
{
    send_now(tconn_of(c), data, len);
}

/* A terminal has no JSON messages: text writes are dropped. */
static void op_write(conn_t *c, const void *data, size_t len, bool text)
{
    tconn_t *t = tconn_of(c);
    if (!text && t->tn)
        telnet_send(t->tn, data, len); /* escapes IAC; comes back as TELNET_EV_SEND */
}

static void op_move(conn_t *c, server_t *to, const conn_dest_t *d);
static void op_pause(conn_t *c, bool stop);

static const conn_ops_t telnet_ops = {.write = op_write,
                                      .writable = op_writable,
                                      .send_held = op_send_held,
                                      .close = op_close,
                                      .release = op_release,
                                      .settled = op_settled,
                                      .move = op_move,
                                      .pause = op_pause};

/* ---- what the client tells us --------------------------------------------------------- */

static bool in_game(const conn_t *c)
{
    return c->place == CONN_PLAY || c->place == CONN_WATCH;
}

/* The size the client said (raw_w, raw_h), as drawn: 80x24 when it said
 * none, at most TERM_MAX_*. */
static void drawn_size(const conn_t *c, int *w, int *h)
{
    *w = c->raw_w > 0 ? c->raw_w : TERM_MIN_W;
    *h = c->raw_h > 0 ? c->raw_h : TERM_MIN_H;
    if (*w > TERM_MAX_W)
        *w = TERM_MAX_W;
    if (*h > TERM_MAX_H)
        *h = TERM_MAX_H;
}

/* Draws the held size (and profile) now. */
static void apply_size(tconn_t *t)
{
    conn_t *c = &t->c;
    bool redraw = t->redraw_held;
    int w, h;
    t->size_held = t->redraw_held = false;
    drawn_size(c, &w, &h); /* below its game's least size: conn_small tells it */
    conn_size_fit(c, &w, &h);
    if (c->w == w && c->h == h && !redraw)
        return;
    c->w = w;
    c->h = h;
    conn_resized(c);
}

static void on_size_timer(uv_timer_t *timer);

/* The client's size or terminal type changed (redraw: the screen is drawn
 * whole even at the same size): drawn now, or held until CONN_RESIZE_MS
 * after the last one drawn, the latest winning (conn_resize_wait). A conn
 * on its way to another loop draws it once there. */
static void size_changed(tconn_t *t, bool redraw)
{
    conn_t *c = &t->c;
    int w, h;
    drawn_size(c, &w, &h);
    t->redraw_held |= redraw;
    t->size_held = t->redraw_held || w != c->w || h != c->h;
    if (!t->size_held || c->closing || t->mv != MV_NONE ||
        uv_is_active((uv_handle_t *)&t->size_timer))
        return;
    uint64_t wait = conn_resize_wait(c);
    if (wait == 0)
        apply_size(t);
    else
        uv_timer_start(&t->size_timer, on_size_timer, wait, 0);
}

static void on_size_timer(uv_timer_t *timer)
{
    tconn_t *t = timer->data;
    size_changed(t, false);
}

static void on_mark_naws(conn_t *c, const readmark_t *m)
{
    c->raw_w = m->a;
    c->raw_h = m->b;
    size_changed(tconn_of(c), false);
}

/* A size: it waits behind keys kept for a later turn, which are drawn at
 * the size they were typed at. */
static void on_naws(tconn_t *t, const unsigned char *b, size_t n)
{
    readmark_t m = {.run = on_mark_naws};
    if (input_naws(b, n, &m.a, &m.b) == 0 && !readturn_keep_mark(&t->c, &m))
        on_mark_naws(&t->c, &m);
}

static void on_mark_ttype(conn_t *c, const readmark_t *m)
{
    (void)m;
    tconn_t *t = tconn_of(c);
    snprintf(c->term, sizeof c->term, "%s", t->term_kept);
    menu_apply_profile(c);
    /* a new profile means a full redraw in it */
    if (in_game(c))
        size_changed(t, true);
    else
        menu_redraw(c);
}

/* A terminal type: it waits behind keys kept for a later turn, like a
 * size (the latest type said is the one its turn applies). */
static void on_ttype(tconn_t *t, const char *name)
{
    input_term_name(name, t->term_kept, sizeof t->term_kept);
    if (!readturn_keep_mark(&t->c, &(readmark_t){.run = on_mark_ttype}))
        on_mark_ttype(&t->c, NULL);
}

/* The remote address that `warren --ssh` passes on the Unix socket only. */
static void environ_addr(tconn_t *t, const telnet_event_t *ev)
{
    conn_t *c = &t->c;
    for (size_t i = 0; i < ev->environ.size; i++) {
        const struct telnet_environ_t *v = &ev->environ.values[i];
        if (v->var && !strcmp(v->var, "REMOTE_ADDR") && v->value && v->value[0]) {
            char ip[sizeof c->ip];
            if (input_remote_addr(v->value, ip, sizeof ip))
                return;
            conn_set_ip(c, ip);
            logcap_say(c->srv->strangers, now_ms(c->srv), LOG_INFO, &SAY_REMOTE_ADDR, c->key,
                       "remote-addr conn=%llu ip=%s", (unsigned long long)c->id, ip);
            /* the per-address limit and rate apply once the address is known */
            int k = refusal_of(budget_move(c->srv->budget, &t->slot, c->ip, c->key));
            if (k < 0 && addrrate_take(c->srv->pace, c->key, now_ms(c->srv)))
                k = REFUSE_RATE;
            if (k >= 0) {
                conn_write(c, "\r\n", 2);
                conn_write(c, REFUSED_TOLD[k], strlen(REFUSED_TOLD[k]));
                conn_close(c, k == REFUSE_RATE ? "rate" : "limit");
            }
            return;
        }
    }
}

static void on_key(void *ud, key_event_t k)
{
    conn_t *c = ud;
    if (!c->closing)
        conn_key(c, k);
}

static void on_esc_timer(uv_timer_t *timer)
{
    tconn_t *t = timer->data;
    keydec_timeout(&t->kd, on_key, &t->c);
}

static void on_data(tconn_t *t, const char *buf, size_t n)
{
    if (t->env_wait) {
        size_t room = sizeof t->held - t->nheld;
        memcpy(t->held + t->nheld, buf, n < room ? n : room);
        t->nheld += n < room ? n : room;
        return;
    }
    keydec_feed(&t->kd, (const uint8_t *)buf, n, on_key, &t->c);
    if (!t->c.closing && keydec_pending(&t->kd))
        uv_timer_start(&t->esc_timer, on_esc_timer, ESC_DELAY_MS, 0);
}

/* The client has said what address it speaks for: the keys held go on. */
static void env_known(tconn_t *t)
{
    if (!t->env_wait)
        return;
    t->env_wait = false;
    if (!t->c.closing && t->nheld)
        on_data(t, (const char *)t->held, t->nheld);
    memset(t->held, 0, sizeof t->held); /* a password may be among them */
    t->nheld = 0;
}

/* Only the first answer names the address: one that comes later (the
 * client had already said it, or had said it has none) would change it
 * under keys read before it, and no real client sends one. */
static void on_environ(tconn_t *t, const telnet_event_t *ev)
{
    if (!t->is_unix || !t->env_wait || ev->environ.cmd != TELNET_ENVIRON_IS)
        return;
    environ_addr(t, ev);
    env_known(t);
}

static void on_will(tconn_t *t, unsigned char opt)
{
    if (opt == TELNET_TELOPT_TTYPE)
        telnet_ttype_send(t->tn);
    else if (opt == TELNET_TELOPT_NEW_ENVIRON && t->is_unix && !t->env_asked) {
        t->env_asked = true;
        telnet_begin_newenviron(t->tn, TELNET_ENVIRON_SEND);
        telnet_newenviron_value(t->tn, TELNET_ENVIRON_USERVAR, "REMOTE_ADDR");
        telnet_finish_newenviron(t->tn);
    }
}

static void on_telnet(telnet_t *tn, telnet_event_t *ev, void *ud)
{
    tconn_t *t = ud;
    conn_t *c = &t->c;
    (void)tn;
    switch (ev->type) {
    case TELNET_EV_DATA: on_data(t, ev->data.buffer, ev->data.size); break;
    case TELNET_EV_SEND: send_raw(t, ev->data.buffer, ev->data.size); break;
    case TELNET_EV_WILL: on_will(t, ev->neg.telopt); break;
    case TELNET_EV_SUBNEGOTIATION:
        if (ev->sub.telopt == TELNET_TELOPT_NAWS)
            on_naws(t, (const unsigned char *)ev->sub.buffer, ev->sub.size);
        break;
    case TELNET_EV_TTYPE:
        if (ev->ttype.cmd != TELNET_TTYPE_IS)
            break;
        on_ttype(t, ev->ttype.name);
        /* it answered DO NEW-ENVIRON before this (in order): not WILL,
         * so it has no address to give and stays "local" */
        if (!t->env_asked)
            env_known(t);
        break;
    case TELNET_EV_ENVIRON: on_environ(t, ev); break;
    case TELNET_EV_ERROR:
        logcap_say(c->srv->strangers, now_ms(c->srv), LOG_WARN, &SAY_ERROR, c->key,
                   "telnet error conn=%llu ip=%s: %s", (unsigned long long)c->id, c->ip,
                   ev->error.msg);
        if (!close_kept(t, "telnet protocol error"))
            conn_close(c, "telnet protocol error");
        break;
    default: break;
    }
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    (void)hint;
    struct telnetgw *tl = ((tconn_t *)h->data)->c.srv->telnet;
    if (tl && !tl->rbuf_busy) {
        tl->rbuf_busy = true;
        *b = uv_buf_init(tl->rbuf, sizeof tl->rbuf);
        return;
    }
    b->base = malloc(4096);
    b->len = b->base ? 4096 : 0;
}

/* The buffer on_alloc gave (on tl's loop), back once its bytes are
 * handled. */
static void read_done(struct telnetgw *tl, const uv_buf_t *b)
{
    if (tl && b->base == tl->rbuf)
        tl->rbuf_busy = false;
    else
        free(b->base);
}

/* A connection the peer ended waits on eofs and is closed a few per loop
 * turn: each close costs the kernel's TCP teardown, a detach and log
 * lines, and ten thousand ends in one turn (a network cut) would stall
 * every other game for half a second. */
#define CLOSES_PER_TURN 64

static void on_eof_idle(uv_idle_t *h)
{
    struct telnetgw *tl = h->data;
    for (int i = 0; i < CLOSES_PER_TURN; i++) {
        list_t *n = list_pop_front(&tl->eofs);
        if (!n)
            break;
        tconn_t *t = LIST_ITEM(n, tconn_t, eof_node);
        conn_close(&t->c, t->eof_why); /* nothing when closed meanwhile */
        conn_unref(&t->c);
    }
    if (list_empty(&tl->eofs))
        uv_idle_stop(h);
}

static void close_soon(tconn_t *t, const char *why)
{
    struct telnetgw *tl = t->c.srv->telnet;
    if (close_kept(t, why))
        return;
    if (!tl || t->c.srv->stopping || list_linked(&t->eof_node)) {
        conn_close(&t->c, why);
        return;
    }
    uv_read_stop(&t->io.stream);
    t->eof_why = why;
    conn_ref(&t->c);
    list_push_back(&tl->eofs, &t->eof_node);
    uv_idle_start(&tl->eof_idle, on_eof_idle);
}

/* A connection that starts with a PROXY header when its peer is not in
 * proxy-from (or a second header after a balancer's): the header is
 * never believed, the connection is refused with a line saying why. */
static bool proxy_header_refused(tconn_t *t, const char *buf, size_t n)
{
    proxy_client_t pc;
    const char *why;
    if (t->read_any || t->is_unix)
        return false;
    t->read_any = true;
    if (n < 6 || proxy_parse((const uint8_t *)buf, n, &pc, &why) == PROXY_BAD)
        return false;
    const char *m = "\r\nA PROXY header is taken only from a proxy-from address: refused.\r\n";
    logcap_say(t->c.srv->strangers, now_ms(t->c.srv), LOG_WARN, &SAY_PROXY, t->c.key,
               "telnet: PROXY header from ip=%s, not a proxy-from address: refused", t->c.ip);
    conn_write(&t->c, m, strlen(m));
    conn_close(&t->c, "PROXY header from an untrusted address");
    return true;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    tconn_t *t = st->data;
    conn_t *c = &t->c;
    struct telnetgw *tl = c->srv->telnet;
    if (n < 0) {
        read_done(tl, b);
        close_soon(t, n == UV_EOF ? "closed by peer" : uv_strerror((int)n));
        return;
    }
    if (n > 0 && !c->closing && !proxy_header_refused(t, b->base, (size_t)n)) {
        t->last_input_ms = now_ms(c->srv);
        size_t ok = conn_rate_allow(c, (size_t)n);
        conn_ref(c); /* handlers may close c; keep the memory until we return */
        menu_hold(c);
        if (ok > 0)
            telnet_recv(t->tn, b->base, ok);
        menu_release(c);
        conn_unref(c);
    }
    read_done(tl, b); /* tl: c may be gone from this loop by now */
}

/* conn_ops_t.pause: while c's keys wait for a later turn (readturn.h) its
 * bytes stay in the kernel; it reads again unless it ended meanwhile, is
 * on its way to another loop (which starts it once there) or closing. */
static void op_pause(conn_t *c, bool stop)
{
    tconn_t *t = tconn_of(c);
    if (stop)
        uv_read_stop(&t->io.stream);
    else if (!c->closing && t->mv == MV_NONE && !list_linked(&t->eof_node))
        uv_read_start(&t->io.stream, on_alloc, on_read);
}

/* ---- accepting ------------------------------------------------------------------------- */

static void tconn_start(tconn_t *t)
{
    conn_t *c = &t->c;
    t->tn = telnet_init(INPUT_TELOPTS, on_telnet, 0, t);
    if (!t->tn) {
        conn_close(c, "out of memory");
        return;
    }
    keydec_init(&t->kd);
    menu_apply_profile(c); /* no terminal type or options yet: the default */
    t->last_input_ms = now_ms(c->srv);
    telnet_negotiate(t->tn, TELNET_WILL, TELNET_TELOPT_ECHO);
    telnet_negotiate(t->tn, TELNET_WILL, TELNET_TELOPT_SGA);
    telnet_negotiate(t->tn, TELNET_DO, TELNET_TELOPT_SGA);
    telnet_negotiate(t->tn, TELNET_DO, TELNET_TELOPT_NAWS);
    telnet_negotiate(t->tn, TELNET_DO, TELNET_TELOPT_TTYPE);
    telnet_negotiate(t->tn, TELNET_WILL, TELNET_TELOPT_BINARY);
    telnet_negotiate(t->tn, TELNET_DO, TELNET_TELOPT_BINARY);
    if (t->is_unix) {
        t->env_wait = true;
        t->env_since_ms = now_ms(c->srv);
        telnet_negotiate(t->tn, TELNET_DO, TELNET_TELOPT_NEW_ENVIRON);
    }
    uv_read_start(&t->io.stream, on_alloc, on_read);
    apply_size(t);
    conn_menu(c, NULL);
}

/* A new tconn on the server's list with its two handles open, or NULL. */
static tconn_t *tconn_new(server_t *s, bool is_unix)
{
    tconn_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    list_init(&t->eof_node);
    if (conn_init(&t->c, s, &telnet_ops)) {
        conn_fini(&t->c);
        free(t);
        return NULL;
    }
    t->is_unix = is_unix;
    open_handles(t, s);
    return t;
}

/* Turns a connection away before anything is made for it: one line for
 * the person, at most one log line per interval for a flood of them. */
static void refuse(server_t *s, int fd, const char *peer, const char *key, refusal_t k)
{
    const char *m = REFUSED_TOLD[k];
    ssize_t n = send(fd, m, strlen(m), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)n; /* best effort: the socket closes either way */
    close(fd);
    logcap_say(s->strangers, now_ms(s), LOG_INFO, &SAY_REFUSED[k], key,
               "refused telnet ip=%s reason=%s", peer, REFUSED_WHY[k]);
}

/* A drain under way (drain.h): new players go to another node. */
static void refuse_draining(server_t *s, int fd, const char *peer, const char *key)
{
    char m[DRAIN_MESSAGE_MAX + 8];
    snprintf(m, sizeof m, "%s\r\n", drain_of(s)->message);
    ssize_t n = send(fd, m, strlen(m), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)n; /* best effort: the socket closes either way */
    close(fd);
    logcap_say(s->strangers, now_ms(s), LOG_INFO, &SAY_REFUSED[REFUSE_DRAINING], key,
               "refused telnet ip=%s reason=draining", peer);
}

/* A socket from a listener: counted in the budget, or turned away. Unix
 * socket peers count toward the total only until `warren --ssh` names their
 * address (on_environ): at accept they all look "local". */
static void on_socket(server_t *s, int fd, const char *peer, bool is_unix)
{
    budget_slot_t slot;
    char key[ADDRKEY_MAX];
    addrkey(peer, s->cfg.ipv6_prefix, key, sizeof key);
    if (drain_of(s) && !s->stopping)
        return refuse_draining(s, fd, peer, key);
    const char *addr = is_unix ? NULL : peer;
    int k = refusal_of(s->stopping ? BUDGET_FULL : budget_take(s->budget, &slot, addr, key));
    if (k >= 0)
        return refuse(s, fd, peer, key, k);
    /* the request rate (addrrate.h): a Unix socket's once `warren --ssh` names it */
    if (!is_unix && addrrate_take(s->pace, key, now_ms(s))) {
        budget_release(s->budget, &slot);
        return refuse(s, fd, peer, key, REFUSE_RATE);
    }
    tconn_t *t = tconn_new(s, is_unix);
    if (!t) {
        budget_release(s->budget, &slot);
        close(fd);
        return;
    }
    t->slot = slot;
    conn_t *c = &t->c;
    int err = is_unix ? uv_pipe_open(&t->io.pipe, fd) : uv_tcp_open(&t->io.tcp, fd);
    if (err) {
        close(fd);
        c->closing = true;
        close_handles(t);
        return;
    }
    if (!is_unix)
        uv_tcp_nodelay(&t->io.tcp, 1);
    conn_set_ip(c, peer);
    logcap_say(s->strangers, now_ms(s), LOG_INFO, is_unix ? &SAY_CONNECT_UNIX : &SAY_CONNECT,
               c->key, "connect conn=%llu ip=%s via=%s", (unsigned long long)c->id, c->ip,
               is_unix ? "unix" : "tcp");
    tconn_start(t);
}

/* A balancer's socket whose PROXY header came: peer is now the client. */
static void on_proxied_socket(void *ud, int fd, const char *peer)
{
    on_socket(ud, fd, peer, false);
}

static void on_tcp_socket(void *ud, int fd, const char *peer)
{
    server_t *s = ud;
    if (proxywait_from(s->telnet->proxied, peer) && !s->stopping)
        proxywait_add(s->telnet->proxied, fd, peer);
    else
        on_socket(s, fd, peer, false);
}

static void on_unix_socket(void *ud, int fd, const char *peer)
{
    on_socket(ud, fd, peer, true);
}

/* ---- moving to another loop (loops = N) --------------------------------------------------
 *
 * A conn playing or watching a game on another loop is handed to it, so
 * that its reads, writes and telnet protocol run on that loop's thread;
 * it comes home for the menu. Reading stops, its writes and requests end,
 * its socket is duplicated and its handles closed; the other loop opens
 * the duplicate with the conn's telnet and key-decoder state as they were.
 * Keys typed meanwhile wait in the kernel. */

/* On the loop it was handed to (or, when that loop had stopped, back
 * where it was, to end). */
static void on_arrive(server_t *on, void *ud)
{
    tconn_t *t = ud;
    conn_t *c = &t->c;
    bool refused = on != t->mv_to;
    c->srv = on;
    open_handles(t, on);
    t->mv = MV_NONE;
    c->moving = false;
    int err = t->is_unix ? uv_pipe_open(&t->io.pipe, t->mv_fd) : uv_tcp_open(&t->io.tcp, t->mv_fd);
    if (err) {
        close(t->mv_fd);
        log_warn("conn=%llu: cannot open its socket on loop %d: %s", (unsigned long long)c->id,
                 on->shard, uv_strerror(err));
        c->closing = true;
        close_handles(t);
        return;
    }
    if (!t->is_unix)
        uv_tcp_nodelay(&t->io.tcp, 1);
    log_info("handed conn=%llu user=%s loop=%d", (unsigned long long)c->id,
             c->user[0] ? c->user : "-", on->shard);
    if (on->stopping || refused) {
        conn_bye(c);
        return;
    }
    uv_read_start(&t->io.stream, on_alloc, on_read);
    if (keydec_pending(&t->kd))
        uv_timer_start(&t->esc_timer, on_esc_timer, ESC_DELAY_MS, 0);
    conn_ref(c); /* a move it starts goes on once this returns */
    conn_arrived(c, &t->mv_dest);
    if (t->size_held) /* changed on the way */
        size_changed(t, false);
    conn_unref(c);
}

/* The next step of a move, once nothing holds the conn back. */
static void move_on(tconn_t *t)
{
    conn_t *c = &t->c;
    if (c->closing || c->refs != 0)
        return;
    if (t->mv == MV_QUIET && t->outq == 0) {
        uv_os_fd_t fd;
        if (uv_fileno(&t->io.handle, &fd) || (t->mv_fd = dup(fd)) < 0) {
            conn_close(c, "cannot hand over its socket");
            return;
        }
        uv_close((uv_handle_t *)&t->esc_timer, on_handle_closed);
        uv_close((uv_handle_t *)&t->size_timer, on_handle_closed);
        uv_close(&t->io.handle, on_handle_closed);
        t->mv = MV_CLOSING;
    } else if (t->mv == MV_CLOSED) {
        list_remove(&c->node);
        c->srv->nconns--;
        if (shard_post(t->mv_to, on_arrive, t))
            on_arrive(c->srv, t); /* that loop stopped: the conn ends here */
    }
}

/* c goes to d on the loop to; a conn on its way already changes course. */
static void op_move(conn_t *c, server_t *to, const conn_dest_t *d)
{
    tconn_t *t = tconn_of(c);
    if (c->closing)
        return;
    t->mv_to = to;
    t->mv_dest = *d;
    if (t->mv != MV_NONE)
        return;
    t->mv = MV_QUIET;
    c->moving = true;
    watch_free(c->watch); /* a watcher's overlays were its old game's */
    c->watch = NULL;
    uv_read_stop(&t->io.stream);
    uv_timer_stop(&t->esc_timer);
    uv_timer_stop(&t->size_timer); /* a held size is drawn once there (on_arrive) */
    move_on(t);
}

/* ---- listening ---------------------------------------------------------------------------- */

/* A loop's part (home's, and with loops = N each other loop's: hooks.h):
 * ends of the conns handed to it, a few per turn. */
static int telnetgw_attach(server_t *s)
{
    s->telnet = calloc(1, sizeof *s->telnet);
    if (!s->telnet)
        return log_error("telnet: out of memory"), -1;
    list_init(&s->telnet->eofs);
    int err = uv_idle_init(s->loop, &s->telnet->eof_idle);
    if (err) { /* nothing made: telnetgw_stop has nothing to close */
        free(s->telnet);
        s->telnet = NULL;
        return log_error("telnet: %s", uv_strerror(err)), -1;
    }
    s->telnet->eof_idle.data = s->telnet;
    return 0;
}

int telnetgw_listen(server_t *s)
{
    char err[512];
    if (telnetgw_attach(s))
        return -1;
    if (s->cfg.telnet[0]) {
        s->telnet->tcp = listener_tcp(s->loop, "telnet", s->cfg.telnet, s->cfg.listen_backlog,
                                      on_tcp_socket, s, err, sizeof err);
        if (!s->telnet->tcp)
            return log_error("%s", err), -1;
        log_info("listening telnet %s", s->cfg.telnet);
        if (s->cfg.proxy_from[0] &&
            !(s->telnet->proxied = proxywait_new(s->loop, "telnet", s->cfg.proxy_from, s->strangers,
                                                 s->cfg.ipv6_prefix, on_proxied_socket, s)))
            return log_error("telnet: out of memory"), -1;
    }
    if (s->cfg.socket[0]) {
        s->telnet->unix_sock =
            listener_unix(s->loop, "socket", s->cfg.socket, s->cfg.listen_backlog, on_unix_socket,
                          s, err, sizeof err);
        if (!s->telnet->unix_sock)
            return log_error("%s", err), -1;
        log_info("listening socket %s", s->cfg.socket);
    }
    return 0;
}

void telnetgw_stop(server_t *s)
{
    struct telnetgw *tl = s->telnet;
    if (!tl)
        return;
    listener_close(tl->tcp);
    listener_close(tl->unix_sock);
    proxywait_close(tl->proxied);
    tl->tcp = tl->unix_sock = NULL;
    tl->proxied = NULL;
    while (!list_empty(&tl->eofs))
        on_eof_idle(&tl->eof_idle);
    if (!uv_is_closing((uv_handle_t *)&tl->eof_idle))
        uv_close((uv_handle_t *)&tl->eof_idle, NULL);
}

void telnetgw_free(server_t *s)
{
    free(s->telnet);
    s->telnet = NULL;
}

/* A Unix socket's client that never said its address: its held keys
 * would count against "local" (every local player's login throttle) or
 * pass a ban on its address, so it is closed instead. */
static bool env_overdue(tconn_t *t, uint64_t now)
{
    if (!t->env_wait || now <= t->env_since_ms || now - t->env_since_ms < ENV_WAIT_MS)
        return false;
    const char *m = "\r\n\nYour client did not say where it connects from "
                    "(NEW-ENVIRON REMOTE_ADDR) in time: goodbye.\r\n";
    memset(t->held, 0, sizeof t->held); /* a password may be among them */
    t->nheld = 0;
    conn_write(&t->c, m, strlen(m));
    conn_close(&t->c, "no address");
    return true;
}

void telnetgw_tick(server_t *s)
{
    uint64_t now = now_ms(s), idle = (uint64_t)s->cfg.idle_timeout * 1000;
    LIST_EACH (it, &s->menu_conns) { /* terminals: telnet's */
        tconn_t *t = tconn_of(LIST_ITEM(it, conn_t, mnode));
        conn_t *c = &t->c;
        if (c->closing || env_overdue(t, now))
            continue;
        /* last_input_ms may be another loop's reading of the clock (a conn
         * just home from a game's loop): a little ahead of this one's */
        if (now > t->last_input_ms && now - t->last_input_ms > idle) {
            const char *m = "\r\n\nIdle too long: goodbye.\r\n";
            conn_write(c, m, strlen(m));
            conn_close(c, "idle");
        }
    }
}

void telnetgw_hooks(hooks_t *h)
{
    HOOKS_ADD(h, loop_start, telnetgw_attach);
    HOOKS_ADD(h, loop_stop, telnetgw_stop);
    HOOKS_ADD(h, loop_free, telnetgw_free);
}
