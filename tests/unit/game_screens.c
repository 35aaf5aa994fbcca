/* Unit tests: the game tells the player what is going on — explore and
 * travel say why they stop or cannot start; death shows "You die..." on
 * --More-- until the player's key; the dump holds what happened, never a
 * question asked; C shows the character sheet and \ the discoveries, both
 * listed by ? (help); lists sit over the map's right side. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "content.h"
#include "creature.h"
#include "game.h"
#include "helpers.h"
#include "ident.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "render.h"
#include "status.h"
#include "world.h"

enum { HUMAN = 0 };
enum { FIGHTER = 0, ROGUE, WIZARD, CLERIC };

/* The whole 80x24 view as text, rows joined by newlines. */
static void view_text(game_t *g, char *out, size_t n)
{
    screen_t *s = screen_new(80, 24);
    game_view_t v = {0};
    render_full(g, s, &v);
    size_t at = 0;
    for (int y = 0; y < s->h; y++) {
        for (int x = 0; x < s->w && at + 2 < n; x++) {
            uint32_t ch = screen_at(s, x, y)->ch;
            out[at++] = ch < 0x80 ? (char)ch : '?';
        }
        if (at + 1 < n)
            out[at++] = '\n';
    }
    out[at] = 0;
    screen_free(s);
}

static bool shows(game_t *g, const char *what)
{
    static char text[80 * 25 + 1];
    view_text(g, text, sizeof text);
    return strstr(text, what) != NULL;
}

/* Seeded games explored with o (and stairs taken, --More-- paged): every
 * o either takes the player on or says why not, and whenever a walk
 * stops it has said something (or a prompt is up, or the game is over). */
START_TEST(explore_always_says_why_it_stops)
{
    int silent = 0, explores = 0;
    for (uint64_t seed = 14; seed <= 19; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        for (int i = 0; i < 440 && g->state == GAME_RUNNING; i++) {
            if (g->prompt == PROMPT_MORE || g->prompt == PROMPT_LEVELUP) {
                key(g, g->prompt == PROMPT_MORE ? ' ' : 'a');
                continue;
            }
            if (g->prompt != PROMPT_NONE || g->items.screen) {
                key(g, KEY_ESC);
                continue;
            }
            const char *k = i % 9 == 8 ? "_>." : i % 9 == 7 ? ">" : "o";
            uint32_t said = g->said;
            keys(g, k);
            if (k[0] != 'o')
                continue;
            explores++;
            if (g->said == said && g->prompt == PROMPT_NONE && g->state == GAME_RUNNING) {
                silent++;
                ck_abort_msg("seed %llu key %d: o stopped without a word", (unsigned long long)seed,
                             i);
            }
        }
        game_free(g);
    }
    ck_assert_int_gt(explores, 1000);
    ck_assert_int_eq(silent, 0);
}
END_TEST

/* Travel: to where the player stands, to stairs not found, to a place
 * seen but walled off, and past someone in the way: each says why. */
START_TEST(travel_says_why_it_cannot_start)
{
    game_t *g = alone_in_room(C, 5, HUMAN, FIGHTER, 4);
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    uint32_t from = g->nmsg;
    keys(g, "_.");
    ck_assert(said_since(g, from, "You are already there."));
    lv->seen[lv->down_y * lv->w + lv->down_x] = 0;
    from = g->nmsg;
    keys(g, "_>");
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert(said_since(g, from, "You have not found the staircase down here."));
    /* a seen cell in a walled pocket far off */
    int x = p->x + 10 < lv->w - 2 ? p->x + 10 : p->x - 10, y = p->y;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            lv->terrain[(y + dy) * lv->w + x + dx] = dx || dy ? MAP_WALL : MAP_FLOOR;
            lv->seen[(y + dy) * lv->w + x + dx] = 1;
        }
    lv->opaque_ok = 0;
    g->cur_x = p->x, g->cur_y = p->y;
    from = g->nmsg;
    key(g, '_');
    for (int i = 0; i < abs(x - p->x); i++)
        key(g, x > p->x ? 'l' : 'h');
    key(g, '.');
    ck_assert(said_since(g, from, "You know no way there from here."));
    game_free(g);
}
END_TEST

