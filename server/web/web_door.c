/* web_door — accept, charge, check the head, pass on; see web_door.h.
 *
 * The head is only looked at (recv with MSG_PEEK): libwebsockets then reads
 * the socket from its first byte, as if it had accepted it. (Handing lws
 * bytes already read, lws_adopt_socket_vhost_readbuf, makes lws 4.1.6 loop
 * forever on a POST whose body came with the head.) An incomplete head
 * stays in the socket, so polling it again would report it readable at
 * once: the door waits a little, longer each time nothing new came, before
 * it looks again. A socket waits here on a uv_poll_t of its own; the poll
 * is closed (which takes the descriptor out of epoll at once) before lws
 * polls the same descriptor. */
#include "web_door.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "addrrate.h"
#include "list.h"
#include "listener.h"
#include "log.h"
#include "logcap.h"
#include "proxywait.h"
#include "web_parse.h"

#define DOOR_REFUSED_HEAD_MS 2000    /* a refused socket's head comes soon or never */
#define DOOR_LINGER_MS       1000    /* after a 400/431: read what was sent, then close */
#define DOOR_LINGER_BYTES    1048576 /* ... but no more than this */
#define DOOR_RELOOK_MS       5       /* first wait before looking at a head again */
#define DOOR_RELOOK_MAX_MS   250     /* the longest (doubling while nothing new comes) */

struct web_door {
    uv_loop_t *loop;
    listener_t *listener;
    proxywait_t *proxied; /* proxy-from's sockets until their PROXY header came */
    budget_t *budget;
    addrrate_t *pace; /* requests a second per client; NULL: no limit */
    char trusted[256];
    int ipv6_prefix; /* addrkey.h */
    web_door_pass_cb pass;
    void *ud;
    list_t waiting; /* door_conn_t.node: sockets still at the door */
    int conns;      /* door_conn_t not yet freed */
    int tickets;    /* tickets not yet released */
    int refusing;   /* refused tickets among them */
    bool closed;
    logcap_t *cap;           /* the log's cap on lines others can make (logcap.h) */
    char head[WEB_HEAD_MAX]; /* what a head looks like, one socket at a time */
};

/* A socket at the door: its head awaited, or a 400/431 lingering. */
typedef struct {
    web_door_t *d;
    list_t node;
    uv_poll_t poll;
    uv_timer_t timer;
    int fd;
    int handles;
    web_ticket_t *t;   /* NULL once passed on or released */
    uint64_t deadline; /* uv_now: the head is complete by then, or the socket goes */
    uint64_t relook;   /* ms to wait before looking at an incomplete head again */
    size_t seen;       /* bytes of head there were last time */
    bool answered;     /* 400/431 sent: reading the rest away */
    size_t drained;
} door_conn_t;

static void door_maybe_free(web_door_t *d)
{
    if (d->closed && d->conns == 0 && d->tickets == 0)
        free(d);
}

/* ---- tickets ------------------------------------------------------------------------- */

/* Refusals under the log's cap, a kind a reason. */
static const logcap_kind_t SAY_REFUSED[] = {{"refused http: per-address limit"},
                                            {"refused http: banned"},
                                            {"refused http: server full"},
                                            {"refused http: closed at the door"},
                                            {"refused http: request rate"}};
static const char *const REFUSED_WHY[] = {"per-address limit", "banned", "server full",
                                          "closed at the door", "request rate"};

static void log_refusal(web_door_t *d, const char *peer, const char *key, int k)
{
    logcap_say(d->cap, uv_now(d->loop), LOG_INFO, &SAY_REFUSED[k], key,
               "refused http ip=%s reason=%s", peer, REFUSED_WHY[k]);
}

static void ticket_refuse(web_ticket_t *t, const char *peer, const char *key, int why)
{
    t->refused = true;
    t->door->refusing++;
    log_refusal(t->door, peer, key, why == BUDGET_ADDR ? 0 : why == BUDGET_BANNED ? 1 : 2);
}

/* A ticket for a new socket from peer, or NULL when it is to be closed at
 * once (out of memory, or too many refused sockets waiting already). */
static web_ticket_t *ticket_new(web_door_t *d, const char *peer)
{
    web_ticket_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->door = d;
    snprintf(t->peer, sizeof t->peer, "%s", peer);
    addrkey(peer, d->ipv6_prefix, t->key, sizeof t->key);
    t->proxied = web_addr_listed(peer, d->trusted);
    int ret =
        d->budget ? budget_take(d->budget, &t->slot, t->proxied ? NULL : peer, t->key) : BUDGET_OK;
    if (ret != BUDGET_OK && d->refusing >= WEB_DOOR_REFUSING_MAX) {
        log_refusal(d, peer, t->key, 3);
        free(t);
        return NULL;
    }
    d->tickets++;
    if (ret != BUDGET_OK)
        ticket_refuse(t, peer, t->key, ret);
    return t;
}

