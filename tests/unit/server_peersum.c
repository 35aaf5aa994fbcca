/* Unit tests: server/peersum — what a node's heartbeat says of its games:
 * what one node writes the other reads back (texts with spaces or odd
 * bytes too, sorted by game, found by id), and bad text refused whole
 * with a message. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "peersum.h"

static const peersum_game_t A = {.game = 42,
                                 .depth = 3,
                                 .max_depth = 5,
                                 .xl = 4,
                                 .w = 80,
                                 .h = 24,
                                 .turn = 1234,
                                 .idle_ms = 9000,
                                 .race = "human",
                                 .cls = "fighter"};

static int parse(const buf_t *b, peersum_game_t **v, size_t *n, const char **why)
{
    return peersum_parse(b->data, b->len, v, n, why);
}

START_TEST(lines_read_back_sorted)
{
    buf_t b;
    buf_init(&b);
    peersum_game_t odd = {.game = 7, .race = "high elf", .cls = "-"}, none = {.game = 9000};
    odd.cls[1] = '%'; /* "-%": a dash that is not the empty mark, and a percent */
    peersum_put(&b, &A);
    peersum_put(&b, &odd);
    peersum_put(&b, &none);
    ck_assert_ptr_null(memchr(b.data, '\0', b.len));
    peersum_game_t *v = NULL;
    size_t n = 0;
    const char *why = NULL;
    ck_assert_int_eq(parse(&b, &v, &n, &why), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(v[0].game, 7);
    ck_assert_str_eq(v[0].race, "high elf");
    ck_assert_str_eq(v[0].cls, "-%");
    const peersum_game_t *a = peersum_find(v, n, 42);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(memcmp(a, &A, sizeof A), 0);
    ck_assert_str_eq(peersum_find(v, n, 9000)->race, "");
    ck_assert_ptr_null(peersum_find(v, n, 8));
    free(v);
    /* nothing said: no games, nothing allocated */
    ck_assert_int_eq(peersum_parse("", 0, &v, &n, &why), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(v);
    buf_free(&b);
}
END_TEST

START_TEST(bad_text_refused_whole)
{
    static const char *const bad[] = {
        "42 3 5 4 1234 80 24 9000 human fighter",        /* not ended */
        "42 3 5 4 1234 80 24 9000 human\n",              /* a field missing */
        "42 3 5 4 1234 80 24 9000 human fighter x\n",    /* one too many */
        "0 3 5 4 1234 80 24 9000 human fighter\n",       /* game 0 */
        "42 -3 5 4 1234 80 24 9000 human fighter\n",     /* a sign */
        "42 3 5 4 1234 9999 24 9000 human fighter\n",    /* wider than a screen */
        "42 3 5 4 99999999999999999999 80 24 9 h f\n",   /* past the range */
        "42 3 5 4 1234 80 24 9000 a%0 fighter\n",        /* a cut escape */
        "42 3 5 4 1234 80 24 9000 a%00 fighter\n",       /* a NUL */
        "42 3 5 4 1234 80 24 9000 abcdefghijklmnop f\n", /* 16 bytes */
        "42  3 5 4 1234 80 24 9000 human fighter\n",     /* an empty field */
        "42 3 5 4 1234 80 24 9000 human fighter\n"
        "42 1 1 1 1 80 24 0 - -\n", /* a game twice */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        peersum_game_t *v = (peersum_game_t *)&A;
        size_t n = 1;
        const char *why = NULL;
        ck_assert_msg(peersum_parse(bad[i], strlen(bad[i]), &v, &n, &why) == -1, "%s", bad[i]);
        ck_assert_ptr_nonnull(why);
        ck_assert_ptr_null(v);
        ck_assert_uint_eq(n, 0);
    }
}
END_TEST

START_TEST(too_many_games_refused)
{
    buf_t b;
    buf_init(&b);
    peersum_game_t g = A;
    for (int i = 0; i <= PEERSUM_GAMES_MAX; i++) {
        g.game = i + 1;
        peersum_put(&b, &g);
    }
    peersum_game_t *v = NULL;
    size_t n = 0;
    const char *why = NULL;
    ck_assert_int_eq(parse(&b, &v, &n, &why), -1);
    ck_assert_str_eq(why, "too many games");
    /* the cap itself is fine: the last line cut */
    size_t last = b.len - 1;
    while (last > 0 && b.data[last - 1] != '\n')
        last--;
    b.len = last;
    ck_assert_int_eq(parse(&b, &v, &n, &why), 0);
    ck_assert_uint_eq(n, PEERSUM_GAMES_MAX);
    free(v);
    buf_free(&b);
}
END_TEST

Suite *suite_server_peersum(void)
{
    Suite *s = suite_create("server_peersum");
    TCase *t = tcase_create("peersum");
    tcase_add_test(t, lines_read_back_sorted);
    tcase_add_test(t, bad_text_refused_whole);
    tcase_add_test(t, too_many_games_refused);
    suite_add_tcase(s, t);
    return s;
}
