/* Unit tests: snapshots and the state hash — round trips, every truncation,
 * every bit flip, wrong version and wrong content fail with a message;
 * the heap is counted and inside its budget. */
#include <check.h>
#include <string.h>
#include "content.h"
#include "helpers.h"
#include "world.h"

static game_t *played(const content_t *c, uint64_t seed, int keys)
{
    game_t *g = game_new(c, seed, NULL);
    static const char K[] = "hjklyubn..";
    for (int i = 0; i < keys; i++)
        game_input(g, NULL, (key_event_t){(uint32_t)K[(i * 7 + i / 3) % 10], 0});
    return g;
}

START_TEST(round_trip_same_hash_and_screen)
{
    char err[128];
    content_t *c = shipped_content();
    for (uint64_t seed = 1; seed <= 20; seed++) {
        game_t *g = played(c, seed, (int)seed * 5);
        buf_t b;
        buf_init(&b);
        ck_assert_int_eq(game_snapshot(g, &b), 0);
        ck_assert_uint_le(b.len, 4096);
        game_t *h = game_load(c, (const uint8_t *)b.data, b.len, err, sizeof err);
        ck_assert_msg(h != NULL, "%s", err);
        ck_assert_uint_eq(game_hash(g), game_hash(h));
        screen_t *s1 = screen_new(80, 24), *s2 = screen_new(80, 24);
        game_render(g, s1, NULL);
        game_render(h, s2, NULL);
        ck_assert(!memcmp(s1->cells, s2->cells, sizeof(cell_t) * 80 * 24));
        screen_free(s1);
        screen_free(s2);
        buf_free(&b);
        game_free(g);
        game_free(h);
    }
    content_free(c);
}
END_TEST

/* The two halves make the very blob game_snapshot makes, and the state
 * copy no longer depends on the game: it may be packed after the game
 * moved on (or is gone), as the host does on its thread pool. */
START_TEST(state_then_pack_is_the_snapshot)
{
    content_t *c = shipped_content();
    for (uint64_t seed = 1; seed <= 5; seed++) {
        game_t *g = played(c, seed, 40);
        buf_t whole, state, packed;
        buf_init(&whole);
        buf_init(&state);
        buf_init(&packed);
        ck_assert_int_eq(game_snapshot(g, &whole), 0);
        ck_assert_int_eq(game_snapshot_state(g, &state), 0);
        uint64_t h = game_hash(g);
        game_input(g, NULL, (key_event_t){'l', 0}); /* the game moves on... */
        game_free(g);                               /* ...or goes */
        ck_assert_int_eq(game_snapshot_pack(&state, &packed), 0);
        ck_assert_uint_eq(packed.len, whole.len);
        ck_assert(!memcmp(packed.data, whole.data, whole.len));
        char err[128];
        game_t *back = game_load(c, (const uint8_t *)packed.data, packed.len, err, sizeof err);
        ck_assert_msg(back != NULL, "%s", err);
        ck_assert_uint_eq(game_hash(back), h);
        game_free(back);
        buf_free(&whole);
        buf_free(&state);
        buf_free(&packed);
    }
    content_free(c);
}
END_TEST

START_TEST(every_truncation_and_bit_flip_fails)
{
    char err[128];
    content_t *c = shipped_content();
    game_t *g = played(c, 3, 30);
    buf_t b;
    buf_init(&b);
    game_snapshot(g, &b);
    uint8_t *d = (uint8_t *)b.data;
    for (size_t len = 0; len < b.len; len++) {
        err[0] = 0;
        ck_assert_ptr_null(game_load(c, d, len, err, sizeof err));
        ck_assert(!strncmp(err, "snapshot: ", 10));
    }
    for (size_t i = 0; i < b.len; i++)
        for (int bit = 0; bit < 8; bit++) {
            d[i] ^= (uint8_t)(1u << bit);
            err[0] = 0;
            game_t *h = game_load(c, d, b.len, err, sizeof err);
            ck_assert_msg(h == NULL, "flip at %zu.%d loaded", i, bit);
            ck_assert(err[0]);
            d[i] ^= (uint8_t)(1u << bit);
        }
    ck_assert_ptr_null(game_load(c, NULL, 0, err, sizeof err));
    d[4]++; /* another format version */
    ck_assert_ptr_null(game_load(c, d, b.len, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "version"));
    d[4]--;
    content_t other = *c;
    memcpy(other.version, "other", 6);
    ck_assert_ptr_null(game_load(&other, d, b.len, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "content"));
    game_t *h = game_load(c, d, b.len, err, sizeof err);
    ck_assert_ptr_nonnull(h);
    game_free(h);
    buf_free(&b);
    game_free(g);
    content_free(c);
}
END_TEST

START_TEST(hash_tracks_state)
{
    content_t *c = shipped_content();
    game_t *a = played(c, 9, 40), *b = played(c, 9, 40), *d = played(c, 10, 40),
           *e = played(c, 9, 41);
    ck_assert_uint_eq(game_hash(a), game_hash(b));
    ck_assert_uint_ne(game_hash(a), game_hash(d));
    ck_assert_uint_ne(game_hash(a), game_hash(e));
    ck_assert_uint_eq(game_seed(a), 9);
    game_free(a);
    game_free(b);
    game_free(d);
    game_free(e);
    content_free(c);
}
END_TEST

START_TEST(heap_counted_and_small)
{
    content_t *c = shipped_content();
    game_t *g = played(c, 5, 100);
    ck_assert_uint_gt(g->al.bytes, sizeof(game_t));
    ck_assert_uint_le(g->al.bytes, 64 * 1024);
    game_status_t st;
    game_status(g, &st);
    ck_assert_int_eq(st.depth, 0); /* the town, where a game begins */
    ck_assert_uint_ge(game_milestone_count(g), 1);
    ck_assert_str_eq(game_milestone(g, 0)->kind, "start");
    buf_t dump;
    buf_init(&dump);
    game_dump(g, &dump);
    ck_assert(dump.len > 100);
    buf_free(&dump);
    game_free(g);
    content_free(c);
}
END_TEST

START_TEST(render_any_size)
{
    content_t *c = shipped_content();
    game_t *g = played(c, 11, 20);
    static const int sizes[][2] = {{20, 5}, {80, 24}, {132, 50}, {300, 120}, {21, 7}};
    for (int i = 0; i < 5; i++) {
        screen_t *s = screen_new(sizes[i][0], sizes[i][1]);
        game_view_t v = {.watchers = 2, .two_cell = i % 2};
        game_render(g, s, &v);
        ck_assert(s->cur_visible); /* the player is always in view */
        const cell_t *at = screen_at(s, s->cur_x, s->cur_y);
        ck_assert_uint_eq(at->ch, '@');
        screen_free(s);
    }
    game_free(g);
    content_free(c);
}
END_TEST

Suite *suite_game_snapshot(void)
{
    Suite *s = suite_create("game_snapshot");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, round_trip_same_hash_and_screen);
    tcase_add_test(t, every_truncation_and_bit_flip_fails);
    tcase_add_test(t, state_then_pack_is_the_snapshot);
    tcase_add_test(t, hash_tracks_state);
    tcase_add_test(t, heap_counted_and_small);
    tcase_add_test(t, render_any_size);
    suite_add_tcase(s, t);
    return s;
}
