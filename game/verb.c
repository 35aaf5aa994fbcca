/* verb — the engine's side of the verbs content handlers call (see
 * verb.h): one function per verb, in the table VERB_LIST makes. */
#include "verb.h"
#include <stdio.h>
#include <string.h>
#include "ability.h"
#include "combat.h"
#include "creature.h"
#include "effect.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "pc.h"
#include "status.h"
#include "vision.h"
#include "world.h"

#define SPLIT_MIN_HP 2 /* a creature with fewer hit points does not divide */
#define RUSH_MAX     8

static int cheb(int x0, int y0, int x1, int y1)
{
    int dx = x0 > x1 ? x0 - x1 : x1 - x0, dy = y0 > y1 ? y0 - y1 : y1 - y0;
    return dx > dy ? dx : dy;
}

/* The other side of the event from self's: the victim for its actor, the
 * actor for anyone else. */
static handle_t other_of(const verb_ctx_t *x)
{
    return x->self == x->e->actor ? x->e->victim : x->e->actor;
}

/* A participant by the w argument: 0 self, 1 the other side. */
static handle_t who(const verb_ctx_t *x, int w)
{
    return w ? other_of(x) : x->self;
}

static int effect_named(const game_t *g, const char *name)
{
    for (int i = 0; i < g->c->n_effects; i++)
        if (!strcmp(g->c->effects[i].name, name))
            return i;
    return -1;
}

static int damage_named(const char *name)
{
    static const char *const NAMES[DT_COUNT] = {"none", "hit",       "poison", "fire",
                                                "cold", "lightning", "acid",   "magic"};
    for (int i = 0; i < DT_COUNT; i++)
        if (!strcmp(NAMES[i], name))
            return i;
    return -1;
}

static int ability_named(const char *name)
{
    static const char *const NAMES[AB_COUNT] = {"str", "dex", "con", "int", "wis", "cha"};
    for (int i = 0; i < AB_COUNT; i++)
        if (!strcmp(NAMES[i], name))
            return i;
    return -1;
}

/* The effect on `held` that self holds it by (an effect with the held
 * condition whose a[0] is self); NONE when none. */
static handle_t hold_of(game_t *g, handle_t holder, handle_t held)
{
    for (handle_t h = reg_next_held(&g->reg, held, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, held, h)) {
        const obj_t *e = reg_get(&g->reg, h);
        if (e->type == OBJ_EFFECT && e->target == held && e->kind < g->c->n_effects &&
            (g->c->effects[e->kind].flags & EFK_(HELD)) && (handle_t)e->a[0] == holder)
            return h;
    }
    return HANDLE_NONE;
}

/* ---- queries ------------------------------------------------------------------------ */

typedef int (*ask_fn_t)(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out,
                        char *why, size_t n);
#define ANSWER(kind_, v_) (*out = (script_answer_t){(kind_), (int32_t)(v_)}, 0)

static int ask_sees(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                    size_t n)
{
    (void)why, (void)n;
    handle_t a = who(x, q->n[0]), b = who(x, !q->n[0]);
    bool sees = reg_get(&x->g->reg, a) && reg_get(&x->g->reg, b) &&
                !status_has(x->g, a, EFK_(BLIND)) && vision_between(x->g, a, b);
    return ANSWER(SCRIPT_BOOL, sees);
}

static int ask_dist(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                    size_t n)
{
    (void)q, (void)why, (void)n;
    const obj_t *a = reg_get(&x->g->reg, x->self), *b = reg_get(&x->g->reg, other_of(x));
    return ANSWER(SCRIPT_INT,
                  a && b && a->depth == b->depth ? cheb(a->x, a->y, b->x, b->y) : 1 << 20);
}

static int ask_aware(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                     size_t n)
{
    (void)q, (void)why, (void)n;
    const obj_t *o = reg_get(&x->g->reg, x->self);
    return ANSWER(SCRIPT_BOOL, o && (x->self == x->g->player || (o->flags & OF_AWARE)));
}

static int ask_hp(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                  size_t n)
{
    (void)why, (void)n;
    const obj_t *o = reg_get(&x->g->reg, who(x, q->n[0]));
    return ANSWER(SCRIPT_INT, o ? o->hp : 0);
}

static int ask_hpmax(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                     size_t n)
{
    (void)why, (void)n;
    const obj_t *o = reg_get(&x->g->reg, who(x, q->n[0]));
    return ANSWER(SCRIPT_INT, o ? o->hp_max : 0);
}

static int ask_has(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                   size_t n)
{
    int k = effect_named(x->g, q->s);
    if (k < 0)
        return snprintf(why, n, "no effect '%s'", q->s), -1;
    return ANSWER(SCRIPT_BOOL, effect_find(x->g, who(x, q->n[0]), (uint16_t)k) != HANDLE_NONE);
}

