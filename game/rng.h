/* rng — PCG32 (O'Neill, XSH RR 64/32): tiny state, portable, stable forever.
 * Every stream is a value the owner keeps (in game_t, a level generator...).
 * No floating point: all results are integers. */
#ifndef WARREN_RNG_H
#define WARREN_RNG_H
#include <stdint.h>

typedef struct {
    uint64_t state;
    uint64_t inc; /* odd; selects the stream */
} rng_t;

void rng_seed(rng_t *r, uint64_t seed, uint64_t stream);
uint32_t rng_next(rng_t *r);
/* Uniform in [0, n); n == 0 gives 0. Unbiased (rejection). */
uint32_t rng_below(rng_t *r, uint32_t n);
/* Uniform in [lo, hi] (inclusive); lo > hi gives lo. */
int32_t rng_range(rng_t *r, int32_t lo, int32_t hi);
/* True with probability pct/100. */
int rng_percent(rng_t *r, int pct);
/* A 64-bit hash of two numbers (splitmix64's finaliser), for deriving
 * seeds: a level's generator is seeded with rng_hash2(game_seed, level_id). */
uint64_t rng_hash2(uint64_t a, uint64_t b);

/* Dice: "NdS", "NdS+K", "NdS-K", "K", "dS" (N=1). */
typedef struct {
    int16_t n, sides, bonus;
} dice_t;
/* Parses s into *d; returns 0, or -1 on malformed text (d unchanged).
 * Limits: n 0..100, sides 1..1000, |bonus| <= 10000. */
int dice_parse(const char *s, dice_t *d);
int32_t dice_roll(const dice_t *d, rng_t *r);
int32_t dice_max(const dice_t *d);

#endif
