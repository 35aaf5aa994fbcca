/* Unit tests: tactics with the shipped content — the missile line, the
 * target cursor and the remembered target, throwing, firing from a
 * launcher and the quiver, breakage and missiles landing, monsters that
 * shoot, the new spells (areas, buffs, powers, detection, summons, sets
 * past 16 bits) and the class powers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "creature.h"
#include "effect.h"
#include "helpers.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "missile.h"
#include "msg.h"
#include "power.h"
#include "prompt.h"
#include "render.h"
#include "spell.h"
#include "status.h"
#include "target.h"
#include "trap.h"
#include "vision.h"
#include "vision.h"
#include "world.h"

enum { FIGHTER = 0, ROGUE, WIZARD, CLERIC };

/* How many of kind lie on the floor of the current level, and are carried by who. */
static int on_floor(game_t *g, uint16_t kind)
{
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && !o->target && o->kind == kind && o->depth == g->depth)
            n += o->magnitude;
    }
    return n;
}

static int carried(game_t *g, uint16_t kind)
{
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && o->target == g->player && o->kind == kind)
            n += o->magnitude;
    }
    return n;
}

static handle_t carried_handle(game_t *g, uint16_t kind)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && o->target == g->player && o->kind == kind)
            return h;
    }
    return HANDLE_NONE;
}

static int effect_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_effects; i++)
        if (!strcmp(c->effects[i].name, name))
            return i;
    ck_abort_msg("no effect %s", name);
    return -1;
}

/* A monster that neither dies nor moves while a test shoots at it: held
 * fast (paralysed, no save) and aware. */
static handle_t dummy(game_t *g, const char *name, int dx, int dy)
{
    handle_t h = spawn_at(g, name, dx, dy);
    obj_t *o = reg_get(&g->reg, h);
    o->hp = o->hp_max = 100000;
    o->flags |= OF_AWARE;
    ck_assert_uint_ne(status_apply(g, h, effect_named(g->c, "paralysis"), 1000000, 1, 0),
                      HANDLE_NONE);
    return h;
}

static void cast_key(game_t *g, int spell)
{
    key(g, 'Z');
    ck_assert_int_ne(spell_letter(g, spell), 0);
    key(g, (uint32_t)spell_letter(g, spell));
}

/* The line: straight and diagonal lines are the eight directions, a line
 * goes on past its target to the range, and stops before a wall. */
START_TEST(missile_line)
{
    game_t *g = alone_in_room(C, 3, 0, FIGHTER, 6);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, x, y, x + 2, y + 2, 4, path);
    ck_assert_int_eq(n, 4);
    for (int i = 0; i < n; i++)
        ck_assert(path[i].x == x + i + 1 && path[i].y == y + i + 1);
    n = target_path(g, x, y, x + 4, y + 2, 4, path); /* a knight's slope: every other row */
    ck_assert_int_eq(n, 4);
    ck_assert(path[1].x == x + 2 && path[1].y == y + 1);
    ck_assert(path[3].x == x + 4 && path[3].y == y + 2);
    level_t *lv = level_current(g);
    lv->terrain[y * lv->w + x + 3] = MAP_WALL;
    n = target_path(g, x, y, x + 1, y, 10, path);
    ck_assert_int_eq(n, 2); /* stops before the wall */
    ck_assert_int_eq(target_path(g, x, y, x, y, 10, path), 0);
    handle_t a = spawn_at(g, "kobold", 0, 2), b = spawn_at(g, "kobold", 0, 4);
    n = target_path(g, x, y, x, y + 4, 6, path);
    int at = -1;
    ck_assert_uint_eq(target_first(g, g->depth, g->player, path, n, x, y + 4, &at), a);
    ck_assert_int_eq(at, 1);
    ck_assert_uint_eq(target_first(g, g->depth, a, path, n, x, y + 4, NULL), b);
    game_free(g);
}
END_TEST

/* A kobold in sight past a pillar's corner, where the straight line
 * clips the pillar: the missile takes a line round it and strikes, not
 * "finds nothing to strike" with the mana spent. */
START_TEST(missile_round_a_corner)
{
    game_t *g = alone_in_room(C, 3, 0, WIZARD, 6);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    level_t *lv = level_current(g);
    lv->terrain[(y - 1) * lv->w + x + 2] = MAP_WALL; /* the straight line's third cell */
    handle_t k = dummy(g, "kobold", 4, -1);
    vision_update(g);
    ck_assert(vision_sees(g, k));
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, x, y, x + 4, y - 1, 8, path);
    ck_assert_int_ge(n, 4);
    ck_assert(path[3].x == x + 4 && path[3].y == y - 1);
    for (int i = 0; i < n; i++)
        ck_assert(!(path[i].x == x + 2 && path[i].y == y - 1));
    /* beyond the range: round the corner as far as the range goes */
    ck_assert_int_eq(target_path(g, x, y, x + 4, y - 1, 3, path), 3);
    for (int i = 0; i < 3; i++)
        ck_assert(!(path[i].x == x + 2 && path[i].y == y - 1));
    int hp = reg_get(&g->reg, k)->hp, from = (int)g->nmsg;
    cast_key(g, spell_named(C, "magic missile"));
    key(g, KEY_ENTER);
    ck_assert(!said_since(g, (uint32_t)from, "finds nothing"));
    ck_assert_int_lt(reg_get(&g->reg, k)->hp, hp);
    game_free(g);
}
END_TEST

/* A target beyond the range past a jamb the straight line clips: the
 * dagger goes round it as far as its range, not down at the jamb. */
