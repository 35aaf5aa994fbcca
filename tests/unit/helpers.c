/* helpers — the game suites' shared fixtures (see helpers.h). No suite of
 * its own: the unit runner lists only files that define one. */
#include "helpers.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "chargen.h"
#include "creature.h"
#include "effect.h"
#include "game.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "vision.h"

content_t *shipped_content(void)
{
    char err[256] = "";
    content_t *c = content_load(NULL, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    return c;
}

content_t *C;

static void load_shipped(void)
{
    C = shipped_content();
}

static void free_shipped(void)
{
    content_free(C);
    C = NULL;
}

void with_shipped_content(TCase *t)
{
    tcase_add_checked_fixture(t, load_shipped, free_shipped);
}

int kind_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_creatures; i++)
        if (strcmp(c->creatures[i].name, name) == 0)
            return i;
    ck_abort_msg("no creature kind '%s'", name);
    return -1;
}

uint16_t item_named(const content_t *c, const char *name)
{
    for (uint16_t k = 0; k < c->n_items; k++)
        if (strcmp(c->items[k].name, name) == 0)
            return k;
    ck_abort_msg("no item kind '%s'", name);
    return 0;
}

int spell_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_spells; i++)
        if (strcmp(c->spells[i].name, name) == 0)
            return i;
    ck_abort_msg("no spell '%s'", name);
    return -1;
}

game_t *started(game_t *g)
{
    if (g)
        game_input(g, NULL, (key_event_t){'*', 0});
    return down_from_town(g);
}

game_t *down_from_town(game_t *g)
{
    if (!g || g->depth != 0)
        return g;
    ck_assert_int_eq(level_enter(g, 1), 0);
    vision_update(g);
    return g;
}

/* What h carries goes with it. */
static void delete_belongings(game_t *g, handle_t h)
{
    for (handle_t i = reg_next(&g->reg, 0); i; i = reg_next(&g->reg, i)) {
        const obj_t *o = reg_get(&g->reg, i);
        if (o->type == OBJ_ITEM && o->target == h)
            reg_del(&g->reg, i);
    }
}

void clear_monsters(game_t *g)
{
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h))
        if (h != g->player && reg_get(&g->reg, h)->type == OBJ_CREATURE) {
            delete_belongings(g, h);
            sched_cancel(&g->sched, h);
            effect_clear(g, h);
            reg_del(&g->reg, h);
        }
}

game_t *reloaded(const game_t *g)
{
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[160];
    game_t *back = game_load(g->c, (const uint8_t *)b.data, b.len, err, sizeof err);
    buf_free(&b);
    ck_assert_msg(back != NULL, "%s", err);
    return back;
}

game_t *alone(const content_t *c, uint64_t seed, int race, int cls)
{
    game_t *g = game_new(c, seed, NULL);
    ck_assert_ptr_nonnull(g);
    chargen_create(g, race, cls);
    down_from_town(g);
    clear_monsters(g);
    return g;
}

/* The warden of level d (the test fails if it has none). */
static handle_t warden_of(game_t *g, int d)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && o->depth == d && (creature_kind(g, o)->flags & CF_WARDEN))
            return h;
    }
    ck_abort_msg("level %d has no warden", d);
    return HANDLE_NONE;
}

void hero_by_warden(game_t *g)
{
    chargen_create(g, 0, 0);
    g->pc.xl = 20;
    g->pc.xp = pc_xp_for(20);
    g->pc.pick_hit = 15;
    g->pc.pick_def = 25;
    int d = WORLD_MAX_DEPTH;
    level_t *from = level_current(g), *lv = level_new(g, from->w, from->h, d);
    ck_assert_ptr_nonnull(lv);
    g->levels[d] = lv;
    ck_assert(level_generate(g, lv) == 0 && creature_populate(g, lv) == 0);
    const obj_t *w = reg_get(&g->reg, warden_of(g, d));
    int wx = w->x, wy = w->y, px = -1, py = -1;
    for (int dy = -1; dy <= 1 && px < 0; dy++)
        for (int dx = -1; dx <= 1 && px < 0; dx++)
            if ((dx || dy) && level_passable(g, lv, wx + dx, wy + dy) &&
                !level_creature_at(g, d, wx + dx, wy + dy))
                px = wx + dx, py = wy + dy;
    ck_assert_int_ge(px, 0);
    level_sleep(g, from);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 3000;
    g->items.food = FOOD_MAX; /* the climb out is long */
    p->depth = (int16_t)d, p->x = (int16_t)px, p->y = (int16_t)py;
    reg_refile(&g->reg, g->player);
    g->depth = g->max_depth = (int16_t)d;
    g->level_changes++;
    vision_update(g);
}

