/* Unit tests: doors and traps — locked and secret doors and traps laid
 * on new levels never cut a level apart, searching finds what is hidden,
 * traps spring under the player (each action does what it says), and the
 * door commands close, lock, pick and kick. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "helpers.h"
#include "level.h"
#include "mapgen.h"
#include "prompt.h"
#include "snapshot.h"
#include "start.h"
#include "trap.h"
#include "world.h"

static int trap_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_traps; i++)
        if (!strcmp(c->traps[i].name, name))
            return i;
    ck_abort_msg("no trap kind %s", name);
    return -1;
}

/* Walkable cells without a trap reached from the up stairs without
 * stepping on a trap, against all of them. */
static bool level_whole(game_t *g, const level_t *lv)
{
    int n = lv->w * lv->h, open = 0, reached = 0, head = 0, tail = 0;
    ck_assert(n > 0 && n <= MAPGEN_MAX_W * MAPGEN_MAX_H);
    int *q = calloc((size_t)n, sizeof *q);
    char *seen = calloc((size_t)n, 1);
    ck_assert(q && seen);
    for (int i = 0; i < n; i++)
        open += !lv->trap[i] && level_walkable(g, lv, i % lv->w, i / lv->w);
    q[tail++] = lv->up_y * lv->w + lv->up_x;
    seen[q[0]] = 1;
    while (head < tail) {
        int c = q[head++];
        reached++;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int x = c % lv->w + dx, y = c / lv->w + dy, nc = y * lv->w + x;
                if (level_in(lv, x, y) && !seen[nc] && !lv->trap[nc] && level_walkable(g, lv, x, y))
                    seen[nc] = 1, q[tail++] = nc;
            }
    }
    free(q);
    free(seen);
    return reached == open;
}

START_TEST(hidden_doors_and_traps_keep_levels_whole)
{
    int locked = 0, secret = 0, traps = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = game_new(C, seed, NULL);
        ck_assert_ptr_nonnull(g);
        for (int d = 1; d <= 12; d++) {
            level_t *lv = level_new(g, MAPGEN_DEFAULT_W, MAPGEN_DEFAULT_H, d);
            ck_assert_int_eq(level_generate(g, lv), 0);
            for (int i = 0; i < lv->w * lv->h; i++) {
                locked += lv->terrain[i] == MAP_DOOR_LOCKED;
                secret += lv->terrain[i] == MAP_DOOR_SECRET;
                if (lv->trap[i]) {
                    traps++;
                    ck_assert(!(lv->trap[i] & TRAP_FOUND));
                    ck_assert(lv->terrain[i] == MAP_FLOOR || lv->terrain[i] == MAP_CORRIDOR);
                    int k = (lv->trap[i] & TRAP_KIND) - 1;
                    ck_assert(d >= C->traps[k].min_depth && d <= C->traps[k].max_depth);
                }
            }
            ck_assert_msg(level_whole(g, lv), "seed %d depth %d cut apart", (int)seed, d);
            level_free(g, lv);
        }
        game_free(g);
    }
    ck_assert_int_gt(locked, 0);
    ck_assert_int_gt(secret, 0);
    ck_assert_int_gt(traps, 4 * 12 * 2);
    ck_assert_int_ge(C->n_traps, 8);
}
END_TEST

