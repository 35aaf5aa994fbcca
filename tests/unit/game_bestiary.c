/* Unit tests: monsters' abilities and runic gear with the shipped
 * content — breath in a cone and a line (range, walls, everyone in it,
 * recharge), kin called up to a bound, blinks, theft of gold and items
 * and the thief's flight, packs spreading round their foe; egos (brands
 * against immunity, slaying by sort, resistances worn, their chance and
 * classes, names), artifacts made at most once a game and found as a
 * milestone; and the content's counts and depth bands. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ability.h"
#include "ai.h"
#include "content.h"
#include "declare.h"
#include "creature.h"
#include "effect.h"
#include "ego.h"
#include "helpers.h"
#include "item.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "script.h"
#include "status.h"
#include "vision.h"
#include "world.h"

static int cheb_to_player(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h), *p = reg_get(&g->reg, g->player);
    int dx = abs(o->x - p->x), dy = abs(o->y - p->y);
    return dx > dy ? dx : dy;
}

/* A tough player alone in an open room of radius 8. */
static game_t *arena(uint64_t seed)
{
    game_t *g = alone(C, seed, 0, 0);
    open_room(g, 8);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 100000;
    return g;
}

static void done(game_t *g)
{
    game_free(g);
}

static int creatures_of(game_t *g, const char *name)
{
    int k = kind_named(g->c, name), n = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        n += o->type == OBJ_CREATURE && o->kind == k && o->depth == g->depth;
    }
    return n;
}

static int ego_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_egos; i++)
        if (!strcmp(c->egos[i].name, name))
            return i;
    ck_abort_msg("no ego '%s'", name);
    return -1;
}

/* ---- breath ---------------------------------------------------------------------- */

/* A white dragon's cone (range 5) three cells east of the player: it
 * covers the player and the cells beside the aim, not those behind the
 * dragon, off to the side or past its range; a wall stops it. */
START_TEST(cone_covers_its_aim_within_range)
{
    game_t *g = arena(3);
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y;
    handle_t d = spawn_at(g, "young white dragon", 3, 0);
    ck_assert(ability_breath_covers(g, d, px, py, px, py));
    ck_assert(ability_breath_covers(g, d, px, py, px + 1, py - 1));  /* near the aim */
    ck_assert(ability_breath_covers(g, d, px, py, px - 2, py + 1));  /* 5 away, 1 off */
    ck_assert(!ability_breath_covers(g, d, px, py, px + 4, py));     /* behind it */
    ck_assert(!ability_breath_covers(g, d, px, py, px + 3, py - 3)); /* square to the aim */
    ck_assert(!ability_breath_covers(g, d, px, py, px - 3, py));     /* 6 away: out of range */
    level_t *lv = level_current(g);
    lv->terrain[py * lv->w + px + 1] = MAP_WALL;
    ck_assert(!ability_breath_covers(g, d, px, py, px, py)); /* the wall between */
    done(g);
}
END_TEST

/* A blue dragon's line goes through its aim and on to its range, and
 * only along that line. */
START_TEST(line_goes_through_its_aim)
{
    game_t *g = arena(4);
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y;
    handle_t d = spawn_at(g, "young blue dragon", 2, 2);
    ck_assert(ability_breath_covers(g, d, px, py, px, py));
    ck_assert(ability_breath_covers(g, d, px, py, px + 1, py + 1));
    ck_assert(ability_breath_covers(g, d, px, py, px - 3, py - 3)); /* past the aim */
    ck_assert(!ability_breath_covers(g, d, px, py, px + 1, py));
    ck_assert(!ability_breath_covers(g, d, px, py, px - 1, py));
    done(g);
}
END_TEST

/* Everyone in the cone is hurt, the breather and those out of it are
 * not, and the breath recharges. */
