/* client: the `warren` session loop. See client.h.
 *
 * Data flow: terminal bytes -> telnet_send -> socket; socket -> telnet_recv
 * -> DATA events -> terminal. Everything else is option negotiation and the
 * orderly way out (client_stop), which closes every handle so uv_run()
 * returns and main() restores the terminal.
 */
#include "client.h"

#include <errno.h>
#include <libtelnet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "telopts.h"
#include "term.h"

/* Stop reading the server while this much terminal output is queued: a
 * slow terminal slows the socket, not our memory. */
#define CLIENT_OUT_HIGH (256u * 1024u)
#define CLIENT_OUT_LOW  (64u * 1024u)
/* Output still queued this long after we decided to stop is dropped. */
#define CLIENT_FLUSH_MS 2000

typedef union client_stream_u {
    uv_handle_t handle;
    uv_stream_t stream;
    uv_tty_t tty;
    uv_pipe_t pipe;
    uv_tcp_t tcp;
} client_stream_u;

enum { SIG_INT, SIG_TERM, SIG_HUP, SIG_WINCH, SIG_COUNT };
static const int client_signums[SIG_COUNT] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH};

struct client_t {
    uv_loop_t *loop;
    client_opts_t opts;
    telnet_telopt_t telopts[TELOPTS_N];
    telnet_t *telnet;

    client_stream_u net, in, out;
    int net_open, in_open, out_open; /* initialised and not yet closing */
    int net_ready;                   /* connected: writes may go out */
    uv_connect_t connect_req;
    uv_getaddrinfo_t gai_req;
    struct addrinfo *addrs, *addr_next;
    uv_shutdown_t shutdown_req;
    int last_err; /* from the previous address tried */

    uv_signal_t sigs[SIG_COUNT];
    int sigs_open;
    uv_timer_t flush_timer;
    int flush_open;

    int out_fd;     /* stdout is a plain file: blocking writes to it */
    int is_tty;     /* stdin and stdout are a terminal: raw mode, NAWS */
    int raw;        /* raw mode entered */
    int naws_on;    /* server said DO NAWS */
    int binary_out; /* server said DO BINARY: CR goes out bare */
    int reading_net;
    size_t out_pending;

    int stopping;
    int exit_code;
    char message[512];
    char readbuf[65536];
};

typedef struct client_write_t {
    uv_write_t req;
    client_t *c;
    size_t len;
    char data[];
} client_write_t;

static void client_stop(client_t *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- closing -------------------------------------------------------------- */

static void client_on_closed(uv_handle_t *h)
{
    (void)h; /* every handle is embedded in client_t, freed by client_free */
}

static void client_close(uv_handle_t *h, int *open)
{
    if (*open && !uv_is_closing(h))
        uv_close(h, client_on_closed);
    *open = 0;
}

static void client_close_out(client_t *c)
{
    client_close(&c->out.handle, &c->out_open);
    client_close((uv_handle_t *)&c->flush_timer, &c->flush_open);
}

static void client_on_flush_timeout(uv_timer_t *t)
{
    client_close_out(t->data);
}

static void client_stop(client_t *c, int code, const char *fmt, ...)
{
    if (c->stopping)
        return;
    c->stopping = 1;
    c->exit_code = code;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->message, sizeof c->message, fmt, ap);
        va_end(ap);
    }
    c->net_ready = 0;
    client_close(&c->net.handle, &c->net_open);
    client_close(&c->in.handle, &c->in_open);
    if (c->sigs_open) {
        for (int i = 0; i < SIG_COUNT; i++)
            uv_close((uv_handle_t *)&c->sigs[i], client_on_closed);
        c->sigs_open = 0;
    }
    if (!c->out_open || c->out_pending == 0) {
        client_close_out(c);
        return;
    }
    /* Let the last screen reach the terminal, but not forever. */
    if (uv_timer_init(c->loop, &c->flush_timer) == 0) {
        c->flush_open = 1;
        c->flush_timer.data = c;
        uv_timer_start(&c->flush_timer, client_on_flush_timeout, CLIENT_FLUSH_MS, 0);
        uv_unref((uv_handle_t *)&c->flush_timer);
    }
}

/* ---- output to the terminal ----------------------------------------------- */

static void client_on_net_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
static void client_on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf);

