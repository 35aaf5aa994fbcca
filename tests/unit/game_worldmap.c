/* Unit tests: game/worldmap and worldui — the surface world of a seed:
 * the same seed gives the same world and others differ, territories are
 * single pieces of land, rivers reach water, names are well formed and
 * unique, counts keep to the content's ranges, and the M screen shows it
 * without touching the game. */
#include <check.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "declare.h"
#include "helpers.h"
#include "prompt.h"
#include "worldmap.h"

#define SEEDS 60

static worldmap_t *world_of(const content_t *c, uint64_t seed)
{
    char err[128] = "";
    worldmap_t *w = worldmap_new(c, seed, err, sizeof err);
    ck_assert_msg(w != NULL, "seed %llu: %s", (unsigned long long)seed, err);
    return w;
}

static char *text_of(const worldmap_t *w)
{
    buf_t b;
    buf_init(&b);
    worldmap_text(w, &b);
    buf_putc(&b, 0);
    ck_assert(!b.failed);
    return b.data; /* the caller frees */
}

START_TEST(same_seed_same_world)
{
    worldmap_t *a = world_of(C, 77), *b = world_of(C, 77);
    size_t n = (size_t)a->w * (size_t)a->h;
    ck_assert_int_eq(memcmp(a->kind, b->kind, n * 5), 0); /* kind, high, terr, river, lane */
    char *ta = text_of(a), *tb = text_of(b);
    ck_assert_str_eq(ta, tb);
    free(ta), free(tb);
    worldmap_free(a), worldmap_free(b);
}
END_TEST

START_TEST(seeds_differ)
{
    char *text[8];
    for (int i = 0; i < 8; i++) {
        worldmap_t *w = world_of(C, (uint64_t)i + 1);
        text[i] = text_of(w);
        worldmap_free(w);
    }
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++)
            ck_assert_msg(strcmp(text[i], text[j]) != 0, "seeds %d and %d", i + 1, j + 1);
    for (int i = 0; i < 8; i++)
        free(text[i]);
}
END_TEST

/* Cells of territory t reachable from its seed point over its own land. */
static int territory_reach(const worldmap_t *w, int t, int *queue, uint8_t *seen)
{
    int n = w->w * w->h, head = 0, tail = 0, start = w->terrs[t].y * w->w + w->terrs[t].x;
    memset(seen, 0, (size_t)n);
    ck_assert_int_eq(w->terr[start], t + 1);
    queue[tail++] = start, seen[start] = 1;
    while (head < tail) {
        int c = queue[head++];
        const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int d = 0; d < 4; d++) {
            int x = c % w->w + dx[d], y = c / w->w + dy[d], nc = y * w->w + x;
            if (x >= 0 && y >= 0 && x < w->w && y < w->h && !seen[nc] && w->terr[nc] == t + 1)
                seen[nc] = 1, queue[tail++] = nc;
        }
    }
    return tail;
}

START_TEST(territories_are_whole_pieces_of_land)
{
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        worldmap_t *w = world_of(C, seed);
        int n = w->w * w->h, *queue = malloc((size_t)n * sizeof *queue);
        uint8_t *seen = malloc((size_t)n);
        int cells[WORLD_TERR_MAX] = {0};
        for (int k = 0; k < n; k++) {
            ck_assert_msg((w->kind[k] == WM_LAND) == (w->terr[k] != 0), "seed %d cell %d",
                          (int)seed, k);
            if (w->terr[k])
                cells[w->terr[k] - 1]++;
            int x = k % w->w, y = k / w->w;
            if (x == 0 || y == 0 || x == w->w - 1 || y == w->h - 1)
                ck_assert_int_eq(w->kind[k], WM_SEA); /* a coast all round */
        }
        for (int t = 0; t < w->n_terrs; t++) {
            ck_assert_int_gt(cells[t], 0);
            ck_assert_int_eq(cells[t], w->terrs[t].cells);
            ck_assert_msg(territory_reach(w, t, queue, seen) == cells[t],
                          "seed %d: territory %d is in pieces", (int)seed, t);
        }
        free(queue), free(seen);
        worldmap_free(w);
    }
}
END_TEST

static int adjacent(const worldmap_t *w, int a, int b)
{
    return abs(a % w->w - b % w->w) <= 1 && abs(a / w->w - b / w->w) <= 1 && a != b;
}

