/* game_sight — the player's view as the game keeps it (reused while
 * nothing it depends on changed, scanned by fov_compute_box over the
 * level's derived arrays, only inside the sight box) equals a whole new
 * computation after every key of long seeded games: one made here from
 * the terrain, the regions and the player's state alone, through the
 * plain scan (fov_compute_box with an opacity callback). The games open
 * and close doors, search for secret ones, go up and down stairs, turn blind
 * and see again, have a region's light changed, and are saved and
 * restored from a snapshot on the way. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "fov.h"
#include "game.h"
#include "helpers.h"
#include "level.h"
#include "mapgen.h"
#include "status.h"
#include "vision.h"
#include "world.h"

/* What the scan reads, made from the level as it is now. */
typedef struct {
    int w;
    uint8_t *opaque, *lit;
} ref_map_t;

static int ref_opaque(const void *ctx, int x, int y)
{
    const ref_map_t *r = ctx;
    return r->opaque[y * r->w + x];
}

static void ref_derive(const game_t *g, const level_t *lv, ref_map_t *r)
{
    for (int i = 0; i < lv->w * lv->h; i++) {
        uint8_t t = lv->terrain[i], k = lv->region[i];
        r->opaque[i] = t >= g->c->n_terrain || (g->c->terrain[t].flags & TF_OPAQUE);
        r->lit[i] = k && k <= lv->nregions && lv->regions[k - 1].lit;
    }
}

/* The first cell of the sight box on one axis: reach cells either side of
 * p, moved in from the map's edges (what an 80x21 map view shows). */
static int ref_box_start(int p, int reach, int map)
{
    int at = p - reach, last = map - (2 * reach + 1);
    if (at > last)
        at = last;
    return at < 0 ? 0 : at;
}

/* The view from scratch: the player's light radius (one cell in a dark
 * region or when blind), the plain scan, nothing past the sight box. */
static void ref_view(game_t *g, uint8_t *vis, ref_map_t *r)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    ref_derive(g, lv, r);
    const region_kind_t *rk = level_region_kind(g, lv, p->x, p->y);
    int dark = (rk && (rk->flags & RF_DARK)) || status_has(g, g->player, EFK_(BLIND));
    int x0 = ref_box_start(p->x, SIGHT_X, lv->w), y0 = ref_box_start(p->y, SIGHT_Y, lv->h);
    fov_box_t box = {x0, y0, x0 + 2 * SIGHT_X + 1, y0 + 2 * SIGHT_Y + 1};
    fov_map_t m = {lv->w, lv->h, NULL, ref_opaque, r, r->lit};
    int reach;
    ck_assert_int_ge(fov_compute_box(&m, p->x, p->y, dark ? 1 : LIGHT_RADIUS, &box, vis, &reach),
                     1);
}

/* What the walk did, to show it met every kind of change. */
typedef struct {
    int keys, still_changes, level_changes, restores, blind_keys, light_changes;
} walk_t;

/* The direction key toward the first neighbour of the player whose
 * terrain is t, or 0. */
static char toward(game_t *g, uint8_t t)
{
    static const struct {
        int dx, dy;
        char k;
    } DIRS[] = {{-1, 0, 'h'},  {1, 0, 'l'},  {0, -1, 'k'}, {0, 1, 'j'},
                {-1, -1, 'y'}, {1, -1, 'u'}, {-1, 1, 'b'}, {1, 1, 'n'}};
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    for (size_t i = 0; i < sizeof DIRS / sizeof DIRS[0]; i++)
        if (level_terrain(lv, p->x + DIRS[i].dx, p->y + DIRS[i].dy) == t)
            return DIRS[i].k;
    return 0;
}

/* A region's light turned on or off (a level's light changing), flagged
 * as every change of the map is. */
static void change_light(game_t *g, uint32_t r)
{
    level_t *lv = level_current(g);
    if (!lv->nregions)
        return;
    lv->regions[r % lv->nregions].lit ^= 1;
    lv->opaque_ok = 0;
}

static void go_blind(game_t *g, uint32_t r)
{
    for (int i = 0; i < g->c->n_effects; i++)
        if (!strcmp(g->c->effects[i].name, "blindness"))
            status_apply(g, g->player, i, 200 + (int32_t)(r % 600), 1, 0);
}

/* One step of the walk, chosen by r: doors opened (by walking into them)
 * and closed, stairs taken, searches (secret doors), exploring, random
 * moves; now and then blindness or a change of light. */
