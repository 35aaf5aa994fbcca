/* Unit tests: items — content, flavours and identification, stacks and
 * weight, equipment and curses, potions' timed effects with their
 * messages and durations, hunger, resting, the dump's item part, saves. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "content.h"
#include "creature.h"
#include "event.h"
#include "helpers.h"
#include "ident.h"
#include "item.h"
#include "itemui.h"
#include "itemuse.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "prompt.h"
#include "script.h"
#include "status.h"
#include "vision.h"
#include "world.h"

static int effect_kind(const char *name)
{
    for (int k = 0; k < C->n_effects; k++)
        if (!strcmp(C->effects[k].name, name))
            return k;
    ck_abort_msg("no effect kind '%s'", name);
    return 0;
}

/* True when one of the last n messages contains s. */
static bool said(const game_t *g, const char *s)
{
    return said_since(g, g->nmsg > 12 ? g->nmsg - 12 : 0, s);
}

/* A human rogue (short sword, leather armour) alone on level 1: item
 * behaviour without interference. */
static game_t *rogue_alone(uint64_t seed)
{
    return alone(C, seed, 0, 1);
}

static handle_t give(game_t *g, const char *name, int count)
{
    handle_t h = item_new(g, item_named(C, name), count, g->player, 0, 0, 0, NULL);
    ck_assert_uint_ne(h, HANDLE_NONE);
    return h;
}

static void screen_row_text(const screen_t *s, int y, char *out, size_t n)
{
    size_t i = 0;
    for (int x = 0; x < s->w && i + 1 < n; x++) {
        uint32_t ch = screen_at(s, x, y)->ch;
        out[i++] = ch < 128 ? (char)ch : '?';
    }
    out[i] = 0;
}

static char letter(game_t *g, handle_t h)
{
    return (char)('a' + reg_get(&g->reg, h)->a[0]);
}

START_TEST(content_has_the_kinds)
{
    ck_assert_int_ge(C->n_items, 60);
    int per[IC_COUNT] = {0};
    for (uint16_t k = 0; k < C->n_items; k++)
        per[C->items[k].cls]++;
    for (int c = 0; c < IC_COUNT; c++)
        ck_assert_int_gt(per[c], 0);
    static const char *const NEED[] = {"potion of healing",
                                       "potion of extra healing",
                                       "potion of curing",
                                       "potion of restore abilities",
                                       "potion of regeneration",
                                       "potion of speed",
                                       "potion of free action",
                                       "potion of might",
                                       "potion of reflexes",
                                       "potion of combat mastery",
                                       "potion of blindness",
                                       "potion of confusion",
                                       "potion of paralysis",
                                       "scroll of identify",
                                       "scroll of teleportation",
                                       "scroll of magic mapping",
                                       "scroll of enchant weapon",
                                       "scroll of remove curse",
                                       "scroll of fear",
                                       "gold piece",
                                       "robe",
                                       "scale mail"};
    for (size_t i = 0; i < sizeof NEED / sizeof NEED[0]; i++)
        item_named(C, NEED[i]);
    const item_kind_t *ls = &C->items[item_named(C, "long sword")];
    ck_assert_int_eq(ls->power.n, 1);
    ck_assert_int_eq(ls->power.sides, 10);
    ck_assert_int_eq(ls->dtype, IDT_SLASH);
}
END_TEST

START_TEST(flavours_follow_the_seed)
{
    game_t *a = game_new(C, 11, NULL), *b = game_new(C, 11, NULL), *c = game_new(C, 12, NULL);
    int differ = 0;
    char na[64], pa[64], nb[64], pb[64];
    for (uint16_t k = 0; k < C->n_items; k++) {
        if (ident_known(a, k)) /* a new game knows the kinds without a flavour */
            continue;
        ident_flavour_name(a, k, na, sizeof na, pa, sizeof pa);
        ident_flavour_name(b, k, nb, sizeof nb, pb, sizeof pb);
        ck_assert_str_eq(na, nb);
        ident_flavour_name(c, k, nb, sizeof nb, pb, sizeof pb);
        differ += strcmp(na, nb) != 0;
        /* within one game no two kinds look alike */
        for (uint16_t j = 0; j < k; j++) {
            if (ident_known(a, j))
                continue;
            ident_flavour_name(a, j, nb, sizeof nb, pb, sizeof pb);
            ck_assert_str_ne(na, nb);
        }
    }
    ck_assert_int_gt(differ, 10);
    ck_assert(ident_known(a, item_named(C, "ration of food")));
    game_free(a);
    game_free(b);
    game_free(c);
}
END_TEST

