/* Unit tests: what the game tells the player — look on creatures (their
 * wounds and conditions), items and places; what lies where you step;
 * gold picked up by walking (an option) and on the status line; wounds
 * after a bolt or a blow; articles of mass nouns; repeats collapsed in
 * the log and the dump; 500 messages kept through a snapshot, and old
 * snapshots refused; and the save-and-leave key. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "content.h"
#include "creature.h"
#include "event.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "msg.h"
#include "prompt.h"
#include "snapshot.h"
#include "vision.h"
#include "world.h"

static void top_row(game_t *g, char *out, int w)
{
    screen_t *s = screen_new(w, 24);
    game_render(g, s, NULL);
    for (int x = 0; x < w; x++)
        out[x] = s->cells[x].ch < 128 ? (char)s->cells[x].ch : '?';
    out[w] = 0;
    screen_free(s);
}

/* Look: a creature's wounds and conditions and what it stands on; items
 * and the place on an empty cell. */
START_TEST(look_on_creatures_items_and_places)
{
    game_t *g = alone_in_room(C, 61, 0, 0, 4);
    const obj_t *p = reg_get(&g->reg, g->player);
    item_new(g, item_named(C, "long sword"), 1, HANDLE_NONE, g->depth, p->x + 2, p->y, NULL);
    char row[201];
    keys(g, ";ll");
    top_row(g, row, 200);
    ck_assert_msg(strstr(row, "A long sword, on a floor"), "%s", row);
    key(g, KEY_ESC);
    item_new(g, item_named(C, "dagger"), 1, HANDLE_NONE, g->depth, p->x + 2, p->y, NULL);
    handle_t k = spawn_at(g, "kobold", 2, 0);
    obj_t *o = reg_get(&g->reg, k);
    o->hp_max = 20, o->hp = 3;
    o->flags |= OF_ASLEEP;
    keys(g, ";ll");
    top_row(g, row, 200);
    ck_assert_msg(strstr(row, "A kobold (badly wounded, asleep), on a dagger and a long sword. A "
                              "small scaly"),
                  "%s", row);
    key(g, KEY_ESC);
    reg_get(&g->reg, k)->flags &= (uint8_t)~OF_ASLEEP;
    reg_get(&g->reg, k)->hp = 20;
    keys(g, ";ll");
    top_row(g, row, 200);
    ck_assert_msg(strstr(row, "A kobold (unhurt, unaware of you)"), "%s", row);
    key(g, KEY_ESC);
    game_free(g);
}
END_TEST

/* Stepping onto items says what lies there; gold is picked up by walking
 * and shown on the status line, unless the game's option says by hand. */
START_TEST(gold_by_walking_and_items_underfoot)
{
    for (int by_hand = 0; by_hand < 2; by_hand++) {
        game_options_t opt = {.name = "Tester", .gold_by_hand = by_hand};
        game_t *g = game_new(C, 62, &opt);
        key(g, '*');
        clear_monsters(g);
        open_room(g, 4);
        const obj_t *p = reg_get(&g->reg, g->player);
        int x = p->x, y = p->y;
        handle_t gold =
            item_new(g, item_named(C, "gold piece"), 12, HANDLE_NONE, g->depth, x + 1, y, NULL);
        item_new(g, item_named(C, "long sword"), 1, HANDLE_NONE, g->depth, x + 1, y, NULL);
        int32_t before = g->items.gold;
        uint32_t from = g->nmsg;
        key(g, 'l');
        if (!by_hand) {
            ck_assert_int_eq(g->items.gold, before + 12);
            ck_assert_ptr_null(reg_get(&g->reg, gold));
            ck_assert(said_since(g, from, "You pick up 12 gold pieces."));
            ck_assert(said_since(g, from, "You see here a long sword."));
        } else { /* the top one first */
            ck_assert_int_eq(g->items.gold, before);
            ck_assert(said_since(g, from, "You see here a long sword and 12 gold pieces.") ||
                      said_since(g, from, "You see here 12 gold pieces and a long sword."));
        }
        char row[81];
        screen_t *s = screen_new(80, 24);
        game_render(g, s, NULL);
        for (int i = 0; i < 80; i++)
            row[i] = s->cells[22 * 80 + i].ch < 128 ? (char)s->cells[22 * 80 + i].ch : '?';
        row[80] = 0;
        char want[16];
        snprintf(want, sizeof want, "$%d", (int)g->items.gold);
        ck_assert_msg(strstr(row, want), "%s", row);
        screen_free(s);
        /* the option is part of the game: a snapshot keeps it */
        buf_t blob;
        buf_init(&blob);
        ck_assert_int_eq(game_snapshot(g, &blob), 0);
        game_t *h = game_load(C, (const uint8_t *)blob.data, blob.len, NULL, 0);
        ck_assert_ptr_nonnull(h);
        ck_assert_int_eq(h->gold_by_hand, by_hand);
        ck_assert_uint_eq(game_hash(h), game_hash(g));
        game_free(h);
        buf_free(&blob);
        /* @ turns the option over in play, and says so */
        from = g->nmsg;
        key(g, '@');
        ck_assert_int_eq(g->gold_by_hand, !by_hand);
        ck_assert(said_since(g, from, by_hand ? "picks it up" : "stays where it lies"));
        game_free(g);
    }
}
END_TEST

