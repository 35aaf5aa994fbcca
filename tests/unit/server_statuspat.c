/* Unit tests: a hosted game's status pattern (server/core/statuspat.c):
 * depth and turn read off a screen's rows, and what a bad pattern says. */
#include <check.h>
#include <stdint.h>
#include <string.h>
#include "statuspat.h"

#define NH "Dlvl:(?<depth>\\d+).*T:(?<turn>\\d+)"

static const char SCREEN[] = "You hear a door open.\n"
                             "                                  \n"
                             "Agent the Rambler    St:16 Dx:13 Co:18 In:8 Wi:11 Ch:8 Neutral\n"
                             "Dlvl:3 $:12 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:1234\n";

START_TEST(statuspat_reads_depth_and_turn)
{
    char err[200];
    statuspat_t *p = statuspat_new(NH, err, sizeof err);
    ck_assert_ptr_nonnull(p);
    int depth = -1;
    uint64_t turn = 0;
    ck_assert(statuspat_match(p, SCREEN, strlen(SCREEN), &depth, &turn));
    ck_assert_int_eq(depth, 3);
    ck_assert_uint_eq(turn, 1234);
    /* '.' stays in a row: Dlvl on one row and T: on the next do not match */
    static const char split[] = "Dlvl:4 $:0\nT:99\n";
    depth = 7;
    ck_assert(!statuspat_match(p, split, strlen(split), &depth, &turn));
    ck_assert_int_eq(depth, 7);
    ck_assert_uint_eq(turn, 1234); /* left as it was */
    statuspat_free(p);
}
END_TEST

/* The sample's pattern (deploy/games/nethack.conf): the turn optional, as
 * a player's rc may leave "time" out. */
START_TEST(statuspat_sample_reads_depth_without_the_turn)
{
    char err[200];
    statuspat_t *p = statuspat_new("Dlvl:(?<depth>\\d+)(?:.*T:(?<turn>\\d+))?", err, sizeof err);
    ck_assert_ptr_nonnull(p);
    int depth = -1;
    uint64_t turn = 0;
    ck_assert(statuspat_match(p, SCREEN, strlen(SCREEN), &depth, &turn));
    ck_assert_int_eq(depth, 3);
    ck_assert_uint_eq(turn, 1234);
    static const char notime[] = "Dlvl:5 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0\n";
    ck_assert(statuspat_match(p, notime, strlen(notime), &depth, &turn));
    ck_assert_int_eq(depth, 5);
    ck_assert_uint_eq(turn, 1234); /* no turn shown: left as it was */
    static const char chargen[] = "Shall I pick character's race, role, gender and alignment\n";
    ck_assert(!statuspat_match(p, chargen, strlen(chargen), &depth, &turn));
    statuspat_free(p);
}
END_TEST

START_TEST(statuspat_takes_one_group_and_saturates)
{
    char err[200];
    statuspat_t *p = statuspat_new("Turn: (?<turn>[\\d,]+)", err, sizeof err);
    ck_assert_ptr_nonnull(p);
    int depth = 5;
    uint64_t turn = 0;
    static const char commas[] = "Turn: 12,345\n";
    ck_assert(statuspat_match(p, commas, strlen(commas), &depth, &turn));
    ck_assert_uint_eq(turn, 12345);
    ck_assert_int_eq(depth, 5); /* no depth group: untouched */
    static const char huge[] = "Turn: 99999999999999999999999999999999\n";
    ck_assert(statuspat_match(p, huge, strlen(huge), &depth, &turn));
    ck_assert_uint_eq(turn, UINT64_MAX / 2);
    statuspat_free(p);
}
END_TEST

START_TEST(statuspat_says_what_is_wrong)
{
    char err[200] = "";
    ck_assert_ptr_null(statuspat_new("Dlvl:(?<depth>\\d+", err, sizeof err));
    ck_assert_msg(strstr(err, "at offset 17") && strstr(err, "parenthesis"), "%s", err);
    ck_assert_ptr_null(statuspat_new("Dlvl:\\d+", err, sizeof err));
    ck_assert_msg(strstr(err, "names no group"), "%s", err);
    ck_assert_ptr_null(statuspat_new("(?<depth>\\d+)(?<depth>x)", err, sizeof err));
    ck_assert(err[0]);
}
END_TEST

START_TEST(statuspat_gives_up_on_runaway_backtracking)
{
    char err[200];
    statuspat_t *p = statuspat_new("^(?<turn>(a+)+)$", err, sizeof err);
    ck_assert_ptr_nonnull(p);
    char text[4000];
    memset(text, 'a', sizeof text - 2);
    text[sizeof text - 2] = 'b';
    text[sizeof text - 1] = 0;
    int depth = 0;
    uint64_t turn = 7;
    ck_assert(!statuspat_match(p, text, strlen(text), &depth, &turn)); /* the match limit */
    ck_assert_uint_eq(turn, 7);
    ck_assert(!statuspat_match(NULL, text, strlen(text), &depth, &turn));
    statuspat_free(p);
}
END_TEST

Suite *suite_server_statuspat(void)
{
    Suite *s = suite_create("server.statuspat");
    TCase *t = tcase_create("statuspat");
    tcase_add_test(t, statuspat_reads_depth_and_turn);
    tcase_add_test(t, statuspat_sample_reads_depth_without_the_turn);
    tcase_add_test(t, statuspat_takes_one_group_and_saturates);
    tcase_add_test(t, statuspat_says_what_is_wrong);
    tcase_add_test(t, statuspat_gives_up_on_runaway_backtracking);
    suite_add_tcase(s, t);
    return s;
}
