/* Unit tests: game/event — participant order, kind before built-in,
 * PRE/MAIN/POST, DONE, nesting with fresh and shared info, depth bound.
 * The game runs on a content of test handlers that write a trace. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "content.h"
#include "event.h"
#include "start.h"
#include "world.h"

static char trace[2048];
static const char *done_at; /* "NAME:phase" that returns DONE */
static const char *const PHASES[] = {"pre", "main", "post"};

static int traced(const char *name, ev_info_t *e)
{
    char one[32];
    snprintf(one, sizeof one, "%s:%s", name, PHASES[e->phase]);
    if (e->type == EV_TEST)
        strcat(one, "/t");
    if (strlen(trace) + strlen(one) + 2 < sizeof trace) {
        strcat(trace, one);
        strcat(trace, " ");
    }
    return done_at && !strcmp(done_at, one) ? EV_DONE : EV_NOTHING;
}

#define TH(n)                                                 \
    static int th_##n(game_t *g, ev_info_t *e, handle_t self) \
    {                                                         \
        (void)g, (void)self;                                  \
        return traced(#n, e);                                 \
    }
TH(map)
TH(mapb)
TH(item)
TH(itemb)
TH(k1)
TH(k2)
TH(cb)

/* Throws a fresh EV_TEST and then the same info as EV_TEST from MAIN of a MOVE. */
static int th_nest(game_t *g, ev_info_t *e, handle_t self)
{
    (void)self;
    if (e->type != EV_MOVE || e->phase != PHASE_MAIN)
        return traced("nest", e);
    strcat(trace, "[ ");
    ev_info_t f = {.type = EV_TEST, .map = -1};
    event_throw(g, &f);
    strcat(trace, "| ");
    e->type = EV_TEST;
    event_throw(g, e);
    e->type = EV_MOVE; /* what this handler changed, it puts back */
    strcat(trace, "] ");
    return traced("nest", e);
}

static int th_loop(game_t *g, ev_info_t *e, handle_t self)
{
    (void)self;
    event_throw(g, e); /* one level deeper each time, until the bound */
    return EV_DONE;
}

enum { T_MAP = 1, T_MAPB, T_ITEM, T_ITEMB, T_K1, T_K2, T_CB, T_NEST, T_LOOP, T_N };
static const ev_handler_t HANDLERS[T_N] = {NULL,  th_map, th_mapb, th_item, th_itemb,
                                           th_k1, th_k2,  th_cb,   th_nest, th_loop};
static const creature_kind_t KINDS[] = {
    {.name = "victim",
     .glyph = 'v',
     .fg = 7,
     .speed = 100,
     .hp = {0, 1, 5},
     .attack = {1, 2, 0},
     .handlers = {T_K1}},
    {.name = "actor",
     .glyph = 'a',
     .fg = 7,
     .speed = 100,
     .hp = {0, 1, 5},
     .attack = {1, 2, 0},
     .handlers = {T_K2, T_NEST}},
    {.name = "looper",
     .glyph = 'l',
     .fg = 7,
     .speed = 100,
     .hp = {0, 1, 5},
     .attack = {1, 2, 0},
     .handlers = {T_LOOP}},
};
static const item_kind_t ITEMS[] = {{.name = "thing", .glyph = '*', .fg = 7, .handlers = {T_ITEM}}};

static content_t test_content(void)
{
    content_t c = {0};
    snprintf(c.version, sizeof c.version, "test");
    c.creatures = KINDS;
    c.n_creatures = 3;
    c.items = ITEMS;
    c.n_items = 1;
    c.handlers = HANDLERS;
    c.n_handlers = T_N;
    c.builtin[OBJ_CREATURE] = T_CB;
    c.builtin[OBJ_ITEM] = T_ITEMB;
    c.map_builtin = T_MAPB;
    c.map_handlers[0] = T_MAP;
    return c;
}

static handle_t make(game_t *g, obj_type_t type, uint16_t kind)
{
    obj_t *o;
    handle_t h = reg_new(&g->reg, type, &o);
    o->kind = kind;
    return h;
}

START_TEST(order_and_phases)
{
    content_t c = test_content();
    game_t *g = start_empty(&c, 1);
    handle_t v = make(g, OBJ_CREATURE, 0), a = make(g, OBJ_CREATURE, 1), it = make(g, OBJ_ITEM, 0);
    trace[0] = 0;
    done_at = NULL;
    ev_info_t e = {.type = EV_ATTACK, .actor = a, .victim = v, .item = it, .map = 1};
    ck_assert_int_eq(event_throw(g, &e), EV_NOTHING);
    ck_assert_str_eq(
        trace,
        "map:pre mapb:pre item:pre itemb:pre k1:pre cb:pre k2:pre nest:pre cb:pre "
        "map:main mapb:main item:main itemb:main k1:main cb:main k2:main nest:main cb:main "
        "map:post mapb:post item:post itemb:post k1:post cb:post k2:post nest:post cb:post ");
    ck_assert_uint_eq(g->ev_depth, 0);
    game_free(g);
}
END_TEST

START_TEST(done_ends_chain_and_pre_vetoes)
{
    content_t c = test_content();
    game_t *g = start_empty(&c, 1);
    handle_t v = make(g, OBJ_CREATURE, 0), a = make(g, OBJ_CREATURE, 1);
    ev_info_t e = {.type = EV_ATTACK, .actor = a, .victim = v, .map = -1};
    trace[0] = 0;
    done_at = "k1:main";
    ck_assert_int_eq(event_throw(g, &e), EV_DONE);
    ck_assert_str_eq(trace, "k1:pre cb:pre k2:pre nest:pre cb:pre k1:main "
                            "k1:post cb:post k2:post nest:post cb:post ");
    trace[0] = 0;
    done_at = "cb:pre"; /* the victim's built-in vetoes in PRE */
    ck_assert_int_eq(event_throw(g, &e), EV_ABORT);
    ck_assert_str_eq(trace, "k1:pre cb:pre ");
    trace[0] = 0;
    done_at = "k2:post";
    ck_assert_int_eq(event_throw(g, &e), EV_NOTHING);
    ck_assert(strstr(trace, "k2:post ") && !strstr(trace, "nest:post"));
    game_free(g);
}
END_TEST

START_TEST(nested_fresh_and_shared)
{
    content_t c = test_content();
    game_t *g = start_empty(&c, 1);
    handle_t a = make(g, OBJ_CREATURE, 1);
    ev_info_t e = {.type = EV_MOVE, .actor = a, .map = -1};
    trace[0] = 0;
    done_at = NULL;
    event_throw(g, &e);
    /* fresh: nobody takes part; shared: the actor's handlers see EV_TEST in
     * all phases; then the outer MOVE chain continues in MAIN */
    ck_assert_str_eq(trace, "k2:pre nest:pre cb:pre k2:main [ | "
                            "k2:pre/t nest:pre/t cb:pre/t k2:main/t nest:main/t cb:main/t "
                            "k2:post/t nest:post/t cb:post/t "
                            "] nest:main cb:main k2:post nest:post cb:post ");
    ck_assert_uint_eq(e.type, EV_MOVE);
    ck_assert_uint_eq(g->ev_depth, 0);
    game_free(g);
}
END_TEST

START_TEST(depth_is_bounded)
{
    content_t c = test_content();
    game_t *g = start_empty(&c, 1);
    handle_t l = make(g, OBJ_CREATURE, 2);
    ev_info_t e = {.type = EV_TEST, .actor = l, .map = -1};
    trace[0] = 0;
    ck_assert_int_eq(event_throw(g, &e), EV_ABORT);
    ck_assert_uint_eq(g->ev_depth, 0);
    ev_info_t bad = {.type = EV_TYPES, .map = -1};
    ck_assert_int_eq(event_throw(g, &bad), EV_ERROR);
    /* a stale participant is skipped */
    reg_del(&g->reg, l);
    trace[0] = 0;
    ck_assert_int_eq(event_throw(g, &e), EV_NOTHING);
    ck_assert_str_eq(trace, "");
    game_free(g);
}
END_TEST

Suite *suite_game_event(void)
{
    Suite *s = suite_create("game_event");
    TCase *t = tcase_create("core");
    tcase_add_test(t, order_and_phases);
    tcase_add_test(t, done_ends_chain_and_pre_vetoes);
    tcase_add_test(t, nested_fresh_and_shared);
    tcase_add_test(t, depth_is_bounded);
    suite_add_tcase(s, t);
    return s;
}
