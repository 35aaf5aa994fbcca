/* web — HTTP and websockets on the daemon's libuv loop; see web.h.
 *
 * One lws context with a foreign (the daemon's) loop and one explicit vhost
 * that listens on nothing: the door (web_door.c) accepts the sockets and
 * hands them over once it has checked their first head (lws_adopt_socket_vhost).
 * Each connection carries its door ticket as lws's opaque user data, from
 * adoption to LWS_CALLBACK_WSI_DESTROY, where it is released.
 * One protocol handles both plain HTTP (static files from the built client)
 * and the websockets, so clients that ask for no subprotocol land on it. */
#include <uv.h> /* before libwebsockets.h: the libuv prototypes need it */
#include <libwebsockets.h>

#include "addrkey.h"
#include "list.h"
#include "log.h"
#include "logcap.h"
#include "web.h"
#include "web_door.h"
#include "web_json.h"
#include "web_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WEB_OUTQ_DEFAULT  262144
#define WEB_MSG_DEFAULT   65536
#define WEB_RX_KEEP       4096 /* a websocket's message buffer kept between messages */
#define WEB_STOP_GRACE_MS 500
#define WEB_LATER_CHUNK   64     /* connections served by web_send_later per loop turn, */
#define WEB_LATER_SLICE   100000 /* or fewer: a turn's writes stop after this many ns */
#define WEB_LWS_LINES     6      /* lws's lines in a window (logcap.h) */
#define WEB_PING_S        300    /* a websocket that sent nothing this long is pinged, */
#define WEB_HANGUP_S      310    /* and closed when nothing came back by then */
#define WEB_SWEEP_MS      10000  /* how often the quiet ones are looked for */
#define WEB_ANSWER_WAIT_S \
    90                     /* a dynamic request waits this long for its answer (a replay queued) */
#define WEB_SEND_IDLE_S 30 /* then its client takes a piece of it within this, or is cut */
#define WEB_BODY_WAIT_MS \
    30000 /* a POST's body is all in this long after its head (lws's wait is per byte) */
#define WEB_CLOSE_TRY_AGAIN \
    1013 /* RFC 6455 7.4.1; lws 4.1 has no name for it */ /* lws's own error lines: at most a few per interval */

#define WEB_TOO_MANY    429 /* RFC 6585; lws 4.1 has no name for it */
#define WEB_SHARED_KEEP 8   /* shared messages kept for more connections to queue */

/* A message's bytes, one copy however many connections queue it (a
 * frame's encoding shared by its watchers): freed by the last reference.
 * Its websocket header is made once, in the room before the payload
 * (frame_write sends header and payload from there); lws_write writes
 * the same bytes there, and copies what a socket did not take (no
 * extension), so the room can be shared. */
typedef struct web_blob {
    int refs;
    size_t len;
    bool text;
    unsigned char hlen;  /* the header's bytes, before buf + LWS_PRE */
    uint64_t id;         /* the sender's name for these bytes (shared); 0: own */
    unsigned char buf[]; /* LWS_PRE bytes of room, then the payload */
} web_blob_t;

#define WEB_QUEUE_INLINE 4     /* messages a connection queues without an allocation */
#define WEB_QUEUE_MSGS   65536 /* and at most, however small (outq_max bounds the bytes) */

struct web_conn {
    web_t *w;
    struct lws *wsi;
    int fd;       /* wsi's socket: frame_write writes queued frames to it */
    list_t node;  /* web_t.conns */
    list_t lnode; /* web_t.later while it has later sends or is dead (linked = on it) */
    web_kind_t kind;
    void *user;
    bool accepted; /* on_open said yes: on_close is owed */
    bool closing;
    bool refused;          /* web_send refused: on_drained is owed */
    bool ping_due, pinged; /* a ping to write; written, no answer yet */
    bool dead;             /* closing, its socket unwritable: later_drain kills it */
    uint64_t rx_ms;        /* uv_now when the client last sent something */
    int close_code;
    char close_reason[64];
    /* The send queue: a ring of references to messages, oldest at qhead;
     * q is qin until it needs more room. A frame fanned out to thousands
     * of watchers costs each no allocation. */
    web_blob_t **q, *qin[WEB_QUEUE_INLINE];
    unsigned qhead, qn, qcap;
    size_t queued;
    web_blob_t *inflight; /* last written (a reference); lws may still read it */
    unsigned char *rx;    /* the message being received */
    size_t rx_len, rx_cap;
    bool rx_text, rx_over;
};

/* Per-wsi data lws allocates for us (HTTP requests and websockets alike). */
typedef struct web_req web_req_t;

typedef struct {
    web_conn_t *wc;
    web_req_t *req; /* a dynamic HTTP request in progress */
    web_kind_t kind;
    bool refused; /* a websocket over the budget: closed with 1013 once open */
    char name[WEB_WHO_MAX + 1];
} web_pss_t;

/* A dynamic HTTP request: collected, handed to its route's handler,
 * answered by web_reply (maybe later), written from HTTP_WRITEABLE. */
struct web_req {
    web_t *w;
    struct lws *wsi;
    list_t node; /* web_t.reqs */
    uint64_t id;
    bool post, head, dispatched, answered, headers_sent, gzip, https;
    const web_route_t *route;
    char path[256], param[256];
    char argbuf[1024];
    const char *args[WEB_ARGS_MAX];
    int nargs;
    char cookie[160], ip[64], key[ADDRKEY_MAX];
    char referer[160]; /* the path of a same-site Referer, "" when none */
    char *body;
    size_t body_len;
    uint64_t begun_ms; /* when its head came (uv_now): WEB_BODY_WAIT_MS */
    int status;
    char ctype[80];
    char *hdrs; /* "name:\0value\0" pairs, then an empty name */
    size_t hdrs_len;
    unsigned char *out;
    uint64_t out_len, sent;
    const web_source_t *src; /* the body comes from src (out unused) */
    void *src_ud;
};

struct web {
    uv_loop_t *loop;
    struct lws_context *ctx;
    struct lws_vhost *vh;
    web_hooks_t hooks;
    bool hooks_off; /* set in web_free: the daemon's state is gone */
    const web_route_t *routes;
    size_t nroutes;
    char root[PATH_MAX];
    size_t outq_max, msg_max;
    char trusted[256];      /* proxies whose X-Forwarded-* are believed */
    int ipv6_prefix;        /* what per-address limits count as one IPv6 address (addrkey.h) */
    web_door_t *door;       /* accepts; NULL once closed */
    web_ticket_t *adopting; /* the ticket of the socket lws is adopting now */
    list_t conns;           /* web_conn_t */
    int nconns;
    list_t reqs; /* web_req_t */
    uint64_t next_req_id;
    unsigned char *wbuf; /* LWS_PRE + message, for direct writes */
    size_t wbuf_cap;
    list_t later;                        /* web_conn_t.lnode: served by later_run, in order */
    web_blob_t *shared[WEB_SHARED_KEEP]; /* the latest shared messages (references) */
    int shared_next;                     /* the slot the next one takes */
    uv_idle_t later_idle;                /* serves the later list while it is not empty */
    bool later_open, later_on;
    uv_timer_t sweep; /* pings quiet websockets (web_sweep) */
    bool sweep_open;
    bool stopping, destroyed;
    uv_timer_t stop_timer;
    bool stop_timer_open;
    uint64_t stop_deadline;
    struct lws_protocols protocols[2];
    struct lws_protocol_vhost_options pvo_default, pvo;
    struct lws_protocol_vhost_options headers[7];
};

/* ---- small helpers ---------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *fmt, const char *arg)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, arg ? arg : "");
}

static bool file_exists(const char *dir, const char *name)
{
    char p[PATH_MAX];
    struct stat st;
    if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p)
        return false;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *web_default_root(char *out, size_t outlen)
{
    const char *env = getenv("WARREN_WEB_ROOT");
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
        return out;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        /* bin/warrend -> ../client-web/dist; bin/asan/warrend, bin/tools/x ->
         * ../../client-web/dist */
        static const char *ups[] = {"/../client-web/dist", "/../../client-web/dist",
                                    "/../../../client-web/dist"};
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        for (size_t i = 0; i < sizeof ups / sizeof ups[0]; i++) {
            char cand[PATH_MAX + 32];
            snprintf(cand, sizeof cand, "%s%s", exe, ups[i]);
            char real[PATH_MAX];
            if (file_exists(cand, "index.html") && realpath(cand, real)) {
                snprintf(out, outlen, "%s", real);
                return out;
            }
        }
    }
    snprintf(out, outlen, "client-web/dist");
    return out;
}

