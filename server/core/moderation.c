/* moderation — bans and mutes (see moderation.h). The lists are short (an
 * administrator's hand-made entries): plain arrays searched in order. */
#include "moderation.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "accounts.h"
#include "budget.h"
#include "conn.h"
#include "db_listen.h"
#include "hooks.h"
#include "list.h"
#include "log.h"
#include "monoclock.h" /* a mark's expiry is never stepped */
#include "notify.h"
#include "server.h"
#include "shard.h"

typedef struct {
    uint8_t addr[16]; /* IPv4 as v4-mapped IPv6 */
    int bits;         /* prefix over the 128 */
    char net[MOD_NET_MAX];
    int64_t until;
} ban_t;

typedef struct {
    int64_t user, until;
} mute_t;

struct moderation {
    ban_t *bans;
    size_t nbans, capbans;
    mute_t *mutes;
    size_t nmutes, capmutes;
};

moderation_t *moderation_new(void)
{
    return calloc(1, sizeof(moderation_t));
}

void moderation_free(moderation_t *m)
{
    if (!m)
        return;
    free(m->bans);
    free(m->mutes);
    free(m);
}

/* An array *v of n items of size bytes, with room for *cap, grown (doubled)
 * so that one more fits: 0, or -1 when out of memory (*v unchanged). */
static int room_for_one(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t want = *cap ? *cap * 2 : 8;
    void *nv = realloc(*v, want * size);
    if (!nv)
        return -1;
    *v = nv;
    *cap = want;
    return 0;
}

/* ---- addresses ------------------------------------------------------------------ */

/* text as 16 bytes (IPv4 v4-mapped); *v4 says which. 0 or -1. */
static int addr_parse(const char *text, uint8_t out[16], bool *v4)
{
    struct in_addr a4;
    if (inet_pton(AF_INET, text, &a4) == 1) {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &a4, 4);
        *v4 = true;
        return 0;
    }
    if (inet_pton(AF_INET6, text, out) != 1)
        return -1;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    *v4 = memcmp(out, mapped, 12) == 0;
    return 0;
}

static void mask(uint8_t a[16], int bits)
{
    for (int i = 0; i < 16; i++) {
        int keep = bits - i * 8;
        a[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
    }
}

int moderation_parse_net(const char *text, char out[MOD_NET_MAX])
{
    char host[MOD_NET_MAX];
    const char *slash = strchr(text, '/');
    size_t hl = slash ? (size_t)(slash - text) : strlen(text);
    if (hl == 0 || hl >= sizeof host)
        return -1;
    memcpy(host, text, hl);
    host[hl] = 0;
    uint8_t a[16];
    bool v4;
    if (addr_parse(host, a, &v4))
        return -1;
    int max = v4 ? 32 : 128, bits = max;
    if (slash) {
        char *end;
        long b = strtol(slash + 1, &end, 10);
        if (!slash[1] || *end || b < 0 || b > max)
            return -1;
        bits = (int)b;
    }
    mask(a, v4 ? bits + 96 : bits);
    char shown[INET6_ADDRSTRLEN];
    inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? (const void *)(a + 12) : a, shown, sizeof shown);
    snprintf(out, MOD_NET_MAX, "%s/%d", shown, bits);
    return 0;
}

int moderation_ban(moderation_t *m, const char *net, int64_t until)
{
    char canon[MOD_NET_MAX];
    if (moderation_parse_net(net, canon) || strcmp(canon, net) != 0)
        return -1;
    moderation_unban(m, net);
    if (room_for_one((void **)&m->bans, &m->capbans, m->nbans, sizeof *m->bans))
        return -1;
    ban_t *b = &m->bans[m->nbans++];
    bool v4;
    const char *slash = strchr(net, '/');
    char host[MOD_NET_MAX];
    snprintf(host, sizeof host, "%.*s", (int)(slash - net), net);
    addr_parse(host, b->addr, &v4);
    b->bits = atoi(slash + 1) + (v4 ? 96 : 0);
    snprintf(b->net, sizeof b->net, "%s", net);
    b->until = until;
    return 0;
}

