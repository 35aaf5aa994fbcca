/* game_view — what the view reuses between keys: the field of view (kept
 * until the viewer moves, the light changes or a cell in its reach changes
 * opacity) must equal a fresh one every time. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ansi.h"
#include "fov.h"
#include "game.h"
#include "helpers.h"
#include "level.h"
#include "item.h"
#include "json.h"
#include "mapgen.h"
#include "prompt.h"
#include "render.h"
#include "status.h"
#include "vision.h"
#include "world.h"

/* A fresh view of the live level (the cache forgotten), into vis. */
static void fresh_view(game_t *g, uint8_t *vis, uint8_t *seen)
{
    level_t *lv = level_current(g);
    size_t n = (size_t)lv->w * (size_t)lv->h;
    lv->fov_ok = 0;
    vision_update(g);
    memcpy(vis, lv->vis, n);
    memcpy(seen, lv->seen, n);
}

/* Random walks (moves, waits, searches, stairs) on many seeds: after every
 * key the kept view and memory equal a fresh computation; a good share
 * of the keys left the viewer where it was (the view kept). */
START_TEST(kept_view_equals_fresh_on_random_walks)
{
    static const char KEYS[] = "hjklyubnhjklyubn.s><";
    int kept = 0, total = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        uint32_t r = (uint32_t)seed * 2654435761u;
        for (int i = 0; i < 400 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            level_t *lv = level_current(g);
            const obj_t *p = reg_get(&g->reg, g->player);
            int px = p->x, py = p->y, depth = g->depth;
            key(g, (uint32_t)KEYS[(r >> 16) % (sizeof KEYS - 1)]);
            lv = level_current(g);
            p = reg_get(&g->reg, g->player);
            if (!lv || !lv->vis || !p)
                continue;
            size_t n = (size_t)lv->w * (size_t)lv->h;
            uint8_t *vis = malloc(n), *seen = malloc(n), *vis2 = malloc(n), *seen2 = malloc(n);
            memcpy(vis, lv->vis, n);
            memcpy(seen, lv->seen, n);
            kept += lv->fov_ok && p->x == px && p->y == py && g->depth == depth;
            total++;
            fresh_view(g, vis2, seen2);
            ck_assert_msg(memcmp(vis, vis2, n) == 0, "seed %llu key %d: kept view differs",
                          (unsigned long long)seed, i);
            ck_assert_msg(memcmp(seen, seen2, n) == 0, "seed %llu key %d: memory differs",
                          (unsigned long long)seed, i);
            free(vis), free(seen), free(vis2), free(seen2);
        }
        game_free(g);
    }
    ck_assert_int_gt(total, 2000);
    ck_assert_int_gt(kept, total / 20);
}
END_TEST

/* A mark no computation makes (2) on a cell out of view tells whether
 * vision_update kept vis or computed it again. The cell is the nearest
 * to the player out of view, within SIGHT_X columns and SIGHT_Y rows of
 * it, so inside the sight box: vis is 0 outside that box (every writer
 * of vis is the view's), and a scan clears only the box it last covered. */
static size_t plant(level_t *lv, const obj_t *p)
{
    for (int d = 1; d <= SIGHT_Y; d++)
        for (int y = p->y - d; y <= p->y + d; y++)
            for (int x = p->x - d; x <= p->x + d; x++) {
                size_t i = (size_t)y * (size_t)lv->w + (size_t)x;
                if (level_in(lv, x, y) && !lv->vis[i]) {
                    lv->vis[i] = 2;
                    return i;
                }
            }
    ck_abort_msg("no cell out of view near the player");
    return 0;
}

START_TEST(opacity_change_in_reach_sees_again)
{
    game_t *g = alone(C, 3, 0, 0);
    open_room(g, 3);
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert(lv->fov_ok);
    int reach = lv->fov_reach;
    ck_assert_int_ge(reach, 4);
    /* nothing changed: kept */
    size_t mark = plant(lv, p);
    vision_update(g);
    ck_assert_int_eq(lv->vis[mark], 2);
    /* a cell beyond the reach changes opacity: kept */
    int fx = p->x + reach + 1 < lv->w ? p->x + reach + 1 : p->x - reach - 1;
    size_t far = (size_t)p->y * (size_t)lv->w + (size_t)fx;
    lv->terrain[far] = lv->terrain[far] == MAP_WALL ? MAP_FLOOR : MAP_WALL;
    lv->opaque_ok = 0;
    vision_update(g);
    ck_assert_int_eq(lv->vis[mark], 2);
    /* the room's wall east of the player becomes an open door: seen again,
     * and the cell behind it comes into view */
    size_t door = (size_t)p->y * (size_t)lv->w + (size_t)(p->x + 4);
    size_t behind = door + 1;
    lv->terrain[behind] = MAP_FLOOR;
    ck_assert(!lv->vis[behind]);
    lv->terrain[door] = MAP_DOOR_OPEN;
    lv->opaque_ok = 0;
    vision_update(g);
    ck_assert_int_ne(lv->vis[mark], 2);
    ck_assert(lv->vis[behind]);
    /* and closed again: seen again, the cell behind gone from view */
    mark = plant(lv, p);
    lv->terrain[door] = MAP_DOOR_CLOSED;
    lv->opaque_ok = 0;
    vision_update(g);
    ck_assert_int_ne(lv->vis[mark], 2);
    ck_assert(!lv->vis[behind]);
    /* a view made with another light radius (as when blind) is not kept */
    mark = plant(lv, p);
    lv->fov_radius = 1;
    vision_update(g);
    ck_assert_int_ne(lv->vis[mark], 2);
    game_free(g);
}
END_TEST

/* The view and memory the game holds now against a fresh scan of the
 * same level (the current and the kept view forgotten), then every field
 * of both views put back as they were: the game goes on with its own. */
static void check_against_fresh(game_t *g, uint64_t seed, int i)
{
    level_t *lv = level_current(g);
    size_t n = (size_t)lv->w * (size_t)lv->h;
    level_t was = *lv;
    uint8_t *vis = malloc(n), *seen = malloc(n);
    uint64_t kept[VISION_KEPT_WORDS];
    memcpy(vis, lv->vis, n);
    memcpy(seen, lv->seen, n);
    memcpy(kept, lv->kept, sizeof kept);
    lv->fov_ok = 0;
    vision_update(g);
    ck_assert_msg(memcmp(vis, lv->vis, n) == 0, "seed %llu key %d: the view differs",
                  (unsigned long long)seed, i);
    ck_assert_msg(memcmp(seen, lv->seen, n) == 0, "seed %llu key %d: memory differs",
                  (unsigned long long)seed, i);
    memcpy(lv->vis, vis, n);
    memcpy(lv->kept, kept, sizeof kept);
    lv->fov_ok = was.fov_ok, lv->fov_x = was.fov_x, lv->fov_y = was.fov_y;
    lv->fov_radius = was.fov_radius, lv->fov_reach = was.fov_reach;
    lv->kept_ok = was.kept_ok, lv->kept_diff = was.kept_diff;
    lv->kept_x = was.kept_x, lv->kept_y = was.kept_y;
    lv->kept_radius = was.kept_radius, lv->kept_reach = was.kept_reach;
    free(vis), free(seen);
}

/* Walks to and fro (a step and the step back, doors opened and shut,
 * searches, waits, stairs) on many seeds: after every key the view (made
 * again from the one kept on a step back, or by a scan) and the memory
 * equal a fresh scan's; many keys were steps back to the kept view. */
START_TEST(step_back_view_equals_fresh)
{
    static const char *const KEYS[] = {"hl", "lh", "jk", "kj", "yn", "nu", "ub", "bu", "h",
                                       "l",  "j",  "k",  "y",  "n",  "ol", "oh", "cl", "ch",
                                       "s",  ".",  ">",  "<",  "oj", "ok", "cj", "ck", "\x1b"};
    int back = 0, total = 0;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        uint32_t r = (uint32_t)seed * 2654435761u;
        for (int i = 0; i < 500 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            const char *k = KEYS[(r >> 16) % (sizeof KEYS / sizeof KEYS[0])];
            for (; *k && g->state == GAME_RUNNING; k++) {
                level_t *lv = level_current(g);
                bool kept = lv && lv->vis && lv->kept_ok;
                int kx = kept ? lv->kept_x : -1, ky = kept ? lv->kept_y : -1;
                key(g, (uint32_t)(unsigned char)*k);
                lv = level_current(g);
                const obj_t *p = reg_get(&g->reg, g->player);
                if (!lv || !lv->vis || !p)
                    continue;
                back += kept && lv->fov_ok && p->x == kx && p->y == ky;
                total++;
                check_against_fresh(g, seed, i);
            }
        }
        game_free(g);
    }
    ck_assert_int_gt(total, 3000);
    ck_assert_int_gt(back, total / 10);
}
END_TEST