START_TEST(searching_finds_secret_doors_and_traps)
{
    game_t *g = alone(C, 7, 0, 0);
    open_room(g, 3);
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int door = p->y * lv->w + p->x + 1, trap = (p->y + 1) * lv->w + p->x;
    lv->terrain[door] = MAP_DOOR_SECRET;
    lv->trap[trap] = (uint8_t)(trap_named(C, "dart trap") + 1);
    ck_assert_int_eq(trap_search(g, 0), 0);
    ck_assert_int_eq(lv->terrain[door], MAP_DOOR_SECRET);
    ck_assert_int_eq(trap_at(lv, p->x, p->y + 1, true), -1);
    ck_assert_int_eq(trap_search(g, 100), 2);
    ck_assert_int_eq(lv->terrain[door], MAP_DOOR_CLOSED);
    ck_assert_int_eq(trap_at(lv, p->x, p->y + 1, true), trap_named(C, "dart trap"));
    /* waiting searches: a trap beside the player is found in time */
    lv->trap[trap] &= TRAP_KIND;
    ck_assert_int_gt(trap_search_chance(g, true), trap_search_chance(g, false));
    for (int i = 0; i < 200 && !(lv->trap[trap] & TRAP_FOUND); i++)
        keys_paged(g, ".");
    ck_assert(lv->trap[trap] & TRAP_FOUND);
    /* what is found is named as a trap */
    lv->trap[trap] = (uint8_t)(trap_named(C, "alarm trap") + 1);
    ck_assert_int_eq(trap_search(g, 100), 1);
    ck_assert_str_eq(last_msg(g), "You find an alarm trap.");
    game_free(g);
}
END_TEST

/* A search looks at the square round the player clipped to the map: at
 * the corners and edges every cell of it and none past it, in rows from
 * the top (the same draws of the dice; a detection finds all within its
 * radius): hidden traps everywhere, the cells found are the ones a
 * reference walk of the square picks. */
START_TEST(searching_covers_the_square_to_the_map_edges)
{
    game_t *g = alone(C, 7, 0, 0);
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int n = lv->w * lv->h, dart = trap_named(C, "dart trap") + 1;
    const int at[][3] = {{0, 0, 2},
                         {1, 1, 2},
                         {lv->w - 1, lv->h - 1, 2},
                         {lv->w - 2, lv->h - 1, 1},
                         {lv->w - 1, 0, 3},
                         {0, lv->h - 2, 1},
                         {10, 5, 2}};
    for (int k = 0; k < (int)(sizeof at / sizeof at[0]); k++)
        for (int chance = at[k][2] == 1 ? 50 : 100; chance <= 100; chance += 50) {
            for (int i = 0; i < n; i++) {
                lv->terrain[i] = MAP_FLOOR;
                lv->trap[i] = (uint8_t)dart;
            }
            p->x = (int16_t)at[k][0], p->y = (int16_t)at[k][1];
            reg_refile(&g->reg, g->player);
            int r = at[k][2], want = 0;
            rng_t dice = g->play;
            uint8_t *found = calloc((size_t)n, 1);
            for (int y = p->y - r; y <= p->y + r; y++)
                for (int x = p->x - r; x <= p->x + r; x++)
                    if (x >= 0 && y >= 0 && x < lv->w && y < lv->h && rng_percent(&dice, chance))
                        found[y * lv->w + x] = 1, want++;
            ck_assert_int_eq(r == 1 ? trap_search(g, chance) : trap_detect(g, r), want);
            for (int i = 0; i < n; i++)
                ck_assert_msg(!(lv->trap[i] & TRAP_FOUND) == !found[i],
                              "player at %d,%d radius %d: cell %d,%d", p->x, p->y, r, i % lv->w,
                              i / lv->w);
            free(found);
        }
    game_free(g);
}
END_TEST

/* Every trap found reads as a thing found ("You find a confusion gas
 * trap.", not "You find a confusion gas."): its name ends in a word for
 * a trap. */
START_TEST(trap_names_say_what_they_are)
{
    static const char *const END[] = {" trap", "pit", " rune", " needle", "trap door"};
    for (int i = 0; i < C->n_traps; i++) {
        const char *name = C->traps[i].name;
        size_t len = strlen(name);
        bool ok = false;
        for (size_t e = 0; e < sizeof END / sizeof *END; e++)
            ok |= len >= strlen(END[e]) && !strcmp(name + len - strlen(END[e]), END[e]);
        ck_assert_msg(ok, "\"You find a %s.\"", name);
    }
}
END_TEST

