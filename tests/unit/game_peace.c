/* Unit tests: peacefuls are safe — the target cursor never starts on a
 * keeper and Tab passes them, missiles, bolts, sparks and bursts fly past
 * them (monsters' shots too), aiming at one or bumping one away from its
 * shop asks "Really attack the shopkeeper?" first, and keepers never look
 * like the player or like the monsters of the level they keep shop on. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "creature.h"
#include "effect.h"
#include "game.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "missile.h"
#include "prompt.h"
#include "render.h"
#include "shop.h"
#include "spell.h"
#include "status.h"
#include "target.h"
#include "world.h"

enum { FIGHTER = 0, ROGUE, WIZARD, CLERIC };

/* A creature of the named kind that neither dies nor moves while a test
 * aims at it: held fast and aware. */
static handle_t held(game_t *g, const char *name, int dx, int dy)
{
    handle_t h = spawn_at(g, name, dx, dy);
    obj_t *o = reg_get(&g->reg, h);
    o->hp = o->hp_max = 100000;
    o->flags |= OF_AWARE;
    for (int i = 0; i < g->c->n_effects; i++)
        if (!strcmp(g->c->effects[i].name, "paralysis"))
            ck_assert_uint_ne(status_apply(g, h, i, 1000000, 1, 0), HANDLE_NONE);
    return h;
}

static bool hurt(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    return !o || o->hp < o->hp_max;
}

/* The top line of the view at 80x24. */
static void top_line(game_t *g, char *out, size_t n)
{
    screen_t *s = screen_new(80, 24);
    game_view_t v = {0};
    render_full(g, s, &v);
    size_t at = 0;
    for (int x = 0; x < s->w && at + 1 < n; x++)
        out[at++] = (char)screen_at(s, x, 0)->ch;
    out[at] = 0;
    screen_free(s);
}

/* The cursor starts on the kobold beyond the keeper, Tab never lands on
 * the keeper, and with the keeper alone in view nothing is the default. */
START_TEST(default_target_and_tab_skip_peacefuls)
{
    game_t *g = alone(C, 3, 0, FIGHTER);
    open_room(g, 6);
    handle_t k = held(g, "shopkeeper", 1, 0);
    ck_assert_uint_eq(target_default(g), HANDLE_NONE);
    handle_t m = held(g, "kobold", 4, 0), m2 = held(g, "jackal", 0, 3);
    ck_assert_uint_eq(target_default(g), m2);
    key(g, 'f');
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    for (int i = 0; i < 6; i++) {
        key(g, '\t');
        handle_t on = level_creature_at(g, g->depth, g->cur_x, g->cur_y);
        ck_assert(on == m || on == m2);
    }
    key(g, KEY_ESC);
    g->target = k; /* even a keeper aimed at before is not the default */
    ck_assert_uint_ne(target_default(g), k);
    game_free(g);
}
END_TEST

/* Arrows at a kobold behind a keeper fly past the keeper every time; a
 * kobold archer shoots at the player past a keeper too. */
START_TEST(missiles_pass_peacefuls_by)
{
    game_t *g = alone(C, 5, 0, FIGHTER);
    open_room(g, 6);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 100000;
    handle_t k = held(g, "shopkeeper", 2, 0), m = held(g, "kobold", 4, 0);
    for (int i = 0; i < 15; i++)
        keys_paged(g, "f.");
    ck_assert(hurt(g, m));
    ck_assert(!hurt(g, k));
    ck_assert(shop_peaceful(g, reg_get(&g->reg, k)));
    handle_t a = held(g, "kobold archer", -5, 0), k2 = held(g, "priest", -2, 0);
    int shots = 0;
    for (int i = 0; i < 20; i++)
        shots += missile_monster(g, a, g->player) > 0;
    ck_assert_int_eq(shots, 20);
    ck_assert(!hurt(g, k2));
    game_free(g);
}
END_TEST

/* A wizard's spark and magic missile, aimed at a kobold behind a keeper,
 * strike the kobold; a burst aimed beyond a keeper spares it. */
START_TEST(spells_pass_peacefuls_by)
{
    game_t *g = alone(C, 9, 0, WIZARD);
    open_room(g, 6);
    g->pc.mana = g->pc.mana_max = 500;
    handle_t k = held(g, "sage", 1, 0), m = held(g, "kobold", 3, 0);
    for (int i = 0; i < 6; i++) {
        key(g, 0x01); /* the spark, at the default target */
        keys_paged(g, ".");
    }
    ck_assert(hurt(g, m));
    ck_assert(!hurt(g, k));
    const obj_t *p = reg_get(&g->reg, g->player);
    for (int i = 0; i < g->c->n_spells; i++)
        if (g->c->spells[i].effect == SPELL_AREA) {
            g->pc.spells |= 1u << i;
            ck_assert_int_gt(spell_cast_toward(g, i, p->x + 3, p->y), 0);
        }
    ck_assert(!hurt(g, k));
    game_free(g);
}
END_TEST

/* Spreading magic passes keepers by: a wand of lightning's beam through a
 * keeper to a kobold, a wand of frost's cone over both, and sparks that
 * leap from a kobold with a keeper beside it strike the kobolds only. */
