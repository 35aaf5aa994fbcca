/* script: content modules load into the same tables as the built-in
 * content, broken files fail with file:line, handlers are sandboxed. */
#include <check.h>
#include <string.h>
#include "content.h"
#include "declare.h"
#include "event.h"
#include "helpers.h"
#include "rules.h"
#include "script.h"
#include "spell.h"

#define BASE "game/content/"
static const char *const BASE_FILES[] = {BASE "terrain.lua", BASE "effects.lua", BASE "spells.lua",
                                         BASE "creatures.lua"};
#define N_BASE ((int)(sizeof BASE_FILES / sizeof BASE_FILES[0]))

/* The shipped modules load whole: the kinds the rules name, and the
 * world's tables (regions, vaults, room shapes) mapgen reads. */
START_TEST(test_shipped_content)
{
    char err[256] = "";
    ck_assert_int_eq(C->n_terrain, MAP_TERRAIN_COUNT);
    ck_assert_str_eq(C->creatures[C->player_kind].name, "you");
    ck_assert_str_eq(C->effects[C->poison_effect].name, "poison");
    ck_assert_str_eq(C->effects[C->slow_effect].name, "slow");
    ck_assert_ptr_eq(C->handlers, RULES_HANDLERS);
    ck_assert_ptr_eq(C->hooks, RULES_HOOKS);
    ck_assert_int_eq(C->builtin[OBJ_CREATURE], H_CREATURE);
    ck_assert_int_eq(C->map_builtin, H_MAP);
    /* regions: names in mapgen's table are the kinds' own */
    ck_assert_int_ge(C->n_regions, 10);
    int slippery = 0, dark = 0;
    for (int i = 0; i < C->n_regions; i++) {
        ck_assert_ptr_eq(C->rtypes[i].name, C->regions[i].name);
        slippery += C->regions[i].handlers[0] == H_SLIPPERY;
        dark += (C->regions[i].flags & RF_DARK) != 0;
        if (C->regions[i].flags & RF_DARK)
            ck_assert_int_eq(C->rtypes[i].lit, 0);
    }
    ck_assert_int_ge(slippery, 1);
    ck_assert_int_ge(dark, 1);
    /* the vaults are the generator's built-in ones, now as content */
    int nd;
    const mapgen_vault_t *def = mapgen_default_vaults(&nd);
    ck_assert_int_ge(C->n_vaults, nd); /* and more of the content's own after them */
    for (int i = 0; i < nd; i++) {
        ck_assert_str_eq(C->vaults[i].name, def[i].name);
        ck_assert_str_eq(C->vaults[i].rows, def[i].rows);
        ck_assert_int_eq(C->vaults[i].weight, def[i].weight);
        ck_assert(mapgen_vault_check(&C->vaults[i], err, sizeof err) == 0);
    }
    ck_assert_int_eq(C->room_weights[SHAPE_RECT], 30);
    ck_assert_int_eq(C->room_weights[SHAPE_CIRCLE], 10);
}
END_TEST

static void expect_load_error(const char *bad, const char *want)
{
    const char *paths[N_BASE + 1] = {BASE_FILES[0], BASE_FILES[1], BASE_FILES[2], BASE_FILES[3],
                                     bad};
    char err[256] = "";
    content_t *c = declare_load_files(paths, N_BASE + 1, err, sizeof err);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(err, want) != NULL, "got '%s', want '%s'", err, want);
}

START_TEST(test_bad_files)
{
    expect_load_error("tests/content/bad/syntax.lua", "tests/content/bad/syntax.lua:4:");
    expect_load_error(
        "tests/content/bad/unknown_kind.lua",
        "tests/content/bad/unknown_kind.lua:2: oddment: field 'creature': unknown kind 'dragon'");
    expect_load_error(
        "tests/content/bad/bad_weight.lua",
        "tests/content/bad/bad_weight.lua:2: oddment: field 'weight' must be an integer");
    expect_load_error(
        "tests/content/bad/wrong_type.lua",
        "tests/content/bad/wrong_type.lua:2: creature 'blob': field 'speed' must be an integer");
    expect_load_error(
        "tests/content/bad/captures_local.lua",
        "tests/content/bad/captures_local.lua:3: creature 'counter': handler 'damage' uses");
    expect_load_error(
        "tests/content/bad/bad_region.lua",
        "tests/content/bad/bad_region.lua:2: region 'a hexagonal hall': unknown shape 'hexagon'");
    expect_load_error("tests/content/bad/bad_vault.lua",
                      "tests/content/bad/bad_vault.lua:2: vault odd: unknown glyph in rows");
    expect_load_error("tests/content/bad/no_fallback.lua",
                      "tests/content/bad/no_fallback.lua:3: creature 'lambda': glyph U+03BB has no "
                      "ASCII fallback");
    expect_load_error(
        "tests/content/bad/wide_glyph.lua",
        "tests/content/bad/wide_glyph.lua:2: creature 'wide': glyph U+4E2D has no ASCII fallback");
    expect_load_error("tests/content/bad/runaway_load.lua",
                      "tests/content/bad/runaway_load.lua:3: instruction budget exceeded");
    {
        const char *only[3] = {BASE_FILES[1], BASE_FILES[2],
                               BASE_FILES[3]}; /* creatures without terrain */
        char err[256] = "";
        ck_assert_ptr_null(declare_load_files(only, 3, err, sizeof err));
        ck_assert_msg(strstr(err, "creatures.lua:1: 0 terrain kinds declared"), "%s", err);
        ck_assert_ptr_null(declare_load("tests/content/none", err, sizeof err));
        ck_assert_msg(strstr(err, "tests/content/none/modules.lua: cannot be read"), "%s", err);
    }
    expect_load_error("tests/content/bad/missing.lua",
                      "tests/content/bad/missing.lua: cannot be read");
}
END_TEST

