/* game_run — running with shifted hjklyubn (travel.h: travel_run): one
 * key, many steps, stopping where a player would want to look. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "item.h"
#include "level.h"
#include "prompt.h"
#include "sched.h"
#include "render.h"
#include "screen.h"
#include "travel.h"
#include "turn.h"
#include "vision.h"

/* The player moved to (x, y) of its level. */
static void put_player(game_t *g, int x, int y)
{
    obj_t *p = reg_get(&g->reg, g->player);
    p->x = (int16_t)x, p->y = (int16_t)y;
    reg_refile(&g->reg, g->player);
    vision_update(g);
}

static const obj_t *player(const game_t *g)
{
    return reg_get(&g->reg, g->player);
}

/* A room of radius 4 with nothing on its floor, the player at its middle:
 * its middle's x and y in *cx, *cy. */
static game_t *bare_room(int *cx, int *cy)
{
    game_t *g = alone_in_room(C, 5, 0, 0, 4);
    const obj_t *p = player(g);
    *cx = p->x, *cy = p->y;
    for (int y = *cy - 4; y <= *cy + 4; y++)
        for (int x = *cx - 4; x <= *cx + 4; x++)
            for (handle_t h; (h = item_floor_at(g, g->depth, x, y));)
                item_detach(g, h);
    return g;
}

START_TEST(a_run_crosses_a_room_to_its_wall)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    uint64_t t0 = g->sched.now;
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, cx + 4); /* the last floor before the wall */
    ck_assert_int_eq(player(g)->y, cy);
    ck_assert_uint_ge(g->sched.now - t0, 4 * SCHED_MOVE);
    key(g, 'Y'); /* diagonally, to the corner */
    ck_assert_int_eq(player(g)->x, cx);
    ck_assert_int_eq(player(g)->y, cy - 4);
    t0 = g->sched.now;
    key(g, 'K'); /* into the wall: no step, no time */
    ck_assert_int_eq(player(g)->y, cy - 4);
    ck_assert_uint_eq(g->sched.now, t0);
    game_free(g);
}
END_TEST

START_TEST(a_run_stops_on_an_item_and_beside_a_door)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    item_new(g, item_named(g->c, "dagger"), 1, HANDLE_NONE, g->depth, cx + 2, cy, NULL);
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, cx + 2); /* on the dagger */
    level_t *lv = level_current(g);
    lv->terrain[(cy - 5) * lv->w + cx] = MAP_DOOR_CLOSED; /* in the top wall */
    lv->opaque_ok = 0;
    put_player(g, cx - 4, cy - 4);
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, cx - 1); /* the door comes up at its side */
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, cx + 4); /* passed, it runs on */
    game_free(g);
}
END_TEST

START_TEST(a_run_stops_on_stairs_ahead_not_before_them)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    level_t *lv = level_current(g);
    lv->terrain[cy * lv->w + cx + 3] = MAP_STAIRS_DOWN;
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, cx + 3);
    game_free(g);
}
END_TEST

/* Corridor cells laid from (x, y): n steps each way of dirs (dx, dy
 * pairs, 0 0 ends), rock all round them first; all known. */
static void corridor(game_t *g, int x, int y, const int *dirs)
{
    level_t *lv = level_current(g);
    for (int yy = y - 8; yy <= y + 8; yy++)
        for (int xx = x - 2; xx <= x + 14; xx++)
            lv->terrain[yy * lv->w + xx] = MAP_ROCK;
    lv->terrain[y * lv->w + x] = MAP_CORRIDOR;
    lv->seen[y * lv->w + x] = 1;
    for (const int *d = dirs; d[2]; d += 3)
        for (int i = 0; i < d[2]; i++) {
            x += d[0], y += d[1];
            lv->terrain[y * lv->w + x] = MAP_CORRIDOR;
            lv->seen[y * lv->w + x] = 1;
        }
    lv->opaque_ok = 0;
}

/* A game alone in a known corridor from (*x, *y): 5 east, 4 north,
 * 2 north-east. */
