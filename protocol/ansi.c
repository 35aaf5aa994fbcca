/* ansi — grids to terminal bytes: keyframes and minimal diffs.
 *
 * Every cell is first rendered for the profile into one 64-bit value
 * (glyph, charset, mapped colours, attributes), so cells that look the same
 * on a profile compare equal and cost nothing. An emitter tracks what the
 * terminal is known to hold (cursor, SGR pen, G0 charset) and picks the
 * cheapest bytes for each step: which move, whether to overwrite a short
 * unchanged gap instead, which SGR form, whether to erase a blank tail,
 * whether to repeat a run of one ASCII glyph (REP) where the profile has it.
 *
 * Frame contract (see ansi.h): a frame starts and ends with the default pen
 * and the ASCII G0 charset; it ends with the cursor on the grid's cursor
 * when that is visible (a hidden cursor's position is left unspecified and
 * the next frame treats it as unknown).
 *
 * Last column: every profile targets terminals with VT100 "pending wrap"
 * behaviour (xterm, VTE, PuTTY, Linux console, tmux, real VT100s), where
 * writing the last column, even the bottom-right cell, does not wrap or
 * scroll until another character is printed. The encoder never prints in
 * that state: after writing the last column the cursor column counts as
 * unknown, so the next step is an absolute or carriage-return move. */
#include "ansi.h"
#include "ansi_shift.h"
#include "glyph.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rendered cell: bits 0-20 code point, 21 DEC charset, 22-44 pen */
#define RC_DEC                ((uint64_t)1 << 21)
#define RC_CH(r)              ((uint32_t)((r)&0x1FFFFF))
#define RC_PEN(r)             ((uint32_t)((r) >> 22))
#define PEN_MAKE(fg, bg, a)   ((uint32_t)(fg) | (uint32_t)(bg) << 9 | (uint32_t)(a) << 18)
#define PEN_FG(p)             ((p)&0x1FF)
#define PEN_BG(p)             (((p) >> 9) & 0x1FF)
#define PEN_ATTR(p)           (((p) >> 18) & 0x1F)
#define PEN_DEFAULT           PEN_MAKE(SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, 0)
#define RC_MAKE(ch, dec, pen) ((uint64_t)(ch) | ((dec) ? RC_DEC : 0) | (uint64_t)(pen) << 22)
#define RC_BLANK              RC_MAKE(' ', 0, PEN_DEFAULT)

#define GAP_MAX   10 /* no move costs more than this many cells' bytes */
#define CELL_ROOM 64 /* worst-case bytes for one cell with charset + SGR */

/* Nearest of the 16 xterm colours (squared RGB distance, xterm's default
 * palette) for each 256-colour index. */
static const uint8_t NEAREST16[256] = {
    0, 1, 2,  3,  4,  5,  6, 7, 8,  9,  10, 11, 12, 13, 14, 15, 0, 0, 4, 4, 4,  4,  0,  0,
    6, 4, 4,  12, 2,  2,  6, 6, 6,  6,  2,  2,  6,  6,  6,  6,  2, 2, 6, 6, 6,  14, 10, 10,
    6, 6, 14, 14, 0,  0,  5, 4, 4,  12, 0,  8,  8,  8,  12, 12, 2, 8, 8, 8, 12, 12, 2,  8,
    8, 8, 12, 12, 2,  8,  8, 6, 6,  14, 10, 10, 6,  6,  14, 14, 1, 1, 5, 5, 5,  5,  1,  8,
    8, 8, 12, 12, 3,  8,  8, 8, 12, 12, 3,  8,  8,  8,  8,  12, 3, 8, 8, 8, 7,  7,  3,  3,
    8, 7, 7,  7,  1,  1,  5, 5, 5,  5,  1,  8,  8,  8,  12, 12, 3, 8, 8, 8, 8,  12, 3,  8,
    8, 8, 7,  7,  3,  3,  8, 7, 7,  7,  3,  3,  7,  7,  7,  7,  1, 1, 5, 5, 5,  13, 1,  8,
    8, 5, 5,  13, 3,  8,  8, 8, 7,  7,  3,  3,  8,  7,  7,  7,  3, 3, 7, 7, 7,  7,  11, 11,
    7, 7, 7,  7,  9,  9,  5, 5, 13, 13, 9,  9,  5,  5,  13, 13, 3, 3, 8, 7, 7,  7,  3,  3,
    7, 7, 7,  7,  11, 11, 7, 7, 7,  7,  11, 11, 7,  7,  7,  15, 0, 0, 0, 0, 0,  0,  8,  8,
    8, 8, 8,  8,  8,  8,  8, 8, 8,  7,  7,  7,  7,  7,  7,  7,
};

typedef struct {
    uint32_t lo, hi;
} range_t;

/* Code points that do not take exactly one column (combining marks,
 * zero-width, East Asian wide, emoji): a grid cell is one column, so these
 * are shown as '?' rather than shifting the rest of the row. Sorted. */
