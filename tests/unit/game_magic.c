/* Unit tests: spells learnt by choice — a caster's pick at each level
 * among its class's spells its level allows (every class spell reachable
 * by the last level), books that teach them (or not: another class's, one
 * beyond the reader's level) — and items that each do something of their
 * own: no two potions, scrolls or wands share an effect, and the effects
 * new to items (beam, cone, chain, push, banish, vigour, renewal, the holy
 * word, slowing all in sight, darkness) do what they say. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chargen.h"
#include "content.h"
#include "creature.h"
#include "effect.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "render.h"
#include "spell.h"
#include "status.h"
#include "world.h"

static int class_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_classes; i++)
        if (!strcmp(c->classes[i].name, name))
            return i;
    ck_abort_msg("no class '%s'", name);
    return -1;
}

static void done(game_t *g)
{
    game_free(g);
}

static obj_t *player(game_t *g)
{
    return reg_get(&g->reg, g->player);
}

/* Experience enough for the next level, its --More-- dismissed and the
 * gifts owed taken ('a'). */
static void next_level(game_t *g)
{
    pc_gain_xp(g, pc_xp_for(g->pc.xl + 1) - g->pc.xp);
    while (g->prompt == PROMPT_WELCOME)
        key(g, ' ');
    while (g->prompt == PROMPT_LEVELUP && g->pc.choices)
        key(g, 'a');
}

/* ---- spells by choice ----------------------------------------------------------------- */

/* A wizard at level 2 picks among its spells of level 2 or less (shield,
 * confuse, never fireball yet): the letter it types is the spell learnt. */
START_TEST(level_up_picks_a_spell)
{
    game_t *g = alone(C, 41, 0, class_named(C, "wizard"));
    ck_assert_int_eq(g->pc.spells, 1u << spell_named(C, "magic missile"));
    next_level(g);
    ck_assert_int_eq(g->pc.xl, 2);
    ck_assert_int_eq(g->prompt, PROMPT_LEVELUP);
    uint32_t now = chargen_learnable_now(g);
    ck_assert(now & (1u << spell_named(C, "shield")));
    ck_assert(now & (1u << spell_named(C, "confuse")));
    ck_assert(!(now & (1u << spell_named(C, "fireball"))));
    /* the letters are the learnable spells in id order: find shield's */
    int letter = 0;
    for (int i = 0; i < spell_named(C, "shield"); i++)
        letter += (now >> i) & 1;
    key(g, (uint32_t)('a' + letter));
    ck_assert(g->pc.spells & (1u << spell_named(C, "shield")));
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_int_eq(g->pc.spell_picks, 0);
    ck_assert_str_eq(last_msg(g), "You learn to cast shield.");
    done(g);
}
END_TEST

/* Picking the first letter at every level, each caster class knows every
 * spell of its class by level 20; fighters and rogues pick none. */
START_TEST(every_class_spell_is_reachable)
{
    for (int cls = 0; cls < C->n_classes; cls++) {
        game_t *g = alone(C, 42, 0, cls);
        while (g->pc.xl < 20) {
            next_level(g);
            while (g->prompt == PROMPT_LEVELUP)
                key(g, 'a');
        }
        const class_kind_t *k = &C->classes[cls];
        ck_assert_msg((g->pc.spells & k->learnable) == k->learnable, "%s misses spells %x", k->name,
                      k->learnable & ~g->pc.spells);
        if (!k->mana)
            ck_assert_int_eq(g->pc.spells, 0);
        game_free(g);
    }
}
END_TEST

static handle_t carry(game_t *g, const char *name)
{
    handle_t it = item_new(g, item_named(g->c, name), 1, g->player, 0, 0, 0, &g->play);
    ck_assert_uint_ne(it, HANDLE_NONE);
    return it;
}

/* A book teaches its spell to a class that learns it, once its level is
 * reached, and is gone; too early, or another class's, it stays unread
 * and takes no time. */
