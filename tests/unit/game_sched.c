/* Unit tests: game/sched — order, ties, cancel, cost, save/load. */
#include <check.h>
#include "sched.h"

START_TEST(pops_in_tick_order_ties_by_push_order)
{
    galloc_t al = {0};
    sched_t s;
    sched_init(&s, &al);
    static const uint64_t ticks[] = {500, 100, 300, 100, 700, 300, 100, 0};
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(sched_push(&s, ticks[i], 1, (handle_t)(i + 1), i, 0), 0);
    static const int want[] = {7, 1, 3, 6, 2, 5, 0, 4};
    event_t e;
    for (int i = 0; i < 8; i++) {
        ck_assert(sched_pop(&s, &e));
        ck_assert_int_eq(e.arg[0], want[i]);
        ck_assert_uint_eq(s.now, ticks[want[i]]);
    }
    ck_assert(!sched_pop(&s, &e));
    /* the past is gone: an event pushed before now runs at now */
    sched_push(&s, 5, 1, 1, 0, 0);
    ck_assert(sched_pop(&s, &e));
    ck_assert_uint_eq(e.tick, 700);
    sched_free(&s);
    ck_assert_uint_eq(al.bytes, 0);
}
END_TEST

START_TEST(many_events_sorted)
{
    galloc_t al = {0};
    sched_t s;
    sched_init(&s, &al);
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 5000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        sched_push(&s, x % 1000, 2, 1, i, 0);
    }
    event_t e, prev = {0};
    for (int i = 0; i < 5000; i++) {
        ck_assert(sched_pop(&s, &e));
        if (i)
            ck_assert(e.tick > prev.tick || (e.tick == prev.tick && e.seq > prev.seq));
        prev = e;
    }
    sched_free(&s);
}
END_TEST

START_TEST(cancel_by_handle)
{
    galloc_t al = {0};
    sched_t s;
    sched_init(&s, &al);
    for (int i = 0; i < 30; i++)
        sched_push(&s, (uint64_t)(i * 7 % 13), 1, (handle_t)(i % 3 + 1), i, 0);
    ck_assert_int_eq(sched_cancel(&s, 2), 10);
    ck_assert_int_eq(sched_cancel(&s, 2), 0);
    event_t e, prev = {0};
    int n = 0;
    while (sched_pop(&s, &e)) {
        ck_assert_uint_ne(e.target, 2);
        if (n++)
            ck_assert(e.tick > prev.tick || (e.tick == prev.tick && e.seq > prev.seq));
        prev = e;
    }
    ck_assert_int_eq(n, 20);
    sched_free(&s);
}
END_TEST

START_TEST(speed_scales_cost)
{
    ck_assert_uint_eq(sched_cost(SCHED_MOVE, 100), 100);
    ck_assert_uint_eq(sched_cost(SCHED_DIAG, 100), 141);
    ck_assert_uint_eq(sched_cost(SCHED_MOVE, 200), 50);
    ck_assert_uint_eq(sched_cost(SCHED_MOVE, 50), 200);
    ck_assert_uint_eq(sched_cost(SCHED_MOVE, 150), 67);
    ck_assert_uint_eq(sched_cost(1, 10000), 1);
    ck_assert_uint_eq(sched_cost(SCHED_MOVE, 0), 10000);
}
END_TEST

START_TEST(save_load_same_future)
{
    galloc_t al = {0};
    sched_t a, b;
    sched_init(&a, &al);
    sched_init(&b, &al);
    for (int i = 0; i < 50; i++)
        sched_push(&a, (uint64_t)(i * 31 % 17) * 10, (uint16_t)(i % 4), (handle_t)i + 1, i, -i);
    event_t e;
    for (int i = 0; i < 10; i++)
        sched_pop(&a, &e);
    buf_t buf;
    buf_init(&buf);
    ser_t s;
    ser_init(&s, &buf);
    sched_save(&a, &s);
    rd_t in;
    rd_init(&in, (const uint8_t *)buf.data, buf.len);
    ck_assert_int_eq(sched_load(&b, &in, 4), 0);
    ck_assert_uint_eq(a.now, b.now);
    sched_push(&a, a.now + 5, 3, 99, 0, 0);
    sched_push(&b, b.now + 5, 3, 99, 0, 0);
    event_t ea, eb;
    while (sched_pop(&a, &ea)) {
        ck_assert(sched_pop(&b, &eb));
        ck_assert_uint_eq(ea.tick, eb.tick);
        ck_assert_uint_eq(ea.seq, eb.seq);
        ck_assert_uint_eq(ea.target, eb.target);
        ck_assert_int_eq(ea.arg[1], eb.arg[1]);
    }
    ck_assert(!sched_pop(&b, &eb));
    /* an unknown function id is refused */
    sched_t c;
    sched_init(&c, &al);
    rd_init(&in, (const uint8_t *)buf.data, buf.len);
    ck_assert_int_eq(sched_load(&c, &in, 2), -1);
    sched_free(&c);
    for (size_t len = 0; len < buf.len; len++) {
        sched_init(&c, &al);
        rd_init(&in, (const uint8_t *)buf.data, len);
        ck_assert_int_eq(sched_load(&c, &in, 4), -1);
        sched_free(&c);
    }
    buf_free(&buf);
    sched_free(&a);
    sched_free(&b);
    ck_assert_uint_eq(al.bytes, 0);
}
END_TEST

Suite *suite_game_sched(void)
{
    Suite *s = suite_create("game_sched");
    TCase *t = tcase_create("core");
    tcase_add_test(t, pops_in_tick_order_ties_by_push_order);
    tcase_add_test(t, many_events_sorted);
    tcase_add_test(t, cancel_by_handle);
    tcase_add_test(t, speed_scales_cost);
    tcase_add_test(t, save_load_same_future);
    suite_add_tcase(s, t);
    return s;
}