/* The level's middle row made floor without traps, end to end, and every
 * region dark: one sight box to walk to and fro in. Returns the row. */
static int dark_floor_row(level_t *lv)
{
    int y = lv->h / 2;
    for (int x = 1; x < lv->w - 1; x++) {
        lv->terrain[y * lv->w + x] = MAP_FLOOR;
        lv->trap[y * lv->w + x] = 0;
    }
    for (int r = 0; r < lv->nregions; r++)
        lv->regions[r].lit = 0;
    return y;
}

/* In a dark corridor (light radius 7) three steps east and back, with a
 * wall put 5 west of the start between: past the reach of the view from
 * where the player stands (8 away), in the reach of the kept one, whose
 * cells behind it it hides. Once through the terrain (vision_derive
 * sees it), once straight into the opacity with the view dropped (as
 * code that changes the map does): the kept view is not taken back. */
START_TEST(kept_view_dropped_by_a_wall_in_its_reach)
{
    for (int how = 0; how < 2; how++) {
        game_t *g = alone(C, 5, 0, 0);
        level_t *lv = level_current(g);
        obj_t *p = reg_get(&g->reg, g->player);
        int y = dark_floor_row(lv);
        p->x = 20, p->y = (int16_t)y;
        reg_refile(&g->reg, g->player);
        lv->opaque_ok = 0;
        vision_update(g);
        ck_assert_int_eq(lv->fov_reach, LIGHT_RADIUS);
        ck_assert(lv->vis[y * lv->w + 14]);
        p->x = 23;
        reg_refile(&g->reg, g->player);
        vision_update(g);
        ck_assert(lv->kept_ok && lv->kept_x == 20);
        if (how == 0) {
            lv->terrain[y * lv->w + 15] = MAP_WALL;
            lv->opaque_ok = 0;
        } else {
            lv->opaque[y * lv->w + 15] = 1;
            lv->fov_ok = 0;
        }
        vision_update(g);
        ck_assert(lv->fov_ok && lv->fov_x == 23);
        p->x = 20;
        reg_refile(&g->reg, g->player);
        vision_update(g);
        ck_assert(!lv->vis[y * lv->w + 14]);
        check_against_fresh(g, 5, how);
        game_free(g);
    }
}
END_TEST

/* The player at x on the row y, and the view seen again. */
static void stand_at(game_t *g, int x)
{
    obj_t *p = reg_get(&g->reg, g->player);
    p->x = (int16_t)x;
    reg_refile(&g->reg, g->player);
    vision_update(g);
}

/* Steps to and fro on a dark floor row (one sight box): the first step
 * back leaves in kept the two views' difference, the next ones flip it;
 * a step elsewhere makes the view again and keeps the one it left whole,
 * and a step back to that one must not flip it as a difference; a wall
 * in the reach of a kept difference drops it. After every step the view
 * and the memory equal a fresh scan's. */
START_TEST(to_and_fro_flips_the_kept_difference)
{
    static const struct {
        int x, diff; /* where the player steps; kept_diff after it */
    } WALK[] = {{21, 0}, {20, 1}, {21, 1}, {20, 1}, {21, 1}, {22, 0}, {21, 1},
                {22, 1}, {23, 0}, {24, 0}, {23, 1}, {24, 1}, {23, 1}, {24, 1}};
    game_t *g = alone(C, 5, 0, 0);
    level_t *lv = level_current(g);
    int y = dark_floor_row(lv);
    obj_t *p = reg_get(&g->reg, g->player);
    p->y = (int16_t)y;
    lv->opaque_ok = 0;
    stand_at(g, 20);
    for (int i = 0; i < (int)(sizeof WALK / sizeof WALK[0]); i++) {
        stand_at(g, WALK[i].x);
        ck_assert_msg(lv->kept_ok && lv->kept_diff == WALK[i].diff, "step %d: kept_diff %d", i,
                      lv->kept_diff);
        ck_assert_int_eq(lv->fov_x, WALK[i].x);
        check_against_fresh(g, 5, i);
    }
    int wall = 23 - LIGHT_RADIUS; /* in the reach of the kept view at 23, not of the one at 24 */
    lv->terrain[y * lv->w + wall] = MAP_WALL;
    lv->opaque_ok = 0;
    vision_update(g);
    ck_assert(lv->fov_ok && lv->fov_x == 24 && !lv->kept_ok);
    stand_at(g, 23);
    ck_assert(lv->vis[y * lv->w + wall] && !lv->kept_diff);
    check_against_fresh(g, 5, 99);
    game_free(g);
}
END_TEST

/* Each row of the live level the render would not compare whole (not in
 * level_t.dirty) changed since the last frame only in the vis of the cells
 * level_t.flips holds, and flip_rows names every row with one (a row
 * flipped and back in one key may stay named, with none): was is vis
 * as the last frame saw it. Returns the cells flipped. */
static int check_flips(const level_t *lv, const uint8_t *was, uint64_t seed, int i)
{
    size_t nw = level_flip_words(lv);
    int flipped = 0;
    for (int y = 0; y < lv->h && y < LEVEL_DIRTY_ROWS; y++) {
        if (level_row_dirty(lv, y))
            continue;
        bool any = false;
        for (int x = 0; x < lv->w; x++) {
            size_t c = (size_t)y * (size_t)lv->w + (size_t)x;
            bool bit = (lv->flips[(size_t)y * nw + (size_t)x / 64] >> (x % 64)) & 1;
            ck_assert_msg(bit == (lv->vis[c] != was[c]),
                          "seed %llu key %d: cell %d,%d flip bit %d, vis %d was %d",
                          (unsigned long long)seed, i, x, y, bit, lv->vis[c], was[c]);
            any |= bit;
            flipped += bit;
        }
        ck_assert_msg(!any || ((lv->flip_rows >> y) & 1), "seed %llu key %d: row %d",
                      (unsigned long long)seed, i, y);
    }
    return flipped;
}

/* Walks to and fro (the kept view flipped back, or put back in another
 * sight box) and random steps on many seeds, a frame after every key:
 * the flips the view records are exactly the cells whose vis changed in
 * the rows it did not mark, and most steps leave rows to them. */
START_TEST(view_flips_name_the_cells_that_changed)
{
    static const char *const KEYS[] = {"hl", "lh", "jk", "kj", "yn", "nu", "h",
                                       "l",  "j",  "k",  ".",  "s",  ">",  "<"};
    int flipped = 0, keys = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        uint8_t *was = NULL;
        uint32_t r = (uint32_t)seed * 2654435761u;
        for (int i = 0; i < 300 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            const char *k = KEYS[(r >> 16) % (sizeof KEYS / sizeof KEYS[0])];
            for (; *k && g->state == GAME_RUNNING; k++) {
                int depth = g->depth;
                key(g, (uint32_t)(unsigned char)*k);
                const level_t *lv = level_current(g);
                if (!lv || !lv->vis)
                    continue;
                if (was && depth == g->depth)
                    flipped += check_flips(lv, was, seed, i), keys++;
                ck_assert_ptr_nonnull(render_frame(g, 80, 24, NULL));
                free(was); /* the next key's reference: vis as this frame took it */
                was = NULL;
                if (lv->flip_rows || lv->dirty) /* a screen over the map: nothing taken */
                    continue;
                size_t n = (size_t)lv->w * (size_t)lv->h;
                was = malloc(n);
                ck_assert_ptr_nonnull(was);
                memcpy(was, lv->vis, n);
            }
        }
        free(was);
        game_free(g);
    }
    ck_assert_int_gt(keys, 1000);
    ck_assert_int_gt(flipped, keys); /* more than a cell a key on the flips alone */
}
END_TEST

/* Whether two grids show the same: every cell and the cursor. */
static void same_screen(const screen_t *a, const screen_t *b, uint64_t seed, int i)
{
    ck_assert_int_eq(a->w, b->w);
    ck_assert_int_eq(a->h, b->h);
    for (int y = 0; y < a->h; y++) {
        if (memcmp(a->cells + y * a->w, b->cells + y * a->w, sizeof(cell_t) * (size_t)a->w) == 0)
            continue; /* the same bytes (padding included): the same cells */
        for (int x = 0; x < a->w; x++)
            ck_assert_msg(cell_eq(screen_at(a, x, y), screen_at(b, x, y)),
                          "seed %llu key %d: cell %d,%d is U+%04X, drawn whole U+%04X",
                          (unsigned long long)seed, i, x, y, (unsigned)screen_at(a, x, y)->ch,
                          (unsigned)screen_at(b, x, y)->ch);
    }
    ck_assert_int_eq(a->cur_visible, b->cur_visible);
    if (a->cur_visible) {
        ck_assert_int_eq(a->cur_x, b->cur_x);
        ck_assert_int_eq(a->cur_y, b->cur_y);
    }
}

