/* Unit tests: messages read right — names through the one grammar path
 * (articles for uniques and proper names, a capital only where a
 * sentence starts: never "Cast at The giant rat?", "strikes the Skarg the
 * Kobold King" or "The Old Mother Gnash is terrified!"), a missile's hit
 * in its own words (never a sword's swing), a poison resisted said once,
 * and healing by an element said as such. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "combat.h"
#include "content.h"
#include "creature.h"
#include "effect.h"
#include "event.h"
#include "game.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "msg.h"
#include "prompt.h"
#include "render.h"
#include "script.h"
#include "spell.h"
#include "status.h"
#include "world.h"

enum { HUMAN = 0, DWARF };

enum { FIGHTER = 0, ROGUE, WIZARD, CLERIC };

/* True when any message since from contains s (case counts). */
static bool any_since(const game_t *g, uint32_t from, const char *s)
{
    return said_since(g, from, s);
}

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

/* A creature of the named kind that stays put (asleep would not do: it
 * must be seen awake), with hit points to spare. */
static handle_t sturdy(game_t *g, const char *name, int dx, int dy)
{
    handle_t h = spawn_at(g, name, dx, dy);
    obj_t *o = reg_get(&g->reg, h);
    o->hp = o->hp_max = 100000;
    o->flags |= OF_AWARE;
    return h;
}

static handle_t give(game_t *g, const char *item)
{
    handle_t h = item_new(g, item_named(g->c, item), 1, g->player, 0, 0, 0, NULL);
    reg_get(&g->reg, h)->remaining = 5; /* a wand's charges */
    return h;
}

START_TEST(the_aim_line_names_its_target_mid_sentence)
{
    game_t *g = alone_in_room(C, 3, HUMAN, WIZARD, 6);
    sturdy(g, "giant rat", 3, 0);
    g->pc.mana = g->pc.mana_max = 50;
    int bolt = spell_named(C, "magic missile");
    g->pc.spells |= 1u << bolt;
    key(g, 'Z');
    key(g, (uint32_t)spell_letter(g, bolt));
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    char line[96];
    top_line(g, line, sizeof line);
    ck_assert_msg(strstr(line, "Cast at the giant rat?"), "%s", line);
    game_free(g);
}
END_TEST

/* The spark's aim line says what it does: a spark, not a cast (its
 * spells are under Z, and the spark needs no mana). */
START_TEST(the_spark_aim_line_says_spark)
{
    game_t *g = alone_in_room(C, 3, HUMAN, WIZARD, 6);
    sturdy(g, "giant rat", 3, 0);
    key(g, 0x01);
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    char line[96];
    top_line(g, line, sizeof line);
    ck_assert_msg(strstr(line, "Spark at the giant rat?"), "%s", line);
    game_free(g);
}
END_TEST

/* Uniques with proper names take no article, whatever path names them:
 * a wand's bolt, an effect's message, the cause of death. */
/* A message longer than the line (a special level's greeting) is shown
 * whole: its first words with --More--, the rest after a key, never cut
 * off at the screen's edge. */
START_TEST(a_long_message_is_paged_not_cut)
{
    game_t *g = alone(C, 5, HUMAN, FIGHTER);
    msg_dismiss(g);
    msg_add(g, "%s",
            "The walls are scratched with kobold marks and the air stinks of wet fur. A warren!");
    msg_after_input(g);
    char line[96];
    top_line(g, line, sizeof line);
    ck_assert_msg(strstr(line, "stinks of wet --More--"), "%s", line);
    key(g, ' ');
    top_line(g, line, sizeof line);
    ck_assert_msg(!strncmp(line, "fur. A warren!", 14), "%s", line);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    game_free(g);
}
END_TEST

/* At a --More--, Esc skips the rest of the turn's messages, as NetHack's
 * does: the prompt closes at once, the top line is clear and the history
 * keeps every one; Space still shows the next line's worth. */