static const range_t NOT_SINGLE[] = {
    {0x0300, 0x036F},   {0x0483, 0x0489},   {0x0591, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F},
    {0x1100, 0x115F},   {0x1AB0, 0x1AFF},   {0x1DC0, 0x1DFF}, {0x200B, 0x200F}, {0x2028, 0x202E},
    {0x2060, 0x206F},   {0x20D0, 0x20FF},   {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC},
    {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
    {0xAC00, 0xD7A3},   {0xD800, 0xDFFF},   {0xF900, 0xFAFF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
    {0xFE30, 0xFE4F},   {0xFEFF, 0xFEFF},   {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x1F000, 0x1FAFF},
    {0x20000, 0x3FFFD}, {0xE0000, 0xE01EF},
};

static bool single_width(uint32_t cp)
{
    if (cp < 0x300 || (cp >= 0x2500 && cp <= 0x25FF))
        return true; /* Latin-1, box, blocks */
    size_t lo = 0, hi = sizeof NOT_SINGLE / sizeof NOT_SINGLE[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < NOT_SINGLE[mid].lo)
            hi = mid;
        else if (cp > NOT_SINGLE[mid].hi)
            lo = mid + 1;
        else
            return false;
    }
    return true;
}

/* The glyph a profile shows for a code point; *dec is set for DEC graphics.
 * Control characters never reach the terminal. UTF-8 profiles that ask for
 * fallbacks show a glyph of the fallback table as its DEC chart's code point
 * (in every VT100-like font) or its ASCII character. */
static uint32_t glyph_for(const ansi_profile_t *p, uint32_t cp, bool *dec)
{
    *dec = false;
    if (cp >= 0x20 && cp < 0x7F)
        return cp;
    if (cp < 0xA0 || cp > 0x10FFFF)
        return '?';
    const glyph_fallback_t *f = p->utf8 && !p->fallbacks ? NULL : glyph_fallback(cp);
    if (p->utf8) {
        if (f)
            return f->dec ? glyph_dec_unicode(f->dec) : (uint32_t)f->ascii;
        return single_width(cp) ? cp : '?';
    }
    if (!f)
        return '?';
    if (p->dec_graphics && f->dec) {
        *dec = true;
        return (uint32_t)f->dec;
    }
    return (uint32_t)f->ascii;
}

static unsigned color_for(const ansi_profile_t *p, uint16_t c)
{
    if (c > 255 || p->colors == ANSI_COLORS_NONE)
        return SCREEN_DEFAULT_COLOR;
    return p->colors == ANSI_COLORS_16 ? NEAREST16[c] : c;
}

static uint64_t render_cell(const ansi_profile_t *p, const cell_t *c)
{
    bool dec;
    uint32_t g = glyph_for(p, c->ch, &dec);
    uint32_t pen = PEN_MAKE(color_for(p, c->fg), color_for(p, c->bg), c->attr & ATTR_ALL);
    return RC_MAKE(g, dec, pen);
}

static bool cell_same(const cell_t *a, const cell_t *b)
{
    uint64_t x, y; /* ch, attr, fg and bg: the whole cell in one compare */
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x == y;
}

/* Whether cells [x, x + 8) of a and b are the same: one test for eight. */
static inline bool eight_same(const cell_t *a, const cell_t *b, int x)
{
    return memcmp(a + x, b + x, 8 * sizeof(cell_t)) == 0; /* inlined: a few vector ops */
}

/* The first x in [lo, hi) where rows a and b differ; hi if none. */
static int first_change(const cell_t *a, const cell_t *b, int lo, int hi)
{
    while (lo + 8 <= hi && eight_same(a, b, lo))
        lo += 8;
    while (lo < hi && cell_same(&a[lo], &b[lo]))
        lo++;
    return lo;
}

/* The last x in (lo, hi] where rows a and b differ; lo if none. */
static int last_change(const cell_t *a, const cell_t *b, int lo, int hi)
{
    while (hi - 8 >= lo && eight_same(a, b, hi - 7))
        hi -= 8;
    while (hi > lo && cell_same(&a[hi], &b[hi]))
        hi--;
    return hi;
}

/* render_cell with a shortcut for the commonest cell: printable ASCII in
 * 256-colour mode needs no table look-up. */
static inline uint64_t render_fast(const ansi_profile_t *p, bool rich, const cell_t *c)
{
    if (rich && c->ch >= 0x20 && c->ch < 0x7F && c->fg <= 0x100 && c->bg <= 0x100)
        return RC_MAKE(c->ch, 0, PEN_MAKE(c->fg, c->bg, c->attr & ATTR_ALL));
    return render_cell(p, c);
}

/* Renders cells [x0, x1) of a row; runs of equal cells render once. */
static void render_row(const ansi_profile_t *p, const cell_t *row, int x0, int x1, uint64_t *dst)
{
    bool rich = p->colors == ANSI_COLORS_256;
    for (int x = x0; x < x1; x++) {
        const cell_t *c = &row[x];
        if (x > x0 && cell_same(c, c - 1))
            dst[x] = dst[x - 1];
        else
            dst[x] = render_fast(p, rich, c);
    }
}

static bool cell_blank(const cell_t *c)
{
    return c->ch == ' ' && c->fg > 255 && c->bg > 255 && (c->attr & ATTR_ALL) == 0;
}

/* ---- byte writers: each appends to o and returns the new end ---------- */

static char *put_num(char *o, unsigned v)
{
    if (v < 1000) { /* every column, row and colour */
        if (v >= 100)
            *o++ = (char)('0' + v / 100);
        if (v >= 10)
            *o++ = (char)('0' + v / 10 % 10);
        *o++ = (char)('0' + v % 10);
        return o;
    }
    char t[12];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *o++ = t[--n];
    return o;
}

/* CSI with one count parameter, omitted when 1 (the default). */
static char *put_csi_n(char *o, unsigned n, char final)
{
    *o++ = '\033';
    *o++ = '[';
    if (n != 1)
        o = put_num(o, n);
    *o++ = final;
    return o;
}

static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

static int glyph_len(uint64_t rc)
{
    uint32_t cp = RC_CH(rc);
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/* ---- SGR ------------------------------------------------------------------ */

/* One colour parameter; base 3 for foreground, 4 for background. */
static char *put_color(char *o, unsigned c, char base)
{
    if (c > 255) {
        *o++ = base;
        *o++ = '9';
    } else if (c < 8) {
        *o++ = base;
        *o++ = (char)('0' + c);
    } else if (c < 16) {
        if (base == '4')
            *o++ = '1', *o++ = '0';
        else
            *o++ = '9';
        *o++ = (char)('0' + c - 8);
    } else {
        *o++ = base;
        memcpy(o, "8;5;", 4);
        o = put_num(o + 4, c);
    }
    return o;
}

typedef struct {
    uint8_t bit;
    char on, off; /* off 0: shares 22 with bold/dim */
} attr_code_t;

static const attr_code_t ATTR_CODES[] = {
    {ATTR_BOLD, '1', 0},    {ATTR_DIM, '2', 0},       {ATTR_UNDERLINE, '4', '4'},
    {ATTR_BLINK, '5', '5'}, {ATTR_REVERSE, '7', '7'},
};
#define N_ATTR_CODES (sizeof ATTR_CODES / sizeof ATTR_CODES[0])

static char *put_param_sep(char *o, const char *start)
{
    if (o != start)
        *o++ = ';';
    return o;
}

/* Parameters that change pen `from` into `to` without a reset. */
static char *sgr_params_delta(char *o, uint32_t from, uint32_t to)
{
    const char *s = o;
    unsigned fa = PEN_ATTR(from), ta = PEN_ATTR(to), on = ta & ~fa, off = fa & ~ta;
    if (off & (ATTR_BOLD | ATTR_DIM)) {
        memcpy(o, "22", 2), o += 2;
        on |= ta & (ATTR_BOLD | ATTR_DIM); /* 22 clears both: re-add a kept one */
    }
    for (size_t i = 0; i < N_ATTR_CODES; i++) {
        if ((off & ATTR_CODES[i].bit) && ATTR_CODES[i].off)
            o = put_param_sep(o, s), *o++ = '2', *o++ = ATTR_CODES[i].off;
    }
    for (size_t i = 0; i < N_ATTR_CODES; i++)
        if (on & ATTR_CODES[i].bit)
            o = put_param_sep(o, s), *o++ = ATTR_CODES[i].on;
    if (PEN_FG(from) != PEN_FG(to))
        o = put_color(put_param_sep(o, s), PEN_FG(to), '3');
    if (PEN_BG(from) != PEN_BG(to))
        o = put_color(put_param_sep(o, s), PEN_BG(to), '4');
    return o;
}

/* Parameters that reset and then set pen `to`. The reset is an empty
 * parameter (CSI ;32m): an empty parameter is its default, 0 for SGR
 * (ECMA-48 5.4.2; xterm, tmux, screen, Linux, VTE, PuTTY, xterm.js and
 * the DEC terminals read it so), a byte shorter than CSI 0;32m. */
static char *sgr_params_reset(char *o, uint32_t to)
{
    if (to == PEN_DEFAULT)
        return o; /* CSI m */
    for (size_t i = 0; i < N_ATTR_CODES; i++)
        if (PEN_ATTR(to) & ATTR_CODES[i].bit)
            *o++ = ';', *o++ = ATTR_CODES[i].on;
    if (PEN_FG(to) != SCREEN_DEFAULT_COLOR)
        *o++ = ';', o = put_color(o, PEN_FG(to), '3');
    if (PEN_BG(to) != SCREEN_DEFAULT_COLOR)
        *o++ = ';', o = put_color(o, PEN_BG(to), '4');
    return o;
}

/* Shortest SGR sequence from pen `from` to `to` (nothing when equal). */
static char *put_sgr(char *o, uint32_t from, uint32_t to)
{
    if (from == to)
        return o;
    char d[48], r[48];
    size_t nd = (size_t)(sgr_params_delta(d, from, to) - d);
    size_t nr = (size_t)(sgr_params_reset(r, to) - r);
    *o++ = '\033';
    *o++ = '[';
    if (nd <= nr)
        memcpy(o, d, nd), o += nd;
    else
        memcpy(o, r, nr), o += nr;
    *o++ = 'm';
    return o;
}

/* ---- the emitter ------------------------------------------------------------ */

/* Recently used pen changes: a screen repeats a few of them many times. */
typedef struct {
    uint32_t from, to;
    uint8_t n;
    char seq[47];
} sgr_memo_t;
#define SGR_MEMOS 256 /* one bit each in em_t.memo_valid */

typedef struct {
    buf_t *out;
    buf_t *scratch; /* dry runs for the erase-tail choice */
    int w;
    int cx, cy; /* cursor; -1 = unknown */
    uint32_t pen;
    bool dec;         /* G0 holds DEC special graphics */
    bool rep;         /* runs of a glyph may be repeated by REP */
    bool esc_vert;    /* moves of one row may be IND and RI (scrolls) */
    sgr_memo_t *memo; /* SGR_MEMOS entries, read only when valid */
    uint64_t memo_valid[SGR_MEMOS / 64];
    /* a trial's budget (row_bytes): encode_span gives up once cap_out
     * (NULL: never) holds more than cap bytes, the trial lost by then */
    const buf_t *cap_out;
    size_t cap;
} em_t;

/* A memo miss: works the sequence out. Kept out of line so that the hit
 * path stays a few instructions without a register-saving prologue. */
__attribute__((noinline)) static void memo_fill(sgr_memo_t *m, uint32_t from, uint32_t to)
{
    m->n = (uint8_t)(put_sgr(m->seq, from, to) - m->seq);
    m->from = from;
    m->to = to;
}

/* The memo entry holding the SGR sequence from pen `from` to `to` != from. */
static inline const sgr_memo_t *em_memo(em_t *e, uint32_t from, uint32_t to)
{
    unsigned slot = ((from * 0x9E3779B1u) ^ (to * 0x85EBCA77u)) >> 24;
    sgr_memo_t *m = &e->memo[slot];
    uint64_t *valid = &e->memo_valid[slot / 64];
    if (!(*valid >> slot % 64 & 1) || m->from != from || m->to != to) {
        *valid |= (uint64_t)1 << slot % 64;
        memo_fill(m, from, to);
    }
    return m;
}

static char *em_sgr(em_t *e, char *o, uint32_t from, uint32_t to)
{
    if (from == to)
        return o;
    const sgr_memo_t *m = em_memo(e, from, to);
    memcpy(o, m->seq, sizeof m->seq); /* fixed size: no call; o has room */
    return o + m->n;
}

/* Length of em_sgr's sequence, without writing it. */
static int sgr_len(em_t *e, uint32_t from, uint32_t to)
{
    return from == to ? 0 : em_memo(e, from, to)->n;
}

/* The profiles that scroll (VT100 and after: xterm, tmux, screen, Linux,
 * VTE, PuTTY, xterm.js): scrolling regions, and IND and RI for moves of
 * one row; not the ASCII-only ones. */
static bool scrolls(const ansi_profile_t *p)
{
    return p->utf8 || p->dec_graphics;
}

static void em_raw(em_t *e, const char *p, size_t n)
{
    buf_put(e->out, p, n);
}

static char *put_cup(char *o, int x, int y)
{
    *o++ = '\033';
    *o++ = '[';
    if (x || y)
        o = put_num(o, (unsigned)y + 1);
    if (x)
        *o++ = ';', o = put_num(o, (unsigned)x + 1);
    *o++ = 'H';
    return o;
}

/* Relative horizontal move by dx != 0: forward, or back by BS / CUB. */
static char *put_horiz(char *o, int dx)
{
    if (dx > 0)
        return put_csi_n(o, (unsigned)dx, 'C');
    if (-dx <= 4) {
        memset(o, '\b', (size_t)-dx);
        return o - dx;
    }
    return put_csi_n(o, (unsigned)-dx, 'D');
}

/* Relative vertical move; at column 0, LF is safe and short (a terminal
 * that turns LF into CR LF still lands on column 0). With esc, a move of
 * one row is IND (ESC D) or RI (ESC M), a byte shorter than CUD or CUU:
 * the frame's scrolling region is the whole screen and a move of one row
 * on the grid never starts on its edge, so neither scrolls. */
static char *put_vert(char *o, int dy, bool col0, bool esc)
{
    if (dy == 0)
        return o;
    if (esc && (dy == -1 || (dy == 1 && !col0))) {
        *o++ = '\033';
        *o++ = dy < 0 ? 'M' : 'D';
        return o;
    }
    if (dy < 0)
        return put_csi_n(o, (unsigned)-dy, 'A');
    if (col0 && dy <= 3) {
        memset(o, '\n', (size_t)dy);
        return o + dy;
    }
    return put_csi_n(o, (unsigned)dy, 'B');
}

/* Move lengths, worked out without writing the bytes. */
static int ndig(unsigned v)
{
    return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4;
}
static int csi_n_len(unsigned n)
{
    return n == 1 ? 3 : 3 + ndig(n);
}
static int horiz_len(int dx)
{
    if (dx > 0)
        return csi_n_len((unsigned)dx);
    return -dx <= 4 ? -dx : csi_n_len((unsigned)-dx);
}
static int vert_len(int dy, bool col0, bool esc)
{
    if (dy == 0)
        return 0;
    if (esc && (dy == -1 || (dy == 1 && !col0)))
        return 2;
    if (dy < 0)
        return csi_n_len((unsigned)-dy);
    return col0 && dy <= 3 ? dy : csi_n_len((unsigned)dy);
}
static int cup_len(int x, int y)
{
    if (!x && !y)
        return 3;
    return 3 + ndig((unsigned)y + 1) + (x ? 1 + ndig((unsigned)x + 1) : 0);
}

/* REP: a run of n equal cells is its first glyph and CSI n-1 b, when its
 * other glyphs take more bytes than the sequence. The terminal repeats
 * the glyph it printed last, so the sequence always follows it at once;
 * only an ASCII one (tmux 3.3, under a terminal named xterm, repeats
 * nothing after a UTF-8 glyph). */
static inline bool rep_pays(uint64_t rc, int n)
{
    return n > 1 && RC_CH(rc) < 0x80 && n - 1 > csi_n_len((unsigned)(n - 1));
}

/* The run of cells equal to rb[x] from x up to `to`, cut after its last
 * changed cell (the unchanged ones inside it are written again). */
static int rep_run(const uint64_t *ra, const uint64_t *rb, int x, int to)
{
    int e = x + 1;
    while (e < to && rb[e] == rb[x])
        e++;
    while (e > x + 1 && ra[e - 1] == rb[e - 1])
        e--;
    return e - x;
}

typedef enum { MV_CUP, MV_CR, MV_CHA, MV_REL, MV_CR_DOWN, MV_VERT_REL, MV_VERT_CHA } move_kind_t;

static void consider(int *best, move_kind_t *kind, int len, move_kind_t k)
{
    if (len < *best)
        *best = len, *kind = k;
}

/* Cheapest way from where the emitter knows the cursor is to (x, y):
 * returns its length in bytes and sets *kind. */
static int move_plan(const em_t *e, int x, int y, move_kind_t *kind)
{
    int best = cup_len(x, y);
    *kind = MV_CUP;
    if (e->cy == y) {
        if (x == 0)
            consider(&best, kind, 1, MV_CR);
        consider(&best, kind, csi_n_len((unsigned)x + 1), MV_CHA);
        if (e->cx >= 0 && e->cx != x)
            consider(&best, kind, horiz_len(x - e->cx), MV_REL);
    } else if (e->cy >= 0) {
        int dy = y - e->cy;
        int fwd = x ? csi_n_len((unsigned)x) : 0;
        bool esc = e->esc_vert && e->cx >= 0; /* IND and RI not from a pending wrap */
        consider(&best, kind, (e->cx != 0) + vert_len(dy, true, e->esc_vert) + fwd, MV_CR_DOWN);
        if (e->cx >= 0)
            consider(&best, kind,
                     vert_len(dy, e->cx == 0, esc) + (e->cx != x ? horiz_len(x - e->cx) : 0),
                     MV_VERT_REL);
        consider(&best, kind, vert_len(dy, e->cx == 0, esc) + csi_n_len((unsigned)x + 1),
                 MV_VERT_CHA);
    }
    return best;
}

static char *move_write(const em_t *e, int x, int y, move_kind_t kind, char *o)
{
    int dy = y - e->cy;
    bool esc = e->esc_vert && e->cx >= 0;
    switch (kind) {
    case MV_CUP: return put_cup(o, x, y);
    case MV_CR: *o++ = '\r'; return o;
    case MV_CHA: return put_csi_n(o, (unsigned)x + 1, 'G');
    case MV_REL: return put_horiz(o, x - e->cx);
    case MV_CR_DOWN:
        if (e->cx != 0)
            *o++ = '\r';
        o = put_vert(o, dy, true, e->esc_vert);
        return x ? put_csi_n(o, (unsigned)x, 'C') : o;
    case MV_VERT_REL:
        o = put_vert(o, dy, e->cx == 0, esc);
        return e->cx != x ? put_horiz(o, x - e->cx) : o;
    case MV_VERT_CHA: return put_csi_n(put_vert(o, dy, e->cx == 0, esc), (unsigned)x + 1, 'G');
    }
    return o;
}

static int move_len(const em_t *e, int x, int y)
{
    move_kind_t k;
    return move_plan(e, x, y, &k);
}

/* Moves the cursor to (x, y) by a move of kind k (from move_plan). */
static void em_move_by(em_t *e, int x, int y, move_kind_t k)
{
    buf_t *out = e->out;
    if (out->failed || (out->cap - out->len <= 40 && !buf_reserve(out, 40)))
        return;
    char *o = move_write(e, x, y, k, out->data + out->len);
    out->len = (size_t)(o - out->data);
    out->data[out->len] = 0;
    e->cx = x;
    e->cy = y;
}

static void em_move(em_t *e, int x, int y)
{
    if (e->cx == x && e->cy == y)
        return;
    move_kind_t k;
    move_plan(e, x, y, &k);
    em_move_by(e, x, y, k);
}

static void em_pen(em_t *e, uint32_t pen)
{
    char t[48];
    em_raw(e, t, (size_t)(em_sgr(e, t, e->pen, pen) - t));
    e->pen = pen;
}

/* Switches charset and pen to those of rc, writing at o (room for
 * CELL_ROOM bytes); returns the new end. */
static inline char *em_switch(em_t *e, char *o, uint64_t rc)
{
    bool dec = (rc & RC_DEC) != 0;
    if (dec != e->dec) {
        memcpy(o, dec ? "\033(0" : "\033(B", 3);
        o += 3;
        e->dec = dec;
    }
    uint32_t pen = RC_PEN(rc);
    if (pen != e->pen) {
        o = em_sgr(e, o, e->pen, pen);
        e->pen = pen;
    }
    return o;
}

static void em_cell(em_t *e, uint64_t rc)
{
    buf_t *out = e->out;
    if (out->failed || (out->cap - out->len <= CELL_ROOM && !buf_reserve(out, CELL_ROOM)))
        return;
    char *s = e->out->data + e->out->len;
    char *o = put_utf8(em_switch(e, s, rc), RC_CH(rc));
    e->out->len += (size_t)(o - s);
    e->out->data[e->out->len] = 0;
    /* after the last column the terminal waits to wrap: column unknown */
    e->cx = e->cx + 1 < e->w ? e->cx + 1 : -1;
}

/* Draws the n > 1 cells rc from the cursor: the first, then REP. */
static void em_rep(em_t *e, uint64_t rc, int n)
{
    em_cell(e, rc);
    char seq[16];
    em_raw(e, seq, (size_t)(put_csi_n(seq, (unsigned)(n - 1), 'b') - seq));
    e->cx = e->cx + n - 1 < e->w ? e->cx + n - 1 : -1; /* the last column: as em_cell */
}

/* Writes the run of changed cells from x (the cursor) up to `to`; returns
 * the end of the run. A glyph is all it writes while pen and charset
 * stay the same; with REP, a run of one glyph is written once. */
static int em_changed(em_t *e, const uint64_t *ra, const uint64_t *rb, int x, int to)
{
    buf_t *out = e->out;
    uint64_t state = (uint64_t)e->pen << 1 | (e->dec ? 1 : 0); /* as rc >> 21 */
    for (; x < to && ra[x] != rb[x]; x++) {
        uint64_t rc = rb[x];
        if (e->rep && x + 1 < to && rb[x + 1] == rc) {
            int n = rep_run(ra, rb, x, to);
            if (rep_pays(rc, n)) {
                em_rep(e, rc, n);
                x += n - 1;
                state = (uint64_t)e->pen << 1 | (e->dec ? 1 : 0);
                if (e->cx < 0)
                    return x + 1;
                continue;
            }
        }
        if ((rc >> 21) != state || out->cap - out->len <= CELL_ROOM) {
            em_cell(e, rc);
            state = (uint64_t)e->pen << 1 | (e->dec ? 1 : 0);
            continue;
        }
        out->len = (size_t)(put_utf8(out->data + out->len, RC_CH(rc)) - out->data);
        e->cx++;
    }
    if (out->data)
        out->data[out->len] = 0;
    if (e->cx >= e->w)
        e->cx = -1; /* pending wrap: column unknown */
    return x;
}

/* Bytes to switch pen and charset from (pen, dec) to draw rc. */
static inline int trans_len(em_t *e, uint32_t pen, bool dec, uint64_t rc)
{
    int n = ((rc & RC_DEC) != 0) != dec ? 3 : 0;
    return n + sgr_len(e, pen, RC_PEN(rc));
}

/* Is rewriting the unchanged cells between the cursor and x cheaper than
 * moving there? */
static bool gap_cheaper(em_t *e, const uint64_t *rb, int x, int y)
{
    int mv = move_len(e, x, y) + trans_len(e, e->pen, e->dec, rb[x]);
    int ow = 0;
    uint32_t pen = e->pen;
    bool dec = e->dec;
    for (int i = e->cx; i < x && ow < mv; i++) {
        ow += trans_len(e, pen, dec, rb[i]) + glyph_len(rb[i]);
        pen = RC_PEN(rb[i]);
        dec = (rb[i] & RC_DEC) != 0;
    }
    return ow + trans_len(e, pen, dec, rb[x]) < mv;
}

/* Draws the changed cells of row y in [from, to). */
static void encode_span(em_t *e, int y, const uint64_t *ra, const uint64_t *rb, int from, int to)
{
    for (int x = from; x < to; x++) {
        if (ra[x] == rb[x])
            continue;
        if (e->out == e->cap_out && e->out->len > e->cap)
            return;
        if (e->cy != y || e->cx != x) {
            if (e->cy == y && e->cx >= 0 && e->cx < x && x - e->cx <= GAP_MAX &&
                gap_cheaper(e, rb, x, y)) {
                for (int i = e->cx; i < x; i++)
                    em_cell(e, rb[i]);
            } else {
                em_move(e, x, y);
            }
        }
        x = em_changed(e, ra, rb, x, to) - 1;
    }
}

/* The changed cells from x0 on are all blank in b: write blanks or erase
 * to end of line (EL needs the default pen: erased cells take the pen),
 * whichever is shorter. */
static void encode_tail(em_t *e, int y, const uint64_t *ra, const uint64_t *rb, int x0, int end)
{
    em_t save = *e;
    buf_reset(e->scratch);
    e->out = e->scratch;
    encode_span(e, y, ra, rb, x0, end);
    em_t plain = *e;
    *e = save;
    int el = (e->cx == x0 && e->cy == y) ? 0 : move_len(e, x0, y);
    el += sgr_len(e, e->pen, PEN_DEFAULT) + 3;
    if (!e->scratch->failed && (int)e->scratch->len < el) {
        em_raw(e, e->scratch->data, e->scratch->len);
        plain.out = e->out;
        *e = plain;
        return;
    }
    em_move(e, x0, y);
    em_pen(e, PEN_DEFAULT);
    em_raw(e, "\033[K", 3);
}

/* The cells encode_row reads of a row's change [lo, hi]: a gap overwrite
 * may reach GAP_MAX cells left of the first change. */
static int row_first_read(int lo)
{
    return lo > GAP_MAX ? lo - GAP_MAX : 0;
}

/* Row y's change [lo, hi] from ra to rb, both rendered over
 * [row_first_read(lo), hi]. */
static void encode_rendered(em_t *e, int y, const cell_t *brow, int lo, int hi, const uint64_t *ra,
                            const uint64_t *rb)
{
    int t = e->w; /* b's blank tail starts at t (or before lo) */
    while (t > lo && cell_blank(&brow[t - 1]))
        t--;
    int x0 = t; /* first changed cell in the tail */
    while (x0 <= hi && ra[x0] == rb[x0])
        x0++;
    encode_span(e, y, ra, rb, lo, x0 <= hi ? x0 : hi + 1);
    if (x0 <= hi)
        encode_tail(e, y, ra, rb, x0, hi + 1);
}

/* Row y: cells [lo, hi] of arow and brow may differ. ra and rb are scratch
 * rows for the rendered cells; with arow NULL, ra already holds blanks. */
static void encode_row(em_t *e, const ansi_profile_t *p, int y, const cell_t *arow,
                       const cell_t *brow, int lo, int hi, uint64_t *ra, uint64_t *rb)
{
    int r0 = row_first_read(lo);
    if (arow)
        render_row(p, arow, r0, hi + 1, ra);
    render_row(p, brow, r0, hi + 1, rb);
    encode_rendered(e, y, brow, lo, hi, ra, rb);
}

/* Ends a frame: default pen, ASCII charset, cursor placed and shown or
 * hidden (always when vis_always, else only if visibility changed). */
static void em_finish(em_t *e, const screen_t *b, bool vis_always, bool vis_before)
{
    if (e->pen != PEN_DEFAULT)
        em_pen(e, PEN_DEFAULT);
    if (e->dec)
        em_raw(e, "\033(B", 3), e->dec = false;
    if (b->cur_visible) {
        int x = b->cur_x < 0 ? 0 : b->cur_x >= b->w ? b->w - 1 : b->cur_x;
        int y = b->cur_y < 0 ? 0 : b->cur_y >= b->h ? b->h - 1 : b->cur_y;
        em_move(e, x, y);
    }
    if (vis_always || vis_before != b->cur_visible)
        em_raw(e, b->cur_visible ? "\033[?25h" : "\033[?25l", 6);
}

static void frame_begin(const ansi_profile_t *p, buf_t *out)
{
    if (p->sync)
        buf_puts(out, "\033[?2026h");
}

/* Closes the sync bracket, or drops the frame when it drew nothing. */
static void frame_end(const ansi_profile_t *p, buf_t *out, size_t start)
{
    size_t open = start + (p->sync ? 8 : 0);
    if (out->len <= open) {
        out->len = start;
        if (out->data)
            out->data[start] = 0;
        return;
    }
    if (p->sync)
        buf_puts(out, "\033[?2026l");
}

/* ---- keyframes -------------------------------------------------------------- */

/* A keyframe draws onto a cleared screen, so it needs no baseline row and no
 * tail analysis: each row is walked once, a cell is rendered only when it
 * differs from the one before, blank cells are skipped and glyphs go straight
 * into the output. The choices at a gap (overwrite the blanks or move, which
 * move, which SGR) are the ones ansi_diff makes from a blank grid, so both
 * give the same bytes; the unit tests hold them to that. */

/* Is overwriting the n blank cells before the next cell rc (a switch to the
 * blank pen, n spaces, a switch to rc) shorter than a move of mv bytes and a
 * switch to rc? The same sums as gap_cheaper, with the gap known blank. */
static bool key_gap_cheaper(em_t *e, uint64_t rc, int n, int mv)
{
    if (e->pen == PEN_DEFAULT && !e->dec)
        return n < mv; /* same switch both ways */
    int ow = trans_len(e, e->pen, e->dec, RC_BLANK) + n + trans_len(e, PEN_DEFAULT, false, rc);
    return ow < mv + trans_len(e, e->pen, e->dec, rc);
}

/* Brings the cursor to (x, y), where a cell showing rc is to be drawn, by
 * overwriting the blank cells between or by the cheapest move. */
static void key_reach(em_t *e, uint64_t rc, int x, int y)
{
    move_kind_t k;
    int mv = move_plan(e, x, y, &k), n = x - e->cx;
    if (e->cy == y && e->cx >= 0 && n > 0 && n <= GAP_MAX && key_gap_cheaper(e, rc, n, mv)) {
        for (int i = 0; i < n; i++)
            em_cell(e, RC_BLANK);
    } else {
        em_move_by(e, x, y, k);
    }
}

/* What a keyframe met cells render to, keyed by the cell: a screen is drawn
 * from a few distinct cells (blank, wall, floor, ...) over and over. */
typedef struct {
    uint64_t key; /* ch, fg and bg, as cell_same compares them */
    uint64_t rc;
    uint8_t attr;
    uint8_t gn;    /* bytes of glyph in use */
    char glyph[4]; /* rc's code point in UTF-8 */
} look_t;
#define LOOKS 64 /* one bit each in looks_t.valid */

typedef struct {
    const ansi_profile_t *p;
    bool rich;
    uint64_t blank_key; /* key of screen_blank(), whose attr is 0 */
    uint64_t valid;
    look_t e[LOOKS];
} looks_t;

__attribute__((noinline)) static void look_fill(looks_t *l, look_t *e, const cell_t *c,
                                                uint64_t key)
{
    e->key = key;
    e->attr = c->attr;
    e->rc = render_fast(l->p, l->rich, c);
    e->gn = (uint8_t)(put_utf8(e->glyph, RC_CH(e->rc)) - e->glyph);
}

static inline const look_t *look_up(looks_t *l, const cell_t *c, uint64_t key)
{
    unsigned slot = (unsigned)(((key ^ c->attr) * 0x9E3779B97F4A7C15ull) >> 58);
    look_t *e = &l->e[slot];
    if (!(l->valid >> slot & 1) || e->key != key || e->attr != c->attr) {
        l->valid |= (uint64_t)1 << slot;
        look_fill(l, e, c, key);
    }
    return e;
}

static inline bool cell_is(const cell_t *c, uint64_t key, uint8_t attr)
{
    uint64_t k;
    memcpy(&k, c, sizeof k);
    return k == key && c->attr == attr;
}

/* End of the run of cells equal to row[x] (as cell_same), at most w;
 * key is row[x]'s first 8 bytes. Four cells a step: this loop sees every
 * cell of the screen. */
static inline int run_end(const cell_t *row, int x, int w, uint64_t key)
{
    const uint8_t a = row[x].attr;
    for (x++; x + 4 <= w; x += 4) {
        if (!cell_is(&row[x], key, a))
            return x;
        if (!cell_is(&row[x + 1], key, a))
            return x + 1;
        if (!cell_is(&row[x + 2], key, a))
            return x + 2;
        if (!cell_is(&row[x + 3], key, a))
            return x + 3;
    }
    while (x < w && cell_is(&row[x], key, a))
        x++;
    return x;
}

/* Writes n copies of a glyph at o (room reserved); returns the new end.
 * The glyph is copied to locals first: stores through o may alias it. */
static char *put_glyphs(char *o, const look_t *g, int n)
{
    const size_t gn = g->gn;
    if (gn == 1) {
        memset(o, g->glyph[0], (size_t)n);
        return o + n;
    }
    char glyph[4];
    memcpy(glyph, g->glyph, sizeof glyph);
    for (; n >= 2; n -= 2, o += 2 * gn) {
        memcpy(o, glyph, sizeof glyph);
        memcpy(o + gn, glyph, sizeof glyph);
    }
    if (n)
        memcpy(o, glyph, sizeof glyph), o += gn;
    return o;
}

/* With REP, runs of cells that render alike are one run (as a diff from
 * a blank grid sees them): the end of the run of rc from end on. */
static int rep_merge(looks_t *l, const cell_t *row, int end, int w, uint64_t rc)
{
    while (end < w) {
        uint64_t key;
        memcpy(&key, &row[end], sizeof key);
        if (look_up(l, &row[end], key)->rc != rc)
            break;
        end = run_end(row, end, w, key);
    }
    return end;
}

/* Draws the cells of row y that are not blank, a run of equal cells at a
 * time: one look-up, one pen switch and copied glyphs per run. */
static void key_row(em_t *e, looks_t *l, int y, const cell_t *row)
{
    buf_t *out = e->out;
    const int w = e->w;
    /* room for every cell with a switch; moves reserve their own */
    if (!buf_reserve(out, (size_t)w * CELL_ROOM))
        return;
    for (int x = 0, end; x < w; x = end) {
        uint64_t key;
        memcpy(&key, &row[x], sizeof key);
        end = run_end(row, x, w, key);
        if (key == l->blank_key && row[x].attr == 0)
            continue;
        const look_t *g = look_up(l, &row[x], key);
        if (g->rc == RC_BLANK)
            continue;
        if (e->rep) { /* its look-ups may take g's slot: g looked up again */
            end = rep_merge(l, row, end, w, g->rc);
            g = look_up(l, &row[x], key);
        }
        if (e->cy != y || e->cx != x) {
            key_reach(e, g->rc, x, y);
            size_t room = (size_t)(w - x) * CELL_ROOM;
            if (e->cx != x || out->failed ||
                (out->cap - out->len <= room && !buf_reserve(out, room)))
                return;
        }
        char *o = out->data + out->len;
        if ((g->rc >> 21) != ((uint64_t)e->pen << 1 | e->dec))
            o = em_switch(e, o, g->rc);
        if (e->rep && rep_pays(g->rc, end - x))
            o = put_csi_n(put_glyphs(o, g, 1), (unsigned)(end - x - 1), 'b');
        else
            o = put_glyphs(o, g, end - x);
        out->len = (size_t)(o - out->data);
        out->data[out->len] = 0;
        /* after the last column the terminal waits to wrap: column unknown */
        e->cx = end < w ? end : -1;
    }
}

void ansi_keyframe(const ansi_profile_t *p, const screen_t *b, buf_t *out)
{
    frame_begin(p, out);
    /* unknown state: ASCII charset, default pen, home, clear */
    buf_puts(out, "\033(B\033[m\033[H\033[2J");
    sgr_memo_t memo[SGR_MEMOS];
    em_t e = {out, NULL, b->w, 0, 0, PEN_DEFAULT, false, p->rep && p->utf8, scrolls(p), memo, {0}};
    looks_t looks;
    looks.p = p;
    looks.rich = p->colors == ANSI_COLORS_256;
    looks.valid = 0;
    cell_t blank = screen_blank();
    memcpy(&looks.blank_key, &blank, sizeof looks.blank_key);
    for (int y = 0; y < b->h; y++)
        key_row(&e, &looks, y, b->cells + (size_t)y * b->w);
    em_finish(&e, b, true, false);
    if (p->sync)
        buf_puts(out, "\033[?2026l");
}

/* ---- diffs ------------------------------------------------------------------ */

/* A view that slid up or down by whole rows (the map scrolling under the
 * player): the terminal moves those rows itself, inside a scrolling region
 * (DECSTBM, then index at its bottom or reverse index at its top), and the
 * diff draws only what came in. Chosen only when enough changed rows show
 * again shifted, and kept only when its frame is the shorter; ASCII-only
 * profiles (vt52, dumb) may lack scrolling regions and never scroll. */
#define SCROLL_MIN_ROWS ANSI_DIFF_SEARCH_ROWS /* the shift's search too (ansi.h) */
/* A frame of a few changed rows whose cursor ends on the topmost of them
 * is also tried bottom up (twice the work of a small frame). */
#define ORDER_ROWS      4

typedef struct {
    int top, bot; /* the region, rows inclusive */
    int k;        /* > 0: the content moves up k rows; < 0: down */
} scroll_t;

/* A row's key from a few of its cells, spread along it: equal rows have
 * equal keys, and rows of equal keys are compared whole. A sixteenth of
 * the cells keys most rows apart at a fraction of a hash of them all,
 * and the rows of a are keyed on every frame a scroll is looked for. */
#define ROW_SAMPLES 16

static uint64_t row_key(const cell_t *row, const int *at)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < ROW_SAMPLES; i++) {
        uint64_t v;
        memcpy(&v, &row[at[i]], sizeof v);
        h = (h ^ v) * 0xFF51AFD7ED558CCDull;
    }
    return h ^ (h >> 29);
}

