/* Unit tests: monsters' powers as their own Lua handlers (game/verb.h)
 * with the shipped content and a script vm — the basilisk's gaze, the
 * gargoyle's and mimic's disguise, the black pudding's splitting, the
 * gelatinous cube's engulfing, thieves' theft, the frog that swallows the
 * small, the ghoul's numbing touch, the troll's regeneration and fire,
 * the vampire's feeding, the salamander's flames, the minotaur's charge —
 * and the verbs' own rules (bad arguments, the bound on deeds). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ai.h"
#include "content.h"
#include "creature.h"
#include "declare.h"
#include "effect.h"
#include "event.h"
#include "game.h"
#include "helpers.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "script.h"
#include "status.h"
#include "verb.h"
#include "vision.h"
#include "world.h"

/* A player of race and class alone in an open room of radius 8, a vm lent. */
static game_t *arena(uint64_t seed, int race, int cls, script_vm_t **vm)
{
    game_t *g = alone(C, seed, race, cls);
    open_room(g, 8);
    *vm = script_vm_new();
    ck_assert_ptr_nonnull(*vm);
    g->vm = *vm;
    return g;
}

static void done(game_t *g, script_vm_t *vm)
{
    ck_assert_msg(g->script_errors == 0, "handler errors: %s", g->script_err);
    game_free(g);
    script_vm_forget(vm, C);
    script_vm_free(vm);
}

static obj_t *player(game_t *g)
{
    return reg_get(&g->reg, g->player);
}

static int effect_id(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_effects; i++)
        if (!strcmp(c->effects[i].name, name))
            return i;
    ck_abort_msg("no effect '%s'", name);
    return -1;
}

static bool has_effect(game_t *g, handle_t h, const char *name)
{
    return effect_find(g, h, (uint16_t)effect_id(g->c, name)) != HANDLE_NONE;
}

static int count_kind(game_t *g, const char *name)
{
    int k = kind_named(g->c, name), n = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        n += o->type == OBJ_CREATURE && o->kind == k && o->depth == g->depth;
    }
    return n;
}

/* The monster's own turn, as the scheduler would run it. */
static void monster_turn(game_t *g, handle_t h)
{
    ai_monster_turn(g, h);
}

/* A blow of a's that lands on v for dmg (after the roll), through the
 * attack chain's damage step. */
static void blow(game_t *g, handle_t a, handle_t v, int dmg, int dtype)
{
    ev_info_t e = {.type = EV_DAMAGE, .actor = a, .victim = v, .map = -1, .dtype = (uint8_t)dtype};
    e.amount[0] = dmg;
    event_throw(g, &e);
}

static handle_t aware_at(game_t *g, const char *name, int dx, int dy)
{
    handle_t h = spawn_at(g, name, dx, dy);
    reg_get(&g->reg, h)->flags |= OF_AWARE;
    return h;
}

/* ---- gaze ---------------------------------------------------------------------------- */

/* A basilisk three steps off, aware, meets the player's eyes: a Fort save
 * or the player is turning to stone (paralysed); a blind player never
 * meets its gaze. */
START_TEST(basilisk_gaze)
{
    script_vm_t *vm;
    game_t *g = arena(11, 0, 0, &vm);
    player(g)->hp = player(g)->hp_max = 100000;
    handle_t b = aware_at(g, "basilisk", 3, 0);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 200 && !has_effect(g, g->player, "petrifying"); i++) {
        reg_get(&g->reg, b)->x = (int16_t)(player(g)->x + 3); /* it stays three steps off */
        reg_refile(&g->reg, b);
        monster_turn(g, b);
    }
    ck_assert(has_effect(g, g->player, "petrifying"));
    ck_assert(said_since(g, from, "The basilisk fixes you with a stony gaze."));
    ck_assert(said_since(g, from, "You are turning to stone!"));
    ck_assert(status_has(g, g->player, EFK_(PARALYSED)));
    effect_clear(g, g->player);
    status_recount(g);
    status_apply(g, g->player, effect_id(g->c, "blindness"), 100000 * SCHED_MOVE, 1, 0);
    from = g->nmsg;
    for (int i = 0; i < 200; i++) {
        reg_get(&g->reg, b)->x = (int16_t)(player(g)->x + 3);
        reg_refile(&g->reg, b);
        monster_turn(g, b);
    }
    ck_assert(!has_effect(g, g->player, "petrifying"));
    ck_assert(!said_since(g, from, "stony gaze"));
    done(g, vm);
}
END_TEST

/* ---- disguise ------------------------------------------------------------------------ */

