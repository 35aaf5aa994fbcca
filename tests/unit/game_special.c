/* Unit tests: terrain that matters, special levels and the escape — deep
 * water swum (a laden swimmer is dragged under and loses things), lava
 * burns, a chasm drops the player a level, rubble is slow, monsters keep
 * out of hazards; special levels reshape their depth without cutting it
 * apart; every vault of the content fits a level; the Heartstone's climb
 * collapses stairs and sends pursuers, and reaching the town wins. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "creature.h"
#include "escape.h"
#include "helpers.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "prompt.h"
#include "shop.h"
#include "special.h"
#include "vision.h"
#include "world.h"

/* Walkable cells reached from the up stairs over walkable cells, against
 * all of them. */
static bool whole(game_t *g, const level_t *lv)
{
    int n = lv->w * lv->h, open = 0, reached = 0, head = 0, tail = 0;
    int *q = calloc((size_t)n, sizeof *q);
    char *seen = calloc((size_t)n, 1);
    ck_assert(q && seen);
    for (int i = 0; i < n; i++)
        open += level_walkable(g, lv, i % lv->w, i / lv->w);
    q[tail++] = lv->up_y * lv->w + lv->up_x;
    seen[q[0]] = 1;
    while (head < tail) {
        int c = q[head++];
        reached++;
        for (int d = 0; d < 4; d++) {
            static const int D[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
            int x = c % lv->w + D[d][0], y = c / lv->w + D[d][1], nc = y * lv->w + x;
            if (level_in(lv, x, y) && !seen[nc] && level_walkable(g, lv, x, y))
                seen[nc] = 1, q[tail++] = nc;
        }
    }
    free(q);
    free(seen);
    return reached == open;
}

START_TEST(special_levels_reshape_their_depth)
{
    ck_assert_int_ge(C->n_specials, 3);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        game_t *g = game_new(C, seed, NULL);
        for (int i = 0; i < C->n_specials; i++) {
            const special_level_t *sp = &C->specials[i];
            ck_assert(special_of(C, sp->depth) == sp);
            level_t *lv = level_new(g, MAPGEN_DEFAULT_W, MAPGEN_DEFAULT_H, sp->depth);
            ck_assert_int_eq(level_generate(g, lv), 0);
            int count[MAP_TERRAIN_COUNT] = {0}, renamed = 0;
            for (int k = 0; k < lv->w * lv->h; k++)
                count[lv->terrain[k]]++;
            for (int r = 0; r < lv->nregions; r++)
                renamed += lv->regions[r].kind == sp->region;
            ck_assert_int_gt(renamed, 0);
            if (sp->deep)
                ck_assert_int_gt(count[MAP_DEEP_WATER], 0);
            if (sp->lava)
                ck_assert_int_gt(count[MAP_LAVA], 0);
            if (sp->chasm)
                ck_assert_int_gt(count[MAP_CHASM], 0);
            ck_assert_msg(whole(g, lv), "seed %d: %s cut apart", (int)seed, sp->name);
            level_free(g, lv);
        }
        /* an ordinary depth keeps no lava or chasm */
        level_t *lv = level_new(g, MAPGEN_DEFAULT_W, MAPGEN_DEFAULT_H, 5);
        ck_assert_int_eq(level_generate(g, lv), 0);
        for (int k = 0; k < lv->w * lv->h; k++)
            ck_assert(lv->terrain[k] != MAP_LAVA && lv->terrain[k] != MAP_CHASM);
        level_free(g, lv);
        game_free(g);
    }
}
END_TEST

