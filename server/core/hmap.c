/* hmap — chained hash table with power-of-two slots; see hmap.h. */
#include "hmap.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define HMAP_MIN_SLOTS 16

void hmap_init(hmap_t *m)
{
    m->slots = NULL;
    m->nslots = m->count = 0;
}

void hmap_fini(hmap_t *m)
{
    free(m->slots);
    hmap_init(m);
}

static size_t slot_of(const hmap_t *m, uint64_t hash)
{
    return (size_t)(hash & (m->nslots - 1));
}

/* Moves every entry into a table of n slots; on failure nothing changes. */
static int rehash(hmap_t *m, size_t n)
{
    hnode_t **slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->nslots; i++) {
        for (hnode_t *e = m->slots[i], *next; e; e = next) {
            next = e->next;
            size_t j = (size_t)(e->hash & (n - 1));
            e->next = slots[j];
            slots[j] = e;
        }
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = n;
    return 0;
}

int hmap_add(hmap_t *m, hnode_t *n, uint64_t hash)
{
    if (m->count >= m->nslots) {
        size_t want = m->nslots ? m->nslots * 2 : HMAP_MIN_SLOTS;
        if (rehash(m, want) < 0 && !m->slots)
            return -1; /* a full table still works, only slower */
    }
    n->hash = hash;
    size_t i = slot_of(m, hash);
    n->next = m->slots[i];
    m->slots[i] = n;
    m->count++;
    return 0;
}

void hmap_del(hmap_t *m, hnode_t *n)
{
    for (hnode_t **p = &m->slots[slot_of(m, n->hash)]; *p; p = &(*p)->next) {
        if (*p == n) {
            *p = n->next;
            n->next = NULL;
            m->count--;
            return;
        }
    }
}

hnode_t *hmap_pop(hmap_t *m)
{
    for (size_t i = 0; m->count && i < m->nslots; i++) {
        hnode_t *n = m->slots[i];
        if (n) {
            hmap_del(m, n);
            return n;
        }
    }
    return NULL;
}

static hnode_t *same_hash(hnode_t *e, uint64_t hash)
{
    while (e && e->hash != hash)
        e = e->next;
    return e;
}

hnode_t *hmap_first(const hmap_t *m, uint64_t hash)
{
    return m->nslots ? same_hash(m->slots[slot_of(m, hash)], hash) : NULL;
}

hnode_t *hmap_next(const hnode_t *n)
{
    return same_hash(n->next, n->hash);
}

size_t hmap_count(const hmap_t *m)
{
    return m->count;
}

/* A final mix (splitmix64's) so that keys differing only in high bits
 * still land in different slots. */
uint64_t hmap_hash_u64(uint64_t v)
{
    v ^= v >> 30;
    v *= 0xbf58476d1ce4e5b9ull;
    v ^= v >> 27;
    v *= 0x94d049bb133111ebull;
    return v ^ (v >> 31);
}

static uint64_t fnv(const char *s, int fold)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (fold && ch >= 'A' && ch <= 'Z')
            ch = (unsigned char)(ch - 'A' + 'a');
        h = (h ^ ch) * 1099511628211ull;
    }
    return hmap_hash_u64(h);
}

uint64_t hmap_hash_str(const char *s)
{
    return fnv(s, 0);
}

uint64_t hmap_hash_nocase(const char *s)
{
    return fnv(s, 1);
}

_Static_assert(sizeof(((hmap_secret_t *)0)->key) == crypto_shorthash_KEYBYTES, "SipHash's key");

int hmap_secret_init(hmap_secret_t *sec)
{
    memset(sec, 0, sizeof *sec);
    if (sodium_init() < 0)
        return -1;
    randombytes_buf(sec->key, sizeof sec->key);
    return 0;
}

uint64_t hmap_hash_keyed(const hmap_secret_t *sec, const void *data, size_t n)
{
    unsigned char h[crypto_shorthash_BYTES];
    crypto_shorthash(h, data, n, sec->key);
    uint64_t v;
    memcpy(&v, h, sizeof v);
    return v;
}

uint64_t hmap_hash_keyed_str(const hmap_secret_t *sec, const char *s)
{
    return hmap_hash_keyed(sec, s, strlen(s));
}

/* Folded a piece at a time, each piece hashed after the hash so far. */
uint64_t hmap_hash_keyed_nocase(const hmap_secret_t *sec, const char *s)
{
    unsigned char piece[256];
    uint64_t h = 0;
    do {
        memcpy(piece, &h, sizeof h);
        size_t n = sizeof h;
        for (; *s && n < sizeof piece; s++, n++)
            piece[n] = (unsigned char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
        h = hmap_hash_keyed(sec, piece, n);
    } while (*s);
    return h;
}
