/* ansi_shift — which sideways move of the view b shows of a.
 *
 * Probes: every SHIFT_EVERY columns of each changed row of b, a window of
 * SHIFT_WIN cells that changed and is not one cell repeated. A probe votes
 * for every move (dy, k) that brings an equal window of a onto it, as a
 * hash table of a's windows finds them; the sideways move with the most
 * votes wins. Building that table (every window of a hashed and filed) is
 * the search's cost.
 *
 * Most frames need no table: a move gets no more votes than there are
 * probes whose window a shows at that move, and where the windows show is
 * found in one pass over a's cells that looks up only pairs of unequal
 * neighbours (each probe filed by its first such pair). When no sideways
 * move has enough, the search ends there. */
#include "ansi_shift.h"
#include "ansi.h"
#include <stdlib.h>
#include <string.h>

#define SHIFT_EVERY 12 /* a probe every this many columns of a changed row */
#define SHIFT_WIN   6  /* cells in a probe's window */
#define SHIFT_CHAIN 32 /* a window repeated more often than this is no clue */
#define MIN_VOTES   ANSI_DIFF_SEARCH_ROWS

/* A window's hash is a polynomial in its cells' keys, so that the next
 * window's follows from it in a few operations (Rabin-Karp). */
#define ROLL_B 0x100000001B3ull

static inline bool cell_same(const cell_t *a, const cell_t *b)
{
    uint64_t x, y; /* ch, attr, fg and bg: the whole cell in one compare */
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x == y;
}

static bool cells_eq(const cell_t *a, const cell_t *b, int n)
{
    return memcmp(a, b, sizeof(cell_t) * (size_t)n) == 0;
}

static inline uint64_t cell_key(const cell_t *c)
{
    uint64_t v;
    memcpy(&v, c, sizeof v);
    return (v ^ (v >> 29)) * 0xBF58476D1CE4E5B9ull;
}

static uint64_t window_hash(const cell_t *c)
{
    uint64_t h = 0;
    for (int i = 0; i < SHIFT_WIN; i++)
        h = h * ROLL_B + cell_key(&c[i]);
    return h;
}

static bool window_varied(const cell_t *c)
{
    for (int x = 1; x < SHIFT_WIN; x++)
        if (!cell_same(&c[x], &c[0]))
            return true;
    return false;
}

/* Is b's window at row y, column px a probe? A run of one cell matches
 * anywhere; an unchanged one is no clue. */
static bool is_probe(const screen_t *a, const screen_t *b, int y, int px)
{
    size_t at = (size_t)y * (size_t)b->w + (size_t)px;
    return window_varied(b->cells + at) && !cells_eq(b->cells + at, a->cells + at, SHIFT_WIN);
}

/* The votes' index of the move that brings a's window at (ya, xa) onto b's
 * at (y, px). */
static size_t move_at(int ya, int xa, int y, int px, int w, int h)
{
    return (size_t)(ya - y + h) * 2 * (size_t)w + (size_t)(xa - px + w);
}

/* The hashes of row y's windows, rolled along the row, into hash[x], and
 * into filed[x] whether the window is filed (not one cell repeated). */
static void row_windows(const screen_t *a, int y, uint64_t *hash, bool *filed)
{
    const uint64_t TOP = ROLL_B * ROLL_B * ROLL_B * ROLL_B * ROLL_B; /* B^(WIN-1) */
    _Static_assert(SHIFT_WIN == 6, "TOP is ROLL_B to the power SHIFT_WIN - 1");
    const cell_t *r = a->cells + (size_t)y * a->w;
    uint64_t h = window_hash(r);
    int same = 0; /* the window's neighbouring cells that are equal */
    for (int i = 0; i + 1 < SHIFT_WIN; i++)
        same += cell_same(&r[i], &r[i + 1]);
    for (int x = 0; x + SHIFT_WIN <= a->w; x++) {
        hash[x] = h;
        filed[x] = same < SHIFT_WIN - 1;
        if (x + SHIFT_WIN == a->w)
            break;
        h = (h - cell_key(&r[x]) * TOP) * ROLL_B + cell_key(&r[x + SHIFT_WIN]);
        same += cell_same(&r[x + SHIFT_WIN - 1], &r[x + SHIFT_WIN]) - cell_same(&r[x], &r[x + 1]);
    }
}

/* The table's slots: a power of two, at least twice a's cells. */
static size_t table_size(const screen_t *a)
{
    size_t n = (size_t)a->w * (size_t)a->h * 2, size = 64;
    while (size < n)
        size *= 2;
    return size;
}

/* ---- the table: what defines the votes ---------------------------------- */

typedef struct {
    uint32_t *slot; /* 0 empty, else 1 + y * w + x of a window */
    size_t mask;
} windows_t;

/* A window goes into the first free slot at most SHIFT_CHAIN on from its
 * hash's, or nowhere. */
