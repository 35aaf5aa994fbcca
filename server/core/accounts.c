/* accounts — names, passwords, argon2id on the thread pool, throttling.
 *
 * A request is a small state machine: each step either queues pool work
 * (hash, verify), a db read or write, or finishes. Every step's completion
 * runs on the loop thread. Passwords live only in the request and are wiped
 * before it is freed. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "accounts.h"
#include "screen.h"
#include "hashq.h"
#include "hmap.h"
#include "list.h"
#include "log.h"

#define THR_BUCKETS 4096
#define THR_KEY_MAX 96

static const char MSG_DENIED[] = "Unknown name or wrong password.";
static const char MSG_LOCKED[] = "This account is locked.";
static const char MSG_INTERNAL[] = "The account service failed; please try again.";
static const char MSG_BUSY[] = "The server is busy. Please try again in a moment.";
static const char MSG_UNSAVED[] = "The server cannot save a new account right now. Please try "
                                  "again later.";

/* ---- throttle table --------------------------------------------------------- */

typedef struct thr {
    list_t node;           /* its bucket */
    char key[THR_KEY_MAX]; /* "i:<ip>", "a:<ip> <name key>" or "r:<ip>" */
    unsigned fails;
    uint64_t last, until;
    unsigned regs;
    uint64_t reg_start;
} thr_t;

struct accounts {
    uv_loop_t *loop;
    db_t *db;
    accounts_config_t cfg;
    char dummy_hash[crypto_pwhash_STRBYTES];
    hashq_t *hq;                 /* argon2 work: fair, bounded, low priority */
    list_t buckets[THR_BUCKETS]; /* thr_t.node chains */
    hmap_secret_t secret;        /* keys their hash: names and addresses are chosen outside */
    size_t nthr;
    size_t inflight;
    list_t rechecks; /* req_t.lnode: logins whose account is being read again */
    bool closing;
    /* registrations of every address against register_all: made in the
     * window from regs_start, being made, refused since start */
    unsigned regs_made, regs_making;
    uint64_t regs_start, regs_refused;
    bool regs_told; /* the log said this window is full */
};

static uint32_t thr_hash(const accounts_t *a, const char *key)
{
    return (uint32_t)(hmap_hash_keyed_str(&a->secret, key) % THR_BUCKETS);
}

static bool thr_stale(const accounts_t *a, const thr_t *t, uint64_t now)
{
    bool login_idle = now >= t->until && now - t->last >= a->cfg.forget_ms;
    bool reg_idle = t->regs == 0 || now - t->reg_start >= a->cfg.register_window_ms;
    return login_idle && reg_idle;
}

/* Whether t closes its address to registrations now (its count at the
 * limit within the window): such an entry is never dropped early. */
static bool thr_reg_closed(const accounts_t *a, const thr_t *t, uint64_t now)
{
    return a->cfg.register_per_ip && t->regs >= a->cfg.register_per_ip &&
           now - t->reg_start < a->cfg.register_window_ms;
}

/* Drops forgotten entries; if that is not enough, every entry not blocking
 * (neither a login window running nor registrations closed). Returns how
 * many went. */
static size_t thr_sweep(accounts_t *a, uint64_t now, bool hard)
{
    size_t gone = 0;
    for (int b = 0; b < THR_BUCKETS; b++) {
        LIST_EACH (it, &a->buckets[b]) {
            thr_t *t = LIST_ITEM(it, thr_t, node);
            if (thr_stale(a, t, now) || (hard && now >= t->until && !thr_reg_closed(a, t, now))) {
                list_remove(&t->node);
                free(t);
                a->nthr--;
                gone++;
            }
        }
    }
    return gone;
}

/* The entry of kind for ip (and name: the pair's), made when create. */
static thr_t *thr_get(accounts_t *a, char kind, const char *ip, const char *name, uint64_t now,
                      bool create)
{
    char key[THR_KEY_MAX];
    snprintf(key, sizeof key, "%c:%s%s%s", kind, ip ? ip : "", name ? " " : "", name ? name : "");
    uint32_t b = thr_hash(a, key);
    LIST_EACH (it, &a->buckets[b]) {
        thr_t *t = LIST_ITEM(it, thr_t, node);
        if (strcmp(t->key, key) == 0)
            return t;
    }
    if (!create)
        return NULL;
    if (a->nthr >= a->cfg.max_tracked) {
        thr_sweep(a, now, false);
        if (a->nthr >= a->cfg.max_tracked)
            thr_sweep(a, now, true);
        if (a->nthr >= a->cfg.max_tracked)
            return NULL;
    }
    thr_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    memcpy(t->key, key, sizeof key);
    list_push_front(&a->buckets[b], &t->node);
    a->nthr++;
    return t;
}