/* ---- connection list and send queue ------------------------------------------ */

static void conn_unlink(web_conn_t *wc)
{
    list_remove(&wc->lnode);
    list_remove(&wc->node);
    wc->w->nconns--;
}

/* ---- messages' bytes ------------------------------------------------------------ */

/* The header of an unmasked final frame of len bytes (RFC 6455 5.2),
 * as lws writes it: put before end; returns its length. */
static unsigned char frame_header(unsigned char *end, size_t len, bool text)
{
    unsigned char n = len < 126 ? 0 : len < 65536 ? 2 : 8;
    for (unsigned char i = 1; i <= n; i++, len >>= 8)
        end[-i] = (unsigned char)(len & 0xff);
    end[-n - 1] = n == 0 ? (unsigned char)len : n == 2 ? 126 : 127;
    end[-n - 2] = 0x80 | (text ? 1 : 2);
    return n + 2;
}

static web_blob_t *blob_new(const void *data, size_t len, bool text, uint64_t id)
{
    web_blob_t *b = malloc(sizeof *b + LWS_PRE + len);
    if (!b)
        return NULL;
    *b = (web_blob_t){.refs = 1, .len = len, .text = text, .id = id};
    b->hlen = frame_header(b->buf + LWS_PRE, len, text);
    if (len)
        memcpy(b->buf + LWS_PRE, data, len);
    return b;
}

static void blob_unref(web_blob_t *b)
{
    if (b && --b->refs == 0)
        free(b);
}

/* The shared message id (len bytes): kept when it was queued before, else
 * copied once and kept for the next connections. A borrowed pointer (the
 * keep holds it); NULL when out of memory. */
static web_blob_t *shared_blob(web_t *w, const void *data, size_t len, bool text, uint64_t id)
{
    for (int i = 0; i < WEB_SHARED_KEEP; i++) {
        web_blob_t *b = w->shared[i];
        if (b && b->id == id && b->len == len && b->text == text)
            return b;
    }
    web_blob_t *b = blob_new(data, len, text, id);
    if (!b)
        return NULL;
    blob_unref(w->shared[w->shared_next]);
    w->shared[w->shared_next] = b;
    w->shared_next = (w->shared_next + 1) % WEB_SHARED_KEEP;
    return b;
}

static bool queue_empty(const web_conn_t *wc)
{
    return wc->qn == 0;
}

/* The oldest queued message's bytes (the queue's reference), taken off
 * the queue; NULL when it is empty. */
static web_blob_t *queue_pop(web_conn_t *wc)
{
    if (!wc->qn)
        return NULL;
    web_blob_t *b = wc->q[wc->qhead];
    wc->qhead = (wc->qhead + 1) % wc->qcap;
    wc->qn--;
    wc->queued -= b->len;
    return b;
}

/* Room for one more message in the ring (doubled, in order); false when
 * out of memory or at WEB_QUEUE_MSGS. */
static bool queue_room(web_conn_t *wc)
{
    if (wc->qn < wc->qcap)
        return true;
    if (wc->qcap >= WEB_QUEUE_MSGS)
        return false;
    web_blob_t **nq = malloc(sizeof *nq * wc->qcap * 2);
    if (!nq)
        return false;
    for (unsigned i = 0; i < wc->qn; i++)
        nq[i] = wc->q[(wc->qhead + i) % wc->qcap];
    if (wc->q != wc->qin)
        free(wc->q);
    wc->q = nq;
    wc->qhead = 0;
    wc->qcap *= 2;
    return true;
}

static void conn_free(web_conn_t *wc)
{
    for (web_blob_t *b; (b = queue_pop(wc));)
        blob_unref(b);
    if (wc->q != wc->qin)
        free(wc->q);
    blob_unref(wc->inflight);
    free(wc->rx);
    free(wc);
}

/* The direct path: nothing queued and nothing left inside lws from an
 * earlier write, so the socket most likely takes the message at once.
 * Writing now saves two poll changes and a loop turn per message, and the
 * first viewer served (the player) is the first to get its frame. With no
 * extension (no permessage-deflate) lws sends from the buffer or keeps a
 * copy of what the socket did not take, and lws_partial_buffered() says so:
 * then messages wait in our bounded queue. Returns 1 when it did not
 * apply, 0 when written, -1 on a write error. */
static int send_direct(web_conn_t *wc, const void *data, size_t len, bool text)
{
    web_t *w = wc->w;
    if (!queue_empty(wc) || !wc->accepted || lws_partial_buffered(wc->wsi))
        return 1;
    if (LWS_PRE + len > w->wbuf_cap) {
        size_t cap = (LWS_PRE + len) * 2;
        unsigned char *nb = realloc(w->wbuf, cap);
        if (!nb)
            return 1;
        w->wbuf = nb;
        w->wbuf_cap = cap;
    }
    if (len) /* an empty frame (nothing changed) may have no bytes at all */
        memcpy(w->wbuf + LWS_PRE, data, len);
    int n = lws_write(wc->wsi, w->wbuf + LWS_PRE, len, text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY);
    if (n < (int)len) {
        web_close(wc, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "write failed");
        return -1;
    }
    return 0;
}

/* Appends b (a new reference) to the bounded queue. Returns 0 or -1
 * (refused). */
static int queue_push_blob(web_conn_t *wc, web_blob_t *b)
{
    /* An empty queue always takes a message, so a keyframe bigger than the
     * limit can still be delivered. */
    if ((!queue_empty(wc) && wc->queued + b->len > wc->w->outq_max) || !queue_room(wc)) {
        wc->refused = true;
        return -1;
    }
    b->refs++;
    wc->q[(wc->qhead + wc->qn++) % wc->qcap] = b;
    wc->queued += b->len;
    return 0;
}

/* Appends a copy of data to the bounded queue. Returns 0 or -1 (refused). */
static int queue_push(web_conn_t *wc, const void *data, size_t len, bool text)
{
    if (!queue_empty(wc) && wc->queued + len > wc->w->outq_max) {
        wc->refused = true; /* refused before copying */
        return -1;
    }
    web_blob_t *b = blob_new(data, len, text, 0);
    if (!b) {
        wc->refused = true;
        return -1;
    }
    int r = queue_push_blob(wc, b);
    blob_unref(b);
    return r;
}

int web_send(web_conn_t *wc, const void *data, size_t len, bool text)
{
    if (!wc || wc->closing)
        return -1;
    int d = send_direct(wc, data, len, text);
    if (d <= 0)
        return d;
    if (queue_push(wc, data, len, text) < 0)
        return -1;
    lws_callback_on_writable(wc->wsi);
    return 0;
}

/* Sends m's frame, header and payload as made once for every connection
 * that queued it, straight to wc's socket (nothing is buffered in lws:
 * the caller checked); what the socket did not take is handed to lws
 * raw, which copies it and writes it before anything else. Returns 0, or
 * -1 on a write error. */
static int frame_write(web_conn_t *wc, web_blob_t *m)
{
    unsigned char *p = m->buf + LWS_PRE - m->hlen;
    size_t all = m->hlen + m->len;
    ssize_t n = send(wc->fd, p, all, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == (ssize_t)all)
        return 0;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        return -1;
    size_t sent = n > 0 ? (size_t)n : 0;
    return lws_write(wc->wsi, p + sent, all - sent, LWS_WRITE_RAW) < (int)(all - sent) ? -1 : 0;
}

/* Writes wc's queue while the socket takes it; the rest goes on through
 * WRITEABLE callbacks. */
static void later_drain(web_conn_t *wc)
{
    web_t *w = wc->w;
    if (wc->dead) { /* outside lws's callbacks: closed now, ws_closed frees wc */
        lws_set_timeout(wc->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_SYNC);
        return;
    }
    while (!queue_empty(wc) && !wc->closing) {
        if (lws_partial_buffered(wc->wsi)) {
            lws_callback_on_writable(wc->wsi);
            return;
        }
        web_blob_t *m = queue_pop(wc);
        int n = frame_write(wc, m);
        blob_unref(m); /* lws copied what the socket did not take */
        if (n < 0) {
            web_close(wc, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "write failed");
            return;
        }
    }
    if (queue_empty(wc) && wc->refused && !wc->closing) {
        wc->refused = false;
        if (wc->accepted && w->hooks.on_drained && !w->hooks_off)
            w->hooks.on_drained(w->hooks.ctx, wc);
    }
}

