/* notify — events between nodes (notify.h): the listener's connection
 * kept up, each event parsed and dispatched by its kind; chat lines from
 * other nodes handed to the game's viewers here. */
#include "notify.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_listen.h"
#include "hooks.h"
#include "lease.h"
#include "log.h"
#include "mail.h"
#include "moderation.h"
#include "nodeend.h"
#include "server.h"
#include "session.h"
#include "shard.h"

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
typedef void (*notify_ev_fn)(server_t *home, const notify_event_t *ev);

static void chat_heard(server_t *home, const notify_event_t *ev);

/* fn gets the ids, ev_fn the whole event; text: the kind carries NAME TEXT. */
static const struct {
    const char *kind;
    notify_fn fn;
    notify_ev_fn ev_fn;
    bool text;
} KINDS[] = {
    {NOTIFY_TAKE, lease_give_notified, NULL, false},
    {NOTIFY_SANCTIONS, moderation_changed_elsewhere, NULL, false},
    {NOTIFY_KICK, moderation_kicked_elsewhere, NULL, false},
    {NOTIFY_MAIL, mail_left_elsewhere, NULL, false},
    {NOTIFY_CHAT, NULL, chat_heard, true},
    {NOTIFY_END, NULL, nodeend_asked, false},
    {NOTIFY_ENDED, NULL, nodeend_answered, false},
};
#define NKINDS (sizeof KINDS / sizeof KINDS[0])

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
    if (digits[0] == '0' && (digits[1] || digits != text)) /* "007", "-0": as written, never */
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* KINDS' row of kind, or NKINDS. */
static size_t kind_at(const char *kind)
{
    size_t i = 0;
    while (i < NKINDS && strcmp(kind, KINDS[i].kind) != 0)
        i++;
    return i;
}

/* An account's name: letters, digits, '_' and '-' (accounts.c's rule). */
static bool name_ok(const char *name)
{
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return false;
    return name[0] != '\0';
}

/* A chat line's bytes travel as themselves only when printable ASCII. */
static bool kept_as_is(unsigned char c)
{
    return c > 0x20 && c < 0x7f && c != '%';
}

static const char HEX[] = "0123456789ABCDEF";

static int hex_of(char c)
{
    const char *at = c ? strchr(HEX, c) : NULL;
    return at ? (int)(at - HEX) : -1;
}

/* TEXT (the rest of a chat payload) decoded into ev: -1 unless every byte
 * is written as notify_format writes it and the line fits, with no
 * control characters. */
static int text_of(const char *p, notify_event_t *ev)
{
    size_t n = 0;
    for (; *p; n++) {
        int c = (unsigned char)*p, hi, lo;
        if (*p == '%' && (hi = hex_of(p[1])) >= 0 && (lo = hex_of(p[2])) >= 0) {
            c = hi * 16 + lo;
            p += 3;
            if (kept_as_is((unsigned char)c) || c < 0x20 || c == 0x7f)
                return -1; /* written as is, or not text */
        } else if (kept_as_is((unsigned char)c)) {
            p++;
        } else {
            return -1;
        }
        if (n >= NOTIFY_TEXT_MAX)
            return -1;
        ev->text[n] = (char)c;
    }
    ev->text[n] = '\0';
    ev->text_len = n;
    return n ? 0 : -1;
}

int notify_parse(const char *payload, notify_event_t *ev)
{
    const char *p = payload;
    char a[24], b[24];
    ev->name[0] = ev->text[0] = '\0';
    ev->text_len = 0;
    if (word(&p, ev->kind, sizeof ev->kind) || word(&p, ev->to, sizeof ev->to) ||
        word(&p, ev->from, sizeof ev->from) || word(&p, a, sizeof a) || word(&p, b, sizeof b) ||
        (p[-1] == ' ' && !*p))
        return -1;
    size_t k = kind_at(ev->kind);
    bool to_ok = strcmp(ev->to, "*") == 0 || config_node_ok(ev->to);
    if (k == NKINDS || !to_ok || !config_node_ok(ev->from) || id_of(a, &ev->a) || id_of(b, &ev->b))
        return -1;
    if (!KINDS[k].text)
        return *p ? -1 : 0;
    if (word(&p, ev->name, sizeof ev->name) || !name_ok(ev->name) || p[-1] != ' ')
        return -1;
    return text_of(p, ev);
}

