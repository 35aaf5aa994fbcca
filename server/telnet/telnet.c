/* conn — the telnet gateway: listeners on TCP and the Unix socket, libtelnet
 * negotiation, terminal size and type, input rate limits, and the bounded
 * output queue. Bytes become key events here and nothing else; what keys
 * mean is menu.c's and session.c's business. */
#include <stdlib.h>
#include <string.h>
#include "input.h"
#include "log.h"
#include "server.h"

#define ESC_DELAY_MS 50

typedef struct {
    uv_write_t req;
    size_t len;
    char data[];
} wreq_t;

uint64_t now_ms(const server_t *s)
{
    return uv_now(s->loop);
}

void conn_ref(conn_t *c)
{
    c->refs++;
}

static void conn_free(conn_t *c)
{
    list_remove(&c->node);
    c->srv->nconns--;
    if (c->tn)
        telnet_free(c->tn);
    screen_free(c->scr);
    screen_free(c->shown);
    screen_free(c->own);
    free(c);
}

void conn_unref(conn_t *c)
{
    if (--c->refs > 0 || c->handles_open > 0)
        return;
    if (c->ops) {
        if (c->closing)
            c->ops->release(c);
        return;
    }
    conn_free(c);
}

static void on_handle_closed(uv_handle_t *h)
{
    conn_t *c = h->data;
    if (--c->handles_open == 0 && c->refs == 0)
        conn_free(c);
}

void conn_close(conn_t *c, const char *why)
{
    if (c->ops) {
        c->ops->close(c, why);
        return;
    }
    if (c->closing)
        return;
    c->closing = true;
    log_info("disconnect conn=%llu ip=%s user=%s reason=%s", (unsigned long long)c->id, c->ip,
             c->user[0] ? c->user : "-", why);
    if (c->sess)
        session_detach(c, NULL);
    uv_close((uv_handle_t *)&c->esc_timer, on_handle_closed);
    uv_close(&c->io.handle, on_handle_closed);
}

bool conn_writable(const conn_t *c)
{
    if (c->ops)
        return c->ops->writable(c);
    return !c->closing && c->outq < (size_t)c->srv->cfg.outq_max;
}

static void on_written(uv_write_t *req, int status)
{
    wreq_t *w = (wreq_t *)req;
    conn_t *c = req->data;
    c->outq -= w->len;
    free(w);
    if (status < 0 && !c->closing)
        conn_close(c, uv_strerror(status));
    else if (!c->closing && c->outq == 0 && c->need_key)
        session_drained(c);
    conn_unref(c);
}

/* Raw bytes to the socket (already telnet-encoded). Most frames fit in the
 * socket buffer: they are written straight from the caller's buffer and only
 * what the kernel did not take is copied into a queued write. */