START_TEST(missile_beyond_range_round_a_corner)
{
    game_t *g = alone(C, 3, 0, FIGHTER);
    open_room(g, 10);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    level_t *lv = level_current(g);
    lv->terrain[(y - 1) * lv->w + x + 6] = MAP_WALL; /* the straight line's sixth cell */
    lv->opaque_ok = 0;
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, x, y, x + 12, y - 1, 8, path);
    ck_assert_int_eq(n, 8);
    for (int i = 0; i < n; i++)
        ck_assert(!(path[i].x == x + 6 && path[i].y == y - 1));
    uint16_t dagger = item_named(C, "dagger");
    int lying = on_floor(g, dagger);
    item_new(g, dagger, 1, g->player, 0, 0, 0, NULL);
    int letter = 'a' + reg_get(&g->reg, carried_handle(g, dagger))->a[0];
    key(g, 't');
    key(g, (uint32_t)letter);
    g->cur_x = (int16_t)(x + 12), g->cur_y = (int16_t)(y - 1);
    key(g, KEY_ENTER);
    ck_assert_int_eq(on_floor(g, dagger), lying + 1);
    ck_assert_uint_ne(item_floor_at(g, g->depth, path[n - 1].x, path[n - 1].y), HANDLE_NONE);
    game_free(g);
}
END_TEST

/* A bolt at a creature in view but beyond the spell's reach, with
 * nothing on the way: it is not cast, the mana and the turn are kept,
 * and the message says why. */
START_TEST(bolt_beyond_reach_is_not_cast)
{
    game_t *g = alone(C, 3, 0, WIZARD);
    open_room(g, 14);
    level_t *lv = level_current(g);
    ck_assert_int_gt(lv->nregions, 0);
    const obj_t *p = reg_get(&g->reg, g->player);
    for (int y = p->y - 14; y <= p->y + 14; y++) /* a lit room: seen across */
        for (int x = p->x - 14; x <= p->x + 14; x++)
            lv->region[y * lv->w + x] = 1;
    level_regions_changed(lv);
    lv->regions[0].lit = 1;
    lv->opaque_ok = 0;
    handle_t k = dummy(g, "kobold", 13, 0);
    vision_update(g);
    ck_assert(vision_sees(g, k));
    int mana = g->pc.mana, hp = reg_get(&g->reg, k)->hp;
    uint64_t t0 = g->sched.now;
    cast_key(g, spell_named(C, "magic missile"));
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    key(g, KEY_ENTER);
    ck_assert_int_eq(g->pc.mana, mana);
    ck_assert_uint_eq(g->sched.now, t0);
    ck_assert_int_eq(reg_get(&g->reg, k)->hp, hp);
    ck_assert_msg(strstr(last_msg(g), "out of reach") != NULL, "%s", last_msg(g));
    game_free(g);
}
END_TEST

/* Aimed with no creature in view, the cursor (on the player, to be moved
 * to a spot by hand) says so on its line, and Enter there says "No target
 * in view." in no time; with one in view, aiming back at oneself is
 * refused as such. */
START_TEST(target_none_in_view)
{
    game_t *g = alone_in_room(C, 4, 0, FIGHTER, 6);
    uint64_t t0 = g->sched.now;
    key(g, 'f');
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    screen_t *s = screen_new(80, 24);
    game_view_t v = {0};
    render_full(g, s, &v);
    char top[81];
    for (int x = 0; x < 80; x++)
        top[x] = (char)screen_at(s, x, 0)->ch;
    top[80] = 0;
    screen_free(s);
    ck_assert_msg(!strncmp(top, "No target in view.", 18), "%s", top);
    key(g, KEY_ENTER);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_str_eq(last_msg(g), "No target in view.");
    ck_assert_uint_eq(g->sched.now, t0);
    dummy(g, "kobold", 2, 0);
    keys(g, "fhh");
    key(g, KEY_ENTER);
    ck_assert_str_eq(last_msg(g), "You cannot aim at yourself.");
    ck_assert_uint_eq(g->sched.now, t0);
    game_free(g);
}
END_TEST

/* The cursor starts on the nearest creature in view, Tab and - cycle,
 * Escape cancels without time, and the last target is where it starts
 * next time, even when another is nearer; it is saved. */
START_TEST(target_cursor)
{
    game_t *g = alone_in_room(C, 4, 0, FIGHTER, 6);
    handle_t near = dummy(g, "kobold", 2, 0), far = dummy(g, "kobold", -4, 0);
    const obj_t *n = reg_get(&g->reg, near), *f = reg_get(&g->reg, far);
    uint64_t t0 = g->sched.now;
    key(g, 'f');
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    ck_assert_int_eq(g->aim, AIM_FIRE);
    ck_assert(g->cur_x == n->x && g->cur_y == n->y);
    key(g, '\t');
    ck_assert(g->cur_x == f->x && g->cur_y == f->y);
    key(g, '-');
    ck_assert(g->cur_x == n->x && g->cur_y == n->y);
    key(g, '+');
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_uint_eq(g->sched.now, t0);
    ck_assert_uint_eq(g->target, HANDLE_NONE); /* cancelled: nothing remembered */
    key(g, 'f');
    key(g, '\t'); /* the far one, confirmed with f: a shot, and the target remembered */
    key(g, 'f');
    ck_assert_int_ne(g->prompt, PROMPT_TARGET);
    g->prompt = PROMPT_NONE; /* past any --More-- */
    ck_assert_uint_gt(g->sched.now, t0);
    ck_assert_uint_eq(g->target, far);
    key(g, 'f');
    ck_assert(g->cur_x == f->x && g->cur_y == f->y); /* the last target, not the nearest */
    /* a direction key moves the cursor one cell */
    key(g, 'k');
    ck_assert(g->cur_x == f->x && g->cur_y == f->y - 1);
    /* the open cursor, its aim and the target survive a save */
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[160] = "";
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h, "%s", err);
    ck_assert_int_eq(h->prompt, PROMPT_TARGET);
    ck_assert_int_eq(h->aim, AIM_FIRE);
    ck_assert_uint_eq(h->target, far);
    ck_assert_uint_eq(h->quiver, g->quiver);
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    buf_free(&b);
    game_free(h);
    game_free(g);
}
END_TEST

