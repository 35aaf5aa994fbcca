/* screen — cell grid with per-row dirty tracking. */
#include "screen.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const style_t STYLE_DEFAULT = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, 0};

static bool size_ok(int w, int h)
{
    return w >= 1 && h >= 1 && w <= SCREEN_MAX_W && h <= SCREEN_MAX_H;
}

static void blank_cells(cell_t *c, size_t n)
{
    cell_t b = screen_blank();
    for (size_t i = 0; i < n; i++)
        c[i] = b;
}

screen_t *screen_new(int w, int h)
{
    if (!size_ok(w, h))
        return NULL;
    screen_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cells = malloc(sizeof(cell_t) * (size_t)w * (size_t)h);
    s->dirty = malloc((size_t)h);
    if (!s->cells || !s->dirty) {
        screen_free(s);
        return NULL;
    }
    s->w = w;
    s->h = h;
    blank_cells(s->cells, (size_t)w * (size_t)h);
    memset(s->dirty, 1, (size_t)h);
    s->cur_visible = true;
    return s;
}

void screen_free(screen_t *s)
{
    if (!s)
        return;
    free(s->cells);
    free(s->dirty);
    free(s);
}

int screen_resize(screen_t *s, int w, int h)
{
    if (!size_ok(w, h))
        return -1;
    if (w == s->w && h == s->h)
        return 0;
    if (s->before) { /* every row kept as it was: before is then whole */
        for (int y = 0; y < s->h; y++)
            screen_will_change(s, y);
        s->before = NULL;
    }
    cell_t *cells = malloc(sizeof(cell_t) * (size_t)w * (size_t)h);
    uint8_t *dirty = malloc((size_t)h);
    if (!cells || !dirty) {
        free(cells);
        free(dirty);
        return -1;
    }
    blank_cells(cells, (size_t)w * (size_t)h);
    int cw = w < s->w ? w : s->w, ch = h < s->h ? h : s->h;
    for (int y = 0; y < ch; y++)
        memcpy(cells + (size_t)y * w, s->cells + (size_t)y * s->w, sizeof(cell_t) * (size_t)cw);
    free(s->cells);
    free(s->dirty);
    s->cells = cells;
    s->dirty = dirty;
    s->w = w;
    s->h = h;
    s->stamp = 0;
    memset(s->dirty, 1, (size_t)h);
    if (s->cur_x >= w)
        s->cur_x = w - 1;
    if (s->cur_y >= h)
        s->cur_y = h - 1;
    return 0;
}

int screen_copy(screen_t *dst, const screen_t *src)
{
    if (dst->w != src->w || dst->h != src->h) {
        if (screen_resize(dst, src->w, src->h) < 0)
            return -1;
    }
    size_t rowb = sizeof(cell_t) * (size_t)src->w;
    for (int y = 0; y < src->h; y++) {
        cell_t *d = dst->cells + (size_t)y * src->w;
        const cell_t *r = src->cells + (size_t)y * src->w;
        if (memcmp(d, r, rowb) != 0) {
            screen_will_change(dst, y);
            memcpy(d, r, rowb);
            dst->dirty[y] = 1;
        }
    }
    dst->cur_x = src->cur_x;
    dst->cur_y = src->cur_y;
    dst->cur_visible = src->cur_visible;
    dst->stamp = src->stamp;
    return 0;
}

void screen_blit(screen_t *dst, const screen_t *src)
{
    screen_clear(dst);
    for (int y = 0; y < src->h && y < dst->h; y++)
        for (int x = 0; x < src->w && x < dst->w; x++) {
            const cell_t *c = screen_at(src, x, y);
            screen_put(dst, x, y, c->ch, (style_t){c->fg, c->bg, c->attr});
        }
    screen_cursor(dst, src->cur_x, src->cur_y,
                  src->cur_visible && src->cur_x < dst->w && src->cur_y < dst->h);
}

void screen_clean(screen_t *s)
{
    memset(s->dirty, 0, (size_t)s->h);
}

void screen_touch_all(screen_t *s)
{
    memset(s->dirty, 1, (size_t)s->h);
}

void screen_keep_row(screen_t *s, int y)
{
    size_t at = (size_t)y * (size_t)s->w;
    memcpy(s->before->cells + at, s->cells + at, sizeof(cell_t) * (size_t)s->w);
    s->before->dirty[y] = 1;
}

int screen_keep_begin(screen_t *s, screen_t *before)
{
    if (screen_resize(before, s->w, s->h) < 0)
        return -1;
    screen_clean(before);
    before->cur_x = s->cur_x;
    before->cur_y = s->cur_y;
    before->cur_visible = s->cur_visible;
    before->stamp = 0;
    before->before = NULL;
    s->before = before;
    return 0;
}

void screen_keep_end(screen_t *s, screen_t *before)
{
    s->before = NULL;
    if (s->w != before->w || s->h != before->h)
        return; /* resized: every row was kept first */
    size_t rowb = sizeof(cell_t) * (size_t)s->w;
    for (int y = 0; y < s->h; y++)
        if (s->dirty[y] && !before->dirty[y]) {
            memcpy(before->cells + (size_t)y * (size_t)s->w, s->cells + (size_t)y * (size_t)s->w,
                   rowb);
            before->dirty[y] = 1;
        }
}

