/* ansi_prop — cases for the ANSI property test.
 *
 *   ansi_prop SEED COUNT PROFILE     PROFILE: 256 16 dec ascii 256sync mono 256rep
 *
 * For each case it builds a seeded random chain of grids G0 -> G1 (-> G2 ..)
 * and prints one JSON line:
 *   {"w":W,"h":H,"bytes":HEX,"last":HEX,"cells":[ch,fg,bg,attr,...],
 *    "cur":[x,y,visible]}
 * bytes = keyframe(G0) + diff(G0,G1) + ... + diff(Gk-1,Gk); last =
 * keyframe(Gk-1) + diff(Gk-1,Gk): the same final diff after another path.
 * cells is what a terminal must show for Gk: the glyph a terminal displays
 * (fallbacks applied), colours as palette index or -1, attribute bits. The
 * expectations here are worked out independently of protocol/ansi.c: own
 * glyph table from the DEC special graphics chart, own nearest-colour
 * search over xterm's palette. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ansi.h"

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int rnd(rng_t *r, int n)
{
    return (int)(rng_next(r) % (uint64_t)n);
}

/* A code point and what each profile shows for it: UTF-8, UTF-8 with
 * fallbacks (few-glyph fonts), DEC graphics, plain ASCII. */
typedef struct {
    uint32_t cp, utf8, few, dec, ascii;
} glyph_t;

static const glyph_t SPECIAL[] = {
    {0x00E9, 0x00E9, 0x00E9, '?', '?'},    {0x03A9, 0x03A9, 0x03A9, '?', '?'},
    {0x2500, 0x2500, 0x2500, 0x2500, '-'}, {0x2550, 0x2550, 0x2500, 0x2500, '-'},
    {0x2502, 0x2502, 0x2502, 0x2502, '|'}, {0x2551, 0x2551, 0x2502, 0x2502, '|'},
    {0x250C, 0x250C, 0x250C, 0x250C, '+'}, {0x255D, 0x255D, 0x2518, 0x2518, '+'},
    {0x253C, 0x253C, 0x253C, 0x253C, '+'}, {0x2510, 0x2510, 0x2510, 0x2510, '+'},
    {0x2514, 0x2514, 0x2514, 0x2514, '+'}, {0x251C, 0x251C, 0x251C, 0x251C, '+'},
    {0x2588, 0x2588, 0x2592, 0x2592, '#'}, {0x2591, 0x2591, 0x2592, 0x2592, '#'},
    {0x00B7, 0x00B7, 0x00B7, 0x00B7, '.'}, {0x00B0, 0x00B0, 0x00B0, 0x00B0, '?'},
    {0x00A3, 0x00A3, 0x00A3, 0x00A3, '?'}, {0x2248, 0x2248, '}', '}', '}'},
    {0x2663, 0x2663, '&', '&', '&'},       {0x4E2D, '?', '?', '?', '?'},
    {0x0301, '?', '?', '?', '?'},          {0x0007, '?', '?', '?', '?'},
    {0x001B, '?', '?', '?', '?'},          {0x009B, '?', '?', '?', '?'},
    {0x1F600, '?', '?', '?', '?'},         {0x03BB, 0x03BB, 0x03BB, '?', '?'},
};
#define N_SPECIAL (int)(sizeof SPECIAL / sizeof SPECIAL[0])

static const int PALETTE16[16][3] = {
    {0, 0, 0},     {205, 0, 0},     {0, 205, 0},     {205, 205, 0},   {0, 0, 238}, {205, 0, 205},
    {0, 205, 205}, {229, 229, 229}, {127, 127, 127}, {255, 0, 0},     {0, 255, 0}, {255, 255, 0},
    {92, 92, 255}, {255, 0, 255},   {0, 255, 255},   {255, 255, 255},
};

static void rgb_of(int i, int c[3])
{
    static const int cube[6] = {0, 95, 135, 175, 215, 255};
    if (i < 16) {
        memcpy(c, PALETTE16[i], sizeof PALETTE16[i]);
    } else if (i < 232) {
        c[0] = cube[(i - 16) / 36], c[1] = cube[(i - 16) / 6 % 6], c[2] = cube[(i - 16) % 6];
    } else {
        c[0] = c[1] = c[2] = 8 + (i - 232) * 10;
    }
}

static int nearest16(int i)
{
    if (i < 16)
        return i;
    int c[3], best = 0;
    long bd = -1;
    rgb_of(i, c);
    for (int j = 0; j < 16; j++) {
        long d = 0;
        for (int k = 0; k < 3; k++)
            d += (long)(c[k] - PALETTE16[j][k]) * (c[k] - PALETTE16[j][k]);
        if (bd < 0 || d < bd)
            bd = d, best = j;
    }
    return best;
}

