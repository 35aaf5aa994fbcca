/* Unit tests: the small world — a level depends only on (seed, depth), the
 * stairs keep levels persistent, monsters at different speeds act through
 * the scheduler, quitting asks first. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "helpers.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "pc.h"
#include "prompt.h"
#include "screen.h"
#include "shop.h"
#include "start.h"
#include "world.h"

static game_t *descend(game_t *g)
{
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    p->x = lv->down_x;
    p->y = lv->down_y;
    keys(g, ">");
    return g;
}

START_TEST(level_independent_of_play)
{
    game_t *a = started(game_new(C, 1234, NULL)), *b = started(game_new(C, 1234, NULL));
    keys(b, "hjklhjklyubn....hhhhllll");
    descend(a);
    descend(b);
    ck_assert_int_eq(a->depth, 2);
    ck_assert_int_eq(b->depth, 2);
    const level_t *la = a->levels[2], *lb = b->levels[2];
    ck_assert(!memcmp(la->terrain, lb->terrain, (size_t)la->w * (size_t)la->h));
    /* the same monsters (kind and rolled hit points, from the level's own
     * stream); they have had one turn to move, so places may differ */
    int na = 0, nb = 0, sig_a = 0, sig_b = 0;
    for (handle_t h = reg_next(&a->reg, 0); h; h = reg_next(&a->reg, h)) {
        const obj_t *o = reg_get(&a->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != 2 || h == a->player)
            continue;
        na++;
        sig_a += (o->kind + 1) * 1000 + o->hp_max;
    }
    for (handle_t h = reg_next(&b->reg, 0); h; h = reg_next(&b->reg, h)) {
        const obj_t *o = reg_get(&b->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != 2 || h == b->player)
            continue;
        nb++;
        sig_b += (o->kind + 1) * 1000 + o->hp_max;
    }
    ck_assert_int_eq(sig_a, sig_b);
    ck_assert_int_gt(na, 0);
    ck_assert_int_eq(na, nb);
    game_free(a);
    game_free(b);
}
END_TEST

START_TEST(stairs_persist_levels)
{
    game_t *g = started(game_new(C, 99, NULL));
    level_t *l1 = g->levels[1];
    size_t n = (size_t)l1->w * (size_t)l1->h;
    uint8_t *seen = malloc(n);
    memcpy(seen, l1->seen, n);
    descend(g);
    game_status_t st;
    game_status(g, &st);
    ck_assert_int_eq(st.depth, 2);
    ck_assert_int_eq(st.max_depth, 2);
    ck_assert_uint_eq(st.level_changes, 2); /* the town to 1, 1 to 2 */
    ck_assert_str_eq(game_milestone(g, game_milestone_count(g) - 1)->kind, "depth");
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128];
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(g), game_hash(h));
    keys(h, "<"); /* arrived on the up stairs: back to level 1 as we left it */
    ck_assert_int_eq(h->depth, 1);
    ck_assert_ptr_eq(level_current(h), h->levels[1]);
    for (size_t i = 0; i < n; i++)
        ck_assert(h->levels[1]->seen[i] >= seen[i]);
    free(seen);
    buf_free(&b);
    game_free(g);
    game_free(h);
}
END_TEST

/* The status line's place word, from a rendered screen. */
static bool status_says(game_t *g, const char *what)
{
    screen_t *s = screen_new(100, 30);
    game_render(g, s, NULL);
    char row[101];
    for (int y = 0; y < s->h; y++) {
        for (int x = 0; x < 100; x++)
            row[x] = (char)s->cells[y * 100 + x].ch;
        row[100] = 0;
        if (strstr(row, what)) {
            screen_free(s);
            return true;
        }
    }
    screen_free(s);
    return false;
}

START_TEST(a_game_begins_in_the_town)
{
    game_t *g = game_new(C, 42, NULL);
    keys(g, "*");
    ck_assert_int_eq(g->depth, 0);
    ck_assert(status_says(g, "Town"));
    ck_assert_ptr_null(g->levels[1]);
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h); /* no monsters, no treasure lying about */
        ck_assert(h == g->player || o->type != OBJ_CREATURE || shop_peaceful(g, o)); /* keepers */
        ck_assert(o->type != OBJ_ITEM || o->target || (o->flags & IF_UNPAID)); /* or their stock */
    }
    keys(g, "l<");
    ck_assert_int_eq(g->depth, 0); /* off its gate, no way up from the town */
    level_t *town = level_current(g);
    descend(g);
    ck_assert_int_eq(g->depth, 1);
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->x, g->levels[1]->up_x);
    ck_assert(status_says(g, "Depth 1"));
    keys(g, "<"); /* level 1's up stairs lead back to the town's down stairs */
    ck_assert_int_eq(g->depth, 0);
    ck_assert_ptr_eq(level_current(g), town);
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->x, town->down_x);
    ck_assert_int_eq(p->y, town->down_y);
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0); /* a game in the town saves and loads */
    char err[128];
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(g), game_hash(h));
    buf_free(&b);
    game_free(h);
    game_free(g);
}
END_TEST

START_TEST(speeds_through_scheduler)
{
    game_t *g = started(game_new(C, 5, NULL));
    uint64_t t0 = g->sched.now;
    keys(g, ".");
    ck_assert_uint_eq(g->sched.now - t0, 100); /* the player's next turn */
    /* every monster's next turn is at most one of its own move costs away */
    for (uint32_t i = 0; i < g->sched.n; i++) {
        const event_t *e = &g->sched.heap[i];
        if (e->fn != FN_MONSTER_TURN)
            continue;
        const obj_t *m = reg_get(&g->reg, e->target);
        ck_assert_ptr_nonnull(m);
        ck_assert_uint_le(e->tick - g->sched.now, sched_cost(SCHED_DIAG, m->speed));
    }
    game_free(g);
}
END_TEST

