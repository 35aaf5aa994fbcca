/* Unit tests: server/control_parse, the admin request line. */
#include <check.h>
#include <string.h>
#include "control_parse.h"

static int parse(const char *s, ctl_cmd_t *cmd, char *arg, const char **err)
{
    return control_parse(s, strlen(s), cmd, arg, CTL_LINE_MAX, err);
}

START_TEST(commands_and_arguments)
{
    ctl_cmd_t cmd;
    char arg[CTL_LINE_MAX];
    const char *err = NULL;
    ck_assert_int_eq(parse("users\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_USERS);
    ck_assert_str_eq(arg, "");
    ck_assert_int_eq(parse("lock Alice\r\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_LOCK);
    ck_assert_str_eq(arg, "Alice");
    ck_assert_int_eq(parse("passwd bob a pass phrase\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_PASSWD);
    ck_assert_str_eq(arg, "bob a pass phrase");
    ck_assert_int_eq(parse("announce\n", &cmd, arg, &err), 1); /* takes it down */
    ck_assert_int_eq(cmd, CTL_ANNOUNCE);
    ck_assert_str_eq(arg, "");
    ck_assert_int_eq(parse("db-max-size 20G\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_DB_MAX_SIZE);
    ck_assert_str_eq(arg, "20G");
    ck_assert_int_eq(parse("announce caf\xc3\xa9\x1b[2J\n", &cmd, arg, &err), 1);
    ck_assert_str_eq(arg, "caf??\?[2J");
    ck_assert_int_eq(parse("ban 10.0.0.0/8 7d\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_BAN);
    ck_assert_str_eq(arg, "10.0.0.0/8 7d");
    ck_assert_int_eq(parse("ban ::1\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(parse("rename old new\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_RENAME);
    ck_assert_int_eq(parse("delete bob --yes\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_DELETE);
    ck_assert_str_eq(arg, "bob --yes");
    ck_assert_int_eq(parse("mute bob\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_MUTE);
    ck_assert_int_eq(parse("bans\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_BANS);
    ck_assert_int_eq(parse("check-db\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_CHECK_DB);
    ck_assert_int_eq(parse("check-db now\n", &cmd, arg, &err), -1);
    ck_assert_str_eq(err, "this command takes no argument");
    for (const char *const *p =
             (const char *const[]){"kick a\n", "unban a\n", "end a\n", "unmute a\n", NULL};
         *p; p++)
        ck_assert_int_eq(parse(*p, &cmd, arg, &err), 1);
}
END_TEST

/* Each command's words are counted; delete needs its confirmation. */
START_TEST(word_counts_and_confirmation)
{
    ctl_cmd_t cmd;
    char arg[CTL_LINE_MAX];
    const char *err = NULL;
    ck_assert_int_eq(parse("delete bob\n", &cmd, arg, &err), -1);
    ck_assert_str_eq(err, "usage: delete NAME --yes");
    ck_assert_int_eq(parse("delete bob yes\n", &cmd, arg, &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "--yes"));
    ck_assert_int_eq(parse("delete bob --yes now\n", &cmd, arg, &err), -1);
    ck_assert_int_eq(parse("rename old\n", &cmd, arg, &err), -1);
    ck_assert_str_eq(err, "usage: rename OLD NEW");
    ck_assert_int_eq(parse("ban a b c\n", &cmd, arg, &err), -1);
    ck_assert_int_eq(parse("kick a b\n", &cmd, arg, &err), -1);
    ck_assert_int_eq(parse("bans all\n", &cmd, arg, &err), -1);
    ck_assert_str_eq(err, "this command takes no argument");
    ck_assert_int_eq(parse("mute\n", &cmd, arg, &err), -1);
    ck_assert_str_eq(err, "this command needs an argument");
}
END_TEST

START_TEST(partial_and_bad_lines)
{
    ctl_cmd_t cmd;
    char arg[CTL_LINE_MAX];
    const char *err = NULL;
    ck_assert_int_eq(parse("hea", &cmd, arg, &err), 0); /* more to come */
    ck_assert_int_eq(parse("frob\n", &cmd, arg, &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown command"));
    ck_assert_int_eq(parse("lock\n", &cmd, arg, &err), -1);
    ck_assert_str_eq(err, "this command needs an argument");
    ck_assert_int_eq(parse("users now\n", &cmd, arg, &err), -1);
    ck_assert_int_eq(parse("passwd bob\n", &cmd, arg, &err), -1);
    ck_assert_int_eq(parse("unlock a b\n", &cmd, arg, &err), -1);
    ck_assert_int_eq(parse("db-max-size\n", &cmd, arg, &err), -1);
    ck_assert_int_eq(parse("db-max-size lots\n", &cmd, arg, &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "usage: db-max-size BYTES"));
    ck_assert_int_eq(control_parse("users\0x\n", 8, &cmd, arg, sizeof arg, &err), -1);
    char big[CTL_LINE_MAX + 8];
    memset(big, 'x', sizeof big);
    ck_assert_int_eq(control_parse(big, CTL_LINE_MAX, &cmd, arg, sizeof arg, &err), -1);
    ck_assert_str_eq(err, "command line too long");
    char ann[300] = "announce ";
    memset(ann + 9, 'y', 200);
    strcpy(ann + 209, "\n");
    ck_assert_int_eq(parse(ann, &cmd, arg, &err), -1);
}
END_TEST

/* drain SECONDS [TEXT]: seconds from 1 to CTL_DRAIN_MAX_S, the text drawn
 * on terminals (printable ASCII only), and drain-status with nothing. */
START_TEST(drain_lines)
{
    ctl_cmd_t cmd;
    char arg[CTL_LINE_MAX];
    const char *err = NULL;
    ck_assert_int_eq(parse("drain 30\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_DRAIN);
    ck_assert_str_eq(arg, "30");
    ck_assert_int_eq(parse("drain 5 Back in a \x1b[2Jmoment\n", &cmd, arg, &err), 1);
    ck_assert_str_eq(arg, "5 Back in a ?[2Jmoment");
    ck_assert_int_eq(parse("drain 86400\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(parse("drain-status\n", &cmd, arg, &err), 1);
    ck_assert_int_eq(cmd, CTL_DRAIN_STATUS);
    const char *bad[] = {"drain\n",       "drain 0\n",      "drain 86401\n", "drain -5\n",
                         "drain 5x hi\n", "drain 000001\n", "drain  5\n",    "drain-status 1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(parse(bad[i], &cmd, arg, &err) == -1 && err, "%s", bad[i]);
    char big[300] = "drain 9 ";
    memset(big + 8, 'y', 200);
    strcpy(big + 208, "\n");
    ck_assert_int_eq(parse(big, &cmd, arg, &err), -1);
}
END_TEST

Suite *suite_server_control(void)
{
    Suite *s = suite_create("server_control");
    TCase *t = tcase_create("parse");
    tcase_add_test(t, commands_and_arguments);
    tcase_add_test(t, partial_and_bad_lines);
    tcase_add_test(t, word_counts_and_confirmation);
    tcase_add_test(t, drain_lines);
    suite_add_tcase(s, t);
    return s;
}
