/* Unit tests: server/telnet/input — telnet option values — and
 * server/screens/lineedit, the prompts' line editor, as telnet/telnet.c
 * and the menu use them. */
#include <check.h>
#include <string.h>
#include "input.h"
#include "lineedit.h"

START_TEST(naws_is_four_bytes_big_endian)
{
    const unsigned char b[] = {0x01, 0x2C, 0x00, 0x3C, 0x00};
    int w = -1, h = -1;
    ck_assert_int_eq(input_naws(b, 4, &w, &h), 0);
    ck_assert_int_eq(w, 300);
    ck_assert_int_eq(h, 60);
    const unsigned char big[] = {0xFF, 0xFF, 0x00, 0x00};
    ck_assert_int_eq(input_naws(big, 4, &w, &h), 0);
    ck_assert_int_eq(w, 65535);
    ck_assert_int_eq(h, 0);
    w = h = 7;
    ck_assert_int_eq(input_naws(b, 3, &w, &h), -1);
    ck_assert_int_eq(input_naws(b, 5, &w, &h), -1);
    ck_assert_int_eq(input_naws(b, 0, &w, &h), -1);
    ck_assert_int_eq(w, 7); /* nothing set on a bad size */
    ck_assert_int_eq(h, 7);
}
END_TEST

START_TEST(term_names_are_printable)
{
    char t[12];
    input_term_name("xterm-256color", t, sizeof t);
    ck_assert_str_eq(t, "xterm-256co"); /* truncated to the field */
    input_term_name("vt\x1b[2J\x7f\xc3\xa9", t, sizeof t);
    ck_assert_str_eq(t, "vt?[2J???"); /* ESC, DEL and both UTF-8 bytes */
    input_term_name(NULL, t, sizeof t);
    ck_assert_str_eq(t, "");
}
END_TEST

START_TEST(remote_addresses_are_checked)
{
    char ip[16] = "unchanged";
    ck_assert_int_eq(input_remote_addr("192.0.2.7", ip, sizeof ip), 0);
    ck_assert_str_eq(ip, "192.0.2.7");
    ck_assert_int_eq(input_remote_addr("2001:DB8::1", ip, sizeof ip), 0);
    ck_assert_str_eq(ip, "2001:DB8::1");
    strcpy(ip, "kept");
    ck_assert_int_eq(input_remote_addr("10.0.0.1; rm", ip, sizeof ip), -1);
    ck_assert_int_eq(input_remote_addr("", ip, sizeof ip), -1);
    ck_assert_int_eq(input_remote_addr(NULL, ip, sizeof ip), -1);
    ck_assert_int_eq(input_remote_addr("fe80::1%eth0", ip, sizeof ip), -1);
    ck_assert_int_eq(input_remote_addr("1111:2222:3333:4444", ip, sizeof ip), -1); /* too long */
    ck_assert_str_eq(ip, "kept");
}
END_TEST

static key_event_t key(uint32_t code, unsigned mods)
{
    key_event_t k = {code, (uint8_t)mods};
    return k;
}

START_TEST(line_editing)
{
    char line[16] = "";
    size_t len = 0;
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('a', 0)), LINE_EDITED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('b', 0)), LINE_EDITED);
    ck_assert_str_eq(line, "ab");
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('c', KEYMOD_ALT)), LINE_IGNORED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(0x85, 0)), LINE_IGNORED);   /* C1 control */
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(0xD800, 0)), LINE_IGNORED); /* surrogate */
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(KEY_UP, 0)), LINE_IGNORED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(0x2713, 0)), LINE_FULL); /* 3 bytes */
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('c', 0)), LINE_EDITED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('d', 0)), LINE_EDITED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('e', 0)), LINE_FULL); /* said, not dropped */
    ck_assert_str_eq(line, "abcd");
    ck_assert_uint_eq(len, 4);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(KEY_BACKSPACE, 0)), LINE_EDITED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(0x08, 0)), LINE_EDITED);
    ck_assert_str_eq(line, "ab");
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(0x15, 0)), LINE_EDITED); /* Ctrl-U */
    ck_assert_str_eq(line, "");
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(KEY_BACKSPACE, 0)), LINE_EDITED);
    ck_assert_uint_eq(len, 0); /* nothing to drop */
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(KEY_ENTER, 0)), LINE_ENTER);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('\n', 0)), LINE_ENTER);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(KEY_ESC, 0)), LINE_CANCEL);
}
END_TEST

/* Any printable character goes in as UTF-8: whether a name may hold it is
 * the name rule's to say, never the editor's to drop. */
