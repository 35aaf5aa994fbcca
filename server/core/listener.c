/* listener — accept4 on a uv_poll_t, paused when descriptors run out; see
 * listener.h. libuv's own listener would drop the waiting connections at
 * EMFILE (its spare-descriptor trick) and lws's would spin on them. */
#include "listener.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "log.h"

#define LISTENER_BATCH     64 /* accepts per wake-up, so one door cannot hog the loop */
#define LISTENER_ADDR_TEXT 256

struct listener {
    uv_loop_t *loop;
    uv_poll_t poll;
    uv_timer_t pause;
    int fd;
    int open_handles;
    bool is_unix, closing;
    int backlog; /* as asked; listener_start clamps it */
    char name[16];
    char where[LISTENER_ADDR_TEXT]; /* the address or path, for logs and unlink */
    int port;
    listener_cb cb;
    void *ud;
    log_every_t pause_log;
};

/* The peer of an accepted socket as listener_cb gives it. */
static void listener_peer_name(const struct sockaddr_storage *ss, char *out, size_t outlen)
{
    snprintf(out, outlen, "?");
    if (ss->ss_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, out, (socklen_t)outlen);
    } else if (ss->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a))
            inet_ntop(AF_INET, &a->s6_addr[12], out, (socklen_t)outlen);
        else
            inet_ntop(AF_INET6, a, out, (socklen_t)outlen);
    } else if (ss->ss_family == AF_UNIX) {
        snprintf(out, outlen, "local");
    }
}

static void set_err(char *err, size_t errlen, const char *name, const char *where, int e)
{
    snprintf(err, errlen, "%s: cannot listen on %s: %s", name, where, strerror(e));
}

/* ---- accepting -------------------------------------------------------------------- */

static void on_readable(uv_poll_t *h, int status, int events);

static void on_pause_over(uv_timer_t *t)
{
    listener_t *l = t->data;
    if (!l->closing)
        uv_poll_start(&l->poll, UV_READABLE, on_readable);
}

/* Out of descriptors (or kernel memory): stop for a moment, say so rarely. */
static void pause_accepting(listener_t *l, int e)
{
    unsigned held;
    uv_poll_stop(&l->poll);
    uv_timer_start(&l->pause, on_pause_over, LISTENER_PAUSE_MS, 0);
    if (log_every(&l->pause_log, uv_now(l->loop), LISTENER_LOG_MS, &held))
        log_warn("%s %s: cannot accept (%s); pausing %d ms (%u more pauses held back)", l->name,
                 l->where, strerror(e), LISTENER_PAUSE_MS, held);
}

static void on_readable(uv_poll_t *h, int status, int events)
{
    listener_t *l = h->data;
    (void)events;
    if (status < 0 || l->closing)
        return;
    for (int i = 0; i < LISTENER_BATCH && !l->closing; i++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        memset(&ss, 0, sizeof ss);
        int fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            if (e == EINTR || e == ECONNABORTED || e == EPROTO)
                continue;
            if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM)
                pause_accepting(l, e);
            return; /* EAGAIN: all taken */
        }
        char peer[LISTENER_PEER_MAX];
        if (l->is_unix)
            ss.ss_family = AF_UNIX; /* an unnamed client has no address */
        listener_peer_name(&ss, peer, sizeof peer);
        l->cb(l->ud, fd, peer);
    }
}

/* ---- making one ------------------------------------------------------------------------ */

static listener_t *listener_alloc(uv_loop_t *loop, const char *name, const char *where, int backlog,
                                  listener_cb cb, void *ud)
{
    listener_t *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->loop = loop;
    l->fd = -1;
    l->backlog = backlog;
    l->cb = cb;
    l->ud = ud;
    snprintf(l->name, sizeof l->name, "%s", name);
    snprintf(l->where, sizeof l->where, "%s", where);
    return l;
}

int listener_backlog(int want, int somaxconn)
{
    if (want <= 0)
        want = LISTENER_BACKLOG;
    return somaxconn > 0 && want > somaxconn ? somaxconn : want;
}

