/* Unit tests: server/addrrate — a token bucket per address: the burst, the
 * refill at the rate, addresses apart, a wait that says when, a table of
 * ADDRRATE_SLOTS whose least recently seen address goes (and comes back
 * with a full bucket), and off when the rate is 0. */
#include <check.h>
#include <stdio.h>
#include "addrrate.h"

/* Knocks from addr at now until one is refused; how many passed (at most
 * limit). */
static int knocks(addrrate_t *r, const char *addr, uint64_t now, int limit)
{
    int n = 0;
    while (n < limit && addrrate_take(r, addr, now) == 0)
        n++;
    return n;
}

START_TEST(burst_then_the_rate)
{
    addrrate_t *r = addrrate_new(10, 50);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 1000, 1000), 50);
    /* one more is 100 ms away (10 a second), nothing spent by asking */
    uint64_t wait = addrrate_take(r, "10.0.0.1", 1000);
    ck_assert_uint_ge(wait, 99);
    ck_assert_uint_le(wait, 101);
    ck_assert_uint_gt(addrrate_take(r, "10.0.0.1", 1050), 0);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 1100, 1000), 1);
    /* refused knocks spent nothing: a second, ten more */
    for (uint64_t t = 1100; t < 1190; t += 7)
        ck_assert_uint_gt(addrrate_take(r, "10.0.0.1", t), 0);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 2100, 1000), 10);
    /* a long quiet: the burst again, never more */
    ck_assert_int_eq(knocks(r, "10.0.0.1", 1000000, 1000), 50);
    addrrate_free(r);
}
END_TEST

START_TEST(addresses_apart)
{
    addrrate_t *r = addrrate_new(1, 3);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 0, 100), 3);
    ck_assert_int_eq(knocks(r, "10.0.0.2", 0, 100), 3);
    ck_assert_int_eq(knocks(r, "2001:db8::1", 0, 100), 3);
    ck_assert_uint_gt(addrrate_take(r, "10.0.0.1", 0), 0);
    ck_assert_int_eq(addrrate_count(r), 3);
    /* no address (a Unix socket's before it is named) is never counted */
    ck_assert_uint_eq(addrrate_take(r, "", 0), 0);
    ck_assert_uint_eq(addrrate_take(r, NULL, 0), 0);
    ck_assert_int_eq(addrrate_count(r), 3);
    addrrate_free(r);
}
END_TEST

START_TEST(a_clock_behind_is_no_time)
{
    addrrate_t *r = addrrate_new(1000, 2);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 5000, 100), 2);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 4000, 100), 0); /* another loop's clock */
    ck_assert_int_eq(knocks(r, "10.0.0.1", 5001, 100), 1);
    addrrate_free(r);
}
END_TEST

START_TEST(off_and_null)
{
    ck_assert_ptr_null(addrrate_new(0, 100));
    for (int i = 0; i < 10000; i++)
        ck_assert_uint_eq(addrrate_take(NULL, "10.0.0.1", 0), 0);
    /* a burst of 0 is a burst of 1 */
    addrrate_t *r = addrrate_new(1, 0);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 0, 100), 1);
    addrrate_free(r);
    addrrate_free(NULL);
}
END_TEST

/* Addresses rotating (an IPv6 block) fill the table and no more; the one
 * that knocks all along is never forgotten, and an address forgotten
 * comes back with a full bucket. */
START_TEST(the_table_is_bounded)
{
    addrrate_t *r = addrrate_new(1, 5);
    char a[64];
    ck_assert_int_eq(knocks(r, "10.9.9.9", 0, 100), 5);
    ck_assert_int_eq(knocks(r, "10.0.0.1", 0, 100), 5);
    for (int i = 0; i < 10 * ADDRRATE_SLOTS; i++) {
        snprintf(a, sizeof a, "2001:db8::%x:%x", i >> 16, i & 0xffff);
        ck_assert_uint_eq(addrrate_take(r, a, 0), 0);
        ck_assert_int_le(addrrate_count(r), ADDRRATE_SLOTS);
        if (i % 100 == 0) /* the flood knocks all along */
            ck_assert_uint_gt(addrrate_take(r, "10.9.9.9", 0), 0);
    }
    ck_assert_int_eq(addrrate_count(r), ADDRRATE_SLOTS);
    ck_assert(addrrate_knows(r, "10.9.9.9"));
    ck_assert(addrrate_knows(r, a)); /* the latest */
    /* the oldest went: its bucket is full again, the flood's still empty */
    ck_assert(!addrrate_knows(r, "10.0.0.1"));
    ck_assert(!addrrate_knows(r, "2001:db8::0:0"));
    ck_assert_int_eq(knocks(r, "10.0.0.1", 0, 100), 5);
    ck_assert_int_eq(knocks(r, "10.9.9.9", 0, 100), 0);
    ck_assert_int_eq(addrrate_count(r), ADDRRATE_SLOTS);
    addrrate_free(r);
}
END_TEST

START_TEST(a_long_address_is_cut)
{
    addrrate_t *r = addrrate_new(1, 2);
    char a[200], b[200];
    snprintf(a, sizeof a, "%0100d", 1);
    snprintf(b, sizeof b, "%0100d", 2); /* the same first 63 characters */
    ck_assert_int_eq(knocks(r, a, 0, 100), 2);
    ck_assert_int_eq(knocks(r, b, 0, 100), 0);
    ck_assert_int_eq(addrrate_count(r), 1);
    addrrate_free(r);
}
END_TEST

Suite *suite_server_addrrate(void)
{
    Suite *s = suite_create("server_addrrate");
    TCase *t = tcase_create("addrrate");
    tcase_add_test(t, burst_then_the_rate);
    tcase_add_test(t, addresses_apart);
    tcase_add_test(t, a_clock_behind_is_no_time);
    tcase_add_test(t, off_and_null);
    tcase_add_test(t, the_table_is_bounded);
    tcase_add_test(t, a_long_address_is_cut);
    suite_add_tcase(s, t);
    return s;
}
