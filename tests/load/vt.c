/* vt — a character grid driven by the subset of ECMA-48 that protocol/ansi.c
 * emits. Anything else is parsed (so it cannot desynchronise the stream)
 * and ignored. */
#include "vt.h"
#include <string.h>

enum { ST_GROUND, ST_ESC, ST_CSI, ST_CHARSET };

void vt_init(vt_t *v)
{
    memset(v, 0, sizeof *v);
    v->bot = VT_H - 1;
    for (int y = 0; y < VT_H; y++)
        memset(v->row[y], ' ', VT_W);
}

const char *vt_row(const vt_t *v, int y)
{
    return v->row[y];
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void goto_xy(vt_t *v, int x, int y)
{
    v->x = clamp(x, 0, VT_W - 1);
    v->y = clamp(y, 0, VT_H - 1);
    v->wrap = false;
}

/* Rows [top, bot] move one up (up) or down; the row coming in is blank. */
static void scroll_region(vt_t *v, bool up)
{
    size_t n = sizeof v->row[0] * (size_t)(v->bot - v->top);
    if (up)
        memmove(v->row[v->top], v->row[v->top + 1], n);
    else
        memmove(v->row[v->top + 1], v->row[v->top], n);
    memset(v->row[up ? v->bot : v->top], ' ', VT_W);
}

static void line_feed(vt_t *v)
{
    if (v->y == v->bot)
        scroll_region(v, true);
    else if (v->y < VT_H - 1)
        v->y++;
}

static void reverse_index(vt_t *v)
{
    if (v->y == v->top)
        scroll_region(v, false);
    else if (v->y > 0)
        v->y--;
    v->wrap = false;
}

static void put_glyph(vt_t *v, char c)
{
    if (v->wrap) {
        v->x = 0;
        v->wrap = false;
        line_feed(v);
    }
    v->row[v->y][v->x] = c;
    v->last = c;
    if (v->x == VT_W - 1)
        v->wrap = true;
    else
        v->x++;
}

static void blank(vt_t *v, int y, int x0, int x1)
{
    if (x1 > x0)
        memset(v->row[y] + x0, ' ', (size_t)(x1 - x0));
}

/* ---- CSI finals: one row per control, the first parameter in n -------------- */

static int par(const vt_t *v, int i, int dflt)
{
    return i < v->npar && v->par[i] > 0 ? v->par[i] : dflt;
}

static void csi_cup(vt_t *v, int n)
{
    goto_xy(v, par(v, 1, 1) - 1, n - 1);
}
static void csi_cha(vt_t *v, int n)
{
    goto_xy(v, n - 1, v->y);
}
static void csi_vpa(vt_t *v, int n)
{
    goto_xy(v, v->x, n - 1);
}
static void csi_up(vt_t *v, int n)
{
    goto_xy(v, v->x, v->y - n);
}
static void csi_down(vt_t *v, int n)
{
    goto_xy(v, v->x, v->y + n);
}
static void csi_right(vt_t *v, int n)
{
    goto_xy(v, v->x + n, v->y);
}
static void csi_left(vt_t *v, int n)
{
    goto_xy(v, v->x - n, v->y);
}

static void csi_el(vt_t *v, int n)
{
    (void)n;
    int mode = v->npar ? v->par[0] : 0;
    blank(v, v->y, mode == 0 ? v->x : 0, mode == 1 ? v->x + 1 : VT_W);
}

static void csi_ed(vt_t *v, int n)
{
    (void)n;
    int mode = v->npar ? v->par[0] : 0;
    int y0 = mode == 0 ? v->y + 1 : 0, y1 = mode == 1 ? v->y : VT_H;
    for (int y = y0; y < y1; y++)
        blank(v, y, 0, VT_W);
    if (mode == 0)
        blank(v, v->y, v->x, VT_W);
    else if (mode == 1)
        blank(v, v->y, 0, v->x + 1);
}

static void csi_margins(vt_t *v, int n)
{
    int bot = par(v, 1, VT_H);
    if (n < bot && bot <= VT_H) {
        v->top = n - 1;
        v->bot = bot - 1;
        goto_xy(v, 0, 0);
    }
}

/* Delete (DCH) or insert (ICH) n characters at the cursor: the rest of
 * the row moves left or right, blanks come in. */
static void csi_dch(vt_t *v, int n)
{
    n = n < VT_W - v->x ? n : VT_W - v->x;
    memmove(v->row[v->y] + v->x, v->row[v->y] + v->x + n, (size_t)(VT_W - v->x - n));
    memset(v->row[v->y] + VT_W - n, ' ', (size_t)n);
    v->wrap = false;
}
static void csi_ich(vt_t *v, int n)
{
    n = n < VT_W - v->x ? n : VT_W - v->x;
    memmove(v->row[v->y] + v->x + n, v->row[v->y] + v->x, (size_t)(VT_W - v->x - n));
    memset(v->row[v->y] + v->x, ' ', (size_t)n);
    v->wrap = false;
}

/* REP: the glyph put last, n times more (the encoder sends it right after
 * that glyph; nothing put yet: nothing). */
static void csi_rep(vt_t *v, int n)
{
    for (int i = 0; i < n && i < VT_W * VT_H && v->last; i++)
        put_glyph(v, v->last);
}

static const struct {
    char final;
    int dflt; /* the first parameter when omitted or 0 */
    void (*fn)(vt_t *v, int n);
} CSI[] = {
    {'H', 1, csi_cup},  {'f', 1, csi_cup}, {'G', 1, csi_cha},  {'`', 1, csi_cha},
    {'d', 1, csi_vpa},  {'A', 1, csi_up},  {'B', 1, csi_down}, {'C', 1, csi_right},
    {'D', 1, csi_left}, {'K', 0, csi_el},  {'J', 0, csi_ed},   {'r', 1, csi_margins},
    {'P', 1, csi_dch},  {'@', 1, csi_ich}, {'b', 1, csi_rep},
};

static void csi_final(vt_t *v, char c)
{
    if (v->priv) /* ?25h, ?2026h, ...: modes, nothing drawn */
        return;
    for (size_t i = 0; i < sizeof CSI / sizeof CSI[0]; i++)
        if (CSI[i].final == c) {
            CSI[i].fn(v, par(v, 0, CSI[i].dflt));
            return;
        }
}

/* ---- the byte parser ---------------------------------------------------------- */

static void csi_byte(vt_t *v, unsigned char c)
{
    if (c >= '0' && c <= '9') {
        if (v->npar == 0)
            v->npar = 1;
        int *p = &v->par[v->npar - 1];
        if (*p < 10000)
            *p = *p * 10 + (c - '0');
    } else if (c == ';') {
        if (v->npar == 0)
            v->npar = 1;
        if (v->npar < VT_PARAMS)
            v->par[v->npar++] = 0;
    } else if (c >= '<' && c <= '?') {
        v->priv = true;
    } else if (c >= 0x40 && c <= 0x7E) {
        csi_final(v, (char)c);
        v->state = ST_GROUND;
    } else if (c == 0x1B) {
        v->state = ST_ESC; /* a new sequence cuts this one short */
    } else if (c < 0x20 || c > 0x7E) {
        v->state = ST_GROUND; /* not a CSI after all */
    }
}

static void esc_byte(vt_t *v, unsigned char c)
{
    if (c == '[') {
        v->state = ST_CSI;
        v->priv = false;
        v->npar = 0;
        memset(v->par, 0, sizeof v->par);
    } else if (c == '(' || c == ')') {
        v->state = ST_CHARSET;         /* the set's name follows */
    } else if (c == 'D' || c == 'M') { /* index, reverse index */
        v->state = ST_GROUND;
        if (c == 'D')
            line_feed(v), v->wrap = false;
        else
            reverse_index(v);
    } else {
        v->state = ST_GROUND;
    }
}

static void ground_byte(vt_t *v, unsigned char c)
{
    if (c >= 0x20 && c < 0x7F)
        put_glyph(v, (char)c);
    else if (c >= 0xC0)
        v->lead = c, put_glyph(v, '?'); /* a UTF-8 lead byte: one cell */
    else if (c == 0xB7 && v->lead == 0xC2 && !v->wrap && v->x > 0)
        v->row[v->y][v->x - 1] = v->last = '.'; /* the floor's middle dot */
    else if (c == 0x1B)
        v->state = ST_ESC;
    else if (c == '\r')
        goto_xy(v, 0, v->y);
    else if (c == '\n')
        line_feed(v), v->wrap = false;
    else if (c == '\b')
        goto_xy(v, v->x - 1, v->y);
    else if (c == '\t')
        goto_xy(v, (v->x / 8 + 1) * 8, v->y);
    /* UTF-8 continuation bytes and other controls draw nothing */
}

void vt_feed(vt_t *v, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        switch (v->state) {
        case ST_GROUND: ground_byte(v, c); break;
        case ST_ESC: esc_byte(v, c); break;
        case ST_CSI: csi_byte(v, c); break;
        default: v->state = ST_GROUND; break; /* ST_CHARSET: its one byte */
        }
    }
}

char vt_near_cursor(const vt_t *v, int dx, int dy)
{
    int x = v->x + dx, y = v->y + dy;
    return x >= 0 && x < VT_W && y >= 0 && y < VT_H ? v->row[y][x] : 0;
}