static uint16_t rand_color(rng_t *r, int default_pct)
{
    int k = rnd(r, 100);
    if (k < default_pct)
        return SCREEN_DEFAULT_COLOR;
    if (k < default_pct + (100 - default_pct) / 2)
        return (uint16_t)rnd(r, 16);
    return (uint16_t)rnd(r, 256);
}

static void rand_cell(rng_t *r, screen_t *s, int x, int y, bool keep_char)
{
    uint32_t ch;
    int k = rnd(r, 100);
    if (keep_char)
        ch = screen_at(s, x, y)->ch;
    else if (k < 25)
        ch = ' ';
    else if (k < 80)
        ch = (uint32_t)(0x21 + rnd(r, 94));
    else
        ch = SPECIAL[rnd(r, N_SPECIAL)].cp;
    style_t st = {rand_color(r, 40), rand_color(r, 70), 0};
    if (rnd(r, 3) == 0)
        st.attr = (uint8_t)rnd(r, ATTR_ALL + 1);
    if (rnd(r, 5) == 0)
        st = STYLE_DEFAULT;
    screen_put(s, x, y, ch, st);
}

static void blank_from(screen_t *s, int x0, int y)
{
    for (int x = x0; x < s->w; x++)
        screen_put(s, x, y, ' ', STYLE_DEFAULT);
}

static void fill_random(rng_t *r, screen_t *s)
{
    int dens = 20 + rnd(r, 80);
    for (int y = 0; y < s->h; y++) {
        for (int x = 0; x < s->w; x++)
            if (rnd(r, 100) < dens)
                rand_cell(r, s, x, y, false);
        if (rnd(r, 3) == 0)
            blank_from(s, rnd(r, s->w), y);
    }
    screen_cursor(s, rnd(r, s->w), rnd(r, s->h), rnd(r, 4) != 0);
}

/* The map slides: rows [y0, y1] of columns [0, mapw) move dx columns
 * and dy rows (cells that come in are new), a panel right of them stays. */
static void slide(rng_t *r, screen_t *s)
{
    int panel = rnd(r, 2) || s->w < 3 ? 0 : rnd(r, s->w / 3), mapw = s->w - panel;
    int y0 = rnd(r, s->h), y1 = y0 + rnd(r, s->h - y0);
    int dx = 1 + rnd(r, mapw > 1 ? mapw - 1 : 1), dy = rnd(r, 3) ? 0 : rnd(r, 5) - 2;
    dx = rnd(r, 2) ? dx : -dx;
    screen_t *old = screen_new(s->w, s->h);
    if (!old)
        return;
    screen_copy(old, s);
    for (int y = y0; y <= y1; y++)
        for (int x = 0; x < mapw; x++) {
            int fx = x + dx, fy = y + dy;
            if (fx < 0 || fx >= mapw || fy < y0 || fy > y1) {
                rand_cell(r, s, x, y, false);
                continue;
            }
            const cell_t *c = screen_at(old, fx, fy);
            screen_put(s, x, y, c->ch, (style_t){c->fg, c->bg, (uint8_t)c->attr});
        }
    screen_free(old);
}

/* One random change of kind 0..7 (sparse, dense rows, style only, blank
 * tail, clear row, nothing, false dirty, the map sliding). */
static void mutate(rng_t *r, screen_t *s)
{
    int kind = rnd(r, 8), n;
    switch (kind) {
    case 0:
        n = 1 + rnd(r, 6);
        while (n--)
            rand_cell(r, s, rnd(r, s->w), rnd(r, s->h), false);
        break;
    case 1:
        n = 1 + rnd(r, 3);
        while (n--) {
            int y = rnd(r, s->h);
            for (int x = 0; x < s->w; x++)
                rand_cell(r, s, x, y, false);
        }
        break;
    case 2:
        n = 1 + rnd(r, 8);
        while (n--)
            rand_cell(r, s, rnd(r, s->w), rnd(r, s->h), true);
        break;
    case 3: blank_from(s, rnd(r, s->w), rnd(r, s->h)); break;
    case 4: blank_from(s, 0, rnd(r, s->h)); break;
    case 6: screen_touch_all(s); break;
    case 7: slide(r, s); break;
    }
    if (rnd(r, 2))
        screen_cursor(s, rnd(r, s->w), rnd(r, s->h), rnd(r, 4) != 0);
}

static void put_hex(const buf_t *b)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < b->len; i++) {
        unsigned char c = (unsigned char)b->data[i];
        putchar(hex[c >> 4]);
        putchar(hex[c & 15]);
    }
}

