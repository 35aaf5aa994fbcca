/* Unit tests: game/mapgen — connectivity, stairs, shapes, determinism, vaults. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mapgen.h"

static int generate(mapgen_level_t *lv, uint64_t seed, int depth, const mapgen_params_t *base)
{
    rng_t r;
    rng_seed(&r, rng_hash2(seed, (uint64_t)depth), 0);
    mapgen_params_t p = base ? *base : (mapgen_params_t){0};
    p.depth = depth;
    char err[128] = "";
    int ret = mapgen_generate(lv, &p, &r, err, sizeof err);
    ck_assert_msg(ret == 0, "generate seed %llu depth %d: %d %s", (unsigned long long)seed, depth,
                  ret, err);
    return ret;
}

/* Path distances (4-way over passable cells) from (x, y); -1 unreached. */
static int *distances_from(const mapgen_level_t *lv, int x, int y)
{
    int n = lv->w * lv->h, head = 0, tail = 0;
    int *d = malloc(sizeof *d * (size_t)n), *q = malloc(sizeof *q * (size_t)n);
    for (int i = 0; i < n; i++)
        d[i] = -1;
    d[y * lv->w + x] = 0;
    q[tail++] = y * lv->w + x;
    const int off[4] = {-lv->w, lv->w, -1, 1};
    while (head < tail) {
        int c = q[head++];
        for (int k = 0; k < 4; k++) {
            int nb = c + off[k];
            if (nb < 0 || nb >= n || d[nb] >= 0 || !mapgen_passable(lv->terrain[nb]))
                continue;
            d[nb] = d[c] + 1;
            q[tail++] = nb;
        }
    }
    free(q);
    return d;
}

START_TEST(every_open_cell_is_reachable)
{
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    for (uint64_t seed = 1; seed <= 25; seed++)
        for (int depth = 0; depth <= 20; depth++) {
            generate(lv, seed, depth, NULL);
            int open, reach;
            mapgen_count_reachable(lv, &open, &reach);
            ck_assert_int_gt(open, 200);
            ck_assert_msg(open == reach, "seed %llu depth %d: %d of %d reachable",
                          (unsigned long long)seed, depth, reach, open);
            /* the border never lets anyone out */
            for (int x = 0; x < lv->w; x++) {
                ck_assert(!mapgen_passable(lv->terrain[x]));
                ck_assert(!mapgen_passable(lv->terrain[(lv->h - 1) * lv->w + x]));
            }
            for (int y = 0; y < lv->h; y++) {
                ck_assert(!mapgen_passable(lv->terrain[y * lv->w]));
                ck_assert(!mapgen_passable(lv->terrain[y * lv->w + lv->w - 1]));
            }
        }
    mapgen_level_free(lv);
}
END_TEST

START_TEST(stairs_are_far_apart)
{
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    long total = 0;
    int levels = 0;
    for (uint64_t seed = 100; seed < 140; seed++)
        for (int depth = 1; depth <= 20; depth += 3) {
            generate(lv, seed, depth, NULL);
            ck_assert_int_eq(lv->terrain[lv->up_y * lv->w + lv->up_x], MAP_STAIRS_UP);
            ck_assert_int_eq(lv->terrain[lv->down_y * lv->w + lv->down_x], MAP_STAIRS_DOWN);
            int *d = distances_from(lv, lv->up_x, lv->up_y), far = 0;
            for (int i = 0; i < lv->w * lv->h; i++)
                if (d[i] > far)
                    far = d[i];
            int apart = d[lv->down_y * lv->w + lv->down_x];
            ck_assert_msg(apart * 2 >= far, "seed %llu depth %d: stairs %d apart, farthest %d",
                          (unsigned long long)seed, depth, apart, far);
            ck_assert_int_ge(apart, 20);
            total += apart;
            levels++;
            free(d);
        }
    ck_assert_int_ge(total / levels, 50);
    mapgen_level_free(lv);
}
END_TEST

