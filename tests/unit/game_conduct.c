/* Unit tests: the rules of conduct with the shipped content — what
 * statuses do to monsters' turns (asleep and paralysed lose them, the
 * afraid run and fight only when cornered, the confused stagger, the
 * blind go by sound), speed derived from base and effects, regeneration,
 * kinds of mind and items, stealth and noticing, sneak attacks, saving
 * throws (Ref against bolts and breath, Will against hexes, Cha against
 * fear), and what a monster's turn is when nobody is looking. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "combat.h"
#include "content.h"
#include "creature.h"
#include "effect.h"
#include "event.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "pc.h"
#include "spell.h"
#include "status.h"
#include "vision.h"
#include "world.h"

/* Attacks thrown by one creature, counted through the game's watcher. */
typedef struct {
    handle_t actor;
    int attacks;
} attacks_t;

static void count_attacks(void *ctx, const ev_info_t *e)
{
    attacks_t *a = ctx;
    if (e->type == EV_ATTACK && e->actor == a->actor)
        a->attacks++;
}

static int effect_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_effects; i++)
        if (!strcmp(c->effects[i].name, name))
            return i;
    ck_abort_msg("no effect '%s'", name);
    return -1;
}

static int dist_to_player(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h), *p = reg_get(&g->reg, g->player);
    int dx = abs(o->x - p->x), dy = abs(o->y - p->y);
    return dx > dy ? dx : dy;
}

/* A monster next to a tough player, aware of it, watched for attacks. */
static handle_t foe_beside(game_t *g, const char *name, attacks_t *a)
{
    open_room(g, 5);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 100000;
    handle_t h = spawn_at(g, name, 1, 0);
    reg_get(&g->reg, h)->flags |= OF_AWARE;
    *a = (attacks_t){h, 0};
    g->watch = count_attacks;
    g->watch_ctx = a;
    return h;
}

/* A paralysed kobold beside you loses every turn; once it can move it
 * strikes again. */
START_TEST(paralysed_monster_loses_its_turns)
{
    game_t *g = alone(C, 31, 0, 1); /* a rogue: too quiet to wake a sleeper */
    g->pc.ab[AB_DEX] = 14;
    attacks_t a;
    handle_t h = foe_beside(g, "kobold", &a);
    ck_assert_uint_ne(
        effect_apply(g, h, (uint16_t)effect_named(C, "paralysis"), 10 * SCHED_MOVE, 1),
        HANDLE_NONE);
    for (int i = 0; i < 9; i++)
        key(g, '.');
    ck_assert_int_eq(a.attacks, 0);
    for (int i = 0; i < 10; i++)
        key(g, '.');
    ck_assert_int_ge(a.attacks, 5);
    /* asleep, likewise: no blow while it sleeps */
    a.attacks = 0;
    reg_get(&g->reg, h)->flags = (uint8_t)((reg_get(&g->reg, h)->flags & ~OF_AWARE) | OF_ASLEEP);
    for (int i = 0; i < 20; i++)
        key(g, '.');
    ck_assert(reg_get(&g->reg, h)->flags & OF_ASLEEP);
    ck_assert_int_eq(a.attacks, 0);
    g->watch = NULL;
    game_free(g);
}
END_TEST

/* A terrified dark elf does not strike: it runs, and strikes only with
 * its back to the wall. */
START_TEST(afraid_monster_flees_and_fights_cornered)
{
    game_t *g = alone(C, 32, 0, 0);
    attacks_t a;
    handle_t h = foe_beside(g, "dark elf", &a);
    reg_get(&g->reg, h)->t = g->sched.now + 1000000; /* no spells: blows only */
    uint16_t fear = (uint16_t)effect_named(C, "fear");
    effect_apply(g, h, fear, 50 * SCHED_MOVE, 1);
    for (int i = 0; i < 4; i++)
        key(g, '.');
    ck_assert_int_eq(a.attacks, 0);
    ck_assert_int_ge(dist_to_player(g, h), 3);
    /* cornered: walls all round but the player's cell */
    clear_monsters(g);
    open_room(g, 1);
    h = spawn_at(g, "dark elf", 1, 1);
    reg_get(&g->reg, h)->flags |= OF_AWARE;
    a = (attacks_t){h, 0};
    wall_in(g, h);
    effect_apply(g, h, fear, 50 * SCHED_MOVE, 1);
    for (int i = 0; i < 10; i++)
        key(g, '.');
    ck_assert_int_gt(a.attacks, 0);
    g->watch = NULL;
    game_free(g);
}
END_TEST