START_TEST(utf8_characters_go_in_whole)
{
    char line[32] = "";
    size_t len = 0;
    const uint32_t typed[] = {0x2713, ' ', 0xFC, 'n', 0xEF, 'c', 'o', 'd', 'e', 0x1F600};
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
        ck_assert_int_eq(lineedit_key(line, &len, 31, key(typed[i], 0)), LINE_EDITED);
    ck_assert_str_eq(line, "\xe2\x9c\x93 \xc3\xbcn\xc3\xaf"
                           "code\xf0\x9f\x98\x80");
    ck_assert_uint_eq(len, strlen(line));
    ck_assert_int_eq(lineedit_cols(line, len), 10); /* a cell each */
    ck_assert_str_eq(lineedit_tail(line, len, 5), "code\xf0\x9f\x98\x80");
    ck_assert_int_eq(lineedit_key(line, &len, 31, key(0xE9, KEYMOD_ALT)), LINE_IGNORED);
}
END_TEST

/* The rc editor's cursor: it moves, inserts and deletes by characters. */
START_TEST(cursor_moves_and_deletes_by_character)
{
    char line[32];
    strcpy(line, "a\xc3\xa9\xe2\x9c\x93"
                 "b"); /* a é ✓ b */
    size_t len = strlen(line), at = len;
    ck_assert_int_eq(lineedit_key_at(line, &len, &at, 31, key(KEY_LEFT, 0)), LINE_EDITED);
    ck_assert_int_eq(lineedit_key_at(line, &len, &at, 31, key(KEY_LEFT, 0)), LINE_EDITED);
    ck_assert_uint_eq(at, 3); /* before the ✓, past é's two bytes */
    ck_assert_int_eq(lineedit_cols(line, at), 2);
    lineedit_key_at(line, &len, &at, 31, key(KEY_BACKSPACE, 0)); /* é goes whole */
    ck_assert_str_eq(line, "a\xe2\x9c\x93"
                           "b");
    ck_assert_uint_eq(at, 1);
    lineedit_key_at(line, &len, &at, 31, key(KEY_DELETE, 0)); /* ✓ goes whole */
    ck_assert_str_eq(line, "ab");
    lineedit_key_at(line, &len, &at, 31, key(0xFC, 0)); /* ü at the cursor */
    ck_assert_str_eq(line, "a\xc3\xbc"
                           "b");
    ck_assert_uint_eq(at, 3);
    lineedit_key_at(line, &len, &at, 31, key(KEY_HOME, 0));
    ck_assert_uint_eq(at, 0);
    lineedit_key_at(line, &len, &at, 31, key(KEY_LEFT, 0)); /* stays */
    ck_assert_uint_eq(at, 0);
    lineedit_key_at(line, &len, &at, 31, key(KEY_END, 0));
    ck_assert_uint_eq(at, len);
    lineedit_key_at(line, &len, &at, 31, key(KEY_RIGHT, 0));
    ck_assert_uint_eq(at, len);
    ck_assert_int_eq(lineedit_key_at(line, &len, &at, 31, key(KEY_DELETE, 0)), LINE_EDITED);
    ck_assert_str_eq(line, "a\xc3\xbc"
                           "b");
}
END_TEST

START_TEST(backspace_drops_a_whole_utf8_character)
{
    char line[16];
    strcpy(line, "a\xc3\xa9\xe2\x94\x80");
    size_t len = strlen(line);
    lineedit_key(line, &len, 8, key(KEY_BACKSPACE, 0));
    ck_assert_str_eq(line, "a\xc3\xa9");
    lineedit_key(line, &len, 8, key(KEY_BACKSPACE, 0));
    ck_assert_str_eq(line, "a");
}
END_TEST

START_TEST(telnet_options_table)
{
    int n = 0, naws = 0;
    for (; INPUT_TELOPTS[n].telopt >= 0; n++)
        if (INPUT_TELOPTS[n].telopt == TELNET_TELOPT_NAWS)
            naws = INPUT_TELOPTS[n].him == TELNET_DO;
    ck_assert_int_eq(n, 6);
    ck_assert(naws); /* the client may tell us its size */
}
END_TEST

Suite *suite_server_input(void)
{
    Suite *s = suite_create("server.input");
    TCase *t = tcase_create("core");
    tcase_add_test(t, naws_is_four_bytes_big_endian);
    tcase_add_test(t, term_names_are_printable);
    tcase_add_test(t, remote_addresses_are_checked);
    tcase_add_test(t, line_editing);
    tcase_add_test(t, backspace_drops_a_whole_utf8_character);
    tcase_add_test(t, utf8_characters_go_in_whole);
    tcase_add_test(t, cursor_moves_and_deletes_by_character);
    tcase_add_test(t, telnet_options_table);
    suite_add_tcase(s, t);
    return s;
}