START_TEST(bottom_level_and_town)
{
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    mapgen_params_t p = {.bottom = 1};
    generate(lv, 9, 20, &p);
    ck_assert_int_eq(lv->down_x, -1);
    for (int i = 0; i < lv->w * lv->h; i++)
        ck_assert_int_ne(lv->terrain[i], MAP_STAIRS_DOWN);
    generate(lv, 9, 0, NULL);
    ck_assert_int_eq(lv->terrain[lv->down_y * lv->w + lv->down_x], MAP_STAIRS_DOWN);
    ck_assert(mapgen_passable(lv->terrain[lv->up_y * lv->w + lv->up_x]));
    ck_assert_int_eq(lv->regions[0].shape, SHAPE_TOWN);
    int buildings = 0;
    for (int i = 0; i < lv->nregions; i++)
        buildings += lv->regions[i].shape == SHAPE_BUILDING;
    ck_assert_int_ge(buildings, 2);
    mapgen_level_free(lv);
}
END_TEST

START_TEST(every_shape_appears)
{
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    int seen[SHAPE_COUNT] = {0}, lit = 0, dark = 0, named = 0, regions = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        generate(lv, seed, 1 + (int)(seed % 20), NULL);
        for (int i = 0; i < lv->nregions; i++) {
            const mapgen_region_t *r = &lv->regions[i];
            seen[r->shape]++;
            lit += r->lit;
            dark += !r->lit;
            named += r->type >= 0;
            regions++;
            ck_assert(r->x > 0 && r->y > 0 && r->x + r->w < lv->w && r->y + r->h < lv->h);
        }
    }
    for (int s = SHAPE_RECT; s <= SHAPE_VAULT; s++)
        ck_assert_msg(seen[s] > 0, "shape %s never made", mapgen_shape_name((uint8_t)s));
    ck_assert_int_gt(lit, 0);
    ck_assert_int_gt(dark, 0);
    ck_assert_int_eq(named, regions); /* the defaults name every shape at every depth */
    mapgen_level_free(lv);
}
END_TEST

START_TEST(same_seed_same_level)
{
    mapgen_level_t *a = mapgen_level_new(0, 0), *b = mapgen_level_new(0, 0);
    for (int depth = 0; depth <= 20; depth += 4) {
        generate(a, 77, depth, NULL);
        generate(b, 77, depth, NULL);
        size_t n = (size_t)(a->w * a->h);
        ck_assert_int_eq(memcmp(a->terrain, b->terrain, n), 0);
        ck_assert_int_eq(memcmp(a->region, b->region, n), 0);
        ck_assert_int_eq(a->nregions, b->nregions);
        ck_assert_int_eq(memcmp(a->regions, b->regions, sizeof a->regions[0] * (size_t)a->nregions),
                         0);
        ck_assert_int_eq(a->nspots, b->nspots);
        ck_assert_int_eq(a->down_x, b->down_x);
        generate(b, 78, depth, NULL);
        ck_assert_int_ne(memcmp(a->terrain, b->terrain, n), 0);
    }
    mapgen_level_free(a);
    mapgen_level_free(b);
}
END_TEST

START_TEST(other_sizes)
{
    const int sizes[][2] = {
        {80, 21}, {MAPGEN_MIN_W, MAPGEN_MIN_H}, {200, 100}, {MAPGEN_MAX_W, MAPGEN_MAX_H}};
    for (size_t k = 0; k < 4; k++) {
        mapgen_level_t *lv = mapgen_level_new(sizes[k][0], sizes[k][1]);
        ck_assert_ptr_nonnull(lv);
        mapgen_params_t p = {.w = sizes[k][0], .h = sizes[k][1]};
        for (int depth = 0; depth <= 20; depth += 5) {
            generate(lv, 3 + k, depth, &p);
            int open, reach;
            mapgen_count_reachable(lv, &open, &reach);
            ck_assert_int_eq(open, reach);
            ck_assert_int_gt(open, 20);
        }
        mapgen_level_free(lv);
    }
    ck_assert_ptr_null(mapgen_level_new(10, 10));
    ck_assert_ptr_null(mapgen_level_new(MAPGEN_MAX_W + 1, 40));
}
END_TEST

/* The biggest maps have more grid cells than regions: the rest are junctions. */
START_TEST(biggest_maps)
{
    mapgen_level_t *lv = mapgen_level_new(MAPGEN_MAX_W, MAPGEN_MAX_H);
    mapgen_params_t p = {.w = MAPGEN_MAX_W, .h = MAPGEN_MAX_H};
    int most = 0;
    for (uint64_t seed = 1; seed <= 3; seed++)
        for (int depth = 1; depth <= 20; depth++) {
            generate(lv, seed, depth, &p);
            int open, reach;
            mapgen_count_reachable(lv, &open, &reach);
            ck_assert_int_eq(open, reach);
            ck_assert_int_le(lv->nregions, MAPGEN_MAX_REGIONS);
            for (int i = 0; i < lv->w * lv->h; i++)
                ck_assert_int_le(lv->region[i], lv->nregions);
            if (lv->nregions > most)
                most = lv->nregions;
        }
    ck_assert_int_gt(most, 80);
    mapgen_level_free(lv);
}
END_TEST