static game_t *bends(int *x, int *y)
{
    game_t *g = alone(C, 5, 0, 0);
    clear_monsters(g);
    level_t *lv = level_current(g);
    *x = lv->w / 2 - 6, *y = lv->h / 2;
    corridor(g, *x, *y, (const int[]){1, 0, 5, 0, -1, 4, 1, -1, 2, 0, 0, 0});
    return g;
}

START_TEST(a_run_follows_a_corridor_round_its_bends)
{
    int x, y;
    game_t *g = bends(&x, &y);
    put_player(g, x, y);
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, x + 7); /* east, north, then north-east to its end */
    ck_assert_int_eq(player(g)->y, y - 6);
    game_free(g);
}
END_TEST

/* Explore along a corridor known only where it begins: each step's way
 * is made from what is known then (the cells seen on the way are on it),
 * so one key takes the player round the bends to its far end. */
START_TEST(explore_goes_on_into_what_each_step_sees)
{
    int x, y;
    game_t *g = bends(&x, &y);
    level_t *lv = level_current(g);
    memset(lv->seen, 0, (size_t)lv->w * (size_t)lv->h);
    for (int i = 0; i <= 2; i++)
        lv->seen[y * lv->w + x + i] = 1;
    put_player(g, x, y);
    key(g, 'o');
    ck_assert_int_eq(player(g)->x, x + 7);
    ck_assert_int_eq(player(g)->y, y - 6);
    game_free(g);
}
END_TEST

START_TEST(a_run_stops_where_a_corridor_forks)
{
    game_t *g = alone(C, 5, 0, 0);
    clear_monsters(g);
    level_t *lv = level_current(g);
    int x = lv->w / 2 - 6, y = lv->h / 2;
    corridor(g, x, y, (const int[]){1, 0, 10, 0, 0, 0});
    lv->terrain[(y - 1) * lv->w + x + 4] = MAP_CORRIDOR; /* a side passage */
    lv->seen[(y - 1) * lv->w + x + 4] = 1;
    put_player(g, x, y);
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, x + 4); /* at the fork, not past it */
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, x + 10);
    game_free(g);
}
END_TEST

START_TEST(a_run_stops_for_a_monster_coming_into_view)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    put_player(g, cx - 4, cy);
    handle_t j = spawn_at(g, "giant newt", 8, 0);
    obj_t *o = reg_get(&g->reg, j);
    o->flags |= OF_AWARE;
    o->speed = 1; /* it stays put */
    key(g, 'L');  /* in view from the start and hunting: one step, then it stops */
    ck_assert_int_eq(player(g)->x, cx - 3);
    ck_assert_str_eq(last_msg(g), "You see a giant newt.");
    game_free(g);
}
END_TEST

/* All the monsters that stop a walk are named, a kind once with its
 * count, in one line that fits the message line with --More--. */
START_TEST(a_stop_names_every_monster_in_view)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    put_player(g, cx - 4, cy);
    static const struct {
        const char *name;
        int dx, dy;
    } WHO[] = {{"giant newt", 8, 0}, {"jackal", 8, -2}, {"jackal", 8, 2}};
    for (size_t i = 0; i < sizeof WHO / sizeof WHO[0]; i++) {
        obj_t *o = reg_get(&g->reg, spawn_at(g, WHO[i].name, WHO[i].dx, WHO[i].dy));
        o->flags |= OF_AWARE;
        o->speed = 1; /* they stay put */
    }
    key(g, 'L');
    ck_assert_int_eq(player(g)->x, cx - 3);
    ck_assert_str_eq(last_msg(g), "You see a giant newt and 2 jackals.");
    /* exploring will not start with them in view, and says so of all */
    uint64_t t0 = g->sched.now;
    key(g, 'o');
    ck_assert_uint_eq(g->sched.now, t0);
    ck_assert_str_eq(last_msg(g),
                     "Not with a giant newt and 2 jackals in view: fight or move by hand.");
    static const char *const MORE[] = {"kobold", "giant rat", "goblin", "cave spider",
                                       "orc",    "cave bat",  "wolf",   "giant centipede"};
    put_player(g, cx - 4, cy);
    for (int i = 0; i < (int)(sizeof MORE / sizeof MORE[0]); i++) {
        obj_t *o = reg_get(&g->reg, spawn_at(g, MORE[i], 2 + 2 * (i % 3), -3 + 2 * (i / 3)));
        o->flags |= OF_AWARE;
        o->speed = 1;
    }
    key(g, 'L');
    const char *m = last_msg(g);
    ck_assert_msg(strncmp(m, "You see a giant newt, 2 jackals, ", 33) == 0, "%s", m);
    ck_assert_msg(strstr(m, " and others.") != NULL, "%s", m);
    ck_assert_uint_le(strlen(m) + strlen(" --More--"), 80);
    game_free(g);
}
END_TEST

