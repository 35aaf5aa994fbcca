/* vtgrid — libvterm's screen copied into a screen_t, damaged cells only. */
#include "vtgrid.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>
#include "buf.h"
#include "vtguard.h"

/* libvterm marks the second column of a wide character with this value */
#define VT_CONTINUATION 0xFFFFFFFFu

struct vtgrid {
    VTerm *vt;
    VTermScreen *vs;
    VTermAllocatorFunctions alloc; /* libvterm keeps a pointer to it */
    int w, h;
    /* damaged columns [lo, hi) of each row since the last sync; lo >= hi: none */
    int16_t lo[SCREEN_MAX_H], hi[SCREEN_MAX_H];
    bool dwl[SCREEN_MAX_H]; /* row y was double-width (DECDWL/DECDHL) at the last sync */
    bool damaged;           /* some row has a span, or the cursor changed */
    bool cursor_hidden;     /* DECTCEM off */
    vtguard_t guard;        /* what would crash libvterm never reaches it */
    vtgrid_reply_fn *reply;
    void *user;
    size_t mem; /* bytes allocated by libvterm */
};

/* libvterm allocates through us so a game's memory can be reported. Each
 * block carries its size in front; libvterm wants zeroed memory. */
typedef union {
    size_t n;
    max_align_t align_;
} block_t;

static void *vt_malloc(size_t n, void *data)
{
    vtgrid_t *g = data;
    block_t *b = calloc(1, sizeof *b + n);
    if (!b)
        return NULL;
    b->n = n;
    g->mem += n;
    return b + 1;
}

static void vt_free(void *p, void *data)
{
    vtgrid_t *g = data;
    if (!p)
        return;
    block_t *b = (block_t *)p - 1;
    g->mem -= b->n;
    free(b);
}

static void damage_rows(vtgrid_t *g, int top, int bottom, int left, int right)
{
    if (top < 0)
        top = 0;
    if (bottom > g->h)
        bottom = g->h;
    if (left < 0)
        left = 0;
    if (right > g->w)
        right = g->w;
    if (left >= right)
        return;
    for (int y = top; y < bottom; y++) {
        if (g->lo[y] >= g->hi[y]) {
            g->lo[y] = (int16_t)left;
            g->hi[y] = (int16_t)right;
            continue;
        }
        if (left < g->lo[y])
            g->lo[y] = (int16_t)left;
        if (right > g->hi[y])
            g->hi[y] = (int16_t)right;
    }
    g->damaged = true;
}

/* A glyph of width 0 or -1 (a mark with nothing to join, a C1 control)
 * still changes its cell but damages an empty or reversed column range:
 * such a range counts as its columns plus one. */
static int on_damage(VTermRect r, void *user)
{
    int left = r.start_col < r.end_col ? r.start_col : r.end_col;
    int right = r.start_col < r.end_col ? r.end_col : r.start_col + 1;
    damage_rows(user, r.start_row, r.end_row, left, right);
    return 1;
}

static int on_movecursor(VTermPos pos, VTermPos old, int visible, void *user)
{
    (void)pos;
    (void)old;
    (void)visible;
    ((vtgrid_t *)user)->damaged = true;
    return 1;
}

static int on_prop(VTermProp prop, VTermValue *val, void *user)
{
    vtgrid_t *g = user;
    if (prop == VTERM_PROP_CURSORVISIBLE) {
        g->cursor_hidden = !val->boolean;
        g->damaged = true;
    }
    return 1;
}

static void on_output(const char *s, size_t len, void *user)
{
    vtgrid_t *g = user;
    if (g->reply)
        g->reply(s, len, g->user);
}

static const VTermScreenCallbacks SCREEN_CBS = {
    .damage = on_damage,
    .movecursor = on_movecursor,
    .settermprop = on_prop,
};

static bool size_ok(int w, int h)
{
    return w >= VTGRID_MIN_W && h >= 1 && w <= SCREEN_MAX_W && h <= SCREEN_MAX_H;
}

vtgrid_t *vtgrid_new(int w, int h, vtgrid_reply_fn *reply, void *user)
{
    if (!size_ok(w, h))
        return NULL;
    vtgrid_t *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->alloc.malloc = vt_malloc;
    g->alloc.free = vt_free;
    g->vt = vterm_new_with_allocator(h, w, &g->alloc, g);
    if (!g->vt) {
        free(g);
        return NULL;
    }
    g->w = w;
    g->h = h;
    g->reply = reply;
    g->user = user;
    vtguard_init(&g->guard);
    vterm_set_utf8(g->vt, 1);
    vterm_output_set_callback(g->vt, on_output, g);
    g->vs = vterm_obtain_screen(g->vt);
    vterm_screen_set_callbacks(g->vs, &SCREEN_CBS, g);
    /* damage per glyph (the default): libvterm 0.1.4's row merging loses a
     * glyph's damage after an empty rectangle (ED 1 on the top row) */
    vterm_screen_set_damage_merge(g->vs, VTERM_DAMAGE_CELL);
    vterm_screen_enable_altscreen(g->vs, 1);
    vterm_screen_reset(g->vs, 1);
    damage_rows(g, 0, h, 0, w);
    return g;
}

