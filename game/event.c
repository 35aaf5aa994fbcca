/* event — phases and the participant order of the dispatch chain. */
#include "event.h"
#include "content.h"
#include "world.h"

static const char *const EVENT_NAMES[EV_TYPES] = {
    "none",
#define EVENT_NAME_(n) #n,
    EVENT_LIST(EVENT_NAME_)
#undef EVENT_NAME_
};

const char *event_name(uint16_t type) { return type < EV_TYPES ? EVENT_NAMES[type] : "?"; }

static int run_handler(game_t *g, ev_info_t *e, uint16_t id, handle_t self)
{
    const content_t *c = g->c;
    if (id == 0 || id >= c->n_handlers || !c->handlers[id]) return EV_NOTHING;
    return c->handlers[id](g, e, self) == EV_DONE ? EV_DONE : EV_NOTHING;
}

static int run_list(game_t *g, ev_info_t *e, const uint16_t *ids, handle_t self)
{
    for (int i = 0; i < KIND_HANDLERS; i++)
        if (run_handler(g, e, ids[i], self) == EV_DONE) return EV_DONE;
    return EV_NOTHING;
}

/* One object's handlers: its kind's first, then its type's built-in. */
static int run_object(game_t *g, ev_info_t *e, handle_t h)
{
    const content_t *c = g->c;
    const obj_t *o = reg_get(&g->reg, h);
    if (!o) return EV_NOTHING;
    uint8_t type = o->type;
    uint16_t kind = o->kind;
    const uint16_t *ids = NULL;
    if (type == OBJ_CREATURE && kind < c->n_creatures) ids = c->creatures[kind].handlers;
    if (type == OBJ_ITEM && kind < c->n_items) ids = c->items[kind].handlers;
    if (ids && run_list(g, e, ids, h) == EV_DONE) return EV_DONE;
    /* the kind handler may have deleted the object */
    if (!reg_get(&g->reg, h)) return EV_NOTHING;
    return run_handler(g, e, c->builtin[type], h);
}

static int run_phase(game_t *g, ev_info_t *e)
{
    const content_t *c = g->c;
    if (e->map >= 0) {
        if (run_list(g, e, c->map_handlers, HANDLE_NONE) == EV_DONE) return EV_DONE;
        if (run_handler(g, e, c->map_builtin, HANDLE_NONE) == EV_DONE) return EV_DONE;
    }
    /* copied first: a handler may change the info */
    handle_t order[EV_PARTICIPANTS - 1] = {e->item, e->item2, e->victim, e->actor};
    for (int i = 0; i < EV_PARTICIPANTS - 1; i++)
        if (order[i] != HANDLE_NONE && run_object(g, e, order[i]) == EV_DONE) return EV_DONE;
    return EV_NOTHING;
}

int event_throw(game_t *g, ev_info_t *e)
{
    if (g->ev_depth >= EV_MAX_DEPTH || e->type == EV_NONE || e->type >= EV_TYPES) return EV_ERROR;
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