static bool row_is_blank(const cell_t *row, int w)
{
    cell_t blank = screen_blank();
    for (int x = 0; x < w; x++)
        if (memcmp(&row[x], &blank, sizeof blank) != 0)
            return false;
    return true;
}

/* Rows of b that a shift of k rows brings back from a: how many, the
 * first and the last (by k + h - 1). */
typedef struct {
    int n[2 * SCREEN_MAX_H], lo[2 * SCREEN_MAX_H], hi[2 * SCREEN_MAX_H];
} shift_votes_t;

/* Each voter row y of b (changed, not blank) votes for every k that
 * brings an equal row of a onto it: rows times rows key compares, where
 * trying every k against every row would be twice the rows times it. */
static void scroll_votes(const screen_t *a, const screen_t *b, const uint64_t *ka,
                         const uint64_t *kb, const bool *voter, shift_votes_t *v)
{
    int w = b->w, h = b->h;
    size_t rowb = sizeof(cell_t) * (size_t)w;
    memset(v->n, 0, sizeof(int) * (size_t)(2 * h));
    for (int y = 0; y < h; y++) {
        if (!voter[y])
            continue;
        for (int y2 = 0; y2 < h; y2++) {
            int i = y2 - y + h - 1;
            if (y2 == y || kb[y] != ka[y2] ||
                memcmp(b->cells + (size_t)y * w, a->cells + (size_t)y2 * w, rowb) != 0)
                continue;
            if (v->n[i]++ == 0)
                v->lo[i] = y;
            v->hi[i] = y;
        }
    }
}

