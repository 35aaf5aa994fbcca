/* Unit tests: server/moderation — networks, bans, mutes and durations. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "moderation.h"
#include "server.h"

/* Each why has its own words, the same at every node; a rename's name
 * the new name. */
START_TEST(each_why_its_words)
{
    char msg[160];
    moderation_why_words(MOD_KICKED, "", msg, sizeof msg);
    ck_assert_str_eq(msg, "You were disconnected by the administrator.");
    moderation_why_words(MOD_LOCKED, "", msg, sizeof msg);
    ck_assert_str_eq(msg, "This account has been locked.");
    moderation_why_words(MOD_DELETED, "", msg, sizeof msg);
    ck_assert_str_eq(msg, "This account has been deleted.");
    moderation_why_words(MOD_RENAMED, "Ivo", msg, sizeof msg);
    ck_assert_str_eq(msg, "Your account was renamed to Ivo: log in again under that name.");
    moderation_why_words(MOD_RENAMED, "Ivo", msg, 12);
    ck_assert_str_eq(msg, "Your accoun"); /* cut, never past out */
    ck_assert_str_eq(moderation_why_word(MOD_KICKED), "kicked");
    ck_assert_str_eq(moderation_why_word(MOD_LOCKED), "locked");
    ck_assert_str_eq(moderation_why_word(MOD_DELETED), "deleted");
    ck_assert_str_eq(moderation_why_word(MOD_RENAMED), "renamed");
}
END_TEST