/* The confused stagger (and are seen to); the blind go by sound: a blind
 * kobold still finds you and strikes, and a blind caster casts nothing. */
START_TEST(confused_stagger_blind_hear)
{
    game_t *g = alone(C, 33, 0, 0);
    attacks_t a;
    handle_t h = foe_beside(g, "kobold", &a);
    effect_apply(g, h, (uint16_t)effect_named(C, "confusion"), 40 * SCHED_MOVE, 1);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 30; i++)
        key(g, '.');
    ck_assert(said_since(g, from, "The kobold staggers."));
    ck_assert_int_lt(a.attacks, 25); /* some blows went astray */
    clear_monsters(g);
    h = spawn_at(g, "kobold", 4, 0);
    reg_get(&g->reg, h)->flags |= OF_AWARE;
    a = (attacks_t){h, 0};
    effect_apply(g, h, (uint16_t)effect_named(C, "blindness"), 100 * SCHED_MOVE, 1);
    for (int i = 0; i < 20 && !a.attacks; i++)
        key(g, '.');
    ck_assert_int_gt(a.attacks, 0);
    clear_monsters(g);
    h = spawn_at(g, "kobold shaman", 4, 0);
    reg_get(&g->reg, h)->flags |= OF_AWARE;
    effect_apply(g, h, (uint16_t)effect_named(C, "blindness"), 100 * SCHED_MOVE, 1);
    from = g->nmsg;
    for (int i = 0; i < 20; i++)
        key(g, '.');
    ck_assert(!said_since(g, from, "casts"));
    g->watch = NULL;
    game_free(g);
}
END_TEST

/* Speed is derived: slow and slowness compose and wear off to the base
 * exactly (a giant newt 50 -> 25 -> 12 -> 50, a flesh golem 90 -> 22 ->
 * 90); the base never changes. */
START_TEST(slow_and_slow_wear_off_to_the_base)
{
    game_t *g = alone_in_room(C, 34, 0, 0, 5);
    static const char *const KINDS[] = {"giant newt", "flesh golem"};
    for (int k = 0; k < 2; k++) {
        clear_monsters(g);
        handle_t h = spawn_at(g, KINDS[k], 4, 0);
        int base = C->creatures[kind_named(C, KINDS[k])].speed;
        ck_assert_int_eq(status_speed(g, h), base);
        effect_apply(g, h, C->slow_effect, 3 * SCHED_MOVE, 1);
        ck_assert_int_eq(status_speed(g, h), base / 2);
        effect_apply(g, h, (uint16_t)effect_named(C, "slowness"), 6 * SCHED_MOVE, 1);
        int both = base * 50 / 100 * 50 / 100;
        ck_assert_int_eq(status_speed(g, h), both > SPEED_MIN ? both : SPEED_MIN);
        effect_apply(g, h, (uint16_t)effect_named(C, "haste"), 2 * SCHED_MOVE, 1);
        ck_assert_int_gt(status_speed(g, h), both);
        ck_assert_int_eq(reg_get(&g->reg, h)->speed, base);
        for (int i = 0; i < 12 && reg_get(&g->reg, h); i++)
            key(g, '.');
        ck_assert_int_eq(status_speed(g, h), base);
        ck_assert_int_eq(reg_get(&g->reg, h)->speed, base);
    }
    game_free(g);
}
END_TEST

