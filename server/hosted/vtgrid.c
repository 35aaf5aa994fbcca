/* vtgrid — libvterm's state layer drawing into Warren's own cells. */
#include "vtgrid.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>
#include "buf.h"
#include "vtguard.h"

/* A cell here is four bytes, half a cell_t: its code point and the index
 * of its style in the terminal's table of styles (a screen uses few). Code
 * point 0 is an erased cell (libvterm's empty cell: nothing to repeat, a
 * blank line's end), VC_CONT the second column of a wide character. Style
 * 0 is the default one, so a blank screen is all zero. */
typedef uint32_t vcell_t;
#define VC_CH_BITS 21
#define VC_CONT    0x1FFFFFu
#define STYLES_MAX (1u << (32 - VC_CH_BITS))

typedef struct {
    uint16_t fg, bg;
    uint16_t attr; /* ATTR_* and VT_PROTECTED */
} vstyle_t;

/* A style bit above ATTR_ALL for the terminal's own use; a grid given to
 * vtgrid_sync never sees it. */
#define VT_PROTECTED (1 << 8) /* DECSCA: kept by a selective erase */

static uint32_t vc_ch(vcell_t c)
{
    return c & VC_CONT;
}

static unsigned vc_style(vcell_t c)
{
    return c >> VC_CH_BITS;
}

static vcell_t vc_make(uint32_t ch, unsigned style)
{
    return (ch & VC_CONT) | (vcell_t)style << VC_CH_BITS;
}

struct vtgrid {
    VTerm *vt;
    VTermState *vs;
    VTermAllocatorFunctions alloc; /* libvterm keeps a pointer to it */
    int w, h;
    vcell_t *cells; /* w * h, the screen shown (the primary or the alternate) */
    /* the primary screen while the alternate one is shown; NULL when the
     * primary was blank then (a program under a pty of its own starts on
     * a blank screen, so its alternate screen costs nothing more) */
    vcell_t *primary;
    vcell_t *next, *next_primary; /* made ready by vtgrid_resize */
    vstyle_t *styles;             /* the cells' styles; 0 is the default */
    unsigned nstyles, cap_styles;
    vstyle_t pen;    /* libvterm's pen */
    unsigned pen_id; /* its index in styles, when pen_ok */
    bool pen_ok;
    bool alt;     /* the alternate screen is shown */
    bool reverse; /* DECSCNM: the whole screen in reverse video */
    /* damaged columns [lo, hi) of each row since the last sync; lo >= hi: none */
    int16_t lo[SCREEN_MAX_H], hi[SCREEN_MAX_H];
    bool dwl[SCREEN_MAX_H]; /* row y was double-width (DECDWL/DECDHL) at the last sync */
    /* each row's sum (row_sum) as the last sync left it in its screen;
     * h entries, valid when sums_ok (not before the first sync, nor after
     * a resize) */
    uint64_t *sums;
    bool sums_ok;
    bool damaged;       /* some row has a span, or the cursor changed */
    bool cursor_hidden; /* DECTCEM off */
    vtguard_t guard;    /* what would crash libvterm never reaches it */
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

static void damage_all(vtgrid_t *g)
{
    damage_rows(g, 0, g->h, 0, g->w);
}

static vcell_t *cell_at(const vtgrid_t *g, int row, int col)
{
    if (row < 0 || row >= g->h || col < 0 || col >= g->w)
        return NULL;
    return &g->cells[(size_t)row * (size_t)g->w + (size_t)col];
}

/* A rectangle libvterm names lies on the screen (it may not after a resize). */
static bool rect_ok(const vtgrid_t *g, VTermRect r)
{
    return r.start_row >= 0 && r.start_row <= r.end_row && r.end_row <= g->h && r.start_col >= 0 &&
           r.start_col <= r.end_col && r.end_col <= g->w;
}

/* ---- styles ------------------------------------------------------------------ */

static const vstyle_t VSTYLE_DEFAULT = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, 0};

static bool vstyle_eq(vstyle_t a, vstyle_t b)
{
    return a.fg == b.fg && a.bg == b.bg && a.attr == b.attr;
}

static void mark_styles(const vcell_t *cells, size_t n, uint16_t *map)
{
    for (size_t i = 0; cells && i < n; i++)
        map[vc_style(cells[i])] = 1;
}

