/* Unit tests: game/effect — hooks run start/tick/end (also for a duration
 * of one tick), stacking rules, and effects surviving a snapshot. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "content.h"
#include "effect.h"
#include "helpers.h"
#include "start.h"
#include "turn.h"
#include "world.h"

static char trace[1024];

static void hk(game_t *g, handle_t eh, obj_t *e, effect_phase_t phase)
{
    (void)g, (void)eh;
    static const char *const N[] = {"start", "tick", "end"};
    char one[48];
    snprintf(one, sizeof one, "%s%d@%llu ", N[phase], e->magnitude,
             (unsigned long long)g->sched.now);
    if (strlen(trace) + strlen(one) < sizeof trace)
        strcat(trace, one);
}

static const effect_hook_t HOOKS[] = {NULL, hk};
static const effect_kind_t EFFECTS[] = {
    {"refresh", "R", STACK_REFRESH, 100, {1, 1, 1}},
    {"add", "A", STACK_ADD, 100, {1, 1, 1}},
    {"strongest", "S", STACK_STRONGEST, 100, {1, 1, 1}},
};

static game_t *test_game(content_t *c, handle_t *target)
{
    memset(c, 0, sizeof *c);
    c->effects = EFFECTS;
    c->n_effects = 3;
    c->hooks = HOOKS;
    c->n_hooks = 2;
    game_t *g = start_empty(c, 1);
    *target = reg_new(&g->reg, OBJ_CREATURE, NULL);
    trace[0] = 0;
    return g;
}

START_TEST(duration_one_runs_all_hooks)
{
    content_t c;
    handle_t t;
    game_t *g = test_game(&c, &t);
    handle_t e = effect_apply(g, t, 0, 1, 3);
    ck_assert_uint_ne(e, HANDLE_NONE);
    turn_run(g);
    ck_assert_str_eq(trace, "start3@0 tick3@1 end3@1 ");
    ck_assert_ptr_null(reg_get(&g->reg, e));
    ck_assert_uint_eq(g->sched.n, 0);
    game_free(g);
}
END_TEST

START_TEST(ticks_by_interval)
{
    content_t c;
    handle_t t;
    game_t *g = test_game(&c, &t);
    effect_apply(g, t, 0, 250, 1);
    turn_run(g);
    ck_assert_str_eq(trace, "start1@0 tick1@100 tick1@200 tick1@250 end1@250 ");
    ck_assert_uint_eq(effect_apply(g, t, 0, 0, 1), HANDLE_NONE);      /* no time, no effect */
    ck_assert_uint_eq(effect_apply(g, t + 1, 0, 10, 1), HANDLE_NONE); /* forged target */
    game_free(g);
}
END_TEST

START_TEST(stacking_rules)
{
    content_t c;
    handle_t t;
    game_t *g = test_game(&c, &t);
    handle_t r = effect_apply(g, t, 0, 300, 1);
    ck_assert_uint_eq(effect_apply(g, t, 0, 500, 9), r); /* refresh: longer time, same strength */
    ck_assert_int_eq(reg_get(&g->reg, r)->remaining, 500);
    ck_assert_int_eq(reg_get(&g->reg, r)->magnitude, 1);
    effect_apply(g, t, 0, 100, 1);
    ck_assert_int_eq(reg_get(&g->reg, r)->remaining, 500);
    handle_t a = effect_apply(g, t, 1, 300, 1);
    ck_assert_uint_eq(effect_apply(g, t, 1, 500, 1), a); /* add */
    ck_assert_int_eq(reg_get(&g->reg, a)->remaining, 800);
    handle_t s = effect_apply(g, t, 2, 300, 2);
    ck_assert_uint_eq(effect_apply(g, t, 2, 900, 1), HANDLE_NONE); /* weaker: dropped */
    ck_assert_int_eq(reg_get(&g->reg, s)->remaining, 300);
    ck_assert_uint_eq(effect_apply(g, t, 2, 100, 3), s); /* stronger wins with its time */
    ck_assert_int_eq(reg_get(&g->reg, s)->magnitude, 3);
    ck_assert_int_eq(reg_get(&g->reg, s)->remaining, 100);
    /* start ran once per effect, not per application */
    int starts = 0;
    for (const char *p = trace; (p = strstr(p, "start")); p++)
        starts++;
    ck_assert_int_eq(starts, 3);
    trace[0] = 0;
    turn_run(g);
    int ticks = 0;
    for (const char *p = trace; (p = strstr(p, "tick1")); p++)
        ticks++;
    ck_assert_int_eq(ticks, 5 + 8); /* refresh 500, add 800 at interval 100 */
    ck_assert(strstr(trace, "end3@100 "));
    ck_assert_uint_eq(g->reg.live, 1);
    game_free(g);
}
END_TEST

START_TEST(target_death_clears)
{
    content_t c;
    handle_t t;
    game_t *g = test_game(&c, &t);
    handle_t e = effect_apply(g, t, 1, 1000, 1);
    effect_clear(g, t);
    ck_assert_ptr_null(reg_get(&g->reg, e));
    ck_assert_uint_eq(g->sched.n, 0);
    game_free(g);
}
END_TEST

/* The real game: poison on the player survives a snapshot with its time. */
START_TEST(effects_saved)
{
    char err[128];
    game_t *g = game_new(C, 42, NULL);
    handle_t e = effect_apply(g, g->player, C->poison_effect, 350, 1);
    ck_assert_uint_ne(e, HANDLE_NONE);
    key_event_t wait = {'.', 0};
    game_input(g, NULL, wait);
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(g), game_hash(h));
    const obj_t *eg = reg_get(&g->reg, e), *eh = reg_get(&h->reg, e);
    ck_assert_ptr_nonnull(eh);
    ck_assert_int_eq(eg->remaining, eh->remaining);
    for (int i = 0; i < 6; i++) {
        game_input(g, NULL, wait);
        game_input(h, NULL, wait);
    }
    ck_assert_ptr_null(reg_get(&g->reg, e));
    ck_assert_ptr_null(reg_get(&h->reg, e));
    ck_assert_uint_eq(game_hash(g), game_hash(h));
    buf_free(&b);
    game_free(g);
    game_free(h);
}
END_TEST

Suite *suite_game_effect(void)
{
    Suite *s = suite_create("game_effect");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_add_test(t, duration_one_runs_all_hooks);
    tcase_add_test(t, ticks_by_interval);
    tcase_add_test(t, stacking_rules);
    tcase_add_test(t, target_death_clears);
    tcase_add_test(t, effects_saved);
    suite_add_tcase(s, t);
    return s;
}
