/* Unit tests: server/screens/rcedit — the terminal rc file editor's keys,
 * bounds, text and screen. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rcedit.h"

static rcedit_t *ed(const char *text)
{
    char err[128];
    rcedit_t *e = rcedit_new("t", text, strlen(text), err, sizeof err);
    ck_assert_msg(e != NULL, "%s", err);
    return e;
}

static rcedit_result_t keys(rcedit_t *e, const char *s)
{
    rcedit_result_t r = RCEDIT_GOING;
    for (; *s; s++)
        r = rcedit_key(e, (key_event_t){(uint8_t)*s, 0});
    return r;
}

static void text_is(const rcedit_t *e, const char *want)
{
    buf_t b;
    buf_init(&b);
    rcedit_text(e, &b);
    buf_putc(&b, 0);
    ck_assert_str_eq(b.data, want);
    buf_free(&b);
}

START_TEST(change_insert_delete_and_save)
{
    rcedit_t *e = ed("one\r\ntwo\nthree"); /* CRLF and a last line without newline */
    text_is(e, "one\ntwo\nthree\n");
    ck_assert(!rcedit_changed(e));
    ck_assert_int_eq(rcedit_key(e, (key_event_t){KEY_DOWN, 0}), RCEDIT_GOING);
    keys(e, "c\x15TWO\r"); /* Ctrl-U clears, Enter keeps */
    text_is(e, "one\nTWO\nthree\n");
    keys(e, "inew\r"); /* below the chosen line */
    text_is(e, "one\nTWO\nnew\nthree\n");
    keys(e, "idropped\x1b"); /* Esc: the inserted line goes */
    text_is(e, "one\nTWO\nnew\nthree\n");
    keys(e, "cxx\x1b"); /* Esc: the change is dropped */
    text_is(e, "one\nTWO\nnew\nthree\n");
    keys(e, "kkkkd"); /* Up past the top stays on line 1 */
    text_is(e, "TWO\nnew\nthree\n");
    rcedit_key(e, (key_event_t){KEY_END, 0});
    keys(e, "dd");
    text_is(e, "TWO\n");
    keys(e, "ddd"); /* deleting an empty file does nothing */
    text_is(e, "");
    keys(e, "ifirst\r");
    text_is(e, "first\n");
    ck_assert(rcedit_changed(e));
    ck_assert_int_eq(keys(e, "s"), RCEDIT_SAVE);
    ck_assert_int_eq(rcedit_key(e, (key_event_t){KEY_ESC, 0}), RCEDIT_QUIT);
    ck_assert_int_eq(keys(e, "q"), RCEDIT_QUIT);
    rcedit_free(e);
}
END_TEST

START_TEST(bounds_are_kept)
{
    char err[128];
    char *big = malloc(RCEDIT_TEXT_MAX + 2);
    memset(big, 'a', RCEDIT_TEXT_MAX + 1);
    big[RCEDIT_TEXT_MAX + 1] = 0;
    ck_assert(rcedit_new("t", big, RCEDIT_TEXT_MAX + 1, err, sizeof err) == NULL);
    ck_assert_str_eq(err, "the file is larger than 8192 bytes");
    ck_assert(rcedit_new("t", "OPTIONS=a\0b\nX\n", 14, err, sizeof err) == NULL);
    ck_assert_str_eq(err, "the file holds a NUL byte, which no rc file has");
    ck_assert(rcedit_new("t", big, RCEDIT_LINE_MAX + 1, err, sizeof err) ==
              NULL); /* one long line */
    /* 40 lines of 199 bytes and their newlines: 8000 bytes */
    for (int i = 0; i < 40; i++) {
        memset(big + i * 200, 'b', 199);
        big[i * 200 + 199] = '\n';
    }
    rcedit_t *e = rcedit_new("t", big, 8000, err, sizeof err);
    ck_assert_msg(e != NULL, "%s", err);
    for (int i = 0; i < 192; i++) /* i, then a line of 191 bytes: 8192 in all */
        rcedit_key(e, (key_event_t){i == 0 ? 'i' : 'x', 0});
    rcedit_key(e, (key_event_t){KEY_ENTER, 0});
    buf_t b;
    buf_init(&b);
    rcedit_text(e, &b);
    ck_assert_uint_eq(b.len, 8192);
    keys(e, "i"); /* no room for even an empty line */
    buf_reset(&b);
    rcedit_text(e, &b);
    ck_assert_uint_eq(b.len, 8192);
    keys(e, "cy\r"); /* changing the line to a longer one is refused */
    buf_reset(&b);
    rcedit_text(e, &b);
    ck_assert_uint_eq(b.len, 8192);
    buf_free(&b);
    screen_t *scr = screen_new(80, 24);
    rcedit_draw(e, scr); /* still typing: the notice says why */
    char row[81] = {0};
    for (int x = 0; x < 80; x++)
        row[x] = (char)screen_at(scr, x, 22)->ch;
    ck_assert_msg(strstr(row, "larger than 8192 bytes") != NULL, "%s", row);
    screen_free(scr);
    rcedit_free(e);
    free(big);
}
END_TEST

START_TEST(the_screen_follows_the_chosen_line)
{
    char text[2000] = "";
    for (int i = 1; i <= 50; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "line %d\t!\n", i);
    rcedit_t *e = ed(text);
    screen_t *scr = screen_new(80, 24);
    for (int i = 0; i < 30; i++)
        rcedit_key(e, (key_event_t){KEY_DOWN, 0});
    rcedit_draw(e, scr);
    /* 20 rows of lines from row 2: line 31 is the last shown, reversed */
    ck_assert_int_eq(screen_at(scr, 5, 21)->ch, 'l');
    ck_assert_int_eq(screen_at(scr, 10, 21)->ch, '3');
    ck_assert_int_eq(screen_at(scr, 11, 21)->ch, '1');
    ck_assert_int_eq(screen_at(scr, 12, 21)->ch, '?'); /* a tab shows as '?' */
    ck_assert(screen_at(scr, 5, 21)->attr & ATTR_REVERSE);
    ck_assert(!(screen_at(scr, 5, 20)->attr & ATTR_REVERSE));
    screen_free(scr);
    rcedit_free(e);
}
END_TEST

Suite *suite_server_rcedit(void)
{
    Suite *s = suite_create("server.rcedit");
    TCase *t = tcase_create("core");
    tcase_add_test(t, change_insert_delete_and_save);
    tcase_add_test(t, bounds_are_kept);
    tcase_add_test(t, the_screen_follows_the_chosen_line);
    suite_add_tcase(s, t);
    return s;
}