bool moderation_unban(moderation_t *m, const char *net)
{
    for (size_t i = 0; i < m->nbans; i++)
        if (strcmp(m->bans[i].net, net) == 0) {
            m->bans[i] = m->bans[--m->nbans];
            return true;
        }
    return false;
}

bool moderation_banned(const moderation_t *m, const char *addr, int64_t now)
{
    uint8_t a[16];
    bool v4;
    if (!m || m->nbans == 0 || addr_parse(addr, a, &v4))
        return false;
    for (size_t i = 0; i < m->nbans; i++) {
        const ban_t *b = &m->bans[i];
        if (b->until && b->until <= now)
            continue;
        uint8_t x[16];
        memcpy(x, a, 16);
        mask(x, b->bits);
        if (memcmp(x, b->addr, 16) == 0)
            return true;
    }
    return false;
}

/* ---- mutes -------------------------------------------------------------------------- */

int moderation_mute(moderation_t *m, int64_t user, int64_t until)
{
    moderation_unmute(m, user);
    if (room_for_one((void **)&m->mutes, &m->capmutes, m->nmutes, sizeof *m->mutes))
        return -1;
    m->mutes[m->nmutes++] = (mute_t){user, until};
    return 0;
}

bool moderation_unmute(moderation_t *m, int64_t user)
{
    for (size_t i = 0; i < m->nmutes; i++)
        if (m->mutes[i].user == user) {
            m->mutes[i] = m->mutes[--m->nmutes];
            return true;
        }
    return false;
}

static bool mark_live(const server_t *home, int i, int64_t now)
{
    int64_t until = atomic_load(&home->deleting_until[i]);
    return until == 0 || until > now;
}

int moderation_deleting_mark_from(server_t *home, int64_t user, const char *from, int64_t id,
                                  int64_t until)
{
    int64_t now = mono_ms();
    for (int i = 0; i < SERVER_DELETING_MAX; i++) {
        if (atomic_load(&home->deleting[i]) && mark_live(home, i, now))
            continue;
        atomic_store(&home->deleting[i], 0); /* an expired mark: its slot taken */
        snprintf(home->deleting_from[i], sizeof home->deleting_from[i], "%s", from);
        home->deleting_id[i] = id;
        atomic_store(&home->deleting_until[i], until);
        atomic_store(&home->deleting[i], user);
        return 0;
    }
    return -1;
}

int64_t moderation_deleting_mark(server_t *home, int64_t user)
{
    int64_t id = home->deleting_ids + 1;
    if (moderation_deleting_mark_from(home, user, "", id, 0) < 0)
        return -1;
    return home->deleting_ids = id;
}

int moderation_deleting_mark_for(server_t *home, int64_t user, const char *from, int64_t id,
                                 int64_t ms)
{
    return moderation_deleting_mark_from(home, user, from, id, mono_ms() + (ms > 0 ? ms : 1));
}

/* The marks of user by from's delete id (0: any of from's) cleared. */
static void clear_marks(server_t *home, int64_t user, const char *from, int64_t id)
{
    for (int i = 0; i < SERVER_DELETING_MAX; i++)
        if (atomic_load(&home->deleting[i]) == user && !strcmp(home->deleting_from[i], from) &&
            (!id || home->deleting_id[i] == id))
            atomic_store(&home->deleting[i], 0);
}

void moderation_deleting_clear(server_t *home, int64_t user, int64_t id)
{
    if (id > 0)
        clear_marks(home, user, "", id);
}

bool moderation_deleting(const server_t *s, int64_t user)
{
    server_t *home = shard_at(s, 0);
    int64_t now = 0;
    for (int i = 0; user > 0 && i < SERVER_DELETING_MAX; i++) {
        if (atomic_load(&home->deleting[i]) != user)
            continue;
        if (!now)
            now = mono_ms();
        if (mark_live(home, i, now))
            return true;
    }
    return false;
}