START_TEST(a_special_level_says_so_once_with_its_extra_creatures)
{
    const special_level_t *sp = NULL;
    for (int i = 0; i < C->n_specials && !sp; i++)
        sp = C->specials[i].creature >= 0 ? &C->specials[i] : NULL;
    ck_assert_ptr_nonnull(sp);
    game_t *g = alone(C, 21, 0, 0);
    ck_assert_int_eq(level_enter(g, sp->depth), 0);
    int told = 0;
    for (size_t i = 0; i < g->nms; i++)
        told += !strcmp(g->ms[i].kind, "special");
    ck_assert_int_eq(told, 1);
    ck_assert(said_since(g, 0, sp->msg));
    int kin = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        kin += o->type == OBJ_CREATURE && o->depth == sp->depth && o->kind == sp->creature;
    }
    ck_assert_int_ge(kin, sp->extra);
    ck_assert_int_eq(level_enter(g, sp->depth - 1), 0);
    size_t ms = g->nms;
    ck_assert_int_eq(level_enter(g, sp->depth), 0);
    ck_assert_uint_eq(g->nms, ms); /* told once */
    game_free(g);
}
END_TEST

/* A lone character on level 1 in an open room with terrain t east of it;
 * plenty of hit points. */
static game_t *beside_terrain(content_t *c, uint8_t t, uint64_t seed)
{
    game_t *g = alone(c, seed, 0, 0);
    open_room(g, 3);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 1000;
    level_t *lv = level_current(g);
    lv->terrain[p->y * lv->w + p->x + 1] = t;
    lv->opaque_ok = 0;
    vision_update(g);
    return g;
}

static void drop_everything(game_t *g)
{
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h))
        if (reg_get(&g->reg, h)->type == OBJ_ITEM && reg_get(&g->reg, h)->target == g->player)
            reg_del(&g->reg, h);
}

START_TEST(deep_water_is_swum_and_drags_the_laden_under)
{
    game_t *g = beside_terrain(C, MAP_DEEP_WATER, 22);
    drop_everything(g);
    uint32_t from = g->nmsg;
    int x = reg_get(&g->reg, g->player)->x;
    ck_assert_int_gt(creature_step(g, g->player, 1, 0), 0);
    ck_assert_int_eq(reg_get(&g->reg, g->player)->x, x + 1);
    ck_assert(said_since(g, from, "You swim."));
    ck_assert_int_eq(reg_get(&g->reg, g->player)->hp, 1000);
    /* laden: dragged under, hurt, and things sink */
    for (int i = 0; i < 6; i++)
        item_new(g, item_named(C, "plate armour"), 1, g->player, 0, 0, 0, &g->play);
    ck_assert_int_gt(item_carried_weight(g, g->player), SWIM_LOAD);
    for (int i = 0; i < 12; i++) {
        creature_step(g, g->player, -1, 0);
        creature_step(g, g->player, 1, 0);
    }
    handle_t inv[INV_SLOTS];
    ck_assert_int_lt(item_inventory(g, g->player, inv), 6);
    ck_assert_int_lt(reg_get(&g->reg, g->player)->hp, 1000);
    ck_assert(said_since(g, from, "drags you under"));
    game_free(g);
}
END_TEST

/* Travel never leads into deep water, but from it (the player swam in)
 * it finds the way back to dry land. */
START_TEST(travel_starts_from_deep_water)
{
    game_t *g = beside_terrain(C, MAP_DEEP_WATER, 23);
    drop_everything(g);
    obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    ck_assert_int_gt(creature_step(g, g->player, 1, 0), 0);
    ck_assert_int_eq(p->x, x + 1);
    key(g, '_');
    g->cur_x = (int16_t)(x - 1), g->cur_y = (int16_t)y;
    key(g, '.');
    ck_assert_int_eq(p->x, x - 1);
    ck_assert_int_eq(p->y, y);
    game_free(g);
}
END_TEST

START_TEST(lava_burns_and_a_chasm_drops_you)
{
    game_t *g = beside_terrain(C, MAP_LAVA, 23);
    creature_step(g, g->player, 1, 0);
    ck_assert_int_le(reg_get(&g->reg, g->player)->hp, 1000 - 4); /* 4d6 */
    game_free(g);
    g = beside_terrain(C, MAP_CHASM, 24);
    creature_step(g, g->player, 1, 0);
    ck_assert_int_eq(g->depth, 2);
    ck_assert_int_lt(reg_get(&g->reg, g->player)->hp, 1000);
    game_free(g);
    /* a fall kills with its own words */
    g = beside_terrain(C, MAP_CHASM, 25);
    reg_get(&g->reg, g->player)->hp = 1;
    creature_step(g, g->player, 1, 0);
    ck_assert_int_eq(g->state, GAME_DEAD);
    ck_assert_str_eq(g->cause, "killed by a fall on level 2");
    game_free(g);
}
END_TEST