static void remap_styles(vcell_t *cells, size_t n, const uint16_t *map)
{
    for (size_t i = 0; cells && i < n; i++)
        cells[i] = vc_make(cells[i], map[vc_style(cells[i])]);
}

/* The table is full: styles no cell uses any more are dropped and the
 * cells renumbered. Returns -1 when every style is in use. */
static int compact_styles(vtgrid_t *g)
{
    uint16_t map[STYLES_MAX] = {1}; /* 1: in use (the default always) */
    size_t n = (size_t)g->w * (size_t)g->h;
    mark_styles(g->cells, n, map);
    mark_styles(g->primary, n, map);
    unsigned kept = 0;
    for (unsigned i = 0; i < g->nstyles; i++)
        if (map[i]) {
            g->styles[kept] = g->styles[i];
            map[i] = (uint16_t)kept++;
        }
    if (kept == g->nstyles)
        return -1;
    remap_styles(g->cells, n, map);
    remap_styles(g->primary, n, map);
    g->nstyles = kept;
    g->pen_ok = false;
    return 0;
}

static int grow_styles(vtgrid_t *g)
{
    if (g->cap_styles == STYLES_MAX)
        return compact_styles(g);
    unsigned cap = g->cap_styles * 2;
    vstyle_t *p = realloc(g->styles, sizeof *p * cap);
    if (!p)
        return compact_styles(g);
    g->styles = p;
    g->cap_styles = cap;
    return 0;
}

/* The index of st, added if new. With STYLES_MAX styles on the screen at
 * once (only a screen of more cells than that can have them), a new one
 * shows as the default style. */
static unsigned style_id(vtgrid_t *g, vstyle_t st)
{
    for (unsigned i = 0; i < g->nstyles; i++)
        if (vstyle_eq(g->styles[i], st))
            return i;
    if (g->nstyles == g->cap_styles && grow_styles(g) < 0)
        return 0;
    g->styles[g->nstyles] = st;
    return g->nstyles++;
}

static unsigned pen_id(vtgrid_t *g)
{
    if (!g->pen_ok) {
        g->pen_id = style_id(g, g->pen);
        g->pen_ok = true;
    }
    return g->pen_id;
}

static vcell_t erased(vtgrid_t *g)
{
    return vc_make(0, pen_id(g));
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

/* ---- libvterm's state callbacks ------------------------------------------------- */

/* A glyph: its first code point with the pen (combining marks are dropped);
 * the columns a wide one covers become its continuation. A glyph of width
 * 0 or -1 (a mark with nothing to join, a C1 control) still takes its cell. */
static int on_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
    vtgrid_t *g = user;
    vcell_t *c = cell_at(g, pos.row, pos.col);
    if (!c)
        return 1;
    vstyle_t st = g->pen;
    st.attr |= info->protected_cell ? VT_PROTECTED : 0;
    unsigned id = info->protected_cell ? style_id(g, st) : pen_id(g);
    uint32_t ch = info->chars[0] < VC_CONT ? info->chars[0] : 0xFFFD; /* shown so anyway */
    *c = vc_make(ch, id);
    for (int i = 1; i < info->width; i++) { /* shown in the style to its left */
        vcell_t *k = cell_at(g, pos.row, pos.col + i);
        if (k)
            *k = vc_make(VC_CONT, 0); /* never protected (as in libvterm's screen) */
    }
    damage_rows(g, pos.row, pos.row + 1, pos.col, pos.col + (info->width > 1 ? info->width : 1));
    return 1;
}

/* Part of the screen moved (a scroll, an insert or delete); the rows are
 * copied in the order that leaves the source whole. */
static int on_moverect(VTermRect dest, VTermRect src, void *user)
{
    vtgrid_t *g = user;
    int rows = dest.end_row - dest.start_row, cols = dest.end_col - dest.start_col;
    if (!rect_ok(g, dest) || !rect_ok(g, src) || rows != src.end_row - src.start_row ||
        cols != src.end_col - src.start_col || rows == 0 || cols == 0)
        return 1;
    bool up = dest.start_row <= src.start_row;
    for (int i = 0; i < rows; i++) {
        int k = up ? i : rows - 1 - i;
        memmove(cell_at(g, dest.start_row + k, dest.start_col),
                cell_at(g, src.start_row + k, src.start_col), sizeof(vcell_t) * (size_t)cols);
    }
    damage_rows(g, dest.start_row, dest.end_row, dest.start_col, dest.end_col);
    return 1;
}