/* The shift that brings back the most changed, non-blank rows of b from
 * a; the smallest k among those that bring back as many. Fewer than
 * SCROLL_MIN_ROWS such rows (a key that changed the message and status
 * lines and a map row or two) need no look at a at all. */
static bool scroll_find(const screen_t *a, const screen_t *b, const bool *changed, scroll_t *sc)
{
    int w = b->w, h = b->h, best = 0, voters = 0;
    uint64_t ka[SCREEN_MAX_H], kb[SCREEN_MAX_H];
    bool voter[SCREEN_MAX_H];
    for (int y = 0; y < h; y++) {
        voter[y] = changed[y] && !row_is_blank(b->cells + (size_t)y * w, w);
        voters += voter[y];
    }
    if (voters < SCROLL_MIN_ROWS)
        return false;
    int at[ROW_SAMPLES];
    for (int i = 0; i < ROW_SAMPLES; i++)
        at[i] = i * w / ROW_SAMPLES;
    for (int y = 0; y < h; y++) {
        ka[y] = row_key(a->cells + (size_t)y * w, at);
        kb[y] = voter[y] ? row_key(b->cells + (size_t)y * w, at) : 0;
    }
    shift_votes_t v;
    scroll_votes(a, b, ka, kb, voter, &v);
    for (int k = 1 - h; k < h; k++) {
        int i = k + h - 1;
        if (k && v.n[i] > best) {
            best = v.n[i];
            *sc = (scroll_t){k > 0 ? v.lo[i] : v.lo[i] + k, k > 0 ? v.hi[i] + k : v.hi[i], k};
        }
    }
    return best >= SCROLL_MIN_ROWS;
}