static void client_on_out_written(uv_write_t *req, int status)
{
    client_write_t *w = (client_write_t *)req;
    client_t *c = w->c;
    c->out_pending -= w->len;
    free(w);
    if (status < 0 && status != UV_ECANCELED) {
        client_close_out(c);
        client_stop(c, 1, "warren: cannot write to the terminal: %s", uv_strerror(status));
        return;
    }
    if (c->stopping) {
        if (c->out_pending == 0)
            client_close_out(c);
        return;
    }
    if (!c->reading_net && c->out_pending < CLIENT_OUT_LOW && c->net_open) {
        if (uv_read_start(&c->net.stream, client_on_alloc, client_on_net_read) == 0)
            c->reading_net = 1;
    }
}

/* A write request owning a copy of data; NULL (and the client stopping) on OOM. */
static client_write_t *client_write_new(client_t *c, const char *data, size_t len, uv_buf_t *buf)
{
    client_write_t *w = malloc(sizeof *w + len);
    if (!w) {
        client_stop(c, 1, "warren: out of memory");
        return NULL;
    }
    w->c = c;
    w->len = len;
    memcpy(w->data, data, len);
    *buf = uv_buf_init(w->data, (unsigned)len);
    return w;
}

static void client_out_write(client_t *c, const char *data, size_t len)
{
    client_write_t *w;
    uv_buf_t buf;
    if (!c->out_open) {
        while (c->out_fd && len > 0) {
            ssize_t n = write(STDOUT_FILENO, data, len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            data += n;
            len -= (size_t)n;
        }
        return;
    }
    w = client_write_new(c, data, len, &buf);
    if (!w)
        return;
    if (uv_write(&w->req, &c->out.stream, &buf, 1, client_on_out_written) < 0) {
        free(w);
        return;
    }
    c->out_pending += len;
    if (c->out_pending > CLIENT_OUT_HIGH && c->reading_net) {
        uv_read_stop(&c->net.stream);
        c->reading_net = 0;
    }
}

/* ---- output to the server ------------------------------------------------- */

static void client_on_net_written(uv_write_t *req, int status)
{
    client_write_t *w = (client_write_t *)req;
    client_t *c = w->c;
    free(w);
    if (status < 0 && status != UV_ECANCELED)
        client_stop(c, 1, "warren: connection lost: %s", uv_strerror(status));
}

static void client_net_write(client_t *c, const char *data, size_t len)
{
    client_write_t *w;
    uv_buf_t buf;
    if (!c->net_ready)
        return;
    w = client_write_new(c, data, len, &buf);
    if (!w)
        return;
    if (uv_write(&w->req, &c->net.stream, &buf, 1, client_on_net_written) < 0)
        free(w);
}

static void client_send_naws(client_t *c)
{
    unsigned cols, rows;
    unsigned char sb[4];
    if (!c->naws_on || term_get_size(STDOUT_FILENO, &cols, &rows) < 0)
        return;
    cols = cols > 0xffff ? 0xffff : cols;
    rows = rows > 0xffff ? 0xffff : rows;
    sb[0] = (unsigned char)(cols >> 8);
    sb[1] = (unsigned char)cols;
    sb[2] = (unsigned char)(rows >> 8);
    sb[3] = (unsigned char)rows;
    telnet_subnegotiation(c->telnet, TELNET_TELOPT_NAWS, (const char *)sb, sizeof sb);
}

static void client_send_environ(client_t *c, const char *buf, size_t n)
{
    const unsigned char *b = (const unsigned char *)buf;
    const unsigned char is = TELNET_ENVIRON_IS;
    int wanted = telopts_environ_request(b, n);
    if (!c->opts.ssh || wanted < 0)
        return;
    /* the answer is built by hand: see telopts.c on libtelnet 0.21 */
    telnet_begin_sb(c->telnet, TELNET_TELOPT_NEW_ENVIRON);
    telnet_send(c->telnet, (const char *)&is, 1);
    if (c->opts.remote_addr && wanted) {
        telnet_newenviron_value(c->telnet, TELNET_ENVIRON_USERVAR, "REMOTE_ADDR");
        telnet_newenviron_value(c->telnet, TELNET_ENVIRON_VALUE, c->opts.remote_addr);
    }
    telnet_finish_sb(c->telnet);
}

/* Keys from the terminal. Outside BINARY mode a bare CR must go out as
 * CR NUL (RFC 854); telnet_send doubles IAC bytes. */
static void client_send_keys(client_t *c, const char *data, size_t len)
{
    size_t start = 0;
    if (c->binary_out) {
        telnet_send(c->telnet, data, len);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\r')
            continue;
        telnet_send(c->telnet, data + start, i + 1 - start);
        telnet_send(c->telnet, "", 1);
        start = i + 1;
    }
    if (start < len)
        telnet_send(c->telnet, data + start, len - start);
}

/* ---- telnet events -------------------------------------------------------- */

static void client_on_option(client_t *c, const telnet_event_t *ev)
{
    int on = ev->type == TELNET_EV_DO;
    switch (ev->neg.telopt) {
    case TELNET_TELOPT_NAWS:
        c->naws_on = on;
        if (on)
            client_send_naws(c);
        break;
    case TELNET_TELOPT_BINARY: c->binary_out = on; break;
    default: break;
    }
}

static void client_on_telnet(telnet_t *t, telnet_event_t *ev, void *ud)
{
    client_t *c = ud;
    (void)t;
    switch (ev->type) {
    case TELNET_EV_DATA: client_out_write(c, ev->data.buffer, ev->data.size); break;
    case TELNET_EV_SEND: client_net_write(c, ev->data.buffer, ev->data.size); break;
    case TELNET_EV_DO:
    case TELNET_EV_DONT: client_on_option(c, ev); break;
    case TELNET_EV_TTYPE:
        if (ev->ttype.cmd == TELNET_TTYPE_SEND)
            telnet_ttype_is(c->telnet, c->opts.ttype);
        break;
    case TELNET_EV_SUBNEGOTIATION:
        if (ev->sub.telopt == TELNET_TELOPT_NEW_ENVIRON)
            client_send_environ(c, ev->sub.buffer, ev->sub.size);
        break;
    case TELNET_EV_ERROR:
        client_stop(c, 1, "warren: telnet protocol error from the server: %s", ev->error.msg);
        break;
    default: break;
    }
}

static void client_build_telopts(client_t *c)
{
    telopts_fill(c->telopts, c->is_tty, c->opts.ssh);
}

/* ---- reading -------------------------------------------------------------- */

static void client_on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    client_t *c = h->data;
    (void)hint;
    *buf = uv_buf_init(c->readbuf, sizeof c->readbuf);
}