size_t accounts_longest_chain(const accounts_t *a)
{
    size_t most = 0;
    for (int b = 0; b < THR_BUCKETS; b++) {
        size_t n = 0;
        LIST_EACH (it, &a->buckets[b])
            n++;
        most = n > most ? n : most;
    }
    return most;
}

static uint64_t thr_wait(const accounts_t *a, const thr_t *t, uint64_t now)
{
    (void)a;
    return t && t->until > now ? t->until - now : 0;
}

static void thr_fail(accounts_t *a, thr_t *t, unsigned allowance, uint64_t now)
{
    if (!t)
        return;
    if (now - t->last >= a->cfg.forget_ms)
        t->fails = 0;
    t->fails++;
    t->last = now;
    if (t->fails <= allowance)
        return;
    unsigned k = t->fails - allowance - 1;
    uint64_t w = a->cfg.backoff_base_ms << (k > 30 ? 30 : k);
    if (w > a->cfg.backoff_max_ms || w < a->cfg.backoff_base_ms)
        w = a->cfg.backoff_max_ms;
    t->until = now + w;
}

/* Takes back one pessimistic failure (the attempt succeeded). */
static void thr_undo(thr_t *t, unsigned allowance)
{
    if (!t || t->fails == 0)
        return;
    t->fails--;
    if (t->fails <= allowance)
        t->until = 0;
}

/* ---- rules -------------------------------------------------------------------- */

int accounts_check_name(const char *name, char *msg, size_t msglen)
{
    size_t n = name ? strlen(name) : 0;
    const char *why = NULL;
    if (n < ACCOUNTS_NAME_MIN || n > ACCOUNTS_NAME_MAX)
        why = "Names are 2 to 20 characters long.";
    for (size_t i = 0; !why && i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-';
        if (!ok)
            why = "Names use only letters, digits, _ and -.";
    }
    if (!why)
        return 0;
    if (msg && msglen)
        snprintf(msg, msglen, "%s", why);
    return -1;
}

int accounts_check_password(const char *pw, size_t len, char *msg, size_t msglen)
{
    size_t n = pw && len <= ACCOUNTS_PASSWORD_BYTES ? utf8_chars(pw, len) : 0;
    if (n >= ACCOUNTS_PASSWORD_MIN && n <= ACCOUNTS_PASSWORD_MAX)
        return 0;
    if (msg && msglen)
        snprintf(msg, msglen, "Passwords are 8 to 128 characters long.");
    return -1;
}