static void later_run(uv_idle_t *h)
{
    web_t *w = h->data;
    list_t *n;
    /* A slice of a big fan-out at a time: a player's key read between two
     * waits for at most one slice (a loopback send is 5-10 us). */
    uint64_t end = uv_hrtime() + WEB_LATER_SLICE;
    for (int i = 0; i < WEB_LATER_CHUNK && (n = list_pop_front(&w->later)); i++) {
        later_drain(LIST_ITEM(n, web_conn_t, lnode));
        if (uv_hrtime() >= end)
            break;
    }
    if (list_empty(&w->later) && w->later_on) {
        uv_idle_stop(&w->later_idle);
        w->later_on = false;
    }
}

/* wc has something queued for later_run. */
static void later_add(web_conn_t *wc)
{
    web_t *w = wc->w;
    if (!list_linked(&wc->lnode))
        list_push_back(&w->later, &wc->lnode);
    if (!w->later_open) {
        uv_idle_init(w->loop, &w->later_idle);
        w->later_idle.data = w;
        w->later_open = true;
    }
    if (!w->later_on) {
        uv_idle_start(&w->later_idle, later_run);
        w->later_on = true;
    }
}

int web_send_later(web_conn_t *wc, const void *data, size_t len, bool text)
{
    if (!wc || wc->closing)
        return -1;
    web_t *w = wc->w;
    if (w->stopping || !wc->accepted)
        return web_send(wc, data, len, text);
    if (queue_push(wc, data, len, text) < 0)
        return -1;
    later_add(wc);
    return 0;
}

int web_send_shared(web_conn_t *wc, const void *data, size_t len, bool text, uint64_t id)
{
    if (!wc || wc->closing)
        return -1;
    web_t *w = wc->w;
    if (w->stopping || !wc->accepted || !id)
        return web_send_later(wc, data, len, text);
    if (!queue_empty(wc) && wc->queued + len > w->outq_max) {
        wc->refused = true; /* refused before anything is copied */
        return -1;
    }
    web_blob_t *b = shared_blob(w, data, len, text, id);
    if (!b || queue_push_blob(wc, b) < 0) {
        wc->refused = true;
        return -1;
    }
    later_add(wc);
    return 0;
}

void web_owe_drained(web_conn_t *wc)
{
    if (wc && !wc->closing) {
        wc->refused = true;
        lws_callback_on_writable(wc->wsi);
    }
}

size_t web_queued(const web_conn_t *wc)
{
    return wc ? wc->queued : 0;
}

void web_close(web_conn_t *wc, int code, const char *reason)
{
    if (!wc || wc->closing)
        return;
    wc->closing = true;
    wc->close_code = code;
    snprintf(wc->close_reason, sizeof wc->close_reason, "%s", reason ? reason : "");
    if (lws_callback_on_writable(wc->wsi) == 1 || wc->w->stopping)
        return; /* the close frame goes from WRITEABLE (a stop closes the rest) */
    /* A socket a write found dead (a peer's reset) gets no WRITEABLE, and
     * with its reading paused (keys kept for a later turn) no read sees its
     * end: it stayed open until the hang-up sweep. It is killed in the next
     * turn instead (a timer of lws's set here waits for lws's next event). */
    wc->dead = true;
    later_add(wc);
}

void web_conn_pause(web_conn_t *wc, bool stop)
{
    if (wc->wsi && !wc->closing)
        lws_rx_flow_control(wc->wsi, stop ? 0 : 1);
}

void web_conn_set_user(web_conn_t *wc, void *user)
{
    wc->user = user;
}
void *web_conn_user(const web_conn_t *wc)
{
    return wc->user;
}
web_kind_t web_conn_kind(const web_conn_t *wc)
{
    return wc->kind;
}
int web_port(const web_t *w)
{
    return w ? web_door_port(w->door) : -1;
}

/* Writes the next queued message. Returns -1 to have lws close the socket. */
static int conn_writeable(web_conn_t *wc)
{
    blob_unref(wc->inflight); /* lws is done with it once it asks for more */
    wc->inflight = NULL;
    if (wc->ping_due && !wc->closing) {
        unsigned char ping[LWS_PRE + 1];
        wc->ping_due = false;
        if (lws_write(wc->wsi, ping + LWS_PRE, 0, LWS_WRITE_PING) < 0)
            return -1;
        if (!queue_empty(wc) || wc->refused)
            lws_callback_on_writable(wc->wsi);
        return 0;
    }
    web_blob_t *m = queue_pop(wc);
    if (!m) {
        if (wc->closing) {
            /* On a libuv loop, -1 from WRITEABLE drops the socket without
             * the close frame; closing from a timer callback sends it. */
            lws_close_reason(wc->wsi, (enum lws_close_status)wc->close_code,
                             (unsigned char *)wc->close_reason, strlen(wc->close_reason));
            lws_set_timer_usecs(wc->wsi, 1);
            return 0;
        }
        if (wc->refused) {
            wc->refused = false;
            web_t *w = wc->w;
            if (wc->accepted && w->hooks.on_drained && !w->hooks_off)
                w->hooks.on_drained(w->hooks.ctx, wc);
        }
        return 0;
    }
    int n =
        lws_write(wc->wsi, m->buf + LWS_PRE, m->len, m->text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY);
    wc->inflight = m;
    if (n < (int)m->len)
        return -1;
    if (!queue_empty(wc) || wc->closing || wc->refused)
        lws_callback_on_writable(wc->wsi);
    return 0;
}

/* Once every WEB_SWEEP_MS: a websocket that sent nothing (not even a pong)
 * for WEB_PING_S is pinged, one still silent at WEB_HANGUP_S closed (a
 * spectator's peer that vanished without a word). */
static void web_sweep(uv_timer_t *t)
{
    web_t *w = t->data;
    uint64_t now = uv_now(w->loop);
    LIST_EACH (it, &w->conns) {
        web_conn_t *wc = LIST_ITEM(it, web_conn_t, node);
        uint64_t quiet = now - wc->rx_ms;
        if (wc->closing || !wc->accepted)
            continue;
        if (quiet >= WEB_HANGUP_S * 1000ull) {
            web_close(wc, LWS_CLOSE_STATUS_GOINGAWAY, "no answer to ping");
        } else if (quiet >= WEB_PING_S * 1000ull && !wc->pinged) {
            wc->ping_due = wc->pinged = true;
            lws_callback_on_writable(wc->wsi);
        }
    }
}

static void sweep_start(web_t *w)
{
    if (w->sweep_open || w->stopping)
        return;
    uv_timer_init(w->loop, &w->sweep);
    w->sweep.data = w;
    w->sweep_open = true;
    uv_timer_start(&w->sweep, web_sweep, WEB_SWEEP_MS, WEB_SWEEP_MS);
}

/* Something came from wc's client: it is there. */
static void heard(web_conn_t *wc)
{
    wc->rx_ms = uv_now(wc->w->loop);
    wc->pinged = false;
}

/* ---- websocket setup -------------------------------------------------------- */

/* The websocket row of the upgrade path: its kind, and the name in it.
 * Returns 0 or -1. */
static int ws_route(web_t *w, const char *path, web_pss_t *pss)
{
    const web_route_t *r =
        web_route_find(w->routes, w->nroutes, WEB_WS, path, pss->name, sizeof pss->name);
    if (!r)
        return -1;
    pss->kind = (web_kind_t)r->arg;
    return 0;
}

/* Browsers always send Origin; its host must be the one the page came from,
 * or another site could drive a logged-in player's game. */
static bool origin_ok(struct lws *wsi)
{
    char origin[256], host[256];
    int ol = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);
    if (ol <= 0)
        return true; /* not a browser */
    if (ol >= (int)sizeof origin || lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0)
        return false;
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0)
        return false;
    return web_origin_matches(origin, host);
}

static void get_cookie(struct lws *wsi, char *out, size_t outlen)
{
    char hdr[2048];
    out[0] = 0;
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_COOKIE);
    if (n <= 0 || n >= (int)sizeof hdr ||
        lws_hdr_copy(wsi, hdr, sizeof hdr, WSI_TOKEN_HTTP_COOKIE) < 0)
        return;
    web_cookie_find(hdr, out, outlen);
}

