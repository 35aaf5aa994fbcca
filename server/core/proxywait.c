/* proxywait — read a PROXY header off a socket, then hand it on; see
 * proxywait.h. The socket's bytes are looked at (MSG_PEEK) and only the
 * header's are taken: while the header is incomplete every byte there is
 * the header's, so each wake-up consumes what it saw and the poll never
 * spins on bytes left in the socket. */
#include "proxywait.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "addrkey.h"
#include "list.h"
#include "log.h"
#include "logcap.h"
#include "proxyproto.h"

struct proxywait {
    uv_loop_t *loop;
    char name[16];
    proxy_nets_t nets;
    listener_cb cb;
    void *ud;
    list_t waiting; /* pw_sock_t.node */
    int nwaiting;
    int socks; /* pw_sock_t not yet freed */
    bool closed;
    logcap_t *cap;   /* the log's cap on lines others can make (logcap.h) */
    int ipv6_prefix; /* a client's lines are capped under its key (addrkey.h) */
};

/* A header taken (one a connection, a few per client address in a
 * window), and sockets turned away; bad headers are kinds of their own. */
static const logcap_kind_t SAY_TAKEN = {"PROXY header taken", 5, 200},
                           SAY_FULL = {"PROXY header: too many waiting"};

typedef struct {
    proxywait_t *w;
    list_t node;
    uv_poll_t poll;
    uv_timer_t timer;
    int handles;
    int fd;
    char peer[LISTENER_PEER_MAX];
    size_t have;
    uint8_t buf[PROXY_HEADER_MAX];
} pw_sock_t;

static void pw_maybe_free(proxywait_t *w)
{
    if (w->closed && w->socks == 0)
        free(w);
}

static void on_sock_closed(uv_handle_t *h)
{
    pw_sock_t *p = h->data;
    if (--p->handles > 0)
        return;
    proxywait_t *w = p->w;
    free(p);
    w->socks--;
    pw_maybe_free(w);
}

/* Leaves the set: fd closed unless it was handed on (keep_fd). */
static void sock_leave(pw_sock_t *p, bool keep_fd)
{
    list_remove(&p->node);
    p->w->nwaiting--;
    uv_close((uv_handle_t *)&p->poll, on_sock_closed); /* out of epoll before the fd moves */
    uv_close((uv_handle_t *)&p->timer, on_sock_closed);
    if (!keep_fd)
        close(p->fd);
}

static void sock_fail(pw_sock_t *p, const char *why)
{
    char kind[96];
    snprintf(kind, sizeof kind, "%s PROXY header: %s", p->w->name, why);
    logcap_say(p->w->cap, uv_now(p->w->loop), LOG_WARN, &(logcap_kind_t){.name = kind}, p->peer,
               "%s: PROXY header from ip=%s: %s; connection closed", p->w->name, p->peer, why);
    sock_leave(p, false);
}

static void on_late(uv_timer_t *t)
{
    pw_sock_t *p = t->data;
    sock_fail(p, p->have ? "incomplete when time ran out (PROXYWAIT_MS)"
                         : "none when time ran out (PROXYWAIT_MS)");
}

/* The header is whole (n bytes): take the bytes still in the socket. */
static void sock_done(pw_sock_t *p, int n, const proxy_client_t *c)
{
    size_t left = (size_t)n - p->have;
    ssize_t got = left ? recv(p->fd, p->buf + p->have, left, 0) : 0;
    if (got != (ssize_t)left)
        return sock_fail(p, "the socket failed while its header was read");
    proxywait_t *w = p->w;
    char client[LISTENER_PEER_MAX];
    char key[ADDRKEY_MAX];
    snprintf(client, sizeof client, "%s", c->local ? p->peer : c->addr);
    addrkey(client, w->ipv6_prefix, key, sizeof key);
    logcap_say(w->cap, uv_now(w->loop), LOG_INFO, &SAY_TAKEN, key,
               "%s: PROXY header from ip=%s: client ip=%s port=%u%s", w->name, p->peer, client,
               c->port, c->local ? " (local: the balancer itself)" : "");
    int fd = p->fd;
    sock_leave(p, true);
    w->cb(w->ud, fd, client);
}

static void on_readable(uv_poll_t *h, int status, int events)
{
    pw_sock_t *p = h->data;
    (void)events;
    if (status < 0)
        return sock_fail(p, uv_strerror(status));
    size_t room = sizeof p->buf - p->have;
    ssize_t n = recv(p->fd, p->buf + p->have, room, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0)
        return sock_fail(p, n == 0 ? "closed before its header ended" : strerror(errno));
    proxy_client_t c;
    const char *why = "bad header";
    int r = proxy_parse(p->buf, p->have + (size_t)n, &c, &why);
    if (r == PROXY_BAD)
        return sock_fail(p, why);
    if (r > 0)
        return sock_done(p, r, &c);
    /* all of it is the header's so far: take it */
    if (recv(p->fd, p->buf + p->have, (size_t)n, 0) != n)
        return sock_fail(p, "the socket failed while its header was read");
    p->have += (size_t)n;
}

proxywait_t *proxywait_new(uv_loop_t *loop, const char *name, const char *networks,
                           struct logcap *cap, int ipv6_prefix, listener_cb cb, void *ud)
{
    proxywait_t *w = calloc(1, sizeof *w);
    const char *why;
    if (!w)
        return NULL;
    w->loop = loop;
    snprintf(w->name, sizeof w->name, "%s", name);
    if (proxy_nets_parse(networks ? networks : "", &w->nets, &why))
        w->nets.n = 0; /* config.c checked it: never here */
    w->cb = cb;
    w->ud = ud;
    w->cap = cap;
    w->ipv6_prefix = ipv6_prefix;
    list_init(&w->waiting);
    return w;
}

bool proxywait_from(const proxywait_t *w, const char *peer)
{
    return w && !w->closed && proxy_nets_match(&w->nets, peer);
}

int proxywait_count(const proxywait_t *w)
{
    return w ? w->nwaiting : 0;
}

void proxywait_add(proxywait_t *w, int fd, const char *peer)
{
    pw_sock_t *p = w->nwaiting < PROXYWAIT_MAX ? calloc(1, sizeof *p) : NULL;
    if (!p || uv_poll_init_socket(w->loop, &p->poll, fd) < 0) {
        logcap_say(w->cap, uv_now(w->loop), LOG_WARN, &SAY_FULL, peer,
                   "%s: ip=%s closed: %d sockets wait for their PROXY header already", w->name,
                   peer, w->nwaiting);
        free(p);
        close(fd);
        return;
    }
    p->w = w;
    p->fd = fd;
    snprintf(p->peer, sizeof p->peer, "%s", peer);
    p->poll.data = p;
    uv_timer_init(w->loop, &p->timer);
    p->timer.data = p;
    p->handles = 2;
    w->socks++;
    w->nwaiting++;
    list_push_back(&w->waiting, &p->node);
    uv_timer_start(&p->timer, on_late, PROXYWAIT_MS, 0);
    uv_poll_start(&p->poll, UV_READABLE, on_readable);
}

void proxywait_close(proxywait_t *w)
{
    if (!w || w->closed)
        return;
    w->closed = true;
    for (list_t *n; (n = list_front(&w->waiting));)
        sock_leave(LIST_ITEM(n, pw_sock_t, node), false);
    pw_maybe_free(w);
}
