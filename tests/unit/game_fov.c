/* Unit tests: game/fov — symmetry, known shapes, radius and light. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fov.h"
#include "rng.h"

#define W 40
#define H 24

typedef struct {
    uint8_t opaque[W * H];
    uint8_t lit[W * H];
    uint8_t vis[W * H];
    fov_map_t m;
} map_t;

/* An open floor with a wall border. */
static void map_open(map_t *t)
{
    memset(t, 0, sizeof *t);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            t->opaque[y * W + x] = (x == 0 || y == 0 || x == W - 1 || y == H - 1);
    t->m = (fov_map_t){W, H, t->opaque, NULL, NULL, NULL};
}

static void wall(map_t *t, int x, int y)
{
    t->opaque[y * W + x] = 1;
}

static int seen(map_t *t, int x, int y)
{
    return t->vis[y * W + x];
}

START_TEST(open_room_all_visible)
{
    map_t *t = malloc(sizeof *t);
    map_open(t);
    int n = fov_compute(&t->m, 20, 12, -1, t->vis);
    ck_assert_int_eq(n, W * H); /* every floor and every border wall, corners too */
    free(t);
}
END_TEST

START_TEST(bad_arguments)
{
    map_t *t = malloc(sizeof *t);
    map_open(t);
    ck_assert_int_eq(fov_compute(&t->m, -1, 3, 5, t->vis), -1);
    ck_assert_int_eq(fov_compute(&t->m, W, 3, 5, t->vis), -1);
    ck_assert_int_eq(fov_compute(NULL, 3, 3, 5, t->vis), -1);
    ck_assert_int_eq(fov_compute(&t->m, 3, 3, 5, NULL), -1);
    ck_assert_int_eq(fov_los(&t->m, 3, 3, W + 4, 3, -1), 0);
    ck_assert_int_eq(fov_los(&t->m, 3, 3, 3, 3, 0), 1);
    free(t);
}
END_TEST

START_TEST(pillar_casts_shadow)
{
    map_t *t = malloc(sizeof *t);
    map_open(t);
    wall(t, 12, 12);
    fov_compute(&t->m, 10, 12, -1, t->vis);
    ck_assert(seen(t, 12, 12));  /* the pillar itself */
    ck_assert(!seen(t, 13, 12)); /* straight behind it */
    ck_assert(!seen(t, 20, 12));
    ck_assert(seen(t, 13, 11)); /* a narrow shadow: beside it is still seen */
    ck_assert(seen(t, 13, 13));
    /* the shadow widens with distance: at x=30 the row behind stays dark */
    ck_assert(!seen(t, 30, 12));
    ck_assert(!seen(t, 30, 16)); /* slopes +-1/4: at 20 cells the shadow is 5 high */
    ck_assert(seen(t, 30, 18));
    free(t);
}
END_TEST

START_TEST(corridor_and_its_walls)
{
    map_t *t = malloc(sizeof *t);
    memset(t, 0, sizeof *t);
    memset(t->opaque, 1, sizeof t->opaque);
    for (int x = 2; x < 35; x++)
        t->opaque[10 * W + x] = 0; /* a corridor on row 10 */
    t->m = (fov_map_t){W, H, t->opaque, NULL, NULL, NULL};
    fov_compute(&t->m, 2, 10, -1, t->vis);
    for (int x = 2; x < 35; x++)
        ck_assert(seen(t, x, 10));
    ck_assert(seen(t, 35, 10)); /* the end wall */
    for (int x = 3; x < 35; x++) {
        ck_assert(seen(t, x, 9)); /* walls along both sides */
        ck_assert(seen(t, x, 11));
    }
    ck_assert(!seen(t, 10, 8)); /* nothing behind the walls */
    ck_assert(!seen(t, 36, 10));
    free(t);
}
END_TEST

START_TEST(diagonal_gap_is_see_through)
{
    map_t *t = malloc(sizeof *t);
    map_open(t);
    /* walls east and south of the origin leave a diagonal gap */
    wall(t, 11, 10);
    wall(t, 10, 11);
    fov_compute(&t->m, 10, 10, -1, t->vis);
    ck_assert(seen(t, 11, 11));
    ck_assert(seen(t, 12, 12));
    ck_assert(seen(t, 15, 15));
    ck_assert(!seen(t, 11, 14)); /* off the diagonal it stays hidden */
    ck_assert(!seen(t, 14, 11));
    /* and it is symmetric: the far end sees back through the gap */
    ck_assert_int_eq(fov_los(&t->m, 15, 15, 10, 10, -1), 1);
    free(t);
}
END_TEST

