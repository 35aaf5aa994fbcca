/* json — grid changes as JSON frames (format in protocol/README.md).
 *
 * A keyframe is a diff from a blank grid of default cells: the receiver
 * resets to w x h blanks, then applies the runs. Runs are cut at style
 * changes; a short stretch of unchanged cells of the same style inside a
 * run is sent again rather than paying for a new run header. */
#include "json.h"
#include <string.h>

/* Unchanged cells a run may swallow: a run header costs about 16 bytes. */
#define GAP_MAX 8

static bool safe_ascii(uint8_t c)
{
    return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

static void put_escaped_ascii(buf_t *out, uint8_t c)
{
    static const char hex[] = "0123456789abcdef";
    char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
    switch (c) {
    case '"': buf_put(out, "\\\"", 2); return;
    case '\\': buf_put(out, "\\\\", 2); return;
    case '\n': buf_put(out, "\\n", 2); return;
    case '\r': buf_put(out, "\\r", 2); return;
    case '\t': buf_put(out, "\\t", 2); return;
    default: buf_put(out, e, 6);
    }
}

/* A code point inside a JSON string. U+2028/2029 are escaped so the text is
 * also safe inside JavaScript source. */
static void put_cp(buf_t *out, uint32_t cp)
{
    if (cp < 0x80) {
        if (safe_ascii((uint8_t)cp))
            buf_putc(out, (char)cp);
        else
            put_escaped_ascii(out, (uint8_t)cp);
    } else if (cp == 0x2028) {
        buf_put(out, "\\u2028", 6);
    } else if (cp == 0x2029) {
        buf_put(out, "\\u2029", 6);
    } else {
        buf_put_utf8(out, cp); /* invalid code points become U+FFFD */
    }
}

void json_put_string(buf_t *out, const char *s, size_t len)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t i = 0;
    buf_putc(out, '"');
    while (i < len) {
        size_t j = i;
        while (j < len && safe_ascii(p[j]))
            j++;
        buf_put(out, p + i, j - i);
        if ((i = j) >= len)
            break;
        size_t used = 1;
        uint32_t cp = p[i] < 0x80 ? p[i] : utf8_decode(p + i, len - i, &used);
        put_cp(out, cp);
        i += used;
    }
    buf_putc(out, '"');
}

/* What a cell shows: one code point per cell; control characters (which a
 * terminal would act on) show as '?', like the ANSI encoder. */
static uint32_t cell_glyph(uint32_t ch)
{
    if (ch < 0x20 || (ch >= 0x7F && ch < 0xA0))
        return '?';
    return ch;
}

static bool same_style(const cell_t *a, const cell_t *b)
{
    return a->fg == b->fg && a->bg == b->bg && a->attr == b->attr;
}

static void put_int(buf_t *out, long v)
{
    if (v < 0) {
        buf_putc(out, '-');
        buf_put_uint(out, (uint64_t)-v);
    } else {
        buf_put_uint(out, (uint64_t)v);
    }
}

/* Writes the glyph of a cell into a JSON string at p (at most 6 bytes);
 * returns the end. The hot loop of a keyframe, so no buf calls per cell. */
static char *put_glyph(char *p, uint32_t ch)
{
    ch = cell_glyph(ch);
    if (ch < 0x80) {
        if (ch == '"' || ch == '\\')
            *p++ = '\\';
        *p++ = (char)ch;
        return p;
    }
    if (ch == 0x2028 || ch == 0x2029) {
        memcpy(p, ch == 0x2028 ? "\\u2028" : "\\u2029", 6);
        return p + 6;
    }
    if (ch > 0x10FFFF || (ch >= 0xD800 && ch <= 0xDFFF))
        ch = 0xFFFD;
    if (ch < 0x800) {
        *p++ = (char)(0xC0 | ch >> 6);
    } else {
        if (ch < 0x10000) {
            *p++ = (char)(0xE0 | ch >> 12);
        } else {
            *p++ = (char)(0xF0 | ch >> 18);
            *p++ = (char)(0x80 | ((ch >> 12) & 0x3F));
        }
        *p++ = (char)(0x80 | ((ch >> 6) & 0x3F));
    }
    *p++ = (char)(0x80 | (ch & 0x3F));
    return p;
}

