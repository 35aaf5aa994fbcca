/* Fuzz target: the ANSI encoder's diffs played by a terminal emulator
 * (libvterm, through server/hosted/vtgrid.c). The bytes make a map-like
 * grid A, then grid B from it: rows of A's map slid sideways and up or
 * down beside a panel (the moves the encoder scrolls or shifts), and cells
 * drawn over. Whatever the bytes: keyframe(A) + diff(A, B) leaves the
 * terminal showing exactly B (glyphs, colours, bold, cursor), a diff of
 * B to itself is empty, and the diff's bytes are those of the diff whose
 * searches run whatever their pre-tests say. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ansi.h"
#include "hosted/vtgrid.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} in_t;

static unsigned take(in_t *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static void put_tile(screen_t *s, int x, int y, unsigned v)
{
    static const char TILES[] = " ..#+<>@$%~\"";
    style_t st = {(uint16_t)(v >> 4 & 7), SCREEN_DEFAULT_COLOR,
                  (uint8_t)(v & 0x80 ? ATTR_BOLD : 0)};
    if ((v & 0x70) == 0x70)
        st.fg = SCREEN_DEFAULT_COLOR;
    screen_put(s, x, y, (uint32_t)TILES[v % (sizeof TILES - 1)], st);
}

/* B: rows [y0, y1] of columns [0, mapw) moved dx columns and dy rows,
 * what comes in taken from the input. */
static void slide(in_t *in, const screen_t *a, screen_t *b)
{
    int panel = (int)take(in) % (b->w / 3), mapw = b->w - panel;
    int y0 = (int)take(in) % b->h, y1 = y0 + (int)take(in) % (b->h - y0);
    int dx = (int)take(in) % mapw - mapw / 2, dy = (int)take(in) % 7 - 3;
    for (int y = y0; y <= y1; y++)
        for (int x = 0; x < mapw; x++) {
            int fx = x + dx, fy = y + dy;
            if (fx < 0 || fx >= mapw || fy < y0 || fy > y1) {
                put_tile(b, x, y, take(in));
                continue;
            }
            const cell_t *c = screen_at(a, fx, fy);
            screen_put(b, x, y, c->ch, (style_t){c->fg, c->bg, (uint8_t)c->attr});
        }
}

static void same(const screen_t *shown, const screen_t *want)
{
    for (int i = 0; i < want->w * want->h; i++)
        if (!cell_eq(&shown->cells[i], &want->cells[i]))
            abort();
    if (want->cur_visible && (shown->cur_x != want->cur_x || shown->cur_y != want->cur_y))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in_t in = {data, size};
    int w = 48 + (int)take(&in) % 73, h = 4 + (int)take(&in) % 30;
    ansi_profile_t prof;
    ansi_profile_for_term(&prof, "xterm-256color");
    prof.sync = take(&in) & 1;
    screen_t *a = screen_new(w, h), *b = screen_new(w, h), *shown = screen_new(w, h);
    vtgrid_t *g = vtgrid_new(w, h, NULL, NULL);
    buf_t out;
    buf_init(&out);
    if (!a || !b || !shown || !g)
        abort();
    for (int i = 0; i < w * h; i++)
        put_tile(a, i % w, i / w, take(&in));
    screen_cursor(a, (int)take(&in) % w, (int)take(&in) % h, true);
    screen_copy(b, a);
    screen_clean(b);
    slide(&in, a, b);
    for (unsigned n = take(&in) % 16; n; n--) /* drawn over: a panel's text, a creature */
        put_tile(b, (int)take(&in) % w, (int)take(&in) % h, take(&in));
    screen_cursor(b, (int)take(&in) % w, (int)take(&in) % h, take(&in) % 4 != 0);
    ansi_keyframe(&prof, a, &out);
    ansi_diff(&prof, a, b, &out);
    vtgrid_write(g, out.data, out.len);
    vtgrid_sync(g, shown, true);
    same(shown, b);
    buf_t full, fast;
    buf_init(&full);
    buf_init(&fast);
    ansi_diff(&prof, a, b, &fast);
    ansi_diff_exhaustive(&prof, a, b, &full);
    if (fast.len != full.len || (fast.len && memcmp(fast.data, full.data, fast.len) != 0))
        abort();
    buf_free(&full);
    buf_free(&fast);
    buf_reset(&out);
    ansi_diff(&prof, b, b, &out);
    if (out.len)
        abort();
    buf_free(&out);
    vtgrid_free(g);
    screen_free(a);
    screen_free(b);
    screen_free(shown);
    return 0;
}
