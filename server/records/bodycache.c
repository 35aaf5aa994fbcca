/* bodycache — an LRU of gzipped replay bodies (bodycache.h). */
#include "bodycache.h"
#include <stdlib.h>

struct bodycache {
    hmap_t by_key;
    list_t lru;  /* bodycache_entry_t.node of the entries kept, newest first */
    list_t held; /* bodycache_entry_t.node of the entries let go, still read */
    size_t max, bytes, held_bytes;
};

bodycache_t *bodycache_new(size_t max)
{
    bodycache_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    hmap_init(&c->by_key);
    list_init(&c->lru);
    list_init(&c->held);
    c->max = max;
    return c;
}

static uint64_t key_hash(const bodycache_key_t *k)
{
    return hmap_hash_u64((uint64_t)k->id * 4 + (uint64_t)k->kind);
}

bool bodycache_key_eq(const bodycache_key_t *a, const bodycache_key_t *b)
{
    return a->kind == b->kind && a->id == b->id && a->v1 == b->v1 && a->v2 == b->v2;
}

void bodycache_ref(bodycache_entry_t *e)
{
    e->refs++;
}

void bodycache_unref(bodycache_entry_t *e)
{
    if (!e || --e->refs > 0)
        return;
    if (e->owner) { /* let go while read: its readers are done now */
        list_remove(&e->node);
        e->owner->held_bytes -= e->gz_len;
    }
    free((void *)e->gz);
    free(e);
}

/* Counted as held while its readers (references) last. */
static void hold(bodycache_t *c, bodycache_entry_t *e)
{
    e->owner = c;
    list_push_front(&c->held, &e->node);
    c->held_bytes += e->gz_len;
}

/* Out of the cache (and its reference dropped); held if still read. */
static void drop(bodycache_entry_t *e)
{
    bodycache_t *c = e->cache;
    hmap_del(&c->by_key, &e->hn);
    list_remove(&e->node);
    c->bytes -= e->gz_len;
    e->cache = NULL;
    if (e->refs > 1)
        hold(c, e);
    bodycache_unref(e);
}

void bodycache_free(bodycache_t *c)
{
    if (!c)
        return;
    for (list_t *n; (n = list_front(&c->lru));)
        drop(LIST_ITEM(n, bodycache_entry_t, node));
    for (list_t *n; (n = list_pop_front(&c->held));) /* read on, no longer counted */
        LIST_ITEM(n, bodycache_entry_t, node)->owner = NULL;
    hmap_fini(&c->by_key);
    free(c);
}

bodycache_entry_t *bodycache_get(bodycache_t *c, const bodycache_key_t *key)
{
    HMAP_EACH(it, &c->by_key, key_hash(key))
    {
        bodycache_entry_t *e = HMAP_ITEM(it, bodycache_entry_t, hn);
        if (bodycache_key_eq(&e->key, key)) {
            list_remove(&e->node);
            list_push_front(&c->lru, &e->node);
            e->refs++;
            return e;
        }
    }
    return NULL;
}

/* Drops every entry of the same recording and kind (older sizes of a live
 * recording, or the same key built twice). */
static void drop_versions(bodycache_t *c, const bodycache_key_t *key)
{
    for (bool again = true; again;) {
        again = false;
        HMAP_EACH(it, &c->by_key, key_hash(key))
        {
            bodycache_entry_t *e = HMAP_ITEM(it, bodycache_entry_t, hn);
            if (e->key.kind == key->kind && e->key.id == key->id) {
                drop(e);
                again = true; /* the walk may not go on past a deletion */
                break;
            }
        }
    }
}

bodycache_entry_t *bodycache_put(bodycache_t *c, const bodycache_key_t *key, buf_t *gz,
                                 uint64_t len)
{
    bodycache_entry_t *e = calloc(1, sizeof *e);
    if (!e) {
        buf_free(gz);
        return NULL;
    }
    *e = (bodycache_entry_t){.key = *key, .gz = gz->data, .gz_len = gz->len, .len = len, .refs = 1};
    list_init(&e->node);
    buf_init(gz); /* taken */
    drop_versions(c, key);
    if (e->gz_len > c->max || hmap_add(&c->by_key, &e->hn, key_hash(key))) {
        hold(c, e); /* not kept: its readers have it */
        return e;
    }
    while (c->bytes + e->gz_len > c->max)
        drop(LIST_ITEM(c->lru.prev, bodycache_entry_t, node)); /* the oldest */
    list_push_front(&c->lru, &e->node);
    c->bytes += e->gz_len;
    e->cache = c;
    e->refs++; /* the cache's own */
    return e;
}

size_t bodycache_count(const bodycache_t *c)
{
    return hmap_count(&c->by_key);
}

size_t bodycache_bytes(const bodycache_t *c)
{
    return c->bytes;
}

size_t bodycache_held(const bodycache_t *c)
{
    return c->held_bytes;
}
