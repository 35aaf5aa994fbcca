/* logcap — lines others can make the log write, capped; see logcap.h.
 * The pairs are one array made with the cap, found by a hash table and
 * kept on a list from the most to the least recently said: a new pair,
 * the table full, takes the place of the last. */
#include "logcap.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hmap.h"
#include "list.h"

#define LOGCAP_ADDR_MAX  96 /* an address, or an address and a name */
#define LOGCAP_KIND_NAME 64 /* a kind's text, cut here */

typedef struct {
    hnode_t hn; /* logcap_t.by_key */
    list_t lru; /* logcap_t.lru, the most recently said first */
    int kind;
    uint64_t start_ms; /* when its window began */
    unsigned said;     /* lines written in it */
    char addr[LOGCAP_ADDR_MAX];
} pair_t;

typedef struct {
    char name[LOGCAP_KIND_NAME]; /* "": a free place */
    bool shared;                 /* the last place, taken by other kinds too */
    uint64_t window_ms;          /* when the kind's current window began */
    unsigned said;               /* lines written in it */
    uint64_t line_ms;            /* when its last line (or flush) was written */
    unsigned held;               /* lines held back since then */
    char last[LOGCAP_ADDR_MAX];  /* the address of the last one held back */
} kind_t;

struct logcap {
    pthread_mutex_t mu;
    uint64_t window;
    hmap_t by_key;
    hmap_secret_t secret; /* keys by_key's hash: addresses are chosen outside */
    list_t lru;
    int used; /* pairs taken from the array */
    kind_t kinds[LOGCAP_KINDS];
    pair_t pairs[LOGCAP_PAIRS];
};

