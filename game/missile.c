/* missile — throws, shots, the quiver and monsters' ranged attacks (see
 * missile.h). */
#include "missile.h"
#include <stdio.h>
#include <stdlib.h>
#include "creature.h"
#include "event.h"
#include "item.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "status.h"
#include "target.h"
#include "vision.h"

#define FIRE_RANGE      10 /* a launcher's reach when its kind names none */
#define THROW_PENALTY   4  /* to hit with something not made for throwing */
#define STEPS_PER_MINUS 3  /* a point off the to-hit for every this many steps */

/* One missile's numbers, from whoever sends it. */
typedef struct {
    handle_t who, it; /* it: the missile item (NONE: a monster's shot) */
    int ax, ay;       /* the cell aimed at: a peaceful elsewhere is passed by */
    int to_hit, range;
    dice_t dice;
    int bonus; /* added to the damage roll */
    uint8_t dtype;
    uint8_t breaks;
} shot_t;

handle_t missile_launcher(const game_t *g, handle_t who)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, who, inv);
    for (int i = 0; i < n; i++) {
        const obj_t *o = reg_get(&g->reg, inv[i]);
        if ((o->flags & IF_EQUIPPED) && item_kind(g, o)->slot == SLOT_LAUNCHER)
            return inv[i];
    }
    return HANDLE_NONE;
}

/* Ammunition for the launcher at hand, or a thing made for throwing. */
static bool fires(const game_t *g, const obj_t *o, const item_kind_t *bow)
{
    const item_kind_t *k = item_kind(g, o);
    if (o->flags & IF_EQUIPPED)
        return false;
    if (k->ammo != AMMO_NONE)
        return bow && bow->ammo == k->ammo;
    return (k->flags & IKF_THROW) != 0;
}

bool missile_quiverable(const game_t *g, const obj_t *it)
{
    const item_kind_t *k = item_kind(g, it);
    return !(it->flags & IF_EQUIPPED) && (k->ammo != AMMO_NONE || (k->flags & IKF_THROW));
}

handle_t missile_ready(const game_t *g)
{
    handle_t bh = missile_launcher(g, g->player);
    const obj_t *b = reg_get(&g->reg, bh);
    const item_kind_t *bow = b ? item_kind(g, b) : NULL;
    const obj_t *q = reg_get(&g->reg, g->quiver);
    if (q && q->type == OBJ_ITEM && q->target == g->player && fires(g, q, bow))
        return g->quiver;
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int pass = 0; pass < 2; pass++) /* ammunition for the bow first */
        for (int i = 0; i < n; i++) {
            const obj_t *o = reg_get(&g->reg, inv[i]);
            if (fires(g, o, bow) && (pass || item_kind(g, o)->ammo != AMMO_NONE))
                return inv[i];
        }
    return HANDLE_NONE;
}

/* The numbers of who sending it, shot from bow when bow is set. */
static shot_t shot_of(const game_t *g, handle_t who, handle_t it, handle_t bow)
{
    const obj_t *o = reg_get(&g->reg, it), *b = reg_get(&g->reg, bow);
    const item_kind_t *k = item_kind(g, o);
    bool player = who == g->player;
    shot_t s = {who, it, 0, 0, 0, 0, {1, 2, 0}, 0, DT_HIT, k->breaks};
    s.to_hit = player ? pc_mod(g->pc.ab[AB_DEX]) : 0;
    if (b) {
        const item_kind_t *bk = item_kind(g, b);
        s.dice = k->power;
        s.to_hit += bk->to_hit + k->to_hit + b->hp + o->hp;
        s.bonus = bk->damage + k->damage + b->hp + o->hp;
        s.range = bk->range ? bk->range : FIRE_RANGE;
    } else if (k->flags & IKF_THROW) {
        s.dice = k->power;
        s.to_hit += k->to_hit + o->hp;
        s.bonus = k->damage + o->hp + (player ? pc_mod(g->pc.ab[AB_STR]) : 0);
        s.range = k->range ? k->range : 8;
    } else {
        s.to_hit -= THROW_PENALTY;
        s.range = k->range ? k->range : k->weight <= 50 ? 8 : k->weight <= 150 ? 5 : 3;
    }
    return s;
}

/* One attack of the shot on victim, step steps out: true on a hit. */
static bool strike(game_t *g, const shot_t *s, handle_t victim, int step)
{
    ev_info_t e = {.type = EV_ATTACK,
                   .actor = s->who,
                   .victim = victim,
                   .item = s->it,
                   .map = -1,
                   .dtype = s->dtype,
                   .flags = EVF_MISSILE};
    e.amount[0] = s->to_hit - step / STEPS_PER_MINUS;
    int dmg = dice_roll(&s->dice, &g->play) + s->bonus;
    e.amount[1] = dmg > 1 ? dmg : 1;
    event_throw(g, &e);
    return e.amount[2] != 0;
}