START_TEST(bad_parameters)
{
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    rng_t r;
    rng_seed(&r, 1, 0);
    char err[128];
    mapgen_params_t p = {.w = 80, .h = 30, .depth = 1};
    ck_assert_int_eq(mapgen_generate(lv, &p, &r, err, sizeof err), -1);
    p = (mapgen_params_t){.depth = -1};
    ck_assert_int_eq(mapgen_generate(lv, &p, &r, err, sizeof err), -1);
    mapgen_vault_t bad = {"lump", "###\n#X#\n###", NULL, 1, 20, 5};
    p = (mapgen_params_t){.depth = 2, .vaults = &bad, .nvaults = 1};
    ck_assert_int_eq(mapgen_generate(lv, &p, &r, err, sizeof err), -2);
    ck_assert_str_eq(err, "lump: unknown glyph in rows");
    mapgen_region_type_t badt = {"a hole", 5, 2, 1, 0, -1};
    p = (mapgen_params_t){.depth = 2, .rtypes = &badt, .nrtypes = 1};
    ck_assert_int_eq(mapgen_generate(lv, &p, &r, err, sizeof err), -2);
    ck_assert_int_eq(mapgen_generate(NULL, &p, &r, NULL, 0), -1);
    mapgen_level_free(lv);
}
END_TEST