/* The path of the page that sent the request when it is on this site. */
static void get_referer(struct lws *wsi, char *out, size_t outlen)
{
    char v[512], host[256];
    out[0] = 0;
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_REFERER);
    if (n > 0 && n < (int)sizeof v && lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_REFERER) >= 0 &&
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) > 0)
        web_referer_path(v, host, out, outlen);
}

/* The door's ticket of the connection wsi belongs to (NULL only for a
 * socket lws made itself, which this gateway never asks for). */
static web_ticket_t *ticket_of(struct lws *wsi)
{
    return lws_get_opaque_user_data(lws_get_network_wsi(wsi));
}

/* A request's client: its address, the key its per-address limits charge
 * (addrkey.h), and whether a trusted proxy says it came over https. */
typedef struct {
    char ip[64], key[ADDRKEY_MAX];
    bool https;
} client_t;

/* The request's client: the peer the door accepted, or whom a trusted
 * proxy names in X-Forwarded-For. */
static void get_client(web_t *w, struct lws *wsi, client_t *cl)
{
    web_ticket_t *t = ticket_of(wsi);
    cl->https = false;
    if (!t) {
        if (!lws_get_peer_simple(wsi, cl->ip, sizeof cl->ip))
            snprintf(cl->ip, sizeof cl->ip, "?");
    } else {
        char xff[512], proto[32];
        int n = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR);
        bool have = t->proxied && n > 0 && n < (int)sizeof xff &&
                    lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) > 0;
        web_client_addr(t->peer, have ? xff : NULL, w->trusted, cl->ip, sizeof cl->ip);
        cl->https = t->proxied &&
                    lws_hdr_custom_copy(wsi, proto, sizeof proto, "x-forwarded-proto:", 18) > 0 &&
                    web_forwarded_https(proto);
    }
    addrkey(cl->ip, w->ipv6_prefix, cl->key, sizeof cl->key);
}

/* Charges the connection to the request's client. False: over the budget. */
static bool admit(struct lws *wsi, const client_t *cl)
{
    web_ticket_t *t = ticket_of(wsi);
    return !t || web_door_charge(t, cl->ip, cl->key) == 0;
}

/* Spends a token of the client's request rate: 0, or the seconds to wait. */
static unsigned pace(struct lws *wsi, const client_t *cl)
{
    web_ticket_t *t = ticket_of(wsi);
    return t ? web_door_pace(t, cl->ip, cl->key) : 0;
}

/* A size argument of the upgrade's address ("w=" or "h="): 1..1000, else 0. */
static int url_size(struct lws *wsi, const char *name)
{
    char buf[32];
    const char *v = lws_get_urlarg_by_name(wsi, name, buf, sizeof buf);
    char *end;
    long n = v ? strtol(v, &end, 10) : 0;
    return v && *v && !*end && n >= 1 && n <= 1000 ? (int)n : 0;
}

static int ws_established(web_t *w, struct lws *wsi, web_pss_t *pss)
{
    web_conn_t *wc = calloc(1, sizeof *wc);
    if (!wc)
        return -1;
    wc->w = w;
    wc->wsi = wsi;
    wc->fd = lws_get_socket_fd(wsi);
    wc->kind = pss->kind;
    list_init(&wc->lnode);
    wc->q = wc->qin;
    wc->qcap = WEB_QUEUE_INLINE;
    list_push_front(&w->conns, &wc->node);
    w->nconns++;
    pss->wc = wc;
    heard(wc);
    sweep_start(w);
    if (w->stopping) {
        web_close(wc, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
        return 0;
    }
    if (pss->refused) {
        web_close(wc, WEB_CLOSE_TRY_AGAIN, "try again later");
        return 0;
    }
    char cookie[160];
    client_t cl;
    get_cookie(wsi, cookie, sizeof cookie);
    get_client(w, wsi, &cl);
    web_open_t info = {.kind = pss->kind,
                       .name = pss->name,
                       .cookie = cookie,
                       .ip = cl.ip,
                       .key = cl.key,
                       .w = url_size(wsi, "w="),
                       .h = url_size(wsi, "h=")};
    /* without an on_open hook nobody decides who may play: refuse */
    int ret = w->hooks.on_open ? w->hooks.on_open(w->hooks.ctx, wc, &info) : -1;
    if (ret < 0) {
        web_close(wc, LWS_CLOSE_STATUS_POLICY_VIOLATION, "refused");
        return 0;
    }
    wc->accepted = true;
    return 0;
}

static void ws_closed(web_t *w, web_pss_t *pss)
{
    web_conn_t *wc = pss->wc;
    if (!wc)
        return;
    pss->wc = NULL;
    conn_unlink(wc);
    if (wc->accepted && w->hooks.on_close && !w->hooks_off)
        w->hooks.on_close(w->hooks.ctx, wc);
    conn_free(wc);
}

/* ---- websocket input -------------------------------------------------------- */

static int ws_fail(web_conn_t *wc, enum lws_close_status code, const char *why)
{
    lws_close_reason(wc->wsi, code, (unsigned char *)why, strlen(why));
    return -1;
}

/* A complete text message: the envelope is checked here, the rest is the
 * daemon's. Returns -1 to close. */
static int ws_text(web_conn_t *wc)
{
    web_t *w = wc->w;
    const char *s = (const char *)wc->rx;
    size_t n = wc->rx_len;
    if (!web_json_is_object(s, n))
        return ws_fail(wc, LWS_CLOSE_STATUS_INVALID_PAYLOAD, "bad json");
    const char *t;
    size_t tl;
    if (web_json_member(s, n, "t", &t, &tl) < 0 || tl < 3 || t[0] != '"')
        return ws_fail(wc, LWS_CLOSE_STATUS_INVALID_PAYLOAD, "no message type");
    if (web_json_str_is(s, n, "t", "resize")) {
        long cw, ch;
        if (web_json_int(s, n, "w", 1, 1000, &cw) < 0 || web_json_int(s, n, "h", 1, 1000, &ch) < 0)
            return ws_fail(wc, LWS_CLOSE_STATUS_INVALID_PAYLOAD, "bad size");
        if (w->hooks.on_resize)
            w->hooks.on_resize(w->hooks.ctx, wc, (int)cw, (int)ch);
        return 0;
    }
    if (w->hooks.on_message)
        w->hooks.on_message(w->hooks.ctx, wc, s, n);
    return 0;
}

/* A whole message: to the hooks. -1 to close. */
static int ws_message(web_conn_t *wc)
{
    web_t *w = wc->w;
    if (!wc->accepted || wc->closing || w->hooks_off)
        return 0; /* refused or closing: input goes nowhere */
    if (wc->rx_text)
        return ws_text(wc);
    if (w->hooks.on_input && wc->rx_len)
        w->hooks.on_input(w->hooks.ctx, wc, wc->rx, wc->rx_len);
    return 0;
}

/* After a message past WEB_RX_KEEP bytes its buffer goes: kept, one
 * paste of msg_max bytes (or a stranger's, on a lobby socket) held 128 KB
 * for as long as the socket stayed open. Keys and sizes fit in what stays. */
static void rx_shrink(web_conn_t *wc)
{
    if (wc->rx_cap <= WEB_RX_KEEP)
        return;
    free(wc->rx);
    wc->rx = NULL;
    wc->rx_cap = wc->rx_len = 0;
}

static int ws_receive(web_conn_t *wc, const void *in, size_t len)
{
    web_t *w = wc->w;
    heard(wc);
    if (lws_is_first_fragment(wc->wsi)) {
        wc->rx_len = 0;
        wc->rx_text = !lws_frame_is_binary(wc->wsi);
    }
    if (wc->rx_len + len > w->msg_max)
        return ws_fail(wc, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too large");
    if (wc->rx_len + len + 1 > wc->rx_cap) { /* +1: text is handed on NUL-terminated */
        size_t cap = wc->rx_cap ? wc->rx_cap : 256;
        while (cap < wc->rx_len + len + 1)
            cap *= 2;
        unsigned char *nb = realloc(wc->rx, cap);
        if (!nb)
            return ws_fail(wc, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "out of memory");
        wc->rx = nb;
        wc->rx_cap = cap;
    }
    if (len)
        memcpy(wc->rx + wc->rx_len, in, len);
    wc->rx_len += len;
    wc->rx[wc->rx_len] = 0;
    if (!lws_is_final_fragment(wc->wsi) || lws_remaining_packet_payload(wc->wsi))
        return 0;
    int ret = ws_message(wc);
    rx_shrink(wc);
    return ret;
}

/* ---- static files ---------------------------------------------------------------- */

typedef struct {
    const char *ext, *mime;
} web_mime_t;

static const web_mime_t mimes[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".map", "application/json"},
    {".json", "application/json"},
    {".txt", "text/plain; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".woff2", "font/woff2"},
};

static const char *mime_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof mimes / sizeof mimes[0]; i++)
        if (strcmp(dot, mimes[i].ext) == 0)
            return mimes[i].mime;
    return NULL;
}

