/* game_rowmarks — the kept frame compares only the map rows the level
 * marked as written since the last frame (level_t.dirty): each kind of
 * writer of terrain or memory marks its rows, or the frame shows them
 * stale; the check (game_view_t.verify_misses) finds a row left out. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "creature.h"
#include "game.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "render.h"
#include "vision.h"
#include "world.h"

enum { VIEW_W = 132, VIEW_H = 43 }; /* a 100x40 level whole in view: no scrolling */

static void same_frame(const screen_t *a, const screen_t *b, const char *what)
{
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++)
            ck_assert_msg(cell_eq(screen_at(a, x, y), screen_at(b, x, y)),
                          "%s: cell %d,%d is U+%04X, drawn whole U+%04X", what, x, y,
                          (unsigned)screen_at(a, x, y)->ch, (unsigned)screen_at(b, x, y)->ch);
}

/* The kept frame now (marks only) against the frame drawn whole. */
static void kept_equals_whole(game_t *g, const char *what)
{
    game_view_t v = {0};
    const screen_t *f = render_frame(g, VIEW_W, VIEW_H, &v);
    ck_assert_ptr_nonnull(f);
    screen_t *whole = screen_new(VIEW_W, VIEW_H);
    render_full(g, whole, &v);
    same_frame(f, whole, what);
    screen_free(whole);
}

/* The glyph the kept frame shows at level cell (x, y). */
static uint32_t glyph_at(game_t *g, int x, int y)
{
    game_view_t v = {0};
    screen_t *s = screen_new(VIEW_W, VIEW_H);
    render_full(g, s, &v);
    const level_t *lv = level_current(g);
    int ox = -(VIEW_W - lv->w) / 2, oy = -(VIEW_H - 3 - lv->h) / 2;
    uint32_t ch = screen_at(s, x - ox, 1 + y - oy)->ch;
    screen_free(s);
    return ch;
}

/* A closed door farther from the player than the view's reach (vision
 * keeps its view when it opens), with open floor and no creature beside
 * it: its cell, that floor's offset from it in *dx, *dy; -1 if none. */