/* Walks over known ground in the town (eight steps one way, eight back,
 * three times: after the first way, nearly every step is to a new place,
 * a scan, and sees nothing not seen before), a frame after every key: a
 * scan's change of sight is recorded as flips of the cells that changed
 * (check_flips), not as rows the render compares whole, and each frame
 * equals the frame drawn whole. */
START_TEST(scans_over_known_ground_flip_the_cells_that_changed)
{
    screen_t *whole = screen_new(80, 24);
    int steps = 0, flipped_only = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = game_new(C, seed, NULL);
        key(g, 'x');
        ck_assert_int_eq(g->depth, 0);
        uint8_t *was = NULL;
        for (int i = 0; i < 3 * 16 * 4 && g->state == GAME_RUNNING; i++) {
            const char *way = i / 64 % 2 ? "jk" : "lh";
            key(g, (uint32_t)(unsigned char)way[i / 8 % 2]);
            const level_t *lv = level_current(g);
            if (was && i >= 16) { /* the first way there and back seen */
                check_flips(lv, was, seed, i);
                steps++;
                flipped_only += !lv->dirty && lv->flip_rows;
            }
            game_view_t v = {0};
            const screen_t *f = render_frame(g, 80, 24, &v);
            ck_assert_ptr_nonnull(f);
            render_full(g, whole, &v);
            same_screen(f, whole, seed, i);
            free(was);
            was = NULL;
            if (lv->flip_rows || lv->dirty)
                continue;
            size_t n = (size_t)lv->w * (size_t)lv->h;
            was = malloc(n);
            ck_assert_ptr_nonnull(was);
            memcpy(was, lv->vis, n);
        }
        free(was);
        game_free(g);
    }
    screen_free(whole);
    ck_assert_int_gt(steps, 500);
    ck_assert_msg(flipped_only * 2 > steps, "%d of %d steps left no row to compare whole",
                  flipped_only, steps);
}
END_TEST

/* Long random games (moves, waits, stairs, item screens, help, history,
 * travel, the look cursor, Esc), watched now and then by a second viewer
 * at another size and with two-cell tiles: every frame drawn from the
 * kept one equals the frame drawn whole, and the kept frame's clean rows
 * are rows that did not change. */
START_TEST(kept_frame_equals_whole_frame)
{
    static const char KEYS[] = "hjklyubnhjklyubnhjklyubn..s><oiq\x1b?\x1b\x10 _\x1b;\x1bgedrEwtzZR";
    int frames = 0, full = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        screen_t *kept = screen_new(80, 24), *whole = screen_new(80, 24);
        screen_t *other = screen_new(100, 30), *other_whole = screen_new(100, 30);
        screen_t *before = screen_new(80, 24);
        uint32_t r = (uint32_t)seed * 2654435761u;
        for (int i = 0; i < 1000 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            key(g, (uint32_t)(unsigned char)KEYS[(r >> 16) % (sizeof KEYS - 1)]);
            game_view_t v = {.watchers = (int)(i / 200 % 2), .hint_tick = (uint32_t)i / 300};
            const screen_t *f = render_frame(g, 80, 24, &v);
            ck_assert_ptr_nonnull(f);
            render_full(g, whole, &v);
            same_screen(f, whole, seed, i);
            for (int y = 0; y < f->h; y++)
                if (!f->dirty[y])
                    ck_assert_msg(memcmp(f->cells + y * f->w, before->cells + y * f->w,
                                         sizeof(cell_t) * (size_t)f->w) == 0,
                                  "seed %llu key %d: row %d changed but is clean",
                                  (unsigned long long)seed, i, y);
            int changed = 0;
            for (int y = 0; y < f->h; y++)
                changed += f->dirty[y] != 0;
            full += changed == f->h;
            frames++;
            screen_copy(before, f);
            game_render(g, kept, &v);
            same_screen(kept, whole, seed, i);
            if ((r >> 8) % 7 == 0) { /* a watcher of another size, now and then */
                game_view_t two = {.two_cell = (r >> 4) % 2 == 0};
                game_render(g, other, &two);
                render_full(g, other_whole, &two);
                same_screen(other, other_whole, seed, i);
            }
        }
        screen_free(kept), screen_free(whole), screen_free(other), screen_free(other_whole);
        screen_free(before);
        game_free(g);
    }
    ck_assert_int_gt(frames, 3000);
    ck_assert_int_lt(full, frames / 4); /* most frames redraw only a few rows */
}
END_TEST

/* Whether region r of n lies under the sky in pattern how: none; two;
 * all but one; every other (too many of both for a short list). */
static bool sky_pattern(int how, int r, int n)
{
    switch (how) {
    case 0: return false;
    case 1: return r == 1 || r == n;
    case 2: return r != 2;
    default: return r % 2 == 0;
    }
}

/* The first region kind of the content with the sky (sky) or without. */
static int16_t region_kind_with(bool sky)
{
    for (int k = 0; k < C->n_regions; k++)
        if (((C->regions[k].flags & RF_SKY) != 0) == sky)
            return (int16_t)k;
    ck_abort_msg("no region kind %s the sky", sky ? "with" : "without");
    return -1;
}

/* The town cut into twelve regions given and taken the sky in four
 * patterns (and a few of its columns and rows out of any region): a map changed in view
 * shows a tile whose sight changed where it lies under no sky, and not
 * under the sky, in every pattern and at every column of wide views
 * (whose tiles' marks cross a word of 64); every kept frame equals the
 * frame drawn whole. */
START_TEST(kept_frame_follows_the_sky_of_each_region)
{
    int16_t sky = region_kind_with(true), ground = region_kind_with(false);
    static const struct {
        int w, h;
    } SIZES[] = {{80, 24}, {132, 43}, {200, 50}};
    for (int how = 0; how < 4; how++) {
        game_t *g = game_new(C, 11 + (uint64_t)how, NULL);
        key(g, 'x');
        ck_assert_int_eq(g->depth, 0);
        level_t *lv = level_current(g);
        enum { REGIONS = 12 }; /* every other: more than the few of both */
        ck_assert_int_eq(level_set_regions(g, lv, REGIONS), 0);
        for (int r = 1; r <= REGIONS; r++)
            lv->regions[r - 1].kind = sky_pattern(how, r, REGIONS) ? sky : ground;
        for (int y = 0; y < lv->h; y++) /* patches, and lines of cells in none */
            for (int x = 0; x < lv->w; x++)
                lv->region[y * lv->w + x] =
                    x % 29 == 7 || y % 11 == 5 ? 0 : (uint8_t)(1 + (x / 7 + y / 3) % REGIONS);
        screen_t *whole[3];
        for (int z = 0; z < 3; z++)
            whole[z] = screen_new(SIZES[z].w, SIZES[z].h);
        uint32_t r = 77u + (uint32_t)how;
        int shown = 0;
        for (int i = 0; i < 600 && g->state == GAME_RUNNING && g->depth == 0; i++) {
            r = r * 1103515245u + 12345u;
            key(g, (uint32_t)(unsigned char)"hjklyubn.hjklyubn"[(r >> 16) % 17]);
            int z = i / 200 % 3; /* a size kept: the kept frame follows it after a few */
            game_view_t v = {0};
            const screen_t *f = render_frame(g, SIZES[z].w, SIZES[z].h, &v);
            if (!f && i % 200 < 3)
                continue;
            ck_assert_ptr_nonnull(f);
            render_full(g, whole[z], &v);
            same_screen(f, whole[z], (uint64_t)how, i);
            shown++;
        }
        ck_assert_int_gt(shown, 500);
        for (int z = 0; z < 3; z++)
            screen_free(whole[z]);
        game_free(g);
    }
}
END_TEST

/* The cells under the sky by the region bytes and kinds (as
 * level_region_kind finds them) against level_t.sky, on the live level
 * after a frame: how many lie under the sky (the test fails on one that
 * differs). */