START_TEST(quaffing_identifies_obvious_kinds)
{
    game_t *g = rogue_alone(21);
    uint16_t k = item_named(C, "potion of extra healing");
    ck_assert(!ident_known(g, k));
    handle_t h = give(g, "potion of extra healing", 2);
    char d[96], flav[64], pl[64];
    item_describe(g, h, d, sizeof d);
    ident_flavour_name(g, k, flav, sizeof flav, pl, sizeof pl);
    ck_assert_msg(strstr(d, pl) && !strstr(d, "healing"), "unknown name shown as '%s'", d);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = 1;
    char cmd[3] = {'q', letter(g, h), 0};
    keys_paged(g, cmd);
    ck_assert(ident_known(g, k));
    ck_assert_int_gt(reg_get(&g->reg, g->player)->hp, 1);
    ck_assert(said(g, "That was"));
    item_describe(g, h, d, sizeof d);
    ck_assert_str_eq(d, "a potion of extra healing");
    game_free(g);
}
END_TEST

START_TEST(scroll_of_identify_names_an_item)
{
    game_t *g = rogue_alone(22);
    handle_t s = give(g, "scroll of identify", 1);
    handle_t w = give(g, "wand of fire", 1);
    ck_assert(!ident_known(g, item_named(C, "wand of fire")));
    ident_learn(g, item_named(C, "scroll of identify"));
    char cmd[3] = {'r', letter(g, s), 0};
    keys_paged(g, cmd);
    ck_assert(ident_known(g, item_named(C, "wand of fire")));
    char d[96];
    item_describe(g, w, d, sizeof d);
    ck_assert_msg(strstr(d, "wand of fire (") && strstr(d, "charge"), "%s", d);
    ck_assert_ptr_null(reg_get(&g->reg, s)); /* read up */
    game_free(g);
}
END_TEST

/* With several unknown items the scroll asks which: the prompt lists the
 * unknown ones only, a wrong key asks again, the chosen one is named and
 * no other; the prompt survives a snapshot. */
START_TEST(scroll_of_identify_asks_which)
{
    game_t *g = rogue_alone(27);
    ident_learn(g, item_named(C, "scroll of identify"));
    handle_t s1 = give(g, "scroll of identify", 2);
    handle_t w = give(g, "wand of fire", 1), p = give(g, "potion of confusion", 1);
    char cmd[3] = {'r', letter(g, s1), 0};
    keys_paged(g, cmd);
    ck_assert_int_eq(g->items.screen, ITEMUI_IDENTIFY);
    ck_assert(!ident_known(g, item_named(C, "wand of fire")) &&
              !ident_known(g, item_named(C, "potion of confusion")));
    screen_t *sc = screen_new(80, 24);
    game_render(g, sc, NULL);
    char row[200], all[1200] = "";
    screen_row_text(sc, 0, row, sizeof row);
    ck_assert_msg(strstr(row, "Identify which item?"), "%s", row);
    for (int y = 1; y < 6; y++) {
        screen_row_text(sc, y, row, sizeof row);
        strncat(all, row, sizeof all - strlen(all) - 1);
    }
    char wl[4] = {letter(g, w), ')', 0}, pl[4] = {letter(g, p), ')', 0};
    ck_assert_msg(strstr(all, wl) && strstr(all, pl), "%s", all);
    ck_assert_msg(!strstr(all, "a) ") && !strstr(all, "ration"), "known items listed: %s",
                  all); /* the kit is known */
    screen_free(sc);
    /* the open prompt is game state */
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128] = "";
    game_t *r = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    buf_free(&b);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(r->items.screen, ITEMUI_IDENTIFY);
    game_free(r);
    keys_paged(g, "a"); /* the known sword: asks again */
    ck_assert_int_eq(g->items.screen, ITEMUI_IDENTIFY);
    ck_assert(said(g, "Choose an item you do not know yet"));
    char pick[2] = {letter(g, p), 0};
    keys_paged(g, pick);
    ck_assert_int_eq(g->items.screen, ITEMUI_NONE);
    ck_assert(ident_known(g, item_named(C, "potion of confusion")));
    ck_assert(!ident_known(g, item_named(C, "wand of fire")));
    ck_assert(said(g, "potion of confusion"));
    /* the second scroll: one unknown left, named at once */
    keys_paged(g, cmd);
    ck_assert_int_eq(g->items.screen, ITEMUI_NONE);
    ck_assert(ident_known(g, item_named(C, "wand of fire")));
    game_free(g);
}
END_TEST

/* The list a scroll opens does not cover the line that says what was
 * read: with the label unknown that line is long, and the box goes a row
 * lower rather than cut it ("...labelled VEKA RA Identify which item?"). */
