/* budget — connection counts in all and per address; see budget.h.
 * Addresses with connections live in a small hash table; an address whose
 * count drops to zero is forgotten. */
#include "budget.h"
#include <stdlib.h>
#include <string.h>
#include "list.h"

#define BUDGET_BUCKETS 1024

typedef struct {
    list_t node; /* its bucket */
    int count;
    char addr[BUDGET_ADDR_MAX];
} addr_count_t;

struct budget {
    int max_total, max_per_addr;
    int total;
    bool (*refused)(void *ud, const char *addr); /* budget_set_refuse */
    void *refused_ud;
    list_t buckets[BUDGET_BUCKETS];
};

static unsigned addr_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % BUDGET_BUCKETS;
}

static addr_count_t *addr_find(const budget_t *b, const char *addr)
{
    const list_t *head = &b->buckets[addr_hash(addr)];
    LIST_EACH (it, head) {
        addr_count_t *e = LIST_ITEM(it, addr_count_t, node);
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
    list_push_front(&b->buckets[addr_hash(addr)], &e->node);
    return e;
}

static void addr_drop(budget_t *b, const char *addr)
{
    addr_count_t *e = addr_find(b, addr);
    if (e && --e->count <= 0) {
        list_remove(&e->node);
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
    for (int i = 0; i < BUDGET_BUCKETS; i++)
        list_init(&b->buckets[i]);
    return b;
}

void budget_free(budget_t *b)
{
    if (!b)
        return;
    for (int i = 0; i < BUDGET_BUCKETS; i++)
        for (list_t *n; (n = list_pop_front(&b->buckets[i]));)
            free(LIST_ITEM(n, addr_count_t, node));
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

int budget_take(budget_t *b, budget_slot_t *slot, const char *addr)
{
    slot->held = false;
    slot_set(slot, addr ? addr : "");
    if (slot->addr[0] && b->refused && b->refused(b->refused_ud, slot->addr))
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

int budget_move(budget_t *b, budget_slot_t *slot, const char *addr)
{
    budget_slot_t to;
    slot_set(&to, addr ? addr : "");
    if (to.addr[0] && b->refused && b->refused(b->refused_ud, to.addr))
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

void budget_release(budget_t *b, budget_slot_t *slot)
{
    if (!slot->held)
        return;
    if (slot->addr[0])
        addr_drop(b, slot->addr);
    b->total--;
    slot->held = false;
}

int budget_total(const budget_t *b)
{
    return b->total;
}

int budget_count(const budget_t *b, const char *addr)
{
    const addr_count_t *e = addr && addr[0] ? addr_find(b, addr) : NULL;
    return e ? e->count : 0;
}

int budget_max_total(const budget_t *b)
{
    return b->max_total;
}