/* The terminal scrolls region sc; the frame goes on with the default pen
 * (scrolled-in rows take the pen's background) and the cursor unknown. */
static void em_scroll(em_t *e, const scroll_t *sc)
{
    if (e->pen != PEN_DEFAULT)
        em_pen(e, PEN_DEFAULT);
    char seq[32];
    int n = snprintf(seq, sizeof seq, "\033[%d;%dr", sc->top + 1, sc->bot + 1);
    em_raw(e, seq, (size_t)n);
    e->cx = e->cy = -1; /* DECSTBM homes the cursor on most terminals: not relied on */
    em_move(e, 0, sc->k > 0 ? sc->bot : sc->top);
    for (int i = 0; i < (sc->k > 0 ? sc->k : -sc->k); i++)
        em_raw(e, sc->k > 0 ? "\033D" : "\033M", 2);
    em_raw(e, "\033[r", 3);
    e->cx = e->cy = -1;
}

static void row_blank(cell_t *r, int from, int to)
{
    for (int x = from; x < to; x++)
        r[x] = screen_blank();
}

/* a's cells as the terminal holds them after scrolling sc, into dst. */
static void scroll_cells(const screen_t *a, const scroll_t *sc, cell_t *dst)
{
    size_t w = (size_t)a->w, m = (size_t)(sc->k > 0 ? sc->k : -sc->k);
    size_t rows = (size_t)(sc->bot - sc->top + 1) - m, top = (size_t)sc->top;
    memcpy(dst, a->cells, sizeof(cell_t) * w * (size_t)a->h);
    size_t to = sc->k > 0 ? top : top + m, from = sc->k > 0 ? top + m : top;
    memmove(dst + to * w, a->cells + from * w, sizeof(cell_t) * w * rows);
    size_t fresh = sc->k > 0 ? top + rows : top;
    for (size_t i = fresh * w; i < (fresh + m) * w; i++)
        dst[i] = screen_blank();
}