/* The aiming question fits the 80-column top line whole: with a long
 * name the keys are told shorter rather than cut at the edge ("...Esc
 * cancels" with no "]"). */
START_TEST(target_question_fits_the_line)
{
    game_t *g = alone_in_room(C, 4, 0, FIGHTER, 6);
    dummy(g, "baby green dragon", 2, 0);
    key(g, 'f');
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    screen_t *s = screen_new(80, 24);
    game_render(g, s, NULL);
    char row[96];
    int n = 0;
    for (int x = 0; x < s->w; x++) {
        uint32_t ch = screen_at(s, x, 0)->ch;
        row[n++] = ch < 128 ? (char)ch : '?';
    }
    while (n > 0 && row[n - 1] == ' ')
        n--;
    row[n] = 0;
    ck_assert_msg(strstr(row, "Fire at the baby green dragon? [") == row, "%s", row);
    ck_assert_msg(row[n - 1] == ']', "cut: %s", row);
    screen_free(s);
    game_free(g);
}
END_TEST

/* The player's own thrown dagger is taken up again by walking onto it,
 * for a pickup's time (SCHED_MOVE more than the step), while one it never
 * threw is only seen; travel goes on over it. */
START_TEST(own_missiles_taken_up_in_passing)
{
    game_t *g = alone_in_room(C, 5, 0, FIGHTER, 6);
    uint16_t dagger = item_named(C, "dagger");
    const obj_t *p = reg_get(&g->reg, g->player);
    int x0 = p->x, y0 = p->y, lying = on_floor(g, dagger);
    item_new(g, dagger, 1, HANDLE_NONE, g->depth, x0 + 2, y0, NULL); /* not the player's */
    item_new(g, dagger, 1, g->player, 0, 0, 0, NULL);
    int letter = 'a' + reg_get(&g->reg, carried_handle(g, dagger))->a[0];
    key(g, 't');
    key(g, (uint32_t)letter);
    keys(g, "lll");
    key(g, KEY_ENTER);
    ck_assert_int_eq(carried(g, dagger), 0);
    ck_assert_int_eq(on_floor(g, dagger), lying + 2);
    uint64_t t = g->sched.now;
    keys_paged(g, "l");
    uint64_t step = g->sched.now - t;
    keys_paged(g, "l"); /* onto the other dagger: seen, left */
    ck_assert_str_eq(last_msg(g), "You see here a dagger.");
    ck_assert_int_eq(carried(g, dagger), 0);
    t = g->sched.now;
    keys_paged(g, "l"); /* onto the thrown one: taken */
    ck_assert_int_eq(carried(g, dagger), 1);
    ck_assert_uint_eq(g->sched.now - t, step + SCHED_MOVE);
    /* thrown again, then a travel over it along a corridor: not stopped */
    level_t *lv = level_current(g);
    for (int x = x0 - 6; x <= x0 + 6; x++)
        for (int dy = -1; dy <= 1; dy += 2)
            lv->terrain[(y0 + dy) * lv->w + x] = MAP_WALL;
    lv->opaque_ok = 0;
    key(g, 't');
    key(g, (uint32_t)letter);
    keys(g, "hh");
    key(g, KEY_ENTER);
    ck_assert_int_eq(carried(g, dagger), 0);
    key(g, '_');
    g->cur_x = (int16_t)(x0 - 2), g->cur_y = (int16_t)y0;
    key(g, '.');
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->x, x0 - 2);
    ck_assert_int_eq(carried(g, dagger), 1);
    ck_assert_int_eq(on_floor(g, dagger), lying + 1);
    game_free(g);
}
END_TEST

/* A run over several piles of the player's own arrows says the quiver's
 * stack once, as it ends, not a line a pile (each a --More-- to page). */
START_TEST(own_missiles_in_a_run_say_one_line)
{
    game_t *g = alone_in_room(C, 5, 0, FIGHTER, 8);
    uint16_t arrow = item_named(C, "arrow");
    const obj_t *p = reg_get(&g->reg, g->player);
    int x0 = p->x, y0 = p->y;
    level_t *lv = level_current(g);
    for (int x = x0 - 7; x <= x0 + 1; x++)
        for (int dy = -1; dy <= 1; dy += 2)
            lv->terrain[(y0 + dy) * lv->w + x] = MAP_WALL;
    lv->opaque_ok = 0;
    g->quiver = item_new(g, arrow, 5, g->player, 0, 0, 0, NULL);
    int had = carried(g, arrow); /* with any the class starts with */
    int letter = 'a' + reg_get(&g->reg, g->quiver)->a[0];
    for (int i = 0; i < 3; i++) {
        handle_t h = item_new(g, arrow, 2, HANDLE_NONE, g->depth, x0 - 2 - i, y0, NULL);
        reg_get(&g->reg, h)->flags |= IF_THROWN;
    }
    uint32_t from = g->nmsg;
    key(g, '_');
    g->cur_x = (int16_t)(x0 - 6), g->cur_y = (int16_t)y0;
    key(g, '.');
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->x, x0 - 6);
    ck_assert_int_eq(carried(g, arrow), had + 6);
    char want[64];
    snprintf(want, sizeof want, "%c - %d arrows (in quiver).", letter, had + 6);
    int lines = 0;
    for (uint32_t i = from; i < g->nmsg; i++)
        lines += strstr(msg_at(g, i)->text, "arrows (in quiver)") != NULL;
    ck_assert_int_eq(lines, 1);
    ck_assert_msg(said_since(g, from, want), "%s", last_msg(g));
    ck_assert_int_eq(g->prompt, PROMPT_NONE); /* no --More-- to page */
    /* the next key's pickup is a line of its own again */
    handle_t h = item_new(g, arrow, 1, HANDLE_NONE, g->depth, x0 - 7, y0, NULL);
    reg_get(&g->reg, h)->flags |= IF_THROWN;
    from = g->nmsg;
    key(g, 'h');
    snprintf(want, sizeof want, "%c - %d arrows (in quiver).", letter, had + 7);
    ck_assert_msg(said_since(g, from, want), "%s", last_msg(g));
    game_free(g);
}
END_TEST