int notify_format(const notify_event_t *ev, char *out, size_t n)
{
    int len =
        snprintf(out, n, "%s %s %s %" PRId64 " %" PRId64, ev->kind, ev->to, ev->from, ev->a, ev->b);
    if (len < 0 || (size_t)len >= n)
        return -1;
    size_t at = (size_t)len;
    if (ev->text_len == 0)
        return len;
    int w = snprintf(out + at, n - at, " %s ", ev->name);
    if (w < 0 || (size_t)w >= n - at)
        return -1;
    at += (size_t)w;
    for (size_t i = 0; i < ev->text_len; i++) {
        unsigned char c = (unsigned char)ev->text[i];
        if (at + 4 > n)
            return -1;
        if (kept_as_is(c)) {
            out[at++] = (char)c;
        } else {
            out[at++] = '%';
            out[at++] = HEX[c >> 4];
            out[at++] = HEX[c & 15];
        }
    }
    out[at] = '\0';
    return (int)at;
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
    if (!mine || strcmp(ev.from, home->cfg.node) == 0) /* not one this node sent */
        return;
    size_t k = kind_at(ev.kind);
    if (KINDS[k].fn)
        KINDS[k].fn(home, ev.to, ev.a, ev.b);
    else
        KINDS[k].ev_fn(home, &ev);
}

static void send_event(server_t *s, const notify_event_t *ev)
{
    char line[DB_NOTIFY_PAYLOAD_MAX];
    if (notify_format(ev, line, sizeof line) < 0)
        return log_error("node event %s too long to send", ev->kind);
    db_notify(s->db, DB_NOTIFY_CHANNEL, line);
}

void notify_send(server_t *s, const char *kind, const char *to, int64_t a, int64_t b)
{
    notify_event_t ev = {.a = a, .b = b};
    if (!lease_on(s))
        return;
    snprintf(ev.kind, sizeof ev.kind, "%s", kind);
    snprintf(ev.to, sizeof ev.to, "%s", to);
    snprintf(ev.from, sizeof ev.from, "%s", s->cfg.node);
    send_event(s, &ev);
}

void notify_send_chat(server_t *s, int64_t game, int64_t seq, const char *name, const char *text,
                      size_t n)
{
    notify_event_t ev = {.kind = NOTIFY_CHAT, .to = "*", .a = game, .b = seq};
    if (!lease_on(s) || game <= 0 || n == 0 || n > NOTIFY_TEXT_MAX || !name_ok(name))
        return; /* a hosted game (id below 1) runs on one node only and is watched there */
    snprintf(ev.from, sizeof ev.from, "%s", s->cfg.node);
    snprintf(ev.name, sizeof ev.name, "%s", name);
    memcpy(ev.text, text, n);
    ev.text_len = n;
    send_event(s, &ev);
}

/* ---- chat from other nodes ------------------------------------------------------------ */

typedef struct {
    int64_t game;
    char name[32];
    char text[NOTIFY_TEXT_MAX + 1];
    size_t len;
} heard_t;

/* On a loop: the game's viewers here (its own game, or home's mirror of
 * another node's) get the line. */
static void heard_on_loop(server_t *k, void *ud)
{
    heard_t *h = ud;
    session_t *s = session_find_game(k, h->game);
    if (s && !s->ended && k->hooks->chat_heard)
        k->hooks->chat_heard(s, h->name, h->text, h->len);
    free(h);
}

/* Each loop looks for the game: home's mirror, or the loop it runs on. */
static void chat_heard(server_t *home, const notify_event_t *ev)
{
    if (ev->a <= 0) /* never a game's id: hosted games' sessions have 0 */
        return;
    for (int i = 0; i < shard_count(home); i++) {
        heard_t *h = malloc(sizeof *h);
        if (!h)
            return log_error("chat from node %s dropped: out of memory", ev->from);
        h->game = ev->a;
        h->len = ev->text_len;
        memcpy(h->name, ev->name, sizeof h->name);
        memcpy(h->text, ev->text, sizeof h->text);
        if (i == 0)
            heard_on_loop(home, h);
        else if (shard_post(shard_at(home, i), heard_on_loop, h) != 0)
            free(h);
    }
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

/* Listening again after a gap: what the events of the gap would have
 * changed is read from the rows instead (those sent from now on are
 * heard), so a ban or mute made meanwhile holds here, an account deleted
 * or locked is sent off and mail left for someone at the menu shows. A
 * plain kick of the gap leaves no row: it is not repeated. */
static void catch_up(server_t *home)
{
    log_info("node events: listening again; bans, mutes, accounts and waiting mail read again");
    moderation_changed_elsewhere(home, "*", 0, 0);
    moderation_recheck_accounts(home);
    HOOKS_CALL(home->hooks->mail_left, home, 0);
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
    bool missed = n->failing;
    n->failing = false;
    if (db_listen_read(n->l, on_event, n, err, sizeof err) != DB_OK) /* what came meanwhile */
        log_error("node events: %s", err);
    if (missed)
        catch_up(n->home);
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
    nodeend_stop(home);
    n->stopping = true;
    uv_timer_stop(&n->retry);
    uv_close((uv_handle_t *)&n->retry, on_handle_closed);
    if (n->polling) {
        n->polling = false;
        uv_poll_stop(&n->poll);
        uv_close((uv_handle_t *)&n->poll, on_handle_closed);
    }
}