START_TEST(a_list_leaves_the_top_line_whole)
{
    game_t *g = rogue_alone(27);
    handle_t s1 = give(g, "scroll of identify", 2);
    give(g, "wand of fire", 1);
    give(g, "potion of confusion", 1);
    char cmd[3] = {'r', letter(g, s1), 0};
    keys_paged(g, cmd);
    while (g->prompt == PROMPT_MORE)
        key(g, ' ');
    ck_assert_int_eq(g->items.screen, ITEMUI_IDENTIFY);
    char said_line[MSG_LEN + 16];
    msg_format(msg_at(g, g->nmsg - 1), said_line, sizeof said_line);
    ck_assert_msg(strstr(said_line, "a scroll labelled "), "%s", said_line);
    ck_assert_int_gt((int)strlen(said_line), 34); /* longer than the box leaves */
    screen_t *sc = screen_new(80, 24);
    game_render(g, sc, NULL);
    char row[200], all[1200] = "";
    screen_row_text(sc, 0, row, sizeof row);
    ck_assert_msg(strstr(row, said_line), "%s", row);
    for (int y = 0; y < 4; y++) {
        screen_row_text(sc, y, row, sizeof row);
        strncat(all, row, sizeof all - strlen(all) - 1);
    }
    ck_assert_msg(strstr(all, "Identify which item?"), "%s", all);
    screen_free(sc);
    game_free(g);
}
END_TEST

/* A --More-- over a list a scroll opened: the letter typed at the list
 * both reads on and picks (the list is on the screen; a letter that only
 * closed the --More-- looked like a key lost). Space still only reads on. */
START_TEST(a_letter_at_more_over_a_list_picks)
{
    for (int space = 0; space <= 1; space++) {
        game_t *g = rogue_alone(27);
        handle_t s1 = give(g, "scroll of identify", 2);
        give(g, "wand of fire", 1);
        handle_t p = give(g, "potion of confusion", 1);
        char cmd[3] = {'r', letter(g, s1), 0};
        keys(g, cmd);
        ck_assert_int_eq(g->prompt, PROMPT_MORE); /* what was read, too long for one line */
        ck_assert_int_eq(g->items.screen, ITEMUI_IDENTIFY);
        if (space) {
            key(g, ' ');
            ck_assert_int_eq(g->items.screen, ITEMUI_IDENTIFY);
            ck_assert(!ident_known(g, item_named(C, "potion of confusion")));
        }
        key(g, (uint32_t)letter(g, p));
        ck_assert_int_eq(g->items.screen, ITEMUI_NONE);
        ck_assert_msg(ident_known(g, item_named(C, "potion of confusion")), "%s", last_msg(g));
        game_free(g);
    }
}
END_TEST

/* A full pack (26 letters) is listed whole on 80x24: the inventory and a
 * verb's list show z) too, in two columns when one does not fit. */
START_TEST(a_full_pack_is_listed_whole)
{
    game_t *g = rogue_alone(27);
    handle_t inv[INV_SLOTS];
    for (uint16_t k = 0; k < C->n_items && item_inventory(g, g->player, inv) < INV_SLOTS; k++)
        item_new(g, k, 1, g->player, 0, 0, 0, NULL); /* one of each kind till the pack is full */
    ck_assert_int_eq(item_inventory(g, g->player, inv), INV_SLOTS);
    for (int verb = 0; verb < 2; verb++) {
        key(g, verb ? 'd' : 'i');
        screen_t *sc = screen_new(80, 24);
        game_render(g, sc, NULL);
        char row[200], all[24 * 200] = "";
        for (int y = 0; y < 24; y++) {
            screen_row_text(sc, y, row, sizeof row);
            strncat(all, row, sizeof all - strlen(all) - 1);
            strncat(all, "\n", sizeof all - strlen(all) - 1);
        }
        for (int i = 0; i < INV_SLOTS; i++) {
            char l[4] = {(char)('a' + i), ')', ' ', 0};
            ck_assert_msg(strstr(all, l), "%s missing:\n%s", l, all);
        }
        screen_row_text(sc, 22, row, sizeof row); /* the status line stays */
        ck_assert_msg(strstr(row, "HP"), "%s", row);
        screen_free(sc);
        key(g, KEY_ESC);
    }
    game_free(g);
}
END_TEST

/* A scroll of identify names itself when read, as NetHack's does: its
 * question says what it is, and so does what it names. */