/* An own missile that does not fit is left lying, marked, without a
 * word at each step: not with the pack's letters all taken, nor when it
 * is too heavy; once it fits it is taken up in passing again. */
START_TEST(own_missiles_left_when_they_do_not_fit)
{
    game_t *g = alone(C, 5, 0, FIGHTER);
    open_room(g, 6);
    uint16_t dagger = item_named(C, "dagger"), ring = item_named(C, "ring of protection"),
             arrow = item_named(C, "arrow");
    ck_assert_int_eq(carried(g, dagger), 0);
    const obj_t *p = reg_get(&g->reg, g->player);
    handle_t d = item_new(g, dagger, 1, HANDLE_NONE, g->depth, p->x + 1, p->y, NULL);
    obj_t *o = reg_get(&g->reg, d);
    o->flags |= IF_THROWN;
    handle_t inv[INV_SLOTS], extra = HANDLE_NONE;
    while (item_inventory(g, g->player, inv) < INV_SLOTS)
        extra = item_new(g, ring, 1, g->player, 0, 0, 0, NULL);
    uint32_t from = g->nmsg;
    keys_paged(g, "lhl"); /* the pack's letters all taken */
    ck_assert_int_eq(carried(g, dagger), 0);
    ck_assert(!said_since(g, from, "pack is full"));
    ck_assert(reg_get(&g->reg, d)->flags & IF_THROWN);
    reg_del(&g->reg, extra); /* a letter free: taken on the next step onto it */
    keys_paged(g, "hl");
    ck_assert_int_eq(carried(g, dagger), 1);
    /* dropped marked again, with the pack too heavy for it */
    handle_t in = carried_handle(g, dagger);
    reg_get(&g->reg, in)->flags |= IF_THROWN;
    keys_paged(g, "d");
    key(g, (uint32_t)('a' + reg_get(&g->reg, in)->a[0]));
    g->prompt = PROMPT_NONE;
    ck_assert_int_eq(carried(g, dagger), 0);
    handle_t h = carried_handle(g, ring);
    reg_del(&g->reg, h); /* a letter for the arrows */
    int room = CARRY_CAPACITY - item_carried_weight(g, g->player);
    if (room > 5)
        item_new(g, arrow, room - 5, g->player, 0, 0, 0, NULL);
    ck_assert_int_lt(CARRY_CAPACITY - item_carried_weight(g, g->player), 10);
    from = g->nmsg;
    keys_paged(g, "hl");
    ck_assert_int_eq(carried(g, dagger), 0);
    ck_assert(!said_since(g, from, "too heavy"));
    game_free(g);
}
END_TEST

/* Thrown daggers hurt, never break and land where they stopped; a
 * fighter's arrows from the bow hurt, some break, the rest land and can
 * be picked up; with no launcher, arrows cannot be fired. */
START_TEST(throwing_and_firing)
{
    game_t *g = alone_in_room(C, 5, 0, FIGHTER, 6);
    handle_t m = dummy(g, "orc", 4, 0);
    uint16_t dagger = item_named(C, "dagger"), arrow = item_named(C, "arrow");
    item_new(g, dagger, 1, g->player, 0, 0, 0, NULL);
    handle_t d = carried_handle(g, dagger);
    ck_assert_uint_ne(d, HANDLE_NONE);
    int letter = 'a' + reg_get(&g->reg, d)->a[0], lying = on_floor(g, dagger);
    key(g, 't');
    key(g, (uint32_t)letter);
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    key(g, KEY_ENTER);
    ck_assert_int_eq(carried(g, dagger), 0);
    ck_assert_int_eq(on_floor(g, dagger), lying + 1); /* "breaks" 0: it always lands */
    int arrows = carried(g, arrow), hits = 0, lying_arrows = on_floor(g, arrow);
    ck_assert_int_gt(arrows, 10);
    for (int i = 0; i < 20; i++) {
        int hp = reg_get(&g->reg, m)->hp;
        keys_paged(g, "f.");
        hits += reg_get(&g->reg, m)->hp < hp;
    }
    ck_assert_int_eq(carried(g, arrow), arrows - 20);
    int landed = on_floor(g, arrow) - lying_arrows;
    ck_assert_int_gt(hits, 0);
    ck_assert_int_lt(landed, 20);        /* some that hit broke (35 %) */
    ck_assert_int_ge(landed, 20 - hits); /* every miss landed */
    ck_assert_int_gt(landed, 0);
    /* they lie on the line behind the orc or under it, to be picked up */
    const obj_t *p = reg_get(&g->reg, g->player), *o = reg_get(&g->reg, m);
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *it = reg_get(&g->reg, h);
        if (it->type == OBJ_ITEM && !it->target && it->kind == arrow && it->depth == g->depth &&
            abs(it->x - o->x) + abs(it->y - o->y) < 12)
            ck_assert(it->y == p->y && it->x > p->x && it->x >= o->x);
    }
    /* no bow: the arrows stay put and f says why */
    handle_t bow = missile_launcher(g, g->player);
    ck_assert_uint_ne(bow, HANDLE_NONE);
    ck_assert_int_eq(item_unequip(g, g->player, bow), 0);
    uint32_t from = g->nmsg;
    key(g, 'f');
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert(said_since(g, from, "nothing to fire"));
    game_free(g);
}
END_TEST