/* A wounded monster regains hit points slowly, and stops when whole. */
START_TEST(monsters_regenerate)
{
    game_t *g = alone_in_room(C, 35, 0, 0, 8);
    handle_t h = spawn_at(g, "ogre", 6, 0);
    obj_t *o = reg_get(&g->reg, h);
    o->flags |= OF_ASLEEP; /* it stays put */
    o->hp_max = 60;
    o->hp = 60;
    ev_info_t e = {.type = EV_DAMAGE, .victim = h, .map = -1, .dtype = DT_HIT, .amount = {50}};
    event_throw(g, &e);
    o = reg_get(&g->reg, h);
    ck_assert_int_eq(o->hp, 10);
    ck_assert(o->flags & OF_REGEN);
    ck_assert(!(o->flags & OF_ASLEEP)); /* a wound wakes */
    effect_apply(g, h, (uint16_t)effect_named(C, "paralysis"), 300 * SCHED_MOVE, 1);
    for (int i = 0; i < 9; i++)
        key(g, '.');
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, 10); /* slowly: nothing yet */
    for (int i = 0; i < 6; i++)
        key(g, '.');
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, 13); /* a twentieth every ten turns */
    for (int i = 0; i < 300; i++)
        key(g, '.');
    o = reg_get(&g->reg, h);
    ck_assert_int_eq(o->hp, 60);
    ck_assert(!(o->flags & OF_REGEN));
    game_free(g);
}
END_TEST

/* Animals and the mindless never read, quaff or zap, and carry no kit;
 * a thinking monster does. */
START_TEST(beasts_use_no_items)
{
    game_t *g = alone_in_room(C, 36, 0, 0, 6);
    reg_get(&g->reg, g->player)->hp = reg_get(&g->reg, g->player)->hp_max = 100000;
    static const char *const BEASTS[] = {"jackal", "wolf", "giant newt", "skeleton"};
    uint16_t wand = item_named(C, "wand of magic missile"),
             potion = item_named(C, "potion of healing");
    for (int b = 0; b < 4; b++) {
        clear_monsters(g);
        handle_t h = spawn_at(g, BEASTS[b], 4, 0);
        obj_t *o = reg_get(&g->reg, h);
        o->flags |= OF_AWARE;
        o->hp_max = 100, o->hp = 10;
        handle_t w = item_new(g, wand, 1, h, 0, 0, 0, NULL);
        reg_get(&g->reg, w)->remaining = 9;
        item_new(g, potion, 1, h, 0, 0, 0, NULL);
        for (int i = 0; i < 20; i++)
            ck_assert_int_eq(itemuse_monster(g, h, true), 0);
        ck_assert_int_eq(reg_get(&g->reg, w)->remaining, 9);
        ck_assert_int_eq(creature_mind(g, reg_get(&g->reg, h))->uses_items, false);
    }
    clear_monsters(g);
    handle_t orc = spawn_at(g, "orc", 4, 0);
    obj_t *o = reg_get(&g->reg, orc);
    o->hp_max = 100, o->hp = 10;
    item_new(g, potion, 1, orc, 0, 0, 0, NULL);
    ck_assert_int_gt(itemuse_monster(g, orc, true), 0); /* it drinks */
    game_free(g);
    /* new levels' monsters carry a kit only when their mind uses items */
    int kits = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        g = down_from_town(game_new(C, seed, NULL));
        for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
            const obj_t *it = reg_get(&g->reg, h);
            const obj_t *holder = it->type == OBJ_ITEM ? reg_get(&g->reg, it->target) : NULL;
            if (!holder || it->target == g->player)
                continue;
            ck_assert(creature_mind(g, holder)->uses_items);
            kits++;
        }
        game_free(g);
    }
    ck_assert_int_gt(kits, 0);
}
END_TEST

/* Stealth: a sleeping kobold beside a quiet rogue in leather never wakes;
 * beside a fighter in plate it soon does. A monster that has not noticed
 * you does not hunt you. */