START_TEST(reading_identify_names_the_scroll)
{
    for (int unknown = 1; unknown <= 2; unknown++) {
        game_t *g = rogue_alone(27);
        uint16_t kind = item_named(C, "scroll of identify");
        handle_t s1 = give(g, "scroll of identify", 2);
        give(g, "wand of fire", 1);
        if (unknown > 1)
            give(g, "potion of confusion", 1);
        ck_assert(!ident_known(g, kind));
        char cmd[3] = {'r', letter(g, s1), 0};
        keys_paged(g, cmd);
        ck_assert_int_eq(g->items.screen, unknown > 1 ? ITEMUI_IDENTIFY : ITEMUI_NONE);
        ck_assert_msg(ident_known(g, kind), "%d unknown: %s", unknown, last_msg(g));
        game_free(g);
    }
}
END_TEST

START_TEST(watching_a_monster_quaff_identifies)
{
    game_t *g = rogue_alone(23);
    int x, y;
    cell_near_player(g, &x, &y);
    handle_t m = creature_spawn(g, 2, 1, x, y);
    obj_t *mo = reg_get(&g->reg, m);
    mo->hp_max = 50;
    mo->hp = 2;
    item_new(g, item_named(C, "potion of curing"), 1, m, 0, 0, 0, NULL);
    vision_update(g);
    ck_assert(!ident_known(g, item_named(C, "potion of curing")));
    ck_assert_int_eq(itemuse_monster(g, m, true), SCHED_MOVE);
    ck_assert(ident_known(g, item_named(C, "potion of curing")));
    ck_assert(said(g, "You recognise"));
    ck_assert_int_gt(reg_get(&g->reg, m)->hp, 2);
    game_free(g);
}
END_TEST

/* A wight's touch drains Constitution (a Fort save may resist): the sheet
 * and the dump show it, a snapshot keeps it, and the potion of restore
 * abilities gives it back (and is known by it). */
START_TEST(drain_and_restore_abilities)
{
    game_t *g = rogue_alone(41);
    const obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int x = p->x + 1, y = p->y;
    lv->terrain[y * lv->w + x] = MAP_FLOOR;
    uint16_t wk = 0;
    while (wk < C->n_creatures && strcmp(C->creatures[wk].name, "wight"))
        wk++;
    ck_assert_uint_lt(wk, C->n_creatures);
    ck_assert_int_eq(C->creatures[wk].drain, AB_CON + 1);
    handle_t w = creature_spawn(g, wk, g->depth, x, y);
    ck_assert_uint_ne(w, HANDLE_NONE);
    int con = g->pc.ab[AB_CON];
    for (int i = 0; i < 400 && !g->pc.drain[AB_CON]; i++) {
        obj_t *po = reg_get(&g->reg, g->player);
        po->hp = po->hp_max = 100000;
        ev_info_t a = {.type = EV_ATTACK, .actor = w, .victim = g->player, .map = g->depth};
        event_throw(g, &a);
    }
    ck_assert_int_eq(g->pc.drain[AB_CON], 1);
    ck_assert_int_eq(g->pc.ab[AB_CON], con - 1);
    ck_assert(said(g, "You feel your constitution drain away!"));
    /* a wand in the wight's hands drains nothing: only its touch */
    ev_info_t bolt = {.type = EV_DAMAGE,
                      .actor = w,
                      .victim = g->player,
                      .map = -1,
                      .dtype = DT_COLD,
                      .amount = {5},
                      .flags = EVF_SPELL};
    for (int i = 0; i < 50; i++)
        event_throw(g, &bolt);
    ck_assert_int_eq(g->pc.drain[AB_CON], 1);
    /* the sheet and the dump */
    keys_paged(g, "e");
    screen_t *s = screen_new(80, 24);
    game_render(g, s, NULL);
    char row[200], want[32];
    screen_row_text(s, 3, row, sizeof row); /* under attack and defence */
    snprintf(want, sizeof want, "Con %d/%d", con - 1, con);
    ck_assert_msg(strstr(row, want) && strstr(row, "(drained)"), "%s", row);
    keys_paged(g, "\x1b");
    screen_free(s);
    buf_t b;
    buf_init(&b);
    game_dump(g, &b);
    buf_putc(&b, 0);
    snprintf(want, sizeof want, "Con %d (drained from %d)", con - 1, con);
    ck_assert_msg(strstr(b.data, want), "%s", b.data);
    buf_free(&b);
    /* kept by a snapshot */
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128] = "";
    game_t *r = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    buf_free(&b);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(r->pc.drain[AB_CON], 1);
    ck_assert_int_eq(r->pc.ab[AB_CON], con - 1);
    game_free(r);
    /* the potion gives it back and is recognised */
    handle_t pot = give(g, "potion of restore abilities", 1);
    ck_assert(!ident_known(g, item_named(C, "potion of restore abilities")));
    char cmd[3] = {'q', letter(g, pot), 0};
    keys_paged(g, cmd);
    ck_assert_int_eq(g->pc.ab[AB_CON], con);
    ck_assert_int_eq(g->pc.drain[AB_CON], 0);
    ck_assert(said(g, "vigour restored"));
    ck_assert(ident_known(g, item_named(C, "potion of restore abilities")));
    /* with nothing drained it does nothing to show */
    pot = give(g, "potion of restore abilities", 1);
    cmd[1] = letter(g, pot);
    keys_paged(g, cmd);
    ck_assert_int_eq(g->pc.ab[AB_CON], con);
    ck_assert(said(g, "much the same"));
    game_free(g);
}
END_TEST

