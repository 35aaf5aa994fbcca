/* Unit tests: client-term/telopts — the client's telnet options and its
 * reading of NEW-ENVIRON requests from a server. */
#include <check.h>
#include "client-term/telopts.h"

#define REQ(s) telopts_environ_request((const unsigned char *)(s), sizeof(s) - 1)

START_TEST(environ_requests)
{
    /* SEND with nothing named: everything, REMOTE_ADDR included */
    ck_assert_int_eq(REQ("\x01"), 1);
    ck_assert_int_eq(telopts_environ_request(NULL, 0), 1);
    ck_assert_int_eq(REQ("\x01\x03REMOTE_ADDR"), 1);
    ck_assert_int_eq(REQ("\x01\x00USER\x03REMOTE_ADDR"), 1);
    /* libtelnet 0.21 servers leave out SEND */
    ck_assert_int_eq(REQ("\x03REMOTE_ADDR"), 1);
    ck_assert_int_eq(REQ("\x01\x03USER"), 0);
    ck_assert_int_eq(REQ("\x01\x03REMOTE_AD"), 0);   /* cut short */
    ck_assert_int_eq(REQ("\x01\x01REMOTE_ADDR"), 0); /* a VALUE byte, not a name */
    /* IS and INFO come from clients, not servers */
    ck_assert_int_eq(REQ("\x00\x03REMOTE_ADDR\x01"
                         "1.2.3.4"),
                     -1);
    ck_assert_int_eq(REQ("\x02"), -1);
}
END_TEST

START_TEST(options_follow_the_mode)
{
    telnet_telopt_t o[TELOPTS_N];
    telopts_fill(o, 0, 0);
    ck_assert_int_eq(o[TELOPTS_N - 1].telopt, -1);
    for (int i = 0; i < TELOPTS_N - 1; i++) {
        if (o[i].telopt == TELNET_TELOPT_NAWS || o[i].telopt == TELNET_TELOPT_NEW_ENVIRON)
            ck_assert_int_eq(o[i].us, TELNET_WONT);
    }
    telopts_fill(o, 1, 1);
    int naws = 0, env = 0;
    for (int i = 0; o[i].telopt >= 0; i++) {
        naws |= o[i].telopt == TELNET_TELOPT_NAWS && o[i].us == TELNET_WILL;
        env |= o[i].telopt == TELNET_TELOPT_NEW_ENVIRON && o[i].us == TELNET_WILL;
    }
    ck_assert(naws && env);
}
END_TEST

Suite *suite_client_telopts(void)
{
    Suite *s = suite_create("client.telopts");
    TCase *t = tcase_create("core");
    tcase_add_test(t, environ_requests);
    tcase_add_test(t, options_follow_the_mode);
    suite_add_tcase(s, t);
    return s;
}