START_TEST(breath_hurts_all_in_it_and_recharges)
{
    game_t *g = arena(5);
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y, hp0 = p->hp;
    handle_t d = spawn_at(g, "young white dragon", 3, 0);
    handle_t in = spawn_at(g, "stone giant", 1, 0), out = spawn_at(g, "stone giant", 0, 4);
    reg_get(&g->reg, in)->hp = reg_get(&g->reg, in)->hp_max = 1000;
    reg_get(&g->reg, out)->hp = reg_get(&g->reg, out)->hp_max = 1000;
    int dragon_hp = reg_get(&g->reg, d)->hp;
    uint32_t from = g->nmsg;
    ck_assert(ability_breathe(g, d, px, py));
    ck_assert(said_since(g, from, "The young white dragon breathes frost!"));
    ck_assert_int_lt(reg_get(&g->reg, g->player)->hp, hp0);
    ck_assert_int_lt(reg_get(&g->reg, in)->hp, 1000);
    ck_assert_int_eq(reg_get(&g->reg, out)->hp, 1000);
    ck_assert_int_eq(reg_get(&g->reg, d)->hp, dragon_hp);
    const creature_kind_t *k = creature_kind(g, reg_get(&g->reg, d));
    ck_assert_uint_eq(reg_get(&g->reg, d)->t, g->sched.now + (uint64_t)k->ab.recharge * SCHED_MOVE);
    /* recharging, it does not breathe again on its turn */
    int hp1 = reg_get(&g->reg, g->player)->hp;
    for (int i = 0; i < 20; i++)
        ck_assert(!ability_turn(g, d, g->player, 3, true, false) ||
                  reg_get(&g->reg, g->player)->hp == hp1);
    ck_assert_int_eq(reg_get(&g->reg, g->player)->hp, hp1);
    done(g);
}
END_TEST

/* ---- kin, blinks, theft -------------------------------------------------------------- */

/* A kobold chieftain calls kobolds, never more than its bound on the level. */
START_TEST(kin_come_up_to_the_bound)
{
    game_t *g = arena(6);
    handle_t ch = spawn_at(g, "kobold chieftain", 2, 0);
    int bound = creature_kind(g, reg_get(&g->reg, ch))->ab.summon_max, came = 0;
    ck_assert_int_gt(bound, 0);
    for (int i = 0; i < 20; i++) {
        int n = ability_summon(g, ch);
        if (n > 0)
            came += n;
        ck_assert_int_le(creatures_of(g, "kobold"), bound);
    }
    ck_assert_int_eq(came, bound);
    ck_assert_int_eq(creatures_of(g, "kobold"), bound);
    ck_assert_int_eq(ability_summon(g, ch), -1); /* the bound reached: no call */
    done(g);
}
END_TEST

/* One called is new to the player: "A kobold appears.", not "The kobold". */
START_TEST(kin_called_appear_unknown)
{
    game_t *g = arena(6);
    handle_t ch = spawn_at(g, "kobold chieftain", 2, 0);
    uint32_t from = g->nmsg;
    ck_assert_int_gt(ability_summon(g, ch), 0);
    ck_assert_msg(said_since(g, from, "A kobold appears."), "%s", last_msg(g));
    ck_assert(!said_since(g, from, "The kobold appears."));
    done(g);
}
END_TEST

/* A blink lands out of its foe's reach, on free floor. */
START_TEST(blink_lands_away_from_the_foe)
{
    game_t *g = arena(7);
    for (int i = 0; i < 20; i++) {
        handle_t a = spawn_at(g, "apprentice", 1, 0);
        ck_assert(ability_blink(g, a, g->player));
        ck_assert_int_ge(cheb_to_player(g, a), 4);
        const obj_t *o = reg_get(&g->reg, a);
        ck_assert_int_eq(level_terrain(level_current(g), o->x, o->y), MAP_FLOOR);
        clear_monsters(g);
    }
    done(g);
}
END_TEST

/* A cutpurse's theft (its handler's, after a wounding blow) takes a
 * quarter to half of the gold (when the player's Ref save fails); then it
 * hops away and runs with it, and steals no more while it runs. */