/* Something not made for throwing (a ration) does 1d2 at most (twice on
 * a crit), and lands unbroken. */
START_TEST(throwing_anything)
{
    game_t *g = alone_in_room(C, 14, 0, FIGHTER, 6);
    handle_t m = dummy(g, "kobold", 0, 3); /* no armour to soak 1d2 */
    uint16_t food = item_named(C, "ration of food");
    int lying = on_floor(g, food), hits = 0;
    handle_t r = item_new(g, food, 20, g->player, 0, 0, 0, NULL);
    for (int i = 0; i < 20; i++) {
        int hp = reg_get(&g->reg, m)->hp;
        const obj_t *o = reg_get(&g->reg, m);
        int cost = missile_throw(g, g->player, r, o->x, o->y);
        ck_assert_msg(cost > 0, "throw %d: %s", i, last_msg(g));
        int dealt = hp - reg_get(&g->reg, m)->hp;
        ck_assert_int_le(dealt, 4);
        hits += dealt > 0;
    }
    ck_assert_int_gt(hits, 0);
    ck_assert_int_eq(on_floor(g, food), lying + 20); /* breaks 0 */
    game_free(g);
}
END_TEST

/* A dart thrown at a spot past its reach (8) says it falls short and
 * lies where its reach ran out; one thrown within reach says nothing of
 * the kind. */
START_TEST(a_throw_past_its_reach_falls_short)
{
    game_t *g = alone_in_room(C, 6, 0, WIZARD, 12);
    uint16_t dart = item_named(C, "dart");
    handle_t h = carried_handle(g, dart);
    ck_assert_uint_ne(h, HANDLE_NONE); /* the wizard's kit */
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    uint32_t from = g->nmsg;
    ck_assert_int_gt(missile_throw(g, g->player, h, x + 11, y), 0);
    ck_assert_msg(said_since(g, from, "You throw a dart."), "%s", last_msg(g));
    ck_assert_str_eq(last_msg(g), "The dart falls short.");
    ck_assert_uint_ne(item_floor_at(g, g->depth, x + 8, y), HANDLE_NONE);
    from = g->nmsg;
    ck_assert_int_gt(missile_throw(g, g->player, h, x + 5, y), 0);
    ck_assert_msg(said_since(g, from, "You throw a dart."), "%s", last_msg(g));
    ck_assert(!said_since(g, from, "falls short"));
    ck_assert_uint_ne(item_floor_at(g, g->depth, x + 5, y), HANDLE_NONE);
    game_free(g);
}
END_TEST

/* A dart thrown past a wall or a closed door says what it hit and lies
 * before it; one thrown at open floor within reach says nothing of it. */
START_TEST(a_throw_into_a_wall_says_so)
{
    game_t *g = alone_in_room(C, 6, 0, WIZARD, 6);
    handle_t h = carried_handle(g, item_named(C, "dart"));
    ck_assert_uint_ne(h, HANDLE_NONE);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y;
    uint32_t from = g->nmsg;
    ck_assert_int_gt(missile_throw(g, g->player, h, x + 7, y - 3), 0);
    ck_assert_msg(said_since(g, from, "You throw a dart."), "%s", last_msg(g));
    ck_assert_str_eq(last_msg(g), "The dart hits the wall.");
    level_t *lv = level_current(g);
    lv->terrain[y * lv->w + x - 7] = MAP_DOOR_CLOSED;
    lv->opaque_ok = 0;
    h = carried_handle(g, item_named(C, "dart"));
    ck_assert_int_gt(missile_throw(g, g->player, h, x - 7, y), 0);
    ck_assert_str_eq(last_msg(g), "The dart hits the closed door.");
    ck_assert_uint_ne(item_floor_at(g, g->depth, x - 6, y), HANDLE_NONE);
    from = g->nmsg;
    h = carried_handle(g, item_named(C, "dart"));
    ck_assert_int_gt(missile_throw(g, g->player, h, x, y + 4), 0);
    ck_assert(!said_since(g, from, "hits the") && !said_since(g, from, "falls short"));
    game_free(g);
}
END_TEST

/* A kobold archer's arrow that misses flies on behind the player and is
 * told where it strikes the wall there, in the shooter's words. */
START_TEST(a_missed_shot_hits_the_wall_behind)
{
    game_t *g = alone_in_room(C, 7, 0, FIGHTER, 6);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 10000;
    level_t *lv = level_current(g);
    lv->terrain[p->y * lv->w + p->x - 1] = MAP_WALL;
    lv->opaque_ok = 0;
    vision_update(g);
    handle_t a = spawn_at(g, "kobold archer", 5, 0);
    int misses = 0;
    for (int i = 0; i < 60; i++) {
        uint32_t n = g->nmsg;
        ck_assert_int_gt(missile_monster(g, a, g->player), 0);
        bool missed = said_since(g, n, "shot misses you");
        misses += missed;
        ck_assert_int_eq(said_since(g, n, "The kobold archer's shot hits the wall."), missed);
    }
    ck_assert_int_gt(misses, 0);
    game_free(g);
}
END_TEST

/* v chooses the quiver; f fires it before anything else; the inventory
 * says which it is; darts are thrown from the quiver with no launcher. */
START_TEST(quiver)
{
    game_t *g = alone_in_room(C, 6, 0, WIZARD, 6);
    uint16_t dart = item_named(C, "dart");
    handle_t h = carried_handle(g, dart);
    ck_assert_uint_ne(h, HANDLE_NONE); /* the wizard's kit */
    item_new(g, item_named(C, "arrow"), 5, g->player, 0, 0, 0, NULL);
    ck_assert_uint_eq(missile_ready(g), h); /* arrows need a bow: darts are ready */
    key(g, 'v');
    key(g, (uint32_t)('a' + reg_get(&g->reg, h)->a[0]));
    ck_assert_uint_eq(g->quiver, h);
    char d[96];
    item_describe(g, h, d, sizeof d);
    ck_assert_msg(strstr(d, "(in quiver)"), "%s", d);
    int darts = carried(g, dart);
    dummy(g, "kobold", 0, 3);
    keys_paged(g, "f.");
    ck_assert_int_eq(carried(g, dart), darts - 1);
    game_free(g);
}
END_TEST

