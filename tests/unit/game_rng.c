/* Unit tests: game/rng — stability and dice. */
#include <check.h>
#include "rng.h"

START_TEST(pcg32_reference_values)
{
    /* The PCG32 reference: seed 42, stream 54 (pcg32-demo output). */
    rng_t r;
    rng_seed(&r, 42u, 54u);
    const uint32_t want[6] = {0xa15c02b7, 0x7b47f409, 0xba1d3330,
                              0x83d2f293, 0xbfa4784b, 0xcbed606e};
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(rng_next(&r), want[i]);
}
END_TEST

START_TEST(below_and_range_bounds)
{
    rng_t r;
    rng_seed(&r, 7, 1);
    for (int i = 0; i < 10000; i++) {
        ck_assert_uint_lt(rng_below(&r, 7), 7);
        int32_t v = rng_range(&r, -3, 3);
        ck_assert(v >= -3 && v <= 3);
    }
    ck_assert_uint_eq(rng_below(&r, 0), 0);
    ck_assert_int_eq(rng_range(&r, 5, 2), 5);
}
END_TEST

START_TEST(dice_parse_and_roll)
{
    dice_t d;
    ck_assert_int_eq(dice_parse("2d6+1", &d), 0);
    ck_assert_int_eq(d.n, 2);
    ck_assert_int_eq(d.sides, 6);
    ck_assert_int_eq(d.bonus, 1);
    ck_assert_int_eq(dice_max(&d), 13);
    ck_assert_int_eq(dice_parse("d20", &d), 0);
    ck_assert_int_eq(d.n, 1);
    ck_assert_int_eq(dice_parse("1d8-2", &d), 0);
    ck_assert_int_eq(d.bonus, -2);
    ck_assert_int_eq(dice_parse("5", &d), 0);
    ck_assert_int_eq(dice_max(&d), 5);
    const char *bad[] = {"", "d", "2d", "2d0", "x", "2d6+", "2d6x", "101d6", "1d1001", "-3"};
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_int_eq(dice_parse(bad[i], &d), -1);
    rng_t r;
    rng_seed(&r, 1, 2);
    dice_parse("3d4+2", &d);
    int seen_min = 0, seen_max = 0;
    for (int i = 0; i < 5000; i++) {
        int v = dice_roll(&d, &r);
        ck_assert(v >= 5 && v <= 14);
        seen_min |= v == 5;
        seen_max |= v == 14;
    }
    ck_assert(seen_min && seen_max);
}
END_TEST

Suite *suite_game_rng(void)
{
    Suite *s = suite_create("game.rng");
    TCase *t = tcase_create("core");
    tcase_add_test(t, pcg32_reference_values);
    tcase_add_test(t, below_and_range_bounds);
    tcase_add_test(t, dice_parse_and_roll);
    suite_add_tcase(s, t);
    return s;
}