START_TEST(wall_with_door_gap)
{
    map_t *t = malloc(sizeof *t);
    map_open(t);
    for (int y = 1; y < H - 1; y++)
        if (y != 12)
            wall(t, 15, y);
    fov_compute(&t->m, 10, 12, -1, t->vis);
    ck_assert(seen(t, 15, 12));
    ck_assert(seen(t, 30, 12));  /* straight through the gap */
    ck_assert(seen(t, 30, 14));  /* a cone opens behind it */
    ck_assert(!seen(t, 16, 20)); /* right behind the wall is hidden */
    ck_assert(seen(t, 15, 5));   /* the wall's own face is seen */
    free(t);
}
END_TEST

START_TEST(radius_is_a_disc)
{
    map_t *t = malloc(sizeof *t);
    map_open(t);
    const int r = 5;
    fov_compute(&t->m, 20, 12, r, t->vis);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int dx = x - 20, dy = y - 12;
            ck_assert_int_eq(seen(t, x, y), dx * dx + dy * dy <= r * (r + 1));
        }
    ck_assert(seen(t, 25, 12));
    ck_assert(!seen(t, 26, 12));
    ck_assert(!seen(t, 25, 15));
    ck_assert_int_eq(fov_in_radius(3, 4, 5), 1);
    ck_assert_int_eq(fov_in_radius(5, 3, 5), 0);
    ck_assert_int_eq(fov_in_radius(100, 100, -1), 1);
    ck_assert_int_eq(fov_compute(&t->m, 20, 12, 0, t->vis), 1);
    free(t);
}
END_TEST

START_TEST(lit_cells_seen_from_afar)
{
    map_t *t = malloc(sizeof *t);
    map_open(t);
    /* a lit area far east, with a pillar in front of one of its cells */
    for (int y = 5; y <= 15; y++)
        for (int x = 30; x <= 36; x++)
            t->lit[y * W + x] = 1;
    for (int y = 8; y <= 10; y++)
        wall(t, 28, y);
    t->m.lit = t->lit;
    fov_compute(&t->m, 5, 12, 3, t->vis);
    ck_assert(seen(t, 33, 12));  /* lit, in sight, far beyond the radius */
    ck_assert(!seen(t, 20, 12)); /* dark, beyond the radius */
    ck_assert(seen(t, 7, 12));
    ck_assert(!seen(t, 30, 9)); /* lit, but behind the short wall at x=28 */
    ck_assert(!seen(t, 28, 9)); /* the wall itself is dark and far */
    ck_assert(seen(t, 30, 6));  /* lit and clear of the wall */
    ck_assert_int_eq(fov_los(&t->m, 5, 12, 33, 12, 3), 1);
    ck_assert_int_eq(fov_los(&t->m, 5, 12, 20, 12, 3), 0);
    free(t);
}
END_TEST

static void random_map(map_t *t, rng_t *r, int pct)
{
    map_open(t);
    for (int y = 1; y < H - 1; y++)
        for (int x = 1; x < W - 1; x++)
            t->opaque[y * W + x] = rng_percent(r, pct);
}

START_TEST(symmetry_on_random_maps)
{
    map_t *t = malloc(sizeof *t);
    rng_t r;
    rng_seed(&r, 99, 7);
    long pairs = 0, visible_pairs = 0;
    for (int k = 0; k < 60; k++) {
        random_map(t, &r, 10 + k % 4 * 8);
        int radius = (k % 3 == 0) ? 6 : -1;
        for (int i = 0; i < 400; i++) {
            int ax = 1 + (int)rng_below(&r, W - 2), ay = 1 + (int)rng_below(&r, H - 2);
            int bx = 1 + (int)rng_below(&r, W - 2), by = 1 + (int)rng_below(&r, H - 2);
            if (t->opaque[ay * W + ax] || t->opaque[by * W + bx])
                continue;
            int ab = fov_los(&t->m, ax, ay, bx, by, radius);
            int ba = fov_los(&t->m, bx, by, ax, ay, radius);
            ck_assert_msg(ab == ba, "asymmetric (%d,%d)-(%d,%d) map %d", ax, ay, bx, by, k);
            pairs++;
            visible_pairs += ab;
        }
    }
    ck_assert_int_gt(pairs, 5000);
    ck_assert_int_gt(visible_pairs, pairs / 10); /* the test saw both answers */
    ck_assert_int_lt(visible_pairs, pairs);
    free(t);
}
END_TEST