static int ask_count(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                     size_t n)
{
    (void)q, (void)why, (void)n;
    const obj_t *me = reg_get(&x->g->reg, x->self);
    int count = 0;
    for (handle_t h = reg_next(&x->g->reg, HANDLE_NONE); me && h; h = reg_next(&x->g->reg, h)) {
        const obj_t *o = reg_get(&x->g->reg, h);
        count += o->type == OBJ_CREATURE && o->kind == me->kind && o->depth == me->depth;
    }
    return ANSWER(SCRIPT_INT, count);
}

static int ask_size(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                    size_t n)
{
    (void)why, (void)n;
    handle_t h = who(x, q->n[0]);
    const obj_t *o = reg_get(&x->g->reg, h);
    int size = !o                  ? SIZE_MEDIUM
               : h == x->g->player ? pc_race(x->g)->size
                                   : creature_kind(x->g, o)->size;
    return ANSWER(SCRIPT_INT, size);
}

static int ask_disguised(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out,
                         char *why, size_t n)
{
    (void)q, (void)why, (void)n;
    const obj_t *o = reg_get(&x->g->reg, x->self);
    return ANSWER(SCRIPT_BOOL, o && o->type == OBJ_CREATURE && (o->flags & OF_DISGUISED));
}

static int ask_holding(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                       size_t n)
{
    (void)q, (void)why, (void)n;
    return ANSWER(SCRIPT_BOOL, hold_of(x->g, x->self, other_of(x)) != HANDLE_NONE);
}

static int ask_melee(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                     size_t n)
{
    (void)q, (void)why, (void)n;
    bool blow = (x->e->type == EV_ATTACK || x->e->type == EV_HIT || x->e->type == EV_DAMAGE) &&
                !(x->e->flags & (EVF_SPELL | EVF_BREATH | EVF_MISSILE)) && x->e->actor &&
                x->e->victim;
    return ANSWER(SCRIPT_BOOL, blow);
}

static int ask_player(const verb_ctx_t *x, const script_call_t *q, script_answer_t *out, char *why,
                      size_t n)
{
    (void)why, (void)n;
    handle_t h = who(x, q->n[0]);
    return ANSWER(SCRIPT_BOOL, h && h == x->g->player);
}

/* ---- deeds -------------------------------------------------------------------------- */

typedef int (*do_fn_t)(verb_ctx_t *x, const script_call_t *d);

static int do_say(verb_ctx_t *x, const script_call_t *d)
{
    handle_t o = other_of(x);
    creature_say(x->g, d->s, x->self, reg_get(&x->g->reg, o) ? o : HANDLE_NONE);
    return 0;
}

static int do_status(verb_ctx_t *x, const script_call_t *d)
{
    int k = effect_named(x->g, d->s);
    if (k < 0)
        return -1;
    handle_t t = who(x, d->n[0]);
    int turns = d->n[2] < 1 ? 1 : d->n[2] > 1000 ? 1000 : d->n[2];
    int dc = t == x->self ? 0 : combat_dc(x->g, x->self);
    if (t != x->self)
        creature_disturb(x->g, t);
    status_apply(x->g, t, k, turns * SCHED_MOVE, 1, dc);
    return 0;
}

static int do_cure(verb_ctx_t *x, const script_call_t *d)
{
    int k = effect_named(x->g, d->s);
    if (k < 0)
        return -1;
    handle_t e = effect_find(x->g, who(x, d->n[0]), (uint16_t)k);
    if (e)
        status_end(x->g, e);
    return 0;
}

static int do_hurt(verb_ctx_t *x, const script_call_t *d)
{
    int dt = damage_named(d->s);
    if (dt < 0)
        return -1;
    handle_t t = who(x, d->n[0]);
    if (!reg_get(&x->g->reg, t) || d->n[1] <= 0)
        return 0;
    ev_info_t e = {
        .type = EV_DAMAGE, .actor = x->self, .victim = t, .map = -1, .dtype = (uint8_t)dt};
    e.amount[0] = d->n[1] > 10000 ? 10000 : d->n[1];
    if (t != x->self)
        creature_disturb(x->g, t);
    event_throw(x->g, &e);
    return 0;
}