START_TEST(quit_asks_first)
{
    game_t *g = started(game_new(C, 5, NULL));
    keys(g, "Qn");
    ck_assert_int_eq(g->state, GAME_RUNNING);
    keys(g, "Qy");
    ck_assert_int_eq(g->state, GAME_QUIT);
    uint64_t h = game_hash(g);
    ck_assert_int_eq(game_input(g, NULL, (key_event_t){'h', 0}),
                     GAME_QUIT); /* keys after the end are ignored */
    ck_assert_uint_eq(game_hash(g), h);
    game_status_t st;
    game_status(g, &st);
    ck_assert_ptr_nonnull(strstr(st.cause, "quit"));
    game_free(g);
}
END_TEST

/* The status's texts are the game's, each cut to its field as snprintf's
 * "%s" cuts it (a cause longer than the field, a name of the longest). */
START_TEST(status_texts_cut_to_fit)
{
    game_t *g = started(game_new(C, 6, NULL));
    memset(g->name, 'n', sizeof g->name - 1);
    g->name[sizeof g->name - 1] = 0;
    memset(g->cause, 'c', sizeof g->cause - 1);
    g->cause[sizeof g->cause - 1] = 0;
    game_status_t st;
    memset(&st, 0x55, sizeof st);
    game_status(g, &st);
    char want[sizeof st.cause];
    snprintf(want, sizeof st.name, "%s", g->name);
    ck_assert_str_eq(st.name, want);
    snprintf(want, sizeof st.cause, "%s", g->cause);
    ck_assert_str_eq(st.cause, want);
    ck_assert_uint_eq(strlen(st.cause), sizeof st.cause - 1);
    snprintf(want, sizeof st.race, "%s", pc_race_name(g));
    ck_assert_str_eq(st.race, want);
    ck_assert_uint_gt(strlen(st.race), 0);
    snprintf(want, sizeof st.cls, "%s", pc_class_name(g));
    ck_assert_str_eq(st.cls, want);
    ck_assert_uint_gt(strlen(st.cls), 0);
    g->cause[5] = 0; /* shorter: its end, not the field's */
    game_status(g, &st);
    ck_assert_str_eq(st.cause, "ccccc");
    game_free(g);
}
END_TEST

START_TEST(walls_cost_nothing)
{
    game_t *g = started(game_new(C, 8, NULL));
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    /* find a direction with a wall next to the player, if any */
    static const struct {
        char k;
        int dx, dy;
    } D[] = {{'h', -1, 0}, {'l', 1, 0}, {'k', 0, -1}, {'j', 0, 1}};
    for (int i = 0; i < 4; i++) {
        if (level_passable(g, lv, p->x + D[i].dx, p->y + D[i].dy))
            continue;
        uint64_t t = g->sched.now;
        int x = p->x;
        keys(g, (char[]){D[i].k, 0});
        ck_assert_uint_eq(g->sched.now, t);
        ck_assert_int_eq(reg_get(&g->reg, g->player)->x, x);
    }
    game_free(g);
}
END_TEST

/* Every prompt id has its row: a key handler, and a screen to draw when
 * it replaces the map. The creation screen's Q asks like the command. */
START_TEST(prompt_table_and_quit_from_creation)
{
    game_t *g = game_new(C, 5, NULL);
    ck_assert_int_eq(g->prompt, PROMPT_RACE);
    for (int id = 0; id < PROMPT_COUNT; id++) {
        g->prompt = (uint8_t)id;
        const prompt_t *row = prompt_of(g);
        ck_assert_ptr_nonnull(row);
        ck_assert_int_eq(row->id, id);
        ck_assert_ptr_nonnull(row->key);
        if (row->flags & PF_SCREEN)
            ck_assert_ptr_nonnull(row->draw);
    }
    g->prompt = PROMPT_COUNT; /* an id past the table gets the command row */
    ck_assert_int_eq(prompt_of(g)->id, PROMPT_NONE);
    g->prompt = PROMPT_RACE;
    keys(g, "Q");
    ck_assert_int_eq(g->prompt, PROMPT_QUIT);
    keys(g, "n");
    ck_assert_int_eq(g->prompt, PROMPT_RACE);
    ck_assert(!g->pc.created);
    keys(g, "Qy");
    ck_assert_int_eq(g->state, GAME_QUIT);
    game_free(g);
}
END_TEST

/* Allocation failure at every point of a game's start returns an error,
 * never aborts or leaks (ASan checks the leaks). */
START_TEST(out_of_memory_is_an_error)
{
    game_t *full = started(game_new(C, 3, NULL));
    size_t need = full->al.peak;
    game_free(full);
    int failures = 0;
    for (size_t limit = 0; limit <= need + 64; limit += 97) {
        game_t *g = start_empty(C, 3);
        if (!g)
            continue;
        g->al.limit = limit;
        if (start_world(g) < 0)
            failures++;
        else
            keys(g, "hjkl");
        game_free(g);
    }
    ck_assert_int_gt(failures, 0);
}
END_TEST

Suite *suite_game_world(void)
{
    Suite *s = suite_create("game_world");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_add_test(t, level_independent_of_play);
    tcase_add_test(t, stairs_persist_levels);
    tcase_add_test(t, a_game_begins_in_the_town);
    tcase_add_test(t, speeds_through_scheduler);
    tcase_add_test(t, quit_asks_first);
    tcase_add_test(t, prompt_table_and_quit_from_creation);
    tcase_add_test(t, walls_cost_nothing);
    tcase_add_test(t, status_texts_cut_to_fit);
    tcase_add_test(t, out_of_memory_is_an_error);
    suite_add_tcase(s, t);
    return s;
}