/* now - then, where a clock a little behind the last reading is no time. */
static uint64_t since(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

static void copy_addr(char *to, const char *addr)
{
    snprintf(to, LOGCAP_ADDR_MAX, "%s", addr ? addr : "-");
}

logcap_t *logcap_new(uint64_t window_ms)
{
    logcap_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (hmap_secret_init(&c->secret)) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    c->window = window_ms ? window_ms : LOGCAP_WINDOW_MS;
    hmap_init(&c->by_key);
    list_init(&c->lru);
    return c;
}

void logcap_free(logcap_t *c)
{
    if (!c)
        return;
    hmap_fini(&c->by_key);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* The place of kind, -1 when it has none. */
static int kind_find(const logcap_t *c, const char *kind)
{
    for (int i = 0; i < LOGCAP_KINDS && c->kinds[i].name[0]; i++)
        if (strncmp(c->kinds[i].name, kind, LOGCAP_KIND_NAME - 1) == 0)
            return i;
    return -1;
}

/* The place of kind: its own, else a free one; more kinds than places
 * share the last. */
static int kind_index(logcap_t *c, const char *kind)
{
    int i = kind_find(c, kind);
    if (i >= 0)
        return i;
    for (i = 0; i < LOGCAP_KINDS - 1 && c->kinds[i].name[0]; i++)
        ;
    if (!c->kinds[i].name[0])
        snprintf(c->kinds[i].name, sizeof c->kinds[i].name, "%s", kind);
    else
        c->kinds[i].shared = true;
    return i;
}

static uint64_t pair_hash(const logcap_t *c, int kind, const char *addr)
{
    return hmap_hash_keyed_str(&c->secret, addr) ^ hmap_hash_u64((uint64_t)kind + 1);
}

static pair_t *pair_find(logcap_t *c, int kind, const char *addr)
{
    HMAP_EACH(it, &c->by_key, pair_hash(c, kind, addr))
    {
        pair_t *p = HMAP_ITEM(it, pair_t, hn);
        if (p->kind == kind && strcmp(p->addr, addr) == 0)
            return p;
    }
    return NULL;
}

/* The pair (kind, addr) made the most recent: a free place of the array,
 * or the least recently said pair's. NULL only when the table cannot
 * take it (out of memory for its first slots): the line is then said. */
static pair_t *pair_take(logcap_t *c, int kind, const char *addr)
{
    pair_t *p;
    if (c->used < LOGCAP_PAIRS)
        p = &c->pairs[c->used++];
    else {
        p = LIST_ITEM(c->lru.prev, pair_t, lru);
        hmap_del(&c->by_key, &p->hn);
        list_remove(&p->lru);
    }
    p->kind = kind;
    p->said = 0;
    snprintf(p->addr, sizeof p->addr, "%s", addr);
    if (hmap_add(&c->by_key, &p->hn, pair_hash(c, kind, addr)) < 0) {
        list_init(&p->lru);
        c->used--; /* only the first pairs can meet a table with no slots */
        return NULL;
    }
    list_push_front(&c->lru, &p->lru);
    return p;
}

static bool may_locked(logcap_t *c, const logcap_kind_t *kind, const char *addr, uint64_t now,
                       unsigned *held)
{
    char key[LOGCAP_ADDR_MAX];
    copy_addr(key, addr);
    int ki = kind_index(c, kind->name && kind->name[0] ? kind->name : "?");
    kind_t *k = &c->kinds[ki];
    if (since(now, k->window_ms) >= c->window) {
        k->window_ms = now;
        k->said = 0;
    }
    pair_t *p = pair_find(c, ki, key);
    if (p && since(now, p->start_ms) >= c->window)
        p->said = 0; /* its window is over */
    unsigned per_addr = kind->per_addr ? kind->per_addr : 1;
    if ((p && p->said >= per_addr) || k->said >= (kind->max ? kind->max : LOGCAP_KIND_MAX)) {
        k->held++;
        snprintf(k->last, sizeof k->last, "%s", key);
        return false;
    }
    if (!p)
        p = pair_take(c, ki, key);
    if (p) {
        if (p->said++ == 0)
            p->start_ms = now;
        list_remove(&p->lru);
        list_push_front(&c->lru, &p->lru);
    }
    k->said++;
    k->line_ms = now;
    *held = k->held;
    k->held = 0;
    return true;
}

bool logcap_may(logcap_t *c, const logcap_kind_t *kind, const char *addr, uint64_t now_ms,
                unsigned *held)
{
    *held = 0;
    if (!c)
        return true;
    pthread_mutex_lock(&c->mu);
    bool ok = may_locked(c, kind, addr, now_ms, held);
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static bool say_v(logcap_t *c, uint64_t now_ms, log_level_t lvl, const logcap_kind_t *kind,
                  const char *addr, const char *fmt, va_list ap)
{
    unsigned held;
    if (!logcap_may(c, kind, addr, now_ms, &held))
        return false;
    char text[900];
    vsnprintf(text, sizeof text, fmt, ap);
    if (held)
        log_msg(lvl, "%s (%u such lines held back)", text, held);
    else
        log_msg(lvl, "%s", text);
    return true;
}

bool logcap_say(logcap_t *c, uint64_t now_ms, log_level_t lvl, const logcap_kind_t *kind,
                const char *addr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool said = say_v(c, now_ms, lvl, kind, addr, fmt, ap);
    va_end(ap);
    return said;
}

bool logcap_say_user(logcap_t *c, uint64_t now_ms, log_level_t lvl, const logcap_kind_t *kind,
                     const char *addr, const char *user, const char *fmt, ...)
{
    char key[LOGCAP_ADDR_MAX];
    bool named = user && user[0];
    snprintf(key, sizeof key, "%s%s%s", addr ? addr : "-", named ? " " : "", named ? user : "");
    va_list ap;
    va_start(ap, fmt);
    bool said = say_v(c, now_ms, lvl, kind, key, fmt, ap);
    va_end(ap);
    return said;
}

int logcap_flush(logcap_t *c, uint64_t now_ms)
{
    if (!c)
        return 0;
    int n = 0;
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < LOGCAP_KINDS && c->kinds[i].name[0]; i++) {
        kind_t *k = &c->kinds[i];
        if (!k->held || since(now_ms, k->line_ms) < c->window)
            continue;
        log_warn("held back: %u lines of \"%s\"%s in %llu s (the last from %s)", k->held, k->name,
                 k->shared ? " and other kinds" : "",
                 (unsigned long long)(since(now_ms, k->line_ms) / 1000), k->last);
        k->held = 0;
        k->line_ms = now_ms;
        n++;
    }
    pthread_mutex_unlock(&c->mu);
    return n;
}

int logcap_pairs(logcap_t *c)
{
    pthread_mutex_lock(&c->mu);
    int n = (int)hmap_count(&c->by_key);
    pthread_mutex_unlock(&c->mu);
    return n;
}

bool logcap_knows(logcap_t *c, const char *kind, const char *addr)
{
    pthread_mutex_lock(&c->mu);
    int i = kind_find(c, kind);
    bool known = i >= 0 && pair_find(c, i, addr);
    pthread_mutex_unlock(&c->mu);
    return known;
}