/* A bolt that does not kill tells the wound; so does a blow. */
START_TEST(bolts_and_blows_tell_wounds)
{
    game_t *g = alone_in_room(C, 63, 0, 0, 4);
    handle_t o = spawn_at(g, "orc", 3, 0);
    reg_get(&g->reg, o)->hp_max = 100, reg_get(&g->reg, o)->hp = 40;
    handle_t w = item_new(g, item_named(C, "wand of magic missile"), 1, g->player, 0, 0, 0, NULL);
    reg_get(&g->reg, w)->remaining = 5;
    uint32_t from = g->nmsg;
    ck_assert_int_gt(itemuse_use(g, g->player, w, 1, 0), 0);
    ck_assert(said_since(g, from, "The bolt strikes the orc."));
    ck_assert(said_since(g, from, "The orc is wounded.") ||
              said_since(g, from, "The orc is badly wounded."));
    reg_get(&g->reg, o)->hp = 100;
    from = g->nmsg;
    for (int i = 0; i < 40 && !said_since(g, from, "The orc is barely scratched."); i++) {
        reg_get(&g->reg, o)->hp = 100;
        ev_info_t e = {.type = EV_ATTACK, .actor = g->player, .victim = o, .map = g->depth};
        event_throw(g, &e);
    }
    ck_assert(said_since(g, from, "The orc is barely scratched."));
    game_free(g);
}
END_TEST

/* Body armour is a mass noun: "some leather armour", never "a". */
START_TEST(mass_nouns_from_content)
{
    game_t *g = alone(C, 64, 0, 0);
    static const char *const WANT[][2] = {{"leather armour", "some leather armour"},
                                          {"studded leather armour", "some studded leather armour"},
                                          {"chain mail", "some chain mail"},
                                          {"robe", "a robe"},
                                          {"long sword", "a long sword"}};
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        handle_t h = item_new(g, item_named(C, WANT[i][0]), 1, HANDLE_NONE, 1, 1, 1, NULL);
        char d[96];
        item_describe(g, h, d, sizeof d);
        ck_assert_str_eq(d, WANT[i][1]);
    }
    game_free(g);
}
END_TEST

/* The same message again and again folds into one line with its count,
 * in the log, on the message line and in the dump. */
START_TEST(repeats_collapse_everywhere)
{
    game_t *g = alone_in_room(C, 65, 0, 0, 4);
    handle_t newt = spawn_at(g, "giant newt", 3, 0);
    reg_get(&g->reg, newt)->flags |= OF_AWARE; /* it hunts you: no exploring */
    reg_get(&g->reg, newt)->speed = 1;         /* ...and it takes its time */
    uint32_t from = g->nmsg;
    for (int i = 0; i < 19; i++)
        key(g, 'o');
    ck_assert_str_eq(last_msg(g), "Not with a giant newt in view: fight or move by hand.");
    ck_assert_uint_eq(g->nmsg, from + 1);
    ck_assert_uint_eq(msg_at(g, g->nmsg - 1)->repeat, 19);
    char row[81];
    top_row(g, row, 80);
    ck_assert_msg(strstr(row, "Not with a giant newt in view: fight or move by hand. (x19)"), "%s",
                  row);
    buf_t dump;
    buf_init(&dump);
    game_dump(g, &dump);
    buf_putc(&dump, 0);
    const char *at =
        strstr(dump.data, "Not with a giant newt in view: fight or move by hand. (x19)");
    ck_assert_ptr_nonnull(at);
    ck_assert_ptr_null(strstr(at + 1, "Not with a giant newt in view: fight or move by hand."));
    buf_free(&dump);
    game_free(g);
}
END_TEST

/* 500 messages and more are kept, paged on the history screen, and come
 * back whole from a snapshot; a snapshot of an older format is refused. */