static int sky_cells_checked(game_t *g, uint64_t seed, const char *when)
{
    level_t *lv = level_current(g);
    if (!lv || !lv->vis)
        return 0;
    ck_assert_msg(lv->sky_ok, "seed %llu %s: the sky not made", (unsigned long long)seed, when);
    int n = 0;
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w; x++) {
            const region_kind_t *rk = level_region_kind(g, lv, x, y);
            bool sky = rk && (rk->flags & RF_SKY);
            ck_assert_msg(level_sky_xy(lv, x, y) == sky, "seed %llu %s: cell %d,%d %s",
                          (unsigned long long)seed, when, x, y,
                          sky ? "left out" : "not under the sky");
            n += sky;
        }
    return n;
}

/* A frame of g checked against the frame drawn whole (unless whole is
 * NULL), then the sky bits. */
static int sky_frame(game_t *g, screen_t *whole, uint64_t seed, const char *when)
{
    game_view_t v = {0};
    const screen_t *f = render_frame(g, 80, 24, &v);
    ck_assert_ptr_nonnull(f);
    if (whole) {
        render_full(g, whole, &v);
        same_screen(f, whole, seed, 0);
    }
    return sky_cells_checked(g, seed, when);
}

static void sky_walk(game_t *g, screen_t *whole, uint64_t seed, int n, const char *when)
{
    uint32_t r = (uint32_t)seed * 2654435761u;
    for (int i = 0; i < n && g->state == GAME_RUNNING; i++) {
        r = r * 1103515245u + 12345u;
        key(g, (uint32_t)(unsigned char)"hjklyubn."[(r >> 16) % 9]);
        sky_frame(g, whole, seed, when);
    }
}

/* The render reads which cells lie under the sky from level_t.sky (a bit
 * a cell, live only, never saved), not from the region bytes: after each
 * frame it holds them in the town walked, on level 1, in the town again
 * (the level made live anew), in the game loaded from a snapshot, and
 * after the town's regions were cut anew and given other kinds between
 * two frames; every frame but those after the cut (whose tiles the kept
 * frame does not know changed: the game never cuts a live level) equals
 * the frame drawn whole. */
START_TEST(sky_bits_follow_the_regions)
{
    int16_t sky = region_kind_with(true), ground = region_kind_with(false);
    screen_t *whole = screen_new(80, 24);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = game_new(C, seed, NULL);
        key(g, 'x');
        ck_assert_int_eq(g->depth, 0);
        sky_walk(g, whole, seed, 30, "in the town");
        ck_assert_int_gt(sky_frame(g, whole, seed, "in the town"), 0);
        ck_assert_int_eq(level_enter(g, 1), 0);
        vision_update(g);
        ck_assert_int_eq(sky_frame(g, whole, seed, "on level 1"), 0);
        sky_walk(g, whole, seed, 10, "on level 1");
        ck_assert_int_eq(level_enter(g, 0), 0);
        vision_update(g);
        ck_assert_int_gt(sky_frame(g, whole, seed, "back in the town"), 0);
        sky_walk(g, whole, seed, 10, "back in the town");
        game_t *back = reloaded(g);
        key(back, '.');
        ck_assert_int_gt(sky_frame(back, whole, seed, "loaded"), 0);
        game_free(back);
        level_t *lv = level_current(g);
        enum { REGIONS = 12 };
        ck_assert_int_eq(level_set_regions(g, lv, REGIONS), 0);
        for (int r = 1; r <= REGIONS; r++)
            lv->regions[r - 1].kind = sky_pattern((int)(seed % 3) + 1, r, REGIONS) ? sky : ground;
        for (int y = 0; y < lv->h; y++)
            for (int x = 0; x < lv->w; x++)
                lv->region[y * lv->w + x] =
                    x % 29 == 7 || y % 11 == 5 ? 0 : (uint8_t)(1 + (x / 7 + y / 3) % REGIONS);
        ck_assert_int_gt(sky_frame(g, NULL, seed, "regions cut anew"), 0);
        sky_walk(g, NULL, seed, 20, "regions cut anew");
        game_free(g);
    }
    screen_free(whole);
}
END_TEST

/* Frames drawn as the daemon draws them, with stamps: each into a grid
 * that is a copy of the last frame sent (screen_copy passes its stamp on),
 * sometimes with a line drawn over it after the game's frame (a notice),
 * sometimes into a grid holding another game's frame, with a frame of the
 * game at another size or its kept frame (game_frame) between; every frame
 * equals the frame drawn whole, its dirty rows are those a copy of all of
 * it would make, and most were given only their changed rows (the grid's
 * stamp held). */
START_TEST(stamped_grid_gets_the_frame_drawn_whole)
{
    static const char KEYS[] = "hjklyubnhjklyubnhjklyubn..s><oiq\x1b?\x1b\x10 _\x1b;\x1bgedrEwtzZR";
    uint64_t stamps = 0;
    int frames = 0, held = 0;
    uint64_t last = 0; /* the stamp the game gave last */
    game_t *other = started(game_new(C, 99, NULL));
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        screen_t *sent = screen_new(80, 24), *grid = screen_new(80, 24);
        screen_t *whole = screen_new(80, 24), *small = screen_new(60, 20);
        screen_t *ref = screen_new(80, 24);
        uint32_t r = (uint32_t)seed * 2654435761u;
        for (int i = 0; i < 800 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            key(g, (uint32_t)(unsigned char)KEYS[(r >> 16) % (sizeof KEYS - 1)]);
            game_view_t v = {.watchers = (int)(i / 200 % 2), .stamps = &stamps};
            if ((r >> 9) % 11 == 0) /* the grid held another game's frame */
                game_render(other, grid, &v);
            if ((r >> 5) % 13 == 0) { /* the game drawn at another size between */
                game_render(g, small, &v);
                last = small->stamp;
            }
            if ((r >> 3) % 17 == 0) /* its kept frame brought up to date between */
                ck_assert_ptr_nonnull(game_frame(g, 80, 24, &v));
            screen_copy(grid, sent);
            screen_clean(grid);
            held += grid->stamp != 0 && grid->stamp == last;
            screen_copy(ref, grid);
            screen_clean(ref);
            game_render(g, grid, &v);
            ck_assert_uint_ne(grid->stamp, 0);
            last = grid->stamp;
            render_full(g, whole, &v);
            same_screen(grid, whole, seed, i);
            screen_copy(ref, whole); /* the rows a copy of it all makes dirty */
            for (int y = 0; y < grid->h; y++)
                ck_assert_int_eq(grid->dirty[y], ref->dirty[y]);
            if ((r >> 12) % 5 == 0) /* a notice over the frame, sent with it */
                screen_text(grid, 0, 2 + (int)(r % 20), STYLE_DEFAULT, "paused: the disk is full");
            screen_t *t = sent; /* the grid becomes the baseline */
            sent = grid;
            grid = t;
            frames++;
        }
        screen_free(sent), screen_free(grid), screen_free(whole), screen_free(small);
        screen_free(ref);
        game_free(g);
    }
    game_free(other);
    ck_assert_int_gt(frames, 2000);
    ck_assert_int_gt(held, frames / 2);
}
END_TEST

/* Walks east and west from the Town's start, running too, every key's
 * frame taken as a session takes it and encoded for xterm-256color: the
 * views that moved sideways get their shifts planned, some rows with a
 * shift that costs exactly what the row drawn in place does (the row is
 * then drawn in place: a tie given to the shift changes these bytes).
 * The bytes are those the encoder wrote before its trials of a row's
 * shifts had a byte budget. */
#define WALK_BYTES 57195
#define WALK_HASH  0x6f2adfeb33a32d45ull
START_TEST(sideways_walks_keep_their_bytes)
{
    ansi_profile_t prof;
    ansi_profile_for_term(&prof, "xterm-256color");
    uint64_t hash = 0xcbf29ce484222325ull, stamps = 0;
    size_t bytes = 0;
    buf_t out;
    buf_init(&out);
    for (uint64_t seed = 2; seed <= 11; seed += 9) {
        game_t *g = game_new(C, seed, NULL); /* in the Town, as it starts */
        ck_assert_ptr_nonnull(g);
        screen_t *grid = screen_new(80, 24), *sent = screen_new(80, 24);
        game_view_t v = {.turns = true, .stamps = &stamps};
        for (int i = 0; i < 3 * 122 && g->state == GAME_RUNNING; i++) {
            int j = i % 122;
            key(g, j < 60 ? 'l' : j < 120 ? 'h' : j == 120 ? 'L' : 'H');
            buf_reset(&out);
            game_render(g, grid, &v);
            ansi_diff(&prof, sent, grid, &out);
            screen_copy(sent, grid);
            screen_clean(sent);
            screen_clean(grid);
            for (size_t k = 0; k < out.len; k++)
                hash = (hash ^ (uint8_t)out.data[k]) * 0x100000001b3ull;
            bytes += out.len;
        }
        screen_free(grid), screen_free(sent);
        game_free(g);
    }
    buf_free(&out);
    ck_assert_msg(bytes == WALK_BYTES && hash == WALK_HASH, "%zu bytes, hash %016llx", bytes,
                  (unsigned long long)hash);
}
END_TEST