void key(game_t *g, uint32_t code)
{
    game_input(g, NULL, (key_event_t){code, 0});
}

void keys(game_t *g, const char *k)
{
    for (; *k; k++)
        key(g, (unsigned char)*k);
}

void keys_paged(game_t *g, const char *k)
{
    for (; *k; k++) {
        while (g->prompt == PROMPT_MORE)
            key(g, ' ');
        key(g, (unsigned char)*k);
    }
}

const char *last_msg(const game_t *g)
{
    return msg_at(g, g->nmsg - 1)->text;
}

bool said_since(const game_t *g, uint32_t from, const char *s)
{
    for (uint32_t k = from; k < g->nmsg; k++) {
        if (strstr(msg_at(g, k)->text, s))
            return true;
        char two[2 * MSG_LEN + 1]; /* one too long for the line is logged in two (msg_add) */
        snprintf(two, sizeof two, "%s %s", msg_at(g, k)->text,
                 k + 1 < g->nmsg ? msg_at(g, k + 1)->text : "");
        if (strstr(two, s))
            return true;
    }
    return false;
}

void open_room(game_t *g, int r)
{
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    if (p->x < r + 2)
        p->x = (int16_t)(r + 2);
    if (p->y < r + 2)
        p->y = (int16_t)(r + 2);
    if (p->x > lv->w - r - 3)
        p->x = (int16_t)(lv->w - r - 3);
    if (p->y > lv->h - r - 3)
        p->y = (int16_t)(lv->h - r - 3);
    reg_refile(&g->reg, g->player);
    for (int y = p->y - r - 1; y <= p->y + r + 1; y++)
        for (int x = p->x - r - 1; x <= p->x + r + 1; x++) {
            bool edge = abs(x - p->x) == r + 1 || abs(y - p->y) == r + 1;
            level_set_terrain(lv, y * lv->w + x, edge ? MAP_WALL : MAP_FLOOR);
            lv->trap[y * lv->w + x] = 0;
        }
    lv->opaque_ok = 0;
    vision_update(g);
}

game_t *alone_in_room(const content_t *c, uint64_t seed, int race, int cls, int r)
{
    game_t *g = alone(c, seed, race, cls);
    open_room(g, r);
    return g;
}

void wall_in(game_t *g, handle_t h)
{
    const obj_t *p = reg_get(&g->reg, g->player), *o = reg_get(&g->reg, h);
    level_t *lv = level_current(g);
    for (int y = p->y - 1; y <= p->y + 1; y++)
        for (int x = p->x - 1; x <= p->x + 1; x++)
            if (!(x == p->x && y == p->y) && !(x == o->x && y == o->y))
                level_set_terrain(lv, y * lv->w + x, MAP_WALL);
    lv->opaque_ok = 0;
}

void cell_near_player(game_t *g, int *x, int *y)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    for (int r = 1; r < 30; r++)
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++)
                if (level_passable(g, lv, p->x + dx, p->y + dy) &&
                    !level_creature_at(g, g->depth, p->x + dx, p->y + dy)) {
                    *x = p->x + dx, *y = p->y + dy;
                    return;
                }
    ck_abort_msg("no free cell");
}

handle_t spawn_at(game_t *g, const char *name, int dx, int dy)
{
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int x = p->x + dx, y = p->y + dy;
    ck_assert(level_in(lv, x, y));
    level_set_terrain(lv, y * lv->w + x, MAP_FLOOR);
    lv->opaque_ok = 0;
    handle_t h = creature_spawn(g, (uint16_t)kind_named(g->c, name), g->depth, x, y);
    ck_assert_uint_ne(h, HANDLE_NONE);
    sched_push(&g->sched, g->sched.now + 100, FN_MONSTER_TURN, h, 0, 0);
    vision_update(g);
    return h;
}