START_TEST(monsters_keep_out_of_hazards_and_rubble_is_slow)
{
    game_t *g = beside_terrain(C, MAP_LAVA, 26);
    handle_t k = spawn_at(g, "kobold", 1, 1); /* south of the lava */
    const obj_t *ko = reg_get(&g->reg, k);
    int kx = ko->x, ky = ko->y;
    ck_assert_int_eq(creature_step(g, k, 0, -1), 0);
    ko = reg_get(&g->reg, k);
    ck_assert(ko->x == kx && ko->y == ky);
    ck_assert(!special_may_enter(g, k, MAP_LAVA) && special_may_enter(g, g->player, MAP_LAVA));
    game_free(g);
    g = beside_terrain(C, MAP_RUBBLE, 27);
    int onto_floor = creature_step(g, g->player, 0, -1);
    creature_step(g, g->player, 0, 1);
    int onto_rubble = creature_step(g, g->player, 1, 0);
    ck_assert_int_gt(onto_floor, 0);
    ck_assert_int_eq(onto_rubble, onto_floor * C->terrain[MAP_RUBBLE].move / 100);
    ck_assert_int_gt(onto_rubble, onto_floor);
    game_free(g);
}
END_TEST

START_TEST(every_vault_fits_a_level)
{
    ck_assert_int_ge(C->n_vaults, 20);
    mapgen_level_t *m = mapgen_level_new(0, 0);
    ck_assert_ptr_nonnull(m);
    for (int v = 0; v < C->n_vaults; v++) {
        mapgen_params_t p = level_params(C, 0, 0, C->vaults[v].min_depth);
        p.vaults = &C->vaults[v];
        p.nvaults = 1;
        int placed = 0;
        for (uint64_t seed = 1; seed <= 40 && !placed; seed++) {
            rng_t r;
            rng_seed(&r, seed, 1);
            ck_assert_int_eq(mapgen_generate(m, &p, &r, NULL, 0), 0);
            for (int i = 0; i < m->nregions; i++)
                placed += m->regions[i].vault == 0;
        }
        ck_assert_msg(placed, "vault '%s' never fits", C->vaults[v].name);
    }
    mapgen_level_free(m);
}
END_TEST

START_TEST(vault_marks_hold_treasure_and_guards)
{
    int treasure = 0, guards = 0, letters = 0, digits = 0;
    mapgen_level_t *m = mapgen_level_new(0, 0);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        game_t *g = game_new(C, seed, NULL);
        for (int d = 2; d <= 12; d++) {
            level_t *lv = level_new(g, MAPGEN_DEFAULT_W, MAPGEN_DEFAULT_H, d);
            g->levels[d] = lv;
            ck_assert_int_eq(level_generate(g, lv), 0);
            /* the same map again, for its marks */
            mapgen_params_t p = level_params(C, lv->w, lv->h, d);
            rng_t r;
            rng_seed(&r, rng_hash2(seed, (uint64_t)d), 1);
            ck_assert_int_eq(mapgen_generate(m, &p, &r, NULL, 0), 0);
            for (int i = 0; i < m->nspots; i++) {
                const mapgen_spot_t *s = &m->spots[i];
                if (lv->terrain[s->y * lv->w + s->x] != MAP_FLOOR)
                    continue;
                bool letter = s->glyph >= 'a' && s->glyph <= 'z',
                     digit = s->glyph >= '0' && s->glyph <= '9';
                letters += letter, digits += digit;
                treasure += letter && item_floor_at(g, d, s->x, s->y);
                guards += digit && level_creature_at(g, d, s->x, s->y);
            }
        }
        game_free(g);
    }
    mapgen_level_free(m);
    ck_assert_int_gt(letters, 0);
    ck_assert_int_eq(treasure, letters);  /* every treasure mark holds something */
    ck_assert_int_gt(guards, digits / 2); /* guards, but none by the arrival */
}
END_TEST