/* A view that slid left or right by k columns (the map moving sideways
 * under the player): on each row whose span [s, e) shifted, the terminal
 * moves the cells itself by deleting and inserting characters (DCH, ICH)
 * and the diff draws only what came in. Cells right of the span (a panel
 * beside the map) are put back by the opposite operation at the span's
 * end. VT100s lack both operations and VT102s lack ICH, so only UTF-8
 * profiles (xterm and the terminals named like it, xterm.js) shift. */
typedef struct {
    int k;                   /* > 0: the content moves left k columns; < 0: right */
    int16_t s[SCREEN_MAX_H]; /* the row's span starts here; -1: the row is not shifted */
    int16_t e[SCREEN_MAX_H]; /* the span ends here (exclusive); w: nothing kept right of it */
} shift_t;

static void em_shift_ops(em_t *e, int k, int s, int end, int y);

/* What a frame's two orders share (diff_searched): each changed row's
 * change and its cells rendered, kept by the first order and read by the
 * second, and the SGR sequences worked out. Both orders draw the same
 * rows over the same cells, so the bytes are those of each encoded whole. */
typedef struct {
    int n;     /* rows kept, top down */
    bool kept; /* the first order has run */
    int lo[ORDER_ROWS], hi[ORDER_ROWS];
    uint64_t ra[ORDER_ROWS][SCREEN_MAX_W], rb[ORDER_ROWS][SCREEN_MAX_W];
    sgr_memo_t memo[SGR_MEMOS];
    uint64_t memo_valid[SGR_MEMOS / 64];
} frame_rows_t;

/* One frame from a terminal holding acells (a's cells, or their scrolled
 * copy after sc) to b, its rows top down or (up) bottom up; changed[y]: row
 * y of b differs from a's (rows inside sc are compared with acells here).
 * fr (no scroll, no shift, at most ORDER_ROWS changed rows): the rows of
 * the order run before it, or kept for the one after. */
static void diff_frame(const ansi_profile_t *p, const screen_t *a, const cell_t *acells,
                       const screen_t *b, const bool *changed, const scroll_t *sc,
                       const shift_t *sh, bool up, frame_rows_t *fr, buf_t *out)
{
    uint64_t ra[SCREEN_MAX_W], rb[SCREEN_MAX_W];
    buf_t scratch;
    buf_init(&scratch);
    sgr_memo_t own[SGR_MEMOS], *memo = fr ? fr->memo : own;
    size_t start = out->len;
    frame_begin(p, out);
    bool known =
        a->cur_visible && a->cur_x >= 0 && a->cur_x < a->w && a->cur_y >= 0 && a->cur_y < a->h;
    em_t e = {out,
              &scratch,
              b->w,
              known ? a->cur_x : -1,
              known ? a->cur_y : -1,
              PEN_DEFAULT,
              false,
              p->rep && p->utf8,
              scrolls(p),
              memo,
              {0}};
    if (fr)
        memcpy(e.memo_valid, fr->memo_valid, sizeof e.memo_valid);
    if (sc)
        em_scroll(&e, sc);
    /* every row's shift first, with the default pen: the rows drawn after
     * them keep the pen from one row to the next */
    for (int y = 0; sh && y < b->h; y++)
        if (sh->s[y] >= 0)
            em_shift_ops(&e, sh->k, sh->s[y], sh->e[y], y);
    size_t rowb = sizeof(cell_t) * (size_t)b->w;
    for (int i = 0, j = 0; i < b->h; i++) {
        int y = up ? b->h - 1 - i : i;
        const cell_t *arow = acells + (size_t)y * b->w, *brow = b->cells + (size_t)y * b->w;
        bool shifted = sh && sh->s[y] >= 0;
        bool moved = shifted || (sc && y >= sc->top && y <= sc->bot);
        if (moved ? memcmp(arow, brow, rowb) == 0 : !changed[y])
            continue;
        if (fr && fr->kept) { /* the j-th changed row of this order */
            int k = up ? fr->n - 1 - j++ : j++;
            encode_rendered(&e, y, brow, fr->lo[k], fr->hi[k], fr->ra[k], fr->rb[k]);
            continue;
        }
        int lo = first_change(arow, brow, 0, b->w - 1);
        int hi = last_change(arow, brow, lo, b->w - 1);
        if (fr && fr->n < ORDER_ROWS && !up) {
            int k = fr->n++;
            fr->lo[k] = lo;
            fr->hi[k] = hi;
            encode_row(&e, p, y, arow, brow, lo, hi, fr->ra[k], fr->rb[k]);
        } else
            encode_row(&e, p, y, arow, brow, lo, hi, ra, rb);
    }
    em_finish(&e, b, false, a->cur_visible);
    if (fr) {
        memcpy(fr->memo_valid, e.memo_valid, sizeof fr->memo_valid);
        fr->kept = !up && fr->n <= ORDER_ROWS;
    }
    frame_end(p, out, start);
    buf_free(&scratch);
}

/* alt replaces the frame at out[start..] when it is shorter; alt is freed. */
static void keep_shorter(buf_t *out, size_t start, buf_t *alt)
{
    if (!alt->failed && !out->failed && alt->len < out->len - start) {
        out->len = start;
        buf_put(out, alt->data, alt->len);
    }
    buf_free(alt);
}

static int row_cost(const cell_t *a, const cell_t *b, int w);

/* What drawing each row of b costs (row_cost) over the row the terminal
 * holds there after a scroll by k: a's own row, a's row k away, or a
 * blank one; each worked out once, when first asked for (-1 till then),
 * so that trying a region grown by a row costs a sum, not a copy of a and
 * a compare of every row. */
typedef struct {
    int k;
    const cell_t *blank; /* a blank row */
    int still[SCREEN_MAX_H], moved[SCREEN_MAX_H], fresh[SCREEN_MAX_H];
} row_costs_t;

static int row_cost_memo(int *memo, const cell_t *a, const cell_t *b, int w)
{
    if (*memo < 0)
        *memo = row_cost(a, b, w);
    return *memo;
}

/* About what finishing b costs, in cells, from a terminal holding a's
 * cells scrolled by sc (sc->k == rc->k). */
static int scroll_cost(const screen_t *a, const screen_t *b, const scroll_t *sc, row_costs_t *rc)
{
    int w = b->w, m = sc->k > 0 ? sc->k : -sc->k, cost = 0;
    /* the rows that come in blank: the region's last m, or its first m */
    int fresh0 = sc->k > 0 ? sc->bot - m + 1 : sc->top, fresh1 = fresh0 + m - 1;
    for (int y = 0; y < b->h; y++) {
        const cell_t *brow = b->cells + (size_t)y * w;
        if (y < sc->top || y > sc->bot)
            cost += row_cost_memo(&rc->still[y], a->cells + (size_t)y * w, brow, w);
        else if (y >= fresh0 && y <= fresh1)
            cost += row_cost_memo(&rc->fresh[y], rc->blank, brow, w);
        else
            cost += row_cost_memo(&rc->moved[y], a->cells + (size_t)(y + sc->k) * w, brow, w);
    }
    return cost;
}

/* Grows the region a row at a time, at either end, while that leaves less
 * to draw: a row next to the region that changed beyond the move (the
 * player's old place, an item now remembered dim) moves with it and is
 * patched, rather than drawn over the row it replaces. blank: a blank
 * row of b's width. */
static void scroll_grow(const screen_t *a, const screen_t *b, scroll_t *sc, const cell_t *blank)
{
    row_costs_t costs, *rc = &costs;
    rc->k = sc->k;
    rc->blank = blank;
    memset(rc->still, -1, sizeof(int) * (size_t)b->h);
    memset(rc->moved, -1, sizeof(int) * (size_t)b->h);
    memset(rc->fresh, -1, sizeof(int) * (size_t)b->h);
    int best = scroll_cost(a, b, sc, rc);
    for (bool grew = true; grew;) {
        grew = false;
        scroll_t up = *sc, down = *sc;
        up.top--, down.bot++;
        const scroll_t *tries[2] = {up.top >= 0 ? &up : NULL, down.bot < b->h ? &down : NULL};
        for (int i = 0; i < 2; i++) {
            int cost = tries[i] ? scroll_cost(a, b, tries[i], rc) : best;
            if (cost < best)
                best = cost, *sc = *tries[i], grew = true;
        }
    }
}