static void client_on_net_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    client_t *c = s->data;
    if (n > 0) {
        telnet_recv(c->telnet, buf->base, (size_t)n);
        return;
    }
    if (n == UV_EOF)
        client_stop(c, 0, "warren: the server closed the connection.");
    else if (n < 0)
        client_stop(c, 1, "warren: connection to the server lost: %s", uv_strerror((int)n));
}

static void client_on_in_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    client_t *c = s->data;
    if (n > 0) {
        client_send_keys(c, buf->base, (size_t)n);
        return;
    }
    if (n < 0) {
        /* End of input (a script, a closed pipe): tell the server we are
         * done sending and keep showing what it says until it closes. */
        client_close(&c->in.handle, &c->in_open);
        if (c->net_ready && uv_shutdown(&c->shutdown_req, &c->net.stream, NULL) < 0)
            client_stop(c, 0, NULL);
    }
}

/* ---- terminal streams ----------------------------------------------------- */

static int client_open_stream(client_t *c, client_stream_u *s, int fd, int readable)
{
    int ret;
    switch (uv_guess_handle(fd)) {
    case UV_TTY: ret = uv_tty_init(c->loop, &s->tty, fd, readable); break;
    case UV_NAMED_PIPE:
    case UV_TCP:
        /* ssh without a pty hands us a socket or pipe */
        ret = uv_pipe_init(c->loop, &s->pipe, 0);
        if (ret == 0 && (ret = uv_pipe_open(&s->pipe, fd)) < 0)
            uv_close(&s->handle, client_on_closed);
        break;
    default: return UV_EINVAL;
    }
    if (ret == 0)
        s->handle.data = c;
    return ret;
}

static void client_on_signal(uv_signal_t *h, int signum)
{
    client_t *c = h->data;
    if (signum == SIGWINCH) {
        client_send_naws(c);
        return;
    }
    client_stop(c, 128 + signum, "warren: stopped by %s.", strsignal(signum));
}

static int client_start_signals(client_t *c)
{
    for (int i = 0; i < SIG_COUNT; i++) {
        int ret = uv_signal_init(c->loop, &c->sigs[i]);
        if (ret < 0)
            return ret;
        c->sigs[i].data = c;
        ret = uv_signal_start(&c->sigs[i], client_on_signal, client_signums[i]);
        if (ret < 0)
            return ret;
    }
    c->sigs_open = 1;
    return 0;
}

/* ---- connecting ----------------------------------------------------------- */

static void client_on_connected(client_t *c)
{
    int ret;
    c->net_ready = 1;
    c->net.handle.data = c;
    if (c->is_tty && term_raw_enter(STDIN_FILENO) == 0)
        c->raw = 1;
    ret = uv_read_start(&c->net.stream, client_on_alloc, client_on_net_read);
    if (ret < 0) {
        client_stop(c, 1, "warren: cannot read from the server: %s", uv_strerror(ret));
        return;
    }
    c->reading_net = 1;
    if (c->in_open) {
        ret = uv_read_start(&c->in.stream, client_on_alloc, client_on_in_read);
        if (ret < 0)
            client_close(&c->in.handle, &c->in_open);
    }
}