/* One frame's encodings from a (the frame before) to b, for each profile
 * and JSON, one after another into out. */
static void encodings(const screen_t *a, const screen_t *b, buf_t *out)
{
    static const char *const TERMS[] = {"xterm-256color", "xterm", "vt100", "dumb"};
    buf_reset(out);
    for (size_t i = 0; i < sizeof TERMS / sizeof TERMS[0]; i++) {
        ansi_profile_t p;
        ansi_profile_for_term(&p, TERMS[i]);
        ansi_diff(&p, a, b, out);
        buf_putc(out, '|');
    }
    json_frame(a, b, 1, out);
}

/* Frames drawn as the daemon draws them now (frames.c): over the last
 * frame sent, in place, each row the frame changes kept first in the
 * loop's one grid (screen_keep_begin), which is made whole only when the
 * frame has ANSI_DIFF_SEARCH_ROWS dirty rows; now and then a notice drawn
 * over the frame after the game's, another game drawn at another size with
 * the same keeping grid between, the game drawn at another size or
 * through game_frame between. Every frame equals the frame drawn whole,
 * every encoding of it (four profiles' diffs and the JSON) is the one made
 * from a whole copy of the frame before, the keeping grid made whole is
 * that frame, and most frames' copies were of their changed rows only
 * (the stamp held) with most rows not kept. */
START_TEST(frame_drawn_in_place_encodes_as_from_a_whole_copy)
{
    static const char KEYS[] = "hjklyubnhjklyubnhjklyubn..s><oiq\x1b?\x1b\x10 _\x1b;\x1bgedrEwtzZR";
    uint64_t stamps = 0;
    int frames = 0, held = 0, partial = 0;
    long kept = 0, rows = 0;
    game_t *other = started(game_new(C, 99, NULL));
    screen_t *before = screen_new(1, 1), *osent = screen_new(100, 30);
    buf_t want, got;
    buf_init(&want);
    buf_init(&got);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        screen_t *sent = screen_new(80, 24), *prev = screen_new(80, 24);
        screen_t *whole = screen_new(80, 24), *small = screen_new(60, 20);
        uint64_t last = 0; /* the stamp the game gave last */
        uint32_t r = (uint32_t)seed * 2654435761u;
        for (int i = 0; i < 600 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            key(g, (uint32_t)(unsigned char)KEYS[(r >> 16) % (sizeof KEYS - 1)]);
            game_view_t v = {.watchers = (int)(i / 200 % 2), .stamps = &stamps};
            if ((r >> 9) % 11 == 0) { /* another game's frame kept its rows there */
                ck_assert_int_eq(screen_keep_begin(osent, before), 0);
                game_render(other, osent, &v);
                screen_keep_end(osent, before);
                screen_clean(osent);
            }
            if ((r >> 5) % 13 == 0) { /* the game drawn at another size between */
                game_render(g, small, &v);
                last = small->stamp;
            }
            if ((r >> 3) % 17 == 0) /* its kept frame brought up to date between */
                ck_assert_ptr_nonnull(game_frame(g, 80, 24, &v));
            held += sent->stamp != 0 && sent->stamp == last;
            if (r % 3 == 0) /* what another game's frame left there */
                screen_fill(before, 0, 0, before->w, before->h, '#', STYLE_DEFAULT);
            ck_assert_int_eq(screen_keep_begin(sent, before), 0);
            game_render(g, sent, &v);
            ck_assert_uint_ne(sent->stamp, 0);
            last = sent->stamp;
            render_full(g, whole, &v);
            same_screen(sent, whole, seed, i);
            if ((r >> 12) % 5 == 0) /* a notice over the frame, sent with it */
                screen_text(sent, 0, 2 + (int)(r % 20), STYLE_DEFAULT, "paused: the disk is full");
            screen_keep_end(sent, before);
            int dirty = 0, n = 0;
            for (int y = 0; y < sent->h; y++) {
                dirty += sent->dirty[y] != 0;
                n += before->dirty[y] != 0;
            }
            kept += n, rows += sent->h;
            if (dirty >= ANSI_DIFF_SEARCH_ROWS)
                screen_keep_whole(before, sent);
            else
                partial += n < sent->h;
            encodings(prev, sent, &want);
            encodings(before, sent, &got);
            ck_assert_msg(got.len == want.len && memcmp(got.data, want.data, got.len) == 0,
                          "seed %llu key %d: the frame's encodings differ",
                          (unsigned long long)seed, i);
            screen_keep_whole(before, sent);
            same_screen(before, prev, seed, i);
            screen_copy(prev, sent); /* what the viewers show now */
            screen_clean(sent);
            frames++;
        }
        screen_free(sent), screen_free(prev), screen_free(whole), screen_free(small);
        game_free(g);
    }
    buf_free(&want);
    buf_free(&got);
    screen_free(before), screen_free(osent);
    game_free(other);
    ck_assert_int_gt(frames, 1500);
    ck_assert_int_gt(held, frames / 2);
    ck_assert_int_gt(partial, frames / 4); /* frames sent from their changed rows alone */
    ck_assert_int_lt(kept, rows / 4);
}
END_TEST

/* Where the map starts on the kept frame: the player's level column (or
 * row) less the screen column (row) its '@' is drawn at. */
static void frame_origin(game_t *g, const screen_t *f, int *ox, int *oy)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    for (int y = 1; y < f->h - 2; y++)
        for (int x = 0; x < f->w; x++)
            if (screen_at(f, x, y)->ch == '@') {
                *ox = p->x - x;
                *oy = p->y - (y - 1);
                return;
            }
    ck_abort_msg("no @ on the frame");
}

/* One key, then the kept frame's map origin on one axis (0: its first
 * column, 1: its first row). */
static int step_view(game_t *g, uint32_t k, int axis)
{
    key(g, k);
    game_view_t v = {0};
    const screen_t *f = render_frame(g, 80, 24, &v);
    ck_assert_ptr_nonnull(f);
    int o[2];
    frame_origin(g, f, &o[0], &o[1]);
    return o[axis];
}

static int step_origin(game_t *g, uint32_t k)
{
    return step_view(g, k, 0);
}

/* A corridor across a level wider than the view: walking its length
 * scrolls the map once (a level of 100 columns is so little wider than a
 * view of 80 that the view shows one end of it or the other: travel
 * across it rewrites the map once, not every time the anchor moves);
 * stepping to and fro where it last scrolled does not scroll it again
 * (the view's anchor follows the player a few cells behind). */
START_TEST(view_stays_put_on_a_walk_to_and_fro)
{
    game_t *g = alone(C, 5, 0, 0);
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(lv->w, 100);
    p->y = (int16_t)(lv->h / 2);
    for (int x = 1; x < lv->w - 1; x++) {
        lv->terrain[p->y * lv->w + x] = MAP_FLOOR;
        lv->trap[p->y * lv->w + x] = 0;
    }
    p->x = 1;
    reg_refile(&g->reg, g->player);
    lv->opaque_ok = 0;
    vision_update(g);
    int o = step_origin(g, '.'), scrolls = 0;
    while (p->x < lv->w - 2) {
        int n = step_origin(g, 'l');
        scrolls += n != o;
        ck_assert_msg(n == 0 || n == lv->w - 80, "the view starts at column %d", n);
        o = n;
    }
    ck_assert_int_eq(scrolls, 1);
    scrolls = 0;
    while (p->x > 1 && !scrolls) { /* back west to where the map scrolls */
        int n = step_origin(g, 'h');
        scrolls += n != o;
        o = n;
    }
    ck_assert_int_eq(scrolls, 1);
    for (int i = 0; i < 20; i++) {
        int n = step_origin(g, i % 2 ? 'h' : 'l');
        ck_assert_msg(n == o, "step %d: the map scrolled from %d to %d", i, o, n);
    }
    game_free(g);
}
END_TEST

/* The anchor's rule on its own: it stands while the player stays in its
 * band; past it, it moves across to the player and down only as far as
 * it must; off the level it comes to the player. */
