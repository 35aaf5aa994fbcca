/* Unit tests: server/peersum — what a node's heartbeat says of its games:
 * what one node writes the other reads back (texts with spaces or odd
 * bytes too, sorted by game, found by id), a hosted game's line with its
 * KEY=VALUE fields, fields of a newer build skipped, and bad text
 * refused whole with a message. */
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

START_TEST(hosted_fields_read_back)
{
    peersum_game_t h = {.game = -77,
                        .depth = 2,
                        .max_depth = 2,
                        .turn = 15,
                        .w = 100,
                        .h = 30,
                        .idle_ms = 120,
                        .kind = "keys",
                        .name = "Key toy 100%",
                        .player = "alice",
                        .user = 3,
                        .min_w = 100,
                        .min_h = 30,
                        .away = true};
    buf_t b;
    buf_init(&b);
    peersum_put(&b, &h);
    peersum_put(&b, &A);
    ck_assert_ptr_nonnull(memmem(b.data, b.len, " name=Key%20toy%20100%25 ", 25));
    peersum_game_t *v = NULL;
    size_t n = 0;
    const char *why = NULL;
    ck_assert_int_eq(parse(&b, &v, &n, &why), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(memcmp(peersum_find(v, n, -77), &h, sizeof h), 0);
    ck_assert_int_eq(memcmp(peersum_find(v, n, 42), &A, sizeof A), 0);
    free(v);
    buf_free(&b);
}
END_TEST

/* What a newer build may add: fields (KEY=VALUE) this one does not know
 * are skipped, the line read as if they were not there. */
START_TEST(unknown_fields_skipped)
{
    static const char *const newer[] = {
        "42 3 5 4 1234 80 24 9000 human fighter shiny=1\n",
        "42 3 5 4 1234 80 24 9000 human fighter new-thing=%41%20b x=- y2=1,2,3\n",
        "42 3 5 4 1234 80 24 9000 human fighter later=whatever=it=is\n",
    };
    for (size_t i = 0; i < sizeof newer / sizeof *newer; i++) {
        peersum_game_t *v = NULL;
        size_t n = 0;
        const char *why = NULL;
        ck_assert_msg(peersum_parse(newer[i], strlen(newer[i]), &v, &n, &why) == 0, "%s: %s",
                      newer[i], why);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(memcmp(&v[0], &A, sizeof A), 0);
        free(v);
    }
    /* as many as the cap, and one past it */
    char line[2048] = "42 3 5 4 1234 80 24 9000 human fighter";
    for (int i = 0; i < PEERSUM_EXTRA_MAX; i++)
        strcat(line, " k=v");
    strcat(line, "\n");
    peersum_game_t *v = NULL;
    size_t n = 0;
    const char *why = NULL;
    ck_assert_int_eq(peersum_parse(line, strlen(line), &v, &n, &why), 0);
    free(v);
    strcpy(line + strlen(line) - 1, " k=v\n");
    ck_assert_int_eq(peersum_parse(line, strlen(line), &v, &n, &why), -1);
    ck_assert_str_eq(why, "a line has too many fields");
    /* a field past its cap */
    strcpy(line, "42 3 5 4 1234 80 24 9000 human fighter k=");
    memset(line + strlen(line), 'v', PEERSUM_FIELD_MAX);
    line[41 + PEERSUM_FIELD_MAX] = 0;
    strcat(line, "\n");
    ck_assert_int_eq(peersum_parse(line, strlen(line), &v, &n, &why), -1);
    ck_assert_str_eq(why, "a field is too long");
}
END_TEST

START_TEST(bad_fields_refused)
{
    static const char *const bad[] = {
        "42 3 5 4 1234 80 24 9000 human fighter shiny\n",              /* not KEY=VALUE */
        "42 3 5 4 1234 80 24 9000 human fighter =1\n",                 /* no key */
        "42 3 5 4 1234 80 24 9000 human fighter Shiny=1\n",            /* a key's byte */
        "42 3 5 4 1234 80 24 9000 human fighter abcdefghijklmnop=1\n", /* a key of 16 */
        "42 3 5 4 1234 80 24 9000 human fighter k=1 \n",               /* a space at the end */
        "42 3 5 4 1234 80 24 9000 human fighter k=%0\n",               /* fine: not read */
        "42 3 5 4 1234 80 24 9000 human fighter min=9999x30\n",        /* known, out of range */
        "42 3 5 4 1234 80 24 9000 human fighter min=100\n",            /* known, not WxH */
        "42 3 5 4 1234 80 24 9000 human fighter away=2\n",             /* known, not 0 or 1 */
        "42 3 5 4 1234 80 24 9000 human fighter user=-1\n",            /* known, a sign */
        "42 3 5 4 1234 80 24 9000 human fighter kind=%00\n",           /* known, a NUL */
        "-0 3 5 4 1234 80 24 9000 human fighter\n",                    /* game 0 */
        "- 3 5 4 1234 80 24 9000 human fighter\n",                     /* a sign alone */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        peersum_game_t *v = NULL;
        size_t n = 0;
        const char *why = NULL;
        int r = peersum_parse(bad[i], strlen(bad[i]), &v, &n, &why);
        if (i == 5) { /* an unknown field's value is never decoded */
            ck_assert_int_eq(r, 0);
            free(v);
            continue;
        }
        ck_assert_msg(r == -1, "%s", bad[i]);
        ck_assert_ptr_nonnull(why);
        ck_assert_ptr_null(v);
    }
}
END_TEST

Suite *suite_server_peersum(void)
{
    Suite *s = suite_create("server_peersum");
    TCase *t = tcase_create("peersum");
    tcase_add_test(t, lines_read_back_sorted);
    tcase_add_test(t, bad_text_refused_whole);
    tcase_add_test(t, too_many_games_refused);
    tcase_add_test(t, hosted_fields_read_back);
    tcase_add_test(t, unknown_fields_skipped);
    tcase_add_test(t, bad_fields_refused);
    suite_add_tcase(s, t);
    return s;
}
