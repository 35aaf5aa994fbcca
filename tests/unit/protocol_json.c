/* Unit tests: protocol/json — exact frames for small grids, escaping, and
 * random grids whose frames are parsed back and applied by an independent
 * reader below. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

static const char *frame(const screen_t *a, const screen_t *b, uint64_t seq, buf_t *out)
{
    buf_reset(out);
    json_frame(a, b, seq, out);
    ck_assert(!out->failed);
    return out->data;
}

START_TEST(keyframe_exact)
{
    screen_t *s = screen_new(4, 2);
    buf_t out;
    buf_init(&out);
    screen_cursor(s, 2, 1, true);
    ck_assert_str_eq(
        frame(NULL, s, 7, &out),
        "{\"t\":\"f\",\"seq\":7,\"key\":true,\"w\":4,\"h\":2,\"cur\":[2,1,true],\"runs\":[]}");
    style_t red = {1, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    screen_text(s, 0, 0, STYLE_DEFAULT, "ab");
    screen_put(s, 3, 0, '@', red);
    screen_put(s, 1, 1, ' ', (style_t){SCREEN_DEFAULT_COLOR, 4, 0});
    screen_cursor(s, 0, 0, false);
    ck_assert_str_eq(frame(NULL, s, 8, &out),
                     "{\"t\":\"f\",\"seq\":8,\"key\":true,\"w\":4,\"h\":2,\"cur\":[0,0,false],"
                     "\"runs\":[[0,0,\"ab\",-1,-1,0],[0,3,\"@\",1,-1,1],[1,1,\" \",-1,4,0]]}");
    buf_free(&out);
    screen_free(s);
}
END_TEST

START_TEST(diff_exact_and_clean_rows)
{
    screen_t *a = screen_new(20, 3), *b = screen_new(20, 3);
    buf_t out;
    buf_init(&out);
    screen_text(a, 0, 1, STYLE_DEFAULT, "#....#");
    screen_cursor(a, 0, 0, false);
    screen_copy(b, a);
    screen_clean(b);
    ck_assert_str_eq(frame(a, b, 1, &out),
                     "{\"t\":\"f\",\"seq\":1,\"key\":false,\"w\":20,\"h\":3,\"cur\":[0,0,false],"
                     "\"runs\":[]}");
    /* a short same-style gap (6 cells) is folded into the run, a long one
     * (9 cells) is not */
    screen_put(b, 12, 1, '!', STYLE_DEFAULT);
    screen_put(b, 1, 1, '.', STYLE_DEFAULT);
    screen_put(b, 2, 1, '@', STYLE_DEFAULT);
    screen_put(b, 19, 1, '9', STYLE_DEFAULT);
    screen_text(b, 0, 2, STYLE_DEFAULT, "T:2");
    ck_assert_str_eq(
        frame(a, b, 2, &out),
        "{\"t\":\"f\",\"seq\":2,\"key\":false,\"w\":20,\"h\":3,\"cur\":[0,0,false],"
        "\"runs\":[[1,2,\"@\",-1,-1,0],[1,12,\"!      9\",-1,-1,0],[2,0,\"T:2\",-1,-1,0]]}");
    screen_put(b, 4, 1, 'x', STYLE_DEFAULT);
    screen_put(b, 7, 1, 'y', (style_t){2, SCREEN_DEFAULT_COLOR, 0});
    ck_assert_str_eq(
        frame(a, b, 3, &out),
        "{\"t\":\"f\",\"seq\":3,\"key\":false,\"w\":20,\"h\":3,\"cur\":[0,0,false],"
        "\"runs\":[[1,2,\"@.x\",-1,-1,0],[1,7,\"y\",2,-1,0],[1,12,\"!      9\",-1,-1,0],"
        "[2,0,\"T:2\",-1,-1,0]]}");
    /* rows clean in b are not examined (the same contract as ansi_diff) */
    screen_clean(b);
    ck_assert(strstr(frame(a, b, 4, &out), "\"runs\":[]}"));
    /* a different size is a keyframe */
    screen_t *c = screen_new(5, 3);
    ck_assert(strstr(frame(c, b, 5, &out), "\"key\":true"));
    screen_free(c);
    buf_free(&out);
    screen_free(a);
    screen_free(b);
}
END_TEST

START_TEST(escaping)
{
    buf_t out;
    buf_init(&out);
    json_put_string(&out, "a\"b\\c\n\x01\t\r\x7f", 10);
    ck_assert_str_eq(out.data, "\"a\\\"b\\\\c\\n\\u0001\\t\\r\\u007f\"");
    buf_reset(&out);
    json_put_string(&out, "\xff\xc3(\xe2\x80\xa8\xc3\xa9", 8);
    ck_assert_str_eq(out.data, "\"\xef\xbf\xbd\xef\xbf\xbd(\\u2028\xc3\xa9\"");
    buf_reset(&out);
    json_put_string(&out, "", 0);
    ck_assert_str_eq(out.data, "\"\"");
    /* cells: quotes, controls as '?', invalid code points as U+FFFD */
    screen_t *s = screen_new(7, 1);
    uint32_t cps[7] = {'"', '\\', 0x01, 0x9B, 0xD800, 0x110000, 0x2029};
    for (int x = 0; x < 7; x++)
        s->cells[x].ch = cps[x];
    buf_reset(&out);
    json_frame(NULL, s, 0, &out);
    ck_assert(strstr(out.data, "[0,0,\"\\\"\\\\??\xef\xbf\xbd\xef\xbf\xbd\\u2029\",-1,-1,0]"));
    buf_free(&out);
    screen_free(s);
}
END_TEST