START_TEST(thief_takes_gold_and_flees)
{
    game_t *g = arena(8);
    handle_t t = spawn_at(g, "cutpurse", 1, 0);
    g->items.gold = 100;
    uint32_t from = g->nmsg;
    for (int i = 0; i < 200 && g->items.gold == 100; i++)
        ability_steal(g, t, g->player, true);
    int taken = 100 - g->items.gold;
    char want[64];
    snprintf(want, sizeof want, "The cutpurse grabs %d gold pieces from your purse!", taken);
    ck_assert_msg(said_since(g, from, want), "%s", last_msg(g));
    ck_assert_int_ge(taken, 25);
    ck_assert_int_le(taken, 50);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, t, inv);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(reg_get(&g->reg, inv[0])->magnitude, taken);
    ck_assert(status_has(g, t, EFK_(AFRAID)));
    ck_assert_int_ge(cheb_to_player(g, t), 4);
    for (int i = 0; i < 50; i++)
        ability_steal(g, t, g->player, true);
    ck_assert_int_eq(g->items.gold, 100 - taken);
    done(g);
}
END_TEST

/* A goblin sneak takes something carried and not worn. */
START_TEST(thief_takes_an_item)
{
    game_t *g = arena(9);
    handle_t t = spawn_at(g, "goblin sneak", 1, 0);
    handle_t inv[INV_SLOTS];
    int before = item_inventory(g, g->player, inv);
    ck_assert_int_gt(before, 0);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 200 && item_inventory(g, t, inv) == 0; i++)
        ability_steal(g, t, g->player, false);
    ck_assert_int_eq(item_inventory(g, t, inv), 1);
    ck_assert(said_since(g, from, "The goblin sneak snatches "));
    ck_assert(!(reg_get(&g->reg, inv[0])->flags & IF_EQUIPPED));
    int left = item_inventory(g, g->player, inv);
    for (int i = 0; i < left; i++)
        ck_assert_uint_ne(reg_get(&g->reg, inv[i])->target, t);
    done(g);
}
END_TEST

/* A theft is not lost among other words: --More-- waits on a key even
 * when the line holds it all, and that key only pages (no time passes,
 * the player stays); a grab that fails opens none. */
START_TEST(theft_waits_on_more)
{
    game_t *g = arena(9);
    handle_t t = spawn_at(g, "goblin sneak", 1, 0);
    handle_t inv[INV_SLOTS];
    uint32_t from = g->nmsg;
    int tries = 0;
    for (; tries < 200 && item_inventory(g, t, inv) == 0; tries++) {
        ck_assert_int_eq(g->prompt, PROMPT_NONE); /* the failed grabs: none */
        msg_dismiss(g);
        ability_steal(g, t, g->player, false);
    }
    ck_assert_int_gt(tries, 1);
    ck_assert_int_eq(item_inventory(g, t, inv), 1);
    ck_assert(said_since(g, from, "The goblin sneak snatches "));
    ck_assert_int_eq(g->prompt, PROMPT_MORE);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x;
    uint64_t now = g->sched.now;
    key(g, 'h');
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_int_eq(reg_get(&g->reg, g->player)->x, x);
    ck_assert_uint_eq(g->sched.now, now);
    /* gold too */
    handle_t c = spawn_at(g, "cutpurse", -1, 0);
    g->items.gold = 100;
    for (int i = 0; i < 200 && g->items.gold == 100; i++) {
        msg_dismiss(g);
        ability_steal(g, c, g->player, true);
    }
    ck_assert_int_lt(g->items.gold, 100);
    ck_assert_int_eq(g->prompt, PROMPT_MORE);
    done(g);
}
END_TEST

/* An orc shaman that sees its foe puts might on itself once, and not again
 * while it lasts. */
START_TEST(boon_before_a_fight)
{
    game_t *g = arena(27);
    handle_t o = spawn_at(g, "orc shaman", 4, 0);
    uint16_t might = 0;
    while (strcmp(g->c->effects[might].name, "might"))
        might++;
    int took = 0;
    for (int i = 0; i < 40; i++) {
        bool had = effect_find(g, o, might) != HANDLE_NONE;
        if (ability_turn(g, o, g->player, 4, true, false))
            took++, ck_assert(!had);
    }
    ck_assert_int_eq(took, 1);
    ck_assert_uint_ne(effect_find(g, o, might), HANDLE_NONE);
    done(g);
}
END_TEST