START_TEST(a_run_goes_along_a_pillared_hall)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    level_t *lv = level_current(g);
    for (int y = cy - 3; y <= cy + 3; y += 2)
        for (int x = cx - 3; x <= cx + 3; x += 2)
            lv->terrain[y * lv->w + x] = MAP_WALL;
    lv->opaque_ok = 0;
    put_player(g, cx + 4, cy - 4);
    key(g, 'H'); /* along the wall, pillars at its side */
    ck_assert_int_eq(player(g)->x, cx - 4);
    put_player(g, cx + 4, cy - 2);
    key(g, 'H'); /* down an aisle between rows of pillars */
    ck_assert_int_eq(player(g)->x, cx - 4);
    game_free(g);
}
END_TEST

START_TEST(travel_passes_what_was_seen_before)
{
    game_t *g = alone(C, 5, 0, 0);
    clear_monsters(g);
    level_t *lv = level_current(g);
    int x = lv->w / 2 - 6, y = lv->h / 2;
    corridor(g, x, y, (const int[]){1, 0, 8, 0, 0, 0});
    for (handle_t h; (h = item_floor_at(g, g->depth, x + 4, y));)
        item_detach(g, h);
    put_player(g, x, y);
    item_new(g, item_named(g->c, "dagger"), 1, HANDLE_NONE, g->depth, x + 4, y, NULL);
    keys(g, "_llllllll.");
    ck_assert_int_eq(player(g)->x, x + 4); /* new: it stops on it */
    ck_assert_str_eq(last_msg(g), "You see here a dagger.");
    keys(g, "_llll.");
    ck_assert_int_eq(player(g)->x, x + 8);
    keys(g, "_hhhhhhhh."); /* back over it: seen before, passed unsaid */
    ck_assert_int_eq(player(g)->x, x);
    keys(g, "L"); /* a run one way still stops on it */
    ck_assert_int_eq(player(g)->x, x + 4);
    ck_assert_str_eq(last_msg(g), "You see here a dagger.");
    game_free(g);
}
END_TEST

/* Whether o is drawn on g's 80x24 screen: the screen changes when it is
 * taken away. */
static bool drawn(game_t *g, obj_t *o)
{
    screen_t *a = screen_new(80, 24), *b = screen_new(80, 24);
    game_view_t v = {0};
    render_full(g, a, &v);
    int16_t x = o->x;
    o->x = -100; /* off the map for a moment, not refiled */
    render_full(g, b, &v);
    o->x = x;
    bool on = memcmp(a->cells, b->cells, sizeof(cell_t) * 80 * 24) != 0;
    screen_free(a), screen_free(b);
    return on;
}

/* Each item new in sight when explore stops to say "You see a dagger."
 * is on the screen (the view moves to show it, as it does creatures):
 * seeds 2, 7 and 9 each had one below or above the view. */