void screen_keep_whole(screen_t *before, const screen_t *now)
{
    if (now->w != before->w || now->h != before->h)
        return; /* resized: every row was kept first */
    size_t rowb = sizeof(cell_t) * (size_t)now->w;
    for (int y = 0; y < now->h; y++)
        if (!before->dirty[y]) {
            memcpy(before->cells + (size_t)y * (size_t)now->w,
                   now->cells + (size_t)y * (size_t)now->w, rowb);
            before->dirty[y] = 1;
        }
}

const cell_t *screen_at(const screen_t *s, int x, int y)
{
    if (x < 0 || y < 0 || x >= s->w || y >= s->h)
        return NULL;
    return &s->cells[(size_t)y * s->w + x];
}

static void set_cell(screen_t *s, int x, int y, cell_t c)
{
    cell_t *p = &s->cells[(size_t)y * s->w + x];
    if (!cell_eq(p, &c)) {
        screen_will_change(s, y);
        *p = c;
        s->dirty[y] = 1;
        s->stamp = 0;
    }
}

/* A row is blank when its first cell is blank and every cell equals the one
 * before it (one memcmp of the row against itself shifted by a cell). */
static bool row_blank(const cell_t *row, int w)
{
    cell_t b = screen_blank();
    return cell_eq(&row[0], &b) && memcmp(row, row + 1, sizeof(cell_t) * (size_t)(w - 1)) == 0;
}

/* Fills a row with blanks by doubling copies: a few memcpy calls per row. */
static void row_fill_blank(cell_t *row, int w)
{
    row[0] = screen_blank();
    for (int n = 1; n < w; n *= 2)
        memcpy(row + n, row, sizeof(cell_t) * (size_t)(n < w - n ? n : w - n));
}

/* Whole rows at a time: a frame that is cleared and redrawn every turn pays
 * a memcmp per row, not a compare per cell; blank rows stay clean. */
void screen_clear(screen_t *s)
{
    for (int y = 0; y < s->h; y++) {
        cell_t *row = s->cells + (size_t)y * s->w;
        if (row_blank(row, s->w))
            continue;
        screen_will_change(s, y);
        row_fill_blank(row, s->w);
        s->dirty[y] = 1;
        s->stamp = 0;
    }
}

void screen_put(screen_t *s, int x, int y, uint32_t ch, style_t st)
{
    if (x < 0 || y < 0 || x >= s->w || y >= s->h)
        return;
    cell_t c = {
        .ch = ch <= 0x10FFFF ? ch : 0xFFFD, .attr = st.attr & ATTR_ALL, .fg = st.fg, .bg = st.bg};
    set_cell(s, x, y, c);
}

size_t utf8_chars(const char *p, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)p[i] & 0xC0) != 0x80;
    return n;
}

uint32_t utf8_decode(const uint8_t *p, size_t len, size_t *used)
{
    *used = len ? 1 : 0;
    if (!len)
        return 0xFFFD;
    uint8_t b = p[0];
    if (b < 0x80)
        return b;
    size_t n;
    uint32_t cp, min;
    if ((b & 0xE0) == 0xC0) {
        n = 2;
        cp = b & 0x1F;
        min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
        n = 3;
        cp = b & 0x0F;
        min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
        n = 4;
        cp = b & 0x07;
        min = 0x10000;
    } else
        return 0xFFFD;
    if (len < n)
        return 0xFFFD;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0xFFFD;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    *used = n;
    return cp;
}

/* screen_put's cells, the row and the pen checked once: a status line's
 * counter and the message line are written on most keys. */
int screen_text(screen_t *s, int x, int y, style_t st, const char *utf8)
{
    const uint8_t *p = (const uint8_t *)utf8;
    size_t len = strlen(utf8), i = 0;
    bool row = y >= 0 && y < s->h;
    cell_t c = {.ch = ' ', .attr = st.attr & ATTR_ALL, .fg = st.fg, .bg = st.bg};
    while (i < len && x < s->w) {
        size_t used = 1;
        uint32_t cp = p[i] < 0x80 ? p[i] : utf8_decode(p + i, len - i, &used);
        i += used;
        if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
            continue;
        c.ch = cp <= 0x10FFFF ? cp : 0xFFFD;
        if (row && x >= 0)
            set_cell(s, x, y, c);
        x++;
    }
    return x;
}

int screen_textf(screen_t *s, int x, int y, style_t st, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return screen_text(s, x, y, st, tmp);
}

void screen_fill(screen_t *s, int x, int y, int w, int h, uint32_t ch, style_t st)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            screen_put(s, i, j, ch, st);
}

void screen_box(screen_t *s, int x, int y, int w, int h, style_t st)
{
    if (w < 2 || h < 2)
        return;
    int r = x + w - 1, b = y + h - 1;
    for (int i = x + 1; i < r; i++) {
        screen_put(s, i, y, 0x2500, st);
        screen_put(s, i, b, 0x2500, st);
    }
    for (int j = y + 1; j < b; j++) {
        screen_put(s, x, j, 0x2502, st);
        screen_put(s, r, j, 0x2502, st);
    }
    screen_put(s, x, y, 0x250C, st);
    screen_put(s, r, y, 0x2510, st);
    screen_put(s, x, b, 0x2514, st);
    screen_put(s, r, b, 0x2518, st);
}

void screen_cursor(screen_t *s, int x, int y, bool visible)
{
    s->cur_x = x < 0 ? 0 : (x >= s->w ? s->w - 1 : x);
    s->cur_y = y < 0 ? 0 : (y >= s->h ? s->h - 1 : y);
    s->cur_visible = visible;
}
