/* Unit tests: server/ratelimit — token buckets as the input cap (rate 4x
 * burst) and the chat limit (one line at a time) use them. */
#include <check.h>
#include "ratelimit.h"

START_TEST(burst_then_rate)
{
    ratelimit_t *l = ratelimit_new(100, 400, 1000); /* 100/s, a burst of 400 */
    ck_assert_ptr_nonnull(l);
    ck_assert_uint_eq(ratelimit_take(l, 300, 1000), 300);   /* the burst */
    ck_assert_uint_eq(ratelimit_take(l, 300, 1000), 100);   /* what is left of it */
    ck_assert_uint_eq(ratelimit_take(l, 10, 1000), 0);      /* a flood is dropped */
    ck_assert_uint_eq(ratelimit_take(l, 300, 1500), 50);    /* half a second: 50 more */
    ck_assert_uint_eq(ratelimit_take(l, 1000, 61000), 400); /* a long rest refills the burst only */
    ratelimit_free(l);
    ratelimit_free(NULL);
}
END_TEST

START_TEST(one_at_a_time)
{
    ratelimit_t *chat = ratelimit_new(1.0, 3.0, 0); /* a line a second, three at once */
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(ratelimit_take(chat, 1, 100), 1);
    ck_assert_uint_eq(ratelimit_take(chat, 1, 100), 0);
    ck_assert_uint_eq(ratelimit_take(chat, 1, 900), 0); /* 0.8 of a line: not yet */
    ck_assert_uint_eq(ratelimit_take(chat, 1, 1200), 1);
    ck_assert_uint_eq(ratelimit_take(chat, 1, 1200), 0);
    ratelimit_free(chat);
}
END_TEST

/* A conn handed between loops reads each loop's clock: one a few ms behind
 * the last must not wrap around into a full bucket. */
START_TEST(a_clock_a_little_behind)
{
    ratelimit_t *l = ratelimit_new(100, 400, 1000);
    ck_assert_uint_eq(ratelimit_take(l, 400, 1000), 400);
    ck_assert_uint_eq(ratelimit_take(l, 10, 995), 0);  /* behind: nothing new */
    ck_assert_uint_eq(ratelimit_take(l, 10, 1050), 5); /* 50 ms after the newest reading */
    ratelimit_free(l);
}
END_TEST

Suite *suite_server_ratelimit(void)
{
    Suite *s = suite_create("server_ratelimit");
    TCase *t = tcase_create("ratelimit");
    tcase_add_test(t, burst_then_rate);
    tcase_add_test(t, one_at_a_time);
    tcase_add_test(t, a_clock_a_little_behind);
    suite_add_tcase(s, t);
    return s;
}