START_TEST(what_explore_stops_for_is_on_screen)
{
    static const int SEEDS[] = {2, 7, 9};
    int seen = 0;
    for (size_t s = 0; s < sizeof SEEDS / sizeof SEEDS[0]; s++) {
        game_t *g = alone(C, (uint64_t)SEEDS[s], 0, 0);
        clear_monsters(g);
        for (int k = 0; k < 16 && g->state == GAME_RUNNING; k++) {
            uint32_t from = g->nmsg;
            keys_paged(g, "o");
            if (!said_since(g, from, "You see a") && !said_since(g, from, "You see an"))
                continue;
            const level_t *lv = level_current(g);
            for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
                obj_t *o = reg_get(&g->reg, h);
                if (o->type != OBJ_ITEM || o->target || o->depth != g->depth ||
                    !level_visible(lv, o->x, o->y) || (o->flags & IF_VISITED))
                    continue;
                ck_assert_msg(drawn(g, o), "seed %d key %d: the item at %d,%d is not drawn",
                              SEEDS[s], k, o->x, o->y);
                seen++;
            }
        }
        game_free(g);
    }
    ck_assert_int_ge(seen, 3);
}
END_TEST

START_TEST(kick_and_lock_are_ctrl_keys_now)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    key(g, 0x04); /* ^D */
    ck_assert_int_eq(g->prompt, PROMPT_DOOR);
    key(g, KEY_ESC);
    key(g, 0x0C); /* ^L */
    ck_assert_int_eq(g->prompt, PROMPT_DOOR);
    game_free(g);
}
END_TEST

/* Travel goes round a sleeper seen as it began, here beside its goal:
 * each step's way round is searched only while a creature stands where
 * the straight way reaches, so one missed there would walk into it. */
START_TEST(travel_goes_round_a_sleeper_by_its_goal)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    put_player(g, cx - 4, cy);
    handle_t j = spawn_at(g, "giant newt", 7, -1);
    obj_t *m = reg_get(&g->reg, j);
    m->flags |= OF_ASLEEP;
    m->speed = 1; /* it sleeps on and stays put */
    uint32_t from = g->nmsg;
    keys(g, "_llllllll.");
    ck_assert_msg(!said_since(g, from, "in the way"), "%s", last_msg(g));
    ck_assert_int_eq(player(g)->x, cx + 4);
    ck_assert_int_eq(player(g)->y, cy);
    ck_assert_int_eq(reg_get(&g->reg, j)->hp, reg_get(&g->reg, j)->hp_max);
    game_free(g);
}
END_TEST

/* A monster that comes into view halfway stops the travel at the step
 * it is seen from, whatever the way was. */
START_TEST(travel_stops_for_a_monster_coming_into_view)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    level_t *lv = level_current(g);
    for (int y = cy - 4; y <= cy + 1; y++) /* a wall down the middle, open below */
        lv->terrain[y * lv->w + cx] = MAP_WALL;
    lv->opaque_ok = 0;
    put_player(g, cx - 3, cy - 3);
    handle_t j = spawn_at(g, "giant newt", 6, 0);
    obj_t *o = reg_get(&g->reg, j);
    o->flags |= OF_AWARE;
    o->speed = 1;
    vision_update(g);
    ck_assert(!vision_sees(g, j));
    keys(g, "_jjjjjjlll.");
    ck_assert_str_eq(last_msg(g), "You see a giant newt.");
    ck_assert_int_eq(player(g)->x, cx); /* in the gap, the first cell it is seen from */
    ck_assert_int_eq(player(g)->y, cy + 2);
    game_free(g);
}
END_TEST

/* ---- the goal map a travel keeps over its walk -------------------------------- */

/* A room split by a wall down its middle (x = cx), open on the bottom row
 * only, door at (cx, cy - 2) of the terrain given (or wall); the player at
 * (cx - 3, cy - 2), a travel begun to (cx + 3, cy - 2) and its first step
 * taken. *m: the walk's kept map, for the steps after. */