START_TEST(stealth_against_perception)
{
    int woke[2] = {0, 0};
    for (int who = 0; who < 2; who++) {
        game_t *g = alone(C, 37, 0, who ? 0 : 1); /* a rogue, then a fighter */
        g->pc.ab[AB_DEX] = who ? 10 : 18;
        if (who) {
            handle_t plate =
                item_new(g, item_named(C, "plate armour"), 1, g->player, 0, 0, 0, NULL);
            handle_t inv[INV_SLOTS];
            int n = item_inventory(g, g->player, inv);
            for (int i = 0; i < n; i++)
                if (item_kind(g, reg_get(&g->reg, inv[i]))->slot == SLOT_BODY && inv[i] != plate)
                    item_unequip(g, g->player, inv[i]);
            ck_assert_int_eq(item_equip(g, g->player, plate), 0);
        }
        open_room(g, 4);
        reg_get(&g->reg, g->player)->hp = 100000;
        for (int trial = 0; trial < 10; trial++) {
            clear_monsters(g);
            handle_t h = spawn_at(g, "kobold", 1, 0);
            reg_get(&g->reg, h)->flags |= OF_ASLEEP;
            for (int i = 0; i < 10; i++)
                key(g, '.');
            woke[who] += !(reg_get(&g->reg, h)->flags & OF_ASLEEP);
        }
        if (who)
            ck_assert_int_le(pc_stealth(g), -4); /* plate clanks */
        else
            ck_assert_int_ge(pc_stealth(g), 9); /* 6 for a rogue, 4 for Dex, less leather */
        game_free(g);
    }
    ck_assert_int_eq(woke[0], 0);
    ck_assert_int_ge(woke[1], 5);
}
END_TEST

/* A foe that has not noticed you takes a sneak attack: a rogue's great
 * one, anyone else's small one; aware, nobody's. */
START_TEST(sneak_attacks_land_on_unaware_monsters)
{
    long bonus[2] = {0, 0};
    int sneaks[2] = {0, 0};
    for (int cls = 0; cls < 2; cls++) { /* fighter, rogue */
        game_t *g = alone_in_room(C, 38, 0, cls, 3);
        g->pc.xl = 9;
        handle_t t = spawn_at(g, "troll", 1, 0);
        long dmg[2] = {0, 0};
        for (int i = 0; i < 800; i++) {
            obj_t *o = reg_get(&g->reg, t);
            o->hp = o->hp_max = 100000;
            o->flags = (uint8_t)(i % 2 ? (o->flags | OF_AWARE) : (o->flags & ~OF_AWARE));
            uint32_t from = g->nmsg;
            ev_info_t e = {.type = EV_ATTACK, .actor = g->player, .victim = t, .map = g->depth};
            event_throw(g, &e);
            dmg[i % 2] += 100000 - reg_get(&g->reg, t)->hp;
            bool sneak = said_since(g, from, "unawares");
            ck_assert(!(sneak && i % 2)); /* never on an aware foe */
            sneaks[cls] += sneak;
        }
        bonus[cls] = dmg[0] - dmg[1];
        game_free(g);
    }
    ck_assert_int_gt(sneaks[0], 100);
    ck_assert_int_gt(sneaks[1], 100);
    ck_assert_int_gt(bonus[0], 0);
    ck_assert_msg(bonus[1] > 3 * bonus[0], "rogue %ld, fighter %ld", bonus[1], bonus[0]);
}
END_TEST

/* Saving throws are rolled: Ref halves an element's bolt or breath (not
 * magic), Will resists a hex, and Cha steels a character against fear. */