int web_door_charge(web_ticket_t *t, const char *client, const char *key)
{
    if (t->refused)
        return -1;
    if (!t->proxied || !t->door->budget)
        return 0; /* charged to the peer at the door: that is the client */
    int ret = budget_move(t->door->budget, &t->slot, client, key);
    if (ret == BUDGET_OK)
        return 0;
    ticket_refuse(t, client, key, ret);
    return -1;
}

unsigned web_door_pace(web_ticket_t *t, const char *client, const char *key)
{
    web_door_t *d = t->door;
    if (t->paced)
        return t->wait_s; /* spent and said at the door (door_over_rate) */
    uint64_t wait = addrrate_take(d->pace, key, uv_now(d->loop));
    if (!wait)
        return 0;
    log_refusal(d, client, key, 4);
    return (unsigned)((wait + 999) / 1000);
}

void web_door_release(web_ticket_t *t)
{
    web_door_t *d = t->door;
    if (d->budget)
        budget_release(d->budget, &t->slot);
    if (t->refused)
        d->refusing--;
    d->tickets--;
    free(t);
    door_maybe_free(d);
}

/* ---- a socket at the door ------------------------------------------------------------ */

static void on_conn_closed(uv_handle_t *h)
{
    door_conn_t *dc = h->data;
    if (--dc->handles > 0)
        return;
    web_door_t *d = dc->d;
    free(dc);
    d->conns--;
    door_maybe_free(d);
}

/* Leaves the door: stops watching the socket; keep_fd when it goes on. */
static void conn_leave(door_conn_t *dc, bool keep_fd)
{
    list_remove(&dc->node);
    uv_close((uv_handle_t *)&dc->poll, on_conn_closed); /* out of epoll now */
    uv_close((uv_handle_t *)&dc->timer, on_conn_closed);
    if (!keep_fd)
        close(dc->fd);
    if (dc->t && !keep_fd)
        web_door_release(dc->t);
    dc->t = NULL;
}

static void conn_pass(door_conn_t *dc)
{
    web_door_t *d = dc->d;
    web_ticket_t *t = dc->t;
    dc->t = NULL;
    conn_leave(dc, true);
    d->pass(d->ud, dc->fd, t);
}

static void on_readable(uv_poll_t *h, int status, int events);

/* Lingering is over, or no head came in time: the socket goes. Else it is
 * time to look at the head again. */
static void on_timer(uv_timer_t *h)
{
    door_conn_t *dc = h->data;
    uint64_t now = uv_now(dc->d->loop);
    if (dc->answered || now >= dc->deadline)
        return conn_leave(dc, false);
    uv_poll_start(&dc->poll, UV_READABLE, on_readable);
    uv_timer_start(&dc->timer, on_timer, dc->deadline - now, 0);
}

/* The head is not all there: look again later (it stays in the socket). */
static void conn_relook(door_conn_t *dc, size_t seen)
{
    uint64_t now = uv_now(dc->d->loop);
    dc->relook = seen > dc->seen ? DOOR_RELOOK_MS : dc->relook * 2;
    if (dc->relook > DOOR_RELOOK_MAX_MS)
        dc->relook = DOOR_RELOOK_MAX_MS;
    dc->seen = seen;
    uv_poll_stop(&dc->poll);
    uint64_t left = dc->deadline > now ? dc->deadline - now : 0;
    uv_timer_start(&dc->timer, on_timer, dc->relook < left ? dc->relook : left, 0);
}

/* An answer sent: the rest of what the client sends is read away for a
 * moment, then the socket goes. */
static void conn_linger(door_conn_t *dc)
{
    shutdown(dc->fd, SHUT_WR);
    dc->answered = true;
    uv_timer_start(&dc->timer, on_timer, DOOR_LINGER_MS, 0);
}

/* The answers the door gives itself, by web_head_check's or
 * web_head_body's verdict (the first row: any other). */