static game_t *split_room(int *cx, int *cy, uint8_t door, travel_map_t **m)
{
    game_t *g = bare_room(cx, cy);
    level_t *lv = level_current(g);
    for (int y = *cy - 4; y <= *cy + 3; y++)
        lv->terrain[y * lv->w + *cx] = MAP_WALL;
    lv->terrain[(*cy - 2) * lv->w + *cx] = door;
    lv->opaque_ok = 0;
    put_player(g, *cx - 3, *cy - 2);
    g->prompt = PROMPT_TRAVEL, g->cur_x = (int16_t)(*cx + 3), g->cur_y = (int16_t)(*cy - 2);
    turn_advance(g, travel_key(g, (key_event_t){.code = '.'}));
    *m = travel_map_new(g);
    ck_assert_ptr_nonnull(*m);
    return g;
}

/* One step of the walk as travel_keep_going takes it. */
static void walk_step(game_t *g, travel_map_t *m)
{
    int cost = travel_walk_step(g, m);
    ck_assert_int_gt(cost, 0);
    turn_advance(g, cost);
}

static void split_room_free(game_t *g, travel_map_t *m)
{
    travel_map_free(g, m);
    g->run = 0;
    game_free(g);
}

/* A door unlocked halfway (the kept map built without it): the next step
 * turns back up to it, the way through being shorter than the way round. */
START_TEST(a_kept_map_takes_a_door_unlocked)
{
    int cx, cy;
    travel_map_t *m;
    game_t *g = split_room(&cx, &cy, MAP_DOOR_LOCKED, &m);
    walk_step(g, m); /* the map kept from here: the way round, below */
    int y = player(g)->y;
    ck_assert_int_gt(y, cy - 2);
    level_t *lv = level_current(g);
    lv->terrain[(cy - 2) * lv->w + cx] = MAP_DOOR_CLOSED;
    lv->opaque_ok = 0;
    walk_step(g, m);
    ck_assert_int_lt(player(g)->y, y); /* up, to the door */
    split_room_free(g, m);
}
END_TEST

/* A door locked halfway: the next step leaves it for the way round. */
START_TEST(a_kept_map_leaves_a_door_locked)
{
    int cx, cy;
    travel_map_t *m;
    game_t *g = split_room(&cx, &cy, MAP_DOOR_CLOSED, &m);
    walk_step(g, m); /* beside the door now, the map kept */
    ck_assert_int_eq(player(g)->x, cx - 1);
    int y = player(g)->y;
    ck_assert_int_le(abs(y - (cy - 2)), 1);
    level_t *lv = level_current(g);
    lv->terrain[(cy - 2) * lv->w + cx] = MAP_DOOR_LOCKED;
    lv->opaque_ok = 0;
    walk_step(g, m); /* not into the locked door: down, the way round */
    ck_assert_int_lt(player(g)->x, cx);
    ck_assert_int_gt(player(g)->y, y);
    split_room_free(g, m);
}
END_TEST

/* A gap in the wall seen only after the map was kept: the next step
 * heads for it. */
START_TEST(a_kept_map_takes_a_cell_newly_seen)
{
    int cx, cy;
    travel_map_t *m;
    game_t *g = split_room(&cx, &cy, MAP_FLOOR, &m);
    level_t *lv = level_current(g);
    int gap = (cy - 2) * lv->w + cx;
    lv->seen[gap] = 0; /* not known as the map is built */
    int y = player(g)->y;
    walk_step(g, m);
    ck_assert_int_gt(player(g)->y, y); /* the way round, below */
    ck_assert_int_eq(player(g)->x, cx - 1);
    lv->seen[gap] |= SEEN_EYES;
    walk_step(g, m);
    ck_assert_int_eq(player(g)->x, cx); /* into the gap beside it */
    ck_assert_int_eq(player(g)->y, cy - 2);
    split_room_free(g, m);
}
END_TEST

/* A sleeper in view as the travel began moves onto the way beside the
 * goal while the map is kept: the walk still goes round it. */