static void window_add(windows_t *t, uint64_t hash, uint32_t at)
{
    size_t i = hash & t->mask;
    for (int step = 0; step < SHIFT_CHAIN && t->slot[i]; step++)
        i = (i + 1) & t->mask;
    if (!t->slot[i])
        t->slot[i] = at;
}

static bool windows_make(windows_t *t, const screen_t *a)
{
    size_t size = table_size(a);
    t->slot = calloc(size, sizeof *t->slot);
    t->mask = size - 1;
    if (!t->slot)
        return false;
    uint64_t hash[SCREEN_MAX_W];
    bool filed[SCREEN_MAX_W];
    for (int y = 0; y < a->h; y++) {
        row_windows(a, y, hash, filed);
        for (int x = 0; x + SHIFT_WIN <= a->w; x++)
            if (filed[x])
                window_add(t, hash[x], (uint32_t)(1 + (size_t)y * a->w + x));
    }
    return true;
}

/* The move most probes voted for (at: its index in the votes, v its
 * votes); on a tie the move least far up or down, then the one that
 * brings rows from above (dy < 0), then the smallest k. */
typedef struct {
    int v;
    size_t at;
} shift_best_t;

/* The order of ties: by |dy|, then dy < 0 first, then by k. */
static uint64_t shift_rank(size_t at, int w, int h)
{
    int row = (int)(at / (size_t)(2 * w)), dy = row - h, x = (int)(at % (size_t)(2 * w));
    return (uint64_t)(dy < 0 ? -dy : dy) << 32 | (uint64_t)(dy >= 0) << 31 | (uint64_t)x;
}

/* A move with v votes at index at: the best so far if it beats it. */
static void shift_better(shift_best_t *best, int v, size_t at, int w, int h)
{
    if (at % (size_t)(2 * w) == (size_t)w) /* no sideways move */
        return;
    if (v > best->v || (v == best->v && shift_rank(at, w, h) < shift_rank(best->at, w, h)))
        *best = (shift_best_t){v, at};
}

/* Votes of row y's probes for each move (dy, k) of the view, at
 * votes[(dy + h) * 2w + k + w]: where in a (row y + dy, column px + k) a
 * probe's window shows again. */
static void shift_vote(const screen_t *a, const windows_t *t, const screen_t *b, int y, int *votes,
                       shift_best_t *best)
{
    int w = b->w, h = b->h;
    for (int px = SHIFT_EVERY / 2; px + SHIFT_WIN <= w; px += SHIFT_EVERY) {
        if (!is_probe(a, b, y, px))
            continue;
        const cell_t *bw = b->cells + (size_t)y * w + px;
        size_t i = window_hash(bw) & t->mask;
        for (int step = 0; step < SHIFT_CHAIN && t->slot[i]; step++, i = (i + 1) & t->mask) {
            size_t at = t->slot[i] - 1;
            int ya = (int)(at / (size_t)w), xa = (int)(at % (size_t)w);
            if (cells_eq(a->cells + at, bw, SHIFT_WIN)) {
                size_t m = move_at(ya, xa, y, px, w, h);
                shift_better(best, ++votes[m], m, w, h);
            }
        }
    }
}

/* The best move by the table; best->v 0 when it cannot be built. */
static void table_find(const screen_t *a, const screen_t *b, const bool *changed,
                       shift_best_t *best)
{
    int w = b->w, h = b->h;
    *best = (shift_best_t){0, 0};
    windows_t t;
    int *votes = calloc((size_t)(2 * h) * (size_t)(2 * w), sizeof *votes);
    if (votes && windows_make(&t, a)) {
        for (int y = 0; y < h; y++)
            if (changed[y])
                shift_vote(a, &t, b, y, votes, best);
        free(t.slot);
    }
    free(votes);
}

/* ---- the pre-test: most frames need no table --------------------------- */

#define PROBES_MAX  512  /* more probes, moves or compares: the table decides */
#define PROBE_SLOTS 1024 /* a power of two, at least twice PROBES_MAX */
#define MOVES_MAX   512
#define MOVE_SLOTS  1024 /* a power of two, at least twice MOVES_MAX */
#define CHECKS_MAX  4096

typedef struct {
    uint64_t c0, c1;  /* the window's first pair of unequal neighbours */
    int16_t y, px, j; /* b's row, the window's column, the pair's offset in it */
    int16_t next;     /* the next probe in its slot's chain, or -1 */
} probe_t;

typedef struct {
    const screen_t *a, *b;
    probe_t p[PROBES_MAX];
    int16_t head[PROBE_SLOTS]; /* each slot's first probe, or -1 */
    int probes, checks, moves;
    uint32_t key[MOVE_SLOTS];   /* a move's votes index + 1; 0 empty */
    uint16_t shows[MOVE_SLOTS]; /* probes whose window a shows at the move */
} pretest_t;