/* A kobold archer shoots from afar along the line, through the attack
 * chain; with a kobold in the way it does not. */
START_TEST(monsters_shoot)
{
    game_t *g = alone_in_room(C, 7, 0, FIGHTER, 6);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 10000;
    handle_t a = spawn_at(g, "kobold archer", 5, 0);
    reg_get(&g->reg, a)->flags |= OF_AWARE;
    int shots = 0, hurt = 0; /* turns it lost hit points (mending comes every eighth) */
    for (int i = 0; i < 20; i++) {
        uint32_t n = g->nmsg;
        int hp = reg_get(&g->reg, g->player)->hp;
        key(g, '.');
        hurt += reg_get(&g->reg, g->player)->hp < hp;
        shots += said_since(g, n, "shoots an arrow at you");
        obj_t *o = reg_get(&g->reg, a); /* keep it at range */
        o->x = (int16_t)(reg_get(&g->reg, g->player)->x + 5);
        o->y = reg_get(&g->reg, g->player)->y;
        reg_refile(&g->reg, a);
    }
    ck_assert_int_gt(shots, 0);
    ck_assert_int_gt(hurt, 0);
    /* a friend in the way: no shot */
    handle_t k = spawn_at(g, "kobold", 2, 0);
    reg_get(&g->reg, k)->hp = reg_get(&g->reg, k)->hp_max = 100000;
    ck_assert_int_eq(missile_monster(g, a, g->player), 0);
    game_free(g);
}
END_TEST

/* A fireball bursts on the first creature on the line and hurts all
 * within its radius but the caster; a buff lasts on the caster; a spell
 * past bit 16 is known and cast, and saved. */
START_TEST(area_buff_and_wide_sets)
{
    game_t *g = alone_in_room(C, 8, 0, WIZARD, 6);
    int fb = spell_named(C, "fireball"), sh = spell_named(C, "bless");
    ck_assert_int_ge(fb, 0);
    ck_assert_int_ge(sh, 16);
    g->pc.spells |= 1u << fb | 1u << sh;
    g->pc.mana = g->pc.mana_max = 100;
    handle_t a = dummy(g, "orc", 4, 0), b = dummy(g, "orc", 5, 1), far = dummy(g, "orc", 0, -5);
    cast_key(g, fb);
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    key(g, '.');
    ck_assert_int_eq(g->pc.mana, 100 - C->spells[fb].mana);
    ck_assert_int_lt(reg_get(&g->reg, a)->hp, 100000);
    ck_assert_int_lt(reg_get(&g->reg, b)->hp, 100000);
    ck_assert_int_eq(reg_get(&g->reg, far)->hp, 100000);
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->hp, p->hp_max);
    cast_key(g, sh);
    ck_assert_int_eq(g->prompt, PROMPT_NONE); /* a buff does not aim */
    ck_assert_uint_ne(effect_find(g, g->player, (uint16_t)C->spells[sh].status), HANDLE_NONE);
    buf_t buf;
    buf_init(&buf);
    ck_assert_int_eq(game_snapshot(g, &buf), 0);
    char err[160] = "";
    game_t *h = game_load(C, (const uint8_t *)buf.data, buf.len, err, sizeof err);
    ck_assert_msg(h, "%s", err);
    ck_assert_uint_eq(h->pc.spells, g->pc.spells);
    buf_free(&buf);
    game_free(h);
    game_free(g);
}
END_TEST

/* Powers do what an item does (identify), detection finds a hidden
 * trap, and a summoner's spell brings creatures around it. */
START_TEST(power_detect_summon)
{
    game_t *g = alone_in_room(C, 9, 0, CLERIC, 6);
    g->pc.mana = g->pc.mana_max = 100;
    int id = spell_named(C, "identify"), ft = spell_named(C, "find traps"),
        sk = spell_named(C, "summon kin");
    g->pc.spells |= 1u << id | 1u << ft;
    handle_t it = item_new(g, item_named(C, "ring of protection"), 1, g->player, 0, 0, 0, NULL);
    ck_assert(!(reg_get(&g->reg, it)->flags & IF_KNOWN));
    cast_key(g, id);
    ck_assert(reg_get(&g->reg, it)->flags & IF_KNOWN);
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int cell = (p->y + 3) * lv->w + p->x + 3;
    lv->trap[cell] = 1; /* a hidden trap of the first kind */
    cast_key(g, ft);
    ck_assert(lv->trap[cell] & TRAP_FOUND);
    handle_t shaman = spawn_at(g, "kobold shaman", -3, 0);
    int before = 0, after = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h))
        before += reg_get(&g->reg, h)->type == OBJ_CREATURE;
    ck_assert(spell_cast_at(g, shaman, g->player, sk));
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h))
        after += reg_get(&g->reg, h)->type == OBJ_CREATURE;
    ck_assert_int_gt(after, before);
    game_free(g);
}
END_TEST

/* Power attack: a stance that costs no time and makes the blows that
 * land land harder: the damage per hit of 300 blows, in tenths. */