START_TEST(esc_at_more_skips_the_turns_messages)
{
    game_t *g = alone(C, 5, HUMAN, FIGHTER);
    msg_dismiss(g);
    uint32_t first = g->nmsg;
    for (int i = 0; i < 6; i++)
        msg_add(g, "The kobold number %d shouts a long and angry curse at you.", i);
    msg_after_input(g);
    ck_assert_int_eq(g->prompt, PROMPT_MORE);
    key(g, ' ');
    ck_assert_int_eq(g->prompt, PROMPT_MORE); /* a line's worth at a time */
    uint64_t now = g->sched.now;
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_uint_eq(g->msg_seen, g->nmsg);
    ck_assert(g->sched.now == now); /* no turn spent */
    char line[96];
    top_line(g, line, sizeof line);
    ck_assert_msg(!strstr(line, "kobold"), "%s", line);
    ck_assert_uint_eq(g->nmsg, first + 6); /* the history keeps them */
    ck_assert_str_eq(msg_at(g, first + 5)->text,
                     "The kobold number 5 shouts a long and angry curse at you.");
    game_free(g);
}
END_TEST

/* The same at a new level's --More-- (which only Space, Enter and Esc
 * pass): Esc skips what is left of the turn's messages. */
START_TEST(esc_at_a_new_levels_more_skips_too)
{
    game_t *g = alone(C, 5, HUMAN, FIGHTER);
    msg_dismiss(g);
    for (int i = 0; i < 6; i++)
        msg_add(g, "The kobold number %d shouts a long and angry curse at you.", i);
    g->prompt = PROMPT_WELCOME;
    key(g, 'x'); /* ignored: moves typed ahead cannot choose */
    ck_assert_int_eq(g->prompt, PROMPT_WELCOME);
    key(g, ' ');
    ck_assert_int_eq(g->prompt, PROMPT_WELCOME);
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_uint_eq(g->msg_seen, g->nmsg);
    game_free(g);
}
END_TEST

/* The first message of the log from `from` on that contains s, or -1. */
static long said_at(const game_t *g, uint32_t from, const char *s)
{
    for (uint32_t i = from; i < g->nmsg; i++)
        if (strstr(msg_at(g, i)->text, s))
            return (long)i;
    return -1;
}

/* Taking the stairs is said first, what waits at their foot after it:
 * "You climb the stairs. The stairs collapse behind you", never the
 * collapse before the climb. */
START_TEST(the_stairs_are_said_before_what_waits)
{
    game_t *g = alone(C, 5, HUMAN, FIGHTER);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 5000;
    level_t *lv = level_current(g);
    p->x = lv->down_x, p->y = lv->down_y;
    reg_refile(&g->reg, g->player);
    key(g, '>');
    ck_assert_int_eq(g->depth, 2);
    while (g->prompt != PROMPT_NONE)
        key(g, ' ');
    g->pc.heartstone = 1;
    p = reg_get(&g->reg, g->player);
    lv = level_current(g);
    p->x = lv->up_x, p->y = lv->up_y;
    reg_refile(&g->reg, g->player);
    uint32_t from = g->nmsg;
    key(g, '<');
    ck_assert_int_eq(g->depth, 1);
    long climb = said_at(g, from, "You climb the stairs"),
         fall = said_at(g, from, "The stairs collapse behind you");
    ck_assert_msg(climb >= 0 && fall >= 0, "%s", last_msg(g));
    ck_assert_int_lt(climb, fall);
    game_free(g);
}
END_TEST

START_TEST(proper_names_take_no_article)
{
    game_t *g = alone_in_room(C, 5, HUMAN, FIGHTER, 6);
    handle_t skarg = sturdy(g, "Skarg the Kobold King", 3, 0);
    handle_t wand = give(g, "wand of magic missile");
    uint32_t from = g->nmsg;
    itemuse_use(g, g->player, wand, 1, 0);
    ck_assert(any_since(g, from, "The bolt strikes Skarg the Kobold King."));
    ck_assert(!any_since(g, from, "the Skarg"));
    handle_t gnash = sturdy(g, "Old Mother Gnash", 0, 3);
    from = g->nmsg;
    int fear = -1;
    for (int i = 0; i < C->n_effects; i++)
        if (!strcmp(C->effects[i].name, "fear"))
            fear = i;
    ck_assert_uint_ne(status_apply(g, gnash, fear, 1000, 1, 0), HANDLE_NONE);
    ck_assert_msg(any_since(g, from, "Old Mother Gnash is terrified!"), "%s", last_msg(g));
    ck_assert(!any_since(g, from, "The Old Mother"));
    combat_death(g, g->player, skarg);
    ck_assert_str_eq(g->cause, "killed by Skarg the Kobold King on level 1");
    game_free(g);
}
END_TEST