/* The player, in an open room, steps right onto a trap of the named kind. */
static game_t *step_on(content_t *c, const char *name, bool found, uint64_t seed)
{
    game_t *g = alone(c, seed, 0, 0);
    open_room(g, 3);
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    lv->trap[p->y * lv->w + p->x + 1] =
        (uint8_t)((trap_named(c, name) + 1) | (found ? TRAP_FOUND : 0));
    lv->traps_found = found; /* written behind find_at's back */
    return g;
}

START_TEST(traps_spring)
{
    game_t *g = step_on(C, "fire rune", false, 11);
    obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, hp = p->hp;
    uint32_t from = g->nmsg;
    keys_paged(g, "l");
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->x, x + 1);
    ck_assert(said_since(g, from, "bursts into flame"));
    ck_assert(p->hp < hp || g->state == GAME_DEAD);
    ck_assert_int_ge(trap_at(level_current(g), p->x, p->y, true), 0); /* now known */
    game_free(g);

    g = step_on(C, "trap door", false, 11);
    keys_paged(g, "l");
    ck_assert_int_eq(g->depth, 2);
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->depth, 2);
    game_free(g);

    g = step_on(C, "teleport trap", false, 11);
    p = reg_get(&g->reg, g->player);
    x = p->x;
    int y = p->y;
    keys_paged(g, "l");
    p = reg_get(&g->reg, g->player);
    ck_assert(p->x != x + 1 || p->y != y);
    game_free(g);

    g = step_on(C, "confusion gas trap", false, 11);
    keys_paged(g, "l");
    ck_assert(said_since(g, 0, "purple gas"));
    game_free(g);
}
END_TEST

/* A dart or a pit says what it did: the damage taken, matching the hit
 * points lost, or that armour turned it ("You shrug off the blow."). */
START_TEST(damage_traps_say_what_they_did)
{
    static const char *const NAMES[] = {"dart trap", "pit"};
    int hurt = 0;
    for (int i = 0; i < 20; i++) {
        game_t *g = step_on(C, NAMES[i % 2], false, 300 + (uint64_t)i);
        obj_t *p = reg_get(&g->reg, g->player);
        int hp = p->hp;
        uint32_t from = g->nmsg;
        keys_paged(g, "l");
        p = reg_get(&g->reg, g->player);
        char said[32];
        snprintf(said, sizeof said, "You take %d damage.", hp - p->hp);
        if (p->hp < hp)
            hurt++;
        ck_assert_msg(p->hp < hp ? said_since(g, from, said) : said_since(g, from, "shrug off"),
                      "%s: hp %d -> %d, last: %s", NAMES[i % 2], hp, p->hp, last_msg(g));
        game_free(g);
    }
    ck_assert_int_gt(hurt, 0);
}
END_TEST

START_TEST(known_traps_are_stepped_over_sometimes)
{
    int over = 0, sprung = 0;
    for (int i = 0; i < 40; i++) {
        game_t *g = step_on(C, "alarm trap", true, 100 + (uint64_t)i);
        uint32_t from = g->nmsg;
        keys_paged(g, "l");
        over += said_since(g, from, "step carefully");
        sprung += said_since(g, from, "alarm rings");
        game_free(g);
    }
    ck_assert_int_eq(over + sprung, 40);
    ck_assert_int_gt(over, 0);
    ck_assert_int_gt(sprung, 0);
}
END_TEST

/* What the 80x24 view draws right of the player ('@'). */
static uint32_t glyph_right_of_player(game_t *g)
{
    screen_t *s = screen_new(80, 24);
    game_render(g, s, NULL);
    uint32_t ch = 0;
    for (int y = 1; y < 22 && !ch; y++)
        for (int x = 0; x + 1 < 80 && !ch; x++)
            if (screen_at(s, x, y)->ch == '@')
                ch = screen_at(s, x + 1, y)->ch;
    screen_free(s);
    return ch;
}