static bool accepts_gzip(struct lws *wsi)
{
    char ae[256];
    if (lws_hdr_copy(wsi, ae, sizeof ae, WSI_TOKEN_HTTP_ACCEPT_ENCODING) <= 0)
        return false;
    return web_accepts_gzip(ae);
}

/* An answer that closes the connection, like every answer: body (n bytes)
 * of type (HEAD: the headers only), and a Retry-After when retry_s > 0.
 * Returns -1 (the connection ends). */
static int http_answer(struct lws *wsi, unsigned int code, const char *type, const char *body,
                       int n, unsigned retry_s)
{
    unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start,
                                       *end = buf + sizeof buf - 1;
    char retry[16];
    int rn = snprintf(retry, sizeof retry, "%u", retry_s);
    if (lws_add_http_common_headers(wsi, code, type, (lws_filepos_t)n, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        (retry_s && lws_add_http_header_by_name(wsi, (const unsigned char *)"retry-after:",
                                                (const unsigned char *)retry, rn, &p, end)) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"connection:",
                                    (const unsigned char *)"close", 5, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) <= 0) {
        memcpy(start, body, (size_t)n);
        lws_write(wsi, start, (size_t)n, LWS_WRITE_HTTP_FINAL);
    }
    return -1;
}

/* A small HTML page with the status (and text, if any). */
static int http_status(struct lws *wsi, unsigned int code, const char *text)
{
    char body[512];
    int n = snprintf(body, sizeof body, "<!doctype html><title>%u</title><h1>%u</h1>%s%s%s\n", code,
                     code, text ? "<p>" : "", text ? text : "", text ? "</p>" : "");
    if (n < 0 || n >= (int)sizeof body)
        return -1;
    return http_answer(wsi, code, "text/html; charset=utf-8", body, n, 0);
}

/* Over the client's request rate (web_door_pace): 429, a line of text. */
static int http_too_many(struct lws *wsi, unsigned retry_s)
{
    static const char body[] = "Too many requests from your address. Please try again in a "
                               "moment.\n";
    return http_answer(wsi, WEB_TOO_MANY, "text/plain; charset=utf-8", body, (int)sizeof body - 1,
                       retry_s);
}

static int http_error(struct lws *wsi, unsigned int code)
{
    return http_status(wsi, code, NULL);
}

static int http_static(web_t *w, struct lws *wsi, const char *rel, bool immutable)
{
    char file[PATH_MAX];
    bool gz = accepts_gzip(wsi);
    char relgz[170];
    snprintf(relgz, sizeof relgz, "%s.gz", rel);
    if (gz && !file_exists(w->root, relgz))
        gz = false;
    if (!file_exists(w->root, rel))
        return http_error(wsi, HTTP_STATUS_NOT_FOUND);
    if (snprintf(file, sizeof file, "%s/", w->root) >= (int)sizeof file - (int)sizeof relgz)
        return http_error(wsi, HTTP_STATUS_NOT_FOUND);
    strcat(file, gz ? relgz : rel);

    unsigned char hdr[512], *p = hdr, *end = hdr + sizeof hdr;
    const char *cc = immutable ? "public, max-age=31536000, immutable" : "no-cache";
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)cc, (int)strlen(cc), &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"vary:",
                                    (const unsigned char *)"accept-encoding", 15, &p, end) ||
        lws_add_http_header_by_name(
            wsi, (const unsigned char *)"connection:", (const unsigned char *)"close", 5, &p, end))
        return -1;
    if (gz && lws_add_http_header_by_name(wsi, (const unsigned char *)"content-encoding:",
                                          (const unsigned char *)"gzip", 4, &p, end))
        return -1;
    int n = lws_serve_http_file(wsi, file, mime_of(rel), (const char *)hdr, (int)(p - hdr));
    /* the body follows through FILE_COMPLETION; HEAD has none: done */
    return n != 0 || lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0 ? -1 : 0;
}

/* ---- dynamic requests ------------------------------------------------------------ */

static web_req_t *req_find(web_t *w, uint64_t id)
{
    LIST_EACH (it, &w->reqs) {
        web_req_t *r = LIST_ITEM(it, web_req_t, node);
        if (r->id == id)
            return r;
    }
    return NULL;
}

static void req_free(web_req_t *r)
{
    if (r->src && r->src->close)
        r->src->close(r->src_ud);
    list_remove(&r->node);
    free(r->body);
    free(r->hdrs);
    free(r->out);
    free(r);
}

/* Query arguments arrive from lws as decoded "name=value" fragments. */
static void req_collect_args(web_req_t *r, struct lws *wsi)
{
    size_t used = 0;
    for (int i = 0; r->nargs < WEB_ARGS_MAX && used < sizeof r->argbuf; i++) {
        int n = lws_hdr_copy_fragment(wsi, r->argbuf + used, (int)(sizeof r->argbuf - used),
                                      WSI_TOKEN_HTTP_URI_ARGS, i);
        if (n < 0)
            break;
        r->args[r->nargs++] = r->argbuf + used;
        used += (size_t)n + 1;
    }
}

static int req_dispatch(web_req_t *r)
{
    web_t *w = r->w;
    web_http_t info = {.id = r->id,
                       .post = r->post,
                       .route = r->route,
                       .param = r->param,
                       .path = r->path,
                       .nargs = r->nargs,
                       .cookie = r->cookie,
                       .referer = r->referer,
                       .ip = r->ip,
                       .key = r->key,
                       .https = r->https,
                       .body = r->body ? r->body : "",
                       .body_len = r->body_len,
                       .gzip = r->gzip};
    memcpy(info.args, r->args, sizeof info.args);
    r->dispatched = true;
    struct lws *wsi = r->wsi;
    if (w->hooks_off || r->route->handler(w->hooks.ctx, &info) < 0) {
        if (r->answered)
            return 0; /* answered, then said no: the answer stands */
        web_pss_t *pss = lws_wsi_user(wsi);
        if (pss)
            pss->req = NULL;
        req_free(r);
        return http_error(wsi, HTTP_STATUS_NOT_FOUND);
    }
    if (!r->answered) /* lws's own wait is shorter than a queued replay's */
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, WEB_ANSWER_WAIT_S);
    return 0;
}

static int req_begin(web_t *w, struct lws *wsi, web_pss_t *pss, const char *path, unsigned method,
                     const web_route_t *route, const char *param)
{
    bool post = method == WEB_POST;
    web_req_t *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->w = w;
    r->wsi = wsi;
    r->id = ++w->next_req_id;
    r->post = post;
    r->head = method == WEB_HEAD;
    r->route = route;
    web_copy_str(r->path, sizeof r->path, path);
    web_copy_str(r->param, sizeof r->param, param);
    get_cookie(wsi, r->cookie, sizeof r->cookie);
    get_referer(wsi, r->referer, sizeof r->referer);
    client_t cl;
    get_client(w, wsi, &cl);
    memcpy(r->ip, cl.ip, sizeof r->ip);
    memcpy(r->key, cl.key, sizeof r->key);
    r->https = cl.https;
    r->gzip = accepts_gzip(wsi);
    req_collect_args(r, wsi);
    list_push_front(&w->reqs, &r->node);
    pss->req = r;
    if (post) {
        r->begun_ms = uv_now(w->loop);
        r->body = malloc(WEB_BODY_MAX + 1);
        if (!r->body)
            return -1;
        r->body[0] = 0;
        return 0; /* the handler runs once the body is in */
    }
    return req_dispatch(r);
}