START_TEST(saves_ref_will_and_cha)
{
    game_t *g = alone_in_room(C, 39, 0, 0, 6);
    obj_t *p = reg_get(&g->reg, g->player);
    handle_t lich = spawn_at(g, "lich", 4, 0);
    int dodged = 0, resisted = 0, hit = 0;
    for (int i = 0; i < 200; i++) {
        p = reg_get(&g->reg, g->player);
        p->hp = p->hp_max = 100000;
        uint32_t from = g->nmsg;
        spell_cast_at(g, lich, g->player, spell_named(C, "frost bolt"));
        dodged += said_since(g, from, "You dodge part of it.");
        hit += said_since(g, from, "You take");
        from = g->nmsg;
        spell_cast_at(g, lich, g->player, spell_named(C, "magic missile"));
        ck_assert(!said_since(g, from, "dodge")); /* magic never misses */
        hit += said_since(g, from, "You take");
        from = g->nmsg;
        status_cure(g, g->player, EFK_(PARALYSED));
        spell_cast_at(g, lich, g->player, spell_named(C, "hold"));
        resisted += said_since(g, from, "You resist the paralysis.");
    }
    status_cure(g, g->player, EFK_(PARALYSED));
    ck_assert_int_eq(hit, 400);
    ck_assert_int_gt(dodged, 10);
    ck_assert_int_lt(dodged, 190);
    ck_assert_int_gt(resisted, 10);
    ck_assert_int_lt(resisted, 190);
    /* Cha against fear: the same character, bold and timid */
    int kept[2] = {0, 0};
    for (int bold = 0; bold < 2; bold++) {
        g->pc.ab[AB_CHA] = bold ? 20 : 3;
        for (int i = 0; i < 400; i++) {
            status_cure(g, g->player, EFK_(AFRAID));
            kept[bold] += combat_save(g, g->player, SAVE_WILL, 15, EFK_(AFRAID));
        }
    }
    status_cure(g, g->player, EFK_(AFRAID));
    ck_assert_msg(kept[1] > kept[0] + 100, "bold %d timid %d", kept[1], kept[0]);
    /* and not against confusion */
    int conf[2] = {0, 0};
    for (int bold = 0; bold < 2; bold++) {
        g->pc.ab[AB_CHA] = bold ? 20 : 3;
        for (int i = 0; i < 400; i++)
            conf[bold] += combat_save(g, g->player, SAVE_WILL, 15, EFK_(CONFUSED));
    }
    ck_assert_int_lt(abs(conf[1] - conf[0]), 80);
    /* the mindless know no fear */
    handle_t sk = spawn_at(g, "skeleton", -3, 0);
    ck_assert_uint_eq(status_apply(g, sk, effect_named(C, "fear"), 500, 1, 30), HANDLE_NONE);
    game_free(g);
}
END_TEST

/* Cha sets prices: a charming character pays less, at least 1. */
START_TEST(charisma_sets_prices)
{
    game_t *g = alone(C, 40, 0, 0);
    g->pc.ab[AB_CHA] = 10;
    ck_assert_int_eq(pc_price(g, 100), 100);
    g->pc.ab[AB_CHA] = 18;
    ck_assert_int_eq(pc_price(g, 100), 80);
    g->pc.ab[AB_CHA] = 6;
    ck_assert_int_eq(pc_price(g, 100), 110);
    g->pc.ab[AB_CHA] = 30;
    ck_assert_int_eq(pc_price(g, 1), 1);
    game_free(g);
}
END_TEST

Suite *suite_game_conduct(void)
{
    Suite *s = suite_create("game_conduct");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, paralysed_monster_loses_its_turns);
    tcase_add_test(t, afraid_monster_flees_and_fights_cornered);
    tcase_add_test(t, confused_stagger_blind_hear);
    tcase_add_test(t, slow_and_slow_wear_off_to_the_base);
    tcase_add_test(t, monsters_regenerate);
    tcase_add_test(t, beasts_use_no_items);
    tcase_add_test(t, stealth_against_perception);
    tcase_add_test(t, sneak_attacks_land_on_unaware_monsters);
    tcase_add_test(t, saves_ref_will_and_cha);
    tcase_add_test(t, charisma_sets_prices);
    suite_add_tcase(s, t);
    return s;
}