/* Whether a cell 8-next to c is of kind k (or on river r + 1 when k < 0). */
static int beside(const worldmap_t *w, int c, int k, int r)
{
    for (int n = 0; n < w->w * w->h; n++)
        if (adjacent(w, c, n) && (k >= 0 ? w->kind[n] == k : w->river[n] == r + 1))
            return 1;
    return 0;
}

START_TEST(rivers_run_to_the_sea_or_a_lake)
{
    int lakes = 0, seas = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        worldmap_t *w = world_of(C, seed);
        for (int i = 0; i < w->n_rivers; i++) {
            const worldmap_river_t *r = &w->rivers[i];
            ck_assert_int_ge(r->len, 3);
            for (int k = 0; k < r->len; k++) {
                ck_assert_int_eq(w->kind[r->path[k]], WM_LAND);
                ck_assert_int_eq(w->river[r->path[k]], i + 1);
                if (k)
                    ck_assert(adjacent(w, r->path[k - 1], r->path[k]));
            }
            int mouth = r->path[r->len - 1];
            if (r->to == WM_TO_RIVER) {
                /* a tributary ends in an earlier river, which ends in water itself */
                ck_assert_int_lt(r->into, i);
                ck_assert(beside(w, mouth, -1, r->into));
            } else {
                ck_assert(beside(w, mouth, r->to == WM_TO_SEA ? WM_SEA : WM_LAKE, 0));
                lakes += r->to == WM_TO_LAKE, seas += r->to == WM_TO_SEA;
            }
        }
        worldmap_free(w);
    }
    ck_assert_int_gt(seas, SEEDS); /* most rivers find the sea */
}
END_TEST

static void name_check(const char *s, const char **seen, int *n)
{
    size_t len = strlen(s);
    ck_assert_msg(len >= 3 && len <= 20 && isupper((unsigned char)s[0]), "'%s'", s);
    for (size_t i = 1; i < len; i++)
        ck_assert_msg(islower((unsigned char)s[i]), "'%s'", s);
    for (int i = 0; i < *n; i++)
        ck_assert_msg(strcasecmp(seen[i], s) != 0, "'%s' twice", s);
    seen[(*n)++] = s;
}

START_TEST(names_are_well_formed_and_unique)
{
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        worldmap_t *w = world_of(C, seed);
        const char *seen[1 + WORLD_TERR_MAX + WORLD_TOWN_MAX + WORLD_RIVER_MAX];
        int n = 0;
        name_check(w->name, seen, &n);
        for (int i = 0; i < w->n_terrs; i++)
            name_check(w->terrs[i].name, seen, &n);
        for (int i = 0; i < w->n_towns; i++)
            name_check(w->towns[i].name, seen, &n);
        for (int i = 0; i < w->n_rivers; i++)
            name_check(w->rivers[i].name, seen, &n);
        ck_assert_str_eq(w->towns[w->home].name, C->world.home); /* the player's town */
        worldmap_free(w);
    }
}
END_TEST

/* Union-find over territories, joined by the water routes. */
static int root(int *up, int a)
{
    while (up[a] != a)
        a = up[a];
    return a;
}

START_TEST(counts_keep_to_the_content)
{
    const worldmap_params_t *p = &C->world;
    int rivers = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        worldmap_t *w = world_of(C, seed);
        int n = w->w * w->h, land = 0;
        for (int k = 0; k < n; k++)
            land += w->kind[k] == WM_LAND;
        ck_assert_int_ge(land * 100, n * 15); /* a continent, not an islet */
        ck_assert_int_le(land * 100, n * (p->land_pct + 1));
        ck_assert_int_ge(w->n_terrs, p->territories[0]);
        ck_assert_int_le(w->n_terrs, p->territories[1]);
        ck_assert_int_ge(w->n_towns, w->n_terrs); /* every territory has its seat */
        ck_assert_int_le(w->n_towns, w->n_terrs * p->towns[1]);
        ck_assert_int_le(w->n_rivers, p->rivers[1]);
        rivers += w->n_rivers;
        int up[WORLD_TERR_MAX], ports = 0, port_root = -1, joined = 1;
        for (int t = 0; t < w->n_terrs; t++)
            up[t] = t;
        for (int i = 0; i < w->n_routes; i++)
            up[root(up, w->routes[i].a)] = root(up, w->routes[i].b);
        for (int t = 0; t < w->n_terrs; t++) {
            const worldmap_town_t *seat = &w->towns[w->terrs[t].seat];
            ck_assert_int_eq(seat->territory, t);
            for (int i = 0; i < w->n_towns; i++)
                if (w->towns[i].territory == t && w->towns[i].port) {
                    ports++;
                    if (port_root < 0)
                        port_root = root(up, t);
                    joined &= root(up, t) == port_root;
                    break;
                }
        }
        ck_assert_msg(joined, "seed %d: a port the sea routes miss", (int)seed);
        ck_assert_int_ge(ports, 2);
        worldmap_free(w);
    }
    ck_assert_int_ge(rivers, SEEDS * p->rivers[0] / 2);
}
END_TEST