START_TEST(a_kept_map_goes_round_a_sleeper_come_onto_the_way)
{
    int cx, cy;
    game_t *g = bare_room(&cx, &cy);
    put_player(g, cx - 4, cy);
    handle_t j = spawn_at(g, "giant newt", 4, 4); /* at (cx, cy + 4): off the way */
    obj_t *o = reg_get(&g->reg, j);
    o->flags |= OF_ASLEEP;
    o->speed = 1;
    g->prompt = PROMPT_TRAVEL, g->cur_x = (int16_t)(cx + 4), g->cur_y = (int16_t)cy;
    turn_advance(g, travel_key(g, (key_event_t){.code = '.'}));
    travel_map_t *m = travel_map_new(g);
    walk_step(g, m); /* the map kept from here */
    o = reg_get(&g->reg, j);
    o->x = (int16_t)(cx + 3), o->y = (int16_t)(cy - 1); /* beside the goal, on the way */
    reg_refile(&g->reg, j);
    vision_update(g);
    uint32_t from = g->nmsg;
    for (int i = 0; i < 20 && g->run && (player(g)->x != cx + 4 || player(g)->y != cy); i++) {
        int cost = travel_walk_step(g, m);
        if (cost <= 0)
            break;
        turn_advance(g, cost);
    }
    ck_assert_msg(!said_since(g, from, "in the way"), "%s", last_msg(g));
    ck_assert_int_eq(player(g)->x, cx + 4);
    ck_assert_int_eq(player(g)->y, cy);
    ck_assert_int_eq(reg_get(&g->reg, j)->hp, reg_get(&g->reg, j)->hp_max);
    split_room_free(g, m);
}
END_TEST

/* A room whose left and right walls' middle cells (cx -+ 5, cy) are
 * unknown, the player at (cx - 1, cy): the unexplored nearest on the
 * left. */
static game_t *two_unknowns(int *cx, int *cy)
{
    game_t *g = bare_room(cx, cy);
    put_player(g, *cx - 1, *cy);
    return g;
}

static void forget_walls(game_t *g, int cx, int cy, bool left)
{
    level_t *lv = level_current(g);
    if (left)
        lv->seen[cy * lv->w + cx - 5] = 0;
    lv->seen[cy * lv->w + cx + 5] = 0;
}

/* The left unknown seen after explore kept its map: the next step turns
 * to the right one. */
START_TEST(a_kept_exploration_turns_when_its_goal_is_seen)
{
    int cx, cy;
    game_t *g = two_unknowns(&cx, &cy);
    forget_walls(g, cx, cy, true);
    turn_advance(g, travel_explore(g));
    travel_map_t *m = travel_map_new(g);
    ck_assert_ptr_nonnull(m);
    forget_walls(g, cx, cy, true);
    int x = player(g)->x;
    walk_step(g, m); /* the map kept from here, heading left */
    ck_assert_int_lt(player(g)->x, x);
    x = player(g)->x;
    forget_walls(g, cx, cy, false); /* the left one seen as it is now */
    walk_step(g, m);
    ck_assert_int_gt(player(g)->x, x);
    split_room_free(g, m);
}
END_TEST

/* An item comes to lie in view after explore kept its map: the next step
 * heads for it (items before the unexplored). */
START_TEST(a_kept_exploration_turns_to_an_item_put_down)
{
    int cx, cy;
    game_t *g = two_unknowns(&cx, &cy);
    forget_walls(g, cx, cy, true);
    turn_advance(g, travel_explore(g));
    travel_map_t *m = travel_map_new(g);
    forget_walls(g, cx, cy, true);
    int x = player(g)->x;
    walk_step(g, m); /* the map kept from here, heading left */
    ck_assert_int_lt(player(g)->x, x);
    x = player(g)->x;
    ck_assert(item_new(g, item_named(g->c, "dagger"), 1, HANDLE_NONE, g->depth, cx + 3, cy, NULL));
    forget_walls(g, cx, cy, true);
    walk_step(g, m);
    ck_assert_int_gt(player(g)->x, x);
    split_room_free(g, m);
}
END_TEST

/* Explore keeps its map standing in a corner beside the only unknown
 * there (the corner wall): once it steps off, the corner is unexplored
 * (no longer where the player stands), the nearest, and it turns back. */