/* A wolf of a pack closing in takes the cell beside no packmate when
 * another is as near its foe. */
START_TEST(pack_spreads_round_its_foe)
{
    for (uint64_t seed = 10; seed < 20; seed++) {
        game_t *g = arena(seed);
        const obj_t *p = reg_get(&g->reg, g->player);
        int px = p->x, py = p->y;
        handle_t w1 = spawn_at(g, "wolf", 3, 0), w2 = spawn_at(g, "wolf", 2, -1);
        reg_get(&g->reg, w1)->flags |= OF_AWARE;
        reg_get(&g->reg, w2)->flags |= OF_AWARE;
        ai_monster_turn(g, w1);
        const obj_t *o = reg_get(&g->reg, w1);
        ck_assert_int_eq(o->x, px + 2);
        ck_assert_int_eq(o->y, py + 1);
        done(g);
    }
}
END_TEST

/* ---- egos and artifacts ------------------------------------------------------------------ */

/* Equips a new item of kind with ego (by name; NULL none) on the player. */
static handle_t wield(game_t *g, const char *kind, const char *ego)
{
    handle_t h = item_new(g, item_named(g->c, kind), 1, g->player, 0, 0, 0, NULL);
    obj_t *o = reg_get(&g->reg, h);
    if (ego)
        o->a[1] = ego_named(g->c, ego) + 1;
    ck_assert_int_eq(item_equip(g, g->player, h), 0);
    return h;
}

/* A brand hurts what does not shrug off its element; slaying hurts its sort only. */
START_TEST(brands_and_slaying)
{
    game_t *g = arena(21);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        reg_get(&g->reg, inv[i])->flags &= (uint8_t)~IF_EQUIPPED;
    wield(g, "long sword", "of flame");
    handle_t kob = spawn_at(g, "kobold", 1, 0), beetle = spawn_at(g, "fire beetle", -1, 0);
    handle_t zombie = spawn_at(g, "zombie", 0, 1);
    for (int i = 0; i < 50; i++) {
        ck_assert_int_ge(ego_blow_damage(g, g->player, kob), 1);
        ck_assert_int_eq(ego_blow_damage(g, g->player, beetle), 0);
        int z = ego_blow_damage(g, g->player, zombie); /* weak to fire: half again */
        ck_assert_int_ge(z, 1);
        ck_assert_int_le(z, 9);
    }
    n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        reg_get(&g->reg, inv[i])->flags &= (uint8_t)~IF_EQUIPPED;
    wield(g, "mace", "of slay undead");
    for (int i = 0; i < 50; i++) {
        ck_assert_int_ge(ego_blow_damage(g, g->player, zombie), 2);
        ck_assert_int_eq(ego_blow_damage(g, g->player, kob), 0);
    }
    done(g);
}
END_TEST

/* Runic armour and rings of resistance halve their elements while worn. */
START_TEST(resistance_is_worn)
{
    game_t *g = arena(22);
    gear_t s;
    item_gear(g, g->player, false, &s);
    ck_assert(!(s.resist & (1u << DT_FIRE)));
    handle_t ring =
        item_new(g, item_named(g->c, "ring of cold resistance"), 1, g->player, 0, 0, 0, NULL);
    ck_assert_int_eq(item_equip(g, g->player, ring), 0);
    handle_t cap = item_new(g, item_named(g->c, "iron helm"), 1, g->player, 0, 0, 0, NULL);
    reg_get(&g->reg, cap)->a[1] = ego_named(g->c, "of fire resistance") + 1;
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        if (item_kind(g, reg_get(&g->reg, inv[i]))->slot == SLOT_HEAD)
            reg_get(&g->reg, inv[i])->flags &= (uint8_t)~IF_EQUIPPED;
    ck_assert_int_eq(item_equip(g, g->player, cap), 0);
    item_gear(g, g->player, false, &s);
    ck_assert(s.resist & (1u << DT_FIRE));
    ck_assert(s.resist & (1u << DT_COLD));
    ck_assert(!(s.resist & (1u << DT_LIGHTNING)));
    char words[64];
    ego_resist_words(g, false, words, sizeof words); /* the sheet and the dump say so */
    ck_assert_msg(strstr(words, "fire") && strstr(words, "cold") && !strstr(words, "lightning"),
                  "%s", words);
    /* the sheet's view knows the helm's rune once its enchantment is known */
    item_gear(g, g->player, true, &s);
    ck_assert(!(s.resist & (1u << DT_FIRE)) == !(reg_get(&g->reg, cap)->flags & IF_KNOWN));
    done(g);
}
END_TEST