/* Broken spells fail like other content, at their line; so does a class
 * naming a spell nobody declared, and a 33rd spell (sets are 32 bits). */
START_TEST(test_bad_spells)
{
    expect_load_error(
        "tests/content/bad/bad_spell.lua",
        "tests/content/bad/bad_spell.lua:2: spell 'sleet': field 'dice' must be dice");
    expect_load_error("tests/content/bad/heal_dtype.lua",
                      "tests/content/bad/heal_dtype.lua:2: spell 'warm hands': effect 'heal' has "
                      "no damage type (field 'dtype')");
    expect_load_error("tests/content/bad/bolt_no_dtype.lua",
                      "tests/content/bad/bolt_no_dtype.lua:2: spell 'blank bolt': effect 'bolt' "
                      "needs its damage type (field 'dtype')");
    expect_load_error("tests/content/bad/hex_no_status.lua",
                      "tests/content/bad/hex_no_status.lua:2: spell 'evil eye': effect 'hex' "
                      "needs its timed effect (field 'status')");
    expect_load_error("tests/content/bad/area_no_radius.lua",
                      "tests/content/bad/area_no_radius.lua:2: spell 'damp squib': effect 'area' "
                      "needs its radius (field 'radius')");
    expect_load_error("tests/content/bad/power_no_use.lua",
                      "tests/content/bad/power_no_use.lua:2: spell 'blank page': effect 'power' "
                      "needs its item use (field 'use')");
    expect_load_error("tests/content/bad/hex_unknown_status.lua",
                      "tests/content/bad/hex_unknown_status.lua:2: spell 'cold eye': field "
                      "'status': unknown kind 'chill'");
    expect_load_error(
        "tests/content/bad/unknown_spell.lua",
        "tests/content/bad/unknown_spell.lua:2: class 'bard': field 'spells': unknown name "
        "'lullaby'");
    expect_load_error("tests/content/bad/too_many_spells.lua",
                      "': at most 32 spells (a spell set is 32 bits)");
    const char *twice[3] = {BASE_FILES[1], BASE_FILES[2], BASE_FILES[2]};
    char err[256] = "";
    ck_assert_ptr_null(declare_load_files(twice, 3, err, sizeof err));
    ck_assert_msg(strstr(err, "spells.lua:22: spell 'magic missile': declared twice"), "%s", err);
}
END_TEST

/* The shipped spells keep their ids (saved sets name spells by id), with
 * their dice parsed once at load; classes and creatures name them. */