/* What the map draws at (x, y): the cursor sits on the player's cell. */
static uint32_t glyph_at(game_t *g, int x, int y)
{
    screen_t *s = screen_new(80, 24);
    ck_assert_ptr_nonnull(s);
    game_render(g, s, NULL);
    const obj_t *p = player(g);
    int tx = s->cur_x + (x - p->x), ty = s->cur_y + (y - p->y);
    ck_assert(tx >= 0 && tx < s->w && ty >= 0 && ty < s->h);
    uint32_t at = s->cells[ty * s->w + tx].ch;
    screen_free(s);
    return at;
}

/* A gargoyle made for a level passes for a statue: drawn as one, not seen
 * as a creature, keeping still; when the player comes beside it, it comes
 * to life and strikes; a blow on a disguised one gives it away too. */
START_TEST(gargoyle_disguise)
{
    script_vm_t *vm;
    game_t *g = arena(12, 0, 0, &vm);
    player(g)->hp = player(g)->hp_max = 100000;
    const obj_t *p = player(g);
    int x = p->x + 4, y = p->y;
    handle_t h = creature_make(g, (uint16_t)kind_named(g->c, "gargoyle"), g->depth, x, y, &g->play,
                               MAKE_SLEEPY);
    reg_get(&g->reg, h)->flags &= (uint8_t)~OF_ASLEEP;
    vision_update(g);
    ck_assert(reg_get(&g->reg, h)->flags & OF_DISGUISED);
    ck_assert(!vision_sees(g, h));
    ck_assert_uint_eq(glyph_at(g, x, y), '\'');
    for (int i = 0; i < 50; i++)
        monster_turn(g, h);
    const obj_t *o = reg_get(&g->reg, h);
    ck_assert_int_eq(o->x, x);
    ck_assert_int_eq(o->y, y);
    ck_assert(o->flags & OF_DISGUISED);
    player(g)->x = (int16_t)(x - 1); /* beside it */
    reg_refile(&g->reg, g->player);
    vision_update(g);
    uint32_t from = g->nmsg;
    monster_turn(g, h);
    ck_assert(!(reg_get(&g->reg, h)->flags & OF_DISGUISED));
    ck_assert(said_since(g, from, "The gargoyle comes to life!"));
    ck_assert(vision_sees(g, h));
    ck_assert_uint_eq(glyph_at(g, x, y), 'g');
    /* another, struck while disguised */
    handle_t m = creature_make(g, (uint16_t)kind_named(g->c, "mimic"), g->depth, x, y + 2, &g->play,
                               MAKE_SLEEPY);
    ck_assert(reg_get(&g->reg, m)->flags & OF_DISGUISED);
    ck_assert_uint_eq(glyph_at(g, x, y + 2), '~');
    blow(g, g->player, m, 1, DT_HIT);
    ck_assert(!(reg_get(&g->reg, m)->flags & OF_DISGUISED));
    done(g, vm);
}
END_TEST

/* ---- splitting ----------------------------------------------------------------------- */

/* A weapon's cut divides a black pudding in two, the hit points shared;
 * fire does not, nor a pudding too small to part. */
START_TEST(pudding_splits)
{
    script_vm_t *vm;
    game_t *g = arena(13, 0, 0, &vm);
    handle_t b = spawn_at(g, "black pudding", 2, 0);
    obj_t *o = reg_get(&g->reg, b);
    o->hp = o->hp_max = 100;
    uint32_t from = g->nmsg;
    blow(g, g->player, b, 10, DT_HIT);
    ck_assert_int_eq(count_kind(g, "black pudding"), 2);
    ck_assert(said_since(g, from, "divides in two!"));
    int total = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *c = reg_get(&g->reg, h);
        if (c->type == OBJ_CREATURE && c->kind == o->kind) {
            total += c->hp;
            ck_assert_int_ge(c->hp, 44);
        }
    }
    ck_assert_int_eq(total, 90);
    blow(g, g->player, b, 10, DT_FIRE);
    ck_assert_int_eq(count_kind(g, "black pudding"), 2);
    reg_get(&g->reg, b)->hp = 12;
    blow(g, g->player, b, 5, DT_HIT); /* 7 left: too small to part */
    ck_assert_int_eq(count_kind(g, "black pudding"), 2);
    done(g, vm);
}
END_TEST

/* ---- engulf --------------------------------------------------------------------------- */

/* A gelatinous cube's wounding touch takes the player inside: a step
 * away is a struggle (a Ref save), its turns digest; when it dies the
 * player is free. */
