/* effect — timed effects as registry objects ticked by the scheduler. */
#include "effect.h"
#include "content.h"
#include "world.h"

static void effect_hook(game_t *g, handle_t h, effect_phase_t phase)
{
    obj_t *e = reg_get(&g->reg, h);
    if (!e || e->kind >= g->c->n_effects)
        return;
    uint16_t id = g->c->effects[e->kind].hook[phase];
    if (id == 0 || id >= g->c->n_hooks || !g->c->hooks[id])
        return;
    g->c->hooks[id](g, h, e, phase);
}

handle_t effect_find(game_t *g, handle_t target, uint16_t kind)
{
    for (handle_t h = reg_next_held(&g->reg, target, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, target, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_EFFECT && o->target == target && o->kind == kind)
            return h;
    }
    return HANDLE_NONE;
}

static handle_t effect_stack(game_t *g, handle_t h, int32_t duration, int32_t magnitude)
{
    obj_t *e = reg_get(&g->reg, h);
    switch (g->c->effects[e->kind].stacking) {
    case STACK_ADD:
        e->remaining = duration > INT32_MAX - e->remaining ? INT32_MAX : e->remaining + duration;
        break;
    case STACK_STRONGEST:
        if (magnitude < e->magnitude)
            return HANDLE_NONE;
        if (magnitude > e->magnitude) {
            e->magnitude = magnitude;
            e->remaining = duration;
            break;
        }
        /* equal strength refreshes */
        __attribute__((fallthrough));
    default:
        if (duration > e->remaining)
            e->remaining = duration;
        break;
    }
    return h;
}

static int32_t effect_interval(game_t *g, const obj_t *e)
{
    int32_t iv = g->c->effects[e->kind].interval;
    if (iv < 1)
        iv = 1;
    return iv < e->remaining ? iv : e->remaining;
}

handle_t effect_apply(game_t *g, handle_t target, uint16_t kind, int32_t duration,
                      int32_t magnitude)
{
    if (!reg_get(&g->reg, target) || kind >= g->c->n_effects || duration < 1)
        return HANDLE_NONE;
    handle_t old = effect_find(g, target, kind);
    if (old)
        return effect_stack(g, old, duration, magnitude);
    obj_t *e;
    handle_t h = reg_new(&g->reg, OBJ_EFFECT, &e);
    if (!h)
        return HANDLE_NONE;
    e->kind = kind;
    e->target = target;
    reg_refile(&g->reg, h);
    e->magnitude = magnitude;
    e->remaining = duration;
    e->t = g->sched.now;
    if (sched_push(&g->sched, g->sched.now + (uint64_t)effect_interval(g, e), FN_EFFECT_TICK, h, 0,
                   0) < 0) {
        reg_del(&g->reg, h);
        return HANDLE_NONE;
    }
    effect_hook(g, h, HOOK_START);
    return reg_get(&g->reg, h) ? h : HANDLE_NONE;
}

static void effect_end(game_t *g, handle_t h)
{
    effect_hook(g, h, HOOK_END);
    sched_cancel(&g->sched, h);
    reg_del(&g->reg, h);
}

void effect_on_tick(game_t *g, const event_t *ev)
{
    obj_t *e = reg_get(&g->reg, ev->target);
    if (!e || e->type != OBJ_EFFECT)
        return;
    uint64_t elapsed = g->sched.now - e->t;
    e->t = g->sched.now;
    e->remaining = elapsed >= (uint64_t)e->remaining ? 0 : e->remaining - (int32_t)elapsed;
    effect_hook(g, ev->target, HOOK_TICK);
    e = reg_get(&g->reg, ev->target); /* the hook may have ended it, or its target */
    if (!e)
        return;
    if (e->remaining <= 0 || !reg_get(&g->reg, e->target)) {
        effect_end(g, ev->target);
        return;
    }
    if (sched_push(&g->sched, g->sched.now + (uint64_t)effect_interval(g, e), FN_EFFECT_TICK,
                   ev->target, 0, 0) < 0)
        effect_end(g, ev->target);
}

void effect_clear(game_t *g, handle_t target)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_EFFECT && o->target == target) {
            sched_cancel(&g->sched, h);
            reg_del(&g->reg, h);
        }
    }
}
