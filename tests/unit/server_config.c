/* Unit tests: server/config — the config file text parser. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "listener.h"

#define PARSE(c, text, err) config_parse((c), (text), strlen(text), "w.conf", (err), sizeof(err))

START_TEST(settings_comments_and_blank_lines)
{
    config_t c;
    char err[256] = "";
    config_defaults(&c);
    const char *text = "# a comment\n"
                       "\n"
                       "telnet = 0.0.0.0:23   # trailing comment\n"
                       "  grace=30\r\n"
                       "http =\n"
                       "db = /var/lib/warren/w.db\n"
                       "test-hooks = yes"; /* no newline at the end */
    ck_assert_int_eq(PARSE(&c, text, err), 0);
    ck_assert_str_eq(c.telnet, "0.0.0.0:23");
    ck_assert_int_eq(c.grace, 30);
    ck_assert_str_eq(c.http, ""); /* off */
    ck_assert_str_eq(c.db, "/var/lib/warren/w.db");
    ck_assert(c.test_hooks);
    ck_assert_int_eq(c.max_conns, 5000); /* untouched: the default */
}
END_TEST

/* The defaults are the table's own values, parsed as the file's are:
 * every one of them must be valid. */
START_TEST(defaults_parse)
{
    config_t c;
    ck_assert_int_eq(config_defaults(&c), 0);
    ck_assert_str_eq(c.telnet, "127.0.0.1:2323");
    ck_assert_str_eq(c.games_user, "warren-games");
    ck_assert_int_eq(c.grace, 600);
    ck_assert_int_eq(c.record_max, 32 << 20);
    ck_assert_int_eq(c.hosted_output_rate, 128 << 10);
    ck_assert_str_ne(c.node, ""); /* the host's name */
    ck_assert_str_eq(c.socket, "");
    ck_assert_int_eq(c.db_max_size, 0);
    ck_assert(!c.test_hooks);
    config_free(&c);
    /* a row short of its default would shift its help there: every row has both */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    config_print_usage(f);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "  --grace SECONDS     a detached game stays live (600)\n"));
    ck_assert_ptr_nonnull(strstr(text, "  --socket PATH       Unix socket for local clients"));
    free(text);
}
END_TEST

START_TEST(errors_name_file_and_line)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(PARSE(&c, "grace = 5\nbogus = 1\ngrace = 7\n", err), -1);
    ck_assert_str_eq(err, "w.conf:2: unknown setting \"bogus\"");
    ck_assert_int_eq(c.grace, 5); /* lines before the error apply, none after */
    ck_assert_int_eq(PARSE(&c, "\n\ngrace = -1\n", err), -1);
    ck_assert_str_eq(err, "w.conf:3: grace: expected a number from 0 to 604800, got \"-1\"");
    ck_assert_int_eq(PARSE(&c, "telnet = nowhere\n", err), -1);
    ck_assert_str_eq(err, "w.conf:1: telnet: expected ADDR:PORT, got \"nowhere\"");
    ck_assert_int_eq(PARSE(&c, "just words\n", err), -1);
    ck_assert_str_eq(err, "w.conf:1: expected \"key = value\"");
    ck_assert_int_eq(PARSE(&c, "help = 1\n", err), -1);
}
END_TEST

/* listen-backlog: 4096 unless said, a positive number, and what listen()
 * gets is at most the kernel's somaxconn. */
START_TEST(listen_backlog_parsed_and_clamped)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.listen_backlog, 4096);
    ck_assert_int_eq(PARSE(&c, "listen-backlog = 128\n", err), 0);
    ck_assert_int_eq(c.listen_backlog, 128);
    ck_assert_int_eq(PARSE(&c, "listen-backlog = 0\n", err), -1);
    ck_assert_str_eq(err,
                     "w.conf:1: listen-backlog: expected a number from 1 to 1048576, got \"0\"");
    ck_assert_int_eq(c.listen_backlog, 128);
    ck_assert_int_eq(listener_backlog(0, 4096), LISTENER_BACKLOG);
    ck_assert_int_eq(listener_backlog(8192, 4096), 4096);
    ck_assert_int_eq(listener_backlog(100, 4096), 100);
    ck_assert_int_eq(listener_backlog(8192, -1), 8192); /* no /proc: the kernel clamps */
    ck_assert_int_eq(LISTENER_BACKLOG, 4096);
}
END_TEST

