/* budget — connection counts in all and per address; see budget.h.
 * Addresses with connections live in a hash table that grows with them;
 * an address whose count drops to zero is forgotten. */
#include "budget.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hmap.h"

typedef struct {
    hnode_t hn; /* budget_t.addrs */
    int count;
    char addr[BUDGET_ADDR_MAX];
} addr_count_t;

struct budget {
    pthread_mutex_t mu; /* telnet conns are released on the loop they end on */
    int max_total, max_per_addr;
    int total;
    bool (*refused)(void *ud, const char *addr); /* budget_set_refuse */
    void *refused_ud;
    hmap_t addrs;         /* addr_count_t by address */
    hmap_secret_t secret; /* keys addrs' hash: addresses are chosen outside */
};

static addr_count_t *addr_find(const budget_t *b, const char *addr)
{
    HMAP_EACH(it, &b->addrs, hmap_hash_keyed_str(&b->secret, addr))
    {
        addr_count_t *e = HMAP_ITEM(it, addr_count_t, hn);
        if (strcmp(e->addr, addr) == 0)
            return e;
    }
    return NULL;
}

/* The entry of addr, made with count 0 when absent; NULL when out of memory. */
static addr_count_t *addr_get(budget_t *b, const char *addr)
{
    addr_count_t *e = addr_find(b, addr);
    if (e)
        return e;
    e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    size_t n = strlen(addr); /* a slot's address: shorter than e->addr */
    memcpy(e->addr, addr, n < sizeof e->addr ? n : sizeof e->addr - 1);
    if (hmap_add(&b->addrs, &e->hn, hmap_hash_keyed_str(&b->secret, e->addr)) < 0) {
        free(e);
        return NULL;
    }
    return e;
}

static void addr_drop(budget_t *b, const char *addr)
{
    addr_count_t *e = addr_find(b, addr);
    if (e && --e->count <= 0) {
        hmap_del(&b->addrs, &e->hn);
        free(e);
    }
}

budget_t *budget_new(int max_total, int max_per_addr)
{
    budget_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->max_total = max_total;
    b->max_per_addr = max_per_addr;
    if (hmap_secret_init(&b->secret)) {
        free(b);
        return NULL;
    }
    pthread_mutex_init(&b->mu, NULL);
    hmap_init(&b->addrs);
    return b;
}

void budget_free(budget_t *b)
{
    if (!b)
        return;
    for (hnode_t *n; (n = hmap_pop(&b->addrs));)
        free(HMAP_ITEM(n, addr_count_t, hn));
    hmap_fini(&b->addrs);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

void budget_set_refuse(budget_t *b, bool (*refused)(void *ud, const char *addr), void *ud)
{
    b->refused = refused;
    b->refused_ud = ud;
}

/* Whether one more connection from addr fits (the total aside). */
static bool addr_room(const budget_t *b, const char *addr)
{
    const addr_count_t *e = addr_find(b, addr);
    return !e || e->count < b->max_per_addr;
}

static void slot_set(budget_slot_t *slot, const char *addr)
{
    size_t n = strlen(addr);
    if (n >= sizeof slot->addr)
        n = sizeof slot->addr - 1;
    memcpy(slot->addr, addr, n);
    slot->addr[n] = 0;
}

/* Whether addr, a full address, is one the administrator turned away. */
static bool banned(const budget_t *b, const char *addr)
{
    return addr && addr[0] && b->refused && b->refused(b->refused_ud, addr);
}

/* What a slot for addr is charged to: its key, "" for none. */
static const char *charge_of(const char *addr, const char *key)
{
    return !addr || !addr[0] ? "" : key && key[0] ? key : addr;
}

static int take(budget_t *b, budget_slot_t *slot, const char *addr, const char *key)
{
    slot->held = false;
    slot_set(slot, charge_of(addr, key));
    if (banned(b, addr))
        return BUDGET_BANNED;
    if (b->total >= b->max_total)
        return BUDGET_FULL;
    if (slot->addr[0]) {
        if (!addr_room(b, slot->addr))
            return BUDGET_ADDR;
        addr_count_t *e = addr_get(b, slot->addr);
        if (!e)
            return BUDGET_FULL; /* out of memory: refuse rather than miscount */
        e->count++;
    }
    b->total++;
    slot->held = true;
    return BUDGET_OK;
}

static int move(budget_t *b, budget_slot_t *slot, const char *addr, const char *key)
{
    budget_slot_t to;
    slot_set(&to, charge_of(addr, key));
    if (banned(b, addr))
        return BUDGET_BANNED;
    if (!slot->held || strcmp(slot->addr, to.addr) == 0)
        return BUDGET_OK;
    if (to.addr[0] && !addr_room(b, to.addr))
        return BUDGET_ADDR;
    addr_count_t *e = to.addr[0] ? addr_get(b, to.addr) : NULL;
    if (to.addr[0] && !e)
        return BUDGET_ADDR;
    if (e)
        e->count++;
    if (slot->addr[0])
        addr_drop(b, slot->addr);
    memcpy(slot->addr, to.addr, sizeof slot->addr);
    return BUDGET_OK;
}

static void release(budget_t *b, budget_slot_t *slot)
{
    if (!slot->held)
        return;
    if (slot->addr[0])
        addr_drop(b, slot->addr);
    b->total--;
    slot->held = false;
}

int budget_take(budget_t *b, budget_slot_t *slot, const char *addr, const char *key)
{
    pthread_mutex_lock(&b->mu);
    int ret = take(b, slot, addr, key);
    pthread_mutex_unlock(&b->mu);
    return ret;
}

int budget_move(budget_t *b, budget_slot_t *slot, const char *addr, const char *key)
{
    pthread_mutex_lock(&b->mu);
    int ret = move(b, slot, addr, key);
    pthread_mutex_unlock(&b->mu);
    return ret;
}

void budget_release(budget_t *b, budget_slot_t *slot)
{
    pthread_mutex_lock(&b->mu);
    release(b, slot);
    pthread_mutex_unlock(&b->mu);
}

int budget_total(budget_t *b)
{
    pthread_mutex_lock(&b->mu);
    int n = b->total;
    pthread_mutex_unlock(&b->mu);
    return n;
}

int budget_count(budget_t *b, const char *addr)
{
    pthread_mutex_lock(&b->mu);
    const addr_count_t *e = addr && addr[0] ? addr_find(b, addr) : NULL;
    int n = e ? e->count : 0;
    pthread_mutex_unlock(&b->mu);
    return n;
}

int budget_max_total(const budget_t *b)
{
    return b->max_total;
}