static void conn_send_raw(conn_t *c, const char *data, size_t len)
{
    if (c->closing || len == 0)
        return;
    if (c->outq == 0) {
        uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
        int n = uv_try_write(&c->io.stream, &b, 1);
        if (n == (int)len)
            return;
        if (n > 0) {
            data += n;
            len -= (size_t)n;
        } else if (n != UV_EAGAIN && n != UV_ENOSYS) {
            conn_close(c, uv_strerror(n));
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
    w->req.data = c;
    uv_buf_t b = uv_buf_init(w->data, (unsigned)len);
    int rc = uv_write(&w->req, &c->io.stream, &b, 1, on_written);
    if (rc < 0) {
        free(w);
        conn_close(c, uv_strerror(rc));
        return;
    }
    c->outq += w->len;
    conn_ref(c);
}

void conn_write(conn_t *c, const void *data, size_t len)
{
    if (c->ops) {
        if (!c->closing)
            c->ops->write(c, data, len, false);
        return;
    }
    if (!c->closing && c->tn)
        telnet_send(c->tn, data, len); /* escapes IAC; comes back as TELNET_EV_SEND */
}

void conn_write_text(conn_t *c, const char *json, size_t len)
{
    if (c->ops && !c->closing)
        c->ops->write(c, json, len, true);
}

static void conn_apply_size(conn_t *c)
{
    int w = c->raw_w > 0 ? c->raw_w : TERM_MIN_W;
    int h = c->raw_h > 0 ? c->raw_h : TERM_MIN_H;
    c->too_small = w < TERM_MIN_W || h < TERM_MIN_H;
    if (w > TERM_MAX_W)
        w = TERM_MAX_W;
    if (h > TERM_MAX_H)
        h = TERM_MAX_H;
    if (c->w == w && c->h == h)
        return;
    c->w = w;
    c->h = h;
    if (c->mode == MODE_PLAY || c->mode == MODE_WATCH)
        session_resized(c);
    else
        menu_resized(c);
}

static void on_naws(conn_t *c, const unsigned char *b, size_t n)
{
    if (input_naws(b, n, &c->raw_w, &c->raw_h) == 0)
        conn_apply_size(c);
}

static void on_ttype(conn_t *c, const char *name)
{
    input_term_name(name, c->term, sizeof c->term);
    menu_apply_profile(c);
    /* a new profile means a full redraw in it */
    if (c->mode == MODE_PLAY || c->mode == MODE_WATCH)
        session_resized(c);
    else
        menu_redraw(c);
}

static int conn_count_ip(server_t *s, const char *ip)
{
    int n = 0;
    LIST_EACH(it, &s->conns)
    {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing && !strcmp(c->ip, ip))
            n++;
    }
    return n;
}

/* The remote address that `warren --ssh` passes on the Unix socket only. */
static void on_environ(conn_t *c, const telnet_event_t *ev)
{
    if (!c->is_unix || ev->environ.cmd != TELNET_ENVIRON_IS)
        return;
    for (size_t i = 0; i < ev->environ.size; i++) {
        const struct telnet_environ_t *v = &ev->environ.values[i];
        if (v->var && !strcmp(v->var, "REMOTE_ADDR") && v->value && v->value[0]) {
            char ip[sizeof c->ip];
            if (input_remote_addr(v->value, ip, sizeof ip))
                return;
            log_info("remote-addr conn=%llu ip=%s", (unsigned long long)c->id, ip);
            snprintf(c->ip, sizeof c->ip, "%s", ip);
            /* the per-address limit applies once the address is known */
            if (conn_count_ip(c->srv, ip) > c->srv->cfg.max_per_ip) {
                const char *m = "\r\nToo many connections from your address.\r\n";
                conn_write(c, m, strlen(m));
                conn_close(c, "limit");
            }
            return;
        }
    }
}

static void on_key(void *ud, key_event_t k)
{
    conn_t *c = ud;
    if (c->closing)
        return;
    if (c->mode == MODE_PLAY || c->mode == MODE_WATCH)
        session_key(c, k);
    else
        menu_key(c, k);
}

static void on_esc_timer(uv_timer_t *t)
{
    conn_t *c = t->data;
    keydec_timeout(&c->kd, on_key, c);
}

static void on_data(conn_t *c, const char *buf, size_t n)
{
    keydec_feed(&c->kd, (const uint8_t *)buf, n, on_key, c);
    if (!c->closing && keydec_pending(&c->kd))
        uv_timer_start(&c->esc_timer, on_esc_timer, ESC_DELAY_MS, 0);
}

static void on_will(conn_t *c, unsigned char opt)
{
    if (opt == TELNET_TELOPT_TTYPE)
        telnet_ttype_send(c->tn);
    else if (opt == TELNET_TELOPT_NEW_ENVIRON && c->is_unix && !c->env_asked) {
        c->env_asked = true;
        telnet_begin_newenviron(c->tn, TELNET_ENVIRON_SEND);
        telnet_newenviron_value(c->tn, TELNET_ENVIRON_USERVAR, "REMOTE_ADDR");
        telnet_finish_newenviron(c->tn);
    }
}

static void on_telnet(telnet_t *tn, telnet_event_t *ev, void *ud)
{
    conn_t *c = ud;
    (void)tn;
    switch (ev->type) {
    case TELNET_EV_DATA: on_data(c, ev->data.buffer, ev->data.size); break;
    case TELNET_EV_SEND: conn_send_raw(c, ev->data.buffer, ev->data.size); break;
    case TELNET_EV_WILL: on_will(c, ev->neg.telopt); break;
    case TELNET_EV_SUBNEGOTIATION:
        if (ev->sub.telopt == TELNET_TELOPT_NAWS)
            on_naws(c, (const unsigned char *)ev->sub.buffer, ev->sub.size);
        break;
    case TELNET_EV_TTYPE:
        if (ev->ttype.cmd == TELNET_TTYPE_IS)
            on_ttype(c, ev->ttype.name);
        break;
    case TELNET_EV_ENVIRON: on_environ(c, ev); break;
    case TELNET_EV_ERROR:
        log_warn("telnet error conn=%llu: %s", (unsigned long long)c->id, ev->error.msg);
        conn_close(c, "telnet protocol error");
        break;
    default: break;
    }
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    (void)hint;
    conn_t *c = h->data;
    (void)c;
    b->base = malloc(4096);
    b->len = b->base ? 4096 : 0;
}

/* Token bucket on input bytes: a flood is dropped, not queued. */
size_t conn_rate_allow(conn_t *c, size_t n)
{
    uint64_t now = now_ms(c->srv);
    double rate = c->srv->cfg.input_rate, cap = rate * 4;
    c->tokens += (double)(now - c->last_fill_ms) * rate / 1000.0;
    if (c->tokens > cap)
        c->tokens = cap;
    c->last_fill_ms = now;
    size_t allow = c->tokens >= (double)n ? n : (size_t)c->tokens;
    c->tokens -= (double)allow;
    return allow;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    conn_t *c = st->data;
    if (n < 0) {
        free(b->base);
        conn_close(c, n == UV_EOF ? "closed by peer" : uv_strerror((int)n));
        return;
    }
    if (n > 0 && !c->closing) {
        c->last_input_ms = now_ms(c->srv);
        size_t ok = conn_rate_allow(c, (size_t)n);
        conn_ref(c); /* handlers may close c; keep the memory until we return */
        c->in_input = true;
        if (ok > 0)
            telnet_recv(c->tn, b->base, ok);
        c->in_input = false;
        if (c->redraw_due)
            menu_redraw(c);
        conn_unref(c);
    }
    free(b->base);
}

static void conn_start(server_t *s, conn_t *c)
{
    c->tn = telnet_init(INPUT_TELOPTS, on_telnet, 0, c);
    if (!c->tn) {
        conn_close(c, "out of memory");
        return;
    }
    keydec_init(&c->kd);
    menu_apply_profile(c); /* no terminal type or options yet: the default */
    c->tokens = s->cfg.input_rate * 4.0;
    c->last_fill_ms = c->last_input_ms = now_ms(s);
    telnet_negotiate(c->tn, TELNET_WILL, TELNET_TELOPT_ECHO);
    telnet_negotiate(c->tn, TELNET_WILL, TELNET_TELOPT_SGA);
    telnet_negotiate(c->tn, TELNET_DO, TELNET_TELOPT_SGA);
    telnet_negotiate(c->tn, TELNET_DO, TELNET_TELOPT_NAWS);
    telnet_negotiate(c->tn, TELNET_DO, TELNET_TELOPT_TTYPE);
    telnet_negotiate(c->tn, TELNET_WILL, TELNET_TELOPT_BINARY);
    telnet_negotiate(c->tn, TELNET_DO, TELNET_TELOPT_BINARY);
    if (c->is_unix)
        telnet_negotiate(c->tn, TELNET_DO, TELNET_TELOPT_NEW_ENVIRON);
    uv_read_start(&c->io.stream, on_alloc, on_read);
    conn_apply_size(c);
    menu_enter(c, NULL);
}

static void peer_ip(conn_t *c)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    snprintf(c->ip, sizeof c->ip, "local");
    if (c->is_unix || uv_tcp_getpeername(&c->io.tcp, (struct sockaddr *)&ss, &len))
        return;
    if (ss.ss_family == AF_INET)
        uv_ip4_name((struct sockaddr_in *)&ss, c->ip, sizeof c->ip);
    else if (ss.ss_family == AF_INET6)
        uv_ip6_name((struct sockaddr_in6 *)&ss, c->ip, sizeof c->ip);
}