START_TEST(networks_are_canonical)
{
    char net[MOD_NET_MAX];
    ck_assert_int_eq(moderation_parse_net("10.1.2.3", net), 0);
    ck_assert_str_eq(net, "10.1.2.3/32");
    ck_assert_int_eq(moderation_parse_net("10.1.2.3/8", net), 0);
    ck_assert_str_eq(net, "10.0.0.0/8");
    ck_assert_int_eq(moderation_parse_net("2001:db8::1/32", net), 0);
    ck_assert_str_eq(net, "2001:db8::/32");
    ck_assert_int_eq(moderation_parse_net("0.0.0.0/0", net), 0);
    ck_assert_str_eq(net, "0.0.0.0/0");
    const char *bad[] = {"",        "/8",        "10.1.2.3/33",  "10.1.2.3/",  "10.1.2.3/x",
                         "::1/129", "300.1.1.1", "host.example", "10.1.2.3/-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(moderation_parse_net(bad[i], net) == -1, "%s", bad[i]);
}
END_TEST

START_TEST(bans_match_their_network_until_they_end)
{
    moderation_t *m = moderation_new();
    ck_assert_int_eq(moderation_ban(m, "10.0.0.0/8", 0), 0);
    ck_assert_int_eq(moderation_ban(m, "2001:db8::/32", 100), 0);
    ck_assert_int_eq(moderation_ban(m, "10.0.0.1/8", 0), -1); /* not canonical */
    ck_assert(moderation_banned(m, "10.200.3.4", 50));
    ck_assert(moderation_banned(m, "::ffff:10.9.9.9", 50)); /* v4-mapped */
    ck_assert(!moderation_banned(m, "11.0.0.1", 50));
    ck_assert(moderation_banned(m, "2001:db8:1::5", 99));
    ck_assert(!moderation_banned(m, "2001:db8:1::5", 100)); /* ended */
    ck_assert(!moderation_banned(m, "2001:db9::5", 50));
    ck_assert(!moderation_banned(m, "local", 50));
    ck_assert(moderation_unban(m, "10.0.0.0/8"));
    ck_assert(!moderation_unban(m, "10.0.0.0/8"));
    ck_assert(!moderation_banned(m, "10.200.3.4", 50));
    moderation_free(m);
}
END_TEST

START_TEST(mutes_and_durations)
{
    moderation_t *m = moderation_new();
    ck_assert_int_eq(moderation_mute(m, 7, 0), 0);
    ck_assert_int_eq(moderation_mute(m, 8, 100), 0);
    ck_assert(moderation_muted(m, 7, 1000000));
    ck_assert(moderation_muted(m, 8, 99) && !moderation_muted(m, 8, 100));
    ck_assert(!moderation_muted(m, 9, 0));
    ck_assert(moderation_unmute(m, 7) && !moderation_muted(m, 7, 0));
    moderation_free(m);
    int64_t s = 0;
    ck_assert(moderation_parse_duration("90", &s) == 0 && s == 90);
    ck_assert(moderation_parse_duration("30m", &s) == 0 && s == 1800);
    ck_assert(moderation_parse_duration("2d", &s) == 0 && s == 172800);
    ck_assert(moderation_parse_duration("1w", &s) == 0 && s == 604800);
    ck_assert_int_eq(moderation_parse_duration("0", &s), -1);
    ck_assert_int_eq(moderation_parse_duration("5x", &s), -1);
    ck_assert_int_eq(moderation_parse_duration("5mm", &s), -1);
    ck_assert_int_eq(moderation_parse_duration("m", &s), -1);
    /* a hundred years at most, in any unit */
    ck_assert(moderation_parse_duration("5200w", &s) == 0 && s == 5200LL * 604800);
    ck_assert_int_eq(moderation_parse_duration("5300w", &s), -1);
    ck_assert_int_eq(moderation_parse_duration("3153600000w", &s), -1);
    ck_assert(moderation_parse_duration("3153600000", &s) == 0 && s == 3153600000LL);
}
END_TEST

/* Accounts being deleted: marked up to SERVER_DELETING_MAX at once (the
 * next refused), each cleared on its own by its number, the same account
 * twice cleared once a mark; no account is 0 (a free slot). */
START_TEST(deletes_marked_up_to_their_cap)
{
    static server_t home; /* one loop: its own home */
    memset(&home, 0, sizeof home);
    int64_t ids[SERVER_DELETING_MAX + 1];
    ck_assert(!moderation_deleting(&home, 0));
    for (int i = 1; i <= SERVER_DELETING_MAX; i++)
        ck_assert_int_gt(ids[i] = moderation_deleting_mark(&home, i), 0);
    ck_assert_int_eq(moderation_deleting_mark(&home, 99), -1);
    ck_assert(!moderation_deleting(&home, 99));
    ck_assert(moderation_deleting(&home, 1) && moderation_deleting(&home, SERVER_DELETING_MAX));
    moderation_deleting_clear(&home, 1, ids[1]);
    ck_assert(!moderation_deleting(&home, 1));
    ck_assert(!moderation_deleting(&home, 0));          /* the freed slot is no account's */
    int64_t again = moderation_deleting_mark(&home, 7); /* 7 twice */
    ck_assert_int_gt(again, ids[SERVER_DELETING_MAX]);
    moderation_deleting_clear(&home, 7, ids[7]);
    ck_assert(moderation_deleting(&home, 7));
    moderation_deleting_clear(&home, 7, ids[7]); /* its own again: the other stays */
    ck_assert(moderation_deleting(&home, 7));
    moderation_deleting_clear(&home, 7, again);
    ck_assert(!moderation_deleting(&home, 7));
    moderation_deleting_clear(&home, 12345, 1); /* none: nothing */
    ck_assert(moderation_deleting(&home, 2));
}
END_TEST

static void heard(server_t *home, const char *from, int64_t a, int64_t b)
{
    notify_event_t ev = {.a = a, .b = b};
    snprintf(ev.kind, sizeof ev.kind, "%s", NOTIFY_DELETING);
    snprintf(ev.from, sizeof ev.from, "%s", from);
    moderation_deleting_heard(home, &ev);
}

/* A mark from another node's delete lasts its ms, then is no mark and its
 * slot is free (a node that stopped mid-delete leaves nobody stuck); an
 * event for it again is one mark; one ended early is gone at once. */
START_TEST(another_nodes_delete_mark_expires)
{
    static server_t home;
    memset(&home, 0, sizeof home);
    for (int i = 1; i < SERVER_DELETING_MAX; i++)
        ck_assert_int_gt(moderation_deleting_mark(&home, i), 0);
    ck_assert_int_eq(moderation_deleting_mark_for(&home, 500, "b", 1, 30), 0);
    ck_assert(moderation_deleting(&home, 500));
    ck_assert_int_eq(moderation_deleting_mark_for(&home, 501, "b", 2, 60000), -1); /* full */
    struct timespec nap = {0, 60 * 1000000};
    nanosleep(&nap, NULL);
    ck_assert(!moderation_deleting(&home, 500));
    heard(&home, "b", 501, 2); /* its slot */
    ck_assert(moderation_deleting(&home, 501));
    heard(&home, "b", 501, 2); /* heard twice: one mark */
    heard(&home, "b", 501, -2);
    ck_assert(!moderation_deleting(&home, 501));
    ck_assert(moderation_deleting(&home, 1));
}
END_TEST

/* Two deletes of one account at once, at two other nodes and here: each
 * end clears its own mark only, the account marked until the last ends;
 * an end of a build before the numbers (b 0) clears its node's marks. */
START_TEST(concurrent_deletes_clear_only_their_own_marks)
{
    static server_t home;
    memset(&home, 0, sizeof home);
    heard(&home, "a", 42, 5);
    heard(&home, "b", 42, 5); /* the same number at another node */
    int64_t mine = moderation_deleting_mark(&home, 42);
    ck_assert_int_gt(mine, 0);
    heard(&home, "a", 42, -5);
    ck_assert(moderation_deleting(&home, 42));
    moderation_deleting_clear(&home, 42, mine);
    ck_assert(moderation_deleting(&home, 42)); /* b's goes on */
    heard(&home, "c", 42, -5);                 /* another node's end: not b's */
    ck_assert(moderation_deleting(&home, 42));
    heard(&home, "b", 42, -5);
    ck_assert(!moderation_deleting(&home, 42));
    heard(&home, "a", 43, 1);
    heard(&home, "a", 43, 2);
    heard(&home, "a", 43, 0);
    ck_assert(!moderation_deleting(&home, 43));
}
END_TEST

/* A node event's number is whatever its sender wrote: the lowest int64
 * (no delete's number, begun or ended) is no end of any mark, and
 * reading it is no overflow (the sanitizer stops this test if it is). */
START_TEST(a_delete_number_out_of_range_is_no_end)
{
    static server_t home;
    memset(&home, 0, sizeof home);
    heard(&home, "a", 44, 3);
    heard(&home, "a", 44, INT64_MIN);
    ck_assert(moderation_deleting(&home, 44));
    heard(&home, "a", 45, INT64_MIN);
    ck_assert(!moderation_deleting(&home, 45));
    heard(&home, "a", 44, -3);
    ck_assert(!moderation_deleting(&home, 44));
}
END_TEST

/* The log (stderr) into a file; its lines counted back. Each test is forked. */
static FILE *capture(void)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(dup2(fileno(f), 2), 0);
    return f;
}