START_TEST(stacks_and_grammar)
{
    game_t *g = rogue_alone(24);
    handle_t a = give(g, "loaf of bread", 4);
    handle_t b = give(g, "loaf of bread", 2);
    ck_assert_uint_eq(a, b); /* merged into one stack */
    char d[96];
    item_describe(g, a, d, sizeof d);
    ck_assert_str_eq(d, "6 loaves of bread");
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(item_drop(g, g->player, a, 2), 0);
    ck_assert(said(g, "You drop 2 loaves of bread."));
    item_describe(g, a, d, sizeof d);
    ck_assert_str_eq(d, "4 loaves of bread");
    handle_t f = item_floor_at(g, p->depth, p->x, p->y);
    ck_assert_int_eq(reg_get(&g->reg, f)->magnitude, 2);
    ck_assert_int_eq(item_pick_up(g, g->player, f), 0);
    ck_assert_int_eq(reg_get(&g->reg, a)->magnitude, 6);
    ck_assert_uint_eq(item_floor_at(g, p->depth, p->x, p->y), HANDLE_NONE);
    game_free(g);
}
END_TEST

/* A potion the sage named (or the starting pack's, known from the start)
 * stacks with one bought or found: knowing a kind without pluses tells
 * nothing more. */
START_TEST(known_and_unknown_potions_stack)
{
    game_t *g = rogue_alone(24);
    handle_t a = give(g, "potion of healing", 1);
    reg_get(&g->reg, a)->flags |= IF_KNOWN | IF_CURSE_SEEN;
    int had = reg_get(&g->reg, a)->magnitude;
    handle_t b = give(g, "potion of healing", 1);
    ck_assert_uint_eq(a, b);
    ck_assert_int_eq(reg_get(&g->reg, a)->magnitude, had + 1);
    reg_get(&g->reg, a)->flags |= IF_CURSED; /* a curse still tells them apart */
    ck_assert_uint_ne(give(g, "potion of healing", 1), a);
    game_free(g);
}
END_TEST

/* A scroll that changes worn armour names it as the reader's, by what it
 * is: "Your robe glows blue", not "A robe" nor "Your +1 robe"; the pack
 * then shows the new enchantment. */