/* A scan kept to a box gives every cell inside it the full scan's answer,
 * reads no farther than the full scan, and refuses an origin outside it. */
START_TEST(box_agrees_with_compute_inside)
{
    map_t *t = malloc(sizeof *t);
    uint8_t *full = malloc(W * H);
    rng_t r;
    rng_seed(&r, 17, 3);
    int shorter = 0;
    for (int k = 0; k < 200; k++) {
        random_map(t, &r, 10 + k % 3 * 10);
        t->m.lit = NULL;
        if (k & 1) {
            for (int i = 0; i < W * H; i++)
                t->lit[i] = rng_percent(&r, 30);
            t->m.lit = t->lit;
        }
        int ox = 1 + (int)rng_below(&r, W - 2), oy = 1 + (int)rng_below(&r, H - 2);
        int radius = k % 4 == 0 ? -1 : 2 + k % 9, reach_full, reach_box;
        fov_box_t b = {ox - (int)rng_below(&r, 12), oy - (int)rng_below(&r, 8),
                       ox + 1 + (int)rng_below(&r, 12), oy + 1 + (int)rng_below(&r, 8)};
        ck_assert_int_ge(fov_compute_reach(&t->m, ox, oy, radius, full, &reach_full), 1);
        ck_assert_int_ge(fov_compute_box(&t->m, ox, oy, radius, &b, t->vis, &reach_box), 1);
        for (int y = b.y0 < 0 ? 0 : b.y0; y < b.y1 && y < H; y++)
            for (int x = b.x0 < 0 ? 0 : b.x0; x < b.x1 && x < W; x++)
                ck_assert_msg(t->vis[y * W + x] == full[y * W + x], "map %d cell (%d,%d)", k, x, y);
        ck_assert_int_le(reach_box, reach_full);
        shorter += reach_box < reach_full;
    }
    ck_assert_int_gt(shorter, 20); /* the boxes did cut scans short */
    fov_box_t away = {0, 0, 2, 2};
    int reach;
    ck_assert_int_eq(fov_compute_box(&t->m, 5, 5, 3, &away, t->vis, &reach), -1);
    ck_assert_int_eq(fov_compute_box(&t->m, 5, 5, 3, NULL, t->vis, &reach), -1);
    free(full);
    free(t);
}
END_TEST

START_TEST(los_agrees_with_compute)
{
    map_t *t = malloc(sizeof *t);
    rng_t r;
    rng_seed(&r, 5, 11);
    for (int k = 0; k < 20; k++) {
        random_map(t, &r, 25);
        if (k & 1) {
            for (int i = 0; i < W * H; i++)
                t->lit[i] = rng_percent(&r, 30);
            t->m.lit = t->lit;
        }
        int ox = 1 + (int)rng_below(&r, W - 2), oy = 1 + (int)rng_below(&r, H - 2);
        int radius = (int)rng_below(&r, 12) - 1;
        fov_compute(&t->m, ox, oy, radius, t->vis);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                ck_assert_int_eq(fov_los(&t->m, ox, oy, x, y, radius), seen(t, x, y));
    }
    free(t);
}
END_TEST

static int cb_opaque(const void *ctx, int x, int y)
{
    return ((const uint8_t *)ctx)[y * W + x];
}

START_TEST(callback_matches_array)
{
    map_t *t = malloc(sizeof *t);
    uint8_t *vis2 = malloc(W * H);
    rng_t r;
    rng_seed(&r, 8, 1);
    random_map(t, &r, 30);
    fov_map_t cb = {W, H, NULL, cb_opaque, t->opaque, NULL};
    int a = fov_compute(&t->m, 20, 12, 8, t->vis);
    int b = fov_compute(&cb, 20, 12, 8, vis2);
    ck_assert_int_eq(a, b);
    ck_assert_int_eq(memcmp(t->vis, vis2, W * H), 0);
    free(vis2);
    free(t);
}
END_TEST

/* Origins on the map's edges and corners, small maps, any radius: every
 * answer stays inside the map and agrees with fov_los. */