START_TEST(door_commands)
{
    game_t *g = alone(C, 5, 0, 0);
    open_room(g, 3);
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int x = p->x, i = p->y * lv->w + p->x + 1;
    lv->terrain[i] = MAP_DOOR_OPEN;
    keys_paged(g, "cl");
    ck_assert_int_eq(lv->terrain[i], MAP_DOOR_CLOSED);
    keys_paged(g, "\x0cl"); /* ^L */
    ck_assert_int_eq(lv->terrain[i], MAP_DOOR_LOCKED);
    uint64_t now = g->sched.now;
    keys_paged(g, "l"); /* a locked door: no way through, no time lost */
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->x, x);
    ck_assert_uint_eq(g->sched.now, now);
    ck_assert(said_since(g, 0, "locked"));
    ck_assert(said_since(g, 0, "^D kicks, ^L picks")); /* K and L run */
    keys_paged(g, "cz");                               /* not a direction: cancelled */
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    for (int k = 0; k < 60 && lv->terrain[i] == MAP_DOOR_LOCKED; k++)
        keys_paged(g, "\x04l"); /* ^D */
    ck_assert_int_eq(lv->terrain[i], MAP_DOOR_BROKEN);
    ck_assert_uint_eq(glyph_right_of_player(g), '.'); /* a doorway, not an open door */
    uint32_t from = g->nmsg;
    keys_paged(g, "cl"); /* broken for good */
    ck_assert_int_eq(lv->terrain[i], MAP_DOOR_BROKEN);
    keys_paged(g, "\x0cl");
    ck_assert_int_eq(lv->terrain[i], MAP_DOOR_BROKEN);
    ck_assert(said_since(g, from, "That door is broken."));
    keys_paged(g, "l");
    ck_assert_int_eq(reg_get(&g->reg, g->player)->x, x + 1);
    game_free(g);

    g = alone(C, 5, 0, 1); /* a rogue picks locks */
    open_room(g, 3);
    p = reg_get(&g->reg, g->player);
    lv = level_current(g);
    i = p->y * lv->w + p->x + 1;
    lv->terrain[i] = MAP_DOOR_LOCKED;
    for (int k = 0; k < 60 && lv->terrain[i] == MAP_DOOR_LOCKED; k++)
        keys_paged(g, "\x0cl"); /* ^L */
    ck_assert_int_eq(lv->terrain[i], MAP_DOOR_CLOSED);
    game_free(g);
}
END_TEST

START_TEST(traps_are_saved)
{
    game_t *g = step_on(C, "pit", false, 11);
    uint64_t h = snapshot_hash(g);
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    lv->trap[p->y * lv->w + p->x + 1] |= TRAP_FOUND;
    ck_assert_uint_ne(snapshot_hash(g), h);
    game_free(g);
}
END_TEST

/* A found trap shows as '^' where it lies; one not found yet does not. */
START_TEST(found_traps_are_drawn)
{
    for (int found = 0; found < 2; found++) {
        game_t *g = step_on(C, "pit", found, 11);
        screen_t *s = screen_new(80, 24);
        game_render(g, s, NULL);
        int carets = 0, beside = 0;
        for (int i = 0; i < 80 * 24; i++) {
            carets += s->cells[i].ch == '^';
            beside += s->cells[i].ch == '@' && i + 1 < 80 * 24 && s->cells[i + 1].ch == '^';
        }
        ck_assert_int_eq(carets, found);
        ck_assert_int_eq(beside, found);
        screen_free(s);
        game_free(g);
    }
}
END_TEST

static int carets_drawn(game_t *g)
{
    screen_t *s = screen_new(80, 24);
    game_render(g, s, NULL);
    int n = 0;
    for (int i = 0; i < 80 * 24; i++)
        n += s->cells[i].ch == '^';
    screen_free(s);
    return n;
}