void vtgrid_free(vtgrid_t *g)
{
    if (!g)
        return;
    vterm_free(g->vt);
    free(g);
}

/* REP, done here rather than by libvterm (vtguard.h): the glyph left of
 * the cursor again, count columns' worth, not past the end of the row. */
static void repeat_glyph(vtgrid_t *g, unsigned count)
{
    VTermPos pos;
    vterm_state_get_cursorpos(vterm_obtain_state(g->vt), &pos);
    VTermScreenCell c;
    VTermPos at = {pos.row, pos.col - 1};
    if (at.col >= 0 && vterm_screen_get_cell(g->vs, at, &c) && c.chars[0] == VT_CONTINUATION) {
        at.col--;
        if (at.col < 0 || !vterm_screen_get_cell(g->vs, at, &c))
            return;
    }
    if (at.col < 0 || c.chars[0] == 0 || c.chars[0] == VT_CONTINUATION)
        return;
    buf_t glyph;
    buf_init(&glyph);
    for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c.chars[i]; i++)
        buf_put_utf8(&glyph, c.chars[i]);
    int width = c.width > 1 ? 2 : 1;
    long end = pos.col + (long)count < g->w ? pos.col + (long)count : g->w;
    for (long col = pos.col; !glyph.failed && col + width <= end; col += width)
        vterm_input_write(g->vt, glyph.data, glyph.len);
    buf_free(&glyph);
}

static void emit(const char *bytes, size_t len, void *user)
{
    vterm_input_write(((vtgrid_t *)user)->vt, bytes, len);
}

static void rep(unsigned count, void *user)
{
    repeat_glyph(user, count);
}

void vtgrid_write(vtgrid_t *g, const void *bytes, size_t len)
{
    vtguard_sink_t sink = {emit, rep, g};
    vtguard_write(&g->guard, bytes, len, &sink);
}

/* libvterm 0.1.4 leaves two traps after a resize: it scrolls a shrinking
 * screen up to keep the rows below the cut, cursor or not, so a cursor near
 * the top lands on a negative row (the next glyph reads memory with it); and
 * it keeps a top margin that may now lie below the screen (a line feed then
 * moves a negative length). So: CAN ends any sequence in progress, DECSTBM
 * resets the margins (xterm does too on a resize), CUP puts the cursor back
 * where it was, on the screen. */
static void settle_after_resize(vtgrid_t *g)
{
    VTermPos pos;
    vterm_state_get_cursorpos(vterm_obtain_state(g->vt), &pos);
    int row = pos.row < 0 ? 0 : pos.row >= g->h ? g->h - 1 : pos.row;
    int col = pos.col < 0 ? 0 : pos.col >= g->w ? g->w - 1 : pos.col;
    char seq[48];
    int n = snprintf(seq, sizeof seq, "\x18\x1b[r\x1b[%d;%dH", row + 1, col + 1);
    vterm_input_write(g->vt, seq, (size_t)n);
    vtguard_cancel(&g->guard);
}

int vtgrid_resize(vtgrid_t *g, int w, int h)
{
    if (!size_ok(w, h))
        return -1;
    if (w == g->w && h == g->h)
        return 0;
    vterm_set_size(g->vt, h, w);
    g->w = w;
    g->h = h;
    settle_after_resize(g);
    for (int y = 0; y < SCREEN_MAX_H; y++)
        g->lo[y] = g->hi[y] = 0;
    damage_rows(g, 0, h, 0, w);
    return 0;
}

void vtgrid_size(const vtgrid_t *g, int *w, int *h)
{
    *w = g->w;
    *h = g->h;
}

bool vtgrid_damaged(const vtgrid_t *g)
{
    return g->damaged;
}

size_t vtgrid_memory(const vtgrid_t *g)
{
    return g->mem + sizeof *g;
}

/* ---- colours ---------------------------------------------------------------- */

static const int CUBE[6] = {0, 95, 135, 175, 215, 255};

static int cube_level(int v)
{
    if (v < 48)
        return 0;
    if (v < 115)
        return 1;
    return (v - 35) / 40;
}

static int dist2(int r, int g, int b, int r2, int g2, int b2)
{
    return (r - r2) * (r - r2) + (g - g2) * (g - g2) + (b - b2) * (b - b2);
}