/* net.core.somaxconn as the kernel says it, or -1. */
static int listener_somaxconn(void)
{
    FILE *f = fopen("/proc/sys/net/core/somaxconn", "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* Starts polling the bound socket l->fd. Returns 0 or an errno. */
static int listener_start(listener_t *l)
{
    int max = listener_somaxconn(), backlog = listener_backlog(l->backlog, max);
    if (backlog < l->backlog)
        log_warn("%s %s: listen-backlog %d is over net.core.somaxconn: %d", l->name, l->where,
                 l->backlog, backlog);
    if (listen(l->fd, backlog) < 0)
        return errno;
    if (uv_poll_init_socket(l->loop, &l->poll, l->fd) < 0)
        return EINVAL;
    l->poll.data = l;
    l->open_handles++;
    uv_timer_init(l->loop, &l->pause);
    l->pause.data = l;
    l->open_handles++;
    uv_poll_start(&l->poll, UV_READABLE, on_readable);
    return 0;
}

static listener_t *listener_fail(listener_t *l, char *err, size_t errlen, int e)
{
    set_err(err, errlen, l->name, l->where, e);
    if (l->fd >= 0)
        close(l->fd);
    free(l);
    return NULL;
}

/* "host:port" or "[v6]:port" (port 0: any free one) into ss; false when
 * it is not an address. */
static bool parse_addr(const char *addr, struct sockaddr_storage *ss)
{
    char host[128];
    const char *colon = strrchr(addr, ':');
    memset(ss, 0, sizeof *ss);
    if (!colon || colon == addr)
        return false;
    size_t hl = (size_t)(colon - addr);
    const char *h = addr;
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']')
        h++, hl -= 2;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (hl >= sizeof host || *end || end == colon + 1 || port < 0 || port > 65535)
        return false;
    memcpy(host, h, hl);
    host[hl] = 0;
    return uv_ip4_addr(host, (int)port, (struct sockaddr_in *)ss) == 0 ||
           uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)ss) == 0;
}

listener_t *listener_tcp(uv_loop_t *loop, const char *name, const char *addr, int backlog,
                         listener_cb cb, void *ud, char *err, size_t errlen)
{
    listener_t *l = listener_alloc(loop, name, addr, backlog, cb, ud);
    struct sockaddr_storage ss;
    if (!l)
        return snprintf(err, errlen, "%s: out of memory", name), NULL;
    if (!parse_addr(addr, &ss)) {
        snprintf(err, errlen, "bad %s address %s", name, addr);
        free(l);
        return NULL;
    }
    bool v6 = ss.ss_family == AF_INET6;
    l->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0)
        return listener_fail(l, err, errlen, errno);
    int one = 1;
    setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (v6) /* "[::1]:port" binds that address only, never IPv4 as well */
        setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    socklen_t len = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (bind(l->fd, (struct sockaddr *)&ss, len) < 0)
        return listener_fail(l, err, errlen, errno);
    len = sizeof ss;
    if (getsockname(l->fd, (struct sockaddr *)&ss, &len) == 0)
        l->port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                           : ((struct sockaddr_in *)&ss)->sin_port);
    int e = listener_start(l);
    return e ? listener_fail(l, err, errlen, e) : l;
}

listener_t *listener_unix(uv_loop_t *loop, const char *name, const char *path, int backlog,
                          listener_cb cb, void *ud, char *err, size_t errlen)
{
    listener_t *l = listener_alloc(loop, name, path, backlog, cb, ud);
    struct sockaddr_un sun;
    if (!l)
        return snprintf(err, errlen, "%s: out of memory", name), NULL;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sun.sun_path)
        return listener_fail(l, err, errlen, ENAMETOOLONG);
    memcpy(sun.sun_path, path, strlen(path) + 1);
    l->is_unix = true;
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0)
        return listener_fail(l, err, errlen, errno);
    unlink(path); /* a stale socket from a crash */
    if (bind(l->fd, (struct sockaddr *)&sun, sizeof sun) < 0)
        return listener_fail(l, err, errlen, errno);
    /* whatever the umask, before anyone can connect: a client here names
     * the player's address, believed for limits and bans */
    if (chmod(path, LISTENER_UNIX_MODE) < 0)
        return listener_fail(l, err, errlen, errno);
    int e = listener_start(l);
    return e ? listener_fail(l, err, errlen, e) : l;
}

int listener_port(const listener_t *l)
{
    return l ? l->port : 0;
}

/* ---- closing ----------------------------------------------------------------------------- */

static void on_handle_closed(uv_handle_t *h)
{
    listener_t *l = h->data;
    if (--l->open_handles == 0)
        free(l);
}

void listener_close(listener_t *l)
{
    if (!l || l->closing)
        return;
    l->closing = true;
    uv_poll_stop(&l->poll);
    uv_close((uv_handle_t *)&l->poll, on_handle_closed);
    uv_close((uv_handle_t *)&l->pause, on_handle_closed);
    close(l->fd); /* after the poll stopped watching it */
    if (l->is_unix)
        unlink(l->where);
}