/* A keeper in the one way on: explore says who is in the way. */
START_TEST(explore_says_who_is_in_the_way)
{
    game_t *g = alone(C, 7, HUMAN, FIGHTER);
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    /* a corridor west to east through the player, the map unknown beyond it */
    int y = lv->h / 2, x0 = 10;
    memset(lv->seen, 0, (size_t)lv->w * (size_t)lv->h);
    for (int x = x0 - 1; x < x0 + 12; x++)
        for (int dy = -1; dy <= 1; dy++) {
            lv->terrain[(y + dy) * lv->w + x] = dy || x == x0 - 1 ? MAP_WALL : MAP_FLOOR;
            lv->trap[(y + dy) * lv->w + x] = 0;
        }
    p->x = (int16_t)x0, p->y = (int16_t)y;
    reg_refile(&g->reg, g->player);
    lv->opaque_ok = 0;
    lv->fov_ok = 0;
    handle_t k = spawn_at(g, "shopkeeper", 1, 0);
    ck_assert_uint_ne(k, HANDLE_NONE);
    uint32_t from = g->nmsg;
    key(g, 'o');
    ck_assert_msg(said_since(g, from, "The shopkeeper is in the way."), "%s", last_msg(g));
    game_free(g);
}
END_TEST

/* Look on a creature shows its flavour text whole: what does not fit the
 * top line goes on in the rows below, broken between words. */
START_TEST(look_shows_the_whole_description)
{
    game_t *g = alone_in_room(C, 7, HUMAN, FIGHTER, 4);
    ck_assert_uint_ne(spawn_at(g, "kobold", 2, 0), HANDLE_NONE);
    keys(g, "xll");
    ck_assert_int_eq(g->prompt, PROMPT_LOOK);
    static char text[80 * 25 + 1];
    view_text(g, text, sizeof text);
    ck_assert_msg(!strncmp(text, "A kobold (", 10), "%s", text);
    ck_assert_msg(strstr(text, "against everything taller."), "%s", text);
    ck_assert_msg(strstr(text, "A small scaly dog-faced thing"), "%s", text);
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    game_free(g);
}
END_TEST

/* The bottom row of s. */
static void bottom_row(const screen_t *s, char *out)
{
    for (int x = 0; x < s->w && x < 80; x++) {
        uint32_t ch = screen_at(s, x, s->h - 1)->ch;
        out[x] = ch < 0x80 ? (char)ch : '?';
    }
    out[s->w < 80 ? s->w : 80] = 0;
}

/* Look's top line says "? keys"; its bottom line keeps the commands'
 * line (entering look costs it nothing) until ? asks for look's own keys
 * (the cursor, Tab, Esc to leave), in a whole frame and in one drawn
 * over the last; ? again hides them, and once look closes the commands'
 * line is back. */
START_TEST(look_shows_its_own_keys)
{
    game_t *g = alone_in_room(C, 7, HUMAN, FIGHTER, 4);
    game_view_t v = {0};
    char row[81];
    bottom_row(game_frame(g, 80, 24, &v), row);
    ck_assert_msg(strstr(row, "move or attack"), "%s", row);
    key(g, ';');
    ck_assert_int_eq(g->prompt, PROMPT_LOOK);
    static char text[80 * 25 + 1];
    view_text(g, text, sizeof text);
    ck_assert_msg(strstr(text, "(? keys)") && strstr(text, "move or attack"), "%s", text);
    bottom_row(game_frame(g, 80, 24, &v), row);
    ck_assert_msg(strstr(row, "move or attack"), "%s", row);
    key(g, '?');
    ck_assert_int_eq(g->prompt, PROMPT_LOOK);
    bottom_row(game_frame(g, 80, 24, &v), row);
    ck_assert_msg(!strstr(row, "move or attack"), "%s", row);
    ck_assert_msg(strstr(row, "move the cursor") && strstr(row, "Tab") && strstr(row, "Esc leaves"),
                  "%s", row);
    view_text(g, text, sizeof text);
    ck_assert_msg(strstr(text, "Esc leaves") && !strstr(text, "move or attack"), "%s", text);
    key(g, '?');
    bottom_row(game_frame(g, 80, 24, &v), row);
    ck_assert_msg(strstr(row, "move or attack"), "%s", row);
    key(g, '?');
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    bottom_row(game_frame(g, 80, 24, &v), row);
    ck_assert_msg(strstr(row, "move or attack"), "%s", row);
    game_free(g);
}
END_TEST

/* In look, Tab and + go from creature to creature in view, nearest first,
 * and - back, as the aiming cursor does; the look stays open. */