/* Runic armour of stealth makes its wearer quieter. */
START_TEST(stealth_is_worn)
{
    game_t *g = arena(28);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        reg_get(&g->reg, inv[i])->flags &= (uint8_t)~IF_EQUIPPED;
    handle_t robe = item_new(g, item_named(g->c, "robe"), 1, g->player, 0, 0, 0, NULL);
    ck_assert_int_eq(item_equip(g, g->player, robe), 0);
    int before = pc_stealth(g);
    reg_get(&g->reg, robe)->a[1] = ego_named(g->c, "of stealth") + 1;
    ck_assert_int_eq(pc_stealth(g), before + 3);
    done(g);
}
END_TEST

/* Egos come at their chance, only on gear of their classes, never cursed;
 * a known one is named after the item. */
START_TEST(egos_come_on_their_classes)
{
    ck_assert_int_eq(ego_chance(1), 4);
    ck_assert_int_eq(ego_chance(12), 15);
    ck_assert_int_eq(ego_chance(20), EGO_CHANCE_MAX);
    game_t *g = arena(23);
    rng_t r;
    rng_seed(&r, 99, 0);
    int gear = 0, egos = 0;
    for (int i = 0; i < 4000; i++) {
        uint16_t k = (uint16_t)rng_below(&r, g->c->n_items);
        const item_kind_t *ik = &g->c->items[k];
        if (ik->flags & (IKF_ARTIFACT | IKF_UNIQUE))
            continue;
        handle_t h = item_new(g, k, 1, HANDLE_NONE, g->depth, 1, 1, &r);
        int e = ego_roll(g, h, 20, &r);
        const obj_t *o = reg_get(&g->reg, h);
        if (ik->slot == SLOT_NONE || (ik->flags & IKF_STACK)) {
            ck_assert_int_eq(e, -1);
        } else if (ik->cls == IC_WEAPON || ik->cls == IC_ARMOUR || ik->cls == IC_SHIELD ||
                   ik->cls == IC_HELM) {
            gear++;
        }
        if (e >= 0) {
            egos++;
            ck_assert(g->c->egos[e].classes >> ik->cls & 1);
            ck_assert(!(o->flags & IF_CURSED) || (ik->flags & IKF_CURSED));
            ck_assert_int_ge(o->hp, 0);
        }
        reg_del(&g->reg, h);
    }
    ck_assert_int_gt(gear, 500);
    ck_assert_int_gt(egos * 100, gear * 12); /* 20 % of gear, give or take */
    ck_assert_int_lt(egos * 100, gear * 28);
    handle_t h = item_new(g, item_named(g->c, "long sword"), 1, HANDLE_NONE, g->depth, 1, 1, NULL);
    reg_get(&g->reg, h)->a[1] = ego_named(g->c, "of frost") + 1;
    reg_get(&g->reg, h)->flags |= IF_KNOWN;
    char d[96];
    item_describe(g, h, d, sizeof d);
    ck_assert_str_eq(d, "a +0 long sword of frost");
    done(g);
}
END_TEST

/* Treasure of 600 levels: each artifact made once at most, and named
 * with no article and no enchantment. */