/* The scrolled frame, when one is found and comes out shorter than the
 * frame already at out[start..]. */
static void diff_try_scroll(const ansi_profile_t *p, const screen_t *a, const screen_t *b,
                            const bool *changed, buf_t *out, size_t start)
{
    scroll_t sc;
    if (!scroll_find(a, b, changed, &sc))
        return;
    /* a's cells as scrolled, and a blank row after them */
    size_t n = (size_t)a->w * (size_t)a->h;
    cell_t *moved = malloc(sizeof(cell_t) * (n + (size_t)a->w));
    if (!moved)
        return;
    row_blank(moved + n, 0, a->w);
    buf_t alt;
    buf_init(&alt);
    scroll_grow(a, b, &sc, moved + n);
    scroll_cells(a, &sc, moved);
    diff_frame(p, a, moved, b, changed, &sc, NULL, false, NULL, &alt);
    keep_shorter(out, start, &alt);
    free(moved);
}

/* A frame shorter than this has too little to save to look for a shift. */
#define SHIFT_MIN_BYTES 256

/* The terminal's DCH (n > 0) or ICH (n < 0) of |n| cells at column at,
 * on row r of width w: the rest of the row moves, blanks come in. */
static void row_op(cell_t *r, int w, int at, int n)
{
    int m = n > 0 ? n : -n;
    m = m < w - at ? m : w - at;
    size_t keep = sizeof(cell_t) * (size_t)(w - at - m);
    if (n > 0) {
        memmove(r + at, r + at + m, keep);
        row_blank(r, w - m, w);
    } else {
        memmove(r + at + m, r + at, keep);
        row_blank(r, at, at + m);
    }
}

/* The one or two operations that shift span [s, e) by k, in order, as
 * (column, row_op count) pairs; returns how many. */
static int shift_ops(int k, int s, int e, int w, int at[2], int n[2])
{
    int c = 0;
    if (k > 0) {
        at[c] = s, n[c++] = k;
        if (e < w)
            at[c] = e, n[c++] = -k;
    } else {
        if (e < w)
            at[c] = e + k, n[c++] = -k;
        at[c] = s, n[c++] = k;
    }
    return c;
}

/* tmux (3.3) clears only w - at - n of the n cells an ICH inserts when n
 * is more than half of what is right of the cursor: such a shift is not
 * made. */
static bool shift_ops_safe(int k, int s, int e, int w)
{
    int at[2], n[2], c = shift_ops(k, s, e, w, at, n);
    for (int i = 0; i < c; i++)
        if (n[i] < 0 && -2 * n[i] > w - at[i])
            return false;
    return true;
}

/* Row a as the terminal holds it after shifting span [s, e) by k, into dst. */
static void shift_apply(const cell_t *a, int w, int k, int s, int e, cell_t *dst)
{
    int at[2], n[2], c = shift_ops(k, s, e, w, at, n);
    memcpy(dst, a, sizeof(cell_t) * (size_t)w);
    for (int i = 0; i < c; i++)
        row_op(dst, w, at[i], n[i]);
}

static int mismatches(const cell_t *a, const cell_t *b, int w)
{
    int n = 0;
    for (int x = 0; x < w; x++)
        n += !cell_same(&a[x], &b[x]);
    return n;
}

/* About what drawing row b over row a costs, in cells: a cell that
 * differs counts one, but a blank tail of b costs one erase. */
static int row_cost(const cell_t *a, const cell_t *b, int w)
{
    if (memcmp(a, b, sizeof(cell_t) * (size_t)w) == 0)
        return 0;
    int t = w;
    while (t > 0 && cell_blank(&b[t - 1]))
        t--;
    return mismatches(a, b, t) + (t < w && mismatches(a + t, b + t, w - t) ? 3 : 0);
}

/* The rows a move by dy (> 0: the content goes up) brings back: the region
 * round the changed rows of b whose probes found their window dy rows
 * away, as scroll_find would make it. */
static bool shift_region(const screen_t *a, const screen_t *b, const bool *changed, int dy, int k,
                         scroll_t *sc)
{
    int w = b->w, lo = b->h, hi = -1;
    for (int y = 0; y < b->h; y++) {
        int ya = y + dy, m = k > 0 ? k : -k;
        if (!changed[y] || ya < 0 || ya >= b->h)
            continue;
        const cell_t *brow = b->cells + (size_t)y * w, *arow = a->cells + (size_t)ya * w;
        int from = k > 0 ? 0 : m; /* b's cells that came from a's row ya */
        if (mismatches(k > 0 ? arow + m : arow, brow + from, w - m) * 2 < w - m) {
            lo = y < lo ? y : lo;
            hi = y;
        }
    }
    if (hi - lo + 1 < SCROLL_MIN_ROWS)
        return false;
    *sc = (scroll_t){dy > 0 ? lo : lo + dy, dy > 0 ? hi + dy : hi, dy};
    return true;
}

/* Row y's operations that shift span [s, end) by k: each a move to its
 * column and CSI n P or CSI n @, with the default pen (the blanks that
 * come in take the pen's colours). */
static void em_shift_ops(em_t *e, int k, int s, int end, int y)
{
    int at[2], n[2], c = shift_ops(k, s, end, e->w, at, n);
    if (e->pen != PEN_DEFAULT)
        em_pen(e, PEN_DEFAULT);
    for (int i = 0; i < c; i++) {
        char seq[16];
        em_move(e, at[i], y);
        em_raw(e, seq,
               (size_t)(put_csi_n(seq, (unsigned)(n[i] > 0 ? n[i] : -n[i]), n[i] > 0 ? 'P' : '@') -
                        seq));
    }
}

/* Trial runs of one row's bytes, to choose its shift by what it costs on
 * the wire rather than by cells: a row of grass and scattered trees
 * differs from its unshifted self in few cells, each a move and a glyph,
 * and from its shifted self in the columns that came in, which REP draws
 * in a few bytes. */
typedef struct {
    const ansi_profile_t *p;
    buf_t out, scratch;
    sgr_memo_t memo[SGR_MEMOS];
    uint64_t rb[SCREEN_MAX_W]; /* b's row, rendered once for all its trials */
} row_trial_t;

/* Bytes that draw brow over arow on row y of width w, and the shift of
 * span [s, end) by k before (s < 0: none): the shift from the place of
 * the row above's (diff_frame shifts all rows first), the cells from the
 * default pen and a cursor at an unknown column of the row above (where
 * a frame's rows leave it); -1 when out of memory. cap >= 0: a trial
 * that must cost at most cap to win; once it costs more it stops, and
 * what it returns is more than cap, not its cost. */
static int row_bytes(row_trial_t *t, int y, int w, const cell_t *arow, const cell_t *brow, int k,
                     int s, int end, int cap)
{
    uint64_t ra[SCREEN_MAX_W];
    buf_reset(&t->out);
    em_t e = {.out = &t->out,
              .scratch = &t->scratch,
              .w = w,
              .cx = -1,
              .cy = y - 1,
              .pen = PEN_DEFAULT,
              .rep = t->p->rep && t->p->utf8,
              .esc_vert = scrolls(t->p),
              .memo = t->memo,
              .cap_out = cap >= 0 ? &t->out : NULL,
              .cap = cap >= 0 ? (size_t)cap : 0};
    if (s >= 0) {
        int at[2], n[2];
        shift_ops(k, s, end, w, at, n);
        e.cx = y > 0 ? at[0] : -1;
        em_shift_ops(&e, k, s, end, y);
        e.cx = -1, e.cy = y - 1; /* the cells: as if the row had no shift */
    }
    int lo = first_change(arow, brow, 0, w - 1), hi = last_change(arow, brow, lo, w - 1);
    if (!cell_same(&arow[lo], &brow[lo])) {
        render_row(t->p, arow, row_first_read(lo), hi + 1, ra);
        encode_rendered(&e, y, brow, lo, hi, ra, t->rb);
    }
    return t->out.failed ? -1 : (int)t->out.len;
}

/* Whether row y shifts by sh->k and over which span (sh->s[y], sh->e[y]):
 * the choice of the fewest bytes (row_bytes). The span starts at the
 * first changed cell or at the row's start (ops at column 0 go down the
 * rows by LF); it ends at the row's end, where the row's unchanged right
 * part begins, or after the last cell the shift brings back. The first
 * of the cheapest spans wins if it costs less than the row unshifted;
 * the spans are tried first, so that each trial, and the unshifted row's
 * last, stops once it costs too much to win (its cap).
 * row (a's) becomes the row as the terminal then holds it. */