/* The path from who towards (x, y), cut at the aimed cell. */
static int flight(game_t *g, handle_t who, int x, int y, int range,
                  target_cell_t path[TARGET_RANGE_MAX])
{
    const obj_t *o = reg_get(&g->reg, who);
    int n = target_path(g, o->x, o->y, x, y, range, path);
    for (int i = 0; i < n; i++)
        if (path[i].x == x && path[i].y == y)
            return i + 1;
    return n;
}

/* Sends the shot along the line: each creature on it is attacked until
 * one is hit. The index of the cell where it stopped (-1: it never left
 * the thrower's cell), and whether it hit. */
static int fly(game_t *g, const shot_t *s, const target_cell_t *path, int n, bool *hit)
{
    int depth = reg_get(&g->reg, s->who)->depth;
    *hit = false;
    for (int i = 0; i < n; i++) {
        handle_t v = level_creature_at(g, depth, path[i].x, path[i].y);
        if (v && v != s->who && !target_spares(g, s->who, v, s->ax, s->ay) &&
            strike(g, s, v, i + 1)) {
            *hit = true;
            return i;
        }
        if (g->state != GAME_RUNNING || !reg_get(&g->reg, s->who))
            return i;
    }
    return n - 1;
}

/* Where the missile ends: broken when it hit and its kind breaks, else on
 * the floor where it stopped. */
static void land(game_t *g, handle_t it, int depth, int x, int y, bool hit)
{
    obj_t *o = reg_get(&g->reg, it);
    if (!o)
        return;
    if (hit && rng_percent(&g->play, item_kind(g, o)->breaks)) {
        const level_t *lv = level_current(g);
        if (depth == g->depth && lv && level_visible(lv, x, y))
            item_say(g, "<Obj> breaks.", HANDLE_NONE, it);
        reg_del(&g->reg, it);
        return;
    }
    o->depth = (int16_t)depth;
    o->x = (int16_t)x;
    o->y = (int16_t)y;
    reg_refile(&g->reg, it);
}

/* How a shot that hit no one stopped short of its aim, [0] the player's
 * missile by its own noun, [1] a monster's shot by its shooter's: at a
 * wall, a door or a tree (%s its name), or where its reach ran out. */
enum { STOP_AT, STOP_SHORT };
static const char *const STOP_SAYS[2][2] = {
    [STOP_AT] = {"<The:obj> hit<s:obj> the %s.", "<Poss:Actor> shot hits the %s."},
    [STOP_SHORT] = {"<The:obj> fall<s:obj> short.", NULL},
};

/* What stopped the shot from (x0, y0) after the n cells of path, short of
 * its aim (past: flying on beyond it): STOP_AT with what it hit in *what
 * and where in *bx, *by, STOP_SHORT, or -1 when it reached the aim. */
static int stopped_by(game_t *g, const shot_t *s, int x0, int y0, const target_cell_t *path, int n,
                      bool past, const char **what, int *bx, int *by)
{
    if (!past && n > 0 && path[n - 1].x == s->ax && path[n - 1].y == s->ay)
        return -1;
    *bx = x0, *by = y0;
    if (n >= s->range)
        return STOP_SHORT;
    target_blocker(x0, y0, s->ax, s->ay, n, bx, by);
    const terrain_kind_t *t = &g->c->terrain[level_terrain(level_current(g), *bx, *by)];
    *what = t->name;
    return (t->flags & TF_OPAQUE) ? STOP_AT : STOP_SHORT;
}

/* Says where the shot that hit no one stopped short of its aim (past:
 * or beyond it): the player's always, a monster's when the player sees
 * where it struck. */
static void stop_say(game_t *g, const shot_t *s, int x0, int y0, const target_cell_t *path, int n,
                     bool past)
{
    const char *what = "";
    int bx, by, why = stopped_by(g, s, x0, y0, path, n, past, &what, &bx, &by);
    const char *tmpl = why < 0 ? NULL : STOP_SAYS[why][s->it ? 0 : 1];
    if (!tmpl || (!s->it && !level_visible(level_current(g), bx, by)))
        return;
    char line[96];
    snprintf(line, sizeof line, tmpl, what);
    if (s->it)
        item_say(g, line, HANDLE_NONE, s->it);
    else
        creature_say(g, line, s->who, HANDLE_NONE);
}