static long blows(content_t *c, bool power)
{
    game_t *g = alone(c, 10, 0, FIGHTER);
    open_room(g, 3);
    handle_t m = dummy(g, "kobold", 1, 0);
    if (power) {
        uint64_t t0 = g->sched.now;
        key(g, 0x01);
        ck_assert_uint_eq(g->sched.now, t0);
        ck_assert_int_eq(g->pc.power_attack, 1);
    }
    long dealt = 0, hits = 0;
    for (int i = 0; i < 300; i++) {
        int hp = reg_get(&g->reg, m)->hp;
        ev_info_t e = {.type = EV_ATTACK, .actor = g->player, .victim = m, .map = -1};
        event_throw(g, &e);
        dealt += hp - reg_get(&g->reg, m)->hp;
        hits += e.amount[2];
    }
    game_free(g);
    ck_assert_int_gt(hits, 30);
    return dealt * 10 / hits;
}

START_TEST(fighter_power_attack)
{
    long plain = blows(C, false), power = blows(C, true);
    ck_assert_int_ge(power, plain + 15); /* 2 more a hit */
}
END_TEST

/* Hiding with nothing in view watching costs no time and says so (it
 * used to say "you are watched" and take two turns); with the only
 * watcher right beside the rogue it says why it fails. */
START_TEST(hiding_with_nobody_watching_costs_nothing)
{
    game_t *g = alone_in_room(C, 11, 0, ROGUE, 6);
    uint32_t from = g->nmsg;
    ck_assert_int_eq(power_use(g), 0);
    ck_assert_msg(said_since(g, from, "Nothing in view is watching you."), "%s", last_msg(g));
    dummy(g, "kobold", 1, 0);
    vision_update(g);
    from = g->nmsg;
    ck_assert_int_eq(power_use(g), 2 * SCHED_MOVE);
    ck_assert_msg(said_since(g, from, "You cannot hide from a foe right beside you."), "%s",
                  last_msg(g));
    game_free(g);
}
END_TEST

/* A heal at full hit points is not cast: the mana and the turn are kept
 * and the message says why (it used to spend 4 mana to "feel better"). */
START_TEST(a_heal_at_full_health_is_not_cast)
{
    game_t *g = alone_in_room(C, 12, 0, CLERIC, 6);
    g->pc.mana = g->pc.mana_max = 20;
    uint64_t t0 = g->sched.now;
    uint32_t from = g->nmsg;
    cast_key(g, spell_named(C, "cure wounds"));
    ck_assert_int_eq(g->pc.mana, 20);
    ck_assert_uint_eq(g->sched.now, t0);
    ck_assert_msg(said_since(g, from, "You are not hurt: cure wounds would do nothing."), "%s",
                  last_msg(g));
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max / 2;
    cast_key(g, spell_named(C, "cure wounds"));
    ck_assert_int_eq(g->pc.mana, 17); /* cure wounds costs 3 */
    ck_assert_int_gt(p->hp, p->hp_max / 2);
    game_free(g);
}
END_TEST

/* A rogue hides: a watcher at a distance loses it (so the next blow is a
 * sneak attack); one next to it does not. */
START_TEST(rogue_hides)
{
    game_t *g = alone_in_room(C, 11, 0, ROGUE, 6);
    handle_t far = dummy(g, "kobold", 4, 0), near = dummy(g, "kobold", -1, 0);
    int lost = 0;
    for (int i = 0; i < 20 && !lost; i++) {
        reg_get(&g->reg, far)->flags |= OF_AWARE;
        uint64_t t0 = g->sched.now;
        int cost = power_use(g); /* the time it takes: game_input spends it */
        ck_assert_int_eq(cost, 2 * SCHED_MOVE);
        ck_assert_uint_eq(g->sched.now, t0);
        lost = !(reg_get(&g->reg, far)->flags & OF_AWARE);
        ck_assert(reg_get(&g->reg, near)->flags & OF_AWARE);
    }
    ck_assert(lost);
    game_free(g);
}
END_TEST

/* Turning: a weak undead crumbles, a strong one flees or stands firm,
 * the living do not care; it costs mana. */
START_TEST(cleric_turns_undead)
{
    game_t *g = alone_in_room(C, 12, 0, CLERIC, 6);
    g->pc.mana = g->pc.mana_max = 100;
    g->pc.xl = 10;
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 10000;
    handle_t sk = spawn_at(g, "skeleton", 3, 0), orc = spawn_at(g, "orc", -3, 0);
    uint32_t from = g->nmsg;
    key(g, 0x01);
    ck_assert_int_eq(g->pc.mana, 100 - TURN_MANA);
    ck_assert_ptr_null(reg_get(&g->reg, sk)); /* level 4: under half of 10 */
    ck_assert(said_since(g, from, "crumbles to dust"));
    ck_assert_ptr_nonnull(reg_get(&g->reg, orc));
    g->pc.xl = 1;
    handle_t gh = spawn_at(g, "ghoul", 0, 3);
    int afraid = 0;
    for (int i = 0; i < 30 && !afraid; i++) {
        key(g, 0x01);
        afraid = status_has(g, gh, EFK_(AFRAID));
    }
    ck_assert(afraid);
    game_free(g);
}
END_TEST

/* With no undead in view, turning costs nothing and says so, as the
 * spark does with nothing to spark at: a cleric trying the key in town
 * keeps the mana. */
START_TEST(turning_with_no_undead_in_view_costs_nothing)
{
    game_t *g = alone_in_room(C, 12, 0, CLERIC, 6);
    g->pc.mana = g->pc.mana_max = 100;
    spawn_at(g, "orc", -3, 0);
    uint32_t from = g->nmsg;
    uint64_t now = g->sched.now;
    key(g, 0x01);
    ck_assert_int_eq(g->pc.mana, 100);
    ck_assert_uint_eq(g->sched.now, now);
    ck_assert_msg(said_since(g, from, "You see no undead to turn."), "%s", last_msg(g));
    game_free(g);
}
END_TEST