START_TEST(history_of_500_round_trips)
{
    game_t *g = alone(C, 66, 0, 0);
    for (int i = 0; i < 700; i++)
        msg_add(g, "Message number %d.", i);
    ck_assert_uint_ge(MSG_LOG, 500);
    ck_assert_str_eq(msg_at(g, g->nmsg - MSG_LOG)->text, "Message number 188.");
    buf_t blob;
    buf_init(&blob);
    ck_assert_int_eq(game_snapshot(g, &blob), 0);
    char err[160] = "";
    game_t *h = game_load(C, (const uint8_t *)blob.data, blob.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(h->nmsg, g->nmsg);
    for (uint32_t i = g->nmsg - MSG_LOG; i < g->nmsg; i++) {
        ck_assert_str_eq(msg_at(h, i)->text, msg_at(g, i)->text);
        ck_assert_uint_eq(msg_at(h, i)->repeat, msg_at(g, i)->repeat);
        ck_assert_uint_eq(msg_at(h, i)->turn, msg_at(g, i)->turn);
    }
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    /* the history screen pages back to the oldest kept */
    key(h, 0x10);
    for (int i = 0; i < MSG_LOG / PAGE_ROWS; i++)
        key(h, ' ');
    ck_assert_int_eq(h->prompt, PROMPT_HISTORY);
    screen_t *s = screen_new(80, 24);
    game_render(h, s, NULL);
    char row[81];
    for (int x = 0; x < 80; x++)
        row[x] = (char)s->cells[2 * 80 + x].ch;
    row[80] = 0;
    ck_assert_msg(strstr(row, "Message number 188."), "%s", row);
    screen_free(s);
    game_free(h);
    /* a format older than the oldest still read: refused, saying so */
    uint8_t *old = (uint8_t *)blob.data;
    ck_assert_int_eq(old[4], GAME_SNAPSHOT_VERSION);
    old[4] = GAME_SNAPSHOT_OLDEST - 1;
    ck_assert_ptr_null(game_load(C, old, blob.len, err, sizeof err));
    char want[64];
    snprintf(want, sizeof want, "format version %d, expected %d", GAME_SNAPSHOT_OLDEST - 1,
             GAME_SNAPSHOT_VERSION);
    ck_assert_msg(strstr(err, want), "%s", err);
    buf_free(&blob);
    game_free(g);
}
END_TEST

/* S asks the host to save and leave: nothing in the game changes beyond
 * what any key does (a twin given an unbound key hashes the same), the
 * request shows in game_status once and the next key clears it. */
/* A key that is no command says so (and what helps), costing no time;
 * Escape, space and keys with Ctrl or Alt stay quiet. */
START_TEST(unknown_keys_say_so)
{
    game_t *g = started(game_new(C, 67, NULL));
    uint64_t now = g->sched.now;
    uint32_t from = g->nmsg;
    key(g, 'O'); /* Y runs north-west now */
    ck_assert_msg(said_since(g, from, "Unknown command 'O'. Press ? for help."), "%s", last_msg(g));
    ck_assert_uint_eq(g->sched.now, now);
    from = g->nmsg;
    key(g, KEY_ESC);
    key(g, ' ');
    ck_assert_uint_eq(g->nmsg, from);
    game_free(g);
}
END_TEST

START_TEST(save_and_leave_key)
{
    game_t *a = started(game_new(C, 67, NULL)), *b = started(game_new(C, 67, NULL));
    game_status_t st;
    key(a, 'S');
    key(b, KEY_ESC); /* a key that does nothing and says nothing */
    game_status(a, &st);
    ck_assert(st.leave);
    game_status(b, &st);
    ck_assert(!st.leave);
    ck_assert_uint_eq(game_hash(a), game_hash(b));
    key(a, '.');
    game_status(a, &st);
    ck_assert(!st.leave);
    game_free(a);
    game_free(b);
    /* on the creation screen too */
    a = game_new(C, 68, NULL);
    key(a, 'S');
    game_status(a, &st);
    ck_assert(st.leave);
    ck_assert_int_eq(a->prompt, PROMPT_RACE);
    game_free(a);
}
END_TEST

Suite *suite_game_feedback(void)
{
    Suite *s = suite_create("game_feedback");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, look_on_creatures_items_and_places);
    tcase_add_test(t, gold_by_walking_and_items_underfoot);
    tcase_add_test(t, bolts_and_blows_tell_wounds);
    tcase_add_test(t, mass_nouns_from_content);
    tcase_add_test(t, repeats_collapse_everywhere);
    tcase_add_test(t, history_of_500_round_trips);
    tcase_add_test(t, save_and_leave_key);
    tcase_add_test(t, unknown_keys_say_so);
    suite_add_tcase(s, t);
    return s;
}