/* who sends one of it, from bow (NONE: thrown), towards (x, y). */
static int send(game_t *g, handle_t who, handle_t it, handle_t bow, int x, int y)
{
    shot_t s = shot_of(g, who, it, bow);
    handle_t one = item_detach(g, it);
    if (!one)
        return 0;
    s.it = one;
    s.ax = x, s.ay = y;
    item_say(g, bow ? "<Actor> shoot<s:Actor> <obj>." : "<Actor> throw<s:Actor> <obj>.", who, one);
    const obj_t *w = reg_get(&g->reg, who);
    int depth = w->depth, wx = w->x, wy = w->y;
    target_cell_t path[TARGET_RANGE_MAX];
    int n = flight(g, who, x, y, s.range, path);
    bool hit;
    int at = fly(g, &s, path, n, &hit);
    if (who == g->player && !hit && at == n - 1)
        stop_say(g, &s, wx, wy, path, n, false);
    if (at >= 0 && at < n)
        land(g, one, depth, path[at].x, path[at].y, hit);
    else
        land(g, one, depth, wx, wy, false);
    obj_t *o = who == g->player ? reg_get(&g->reg, one) : NULL;
    if (o && o->type == OBJ_ITEM) /* not broken: the player's to take up in passing */
        o->flags |= IF_THROWN;
    return SCHED_MOVE;
}

int missile_throw(game_t *g, handle_t who, handle_t it, int x, int y)
{
    const obj_t *o = reg_get(&g->reg, it);
    if (!o || o->type != OBJ_ITEM || o->target != who)
        return 0;
    if (o->flags & IF_EQUIPPED) {
        msg_add(g, "You are using that: take it off first.");
        return 0;
    }
    return send(g, who, it, HANDLE_NONE, x, y);
}

int missile_fire(game_t *g, int x, int y)
{
    handle_t it = missile_ready(g);
    if (!it)
        return missile_cmd_fire(g);
    g->quiver = it;
    const obj_t *o = reg_get(&g->reg, it);
    bool shot = item_kind(g, o)->ammo != AMMO_NONE;
    return send(g, g->player, it, shot ? missile_launcher(g, g->player) : HANDLE_NONE, x, y);
}

int missile_cmd_fire(game_t *g)
{
    handle_t it = missile_ready(g);
    if (!it) {
        msg_add(g, missile_launcher(g, g->player)
                       ? "You have no ammunition for your launcher."
                       : "You have nothing to fire: wield a bow or sling, or quiver darts (v).");
        return 0;
    }
    g->quiver = it;
    return target_begin(g, AIM_FIRE, 0);
}

/* A monster's shot that missed flies on past its aim, the first n cells
 * of its line behind it, to its reach, a wall or the next creature (the
 * spent shot strikes no one more), and is told where it struck a wall. */
static void fly_on(game_t *g, const shot_t *s, int x0, int y0, int n)
{
    target_cell_t path[TARGET_RANGE_MAX];
    int m = target_path(g, x0, y0, s->ax, s->ay, s->range, path);
    int depth = reg_get(&g->reg, s->who)->depth;
    for (int i = n; i < m; i++)
        if (level_creature_at(g, depth, path[i].x, path[i].y))
            return;
    if (depth != g->depth)
        return;
    stop_say(g, s, x0, y0, path, m, true);
}

int missile_monster(game_t *g, handle_t m, handle_t foe)
{
    const obj_t *o = reg_get(&g->reg, m), *f = reg_get(&g->reg, foe);
    if (!o || !f || o->type != OBJ_CREATURE || f->depth != o->depth)
        return 0;
    const creature_kind_t *k = creature_kind(g, o);
    int d = abs(f->x - o->x) > abs(f->y - o->y) ? abs(f->x - o->x) : abs(f->y - o->y);
    if (!k->range || d < 2 || d > k->range)
        return 0;
    target_cell_t path[TARGET_RANGE_MAX];
    int n = flight(g, m, f->x, f->y, k->range, path);
    if (target_first(g, o->depth, m, path, n, f->x, f->y, NULL) != foe)
        return 0;
    char tmpl[64];
    snprintf(tmpl, sizeof tmpl, "<Actor> %s at <victim>.", k->shoots);
    creature_say(g, tmpl, m, foe);
    shot_t s = {m, HANDLE_NONE, f->x, f->y, 0, k->range, k->missile, 0, k->missile_dtype, 0};
    bool hit;
    fly(g, &s, path, n, &hit);
    if (!hit && g->state == GAME_RUNNING && reg_get(&g->reg, m))
        fly_on(g, &s, o->x, o->y, n);
    return SCHED_MOVE;
}