START_TEST(edges_and_tiny_maps)
{
    rng_t r;
    rng_seed(&r, 3, 3);
    for (int k = 0; k < 40; k++) {
        int w = 1 + (int)rng_below(&r, 9), h = 1 + (int)rng_below(&r, 9);
        uint8_t opaque[81], vis[81];
        for (int i = 0; i < w * h; i++)
            opaque[i] = rng_percent(&r, 30);
        fov_map_t m = {w, h, opaque, NULL, NULL, NULL};
        for (int oy = 0; oy < h; oy++)
            for (int ox = 0; ox < w; ox++) {
                int radius = (int)rng_below(&r, 6) - 1;
                int n = fov_compute(&m, ox, oy, radius, vis);
                int count = 0;
                for (int i = 0; i < w * h; i++) {
                    count += vis[i];
                    ck_assert_int_eq(fov_los(&m, ox, oy, i % w, i / w, radius), vis[i]);
                }
                ck_assert_int_eq(n, count);
            }
    }
}
END_TEST

/* A map of any size up to 120x50: walls at a given density, pillars or
 * rooms, and lit cells (none, scattered, or lit rectangles, some with
 * values other than 1). */
typedef struct {
    int w, h;
    uint8_t opaque[120 * 50], lit[120 * 50], vis[120 * 50], ref[120 * 50];
} big_t;

static void big_random(big_t *t, rng_t *r)
{
    t->w = 1 + (int)rng_below(r, 120);
    t->h = 1 + (int)rng_below(r, 50);
    int n = t->w * t->h, pct = (int)rng_below(r, 60), lit = (int)rng_below(r, 4);
    for (int i = 0; i < n; i++) {
        t->opaque[i] = rng_percent(r, pct);
        t->lit[i] = lit == 1 ? (uint8_t)rng_percent(r, 30) : lit == 3;
    }
    for (int k = lit == 2 ? 1 + (int)rng_below(r, 6) : 0; k > 0; k--) {
        int x0 = (int)rng_below(r, (uint32_t)t->w), y0 = (int)rng_below(r, (uint32_t)t->h);
        int x1 = x0 + (int)rng_below(r, 30), y1 = y0 + (int)rng_below(r, 12);
        for (int y = y0; y <= y1 && y < t->h; y++)
            for (int x = x0; x <= x1 && x < t->w; x++)
                t->lit[y * t->w + x] = (uint8_t)(1 + k % 3);
    }
}

static int big_opaque(const void *ctx, int x, int y)
{
    const big_t *t = ctx;
    return t->opaque[y * t->w + x];
}

/* The scan over a byte array (fov_compute_box's own, which reads only the
 * box) marks exactly what the plain scan through the callback does: on
 * maps of every size and density, lit or not, any radius, any box (also
 * past the map's edges), and origins on edges and corners. */
START_TEST(array_scan_matches_plain_scan)
{
    big_t *t = malloc(sizeof *t);
    rng_t r;
    rng_seed(&r, 29, 5);
    long cells = 0, seen_cells = 0;
    for (int k = 0; k < 4000; k++) {
        big_random(t, &r);
        fov_map_t fast = {t->w, t->h, t->opaque, NULL, NULL, k % 5 ? t->lit : NULL};
        fov_map_t plain = {t->w, t->h, NULL, big_opaque, t, fast.lit};
        int ox = (int)rng_below(&r, (uint32_t)t->w), oy = (int)rng_below(&r, (uint32_t)t->h);
        if (k % 7 == 0)
            ox = k % 2 ? 0 : t->w - 1;
        int radius = (int)rng_below(&r, 14) - 1;
        fov_box_t b = {0, 0, t->w, t->h};
        if (k % 3) {
            int sx = (int)rng_below(&r, 45), sy = (int)rng_below(&r, 14);
            b = (fov_box_t){ox - (int)rng_below(&r, (uint32_t)sx + 1),
                            oy - (int)rng_below(&r, (uint32_t)sy + 1), ox + 1 + sx, oy + 1 + sy};
        }
        int reach_a, reach_b;
        int na = fov_compute_box(&fast, ox, oy, radius, &b, t->vis, &reach_a);
        int nb = fov_compute_box(&plain, ox, oy, radius, &b, t->ref, &reach_b);
        ck_assert_int_eq(na, nb);
        ck_assert_int_eq(reach_a, reach_b);
        for (int i = 0; i < t->w * t->h; i++) {
            ck_assert_msg(t->vis[i] == t->ref[i], "map %d (%dx%d) from (%d,%d) r %d: cell (%d,%d)",
                          k, t->w, t->h, ox, oy, radius, i % t->w, i / t->w);
            seen_cells += t->vis[i];
        }
        cells += t->w * t->h;
    }
    ck_assert_int_gt(seen_cells, cells / 50); /* both answers were common */
    ck_assert_int_lt(seen_cells, cells / 2);
    free(t);
}
END_TEST