START_TEST(cube_engulfs)
{
    script_vm_t *vm;
    game_t *g = arena(14, 0, 0, &vm);
    player(g)->hp = player(g)->hp_max = 100000;
    handle_t c = aware_at(g, "gelatinous cube", 1, 0);
    uint32_t from = g->nmsg;
    blow(g, c, g->player, 3, DT_ACID);
    ck_assert(said_since(g, from, "The gelatinous cube engulfs you!"));
    ck_assert(status_has(g, g->player, EFK_(HELD)));
    int hp = player(g)->hp;
    monster_turn(g, c);
    ck_assert(said_since(g, from, "The gelatinous cube digests you."));
    ck_assert_int_lt(player(g)->hp, hp);
    int x = player(g)->x, stuck = 0;
    for (int i = 0; i < 40 && status_has(g, g->player, EFK_(HELD)); i++) {
        stuck += creature_step(g, g->player, -1, 0) > 0 && player(g)->x == x;
        reg_get(&g->reg, g->player)->x = (int16_t)x;
        reg_refile(&g->reg, g->player);
    }
    ck_assert_int_gt(stuck, 0); /* some struggles fail */
    /* held again, then the cube dies: free */
    blow(g, c, g->player, 3, DT_ACID);
    ck_assert(status_has(g, g->player, EFK_(HELD)));
    blow(g, g->player, c, 100000, DT_HIT);
    ck_assert_int_eq(count_kind(g, "gelatinous cube"), 0);
    ck_assert_int_gt(creature_step(g, g->player, -1, 0), 0);
    ck_assert_int_eq(player(g)->x, x - 1);
    ck_assert(!status_has(g, g->player, EFK_(HELD)));
    done(g, vm);
}
END_TEST

/* A giant frog swallows a halfling whole, never a human. */
START_TEST(frog_swallows_the_small)
{
    script_vm_t *vm;
    game_t *g = arena(15, 3, 0, &vm); /* a halfling */
    ck_assert_str_eq(pc_race_name(g), "halfling");
    player(g)->hp = player(g)->hp_max = 100000;
    handle_t f = aware_at(g, "giant frog", 1, 0);
    blow(g, f, g->player, 20, DT_HIT);
    ck_assert(status_has(g, g->player, EFK_(HELD)));
    done(g, vm);
    g = arena(15, 0, 0, &vm); /* a human */
    player(g)->hp = player(g)->hp_max = 100000;
    f = aware_at(g, "giant frog", 1, 0);
    for (int i = 0; i < 20; i++)
        blow(g, f, g->player, 20, DT_HIT);
    ck_assert(!status_has(g, g->player, EFK_(HELD)));
    done(g, vm);
}
END_TEST

/* ---- theft ---------------------------------------------------------------------------- */

/* Theft is the thieves' own handler's: a cutpurse's wounding blow takes
 * gold (a Ref save keeps it), then it hops away and runs; a master thief
 * takes an item; a kobold's blows never take anything. */
START_TEST(thieves_steal_by_their_handlers)
{
    script_vm_t *vm;
    game_t *g = arena(16, 0, 0, &vm);
    player(g)->hp = player(g)->hp_max = 100000;
    const content_t *c = g->c;
    ck_assert_int_gt(script_kind_handler(c, SCRIPT_KIND_CREATURE,
                                         (uint16_t)kind_named(c, "cutpurse"), EV_DAMAGE),
                     0);
    handle_t k = aware_at(g, "kobold", -1, 0);
    g->items.gold = 100;
    for (int i = 0; i < 100; i++)
        blow(g, k, g->player, 1, DT_HIT);
    ck_assert_int_eq(g->items.gold, 100);
    handle_t t = aware_at(g, "cutpurse", 1, 0);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 100 && g->items.gold == 100; i++) {
        const obj_t *p = player(g);
        obj_t *o = reg_get(&g->reg, t);
        o->x = (int16_t)(p->x + 1), o->y = p->y;
        reg_refile(&g->reg, t);
        blow(g, t, g->player, 1, DT_HIT);
    }
    ck_assert_int_lt(g->items.gold, 100);
    ck_assert(said_since(g, from, "from your purse!"));
    ck_assert_int_eq(g->prompt, PROMPT_MORE); /* not to be missed */
    g->prompt = PROMPT_NONE;
    ck_assert(status_has(g, t, EFK_(AFRAID)));
    handle_t inv[INV_SLOTS];
    handle_t m = aware_at(g, "master thief", 0, 1);
    int before = item_inventory(g, g->player, inv);
    for (int i = 0; i < 100 && item_inventory(g, m, inv) == 0; i++) {
        obj_t *o = reg_get(&g->reg, m);
        o->x = player(g)->x, o->y = (int16_t)(player(g)->y + 1);
        reg_refile(&g->reg, m);
        blow(g, m, g->player, 1, DT_HIT);
    }
    ck_assert_int_eq(item_inventory(g, m, inv), 1);
    ck_assert_int_eq(item_inventory(g, g->player, inv), before - 1);
    ck_assert_int_eq(g->prompt, PROMPT_MORE);
    done(g, vm);
}
END_TEST