START_TEST(look_tabs_between_creatures)
{
    game_t *g = alone_in_room(C, 7, HUMAN, FIGHTER, 4);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    ck_assert_uint_ne(spawn_at(g, "kobold", 2, 0), HANDLE_NONE);
    ck_assert_uint_ne(spawn_at(g, "giant rat", -3, 1), HANDLE_NONE);
    key(g, 'x');
    key(g, KEY_TAB);
    ck_assert_int_eq(g->prompt, PROMPT_LOOK);
    ck_assert(g->cur_x == x + 2 && g->cur_y == y);
    ck_assert(shows(g, "A kobold ("));
    key(g, '+');
    ck_assert(g->cur_x == x - 3 && g->cur_y == y + 1);
    key(g, '-');
    ck_assert(g->cur_x == x + 2 && g->cur_y == y);
    ck_assert_int_eq(g->prompt, PROMPT_LOOK);
    game_free(g);
}
END_TEST

/* The kill that earns a level puts "Welcome to experience level 3!" on a
 * --More-- that only Space, Enter or Esc pass: moves typed ahead of the
 * kill (l, b, a) choose nothing, on any of its pages, and take no time; then the gift screen,
 * which counts the choices only when more than one is owed. */
START_TEST(level_up_waits_on_its_more)
{
    game_t *g = alone_in_room(C, 9, HUMAN, FIGHTER, 3);
    pc_gain_xp(g, pc_xp_for(2));
    for (int i = 0; i < 5 && g->prompt == PROMPT_WELCOME; i++)
        key(g, ' ');
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    g->pc.xp = pc_xp_for(3) - 1;
    handle_t m = spawn_at(g, "jackal", 1, 0);
    reg_get(&g->reg, m)->hp = 1;
    for (int i = 0; i < 60 && reg_get(&g->reg, m) && g->pc.xl < 3; i++)
        keys_paged(g, "l");
    ck_assert_int_eq(g->pc.xl, 3);
    ck_assert_int_eq(g->prompt, PROMPT_WELCOME);
    ck_assert(shows(g, "--More--"));
    uint64_t now = g->sched.now;
    keys(g, "lba\t");
    ck_assert_int_eq(g->prompt, PROMPT_WELCOME);
    ck_assert_int_eq(g->pc.choices, 1);
    ck_assert_int_eq(g->pc.pick_hp + g->pc.pick_hit + g->pc.pick_def, 0);
    ck_assert_uint_eq(g->sched.now, now);
    for (int i = 0; i < 5 && !shows(g, "Welcome to experience level 3!"); i++)
        key(g, ' '); /* the kill's words first, a line a key */
    ck_assert(shows(g, "Welcome to experience level 3! --More--"));
    keys(g, "ba");
    ck_assert_int_eq(g->prompt, PROMPT_WELCOME);
    ck_assert_int_eq(g->pc.choices, 1);
    key(g, KEY_ESC); /* passes the --More--; the choice still waits */
    ck_assert_int_eq(g->prompt, PROMPT_LEVELUP);
    ck_assert(shows(g, "Experience level 3: choose a gift "));
    ck_assert(!shows(g, "to choose"));
    key(g, 'b');
    ck_assert_int_eq(g->pc.pick_hit, 1);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    game_free(g);
    g = alone(C, 9, HUMAN, WIZARD);
    pc_gain_xp(g, pc_xp_for(2));
    for (int i = 0; i < 5 && g->prompt == PROMPT_WELCOME; i++)
        key(g, KEY_ENTER);
    ck_assert_int_eq(g->prompt, PROMPT_LEVELUP);
    ck_assert(shows(g, "Experience level 2: pick a spell to learn "));
    ck_assert(!shows(g, "to pick"));
    game_free(g);
}
END_TEST

/* The player's death: "You die..." on --More--, which takes the player's
 * key (game_status_t.more); after it the game is over and keys do
 * nothing. */
START_TEST(death_waits_on_more)
{
    game_t *g = alone_in_room(C, 9, HUMAN, WIZARD, 3);
    handle_t m = spawn_at(g, "ogre", 1, 0);
    reg_get(&g->reg, m)->flags |= OF_AWARE;
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = 1;
    for (int i = 0; i < 50 && g->state == GAME_RUNNING; i++)
        keys_paged(g, "s");
    ck_assert_int_eq(g->state, GAME_DEAD);
    game_status_t st;
    game_status(g, &st);
    ck_assert(st.more);
    ck_assert_int_eq(g->prompt, PROMPT_MORE);
    ck_assert(shows(g, "You die..."));
    ck_assert(shows(g, "--More--"));
    uint64_t h = game_hash(g);
    uint32_t n = g->nmsg;
    key(g, ' ');
    game_status(g, &st);
    ck_assert(!st.more);
    ck_assert_int_eq(st.state, GAME_DEAD);
    ck_assert(!shows(g, "--More--"));
    key(g, 'h');
    ck_assert_uint_eq(g->nmsg, n);
    ck_assert_int_eq(g->state, GAME_DEAD);
    (void)h;
    game_free(g);
}
END_TEST

