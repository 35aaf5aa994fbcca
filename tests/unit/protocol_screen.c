/* Unit tests: protocol/screen. */
#include <check.h>
#include <string.h>
#include "screen.h"

START_TEST(new_is_blank_and_dirty)
{
    screen_t *s = screen_new(10, 3);
    ck_assert_ptr_nonnull(s);
    for (int y = 0; y < 3; y++) {
        ck_assert(s->dirty[y]);
        for (int x = 0; x < 10; x++)
            ck_assert_uint_eq(screen_at(s, x, y)->ch, ' ');
    }
    ck_assert_ptr_null(screen_at(s, 10, 0));
    ck_assert_ptr_null(screen_at(s, -1, 0));
    ck_assert_ptr_null(screen_new(0, 5));
    ck_assert_ptr_null(screen_new(5, SCREEN_MAX_H + 1));
    screen_free(s);
}
END_TEST

START_TEST(writes_mark_only_changed_rows)
{
    screen_t *s = screen_new(10, 3);
    screen_clean(s);
    screen_put(s, 1, 1, ' ', STYLE_DEFAULT); /* same as blank: stays clean */
    ck_assert(!s->dirty[1]);
    screen_put(s, 1, 1, '@', STYLE_DEFAULT);
    ck_assert(s->dirty[1]);
    ck_assert(!s->dirty[0] && !s->dirty[2]);
    screen_put(s, 99, 1, 'x', STYLE_DEFAULT); /* clipped, no crash */
    screen_free(s);
}
END_TEST

START_TEST(text_utf8_and_clipping)
{
    screen_t *s = screen_new(5, 1);
    int end = screen_text(s, 0, 0, STYLE_DEFAULT, "a\xc3\xa9\xe2\x94\x80z\x01yy");
    ck_assert_int_eq(end, 5);
    ck_assert_uint_eq(screen_at(s, 0, 0)->ch, 'a');
    ck_assert_uint_eq(screen_at(s, 1, 0)->ch, 0xE9);
    ck_assert_uint_eq(screen_at(s, 2, 0)->ch, 0x2500);
    ck_assert_uint_eq(screen_at(s, 3, 0)->ch, 'z');
    ck_assert_uint_eq(screen_at(s, 4, 0)->ch, 'y'); /* control byte skipped */
    screen_text(s, 0, 0, STYLE_DEFAULT, "\xff\xc3");
    ck_assert_uint_eq(screen_at(s, 0, 0)->ch, 0xFFFD);
    ck_assert_uint_eq(screen_at(s, 1, 0)->ch, 0xFFFD);
    screen_free(s);
}
END_TEST

/* The text a cell at a time through screen_put, as screen_text draws it:
 * the column after the text, printable code points only. */
static int text_by_puts(screen_t *s, int x, int y, style_t st, const char *utf8)
{
    const uint8_t *p = (const uint8_t *)utf8;
    size_t len = strlen(utf8), i = 0;
    while (i < len && x < s->w) {
        size_t used = 1;
        uint32_t cp = utf8_decode(p + i, len - i, &used);
        i += used;
        if (cp >= 0x20 && !(cp >= 0x7F && cp < 0xA0))
            screen_put(s, x++, y, cp, st);
    }
    return x;
}

static bool same_grid(const screen_t *a, const screen_t *b)
{
    for (int y = 0; y < a->h; y++)
        if (a->dirty[y] != b->dirty[y])
            return false;
    return a->stamp == b->stamp &&
           memcmp(a->cells, b->cells, sizeof(cell_t) * (size_t)a->w * (size_t)a->h) == 0;
}

/* screen_text writes what screen_put would, cell for cell: the same cells,
 * dirty rows, stamp and rows kept, the same column returned, on rows and
 * columns off the grid too (the column still counts on), with text of
 * ASCII, control bytes, UTF-8 and broken UTF-8, over cells partly equal. */