static int lines_in(FILE *f, char *first, size_t cap)
{
    fflush(stderr);
    rewind(f);
    int n = 0, c, at = 0;
    while ((c = fgetc(f)) != EOF) {
        if (n == 0 && at + 1 < (int)cap)
            first[at++] = (char)c;
        n += c == '\n';
    }
    first[at] = 0;
    return n;
}

/* A node flooding "deleting" events with fresh numbers (hostile, or
 * looping): every mark taken, the 10,000 refused past them write one line
 * within the minute, not one each; the next minute's line counts the rest. */
START_TEST(a_flood_of_deletes_heard_logs_a_bounded_number_of_lines)
{
    static server_t home;
    memset(&home, 0, sizeof home);
    FILE *f = capture();
    for (int i = 1; i <= 10000 + SERVER_DELETING_MAX; i++)
        heard(&home, "evil", 1000 + i, i);
    char first[512];
    ck_assert_int_eq(lines_in(f, first, sizeof first), 1);
    ck_assert_ptr_nonnull(strstr(first, "not marked here"));
    ck_assert(moderation_deleting(&home, 1001));
    home.deleting_full_said.last_ms -= MOD_DELETING_LOG_MS; /* a minute on */
    heard(&home, "evil", 99999, 99999);
    ck_assert_int_eq(lines_in(f, first, sizeof first), 2);
    fflush(stderr);
    rewind(f);
    char line[512], last[512] = "";
    while (fgets(line, sizeof line, f))
        snprintf(last, sizeof last, "%s", line);
    ck_assert_ptr_nonnull(strstr(last, "9999 more not logged"));
}
END_TEST

Suite *suite_server_moderation(void)
{
    Suite *s = suite_create("server_moderation");
    TCase *t = tcase_create("moderation");
    tcase_add_test(t, networks_are_canonical);
    tcase_add_test(t, each_why_its_words);
    tcase_add_test(t, bans_match_their_network_until_they_end);
    tcase_add_test(t, mutes_and_durations);
    tcase_add_test(t, deletes_marked_up_to_their_cap);
    tcase_add_test(t, another_nodes_delete_mark_expires);
    tcase_add_test(t, concurrent_deletes_clear_only_their_own_marks);
    tcase_add_test(t, a_delete_number_out_of_range_is_no_end);
    tcase_add_test(t, a_flood_of_deletes_heard_logs_a_bounded_number_of_lines);
    suite_add_tcase(s, t);
    return s;
}