/* The render looks for found traps only on a level that has one
 * (level_t.traps_found): a trap found by a search is drawn at once, and
 * again in the game loaded from a snapshot (the flag is not saved). */
START_TEST(found_traps_drawn_once_found_and_after_a_load)
{
    game_t *g = alone(C, 7, 0, 0);
    open_room(g, 3);
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    lv->trap[p->y * lv->w + p->x + 1] = (uint8_t)(trap_named(C, "dart trap") + 1);
    ck_assert_int_eq(carets_drawn(g), 0);
    ck_assert_int_eq(trap_search(g, 100), 1);
    ck_assert_int_eq(carets_drawn(g), 1);
    game_t *back = reloaded(g);
    ck_assert_int_eq(carets_drawn(back), 1);
    game_free(back);
    game_free(g);
}
END_TEST

/* A found trap is drawn wherever it lies in the view's columns: each
 * column in turn, the view starting and ending off an 8-cell boundary. */
START_TEST(found_traps_drawn_in_every_column)
{
    game_t *g = step_on(C, "pit", false, 11);
    level_t *lv = level_current(g);
    const int ox = 3, vw = 37, y = 2, top = 1;
    uint8_t pit = (uint8_t)((trap_named(C, "pit") + 1) | TRAP_FOUND);
    memset(lv->trap, 0, (size_t)lv->w * (size_t)lv->h);
    lv->traps_found = 1; /* written behind find_at's back */
    for (int x = 0; x < lv->w && x < ox + vw + 9; x++) {
        lv->trap[y * lv->w + x] = pit;
        screen_t *s = screen_new(80, 24);
        trap_render(g, s, ox, 0, vw, 10, top, 1);
        int carets = 0;
        for (int i = 0; i < 80 * 24; i++)
            carets += s->cells[i].ch == '^';
        bool in = x >= ox && x < ox + vw;
        ck_assert_msg(carets == (in ? 1 : 0), "column %d: %d drawn", x, carets);
        if (in)
            ck_assert_int_eq(s->cells[(top + y) * 80 + (x - ox)].ch, '^');
        screen_free(s);
        lv->trap[y * lv->w + x] = 0;
    }
    game_free(g);
}
END_TEST

/* A found trap is drawn on whichever of the view's rows it lies, at the
 * view's first and last column (the last cell of the view's last row ends
 * the bytes trap_render looks through first); a found trap just past the
 * view's right edge, between its rows, is not drawn. */
START_TEST(found_traps_drawn_in_every_row)
{
    game_t *g = step_on(C, "pit", false, 11);
    level_t *lv = level_current(g);
    const int ox = 3, vw = 37, oy = 2, vh = 10, top = 1;
    uint8_t pit = (uint8_t)((trap_named(C, "pit") + 1) | TRAP_FOUND);
    memset(lv->trap, 0, (size_t)lv->w * (size_t)lv->h);
    lv->traps_found = 1; /* written behind find_at's back */
    for (int y = 0; y < lv->h; y++)
        for (int end = 0; end < 3; end++) {
            int x = end == 0 ? ox : end == 1 ? ox + vw - 1 : ox + vw; /* 2: past the edge */
            lv->trap[y * lv->w + x] = pit;
            screen_t *s = screen_new(80, 24);
            trap_render(g, s, ox, oy, vw, vh, top, 1);
            int carets = 0;
            for (int i = 0; i < 80 * 24; i++)
                carets += s->cells[i].ch == '^';
            bool in = y >= oy && y < oy + vh && end < 2;
            ck_assert_msg(carets == (in ? 1 : 0), "row %d column %d: %d drawn", y, x, carets);
            if (in)
                ck_assert_int_eq(s->cells[(top + y - oy) * 80 + (x - ox)].ch, '^');
            screen_free(s);
            lv->trap[y * lv->w + x] = 0;
        }
    game_free(g);
}
END_TEST