static void client_try_next_addr(client_t *c, int last_err);

static void client_on_connect(uv_connect_t *req, int status)
{
    client_t *c = req->data;
    char where[300];
    if (c->stopping)
        return;
    if (status == 0) {
        client_on_connected(c);
        return;
    }
    if (!c->opts.target.is_unix) {
        client_try_next_addr(c, status);
        return;
    }
    client_stop(c, 1, "warren: cannot connect to %s: %s%s",
                target_describe(&c->opts.target, where, sizeof where), uv_strerror(status),
                status == UV_ENOENT || status == UV_ECONNREFUSED
                    ? " (is warrend running? use --socket PATH or HOST:PORT)"
                    : "");
}

static void client_on_net_closed_retry(uv_handle_t *h)
{
    client_t *c = h->data;
    if (!c->stopping)
        client_try_next_addr(c, c->last_err);
}

/* One address after the other; a failed handle is closed (its memory is
 * reused for the next attempt only after the close callback). */
static void client_try_next_addr(client_t *c, int last_err)
{
    char where[300];
    if (c->net_open) {
        c->last_err = last_err;
        c->net_open = 0;
        uv_close(&c->net.handle, client_on_net_closed_retry);
        return;
    }
    if (c->addr_next) {
        struct addrinfo *ai = c->addr_next;
        int ret;
        c->addr_next = ai->ai_next;
        ret = uv_tcp_init(c->loop, &c->net.tcp);
        if (ret == 0) {
            c->net_open = 1;
            c->net.handle.data = c;
            c->connect_req.data = c;
            ret = uv_tcp_connect(&c->connect_req, &c->net.tcp, ai->ai_addr, client_on_connect);
            if (ret < 0)
                client_try_next_addr(c, ret);
            return;
        }
        last_err = ret;
    }
    client_stop(c, 1, "warren: cannot connect to %s: %s",
                target_describe(&c->opts.target, where, sizeof where), uv_strerror(last_err));
}

static void client_on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    client_t *c = req->data;
    char where[300];
    if (c->stopping) {
        uv_freeaddrinfo(res);
        return;
    }
    if (status < 0) {
        client_stop(c, 1, "warren: cannot resolve %s: %s",
                    target_describe(&c->opts.target, where, sizeof where), uv_strerror(status));
        return;
    }
    c->addrs = c->addr_next = res;
    client_try_next_addr(c, UV_ECONNREFUSED);
}

static int client_start_connect(client_t *c)
{
    struct addrinfo hints;
    if (c->opts.target.is_unix) {
        int ret = uv_pipe_init(c->loop, &c->net.pipe, 0);
        if (ret < 0)
            return ret;
        c->net_open = 1;
        c->net.handle.data = c;
        c->connect_req.data = c;
        uv_pipe_connect(&c->connect_req, &c->net.pipe, c->opts.target.path, client_on_connect);
        return 0;
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    c->gai_req.data = c;
    return uv_getaddrinfo(c->loop, &c->gai_req, client_on_resolved, c->opts.target.host,
                          c->opts.target.port, &hints);
}

/* ---- lifecycle ------------------------------------------------------------ */

client_t *client_new(uv_loop_t *loop, const client_opts_t *opts)
{
    client_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->loop = loop;
    c->opts = *opts;
    c->is_tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    client_build_telopts(c);
    c->telnet = telnet_init(c->telopts, client_on_telnet, 0, c);
    if (!c->telnet) {
        free(c);
        return NULL;
    }
    return c;
}

int client_start(client_t *c)
{
    int ret;
    if (client_open_stream(c, &c->out, STDOUT_FILENO, 0) == 0)
        c->out_open = 1;
    else
        c->out_fd = 1;
    if (client_open_stream(c, &c->in, STDIN_FILENO, 1) == 0)
        c->in_open = 1;
    ret = client_start_signals(c);
    if (ret == 0)
        ret = client_start_connect(c);
    if (ret < 0)
        client_stop(c, 1, "warren: cannot start: %s", uv_strerror(ret));
    return ret;
}

int client_exit_code(const client_t *c)
{
    return c->exit_code;
}

const char *client_message(const client_t *c)
{
    return c->message;
}

void client_free(client_t *c)
{
    if (!c)
        return;
    if (c->addrs)
        uv_freeaddrinfo(c->addrs);
    telnet_free(c->telnet);
    free(c);
}