START_TEST(books_teach_spells)
{
    game_t *g = alone(C, 43, 0, class_named(C, "wizard"));
    int fireball = spell_named(C, "fireball");
    handle_t book = carry(g, "book of fireball");
    ck_assert_int_eq(itemuse_use(g, g->player, book, 0, 0), 0);
    ck_assert_ptr_nonnull(reg_get(&g->reg, book));
    ck_assert_str_eq(last_msg(g), "The spell fireball is beyond you until experience level 9.");
    while (g->pc.xl < 9)
        next_level(g), g->prompt = PROMPT_NONE;
    ck_assert_int_gt(itemuse_use(g, g->player, book, 0, 0), 0);
    ck_assert(g->pc.spells & (1u << fireball));
    ck_assert_ptr_null(reg_get(&g->reg, book));
    game_free(g);
    g = alone(C, 43, 0, class_named(C, "fighter"));
    book = carry(g, "book of smite");
    ck_assert_int_eq(itemuse_use(g, g->player, book, 0, 0), 0);
    ck_assert_str_eq(last_msg(g), "The runes of smite mean nothing to a fighter.");
    ck_assert_int_eq(g->pc.spells, 0);
    game_free(g);
    /* every learnable spell has its book */
    for (int i = 0; i < C->n_spells; i++) {
        bool learnable = false, book_of = false;
        for (int k = 0; k < C->n_classes; k++)
            learnable |= (C->classes[k].learnable >> i) & 1;
        for (int k = 0; k < C->n_items; k++)
            book_of |= C->items[k].use == USE_LEARN && C->items[k].spell == i;
        ck_assert_msg(!learnable || book_of, "no book of %s", C->spells[i].name);
    }
}
END_TEST

/* ---- items of their own ------------------------------------------------------------------ */

/* No two potions, scrolls or wands do the same thing: what they do (use,
 * spell effect, timed effect, damage type) and to whom (a wand: its
 * target; the others: their user) differ for every pair. */
START_TEST(item_effects_are_distinct)
{
    char seen[256][96];
    int n = 0;
    for (int k = 0; k < C->n_items; k++) {
        const item_kind_t *it = &C->items[k];
        if (it->cls != IC_POTION && it->cls != IC_SCROLL && it->cls != IC_WAND)
            continue;
        if (it->use == USE_LEARN)
            continue; /* books teach their own spell each */
        char sig[96];
        snprintf(sig, sizeof sig, "%s use %d does %d effect %d dtype %d",
                 it->cls == IC_WAND ? "other" : "self", it->use, it->does, it->effect,
                 it->use == USE_BOLT || it->use == USE_CAST ? it->dtype : 0);
        for (int i = 0; i < n; i++)
            ck_assert_msg(strcmp(seen[i], sig), "%s does what another does (%s)", it->name, sig);
        ck_assert_int_lt(n, 256);
        memcpy(seen[n++], sig, sizeof sig);
    }
    ck_assert_int_ge(n, 40);
}
END_TEST

static game_t *room(uint64_t seed)
{
    game_t *g = alone(C, seed, 0, 0);
    open_room(g, 8);
    player(g)->hp = player(g)->hp_max = 1000;
    return g;
}

static handle_t tough(game_t *g, const char *name, int dx, int dy)
{
    handle_t h = spawn_at(g, name, dx, dy);
    obj_t *o = reg_get(&g->reg, h);
    o->hp = o->hp_max = 10000;
    return h;
}

static bool hurt(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    return o && o->hp < o->hp_max;
}

/* A wand of lightning's beam goes through every creature on its line; a
 * wand of frost's cone takes those in front, not behind; sparks leap on
 * to creatures near the first. */