static void on_connection(uv_stream_t *ls, int status)
{
    server_t *s = ls->data;
    if (status < 0 || s->stopping)
        return;
    conn_t *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->srv = s;
    c->id = ++s->next_conn_id;
    c->is_unix = ls == (uv_stream_t *)&s->unix_listener;
    if (c->is_unix)
        uv_pipe_init(s->loop, &c->io.pipe, 0);
    else
        uv_tcp_init(s->loop, &c->io.tcp);
    uv_timer_init(s->loop, &c->esc_timer);
    c->io.handle.data = c;
    c->esc_timer.data = c;
    c->handles_open = 2;
    list_init(&c->wnode);
    list_push_front(&s->conns, &c->node);
    s->nconns++;
    if (uv_accept(ls, &c->io.stream)) {
        c->closing = true;
        uv_close((uv_handle_t *)&c->esc_timer, on_handle_closed);
        uv_close(&c->io.handle, on_handle_closed);
        return;
    }
    if (!c->is_unix)
        uv_tcp_nodelay(&c->io.tcp, 1);
    peer_ip(c);
    log_info("connect conn=%llu ip=%s via=%s", (unsigned long long)c->id, c->ip,
             c->is_unix ? "unix" : "tcp");
    /* Unix-socket peers are counted per address once `warren --ssh` has
     * named it (on_environ): at accept they all look "local". */
    const char *full = NULL;
    if (s->nconns > s->cfg.max_conns)
        full = "The server is full. Please try again later.\n";
    else if (!c->is_unix && conn_count_ip(s, c->ip) > s->cfg.max_per_ip)
        full = "Too many connections from your address.\n";
    if (full) {
        uv_buf_t b = uv_buf_init((char *)full, (unsigned)strlen(full));
        uv_try_write(&c->io.stream, &b, 1);
        conn_close(c, "limit");
        return;
    }
    conn_start(s, c);
}

