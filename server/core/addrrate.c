/* addrrate — a token bucket per address; see addrrate.h.
 * The buckets are one array made with the table, found by a hash table and
 * kept on a list from the least to the most recently seen: a new address,
 * the array full, takes the place of the first. */
#include "addrrate.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hmap.h"
#include "list.h"

typedef struct {
    hnode_t hn; /* addrrate_t.by_addr */
    list_t lru; /* addrrate_t.lru, the least recently seen first */
    double tokens;
    uint64_t last_ms; /* when tokens was last filled */
    char addr[ADDRRATE_ADDR_MAX];
} bucket_t;

struct addrrate {
    pthread_mutex_t mu;
    double per_sec, burst;
    hmap_secret_t secret; /* keys by_addr's hash: addresses are chosen outside */
    hmap_t by_addr;
    list_t lru;
    int used; /* buckets taken from the array */
    bucket_t buckets[ADDRRATE_SLOTS];
};

addrrate_t *addrrate_new(unsigned per_sec, unsigned burst)
{
    if (per_sec == 0)
        return NULL;
    addrrate_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    if (hmap_secret_init(&r->secret)) {
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->mu, NULL);
    r->per_sec = per_sec;
    r->burst = burst ? burst : 1;
    hmap_init(&r->by_addr);
    list_init(&r->lru);
    return r;
}

void addrrate_free(addrrate_t *r)
{
    if (!r)
        return;
    hmap_fini(&r->by_addr);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

static uint64_t addr_hash(const addrrate_t *r, const char *addr)
{
    return hmap_hash_keyed_str(&r->secret, addr);
}

static bucket_t *bucket_find(const addrrate_t *r, const char *addr, uint64_t hash)
{
    HMAP_EACH(it, &r->by_addr, hash)
    {
        bucket_t *b = HMAP_ITEM(it, bucket_t, hn);
        if (strcmp(b->addr, addr) == 0)
            return b;
    }
    return NULL;
}

/* A full bucket for addr: a free place of the array, or the least recently
 * seen address's. NULL only when the hash table cannot take it (out of
 * memory for its first slots, so only while the array has free places):
 * the knock then passes. */
static bucket_t *bucket_take(addrrate_t *r, const char *addr, uint64_t hash, uint64_t now)
{
    bucket_t *b;
    bool fresh = r->used < ADDRRATE_SLOTS;
    if (fresh)
        b = &r->buckets[r->used];
    else {
        b = LIST_ITEM(r->lru.next, bucket_t, lru);
        hmap_del(&r->by_addr, &b->hn); /* the table keeps its slots: the add below fits */
        list_remove(&b->lru);
    }
    *b = (bucket_t){.tokens = r->burst, .last_ms = now};
    memcpy(b->addr, addr, strlen(addr) + 1);
    list_init(&b->lru);
    if (hmap_add(&r->by_addr, &b->hn, hash) < 0)
        return NULL;
    r->used += fresh;
    return b;
}

static uint64_t take_locked(addrrate_t *r, const char *addr, uint64_t now)
{
    uint64_t hash = addr_hash(r, addr);
    bucket_t *b = bucket_find(r, addr, hash);
    if (!b && !(b = bucket_take(r, addr, hash, now)))
        return 0;
    list_remove(&b->lru);
    list_push_back(&r->lru, &b->lru);
    if (now > b->last_ms) {
        b->tokens += (double)(now - b->last_ms) * r->per_sec / 1000.0;
        b->last_ms = now;
    }
    if (b->tokens > r->burst)
        b->tokens = r->burst;
    if (b->tokens >= 1.0) {
        b->tokens -= 1.0;
        return 0;
    }
    return (uint64_t)((1.0 - b->tokens) * 1000.0 / r->per_sec) + 1;
}

uint64_t addrrate_take(addrrate_t *r, const char *addr, uint64_t now_ms)
{
    if (!r || !addr || !addr[0])
        return 0;
    char key[ADDRRATE_ADDR_MAX];
    size_t n = strlen(addr);
    if (n >= sizeof key)
        n = sizeof key - 1;
    memcpy(key, addr, n);
    key[n] = 0;
    pthread_mutex_lock(&r->mu);
    uint64_t wait = take_locked(r, key, now_ms);
    pthread_mutex_unlock(&r->mu);
    return wait;
}

int addrrate_count(addrrate_t *r)
{
    pthread_mutex_lock(&r->mu);
    int n = (int)hmap_count(&r->by_addr);
    pthread_mutex_unlock(&r->mu);
    return n;
}

bool addrrate_knows(addrrate_t *r, const char *addr)
{
    pthread_mutex_lock(&r->mu);
    bool known = bucket_find(r, addr, addr_hash(r, addr)) != NULL;
    pthread_mutex_unlock(&r->mu);
    return known;
}
