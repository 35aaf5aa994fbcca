/* rules — the code side of the rules, named by id in content: built-in
 * event handlers (the map's walls, a creature's part in the attack chain),
 * kind and region handlers (a spider's poison bite, a slippery floor) and
 * effect hooks (poison, slowness; status.c's generic one). */
#include "rules.h"
#include "combat.h"
#include "creature.h"
#include "level.h"
#include "pc.h"
#include "special.h"
#include "status.h"

/* ---- handlers ------------------------------------------------------------- */

static int h_map(game_t *g, ev_info_t *e, handle_t self)
{
    (void)self;
    if (e->type != EV_MOVE || e->phase != PHASE_PRE)
        return EV_NOTHING;
    level_t *lv = g->levels[e->map];
    if (!lv || (!level_passable(g, lv, e->x, e->y) &&
                !special_may_enter(g, e->actor, level_terrain(lv, e->x, e->y))))
        return EV_DONE; /* veto: walls; only the player steps into a hazard */
    if (level_creature_at(g, e->map, e->x, e->y))
        return EV_DONE;
    return EV_NOTHING;
}

static int h_creature(game_t *g, ev_info_t *e, handle_t self)
{
    if (e->phase != PHASE_MAIN)
        return EV_NOTHING;
    obj_t *o = reg_get(&g->reg, self);
    if (!o)
        return EV_NOTHING;
    if (self == e->actor && e->type == EV_MOVE) {
        o->x = e->x;
        o->y = e->y;
        reg_refile(&g->reg, self);
        return EV_DONE;
    }
    if (self == e->actor && e->type == EV_ATTACK)
        return combat_attack(g, e);
    if (self == e->actor && e->type == EV_HIT) {
        /* the damage step shares the hit's info: same actor, victim, amount */
        e->type = EV_DAMAGE;
        event_throw(g, e);
        return EV_DONE;
    }
    if (self == e->victim && e->type == EV_DAMAGE)
        return combat_damage(g, e, o);
    if (self == e->victim && e->type == EV_DEATH) {
        combat_death(g, self, e->actor);
        return EV_DONE;
    }
    return EV_NOTHING;
}

/* A kind handler: after a spider's bite hurts, maybe poison. */
static int h_poison_bite(game_t *g, ev_info_t *e, handle_t self)
{
    if (e->type != EV_DAMAGE || e->phase != PHASE_POST || self != e->actor || e->dtype != DT_HIT)
        return EV_NOTHING;
    obj_t *v = reg_get(&g->reg, e->victim), *a = reg_get(&g->reg, self);
    if (!v || v->hp <= 0 || !a || !rng_percent(&g->play, 50))
        return EV_NOTHING;
    /* the player may shrug it off: Fort against 10 + the biter's level */
    int dc = 10 + creature_kind(g, a)->level;
    if (combat_save(g, e->victim, SAVE_FORT, dc, 0))
        return EV_NOTHING;
    effect_apply(g, e->victim, g->c->poison_effect, 300 + 100 * creature_kind(g, a)->level, 1);
    return EV_NOTHING;
}

/* A region handler: on a slippery floor a step may slide one cell further
 * (a nested move, so walls, creatures and other rules still apply). */
static int h_slippery(game_t *g, ev_info_t *e, handle_t self)
{
    (void)self;
    if (e->type != EV_MOVE || e->phase != PHASE_POST || !rng_percent(&g->play, 25))
        return EV_NOTHING;
    int dx = e->amount[0], dy = e->amount[1];
    if (dx < -1 || dx > 1 || dy < -1 || dy > 1 || (!dx && !dy))
        return EV_NOTHING;
    ev_info_t m = *e;
    m.phase = PHASE_PRE;
    m.x = (int16_t)(e->x + dx);
    m.y = (int16_t)(e->y + dy);
    if (event_throw(g, &m) != EV_DONE)
        return EV_NOTHING;
    uint32_t said = g->said;
    creature_say(g, "<Actor> slide<s:Actor> on the slick floor.", e->actor, HANDLE_NONE);
    g->said_aside += g->said - said; /* as on NetHack's ice, a run slides on */
    return EV_NOTHING;
}

const ev_handler_t RULES_HANDLERS[H_COUNT] = {
#define RULES_H_ROW_(n, fn) [H_##n] = fn,
    RULES_HANDLER_LIST(RULES_H_ROW_)
#undef RULES_H_ROW_
};

/* ---- effect hooks --------------------------------------------------------- */

/* Poison: one message when it takes hold, or that it does not (immune,
 * or resisting a poison too weak to hurt when halved: the effect goes). */
static void hk_poison(game_t *g, handle_t eh, obj_t *e, effect_phase_t phase)
{
    handle_t t = e->target;
    int resist = phase == HOOK_START ? combat_resistance(g, t, DT_POISON) : 0;
    if (resist == 2 || (resist == 1 && e->magnitude / 2 < 1)) {
        creature_say(g, "<Actor> resist<s:Actor> the poison.", t, HANDLE_NONE);
        sched_cancel(&g->sched, eh);
        reg_del(&g->reg, eh);
        return;
    }
    if (phase == HOOK_START)
        creature_say(g, "<Actor> <is:Actor> poisoned.", t, HANDLE_NONE);
    if (phase == HOOK_END)
        creature_say(g, "<Actor> <is:Actor> no longer poisoned.", t, HANDLE_NONE);
    if (phase != HOOK_TICK)
        return;
    ev_info_t d = {
        .type = EV_DAMAGE, .victim = t, .map = -1, .dtype = DT_POISON, .flags = EVF_TICK};
    d.amount[0] = e->magnitude;
    event_throw(g, &d);
}

const effect_hook_t RULES_HOOKS[HK_COUNT] = {
#define RULES_HK_ROW_(n, fn) [HK_##n] = fn,
    RULES_HOOK_LIST(RULES_HK_ROW_)
#undef RULES_HK_ROW_
};
