/* notify — events between nodes (notify.h): the listener's connection
 * kept up, each event parsed and dispatched by its kind. */
#include "notify.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_listen.h"
#include "lease.h"
#include "log.h"
#include "mail.h"
#include "moderation.h"
#include "server.h"

#define NOTIFY_RETRY_MS 1000 /* between two tries to connect the listener */

struct notify {
    server_t *home;
    db_listen_t *l;   /* the connection, NULL while none */
    db_listen_t *got; /* what the thread pool's connect made */
    uv_poll_t poll;
    uv_timer_t retry;
    uv_work_t work;
    bool polling, working, stopping, failing;
    int open; /* handles not yet closed */
    char err[256];
};

/* ---- the kinds -------------------------------------------------------------------- */

typedef void (*notify_fn)(server_t *home, const char *to, int64_t a, int64_t b);

static const struct {
    const char *kind;
    notify_fn fn;
} KINDS[] = {
    {NOTIFY_TAKE, lease_give_notified},
    {NOTIFY_SANCTIONS, moderation_changed_elsewhere},
    {NOTIFY_KICK, moderation_kicked_elsewhere},
    {NOTIFY_MAIL, mail_left_elsewhere},
};

/* The next word of *p (up to a space or the end) into out (n bytes): -1
 * when empty or too long; *p then points past one space. */
static int word(const char **p, char *out, size_t n)
{
    size_t len = strcspn(*p, " ");
    if (len == 0 || len >= n)
        return -1;
    memcpy(out, *p, len);
    out[len] = '\0';
    *p += len + ((*p)[len] == ' ');
    return 0;
}

static int id_of(const char *text, int64_t *out)
{
    const char *digits = text + (text[0] == '-');
    if (!isdigit((unsigned char)digits[0])) /* strtoll would skip spaces, take a '+' */
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static notify_fn kind_fn(const char *kind)
{
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (strcmp(kind, KINDS[i].kind) == 0)
            return KINDS[i].fn;
    return NULL;
}

int notify_parse(const char *payload, notify_event_t *ev)
{
    const char *p = payload;
    char a[24], b[24];
    if (word(&p, ev->kind, sizeof ev->kind) || word(&p, ev->to, sizeof ev->to) ||
        word(&p, ev->from, sizeof ev->from) || word(&p, a, sizeof a) || word(&p, b, sizeof b) ||
        *p || p[-1] == ' ')
        return -1;
    bool to_ok = strcmp(ev->to, "*") == 0 || config_node_ok(ev->to);
    if (!kind_fn(ev->kind) || !to_ok || !config_node_ok(ev->from) || id_of(a, &ev->a) ||
        id_of(b, &ev->b))
        return -1;
    return 0;
}

static void on_event(void *ud, const char *payload)
{
    notify_t *n = ud;
    server_t *home = n->home;
    notify_event_t ev;
    if (notify_parse(payload, &ev)) {
        log_warn("node event not understood: %.80s", payload);
        return;
    }
    bool mine = strcmp(ev.to, "*") == 0 || strcmp(ev.to, home->cfg.node) == 0;
    if (mine && strcmp(ev.from, home->cfg.node) != 0) /* not one this node sent */
        kind_fn(ev.kind)(home, ev.to, ev.a, ev.b);
}

void notify_send(server_t *s, const char *kind, const char *to, int64_t a, int64_t b)
{
    char line[DB_NOTIFY_PAYLOAD_MAX];
    if (!lease_on(s))
        return;
    snprintf(line, sizeof line, "%s %s %s %" PRId64 " %" PRId64, kind, to, s->cfg.node, a, b);
    db_notify(s->db, DB_NOTIFY_CHANNEL, line);
}

/* ---- the connection --------------------------------------------------------------- */

static void connect_later(notify_t *n);

static void maybe_free(notify_t *n)
{
    if (n->stopping && n->open == 0 && !n->working) {
        db_listen_close(n->l);
        free(n);
    }
}

static void on_handle_closed(uv_handle_t *h)
{
    notify_t *n = h->data;
    n->open--;
    maybe_free(n);
}

/* The poll closed after a lost connection: the connection goes, a new one later. */
static void on_poll_closed(uv_handle_t *h)
{
    notify_t *n = h->data;
    n->open--;
    db_listen_close(n->l);
    n->l = NULL;
    if (n->stopping)
        return maybe_free(n);
    connect_later(n);
}

static void on_readable(uv_poll_t *p, int status, int events)
{
    notify_t *n = p->data;
    (void)events;
    char err[256] = "poll failed";
    if (status == 0 && db_listen_read(n->l, on_event, n, err, sizeof err) == DB_OK)
        return;
    log_error("node events: %s; listening again in %d ms", err, NOTIFY_RETRY_MS);
    n->failing = true;
    n->polling = false;
    uv_poll_stop(p);
    uv_close((uv_handle_t *)p, on_poll_closed);
}

static void connect_work(uv_work_t *w)
{
    notify_t *n = w->data;
    n->got = db_listen_open(n->home->cfg.db, DB_NOTIFY_CHANNEL, n->err, sizeof n->err);
}

static void listen_on(notify_t *n)
{
    char err[256] = "";
    n->l = n->got;
    n->got = NULL;
    if (uv_poll_init_socket(n->home->loop, &n->poll, db_listen_fd(n->l)) != 0) {
        log_error("node events: cannot poll the listener's socket");
        db_listen_close(n->l);
        n->l = NULL;
        return connect_later(n);
    }
    n->poll.data = n;
    n->open++;
    n->polling = true;
    uv_poll_start(&n->poll, UV_READABLE, on_readable);
    if (n->failing)
        log_info("node events: listening again");
    n->failing = false;
    if (db_listen_read(n->l, on_event, n, err, sizeof err) != DB_OK) /* what came meanwhile */
        log_error("node events: %s", err);
}

static void connect_done(uv_work_t *w, int status)
{
    notify_t *n = w->data;
    n->working = false;
    if (n->stopping || status != 0) {
        db_listen_close(n->got);
        n->got = NULL;
        return n->stopping ? maybe_free(n) : connect_later(n);
    }
    if (n->got)
        return listen_on(n);
    if (!n->failing)
        log_error("node events: %s; trying again every %d ms", n->err, NOTIFY_RETRY_MS);
    n->failing = true;
    connect_later(n);
}

static void connect_now(notify_t *n)
{
    n->work.data = n;
    n->working = uv_queue_work(n->home->loop, &n->work, connect_work, connect_done) == 0;
    if (!n->working)
        connect_later(n);
}

static void on_retry(uv_timer_t *t)
{
    connect_now(t->data);
}

static void connect_later(notify_t *n)
{
    uv_timer_start(&n->retry, on_retry, NOTIFY_RETRY_MS, 0);
}

void notify_start(server_t *home)
{
    notify_t *n = lease_on(home) ? calloc(1, sizeof *n) : NULL;
    if (!n) {
        if (lease_on(home))
            log_error("node events: out of memory; other nodes' events are not heard");
        return;
    }
    n->home = home;
    uv_timer_init(home->loop, &n->retry);
    n->retry.data = n;
    n->open = 1;
    home->lease.notify = n;
    connect_now(n);
}

void notify_stop(server_t *home)
{
    notify_t *n = home->lease.notify;
    if (!n)
        return;
    home->lease.notify = NULL;
    n->stopping = true;
    uv_timer_stop(&n->retry);
    uv_close((uv_handle_t *)&n->retry, on_handle_closed);
    if (n->polling) {
        n->polling = false;
        uv_poll_stop(&n->poll);
        uv_close((uv_handle_t *)&n->poll, on_handle_closed);
    }
}