/* ---- an independent reader: strict JSON + UTF-8 check, then applies runs -- */

typedef struct {
    const char *p, *end;
} rd_t;

static bool utf8_ok(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = p[i], len = c < 0x80                ? 1
                                 : c >= 0xC2 && c < 0xE0 ? 2
                                 : c >= 0xE0 && c < 0xF0 ? 3
                                 : c >= 0xF0 && c < 0xF5 ? 4
                                                         : 0;
        if (!len || i + len > n)
            return false;
        uint32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
        for (unsigned k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

static bool rd_lit(rd_t *r, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, s, n))
        return false;
    r->p += n;
    return true;
}

static bool rd_int(rd_t *r, long *v)
{
    char *e;
    if (r->p >= r->end || (*r->p != '-' && (*r->p < '0' || *r->p > '9')))
        return false;
    *v = strtol(r->p, &e, 10);
    r->p = e;
    return true;
}

/* A JSON string into code points (one per cell); false when malformed. */
static int rd_string(rd_t *r, uint32_t *cps, int max)
{
    int n = 0;
    if (!rd_lit(r, "\""))
        return -1;
    while (r->p < r->end && *r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        uint32_t cp;
        if (c < 0x20 || n == max)
            return -1;
        if (c == '\\') {
            char e = r->p[1];
            r->p += 2;
            if (e == 'u') {
                char h[5] = {0};
                memcpy(h, r->p, 4);
                cp = (uint32_t)strtoul(h, NULL, 16);
                r->p += 4;
            } else {
                const char *m = strchr("\"\\/bfnrt", e);
                if (!e || !m)
                    return -1;
                cp = (uint32_t) "\"\\/\b\f\n\r\t"[m - "\"\\/bfnrt"];
            }
        } else {
            unsigned len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            cp = len == 1 ? c : c & (0xFF >> (len + 1));
            for (unsigned k = 1; k < len; k++)
                cp = cp << 6 | ((unsigned char)r->p[k] & 0x3F);
            r->p += len;
        }
        cps[n++] = cp;
    }
    return rd_lit(r, "\"") ? n : -1;
}

/* Applies a frame to g (reset to blanks first when it is a keyframe). */
static bool rd_apply(const char *json, size_t len, screen_t *g, bool *key)
{
    rd_t r = {json, json + len};
    long seq, w, h, cx, cy, y, x, fg, bg, attr;
    uint32_t cps[SCREEN_MAX_W];
    if (!utf8_ok((const unsigned char *)json, len))
        return false;
    if (!rd_lit(&r, "{\"t\":\"f\",\"seq\":") || !rd_int(&r, &seq) || !rd_lit(&r, ",\"key\":"))
        return false;
    *key = rd_lit(&r, "true");
    if (!*key && !rd_lit(&r, "false"))
        return false;
    if (!rd_lit(&r, ",\"w\":") || !rd_int(&r, &w) || !rd_lit(&r, ",\"h\":") || !rd_int(&r, &h) ||
        !rd_lit(&r, ",\"cur\":[") || !rd_int(&r, &cx) || !rd_lit(&r, ",") || !rd_int(&r, &cy))
        return false;
    g->cur_visible = rd_lit(&r, ",true]");
    if (!g->cur_visible && !rd_lit(&r, ",false]"))
        return false;
    g->cur_x = (int)cx;
    g->cur_y = (int)cy;
    if (w != g->w || h != g->h || !rd_lit(&r, ",\"runs\":["))
        return false;
    if (*key)
        screen_clear(g);
    for (bool first = true; !rd_lit(&r, "]}"); first = false) {
        if (!first && !rd_lit(&r, ","))
            return false;
        int n;
        if (!rd_lit(&r, "[") || !rd_int(&r, &y) || !rd_lit(&r, ",") || !rd_int(&r, &x) ||
            !rd_lit(&r, ",") || (n = rd_string(&r, cps, SCREEN_MAX_W)) < 1 || !rd_lit(&r, ",") ||
            !rd_int(&r, &fg) || !rd_lit(&r, ",") || !rd_int(&r, &bg) || !rd_lit(&r, ",") ||
            !rd_int(&r, &attr) || !rd_lit(&r, "]"))
            return false;
        if (y < 0 || y >= h || x < 0 || x + n > w || fg < -1 || fg > 255 || bg < -1 || bg > 255 ||
            attr < 0 || attr > ATTR_ALL)
            return false;
        style_t st = {fg < 0 ? SCREEN_DEFAULT_COLOR : (uint16_t)fg,
                      bg < 0 ? SCREEN_DEFAULT_COLOR : (uint16_t)bg, (uint8_t)attr};
        for (int i = 0; i < n; i++)
            screen_put(g, (int)x + i, (int)y, cps[i], st);
    }
    return r.p == r.end;
}

