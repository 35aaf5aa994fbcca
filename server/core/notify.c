/* notify — events between nodes (notify.h): the listener's connection
 * kept up, the event log read behind it, each event applied once, parsed
 * and dispatched by its kind; chat lines from other nodes handed to the
 * game's viewers here. */
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

#define NOTIFY_RETRY_MS    1000 /* between two tries to connect the listener */
/* Between two reads of the event log: what a gap of the listener (or a
 * notification lost any other way) held reaches the node within it. */
#define NOTIFY_SYNC_MS     2000
#define NOTIFY_PRUNE_EVERY 30    /* reads between two prunings of the log (a minute) */
#define NOTIFY_SEEN_MAX    65536 /* events remembered as applied (at 2 s a read, ample) */

/* An event applied, by its row's id and number (db_listen.h). */
typedef struct {
    int64_t id, xid;
} seen_t;

struct notify {
    server_t *home;
    db_listen_t *l;   /* the connection, NULL while none */
    db_listen_t *got; /* what the thread pool's connect made */
    uv_poll_t poll;
    uv_timer_t retry, sync;
    uv_work_t work;
    bool polling, working, stopping, failing;
    bool started; /* cursor set by a first read of the log */
    bool reading; /* a read of the log in flight: n outlives it */
    bool unread;  /* the last read failed (said once) */
    int open;     /* handles not yet closed */
    int reads;
    /* The log's next read takes the events numbered cursor or more; seen
     * holds those applied that a notification or read may still bring. */
    int64_t cursor;
    seen_t *seen;
    size_t nseen, capseen;
    char err[256];
};

/* ---- the kinds -------------------------------------------------------------------- */

typedef void (*notify_fn)(server_t *home, const char *to, int64_t a, int64_t b);
typedef void (*notify_ev_fn)(server_t *home, const notify_event_t *ev);

static void chat_heard(server_t *home, const notify_event_t *ev);
static void chat_off_heard(server_t *home, const notify_event_t *ev);

/* fn gets the ids, ev_fn the whole event; text: the kind carries NAME
 * TEXT; late: applied when read from the log too. A takeover's request
 * is not: its sender asks again while it waits, and one read late (the
 * node cut off longer) could take the game from a player back since. */
