/* spellfx — spell effects that items use too (see spellfx.h): one
 * function each, called through spell.c's table. */
#include "spellfx.h"
#include <stdio.h>
#include <stdlib.h>
#include "combat.h"
#include "creature.h"
#include "effect.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "pc.h"
#include "status.h"
#include "target.h"
#include "vision.h"

#define FX_RANGE    12
#define CHAIN_LINKS 3 /* arcs after the first creature */
#define CHAIN_REACH 3
#define PUSH_STEPS  3
#define VIGOUR_MAX  3 /* hit points a potion of vigour may add to the most */
#define FX_MAX      64

static int cheb(int x0, int y0, int x1, int y1)
{
    int dx = abs(x0 - x1), dy = abs(y0 - y1);
    return dx > dy ? dx : dy;
}

static const char *element(uint8_t dtype)
{
    static const char *const WHAT[DT_COUNT] = {
        [DT_HIT] = "force",  [DT_POISON] = "poison",       [DT_FIRE] = "fire",
        [DT_COLD] = "frost", [DT_LIGHTNING] = "lightning", [DT_ACID] = "acid",
        [DT_MAGIC] = "magic"};
    return dtype < DT_COUNT && WHAT[dtype] ? WHAT[dtype] : "force";
}

/* A spell says its name as it is cast; an item's kind has none (its use
 * said what it was). */
static void announce(game_t *g, handle_t caster, const spell_kind_t *s)
{
    char tmpl[96];
    if (!s->name[0])
        return;
    snprintf(tmpl, sizeof tmpl, "<Actor> cast<s:Actor> %s.", s->name);
    creature_say(g, tmpl, caster, HANDLE_NONE);
}

static void hurt(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s, int amount)
{
    ev_info_t e = {.type = EV_DAMAGE,
                   .actor = caster,
                   .victim = target,
                   .map = -1,
                   .dtype = s->dtype,
                   .flags = EVF_SPELL};
    e.amount[0] = amount;
    if (target != caster)
        creature_disturb(g, target);
    event_throw(g, &e);
}

/* Damage of one roll to each creature of the list still there. */
static void hurt_all(game_t *g, handle_t caster, const handle_t *hit, int n, const spell_kind_t *s,
                     const dice_t *d)
{
    int amount = dice_roll(d, &g->play);
    for (int i = 0; i < n; i++)
        if (reg_get(&g->reg, hit[i]))
            hurt(g, caster, hit[i], s, amount);
}

/* The creatures on the caster's level, the caster and peacefuls aside
 * (target_spares: a spreading spell passes them by), that keep(g, caster,
 * o, arg) wants, into out (at most FX_MAX). */
static int creatures_where(game_t *g, handle_t caster, handle_t out[FX_MAX],
                           bool (*keep)(game_t *, handle_t, handle_t, const void *),
                           const void *arg)
{
    const obj_t *c = reg_get(&g->reg, caster);
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); c && h && n < FX_MAX;
         h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && h != caster && o->depth == c->depth &&
            !target_spares(g, caster, h, -1, -1) && keep(g, caster, h, arg))
            out[n++] = h;
    }
    return n;
}

/* ---- along a line ----------------------------------------------------------------- */

bool cast_beam(SPELLFX_ARGS)
{
    (void)target;
    const obj_t *c = reg_get(&g->reg, caster);
    target_cell_t path[TARGET_RANGE_MAX];
    int n = c ? target_path(g, c->x, c->y, x, y, FX_RANGE, path) : 0, k = 0;
    handle_t hit[TARGET_RANGE_MAX];
    for (int i = 0; i < n; i++) {
        handle_t h = level_creature_at(g, c->depth, path[i].x, path[i].y);
        if (h && h != caster && !target_spares(g, caster, h, x, y))
            hit[k++] = h;
    }
    announce(g, caster, s);
    char line[64];
    snprintf(line, sizeof line, "A beam of %s lances out.", element(s->dtype));
    msg_add(g, "%s", line);
    hurt_all(g, caster, hit, k, s, d);
    return k > 0;
}

/* Within the cone: in reach, and within 45 degrees of the aim. */
static bool in_cone(game_t *g, handle_t caster, handle_t h, const void *arg)
{
    const int *aim = arg; /* x, y, reach */
    const obj_t *c = reg_get(&g->reg, caster), *o = reg_get(&g->reg, h);
    long ax = aim[0] - c->x, ay = aim[1] - c->y, dx = o->x - c->x, dy = o->y - c->y;
    long dot = ax * dx + ay * dy;
    if (cheb(c->x, c->y, o->x, o->y) > aim[2] || dot <= 0 ||
        2 * dot * dot < (ax * ax + ay * ay) * (dx * dx + dy * dy))
        return false;
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, c->x, c->y, o->x, o->y, aim[2], path);
    for (int i = 0; i < n; i++) /* nothing walls it off */
        if (path[i].x == o->x && path[i].y == o->y)
            return true;
    return false;
}