/* A body refused with code: the request goes, the connection with it. */
static int req_body_refused(web_req_t *r, unsigned code, const char *text)
{
    web_pss_t *pss = lws_wsi_user(r->wsi);
    struct lws *wsi = r->wsi;
    if (pss)
        pss->req = NULL;
    req_free(r);
    http_status(wsi, code, text);
    return -1;
}

/* A piece of a POST's body: kept, unless the body is over WEB_BODY_MAX or
 * has come too slowly (a client holding its connection a byte at a time). */
static int req_body(web_req_t *r, const void *in, size_t len)
{
    if (r->dispatched || r->body_len + len > WEB_BODY_MAX)
        return req_body_refused(r, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, NULL);
    if (uv_now(r->w->loop) - r->begun_ms > WEB_BODY_WAIT_MS)
        return req_body_refused(r, HTTP_STATUS_REQUEST_TIMEOUT,
                                "The request's body came too slowly; please send it again.");
    if (len)
        memcpy(r->body + r->body_len, in, len);
    r->body_len += len;
    r->body[r->body_len] = 0;
    return 0;
}

/* The answer's head kept for req_write_headers; 0, or -1 out of memory. */
static int req_answer(web_req_t *r, int status, const char *content_type,
                      const char *const *headers)
{
    size_t hl = 0;
    for (int i = 0; headers && headers[i] && headers[i + 1]; i += 2)
        hl += strlen(headers[i]) + strlen(headers[i + 1]) + 2;
    r->hdrs = malloc(hl + 1);
    if (!r->hdrs)
        return -1;
    r->hdrs_len = 0;
    for (int i = 0; headers && headers[i] && headers[i + 1]; i += 2)
        for (int k = 0; k < 2; k++) {
            size_t n = strlen(headers[i + k]) + 1;
            memcpy(r->hdrs + r->hdrs_len, headers[i + k], n);
            r->hdrs_len += n;
        }
    r->hdrs[r->hdrs_len] = 0;
    r->status = status;
    web_copy_str(r->ctype, sizeof r->ctype,
                 content_type ? content_type : "text/html; charset=utf-8");
    r->answered = true;
    lws_callback_on_writable(r->wsi);
    return 0;
}

int web_reply(web_t *w, uint64_t id, int status, const char *content_type,
              const char *const *headers, const void *body, size_t len)
{
    web_req_t *r = w ? req_find(w, id) : NULL;
    if (!r || r->answered || status < 100 || status > 599)
        return -1;
    free(r->out);
    r->out = malloc(len ? len : 1);
    if (!r->out)
        return -1;
    if (len)
        memcpy(r->out, body, len);
    r->out_len = len;
    return req_answer(r, status, content_type, headers);
}

int web_reply_source(web_t *w, uint64_t id, int status, const char *content_type,
                     const char *const *headers, uint64_t len, const web_source_t *src, void *ud)
{
    web_req_t *r = w ? req_find(w, id) : NULL;
    if (!r || r->answered || status < 100 || status > 599 || !src || !src->read)
        return -1;
    free(r->hdrs);
    r->hdrs = NULL;
    if (req_answer(r, status, content_type, headers))
        return -1;
    r->out_len = len;
    r->src = src;
    r->src_ud = ud;
    return 0;
}

/* The client has closed its side or reset the connection, though lws
 * may not have read that yet (a request waiting for its answer is not
 * read from): what nginx calls "client prematurely closed connection". */
static bool peer_gone(struct lws *wsi)
{
    char c;
    int fd = lws_get_socket_fd(wsi);
    if (fd < 0)
        return true;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

bool web_pending(const web_t *w, uint64_t id)
{
    web_req_t *r = w ? req_find((web_t *)w, id) : NULL;
    return r && !r->answered && !peer_gone(r->wsi);
}

static int req_write_headers(web_req_t *r)
{
    unsigned char buf[LWS_PRE + 4096], *start = buf + LWS_PRE, *p = start,
                                       *end = buf + sizeof buf - 1;
    bool has_cc = false;
    if (lws_add_http_common_headers(r->wsi, (unsigned int)r->status, r->ctype, r->out_len, &p, end))
        return -1;
    for (const char *h = r->hdrs; *h;) {
        const char *v = h + strlen(h) + 1;
        has_cc |= strcasecmp(h, "cache-control:") == 0;
        if (lws_add_http_header_by_name(r->wsi, (const unsigned char *)h, (const unsigned char *)v,
                                        (int)strlen(v), &p, end))
            return -1;
        h = v + strlen(v) + 1;
    }
    if (!has_cc && lws_add_http_header_by_name(r->wsi, (const unsigned char *)"cache-control:",
                                               (const unsigned char *)"no-store", 8, &p, end))
        return -1;
    if (lws_add_http_header_by_name(r->wsi, (const unsigned char *)"connection:",
                                    (const unsigned char *)"close", 5, &p, end))
        return -1;
    if (lws_finalize_write_http_header(r->wsi, start, &p, end))
        return -1;
    r->headers_sent = true;
    return 0;
}

/* Writes the answer in pieces (HEAD: the headers only); returns -1 to
 * close, which it does once the answer is out. */
static int req_writeable(web_pss_t *pss)
{
    web_req_t *r = pss->req;
    if (!r || !r->answered)
        return 0;
    if (!r->headers_sent) {
        if (req_write_headers(r) < 0)
            return -1;
        if (r->head)
            r->sent = r->out_len;
        else if (r->out_len) {
            lws_callback_on_writable(r->wsi);
            return 0;
        }
    }
    if (r->sent < r->out_len) {
        unsigned char buf[LWS_PRE + 8192];
        size_t n = r->out_len - r->sent > 8192 ? 8192 : (size_t)(r->out_len - r->sent);
        if (!r->src)
            memcpy(buf + LWS_PRE, r->out + r->sent, n);
        else {
            ssize_t got = r->src->read(r->src_ud, buf + LWS_PRE, n);
            if (got <= 0)
                return -1; /* the body ends short: cut off */
            n = (size_t)got;
        }
        bool last = r->sent + n == r->out_len;
        if (lws_write(r->wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) <
            (int)n)
            return -1;
        r->sent += n;
        lws_set_timeout(r->wsi, PENDING_TIMEOUT_HTTP_CONTENT, WEB_SEND_IDLE_S);
        if (!last) {
            lws_callback_on_writable(r->wsi);
            return 0;
        }
    }
    pss->req = NULL;
    req_free(r);
    return -1;
}

static unsigned request_method(struct lws *wsi)
{
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0)
        return WEB_GET;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0)
        return WEB_HEAD;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0)
        return WEB_POST;
    return 0;
}

/* A file row: the file under the root (a folder's: named by the parameter). */
static int route_file(web_t *w, struct lws *wsi, const web_route_t *r, const char *param)
{
    char rel[160];
    size_t n = strlen(r->file);
    bool folder = n && r->file[n - 1] == '/';
    if (snprintf(rel, sizeof rel, "%s%s", r->file, folder ? param : "") >= (int)sizeof rel ||
        !mime_of(rel))
        return http_error(wsi, HTTP_STATUS_NOT_FOUND);
    return http_static(w, wsi, rel, r->immutable);
}

/* A form posted from another site (login CSRF and the like): its Origin,
 * or without one its Referer, names a host other than the one it was sent
 * to. A client that sends neither is no browser, so no one's victim. */
static bool post_foreign(struct lws *wsi)
{
    char v[512], host[256];
    enum lws_token_indexes h = WSI_TOKEN_ORIGIN;
    int n = lws_hdr_total_length(wsi, h);
    if (n <= 0) {
        h = WSI_TOKEN_HTTP_REFERER;
        n = lws_hdr_total_length(wsi, h);
    }
    if (n <= 0)
        return false;
    if (n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, h) < 0 ||
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0)
        return true;
    return h == WSI_TOKEN_ORIGIN ? !web_origin_matches(v, host) : !web_referer_matches(v, host);
}