static const struct {
    int verdict;
    const char *text;
} DOOR_ANSWERS[] = {
    {WEB_HEAD_BAD, "HTTP/1.1 400 Bad Request\r\n"
                   "Content-Type: text/plain; charset=utf-8\r\n"
                   "X-Content-Type-Options: nosniff\r\nContent-Length: 13\r\n"
                   "Connection: close\r\n\r\nBad request.\n"},
    {WEB_HEAD_TOO_LARGE, "HTTP/1.1 431 Request Header Fields Too Large\r\n"
                         "Content-Type: text/plain; charset=utf-8\r\n"
                         "X-Content-Type-Options: nosniff\r\nContent-Length: 33\r\n"
                         "Connection: close\r\n\r\nRequest header fields too large.\n"},
    {WEB_HEAD_NO_LENGTH,
     "HTTP/1.1 411 Length Required\r\n"
     "Content-Type: text/plain; charset=utf-8\r\n"
     "X-Content-Type-Options: nosniff\r\nContent-Length: 48\r\n"
     "Connection: close\r\n\r\nSend the body with a Content-Length, unchunked.\n"},
    {WEB_HEAD_BODY_LARGE, "HTTP/1.1 413 Payload Too Large\r\n"
                          "Content-Type: text/plain; charset=utf-8\r\n"
                          "X-Content-Type-Options: nosniff\r\nContent-Length: 23\r\n"
                          "Connection: close\r\n\r\nThe body is too large.\n"},
};

/* An answer of the door's, then the rest of what the client sends is read
 * away for a moment: closing with unread bytes would reset the connection
 * and the client could lose the answer. */
static void conn_answer(door_conn_t *dc, int verdict)
{
    const char *m = DOOR_ANSWERS[0].text;
    for (size_t i = 0; i < sizeof DOOR_ANSWERS / sizeof DOOR_ANSWERS[0]; i++)
        if (DOOR_ANSWERS[i].verdict == verdict)
            m = DOOR_ANSWERS[i].text;
    ssize_t n = send(dc->fd, m, strlen(m), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)n; /* a few hundred bytes into an empty socket buffer */
    conn_linger(dc);
}

/* The client a head comes from, as web.c's get_client finds it: the peer,
 * or the one a trusted proxy names in X-Forwarded-For (all its fields,
 * joined as libwebsockets joins them, ignored when too long as web.c
 * ignores them). ip and key: ADDRKEY_MAX bytes each at least. */
static void door_client(web_door_t *d, const web_ticket_t *t, size_t head, char *ip, char *key)
{
    if (!t->proxied) {
        snprintf(ip, ADDRKEY_MAX, "%s", t->peer);
        snprintf(key, ADDRKEY_MAX, "%s", t->key);
        return;
    }
    char xff[512];
    bool have = web_head_field(d->head, head, "x-forwarded-for:", xff, sizeof xff);
    web_client_addr(t->peer, have ? xff : NULL, d->trusted, ip, ADDRKEY_MAX);
    addrkey(ip, d->ipv6_prefix, key, ADDRKEY_MAX);
}

/* The request rate, checked once the head is here, for the client
 * door_client names. True: a request over it, answered here for a
 * fraction of what libwebsockets' adoption and parse cost; a websocket
 * upgrade over it goes on all the same, to be closed with 1013 once open,
 * which browsers report (t->wait_s). */
static bool door_over_rate(door_conn_t *dc, size_t head)
{
    web_ticket_t *t = dc->t;
    web_door_t *d = dc->d;
    if (t->refused || !d->pace)
        return false;
    char ip[ADDRKEY_MAX], key[ADDRKEY_MAX];
    door_client(d, t, head, ip, key);
    uint64_t wait = addrrate_take(d->pace, key, uv_now(d->loop));
    t->paced = true;
    t->wait_s = (unsigned)((wait + 999) / 1000);
    if (!wait)
        return false;
    log_refusal(d, ip, key, 4);
    return !web_head_upgrade(d->head, head);
}

/* 429 with Retry-After, as libwebsockets would answer it (web.c's
 * http_too_many). The head is read out of the socket first: a socket
 * closed with bytes unread is reset, and the answer could be lost with it.
 * Nothing more sent (a GET): closed at once; else the rest is read away. */
