/* Unit tests: where monsters come from — one generation table for new
 * levels, summonings and arrivals while resting: a unique at most once a
 * game and only within its depths, the warden only on the bottom level
 * and the Heartstone only from him there; and how a new level's monsters
 * start (some asleep, never the mindless). */
#include <check.h>
#include <string.h>
#include "content.h"
#include "creature.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "world.h"

/* Every unique or warden made, by kind: handles counted at each sight. */
typedef struct {
    handle_t seen[64][8];
    int n[64];
    int off_band, wardens_off_depth;
} census_t;

static void census(game_t *g, census_t *cs)
{
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player)
            continue;
        const creature_kind_t *k = creature_kind(g, o);
        if ((k->flags & CF_WARDEN) && o->depth != WORLD_MAX_DEPTH)
            cs->wardens_off_depth++;
        if (!(k->flags & CF_WARDEN) && (o->depth < k->min_depth || o->depth > k->max_depth))
            cs->off_band++;
        int u = creature_unique_index(g->c, o->kind);
        if (u < 0)
            continue;
        bool known = false;
        for (int i = 0; i < cs->n[u]; i++)
            known |= cs->seen[u][i] == h;
        if (!known && cs->n[u] < 8)
            cs->seen[u][cs->n[u]++] = h;
    }
}

/* The player's level becomes level d (its monsters, if any, with it). */
static void move_to_depth(game_t *g, int d)
{
    level_t *lv = level_current(g);
    g->levels[g->depth] = NULL;
    g->levels[d] = lv;
    lv->depth = (int16_t)d;
    reg_get(&g->reg, g->player)->depth = (int16_t)d;
    reg_refile(&g->reg, g->player);
    g->depth = g->max_depth = (int16_t)d;
}

/* A scroll of summoning read at depth, its monsters counted and then sent
 * away, again and again: 1,000 summonings over the depths uniques live at. */
START_TEST(no_unique_twice_over_1000_summons)
{
    game_t *g = alone(C, 51, 0, 0);
    open_room(g, 3);
    census_t cs;
    memset(&cs, 0, sizeof cs);
    uint16_t scroll = item_named(C, "scroll of summoning");
    int made = 0;
    for (int i = 0; i < 1000; i++) {
        move_to_depth(g, 3 + i % 17); /* the tables of depths 3 to 19 */
        handle_t s = item_new(g, scroll, 1, g->player, 0, 0, 0, NULL);
        ck_assert_int_gt(itemuse_use(g, g->player, s, 0, 0), 0);
        census(g, &cs);
        for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h))
            made += reg_get(&g->reg, h)->type == OBJ_CREATURE && h != g->player;
        clear_monsters(g);
    }
    ck_assert_int_gt(made, 1500);
    int uniques = 0;
    for (int u = 0; u < 64; u++) {
        ck_assert_int_le(cs.n[u], 1);
        uniques += cs.n[u];
    }
    ck_assert_int_ge(uniques, 3); /* they do come, once */
    ck_assert_int_eq(cs.off_band, 0);
    ck_assert_int_eq(cs.wardens_off_depth, 0);
    /* the table itself: never the warden, a unique made, or out of its depths */
    for (int depth = 1; depth <= WORLD_MAX_DEPTH; depth++)
        for (int i = 0; i < 500; i++) {
            int k = creature_pick_kind(g, &g->play, depth);
            ck_assert_int_ge(k, 0);
            const creature_kind_t *ck = &C->creatures[k];
            ck_assert(!(ck->flags & CF_WARDEN));
            ck_assert(depth >= ck->min_depth && depth <= ck->max_depth);
            int u = creature_unique_index(C, (uint16_t)k);
            ck_assert(u < 0 || !(g->pc.uniques_made >> u & 1));
        }
    game_free(g);
}
END_TEST

/* Every level of a few games: the warden only on the bottom one, once;
 * no unique twice; and a new level's sleepers are never mindless. */
START_TEST(warden_only_on_the_bottom_level)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = alone(C, seed, 0, 0);
        census_t cs;
        memset(&cs, 0, sizeof cs);
        int asleep = 0, wardens = 0;
        for (int d = 2; d <= WORLD_MAX_DEPTH; d++) {
            level_t *lv = level_new(g, g->levels[1]->w, g->levels[1]->h, d);
            ck_assert_ptr_nonnull(lv);
            g->levels[d] = lv;
            ck_assert_int_eq(level_generate(g, lv), 0);
            ck_assert_int_eq(creature_populate(g, lv), 0);
        }
        census(g, &cs);
        for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
            const obj_t *o = reg_get(&g->reg, h);
            if (o->type != OBJ_CREATURE || h == g->player)
                continue;
            wardens += (creature_kind(g, o)->flags & CF_WARDEN) != 0;
            if (o->flags & OF_ASLEEP) {
                asleep++;
                ck_assert(!(creature_kind(g, o)->flags & CF_MINDLESS));
            }
        }
        ck_assert_int_eq(wardens, 1);
        ck_assert_int_eq(cs.wardens_off_depth, 0);
        ck_assert_int_eq(cs.off_band, 0);
        for (int u = 0; u < 64; u++)
            ck_assert_int_le(cs.n[u], 1);
        ck_assert_int_gt(asleep, 20);
        game_free(g);
    }
}
END_TEST

/* A warden killed anywhere but the bottom level gives no Heartstone; on
 * the bottom level his death does. */
START_TEST(heartstone_only_from_the_warden_on_20)
{
    game_t *g = alone(C, 52, 0, 0);
    open_room(g, 3);
    int warden = -1;
    for (int i = 0; i < C->n_creatures; i++)
        if (C->creatures[i].flags & CF_WARDEN)
            warden = i;
    ck_assert_int_ge(warden, 0);
    handle_t w = spawn_at(g, C->creatures[warden].name, 1, 0);
    reg_get(&g->reg, w)->hp = 1;
    ev_info_t e = {.type = EV_DAMAGE,
                   .actor = g->player,
                   .victim = w,
                   .map = -1,
                   .dtype = DT_HIT,
                   .amount = {50}};
    event_throw(g, &e);
    ck_assert_ptr_null(reg_get(&g->reg, w));
    ck_assert_int_eq(g->pc.heartstone, 0);
    ck_assert_int_gt(g->pc.kills, 0);
    game_free(g);
    /* the bottom level's own warden */
    g = game_new(C, 53, NULL);
    hero_by_warden(g);
    w = HANDLE_NONE;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h))
        if (reg_get(&g->reg, h)->type == OBJ_CREATURE &&
            (creature_kind(g, reg_get(&g->reg, h))->flags & CF_WARDEN))
            w = h;
    ck_assert_uint_ne(w, HANDLE_NONE);
    ck_assert_int_eq(reg_get(&g->reg, w)->depth, WORLD_MAX_DEPTH);
    reg_get(&g->reg, w)->hp = 1;
    e.actor = g->player, e.victim = w;
    event_throw(g, &e);
    ck_assert_int_eq(g->pc.heartstone, 1);
    game_free(g);
}
END_TEST

Suite *suite_game_spawn(void)
{
    Suite *s = suite_create("game_spawn");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_set_timeout(t, 180);
    tcase_add_test(t, no_unique_twice_over_1000_summons);
    tcase_add_test(t, warden_only_on_the_bottom_level);
    tcase_add_test(t, heartstone_only_from_the_warden_on_20);
    suite_add_tcase(s, t);
    return s;
}