START_TEST(anchor_rule_band_and_moves)
{
    static const int SLACK[2] = {ANCHOR_SLACK_X, ANCHOR_SLACK_Y};
    for (int axis = 0; axis < 2; axis++)
        for (int a = 0; a < 60; a++)
            for (int p = 0; p < 60; p++) {
                int n = vision_anchor_axis(axis, a, p, 60), d = p > a ? p - a : a - p;
                ck_assert_int_le(abs(p - n), SLACK[axis]);
                if (d <= SLACK[axis])
                    ck_assert_int_eq(n, a);
                else if (axis == 0)
                    ck_assert_int_eq(n, p);
                else
                    ck_assert_int_eq(abs(n - a), d - SLACK[axis]);
            }
    ck_assert_int_eq(vision_anchor_axis(1, 70, 12, 60), 12);
    ck_assert_int_eq(vision_anchor_axis(0, -1, 12, 60), 12);
}
END_TEST

static int step_row(game_t *g, uint32_t k)
{
    return step_view(g, k, 1);
}

/* A corridor down a level taller than the view (21 rows at 80x24):
 * walking it the map scrolls a row at a time at most, the player always
 * a quarter of the view (5 rows) from the edges the map goes on past;
 * walking to and fro between two rows 10 apart (they fit one view with
 * those margins) moves it once at most, then never again; steps inside
 * the band never move it. */
START_TEST(view_moves_least_down_and_stays_to_and_fro)
{
    game_t *g = alone(C, 5, 0, 0);
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    ck_assert_int_ge(lv->h, 40);
    p->x = (int16_t)(lv->w / 2);
    for (int y = 1; y < lv->h - 1; y++) {
        lv->terrain[y * lv->w + p->x] = MAP_FLOOR;
        lv->trap[y * lv->w + p->x] = 0;
    }
    p->y = 1;
    reg_refile(&g->reg, g->player);
    lv->opaque_ok = 0;
    vision_update(g);
    int o = step_row(g, '.'), vh = 21, q = vh / 4;
    while (p->y < lv->h - 2) {
        int n = step_row(g, 'j');
        ck_assert_msg(n - o == 0 || n - o == 1, "row %d: the view moved %d rows", p->y, n - o);
        ck_assert_msg((n == 0 || p->y - n >= q) && (n + vh >= lv->h || n + vh - 1 - p->y >= q),
                      "row %d: the view starts at row %d", p->y, n);
        o = n;
    }
    while (p->y > 20) /* up to the first of the two places */
        o = step_row(g, 'k');
    int moves = 0;
    for (int trip = 0; trip < 6; trip++)
        for (int i = 0; i < 10; i++) {
            int n = step_row(g, trip % 2 ? 'k' : 'j');
            moves += n != o;
            ck_assert_msg(trip < 2 || n == o, "trip %d: the view moved from %d to %d", trip, o, n);
            o = n;
        }
    ck_assert_int_le(moves, 1);
    game_free(g);
}
END_TEST

/* The terrain cell of the kept frame showing level cell i. */
static const cell_t *drawn(game_t *g, const screen_t *f, size_t i)
{
    level_t *lv = level_current(g);
    int ox, oy;
    frame_origin(g, f, &ox, &oy);
    int x = (int)(i % (size_t)lv->w) - ox, y = (int)(i / (size_t)lv->w) - oy + 1;
    return x >= 0 && x < f->w && y >= 1 && y < f->h - 2 ? screen_at(f, x, y) : NULL;
}

/* A cell seen before and out of view now, on the frame: the first such
 * cell of terrain t; NULL when there is none on view. */
static const cell_t *remembered(game_t *g, const screen_t *f, uint8_t t)
{
    level_t *lv = level_current(g);
    for (size_t i = 0; i < (size_t)lv->w * (size_t)lv->h; i++)
        if ((lv->seen[i] & SEEN_EYES) && !lv->vis[i] && lv->terrain[i] == t && drawn(g, f, i))
            return drawn(g, f, i);
    return NULL;
}

/* Under the town's open sky, ground once seen keeps its colours out of
 * view; in the dungeon it is drawn dim grey. */
START_TEST(town_ground_keeps_its_colours_out_of_view)
{
    game_t *g = game_new(C, 7, NULL);
    key(g, 'x');
    ck_assert_int_eq(g->depth, 0);
    game_view_t v = {0};
    const cell_t *cl = NULL;
    for (int i = 0; i < 40 && !cl; i++) {
        key(g, (uint32_t) "lljjkkhh"[i % 8]);
        cl = remembered(g, render_frame(g, 80, 24, &v), MAP_GRASS);
    }
    ck_assert_ptr_nonnull(cl);
    ck_assert_int_eq(cl->ch, '"');
    ck_assert_int_eq(cl->fg, C->terrain[MAP_GRASS].fg);
    ck_assert_int_eq(cl->attr & ATTR_DIM, 0);
    down_from_town(g);
    cl = NULL;
    for (int i = 0; i < 200 && !cl; i++) {
        key(g, (uint32_t) "hjklyubn"[(i / 5) % 8]);
        cl = remembered(g, render_frame(g, 80, 24, &v), MAP_FLOOR);
    }
    ck_assert_ptr_nonnull(cl);
    ck_assert_int_eq(cl->fg, 8);
    ck_assert_int_ne(cl->attr & ATTR_DIM, 0);
    game_free(g);
}
END_TEST

/* The first cell of terrain t known and never seen (SEEN_MAP alone) on
 * the frame; NULL when there is none on view. */
static const cell_t *known_unseen(game_t *g, const screen_t *f, uint8_t t)
{
    level_t *lv = level_current(g);
    for (size_t i = 0; i < (size_t)lv->w * (size_t)lv->h; i++)
        if (lv->seen[i] == SEEN_MAP && lv->terrain[i] == t && drawn(g, f, i))
            return drawn(g, f, i);
    return NULL;
}

/* The home town known from the start: on the first frame a shop's door
 * never seen is drawn, dim, where travel can go; a wall never seen, and
 * grass, stay blank until seen. */
START_TEST(the_town_draws_its_known_doors_unseen)
{
    game_t *g = game_new(C, 1, NULL);
    key(g, 'x');
    ck_assert_int_eq(g->depth, 0);
    game_view_t v = {0};
    const screen_t *f = render_frame(g, 80, 24, &v);
    const cell_t *door = known_unseen(g, f, MAP_DOOR_CLOSED);
    ck_assert_ptr_nonnull(door);
    ck_assert_int_eq(door->ch, '+');
    ck_assert_int_eq(door->fg, 8);
    const cell_t *wall = known_unseen(g, f, MAP_WALL), *grass = known_unseen(g, f, MAP_GRASS);
    ck_assert_ptr_nonnull(wall);
    ck_assert_int_eq(wall->ch, ' ');
    ck_assert_ptr_nonnull(grass);
    ck_assert_int_eq(grass->ch, ' ');
    game_free(g);
}
END_TEST

/* What the frame f (map tiles tw cells wide) shows wrong, into why: the
 * player must be under the cursor, a quarter of the view from each edge
 * the map goes on past, and every creature the player sees drawn where
 * it stands. Read from the frame alone (the cursor gives the origin).
 * Returns the number of faults. */
static int view_faults(game_t *g, const screen_t *f, int tw, char *why, size_t n)
{
    const level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int vw = f->w / tw, vh = f->h - 3, sx = f->cur_x / tw, sy = f->cur_y - 1, faults = 0;
    int ox = p->x - sx, oy = p->y - sy;
    why[0] = 0;
    if (!f->cur_visible || screen_at(f, f->cur_x, f->cur_y)->ch != '@') {
        snprintf(why, n, "the cursor is not on the player");
        return 1;
    }
    bool left = ox > 0, right = ox + vw<lv->w, up = oy> 0, down = oy + vh < lv->h;
    if ((left && sx < vw / 4) || (right && vw - 1 - sx < vw / 4) || (up && sy < vh / 4) ||
        (down && vh - 1 - sy < vh / 4)) {
        snprintf(why, n, "the player at %d,%d of a %dx%d view", sx, sy, vw, vh);
        faults++;
    }
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || !vision_sees(g, h))
            continue;
        int cx = (o->x - ox) * tw, cy = o->y - oy + 1;
        bool on = cx >= 0 && cx < vw * tw && cy >= 1 && cy <= vh;
        if (!on || screen_at(f, cx, cy)->ch != g->c->creatures[o->kind].glyph) {
            snprintf(why, n, "%s at %+d,%+d from the player is not drawn",
                     g->c->creatures[o->kind].name, o->x - p->x, o->y - p->y);
            faults++;
        }
    }
    return faults;
}

/* Whether the map and its cursor are up (no screen, no overlay, no aim). */
static bool map_shown(const game_t *g)
{
    return g->state == GAME_RUNNING && g->items.screen == ITEMUI_NONE &&
           (g->prompt == PROMPT_NONE || g->prompt == PROMPT_MORE);
}