/* ---- more powers ------------------------------------------------------------------------- */

/* A ghoul's wounding touch may paralyse; a troll knits its wounds unless
 * fire seared it; a vampire heals what it drinks; a salamander burns what
 * strikes it. */
START_TEST(touches_and_flesh)
{
    script_vm_t *vm;
    game_t *g = arena(17, 0, 0, &vm);
    player(g)->hp = player(g)->hp_max = 100000;
    handle_t gh = aware_at(g, "ghoul", 1, 0);
    for (int i = 0; i < 60 && !status_has(g, g->player, EFK_(PARALYSED)); i++)
        blow(g, gh, g->player, 2, DT_COLD);
    ck_assert(status_has(g, g->player, EFK_(PARALYSED)));
    effect_clear(g, g->player);
    status_recount(g);
    int hp;
    handle_t t = aware_at(g, "troll", -2, 0);
    obj_t *o = reg_get(&g->reg, t);
    o->hp = o->hp_max - 30;
    monster_turn(g, t);
    o = reg_get(&g->reg, t);
    ck_assert_int_gt(o->hp, o->hp_max - 30);
    blow(g, g->player, t, 5, DT_FIRE);
    ck_assert(has_effect(g, t, "seared"));
    hp = reg_get(&g->reg, t)->hp;
    reg_get(&g->reg, t)->x = (int16_t)(player(g)->x - 5); /* out of reach: it only knits, or not */
    reg_refile(&g->reg, t);
    monster_turn(g, t);
    ck_assert_int_le(reg_get(&g->reg, t)->hp, hp);
    handle_t v = aware_at(g, "vampire", 0, -1);
    o = reg_get(&g->reg, v);
    o->hp = o->hp_max - 20;
    hp = player(g)->hp;
    blow(g, v, g->player, 12, DT_HIT); /* what armour lets through, it drinks */
    ck_assert_int_gt(hp - player(g)->hp, 0);
    ck_assert_int_eq(reg_get(&g->reg, v)->hp,
                     reg_get(&g->reg, v)->hp_max - 20 + hp - player(g)->hp);
    handle_t s = aware_at(g, "salamander", 0, 1);
    uint32_t from = g->nmsg;
    hp = player(g)->hp;
    blow(g, g->player, s, 30, DT_HIT);
    ck_assert(said_since(g, from, "Flames from the salamander lick at you."));
    ck_assert_int_lt(player(g)->hp, hp);
    done(g, vm);
}
END_TEST

/* A minotaur four steps off charges: it runs up beside the player and
 * strikes in the same turn. */
START_TEST(minotaur_charges)
{
    script_vm_t *vm;
    game_t *g = arena(18, 0, 0, &vm);
    player(g)->hp = player(g)->hp_max = 100000;
    handle_t m = aware_at(g, "minotaur", 4, 0);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 50 && !said_since(g, from, "charges!"); i++) {
        obj_t *o = reg_get(&g->reg, m);
        o->x = (int16_t)(player(g)->x + 4), o->y = player(g)->y;
        reg_refile(&g->reg, m);
        monster_turn(g, m);
    }
    ck_assert(said_since(g, from, "The minotaur lowers his horns and charges!"));
    const obj_t *o = reg_get(&g->reg, m);
    ck_assert_int_eq(abs(o->x - player(g)->x), 1);
    done(g, vm);
}
END_TEST

/* Twenty kinds and more have scripted powers of their own. */
START_TEST(scripted_kinds)
{
    int n = 0;
    for (int k = 0; k < C->n_creatures; k++) {
        int any = 0;
        for (int t = 1; t < EV_TYPES; t++)
            any |= script_kind_handler(C, SCRIPT_KIND_CREATURE, (uint16_t)k, (uint16_t)t) > 0;
        n += any;
    }
    ck_assert_int_ge(n, 20);
}
END_TEST

/* ---- the verbs' rules --------------------------------------------------------------------- */