static void conn_too_many(door_conn_t *dc, size_t head)
{
    static const char body[] = "Too many requests from your address. Please try again in a "
                               "moment.\n";
    web_door_t *d = dc->d;
    size_t skip = 0;
    while (skip < head && (d->head[skip] == '\r' || d->head[skip] == '\n'))
        skip++;
    bool head_only = head >= skip + 5 && memcmp(d->head + skip, "HEAD ", 5) == 0;
    char m[512];
    int n = snprintf(m, sizeof m,
                     "HTTP/1.1 429 Too Many Requests\r\n"
                     "Content-Type: text/plain; charset=utf-8\r\n"
                     "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"
                     "Retry-After: %u\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     dc->t->wait_s, sizeof body - 1, head_only ? "" : body);
    ssize_t r = recv(dc->fd, d->head, head, MSG_DONTWAIT);
    if (r == (ssize_t)head && n > 0 && n < (int)sizeof m)
        r = send(dc->fd, m, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    char more;
    if (r > 0 && recv(dc->fd, &more, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
        return conn_linger(dc);
    conn_leave(dc, false);
}

static void conn_drain(door_conn_t *dc)
{
    char sink[16384];
    ssize_t n = recv(dc->fd, sink, sizeof sink, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    dc->drained += n > 0 ? (size_t)n : 0;
    if (n <= 0 || dc->drained > DOOR_LINGER_BYTES)
        conn_leave(dc, false);
}

static void on_readable(uv_poll_t *h, int status, int events)
{
    door_conn_t *dc = h->data;
    web_door_t *d = dc->d;
    (void)events;
    if (status < 0)
        return conn_leave(dc, false);
    if (dc->answered)
        return conn_drain(dc);
    ssize_t n = recv(dc->fd, d->head, sizeof d->head, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0)
        return conn_leave(dc, false); /* gone before it asked anything */
    int v = web_head_check(d->head, (size_t)n);
    int body = v > 0 ? web_head_body(d->head, (size_t)v) : 0;
    if (v > 0 && door_over_rate(dc, (size_t)v))
        conn_too_many(dc, (size_t)v);
    else if (body < 0) /* one lws would drop without a word */
        conn_answer(dc, body);
    else if (v > 0)
        conn_pass(dc);
    else if (v == WEB_HEAD_MORE)
        conn_relook(dc, (size_t)n);
    else
        conn_answer(dc, v);
}

/* A socket let in under peer (a balancer's: the client its header named). */
static void door_take(void *ud, int fd, const char *peer)
{
    web_door_t *d = ud;
    web_ticket_t *t = d->closed ? NULL : ticket_new(d, peer);
    door_conn_t *dc = t ? calloc(1, sizeof *dc) : NULL;
    if (!dc || uv_poll_init_socket(d->loop, &dc->poll, fd) < 0) {
        free(dc);
        if (t)
            web_door_release(t);
        close(fd);
        return;
    }
    dc->d = d;
    dc->fd = fd;
    dc->t = t;
    dc->poll.data = dc;
    uv_timer_init(d->loop, &dc->timer);
    dc->timer.data = dc;
    dc->handles = 2;
    d->conns++;
    list_push_back(&d->waiting, &dc->node);
    uint64_t wait = t->refused ? DOOR_REFUSED_HEAD_MS : WEB_DOOR_HEAD_MS;
    dc->deadline = uv_now(d->loop) + wait;
    dc->relook = DOOR_RELOOK_MS;
    uv_timer_start(&dc->timer, on_timer, wait, 0);
    uv_poll_start(&dc->poll, UV_READABLE, on_readable);
}

static void on_socket(void *ud, int fd, const char *peer)
{
    web_door_t *d = ud;
    if (!d->closed && proxywait_from(d->proxied, peer))
        proxywait_add(d->proxied, fd, peer);
    else
        door_take(d, fd, peer);
}

/* ---- the door ---------------------------------------------------------------------- */

web_door_t *web_door_new(uv_loop_t *loop, const web_door_config_t *cfg, char *err, size_t errlen)
{
    web_door_t *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "web: out of memory");
        return NULL;
    }
    d->loop = loop;
    d->budget = cfg->budget;
    d->pace = cfg->pace;
    d->cap = cfg->cap;
    snprintf(d->trusted, sizeof d->trusted, "%s", cfg->trusted ? cfg->trusted : "");
    d->ipv6_prefix = cfg->ipv6_prefix;
    d->pass = cfg->pass;
    d->ud = cfg->ud;
    list_init(&d->waiting);
    if (cfg->proxy_from && cfg->proxy_from[0] &&
        !(d->proxied = proxywait_new(loop, "http", cfg->proxy_from, cfg->cap, cfg->ipv6_prefix,
                                     door_take, d))) {
        snprintf(err, errlen, "web: out of memory");
        free(d);
        return NULL;
    }
    d->listener = listener_tcp(loop, "http", cfg->listen, cfg->backlog, on_socket, d, err, errlen);
    if (!d->listener) {
        proxywait_close(d->proxied);
        free(d);
        return NULL;
    }
    return d;
}

int web_door_port(const web_door_t *d)
{
    return d ? listener_port(d->listener) : -1;
}

void web_door_close(web_door_t *d)
{
    if (!d || d->closed)
        return;
    d->closed = true;
    listener_close(d->listener);
    d->listener = NULL;
    proxywait_close(d->proxied);
    d->proxied = NULL;
    for (list_t *n; (n = list_front(&d->waiting));)
        conn_leave(LIST_ITEM(n, door_conn_t, node), false);
    door_maybe_free(d);
}
