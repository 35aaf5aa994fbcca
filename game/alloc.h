/* alloc — the per-game counting allocator.
 *
 * Every engine allocation of a game goes through its galloc_t, so the heap a
 * game holds is measured (bytes) rather than guessed, and a test can make
 * allocation fail (limit) to check that nothing aborts. Each block carries a
 * small header with its size. No globals: the counter lives in the game. */
#ifndef WARREN_ALLOC_H
#define WARREN_ALLOC_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t bytes; /* held now, headers included */
    size_t peak;  /* most ever held */
    size_t limit; /* 0: none; else an allocation past it fails */
    uint64_t calls;
} galloc_t;

void *galloc(galloc_t *a, size_t n);             /* NULL on failure */
void *gcalloc(galloc_t *a, size_t n, size_t sz); /* zeroed; NULL on failure/overflow */
void *grealloc(galloc_t *a, void *p, size_t n);  /* NULL on failure (p kept) */
void gfree(galloc_t *a, void *p);                /* NULL is fine */

#endif