static int http_request(web_t *w, struct lws *wsi, web_pss_t *pss, const char *path)
{
    unsigned method = request_method(wsi);
    char param[256];
    client_t cl;
    if (!path)
        return http_error(wsi, HTTP_STATUS_BAD_REQUEST);
    get_client(w, wsi, &cl);
    if (!admit(wsi, &cl))
        return http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE,
                           "The server is busy. Please try again in a moment.");
    unsigned wait = pace(wsi, &cl);
    if (wait)
        return http_too_many(wsi, wait);
    if (!method)
        return http_error(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED);
    if (method == WEB_POST && post_foreign(wsi))
        return http_status(wsi, HTTP_STATUS_FORBIDDEN, "A form from another site was refused.");
    /* HEAD is GET without the body, on every row */
    const web_route_t *r = web_route_find(
        w->routes, w->nroutes, method == WEB_HEAD ? WEB_GET : method, path, param, sizeof param);
    if (r && r->file)
        return route_file(w, wsi, r, param);
    if (r && r->handler && !w->stopping)
        return req_begin(w, wsi, pss, path, method, r, param);
    return http_error(wsi, HTTP_STATUS_NOT_FOUND);
}

/* An upgrade, before lws answers it: one that cannot open is answered
 * here with an HTTP error, as any other request (a path no row takes: 404
 * when well formed, 400 when not, or too long; a game the daemon does not
 * have: 404; a foreign Origin: 403; no proper key: 400). Returns 1 when
 * answered (lws then closes), 0 to let it go on. */
static int ws_confirm(web_t *w, struct lws *wsi, const char *proto)
{
    char path[128], name[WEB_WHO_MAX + 1];
    if (!proto || strcmp(proto, "websocket") != 0) {
        http_error(wsi, HTTP_STATUS_BAD_REQUEST);
        return 1;
    }
    if (w->stopping) {
        http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "The server is shutting down.");
        return 1;
    }
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI);
    unsigned code = HTTP_STATUS_BAD_REQUEST;
    const web_route_t *r = NULL;
    if (n > 0 && n < (int)sizeof path &&
        lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) > 0)
        code = web_ws_refusal(w->routes, w->nroutes, path);
    if (!code)
        r = web_route_find(w->routes, w->nroutes, WEB_WS, path, name, sizeof name);
    if (r && w->hooks.on_upgrade)
        code = (unsigned)w->hooks.on_upgrade(w->hooks.ctx, (web_kind_t)r->arg, name);
    if (!code && !origin_ok(wsi))
        code = HTTP_STATUS_FORBIDDEN;
    if (!code && lws_hdr_total_length(wsi, WSI_TOKEN_KEY) != 24) /* base64 of 16 bytes */
        code = HTTP_STATUS_BAD_REQUEST;
    if (!code)
        return 0;
    const char *why = code == HTTP_STATUS_NOT_FOUND   ? "There is no such websocket here."
                      : code == HTTP_STATUS_FORBIDDEN ? "A page from another site was refused."
                                                      : "That is no proper websocket request.";
    http_status(wsi, code, why);
    return 1;
}

/* A websocket upgrade: refused (no 101) for a path no row takes, a foreign
 * Origin or a bad key (ws_confirm has answered those already); over the budget or the client's request rate it is
 * let through to be closed with 1013 once open, which browsers report,
 * unlike a failed handshake. */
static int ws_filter(web_t *w, struct lws *wsi, web_pss_t *pss)
{
    char path[128];
    client_t cl;
    if (w->stopping || lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) <= 0 ||
        ws_route(w, path, pss) < 0 || !origin_ok(wsi) ||
        lws_hdr_total_length(wsi, WSI_TOKEN_KEY) != 24) /* base64 of 16 bytes */
        return 1;                                       /* refuses the upgrade */
    get_client(w, wsi, &cl);
    pss->refused = !admit(wsi, &cl) || pace(wsi, &cl);
    return 0;
}

/* ---- the lws callback ----------------------------------------------------------- */