START_TEST(text_writes_what_puts_write)
{
    static const char *const BITS[] = {"a",    "Turn",     " ",        "\x01",
                                       "\x7f", "\xc2\x85", "\xc3\xa9", "\xe2\x94\x80",
                                       "\xff", "\xc3",     "9",        "~"};
    uint32_t seed = 12345;
    for (int round = 0; round < 3000; round++) {
        screen_t *a = screen_new(13, 4), *b = screen_new(13, 4);
        screen_t *ka = screen_new(13, 4), *kb = screen_new(13, 4);
        for (int pre = 0; pre < 2; pre++) { /* the same start, partly what is written */
            screen_text(a, pre * 3, pre, STYLE_DEFAULT, "aTurn 9");
            screen_text(b, pre * 3, pre, STYLE_DEFAULT, "aTurn 9");
        }
        a->stamp = b->stamp = 7;
        screen_clean(a), screen_clean(b);
        bool keep = round % 2;
        if (keep)
            screen_keep_begin(a, ka), screen_keep_begin(b, kb);
        char text[64] = "";
        seed = seed * 1103515245u + 12345u;
        int n = (int)(seed >> 16) % 9;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            strcat(text, BITS[(seed >> 16) % (sizeof BITS / sizeof *BITS)]);
        }
        seed = seed * 1103515245u + 12345u;
        int x = (int)(seed >> 16) % 19 - 4, y = (int)(seed >> 24) % 6 - 1;
        style_t st = {(uint16_t)(round % 3), SCREEN_DEFAULT_COLOR,
                      (uint16_t)(round % 4 ? 0 : ATTR_BOLD)};
        int ea = screen_text(a, x, y, st, text), eb = text_by_puts(b, x, y, st, text);
        ck_assert_msg(ea == eb, "round %d: column %d, puts %d", round, ea, eb);
        ck_assert_msg(same_grid(a, b), "round %d: \"%s\" at %d,%d", round, text, x, y);
        if (keep) {
            screen_keep_end(a, ka), screen_keep_end(b, kb);
            ck_assert_msg(same_grid(ka, kb), "round %d: rows kept", round);
        }
        screen_free(a), screen_free(b), screen_free(ka), screen_free(kb);
    }
}
END_TEST

START_TEST(resize_keeps_content)
{
    screen_t *s = screen_new(4, 4);
    style_t st = {1, 2, ATTR_BOLD};
    screen_put(s, 2, 2, 'x', st);
    screen_cursor(s, 3, 3, true);
    ck_assert_int_eq(screen_resize(s, 3, 3), 0);
    ck_assert_uint_eq(screen_at(s, 2, 2)->ch, 'x');
    ck_assert_uint_eq(screen_at(s, 2, 2)->fg, 1);
    ck_assert_int_eq(s->cur_x, 2);
    ck_assert_int_eq(screen_resize(s, 8, 6), 0);
    ck_assert_uint_eq(screen_at(s, 2, 2)->attr, ATTR_BOLD);
    ck_assert_uint_eq(screen_at(s, 7, 5)->ch, ' ');
    ck_assert_int_eq(screen_resize(s, 0, 6), -1);
    ck_assert_int_eq(s->w, 8);
    screen_free(s);
}
END_TEST

START_TEST(copy_marks_differences)
{
    screen_t *a = screen_new(6, 3), *b = screen_new(6, 3);
    screen_clean(a);
    screen_put(b, 0, 2, '#', STYLE_DEFAULT);
    ck_assert_int_eq(screen_copy(a, b), 0);
    ck_assert(!a->dirty[0] && !a->dirty[1] && a->dirty[2]);
    ck_assert_uint_eq(screen_at(a, 0, 2)->ch, '#');
    screen_box(b, 0, 0, 6, 3, STYLE_DEFAULT);
    ck_assert_uint_eq(screen_at(b, 0, 0)->ch, 0x250C);
    ck_assert_uint_eq(screen_at(b, 5, 2)->ch, 0x2518);
    screen_fill(b, 1, 1, 4, 1, '.', STYLE_DEFAULT);
    ck_assert_uint_eq(screen_at(b, 4, 1)->ch, '.');
    screen_free(a);
    screen_free(b);
}
END_TEST