START_TEST(no_world_without_syllables)
{
    worldmap_params_t p = {.w = 40, .h = 16, .land_pct = 40};
    char err[96] = "";
    ck_assert_ptr_null(worldmap_make(&p, 1, err, sizeof err));
    ck_assert_str_eq(err, "the content declares no world");
}
END_TEST

/* A broken world declaration stops the load with file:line and why; the
 * shipped one names the town the town level is named for. */
START_TEST(world_declarations_are_checked)
{
    static const char *const BAD[][2] = {
        {"tests/content/bad/bad_world.lua",
         "bad_world.lua:2: world: 'onsets' entry 2 must be 0 to 7 small letters"},
        {"tests/content/bad/bad_world_range.lua",
         "bad_world_range.lua:2: world: field 'territories' must be {min, max}"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const char *paths[] = {"game/content/terrain.lua", "game/content/effects.lua",
                               "game/content/spells.lua", "game/content/creatures.lua", BAD[i][0]};
        char err[256] = "";
        content_t *c = declare_load_files(paths, 5, err, sizeof err);
        ck_assert_ptr_null(c);
        ck_assert_msg(strstr(err, BAD[i][1]) != NULL, "got '%s'", err);
    }
    int named = 0;
    for (int i = 0; i < C->n_regions; i++)
        named += strstr(C->regions[i].name, C->world.home) != NULL;
    ck_assert_int_eq(named, 1);
}
END_TEST

/* M shows the world of the game's seed and any key returns; neither
 * moves time nor draws from the game's streams. */
START_TEST(m_shows_the_world_and_changes_nothing)
{
    game_t *g = game_new(C, 99, NULL);
    key(g, 'z'); /* a random character, in the town */
    uint64_t turn = g->sched.now;
    rng_t play = g->play;
    key(g, 'M');
    ck_assert_int_eq(g->prompt, PROMPT_WORLD);
    screen_t *s = screen_new(80, 24);
    game_render(g, s, NULL);
    worldmap_t *w = world_of(C, 99);
    char row0[81] = "", all[80 * 24 + 1] = "";
    for (int y = 0; y < 24; y++)
        for (int x = 0; x < 80; x++)
            all[y * 80 + x] = (char)screen_at(s, x, y)->ch;
    memcpy(row0, all, 80);
    ck_assert_msg(strstr(row0, w->name) && strstr(row0, "Burrowmouth"), "%s", row0);
    for (int t = 0; t < w->n_terrs; t++)
        ck_assert_msg(strstr(all, w->terrs[t].name), "%s missing", w->terrs[t].name);
    int home = 0;
    for (int y = 1; y <= w->h; y++)
        for (int x = 0; x < w->w; x++)
            home += screen_at(s, x, y)->ch == '@';
    ck_assert_int_eq(home, 1);
    ck_assert_uint_eq(screen_at(s, w->towns[w->home].x, 1 + w->towns[w->home].y)->ch, '@');
    key(g, 'j'); /* any key returns, and does not walk */
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_uint_eq(g->sched.now, turn);
    ck_assert_mem_eq(&g->play, &play, sizeof play);
    worldmap_free(w);
    screen_free(s);
    game_free(g);
}
END_TEST

Suite *suite_game_worldmap(void)
{
    Suite *s = suite_create("game_worldmap");
    TCase *t = tcase_create("world");
    with_shipped_content(t);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, same_seed_same_world);
    tcase_add_test(t, seeds_differ);
    tcase_add_test(t, territories_are_whole_pieces_of_land);
    tcase_add_test(t, rivers_run_to_the_sea_or_a_lake);
    tcase_add_test(t, names_are_well_formed_and_unique);
    tcase_add_test(t, counts_keep_to_the_content);
    tcase_add_test(t, no_world_without_syllables);
    tcase_add_test(t, world_declarations_are_checked);
    tcase_add_test(t, m_shows_the_world_and_changes_nothing);
    suite_add_tcase(s, t);
    return s;
}
