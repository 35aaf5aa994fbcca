/* rng — PCG32 streams, seed hashing and dice. */
#include "rng.h"
#include <ctype.h>
#include <stdlib.h>

void rng_seed(rng_t *r, uint64_t seed, uint64_t stream)
{
    r->state = 0;
    r->inc = (stream << 1) | 1u;
    rng_next(r);
    r->state += seed;
    rng_next(r);
}

uint32_t rng_next(rng_t *r)
{
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ULL + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

uint32_t rng_below(rng_t *r, uint32_t n)
{
    if (n == 0)
        return 0;
    uint32_t threshold = -n % n;
    for (;;) {
        uint32_t v = rng_next(r);
        if (v >= threshold)
            return v % n;
    }
}

int32_t rng_range(rng_t *r, int32_t lo, int32_t hi)
{
    if (lo >= hi)
        return lo;
    return lo + (int32_t)rng_below(r, (uint32_t)(hi - lo) + 1u);
}

int rng_percent(rng_t *r, int pct)
{
    return (int)rng_below(r, 100) < pct;
}

/* splitmix64's finaliser */
static uint64_t rng_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

uint64_t rng_hash2(uint64_t a, uint64_t b)
{
    return rng_mix64(rng_mix64(a) ^ (b * 0xD6E8FEB86659FD93ULL));
}

static int read_num(const char **p, long max, long *out)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    long v = 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v > max)
            return -1;
        (*p)++;
    }
    *out = v;
    return 0;
}

int dice_parse(const char *s, dice_t *d)
{
    long n = 1, sides = 0, bonus = 0;
    const char *p = s;
    if (!s || !*s)
        return -1;
    if (*p != 'd' && read_num(&p, 10000, &n) < 0)
        return -1;
    if (*p == 'd') {
        p++;
        if (n > 100 || read_num(&p, 1000, &sides) < 0 || sides < 1)
            return -1;
    } else {
        bonus = n; /* plain constant */
        n = 0;
        sides = 1;
        if (*p)
            return -1;
        goto done;
    }
    if (*p == '+' || *p == '-') {
        int neg = *p == '-';
        p++;
        if (read_num(&p, 10000, &bonus) < 0)
            return -1;
        if (neg)
            bonus = -bonus;
    }
    if (*p)
        return -1;
done:
    d->n = (int16_t)n;
    d->sides = (int16_t)sides;
    d->bonus = (int16_t)bonus;
    return 0;
}

int32_t dice_roll(const dice_t *d, rng_t *r)
{
    int32_t t = d->bonus;
    for (int i = 0; i < d->n; i++)
        t += 1 + (int32_t)rng_below(r, (uint32_t)d->sides);
    return t;
}

int32_t dice_max(const dice_t *d)
{
    return d->n * d->sides + d->bonus;
}