static const struct {
    const char *kind;
    notify_fn fn;
    notify_ev_fn ev_fn;
    bool text, late;
} KINDS[] = {
    {NOTIFY_TAKE, lease_give_notified, NULL, false, false},
    {NOTIFY_SANCTIONS, moderation_changed_elsewhere, NULL, false, true},
    {NOTIFY_KICK, moderation_kicked_elsewhere, NULL, false, true},
    {NOTIFY_MAIL, mail_left_elsewhere, NULL, false, true},
    {NOTIFY_CHAT, NULL, chat_heard, true, true},
    {NOTIFY_CHAT_OFF, NULL, chat_off_heard, false, true},
    {NOTIFY_END, NULL, nodeend_asked, false, true},
    {NOTIFY_ENDED, NULL, nodeend_answered, false, true},
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

/* ---- the log: each event applied once --------------------------------------------- */

static bool was_seen(const notify_t *n, int64_t id)
{
    for (size_t i = n->nseen; i-- > 0;) /* the newest last: a notification's is near the end */
        if (n->seen[i].id == id)
            return true;
    return false;
}

/* Remembers id as applied: false when it already was. Full, the oldest
 * half goes (a read every 2 s never lets it fill unless reads fail). */
static bool first_time(notify_t *n, int64_t id, int64_t xid)
{
    if (was_seen(n, id))
        return false;
    if (n->nseen == n->capseen) {
        size_t cap = n->capseen ? n->capseen * 2 : 64;
        seen_t *more = cap <= NOTIFY_SEEN_MAX ? realloc(n->seen, cap * sizeof *more) : NULL;
        if (more) {
            n->seen = more;
            n->capseen = cap;
        } else {
            log_warn("node events: %zu remembered; the oldest half forgotten", n->nseen);
            memmove(n->seen, n->seen + n->nseen / 2, (n->nseen - n->nseen / 2) * sizeof *n->seen);
            n->nseen -= n->nseen / 2;
        }
    }
    n->seen[n->nseen++] = (seen_t){id, xid};
    return true;
}

/* A read that started at xid returned every event numbered below its
 * own next cursor, so no read brings those below xid again; and their
 * notifications, sent when they committed before the previous read,
 * have come by now: they are forgotten. */
static void forget_below(notify_t *n, int64_t xid)
{
    size_t k = 0;
    for (size_t i = 0; i < n->nseen; i++)
        if (n->seen[i].xid >= xid)
            n->seen[k++] = n->seen[i];
    n->nseen = k;
}

static void apply(notify_t *n, const char *payload, bool late);

int notify_split(const char *payload, int64_t *id, int64_t *xid, const char **rest)
{
    char a[24], b[24];
    const char *p = payload;
    if (word(&p, a, sizeof a) || word(&p, b, sizeof b) || p[-1] != ' ' || !*p || id_of(a, id) ||
        id_of(b, xid) || *id <= 0 || *xid <= 0)
        return -1;
    *rest = p;
    return 0;
}

/* A notification: applied unless seen. */
static void on_event(void *ud, const char *payload)
{
    notify_t *n = ud;
    const char *rest;
    int64_t id, xid;
    if (notify_split(payload, &id, &xid, &rest)) {
        log_warn("node event not understood: %.80s", payload);
        return;
    }
    if (first_time(n, id, xid))
        apply(n, rest, false);
}

/* late: read from the log, not heard. */
static void apply(notify_t *n, const char *payload, bool late)
{
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
    if (late && !KINDS[k].late)
        return;
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

/* The player of game a turned chat off (b 1) or on (b 0) at its node: a
 * mirror of it here (home's) follows, so its watchers here are refused
 * as the player's node would refuse them. */
static void chat_off_heard(server_t *home, const notify_event_t *ev)
{
    session_t *s = ev->a > 0 ? session_find_game(home, ev->a) : NULL;
    if (s && s->mirror && !s->ended && s->chat_off != (ev->b != 0))
        session_set_chat(s, ev->b != 0);
}

/* ---- reading the log ------------------------------------------------------------- */

static void maybe_free(notify_t *n);

/* The events past the cursor not applied yet, in order (a notification
 * lost in a gap of the listener, or not yet come); the first read only
 * sets the cursor: what was said before the node listened is not its. */
static void on_read(void *ud, int status, const db_node_event_t *rows, size_t count)
{
    notify_t *n = ud;
    size_t applied = 0;
    n->reading = false;
    if (n->stopping)
        return maybe_free(n);
    if (status != DB_OK || count == 0) {
        if (!n->unread)
            log_warn("node events: the log not read (again every %d ms): %s", NOTIFY_SYNC_MS,
                     db_error(n->home->db));
        n->unread = true;
        return;
    }
    n->unread = false;
    for (size_t i = 0; n->started && i < count; i++)
        if (rows[i].id > 0 && first_time(n, rows[i].id, rows[i].xid)) {
            apply(n, rows[i].payload, true);
            applied++;
        }
    forget_below(n, n->cursor);
    n->cursor = rows[0].next;
    n->started = true;
    if (applied)
        log_info("node events: %zu not heard read from the log", applied);
}

static void read_log(notify_t *n)
{
    if (n->reading || n->stopping)
        return;
    n->reading = true;
    if (++n->reads % NOTIFY_PRUNE_EVERY == 0)
        db_events_prune(n->home->db);
    db_events_since(n->home->db, n->started ? n->cursor : INT64_MAX, n->home->cfg.node, on_read, n);
}

/* Read once the listener is first up (what commits after that is heard
 * or read), then every NOTIFY_SYNC_MS. */
static void on_sync(uv_timer_t *t)
{
    notify_t *n = t->data;
    if (n->started || n->l)
        read_log(n);
}

/* ---- the connection --------------------------------------------------------------- */

static void connect_later(notify_t *n);

static void maybe_free(notify_t *n)
{
    if (n->stopping && n->open == 0 && !n->working && !n->reading) {
        db_listen_close(n->l);
        free(n->seen);
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

/* Listening again after a gap: the events of the gap are read from the
 * log at once, and what they would have changed from the rows too, for
 * a gap longer than the log keeps (DB_EVENTS_KEEP_MS): a ban or mute
 * made meanwhile holds here, an account deleted or locked is sent off and
 * mail left for someone at the menu shows. */
static void catch_up(notify_t *n)
{
    server_t *home = n->home;
    log_info("node events: listening again; the log, bans, mutes, accounts and waiting mail "
             "read again");
    read_log(n);
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
        catch_up(n);
    else if (!n->started)
        read_log(n);
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
    uv_timer_init(home->loop, &n->sync);
    n->sync.data = n;
    uv_timer_start(&n->sync, on_sync, NOTIFY_SYNC_MS, NOTIFY_SYNC_MS);
    n->open = 2;
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
    uv_timer_stop(&n->sync);
    uv_close((uv_handle_t *)&n->sync, on_handle_closed);
    if (n->polling) {
        n->polling = false;
        uv_poll_stop(&n->poll);
        uv_close((uv_handle_t *)&n->poll, on_handle_closed);
    }
}