START_TEST(clear_dirties_only_rows_with_content)
{
    for (int w = 1; w <= 83; w += 41) {
        screen_t *s = screen_new(w, 5);
        ck_assert_ptr_nonnull(s);
        screen_put(s, w - 1, 1, 'x', STYLE_DEFAULT);                     /* last cell */
        screen_put(s, 0, 3, ' ', (style_t){1, SCREEN_DEFAULT_COLOR, 0}); /* a coloured blank */
        screen_clean(s);
        screen_clear(s);
        for (int y = 0; y < 5; y++) {
            ck_assert_int_eq(s->dirty[y], y == 1 || y == 3);
            for (int x = 0; x < w; x++) {
                cell_t b = screen_blank();
                ck_assert(cell_eq(screen_at(s, x, y), &b));
            }
        }
        screen_clean(s);
        screen_clear(s); /* already blank: nothing changes */
        for (int y = 0; y < 5; y++)
            ck_assert_int_eq(s->dirty[y], 0);
        screen_free(s);
    }
}
END_TEST

/* A stamp says the cells are as they were when it was given: any change
 * of a cell drops it, a copy passes it on, what changes no cell keeps it. */
START_TEST(stamp_dropped_by_every_change)
{
    screen_t *a = screen_new(8, 4), *b = screen_new(8, 4);
    ck_assert_uint_eq(a->stamp, 0);
    a->stamp = 7;
    screen_put(a, 1, 1, ' ', STYLE_DEFAULT); /* blank over blank: no change */
    screen_clear(a);
    screen_clean(a);
    screen_touch_all(a);
    screen_cursor(a, 2, 2, true);
    ck_assert_uint_eq(a->stamp, 7);
    ck_assert_int_eq(screen_copy(b, a), 0);
    ck_assert_uint_eq(b->stamp, 7);
    screen_put(a, 1, 1, 'x', STYLE_DEFAULT);
    ck_assert_uint_eq(a->stamp, 0);
    a->stamp = 7;
    screen_text(a, 0, 2, STYLE_DEFAULT, "hi");
    ck_assert_uint_eq(a->stamp, 0);
    a->stamp = 7;
    screen_fill(a, 0, 3, 2, 1, '.', STYLE_DEFAULT);
    ck_assert_uint_eq(a->stamp, 0);
    a->stamp = 7;
    screen_box(a, 0, 0, 8, 4, STYLE_DEFAULT);
    ck_assert_uint_eq(a->stamp, 0);
    a->stamp = 7;
    screen_clear(a);
    ck_assert_uint_eq(a->stamp, 0);
    a->stamp = 7;
    screen_put(b, 0, 0, 'y', STYLE_DEFAULT);
    screen_blit(a, b);
    ck_assert_uint_eq(a->stamp, 0);
    a->stamp = 7;
    ck_assert_int_eq(screen_resize(a, 9, 4), 0);
    ck_assert_uint_eq(a->stamp, 0);
    screen_free(a);
    screen_free(b);
}
END_TEST

/* Rows of a 6x4 grid, text, for comparing: each row its characters. */
static void rows_of(const screen_t *s, char *out)
{
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            *out++ = (char)screen_at(s, x, y)->ch;
    *out = 0;
}

/* A grid drawn over in place keeps each row as it was before its first
 * change, whichever function changes it (a put, text, a fill, a box, a
 * clear, a copy, a blit, a resize), once, and nothing of rows no change
 * reached; the end adds rows dirty with no change, whole adds the rest. */
