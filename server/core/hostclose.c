/* hostclose — an account's hosted games closed at every node before its
 * delete's rows go (hostclose.h): the closes here and their waits, the
 * asker's requests to the other nodes. */
#include "hostclose.h"
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "lease.h"
#include "list.h"
#include "log.h"
#include "peer.h"
#include "server.h"
#include "session.h"

/* A close here waiting for its games' programs to end and their last
 * copies to be stored. */
typedef struct {
    list_t node; /* struct hostcloses' heres */
    uv_timer_t timer;
    server_t *home;
    int64_t user;
    uint64_t began; /* now_ms */
    hostclose_here_cb done;
    void *ud;
} here_t;

/* A request to every other live node, waiting for their answers. */
typedef struct {
    list_t node; /* struct hostcloses' asks, once the nodes are read */
    uv_timer_t timer;
    server_t *home;
    int64_t user;
    int n, left;
    char to[HOSTCLOSE_NODES][64];
    bool answered[HOSTCLOSE_NODES];
    hostclose_cb cb;
    void *ud;
} ask_t;

struct hostcloses {
    list_t heres, asks;
    int nheres;            /* on heres: HOSTCLOSE_HERES at most */
    log_every_t full_said; /* a close past the cap: once per HOSTCLOSE_LOG_MS */
};

static struct hostcloses *closes_of(server_t *home)
{
    if (!home->lease.closes && (home->lease.closes = calloc(1, sizeof *home->lease.closes))) {
        list_init(&home->lease.closes->heres);
        list_init(&home->lease.closes->asks);
    }
    return home->lease.closes;
}

static void on_timer_closed(uv_handle_t *h)
{
    free(h->data);
}

/* ---- closes here ------------------------------------------------------------------- */

/* Whether a game of user still runs here, or the last copy of one is on
 * its way (its line in the heartbeat's list of hosted games). */
static bool still_copying(server_t *home, int64_t user)
{
    if (session_user_any(home, user))
        return true;
    LIST_EACH (it, &home->hostcopies.games) {
        const peer_hosted_t *h = LIST_ITEM(it, peer_hosted_t, node);
        if (h->user == user)
            return true;
    }
    return false;
}

static void here_done(here_t *h, bool done)
{
    list_remove(&h->node);
    if (h->home->lease.closes)
        h->home->lease.closes->nheres--;
    uv_timer_stop(&h->timer);
    uv_close((uv_handle_t *)&h->timer, on_timer_closed);
    if (done)
        db_flush(h->home->db); /* the copies' writes before what done writes */
    h->done(h->ud, done);
}

static void on_here_poll(uv_timer_t *t)
{
    here_t *h = t->data;
    if (!still_copying(h->home, h->user))
        return here_done(h, true);
    if (now_ms(h->home) - h->began < HOSTCLOSE_WAIT_MS)
        return;
    log_warn("hosted games of account %lld: closed, but not done within %d ms (a program "
             "still exiting, or its last copy on its way)",
             (long long)h->user, HOSTCLOSE_WAIT_MS);
    here_done(h, false);
}

void hostclose_here(server_t *home, int64_t user, hostclose_here_cb done, void *ud)
{
    int n = 0;
    while (n < 8 && session_close_user(home, user, HOSTCLOSE_GAME_MSG))
        n++; /* each closed is ended or gone: at most its games */
    if (n)
        db_flush(home->db);
    if (!still_copying(home, user))
        return done(ud, true);
    struct hostcloses *e = home->lease.notify ? closes_of(home) : NULL; /* stopped: none */
    unsigned held;
    if (e && e->nheres >= HOSTCLOSE_HERES) {
        if (log_every(&e->full_said, now_ms(home), HOSTCLOSE_LOG_MS, &held))
            log_warn("hosted games of account %lld: closed, but not waited for (%d closes "
                     "waiting at once; %u more not logged since the last line)",
                     (long long)user, HOSTCLOSE_HERES, held);
        return done(ud, false);
    }
    here_t *h = e ? calloc(1, sizeof *h) : NULL;
    if (!h) {
        log_error("hosted games of account %lld: not waited for (stopping, or out of memory)",
                  (long long)user);
        return done(ud, false);
    }
    *h = (here_t){.home = home, .user = user, .began = now_ms(home), .done = done, .ud = ud};
    uv_timer_init(home->loop, &h->timer);
    h->timer.data = h;
    list_push_back(&e->heres, &h->node);
    e->nheres++;
    uv_timer_start(&h->timer, on_here_poll, HOSTCLOSE_POLL_MS, HOSTCLOSE_POLL_MS);
}

/* ---- asked by another node ------------------------------------------------------------- */

typedef struct {
    server_t *home;
    int64_t user;
    char from[64];
} asked_t;

static void asked_done(void *ud, bool done)
{
    asked_t *q = ud;
    log_info("close of account %lld's games asked by node %s: %s", (long long)q->user, q->from,
             done ? "closed, copies stored" : "not done in time");
    notify_send(q->home, NOTIFY_HCLOSED, q->from, q->user, done);
    free(q);
}