START_TEST(artifacts_are_made_once)
{
    game_t *g = arena(24);
    level_t *lv = level_current(g); /* the player's level becomes level 15 */
    g->levels[g->depth] = NULL;
    g->levels[15] = lv;
    lv->depth = 15;
    reg_get(&g->reg, g->player)->depth = 15;
    reg_refile(&g->reg, g->player);
    g->depth = g->max_depth = 15;
    int made[64] = {0}, any = 0;
    rng_t r;
    rng_seed(&r, 5, 0);
    for (int i = 0; i < 600; i++) {
        ck_assert_int_eq(item_populate(g, 15, &r), 0);
        for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
            const obj_t *o = reg_get(&g->reg, h);
            if (o->type != OBJ_ITEM || o->target)
                continue;
            int a = ego_artifact_index(g->c, o->kind);
            if (a >= 0)
                made[a]++, any++;
            reg_del(&g->reg, h);
        }
    }
    ck_assert_int_gt(any, 2);
    for (int a = 0; a < 64; a++)
        ck_assert_int_le(made[a], 1);
    for (uint16_t k = 0; k < g->c->n_items; k++)
        if (ego_artifact_index(g->c, k) >= 0)
            ck_assert(ego_artifact_made(g, k) == (made[ego_artifact_index(g->c, k)] == 1));
    done(g);
}
END_TEST

START_TEST(artifact_found_is_a_milestone)
{
    game_t *g = arena(25);
    const obj_t *p = reg_get(&g->reg, g->player);
    uint16_t k = item_named(g->c, "Emberfang");
    handle_t h = item_new(g, k, 1, HANDLE_NONE, g->depth, p->x, p->y, NULL);
    ck_assert(ego_artifact_made(g, k));
    char d[96];
    item_describe(g, h, d, sizeof d);
    ck_assert_str_eq(d, "Emberfang");
    size_t before = game_milestone_count(g);
    ck_assert_int_eq(item_pick_up(g, g->player, h), 0);
    ck_assert_uint_eq(game_milestone_count(g), before + 1);
    ck_assert(strstr(game_milestone(g, before)->text, "Emberfang") != NULL);
    gear_t s;
    ck_assert_int_eq(item_equip(g, g->player, h), 0);
    item_gear(g, g->player, true, &s); /* known at once: its bonuses count on the sheet */
    ck_assert_int_ge(s.damage, 3);
    done(g);
}
END_TEST

/* A snapshot keeps which artifacts were made and found, and items' egos. */
START_TEST(snapshot_keeps_artifacts_and_egos)
{
    game_t *g = arena(26);
    const obj_t *p = reg_get(&g->reg, g->player);
    handle_t art =
        item_new(g, item_named(g->c, "Orcbane"), 1, HANDLE_NONE, g->depth, p->x, p->y, NULL);
    ck_assert_int_eq(item_pick_up(g, g->player, art), 0);
    handle_t sw = item_new(g, item_named(g->c, "rapier"), 1, g->player, 0, 0, 0, NULL);
    reg_get(&g->reg, sw)->a[1] = ego_named(g->c, "of venom") + 1;
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128];
    game_t *h = game_load(g->c, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(h->pc.artifacts_made, g->pc.artifacts_made);
    ck_assert_uint_eq(h->pc.artifacts_found, g->pc.artifacts_found);
    ck_assert_uint_ne(h->pc.artifacts_found, 0);
    ck_assert_int_eq(ego_of(h, reg_get(&h->reg, sw)), ego_named(g->c, "of venom"));
    ck_assert_uint_eq(game_hash(g), game_hash(h));
    /* an ego past the content's is refused */
    reg_get(&g->reg, sw)->a[1] = g->c->n_egos + 1;
    buf_free(&b);
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    ck_assert_ptr_null(game_load(g->c, (const uint8_t *)b.data, b.len, err, sizeof err));
    buf_free(&b);
    game_free(h);
    done(g);
}
END_TEST

/* ---- the content -------------------------------------------------------------------------- */

