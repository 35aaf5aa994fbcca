/* Unit tests: server/notify — the events one node sends the others
 * through PostgreSQL's NOTIFY: what notify_parse accepts and refuses. */
#include <check.h>
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
        "take b a 1 2\n",
    };
    notify_event_t ev;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(notify_parse(bad[i], &ev) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

Suite *suite_server_notify(void)
{
    Suite *s = suite_create("server_notify");
    TCase *t = tcase_create("notify");
    tcase_add_test(t, events_read_whole);
    tcase_add_test(t, anything_else_refused);
    suite_add_tcase(s, t);
    return s;
}