START_TEST(enchanting_names_your_armour)
{
    static const struct {
        int cls;
        const char *said, *now;
    } want[] = {
        {1, "Your leather armour glows blue for a moment.", "some +1 leather armour (worn)"},
        {2, "Your robe glows blue for a moment.", "a +1 robe (worn)"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        game_t *g = alone(C, 24, 0, want[i].cls);
        handle_t sc = give(g, "scroll of enchant armour", 1);
        char cmd[3] = {'r', letter(g, sc), 0};
        keys_paged(g, cmd);
        ck_assert_msg(said(g, want[i].said), "%s", last_msg(g));
        ck_assert(!said(g, "+1"));
        handle_t inv[INV_SLOTS];
        int n = item_inventory(g, g->player, inv);
        bool shown = false;
        for (int k = 0; k < n; k++) {
            char d[96];
            item_describe(g, inv[k], d, sizeof d);
            shown |= !strcmp(d, want[i].now);
        }
        ck_assert_msg(shown, "no %s", want[i].now);
        game_free(g);
    }
}
END_TEST

/* The screen's rows 0..22 as one string. */
static void shown_text(game_t *g, char *all, size_t n)
{
    screen_t *sc = screen_new(80, 24);
    game_render(g, sc, NULL);
    char row[200];
    all[0] = 0;
    for (int y = 0; y < 23; y++) {
        screen_row_text(sc, y, row, sizeof row);
        strncat(all, row, n - strlen(all) - 1);
    }
    screen_free(sc);
}

/* NetHack's P puts on rings and amulets and its W wears armour: each asks
 * its own question and lists only those; w still takes all of them. */
START_TEST(nethack_wear_keys_wear)
{
    game_t *g = rogue_alone(26);
    handle_t club = give(g, "club", 1), ring = give(g, "ring of protection", 1),
             amulet = give(g, "amulet of warding", 1), mail = give(g, "ring mail", 1);
    static const struct {
        char key;
        const char *ask;
        bool ring, mail;
    } WANT[] = {{'P', "Put on what?", true, false}, {'W', "Wear what?", false, true}};
    char all[2400];
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        uint64_t now = g->sched.now;
        key(g, (uint32_t)WANT[i].key);
        ck_assert_int_eq(g->items.screen, ITEMUI_CHOOSE);
        shown_text(g, all, sizeof all);
        ck_assert_msg(strstr(all, WANT[i].ask), "%c: %s", WANT[i].key, all);
        char cl[4] = {letter(g, club), ')', 0}, rl[4] = {letter(g, ring), ')', 0},
             al[4] = {letter(g, amulet), ')', 0}, ml[4] = {letter(g, mail), ')', 0};
        ck_assert_msg(!strstr(all, cl), "%c lists the club: %s", WANT[i].key, all);
        ck_assert_msg(!strstr(all, rl) == !WANT[i].ring, "%c, ring: %s", WANT[i].key, all);
        ck_assert_msg(!strstr(all, al) == !WANT[i].ring, "%c, amulet: %s", WANT[i].key, all);
        ck_assert_msg(!strstr(all, ml) == !WANT[i].mail, "%c, mail: %s", WANT[i].key, all);
        key(g, (uint32_t)letter(g, club)); /* not what it asked for */
        ck_assert(said(g, "You cannot do that with that."));
        ck_assert_uint_eq(g->sched.now, now);
    }
    char put[3] = {'P', letter(g, ring), 0};
    keys_paged(g, put);
    ck_assert(reg_get(&g->reg, ring)->flags & IF_EQUIPPED);
    keys_paged(g, "P");
    ck_assert_int_eq(g->items.screen, ITEMUI_CHOOSE); /* the amulet is left */
    key(g, KEY_ESC);
    size_t n;
    const cmd_t *t = cmd_table(&n);
    int listed = 0;
    for (size_t i = 0; i < n; i++)
        listed += (t[i].code == 'P' && strstr(t[i].what, "ring")) ||
                  (t[i].code == 'W' && strstr(t[i].what, "armour"));
    ck_assert_int_eq(listed, 2);
    game_free(g);
}
END_TEST

/* The comma picks up as g does, as in the other roguelikes; the help
 * row of g says so. */
START_TEST(comma_picks_up)
{
    game_t *g = rogue_alone(26);
    const obj_t *p = reg_get(&g->reg, g->player);
    handle_t h = item_new(g, item_named(C, "club"), 1, HANDLE_NONE, p->depth, p->x, p->y, NULL);
    keys_paged(g, ",");
    ck_assert_uint_eq(reg_get(&g->reg, h)->target, g->player);
    ck_assert(!said(g, "Unknown command"));
    size_t n;
    const cmd_t *t = cmd_table(&n);
    bool listed = false;
    for (size_t i = 0; i < n; i++)
        listed |= t[i].code == 'g' && strstr(t[i].what, "also ,") != NULL;
    ck_assert(listed);
    game_free(g);
}
END_TEST

START_TEST(weight_limits_the_pack)
{
    game_t *g = rogue_alone(25);
    int base = item_carried_weight(g, g->player);
    const obj_t *p = reg_get(&g->reg, g->player);
    int plate = C->items[item_named(C, "plate armour")].weight, n = 0;
    for (; base + (n + 1) * plate <= CARRY_CAPACITY; n++) {
        handle_t h =
            item_new(g, item_named(C, "plate armour"), 1, HANDLE_NONE, p->depth, p->x, p->y, NULL);
        ck_assert_int_eq(item_pick_up(g, g->player, h), 0);
    }
    handle_t h =
        item_new(g, item_named(C, "plate armour"), 1, HANDLE_NONE, p->depth, p->x, p->y, NULL);
    ck_assert_int_eq(item_pick_up(g, g->player, h), -1);
    ck_assert(said(g, "too heavy"));
    ck_assert_int_eq(item_carried_weight(g, g->player), base + n * plate);
    game_free(g);
}
END_TEST

START_TEST(curses_hold_until_removed)
{
    game_t *g = rogue_alone(26);
    handle_t r = give(g, "ring of weakness", 1);
    gear_t before, after, sheet;
    status_stats(g, g->player, false, &before);
    char cmd[3] = {'w', letter(g, r), 0};
    keys_paged(g, cmd);
    ck_assert(said(g, "cursed"));
    ck_assert(reg_get(&g->reg, r)->flags & IF_EQUIPPED);
    status_stats(g, g->player, false, &after);
    ck_assert_int_eq(after.to_hit, before.to_hit - 3); /* rules use the actual value */
    status_stats(g, g->player, true, &sheet);
    ck_assert_int_eq(sheet.to_hit, before.to_hit); /* the sheet shows what is known */
    cmd[0] = 'T';
    keys_paged(g, cmd);
    ck_assert(said(g, "cannot let go"));
    ck_assert(reg_get(&g->reg, r)->flags & IF_EQUIPPED);
    handle_t s = give(g, "scroll of remove curse", 1);
    cmd[0] = 'r';
    cmd[1] = letter(g, s);
    keys_paged(g, cmd);
    cmd[0] = 'T';
    cmd[1] = letter(g, r);
    keys_paged(g, cmd);
    ck_assert(!(reg_get(&g->reg, r)->flags & IF_EQUIPPED));
    game_free(g);
}
END_TEST

