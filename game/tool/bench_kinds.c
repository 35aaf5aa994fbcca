/* bench_kinds — bytes per key over kinds of play at 80x24, each a seeded
 * run of 200 keys from its own key list (walk.bytes_per_key.KIND), beside
 * the cells the key changed on the screen (walk.cells_per_key.KIND): their
 * ratio says what the ANSI encoder spends per changed cell. Same session
 * path as bench_walk.c: render into the grid, diff against what the
 * terminal shows, the grid becomes that. */
#include <string.h>
#include "ansi.h"
#include "game.h"
#include "tool.h"

#define KIND_KEYS 200
#define ESC       "\x1b"

/* Each kind draws whole steps (a key or a few, such as travel's "_>.")
 * from its list; Esc closes whatever a step left open. */
static const struct {
    const char *name;
    const char *steps[12];
} KINDS[] = {
    {"explore", {"h", "j", "k", "l", "y", "u", "b", "n", ".", ESC}},
    {"travel", {"o", "_>.", "_<.", "o" ESC}},
    {"menus", {"i" ESC, "e" ESC, "C" ESC, "\\" ESC, "?c" ESC}},
    {"messages", {"\x10" ESC, ";." ESC, "x." ESC, ".", "s"}},
};

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

/* One run of kind k from a fresh game of seed 1: bytes and changed cells. */
static int kind_once(const content_t *c, script_vm_t *vm, int k, bench_kind_t *out)
{
    ansi_profile_t prof;
    ansi_profile_for_term(&prof, "xterm-256color");
    game_t *g = game_new(c, 1, NULL);
    screen_t *grid = screen_new(80, 24), *sent = screen_new(80, 24);
    buf_t b;
    buf_init(&b);
    int ret = g && grid && sent ? 0 : -1;
    game_view_t v = {0};
    char keys[KIND_KEYS];
    kind_keys(k, keys);
    if (ret == 0) {
        game_input(g, vm, (key_event_t){'x', 0}); /* a random character */
        game_render(g, sent, &v);
        screen_clean(sent);
    }
    game_state_t st = GAME_RUNNING;
    for (int i = 0; ret == 0 && i < KIND_KEYS && st == GAME_RUNNING; i++) {
        st = game_input(g, vm, (key_event_t){(uint32_t)(unsigned char)keys[i], 0});
        game_render(g, grid, &v);
        out->cells += changed_cells(sent, grid);
        buf_reset(&b);
        ansi_diff(&prof, sent, grid, &b);
        screen_copy(sent, grid);
        screen_clean(sent);
        screen_clean(grid);
        out->bytes += (double)b.len;
        out->keys++;
    }
    buf_free(&b);
    screen_free(grid);
    screen_free(sent);
    game_free(g);
    return ret;
}

int bench_kinds(const content_t *c, script_vm_t *vm, bench_kind_t *out, int max)
{
    int n = 0;
    for (int k = 0; k < (int)(sizeof KINDS / sizeof KINDS[0]) && n < max; k++) {
        bench_kind_t r = {KINDS[k].name, 0, 0, 0};
        if (kind_once(c, vm, k, &r) < 0)
            return -1;
        out[n++] = r;
    }
    return n;
}