static int web_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                        size_t len)
{
    web_t *w = lws_context_user(lws_get_context(wsi));
    web_pss_t *pss = user;
    if (!w)
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    switch (reason) {
    case LWS_CALLBACK_HTTP: return http_request(w, wsi, pss, in);
    case LWS_CALLBACK_HTTP_BODY: return pss && pss->req ? req_body(pss->req, in, len) : 0;
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return pss && pss->req && !pss->req->dispatched ? req_dispatch(pss->req) : 0;
    case LWS_CALLBACK_HTTP_WRITEABLE: return pss ? req_writeable(pss) : 0;
    case LWS_CALLBACK_CLOSED_HTTP:
        if (pss && pss->req) { /* the client left before the answer */
            req_free(pss->req);
            pss->req = NULL;
        }
        break;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION: return -1; /* every answer closes */
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: return ws_confirm(w, wsi, in);
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: return ws_filter(w, wsi, pss);
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        if (w->adopting) { /* web_adopt's socket: its ticket rides along */
            lws_set_opaque_user_data(wsi, w->adopting);
            w->adopting = NULL;
        }
        break;
    case LWS_CALLBACK_WSI_DESTROY: {
        web_ticket_t *t = lws_get_opaque_user_data(wsi);
        if (t) {
            lws_set_opaque_user_data(wsi, NULL);
            web_door_release(t);
        }
        break;
    }
    case LWS_CALLBACK_ESTABLISHED: return ws_established(w, wsi, pss);
    case LWS_CALLBACK_RECEIVE: return pss->wc ? ws_receive(pss->wc, in, len) : -1;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (pss->wc)
            heard(pss->wc);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: return pss->wc ? conn_writeable(pss->wc) : -1;
    case LWS_CALLBACK_TIMER: return pss->wc && pss->wc->closing ? -1 : 0;
    case LWS_CALLBACK_CLOSED: ws_closed(w, pss); return 0;
    default: break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- start and stop ----------------------------------------------------------- */

static const char *const sec_headers[][2] = {
    {"content-security-policy:",
     /* xterm.js sets inline styles: style-src needs 'unsafe-inline' */
     "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
     "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
     "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"},
    {"x-content-type-options:", "nosniff"},
    {"x-frame-options:", "DENY"},
    {"referrer-policy:", "same-origin"},
    {"cross-origin-opener-policy:", "same-origin"},
    {"permissions-policy:", "camera=(), microphone=(), geolocation=()"},
};

static void web_setup_tables(web_t *w)
{
    size_t nh = sizeof sec_headers / sizeof sec_headers[0];
    for (size_t i = 0; i < nh; i++) {
        w->headers[i].next = i + 1 < nh ? &w->headers[i + 1] : NULL;
        w->headers[i].name = sec_headers[i][0];
        w->headers[i].value = sec_headers[i][1];
    }
    w->protocols[0] = (struct lws_protocols){
        .name = "warren",
        .callback = web_callback,
        .per_session_data_size = sizeof(web_pss_t),
        .rx_buffer_size = 4096,
    };
    /* plain websocket clients (no subprotocol) land on "warren" */
    w->pvo_default = (struct lws_protocol_vhost_options){.name = "default", .value = "1"};
    w->pvo = (struct lws_protocol_vhost_options){
        .name = "warren", .options = &w->pvo_default, .value = ""};
}

static int web_resolve_root(web_t *w, const web_config_t *cfg, char *err, size_t errlen)
{
    char given[PATH_MAX];
    if (cfg->root && *cfg->root)
        snprintf(given, sizeof given, "%s", cfg->root);
    else
        web_default_root(given, sizeof given);
    if (!realpath(given, w->root) || !file_exists(w->root, "index.html")) {
        set_err(err, errlen, "web: no built client in %s (run make)", given);
        return -1;
    }
    return 0;
}

/* No validity timer a connection: lws keeps every connection's timers on
 * one sorted list walked from its head at each insert, and the default
 * policy's (a ping after 300 s idle) always lands at the tail, so 10,000
 * websockets cost a walk of 10,000 each time one connects. Handshakes and
 * requests keep their own timeouts; quiet websockets are pinged and cut
 * by web_sweep instead, one walk of them every WEB_SWEEP_MS. */
static const lws_retry_bo_t web_idle_policy = {.secs_since_valid_ping = 0,
                                               .secs_since_valid_hangup = 0};

/* The vhost listens on nothing: the door accepts (CONTEXT_PORT_NO_LISTEN_SERVER
 * is a server vhost for adopted sockets). */
static int web_create_vhost(web_t *w, char *err, size_t errlen)
{
    struct lws_context_creation_info vi;
    memset(&vi, 0, sizeof vi);
    vi.vhost_name = "warren";
    vi.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    vi.protocols = w->protocols;
    vi.pvo = &w->pvo;
    vi.headers = w->headers;
    vi.user = w;
    vi.keepalive_timeout = 30;
    vi.timeout_secs = 20;
    vi.retry_and_idle_policy = &web_idle_policy;
    vi.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    w->vh = lws_create_vhost(w->ctx, &vi);
    if (!w->vh) {
        set_err(err, errlen, "web: %s", "cannot create the libwebsockets vhost");
        return -1;
    }
    return 0;
}

/* The door passes a socket on: lws serves it from now on, its ticket kept
 * as the connection's opaque data (set in NEW_CLIENT_INSTANTIATED, within
 * this call). */
static void web_adopt(void *ud, int fd, web_ticket_t *t)
{
    web_t *w = ud;
    w->adopting = t;
    lws_adopt_socket_vhost(w->vh, fd); /* on failure: fd closed */
    if (w->adopting) {                 /* lws gave up before it made the connection */
        w->adopting = NULL;
        web_door_release(t);
    }
}

/* A web_t with cfg's settings and hooks (no lws yet), or NULL with err. */
static web_t *web_new(uv_loop_t *loop, const web_config_t *cfg, const web_hooks_t *hooks, char *err,
                      size_t errlen)
{
    web_t *w = calloc(1, sizeof *w);
    if (!w) {
        set_err(err, errlen, "web: %s", "out of memory");
        return NULL;
    }
    w->loop = loop;
    list_init(&w->conns);
    list_init(&w->reqs);
    list_init(&w->later);
    if (hooks)
        w->hooks = *hooks;
    w->outq_max = cfg->outq_max ? cfg->outq_max : WEB_OUTQ_DEFAULT;
    w->msg_max = cfg->msg_max ? cfg->msg_max : WEB_MSG_DEFAULT;
    web_copy_str(w->trusted, sizeof w->trusted, cfg->trust_proxy ? cfg->trust_proxy : "");
    w->ipv6_prefix = cfg->ipv6_prefix ? cfg->ipv6_prefix : ADDRKEY_V6_DEFAULT;
    w->routes = cfg->routes;
    w->nroutes = cfg->routes ? cfg->nroutes : 0;
    if (web_resolve_root(w, cfg, err, errlen) < 0) {
        free(w);
        return NULL;
    }
    web_setup_tables(w);
    return w;
}

static int web_create_context(web_t *w, char *err, size_t errlen)
{
    struct lws_context_creation_info ci;
    memset(&ci, 0, sizeof ci);
    void *loops[1] = {w->loop};
    ci.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                 LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    ci.foreign_loops = loops;
    ci.max_http_header_data = 2 * WEB_HEAD_MAX; /* whatever the door lets in fits */
    ci.protocols = w->protocols;
    ci.user = w;
    w->ctx = lws_create_context(&ci);
    if (!w->ctx) {
        set_err(err, errlen, "web: %s", "cannot create the libwebsockets context");
        return -1;
    }
    return 0;
}

/* lws's own error and warning lines go to the daemon's log under its cap
 * (logcap.h: a few per window, the rest counted), so nothing lws repeats
 * can flood it. lws passes no context to its log callback, nor the
 * address a line is about: the cap is this file's, set by web_start. */
static logcap_t *lws_cap;

static void lws_log_line(int level, const char *line)
{
    static const logcap_kind_t say_lws = {"lws", WEB_LWS_LINES, WEB_LWS_LINES};
    struct timespec ts;
    (void)level;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    logcap_say(lws_cap, now, LOG_WARN, &say_lws, "-", "lws: %.*s", (int)strcspn(line, "\n"), line);
}

static web_door_t *web_open_door(web_t *w, const web_config_t *cfg, char *err, size_t errlen)
{
    web_door_config_t dc = {.listen = cfg->listen,
                            .backlog = cfg->backlog,
                            .budget = cfg->budget,
                            .pace = cfg->pace,
                            .cap = cfg->cap,
                            .trusted = w->trusted,
                            .ipv6_prefix = w->ipv6_prefix,
                            .proxy_from = cfg->proxy_from,
                            .pass = web_adopt,
                            .ud = w};
    return web_door_new(w->loop, &dc, err, errlen);
}

web_t *web_start(uv_loop_t *loop, const web_config_t *cfg, const web_hooks_t *hooks, char *err,
                 size_t errlen)
{
    set_err(err, errlen, "%s", "");
    if (!cfg || !cfg->listen || !*cfg->listen)
        return NULL;
    web_t *w = web_new(loop, cfg, hooks, err, errlen);
    if (!w)
        return NULL;
    lws_cap = cfg->cap;
    lws_set_log_level(getenv("WARREN_LWS_DEBUG") ? 0x7ff : LLL_ERR | LLL_WARN,
                      getenv("WARREN_LWS_DEBUG") ? NULL : lws_log_line);
    /* The door first: a busy port is the likely failure, and an lws context
     * once made must be torn down in two steps with the loop run between
     * them (its handles' close callbacks are in its event-library plugin). */
    if (!(w->door = web_open_door(w, cfg, err, errlen))) {
        free(w);
        return NULL;
    }
    if (web_create_context(w, err, errlen) < 0) {
        web_door_close(w->door); /* it frees itself; nothing came through it yet */
        free(w);
        return NULL;
    }
    if (web_create_vhost(w, err, errlen) < 0) {
        /* out of memory only (no port of its own): both steps at once */
        web_door_close(w->door);
        lws_context_destroy(w->ctx);
        lws_context_destroy(w->ctx);
        free(w);
        return NULL;
    }
    return w;
}

static void stop_timer_closed(uv_handle_t *h)
{
    web_t *w = h->data;
    w->stop_timer_open = false;
}

/* Gives websockets a moment to send their close frames, then starts lws's
 * own teardown (step 1), which closes its libuv handles. */
static void stop_tick(uv_timer_t *t)
{
    web_t *w = t->data;
    if (w->nconns > 0 && uv_now(w->loop) < w->stop_deadline)
        return;
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, stop_timer_closed);
    if (!w->destroyed) {
        w->destroyed = true;
        lws_context_destroy(w->ctx);
    }
}

void web_stop(web_t *w)
{
    if (!w || w->stopping)
        return;
    w->stopping = true;
    web_door_close(w->door); /* the door frees itself once every ticket is back */
    w->door = NULL;
    if (w->later_open) { /* what waits goes out through WRITEABLE */
        for (list_t *n; (n = list_pop_front(&w->later));)
            lws_callback_on_writable(LIST_ITEM(n, web_conn_t, lnode)->wsi);
        uv_idle_stop(&w->later_idle);
        uv_close((uv_handle_t *)&w->later_idle, NULL);
        w->later_open = w->later_on = false;
    }
    if (w->sweep_open) {
        uv_timer_stop(&w->sweep);
        uv_close((uv_handle_t *)&w->sweep, NULL);
        w->sweep_open = false;
    }
    LIST_EACH (it, &w->conns)
        web_close(LIST_ITEM(it, web_conn_t, node), LWS_CLOSE_STATUS_GOINGAWAY,
                  "server shutting down");
    w->stop_deadline = uv_now(w->loop) + WEB_STOP_GRACE_MS;
    uv_timer_init(w->loop, &w->stop_timer);
    w->stop_timer.data = w;
    w->stop_timer_open = true;
    uv_timer_start(&w->stop_timer, stop_tick, 0, 20);
}

void web_free(web_t *w)
{
    if (!w)
        return;
    w->hooks_off = true;
    if (!w->stopping) {
        /* web_stop was skipped: nothing more can run on the loop */
        w->stopping = true;
        web_door_close(w->door);
        w->door = NULL;
        w->destroyed = true;
        lws_context_destroy(w->ctx);
    }
    lws_context_destroy(w->ctx); /* step 2: frees the context */
    lws_cap = NULL; /* the cap is freed after the web: lws's lines from here on uncapped */
    for (list_t *n; (n = list_front(&w->reqs));)
        req_free(LIST_ITEM(n, web_req_t, node));
    free(w->wbuf);
    for (int i = 0; i < WEB_SHARED_KEEP; i++)
        blob_unref(w->shared[i]);
    for (list_t *n; (n = list_front(&w->conns));) {
        web_conn_t *wc = LIST_ITEM(n, web_conn_t, node);
        conn_unlink(wc);
        conn_free(wc);
    }
    free(w);
}