START_TEST(test_shipped_spells)
{
    static const struct {
        const char *name;
        int mana, effect, dtype;
        dice_t dice;
    } WANT[] = {
        {"magic missile", 2, SPELL_BOLT, DT_MAGIC, {2, 4, 0}},
        {"fire bolt", 4, SPELL_BOLT, DT_FIRE, {3, 6, 0}},
        {"frost bolt", 4, SPELL_BOLT, DT_COLD, {3, 6, 0}},
        {"lightning bolt", 6, SPELL_BOLT, DT_LIGHTNING, {5, 6, 0}},
        {"cure wounds", 3, SPELL_HEAL, DT_NONE, {2, 8, 0}},
        {"smite", 3, SPELL_BOLT, DT_MAGIC, {2, 6, 0}},
        {"fire breath", 0, SPELL_BREATH, DT_FIRE, {3, 6, 0}},
        {"scare", 3, SPELL_HEX, DT_NONE, {1, 4, 2}},
        {"confuse", 3, SPELL_HEX, DT_NONE, {1, 4, 2}},
        {"hold", 5, SPELL_HEX, DT_NONE, {1, 2, 1}},
    };
    static const char *const HEXES[] = {"scare",     "fear", "confuse",
                                        "confusion", "hold", "paralysis"};
    ck_assert_int_ge(C->n_spells, 20); /* the first ten keep their ids */
    for (int i = 0; i < 10; i++) {
        const spell_kind_t *s = &C->spells[i];
        ck_assert_str_eq(s->name, WANT[i].name);
        ck_assert_int_eq(s->mana, WANT[i].mana);
        ck_assert_int_eq(s->effect, WANT[i].effect);
        ck_assert_int_eq(s->dtype, WANT[i].dtype);
        ck_assert_mem_eq(&s->dice, &WANT[i].dice, sizeof s->dice);
        ck_assert_int_eq(s->status >= 0, s->effect == SPELL_HEX);
    }
    for (int i = 0; i < 6; i += 2) /* a hex names the effect it puts on */
        ck_assert_str_eq(C->effects[C->spells[spell_named(C, HEXES[i])].status].name, HEXES[i + 1]);
    const class_kind_t *wizard = &C->classes[2], *cleric = &C->classes[3];
    ck_assert_str_eq(wizard->name, "wizard");
    ck_assert_uint_eq(wizard->spells, 1u << 0);
    ck_assert_uint_eq(wizard->learnable & 0xffu, 1u << 1 | 1u << 2 | 1u << 3);
    ck_assert(wizard->learnable & 1u << spell_named(C, "fireball")); /* past the old 16 bits */
    ck_assert_uint_eq(cleric->spells, 1u << 4);
    ck_assert(cleric->learnable & 1u << 5);
    ck_assert(cleric->learnable & 1u << spell_named(C, "cure poison"));
    /* at least 20 spells the two casting classes know or learn */
    uint32_t both = wizard->spells | wizard->learnable | cleric->spells | cleric->learnable;
    ck_assert_int_ge(__builtin_popcount(both), 20);
    ck_assert_uint_eq(C->creatures[kind_named(C, "kobold shaman")].spells, 1u << 0 | 1u << 7);
    ck_assert_uint_eq(C->creatures[kind_named(C, "dark elf")].spells, 1u << 0 | 1u << 4 | 1u << 8);
    ck_assert_uint_eq(C->creatures[kind_named(C, "hell hound")].spells, 1u << 6);
}
END_TEST

