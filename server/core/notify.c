/* notify — events between nodes (notify.h): the listener's connection
 * kept up, each notification a call to read the event log at once (reads
 * coalesced), each event of the log applied once, parsed and dispatched
 * by its kind; chat lines from other nodes handed to the game's viewers
 * here. */
#include "notify.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#include "db_listen.h"
#include "hooks.h"
#include "lease.h"
#include "log.h"
#include "mail.h"
#include "moderation.h"
#include "hostclose.h"
#include "nodeend.h"
#include "server.h"
#include "session.h"
#include "shard.h"

#define NOTIFY_RETRY_MS    1000 /* between two tries to connect the listener */
/* Between two reads of the event log: what a gap of the listener (or a
 * notification lost any other way) held reaches the node within it. */
#define NOTIFY_SYNC_MS     2000
#define NOTIFY_PRUNE_EVERY 30 /* reads between two prunings of the log (a minute) */

struct notify {
    server_t *home;
    db_listen_t *l;   /* the connection, NULL while none */
    db_listen_t *got; /* what the thread pool's connect made */
    uv_poll_t poll;
    uv_timer_t retry, sync;
    uv_work_t work;
    bool polling, working, stopping, failing;
    bool asked;   /* the listener's connection asked for (after the first read) */
    bool reading; /* a read of the log in flight: n outlives it */
    bool again;   /* a notification came during that read: one more read after it */
    bool unread;  /* the last read failed (said once) */
    int open;     /* handles not yet closed */
    notify_stats_t stats;
    notify_once_t once; /* the log's cursor and the events applied */
    log_every_t odd;    /* events not understood: said once a second */
    char err[256];
};

/* ---- the kinds -------------------------------------------------------------------- */

typedef void (*notify_fn)(server_t *home, const char *to, int64_t a, int64_t b);
typedef void (*notify_ev_fn)(server_t *home, const notify_event_t *ev);

static void chat_heard(server_t *home, const notify_event_t *ev);
static void chat_off_heard(server_t *home, const notify_event_t *ev);
static void chat_off_asked(server_t *home, const notify_event_t *ev);
static void logout_heard(server_t *home, const char *to, int64_t a, int64_t b);
static void passwd_heard(server_t *home, const char *to, int64_t a, int64_t b);
static void logins_heard(server_t *home, const char *to, int64_t a, int64_t b);

/* How long the sender's outbox keeps an event of a kind whose write
 * fails (ms from when it was sent, on the loop's monotonic clock: the
 * age is never a difference of two machines' clocks), for as long as it
 * still means something. A change that tells the others to read rows
 * again (bans, mutes, mail, chat-off, a question about it) means the
 * same however late, and another copy of it costs one read: 10 minutes.
 * A kick (a lock, a delete, a rename) is the administrator's "off now":
 * a minute late it would send off someone who came back after it (a ban
 * keeps one off; a lock or delete missed is found by the accounts' read
 * after a gap: moderation_recheck_accounts). An end and
 * its answer matter while the asker waits (NODEEND_WAIT_MS): past that
 * the administrator was told there was no answer. A chat line answers
 * what a game shows: 15 s late it reads out of place. A login's end
 * (a logout, a password changed, logins past the cap) closes websockets
 * of a session gone for good: as late as it comes, still right. None is over
 * DB_EVENTS_RESEND_MS, under what the log keeps its rows
 * (DB_EVENTS_KEEP_MS), so an event written again still finds its first
 * row (its key) if that one committed, and is not applied twice. */
#define KEEP_READ_AGAIN_MS DB_EVENTS_RESEND_MS
#define KEEP_KICK_MS       60000
#define KEEP_CHAT_MS       15000
_Static_assert(KEEP_KICK_MS <= DB_EVENTS_RESEND_MS && KEEP_CHAT_MS <= DB_EVENTS_RESEND_MS &&
                   NODEEND_WAIT_MS <= DB_EVENTS_RESEND_MS,
               "an event kept longer than the log keeps its key could be applied twice");

/* A takeover's request read from the log older than this (its row's age
 * on the database's clock) is not applied: its asker waits 750 ms
 * (session_load.c's TAKEOVER_WAIT_MS), asking again every 100 ms, and one
 * read late (the node cut off longer) could take the game from a player
 * back since. */
#define FRESH_TAKE_MS 1000