static inline unsigned pair_slot(uint64_t c0, uint64_t c1)
{
    uint64_t h = (c0 ^ (c1 * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    return (unsigned)(h >> 54) & (PROBE_SLOTS - 1);
}

/* b's probes, filed by their first pair; false when there are too many. */
static bool probes_file(pretest_t *t, const bool *changed)
{
    const screen_t *b = t->b;
    t->probes = 0;
    memset(t->head, -1, sizeof t->head);
    for (int y = 0; y < b->h; y++)
        for (int px = SHIFT_EVERY / 2; changed[y] && px + SHIFT_WIN <= b->w; px += SHIFT_EVERY) {
            if (!is_probe(t->a, b, y, px))
                continue;
            if (t->probes == PROBES_MAX)
                return false;
            const cell_t *bw = b->cells + (size_t)y * b->w + px;
            int j = 0;
            while (cell_same(&bw[j], &bw[j + 1]))
                j++;
            probe_t *p = &t->p[t->probes];
            memcpy(&p->c0, &bw[j], sizeof p->c0);
            memcpy(&p->c1, &bw[j + 1], sizeof p->c1);
            p->y = (int16_t)y, p->px = (int16_t)px, p->j = (int16_t)j;
            unsigned slot = pair_slot(p->c0, p->c1);
            p->next = t->head[slot];
            t->head[slot] = (int16_t)t->probes++;
        }
    return true;
}

/* One more probe's window showing at sideways move `at`: true when that
 * gives it MIN_VOTES, or too many moves were seen. */
static bool move_shows(pretest_t *t, uint32_t at)
{
    unsigned i = (at * 0x9E3779B1u) >> 20 & (MOVE_SLOTS - 1);
    while (t->key[i] && t->key[i] != at + 1)
        i = (i + 1) & (MOVE_SLOTS - 1);
    if (!t->key[i]) {
        if (t->moves++ == MOVES_MAX)
            return true;
        t->key[i] = at + 1;
        t->shows[i] = 0;
    }
    return ++t->shows[i] >= MIN_VOTES;
}

/* The probes whose first pair is a's pair (c0, c1) at row ya, column x
 * (filed in slot), whose whole window shows there: true as move_shows,
 * or when too many windows were compared. */
static bool pair_shows(pretest_t *t, unsigned slot, int ya, int x, uint64_t c0, uint64_t c1)
{
    const screen_t *a = t->a, *b = t->b;
    int w = b->w;
    for (int i = t->head[slot]; i >= 0; i = t->p[i].next) {
        const probe_t *p = &t->p[i];
        int xa = x - p->j;
        if (p->c0 != c0 || p->c1 != c1 || xa < 0 || xa + SHIFT_WIN > w || xa == p->px)
            continue; /* a move straight up or down is not a shift */
        if (++t->checks > CHECKS_MAX)
            return true;
        size_t pos = (size_t)ya * w + (size_t)xa;
        if (cells_eq(a->cells + pos, b->cells + (size_t)p->y * w + p->px, SHIFT_WIN) &&
            move_shows(t, (uint32_t)move_at(ya, xa, p->y, p->px, w, b->h)))
            return true;
    }
    return false;
}

/* One pass over a: true when some sideways move may get MIN_VOTES. */
static bool pretest_scan(pretest_t *t)
{
    const screen_t *a = t->a;
    memset(t->key, 0, sizeof t->key);
    t->checks = t->moves = 0;
    for (int ya = 0; ya < a->h; ya++) {
        const cell_t *r = a->cells + (size_t)ya * a->w;
        uint64_t cur, nxt;
        memcpy(&cur, &r[0], sizeof cur);
        for (int x = 0; x + 1 < a->w; x++, cur = nxt) {
            memcpy(&nxt, &r[x + 1], sizeof nxt);
            if (nxt == cur)
                continue;
            unsigned slot = pair_slot(cur, nxt);
            if (t->head[slot] >= 0 && pair_shows(t, slot, ya, x, cur, nxt))
                return true;
        }
    }
    return false;
}

/* May the table find a sideways move? False only when it cannot: a probe
 * votes at most once for a move, and only where a shows its window, so a
 * move has no more votes than probes whose window a shows there. */
static bool shift_may(const screen_t *a, const screen_t *b, const bool *changed)
{
    pretest_t *t = malloc(sizeof *t);
    if (!t)
        return true;
    t->a = a, t->b = b;
    bool may = !probes_file(t, changed) || (t->probes >= MIN_VOTES && pretest_scan(t));
    free(t);
    return may;
}

int ansi_shift_find(const screen_t *a, const screen_t *b, const bool *changed, bool full, int *dy)
{
    int w = b->w, h = b->h;
    *dy = 0;
    if (w < 4 * SHIFT_EVERY)
        return 0;
    if (!full && !shift_may(a, b, changed))
        return 0;
    shift_best_t best;
    table_find(a, b, changed, &best);
    if (best.v < MIN_VOTES)
        return 0;
    *dy = (int)(best.at / (size_t)(2 * w)) - h;
    return (int)(best.at % (size_t)(2 * w)) - w;
}