void moderation_deleting_heard(server_t *home, const notify_event_t *ev)
{
    int64_t a = ev->a, b = ev->b;
    if (a <= 0 || !ev->from[0] || b == INT64_MIN) /* INT64_MIN: no number, and no -b */
        return;
    /* b > 0: delete b began (heard twice: one mark); -b: it ended; 0: a
     * build before delete numbers ended one (its marks, all) */
    clear_marks(home, a, ev->from, b > 0 ? b : -b);
    unsigned held;
    if (b > 0 && moderation_deleting_mark_for(home, a, ev->from, b, MOD_DELETING_MARK_MS) < 0 &&
        log_every(&home->deleting_full_said, mono_ms(), MOD_DELETING_LOG_MS, &held))
        log_warn("account %lld being deleted at node %s: not marked here (%d deletes "
                 "under way at once; %u more not logged since the last line)",
                 (long long)a, ev->from, SERVER_DELETING_MAX, held);
}

bool moderation_muted(const moderation_t *m, int64_t user, int64_t now)
{
    for (size_t i = 0; m && i < m->nmutes; i++)
        if (m->mutes[i].user == user)
            return !m->mutes[i].until || m->mutes[i].until > now;
    return false;
}

int moderation_parse_duration(const char *text, int64_t *secs)
{
    static const struct {
        char unit;
        int64_t mult;
    } UNITS[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}, {0, 1}};
    const int64_t most = 100LL * 365 * 86400; /* a hundred years, whatever the unit */
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || v <= 0 || v > most)
        return -1;
    for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++)
        if (*end == UNITS[i].unit && (!*end || !end[1])) {
            if (v > most / UNITS[i].mult)
                return -1;
            *secs = v * UNITS[i].mult;
            return 0;
        }
    return -1;
}

/* ---- loading -------------------------------------------------------------------------- */

static bool refused(void *ud, const char *addr)
{
    server_t *s = ud;
    return moderation_banned(s->mod, addr, (int64_t)time(NULL));
}

static void on_bans(void *ud, int status, const db_sanction_t *b, size_t n)
{
    server_t *s = ud;
    for (size_t i = 0; status == DB_OK && i < n; i++)
        if (moderation_ban(s->mod, b[i].net, b[i].until))
            log_error("ban %s not loaded", b[i].net);
    if (status != DB_OK)
        log_error("bans not loaded: %s", db_error(s->db));
}

static void on_mutes(void *ud, int status, const db_sanction_t *m, size_t n)
{
    server_t *s = ud;
    for (size_t i = 0; status == DB_OK && i < n; i++)
        moderation_mute(s->mod, m[i].user, m[i].until);
    if (status != DB_OK)
        log_error("mutes not loaded: %s", db_error(s->db));
}

void moderation_load(server_t *s)
{
    budget_set_refuse(s->budget, refused, s);
    db_bans_list(s->db, on_bans, s);
    db_mutes_list(s->db, on_mutes, s);
}

/* ---- several nodes ---------------------------------------------------------------- */

void moderation_tell_nodes(server_t *s)
{
    notify_send(s, NOTIFY_SANCTIONS, "*", 0, 0);
}

/* Each why: its event kind, its word for the log, and its words: msg,
 * or for a rename msg, the new name, then. */
static const struct {
    const char *kind, *word, *msg, *then;
} WHY[] = {
    [MOD_KICKED] = {NOTIFY_KICK, "kicked", "You were disconnected by the administrator.", NULL},
    [MOD_LOCKED] = {NOTIFY_LOCK, "locked", "This account has been locked.", NULL},
    [MOD_DELETED] = {NOTIFY_DELETE, "deleted", "This account has been deleted.", NULL},
    [MOD_RENAMED] = {NOTIFY_RENAME, "renamed", "Your account was renamed to ",
                     ": log in again under that name."},
};
#define NWHY (sizeof WHY / sizeof WHY[0])

void moderation_why_words(moderation_why_t why, const char *name, char *out, size_t n)
{
    if (WHY[why].then)
        snprintf(out, n, "%s%s%s", WHY[why].msg, name, WHY[why].then);
    else
        snprintf(out, n, "%s", WHY[why].msg);
}

