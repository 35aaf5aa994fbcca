/* Unit tests: server/peerwire — the node-to-node stream's messages: what
 * one node encodes the other reads back (a keyframe, then only the rows
 * that changed), in pieces as TCP may cut them, what a newer build may
 * add (a message type, fields past the known ones, a HELLO's version)
 * skipped, and bad input refused with a message and nothing applied. */
#include <check.h>
#include <string.h>
#include "peerwire.h"

static screen_t *drawn(const char *top)
{
    screen_t *s = screen_new(80, 24);
    screen_text(s, 0, 0, (style_t){3, SCREEN_DEFAULT_COLOR, ATTR_BOLD}, top);
    screen_text(s, 0, 23, STYLE_DEFAULT, "status line");
    screen_cursor(s, 5, 7, true);
    return s;
}

static int next(const buf_t *b, size_t *used, peer_msg_t *m, const char **why)
{
    return peerwire_next((const uint8_t *)b->data, b->len, used, m, why);
}

START_TEST(keyframe_then_changed_rows)
{
    screen_t *a = drawn("@ the map"), *mirror = screen_new(10, 3);
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(peerwire_screen(&b, 42, a, NULL), 24);
    size_t used;
    peer_msg_t m;
    const char *why = NULL;
    ck_assert_int_eq(next(&b, &used, &m, &why), 1);
    ck_assert_uint_eq(used, b.len);
    ck_assert(m.type == PEER_SCREEN && m.game == 42 && (m.flags & PEER_KEYFRAME));
    ck_assert_int_eq(peerwire_apply(&m, mirror, &why), 0);
    ck_assert_int_eq(mirror->w, 80);
    ck_assert_int_eq(memcmp(mirror->cells, a->cells, sizeof(cell_t) * 80 * 24), 0);
    ck_assert(mirror->cur_x == 5 && mirror->cur_y == 7 && mirror->cur_visible);
    /* one row changes: one row is sent; nothing changes: nothing */
    screen_t *b2 = drawn("@ the map, moved");
    buf_reset(&b);
    ck_assert_int_eq(peerwire_screen(&b, 42, b2, a), 1);
    ck_assert_int_eq(next(&b, &used, &m, &why), 1);
    ck_assert(!(m.flags & PEER_KEYFRAME) && m.nrows == 1);
    ck_assert_int_eq(peerwire_apply(&m, mirror, &why), 0);
    ck_assert_int_eq(memcmp(mirror->cells, b2->cells, sizeof(cell_t) * 80 * 24), 0);
    buf_reset(&b);
    ck_assert_int_eq(peerwire_screen(&b, 42, b2, b2), 0);
    ck_assert_uint_eq(b.len, 0);
    buf_free(&b);
    screen_free(a);
    screen_free(b2);
    screen_free(mirror);
}
END_TEST

START_TEST(messages_in_pieces)
{
    buf_t b;
    buf_init(&b);
    peerwire_hello(&b, "secret", "n2", PEER_VERSION);
    peerwire_game(&b, PEER_WATCH, 7);
    peerwire_gone(&b, 7, "That game is over.");
    size_t at = 0, used;
    peer_msg_t m;
    const char *why = NULL;
    for (size_t cut = 0; cut < 5; cut++) /* a prefix is never a message */
        ck_assert_int_eq(peerwire_next((const uint8_t *)b.data, cut, &used, &m, &why), 0);
    ck_assert_int_eq(peerwire_next((const uint8_t *)b.data, b.len, &used, &m, &why), 1);
    ck_assert(m.type == PEER_HELLO && !strcmp(m.secret, "secret") && !strcmp(m.node, "n2"));
    at += used;
    ck_assert_int_eq(peerwire_next((const uint8_t *)b.data + at, b.len - at, &used, &m, &why), 1);
    ck_assert(m.type == PEER_WATCH && m.game == 7);
    at += used;
    ck_assert_int_eq(peerwire_next((const uint8_t *)b.data + at, b.len - at, &used, &m, &why), 1);
    ck_assert(m.type == PEER_GONE && !strcmp(m.reason, "That game is over."));
    ck_assert_uint_eq(at + used, b.len);
    buf_free(&b);
}
END_TEST

/* b's one message with byte i set to v: refused, with a message. */
static void refused(buf_t *b, size_t i, uint8_t v)
{
    uint8_t copy[8192];
    ck_assert_uint_le(b->len, sizeof copy);
    memcpy(copy, b->data, b->len);
    copy[i] = v;
    size_t used;
    peer_msg_t m;
    const char *why = NULL;
    ck_assert_int_eq(peerwire_next(copy, b->len, &used, &m, &why), -1);
    ck_assert_ptr_nonnull(why);
}