static uint32_t shown_glyph(const ansi_profile_t *p, uint32_t cp)
{
    if (cp >= 0x20 && cp < 0x7F)
        return cp;
    for (int i = 0; i < N_SPECIAL; i++) {
        if (SPECIAL[i].cp != cp)
            continue;
        if (p->utf8)
            return p->fallbacks ? SPECIAL[i].few : SPECIAL[i].utf8;
        return p->dec_graphics ? SPECIAL[i].dec : SPECIAL[i].ascii;
    }
    return '?';
}

static int shown_color(const ansi_profile_t *p, uint16_t c)
{
    if (c > 255 || p->colors == ANSI_COLORS_NONE)
        return -1;
    return p->colors == ANSI_COLORS_16 ? nearest16(c) : c;
}

static void print_expected(const ansi_profile_t *p, const screen_t *s)
{
    printf("\"cells\":[");
    for (int i = 0; i < s->w * s->h; i++) {
        const cell_t *c = &s->cells[i];
        printf("%s%u,%d,%d,%u", i ? "," : "", shown_glyph(p, c->ch), shown_color(p, c->fg),
               shown_color(p, c->bg), c->attr);
    }
    printf("],\"cur\":[%d,%d,%d]", s->cur_x, s->cur_y, s->cur_visible ? 1 : 0);
}

/* Runs of one cell over parts of rows (a map's floor and walls), some
 * over runs of another: what REP repeats. */
static void paint_runs(rng_t *r, screen_t *s)
{
    for (int n = rnd(r, 2 * s->h); n > 0; n--) {
        int y = rnd(r, s->h), x0 = rnd(r, s->w), x1 = x0 + rnd(r, s->w - x0 + 1);
        rand_cell(r, s, x0, y, false);
        const cell_t *c = screen_at(s, x0, y);
        for (int x = x0 + 1; x < x1; x++)
            screen_put(s, x, y, c->ch, (style_t){c->fg, c->bg, (uint8_t)c->attr});
    }
}

static void one_case(rng_t *r, const ansi_profile_t *p)
{
    int w = 1 + rnd(r, 30), h = 1 + rnd(r, 8);
    bool wide = rnd(r, 5) == 0; /* wide enough for a sideways move, which its last step makes */
    if (rnd(r, 20) == 0)
        w = 80, h = 24;
    else if (wide)
        w = 48 + rnd(r, 40), h = 4 + rnd(r, 12);
    int steps = 1 + rnd(r, 3);
    screen_t *g[4];
    buf_t all, last;
    buf_init(&all);
    buf_init(&last);
    g[0] = screen_new(w, h);
    fill_random(r, g[0]);
    if (p->rep)
        paint_runs(r, g[0]);
    ansi_keyframe(p, g[0], &all);
    for (int k = 1; k <= steps; k++) {
        g[k] = screen_new(w, h);
        screen_copy(g[k], g[k - 1]);
        screen_clean(g[k]);
        mutate(r, g[k]);
        if (p->rep && rnd(r, 2))
            paint_runs(r, g[k]);
        if (wide && k == steps)
            slide(r, g[k]);
        if (k == steps)
            ansi_keyframe(p, g[k - 1], &last);
        size_t before = all.len;
        ansi_diff(p, g[k - 1], g[k], &all);
        if (k == steps)
            buf_put(&last, all.data + before, all.len - before);
    }
    printf("{\"w\":%d,\"h\":%d,\"steps\":%d,\"bytes\":\"", w, h, steps);
    put_hex(&all);
    printf("\",\"last\":\"");
    put_hex(&last);
    printf("\",");
    print_expected(p, g[steps]);
    printf("}\n");
    for (int k = 0; k <= steps; k++)
        screen_free(g[k]);
    buf_free(&all);
    buf_free(&last);
}

static int profile_named(const char *name, ansi_profile_t *p)
{
    static const struct {
        const char *name;
        ansi_profile_t p;
    } names[] = {
        {"256", {ANSI_COLORS_256, true, false, false, false}},
        {"16", {ANSI_COLORS_16, true, false, false, true}},
        {"dec", {ANSI_COLORS_16, false, true, false, false}},
        {"ascii", {ANSI_COLORS_256, false, false, false, false}},
        {"256sync", {ANSI_COLORS_256, true, false, true, false}},
        {"mono", {ANSI_COLORS_NONE, true, false, false, false}},
        {"256rep", {ANSI_COLORS_256, true, false, false, false, true}},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name)) {
            *p = names[i].p;
            return 0;
        }
    return -1;
}

int main(int argc, char **argv)
{
    ansi_profile_t p;
    if (argc != 4 || profile_named(argv[3], &p) < 0) {
        fprintf(stderr, "usage: ansi_prop SEED COUNT 256|16|dec|ascii|256sync|mono|256rep\n");
        return 2;
    }
    rng_t r = {strtoull(argv[1], NULL, 10)};
    int n = atoi(argv[2]);
    for (int i = 0; i < n; i++)
        one_case(&r, &p);
    return 0;
}
