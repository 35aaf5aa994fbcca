/* bodycache — finished replay bodies, kept gzipped (body.h) so a replay or
 * an asciicast is built once: an LRU of entries keyed by what the body was
 * made from, holding at most max bytes of gzip (the replay-cache setting).
 *
 * Keys: the kind of body (Warren's game or a hosted recording, cast or
 * frames), the row's id and two versions that change whenever the body
 * would: a hosted recording's last chunk and bytes recorded (a live one
 * grows, so each size is its own entry; adding one drops the older sizes
 * of that recording and kind), a finished game's seed and end.
 *
 * Entries are counted: bodycache_get and bodycache_put hand out a reference the
 * caller gives back with bodycache_unref (a request's body is read from the
 * entry while the client takes it). An entry evicted while referenced
 * leaves the cache's count and is freed by its last unref; one larger than
 * max is never kept, only handed to its readers. Both are held meanwhile:
 * bodycache_held counts their bytes, so a caller can refuse new bodies
 * while slow readers hold many let go (rbuild.h).
 *
 * Loop thread only. Ownership: bodycache_new / bodycache_free; entries as said. */
#ifndef WARREN_BODYCACHE_H
#define WARREN_BODYCACHE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "hmap.h"
#include "list.h"

typedef enum {
    BODYCACHE_GAME_CAST,
    BODYCACHE_GAME_FRAMES,
    BODYCACHE_HOSTED_CAST,
    BODYCACHE_HOSTED_FRAMES,
} bodycache_kind_t;

typedef struct {
    bodycache_kind_t kind;
    int64_t id, v1, v2;
} bodycache_key_t;

typedef struct bodycache bodycache_t;
typedef struct bodycache_entry bodycache_entry_t;

struct bodycache_entry {
    /* read-only for readers */
    bodycache_key_t key;
    const char *gz; /* the body gzipped */
    size_t gz_len;
    uint64_t len; /* the body's length */
    /* private */
    int refs;
    bodycache_t *cache; /* while kept, else NULL */
    bodycache_t *owner; /* while let go but read (held), else NULL */
    hnode_t hn;         /* cache.by_key */
    list_t node;        /* cache.lru, newest first; or owner.held */
};

bool bodycache_key_eq(const bodycache_key_t *a, const bodycache_key_t *b);

bodycache_t *bodycache_new(size_t max); /* NULL when out of memory */
/* Drops the cache's own references (entries still read go on). NULL is fine. */
void bodycache_free(bodycache_t *c);

/* The entry of key (referenced, made the newest), or NULL. */
bodycache_entry_t *bodycache_get(bodycache_t *c, const bodycache_key_t *key);
/* A new entry of key holding gz (taken: gz is left empty) for a body of
 * len bytes, kept when it fits; referenced for the caller. NULL when out
 * of memory (gz is then freed). */
bodycache_entry_t *bodycache_put(bodycache_t *c, const bodycache_key_t *key, buf_t *gz,
                                 uint64_t len);
void bodycache_ref(bodycache_entry_t *e);   /* one more reference */
void bodycache_unref(bodycache_entry_t *e); /* NULL is fine */

/* Entries kept and their gzip bytes (the unit tests check the bounds). */
size_t bodycache_count(const bodycache_t *c);
size_t bodycache_bytes(const bodycache_t *c);
/* The gzip bytes of entries out of the cache (evicted, replaced or too
 * big) that readers still hold. */
size_t bodycache_held(const bodycache_t *c);

#endif