START_TEST(vault_checks)
{
    char err[128];
    int n;
    const mapgen_vault_t *v = mapgen_default_vaults(&n);
    ck_assert_int_ge(n, 4);
    for (int i = 0; i < n; i++)
        ck_assert_msg(mapgen_vault_check(&v[i], err, sizeof err) == 0, "%s", err);
    const mapgen_vault_t bad[] = {
        {NULL, "...", NULL, 1, 5, 1},         {"empty", "", NULL, 1, 5, 1},
        {"solid", "###\n###", NULL, 1, 5, 1}, {"glyph", "#.?", NULL, 1, 5, 1},
        {"legend", "#.Q", "Q", 1, 5, 1},      {"legend2", "#.Q", "Q?", 1, 5, 1},
        {"depth", "#.#", NULL, 7, 5, 1},      {"weight", "#.#", NULL, 1, 5, -1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(mapgen_vault_check(&bad[i], err, sizeof err) == -1, "vault %zu accepted", i);
    const mapgen_vault_t good = {"legend ok", "#.Q~", "Q~", 1, 5, 1};
    ck_assert_int_eq(mapgen_vault_check(&good, err, sizeof err), 0);
}
END_TEST

/* The test's own reading of orientation o (mapgen_region_t.orient): the
 * rows padded with spaces, mirrored left-right when bit 0 is set, then
 * turned a quarter clockwise (o >> 1) times; rows joined by '\n'. */
static void oriented(const char *rows, int o, char *out)
{
    static char g[64][64], t[64][64];
    int w = 0, h = 0, x = 0;
    memset(g, ' ', sizeof g);
    for (const char *c = rows;; c++) {
        if (*c && *c != '\n') {
            g[h][x++] = *c;
            continue;
        }
        w = x > w ? x : w;
        h++, x = 0;
        if (!*c)
            break;
    }
    for (int y = 0; (o & 1) && y < h; y++)
        for (int i = 0; i < w / 2; i++) {
            char k = g[y][i];
            g[y][i] = g[y][w - 1 - i], g[y][w - 1 - i] = k;
        }
    for (int r = 0; r < ((o >> 1) & 3); r++) {
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w; i++)
                t[i][h - 1 - y] = g[y][i]; /* the top row becomes the right column */
        memcpy(g, t, sizeof g);
        int k = w;
        w = h, h = k;
    }
    char *p = out;
    for (int y = 0; y < h; y++) {
        memcpy(p, g[y], (size_t)w);
        p += w;
        *p++ = y + 1 < h ? '\n' : 0;
    }
}

/* The oracle's orientations, which the placed vaults below are checked
 * against. */
START_TEST(vault_rotation_and_mirroring)
{
    char out[4200];
    const char *want[8] = {
        "abc\ndef",   /* as is */
        "cba\nfed",   /* mirrored */
        "da\neb\nfc", /* a quarter turn clockwise */
        "fc\neb\nda", /* mirrored, then a quarter turn */
        "fed\ncba",   /* half turn */
        "def\nabc",   /* mirrored, half turn: a vertical flip */
        "cf\nbe\nad", /* three quarters */
        "ad\nbe\ncf", /* mirrored, three quarters: the transpose */
    };
    for (int o = 0; o < 8; o++) {
        oriented("abc\ndef", o, out);
        ck_assert_msg(strcmp(out, want[o]) == 0, "orientation %d gave %s", o, out);
    }
}
END_TEST

/* A vault region holds the vault drawn under its orientation: its floor and
 * spot cells are passable (corridors may open walls, never fill floors). */
START_TEST(vaults_are_placed_as_oriented)
{
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    int vaults = 0, orients = 0, spots = 0;
    for (uint64_t seed = 1; seed <= 150 && vaults < 40; seed++) {
        generate(lv, seed, 1 + (int)(seed % 20), NULL);
        int nv;
        const mapgen_vault_t *dv = mapgen_default_vaults(&nv);
        for (int i = 0; i < lv->nregions; i++) {
            const mapgen_region_t *r = &lv->regions[i];
            if (r->shape != SHAPE_VAULT)
                continue;
            char g[4200];
            ck_assert(r->vault >= 0 && r->vault < nv);
            oriented(dv[r->vault].rows, r->orient, g);
            int x = 0, y = 0;
            for (const char *c = g; *c; c++) {
                if (*c == '\n') {
                    x = 0, y++;
                    continue;
                }
                int cell = (r->y + y) * lv->w + r->x + x;
                if (*c == '.' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')) {
                    ck_assert_msg(mapgen_passable(lv->terrain[cell]),
                                  "seed %llu vault %s o%d at %d,%d", (unsigned long long)seed,
                                  dv[r->vault].name, r->orient, x, y);
                    ck_assert_int_eq(lv->region[cell], i + 1);
                }
                x++;
            }
            ck_assert_int_eq(x, r->w);
            ck_assert_int_eq(y + 1, r->h);
            vaults++;
            orients |= 1 << r->orient;
        }
        for (int i = 0; i < lv->nspots; i++) {
            ck_assert(mapgen_passable(lv->terrain[lv->spots[i].y * lv->w + lv->spots[i].x]));
            spots++;
        }
    }
    ck_assert_int_ge(vaults, 10);
    ck_assert_int_ge(__builtin_popcount((unsigned)orients), 6);
    ck_assert_int_gt(spots, 0);
    mapgen_level_free(lv);
}
END_TEST

START_TEST(content_from_the_caller)
{
    static const mapgen_vault_t mine[] = {
        {"ring", "#####\n#.1.#\n#.#.#\n#...#\n#####", NULL, 1, 30, 10},
    };
    static const mapgen_region_type_t types[] = {
        {"a plain room", 1, 30, 1, 0x3fu | (1u << SHAPE_VAULT), 1},
        {"a cave", 1, 30, 1, (1u << SHAPE_CAVE_LIFE) | (1u << SHAPE_CAVE_ROUGH), 0},
    };
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    mapgen_params_t p = {.vaults = mine, .nvaults = 1, .rtypes = types, .nrtypes = 2};
    int vaults = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        generate(lv, seed, 5, &p);
        for (int i = 0; i < lv->nregions; i++) {
            const mapgen_region_t *r = &lv->regions[i];
            ck_assert(r->type == 0 || r->type == 1);
            if (r->shape == SHAPE_CAVE_LIFE || r->shape == SHAPE_CAVE_ROUGH) {
                ck_assert_int_eq(r->type, 1);
                ck_assert_int_eq(r->lit, 0);
            } else {
                ck_assert_int_eq(r->lit, 1); /* the plain room type is always lit */
            }
            if (r->shape == SHAPE_VAULT) {
                ck_assert_int_eq(r->vault, 0);
                vaults++;
            }
        }
    }
    ck_assert_int_gt(vaults, 0);
    mapgen_level_free(lv);
}
END_TEST

