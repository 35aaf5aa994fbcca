/* Unit tests: protocol/glyph — the fallback table and the DEC chart. */
#include <check.h>
#include "glyph.h"
#include "screen.h"

START_TEST(map_glyphs_have_fallbacks)
{
    static const struct {
        uint32_t cp;
        char dec, ascii;
    } want[] = {
        {0x00B7, '~', '.'}, {0x2248, 0, '}'},   {0x224B, 0, '{'},   {0x2234, 0, ';'},
        {0x2663, 0, '&'},   {0x2660, 0, '&'},   {0x2591, 'a', '#'}, {0x2500, 'q', '-'},
        {0x2502, 'x', '|'}, {0x250C, 'l', '+'}, {0x2510, 'k', '+'}, {0x2514, 'm', '+'},
        {0x2518, 'j', '+'}, {0x253C, 'n', '+'}, {0x2550, 'q', '-'}, {0x2551, 'x', '|'},
        {0x25C6, '`', '*'},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const glyph_fallback_t *f = glyph_fallback(want[i].cp);
        ck_assert_msg(f, "U+%04X has no fallback", want[i].cp);
        ck_assert_int_eq(f->dec, want[i].dec);
        ck_assert_int_eq(f->ascii, want[i].ascii);
    }
}
END_TEST

START_TEST(no_fallback_outside_the_table)
{
    static const uint32_t none[] = {'a',    0x80,   0xE9,   0x3A9,   0x2247,
                                    0x2249, 0x2662, 0x4E2D, 0x1F600, 0x10FFFF};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        ck_assert_msg(!glyph_fallback(none[i]), "U+%04X", none[i]);
}
END_TEST

/* Every entry: printable ASCII fallback, a DEC character from the chart,
 * and a DEC character that shows the same kind of line as the glyph. */
START_TEST(every_entry_is_sound)
{
    for (uint32_t cp = 0x80; cp < 0x10000; cp++) {
        const glyph_fallback_t *f = glyph_fallback(cp);
        if (!f)
            continue;
        ck_assert(f->lo <= cp && cp <= f->hi);
        ck_assert_msg(f->ascii > 0x20 && f->ascii < 0x7F, "U+%04X", cp);
        if (f->dec)
            ck_assert_msg(glyph_dec_unicode(f->dec) != 0, "U+%04X", cp);
        /* a DEC chart glyph falls back to itself */
        if (f->dec && glyph_dec_unicode(f->dec) == cp)
            continue;
        if (f->dec)
            ck_assert(glyph_fallback(glyph_dec_unicode(f->dec)) != NULL);
    }
}
END_TEST

START_TEST(dec_chart)
{
    ck_assert_uint_eq(glyph_dec_unicode('q'), 0x2500);
    ck_assert_uint_eq(glyph_dec_unicode('x'), 0x2502);
    ck_assert_uint_eq(glyph_dec_unicode('l'), 0x250C);
    ck_assert_uint_eq(glyph_dec_unicode('j'), 0x2518);
    ck_assert_uint_eq(glyph_dec_unicode('a'), 0x2592);
    ck_assert_uint_eq(glyph_dec_unicode('`'), 0x25C6);
    ck_assert_uint_eq(glyph_dec_unicode('~'), 0x00B7);
    ck_assert_uint_eq(glyph_dec_unicode('^'), 0);
    ck_assert_uint_eq(glyph_dec_unicode('A'), 0);
    ck_assert_uint_eq(glyph_dec_unicode(0), 0);
    for (char c = 'j'; c <= 'x'; c++) {
        if (c == 'o' || c == 'p' || c == 'r' || c == 's')
            continue; /* scan lines */
        const glyph_fallback_t *f = glyph_fallback(glyph_dec_unicode(c));
        ck_assert_msg(f && f->dec == c, "DEC %c", c);
    }
}
END_TEST

START_TEST(joined_walls)
{
    ck_assert_uint_eq(glyph_join(0, '#'), '#');
    ck_assert_uint_eq(glyph_join(1, '#'), 0x2502);  /* N */
    ck_assert_uint_eq(glyph_join(5, '#'), 0x2502);  /* N S */
    ck_assert_uint_eq(glyph_join(2, '#'), 0x2500);  /* E */
    ck_assert_uint_eq(glyph_join(10, '#'), 0x2500); /* E W */
    ck_assert_uint_eq(glyph_join(6, '#'), 0x250C);  /* E S */
    ck_assert_uint_eq(glyph_join(12, '#'), 0x2510); /* S W */
    ck_assert_uint_eq(glyph_join(3, '#'), 0x2514);  /* N E */
    ck_assert_uint_eq(glyph_join(9, '#'), 0x2518);  /* N W */
    ck_assert_uint_eq(glyph_join(7, '#'), 0x251C);
    ck_assert_uint_eq(glyph_join(13, '#'), 0x2524);
    ck_assert_uint_eq(glyph_join(14, '#'), 0x252C);
    ck_assert_uint_eq(glyph_join(11, '#'), 0x2534);
    ck_assert_uint_eq(glyph_join(15, '#'), 0x253C);
    ck_assert_uint_eq(glyph_join(GLYPH_E | GLYPH_NE | GLYPH_NW, '#'), 0x2500); /* sides decide */
    /* corners only: a diagonal line along one diagonal, else lone */
    ck_assert_uint_eq(glyph_join(GLYPH_NE, '#'), 0x2571);
    ck_assert_uint_eq(glyph_join(GLYPH_NE | GLYPH_SW, '#'), 0x2571);
    ck_assert_uint_eq(glyph_join(GLYPH_NW, '#'), 0x2572);
    ck_assert_uint_eq(glyph_join(GLYPH_SE | GLYPH_NW, '#'), 0x2572);
    ck_assert_uint_eq(glyph_join(GLYPH_NE | GLYPH_SE, '#'), '#');
    ck_assert_uint_eq(glyph_join(GLYPH_NE | GLYPH_SE | GLYPH_SW | GLYPH_NW, '#'), '#');
    ck_assert_int_eq(glyph_fallback(0x2571)->ascii, '/');
    ck_assert_int_eq(glyph_fallback(0x2572)->ascii, '\\');
    /* every joined glyph has a fallback that joins the same way in ASCII */
    for (unsigned m = 1; m < 16; m++) {
        const glyph_fallback_t *f = glyph_fallback(glyph_join(m, '#'));
        ck_assert(f && f->dec);
        char want = (m == 5 || m == 1 || m == 4) ? '|' : (m == 2 || m == 8 || m == 10) ? '-' : '+';
        ck_assert_int_eq(f->ascii, want);
    }
}
END_TEST

Suite *suite_protocol_glyph(void)
{
    Suite *s = suite_create("protocol_glyph");
    TCase *t = tcase_create("core");
    tcase_add_test(t, map_glyphs_have_fallbacks);
    tcase_add_test(t, no_fallback_outside_the_table);
    tcase_add_test(t, every_entry_is_sound);
    tcase_add_test(t, dec_chart);
    tcase_add_test(t, joined_walls);
    suite_add_tcase(s, t);
    return s;
}
