/* Fuzz target: a hosted program's output through the terminal emulator
 * into Warren's grid (server/hosted/vtgrid.c). The first two bytes choose
 * the size; a 0xFF byte resizes (from the next two) or syncs. Whatever the
 * bytes: every cell is printable with colours and attributes in range, the
 * cursor is on the grid, copying only the damage gives exactly the grid
 * a full copy gives, also after a cell of it was drawn over, and the
 * grid's text (vtgrid_text) is the full copy's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hosted/vtgrid.h"

static void check(vtgrid_t *g, screen_t *inc)
{
    vtgrid_sync(g, inc, false);
    screen_t *full = screen_new(1, 1);
    if (!full || vtgrid_sync(g, full, true) < 0)
        abort();
    if (full->w != inc->w || full->h != inc->h || full->cur_x != inc->cur_x ||
        full->cur_y != inc->cur_y || full->cur_visible != inc->cur_visible)
        abort();
    if (memcmp(full->cells, inc->cells, sizeof(cell_t) * (size_t)full->w * (size_t)full->h))
        abort();
    buf_t text, want; /* the grid's text is the copy's */
    buf_init(&text);
    buf_init(&want);
    vtgrid_text(g, &text);
    for (int y = 0; y < full->h; y++) {
        for (int x = 0; x < full->w; x++)
            buf_put_utf8(&want, full->cells[y * full->w + x].ch);
        buf_putc(&want, '\n');
    }
    if (text.failed || want.failed || text.len != want.len ||
        memcmp(text.data, want.data, text.len))
        abort();
    buf_free(&text);
    buf_free(&want);
    for (int i = 0; i < full->w * full->h; i++) {
        const cell_t *c = &full->cells[i];
        if (c->ch < 0x20 || (c->ch >= 0x7F && c->ch < 0xA0) || c->ch > 0x10FFFF ||
            (c->fg > 255 && c->fg != SCREEN_DEFAULT_COLOR) ||
            (c->bg > 255 && c->bg != SCREEN_DEFAULT_COLOR) || (c->attr & ~ATTR_ALL))
            abort();
    }
    if (full->cur_x < 0 || full->cur_x >= full->w || full->cur_y < 0 || full->cur_y >= full->h)
        abort();
    screen_free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    vtgrid_t *g = vtgrid_new(VTGRID_MIN_W + data[0] % 131, 1 + data[1] % 60, NULL, NULL);
    screen_t *inc = screen_new(1, 1);
    if (!g || !inc)
        abort();
    size_t at = 2;
    while (at < size) {
        const uint8_t *ff = memchr(data + at, 0xFF, size - at);
        size_t n = ff ? (size_t)(ff - (data + at)) : size - at;
        vtgrid_write(g, data + at, n);
        at += n + 1;
        if (ff && at + 2 <= size && data[at] & 1) {
            vtgrid_resize(g, VTGRID_MIN_W + data[at] % 131, 1 + data[at + 1] % 60);
            at += 2;
        } else {
            if (ff && at < size && data[at] & 2) /* drawn over (a chat strip): put right */
                screen_put(inc, data[at] % 7, data[at] % (inc->h > 0 ? inc->h : 1), '#',
                           STYLE_DEFAULT);
            check(g, inc);
        }
    }
    check(g, inc);
    screen_free(inc);
    vtgrid_free(g);
    return 0;
}
