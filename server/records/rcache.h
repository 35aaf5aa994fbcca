/* rcache — finished replay bodies, kept gzipped (body.h) so a replay or
 * an asciicast is built once: an LRU of entries keyed by what the body was
 * made from, holding at most max bytes of gzip (the replay-cache setting).
 *
 * Keys: the kind of body (Warren's game or a hosted recording, cast or
 * frames), the row's id and two versions that change whenever the body
 * would: a hosted recording's last chunk and bytes recorded (a live one
 * grows, so each size is its own entry; adding one drops the older sizes
 * of that recording and kind), a finished game's seed and end.
 *
 * Entries are counted: rcache_get and rcache_put hand out a reference the
 * caller gives back with rcache_unref (a request's body is read from the
 * entry while the client takes it). An entry evicted while referenced
 * leaves the cache's count and is freed by its last unref; one larger than
 * max is never kept, only handed to its readers.
 *
 * Loop thread only. Ownership: rcache_new / rcache_free; entries as said. */
#ifndef WARREN_RCACHE_H
#define WARREN_RCACHE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "hmap.h"
#include "list.h"

typedef enum {
    RCACHE_GAME_CAST,
    RCACHE_GAME_FRAMES,
    RCACHE_HOSTED_CAST,
    RCACHE_HOSTED_FRAMES,
} rcache_kind_t;

typedef struct {
    rcache_kind_t kind;
    int64_t id, v1, v2;
} rcache_key_t;

typedef struct rcache rcache_t;
typedef struct rcache_entry rcache_entry_t;

struct rcache_entry {
    /* read-only for readers */
    rcache_key_t key;
    const char *gz; /* the body gzipped */
    size_t gz_len;
    uint64_t len; /* the body's length */
    /* private */
    int refs;
    rcache_t *cache; /* while kept, else NULL */
    hnode_t hn;      /* cache.by_key */
    list_t node;     /* cache.lru, newest first */
};

bool rcache_key_eq(const rcache_key_t *a, const rcache_key_t *b);

rcache_t *rcache_new(size_t max); /* NULL when out of memory */
/* Drops the cache's own references (entries still read go on). NULL is fine. */
void rcache_free(rcache_t *c);

/* The entry of key (referenced, made the newest), or NULL. */
rcache_entry_t *rcache_get(rcache_t *c, const rcache_key_t *key);
/* A new entry of key holding gz (taken: gz is left empty) for a body of
 * len bytes, kept when it fits; referenced for the caller. NULL when out
 * of memory (gz is then freed). */
rcache_entry_t *rcache_put(rcache_t *c, const rcache_key_t *key, buf_t *gz, uint64_t len);
void rcache_ref(rcache_entry_t *e);   /* one more reference */
void rcache_unref(rcache_entry_t *e); /* NULL is fine */

/* Entries kept and their gzip bytes. */
size_t rcache_count(const rcache_t *c);
size_t rcache_bytes(const rcache_t *c);

#endif