/* A free floor cell beside (x, y) on lv, from the play stream's start. */
static bool free_beside(game_t *g, const level_t *lv, int x, int y, int *fx, int *fy)
{
    static const int8_t D[8][2] = {{0, -1}, {1, 0}, {0, 1},  {-1, 0},
                                   {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
    int first = (int)rng_below(&g->play, 8);
    for (int k = 0; k < 8; k++) {
        int i = (first + k) % 8, nx = x + D[i][0], ny = y + D[i][1];
        if (level_walkable(g, lv, nx, ny) && !level_creature_at(g, lv->depth, nx, ny))
            return *fx = nx, *fy = ny, true;
    }
    return false;
}

static int do_split(verb_ctx_t *x, const script_call_t *d)
{
    (void)d;
    game_t *g = x->g;
    obj_t *o = reg_get(&g->reg, x->self);
    const level_t *lv = o && o->type == OBJ_CREATURE ? g->levels[o->depth] : NULL;
    int fx, fy;
    if (!lv || x->self == g->player || o->hp < SPLIT_MIN_HP ||
        !free_beside(g, lv, o->x, o->y, &fx, &fy))
        return 0;
    int half = o->hp / 2;
    uint16_t kind = o->kind;
    handle_t twin = creature_make(g, kind, o->depth, fx, fy, &g->play, MAKE_AWARE);
    obj_t *t = reg_get(&g->reg, twin);
    if (!t)
        return 0;
    o = reg_get(&g->reg, x->self);
    t->hp = t->hp_max = half;
    o->hp -= half;
    creature_say(g, "<Actor> divide<s:Actor> in two!", x->self, HANDLE_NONE);
    return 0;
}

static int do_disguise(verb_ctx_t *x, const script_call_t *d)
{
    obj_t *o = reg_get(&x->g->reg, x->self);
    if (!o || o->type != OBJ_CREATURE || x->self == x->g->player)
        return 0;
    bool was = (o->flags & OF_DISGUISED) != 0;
    if (d->n[0] && creature_kind(x->g, o)->disguise[0])
        o->flags |= OF_DISGUISED;
    else
        o->flags &= (uint8_t)~OF_DISGUISED;
    if (was && !(o->flags & OF_DISGUISED))
        creature_say(x->g, "<Actor> come<s:Actor> to life!", x->self, HANDLE_NONE);
    return 0;
}

/* The first effect kind with a condition; -1 when content has none. */
static int kind_with(const game_t *g, unsigned efk)
{
    for (int i = 0; i < g->c->n_effects; i++)
        if (g->c->effects[i].flags & efk)
            return i;
    return -1;
}

static int do_engulf(verb_ctx_t *x, const script_call_t *d)
{
    game_t *g = x->g;
    handle_t t = other_of(x);
    int k = kind_with(g, EFK_(HELD));
    const obj_t *a = reg_get(&g->reg, x->self), *b = reg_get(&g->reg, t);
    if (k < 0 || !a || !b || a->depth != b->depth || cheb(a->x, a->y, b->x, b->y) > 1 ||
        hold_of(g, x->self, t))
        return 0;
    int turns = d->n[0] < 1 ? 1 : d->n[0] > 100 ? 100 : d->n[0];
    creature_say(g, "<Actor> engulf<s:Actor> <victim>!", x->self, t);
    handle_t e = status_apply(g, t, k, turns * SCHED_MOVE, 1, combat_dc(g, x->self));
    obj_t *eo = reg_get(&g->reg, e);
    if (eo)
        eo->a[0] = (int32_t)x->self;
    return 0;
}

static int do_release(verb_ctx_t *x, const script_call_t *d)
{
    (void)d;
    handle_t e = hold_of(x->g, x->self, other_of(x));
    if (e)
        status_end(x->g, e);
    return 0;
}

static int do_steal(verb_ctx_t *x, const script_call_t *d)
{
    if (strcmp(d->s, "gold") && strcmp(d->s, "item"))
        return -1;
    ability_steal(x->g, x->self, other_of(x), d->s[0] == 'g');
    return 0;
}

static int do_blink(verb_ctx_t *x, const script_call_t *d)
{
    (void)d;
    ability_blink(x->g, x->self, other_of(x));
    return 0;
}

static int do_drain(verb_ctx_t *x, const script_call_t *d)
{
    int ab = ability_named(d->s);
    if (ab < 0)
        return -1;
    if (other_of(x) == x->g->player && x->self != x->g->player)
        pc_drain(x->g, ab, combat_dc(x->g, x->self));
    return 0;
}

static int do_flit(verb_ctx_t *x, const script_call_t *d)
{
    (void)d;
    const obj_t *o = reg_get(&x->g->reg, x->self);
    const level_t *lv = o && o->type == OBJ_CREATURE ? x->g->levels[o->depth] : NULL;
    int fx, fy;
    if (lv && x->self != x->g->player && free_beside(x->g, lv, o->x, o->y, &fx, &fy))
        creature_step(x->g, x->self, fx - o->x, fy - o->y);
    return 0;
}

/* Straight at the other, one cell at a time through the move event (walls,
 * creatures and the region's rules stop it), until beside it. */
static int do_rush(verb_ctx_t *x, const script_call_t *d)
{
    game_t *g = x->g;
    for (int i = 0; i < d->n[0] && i < RUSH_MAX; i++) {
        const obj_t *a = reg_get(&g->reg, x->self), *b = reg_get(&g->reg, other_of(x));
        if (!a || !b || a->depth != b->depth || cheb(a->x, a->y, b->x, b->y) <= 1)
            return 0;
        int dx = (b->x > a->x) - (b->x < a->x), dy = (b->y > a->y) - (b->y < a->y);
        ev_info_t m = {.type = EV_MOVE,
                       .actor = x->self,
                       .map = a->depth,
                       .x = (int16_t)(a->x + dx),
                       .y = (int16_t)(a->y + dy),
                       .amount = {dx, dy}};
        if (event_throw(g, &m) != EV_DONE)
            return 0;
    }
    return 0;
}

static int do_attack(verb_ctx_t *x, const script_call_t *d)
{
    (void)d;
    const obj_t *a = reg_get(&x->g->reg, x->self), *b = reg_get(&x->g->reg, other_of(x));
    if (a && b && a->depth == b->depth && cheb(a->x, a->y, b->x, b->y) == 1)
        creature_step(x->g, x->self, b->x - a->x, b->y - a->y);
    return 0;
}

static int do_corrode(verb_ctx_t *x, const script_call_t *d)
{
    (void)d;
    handle_t t = other_of(x), inv[INV_SLOTS], worn[INV_SLOTS];
    int n = item_inventory(x->g, t, inv), k = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *o = reg_get(&x->g->reg, inv[i]);
        uint8_t cls = item_kind(x->g, o)->cls;
        if ((o->flags & IF_EQUIPPED) && (cls == IC_ARMOUR || cls == IC_SHIELD || cls == IC_HELM))
            worn[k++] = inv[i];
    }
    if (!k)
        return 0;
    handle_t it = worn[rng_below(&x->g->play, (uint32_t)k)];
    obj_t *o = reg_get(&x->g->reg, it);
    if (o->hp <= -3) /* corroded as far as it goes */
        return 0;
    o->hp--;
    item_tell(x->g, "<Poss:Victim> <obj> corrode<s:Obj>!", HANDLE_NONE, it, t);
    return 0;
}

static int do_summon(verb_ctx_t *x, const script_call_t *d)
{
    game_t *g = x->g;
    int kind = -1;
    for (int i = 0; i < g->c->n_creatures && kind < 0; i++)
        if (!strcmp(g->c->creatures[i].name, d->s))
            kind = i;
    if (kind < 0 || (g->c->creatures[kind].flags & (CF_UNIQUE | CF_WARDEN)))
        return -1;
    for (int i = 0; i < d->n[1] && i < 4; i++) {
        const obj_t *o = reg_get(&g->reg, x->self);
        const level_t *lv = o ? g->levels[o->depth] : NULL;
        int fx, fy;
        if (!lv || !free_beside(g, lv, o->x, o->y, &fx, &fy))
            return 0;
        handle_t h = creature_make(g, (uint16_t)kind, o->depth, fx, fy, &g->play, MAKE_AWARE);
        if (h)
            creature_say(g, "<A:actor> appear<s:actor>.", h, HANDLE_NONE);
    }
    return 0;
}

/* ---- the tables ---------------------------------------------------------------------- */

#define VERB_ASK_ROW_(id, fn, sig, ask) [VERB_##id] = VERB_ASK_FN_##ask(fn),
#define VERB_ASK_FN_true(fn)            fn
#define VERB_ASK_FN_false(fn)           NULL
static const ask_fn_t ASKS[VERBS] = {VERB_LIST(VERB_ASK_ROW_)};
#undef VERB_ASK_ROW_
#define VERB_DO_ROW_(id, fn, sig, ask) [VERB_##id] = VERB_DO_FN_##ask(fn),
#define VERB_DO_FN_true(fn)            NULL
#define VERB_DO_FN_false(fn)           fn
static const do_fn_t DOES[VERBS] = {VERB_LIST(VERB_DO_ROW_)};
#undef VERB_DO_ROW_

int verb_ask(void *ctx, const script_call_t *q, script_answer_t *out, char *why, size_t n)
{
    const verb_ctx_t *x = ctx;
    if (q->verb >= VERBS || !ASKS[q->verb])
        return snprintf(why, n, "not a query"), -1;
    return ASKS[q->verb](x, q, out, why, n);
}

#define VERB_NAME_ROW_(id, fn, sig, ask) #id,
static const char *const NAMES[VERBS] = {VERB_LIST(VERB_NAME_ROW_)};
#undef VERB_NAME_ROW_

int verb_do(verb_ctx_t *x, const script_call_t *d)
{
    if (d->verb >= VERBS || !DOES[d->verb])
        return -1;
    if (DOES[d->verb](x, d) < 0) {
        snprintf(x->g->script_err, sizeof x->g->script_err, "%s: '%s' names nothing",
                 NAMES[d->verb], d->s);
        return -1;
    }
    return 0;
}