/* The potion of speed: start message, double speed while it lasts, the end
 * message when its time is up, and speed back. */
START_TEST(speed_potion_messages_and_duration)
{
    game_t *g = rogue_alone(27);
    ident_learn(g, item_named(C, "potion of speed"));
    handle_t h = give(g, "potion of speed", 1);
    int speed = status_speed(g, g->player);
    char cmd[3] = {'q', letter(g, h), 0};
    keys_paged(g, cmd);
    ck_assert(said(g, "You speed up."));
    ck_assert_int_eq(status_speed(g, g->player), speed + 100);
    ck_assert_int_eq(reg_get(&g->reg, g->player)->speed, speed); /* the base never changes */
    handle_t e = effect_find(g, g->player, (uint16_t)effect_kind("haste"));
    ck_assert_uint_ne(e, HANDLE_NONE);
    int32_t left = reg_get(&g->reg, e)->remaining;
    const dice_t *d = &C->items[item_named(C, "potion of speed")].duration;
    ck_assert_int_ge(left, (d->n + d->bonus) * SCHED_MOVE - SCHED_MOVE);
    ck_assert_int_le(left, dice_max(d) * SCHED_MOVE);
    uint64_t t0 = g->sched.now;
    while (effect_find(g, g->player, (uint16_t)effect_kind("haste")) && g->sched.now - t0 < 10000)
        keys_paged(g, ".");
    ck_assert_uint_le(g->sched.now - t0, (uint64_t)left + 200);
    ck_assert(said(g, "You slow down."));
    ck_assert_int_eq(status_speed(g, g->player), speed);
    game_free(g);
}
END_TEST

START_TEST(paralysis_and_free_action)
{
    game_t *g = rogue_alone(28);
    status_apply(g, g->player, effect_kind("free action"), 1000, 1, 0);
    ck_assert_uint_eq(status_apply(g, g->player, effect_kind("paralysis"), 300, 1, 0), HANDLE_NONE);
    ck_assert(said(g, "You resist the paralysis."));
    game_free(g);
    g = rogue_alone(28);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    ck_assert_uint_ne(status_apply(g, g->player, effect_kind("paralysis"), 1000, 1, 0),
                      HANDLE_NONE);
    ck_assert(said(g, "You are paralysed!"));
    keys_paged(g, "hjkl");
    p = reg_get(&g->reg, g->player);
    ck_assert(said(g, "You cannot move!"));
    ck_assert(p->x == x && p->y == y);
    game_free(g);
}
END_TEST

START_TEST(hunger_counts_down_and_food_fills)
{
    game_t *g = rogue_alone(29);
    int32_t f0 = g->items.food;
    keys_paged(g, "..........");
    ck_assert_int_eq(g->items.food, f0 - 10);
    g->items.food = FOOD_HUNGRY + 1;
    keys_paged(g, "..");
    ck_assert(said(g, "You are getting hungry."));
    ck_assert_str_eq(itemui_status_word(g), "Hungry");
    handle_t r = give(g, "ration of food", 1);
    char cmd[3] = {'E', letter(g, r), 0};
    keys_paged(g, cmd);
    ck_assert_int_ge(g->items.food, FOOD_HUNGRY + 2500);
    ck_assert_str_eq(itemui_status_word(g), "");
    g->items.food = FOOD_DEAD + 2;
    keys_paged(g, "....");
    ck_assert_int_eq(g->state, GAME_DEAD);
    game_status_t st;
    game_status(g, &st);
    ck_assert_msg(strstr(st.cause, "starved"), "%s", st.cause);
    game_free(g);
}
END_TEST

START_TEST(rest_heals_and_costs_food)
{
    game_t *g = rogue_alone(30);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = 3;
    int32_t f0 = g->items.food;
    keys_paged(g, "R");
    p = reg_get(&g->reg, g->player);
    ck_assert(p->hp == p->hp_max || said(g, "interrupted"));
    ck_assert_int_lt(g->items.food, f0);
    game_free(g);
}
END_TEST

