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
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(0xE9, 0)), LINE_IGNORED); /* non-ASCII */
    ck_assert_int_eq(lineedit_key(line, &len, 4, key(KEY_UP, 0)), LINE_IGNORED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('c', 0)), LINE_EDITED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('d', 0)), LINE_EDITED);
    ck_assert_int_eq(lineedit_key(line, &len, 4, key('e', 0)), LINE_IGNORED); /* full */
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
    tcase_add_test(t, telnet_options_table);
    suite_add_tcase(s, t);
    return s;
}
