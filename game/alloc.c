/* alloc — counting allocator: a size header in front of every block. */
#include "alloc.h"
#include <stdlib.h>
#include <string.h>

#define HDR 16 /* keeps max_align_t alignment for the payload */

static int galloc_admit(galloc_t *a, size_t add)
{
    if (a->limit && a->bytes + add > a->limit)
        return 0;
    return 1;
}

static void galloc_count(galloc_t *a, size_t add, size_t sub)
{
    a->bytes = a->bytes + add - sub;
    if (a->bytes > a->peak)
        a->peak = a->bytes;
    a->calls++;
}

void *galloc(galloc_t *a, size_t n)
{
    if (n > SIZE_MAX - HDR || !galloc_admit(a, n + HDR))
        return NULL;
    unsigned char *p = malloc(n + HDR);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    galloc_count(a, n + HDR, 0);
    return p + HDR;
}

void *gcalloc(galloc_t *a, size_t n, size_t sz)
{
    if (sz && n > SIZE_MAX / sz)
        return NULL;
    void *p = galloc(a, n * sz);
    if (p)
        memset(p, 0, n * sz);
    return p;
}

void *grealloc(galloc_t *a, void *p, size_t n)
{
    if (!p)
        return galloc(a, n);
    unsigned char *base = (unsigned char *)p - HDR;
    size_t old;
    memcpy(&old, base, sizeof old);
    if (n > SIZE_MAX - HDR)
        return NULL;
    if (n > old && !galloc_admit(a, n - old))
        return NULL;
    unsigned char *nb = realloc(base, n + HDR);
    if (!nb)
        return NULL;
    memcpy(nb, &n, sizeof n);
    galloc_count(a, n + HDR, old + HDR);
    return nb + HDR;
}

void gfree(galloc_t *a, void *p)
{
    if (!p)
        return;
    unsigned char *base = (unsigned char *)p - HDR;
    size_t n;
    memcpy(&n, base, sizeof n);
    a->bytes -= n + HDR;
    free(base);
}