/* At least 80 creatures and 120 item kinds; every depth from 1 to 20 has
 * at least six kinds to draw from; callers' kin and breaths are sound. */
START_TEST(content_bands)
{
    ck_assert_int_ge(C->n_creatures, 80);
    ck_assert_int_ge(C->n_items, 120);
    for (int d = 1; d <= 20; d++) {
        int n = 0;
        for (int i = 0; i < C->n_creatures; i++) {
            const creature_kind_t *k = &C->creatures[i];
            n += k->weight > 0 && k->min_depth <= d && k->max_depth >= d && !(k->flags & CF_UNIQUE);
        }
        ck_assert_msg(n >= 6, "depth %d has %d kinds", d, n);
    }
    for (int i = 0; i < C->n_creatures; i++) {
        const ability_t *ab = &C->creatures[i].ab;
        if (ab->summon) {
            ck_assert_int_gt(ab->summon_max, 0);
            ck_assert_int_le(ab->summon, C->n_creatures);
        }
        if (ab->breath)
            ck_assert(ab->breath_range > 0 && ab->recharge > 0 && ab->breath_dtype != DT_NONE);
    }
}
END_TEST

/* Broken abilities, egos and artifacts fail to load, at their line. */
static void expect_error(const char *bad, const char *want)
{
    const char *paths[] = {"game/content/terrain.lua", "game/content/effects.lua",
                           "game/content/spells.lua", "game/content/creatures.lua", bad};
    char err[256] = "";
    content_t *c = declare_load_files(paths, 5, err, sizeof err);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(err, want) != NULL, "got '%s', want '%s'", err, want);
}

START_TEST(bad_abilities_and_egos)
{
    expect_error("tests/content/bad/breath_no_dtype.lua",
                 "breath_no_dtype.lua:2: creature 'wheezer': a breath needs breath_dtype");
    expect_error("tests/content/bad/summon_unknown.lua",
                 "summon_unknown.lua:2: creature 'caller': field 'summon': unknown kind 'nobody'");
    expect_error("tests/content/bad/summon_unique.lua",
                 "summon_unique.lua:2: creature 'herald': a unique is never called");
    expect_error("tests/content/bad/ego_no_classes.lua",
                 "ego_no_classes.lua:2: ego 'of nothing': field 'classes' names what it comes on");
    expect_error("tests/content/bad/artifact_no_slot.lua",
                 "artifact_no_slot.lua:2: item 'Everfull Cup': an artifact is worn or wielded");
}
END_TEST

Suite *suite_game_bestiary(void)
{
    Suite *s = suite_create("game_bestiary");
    TCase *t = tcase_create("abilities");
    with_shipped_content(t);
    tcase_add_test(t, cone_covers_its_aim_within_range);
    tcase_add_test(t, line_goes_through_its_aim);
    tcase_add_test(t, breath_hurts_all_in_it_and_recharges);
    tcase_add_test(t, kin_come_up_to_the_bound);
    tcase_add_test(t, kin_called_appear_unknown);
    tcase_add_test(t, blink_lands_away_from_the_foe);
    tcase_add_test(t, thief_takes_gold_and_flees);
    tcase_add_test(t, thief_takes_an_item);
    tcase_add_test(t, theft_waits_on_more);
    tcase_add_test(t, pack_spreads_round_its_foe);
    tcase_add_test(t, boon_before_a_fight);
    suite_add_tcase(s, t);
    t = tcase_create("egos");
    with_shipped_content(t);
    tcase_add_test(t, brands_and_slaying);
    tcase_add_test(t, resistance_is_worn);
    tcase_add_test(t, stealth_is_worn);
    tcase_add_test(t, egos_come_on_their_classes);
    tcase_add_test(t, artifacts_are_made_once);
    tcase_add_test(t, artifact_found_is_a_milestone);
    tcase_add_test(t, snapshot_keeps_artifacts_and_egos);
    tcase_add_test(t, content_bands);
    tcase_add_test(t, bad_abilities_and_egos);
    suite_add_tcase(s, t);
    return s;
}