static int listen_tcp(server_t *s)
{
    char host[128];
    int port;
    struct sockaddr_storage ss;
    if (config_split_addr(s->cfg.telnet, host, sizeof host, &port))
        return log_error("bad telnet address %s", s->cfg.telnet), -1;
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)&ss) &&
        uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss))
        return log_error("bad telnet address %s", s->cfg.telnet), -1;
    uv_tcp_init(s->loop, &s->tcp_listener);
    s->tcp_listener.data = s;
    s->tcp_on = true;
    int rc = uv_tcp_bind(&s->tcp_listener, (struct sockaddr *)&ss, 0);
    if (!rc)
        rc = uv_listen((uv_stream_t *)&s->tcp_listener, 511, on_connection);
    if (rc)
        return log_error("telnet listen %s: %s", s->cfg.telnet, uv_strerror(rc)), -1;
    log_info("listening telnet %s", s->cfg.telnet);
    return 0;
}

static int listen_unix(server_t *s)
{
    uv_pipe_init(s->loop, &s->unix_listener, 0);
    s->unix_listener.data = s;
    s->unix_on = true;
    unlink(s->cfg.socket); /* a stale socket from a crash */
    int rc = uv_pipe_bind(&s->unix_listener, s->cfg.socket);
    if (!rc)
        rc = uv_listen((uv_stream_t *)&s->unix_listener, 511, on_connection);
    if (rc)
        return log_error("socket listen %s: %s", s->cfg.socket, uv_strerror(rc)), -1;
    log_info("listening socket %s", s->cfg.socket);
    return 0;
}

int conn_listen(server_t *s)
{
    if (s->cfg.telnet[0] && listen_tcp(s))
        return -1;
    if (s->cfg.socket[0] && listen_unix(s))
        return -1;
    return 0;
}

void conn_stop_listening(server_t *s)
{
    if (s->tcp_on && !uv_is_closing((uv_handle_t *)&s->tcp_listener))
        uv_close((uv_handle_t *)&s->tcp_listener, NULL);
    if (s->unix_on && !uv_is_closing((uv_handle_t *)&s->unix_listener)) {
        uv_close((uv_handle_t *)&s->unix_listener, NULL);
        unlink(s->cfg.socket);
    }
}

void conn_tick(server_t *s)
{
    uint64_t now = now_ms(s), idle = (uint64_t)s->cfg.idle_timeout * 1000;
    LIST_EACH(it, &s->conns)
    {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (c->closing || c->mode == MODE_PLAY || c->mode == MODE_WATCH || c->mode == MODE_WAIT)
            continue;
        if (now - c->last_input_ms > idle) {
            const char *m = "\r\n\nIdle too long: goodbye.\r\n";
            conn_write(c, m, strlen(m));
            conn_close(c, "idle");
        }
    }
}
