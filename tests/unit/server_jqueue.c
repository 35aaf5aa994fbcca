/* Unit tests: server/jqueue — the journal rows of a game between append
 * and commit: frames only once everything is stored, a failure pauses,
 * held rows come back in order for a retry, a retry that stores them all
 * resumes, and the retry delays. */
#include <check.h>
#include <string.h>
#include "jqueue.h"

static void push(jqueue_t *q, uint64_t seq)
{
    uint8_t k = (uint8_t)('a' + seq % 26);
    const jqueue_row_t *r = jqueue_push(q, seq, &k, 1, (int64_t)seq * 10);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->seq, seq);
}

START_TEST(frame_once_everything_is_stored)
{
    jqueue_t q;
    jqueue_init(&q);
    push(&q, 1);
    push(&q, 2);
    ck_assert(!jqueue_empty(&q));
    ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT); /* row 2 still owed */
    ck_assert_int_eq(jqueue_done(&q, true), JQ_STORED);
    ck_assert(jqueue_empty(&q));
    ck_assert_uint_eq(q.stored, 2);
    for (uint64_t s = 3; s < 200; s++) /* grows and reuses its room */
        push(&q, s);
    for (uint64_t s = 3; s < 199; s++)
        ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_STORED);
    ck_assert_uint_eq(q.stored, 199);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT); /* nothing owed: ignored */
    jqueue_free(&q);
}
END_TEST

START_TEST(failure_pauses_and_holds_every_later_row)
{
    jqueue_t q;
    jqueue_init(&q);
    push(&q, 1);
    push(&q, 2);
    push(&q, 3);
    push(&q, 4);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_PAUSED); /* row 2: the first failure */
    ck_assert(jqueue_paused(&q));
    ck_assert(!jqueue_retry_due(&q));                                   /* 3 and 4 still owed */
    ck_assert_ptr_null(jqueue_push(&q, 5, (const uint8_t *)"x", 1, 0)); /* no keys now */
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert(jqueue_retry_due(&q));
    ck_assert_uint_eq(jqueue_unstored(&q), 3);
    ck_assert_uint_eq(q.stored, 1);

    size_t n;
    const jqueue_row_t *r = jqueue_take_held(&q, &n);
    ck_assert_uint_eq(n, 3);
    for (size_t i = 0; i < n; i++) { /* in order, with their keys and times */
        ck_assert_uint_eq(r[i].seq, 2 + i);
        ck_assert_uint_eq(r[i].len, 1);
        ck_assert_uint_eq(r[i].keys[0], 'a' + (2 + i) % 26);
        ck_assert_int_eq(r[i].ms, (int64_t)(2 + i) * 10);
    }
    ck_assert(!jqueue_retry_due(&q));
    jqueue_take_held(&q, &n);
    ck_assert_uint_eq(n, 0); /* nothing more while they are in flight */

    /* the retry fails again at once: still paused, no second PAUSED */
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert(jqueue_retry_due(&q));

    /* the next retry stores part, then all */
    jqueue_take_held(&q, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT);
    ck_assert(jqueue_paused(&q)); /* keys still wait: 3 and 4 are not stored */
    ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_RESUMED);
    ck_assert(!jqueue_paused(&q));
    ck_assert(jqueue_empty(&q));
    ck_assert_uint_eq(q.stored, 4);
    push(&q, 5);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_STORED);
    jqueue_free(&q);
}
END_TEST

/* A retry that stores the first held rows and fails on a later one keeps
 * only the rest, in order. */
START_TEST(partial_retry_keeps_the_rest)
{
    jqueue_t q;
    jqueue_init(&q);
    for (uint64_t s = 1; s <= 5; s++)
        push(&q, s);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_PAUSED);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    size_t n;
    jqueue_take_held(&q, &n);
    ck_assert_uint_eq(n, 5);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, true), JQ_WAIT);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    const jqueue_row_t *r = jqueue_take_held(&q, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(r[0].seq, 3);
    ck_assert_uint_eq(r[2].seq, 5);
    ck_assert_uint_eq(q.stored, 2);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert_int_eq(jqueue_done(&q, false), JQ_WAIT);
    ck_assert_uint_eq(jqueue_drop_held(&q), 3); /* given up at shutdown */
    ck_assert(jqueue_empty(&q));
    ck_assert_ptr_null(jqueue_push(&q, 9, (const uint8_t *)"123456789", 9, 0)); /* too long */
    jqueue_free(&q);
}
END_TEST

START_TEST(backoff_doubles_to_five_seconds)
{
    static const uint32_t want[] = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
    uint32_t d = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        d = jqueue_backoff(d);
        ck_assert_uint_eq(d, want[i]);
    }
}
END_TEST

Suite *suite_server_jqueue(void)
{
    Suite *s = suite_create("server_jqueue");
    TCase *tc = tcase_create("jqueue");
    tcase_add_test(tc, frame_once_everything_is_stored);
    tcase_add_test(tc, failure_pauses_and_holds_every_later_row);
    tcase_add_test(tc, partial_retry_keeps_the_rest);
    tcase_add_test(tc, backoff_doubles_to_five_seconds);
    suite_add_tcase(s, tc);
    return s;
}