static char *put_dec(char *p, unsigned v)
{
    char t[12];
    int i = 12;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(p, t + i, (size_t)(12 - i));
    return p + 12 - i;
}

static char *put_color_at(char *p, uint16_t c)
{
    if (c <= 255)
        return put_dec(p, c);
    memcpy(p, "-1", 2);
    return p + 2;
}

/* One run, written in place after a single reservation: most of a
 * keyframe's time would otherwise go to per-byte buffer calls. */
static void put_run(buf_t *out, const cell_t *row, int y, int x0, int x1, bool *first)
{
    if (!buf_reserve(out, (size_t)(x1 - x0) * 6 + 64))
        return;
    char *p = out->data + out->len;
    if (!*first)
        *p++ = ',';
    *first = false;
    *p++ = '[';
    p = put_dec(p, (unsigned)y);
    *p++ = ',';
    p = put_dec(p, (unsigned)x0);
    *p++ = ',';
    *p++ = '"';
    for (int x = x0; x < x1; x++)
        p = put_glyph(p, row[x].ch);
    *p++ = '"';
    *p++ = ',';
    p = put_color_at(p, row[x0].fg);
    *p++ = ',';
    p = put_color_at(p, row[x0].bg);
    *p++ = ',';
    p = put_dec(p, row[x0].attr & ATTR_ALL);
    *p++ = ']';
    out->len = (size_t)(p - out->data);
    out->data[out->len] = 0;
}

/* Cells of row b that differ from row a (a == NULL: from blank). */
static bool changed(const cell_t *a, const cell_t *b, int x)
{
    if (a)
        return !cell_eq(&a[x], &b[x]);
    cell_t blank = screen_blank();
    return !cell_eq(&blank, &b[x]);
}

/* End of the run starting at changed cell x0. */
static int run_end(const cell_t *a, const cell_t *b, int w, int x0)
{
    int x = x0 + 1;
    for (;;) {
        int g = x;
        while (g < w && g - x < GAP_MAX && !changed(a, b, g) && same_style(&b[g], &b[x0]))
            g++;
        if (g >= w || !changed(a, b, g) || !same_style(&b[g], &b[x0]))
            return x;
        x = g + 1;
    }
}

static void put_row(buf_t *out, const cell_t *a, const cell_t *b, int w, int y, bool *first)
{
    int x = 0;
    while (x < w) {
        if (!changed(a, b, x)) {
            x++;
            continue;
        }
        int end = run_end(a, b, w, x);
        put_run(out, b, y, x, end, first);
        x = end;
    }
}

void json_frame(const screen_t *a, const screen_t *b, uint64_t seq, buf_t *out)
{
    bool key = !a || a->w != b->w || a->h != b->h;
    bool first = true;
    buf_puts(out, "{\"t\":\"f\",\"seq\":");
    buf_put_uint(out, seq);
    buf_puts(out, key ? ",\"key\":true,\"w\":" : ",\"key\":false,\"w\":");
    buf_put_uint(out, (uint64_t)b->w);
    buf_puts(out, ",\"h\":");
    buf_put_uint(out, (uint64_t)b->h);
    buf_puts(out, ",\"cur\":[");
    put_int(out, b->cur_x);
    buf_putc(out, ',');
    put_int(out, b->cur_y);
    buf_puts(out, b->cur_visible ? ",true],\"runs\":[" : ",false],\"runs\":[");
    size_t rowb = (size_t)b->w * sizeof(cell_t);
    for (int y = 0; y < b->h; y++) {
        const cell_t *brow = b->cells + (size_t)y * (size_t)b->w;
        const cell_t *arow = key ? NULL : a->cells + (size_t)y * (size_t)a->w;
        /* as ansi_diff: clean rows of b are unchanged from a */
        if (!key && (!b->dirty[y] || memcmp(arow, brow, rowb) == 0))
            continue;
        put_row(out, arow, brow, b->w, y, &first);
    }
    buf_puts(out, "]}");
}