/* What the receiver should hold for a cell of the source grid. */
static cell_t shown(cell_t c)
{
    if (c.ch < 0x20 || (c.ch >= 0x7F && c.ch < 0xA0))
        c.ch = '?';
    if (c.ch > 0x10FFFF || (c.ch >= 0xD800 && c.ch <= 0xDFFF))
        c.ch = 0xFFFD;
    if (c.fg > 255)
        c.fg = SCREEN_DEFAULT_COLOR;
    if (c.bg > 255)
        c.bg = SCREEN_DEFAULT_COLOR;
    c.attr &= ATTR_ALL;
    return c;
}

static uint32_t rnd_cp(void)
{
    static const uint32_t pick[] = {
        ' ',  ' ',  ' ',    '.',    '#',    '@',    '"',     '\\',     0x01,     0x1B,      0x7F,
        0x9B, 0xE9, 0x2028, 0x2500, 0xD800, 0xFFFD, 0x1F600, 0x10FFFF, 0x110000, 0xFFFFFFFF};
    return rand() % 3 ? pick[rand() % (sizeof pick / sizeof pick[0])] : (uint32_t)rand() % 0x3000;
}

static void rnd_cell(cell_t *c)
{
    static const uint16_t col[] = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, 0, 1, 7, 255, 300};
    c->ch = rnd_cp();
    c->fg = col[rand() % 7];
    c->bg = rand() % 2 ? SCREEN_DEFAULT_COLOR : col[rand() % 7];
    c->attr = (uint8_t)(rand() % 4 ? 0 : rand() & 0xFF);
}

static bool same_shown(const screen_t *want, const screen_t *got)
{
    for (int i = 0; i < want->w * want->h; i++) {
        cell_t a = shown(want->cells[i]), b = got->cells[i];
        if (!cell_eq(&a, &b))
            return false;
    }
    return true;
}

START_TEST(random_grids_round_trip)
{
    buf_t out;
    buf_init(&out);
    srand(4242);
    for (int round = 0; round < 300; round++) {
        int w = 1 + rand() % 40, h = 1 + rand() % 12;
        screen_t *a = screen_new(w, h), *b = screen_new(w, h), *g = screen_new(w, h);
        for (int i = 0; i < w * h; i++)
            if (rand() % 3 == 0)
                rnd_cell(&a->cells[i]);
        screen_cursor(a, rand() % w, rand() % h, rand() % 2);
        screen_copy(b, a);
        screen_clean(b);
        int changes = rand() % (w * h + 1);
        for (int i = 0; i < changes; i++) {
            int x = rand() % w, y = rand() % h;
            rnd_cell(&b->cells[y * w + x]);
            b->dirty[y] = 1;
        }
        screen_cursor(b, rand() % w, rand() % h, rand() % 2);
        bool key;
        /* keyframe of a onto a grid holding garbage, then the diff a -> b */
        for (int i = 0; i < w * h; i++)
            g->cells[i].ch = 'Z';
        buf_reset(&out);
        json_frame(NULL, a, 1, &out);
        if (!rd_apply(out.data, out.len, g, &key) || !key || !same_shown(a, g))
            ck_abort_msg("round %d: bad keyframe %s", round, out.data);
        buf_reset(&out);
        json_frame(a, b, 2, &out);
        if (!rd_apply(out.data, out.len, g, &key) || key || !same_shown(b, g))
            ck_abort_msg("round %d: bad diff %s", round, out.data);
        if (g->cur_x != b->cur_x || g->cur_y != b->cur_y || g->cur_visible != b->cur_visible)
            ck_abort_msg("round %d: cursor", round);
        screen_free(a);
        screen_free(b);
        screen_free(g);
    }
    /* random byte strings through json_put_string stay valid UTF-8 */
    for (int round = 0; round < 2000; round++) {
        char s[64];
        size_t n = (size_t)(rand() % 64);
        for (size_t i = 0; i < n; i++)
            s[i] = (char)rand();
        buf_reset(&out);
        json_put_string(&out, s, n);
        uint32_t cps[256];
        rd_t r = {out.data, out.data + out.len};
        if (!utf8_ok((const unsigned char *)out.data, out.len) || rd_string(&r, cps, 256) < 0 ||
            r.p != r.end)
            ck_abort_msg("bad string literal %s", out.data);
    }
    buf_free(&out);
}
END_TEST

Suite *suite_protocol_json(void)
{
    Suite *s = suite_create("protocol_json");
    TCase *tc = tcase_create("json");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, keyframe_exact);
    tcase_add_test(tc, diff_exact_and_clean_rows);
    tcase_add_test(tc, escaping);
    tcase_add_test(tc, random_grids_round_trip);
    suite_add_tcase(s, tc);
    return s;
}