START_TEST(doors_sit_in_walls)
{
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    int doors = 0;
    for (uint64_t seed = 1; seed <= 30; seed++) {
        generate(lv, seed, 1 + (int)(seed % 20), NULL);
        int w = lv->w;
        for (int i = 0; i < w * lv->h; i++) {
            uint8_t t = lv->terrain[i];
            if (t != MAP_DOOR_CLOSED && t != MAP_DOOR_OPEN)
                continue;
            int ns = mapgen_passable(lv->terrain[i - w]) && mapgen_passable(lv->terrain[i + w]) &&
                     lv->terrain[i - 1] == MAP_WALL && lv->terrain[i + 1] == MAP_WALL;
            int ew = mapgen_passable(lv->terrain[i - 1]) && mapgen_passable(lv->terrain[i + 1]) &&
                     lv->terrain[i - w] == MAP_WALL && lv->terrain[i + w] == MAP_WALL;
            ck_assert_msg(ns || ew, "seed %llu: a door at %d,%d not in a wall",
                          (unsigned long long)seed, i % w, i / w);
            doors++;
        }
        /* no corridor dead ends are left */
        for (int i = 0; i < w * lv->h; i++) {
            if (lv->terrain[i] != MAP_CORRIDOR)
                continue;
            int open = mapgen_passable(lv->terrain[i - w]) + mapgen_passable(lv->terrain[i + w]) +
                       mapgen_passable(lv->terrain[i - 1]) + mapgen_passable(lv->terrain[i + 1]);
            ck_assert_msg(open >= 2, "seed %llu: dead end at %d,%d", (unsigned long long)seed,
                          i % w, i / w);
        }
    }
    ck_assert_int_gt(doors, 30);
    mapgen_level_free(lv);
}
END_TEST

START_TEST(terrain_tables)
{
    ck_assert(mapgen_opaque(MAP_WALL) && mapgen_opaque(MAP_ROCK) && mapgen_opaque(MAP_DOOR_CLOSED));
    ck_assert(!mapgen_opaque(MAP_FLOOR) && !mapgen_opaque(MAP_DOOR_OPEN) &&
              !mapgen_opaque(MAP_DEEP_WATER));
    ck_assert(mapgen_passable(MAP_DOOR_CLOSED) && !mapgen_passable(MAP_DEEP_WATER));
    ck_assert(!mapgen_passable(MAP_TERRAIN_COUNT) && mapgen_opaque(200));
    for (int t = 0; t < MAP_TERRAIN_COUNT; t++) /* every terrain has its row */
        ck_assert(mapgen_terrain_glyph((uint8_t)t) >= ' ');
    for (int s = 0; s < SHAPE_COUNT; s++)
        ck_assert_str_ne(mapgen_shape_name((uint8_t)s), "?");
    mapgen_level_t *lv = mapgen_level_new(0, 0);
    generate(lv, 4, 3, NULL);
    uint8_t *lit = malloc((size_t)(lv->w * lv->h)), *op = malloc((size_t)(lv->w * lv->h));
    mapgen_fill_lit(lv, lit);
    mapgen_fill_opaque(lv, op);
    for (int i = 0; i < lv->w * lv->h; i++) {
        ck_assert_int_eq(op[i], mapgen_opaque(lv->terrain[i]));
        if (lit[i])
            ck_assert(lv->region[i] && lv->regions[lv->region[i] - 1].lit);
    }
    free(lit);
    free(op);
    mapgen_level_free(lv);
}
END_TEST

Suite *suite_game_mapgen(void)
{
    Suite *s = suite_create("game_mapgen");
    TCase *tc = tcase_create("mapgen");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_open_cell_is_reachable);
    tcase_add_test(tc, stairs_are_far_apart);
    tcase_add_test(tc, bottom_level_and_town);
    tcase_add_test(tc, every_shape_appears);
    tcase_add_test(tc, same_seed_same_level);
    tcase_add_test(tc, other_sizes);
    tcase_add_test(tc, biggest_maps);
    tcase_add_test(tc, bad_parameters);
    tcase_add_test(tc, vault_checks);
    tcase_add_test(tc, vault_rotation_and_mirroring);
    tcase_add_test(tc, vaults_are_placed_as_oriented);
    tcase_add_test(tc, content_from_the_caller);
    tcase_add_test(tc, doors_sit_in_walls);
    tcase_add_test(tc, terrain_tables);
    suite_add_tcase(s, tc);
    return s;
}