/* Erased cells take the pen; a selective erase (DECSED, DECSEL) keeps
 * protected ones. */
static void erase_cells(vtgrid_t *g, VTermRect r, bool selective)
{
    vcell_t blank = erased(g);
    for (int y = r.start_row; y < r.end_row; y++)
        for (int x = r.start_col; x < r.end_col; x++) {
            vcell_t *c = cell_at(g, y, x);
            if (c && !(selective && (g->styles[vc_style(*c)].attr & VT_PROTECTED)))
                *c = blank;
        }
    damage_rows(g, r.start_row, r.end_row, r.start_col, r.end_col);
}

static int on_erase(VTermRect r, int selective, void *user)
{
    vtgrid_t *g = user;
    if (r.start_row < 0)
        r.start_row = 0;
    if (r.end_row > g->h)
        r.end_row = g->h;
    if (r.start_col < 0)
        r.start_col = 0;
    if (r.end_col > g->w)
        r.end_col = g->w;
    erase_cells(g, r, selective != 0);
    return 1;
}

/* The pen's attributes Warren shows; italic, strike and fonts are dropped. */
static const struct {
    VTermAttr attr;
    uint16_t bit;
} PEN_BITS[] = {
    {VTERM_ATTR_BOLD, ATTR_BOLD},
    {VTERM_ATTR_UNDERLINE, ATTR_UNDERLINE}, /* a number: any style */
    {VTERM_ATTR_BLINK, ATTR_BLINK},
    {VTERM_ATTR_REVERSE, ATTR_REVERSE},
};

static int on_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
    vtgrid_t *g = user;
    g->pen_ok = false;
    if (attr == VTERM_ATTR_FOREGROUND)
        g->pen.fg = color_of(&val->color);
    else if (attr == VTERM_ATTR_BACKGROUND)
        g->pen.bg = color_of(&val->color);
    for (size_t i = 0; i < sizeof PEN_BITS / sizeof PEN_BITS[0]; i++) {
        if (PEN_BITS[i].attr != attr)
            continue;
        bool on = attr == VTERM_ATTR_UNDERLINE ? val->number != 0 : val->boolean != 0;
        g->pen.attr =
            (uint16_t)(on ? g->pen.attr | PEN_BITS[i].bit : g->pen.attr & ~PEN_BITS[i].bit);
    }
    return 1;
}

/* Erased cells of the default style only. */
static bool blank_screen(const vcell_t *cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cells[i])
            return false;
    return true;
}

/* Into the alternate screen: the primary one is kept unless blank (libvterm
 * erases the screen next). Out of it: the primary one comes back. Returns
 * 0 (the switch refused) when the primary cannot be kept. */
static int switch_screen(vtgrid_t *g, bool alt)
{
    size_t n = (size_t)g->w * (size_t)g->h;
    if (alt && !g->alt && !blank_screen(g->cells, n)) {
        g->primary = malloc(sizeof(vcell_t) * n);
        if (!g->primary)
            return 0;
        memcpy(g->primary, g->cells, sizeof(vcell_t) * n);
    }
    if (!alt && g->alt) {
        if (g->primary)
            memcpy(g->cells, g->primary, sizeof(vcell_t) * n);
        else
            memset(g->cells, 0, sizeof(vcell_t) * n);
        free(g->primary);
        g->primary = NULL;
    }
    g->alt = alt;
    damage_all(g);
    return 1;
}