START_TEST(limit_settings)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.register_per_hour, 5);
    ck_assert_str_eq(c.trust_proxy, "");
    ck_assert_int_eq(PARSE(&c, "trust-proxy = 127.0.0.1,::1\nregister-per-hour = 0\n", err), 0);
    ck_assert_str_eq(c.trust_proxy, "127.0.0.1,::1");
    ck_assert_int_eq(c.register_per_hour, 0);
    ck_assert_int_eq(PARSE(&c, "trust-proxy = localhost\n", err), -1);
    ck_assert_str_eq(err, "w.conf:1: trust-proxy: expected addresses like 127.0.0.1,::1, got "
                          "\"localhost\"");
    ck_assert_int_eq(PARSE(&c, "trust-proxy = 127.0.0.1,\n", err), -1);
    ck_assert_int_eq(PARSE(&c, "register-per-hour = -1\n", err), -1);
    ck_assert_int_eq(c.request_rate, 20);
    ck_assert_int_eq(c.request_burst, 200);
    ck_assert_int_eq(PARSE(&c, "request-rate = 0\nrequest-burst = 5\n", err), 0);
    ck_assert_int_eq(c.request_rate, 0);
    ck_assert_int_eq(c.request_burst, 5);
    ck_assert_int_eq(PARSE(&c, "request-burst = 0\n", err), -1);
    ck_assert_str_eq(err, "w.conf:1: request-burst: expected a number from 1 to 1000000, got "
                          "\"0\"");
    ck_assert_int_eq(PARSE(&c, "request-rate = -1\n", err), -1);
    ck_assert_int_eq(PARSE(&c, "trust-proxy =\n", err), 0); /* none */
    ck_assert_str_eq(c.trust_proxy, "");
}
END_TEST

START_TEST(long_lines_and_nul_bytes_are_errors)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    static char text[CONFIG_LINE_MAX + 16];
    memset(text, ' ', sizeof text);
    memcpy(text, "# ", 2);
    text[CONFIG_LINE_MAX] = '\n'; /* exactly CONFIG_LINE_MAX bytes: fine */
    ck_assert_int_eq(config_parse(&c, text, CONFIG_LINE_MAX + 1, "w.conf", err, sizeof err), 0);
    text[CONFIG_LINE_MAX] = ' '; /* one more: too long, not split into two lines */
    ck_assert_int_eq(config_parse(&c, text, sizeof text, "w.conf", err, sizeof err), -1);
    ck_assert_str_eq(err, "w.conf:1: line too long");
    const char nul[] = "grace = 9\ngrace = 1\0 0\n";
    ck_assert_int_eq(config_parse(&c, nul, sizeof nul - 1, "w.conf", err, sizeof err), -1);
    ck_assert_str_eq(err, "w.conf:2: NUL byte in the line");
    ck_assert_int_eq(c.grace, 9);
    ck_assert_int_eq(config_parse(&c, "", 0, "w.conf", err, sizeof err), 0);
}
END_TEST

START_TEST(string_values_must_fit)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    char text[600] = "socket = ";
    memset(text + 9, 'x', 300);
    text[309] = 0;
    ck_assert_int_eq(PARSE(&c, text, err), -1);
    ck_assert_str_eq(err, "w.conf:1: socket: value too long");
    ck_assert_str_eq(c.socket, "");
}
END_TEST

START_TEST(sizes_take_k_m_g)
{
    static const struct {
        const char *text;
        int64_t bytes;
    } ok[] = {{"0", 0},
              {"4096", 4096},
              {"64K", 65536},
              {"64k", 65536},
              {"10M", 10485760},
              {"2G", 2147483648LL},
              {"8589934591G", 8589934591LL << 30}};
    static const char *const bad[] = {"",
                                      "-1",
                                      "+5",
                                      " 5",
                                      "5 ",
                                      "5KB",
                                      "5T",
                                      "M",
                                      "1.5G",
                                      "8589934592G",
                                      "99999999999999999999"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t v = -1;
        ck_assert_msg(config_parse_size(ok[i].text, &v) == 0, "%s", ok[i].text);
        ck_assert_int_eq(v, ok[i].bytes);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = 7;
        ck_assert_msg(config_parse_size(bad[i], &v) == -1, "%s", bad[i]);
        ck_assert_int_eq(v, 7);
    }
    config_t c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.db_max_size, 0); /* no cap unless asked */
    ck_assert_int_eq(PARSE(&c, "db-max-size = 512M\n", err), 0);
    ck_assert_int_eq(c.db_max_size, 512LL << 20);
    ck_assert_int_eq(PARSE(&c, "db-max-size = lots\n", err), -1);
    ck_assert_str_eq(err, "w.conf:1: db-max-size: expected bytes with K, M or G, got \"lots\"");
    char *argv[] = {"warrend", "--db-max-size", "3K", NULL};
    ck_assert_int_eq(config_from_args(&c, 3, argv, err, sizeof err), 0);
    ck_assert_int_eq(c.db_max_size, 3072);
    ck_assert_int_eq(c.hosted_output_rate, 128 << 10); /* a flood is held unless told */
    ck_assert_int_eq(PARSE(&c, "hosted-output-rate = 1M\n", err), 0);
    ck_assert_int_eq(c.hosted_output_rate, 1 << 20);
    ck_assert_int_eq(PARSE(&c, "hosted-output-rate = fast\n", err), -1);
    ck_assert_str_eq(err,
                     "w.conf:1: hosted-output-rate: expected bytes with K, M or G, got \"fast\"");
}
END_TEST