START_TEST(beams_cones_and_chains_pass_peacefuls_by)
{
    static const char *const WANDS[] = {"wand of lightning", "wand of frost", "wand of sparks"};
    for (int w = 0; w < 3; w++) {
        game_t *g = alone(C, 9, 0, FIGHTER);
        open_room(g, 6);
        reg_get(&g->reg, g->player)->hp = reg_get(&g->reg, g->player)->hp_max = 1000;
        handle_t k = held(g, "sage", w == 2 ? 4 : 1, w == 2 ? 1 : 0), m = held(g, "kobold", 3, 0);
        handle_t it = item_new(g, item_named(C, WANDS[w]), 1, g->player, 0, 0, 0, &g->play);
        ck_assert_uint_ne(it, HANDLE_NONE);
        itemuse_use(g, g->player, it, 3, 0);
        ck_assert_msg(hurt(g, m), "%s missed the kobold", WANDS[w]);
        ck_assert_msg(!hurt(g, k), "%s struck the keeper", WANDS[w]);
        game_free(g);
    }
}
END_TEST

/* Aimed at a keeper: asked first; n (or Escape) does nothing, y strikes. */
START_TEST(aiming_at_a_keeper_asks_first)
{
    game_t *g = alone(C, 11, 0, FIGHTER);
    open_room(g, 6);
    handle_t k = held(g, "shopkeeper", 3, 0);
    char line[96];
    uint64_t now = g->sched.now;
    keys(g, "f");
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    keys(g, "lll.");
    ck_assert_int_eq(g->prompt, PROMPT_ATTACK);
    top_line(g, line, sizeof line);
    ck_assert_msg(strstr(line, "Really attack the shopkeeper? (y/n)"), "%s", line);
    buf_t blob; /* the question survives a save */
    buf_init(&blob);
    char err[160];
    ck_assert_int_eq(game_snapshot(g, &blob), 0);
    game_t *h = game_load(C, (const uint8_t *)blob.data, blob.len, err, sizeof err);
    buf_free(&blob);
    ck_assert_msg(h, "%s", err);
    ck_assert_int_eq(h->prompt, PROMPT_ATTACK);
    game_free(h);
    key(g, 'n');
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert(g->sched.now == now && !hurt(g, k) && shop_peaceful(g, reg_get(&g->reg, k)));
    keys(g, "flll.");
    ck_assert_int_eq(g->prompt, PROMPT_ATTACK);
    key(g, KEY_ESC);
    ck_assert(g->sched.now == now && shop_peaceful(g, reg_get(&g->reg, k)));
    for (int i = 0; i < 20 && shop_peaceful(g, reg_get(&g->reg, k)); i++) {
        keys_paged(g, "flll.");
        ck_assert_int_eq(g->prompt, PROMPT_ATTACK);
        key(g, 'y');
    }
    ck_assert(g->sched.now > now);
    ck_assert(!shop_peaceful(g, reg_get(&g->reg, k))); /* hit at last: it fights */
    game_free(g);
}
END_TEST

/* Bumping a keeper away from any shop asks; y is a blow. In its shop a
 * bump trades (game_town's test). */
START_TEST(bumping_a_keeper_out_of_its_shop_asks)
{
    game_t *g = alone(C, 13, 0, FIGHTER);
    open_room(g, 3);
    handle_t k = held(g, "kobold trader", 1, 0);
    char line[96];
    key(g, 'l');
    ck_assert_int_eq(g->prompt, PROMPT_ATTACK);
    top_line(g, line, sizeof line);
    ck_assert_msg(strstr(line, "Really attack the kobold trader? (y/n)"), "%s", line);
    key(g, 'n');
    ck_assert(!hurt(g, k));
    uint64_t now = g->sched.now;
    keys(g, "ly");
    ck_assert(g->sched.now > now); /* a blow was struck, hit or miss */
    game_free(g);
}
END_TEST

/* Keepers look like neither the player (glyph and colour) nor any monster
 * of a level they keep shop on: none wears a monster's glyph. */
START_TEST(keepers_look_like_keepers)
{
    int you = kind_named(C, "you");
    for (int i = 0; i < C->n_creatures; i++) {
        const creature_kind_t *k = &C->creatures[i];
        if (!(k->flags & CF_PEACEFUL))
            continue;
        ck_assert_msg(k->glyph != C->creatures[you].glyph || k->fg != C->creatures[you].fg,
                      "%s looks like the player", k->name);
        ck_assert_msg(k->fg != 7 && k->fg != 15, "%s is grey or white like the player", k->name);
        for (int j = 0; j < C->n_creatures; j++)
            ck_assert_msg((C->creatures[j].flags & CF_PEACEFUL) || j == you ||
                              C->creatures[j].glyph != k->glyph,
                          "%s looks like a %s", k->name, C->creatures[j].name);
    }
}
END_TEST

Suite *suite_game_peace(void)
{
    Suite *s = suite_create("game_peace");
    TCase *t = tcase_create("peace");
    with_shipped_content(t);
    tcase_add_test(t, default_target_and_tab_skip_peacefuls);
    tcase_add_test(t, missiles_pass_peacefuls_by);
    tcase_add_test(t, spells_pass_peacefuls_by);
    tcase_add_test(t, beams_cones_and_chains_pass_peacefuls_by);
    tcase_add_test(t, aiming_at_a_keeper_asks_first);
    tcase_add_test(t, bumping_a_keeper_out_of_its_shop_asks);
    tcase_add_test(t, keepers_look_like_keepers);
    suite_add_tcase(s, t);
    return s;
}