START_TEST(bad_input_refused)
{
    buf_t b;
    buf_init(&b);
    peerwire_game(&b, PEER_WATCH, 7);
    refused(&b, 0, 0x7F); /* a length past the cap */
    refused(&b, 3, 5);    /* a length that cuts the game id */
    screen_t *s = screen_new(4, 2);
    screen_text(s, 0, 0, STYLE_DEFAULT, "ab");
    buf_reset(&b);
    peerwire_screen(&b, 1, s, NULL);
    /* length 4, type 1, game 8, w 13, h 15, cx 17, cy 19, flags 21,
     * rows 22; row 0 at 24 (y, then 4 cells of 8), row 1 at 58 */
    refused(&b, 14, 0);    /* width 0 */
    refused(&b, 20, 9);    /* cursor row past the screen */
    refused(&b, 58, 1);    /* the second row's y past the screen (0x101) */
    refused(&b, 27, 0xFF); /* a cell's code point past U+10FFFF */
    refused(&b, 23, 1);    /* a keyframe naming one row */
    /* a change to a screen of another size is not applied */
    screen_t *other = screen_new(80, 24);
    screen_t *s2 = screen_new(4, 2);
    screen_text(s2, 0, 1, STYLE_DEFAULT, "cd");
    buf_reset(&b);
    ck_assert_int_eq(peerwire_screen(&b, 1, s2, s), 2);
    size_t used;
    peer_msg_t m;
    const char *why = NULL;
    ck_assert_int_eq(next(&b, &used, &m, &why), 1);
    ck_assert_int_eq(peerwire_apply(&m, other, &why), -1);
    ck_assert_ptr_nonnull(why);
    ck_assert_int_eq(other->w, 80);
    buf_free(&b);
    screen_free(s);
    screen_free(s2);
    screen_free(other);
}
END_TEST

/* A message of type with body[0, n) after it. */
static void raw(buf_t *b, int type, const void *body, size_t n)
{
    uint8_t head[5] = {(uint8_t)((n + 1) >> 24), (uint8_t)((n + 1) >> 16), (uint8_t)((n + 1) >> 8),
                       (uint8_t)(n + 1), (uint8_t)type};
    buf_put(b, head, 5);
    buf_put(b, body, n);
}

START_TEST(newer_builds_skipped)
{
    buf_t b;
    buf_init(&b);
    size_t used;
    peer_msg_t m;
    const char *why = NULL;
    /* a HELLO with no version is of a build before versions; with one, and
     * with fields past it, read as far as known */
    peerwire_hello(&b, "s", "old", 0);
    ck_assert_int_eq(next(&b, &used, &m, &why), 1);
    ck_assert_int_eq(m.version, 1);
    buf_reset(&b);
    peerwire_hello(&b, "s", "new", PEER_VERSION);
    ck_assert_int_eq(next(&b, &used, &m, &why), 1);
    ck_assert_int_eq(m.version, PEER_VERSION);
    static const uint8_t later[] = {1, 's', 3, 'n', 'e', 'w', 0, 9, 'c', 'a', 'p', 's'};
    buf_reset(&b);
    raw(&b, PEER_HELLO, later, sizeof later);
    ck_assert_int_eq(peerwire_next_link((const uint8_t *)b.data, b.len, false, &used, &m, &why), 1);
    ck_assert(m.type == PEER_HELLO && m.version == 9 && !strcmp(m.node, "new"));
    ck_assert_uint_eq(used, b.len);
    /* an unknown type is skipped whole, the next message read after it */
    buf_reset(&b);
    static const uint8_t blob[] = {1, 2, 3, 4, 5, 6, 7};
    raw(&b, 77, blob, sizeof blob);
    static const uint8_t watch[] = {0, 0, 0, 0, 0, 0, 0, 7, 0xAA, 0xBB}; /* and a new field */
    raw(&b, PEER_WATCH, watch, sizeof watch);
    ck_assert_int_eq(next(&b, &used, &m, &why), 1);
    ck_assert_int_eq(m.type, PEER_UNKNOWN);
    ck_assert_uint_eq(used, 5 + sizeof blob);
    ck_assert_int_eq(peerwire_next((const uint8_t *)b.data + used, b.len - used, &used, &m, &why),
                     1);
    ck_assert(m.type == PEER_WATCH && m.game == 7);
    /* but not before a HELLO, nor a HELLO of version 0 */
    ck_assert_int_eq(peerwire_next_link((const uint8_t *)b.data, b.len, false, &used, &m, &why),
                     -1);
    ck_assert_str_eq(why, "a message before HELLO");
    static const uint8_t zero[] = {1, 's', 1, 'n', 0, 0};
    buf_reset(&b);
    raw(&b, PEER_HELLO, zero, sizeof zero);
    ck_assert_int_eq(next(&b, &used, &m, &why), -1);
    /* a SCREEN with bytes past its rows: its rows applied, the rest skipped */
    screen_t *s = drawn("later");
    buf_reset(&b);
    peerwire_screen(&b, 5, s, NULL);
    buf_put(&b, "\x01\x02", 2);
    uint32_t len = (uint32_t)b.len - 4;
    b.data[0] = (char)(len >> 24), b.data[1] = (char)(len >> 16);
    b.data[2] = (char)(len >> 8), b.data[3] = (char)len;
    ck_assert_int_eq(next(&b, &used, &m, &why), 1);
    ck_assert_uint_eq(used, b.len);
    screen_t *mirror = screen_new(80, 24);
    ck_assert_int_eq(peerwire_apply(&m, mirror, &why), 0);
    ck_assert_int_eq(memcmp(mirror->cells, s->cells, sizeof(cell_t) * 80 * 24), 0);
    screen_free(mirror);
    screen_free(s);
    buf_free(&b);
}
END_TEST

Suite *suite_server_peerwire(void)
{
    Suite *s = suite_create("server_peerwire");
    TCase *t = tcase_create("peerwire");
    tcase_add_test(t, keyframe_then_changed_rows);
    tcase_add_test(t, messages_in_pieces);
    tcase_add_test(t, bad_input_refused);
    tcase_add_test(t, newer_builds_skipped);
    suite_add_tcase(s, t);
    return s;
}