bool cast_cone(SPELLFX_ARGS)
{
    (void)target;
    int aim[3] = {x, y, s->radius ? s->radius : 4};
    handle_t hit[FX_MAX];
    int n = creatures_where(g, caster, hit, in_cone, aim);
    announce(g, caster, s);
    char line[64];
    snprintf(line, sizeof line, "A cone of %s bursts out.", element(s->dtype));
    msg_add(g, "%s", line);
    hurt_all(g, caster, hit, n, s, d);
    return n > 0;
}

/* The nearest creature within CHAIN_REACH of from not yet struck; the
 * bolt leaps past peacefuls (target_spares). */
static handle_t next_link(game_t *g, handle_t caster, handle_t from, const handle_t *done, int n)
{
    const obj_t *f = reg_get(&g->reg, from);
    handle_t best = HANDLE_NONE;
    int bd = CHAIN_REACH + 1;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); f && h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        bool struck =
            h == caster || (o->type == OBJ_CREATURE && target_spares(g, caster, h, -1, -1));
        for (int i = 0; i < n && !struck; i++)
            struck = done[i] == h;
        int dd =
            o->type == OBJ_CREATURE && o->depth == f->depth ? cheb(o->x, o->y, f->x, f->y) : bd;
        if (!struck && dd < bd)
            bd = dd, best = h;
    }
    return best;
}

bool cast_chain(SPELLFX_ARGS)
{
    (void)x, (void)y;
    announce(g, caster, s);
    if (!target)
        return false;
    handle_t hit[CHAIN_LINKS + 1] = {target};
    int n = 1;
    while (n < CHAIN_LINKS + 1 && (hit[n] = next_link(g, caster, hit[n - 1], hit, n)))
        n++;
    char first[64];
    snprintf(first, sizeof first, "A bolt of %s strikes <victim>.", element(s->dtype));
    for (int i = 0; i < n; i++) {
        creature_say(g, i ? "The bolt leaps on to <victim>." : first, HANDLE_NONE, hit[i]);
        if (reg_get(&g->reg, hit[i]))
            hurt(g, caster, hit[i], s, dice_roll(d, &g->play));
    }
    return true;
}

bool cast_push(SPELLFX_ARGS)
{
    (void)x, (void)y;
    announce(g, caster, s);
    const obj_t *c = reg_get(&g->reg, caster), *t = reg_get(&g->reg, target);
    if (!c || !t)
        return false;
    int sx = (t->x > c->x) - (t->x < c->x), sy = (t->y > c->y) - (t->y < c->y),
        amount = dice_roll(d, &g->play);
    hurt(g, caster, target, s, amount);
    for (int i = 0; i < PUSH_STEPS && reg_get(&g->reg, target); i++) {
        obj_t *o = reg_get(&g->reg, target);
        const level_t *lv = g->levels[o->depth];
        int nx = o->x + sx, ny = o->y + sy;
        if (!level_walkable(g, lv, nx, ny) || level_creature_at(g, o->depth, nx, ny)) {
            creature_say(g, "<Victim> slam<s:Victim> into the wall.", HANDLE_NONE, target);
            hurt(g, caster, target, s, amount / 2 + 1);
            return true;
        }
        o->x = (int16_t)nx, o->y = (int16_t)ny;
        reg_refile(&g->reg, target);
        if (!i)
            creature_say(g, "<Victim> <is:Victim> thrown back!", HANDLE_NONE, target);
    }
    if (target == g->player)
        vision_update(g);
    return true;
}

bool cast_banish(SPELLFX_ARGS)
{
    (void)x, (void)y, (void)d;
    announce(g, caster, s);
    obj_t *o = reg_get(&g->reg, target);
    if (!o || o->type != OBJ_CREATURE)
        return false;
    if (creature_kind(g, o)->flags & CF_WARDEN) {
        creature_say(g, "<Victim> stand<s:Victim> fast.", HANDLE_NONE, target);
        return true;
    }
    const level_t *lv = g->levels[o->depth];
    for (int tries = 0; lv && tries < 1000; tries++) {
        int nx = (int)rng_below(&g->play, (uint32_t)lv->w),
            ny = (int)rng_below(&g->play, (uint32_t)lv->h);
        if (level_terrain(lv, nx, ny) != MAP_FLOOR || level_creature_at(g, o->depth, nx, ny) ||
            cheb(nx, ny, o->x, o->y) < 10)
            continue;
        creature_say(g, "<Victim> vanish<es:Victim>!", HANDLE_NONE, target);
        o = reg_get(&g->reg, target);
        o->x = (int16_t)nx, o->y = (int16_t)ny;
        reg_refile(&g->reg, target);
        if (target == g->player)
            vision_update(g);
        return true;
    }
    return false;
}

/* ---- on the caster ------------------------------------------------------------------ */