/* Seeded walks down the first levels (explore, random steps, stairs,
 * waits): after every key, at 80x24, at 80x24 in two-cell tiles on a
 * 160-column terminal and at 100x30, the player stays a quarter of the
 * view from every edge the map goes on past and every creature in its
 * sight is drawn. */
START_TEST(view_shows_the_player_and_all_in_sight)
{
    static const struct {
        int w, h, tw;
    } SIZES[] = {{80, 24, 1}, {160, 24, 2}, {100, 30, 1}};
    static const char *const MOVES[] = {"o", "o", "o", "o", "h", "j", "k",   "l",
                                        "y", "u", "b", "n", ".", ">", "_>.", "_>."};
    long checked = 0, with_creatures = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        screen_t *f[3];
        for (int i = 0; i < 3; i++)
            f[i] = screen_new(SIZES[i].w, SIZES[i].h);
        uint32_t r = (uint32_t)seed * 2654435761u;
        for (int i = 0; i < 1500 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            if (g->prompt == PROMPT_MORE || g->prompt == PROMPT_LEVELUP)
                key(g, g->prompt == PROMPT_MORE ? ' ' : 'a');
            else if (g->prompt != PROMPT_NONE || g->items.screen)
                key(g, KEY_ESC);
            else
                keys(g, MOVES[(r >> 16) % (sizeof MOVES / sizeof MOVES[0])]);
            if (!map_shown(g))
                continue;
            for (int s = 0; s < 3; s++) {
                game_view_t v = {.two_cell = SIZES[s].tw == 2};
                game_render(g, f[s], &v);
                char why[160];
                ck_assert_msg(view_faults(g, f[s], SIZES[s].tw, why, sizeof why) == 0,
                              "seed %llu key %d at %dx%d: %s", (unsigned long long)seed, i,
                              SIZES[s].w, SIZES[s].h, why);
            }
            checked++;
            for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h))
                if (h != g->player && reg_get(&g->reg, h)->type == OBJ_CREATURE &&
                    vision_sees(g, h)) {
                    with_creatures++;
                    break;
                }
        }
        for (int i = 0; i < 3; i++)
            screen_free(f[i]);
        game_free(g);
    }
    ck_assert_int_gt(checked, 2000);
    ck_assert_int_gt(with_creatures, 200); /* the walks met monsters */
}
END_TEST

/* ---- the objects' layer --------------------------------------------------- */

/* What a walk of every object puts on the view's tile of o (items on seen
 * floor, then creatures in sight: the last on a tile stays), into want. */
static void object_glyph(game_t *g, const obj_t *o, handle_t h, int pass, cell_t *want)
{
    const level_t *lv = level_current(g);
    if (pass == 0 && o->type == OBJ_ITEM && !o->target && lv->seen[o->y * lv->w + o->x]) {
        const item_kind_t *k = item_kind(g, o);
        bool vis = level_visible(lv, o->x, o->y);
        *want = (cell_t){.ch = k->glyph, .fg = vis ? k->fg : 8, .attr = vis ? 0 : ATTR_DIM};
    } else if (pass == 1 && o->type == OBJ_CREATURE && level_visible(lv, o->x, o->y)) {
        const creature_kind_t *k = &g->c->creatures[o->kind];
        bool hid = (o->flags & OF_DISGUISED) && k->disguise[0];
        *want = (cell_t){.ch = hid ? k->disguise_glyph : k->glyph,
                         .fg = hid ? k->disguise_fg : k->fg,
                         .attr = h == g->player ? ATTR_BOLD : 0};
    }
}

/* Every object's tile on f (80x24, the map from row 1) shows what a walk
 * of every object draws there: the tiles checked. */
static int objects_as_walked(game_t *g, const screen_t *f, int ox, int oy, int key)
{
    const level_t *lv = level_current(g);
    enum { VW = 80, VH = 21 };
    static cell_t want[VH][VW];
    memset(want, 0, sizeof want);
    for (int pass = 0; pass < 2; pass++)
        for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
            const obj_t *o = reg_get(&g->reg, h);
            int sx = o->x - ox, sy = o->y - oy;
            if (o->depth == lv->depth && level_in(lv, o->x, o->y) && sx >= 0 && sx < VW &&
                sy >= 0 && sy < VH)
                object_glyph(g, o, h, pass, &want[sy][sx]);
        }
    int n = 0;
    for (int sy = 0; sy < VH; sy++)
        for (int sx = 0; sx < VW; sx++) {
            const cell_t *c = screen_at(f, sx, 1 + sy), *w = &want[sy][sx];
            if (!w->ch)
                continue;
            ck_assert_msg(c->ch == w->ch && c->fg == w->fg && c->attr == w->attr,
                          "key %d: tile %d,%d shows U+%04X fg %d, not U+%04X fg %d", key, sx, sy,
                          (unsigned)c->ch, c->fg, (unsigned)w->ch, w->fg);
            n++;
        }
    return n;
}

/* Items on the floor at the view's four corners, under the player and on
 * each of the ten columns left of it (every column modulo 8), seen: on
 * every frame of a walk over them, drawn from the kept frame and whole,
 * each object's tile shows what a walk of every object draws there (the
 * player over the item it stands on, the item again once it steps off)
 * and the kept frame equals the frame drawn whole. */
START_TEST(objects_drawn_at_every_tile_of_the_view)
{
    game_t *g = started(game_new(C, 1, NULL));
    game_view_t v = {0};
    const screen_t *f = render_frame(g, 80, 24, &v);
    int ox, oy;
    frame_origin(g, f, &ox, &oy);
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y; /* p moves when the registry grows */
    int at[][2] = {{ox, oy}, {ox + 79, oy}, {ox, oy + 20}, {ox + 79, oy + 20}, {px, py}};
    uint16_t kind = item_named(C, "potion of curing");
    for (int i = 0; i < 15; i++) {
        int x = i < 5 ? at[i][0] : px + i - 15, y = i < 5 ? at[i][1] : py;
        if (!level_in(lv, x, y))
            continue;
        ck_assert(item_new(g, kind, 1, HANDLE_NONE, lv->depth, x, y, NULL) != HANDLE_NONE);
        lv->seen[y * lv->w + x] = 1;
    }
    screen_t *whole = screen_new(80, 24);
    static const char WALK[] = "hhhhhhllllll.";
    int moved = 0;
    for (int i = 0; WALK[i]; i++) {
        key(g, (uint32_t)(unsigned char)WALK[i]);
        f = render_frame(g, 80, 24, &v);
        moved += reg_get(&g->reg, g->player)->x != px;
        ck_assert_int_ge(objects_as_walked(g, f, ox, oy, i), 3); /* the view stays put */
        render_full(g, whole, &v);
        objects_as_walked(g, whole, ox, oy, i);
        same_screen(f, whole, 1, i); /* no object left where it was */
    }
    ck_assert_int_ge(moved, 4);
    screen_free(whole);
    game_free(g);
}
END_TEST

/* ---- the status line kept between frames --------------------------------- */

/* One thing the status line shows, changed the way play changes it (the
 * view's own options too), with no key: the map stays put, so only the
 * line's own key can tell the kept frame to draw it again. */
typedef struct {
    const char *what;
    void (*change)(game_t *g, game_view_t *v, uint32_t r);
} status_change_t;

static obj_t *pl(game_t *g)
{
    return reg_get(&g->reg, g->player);
}

static void ch_hp(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    pl(g)->hp = 1 + (int32_t)(r % (uint32_t)pl(g)->hp_max);
}

static void ch_hp_max(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    pl(g)->hp_max += 1 + (int32_t)(r % 3);
}

static void ch_mana(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    g->pc.mana_max = (int16_t)(r % 4 == 0 ? 0 : 5 + r % 7);
    g->pc.mana = (int16_t)(g->pc.mana_max ? (r >> 4) % (uint32_t)g->pc.mana_max : 0);
}

static void ch_xl(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    g->pc.xl = (uint8_t)(1 + r % 20);
}

static void ch_gold(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    g->items.gold += 1 + (int32_t)(r % 40);
}

static void ch_hunger(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    static const int32_t FOOD[] = {4000, FOOD_HUNGRY - 1, FOOD_WEAK - 1, -1};
    g->items.food = FOOD[r % 4];
}

/* An effect more on the player, one of its effects ended, or one ended
 * and another begun (as many effects as before, in the same slot). */