static int on_settermprop(VTermProp prop, VTermValue *val, void *user)
{
    vtgrid_t *g = user;
    if (prop == VTERM_PROP_CURSORVISIBLE) {
        g->cursor_hidden = !val->boolean;
        g->damaged = true;
    } else if (prop == VTERM_PROP_REVERSE) {
        g->reverse = val->boolean;
        damage_all(g);
    } else if (prop == VTERM_PROP_ALTSCREEN) {
        return switch_screen(g, val->boolean);
    }
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

/* A line became double width: its right half is erased (it is off the
 * screen), as libvterm's screen does. */
static int on_setlineinfo(int row, const VTermLineInfo *now, const VTermLineInfo *was, void *user)
{
    vtgrid_t *g = user;
    if (row < 0 || row >= g->h ||
        (now->doublewidth == was->doublewidth && now->doubleheight == was->doubleheight))
        return 1;
    damage_rows(g, row, row + 1, 0, g->w);
    if (now->doublewidth)
        erase_cells(g, (VTermRect){row, row + 1, g->w / 2, g->w}, false);
    return 1;
}

/* Copies src (ow x oh; NULL: a blank screen) into dst (nw x nh) from
 * src's row skip on; cells outside src take fill. */
static void copy_cells(vcell_t *dst, int nw, int nh, const vcell_t *src, int ow, int oh, int skip,
                       vcell_t fill)
{
    vcell_t blank = 0;
    for (int y = 0; y < nh; y++)
        for (int x = 0; x < nw; x++) {
            int sy = y + skip;
            bool in = sy < oh && x < ow;
            dst[(size_t)y * nw + x] = !in ? fill : src ? src[(size_t)sy * ow + x] : blank;
        }
}

static bool row_blank(const vtgrid_t *g, int row)
{
    for (int x = 0; x < g->w; x++)
        if (vc_ch(*cell_at(g, row, x)) != 0)
            return false;
    return true;
}

/* Rows a shrinking primary screen scrolls up by, as libvterm's screen
 * does: those needed to keep the rows below the cut that are not blank
 * or hold the cursor. */
static int rows_lost(const vtgrid_t *g, int rows)
{
    if (g->alt || rows >= g->h)
        return 0;
    VTermPos cur;
    vterm_state_get_cursorpos(g->vs, &cur);
    int row = g->h - 1;
    while (row >= rows && row_blank(g, row) && cur.row != row)
        row--;
    return row + 1 > rows ? row + 1 - rows : 0;
}

/* libvterm's new size: the cells vtgrid_resize made ready take the old
 * ones' place; new cells are erased with the pen. */
static int on_resize(int rows, int cols, VTermPos *delta, void *user)
{
    vtgrid_t *g = user;
    if (!g->next)
        return 1;
    int lost = rows_lost(g, rows);
    vcell_t fill = erased(g);
    copy_cells(g->next, cols, rows, g->cells, g->w, g->h, lost, fill);
    free(g->cells);
    g->cells = g->next;
    g->next = NULL;
    if (g->next_primary) {
        copy_cells(g->next_primary, cols, rows, g->primary, g->w, g->h, 0, fill);
        free(g->primary);
        g->primary = g->next_primary;
        g->next_primary = NULL;
    }
    delta->row -= lost;
    g->w = cols;
    g->h = rows;
    return 1;
}

static void on_output(const char *s, size_t len, void *user)
{
    vtgrid_t *g = user;
    if (g->reply)
        g->reply(s, len, g->user);
}

static const VTermStateCallbacks STATE_CBS = {
    .putglyph = on_putglyph,
    .movecursor = on_movecursor,
    .moverect = on_moverect, /* no scrollrect: libvterm scrolls by moves and erases */
    .erase = on_erase,
    .setpenattr = on_setpenattr,
    .settermprop = on_settermprop,
    .resize = on_resize,
    .setlineinfo = on_setlineinfo,
};

/* ---- the terminal ---------------------------------------------------------------- */

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
    g->cells = calloc((size_t)w * (size_t)h, sizeof(vcell_t)); /* blank */
    g->styles = malloc(sizeof(vstyle_t) * 8);
    g->sums = malloc(sizeof(uint64_t) * (size_t)h);
    if (!g->cells || !g->styles || !g->sums) {
        vtgrid_free(g);
        return NULL;
    }
    g->styles[0] = VSTYLE_DEFAULT;
    g->nstyles = 1;
    g->cap_styles = 8;
    g->w = w;
    g->h = h;
    g->pen = VSTYLE_DEFAULT;
    g->alloc.malloc = vt_malloc;
    g->alloc.free = vt_free;
    g->vt = vterm_new_with_allocator(h, w, &g->alloc, g);
    if (!g->vt || !(g->vs = vterm_obtain_state(g->vt))) {
        vtgrid_free(g);
        return NULL;
    }
    g->reply = reply;
    g->user = user;
    vtguard_init(&g->guard);
    vterm_set_utf8(g->vt, 1);
    vterm_output_set_callback(g->vt, on_output, g);
    vterm_state_set_callbacks(g->vs, &STATE_CBS, g);
    vterm_state_reset(g->vs, 1);
    damage_all(g);
    return g;
}