void hostclose_asked(server_t *home, const notify_event_t *ev)
{
    asked_t *q = ev->a > 0 ? malloc(sizeof *q) : NULL;
    if (!q)
        return log_error("close of account %lld's games asked by node %s: %s", (long long)ev->a,
                         ev->from, ev->a > 0 ? "out of memory" : "no such account");
    *q = (asked_t){.home = home, .user = ev->a};
    snprintf(q->from, sizeof q->from, "%s", ev->from);
    hostclose_here(home, ev->a, asked_done, q);
}

/* ---- asking the other nodes ------------------------------------------------------------ */

static void ask_done(ask_t *a, hostclose_result_t result, const char *node)
{
    list_remove(&a->node);
    uv_timer_stop(&a->timer);
    uv_close((uv_handle_t *)&a->timer, on_timer_closed);
    a->cb(a->ud, result, node);
}

static void on_ask_silent(uv_timer_t *t)
{
    ask_t *a = t->data;
    int i = 0;
    while (i < a->n && a->answered[i])
        i++;
    log_warn("node %s did not answer the close of account %lld's games", a->to[i],
             (long long)a->user);
    ask_done(a, HOSTCLOSE_SILENT, a->to[i]);
}

/* names: the other live nodes, separated by ','; false when over
 * HOSTCLOSE_NODES or one is too long. */
static bool take_names(ask_t *a, const char *names, size_t len)
{
    for (const char *at = names, *end = names + len; at < end;) {
        const char *comma = memchr(at, ',', (size_t)(end - at));
        size_t n = comma ? (size_t)(comma - at) : (size_t)(end - at);
        if (n >= sizeof a->to[0] || a->n == HOSTCLOSE_NODES)
            return false;
        if (n)
            snprintf(a->to[a->n++], sizeof a->to[0], "%.*s", (int)n, at);
        at += n + 1;
    }
    return true;
}

static void on_nodes(void *ud, int status, const char *names, size_t len)
{
    ask_t *a = ud;
    server_t *home = a->home;
    struct hostcloses *e = home->lease.closes; /* stopped meanwhile: none */
    bool read = e && status == DB_OK;
    bool ok = read && take_names(a, names ? names : "", names ? len : 0);
    if (read && !ok)
        log_error("close of account %lld's games at other nodes: not asked (over %d live nodes, "
                  "or a name over %zu bytes)",
                  (long long)a->user, HOSTCLOSE_NODES, sizeof a->to[0] - 1);
    if (!ok || a->n == 0) {
        a->cb(a->ud, ok ? HOSTCLOSE_DONE : read ? HOSTCLOSE_TOO_MANY : HOSTCLOSE_FAILED, NULL);
        return free(a);
    }
    a->left = a->n;
    uv_timer_init(home->loop, &a->timer);
    a->timer.data = a;
    list_push_back(&e->asks, &a->node);
    uv_timer_start(&a->timer, on_ask_silent, HOSTCLOSE_ASK_MS, 0);
    for (int i = 0; i < a->n; i++) {
        log_info("admin: close of account %lld's games asked of node %s", (long long)a->user,
                 a->to[i]);
        notify_send(home, NOTIFY_HCLOSE, a->to[i], a->user, 0);
    }
}

void hostclose_nodes(server_t *home, int64_t user, hostclose_cb cb, void *ud)
{
    ask_t *a = home->lease.notify && closes_of(home) ? calloc(1, sizeof *a) : NULL;
    if (!a) {
        log_error("close of account %lld's games at other nodes: not asked (stopping, or out of "
                  "memory)",
                  (long long)user);
        return cb(ud, HOSTCLOSE_FAILED, NULL);
    }
    *a = (ask_t){.home = home, .user = user, .cb = cb, .ud = ud};
    list_init(&a->node);
    db_peer_nodes(home->db, home->cfg.node, on_nodes, a);
}

void hostclose_answered(server_t *home, const notify_event_t *ev)
{
    struct hostcloses *e = home->lease.closes;
    if (!e)
        return;
    LIST_EACH (it, &e->asks) {
        ask_t *a = LIST_ITEM(it, ask_t, node);
        for (int i = 0; a->user == ev->a && i < a->n; i++) {
            if (a->answered[i] || strcmp(a->to[i], ev->from) != 0)
                continue;
            a->answered[i] = true;
            if (!ev->b)
                return ask_done(a, HOSTCLOSE_UNSTORED, a->to[i]);
            if (--a->left == 0)
                return ask_done(a, HOSTCLOSE_DONE, NULL);
            return;
        }
    }
}

void hostclose_stop(server_t *home)
{
    struct hostcloses *e = home->lease.closes;
    if (!e)
        return;
    home->lease.closes = NULL;
    while (!list_empty(&e->heres))
        here_done(LIST_ITEM(list_front(&e->heres), here_t, node), false);
    while (!list_empty(&e->asks))
        ask_done(LIST_ITEM(list_front(&e->asks), ask_t, node), HOSTCLOSE_FAILED, NULL);
    free(e);
}