/* The wizard's spark: at a target, free of mana. */
START_TEST(wizard_spark)
{
    game_t *g = alone_in_room(C, 13, 0, WIZARD, 6);
    handle_t m = dummy(g, "orc", 3, 0);
    int mana = g->pc.mana;
    key(g, 0x01);
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    key(g, '.');
    ck_assert_int_lt(reg_get(&g->reg, m)->hp, 100000);
    ck_assert_int_eq(g->pc.mana, mana);
    ck_assert_uint_eq(g->target, m);
    game_free(g);
}
END_TEST

/* The spark at a creature in view beyond its 8 steps, with nothing on
 * the way: as a bolt beyond reach, the turn is kept and the message says
 * why (it used to fizzle out and cost the turn). */
START_TEST(spark_beyond_reach_is_not_flung)
{
    game_t *g = alone(C, 3, 0, WIZARD);
    open_room(g, 14);
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    for (int y = p->y - 14; y <= p->y + 14; y++)
        for (int x = p->x - 14; x <= p->x + 14; x++)
            lv->region[y * lv->w + x] = 1;
    level_regions_changed(lv);
    lv->regions[0].lit = 1;
    lv->opaque_ok = 0;
    handle_t k = dummy(g, "kobold", 12, 0);
    vision_update(g);
    ck_assert(vision_sees(g, k));
    uint64_t t0 = g->sched.now;
    key(g, 0x01);
    ck_assert_int_eq(g->prompt, PROMPT_TARGET);
    key(g, '.');
    ck_assert_uint_eq(g->sched.now, t0);
    ck_assert_int_eq(reg_get(&g->reg, k)->hp, 100000);
    ck_assert_msg(!strcmp(last_msg(g), "That is out of reach: your spark goes 8 steps."), "%s",
                  last_msg(g));
    game_free(g);
}
END_TEST

/* The spark is raw force, not a spell: a clay golem (immune to magic)
 * and a flesh golem (every direct spell fails on it) are hurt by it all
 * the same, with no mana left. On the old magic spark neither was. */
START_TEST(wizard_spark_hurts_what_shrugs_off_spells)
{
    static const char *const KINDS[] = {"clay golem", "flesh golem"};
    for (int i = 0; i < 2; i++) {
        game_t *g = alone_in_room(C, 13, 0, WIZARD, 6);
        g->pc.mana = 0;
        handle_t m = dummy(g, KINDS[i], 3, 0);
        int hurt = 0;
        for (int n = 0; n < 5; n++) {
            key(g, 0x01);
            key(g, '.');
            hurt = 100000 - reg_get(&g->reg, m)->hp;
        }
        ck_assert_msg(hurt >= 5, "%s took %d from 5 sparks: %s", KINDS[i], hurt, last_msg(g));
        ck_assert_int_eq(g->pc.mana, 0);
        game_free(g);
    }
}
END_TEST

/* Short of mana, a wizard is told the spark needs none; a cleric, whose
 * power is no spark, is told the cost alone. */
START_TEST(short_of_mana_names_the_spark)
{
    game_t *g = alone_in_room(C, 13, 0, WIZARD, 6);
    dummy(g, "orc", 3, 0);
    g->pc.mana = 1;
    uint32_t from = g->nmsg;
    cast_key(g, spell_named(C, "magic missile"));
    ck_assert_msg(
        said_since(g, from, "You need 2 mana to cast magic missile; your spark (^A) needs none."),
        "%s", last_msg(g));
    ck_assert_int_eq(g->pc.mana, 1);
    game_free(g);
    g = alone_in_room(C, 12, 0, CLERIC, 6);
    g->pc.mana = 1;
    from = g->nmsg;
    cast_key(g, spell_named(C, "cure wounds"));
    ck_assert_msg(said_since(g, from, "You need 3 mana to cast cure wounds."), "%s", last_msg(g));
    game_free(g);
}
END_TEST

Suite *suite_game_tactics(void)
{
    Suite *s = suite_create("game_tactics");
    TCase *t = tcase_create("tactics");
    with_shipped_content(t);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, missile_line);
    tcase_add_test(t, missile_round_a_corner);
    tcase_add_test(t, bolt_beyond_reach_is_not_cast);
    tcase_add_test(t, missile_beyond_range_round_a_corner);
    tcase_add_test(t, target_cursor);
    tcase_add_test(t, target_question_fits_the_line);
    tcase_add_test(t, target_none_in_view);
    tcase_add_test(t, own_missiles_taken_up_in_passing);
    tcase_add_test(t, own_missiles_in_a_run_say_one_line);
    tcase_add_test(t, a_throw_past_its_reach_falls_short);
    tcase_add_test(t, a_throw_into_a_wall_says_so);
    tcase_add_test(t, a_missed_shot_hits_the_wall_behind);
    tcase_add_test(t, own_missiles_left_when_they_do_not_fit);
    tcase_add_test(t, throwing_and_firing);
    tcase_add_test(t, throwing_anything);
    tcase_add_test(t, quiver);
    tcase_add_test(t, monsters_shoot);
    tcase_add_test(t, area_buff_and_wide_sets);
    tcase_add_test(t, power_detect_summon);
    tcase_add_test(t, fighter_power_attack);
    tcase_add_test(t, rogue_hides);
    tcase_add_test(t, a_heal_at_full_health_is_not_cast);
    tcase_add_test(t, hiding_with_nobody_watching_costs_nothing);
    tcase_add_test(t, cleric_turns_undead);
    tcase_add_test(t, turning_with_no_undead_in_view_costs_nothing);
    tcase_add_test(t, wizard_spark);
    tcase_add_test(t, wizard_spark_hurts_what_shrugs_off_spells);
    tcase_add_test(t, short_of_mana_names_the_spark);
    tcase_add_test(t, spark_beyond_reach_is_not_flung);
    suite_add_tcase(s, t);
    return s;
}