void vtgrid_free(vtgrid_t *g)
{
    if (!g)
        return;
    if (g->vt)
        vterm_free(g->vt);
    free(g->cells);
    free(g->primary);
    free(g->styles);
    free(g->sums);
    free(g);
}

/* REP, done here rather than by libvterm (vtguard.h): the glyph left of
 * the cursor again, count columns' worth, not past the end of the row. */
static void repeat_glyph(vtgrid_t *g, unsigned count)
{
    VTermPos pos;
    vterm_state_get_cursorpos(g->vs, &pos);
    int col = pos.col - 1;
    const vcell_t *c = cell_at(g, pos.row, col);
    if (c && vc_ch(*c) == VC_CONT)
        c = cell_at(g, pos.row, --col);
    if (!c || vc_ch(*c) == 0 || vc_ch(*c) == VC_CONT)
        return;
    const vcell_t *next = cell_at(g, pos.row, col + 1);
    int width = next && vc_ch(*next) == VC_CONT ? 2 : 1;
    buf_t glyph;
    buf_init(&glyph);
    buf_put_utf8(&glyph, vc_ch(*c));
    long end = pos.col + (long)count < g->w ? pos.col + (long)count : g->w;
    for (long x = pos.col; !glyph.failed && x + width <= end; x += width)
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

/* A restored cursor saved before the screen shrank goes back on it. */
static void restored(void *user)
{
    vtgrid_t *g = user;
    VTermPos pos;
    vterm_state_get_cursorpos(g->vs, &pos);
    if (pos.row < g->h && pos.col < g->w)
        return;
    char seq[32];
    int row = pos.row < g->h ? pos.row : g->h - 1, col = pos.col < g->w ? pos.col : g->w - 1;
    int n = snprintf(seq, sizeof seq, "\x1b[%d;%dH", row + 1, col + 1);
    vterm_input_write(g->vt, seq, (size_t)n);
}

void vtgrid_write(vtgrid_t *g, const void *bytes, size_t len)
{
    vtguard_sink_t sink = {emit, rep, g, restored};
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
    vterm_state_get_cursorpos(g->vs, &pos);
    int row = pos.row < 0 ? 0 : pos.row >= g->h ? g->h - 1 : pos.row;
    int col = pos.col < 0 ? 0 : pos.col >= g->w ? g->w - 1 : pos.col;
    char seq[48];
    int n = snprintf(seq, sizeof seq, "\x18\x1b[r\x1b[%d;%dH", row + 1, col + 1);
    vterm_input_write(g->vt, seq, (size_t)n);
    vtguard_cancel(&g->guard);
}

/* The cells for the new size are allocated before libvterm hears of it,
 * so running out of memory changes nothing. A blank primary screen under
 * the alternate one is kept blank, unless the pen would colour its new
 * cells. */
static int ready_cells(vtgrid_t *g, int w, int h)
{
    size_t n = (size_t)w * (size_t)h;
    bool blank_fill = vstyle_eq(g->pen, VSTYLE_DEFAULT);
    bool keep = g->alt && (g->primary || (!blank_fill && (w > g->w || h > g->h)));
    g->next = malloc(sizeof(vcell_t) * n);
    g->next_primary = keep ? malloc(sizeof(vcell_t) * n) : NULL;
    if (g->next && (!keep || g->next_primary))
        return 0;
    free(g->next);
    free(g->next_primary);
    g->next = g->next_primary = NULL;
    return -1;
}

int vtgrid_resize(vtgrid_t *g, int w, int h)
{
    if (!size_ok(w, h))
        return -1;
    if (w == g->w && h == g->h)
        return 0;
    uint64_t *sums = realloc(g->sums, sizeof(uint64_t) * (size_t)h);
    if (!sums)
        return -1;
    g->sums = sums;
    g->sums_ok = false;
    if (ready_cells(g, w, h) < 0)
        return -1;
    vterm_set_size(g->vt, h, w);
    free(g->next); /* both taken by on_resize */
    free(g->next_primary);
    g->next = g->next_primary = NULL;
    settle_after_resize(g);
    for (int y = 0; y < SCREEN_MAX_H; y++)
        g->lo[y] = g->hi[y] = 0;
    damage_all(g);
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
    size_t screen = sizeof(vcell_t) * (size_t)g->w * (size_t)g->h;
    return sizeof *g + g->mem + screen + (g->primary ? screen : 0) +
           sizeof(uint64_t) * (size_t)g->h + sizeof(vstyle_t) * g->cap_styles;
}

/* ---- copying cells ------------------------------------------------------------ */

static style_t style_of(const vtgrid_t *g, vcell_t c)
{
    const vstyle_t *v = &g->styles[vc_style(c)];
    style_t st = {v->fg, v->bg, (uint8_t)(v->attr & ATTR_ALL)};
    if (g->reverse)
        st.attr ^= ATTR_REVERSE;
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
    style_t left = STYLE_DEFAULT;
    if (x0 > 0 && x0 <= shown)
        left = style_of(g, *cell_at(g, y, x0 - 1));
    for (int x = x0; x < x1; x++) {
        vcell_t c = *cell_at(g, y, x);
        if (x >= shown)
            screen_put(dst, x, y, ' ', STYLE_DEFAULT);
        else if (vc_ch(c) == VC_CONT)
            screen_put(dst, x, y, ' ', left);
        else {
            left = style_of(g, c);
            screen_put(dst, x, y, char_of(vc_ch(c)), left);
        }
    }
}

void vtgrid_text(const vtgrid_t *g, buf_t *out)
{
    for (int y = 0; y < g->h; y++) {
        int shown = vterm_state_get_lineinfo(g->vs, y)->doublewidth ? g->w / 2 : g->w;
        for (int x = 0; x < g->w; x++) {
            uint32_t ch = vc_ch(*cell_at(g, y, x));
            buf_put_utf8(out, x >= shown || ch == VC_CONT ? ' ' : char_of(ch));
        }
        buf_putc(out, '\n');
    }
}

static void sync_cursor(const vtgrid_t *g, screen_t *dst)
{
    VTermPos pos;
    vterm_state_get_cursorpos(g->vs, &pos);
    int x = pos.col < 0 ? 0 : pos.col >= g->w ? g->w - 1 : pos.col;
    int y = pos.row < 0 ? 0 : pos.row >= g->h ? g->h - 1 : pos.row;
    screen_cursor(dst, x, y, !g->cursor_hidden);
}

/* Row y of dst summed: equal sums, the same cells (all of cell_t's bits
 * are named, so its bytes are its value). */
static uint64_t row_sum(const screen_t *dst, int y)
{
    const cell_t *c = &dst->cells[(size_t)y * (size_t)dst->w];
    uint64_t h = 0x243F6A8885A308D3u;
    for (int x = 0; x < dst->w; x++) {
        uint64_t v;
        memcpy(&v, &c[x], sizeof v);
        h = (h ^ v) * 0x9E3779B97F4A7C15u;
        h ^= h >> 31;
    }
    return h;
}

/* The columns of row y to copy: its damaged span, or all of it when all
 * or when dst's row is not what the last sync left there (another screen,
 * or something drawn over it since). */
static void row_span(vtgrid_t *g, const screen_t *dst, int y, bool all, int *x0, int *x1)
{
    bool whole = all || row_sum(dst, y) != g->sums[y];
    *x0 = whole ? 0 : g->lo[y];
    *x1 = whole ? g->w : g->hi[y];
    g->lo[y] = g->hi[y] = 0;
}

int vtgrid_sync(vtgrid_t *g, screen_t *dst, bool all)
{
    if (dst->w != g->w || dst->h != g->h) {
        if (screen_resize(dst, g->w, g->h) < 0)
            return -1;
        all = true;
    }
    all = all || !g->sums_ok;
    int cells = 0;
    for (int y = 0; y < g->h; y++) {
        int x0, x1;
        row_span(g, dst, y, all, &x0, &x1);
        if (x0 >= x1)
            continue;
        /* a double-width line, or one that just stopped being one, is
         * copied whole */
        bool dwl = vterm_state_get_lineinfo(g->vs, y)->doublewidth;
        if (dwl || g->dwl[y]) {
            x0 = 0;
            x1 = g->w;
        }
        g->dwl[y] = dwl;
        /* a wide character may straddle the span's edges */
        x0 = x0 > 0 ? x0 - 1 : 0;
        x1 = x1 < g->w ? x1 + 1 : g->w;
        copy_span(g, dst, y, x0, x1, dwl ? g->w / 2 : g->w);
        g->sums[y] = row_sum(dst, y);
        cells += x1 - x0;
    }
    g->sums_ok = true;
    sync_cursor(g, dst);
    g->damaged = false;
    return cells;
}