static content_t *content_with(const char *lua)
{
    char path[] = "/tmp/lore-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(lua, f);
    fclose(f);
    const char *files[] = {"game/content/terrain.lua", "game/content/effects.lua",
                           "game/content/spells.lua", "game/content/creatures.lua", path};
    char err[256] = "";
    content_t *c = declare_load_files(files, 5, err, sizeof err);
    unlink(path);
    ck_assert_msg(c != NULL, "%s", err);
    return c;
}

static int ask_none(void *ctx, const script_call_t *q, script_answer_t *out, char *why, size_t n)
{
    (void)ctx, (void)why, (void)n;
    *out = (script_answer_t){SCRIPT_INT, q->verb == VERB_DIST ? 7 : 0};
    return 0;
}

/* Queries answer through the event's ask; deeds are kept in order, at
 * most SCRIPT_DEEDS_MAX; bad arguments fail the handler and keep none;
 * the event's metatable is out of reach. */
START_TEST(verbs_are_checked)
{
    content_t *c = content_with(
        "creature { name = 'tester', on = {\n"
        "  move = function(e) e.say('<Actor> hums.') e.status('other', 'fear', e.dist()) end,\n"
        "  attack = function(e) e.status('nobody', 'fear', 2) end,\n"
        "  hit = function(e) for i = 1, 9 do e.blink() end end,\n"
        "  death = function(e) e.hurt('other', 'x', 'fire') end,\n"
        "  test = function(e) assert(getmetatable(e) == false) e.amount = e.dist() end } }\n");
    uint16_t k = (uint16_t)kind_named(c, "tester");
    script_vm_t *vm = script_vm_new();
    char err[256] = "";
    script_event_t e = {.type = EV_MOVE, .ask = ask_none};
    int ref = script_kind_handler(c, SCRIPT_KIND_CREATURE, k, EV_MOVE);
    ck_assert_int_eq(script_call_handler(vm, c, ref, &e, err, sizeof err), EV_NOTHING);
    ck_assert_int_eq(e.ndeeds, 2);
    ck_assert_int_eq(e.deeds[0].verb, VERB_SAY);
    ck_assert_str_eq(e.deeds[0].s, "<Actor> hums.");
    ck_assert_int_eq(e.deeds[1].verb, VERB_STATUS);
    ck_assert_int_eq(e.deeds[1].n[0], 1);
    ck_assert_str_eq(e.deeds[1].s, "fear");
    ck_assert_int_eq(e.deeds[1].n[2], 7);
    const uint16_t bad[] = {EV_ATTACK, EV_HIT, EV_DEATH};
    const char *const why[] = {"\"self\" or \"other\"", "at most 8 deeds", "must be an integer"};
    for (int i = 0; i < 3; i++) {
        e = (script_event_t){.type = bad[i], .ask = ask_none};
        ref = script_kind_handler(c, SCRIPT_KIND_CREATURE, k, bad[i]);
        ck_assert_int_eq(script_call_handler(vm, c, ref, &e, err, sizeof err), SCRIPT_ERR_RUNTIME);
        ck_assert_msg(strstr(err, why[i]), "%s", err);
        ck_assert_int_eq(e.ndeeds, 0);
    }
    e = (script_event_t){.type = EV_TEST}; /* no ask: a query fails */
    ref = script_kind_handler(c, SCRIPT_KIND_CREATURE, k, EV_TEST);
    ck_assert_int_eq(script_call_handler(vm, c, ref, &e, err, sizeof err), SCRIPT_ERR_RUNTIME);
    e = (script_event_t){.type = EV_TEST, .ask = ask_none};
    ck_assert_msg(script_call_handler(vm, c, ref, &e, err, sizeof err) == EV_NOTHING, "%s", err);
    ck_assert_int_eq(e.amount[0], 7);
    script_vm_forget(vm, c);
    script_vm_free(vm);
    content_free(c);
}
END_TEST

Suite *suite_game_lore(void)
{
    Suite *s = suite_create("game_lore");
    TCase *tc = tcase_create("lore");
    with_shipped_content(tc);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, basilisk_gaze);
    tcase_add_test(tc, gargoyle_disguise);
    tcase_add_test(tc, pudding_splits);
    tcase_add_test(tc, cube_engulfs);
    tcase_add_test(tc, frog_swallows_the_small);
    tcase_add_test(tc, thieves_steal_by_their_handlers);
    tcase_add_test(tc, touches_and_flesh);
    tcase_add_test(tc, minotaur_charges);
    tcase_add_test(tc, scripted_kinds);
    tcase_add_test(tc, verbs_are_checked);
    suite_add_tcase(s, tc);
    return s;
}