START_TEST(treasure_once_per_level)
{
    game_t *g = rogue_alone(31);
    int n = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        n += o->type == OBJ_ITEM && !o->target;
    }
    ck_assert_int_ge(n, 6);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = 1;
    keys_paged(g, "R");
    int m = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        m += o->type == OBJ_ITEM && !o->target;
    }
    ck_assert_int_le(m, n); /* resting never makes treasure */
    game_free(g);
}
END_TEST

START_TEST(dump_lists_equipment_and_pack_identified)
{
    game_t *g = rogue_alone(32);
    give(g, "potion of confusion", 3);
    buf_t b;
    buf_init(&b);
    game_dump(g, &b);
    buf_putc(&b, 0);
    ck_assert_msg(strstr(b.data, "Equipment:\n") && strstr(b.data, "+0 short sword (wielded)"),
                  "%s", b.data);
    ck_assert_msg(strstr(b.data, "Inventory:\n") && strstr(b.data, "3 potions of confusion"), "%s",
                  b.data);
    ck_assert(strstr(b.data, "2 rations of food"));
    buf_free(&b);
    game_free(g);
}
END_TEST

START_TEST(items_survive_a_snapshot)
{
    game_t *g = rogue_alone(33);
    give(g, "wand of frost", 1);
    ident_learn(g, item_named(C, "wand of frost"));
    keys_paged(g, "i");
    ck_assert_int_eq(g->items.screen, ITEMUI_INVENTORY);
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[160];
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(g), game_hash(h));
    ck_assert(ident_known(h, item_named(C, "wand of frost")));
    ck_assert_int_eq(h->items.screen, ITEMUI_INVENTORY);
    keys_paged(g, " ");
    keys(h, " ");
    ck_assert_uint_eq(game_hash(g), game_hash(h));
    buf_free(&b);
    game_free(g);
    game_free(h);
}
END_TEST

START_TEST(screens_draw_and_close)
{
    game_t *g = rogue_alone(34);
    screen_t *s = screen_new(80, 24);
    keys_paged(g, "i");
    game_render(g, s, NULL);
    char row[200];
    screen_row_text(s, 0, row, sizeof row);
    ck_assert_msg(strstr(row, "Inventory"), "%s", row);
    screen_row_text(s, 1, row, sizeof row);
    ck_assert_msg(strstr(row, "a) a +0 short sword (wielded)"), "%s", row);
    keys_paged(g, "x");
    ck_assert_int_eq(g->items.screen, ITEMUI_NONE);
    keys_paged(g, "q");
    game_render(g, s, NULL);
    screen_row_text(s, 0, row, sizeof row);
    ck_assert_msg(strstr(row, "Quaff which potion?"), "%s", row);
    keys_paged(g, "\x1b");
    ck_assert_int_eq(g->items.screen, ITEMUI_NONE);
    screen_free(s);
    game_free(g);
}
END_TEST

Suite *suite_game_item(void)
{
    Suite *s = suite_create("game_item");
    TCase *t = tcase_create("items");
    with_shipped_content(t);
    tcase_add_test(t, content_has_the_kinds);
    tcase_add_test(t, flavours_follow_the_seed);
    tcase_add_test(t, quaffing_identifies_obvious_kinds);
    tcase_add_test(t, scroll_of_identify_names_an_item);
    tcase_add_test(t, scroll_of_identify_asks_which);
    tcase_add_test(t, a_list_leaves_the_top_line_whole);
    tcase_add_test(t, reading_identify_names_the_scroll);
    tcase_add_test(t, a_letter_at_more_over_a_list_picks);
    tcase_add_test(t, a_full_pack_is_listed_whole);
    tcase_add_test(t, watching_a_monster_quaff_identifies);
    tcase_add_test(t, drain_and_restore_abilities);
    tcase_add_test(t, stacks_and_grammar);
    tcase_add_test(t, known_and_unknown_potions_stack);
    tcase_add_test(t, enchanting_names_your_armour);
    tcase_add_test(t, comma_picks_up);
    tcase_add_test(t, nethack_wear_keys_wear);
    tcase_add_test(t, weight_limits_the_pack);
    tcase_add_test(t, curses_hold_until_removed);
    tcase_add_test(t, speed_potion_messages_and_duration);
    tcase_add_test(t, paralysis_and_free_action);
    tcase_add_test(t, hunger_counts_down_and_food_fills);
    tcase_add_test(t, rest_heals_and_costs_food);
    tcase_add_test(t, treasure_once_per_level);
    tcase_add_test(t, dump_lists_equipment_and_pack_identified);
    tcase_add_test(t, items_survive_a_snapshot);
    tcase_add_test(t, screens_draw_and_close);
    suite_add_tcase(s, t);
    return s;
}