const char *moderation_why_word(moderation_why_t why)
{
    return WHY[why].word;
}

void moderation_send_off_nodes(server_t *s, int64_t user_id, moderation_why_t why, const char *name)
{
    if (WHY[why].then)
        notify_send_named(s, WHY[why].kind, "*", user_id, 0, name);
    else
        notify_send(s, WHY[why].kind, "*", user_id, 0);
}

/* The why of an event of kind (one of WHY's) with b: a kick from a build
 * before the kinds of their own says a lock by b 1, a delete by b 2. */
static moderation_why_t why_of(const char *kind, int64_t b)
{
    size_t i = 0;
    while (i < NWHY && strcmp(kind, WHY[i].kind) != 0)
        i++;
    if (i == MOD_KICKED && (b == MOD_LOCKED || b == MOD_DELETED))
        return (moderation_why_t)b;
    return i < NWHY ? (moderation_why_t)i : MOD_KICKED;
}

typedef struct {
    int64_t user_id;  /* a kick's account; 0: a ban's sweep */
    const char *word; /* for the log: why (moderation_why_word) */
    char keep[32];    /* a rename's new name: its connections stay */
    char line[200];
} sweep_t;

bool moderation_known_as(const conn_t *c, const char *name)
{
    return name && name[0] && strcmp(c->user, name) == 0;
}

/* On each loop: its connections that the sweep names, told and closed. */
static void sweep_loop(server_t *k, void *ud)
{
    sweep_t *w = ud;
    int64_t now = (int64_t)time(NULL);
    LIST_EACH (it, &k->conns) {
        conn_t *x = LIST_ITEM(it, conn_t, node);
        bool hit = w->user_id ? x->user_id == w->user_id : moderation_banned(k->mod, x->ip, now);
        if (hit && !x->closing && !moderation_known_as(x, w->keep)) {
            log_info("closed conn=%llu user=%s (%s at another node)", (unsigned long long)x->id,
                     x->user, w->word);
            conn_tell_close(x, w->line, w->user_id ? "kicked" : "banned");
        }
    }
}

static void sweep_done(server_t *home, void *ud)
{
    (void)home;
    free(ud);
}

static void sweep(server_t *home, int64_t user_id, const char *msg, const char *word,
                  const char *keep)
{
    sweep_t *w = calloc(1, sizeof *w);
    if (!w)
        return log_error("sweep after another node's sanction: out of memory");
    w->user_id = user_id;
    w->word = word;
    snprintf(w->keep, sizeof w->keep, "%s", keep ? keep : "");
    if (user_id)
        snprintf(w->line, sizeof w->line, "\033[m\033[H\033[2J\033[?25h%s\r\n", msg);
    else
        snprintf(w->line, sizeof w->line, "\r\n%s\r\n", msg);
    shards_each(home, sweep_loop, w, sweep_done);
}

void moderation_sent_off_elsewhere(server_t *home, const notify_event_t *ev)
{
    if (ev->a <= 0)
        return;
    moderation_why_t why = why_of(ev->kind, ev->b);
    char msg[160];
    moderation_why_words(why, ev->name, msg, sizeof msg);
    /* a rename heard late (a gap of the listener): whoever logged in
     * under the new name since is not sent off */
    const char *keep = why == MOD_RENAMED ? ev->name : NULL;
    if (why != MOD_KICKED) /* logins here in flight */
        accounts_sent_off(home->acc, ev->a, why == MOD_LOCKED ? ACCOUNTS_ELOCKED : ACCOUNTS_EDENIED,
                          keep);
    sweep(home, ev->a, msg, moderation_why_word(why), keep);
    HOOKS_CALL(home->hooks->kicked_elsewhere, home, ev->a, msg, moderation_why_word(why), keep);
}

/* The stored lists replace the ones kept here: every loop reads them, so
 * the swap is made with the others parked. */