static void heal_by(game_t *g, handle_t who, int amount)
{
    obj_t *o = reg_get(&g->reg, who);
    if (o)
        o->hp = o->hp + amount > o->hp_max ? o->hp_max : o->hp + amount;
}

/* Every ailment a potion can end (poison is a tick of its own kind). */
static void cure_all(game_t *g, handle_t who)
{
    status_cure(g, who, EFK_(BLIND) | EFK_(CONFUSED) | EFK_(PARALYSED) | EFK_(AFRAID) | EFK_(HELD));
    handle_t e = effect_find(g, who, g->c->poison_effect);
    if (e)
        status_end(g, e);
    e = effect_find(g, who, g->c->slow_effect);
    if (e)
        status_end(g, e);
}

bool cast_mend(SPELLFX_ARGS)
{
    (void)target, (void)x, (void)y;
    announce(g, caster, s);
    heal_by(g, caster, dice_roll(d, &g->play));
    handle_t e = effect_find(g, caster, g->c->poison_effect);
    if (e)
        status_end(g, e);
    creature_say(g, "<Actor> feel<s:Actor> a little better.", caster, HANDLE_NONE);
    return true;
}

bool cast_vigour(SPELLFX_ARGS)
{
    (void)target, (void)x, (void)y;
    announce(g, caster, s);
    obj_t *o = reg_get(&g->reg, caster);
    if (!o)
        return false;
    int amount = dice_roll(d, &g->play), room = o->hp_max - o->hp;
    if (amount > room) {
        int more = (amount - room) / 10 + 1;
        o->hp_max += more < VIGOUR_MAX ? more : VIGOUR_MAX;
    }
    heal_by(g, caster, amount);
    cure_all(g, caster);
    creature_say(g, "<Actor> feel<s:Actor> vigorous.", caster, HANDLE_NONE);
    return true;
}

bool cast_renew(SPELLFX_ARGS)
{
    (void)target, (void)x, (void)y, (void)d;
    announce(g, caster, s);
    obj_t *o = reg_get(&g->reg, caster);
    if (!o)
        return false;
    o->hp = o->hp_max;
    cure_all(g, caster);
    if (caster == g->player)
        pc_restore(g);
    creature_say(g, "<Actor> <is:Actor> made whole.", caster, HANDLE_NONE);
    return true;
}

/* ---- on all in sight ------------------------------------------------------------------ */

static bool seen_by(game_t *g, handle_t caster, handle_t h, const void *arg)
{
    (void)arg;
    return vision_between(g, caster, h);
}

static bool unholy_seen(game_t *g, handle_t caster, handle_t h, const void *arg)
{
    const obj_t *o = reg_get(&g->reg, h);
    return seen_by(g, caster, h, arg) && h != g->player &&
           (creature_kind(g, o)->flags & (CF_UNDEAD | CF_DEMON));
}

/* The first effect kind that makes its bearer afraid; -1 none. */
static int fear_kind(const content_t *c)
{
    for (int i = 0; i < c->n_effects; i++)
        if (c->effects[i].flags & EFK_(AFRAID))
            return i;
    return -1;
}

bool cast_holy(SPELLFX_ARGS)
{
    (void)target, (void)x, (void)y;
    announce(g, caster, s);
    handle_t hit[FX_MAX];
    int n = creatures_where(g, caster, hit, unholy_seen, NULL), fear = fear_kind(g->c);
    msg_add(g, "A holy word rings out.");
    hurt_all(g, caster, hit, n, s, d);
    for (int i = 0; i < n && fear >= 0; i++)
        if (reg_get(&g->reg, hit[i]))
            status_apply(g, hit[i], fear, dice_roll(d, &g->play) * SCHED_MOVE, 1,
                         combat_dc(g, caster));
    return n > 0;
}

bool cast_mass_hex(SPELLFX_ARGS)
{
    (void)target, (void)x, (void)y;
    announce(g, caster, s);
    handle_t hit[FX_MAX];
    int n = creatures_where(g, caster, hit, seen_by, NULL);
    for (int i = 0; i < n; i++)
        if (reg_get(&g->reg, hit[i])) {
            creature_disturb(g, hit[i]);
            status_apply(g, hit[i], s->status, dice_roll(d, &g->play) * SCHED_MOVE, 1,
                         combat_dc(g, caster));
        }
    return n > 0;
}

bool cast_shroud(SPELLFX_ARGS)
{
    (void)target, (void)x, (void)y, (void)d;
    announce(g, caster, s);
    handle_t hit[FX_MAX];
    int n = creatures_where(g, caster, hit, seen_by, NULL);
    for (int i = 0; i < n; i++) {
        obj_t *o = reg_get(&g->reg, hit[i]);
        o->flags &= (uint8_t)~OF_AWARE;
        o->remaining = 0; /* nor does it remember where it saw you */
    }
    msg_add(g, "Darkness folds around you.");
    return true;
}
