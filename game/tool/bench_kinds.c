/* bench_kinds — bytes per key over kinds of play at 80x24, each a seeded
 * run of 200 keys from its own key list (walk.bytes_per_key.KIND), beside
 * the cells the key changed on the screen (walk.cells_per_key.KIND): their
 * ratio says what the ANSI encoder spends per changed cell. Same session
 * path as bench_walk.c: render into the grid, diff against what the
 * terminal shows, the grid becomes that. */
#include <stdio.h>
#include <string.h>
#include "ansi.h"
#include "game.h"
#include "tool.h"
#include "world.h"

#define KIND_KEYS 200
#define ESC       "\x1b"

/* Each kind draws whole steps (a key or a few, such as travel's "_>.")
 * from its list; Esc closes whatever a step left open. A kind with a
 * start plays those keys first, unmeasured, then the keys of the kind
 * named by keys_as (the same keys in another place). */
static const struct {
    const char *name;
    const char *steps[12];
    const char *start, *keys_as;
} KINDS[] = {
    {"explore", {"h", "j", "k", "l", "y", "u", "b", "n", ".", ESC}},
    {"travel", {"o", "_>.", "_<.", "o" ESC}},
    {"menus", {"i" ESC, "e" ESC, "C" ESC, "\\" ESC, "?c" ESC}},
    {"messages", {"\x10" ESC, ";." ESC, "x." ESC, ".", "s"}},
    /* the steps of NetHack's travel walk (tests/bench/nethack_walk.py);
     * last, so that the kinds before keep their keys */
    {"runs", {"_<.", "_>.", "H", "J", "K", "L", "Y", "U", "B", "N"}},
    /* the same keys on the first level below the town, where NetHack's
     * walk plays (a dark level of rooms and corridors, not a lit town) */
    {"runs_below", {"_<.", "_>.", "H", "J", "K", "L", "Y", "U", "B", "N"}, "_>.>", "runs"},
};

static int kind_named(const char *name)
{
    int k = 0, n = (int)(sizeof KINDS / sizeof KINDS[0]);
    while (k < n && strcmp(KINDS[k].name, name))
        k++;
    return k < n ? k : -1;
}

static int steps_of(int kind)
{
    int n = 0;
    while (n < 12 && KINDS[kind].steps[n])
        n++;
    return n;
}

/* KIND_KEYS keys of kind k from a fixed xorshift into keys. */
static void kind_keys(int k, char *keys)
{
    if (KINDS[k].keys_as)
        k = kind_named(KINDS[k].keys_as);
    uint64_t x = 0x9E3779B97F4A7C15ull + (uint64_t)k;
    int n = 0, steps = steps_of(k);
    while (n < KIND_KEYS) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for (const char *s = KINDS[k].steps[x % (uint64_t)steps]; *s && n < KIND_KEYS; s++)
            keys[n++] = *s;
    }
}

static int changed_cells(const screen_t *a, const screen_t *b)
{
    int n = 0;
    for (int i = 0; i < a->w * a->h; i++)
        n += !cell_eq(&a->cells[i], &b->cells[i]);
    return n;
}

static int changed_rows(const screen_t *a, const screen_t *b)
{
    int n = 0;
    for (int y = 0; y < a->h; y++)
        n += memcmp(a->cells + (size_t)y * a->w, b->cells + (size_t)y * b->w,
                    sizeof(cell_t) * (size_t)a->w) != 0;
    return n;
}

/* One line of a trace: the key, its frame's bytes, the cells and rows it
 * changed, and where the player and the view's anchor stand after it. */
static void trace_key(FILE *f, int i, char key, size_t bytes, const screen_t *a, const screen_t *b,
                      const game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    char k[4] = {key, 0};
    if ((unsigned char)key < 0x20)
        k[0] = '^', k[1] = (char)(key + 64);
    fprintf(f, "%4d %-3s %6zu bytes %5d cells %3d rows  depth %d at %d,%d anchor %d,%d\n", i, k,
            bytes, changed_cells(a, b), changed_rows(a, b), g->depth, p ? p->x : -1, p ? p->y : -1,
            g->view_x, g->view_y);
}

/* One run of the keys from a fresh game of seed 1: bytes and changed
 * cells into out, and each key's line into trace when not NULL. */
static int keys_once(const content_t *c, script_vm_t *vm, const char *start, const char *keys,
                     bench_kind_t *out, FILE *trace)
{
    bench_play_t p;
    int ret = bench_play_start(&p, c, vm);
    game_state_t st = GAME_RUNNING;
    for (const char *k = start; ret == 0 && k && *k; k++) {
        game_input(p.g, vm, (key_event_t){(uint32_t)(unsigned char)*k, 0});
        game_render(p.g, p.grid, &p.v);
        buf_reset(&p.b);
        ansi_diff(&p.prof, p.sent, p.grid, &p.b);
        screen_copy(p.sent, p.grid);
        screen_clean(p.sent);
        screen_clean(p.grid);
    }
    for (int i = 0; ret == 0 && i < KIND_KEYS && st == GAME_RUNNING; i++) {
        st = game_input(p.g, vm, (key_event_t){(uint32_t)(unsigned char)keys[i], 0});
        game_render(p.g, p.grid, &p.v);
        out->cells += changed_cells(p.sent, p.grid);
        buf_reset(&p.b);
        ansi_diff(&p.prof, p.sent, p.grid, &p.b);
        if (trace)
            trace_key(trace, i, keys[i], p.b.len, p.sent, p.grid, p.g);
        screen_copy(p.sent, p.grid);
        screen_clean(p.sent);
        screen_clean(p.grid);
        out->bytes += (double)p.b.len;
        out->keys++;
    }
    bench_play_end(&p);
    return ret;
}

int bench_kinds(const content_t *c, script_vm_t *vm, bench_kind_t *out, int max)
{
    int n = 0;
    for (int k = 0; k < (int)(sizeof KINDS / sizeof KINDS[0]) && n < max; k++) {
        bench_kind_t r = {KINDS[k].name, 0, 0, 0};
        char keys[KIND_KEYS];
        kind_keys(k, keys);
        if (keys_once(c, vm, KINDS[k].start, keys, &r, NULL) < 0)
            return -1;
        out[n++] = r;
    }
    return n;
}

int bench_kind_trace(const content_t *c, script_vm_t *vm, const char *kind, FILE *f)
{
    char keys[KIND_KEYS];
    int k = kind_named(kind);
    if (k >= 0)
        kind_keys(k, keys);
    else if (!strcmp(kind, "walk"))
        bench_walk_keys(keys, KIND_KEYS);
    else
        return -1;
    bench_kind_t r = {kind, 0, 0, 0};
    if (keys_once(c, vm, k >= 0 ? KINDS[k].start : NULL, keys, &r, f) < 0)
        return -1;
    fprintf(f, "%s: %.1f bytes a key, %.1f cells a key\n", kind, r.bytes / r.keys,
            r.cells / r.keys);
    return 0;
}