START_TEST(keeping_gets_each_row_before_its_first_change)
{
    screen_t *s = screen_new(6, 4), *b = screen_new(1, 1), *src = screen_new(6, 4);
    screen_text(s, 0, 0, STYLE_DEFAULT, "aaaaaa");
    screen_text(s, 0, 1, STYLE_DEFAULT, "bbbbbb");
    screen_text(s, 0, 2, STYLE_DEFAULT, "cccccc");
    screen_text(s, 0, 3, STYLE_DEFAULT, "dddddd");
    screen_cursor(s, 2, 1, true);
    screen_clean(s);
    char was[32], got[32];
    rows_of(s, was);
    /* each writer on a row of its own; a second change of a row keeps nothing more */
    for (int how = 0; how < 6; how++) {
        screen_fill(b, 0, 0, b->w, b->h, '#', STYLE_DEFAULT);
        ck_assert_int_eq(screen_keep_begin(s, b), 0);
        ck_assert_int_eq(b->w, 6);
        ck_assert_int_eq(b->cur_x, 2);
        screen_put(s, 0, 0, 'a', STYLE_DEFAULT); /* no change: nothing kept */
        int y = how % 4;
        switch (how) {
        case 0: screen_put(s, 3, y, 'x', STYLE_DEFAULT); break;
        case 1: screen_text(s, 1, y, STYLE_DEFAULT, "xy"); break;
        case 2: screen_fill(s, 0, y, 2, 1, '.', STYLE_DEFAULT); break;
        case 3: screen_box(s, 0, y, 2, 1, STYLE_DEFAULT); break;
        case 4:
            screen_copy(src, s);
            screen_put(src, 5, y, 'z', STYLE_DEFAULT);
            screen_copy(s, src);
            break;
        case 5: screen_clear(s); break;
        }
        screen_put(s, 4, y, 'q', STYLE_DEFAULT); /* a second change of the row */
        screen_cursor(s, 0, 0, false);
        screen_keep_end(s, b);
        char now[32];
        rows_of(s, now);
        for (int r = 0; r < 4; r++) /* kept: the rows changed, row y among them */
            ck_assert_int_eq(b->dirty[r] != 0, memcmp(now + r * 6, was + r * 6, 6) != 0);
        ck_assert(b->dirty[y]);
        rows_of(b, got);
        for (int r = 0; r < 4; r++)
            if (b->dirty[r])
                ck_assert_mem_eq(got + r * 6, was + r * 6, 6);
        screen_keep_whole(b, s);
        rows_of(b, got);
        ck_assert_str_eq(got, was);
        ck_assert_int_eq(b->cur_x, 2);
        ck_assert_int_eq(b->cur_y, 1);
        ck_assert(b->cur_visible);
        ck_assert_ptr_null(s->before);
        /* back as it was, clean, for the next */
        for (int r = 0; r < 4; r++)
            screen_text(s, 0, r, STYLE_DEFAULT,
                        (const char *[]){"aaaaaa", "bbbbbb", "cccccc", "dddddd"}[r]);
        screen_cursor(s, 2, 1, true);
        screen_clean(s);
    }
    /* a row dirty with no change of a cell is kept at the end, as it is */
    screen_fill(b, 0, 0, b->w, b->h, '#', STYLE_DEFAULT); /* what another grid left */
    ck_assert_int_eq(screen_keep_begin(s, b), 0);
    screen_touch_all(s);
    screen_keep_end(s, b);
    for (int r = 0; r < 4; r++)
        ck_assert(b->dirty[r]);
    rows_of(b, got);
    ck_assert_str_eq(got, was);
    screen_clean(s);
    /* a resize keeps every row first, at the old size, and ends the keeping */
    screen_fill(b, 0, 0, b->w, b->h, '#', STYLE_DEFAULT);
    ck_assert_int_eq(screen_keep_begin(s, b), 0);
    screen_put(s, 0, 1, 'x', STYLE_DEFAULT);
    ck_assert_int_eq(screen_resize(s, 8, 3), 0);
    ck_assert_ptr_null(s->before);
    screen_put(s, 0, 2, 'y', STYLE_DEFAULT);
    screen_keep_end(s, b);
    screen_keep_whole(b, s);
    ck_assert_int_eq(b->w, 6);
    ck_assert_int_eq(b->h, 4);
    rows_of(b, got);
    ck_assert_str_eq(got, was);
    screen_free(s), screen_free(b), screen_free(src);
}
END_TEST

Suite *suite_protocol_screen(void)
{
    Suite *s = suite_create("protocol.screen");
    TCase *t = tcase_create("core");
    tcase_add_test(t, new_is_blank_and_dirty);
    tcase_add_test(t, writes_mark_only_changed_rows);
    tcase_add_test(t, text_utf8_and_clipping);
    tcase_add_test(t, text_writes_what_puts_write);
    tcase_add_test(t, resize_keeps_content);
    tcase_add_test(t, copy_marks_differences);
    tcase_add_test(t, clear_dirties_only_rows_with_content);
    tcase_add_test(t, stamp_dropped_by_every_change);
    tcase_add_test(t, keeping_gets_each_row_before_its_first_change);
    suite_add_tcase(s, t);
    return s;
}