/* What a kind carries after "KIND TO FROM A B". */
typedef enum {
    CARRIES_IDS,      /* nothing more */
    CARRIES_NAME,     /* " NAME": an account's name */
    CARRIES_NAME_TEXT /* " NAME TEXT": an account's name and its words */
} carries_t;

/* fn gets the ids, ev_fn the whole event; carries: what follows the ids;
 * keep_ms: how long it is kept in the sender's outbox while its write
 * fails (notify_send), 0 for not kept (a takeover's request: its sender
 * asks again while it waits); fresh_ms: how old its row may be when read
 * to be applied, 0 for any age the log keeps. */
static const struct {
    const char *kind;
    notify_fn fn;
    notify_ev_fn ev_fn;
    carries_t carries;
    int64_t keep_ms, fresh_ms;
} KINDS[] = {
    {NOTIFY_TAKE, lease_give_notified, NULL, CARRIES_IDS, 0, FRESH_TAKE_MS},
    {NOTIFY_SANCTIONS, moderation_changed_elsewhere, NULL, CARRIES_IDS, KEEP_READ_AGAIN_MS, 0},
    {NOTIFY_KICK, NULL, moderation_sent_off_elsewhere, CARRIES_IDS, KEEP_KICK_MS, 0},
    {NOTIFY_LOCK, NULL, moderation_sent_off_elsewhere, CARRIES_IDS, KEEP_KICK_MS, 0},
    {NOTIFY_DELETE, NULL, moderation_sent_off_elsewhere, CARRIES_IDS, KEEP_KICK_MS, 0},
    {NOTIFY_RENAME, NULL, moderation_sent_off_elsewhere, CARRIES_NAME, KEEP_KICK_MS, 0},
    {NOTIFY_MAIL, mail_left_elsewhere, NULL, CARRIES_IDS, KEEP_READ_AGAIN_MS, 0},
    {NOTIFY_CHAT, NULL, chat_heard, CARRIES_NAME_TEXT, KEEP_CHAT_MS, 0},
    {NOTIFY_CHAT_OFF, NULL, chat_off_heard, CARRIES_IDS, KEEP_READ_AGAIN_MS, 0},
    {NOTIFY_CHAT_ASK, NULL, chat_off_asked, CARRIES_IDS, KEEP_READ_AGAIN_MS, 0},
    {NOTIFY_END, NULL, nodeend_asked, CARRIES_IDS, NODEEND_WAIT_MS, 0},
    {NOTIFY_ENDED, NULL, nodeend_answered, CARRIES_IDS, NODEEND_WAIT_MS, 0},
    {NOTIFY_CLOSE, NULL, nodeend_asked, CARRIES_IDS, NODEEND_WAIT_MS, NODEEND_WAIT_MS},
    {NOTIFY_DELETING, NULL, moderation_deleting_heard, CARRIES_IDS, KEEP_KICK_MS, 0},
    {NOTIFY_HCLOSE, NULL, hostclose_asked, CARRIES_IDS, HOSTCLOSE_WAIT_MS, HOSTCLOSE_WAIT_MS},
    {NOTIFY_HCLOSED, NULL, hostclose_answered, CARRIES_IDS, HOSTCLOSE_ASK_MS, 0},
    {NOTIFY_LOGOUT, logout_heard, NULL, CARRIES_IDS, KEEP_READ_AGAIN_MS, 0},
    {NOTIFY_PASSWD, passwd_heard, NULL, CARRIES_IDS, KEEP_READ_AGAIN_MS, 0},
    {NOTIFY_LOGINS, logins_heard, NULL, CARRIES_IDS, KEEP_READ_AGAIN_MS, 0},
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
    if (KINDS[k].carries == CARRIES_IDS)
        return *p ? -1 : 0;
    if (word(&p, ev->name, sizeof ev->name) || !name_ok(ev->name))
        return -1;
    if (KINDS[k].carries == CARRIES_NAME)
        return p[-1] == ' ' ? -1 : 0; /* the name ends the line */
    return p[-1] == ' ' ? text_of(p, ev) : -1;
}