static void ch_effects(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && r % 3 != 1; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_EFFECT && o->target == g->player) {
            status_end(g, h);
            break;
        }
    }
    if (r % 3 != 0)
        status_apply(g, g->player, (int)((r >> 2) % g->c->n_effects), 5000, 1, 0);
}

/* The region underfoot becomes another of the level's (or none). */
static void ch_region(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    level_t *lv = level_current(g);
    lv->region[pl(g)->y * lv->w + pl(g)->x] = (uint8_t)(r % (uint32_t)(lv->nregions + 1));
    level_regions_changed(lv);
}

static void ch_race(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    g->pc.race = (uint8_t)(r % g->c->n_races);
    g->pc.cls = (uint8_t)((r >> 4) % g->c->n_classes);
}

static void ch_name(game_t *g, game_view_t *v, uint32_t r)
{
    (void)v;
    static const char *const NAMES[] = {"Ann", "Bartholomew", "Cy", "Dee"};
    snprintf(g->name, sizeof g->name, "%s", NAMES[r % 4]);
}

static void ch_watchers(game_t *g, game_view_t *v, uint32_t r)
{
    (void)g;
    v->watchers = (int)(r % 3);
}

static void ch_turns(game_t *g, game_view_t *v, uint32_t r)
{
    (void)g, (void)r;
    v->turns = !v->turns;
}

static const status_change_t STATUS_CHANGES[] = {
    {"hp", ch_hp},     {"hp_max", ch_hp_max},     {"mana", ch_mana},       {"xl", ch_xl},
    {"gold", ch_gold}, {"hunger", ch_hunger},     {"effects", ch_effects}, {"race", ch_race},
    {"name", ch_name}, {"watchers", ch_watchers}, {"turns", ch_turns},     {"region", ch_region},
};
enum { N_CHANGES = sizeof STATUS_CHANGES / sizeof STATUS_CHANGES[0] };

/* The kept frame's status line against the one drawn whole; returns
 * whether it differs from was (the line before). */
static bool status_checked(game_t *g, const game_view_t *v, screen_t *whole, const cell_t *was,
                           uint64_t seed, int i)
{
    const screen_t *f = render_frame(g, 80, 24, v);
    ck_assert_ptr_nonnull(f);
    render_full(g, whole, v);
    size_t row = (size_t)(f->h - 2) * (size_t)f->w, rowb = sizeof(cell_t) * (size_t)f->w;
    for (int x = 0; x < f->w; x++)
        ck_assert_msg(cell_eq(&f->cells[row + x], &whole->cells[row + x]),
                      "seed %llu step %d: status cell %d is U+%04X in colour %d, drawn whole "
                      "U+%04X in colour %d",
                      (unsigned long long)seed, i, x, (unsigned)f->cells[row + x].ch,
                      f->cells[row + x].fg, (unsigned)whole->cells[row + x].ch,
                      whole->cells[row + x].fg);
    return memcmp(was, &whole->cells[row], rowb) != 0;
}

/* Seeded walks (steps, waits, searches, stairs) with the status line's
 * inputs changed between frames (hit points and their colour, mana,
 * level, gold, hunger, effects, race and class, name, watchers, the turn
 * counter, the region underfoot; depth and place by the walk itself,
 * which draws the whole frame again): the kept frame's status line
 * always equals a fresh one, and every change showed on it. */
START_TEST(kept_status_line_equals_fresh)
{
    static const char KEYS[] = "hjklyubnhjklyubn..ss><";
    int shown[N_CHANGES] = {0}, by_keys = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        screen_t *whole = screen_new(80, 24);
        cell_t was[80];
        game_view_t v = {0};
        uint32_t r = (uint32_t)seed * 2246822519u;
        for (int i = 0; i < 600 && g->state == GAME_RUNNING; i++) {
            r = r * 1103515245u + 12345u;
            if (g->prompt != PROMPT_NONE || g->items.screen)
                key(g, g->prompt == PROMPT_MORE      ? ' '
                       : g->prompt == PROMPT_LEVELUP ? 'a'
                                                     : KEY_ESC);
            else
                key(g, (uint32_t)KEYS[(r >> 16) % (sizeof KEYS - 1)]);
            if (!pl(g) || !level_current(g))
                continue;
            memcpy(was, &whole->cells[(size_t)22 * 80], sizeof was);
            by_keys += status_checked(g, &v, whole, was, seed, i);
            const status_change_t *ch = &STATUS_CHANGES[(r >> 8) % N_CHANGES];
            memcpy(was, &whole->cells[(size_t)22 * 80], sizeof was);
            ch->change(g, &v, r >> 3);
            if (g->state == GAME_RUNNING && pl(g))
                shown[ch - STATUS_CHANGES] += status_checked(g, &v, whole, was, seed, i);
        }
        screen_free(whole);
        game_free(g);
    }
    for (int k = 0; k < N_CHANGES; k++)
        ck_assert_msg(shown[k] >= 3, "%s changed the line %d times", STATUS_CHANGES[k].what,
                      shown[k]);
    ck_assert_int_gt(by_keys, 200); /* turns, regions, depths, regeneration */
}
END_TEST

/* The status line's turn counter (formatted by hand, every key) reads as
 * printf's "%llu" would: one digit, each power of ten, the largest. */
START_TEST(turn_counter_reads_as_printf)
{
    static const uint64_t TURNS[] = {0,
                                     7,
                                     9,
                                     10,
                                     99,
                                     100,
                                     12345,
                                     4294967296ull,
                                     999999999,
                                     10000000000,
                                     UINT64_MAX / SCHED_MOVE};
    game_t *g = started(game_new(C, 1, NULL));
    screen_t *s = screen_new(200, 24);
    game_view_t v = {.turns = true};
    for (size_t t = 0; t < sizeof TURNS / sizeof TURNS[0]; t++) {
        g->sched.now = TURNS[t] * SCHED_MOVE;
        const screen_t *f = render_frame(g, 200, 24, &v); /* the kept line, then whole */
        for (int pass = 0; pass < 2; pass++) {
            if (pass)
                render_full(g, s, &v), f = s;
            char line[201] = "", want[40];
            for (int x = 0; x < 200; x++)
                line[x] = (char)f->cells[(size_t)22 * 200 + (size_t)x].ch;
            snprintf(want, sizeof want, "  Turn %llu ", (unsigned long long)TURNS[t]);
            ck_assert_msg(strstr(line, want), "turn %llu: the line is \"%s\"",
                          (unsigned long long)TURNS[t], line);
        }
    }
    screen_free(s);
    game_free(g);
}
END_TEST

Suite *suite_game_view(void)
{
    Suite *s = suite_create("game_view");
    TCase *t = tcase_create("view");
    with_shipped_content(t);
    tcase_set_timeout(t, 60); /* long seeded walks, slow under the sanitizers on a busy machine */
    tcase_add_test(t, kept_view_equals_fresh_on_random_walks);
    tcase_add_test(t, opacity_change_in_reach_sees_again);
    tcase_add_test(t, step_back_view_equals_fresh);
    tcase_add_test(t, kept_view_dropped_by_a_wall_in_its_reach);
    tcase_add_test(t, to_and_fro_flips_the_kept_difference);
    tcase_add_test(t, kept_frame_equals_whole_frame);
    tcase_add_test(t, kept_frame_follows_the_sky_of_each_region);
    tcase_add_test(t, sky_bits_follow_the_regions);
    tcase_add_test(t, stamped_grid_gets_the_frame_drawn_whole);
    tcase_add_test(t, frame_drawn_in_place_encodes_as_from_a_whole_copy);
    tcase_add_test(t, sideways_walks_keep_their_bytes);
    tcase_add_test(t, view_stays_put_on_a_walk_to_and_fro);
    tcase_add_test(t, view_flips_name_the_cells_that_changed);
    tcase_add_test(t, scans_over_known_ground_flip_the_cells_that_changed);
    tcase_add_test(t, anchor_rule_band_and_moves);
    tcase_add_test(t, view_moves_least_down_and_stays_to_and_fro);
    tcase_add_test(t, town_ground_keeps_its_colours_out_of_view);
    tcase_add_test(t, the_town_draws_its_known_doors_unseen);
    tcase_add_test(t, view_shows_the_player_and_all_in_sight);
    tcase_add_test(t, objects_drawn_at_every_tile_of_the_view);
    suite_add_tcase(s, t);
    TCase *st = tcase_create("status");
    with_shipped_content(st);
    tcase_set_timeout(st, 60);
    tcase_add_test(st, kept_status_line_equals_fresh);
    tcase_add_test(st, turn_counter_reads_as_printf);
    suite_add_tcase(s, st);
    return s;
}