static void on_bans_again(void *ud, int status, const db_sanction_t *b, size_t n)
{
    server_t *home = ud;
    moderation_t *fresh = status == DB_OK ? moderation_new() : NULL;
    for (size_t i = 0; fresh && i < n; i++)
        if (moderation_ban(fresh, b[i].net, b[i].until))
            log_error("ban %s not loaded", b[i].net);
    if (!fresh)
        return log_error("bans not read again: %s", db_error(home->db));
    shards_lock_all(home);
    ban_t *old = home->mod->bans;
    home->mod->bans = fresh->bans;
    home->mod->nbans = fresh->nbans;
    home->mod->capbans = fresh->capbans;
    shards_unlock_all(home);
    fresh->bans = old;
    moderation_free(fresh);
    log_info("bans read again after another node's change: %zu", n);
    static const char msg[] = "Connections from your address are refused.";
    sweep(home, 0, msg, "banned", NULL);
    HOOKS_CALL(home->hooks->kicked_elsewhere, home, 0, msg, "banned", NULL);
}

static void on_mutes_again(void *ud, int status, const db_sanction_t *m, size_t n)
{
    server_t *home = ud;
    moderation_t *fresh = status == DB_OK ? moderation_new() : NULL;
    for (size_t i = 0; fresh && i < n; i++)
        moderation_mute(fresh, m[i].user, m[i].until);
    if (!fresh)
        return log_error("mutes not read again: %s", db_error(home->db));
    shards_lock_all(home);
    mute_t *old = home->mod->mutes;
    home->mod->mutes = fresh->mutes;
    home->mod->nmutes = fresh->nmutes;
    home->mod->capmutes = fresh->capmutes;
    shards_unlock_all(home);
    fresh->mutes = old;
    moderation_free(fresh);
    log_info("mutes read again after another node's change: %zu", n);
}

/* The accounts of a loop's logged-in conns are read again in one query
 * per RECHECK_MAX of them (a failover makes every node ask at once). */
#define RECHECK_MAX 4096

/* Those of k's conns whose account was deleted or locked meanwhile at
 * another node (an event this node did not hear) are told so and closed
 * as the event would have. A conn logged in since holds an account just
 * read. */
static void on_accounts_gone(void *ud, int status, const db_pair_t *gone, size_t n)
{
    server_t *k = ud;
    if (status != DB_OK)
        return log_error("accounts not read again: %s", db_error(k->db));
    for (size_t i = 0; i < n; i++) {
        moderation_why_t why = gone[i].b ? MOD_LOCKED : MOD_DELETED;
        char msg[160], line[200];
        moderation_why_words(why, "", msg, sizeof msg);
        snprintf(line, sizeof line, "\033[m\033[H\033[2J\033[?25h%s\r\n", msg);
        LIST_EACH (it, &k->conns) {
            conn_t *c = LIST_ITEM(it, conn_t, node);
            if (c->user_id != gone[i].a || c->closing)
                continue;
            log_info("closed conn=%llu user=%s (account %s at another node)",
                     (unsigned long long)c->id, c->user, moderation_why_word(why));
            conn_tell_close(c, line, "kicked");
        }
    }
}

static void recheck_loop(server_t *k, void *ud)
{
    (void)ud;
    int64_t ids[RECHECK_MAX];
    size_t n = 0;
    LIST_EACH (it, &k->conns) {
        conn_t *x = LIST_ITEM(it, conn_t, node);
        if (x->user_id && !x->closing)
            ids[n++] = x->user_id;
        if (n == RECHECK_MAX) {
            db_users_gone(k->db, ids, n, on_accounts_gone, k);
            n = 0;
        }
    }
    if (n)
        db_users_gone(k->db, ids, n, on_accounts_gone, k);
}

void moderation_recheck_accounts(server_t *home)
{
    recheck_loop(home, NULL);
    for (int i = 1; i < shard_count(home); i++)
        if (shard_post(shard_at(home, i), recheck_loop, NULL) != 0)
            log_error("loop %d stopped: its accounts not read again", i);
}

void moderation_changed_elsewhere(server_t *home, const char *to, int64_t a, int64_t b)
{
    (void)to, (void)a, (void)b;
    db_bans_list(home->db, on_bans_again, home);
    db_mutes_list(home->db, on_mutes_again, home);
}