int vtgrid_nearest256(int r, int g, int b)
{
    int cr = cube_level(r), cg = cube_level(g), cb = cube_level(b);
    int cube = 16 + 36 * cr + 6 * cg + cb;
    int dc = dist2(r, g, b, CUBE[cr], CUBE[cg], CUBE[cb]);
    int avg = (r + g + b) / 3;
    int gi = avg < 8 ? 0 : (avg - 8) / 10;
    if (gi > 23)
        gi = 23;
    int gv = 8 + 10 * gi;
    /* the next step up the ramp may be closer (integer division rounds down) */
    if (gi < 23 && dist2(r, g, b, gv + 10, gv + 10, gv + 10) < dist2(r, g, b, gv, gv, gv)) {
        gi++;
        gv += 10;
    }
    return dist2(r, g, b, gv, gv, gv) < dc ? 232 + gi : cube;
}

static uint16_t color_of(const VTermColor *c)
{
    if (c->type & VTERM_COLOR_DEFAULT_MASK)
        return SCREEN_DEFAULT_COLOR;
    if (VTERM_COLOR_IS_INDEXED(c))
        return c->indexed.idx;
    return (uint16_t)vtgrid_nearest256(c->rgb.red, c->rgb.green, c->rgb.blue);
}

/* ---- copying cells ------------------------------------------------------------ */

static style_t style_of(const VTermScreenCell *c)
{
    style_t st = {color_of(&c->fg), color_of(&c->bg), 0};
    if (c->attrs.bold)
        st.attr |= ATTR_BOLD;
    if (c->attrs.underline)
        st.attr |= ATTR_UNDERLINE;
    if (c->attrs.blink)
        st.attr |= ATTR_BLINK;
    if (c->attrs.reverse) /* libvterm folds DECSCNM in */
        st.attr |= ATTR_REVERSE;
    return st;
}

static uint32_t char_of(uint32_t ch)
{
    if (ch == 0)
        return ' ';
    if (ch < 0x20 || (ch >= 0x7F && ch < 0xA0) || ch > 0x10FFFF || (ch >= 0xD800 && ch <= 0xDFFF))
        return 0xFFFD; /* never reaches a grid raw */
    return ch;
}

/* Copies columns [x0, x1) of row y. A continuation cell takes the style of
 * the wide character to its left. Columns from shown on are blank: the
 * right half of a double-width line (the grid has no double-width cells;
 * the line's text shows at normal width). */
static void copy_span(const vtgrid_t *g, screen_t *dst, int y, int x0, int x1, int shown)
{
    VTermScreenCell c;
    style_t left = STYLE_DEFAULT;
    if (x0 > 0 && x0 <= shown && vterm_screen_get_cell(g->vs, (VTermPos){y, x0 - 1}, &c))
        left = style_of(&c);
    for (int x = x0; x < x1; x++) {
        if (x >= shown || !vterm_screen_get_cell(g->vs, (VTermPos){y, x}, &c)) {
            screen_put(dst, x, y, ' ', STYLE_DEFAULT);
            continue;
        }
        if (c.chars[0] == VT_CONTINUATION) {
            screen_put(dst, x, y, ' ', left);
            continue;
        }
        left = style_of(&c);
        screen_put(dst, x, y, char_of(c.chars[0]), left);
    }
}

static void sync_cursor(const vtgrid_t *g, screen_t *dst)
{
    VTermPos pos;
    vterm_state_get_cursorpos(vterm_obtain_state(g->vt), &pos);
    int x = pos.col < 0 ? 0 : pos.col >= g->w ? g->w - 1 : pos.col;
    int y = pos.row < 0 ? 0 : pos.row >= g->h ? g->h - 1 : pos.row;
    screen_cursor(dst, x, y, !g->cursor_hidden);
}

int vtgrid_sync(vtgrid_t *g, screen_t *dst, bool all)
{
    if (dst->w != g->w || dst->h != g->h) {
        if (screen_resize(dst, g->w, g->h) < 0)
            return -1;
        all = true;
    }
    vterm_screen_flush_damage(g->vs);
    const VTermState *state = vterm_obtain_state(g->vt);
    int cells = 0;
    for (int y = 0; y < g->h; y++) {
        int x0 = all ? 0 : g->lo[y], x1 = all ? g->w : g->hi[y];
        g->lo[y] = g->hi[y] = 0;
        if (x0 >= x1)
            continue;
        /* libvterm damages a double-width line in its own half-width
         * columns: such a line, or one that just stopped being one, is
         * copied whole */
        bool dwl = vterm_state_get_lineinfo(state, y)->doublewidth;
        if (dwl || g->dwl[y]) {
            x0 = 0;
            x1 = g->w;
        }
        g->dwl[y] = dwl;
        /* a wide character may straddle the span's edges */
        x0 = x0 > 0 ? x0 - 1 : 0;
        x1 = x1 < g->w ? x1 + 1 : g->w;
        copy_span(g, dst, y, x0, x1, dwl ? g->w / 2 : g->w);
        cells += x1 - x0;
    }
    sync_cursor(g, dst);
    g->damaged = false;
    return cells;
}