/* Arrows hit or miss in their own words; the sword's blows stay the
 * sword's. */
START_TEST(missiles_hit_in_their_own_words)
{
    static const char *const SWINGS[] = {"swing", "slash", "quick blow", "You hit", "You strike"};
    game_t *g = alone_in_room(C, 7, HUMAN, FIGHTER, 6);
    handle_t m = sturdy(g, "orc", 4, 0);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 12; i++)
        keys_paged(g, "f.");
    ck_assert(any_since(g, from, "You shoot an arrow."));
    ck_assert(any_since(g, from, "The arrow hits the orc.") ||
              any_since(g, from, "The arrow strikes the orc squarely!"));
    for (size_t i = 0; i < sizeof SWINGS / sizeof SWINGS[0]; i++)
        ck_assert_msg(!any_since(g, from, SWINGS[i]), "a shot said %s", SWINGS[i]);
    from = g->nmsg;
    for (int i = 0; i < 12; i++)
        creature_attack(g, g->player, m);
    ck_assert(!any_since(g, from, "arrow") && !any_since(g, from, "shot"));
    ck_assert(any_since(g, from, "You miss the orc.") || any_since(g, from, "the orc"));
    game_free(g);
}
END_TEST

/* The player's blows read as the weapon strikes: a cleric's mace bashes
 * and never slashes; a bare fist punches. */
START_TEST(blows_fit_the_weapon)
{
    game_t *g = alone_in_room(C, 7, HUMAN, CLERIC, 4);
    handle_t m = sturdy(g, "orc", 1, 0);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 60; i++)
        creature_attack(g, g->player, m);
    ck_assert(!any_since(g, from, "slash"));
    ck_assert(any_since(g, from, "You bash the orc."));
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        reg_get(&g->reg, inv[i])->flags &= (uint8_t)~IF_EQUIPPED; /* the mace put away */
    status_recount(g);
    from = g->nmsg;
    for (int i = 0; i < 60; i++)
        creature_attack(g, g->player, m);
    ck_assert(!any_since(g, from, "slash") && !any_since(g, from, "swing"));
    ck_assert(any_since(g, from, "You punch the orc."));
    game_free(g);
}
END_TEST

/* A dwarf resists poison: a weak dose is shrugged off in one message and
 * hurts nothing; a human is poisoned and hurt; a golem, immune, says so
 * once. */
/* A unique coming into view stops a walk, and its first sighting names
 * it: the stop's line does not name it again ("You see Nimble Jack. You
 * notice Nimble Jack, and he notices you."). */
START_TEST(a_unique_is_noticed_once)
{
    game_t *g = alone_in_room(C, 9, DWARF, FIGHTER, 6);
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    for (int y = p->y - 6; y <= p->y + 1; y++) /* a wall hides him till the walk rounds it */
        lv->terrain[y * lv->w + p->x + 2] = MAP_WALL;
    lv->opaque_ok = 0;
    spawn_at(g, "Nimble Jack", 4, -3);
    uint32_t from = g->nmsg;
    ck_assert(!any_since(g, 0, "Nimble Jack"));
    keys_paged(g, "_");
    g->cur_x = (int16_t)(p->x + 3), g->cur_y = (int16_t)(p->y + 5);
    keys_paged(g, ".");
    ck_assert_msg(any_since(g, from, "You notice Nimble Jack"), "%s", last_msg(g));
    ck_assert_msg(!any_since(g, from, "You see Nimble Jack"), "%s", last_msg(g));
    game_free(g);
}
END_TEST

/* combat_unique_seen walks the creatures only while a unique may be
 * about unseen: one spawned after the player's keys began still counts
 * (creature_spawn says so, uniques_made or not), and so does one a
 * loaded game holds that its save never counted as made. */
