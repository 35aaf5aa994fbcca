/* Unit tests: server/logcap — the log's cap on lines others can make it
 * write: once per kind per address per window, a cap per kind, counts
 * held back said, a bounded table whose least recently said pair goes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "logcap.h"

#define W LOGCAP_WINDOW_MS

/* The log (stderr) into a file the test reads back; each test is forked. */
static FILE *capture(void)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(dup2(fileno(f), 2), 0);
    return f;
}

static char *captured(FILE *f)
{
    static char text[8192];
    fflush(stderr);
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    return text;
}

static const logcap_kind_t BAD = {"bad"}, OTHER = {"other"}, FLOOD = {"flood"},
                           THREE = {"three", 0, 3}, CONNECT = {"connect", 3, 0};

/* A kind by its name: the one place a test names kinds by text. */
static const logcap_kind_t *kind_of(const char *name)
{
    static logcap_kind_t made[64];
    static char names[64][32];
    static int n;
    if (!strcmp(name, "bad"))
        return &BAD;
    if (!strcmp(name, "other"))
        return &OTHER;
    if (!strcmp(name, "flood"))
        return &FLOOD;
    snprintf(names[n % 64], sizeof names[0], "%s", name);
    made[n % 64] = (logcap_kind_t){.name = names[n % 64]};
    return &made[n++ % 64];
}

static bool may(logcap_t *c, const char *kind, const char *addr, uint64_t now, unsigned *held)
{
    return logcap_may(c, kind_of(kind), addr, now, held);
}

START_TEST(once_per_kind_and_address_in_a_window)
{
    logcap_t *c = logcap_new(0);
    unsigned held = 99;
    ck_assert(may(c, "bad", "A", 1000, &held));
    ck_assert_uint_eq(held, 0);
    for (int i = 0; i < 5; i++)
        ck_assert(!may(c, "bad", "A", 1001 + (uint64_t)i, &held));
    ck_assert(may(c, "other", "A", 1010, &held)); /* another kind: its own */
    ck_assert_uint_eq(held, 0);
    ck_assert(may(c, "bad", "B", 1020, &held)); /* another address says the count */
    ck_assert_uint_eq(held, 5);
    ck_assert(!may(c, "bad", "A", 1000 + W - 1, &held)); /* just inside A's window */
    ck_assert(may(c, "bad", "A", 1000 + W, &held));      /* past it */
    ck_assert_uint_eq(held, 1);
    logcap_free(c);
    logcap_free(NULL);
}
END_TEST

START_TEST(a_cap_per_kind_over_all_addresses)
{
    logcap_t *c = logcap_new(0);
    unsigned held;
    const char *addrs[] = {"A", "B", "C", "D", "E"};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(logcap_may(c, &THREE, addrs[i], 5, &held), i < 3);
    ck_assert(may(c, "bad", "D", 6, &held)); /* the cap is per kind */
    ck_assert(!logcap_may(c, &THREE, "D", W - 1, &held));
    ck_assert(logcap_may(c, &THREE, "D", W + 5, &held)); /* a new window */
    ck_assert_uint_eq(held, 3);
    /* the default cap: LOGCAP_KIND_MAX lines of a kind from many addresses */
    char a[32];
    int said = 0;
    for (int i = 0; i < 100; i++) {
        snprintf(a, sizeof a, "192.0.2.%d", i);
        said += may(c, "bad", a, 7, &held);
    }
    ck_assert_int_eq(said, LOGCAP_KIND_MAX - 1); /* D's took one */
    logcap_free(c);
}
END_TEST

START_TEST(a_kind_may_say_a_few_from_one_address)
{
    logcap_t *c = logcap_new(0);
    unsigned held;
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(logcap_may(c, &CONNECT, "A", 100 + (uint64_t)i, &held), i < 3);
    ck_assert(!logcap_may(c, &CONNECT, "A", 100 + W - 1, &held));
    ck_assert(logcap_may(c, &CONNECT, "A", 100 + W, &held)); /* its window began at 100 */
    ck_assert_uint_eq(held, 8);
    logcap_free(c);
}
END_TEST

START_TEST(the_table_is_bounded_and_forgets_the_oldest)
{
    logcap_t *c = logcap_new(0);
    unsigned held;
    char a[32];
    static const logcap_kind_t many = {"bad", 1, 100000};
    for (int i = 0; i < LOGCAP_PAIRS; i++) {
        snprintf(a, sizeof a, "10.0.%d.%d", i / 256, i % 256);
        ck_assert(logcap_may(c, &many, a, (uint64_t)i, &held));
    }
    ck_assert_int_eq(logcap_pairs(c), LOGCAP_PAIRS);
    ck_assert(logcap_knows(c, "bad", "10.0.0.0"));
    ck_assert(!may(c, "bad", "10.0.0.1", 300, &held)); /* held: does not make it recent */
    /* a1 said again past its window: now the most recent */
    ck_assert(may(c, "bad", "10.0.0.1", W + 1, &held));
    ck_assert(may(c, "bad", "10.9.9.9", W + 2, &held)); /* a new pair, the table full */
    ck_assert_int_eq(logcap_pairs(c), LOGCAP_PAIRS);
    ck_assert(!logcap_knows(c, "bad", "10.0.0.0")); /* the least recently said went */
    ck_assert(logcap_knows(c, "bad", "10.0.0.1"));
    ck_assert(logcap_knows(c, "bad", "10.9.9.9"));
    ck_assert(may(c, "bad", "10.0.0.2", W + 3, &held)); /* a flood of new addresses */
    for (int i = 0; i < 10 * LOGCAP_PAIRS; i++) {
        snprintf(a, sizeof a, "fd00::%x", i);
        ck_assert(logcap_may(c, &(logcap_kind_t){"flood", 1, 100000}, a, W + 4, &held));
    }
    ck_assert_int_eq(logcap_pairs(c), LOGCAP_PAIRS); /* ... never grows it */
    /* a forgotten address may be said again (within the kind's cap) */
    ck_assert(may(c, "bad", "10.0.0.1", W + 5, &held));
    logcap_free(c);
}
END_TEST

