/* hmap — the daemon's one hash table: intrusive chains found by a 64-bit
 * hash the caller computes, so a lookup costs the same at 10 entries or
 * 100,000 (sessions by user, name and game; connections per address).
 *
 * Each element embeds an hnode_t and is found back from it with
 * HMAP_ITEM. Several elements may share a key (or just a hash): HMAP_EACH
 * walks the entries with one hash and the caller compares the keys. The
 * slot array doubles as entries are added (at most one entry per slot on
 * average); when that allocation fails the table keeps its size, so adding
 * only fails when the table has no slots at all.
 *
 *   hmap_t by_name;                    struct user { hnode_t hn; char name[32]; };
 *   hmap_init(&by_name);
 *   hmap_add(&by_name, &u->hn, hmap_hash_str(u->name));
 *   HMAP_EACH (it, &by_name, hmap_hash_str(name)) {
 *       struct user *u = HMAP_ITEM(it, struct user, hn); ... compare the key ...
 *   }
 *   hmap_del(&by_name, &u->hn);
 *
 * Ownership: the table owns its slot array (hmap_fini frees it); the
 * elements are the caller's. Not thread-safe: one owner thread. */
#ifndef WARREN_HMAP_H
#define WARREN_HMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct hnode {
    struct hnode *next; /* private: the chain */
    uint64_t hash;
} hnode_t;

typedef struct {
    hnode_t **slots; /* private */
    size_t nslots, count;
} hmap_t;

/* The element of type `type` whose member `field` is the node n. */
#define HMAP_ITEM(n, type, field) ((type *)(void *)((char *)(n)-offsetof(type, field)))

/* Walks the entries whose hash is h; the body must not add or delete. */
#define HMAP_EACH(it, m, h) for (hnode_t *it = hmap_first((m), (h)); it; it = hmap_next(it))

void hmap_init(hmap_t *m); /* empty; allocates nothing yet */
void hmap_fini(hmap_t *m); /* frees the slots; the elements are untouched */

/* Adds n under hash. Returns 0, or -1 when out of memory (n not added). */
int hmap_add(hmap_t *m, hnode_t *n, uint64_t hash);
/* Removes n, which must be in m. */
void hmap_del(hmap_t *m, hnode_t *n);

/* Removes and returns some entry, NULL when empty (for emptying a table). */
hnode_t *hmap_pop(hmap_t *m);

hnode_t *hmap_first(const hmap_t *m, uint64_t hash); /* NULL when none */
hnode_t *hmap_next(const hnode_t *n);                /* the next with n's hash */
size_t hmap_count(const hmap_t *m);

/* Hashes for common keys (FNV-1a, then mixed so low bits spread): for
 * keys the daemon chooses (ids, pids). Anyone who can choose the keys can
 * choose ones that share a chain, so a table of keys from outside (names,
 * addresses) uses the keyed hashes below. */
uint64_t hmap_hash_str(const char *s);
uint64_t hmap_hash_nocase(const char *s); /* ASCII letters folded */
uint64_t hmap_hash_u64(uint64_t v);

/* The secret of a table keyed against hash flooding: libsodium's
 * crypto_shorthash (SipHash) under a random key, so which keys share a
 * chain cannot be worked out from outside. Each table (or owner) makes
 * its own with hmap_secret_init; copy it freely. */
typedef struct {
    unsigned char key[16]; /* private: crypto_shorthash_KEYBYTES */
} hmap_secret_t;

/* A fresh random secret. 0, or -1 when libsodium cannot start (the
 * secret is then all zeros: a working hash, but not secret, so a table
 * keyed by it is open to flooding). Every caller checks: a table must not
 * be made without its secret. */
int hmap_secret_init(hmap_secret_t *sec);
uint64_t hmap_hash_keyed(const hmap_secret_t *sec, const void *data, size_t n);
uint64_t hmap_hash_keyed_str(const hmap_secret_t *sec, const char *s);
uint64_t hmap_hash_keyed_nocase(const hmap_secret_t *sec, const char *s); /* ASCII folded */

#endif