/* Replays are bounded by default; a cap too small to hold a frame is refused. */
START_TEST(replay_settings)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.replay_max, 64LL << 20);
    ck_assert_int_eq(c.replay_cache, 64LL << 20);
    ck_assert_int_eq(c.replay_builds * 100 + c.replay_queue, 216);
    ck_assert_int_eq(PARSE(&c,
                           "replay-max = 1M\nreplay-cache = 0\nreplay-builds = 3\n"
                           "replay-queue = 0\n",
                           err),
                     0);
    ck_assert_int_eq(c.replay_max, 1 << 20);
    ck_assert_int_eq(c.replay_cache + c.replay_queue, 0);
    ck_assert_int_eq(c.replay_builds, 3);
    ck_assert_int_eq(PARSE(&c, "replay-max = 100\n", err), -1);
    ck_assert_str_eq(err, "w.conf:1: replay-max: at least 4096 bytes");
    ck_assert_int_eq(PARSE(&c, "replay-builds = 0\n", err), -1);
}
END_TEST

/* A node's name: the host's by default (a good one whatever the host is
 * called), else 1 to 63 of A-Z a-z 0-9 . _ -; leases renewed more often
 * than they last. */
START_TEST(node_settings)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    ck_assert(config_node_ok(c.node));
    ck_assert_int_eq(c.lease_ttl_ms, 10000);
    ck_assert_int_eq(c.lease_renew_ms, 3000);
    ck_assert_int_eq(PARSE(&c, "node = web-2.eu_west\n", err), 0);
    ck_assert_str_eq(c.node, "web-2.eu_west");
    ck_assert_int_eq(PARSE(&c, "node = two words\n", err), -1);
    ck_assert_str_eq(err,
                     "w.conf:1: node: expected 1 to 63 of A-Z a-z 0-9 . _ -, got \"two words\"");
    ck_assert_int_eq(PARSE(&c, "node = \x1b[2J\n", err), -1);
    ck_assert_str_eq(c.node, "web-2.eu_west"); /* a bad value changes nothing */
    config_t d;
    config_defaults(&d);
    ck_assert_int_eq(PARSE(&c, "node =\n", err), 0); /* empty: the host's name again */
    ck_assert_str_eq(c.node, d.node);
    char *argv[] = {"warrend", "--lease-ttl-ms", "2000", "--lease-renew-ms", "2000", NULL};
    ck_assert_int_eq(config_from_args(&c, 5, argv, err, sizeof err), -1);
    ck_assert_str_eq(err, "lease-renew-ms (2000) must be under lease-ttl-ms (2000)");
    argv[4] = "500";
    ck_assert_int_eq(config_from_args(&c, 5, argv, err, sizeof err), 0);
    ck_assert_int_eq(c.lease_ttl_ms + c.lease_renew_ms, 2500);
}
END_TEST

Suite *suite_server_config(void)
{
    Suite *s = suite_create("server.config");
    TCase *t = tcase_create("core");
    tcase_add_test(t, settings_comments_and_blank_lines);
    tcase_add_test(t, defaults_parse);
    tcase_add_test(t, errors_name_file_and_line);
    tcase_add_test(t, limit_settings);
    tcase_add_test(t, listen_backlog_parsed_and_clamped);
    tcase_add_test(t, long_lines_and_nul_bytes_are_errors);
    tcase_add_test(t, string_values_must_fit);
    tcase_add_test(t, sizes_take_k_m_g);
    tcase_add_test(t, replay_settings);
    tcase_add_test(t, node_settings);
    suite_add_tcase(s, t);
    return s;
}