void accounts_name_key(const char *name, char key[DB_NAME_MAX])
{
    size_t i = 0;
    for (; name && name[i] && i < DB_NAME_MAX - 1; i++) {
        char c = name[i];
        key[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    key[i] = '\0';
}

/* ---- config, new, free -------------------------------------------------------- */

void accounts_config_default(accounts_config_t *cfg)
{
    *cfg = (accounts_config_t){
        .opslimit = 0,
        .memlimit = 0,
        .ip_free_failures = 10,
        .account_free_failures = 5,
        .backoff_base_ms = 2000,
        .backoff_max_ms = 15 * 60 * 1000,
        .forget_ms = 30 * 60 * 1000,
        .register_per_ip = 5,
        .register_all = 100,
        .register_window_ms = 60 * 60 * 1000,
        .max_tracked = 65536,
        .hash_threads = 0,
        .queue_max = 32,
        .queue_per_addr = 2,
    };
}

static void fix_limits(accounts_config_t *c)
{
    if (!c->opslimit)
        c->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
    if (!c->memlimit)
        c->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
    if (c->opslimit < crypto_pwhash_OPSLIMIT_MIN)
        c->opslimit = crypto_pwhash_OPSLIMIT_MIN;
    if (c->memlimit < crypto_pwhash_MEMLIMIT_MIN)
        c->memlimit = crypto_pwhash_MEMLIMIT_MIN;
    if (c->backoff_base_ms == 0)
        c->backoff_base_ms = 1;
    if (c->backoff_max_ms < c->backoff_base_ms)
        c->backoff_max_ms = c->backoff_base_ms;
    if (c->max_tracked == 0)
        c->max_tracked = 1;
    if (c->hash_threads <= 0) { /* leave a core to the loop: games first */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        c->hash_threads = n > 2 ? (int)(n - 1 < 4 ? n - 1 : 4) : 1;
    }
}

accounts_t *accounts_new(uv_loop_t *loop, db_t *db, const accounts_config_t *cfg)
{
    if (!loop || !db || sodium_init() < 0)
        return NULL;
    accounts_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    if (hmap_secret_init(&a->secret)) {
        free(a);
        return NULL;
    }
    a->loop = loop;
    a->db = db;
    for (int i = 0; i < THR_BUCKETS; i++)
        list_init(&a->buckets[i]);
    list_init(&a->rechecks);
    if (cfg)
        a->cfg = *cfg;
    else
        accounts_config_default(&a->cfg);
    fix_limits(&a->cfg);
    /* The hash an unknown name is verified against, so it costs the same. */
    unsigned char rnd[16];
    randombytes_buf(rnd, sizeof rnd);
    if (crypto_pwhash_str(a->dummy_hash, (const char *)rnd, sizeof rnd, a->cfg.opslimit,
                          a->cfg.memlimit) != 0) {
        free(a);
        return NULL;
    }
    a->hq = hashq_new(loop, a->cfg.hash_threads, a->cfg.queue_max, a->cfg.queue_per_addr);
    if (!a->hq) {
        free(a);
        return NULL;
    }
    return a;
}

static void accounts_release(accounts_t *a)
{
    for (int b = 0; b < THR_BUCKETS; b++)
        for (list_t *n; (n = list_pop_front(&a->buckets[b]));)
            free(LIST_ITEM(n, thr_t, node));
    free(a);
}

void accounts_free(accounts_t *a)
{
    if (!a)
        return;
    a->closing = true;
    /* Jobs still queued come back at once and are dropped (req_alive); the
     * extra count keeps a from being released under hashq_free. */
    hashq_t *q = a->hq;
    a->hq = NULL;
    a->inflight++;
    hashq_free(q);
    if (--a->inflight == 0)
        accounts_release(a);
}

size_t accounts_forget(accounts_t *a, uint64_t now_ms)
{
    return thr_sweep(a, now_ms, false);
}

size_t accounts_pending(const accounts_t *a)
{
    return a ? a->inflight : 0;
}

/* The site-wide window of registrations: begun by the first one counted,
 * again once it ran out. */
static void regs_window(accounts_t *a, uint64_t now)
{
    bool none = a->regs_made == 0 && a->regs_making == 0;
    if (none || now - a->regs_start >= a->cfg.register_window_ms || now < a->regs_start) {
        a->regs_start = now;
        a->regs_made = 0;
        a->regs_told = false;
    }
}

void accounts_regs(const accounts_t *a, uint64_t now_ms, accounts_regs_t *out)
{
    *out = (accounts_regs_t){0};
    if (!a)
        return;
    bool running = now_ms >= a->regs_start && now_ms - a->regs_start < a->cfg.register_window_ms;
    *out = (accounts_regs_t){a->cfg.register_all, running ? a->regs_made : 0, a->regs_making,
                             a->regs_refused};
}

/* ---- requests ------------------------------------------------------------------ */

typedef enum { REQ_LOGIN, REQ_REGISTER, REQ_CHPW, REQ_RESET } req_kind_t;

typedef struct req req_t;
typedef void (*req_step_fn)(req_t *r);

struct req {
    uv_work_t work;
    accounts_t *a;
    req_kind_t kind;
    char ip[THR_KEY_MAX];
    char name[DB_NAME_MAX], key[DB_NAME_MAX];
    char pw[ACCOUNTS_PASSWORD_BYTES + 1];
    size_t pwlen;
    char newpw[ACCOUNTS_PASSWORD_BYTES + 1];
    size_t newlen;
    char hash[crypto_pwhash_STRBYTES];
    db_user_t user;
    bool found, ok, rehashed;
    bool counted;  /* login_start counted it as a failure until it proves right */
    bool making;   /* a registration counted in accounts.regs_making */
    char keep[80]; /* the web session (token hash) a password change keeps; "" none */
    uint64_t now;
    req_step_fn work_fn, then;
    accounts_cb cb;
    void *ud;
    int early_status;
    char early_msg[160];
    list_t lnode; /* accounts.rechecks while its account is read again */
    int sent_off; /* its account sent off meanwhile: the answer (ACCOUNTS_E*), 0 none */
};

static void req_free(req_t *r)
{
    list_remove(&r->lnode);
    sodium_memzero(r, sizeof *r);
    free(r);
}

/* Every completion comes through here: false if the owner went away. */
static bool req_alive(req_t *r)
{
    accounts_t *a = r->a;
    a->inflight--;
    if (!a->closing)
        return true;
    req_free(r);
    if (a->inflight == 0)
        accounts_release(a);
    return false;
}

static void req_deliver(req_t *r, int status, const char *msg)
{
    if (r->making) { /* a registration ends: made, or not */
        r->a->regs_making--;
        r->a->regs_made += status == ACCOUNTS_OK;
    }
    db_user_t user; /* outlives r, which is wiped before the callback */
    db_user_t *u = NULL;
    if (status == ACCOUNTS_OK) {
        user = r->user;
        sodium_memzero(user.pwhash, sizeof user.pwhash);
        u = &user;
    }
    accounts_cb cb = r->cb;
    void *ud = r->ud;
    req_free(r);
    cb(ud, status, u, msg ? msg : "");
}

static void on_no_work(uv_work_t *w)
{
    (void)w;
}

static void on_after_work(uv_work_t *w, int status)
{
    (void)status;
    req_t *r = w->data;
    if (req_alive(r))
        r->then(r);
}

static void on_hash_work(void *job)
{
    req_t *r = job;
    r->work_fn(r);
}

/* Also for jobs the queue never ran (hashq_free): then a->closing. */
static void on_hash_done(void *job)
{
    req_t *r = job;
    if (req_alive(r))
        r->then(r);
}

/* The queue had no room: the attempt did not happen, so it is not counted
 * against the address or the name, nor as a registration. */
static void req_busy(req_t *r)
{
    accounts_t *a = r->a;
    if (r->counted) {
        thr_undo(thr_get(a, 'i', r->ip, NULL, r->now, false), a->cfg.ip_free_failures);
        thr_undo(thr_get(a, 'a', r->ip, r->key, r->now, false), a->cfg.account_free_failures);
    }
    thr_t *t = r->kind == REQ_REGISTER ? thr_get(a, 'r', r->ip, NULL, r->now, false) : NULL;
    if (t && t->regs)
        t->regs--;
    req_deliver(r, ACCOUNTS_EBUSY, MSG_BUSY);
}

/* An address with failures other than this request's own waits behind
 * the clean ones in the hashing queue. */
static bool req_suspect(const req_t *r)
{
    thr_t *t = thr_get(r->a, 'i', r->ip, NULL, r->now, false);
    return t && t->fails > (r->counted ? 1u : 0u);
}

/* Runs work (argon2) on the hashing queue, then `then` on the loop; with
 * no work, only defers `then` to a later loop turn. */
static void req_queue(req_t *r, req_step_fn work, req_step_fn then)
{
    accounts_t *a = r->a;
    r->work_fn = work;
    r->then = then;
    r->work.data = r;
    a->inflight++;
    int ret = work ? hashq_submit(a->hq, r->ip, req_suspect(r), on_hash_work, on_hash_done, r)
                   : uv_queue_work(a->loop, &r->work, on_no_work, on_after_work);
    if (ret == 0)
        return;
    a->inflight--;
    if (work)
        req_busy(r);
    else
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
}

/* A finish decided inside the API call: delivered from the loop later. */
static void early_then(req_t *r)
{
    char msg[sizeof r->early_msg];
    memcpy(msg, r->early_msg, sizeof msg);
    req_deliver(r, r->early_status, msg);
}

static void req_finish_later(req_t *r, int status, const char *msg)
{
    r->early_status = status;
    snprintf(r->early_msg, sizeof r->early_msg, "%s", msg);
    req_queue(r, NULL, early_then);
}

/* The checks every entry point makes, then its request: ACCOUNTS_OK with
 * *out, or the entry point's answer (closing, an argument missing, no
 * memory), and no callback. */
static int req_open(accounts_t *a, req_kind_t kind, const char *ip, const char *name,
                    const char *pw, size_t pwlen, uint64_t now, accounts_cb cb, void *ud,
                    req_t **out)
{
    if (!a || a->closing)
        return ACCOUNTS_ECLOSED;
    if (!name || !pw || !cb)
        return ACCOUNTS_EINVAL;
    req_t *r = calloc(1, sizeof *r);
    if (!r)
        return ACCOUNTS_EINTERNAL;
    r->a = a;
    r->kind = kind;
    list_init(&r->lnode);
    snprintf(r->ip, sizeof r->ip, "%s", ip ? ip : "");
    snprintf(r->name, sizeof r->name, "%s", name);
    accounts_name_key(name, r->key);
    r->pwlen = pwlen <= ACCOUNTS_PASSWORD_BYTES ? pwlen : ACCOUNTS_PASSWORD_BYTES + 1;
    if (r->pwlen <= ACCOUNTS_PASSWORD_BYTES)
        memcpy(r->pw, pw, r->pwlen);
    r->now = now;
    r->cb = cb;
    r->ud = ud;
    *out = r;
    return ACCOUNTS_OK;
}

/* ---- pool work --------------------------------------------------------------------- */

static void work_verify(req_t *r)
{
    const char *h = r->found ? r->user.pwhash : r->a->dummy_hash;
    bool ok = crypto_pwhash_str_verify(h, r->pw, r->pwlen) == 0;
    r->ok = ok && r->found;
    if (r->a->cfg.verify_delay_ms && r->kind == REQ_LOGIN)
        uv_sleep(r->a->cfg.verify_delay_ms);
    /* A hash made at an older cost is upgraded while the password is at hand. */
    if (r->ok && r->kind == REQ_LOGIN &&
        crypto_pwhash_str_needs_rehash(h, r->a->cfg.opslimit, r->a->cfg.memlimit) != 0)
        r->rehashed = crypto_pwhash_str(r->hash, r->pw, r->pwlen, r->a->cfg.opslimit,
                                        r->a->cfg.memlimit) == 0;
}

static void work_hash(req_t *r)
{
    const char *pw = r->kind == REQ_CHPW ? r->newpw : r->pw;
    size_t len = r->kind == REQ_CHPW ? r->newlen : r->pwlen;
    r->ok = crypto_pwhash_str(r->hash, pw, len, r->a->cfg.opslimit, r->a->cfg.memlimit) == 0;
}

/* ---- login (and the verify half of a password change) ------------------------------ */

/* "1 second", "2 seconds": a count and its unit, singular or plural. */
static const char *plural(unsigned long long n, const char *unit, char *out, size_t len)
{
    snprintf(out, len, "%llu %s%s", n, unit, n == 1 ? "" : "s");
    return out;
}

static void throttled_msg(char *msg, size_t n, uint64_t wait_ms)
{
    char wait[32];
    snprintf(msg, n, "Too many attempts. Try again in %s.",
             plural((wait_ms + 999) / 1000, "second", wait, sizeof wait));
}

uint64_t accounts_login_wait_ms(accounts_t *a, const char *ip, const char *name, uint64_t now_ms)
{
    char key[DB_NAME_MAX];
    accounts_name_key(name, key);
    uint64_t w1 = thr_wait(a, thr_get(a, 'i', ip, NULL, now_ms, false), now_ms);
    uint64_t w2 = thr_wait(a, thr_get(a, 'a', ip, key, now_ms, false), now_ms);
    return w1 > w2 ? w1 : w2;
}

static void chpw_store(req_t *r);

/* The login's answer, unless its account was sent off (locked, deleted)
 * since its read began: that read may have come before the store. */
static void login_answer(req_t *r)
{
    if (r->sent_off)
        return req_deliver(r, r->sent_off,
                           r->sent_off == ACCOUNTS_ELOCKED ? MSG_LOCKED : MSG_DENIED);
    req_deliver(r, ACCOUNTS_OK, "");
}

/* The answer held as long as a test asks (verify_delay_ms): the time a
 * lock may come in between, widened. */
static void on_hold_work(uv_work_t *w)
{
    req_t *r = w->data;
    uv_sleep(r->a->cfg.verify_delay_ms);
}

/* The account as it is now, read again after the password check (which
 * takes a while off the loop): locked, deleted, renamed or its password
 * changed meanwhile, the login is refused as it would be now. */
static void login_rechecked(void *ud, int status, const db_user_t *u)
{
    req_t *r = ud;
    if (!req_alive(r))
        return;
    char key[DB_NAME_MAX];
    if (status == DB_OK)
        accounts_name_key(u->name, key);
    if (status != DB_OK && status != DB_ENOTFOUND)
        return req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
    if (status == DB_ENOTFOUND || strcmp(key, r->key) != 0)
        return req_deliver(r, ACCOUNTS_EDENIED, MSG_DENIED);
    if (u->locked)
        return req_deliver(r, ACCOUNTS_ELOCKED, MSG_LOCKED);
    /* the password was checked against the hash stored then (or the one
     * this login stored since): another (a reset, a change) refuses it */
    if (strcmp(u->pwhash, r->rehashed ? r->hash : r->user.pwhash) != 0)
        return req_deliver(r, ACCOUNTS_EDENIED, MSG_DENIED);
    r->user = *u;
    if (!r->a->cfg.verify_delay_ms)
        return login_answer(r);
    log_info("login user=%s: its answer held %u ms (test-login-delay)", r->name,
             r->a->cfg.verify_delay_ms);
    r->then = login_answer;
    r->work.data = r;
    r->a->inflight++;
    if (uv_queue_work(r->a->loop, &r->work, on_hold_work, on_after_work) != 0) {
        r->a->inflight--;
        login_answer(r);
    }
}

void accounts_sent_off(accounts_t *a, int64_t user_id, int status, const char *keep)
{
    if (!a || user_id <= 0)
        return;
    char kept[DB_NAME_MAX] = "";
    if (keep && keep[0])
        accounts_name_key(keep, kept);
    LIST_EACH (it, &a->rechecks) {
        req_t *r = LIST_ITEM(it, req_t, lnode);
        if (r->user.id == user_id && strcmp(r->key, kept) != 0)
            r->sent_off = status;
    }
}

static void login_verified(req_t *r)
{
    accounts_t *a = r->a;
    thr_t *ti = thr_get(a, 'i', r->ip, NULL, r->now, false);
    thr_t *ta = thr_get(a, 'a', r->ip, r->key, r->now, false);
    if (!r->ok) {
        req_deliver(r, ACCOUNTS_EDENIED, MSG_DENIED); /* the failure was counted up front */
        return;
    }
    thr_undo(ti, a->cfg.ip_free_failures);
    if (ta)
        ta->fails = 0, ta->until = 0;
    r->counted = false; /* taken back */
    if (r->user.locked) {
        req_deliver(r, ACCOUNTS_ELOCKED, MSG_LOCKED);
        return;
    }
    if (r->kind == REQ_CHPW) {
        req_queue(r, work_hash, chpw_store);
        return;
    }
    if (r->rehashed)
        db_user_set_password(a->db, r->user.id, r->hash, NULL, NULL);
    a->inflight++;
    list_push_back(&a->rechecks, &r->lnode); /* till its answer: accounts_sent_off */
    db_user_by_id(a->db, r->user.id, login_rechecked, r);
}

static void login_found(void *ud, int status, const db_user_t *u)
{
    req_t *r = ud;
    if (!req_alive(r))
        return;
    if (status != DB_OK && status != DB_ENOTFOUND) {
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
        return;
    }
    r->found = status == DB_OK;
    if (r->found)
        r->user = *u;
    req_queue(r, work_verify, login_verified);
}

/* Throttle check, then count the attempt as failed until it proves right:
 * parallel guesses cannot slip past the window while verifies run. */
static int login_start(req_t *r)
{
    accounts_t *a = r->a;
    uint64_t wait = accounts_login_wait_ms(a, r->ip, r->name, r->now);
    if (wait) {
        char msg[160];
        throttled_msg(msg, sizeof msg, wait);
        req_finish_later(r, ACCOUNTS_ETHROTTLED, msg);
        return 0;
    }
    if (!hashq_room(a->hq, r->ip, req_suspect(r))) { /* fail fast: no database read either */
        req_finish_later(r, ACCOUNTS_EBUSY, MSG_BUSY);
        return 0;
    }
    thr_fail(a, thr_get(a, 'i', r->ip, NULL, r->now, true), a->cfg.ip_free_failures, r->now);
    thr_fail(a, thr_get(a, 'a', r->ip, r->key, r->now, true), a->cfg.account_free_failures, r->now);
    r->counted = true;
    if (accounts_check_name(r->name, NULL, 0) != 0 || r->pwlen > ACCOUNTS_PASSWORD_BYTES) {
        /* Cannot exist: same answer as a wrong password, and the same cost. */
        r->found = false;
        req_queue(r, work_verify, login_verified);
        return 0;
    }
    a->inflight++;
    db_user_by_name(a->db, r->key, login_found, r);
    return 0;
}

int accounts_login(accounts_t *a, const char *ip, const char *name, const char *pw, size_t pwlen,
                   uint64_t now_ms, accounts_cb cb, void *ud)
{
    req_t *r;
    int st = req_open(a, REQ_LOGIN, ip, name, pw, pwlen, now_ms, cb, ud, &r);
    return st != ACCOUNTS_OK ? st : login_start(r);
}

/* ---- password change ------------------------------------------------------------------ */

static void chpw_revoked(void *ud, int status, int64_t id)
{
    (void)status; /* the password is changed either way */
    (void)id;
    req_t *r = ud;
    if (req_alive(r))
        req_deliver(r, ACCOUNTS_OK, "");
}

/* The new hash is stored: whoever knew the old password is logged out of
 * the web (every session but the one the change came from). */
static void chpw_stored(void *ud, int status, int64_t id)
{
    (void)id;
    req_t *r = ud;
    if (!req_alive(r))
        return;
    if (status != DB_OK) {
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
        return;
    }
    /* logins of the old password whose account read came before the store */
    accounts_sent_off(r->a, r->user.id, ACCOUNTS_EDENIED, NULL);
    r->a->inflight++;
    db_session_delete_user(r->a->db, r->user.id, r->keep, chpw_revoked, r);
}

static void chpw_store(req_t *r)
{
    if (!r->ok) {
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
        return;
    }
    r->a->inflight++;
    db_user_set_password(r->a->db, r->user.id, r->hash, chpw_stored, r);
}

int accounts_change_password(accounts_t *a, const char *ip, const char *name, const char *old,
                             size_t oldlen, const char *pw, size_t pwlen, const char *keep,
                             uint64_t now_ms, accounts_cb cb, void *ud)
{
    if (!pw && a && !a->closing) /* the new password; req_open checks the rest */
        return ACCOUNTS_EINVAL;
    req_t *r;
    int st = req_open(a, REQ_CHPW, ip, name, old, oldlen, now_ms, cb, ud, &r);
    if (st != ACCOUNTS_OK)
        return st;
    char msg[160];
    if (accounts_check_password(pw, pwlen, msg, sizeof msg) != 0) {
        req_finish_later(r, ACCOUNTS_EINVAL, msg);
        return 0;
    }
    memcpy(r->newpw, pw, pwlen);
    r->newlen = pwlen;
    snprintf(r->keep, sizeof r->keep, "%s", keep ? keep : "");
    return login_start(r);
}

/* ---- admin reset ------------------------------------------------------------------------ */

static void reset_found(void *ud, int status, const db_user_t *u)
{
    req_t *r = ud;
    if (!req_alive(r))
        return;
    if (status == DB_ENOTFOUND) {
        req_deliver(r, ACCOUNTS_EDENIED, "No such account.");
        return;
    }
    if (status != DB_OK) {
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
        return;
    }
    r->user = *u;
    req_queue(r, work_hash, chpw_store);
}

int accounts_reset_password(accounts_t *a, const char *name, const char *pw, size_t pwlen,
                            accounts_cb cb, void *ud)
{
    req_t *r;
    int st = req_open(a, REQ_RESET, "", name, pw, pwlen, 0, cb, ud, &r);
    if (st != ACCOUNTS_OK)
        return st;
    char msg[160];
    if (accounts_check_password(pw, pwlen, msg, sizeof msg) != 0) {
        req_finish_later(r, ACCOUNTS_EINVAL, msg);
        return 0;
    }
    a->inflight++;
    db_user_by_name(a->db, r->key, reset_found, r);
    return 0;
}

/* ---- registration ------------------------------------------------------------------------ */

/* The new account as stored: with the game name the database gave it. */
static void reg_read(void *ud, int status, const db_user_t *u)
{
    req_t *r = ud;
    if (!req_alive(r))
        return;
    if (status != DB_OK || !u->game_name[0]) {
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
        return;
    }
    r->user = *u;
    req_deliver(r, ACCOUNTS_OK, "");
}

static void reg_created(void *ud, int status, int64_t id)
{
    req_t *r = ud;
    if (!req_alive(r))
        return;
    if (status == DB_EEXISTS) {
        req_deliver(r, ACCOUNTS_EEXISTS, "That name is taken.");
        return;
    }
    if (status != DB_OK) { /* a full disk, a stall, a database gone (storage.h) */
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_UNSAVED);
        return;
    }
    r->a->inflight++;
    db_user_by_id(r->a->db, id, reg_read, r);
}

static void reg_hashed(req_t *r)
{
    if (!r->ok) {
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
        return;
    }
    r->a->inflight++;
    db_user_create(r->a->db, r->name, r->key, r->hash, (int64_t)time(NULL), reg_created, r);
}

static void reg_looked_up(void *ud, int status, const db_user_t *u)
{
    (void)u;
    req_t *r = ud;
    if (!req_alive(r))
        return;
    if (status == DB_OK)
        req_deliver(r, ACCOUNTS_EEXISTS, "That name is taken.");
    else if (status != DB_ENOTFOUND)
        req_deliver(r, ACCOUNTS_EINTERNAL, MSG_INTERNAL);
    else
        req_queue(r, work_hash, reg_hashed);
}

/* Whether the accounts made and being made fill register_all this
 * window: then msg says when the next may be (the log says it once). */
static bool reg_site_full(accounts_t *a, uint64_t now, char *msg, size_t len)
{
    if (!a->cfg.register_all)
        return false;
    regs_window(a, now);
    if (a->regs_made + a->regs_making < a->cfg.register_all)
        return false;
    a->regs_refused++;
    uint64_t wait = a->regs_start + a->cfg.register_window_ms - now;
    char in[32];
    plural((wait + 59999) / 60000, "minute", in, sizeof in);
    snprintf(msg, len, "The server takes no more new accounts for now. Try again in %s.", in);
    if (!a->regs_told)
        log_warn("registrations: register-all-per-hour %u reached; new accounts refused for %s",
                 a->cfg.register_all, in);
    a->regs_told = true;
    return true;
}

int accounts_register(accounts_t *a, const char *ip, const char *name, const char *pw, size_t pwlen,
                      uint64_t now_ms, accounts_cb cb, void *ud)
{
    req_t *r;
    int st = req_open(a, REQ_REGISTER, ip, name, pw, pwlen, now_ms, cb, ud, &r);
    if (st != ACCOUNTS_OK)
        return st;
    char msg[160];
    if (accounts_check_name(name, msg, sizeof msg) != 0 ||
        accounts_check_password(pw, pwlen, msg, sizeof msg) != 0) {
        req_finish_later(r, ACCOUNTS_EINVAL, msg);
        return 0;
    }
    if (reg_site_full(a, now_ms, msg, sizeof msg)) {
        req_finish_later(r, ACCOUNTS_ETHROTTLED, msg);
        return 0;
    }
    thr_t *t = a->cfg.register_per_ip ? thr_get(a, 'r', r->ip, NULL, now_ms, true) : NULL;
    if (a->cfg.register_per_ip && !t) { /* no room to count it: not let through uncounted */
        req_finish_later(r, ACCOUNTS_EBUSY, MSG_BUSY);
        return 0;
    }
    if (t) {
        if (t->regs == 0 || now_ms - t->reg_start >= a->cfg.register_window_ms)
            t->regs = 0, t->reg_start = now_ms;
        if (t->regs >= a->cfg.register_per_ip) {
            uint64_t wait = t->reg_start + a->cfg.register_window_ms - now_ms;
            char in[32];
            snprintf(msg, sizeof msg, "Too many new accounts from your address. Try again in %s.",
                     plural((wait + 59999) / 60000, "minute", in, sizeof in));
            req_finish_later(r, ACCOUNTS_ETHROTTLED, msg);
            return 0;
        }
        t->regs++;
    }
    r->making = a->cfg.register_all > 0;
    a->regs_making += r->making;
    a->inflight++;
    db_user_by_name(a->db, r->key, reg_looked_up, r);
    return 0;
}