/* The dump of a game quit after a door's question: what happened, never
 * "Really quit?" nor "in which direction?"; both questions were shown. */
START_TEST(the_dump_holds_no_questions)
{
    game_t *g = alone(C, 11, HUMAN, FIGHTER);
    key(g, 'c');
    ck_assert(shows(g, "Close in which direction?"));
    key(g, KEY_ESC);
    key(g, 'Q');
    ck_assert(shows(g, "Really quit? This ends the game for good. (y/n)"));
    key(g, 'n');
    key(g, 'Q');
    key(g, 'y');
    ck_assert_int_eq(g->state, GAME_QUIT);
    buf_t d;
    buf_init(&d);
    game_dump(g, &d);
    ck_assert_ptr_nonnull(d.data);
    ck_assert_msg(!strstr(d.data, "Really quit"), "%s", d.data);
    ck_assert(!strstr(d.data, "which direction"));
    ck_assert(strstr(d.data, "Last messages:"));
    buf_free(&d);
    game_free(g);
}
END_TEST

/* C: the character sheet; \: the discoveries; both from ?, no time. */
START_TEST(sheet_and_discoveries)
{
    game_t *g = alone(C, 13, HUMAN, WIZARD);
    uint64_t now = g->sched.now;
    key(g, 'C');
    ck_assert_int_eq(g->prompt, PROMPT_SHEET);
    ck_assert(shows(g, "Character sheet"));
    ck_assert(shows(g, "the human wizard,")); /* a row too long wraps, to keep the box narrow */
    ck_assert(shows(g, "experience level 1 (0 xp)"));
    ck_assert(shows(g, "Fort "));
    ck_assert(shows(g, "Spells: "));
    key(g, ' ');
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    uint16_t heal = item_named(C, "potion of healing"), speed = item_named(C, "potion of speed");
    ident_learn(g, heal);
    ident_learn(g, speed);
    key(g, '\\');
    ck_assert_int_eq(g->prompt, PROMPT_DISCOVERIES);
    ck_assert(shows(g, "Discoveries"));
    char was[64], pl[64], line[160];
    ident_flavour_name(g, heal, was, sizeof was, pl, sizeof pl);
    snprintf(line, sizeof line, "potion of healing, the %s", was);
    ck_assert_msg(shows(g, line), "no '%s'", line);
    ck_assert(shows(g, "Potions: "));
    ck_assert(!shows(g, "potion of extra healing"));
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert(g->sched.now == now);
    keys(g, "?f"); /* help's "What you know" */
    ck_assert(shows(g, "character sheet") && shows(g, "discoveries"));
    game_free(g);
}
END_TEST

/* The column of row y of s where text starts, or -1. */
static int text_at(const screen_t *s, int y, const char *text)
{
    size_t n = strlen(text);
    for (int x = 0; x + (int)n <= s->w; x++) {
        size_t i = 0;
        while (i < n && screen_at(s, x + (int)i, y)->ch == (uint32_t)(unsigned char)text[i])
            i++;
        if (i == n)
            return x;
    }
    return -1;
}

/* The kept frame (as a session draws it) into s; it must equal the frame
 * drawn from nothing. */
static void frame_into(game_t *g, screen_t *s)
{
    game_view_t v = {0};
    render_world(g, s, &v);
    screen_t *whole = screen_new(s->w, s->h);
    render_full(g, whole, &v);
    for (int i = 0; i < s->w * s->h; i++)
        ck_assert_msg(cell_eq(&s->cells[i], &whole->cells[i]), "kept frame differs at %d,%d",
                      i % s->w, i / s->w);
    screen_free(whole);
}

/* Lists (inventory, equipment, discoveries, the sheet, the message
 * history) sit over the map's right side as NetHack's menus do: the
 * frame changes only in a box right of a blank column, the status and
 * help lines stay, and Esc brings the frame back as it was; help's menu
 * of topics and a topic's page too. A list too wide for the screen (the
 * topic at 40 columns) fills the screen as before; the sheet's rows wrap
 * to fit beside the map even there. */