/* A box of sx x sy cells round (ox, oy), placed by r, within the map. */
static fov_box_t box_round(const big_t *t, rng_t *r, int ox, int oy, int sx, int sy)
{
    int x0 = ox - (int)rng_below(r, (uint32_t)sx), y0 = oy - (int)rng_below(r, (uint32_t)sy);
    x0 = x0 < 0 ? 0 : x0 + sx > t->w ? (t->w - sx > 0 ? t->w - sx : 0) : x0;
    y0 = y0 < 0 ? 0 : y0 + sy > t->h ? (t->h - sy > 0 ? t->h - sy : 0) : y0;
    return (fov_box_t){x0, y0, x0 + sx, y0 + sy};
}

/* Scans one after another, each clearing only the box the last one
 * scanned (the output is 0 outside it), leave exactly a scan over a
 * cleared map: every cell, the last box's old cells outside the new box
 * 0 too. The boxes move by a step or jump, on maps of every size. */
START_TEST(scan_clearing_the_last_box_matches_scratch)
{
    big_t *t = malloc(sizeof *t);
    rng_t r;
    rng_seed(&r, 31, 7);
    long moved = 0, stale = 0;
    for (int k = 0; k < 300; k++) {
        big_random(t, &r);
        fov_map_t m = {t->w, t->h, t->opaque, NULL, NULL, k % 3 ? t->lit : NULL};
        int sx = 1 + (int)rng_below(&r, 40), sy = 1 + (int)rng_below(&r, 14), reach;
        int ox = (int)rng_below(&r, (uint32_t)t->w), oy = (int)rng_below(&r, (uint32_t)t->h);
        fov_box_t was = box_round(t, &r, ox, oy, sx, sy);
        ck_assert_int_ge(fov_compute_box(&m, ox, oy, -1, &was, t->vis, &reach), 1);
        for (int step = 0; step < 12; step++) {
            int jump = step % 4 == 3 ? 20 : 1;
            ox += (int)rng_below(&r, 2u * (uint32_t)jump + 1) - jump;
            oy += (int)rng_below(&r, 2u * (uint32_t)jump + 1) - jump;
            ox = ox < 0 ? 0 : ox >= t->w ? t->w - 1 : ox;
            oy = oy < 0 ? 0 : oy >= t->h ? t->h - 1 : oy;
            int radius = (int)rng_below(&r, 14) - 1;
            fov_box_t box = box_round(t, &r, ox, oy, sx, sy);
            for (int i = 0; i < t->w * t->h; i++) /* seen before, outside the new box */
                stale += t->vis[i] && (i % t->w < box.x0 || i % t->w >= box.x1 ||
                                       i / t->w < box.y0 || i / t->w >= box.y1);
            int n = fov_compute_box_over(&m, ox, oy, radius, &box, &was, t->vis, &reach);
            memset(t->ref, 0xff, (size_t)(t->w * t->h));
            ck_assert_int_eq(fov_compute_box(&m, ox, oy, radius, &box, t->ref, &reach), n);
            for (int i = 0; i < t->w * t->h; i++) {
                ck_assert_msg(t->vis[i] == t->ref[i], "map %d step %d: cell (%d,%d) is %d, not %d",
                              k, step, i % t->w, i / t->w, t->vis[i], t->ref[i]);
            }
            moved += box.x0 != was.x0 || box.y0 != was.y0;
            was = box;
        }
    }
    ck_assert_int_gt(moved, 1000);  /* the boxes moved, */
    ck_assert_int_gt(stale, 10000); /* and cells seen before had to be cleared */
    free(t);
}
END_TEST

Suite *suite_game_fov(void)
{
    Suite *s = suite_create("game_fov");
    TCase *tc = tcase_create("fov");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, open_room_all_visible);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, scan_clearing_the_last_box_matches_scratch);
    tcase_add_test(tc, pillar_casts_shadow);
    tcase_add_test(tc, corridor_and_its_walls);
    tcase_add_test(tc, diagonal_gap_is_see_through);
    tcase_add_test(tc, wall_with_door_gap);
    tcase_add_test(tc, radius_is_a_disc);
    tcase_add_test(tc, lit_cells_seen_from_afar);
    tcase_add_test(tc, symmetry_on_random_maps);
    tcase_add_test(tc, los_agrees_with_compute);
    tcase_add_test(tc, box_agrees_with_compute_inside);
    tcase_add_test(tc, callback_matches_array);
    tcase_add_test(tc, edges_and_tiny_maps);
    tcase_add_test(tc, array_scan_matches_plain_scan);
    suite_add_tcase(s, tc);
    return s;
}