START_TEST(a_unique_spawned_or_loaded_unmade_is_noticed)
{
    game_t *g = alone_in_room(C, 9, DWARF, FIGHTER, 6);
    keys_paged(g, "..");
    spawn_at(g, "Nimble Jack", 3, 0);
    g->pc.uniques_made = 0; /* as spawn_at's creature_spawn leaves it */
    uint32_t from = g->nmsg;
    keys_paged(g, ".");
    ck_assert_msg(any_since(g, from, "You notice Nimble Jack"), "%s", last_msg(g));
    game_free(g);

    g = alone_in_room(C, 9, DWARF, FIGHTER, 6);
    spawn_at(g, "Nimble Jack", 3, 0);
    g->pc.uniques_made = 0;
    buf_t blob;
    buf_init(&blob);
    ck_assert_int_eq(game_snapshot(g, &blob), 0);
    char err[200] = "";
    game_t *h = game_load(C, (const uint8_t *)blob.data, blob.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(h->pc.uniques_made, 0);
    from = h->nmsg;
    keys_paged(h, ".");
    ck_assert_msg(any_since(h, from, "You notice Nimble Jack"), "%s", last_msg(h));
    game_free(h);
    buf_free(&blob);
    game_free(g);
}
END_TEST

START_TEST(a_resisted_poison_is_said_once)
{
    game_t *g = alone_in_room(C, 9, DWARF, FIGHTER, 4);
    obj_t *p = reg_get(&g->reg, g->player);
    int hp = p->hp;
    uint32_t from = g->nmsg;
    effect_apply(g, g->player, C->poison_effect, 800, 1);
    for (int i = 0; i < 10; i++)
        keys_paged(g, "s");
    ck_assert(any_since(g, from, "You resist the poison."));
    ck_assert(!any_since(g, from, "You are poisoned."));
    ck_assert(!any_since(g, from, "unharmed"));
    ck_assert_int_eq(reg_get(&g->reg, g->player)->hp, hp);
    game_free(g);

    g = alone(C, 9, HUMAN, FIGHTER);
    open_room(g, 4);
    from = g->nmsg;
    hp = reg_get(&g->reg, g->player)->hp;
    effect_apply(g, g->player, C->poison_effect, 300, 1);
    keys_paged(g, "sss");
    ck_assert(any_since(g, from, "You are poisoned."));
    ck_assert_int_lt(reg_get(&g->reg, g->player)->hp, hp);
    handle_t golem = sturdy(g, "flesh golem", 2, 0);
    from = g->nmsg;
    effect_apply(g, golem, C->poison_effect, 800, 3);
    keys_paged(g, "ssssss");
    ck_assert(any_since(g, from, "The flesh golem resists the poison."));
    ck_assert(!any_since(g, from, "unharmed"));
    game_free(g);
}
END_TEST

/* Lightning heals the flesh golem (its Lua handler), and the message says
 * so rather than that it was unaffected. */
START_TEST(healing_by_an_element_is_said)
{
    script_vm_t *vm = script_vm_new();
    game_t *g = alone_in_room(C, 11, HUMAN, FIGHTER, 6);
    handle_t golem = sturdy(g, "flesh golem", 3, 0);
    reg_get(&g->reg, golem)->hp = 10;
    handle_t wand = give(g, "wand of lightning");
    uint32_t from = g->nmsg;
    g->vm = vm;
    itemuse_use(g, g->player, wand, 1, 0);
    g->vm = NULL;
    ck_assert_int_gt(reg_get(&g->reg, golem)->hp, 10);
    ck_assert_msg(any_since(g, from, "The flesh golem is healed by the lightning."), "%s",
                  last_msg(g));
    ck_assert(!any_since(g, from, "unaffected") && !any_since(g, from, "unharmed"));
    game_free(g);
    script_vm_forget(vm, C);
    script_vm_free(vm);
}
END_TEST

Suite *suite_game_messages(void)
{
    Suite *s = suite_create("game_messages");
    TCase *t = tcase_create("messages");
    with_shipped_content(t);
    tcase_add_test(t, the_aim_line_names_its_target_mid_sentence);
    tcase_add_test(t, the_spark_aim_line_says_spark);
    tcase_add_test(t, proper_names_take_no_article);
    tcase_add_test(t, a_long_message_is_paged_not_cut);
    tcase_add_test(t, esc_at_more_skips_the_turns_messages);
    tcase_add_test(t, esc_at_a_new_levels_more_skips_too);
    tcase_add_test(t, missiles_hit_in_their_own_words);
    tcase_add_test(t, blows_fit_the_weapon);
    tcase_add_test(t, a_resisted_poison_is_said_once);
    tcase_add_test(t, a_unique_is_noticed_once);
    tcase_add_test(t, a_unique_spawned_or_loaded_unmade_is_noticed);
    tcase_add_test(t, healing_by_an_element_is_said);
    tcase_add_test(t, the_stairs_are_said_before_what_waits);
    suite_add_tcase(s, t);
    return s;
}