START_TEST(beam_cone_chain)
{
    game_t *g = room(51);
    handle_t a = tough(g, "ogre", 2, 0), b = tough(g, "ogre", 4, 0), off = tough(g, "ogre", 0, 3);
    itemuse_use(g, g->player, carry(g, "wand of lightning"), 5, 0);
    ck_assert(hurt(g, a) && hurt(g, b));
    ck_assert(!hurt(g, off));
    clear_monsters(g);
    a = tough(g, "ogre", 2, 1), b = tough(g, "ogre", 3, -1);
    handle_t behind = tough(g, "ogre", -2, 0);
    itemuse_use(g, g->player, carry(g, "wand of frost"), 3, 0);
    ck_assert(hurt(g, a) && hurt(g, b));
    ck_assert(!hurt(g, behind));
    clear_monsters(g);
    a = tough(g, "ogre", 3, 0), b = tough(g, "ogre", 5, 1);
    handle_t far = tough(g, "ogre", -6, -6);
    uint32_t from = g->nmsg;
    itemuse_use(g, g->player, carry(g, "wand of sparks"), 3, 0);
    ck_assert(hurt(g, a) && hurt(g, b));
    ck_assert(!hurt(g, far));
    ck_assert(said_since(g, from, "The bolt leaps on to the ogre."));
    done(g);
}
END_TEST

/* Force throws its target back; teleport other sends it far away, but
 * never the warden. */
START_TEST(push_and_banish)
{
    game_t *g = room(52);
    handle_t a = tough(g, "ogre", 1, 0);
    int x0 = reg_get(&g->reg, a)->x;
    itemuse_use(g, g->player, carry(g, "wand of force"), 1, 0);
    ck_assert_int_eq(reg_get(&g->reg, a)->x, x0 + 3);
    ck_assert(hurt(g, a));
    itemuse_use(g, g->player, carry(g, "wand of teleport other"), 4, 0);
    const obj_t *o = reg_get(&g->reg, a), *p = player(g);
    ck_assert_int_ge(abs(o->x - p->x) > abs(o->y - p->y) ? abs(o->x - p->x) : abs(o->y - p->y), 9);
    clear_monsters(g);
    handle_t w = tough(g, "Thrag, Warden of the Heartstone", 2, 0);
    int wx = reg_get(&g->reg, w)->x;
    uint32_t from = g->nmsg;
    itemuse_use(g, g->player, carry(g, "wand of teleport other"), 2, 0);
    ck_assert_int_eq(reg_get(&g->reg, w)->x, wx);
    ck_assert(said_since(g, from, "stands fast"));
    done(g);
}
END_TEST

/* Extra healing past full raises the most; full healing makes whole and
 * ends every ailment; cure light wounds ends poison. */
START_TEST(healing_potions_differ)
{
    game_t *g = room(53);
    obj_t *p = player(g);
    p->hp = p->hp_max = 40;
    itemuse_use(g, g->player, carry(g, "potion of extra healing"), 0, 0);
    ck_assert_int_gt(player(g)->hp_max, 40);
    ck_assert_int_le(player(g)->hp_max, 43);
    player(g)->hp = 5;
    int blind = -1;
    for (int i = 0; i < g->c->n_effects; i++)
        if (!strcmp(g->c->effects[i].name, "blindness"))
            blind = i;
    status_apply(g, g->player, blind, 5000, 1, 0);
    effect_apply(g, g->player, g->c->poison_effect, 5000, 1);
    itemuse_use(g, g->player, carry(g, "potion of full healing"), 0, 0);
    ck_assert_int_eq(player(g)->hp, player(g)->hp_max);
    ck_assert(!status_has(g, g->player, EFK_(BLIND)));
    ck_assert_uint_eq(effect_find(g, g->player, g->c->poison_effect), HANDLE_NONE);
    effect_apply(g, g->player, g->c->poison_effect, 5000, 1);
    itemuse_use(g, g->player, carry(g, "potion of cure light wounds"), 0, 0);
    ck_assert_uint_eq(effect_find(g, g->player, g->c->poison_effect), HANDLE_NONE);
    done(g);
}
END_TEST

/* A potion of healing heals its dice and a fifth of the drinker's most
 * hit points: 4d8 is 18 on average, 13 of 75 in a bad throw, and a
 * seasoned body of 200 gets at least 4 + 40 (the old dice alone: 32 at
 * most). */