START_TEST(lists_sit_over_the_map)
{
    static const struct {
        const char *keys;
        int w;
        const char *title;
        bool boxed;
    } LISTS[] = {{"i", 80, "Inventory", true},           {"e", 80, "Equipment", true},
                 {"\\", 80, "Discoveries", true},        {"C", 80, "Character sheet", true},
                 {"\x10", 80, "Message history", true},  {"?", 80, "Help: which topic?", true},
                 {"?c", 80, "Items (Esc: topics", true}, {"?", 40, "Help: which topic?", true},
                 {"e", 50, "Equipment", true}, /* its figures wrapped to fit */
                 {"C", 40, "Character sheet", true},     {"?c", 40, "Items (Esc: topics", false}};
    game_t *g = alone(C, 13, HUMAN, WIZARD);
    key(g, KEY_ESC); /* the messages of the way down read */
    for (size_t l = 0; l < sizeof LISTS / sizeof LISTS[0]; l++) {
        screen_t *before = screen_new(LISTS[l].w, 24), *up = screen_new(LISTS[l].w, 24);
        for (int i = 0; i < 4; i++) /* the kept frame takes a new size after a few calls */
            frame_into(g, before);
        keys(g, LISTS[l].keys);
        frame_into(g, up);
        int x0 = text_at(up, 0, LISTS[l].title) - 1;
        ck_assert_msg(LISTS[l].boxed ? x0 > 0 : x0 == -1, "%s drawn from column %d", LISTS[l].title,
                      x0 + 1);
        for (int y = 0; LISTS[l].boxed && y < up->h; y++)
            for (int x = 0; x < (y < up->h - 2 ? x0 : up->w); x++)
                ck_assert_msg(cell_eq(screen_at(up, x, y), screen_at(before, x, y)),
                              "%s changed %d,%d, left of its box or below it", LISTS[l].title, x,
                              y);
        key(g, KEY_ESC);
        if (g->prompt == PROMPT_HELP) /* from a topic, Esc goes back to the topics */
            key(g, KEY_ESC);
        screen_t *after = screen_new(LISTS[l].w, 24);
        frame_into(g, after);
        for (int i = 0; i < after->w * after->h; i++)
            ck_assert_msg(cell_eq(&after->cells[i], &before->cells[i]), "%s left %d,%d changed",
                          LISTS[l].title, i % after->w, i / after->w);
        screen_free(before), screen_free(up), screen_free(after);
    }
    game_free(g);
}
END_TEST

/* The message history's box keeps its place from page to page: as wide
 * as its widest line on any page, so paging does not move it over the map
 * (a page of short messages after one of long ones). */
START_TEST(history_box_keeps_its_width_on_every_page)
{
    game_t *g = alone(C, 13, HUMAN, WIZARD);
    key(g, KEY_ESC);
    msg_add(g, "A long message of some forty-odd letters, and more.");
    for (int i = 0; i < 3 * PAGE_ROWS; i++)
        msg_add(g, "Short %d.", i % 2); /* alternating: none fold into (xN) */
    key(g, KEY_ESC);
    screen_t *s = screen_new(80, 24);
    for (int i = 0; i < 4; i++)
        frame_into(g, s);
    key(g, 0x10);
    int first = -1;
    for (int page = 0; page < 4; page++) {
        frame_into(g, s);
        int x0 = text_at(s, 0, "Message history");
        ck_assert_msg(x0 > 1, "page %d drawn from column %d", page + 1, x0);
        if (first < 0)
            first = x0;
        ck_assert_msg(x0 == first, "page %d from column %d, page 1 from %d", page + 1, x0, first);
        if (page < 3)
            key(g, ' ');
    }
    screen_free(s);
    game_free(g);
}
END_TEST

Suite *suite_game_screens(void)
{
    Suite *s = suite_create("game_screens");
    TCase *t = tcase_create("screens");
    with_shipped_content(t);
    tcase_add_test(t, explore_always_says_why_it_stops);
    tcase_add_test(t, travel_says_why_it_cannot_start);
    tcase_add_test(t, explore_says_who_is_in_the_way);
    tcase_add_test(t, look_shows_the_whole_description);
    tcase_add_test(t, look_tabs_between_creatures);
    tcase_add_test(t, look_shows_its_own_keys);
    tcase_add_test(t, death_waits_on_more);
    tcase_add_test(t, the_dump_holds_no_questions);
    tcase_add_test(t, sheet_and_discoveries);
    tcase_add_test(t, lists_sit_over_the_map);
    tcase_add_test(t, history_box_keeps_its_width_on_every_page);
    tcase_add_test(t, level_up_waits_on_its_more);
    suite_add_tcase(s, t);
    return s;
}