START_TEST(a_clock_a_little_behind_is_no_time)
{
    logcap_t *c = logcap_new(0);
    unsigned held;
    ck_assert(may(c, "bad", "A", 50000, &held));
    ck_assert(!may(c, "bad", "A", 49990, &held)); /* another loop's reading */
    ck_assert(may(c, "bad", "A", 50000 + W, &held));
    ck_assert_uint_eq(held, 1);
    logcap_free(c);
}
END_TEST

START_TEST(say_and_flush_write_the_counts)
{
    FILE *f = capture();
    logcap_t *c = logcap_new(0);
    ck_assert(logcap_say(c, 100, LOG_WARN, &BAD, "A", "bad thing ip=%s", "A"));
    for (int i = 0; i < 3; i++)
        ck_assert(!logcap_say(c, 200, LOG_WARN, &BAD, "A", "bad thing ip=%s", "A"));
    ck_assert(logcap_say(c, 300, LOG_WARN, &BAD, "B", "bad thing ip=%s", "B"));
    ck_assert(!logcap_say(c, 400, LOG_WARN, &BAD, "B", "bad thing ip=%s", "B"));
    ck_assert(!logcap_say(c, 500, LOG_WARN, &BAD, "A", "bad thing ip=%s", "A"));
    ck_assert_int_eq(logcap_flush(c, 300 + W - 1), 0); /* not a window since its last line */
    ck_assert_int_eq(logcap_flush(c, 300 + W), 1);
    ck_assert_int_eq(logcap_flush(c, 300 + 3 * W), 0); /* said once */
    const char *log = captured(f);
    ck_assert_ptr_nonnull(strstr(log, "WARN bad thing ip=A\n"));
    ck_assert_ptr_nonnull(strstr(log, "WARN bad thing ip=B (3 such lines held back)\n"));
    ck_assert_ptr_nonnull(strstr(log, "held back: 2 lines of \"bad\" in 10 s (the last from A)"));
    ck_assert_ptr_null(strstr(log, "ip=A (")); /* nothing else said */
    logcap_free(c);
    ck_assert(logcap_say(NULL, 0, LOG_INFO, &BAD, "A", "no cap")); /* NULL: all said */
}
END_TEST

START_TEST(more_kinds_than_places_share_the_last)
{
    FILE *f = capture();
    logcap_t *c = logcap_new(0);
    unsigned held;
    char k[64];
    for (int i = 0; i < LOGCAP_KINDS + 5; i++) {
        snprintf(k, sizeof k, "kind %d", i);
        ck_assert(may(c, k, "A", 1, &held) == (i < LOGCAP_KINDS));
    }
    ck_assert_int_eq(logcap_flush(c, 1 + W), 1);
    snprintf(k, sizeof k, "held back: 5 lines of \"kind %d\" and other kinds", LOGCAP_KINDS - 1);
    ck_assert_ptr_nonnull(strstr(captured(f), k));
    logcap_free(c);
}
END_TEST

START_TEST(an_account_is_capped_apart_from_its_address)
{
    FILE *f = capture();
    logcap_t *c = logcap_new(0);
    ck_assert(logcap_say_user(c, 1, LOG_WARN, &BAD, "A", "ann", "bad ann"));
    ck_assert(!logcap_say_user(c, 2, LOG_WARN, &BAD, "A", "ann", "bad ann again"));
    ck_assert(logcap_say_user(c, 3, LOG_WARN, &BAD, "A", "bob", "bad bob")); /* another account */
    ck_assert(logcap_knows(c, "bad", "A ann") && logcap_knows(c, "bad", "A bob"));
    ck_assert(!logcap_knows(c, "bad", "A"));
    ck_assert(logcap_say_user(c, 4, LOG_WARN, &BAD, "A", "", "bad stranger"));
    ck_assert(logcap_knows(c, "bad", "A")); /* a stranger: the address alone */
    ck_assert(!logcap_say(c, 5, LOG_WARN, &BAD, "A", "bad by address"));
    const char *log = captured(f);
    ck_assert_ptr_nonnull(strstr(log, "WARN bad bob (1 such lines held back)\n"));
    ck_assert_ptr_null(strstr(log, "ann again"));
    logcap_free(c);
}
END_TEST

Suite *suite_server_logcap(void)
{
    Suite *s = suite_create("server_logcap");
    TCase *t = tcase_create("logcap");
    tcase_add_test(t, once_per_kind_and_address_in_a_window);
    tcase_add_test(t, a_cap_per_kind_over_all_addresses);
    tcase_add_test(t, a_kind_may_say_a_few_from_one_address);
    tcase_add_test(t, the_table_is_bounded_and_forgets_the_oldest);
    tcase_add_test(t, a_clock_a_little_behind_is_no_time);
    tcase_add_test(t, say_and_flush_write_the_counts);
    tcase_add_test(t, more_kinds_than_places_share_the_last);
    tcase_add_test(t, an_account_is_capped_apart_from_its_address);
    suite_add_tcase(s, t);
    return s;
}