static int far_door(game_t *g, const level_t *lv, int *dx, int *dy)
{
    static const int8_t D[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (int y = 1; y < lv->h - 1; y++)
        for (int x = 1; x < lv->w - 1; x++) {
            int ax = abs(x - lv->fov_x), ay = abs(y - lv->fov_y);
            if (lv->terrain[y * lv->w + x] != MAP_DOOR_CLOSED ||
                (ax > ay ? ax : ay) <= lv->fov_reach + 1)
                continue;
            for (int d = 0; d < 4; d++)
                if (level_terrain(lv, x + D[d][0], y + D[d][1]) == MAP_FLOOR &&
                    !level_creature_at(g, lv->depth, x + D[d][0], y + D[d][1])) {
                    *dx = D[d][0], *dy = D[d][1];
                    return y * lv->w + x;
                }
        }
    return -1;
}

/* creature.c: a monster bumping a remembered door open far out of the
 * player's sight; the next frame shows it open. */
START_TEST(a_door_opened_out_of_sight_is_drawn_open)
{
    int tried = 0;
    for (uint64_t seed = 1; seed <= 30 && tried < 3; seed++) {
        game_t *g = down_from_town(started(game_new(C, seed, NULL)));
        level_t *lv = level_current(g);
        int dx, dy, door = far_door(g, lv, &dx, &dy);
        if (door < 0) {
            game_free(g);
            continue;
        }
        int x = door % lv->w, y = door / lv->w;
        level_set_seen(lv, door, SEEN_EYES); /* remembered: drawn */
        kept_equals_whole(g, "before");
        uint32_t closed = glyph_at(g, x, y);
        handle_t m =
            creature_spawn(g, (uint16_t)kind_named(C, "goblin sneak"), g->depth, x + dx, y + dy);
        ck_assert_uint_ne(m, HANDLE_NONE);
        kept_equals_whole(g, "spawned");
        ck_assert_int_gt(creature_step(g, m, -dx, -dy), 0);
        ck_assert_uint_eq(lv->terrain[door], MAP_DOOR_OPEN);
        vision_update(g); /* as after a key: out of its reach, the view stands */
        ck_assert_uint_ne(glyph_at(g, x, y), closed);
        kept_equals_whole(g, "door opened");
        tried++;
        game_free(g);
    }
    ck_assert_int_eq(tried, 3);
}
END_TEST

/* itemuse.c: a scroll of magic mapping shows the level's far rows at once. */
START_TEST(magic_mapping_is_drawn_at_once)
{
    game_t *g = down_from_town(started(game_new(C, 5, NULL)));
    level_t *lv = level_current(g);
    kept_equals_whole(g, "before");
    size_t n = (size_t)lv->w * (size_t)lv->h, known = 0;
    for (size_t i = 0; i < n; i++)
        known += lv->seen[i] != 0;
    handle_t s = item_new(g, item_named(C, "scroll of magic mapping"), 1, g->player, 0, 0, 0, NULL);
    ck_assert_uint_ne(s, HANDLE_NONE);
    ck_assert_int_ge(itemuse_use(g, g->player, s, 0, 0), 0);
    vision_update(g);
    size_t now = 0;
    for (size_t i = 0; i < n; i++)
        now += lv->seen[i] != 0;
    ck_assert_uint_gt(now, known + 200); /* most of the level, far rows among them */
    kept_equals_whole(g, "mapped");
    game_free(g);
}
END_TEST

/* The check: a write behind the level's back (no mark) is left out of
 * the kept frame, and with verify_misses the frame is drawn right and
 * the row counted. */
START_TEST(the_check_counts_a_row_left_unmarked)
{
    game_t *g = down_from_town(started(game_new(C, 9, NULL)));
    level_t *lv = level_current(g);
    int dx, dy, door = far_door(g, lv, &dx, &dy);
    ck_assert_int_ge(door, 0);
    level_set_seen(lv, door, SEEN_EYES);
    kept_equals_whole(g, "before");
    lv->terrain[door] = MAP_DOOR_OPEN; /* no mark */
    game_view_t v = {0};
    screen_t *whole = screen_new(VIEW_W, VIEW_H);
    render_full(g, whole, &v);
    const screen_t *f = render_frame(g, VIEW_W, VIEW_H, &v);
    ck_assert_int_ne(memcmp(f->cells, whole->cells, sizeof(cell_t) * VIEW_W * VIEW_H), 0);
    lv->terrain[door] = MAP_DOOR_CLOSED, render_frame(g, VIEW_W, VIEW_H, &v); /* as it was */
    lv->terrain[door] = MAP_DOOR_OPEN;
    uint64_t misses = 0;
    v.verify_misses = &misses;
    f = render_frame(g, VIEW_W, VIEW_H, &v);
    ck_assert_uint_eq(misses, 1);
    same_frame(f, whole, "checked");
    screen_free(whole);
    game_free(g);
}
END_TEST

/* Random games of every kind of key (moves, searches, stairs, travel,
 * explore, the item screens, doors, reading and zapping) at two sizes,
 * every frame checked: no changed row is ever left unmarked, and every
 * kept frame equals the frame drawn whole. */
START_TEST(random_games_leave_no_row_unmarked)
{
    static const char KEYS[] =
        "hjklyubnhjklyubnhjklyubn..ss>>><_oooiq\x1b?\x1b _\r;\x1bgedrEwtzZRcC";
    uint64_t misses = 0;
    int frames = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        int w = seed % 2 ? 80 : VIEW_W, h = seed % 2 ? 24 : VIEW_H;
        screen_t *whole = screen_new(w, h);
        uint32_t r = (uint32_t)seed * 2246822519u;
        for (int i = 0; i < 1500 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            key(g, (uint32_t)(unsigned char)KEYS[(r >> 16) % (sizeof KEYS - 1)]);
            game_view_t v = {.verify_misses = &misses};
            const screen_t *f = render_frame(g, w, h, &v);
            ck_assert_ptr_nonnull(f);
            render_full(g, whole, &v);
            same_frame(f, whole, "random key");
            ck_assert_msg(misses == 0, "seed %llu key %d: a changed row unmarked",
                          (unsigned long long)seed, i);
            frames++;
        }
        screen_free(whole);
        game_free(g);
    }
    ck_assert_int_gt(frames, 3000);
}
END_TEST

Suite *suite_game_rowmarks(void)
{
    Suite *s = suite_create("game_rowmarks");
    TCase *t = tcase_create("marks");
    with_shipped_content(t);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, a_door_opened_out_of_sight_is_drawn_open);
    tcase_add_test(t, magic_mapping_is_drawn_at_once);
    tcase_add_test(t, the_check_counts_a_row_left_unmarked);
    tcase_add_test(t, random_games_leave_no_row_unmarked);
    suite_add_tcase(s, t);
    return s;
}