static void walk_key(game_t *g, uint32_t r, walk_t *w)
{
    static const char MOVES[] = "hjklyubn";
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    uint8_t under = level_terrain(lv, p->x, p->y);
    char shut = toward(g, MAP_DOOR_CLOSED), open = toward(g, MAP_DOOR_OPEN);
    if (r % 97 == 0)
        go_blind(g, r);
    if (r % 89 == 1) {
        change_light(g, r >> 8);
        w->light_changes++;
    }
    if (under == MAP_STAIRS_DOWN)
        key(g, '>');
    else if (under == MAP_STAIRS_UP && r % 4 == 0)
        key(g, '<');
    else if (shut && r % 2)
        key(g, (uint32_t)shut);
    else if (open && r % 3 == 0) {
        key(g, 'c');
        key(g, (uint32_t)open);
    } else if (r % 13 == 0)
        key(g, 'o');
    else if (r % 11 == 0)
        key(g, 's');
    else
        key(g, (uint32_t)MOVES[r % 8]);
    if (g->prompt || g->state != GAME_RUNNING)
        key(g, 27);
}

/* The game saved and loaded again, as after a restart. */
static game_t *restored(content_t *c, game_t *g)
{
    buf_t b = {0};
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[160];
    game_t *back = game_load(c, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(back != NULL, "load: %s", err);
    buf_free(&b);
    game_free(g);
    return back;
}

/* The kept view equals the one made from scratch, and all of it is
 * remembered. Counts a change of opacity or light in the box that came
 * while the player stood still (the view kept only if it saw it). */
static void check_view(game_t *g, ref_map_t *r, uint8_t *vis, uint8_t *was_opaque, int still,
                       walk_t *w, int i)
{
    level_t *lv = level_current(g);
    size_t n = (size_t)lv->w * (size_t)lv->h;
    ref_view(g, vis, r);
    size_t k = 0, unseen = 0;
    while (k < n && lv->vis[k] == vis[k])
        k++;
    ck_assert_msg(k == n, "key %d depth %d: cell (%d,%d) is %d, from scratch %d", i, g->depth,
                  (int)(k % (size_t)lv->w), (int)(k / (size_t)lv->w), lv->vis[k % n], vis[k % n]);
    for (k = 0; k < n; k++)
        unseen += vis[k] && !lv->seen[k];
    ck_assert_uint_eq(unseen, 0); /* all in view is remembered */
    w->still_changes += still && memcmp(was_opaque, r->opaque, n) != 0;
    memcpy(was_opaque, r->opaque, n);
}

static void sight_walk(content_t *c, uint64_t seed, walk_t *w)
{
    size_t cap = (size_t)MAPGEN_MAX_W * MAPGEN_MAX_H;
    uint8_t *vis = malloc(cap), *was = calloc(cap, 1);
    ref_map_t r = {0, malloc(cap), malloc(cap)};
    game_t *g = started(game_new(c, seed, NULL));
    uint32_t x = (uint32_t)seed * 2654435761u;
    for (int i = 0; i < 1500 && g->state == GAME_RUNNING; i++) {
        obj_t *p = reg_get(&g->reg, g->player);
        p->hp = p->hp_max; /* the walk is about sight: it goes on */
        int px = p->x, py = p->y, depth = g->depth;
        x = x * 1103515245u + 12345u;
        walk_key(g, x >> 8, w);
        if (i % 150 == 149) {
            g = restored(c, g);
            w->restores++;
        }
        p = reg_get(&g->reg, g->player);
        r.w = level_current(g)->w;
        w->level_changes += g->depth != depth;
        w->blind_keys += status_has(g, g->player, EFK_(BLIND));
        check_view(g, &r, vis, was, g->depth == depth && p->x == px && p->y == py, w, i);
        w->keys++;
    }
    game_free(g);
    free(vis), free(was), free(r.opaque), free(r.lit);
}

START_TEST(kept_view_equals_scratch_on_long_walks)
{
    walk_t w = {0};
    for (uint64_t seed = 1; seed <= 8; seed++)
        sight_walk(C, seed, &w);
    ck_assert_int_gt(w.keys, 10000);
    ck_assert_int_gt(w.still_changes, 300); /* doors opened or shut beside a player standing */
    ck_assert_int_gt(w.level_changes, 15);
    ck_assert_int_ge(w.restores, 60);
    ck_assert_int_gt(w.blind_keys, 300);
    ck_assert_int_gt(w.light_changes, 80);
}
END_TEST

Suite *suite_game_sight(void)
{
    Suite *s = suite_create("game_sight");
    TCase *tc = tcase_create("sight");
    with_shipped_content(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, kept_view_equals_scratch_on_long_walks);
    suite_add_tcase(s, tc);
    return s;
}