int notify_format(const notify_event_t *ev, char *out, size_t n)
{
    int len =
        snprintf(out, n, "%s %s %s %" PRId64 " %" PRId64, ev->kind, ev->to, ev->from, ev->a, ev->b);
    if (len < 0 || (size_t)len >= n)
        return -1;
    size_t at = (size_t)len;
    if (!ev->name[0])
        return len;
    int w = snprintf(out + at, n - at, " %s%s", ev->name, ev->text_len ? " " : "");
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

enum { ONCE_NEW, ONCE_AGAIN, ONCE_GONE };

/* FNV-1a, 64 bits: of the key alone when there is one. */
uint64_t notify_once_key(int64_t xid, const char *key, const char *payload)
{
    uint64_t h = UINT64_C(14695981039346656037);
    if (!*key)
        for (int i = 0; i < 8; i++)
            h = (h ^ (uint8_t)((uint64_t)xid >> (8 * i))) * UINT64_C(1099511628211);
    for (const char *p = *key ? key : payload; *p; p++)
        h = (h ^ (uint8_t)*p) * UINT64_C(1099511628211);
    return h ? h : 1;
}

static uint64_t *once_slot(notify_once_t *o, int64_t id)
{
    return &o->keys[(uint64_t)id % NOTIFY_ONCE_SPAN];
}

/* The database's numbering went back (a restore): said once, until the
 * ids pass the newest seen before it again. */
static void once_went_back(notify_once_t *o, const char *what, int64_t now, int64_t before)
{
    if (o->back && o->top <= o->back)
        return;
    o->back = o->top;
    log_warn("node events: %s %lld after %lld: the database's numbering went back (a backup "
             "restored?); events taken as new from here",
             what, (long long)now, (long long)before);
}

/* Forgets every event remembered: the next id starts the memory again. */
static void once_forget(notify_once_t *o, int64_t id)
{
    once_went_back(o, "id", id, o->top);
    memset(o->keys, 0, sizeof o->keys);
    o->top = 0;
}

/* Remembers event id (positive) under key as applied: ONCE_AGAIN when it
 * was already, ONCE_GONE when it is too far below the newest to tell. A
 * newer id first clears the keys of the ids it passes (not heard of yet);
 * an id that comes as another event is one of a numbering gone back. */
static int once_mark(notify_once_t *o, int64_t id, uint64_t key)
{
    if (o->top && id <= o->top - NOTIFY_ONCE_SPAN)
        return ONCE_GONE;
    uint64_t *slot = once_slot(o, id);
    if (id > o->top) {
        if (!o->top || id - o->top >= NOTIFY_ONCE_SPAN)
            memset(o->keys, 0, sizeof o->keys);
        else
            for (int64_t i = o->top + 1; i < id; i++)
                *once_slot(o, i) = 0;
        o->top = id;
    } else if (*slot == key) {
        return ONCE_AGAIN;
    } else if (*slot) {
        once_went_back(o, "id", id, o->top);
    }
    *slot = key;
    return ONCE_NEW;
}

/* once_mark, an id far below the newest taking the memory back to it:
 * the log never returns one (it keeps only its newest rows), and a
 * notification comes long before thousands of events after it. */
static int once_mark_back(notify_once_t *o, int64_t id, uint64_t key)
{
    int m = once_mark(o, id, key);
    if (m != ONCE_GONE)
        return m;
    once_forget(o, id);
    return once_mark(o, id, key);
}

size_t notify_once_read(notify_once_t *o, const db_node_event_t *rows, size_t n, notify_once_fn fn,
                        void *ud)
{
    size_t applied = 0;
    if (o->started && n && rows[0].next < o->cursor) /* the transactions' numbers went back */
        once_went_back(o, "next cursor", rows[0].next, o->cursor);
    for (size_t i = 0; o->started && i < n; i++) {
        if (rows[i].id <= 0) /* the row that only says next */
            continue;
        uint64_t key = notify_once_key(rows[i].xid, rows[i].key, rows[i].payload);
        if (once_mark_back(o, rows[i].id, key) == ONCE_NEW) {
            fn(ud, &rows[i]);
            applied++;
        }
    }
    if (n) {
        o->cursor = rows[0].next;
        o->started = true;
    }
    return applied;
}

/* Whether p starts with an event's key and a space after it. */
static bool key_at(const char *p)
{
    size_t n = strspn(p, "0123456789abcdef");
    return n == DB_EVENT_KEY_LEN && p[n] == ' ';
}

int notify_split(const char *payload, int64_t *id, int64_t *xid, char key[DB_EVENT_KEY_LEN + 1],
                 const char **rest)
{
    char a[24], b[24];
    const char *p = payload;
    if (word(&p, a, sizeof a) || word(&p, b, sizeof b) || p[-1] != ' ' || !*p || id_of(a, id) ||
        id_of(b, xid) || *id <= 0 || *xid <= 0)
        return -1;
    key[0] = '\0';
    if (key_at(p)) {
        memcpy(key, p, DB_EVENT_KEY_LEN);
        key[DB_EVENT_KEY_LEN] = '\0';
        p += DB_EVENT_KEY_LEN + 1;
        if (!*p)
            return -1;
    }
    *rest = p;
    return 0;
}

/* An event of the log, its row age_ms old. */
static void apply(notify_t *n, const notify_event_t *ev, int64_t age_ms)
{
    server_t *home = n->home;
    bool mine = strcmp(ev->to, "*") == 0 || strcmp(ev->to, home->cfg.node) == 0;
    if (!mine || strcmp(ev->from, home->cfg.node) == 0) /* not one this node sent */
        return;
    size_t k = kind_at(ev->kind);
    if (KINDS[k].fresh_ms && age_ms > KINDS[k].fresh_ms)
        return;
    if (KINDS[k].fn)
        KINDS[k].fn(home, ev->to, ev->a, ev->b);
    else
        KINDS[k].ev_fn(home, ev);
}

const char *notify_shown(const char *payload, char out[NOTIFY_SHOWN_SIZE])
{
    size_t at = 0, i = 0;
    for (; payload[i] && i < NOTIFY_SHOWN_MAX; i++) {
        unsigned char c = (unsigned char)payload[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            out[at++] = (char)c;
        else
            at += (size_t)snprintf(out + at, 5, "\\x%02x", c);
    }
    snprintf(out + at, 4, "%s", payload[i] ? "..." : "");
    return out;
}

#define ODD_EVERY_MS 1000 /* at most a line a second of events not understood */

/* Said once a second at most, with how many were not said before it (a
 * flood of them costs the log a line a second). */
static void not_understood(notify_t *n, const char *payload)
{
    char buf[NOTIFY_SHOWN_SIZE];
    unsigned held;
    if (!log_every(&n->odd, uv_now(n->home->loop), ODD_EVERY_MS, &held))
        return;
    if (held)
        log_warn("node event not understood: %s (and %u more not said since the last line)",
                 notify_shown(payload, buf), held);
    else
        log_warn("node event not understood: %s", notify_shown(payload, buf));
}

static void read_soon(notify_t *n);

/* A notification: the log read at once, whatever it says. Anyone who
 * can connect to the database can NOTIFY, so what it says is never
 * applied: only the log's rows are, which need INSERT. One not of the
 * form nodes send ("ID XID KEY KIND ...") is said, at most a line a
 * second. */
static void on_event(void *ud, const char *payload)
{
    notify_t *n = ud;
    notify_event_t ev;
    int64_t id, xid;
    char key[DB_EVENT_KEY_LEN + 1];
    const char *rest;
    n->stats.heard++;
    if (notify_split(payload, &id, &xid, key, &rest) != 0 || notify_parse(rest, &ev) != 0)
        not_understood(n, payload);
    read_soon(n);
}

/* A row of the log to apply. */
static void on_logged(void *ud, const db_node_event_t *row)
{
    notify_t *n = ud;
    notify_event_t ev;
    if (notify_parse(row->payload, &ev))
        return not_understood(n, row->payload);
    n->stats.events++;
    apply(n, &ev, row->age_ms);
}

/* ---- the outbox: events whose write failed, kept and written again ----------------- */

enum { OUT_WAIT, OUT_SENT }; /* an entry to write (again), or one being written */

typedef struct {
    list_t node; /* notify_out_t.q, oldest first */
    server_t *s;
    notify_event_t ev;
    char key[DB_EVENT_KEY_LEN + 1]; /* the same at every write of it */
    uint64_t born;                  /* the loop's clock (ms) when it was sent */
    int state;
} out_ev_t;

/* A loop's (lease_t.out), made at its first event. */
struct notify_out {
    list_t q;
    size_t n;        /* entries on q */
    size_t inflight; /* of them OUT_SENT */
    size_t lost;     /* dropped since the outbox was last empty (it was full) */
    bool failing;    /* a write failed: only the oldest is tried, each second */
    uint64_t nonce;  /* drawn at random when made: this loop's events' keys, this run */
    uint64_t sent;   /* events keyed so far */
};

static void out_write(out_ev_t *e);

static void out_drop(struct notify_out *o, out_ev_t *e)
{
    list_remove(&e->node);
    o->n--;
    free(e);
}

/* The next event's key into key: the loop's nonce and its count. */
static void out_key(struct notify_out *o, char key[DB_EVENT_KEY_LEN + 1])
{
    snprintf(key, DB_EVENT_KEY_LEN + 1, "%016" PRIx64 "%016" PRIx64, o->nonce, ++o->sent);
}

/* The entries waiting past their kind's age limit dropped, the count said
 * in one line with each kind's. */
static void out_expire(server_t *s, struct notify_out *o)
{
    size_t counts[NKINDS] = {0}, total = 0;
    uint64_t now = uv_now(s->loop);
    LIST_EACH (it, &o->q) {
        out_ev_t *e = LIST_ITEM(it, out_ev_t, node);
        size_t k = kind_at(e->ev.kind);
        if (e->state == OUT_WAIT && now - e->born > (uint64_t)KINDS[k].keep_ms) {
            counts[k]++;
            total++;
            out_drop(o, e);
        }
    }
    if (!total)
        return;
    char said[256] = "";
    size_t at = 0;
    for (size_t k = 0; k < NKINDS && at < sizeof said; k++)
        if (counts[k])
            at +=
                (size_t)snprintf(said + at, sizeof said - at, "%s%s %zu (%" PRId64 " s)",
                                 at ? ", " : "", KINDS[k].kind, counts[k], KINDS[k].keep_ms / 1000);
    log_warn("node events: %zu dropped unwritten, kept past their kind's age limit (%s): too "
             "late to mean anything; %zu kept",
             total, said, o->n);
}

/* Every entry waiting, in order. */
static void out_flush(struct notify_out *o)
{
    LIST_EACH (it, &o->q) {
        out_ev_t *e = LIST_ITEM(it, out_ev_t, node);
        if (e->state == OUT_WAIT)
            out_write(e);
    }
}

static void on_written(void *ud, int status, int64_t id)
{
    out_ev_t *e = ud;
    server_t *s = e->s;
    struct notify_out *o = s->lease.out;
    (void)id;
    o->inflight--;
    if (status != DB_OK && status != DB_EINVAL && status != DB_ECLOSED) {
        if (!o->failing)
            log_warn("node events: %s not written (%s): kept, %zu in all, written again once the "
                     "database takes them",
                     e->ev.kind, db_error(s->db), o->n);
        e->state = OUT_WAIT;
        o->failing = true;
        return;
    }
    if (status == DB_EINVAL) /* never written, however often tried */
        log_error("node events: %s refused by the database: dropped", e->ev.kind);
    out_drop(o, e);
    if (status == DB_OK && o->failing && o->inflight == 0) {
        o->failing = false;
        out_expire(s, o);
        log_info("node events: written again; the %zu kept after it sent now", o->n);
        out_flush(o);
    }
    if (o->n == 0 && o->lost) {
        log_warn("node events: the outbox emptied; %zu dropped while it was full", o->lost);
        o->lost = 0;
    }
}

static void out_write(out_ev_t *e)
{
    char line[DB_NOTIFY_PAYLOAD_MAX];
    struct notify_out *o = e->s->lease.out;
    if (notify_format(&e->ev, line, sizeof line) < 0) {
        log_error("node event %s too long to send", e->ev.kind);
        return out_drop(o, e);
    }
    e->state = OUT_SENT;
    o->inflight++;
    db_notify(e->s->db, DB_NOTIFY_CHANNEL, line, e->key, on_written, e);
}

static struct notify_out *out_of(server_t *s)
{
    struct notify_out *o = s->lease.out;
    if (!o && (o = calloc(1, sizeof *o)) != NULL) {
        list_init(&o->q);
        randombytes_buf(&o->nonce, sizeof o->nonce);
        s->lease.out = o;
    }
    return o;
}

/* ev at the outbox's end, written at once unless writes fail. */
static void out_send(server_t *s, const notify_event_t *ev)
{
    struct notify_out *o = out_of(s);
    out_ev_t *e = o && o->n < NOTIFY_OUTBOX_MAX ? malloc(sizeof *e) : NULL;
    if (!e) {
        if (o && o->lost++ == 0)
            log_error("node events: %d kept unwritten, the outbox is full: %s dropped (and "
                      "those after it until it empties)",
                      NOTIFY_OUTBOX_MAX, ev->kind);
        else if (!o)
            log_error("node events: out of memory: %s dropped", ev->kind);
        return;
    }
    *e = (out_ev_t){.s = s, .ev = *ev, .born = uv_now(s->loop), .state = OUT_WAIT};
    out_key(o, e->key);
    list_init(&e->node);
    list_push_back(&o->q, &e->node);
    o->n++;
    if (!o->failing)
        out_write(e);
}

void notify_retry(server_t *s)
{
    struct notify_out *o = s->lease.out;
    if (!o || !o->failing || o->inflight)
        return;
    out_expire(s, o);
    LIST_EACH (it, &o->q) { /* the oldest, alone: the rest once it is written */
        out_ev_t *e = LIST_ITEM(it, out_ev_t, node);
        if (e->state == OUT_WAIT)
            return out_write(e);
    }
}

void notify_outbox_free(server_t *s)
{
    struct notify_out *o = s->lease.out;
    if (!o)
        return;
    if (o->n)
        log_error("node events: %zu never written (the database refused them) are lost at the "
                  "stop",
                  o->n);
    LIST_EACH (it, &o->q)
        free(LIST_ITEM(it, out_ev_t, node));
    free(o);
    s->lease.out = NULL;
}

/* A takeover's request is written once: not kept (KINDS' keep_ms). */
static void send_event(server_t *s, const notify_event_t *ev)
{
    if (KINDS[kind_at(ev->kind)].keep_ms)
        return out_send(s, ev);
    char line[DB_NOTIFY_PAYLOAD_MAX], key[DB_EVENT_KEY_LEN + 1];
    struct notify_out *o = out_of(s);
    if (!o)
        return log_error("node events: out of memory: %s dropped", ev->kind);
    if (notify_format(ev, line, sizeof line) < 0)
        return log_error("node event %s too long to send", ev->kind);
    out_key(o, key);
    db_notify(s->db, DB_NOTIFY_CHANNEL, line, key, NULL, NULL);
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

void notify_send_named(server_t *s, const char *kind, const char *to, int64_t a, int64_t b,
                       const char *name)
{
    notify_event_t ev = {.a = a, .b = b};
    if (!lease_on(s))
        return;
    if (!name_ok(name) || strlen(name) >= sizeof ev.name)
        return log_error("node event %s not sent: \"%s\" is not an account's name", kind, name);
    snprintf(ev.kind, sizeof ev.kind, "%s", kind);
    snprintf(ev.to, sizeof ev.to, "%s", to);
    snprintf(ev.from, sizeof ev.from, "%s", s->cfg.node);
    snprintf(ev.name, sizeof ev.name, "%s", name);
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

/* On a loop: its games with chat off said again, to the node that asked
 * or ("*") every node. */
static void resay_on_loop(server_t *k, void *ud)
{
    char *to = ud;
    LIST_EACH (it, &k->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        if (!s->mirror && !s->ended && s->chat_off && s->game_id > 0)
            notify_send(k, NOTIFY_CHAT_OFF, to, s->game_id, 1);
    }
    free(to);
}

static void chat_off_resay(server_t *home, const char *to)
{
    for (int i = 0; i < shard_count(home); i++) {
        char *copy = strdup(to);
        if (!copy)
            return log_error("chat-off not said again to %s: out of memory", to);
        if (i == 0)
            resay_on_loop(home, copy);
        else if (shard_post(shard_at(home, i), resay_on_loop, copy) != 0)
            free(copy);
    }
}

/* A node listening again after a gap asks: its mirrors of this node's
 * games learn which have chat off. */
static void chat_off_asked(server_t *home, const notify_event_t *ev)
{
    chat_off_resay(home, ev->from);
}

/* Listening again: a chat-off (or on) said meanwhile may be past what the
 * log keeps, so home's mirrors take chat as on, as a new mirror does,
 * until the games' nodes answer the question; and this node's own games
 * say theirs again (one said while its outbox was full was never sent). */
static void chat_off_read_again(server_t *home)
{
    LIST_EACH (it, &home->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        if (s->mirror && s->chat_off)
            session_set_chat(s, false);
    }
    notify_send(home, NOTIFY_CHAT_ASK, "*", 0, 0);
    chat_off_resay(home, "*");
}

/* ---- web logins ended elsewhere --------------------------------------------------- */

static void logout_heard(server_t *home, const char *to, int64_t a, int64_t b)
{
    (void)to;
    if (b > 0)
        HOOKS_CALL(home->hooks->logins_ended, home, HOOKS_LOGOUT, a, b);
}

static void passwd_heard(server_t *home, const char *to, int64_t a, int64_t b)
{
    (void)to;
    if (a > 0 && b >= 0)
        HOOKS_CALL(home->hooks->logins_ended, home, HOOKS_PASSWD, a, b);
}

static void logins_heard(server_t *home, const char *to, int64_t a, int64_t b)
{
    (void)to;
    if (a > 0)
        HOOKS_CALL(home->hooks->logins_ended, home, HOOKS_LOGINS, a, b);
}

/* ---- reading the log ------------------------------------------------------------- */

static void maybe_free(notify_t *n);

static void connect_now(notify_t *n);
static void read_log(notify_t *n);

/* The events past the cursor not applied yet, in order; the first read
 * only sets the cursor (what was said before the node started is not
 * its), and then the listener connects: whatever commits after the
 * first read is read, heard of or not. A notification that came during
 * the read asks for one more, at once. */
static void on_read(void *ud, int status, const db_node_event_t *rows, size_t count)
{
    notify_t *n = ud;
    bool again = n->again;
    n->reading = n->again = false;
    if (n->stopping)
        return maybe_free(n);
    if (status != DB_OK || count == 0) { /* read again by the timer, not at once */
        if (!n->unread)
            log_warn("node events: the log not read (again every %d ms): %s", NOTIFY_SYNC_MS,
                     db_error(n->home->db));
        n->unread = true;
        return;
    }
    n->unread = false;
    notify_once_read(&n->once, rows, count, on_logged, n);
    if (!n->asked) {
        n->asked = true;
        connect_now(n);
    }
    if (again)
        read_log(n);
}

static void read_log(notify_t *n)
{
    if (n->reading || n->stopping)
        return;
    n->reading = true;
    if (++n->stats.reads % NOTIFY_PRUNE_EVERY == 0)
        db_events_prune(n->home->db);
    db_events_since(n->home->db, n->once.started ? n->once.cursor : INT64_MAX, n->home->cfg.node,
                    on_read, n);
}

/* The log read now, or right after the read in flight: however many
 * notifications come, one read runs and one waits. */
static void read_soon(notify_t *n)
{
    if (n->reading)
        n->again = true;
    else
        read_log(n);
}

/* Every NOTIFY_SYNC_MS: what a lost notification (a gap of the listener)
 * did not ask for is read; before the first read worked, that read. */
static void on_sync(uv_timer_t *t)
{
    read_log(t->data);
}

/* ---- the connection --------------------------------------------------------------- */

static void connect_later(notify_t *n);

static void maybe_free(notify_t *n)
{
    if (n->stopping && n->open == 0 && !n->working && !n->reading) {
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

/* Listening again after a gap: the events of the gap are read from the
 * log at once, and what they would have changed from the rows too, for
 * a gap longer than the log keeps (DB_EVENTS_KEEP_MS): a ban or mute
 * made meanwhile holds here, an account deleted or locked is sent off,
 * a websocket whose web login ended meanwhile closes (its session looked
 * up again), mail left for someone at the menu shows and the mirrors here learn
 * their games' chat-off again. A kick stores nothing to read again, and
 * an end or takeover asked meanwhile was of a game whose lease lapsed
 * long before the log let it go (other nodes have it since). */
static void catch_up(notify_t *n)
{
    server_t *home = n->home;
    log_info("node events: listening again; the log, bans, mutes, accounts, web logins, waiting "
             "mail and chat-off read again");
    read_soon(n);
    moderation_changed_elsewhere(home, "*", 0, 0);
    moderation_recheck_accounts(home);
    HOOKS_CALL(home->hooks->logins_ended, home, HOOKS_LOGINS, 0, 0); /* 0: every account's */
    HOOKS_CALL(home->hooks->mail_left, home, 0);
    chat_off_read_again(home);
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
    else /* what committed between the first read and the LISTEN */
        read_soon(n);
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
    read_log(n); /* the cursor first, then the listener (on_read) */
}

void notify_stats(const server_t *home, notify_stats_t *out)
{
    const notify_t *n = home->lease.notify;
    *out = n ? n->stats : (notify_stats_t){0};
}

void notify_stop(server_t *home)
{
    notify_t *n = home->lease.notify;
    if (!n)
        return;
    home->lease.notify = NULL;
    nodeend_stop(home);
    hostclose_stop(home);
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