static content_t *load_handlers(void)
{
    const char *paths[N_BASE + 1] = {BASE_FILES[0], BASE_FILES[1], BASE_FILES[2], BASE_FILES[3],
                                     "tests/content/bad/handlers.lua"};
    char err[256] = "";
    content_t *c = declare_load_files(paths, N_BASE + 1, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    return c;
}

/* Calls name's damage handler on a 10-point hit; returns the status. */
static int call_damage(script_vm_t *vm, const content_t *c, const char *name, script_event_t *e,
                       char *err)
{
    int ref =
        script_kind_handler(c, SCRIPT_KIND_CREATURE, (uint16_t)kind_named(c, name), EV_DAMAGE);
    ck_assert_int_gt(ref, 0);
    *e = (script_event_t){.type = EV_DAMAGE, .dtype = DT_HIT, .amount = {10, 0, 0}};
    return script_call_handler(vm, c, ref, e, err, 256);
}

START_TEST(test_contained_errors)
{
    content_t *c = load_handlers();
    script_vm_t *vm = script_vm_new();
    script_event_t e;
    char err[256];
    ck_assert_int_eq(call_damage(vm, c, "faulty", &e, err), SCRIPT_ERR_RUNTIME);
    ck_assert_msg(strstr(err, "tests/content/bad/handlers.lua:3:"), "%s", err);
    ck_assert_int_eq(call_damage(vm, c, "runaway", &e, err), SCRIPT_ERR_BUDGET);
    ck_assert_msg(strstr(err, "handlers.lua:6: instruction budget exceeded"), "%s", err);
    ck_assert_int_eq(call_damage(vm, c, "glutton", &e, err), SCRIPT_ERR_MEMORY);
    ck_assert_msg(strstr(err, "handlers.lua:8: memory cap exceeded"), "%s", err);
    ck_assert_int_eq(call_damage(vm, c, "catcher", &e, err), SCRIPT_ERR_RUNTIME);
    ck_assert_int_eq(e.amount[0], 10); /* a failed handler changes nothing */
    /* a variant (like =) keeps its base's handler and fields it does not set */
    const creature_kind_t *base = &c->creatures[kind_named(c, "faulty")],
                          *twin = &c->creatures[kind_named(c, "faulty twin")];
    ck_assert_int_eq(twin->speed, 130);
    ck_assert_uint_eq(twin->glyph, 'F');
    ck_assert_mem_eq(&twin->hp, &base->hp, sizeof base->hp);
    ck_assert_int_eq(call_damage(vm, c, "faulty twin", &e, err), SCRIPT_ERR_RUNTIME);
    ck_assert_msg(strstr(err, "tests/content/bad/handlers.lua:3:"), "%s", err);
    /* the vm still works after each failure */
    ck_assert_int_eq(call_damage(vm, c, "faulty", &e, err), SCRIPT_ERR_RUNTIME);
    script_vm_free(vm);
    declare_free(c);
}
END_TEST

START_TEST(test_sandbox_escapes)
{
    static const char *const ESCAPES[] = {"io",   "os",       "require", "load", "debug",
                                          "dump", "libwrite", "strmeta", "pcall"};
    content_t *c = load_handlers();
    script_vm_t *vm = script_vm_new();
    script_event_t e;
    char err[256];
    for (size_t i = 0; i < sizeof ESCAPES / sizeof ESCAPES[0]; i++)
        ck_assert_msg(call_damage(vm, c, ESCAPES[i], &e, err) == SCRIPT_ERR_RUNTIME, "%s: %s",
                      ESCAPES[i], err);
    for (int i = 0; i < 2; i++) { /* the write fails every time: nothing persisted */
        ck_assert_int_eq(call_damage(vm, c, "global", &e, err), SCRIPT_ERR_RUNTIME);
        ck_assert_msg(strstr(err, "cannot set 'counter'"), "%s", err);
    }
    script_vm_free(vm);
    declare_free(c);
}
END_TEST

static uint32_t fixed_rand(void *ctx, uint32_t n)
{
    (void)ctx;
    return n - 1;
}

START_TEST(test_flesh_golem)
{
    char err[256] = "";
    content_t *c = declare_load("game/content", err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    int ref = script_kind_handler(c, SCRIPT_KIND_CREATURE, (uint16_t)kind_named(c, "flesh golem"),
                                  EV_DAMAGE);
    ck_assert_int_gt(ref, 0);
    ck_assert_int_eq(script_kind_handler(c, SCRIPT_KIND_CREATURE, 1, EV_DAMAGE), 0);
    script_vm_t *vm = script_vm_new();
    script_event_t e = {
        .type = EV_DAMAGE, .dtype = DT_LIGHTNING, .amount = {12}, .flags = SCRIPT_EVF_SPELL};
    ck_assert_msg(script_call_handler(vm, c, ref, &e, err, sizeof err) == EV_DONE, "%s", err);
    ck_assert_int_eq(e.amount[0], 0);
    ck_assert_int_eq(e.heal, 4);
    e = (script_event_t){.type = EV_DAMAGE, .dtype = DT_FIRE, .amount = {9}, .rand = fixed_rand};
    ck_assert_msg(script_call_handler(vm, c, ref, &e, err, sizeof err) == EV_DONE, "%s", err);
    ck_assert_int_eq(e.slow, 5);
    e = (script_event_t){.type = EV_DAMAGE, .dtype = DT_COLD, .amount = {9}};
    ck_assert_int_eq(script_call_handler(vm, c, ref, &e, err, sizeof err),
                     SCRIPT_ERR_RUNTIME); /* no rng */
    ck_assert_int_eq(e.amount[0], 9);
    e = (script_event_t){
        .type = EV_DAMAGE, .dtype = DT_MAGIC, .amount = {7}, .flags = SCRIPT_EVF_SPELL};
    ck_assert_msg(script_call_handler(vm, c, ref, &e, err, sizeof err) == EV_DONE, "%s", err);
    ck_assert_int_eq(e.amount[0], 0);
    e = (script_event_t){.type = EV_DAMAGE, .dtype = DT_HIT, .amount = {6}};
    ck_assert_int_eq(script_call_handler(vm, c, ref, &e, err, sizeof err), EV_NOTHING);
    ck_assert_int_eq(e.amount[0], 6);
    ck_assert_int_eq(e.heal + e.slow, 0);
    script_vm_free(vm);
    declare_free(c);
}
END_TEST

Suite *suite_game_script(void)
{
    Suite *s = suite_create("game_script");
    TCase *tc = tcase_create("script");
    with_shipped_content(tc);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_shipped_content);
    tcase_add_test(tc, test_bad_files);
    tcase_add_test(tc, test_bad_spells);
    tcase_add_test(tc, test_shipped_spells);
    tcase_add_test(tc, test_contained_errors);
    tcase_add_test(tc, test_sandbox_escapes);
    tcase_add_test(tc, test_flesh_golem);
    suite_add_tcase(s, tc);
    return s;
}