/* The character on level 2's up stairs, carrying the Heartstone. */
static game_t *escaping(content_t *c, uint64_t seed)
{
    game_t *g = alone(c, seed, 0, 0);
    ck_assert_int_eq(level_enter(g, 2), 0);
    clear_monsters(g);
    g->pc.heartstone = 1;
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 1000;
    const level_t *lv = level_current(g);
    ck_assert(p->x == lv->up_x && p->y == lv->up_y);
    vision_update(g);
    return g;
}

START_TEST(the_climb_with_the_heartstone_is_a_chase)
{
    game_t *g = escaping(C, 28);
    key(g, '<');
    ck_assert_int_eq(g->depth, 1);
    const level_t *lv = level_current(g);
    ck_assert_int_eq(level_terrain(lv, lv->down_x, lv->down_y), MAP_RUBBLE); /* no way back */
    int hunters = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && h != g->player && o->depth == 1 && !shop_peaceful(g, o))
            hunters += (o->flags & OF_AWARE) != 0;
    }
    ck_assert_int_ge(hunters, 1);
    ck_assert_int_le(hunters, escape_pursuers(1));
    ck_assert_int_gt(escape_pursuers(1), escape_pursuers(19)); /* the nearer the top, the more */
    while (g->prompt == PROMPT_MORE)
        key(g, ' ');
    uint32_t from = g->nmsg;
    key(g, '>');
    ck_assert_int_eq(g->depth, 1);
    ck_assert(said_since(g, from, "no staircase down"));
    game_free(g);
}
END_TEST

/* Out of the Warren with the stone, the town is no refuge: no victory
 * there, the bells name the safe towns, hunters come. The victory itself
 * is game_overland's (a safe town). */
START_TEST(the_town_is_no_refuge_for_the_heartstone)
{
    game_t *g = escaping(C, 29);
    key(g, '<');
    while (g->prompt == PROMPT_MORE)
        key(g, ' ');
    obj_t *p = reg_get(&g->reg, g->player);
    const level_t *lv = level_current(g);
    clear_monsters(g);
    p->x = lv->up_x, p->y = lv->up_y;
    uint32_t from = g->nmsg;
    key(g, '<');
    ck_assert_int_eq(g->state, GAME_RUNNING);
    ck_assert_int_eq(g->depth, 0);
    ck_assert(said_since(g, from, "Run for the seat of another land"));
    int hunters = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        hunters += o->type == OBJ_CREATURE && h != g->player && o->depth == 0 &&
                   !shop_peaceful(g, o) && (o->flags & OF_AWARE);
    }
    ck_assert_int_ge(hunters, 1);
    game_free(g);
}
END_TEST

Suite *suite_game_special(void)
{
    Suite *s = suite_create("game_special");
    TCase *t = tcase_create("special");
    with_shipped_content(t);
    tcase_add_test(t, special_levels_reshape_their_depth);
    tcase_add_test(t, a_special_level_says_so_once_with_its_extra_creatures);
    tcase_add_test(t, deep_water_is_swum_and_drags_the_laden_under);
    tcase_add_test(t, travel_starts_from_deep_water);
    tcase_add_test(t, lava_burns_and_a_chasm_drops_you);
    tcase_add_test(t, monsters_keep_out_of_hazards_and_rubble_is_slow);
    tcase_add_test(t, every_vault_fits_a_level);
    tcase_add_test(t, vault_marks_hold_treasure_and_guards);
    tcase_add_test(t, the_climb_with_the_heartstone_is_a_chase);
    tcase_add_test(t, the_town_is_no_refuge_for_the_heartstone);
    suite_add_tcase(s, t);
    return s;
}