START_TEST(a_kept_exploration_turns_back_to_the_cell_it_left)
{
    int cx, cy;
    game_t *g = two_unknowns(&cx, &cy);
    level_t *lv = level_current(g);
    int corner = (cy + 5) * lv->w + cx + 5, left = cy * lv->w + cx - 5;
    lv->seen[left] = 0;
    turn_advance(g, travel_explore(g));
    travel_map_t *m = travel_map_new(g);
    put_player(g, cx + 4, cy + 4);
    lv->seen[left] = lv->seen[corner] = 0;
    walk_step(g, m); /* the map kept from the corner, heading left */
    int x = player(g)->x;
    ck_assert_int_lt(x, cx + 4);
    lv->seen[left] = lv->seen[corner] = 0;
    walk_step(g, m);
    ck_assert_int_eq(player(g)->x, cx + 4); /* back in the corner */
    ck_assert_int_eq(player(g)->y, cy + 4);
    split_room_free(g, m);
}
END_TEST

/* Room for a step's own search runs short while a map is kept: the map
 * gives way and the walk goes on, arriving as it would have. */
START_TEST(a_kept_map_gives_way_when_room_runs_short)
{
    int cx, cy;
    travel_map_t *m;
    game_t *g = split_room(&cx, &cy, MAP_DOOR_OPEN, &m);
    walk_step(g, m); /* the map kept from here */
    const level_t *lv = level_current(g);
    size_t n = (size_t)lv->w * (size_t)lv->h;
    g->al.limit = g->al.bytes + 4 * n; /* not the step's 7 bytes a cell beside it */
    uint32_t from = g->nmsg;
    for (int i = 0; i < 8 && (player(g)->x != cx + 3 || player(g)->y != cy - 2); i++)
        walk_step(g, m);
    ck_assert_msg(!said_since(g, from, "cannot find"), "%s", last_msg(g));
    ck_assert_int_eq(player(g)->x, cx + 3);
    ck_assert_int_eq(player(g)->y, cy - 2);
    g->al.limit = 0;
    split_room_free(g, m);
}
END_TEST

Suite *suite_game_run(void)
{
    Suite *s = suite_create("game_run");
    TCase *t = tcase_create("run");
    with_shipped_content(t);
    tcase_add_test(t, a_run_crosses_a_room_to_its_wall);
    tcase_add_test(t, explore_goes_on_into_what_each_step_sees);
    tcase_add_test(t, a_run_stops_on_an_item_and_beside_a_door);
    tcase_add_test(t, a_run_stops_on_stairs_ahead_not_before_them);
    tcase_add_test(t, a_run_follows_a_corridor_round_its_bends);
    tcase_add_test(t, a_run_stops_where_a_corridor_forks);
    tcase_add_test(t, a_run_stops_for_a_monster_coming_into_view);
    tcase_add_test(t, a_stop_names_every_monster_in_view);
    tcase_add_test(t, kick_and_lock_are_ctrl_keys_now);
    tcase_add_test(t, a_run_goes_along_a_pillared_hall);
    tcase_add_test(t, travel_passes_what_was_seen_before);
    tcase_add_test(t, what_explore_stops_for_is_on_screen);
    tcase_add_test(t, travel_goes_round_a_sleeper_by_its_goal);
    tcase_add_test(t, travel_stops_for_a_monster_coming_into_view);
    tcase_add_test(t, a_kept_map_takes_a_door_unlocked);
    tcase_add_test(t, a_kept_map_leaves_a_door_locked);
    tcase_add_test(t, a_kept_map_takes_a_cell_newly_seen);
    tcase_add_test(t, a_kept_map_goes_round_a_sleeper_come_onto_the_way);
    tcase_add_test(t, a_kept_exploration_turns_when_its_goal_is_seen);
    tcase_add_test(t, a_kept_exploration_turns_to_an_item_put_down);
    tcase_add_test(t, a_kept_exploration_turns_back_to_the_cell_it_left);
    tcase_add_test(t, a_kept_map_gives_way_when_room_runs_short);
    suite_add_tcase(s, t);
    return s;
}