/* The rows a search reads (level_t.hidden_rows, derived): every row with
 * a secret door or a trap not found has its bit, on a level made (traps
 * laid after a search had looked at it empty), after a secret door is
 * made beside the player, and in the game loaded from a snapshot. */
static void hidden_rows_cover(level_t *lv, const char *when)
{
    uint64_t rows = trap_hidden_rows(lv);
    for (int y = 0; y < lv->h && y < LEVEL_DIRTY_ROWS; y++)
        for (int x = 0; x < lv->w; x++) {
            int i = y * lv->w + x;
            bool hidden = lv->terrain[i] == MAP_DOOR_SECRET ||
                          ((lv->trap[i] & TRAP_KIND) && !(lv->trap[i] & TRAP_FOUND));
            ck_assert_msg(!hidden || (rows >> y & 1), "%s: row %d left out", when, y);
        }
}

START_TEST(searches_read_the_rows_with_something_hidden)
{
    game_t *g = game_new(C, 5, NULL);
    ck_assert_ptr_nonnull(g);
    int hidden = 0;
    for (int d = 1; d <= 8; d++) {
        level_t *lv = level_new(g, MAPGEN_DEFAULT_W, MAPGEN_DEFAULT_H, d);
        ck_assert_int_eq(trap_hidden_rows(lv), 0); /* looked at while empty */
        ck_assert_int_eq(level_generate(g, lv), 0);
        for (int i = 0; i < lv->w * lv->h; i++)
            hidden += lv->terrain[i] == MAP_DOOR_SECRET || (lv->trap[i] & TRAP_KIND);
        hidden_rows_cover(lv, "made");
        level_free(g, lv);
    }
    ck_assert_int_gt(hidden, 8);
    game_free(g);

    g = alone(C, 7, 0, 0);
    open_room(g, 3);
    const obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    ck_assert_int_eq(trap_search(g, 100), 0);
    ck_assert_int_eq(trap_hidden_rows(lv) >> p->y & 1, 0);
    level_set_terrain(lv, p->y * lv->w + p->x + 1, MAP_DOOR_SECRET);
    hidden_rows_cover(lv, "a secret door made");
    ck_assert_int_eq(trap_search(g, 100), 1);
    ck_assert_int_eq(lv->terrain[p->y * lv->w + p->x + 1], MAP_DOOR_CLOSED);
    level_set_terrain(lv, (p->y - 1) * lv->w + p->x, MAP_DOOR_SECRET);
    game_t *back = reloaded(g);
    hidden_rows_cover(level_current(back), "loaded");
    ck_assert_int_eq(trap_search(back, 100), 1);
    game_free(back);
    game_free(g);
}
END_TEST

Suite *suite_game_trap(void)
{
    Suite *s = suite_create("game_trap");
    TCase *t = tcase_create("trap");
    with_shipped_content(t);
    tcase_add_test(t, hidden_doors_and_traps_keep_levels_whole);
    tcase_add_test(t, searching_finds_secret_doors_and_traps);
    tcase_add_test(t, searching_covers_the_square_to_the_map_edges);
    tcase_add_test(t, trap_names_say_what_they_are);
    tcase_add_test(t, traps_spring);
    tcase_add_test(t, damage_traps_say_what_they_did);
    tcase_add_test(t, known_traps_are_stepped_over_sometimes);
    tcase_add_test(t, door_commands);
    tcase_add_test(t, traps_are_saved);
    tcase_add_test(t, found_traps_drawn_in_every_column);
    tcase_add_test(t, found_traps_drawn_in_every_row);
    tcase_add_test(t, found_traps_are_drawn);
    tcase_add_test(t, found_traps_drawn_once_found_and_after_a_load);
    tcase_add_test(t, searches_read_the_rows_with_something_hidden);
    suite_add_tcase(s, t);
    return s;
}
