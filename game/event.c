/* event — phases and the participant order of the dispatch chain, and the
 * bridge to scripted (Lua) kind handlers. */
#include "event.h"
#include <stdio.h>
#include "creature.h"
#include "content.h"
#include "effect.h"
#include "level.h"
#include "script.h"
#include "world.h"

static int run_handler(game_t *g, ev_info_t *e, uint16_t id, handle_t self)
{
    const content_t *c = g->c;
    if (id == 0 || id >= c->n_handlers || !c->handlers[id])
        return EV_NOTHING;
    return c->handlers[id](g, e, self) == EV_DONE ? EV_DONE : EV_NOTHING;
}

static int run_list(game_t *g, ev_info_t *e, const uint16_t *ids, handle_t self)
{
    for (int i = 0; i < KIND_HANDLERS; i++)
        if (run_handler(g, e, ids[i], self) == EV_DONE)
            return EV_DONE;
    return EV_NOTHING;
}

static uint32_t script_rand(void *ctx, uint32_t n)
{
    return rng_below(&((game_t *)ctx)->play, n);
}

/* What heals a creature when a script turns damage into hit points. */
static const char *const HEALED_BY[DT_COUNT] = {
    [DT_HIT] = "the blow",   [DT_POISON] = "the poison",       [DT_FIRE] = "the fire",
    [DT_COLD] = "the cold",  [DT_LIGHTNING] = "the lightning", [DT_ACID] = "the acid",
    [DT_MAGIC] = "the magic"};

/* What a script asked for itself: hit points back (said, with what
 * healed it: "The flesh golem is healed by the lightning."), or a
 * slowing. */
static void script_apply(game_t *g, handle_t self, const script_event_t *se, uint8_t dtype)
{
    obj_t *o = reg_get(&g->reg, self);
    if (!o || o->type != OBJ_CREATURE)
        return;
    if (se->heal > 0) {
        o->hp = o->hp + se->heal > o->hp_max ? o->hp_max : o->hp + se->heal;
        char tmpl[80];
        snprintf(tmpl, sizeof tmpl, "<Actor> <is:Actor> healed by %s.",
                 dtype < DT_COUNT && HEALED_BY[dtype] ? HEALED_BY[dtype] : "it");
        creature_say(g, tmpl, self, HANDLE_NONE);
    }
    if (se->slow > 0 && se->slow <= 1000)
        effect_apply(g, self, g->c->slow_effect, se->slow * SCHED_MOVE, 1);
}

/* The kind's Lua handler for this event, through the lent vm. A failing
 * handler is reported (g->script_err) and counts as NOTHING. */
static int run_script(game_t *g, ev_info_t *e, handle_t h, script_kind_class_t cls, uint16_t kind)
{
    int ref = script_kind_handler(g->c, cls, kind, e->type);
    if (!ref || !g->vm)
        return EV_NOTHING;
    script_event_t se = {.type = e->type,
                         .phase = e->phase,
                         .dtype = e->dtype,
                         .flags = e->flags,
                         .rand = script_rand,
                         .rand_ctx = g};
    for (int i = 0; i < 3; i++)
        se.amount[i] = e->amount[i];
    int r = script_call_handler(g->vm, g->c, ref, &se, g->script_err, sizeof g->script_err);
    if (r < 0) {
        g->script_errors++;
        return EV_NOTHING;
    }
    for (int i = 0; i < 3; i++)
        e->amount[i] = se.amount[i];
    uint8_t dtype = e->dtype; /* what came, whatever the script makes of it */
    e->dtype = se.dtype;
    e->flags = se.flags;
    script_apply(g, h, &se, dtype);
    return r;
}

/* One object's handlers: its kind's script, its kind's code handlers,
 * then its type's built-in. */
static int run_object(game_t *g, ev_info_t *e, handle_t h)
{
    const content_t *c = g->c;
    const obj_t *o = reg_get(&g->reg, h);
    if (!o)
        return EV_NOTHING;
    uint8_t type = o->type;
    uint16_t kind = o->kind;
    const uint16_t *ids = NULL;
    if (type == OBJ_CREATURE && kind < c->n_creatures)
        ids = c->creatures[kind].handlers;
    if (type == OBJ_ITEM && kind < c->n_items)
        ids = c->items[kind].handlers;
    if (ids && run_script(g, e, h, type == OBJ_ITEM ? SCRIPT_KIND_ITEM : SCRIPT_KIND_CREATURE,
                          kind) == EV_DONE)
        return EV_DONE;
    if (!reg_get(&g->reg, h))
        return EV_NOTHING;
    if (ids && run_list(g, e, ids, h) == EV_DONE)
        return EV_DONE;
    /* the kind handler may have deleted the object */
    if (!reg_get(&g->reg, h))
        return EV_NOTHING;
    return run_handler(g, e, c->builtin[type], h);
}

static int run_phase(game_t *g, ev_info_t *e)
{
    const content_t *c = g->c;
    if (e->map >= 0) {
        /* the region where the event takes place brings its rules first */
        const level_t *lv = e->map < LEVEL_IDS ? g->levels[e->map] : NULL;
        const region_kind_t *rk = level_region_kind(g, lv, e->x, e->y);
        if (rk && run_list(g, e, rk->handlers, HANDLE_NONE) == EV_DONE)
            return EV_DONE;
        if (run_list(g, e, c->map_handlers, HANDLE_NONE) == EV_DONE)
            return EV_DONE;
        if (run_handler(g, e, c->map_builtin, HANDLE_NONE) == EV_DONE)
            return EV_DONE;
    }
    /* copied first: a handler may change the info */
    handle_t order[EV_PARTICIPANTS - 1] = {e->item, e->item2, e->victim, e->actor};
    for (int i = 0; i < EV_PARTICIPANTS - 1; i++)
        if (order[i] != HANDLE_NONE && run_object(g, e, order[i]) == EV_DONE)
            return EV_DONE;
    return EV_NOTHING;
}

int event_throw(game_t *g, ev_info_t *e)
{
    if (g->ev_depth >= EV_MAX_DEPTH || e->type == EV_NONE || e->type >= EV_TYPES)
        return EV_ERROR;
    if (g->watch)
        g->watch(g->watch_ctx, e);
    uint16_t type = e->type;
    uint8_t phase = e->phase;
    g->ev_depth++;
    int r;
    e->phase = PHASE_PRE;
    if (run_phase(g, e) == EV_DONE) {
        r = EV_ABORT;
    } else {
        e->type = type;
        e->phase = PHASE_MAIN;
        r = run_phase(g, e);
        e->type = type;
        e->phase = PHASE_POST;
        run_phase(g, e);
    }
    g->ev_depth--;
    e->type = type;
    e->phase = phase;
    return r;
}