START_TEST(healing_grows_with_the_body)
{
    game_t *g = room(54);
    obj_t *p = player(g);
    p->hp_max = 200, p->hp = 1;
    itemuse_use(g, g->player, carry(g, "potion of healing"), 0, 0);
    ck_assert_int_ge(player(g)->hp, 1 + 4 + 40);
    ck_assert_int_le(player(g)->hp, 1 + 32 + 40);
    p = player(g);
    p->hp_max = 10, p->hp = 1; /* a young body: the dice as before, up to whole */
    itemuse_use(g, g->player, carry(g, "potion of healing"), 0, 0);
    ck_assert_int_ge(player(g)->hp, 1 + 4 + 2);
    ck_assert_int_le(player(g)->hp, 10);
    done(g);
}
END_TEST

/* Holy chant burns the undead in sight, not the living; slow monsters
 * slows all in sight (those who fail their save); darkness leaves
 * everything that saw the reader unaware of it. */
START_TEST(scrolls_on_all_in_sight)
{
    game_t *g = room(54);
    handle_t z = tough(g, "zombie", 3, 0), o = tough(g, "ogre", -3, 0);
    itemuse_use(g, g->player, carry(g, "scroll of holy chant"), 0, 0);
    ck_assert(hurt(g, z));
    ck_assert(!hurt(g, o));
    int slowed = 0;
    for (int i = 0; i < 10 && !slowed; i++) {
        itemuse_use(g, g->player, carry(g, "scroll of slow monsters"), 0, 0);
        slowed = status_speed(g, o) < creature_kind(g, reg_get(&g->reg, o))->speed;
    }
    ck_assert(slowed);
    reg_get(&g->reg, o)->flags |= OF_AWARE;
    itemuse_use(g, g->player, carry(g, "scroll of darkness"), 0, 0);
    ck_assert(!(reg_get(&g->reg, o)->flags & OF_AWARE));
    done(g);
}
END_TEST

/* Row y of an 80x24 frame, as text (non-ASCII as '?'). */
static void frame_row(game_t *g, int y, char *out, size_t n)
{
    screen_t *s = screen_new(80, 24);
    game_render(g, s, NULL);
    size_t i = 0;
    for (int x = 0; x < s->w && i + 1 < n; x++) {
        uint32_t ch = screen_at(s, x, y)->ch;
        out[i++] = ch < 128 ? (char)ch : '?';
    }
    out[i] = 0;
    screen_free(s);
}

/* The spell menu is a list over the map's right side, as the item lists
 * are: the map and the status line stay up beside it. */
START_TEST(the_spell_menu_sits_over_the_map)
{
    game_t *g = alone(C, 41, 0, class_named(C, "wizard"));
    key(g, 'Z');
    ck_assert_int_eq(g->prompt, PROMPT_CAST);
    char row[96];
    frame_row(g, 0, row, sizeof row);
    char *at = strstr(row, "Cast which spell?");
    ck_assert_msg(at && at - row > 20, "%s", row); /* on the right, in its box */
    frame_row(g, 22, row, sizeof row);
    ck_assert_msg(strstr(row, "HP "), "no status line: %s", row);
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    game_free(g);
}
END_TEST

Suite *suite_game_magic(void)
{
    Suite *s = suite_create("game_magic");
    TCase *tc = tcase_create("magic");
    with_shipped_content(tc);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, level_up_picks_a_spell);
    tcase_add_test(tc, every_class_spell_is_reachable);
    tcase_add_test(tc, books_teach_spells);
    tcase_add_test(tc, item_effects_are_distinct);
    tcase_add_test(tc, beam_cone_chain);
    tcase_add_test(tc, push_and_banish);
    tcase_add_test(tc, healing_potions_differ);
    tcase_add_test(tc, healing_grows_with_the_body);
    tcase_add_test(tc, scrolls_on_all_in_sight);
    tcase_add_test(tc, the_spell_menu_sits_over_the_map);
    suite_add_tcase(s, tc);
    return s;
}