static void shift_plan_row(row_trial_t *t, shift_t *sh, int y, cell_t *row, const cell_t *brow,
                           int w)
{
    int k = sh->k, m = k > 0 ? k : -k;
    cell_t tmp[SCREEN_MAX_W], won[SCREEN_MAX_W];
    sh->s[y] = -1;
    int lo = first_change(row, brow, 0, w - 1), hi = last_change(row, brow, lo, w - 1);
    int last = -1; /* the last cell of b's that a's row shows k away */
    for (int x = 0; x < w; x++)
        if (x + k >= 0 && x + k < w && !cell_blank(&brow[x]) && cell_same(&brow[x], &row[x + k]))
            last = x;
    render_row(t->p, brow, 0, w, t->rb);
    int best = -1; /* the cheapest span's bytes; -1: none yet */
    int ends[3] = {w, k > 0 ? hi + 1 - k : hi + 1, last + 1}, starts[2] = {lo, 0};
    for (int j = 0; j < (lo ? 2 : 1); j++)
        for (int i = 0; i < 3; i++) {
            int s = starts[j], e = ends[i];
            if (s + m >= w || (i && (e >= w || e - m <= s)) || !shift_ops_safe(k, s, e, w))
                continue;
            shift_apply(row, w, k, s, e, tmp);
            int cost = row_bytes(t, y, w, tmp, brow, k, s, e, best - 1);
            if (cost < 0) { /* out of memory: no shift */
                sh->s[y] = -1;
                return;
            }
            if (best < 0 || cost < best) {
                best = cost;
                sh->s[y] = (int16_t)s, sh->e[y] = (int16_t)e;
                memcpy(won, tmp, sizeof(cell_t) * (size_t)w);
            }
        }
    if (best < 0)
        return;
    int plain = row_bytes(t, y, w, row, brow, k, -1, 0, best);
    if (plain < 0 || plain <= best)
        sh->s[y] = -1;
    else
        memcpy(row, won, sizeof(cell_t) * (size_t)w);
}

/* Plans every changed row's shift (on rows a vertical move sc brought
 * back: against its scrolled copy, acells) into sh, the rows as the
 * terminal then holds them into acells. Returns how many rows shift. */
static int shift_plan(const ansi_profile_t *p, shift_t *sh, const screen_t *a, const screen_t *b,
                      const bool *changed, const scroll_t *sc, cell_t *acells)
{
    size_t w = (size_t)a->w;
    int rows = 0;
    row_trial_t *t = malloc(sizeof *t);
    if (!t)
        return 0;
    t->p = p;
    buf_init(&t->out);
    buf_init(&t->scratch);
    for (int y = 0; y < b->h; y++) {
        sh->s[y] = -1;
        bool moved = sc && y >= sc->top && y <= sc->bot;
        if (changed[y] || (moved && memcmp(acells + y * w, b->cells + y * w, w * sizeof(cell_t))))
            shift_plan_row(t, sh, y, acells + y * w, b->cells + y * w, a->w);
        rows += sh->s[y] >= 0;
    }
    buf_free(&t->out);
    buf_free(&t->scratch);
    free(t);
    return rows;
}

/* The frame that moves the view sideways (and up or down), when such a
 * move is found and its frame comes out shorter than the one already at
 * out[start..]; full: without the pre-test. */
static void diff_try_shift(const ansi_profile_t *p, const screen_t *a, const screen_t *b,
                           const bool *changed, bool full, buf_t *out, size_t start)
{
    int dy = 0, k = ansi_shift_find(a, b, changed, full, &dy);
    if (!k)
        return;
    shift_t *sh = malloc(sizeof *sh);
    cell_t *moved = malloc(sizeof(cell_t) * (size_t)a->w * (size_t)a->h);
    if (sh && moved) {
        sh->k = k;
        scroll_t sc;
        bool vert = dy != 0 && scrolls(p) && shift_region(a, b, changed, dy, sh->k, &sc);
        if (vert)
            scroll_cells(a, &sc, moved);
        else
            memcpy(moved, a->cells, sizeof(cell_t) * (size_t)a->w * (size_t)a->h);
        if (shift_plan(p, sh, a, b, changed, vert ? &sc : NULL, moved) > 0) {
            buf_t alt;
            buf_init(&alt);
            diff_frame(p, a, moved, b, changed, vert ? &sc : NULL, sh, false, NULL, &alt);
            keep_shorter(out, start, &alt);
        }
    }
    free(moved);
    free(sh);
}

/* ansi_diff; full: every search run that its pre-tests would skip. */
static void diff_searched(const ansi_profile_t *p, const screen_t *a, const screen_t *b, bool full,
                          buf_t *out)
{
    if (!a || a->w != b->w || a->h != b->h) {
        ansi_keyframe(p, b, out);
        return;
    }
    size_t start = out->len, rowb = sizeof(cell_t) * (size_t)b->w;
    bool changed[SCREEN_MAX_H] = {false}; /* only rows dirty in b are examined */
    int n = 0, first = -1;
    for (int y = 0; y < b->h; y++) {
        size_t at = (size_t)y * (size_t)b->w;
        changed[y] = b->dirty[y] && memcmp(a->cells + at, b->cells + at, rowb) != 0;
        first = first < 0 && changed[y] ? y : first;
        n += changed[y];
    }
    /* a step upward: the row it left first, then the row the cursor ends on */
    bool twice = n >= 2 && n <= ORDER_ROWS && b->cur_visible && b->cur_y == first;
    frame_rows_t *fr = NULL, rows;
    if (twice) {
        rows.n = 0;
        rows.kept = false;
        memset(rows.memo_valid, 0, sizeof rows.memo_valid);
        fr = &rows;
    }
    diff_frame(p, a, a->cells, b, changed, NULL, NULL, false, fr, out);
    if (twice) {
        buf_t alt;
        buf_init(&alt);
        diff_frame(p, a, a->cells, b, changed, NULL, NULL, true, fr, &alt);
        keep_shorter(out, start, &alt);
    }
    if (n >= SCROLL_MIN_ROWS && scrolls(p))
        diff_try_scroll(p, a, b, changed, out, start);
    if (n >= SCROLL_MIN_ROWS && p->utf8 && out->len - start >= SHIFT_MIN_BYTES)
        diff_try_shift(p, a, b, changed, full, out, start);
}

void ansi_diff(const ansi_profile_t *p, const screen_t *a, const screen_t *b, buf_t *out)
{
    diff_searched(p, a, b, false, out);
}

void ansi_diff_exhaustive(const ansi_profile_t *p, const screen_t *a, const screen_t *b, buf_t *out)
{
    diff_searched(p, a, b, true, out);
}

/* ---- profiles ---------------------------------------------------------------- */

typedef struct {
    const char *name;
    ansi_profile_t prof;
} term_entry_t;

#define P16_UTF8                                 \
    {                                            \
        ANSI_COLORS_16, true, false, false, true \
    }
#define P16_DEC                                   \
    {                                             \
        ANSI_COLORS_16, false, true, false, false \
    }
#define P16_ASCII                                  \
    {                                              \
        ANSI_COLORS_16, false, false, false, false \
    }

/* Matched against the whole name, then against its part before '-'. */
static const term_entry_t TERMS[] = {
    {"xterm", P16_UTF8},  {"linux", P16_UTF8}, {"screen", P16_UTF8},  {"tmux", P16_UTF8},
    {"rxvt", P16_UTF8},   {"putty", P16_UTF8}, {"konsole", P16_UTF8}, {"gnome", P16_UTF8},
    {"cygwin", P16_UTF8}, {"eterm", P16_UTF8}, {"vt220", P16_DEC},    {"vt320", P16_DEC},
    {"vt420", P16_DEC},   {"vt520", P16_DEC},  {"vt100", P16_DEC},    {"vt102", P16_DEC},
    {"ansi", P16_ASCII},  {"dumb", P16_ASCII}, {"ascii", P16_ASCII},  {"vt52", P16_ASCII},
};

/* Names that promise 256 colours whatever their base. */
static const char *const RICH[] = {"256col", "truecolor", "direct", "kitty", "ghostty"};

/* Whole names whose terminfo entries have REP (`rep`): curses programs
 * already send it to every terminal that goes by them. */
static const char *const REPEATERS[] = {"xterm", "xterm-256color"};

static bool repeats(const char *low)
{
    for (size_t i = 0; i < sizeof REPEATERS / sizeof REPEATERS[0]; i++)
        if (!strcmp(low, REPEATERS[i]))
            return true;
    return false;
}

static const ansi_profile_t *term_lookup(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof TERMS / sizeof TERMS[0]; i++)
        if (strlen(TERMS[i].name) == n && memcmp(TERMS[i].name, name, n) == 0)
            return &TERMS[i].prof;
    return NULL;
}

void ansi_profile_for_term(ansi_profile_t *p, const char *term)
{
    ansi_profile_t def = {ANSI_COLORS_256, true, false, false, false};
    *p = def;
    if (!term)
        return;
    char low[64];
    size_t n = 0;
    for (; term[n] && n < sizeof low - 1; n++)
        low[n] = (char)tolower((unsigned char)term[n]);
    low[n] = 0;
    bool rich = false;
    for (size_t i = 0; i < sizeof RICH / sizeof RICH[0]; i++)
        rich = rich || strstr(low, RICH[i]) != NULL;
    const ansi_profile_t *hit = rich ? NULL : term_lookup(low, n);
    if (!hit && !rich)
        hit = term_lookup(low, strcspn(low, "-"));
    if (hit)
        *p = *hit;
    p->rep = p->utf8 && repeats(low);
}

int ansi_profile_id(const ansi_profile_t *p)
{
    bool glyphs = p->utf8 ? p->fallbacks : p->dec_graphics; /* the other flag is unused */
    return ((int)p->colors & 3) | (p->utf8 ? 4 : 0) | (glyphs ? 8 : 0) | (p->sync ? 16 : 0) |
           (p->utf8 && p->rep ? 32 : 0);
}
