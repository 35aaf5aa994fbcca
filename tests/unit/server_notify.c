/* Unit tests: server/notify — the events one node sends the others
 * through PostgreSQL's NOTIFY: what notify_parse accepts and refuses,
 * and chat lines written by notify_format read back whole; the event
 * log's numbers split off before them. */
#include <check.h>
#include <string.h>
#include "db_listen.h"
#include "notify.h"

START_TEST(events_read_whole)
{
    notify_event_t ev;
    ck_assert_int_eq(notify_parse("take node-b node-a 12 34", &ev), 0);
    ck_assert_str_eq(ev.kind, "take");
    ck_assert_str_eq(ev.to, "node-b");
    ck_assert_str_eq(ev.from, "node-a");
    ck_assert_int_eq(ev.a, 12);
    ck_assert_int_eq(ev.b, 34);
    ck_assert_int_eq(notify_parse("sanctions * a 0 0", &ev), 0);
    ck_assert_str_eq(ev.to, "*");
    ck_assert_int_eq(notify_parse("kick * a.example_1 -5 9223372036854775807", &ev), 0);
    ck_assert_int_eq(ev.a, -5);
    ck_assert_int_eq(notify_parse("mail * a 7 0", &ev), 0);
    ck_assert_int_eq(notify_parse("end b a 7 3", &ev), 0);
    ck_assert_int_eq(notify_parse("ended a b 7 1", &ev), 0);
    ck_assert_int_eq(ev.text_len, 0);
}
END_TEST

START_TEST(chat_lines_read_whole)
{
    notify_event_t ev;
    ck_assert_int_eq(notify_parse("chat * node-b 12 3 wanda hi%20there%25%E2%9C%93!", &ev), 0);
    ck_assert_str_eq(ev.kind, "chat");
    ck_assert_int_eq(ev.a, 12);
    ck_assert_int_eq(ev.b, 3);
    ck_assert_str_eq(ev.name, "wanda");
    ck_assert_str_eq(ev.text, "hi there%\xe2\x9c\x93!");
    ck_assert_int_eq(ev.text_len, strlen("hi there%\xe2\x9c\x93!"));
}
END_TEST

/* The longest line, every byte needing its escape, fits a payload, and
 * comes back as it went. */
START_TEST(chat_lines_round_trip)
{
    notify_event_t ev = {.kind = NOTIFY_CHAT,
                         .to = "*",
                         .a = 9223372036854775807LL,
                         .b = -9223372036854775807LL,
                         .text_len = NOTIFY_TEXT_MAX};
    memset(ev.from, 'n', 63);
    memset(ev.name, 'x', 31);
    for (size_t i = 0; i < NOTIFY_TEXT_MAX; i++)
        ev.text[i] = (char)(0x80 + i % 0x80);
    char line[DB_NOTIFY_PAYLOAD_MAX];
    int n = notify_format(&ev, line, sizeof line);
    ck_assert_int_gt(n, 0);
    ck_assert_int_lt(n, DB_NOTIFY_PAYLOAD_MAX);
    notify_event_t back;
    ck_assert_int_eq(notify_parse(line, &back), 0);
    ck_assert_int_eq(back.text_len, NOTIFY_TEXT_MAX);
    ck_assert_mem_eq(back.text, ev.text, NOTIFY_TEXT_MAX);
    ck_assert_str_eq(back.name, ev.name);
    ck_assert_int_eq(back.b, ev.b);
    ck_assert_int_eq(notify_format(&ev, line, 100), -1); /* too small: refused, not cut */
}
END_TEST

START_TEST(anything_else_refused)
{
    static const char *const bad[] = {
        "",
        "take",
        "take b a 1",                      /* a field short */
        "take b a 1 2 3",                  /* one too many */
        "take b a 1 2 ",                   /* a trailing space */
        "take  b a 1 2",                   /* two spaces */
        "steal b a 1 2",                   /* no such kind */
        "take b * 1 2",                    /* from every node */
        "take b/c a 1 2",                  /* not a node's name */
        "take b a +1 2",                   /* numbers as written by notify_send only */
        "take b a 1 \t2",                  /* strtoll would skip the tab */
        "take b a 1x 2",                   /* a number and more */
        "take b a 1 99999999999999999999", /* out of range */
        "take b a - 2",
        "take b a 01 2", /* a number notify_send would not write */
        "take b a -0 2",
        "take b a 1 2\n",
        "take b a 1 2 bob hi",       /* words for a kind without them */
        "chat * a 1 2",              /* a chat line with no words */
        "chat * a 1 2 bob",          /* no text */
        "chat * a 1 2 bob ",         /* an empty text */
        "chat * a 1 2 b/b hi",       /* not an account's name */
        "chat * a 1 2 bob hi there", /* a space not written %20 */
        "chat * a 1 2 bob %41",      /* a letter written escaped */
        "chat * a 1 2 bob %e2",      /* lower-case hex */
        "chat * a 1 2 bob %0A",      /* a control character */
        "chat * a 1 2 bob %7F",
        "chat * a 1 2 bob 100%", /* a lone '%' */
        "chat * a 1 2 bob %4",
    };
    notify_event_t ev;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(notify_parse(bad[i], &ev) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

/* The event log's numbers before the event (db_listen.h): taken only as
 * two positive numbers written plainly, each followed by one space. */
START_TEST(logged_numbers_split_off)
{
    const char *rest;
    int64_t id, xid;
    ck_assert_int_eq(notify_split("41 7731 kick * a 12 0", &id, &xid, &rest), 0);
    ck_assert_int_eq(id, 41);
    ck_assert_int_eq(xid, 7731);
    ck_assert_str_eq(rest, "kick * a 12 0");
    notify_event_t ev;
    ck_assert_int_eq(notify_parse(rest, &ev), 0);
    ck_assert_int_eq(notify_parse("chatoff * a 5 1", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_CHAT_OFF);
    static const char *const bad[] = {
        "kick * a 12 0",
        "41 kick",
        "41 7731",
        "41 7731 ",
        "0 1 kick * a 1 0",
        "1 -1 kick * a 1 0",
        "01 1 kick * a 1 0",
        "1  2 kick * a 1 0",
        "+1 2 kick * a 1 0",
        "",
        "1 99999999999999999999 k",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(notify_split(bad[i], &id, &xid, &rest) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

Suite *suite_server_notify(void)
{
    Suite *s = suite_create("server_notify");
    TCase *t = tcase_create("notify");
    tcase_add_test(t, events_read_whole);
    tcase_add_test(t, anything_else_refused);
    tcase_add_test(t, chat_lines_read_whole);
    tcase_add_test(t, chat_lines_round_trip);
    tcase_add_test(t, logged_numbers_split_off);
    suite_add_tcase(s, t);
    return s;
}
