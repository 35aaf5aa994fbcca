/* status — effect hooks, effect bonuses and conditions, hunger, resting. */
#include "status.h"
#include <stdio.h>
#include <string.h>
#include "combat.h"
#include "content.h"
#include "creature.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "rules.h"
#include "turn.h"
#include "vision.h"
#include "world.h"

#define REST_MAX_TURNS 1000
#define WANDER_ONE_IN  80 /* a wandering monster per this many turns of rest */

static void say_about(game_t *g, const char *tmpl, handle_t who)
{
    if (tmpl[0])
        item_say(g, tmpl, who, HANDLE_NONE);
}

void status_hook(game_t *g, handle_t eff, obj_t *e, effect_phase_t phase)
{
    (void)eff;
    if (e->kind >= g->c->n_effects)
        return;
    const effect_kind_t *k = &g->c->effects[e->kind];
    handle_t who = e->target;
    obj_t *t = reg_get(&g->reg, who);
    if (!t)
        return;
    if (phase == HOOK_START) {
        g->items.live++;
        say_about(g, k->start_msg, who);
    } else if (phase == HOOK_TICK && k->heal) {
        t->hp += k->heal * (e->magnitude > 0 ? e->magnitude : 1);
        if (t->hp > t->hp_max)
            t->hp = t->hp_max;
    } else if (phase == HOOK_END) {
        if (g->items.live)
            g->items.live--;
        say_about(g, k->end_msg, who);
    }
}

/* What the effects on who add: bonuses into out, conditions into flags,
 * speed multipliers into pct (each may be NULL). */
static void effects_of(const game_t *g, handle_t who, gear_t *out, unsigned *flags, int *pct)
{
    if (!g->items.live)
        return;
    for (handle_t h = reg_next_held(&g->reg, who, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, who, h)) {
        const obj_t *e = reg_get(&g->reg, h);
        if (e->type != OBJ_EFFECT || e->target != who || e->kind >= g->c->n_effects)
            continue;
        const effect_kind_t *k = &g->c->effects[e->kind];
        if (out) {
            out->to_hit += k->to_hit;
            out->damage += k->damage;
            out->defence += k->defence;
            out->speed += k->speed;
        }
        if (flags)
            *flags |= k->flags;
        if (pct)
            *pct = *pct * k->speed_pct / 100;
    }
}

void status_stats(const game_t *g, handle_t who, bool known_only, gear_t *out)
{
    item_gear(g, who, known_only, out);
    effects_of(g, who, out, NULL, NULL);
}

int status_speed(const game_t *g, handle_t who)
{
    const obj_t *o = reg_get(&g->reg, who);
    if (!o)
        return SPEED_MIN;
    gear_t s;
    int pct = 100;
    item_gear(g, who, false, &s);
    effects_of(g, who, &s, NULL, &pct);
    int v = (o->speed + s.speed) * pct / 100;
    return v < SPEED_MIN ? SPEED_MIN : v;
}

unsigned status_conditions(const game_t *g, handle_t who)
{
    const obj_t *o = reg_get(&g->reg, who);
    unsigned f = o && (o->flags & OF_ASLEEP) ? EFK_(ASLEEP) : 0;
    effects_of(g, who, NULL, &f, NULL);
    if (f & EFK_(FREE_ACTION))
        f &= ~EFK_(PARALYSED);
    return f;
}

bool status_has(const game_t *g, handle_t who, unsigned efk)
{
    return (status_conditions(g, who) & efk) != 0;
}

/* What each condition does to a turn: whoever has several gets all of
 * it (the monsters' AI and the player's commands read the same rows). */
static const struct {
    unsigned efk;
    conduct_t does;
} CONDUCT[] = {
    {EFK_(PARALYSED), {.lose_turn = true}},
    {EFK_(ASLEEP), {.lose_turn = true}},
    {EFK_(CONFUSED), {.stagger = 40, .no_magic = true}},
    {EFK_(AFRAID), {.flee = true}},
    {EFK_(BLIND), {.blind = true}},
};

void status_conduct(const game_t *g, handle_t who, conduct_t *out)
{
    memset(out, 0, sizeof *out);
    unsigned f = status_conditions(g, who);
    for (size_t i = 0; i < sizeof CONDUCT / sizeof CONDUCT[0]; i++) {
        if (!(f & CONDUCT[i].efk))
            continue;
        const conduct_t *d = &CONDUCT[i].does;
        out->lose_turn |= d->lose_turn;
        out->stagger = d->stagger > out->stagger ? d->stagger : out->stagger;
        out->flee |= d->flee;
        out->blind |= d->blind;
        out->no_magic |= d->no_magic;
    }
}

/* Whether who shakes off an effect of kind k that something put on it
 * (dc > 0): its mind's immunities, free action, then the kind's save. */
static bool resists(game_t *g, handle_t who, const effect_kind_t *k, int dc)
{
    const obj_t *o = reg_get(&g->reg, who);
    if (who != g->player && (creature_mind(g, o)->immune & k->flags)) {
        item_say(g, "<Actor> <is:Actor> unaffected.", who, HANDLE_NONE);
        return true;
    }
    if ((k->flags & EFK_(PARALYSED)) && status_has(g, who, EFK_(FREE_ACTION))) {
        item_say(g, "<Actor> resist<s:Actor> the paralysis.", who, HANDLE_NONE);
        return true;
    }
    if ((k->flags & EFK_(AFRAID)) && status_has(g, who, EFK_(BRAVE))) {
        item_say(g, "<Actor> stand<s:Actor> firm.", who, HANDLE_NONE);
        return true;
    }
    if (dc <= 0 || !k->save || !combat_save(g, who, k->save, dc, k->flags))
        return false;
    char tmpl[96];
    snprintf(tmpl, sizeof tmpl, "<Actor> resist<s:Actor> the %s.", k->name);
    item_say(g, tmpl, who, HANDLE_NONE);
    return true;
}

handle_t status_apply(game_t *g, handle_t who, int kind, int32_t duration, int32_t magnitude,
                      int dc)
{
    if (kind < 0 || kind >= g->c->n_effects || !reg_get(&g->reg, who))
        return HANDLE_NONE;
    if (resists(g, who, &g->c->effects[kind], dc))
        return HANDLE_NONE;
    if (g->c->effects[kind].flags & EFK_(BRAVE))
        status_cure(g, who, EFK_(AFRAID)); /* courage ends fear */
    return effect_apply(g, who, (uint16_t)kind, duration, magnitude);
}

static bool is_status(const game_t *g, const obj_t *e)
{
    return e->type == OBJ_EFFECT && e->kind < g->c->n_effects &&
           g->c->effects[e->kind].hook[HOOK_START] == HK_STATUS;
}

void status_forget(game_t *g, handle_t who)
{
    for (handle_t h = reg_next_held(&g->reg, who, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, who, h)) {
        const obj_t *e = reg_get(&g->reg, h);
        if (is_status(g, e) && e->target == who && g->items.live)
            g->items.live--;
    }
}

void status_recount(game_t *g)
{
    g->items.live = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h))
        g->items.live += is_status(g, reg_get(&g->reg, h));
}

void status_end(game_t *g, handle_t eff)
{
    obj_t *e = reg_get(&g->reg, eff);
    if (!e || e->type != OBJ_EFFECT || e->kind >= g->c->n_effects)
        return;
    const effect_kind_t *k = &g->c->effects[e->kind];
    if (k->hook[HOOK_END] && k->hook[HOOK_END] < g->c->n_hooks)
        g->c->hooks[k->hook[HOOK_END]](g, eff, e, HOOK_END);
    sched_cancel(&g->sched, eff);
    reg_del(&g->reg, eff);
}

void status_cure(game_t *g, handle_t who, unsigned efk_mask)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        obj_t *e = reg_get(&g->reg, h);
        if (e->type != OBJ_EFFECT || e->target != who || e->kind >= g->c->n_effects)
            continue;
        bool poison = e->kind == g->c->poison_effect && (efk_mask & EFK_(CONFUSED));
        if (!(g->c->effects[e->kind].flags & efk_mask) && !poison)
            continue;
        status_end(g, h);
    }
}

static int find_effect_flag(const game_t *g, unsigned efk)
{
    for (int i = 0; i < g->c->n_effects; i++)
        if (g->c->effects[i].flags & efk)
            return i;
    return -1;
}

/* ---- hunger ------------------------------------------------------------------------ */

static int hunger_level(int32_t food)
{
    return food < 0 ? 3 : food < FOOD_WEAK ? 2 : food < FOOD_HUNGRY ? 1 : 0;
}

const char *status_hunger_word(const game_t *g)
{
    static const char *const WORDS[] = {"", "Hungry", "Weak", "Fainting"};
    return WORDS[hunger_level(g->items.food)];
}

void status_hunger_tick(game_t *g, const event_t *ev)
{
    obj_t *p = reg_get(&g->reg, ev->target);
    if (!p || ev->target != g->player)
        return;
    int before = hunger_level(g->items.food);
    g->items.food--;
    int after = hunger_level(g->items.food);
    static const char *const SAY[] = {"", "You are getting hungry.", "You are weak with hunger.",
                                      "You are fainting from hunger!"};
    if (after > before)
        msg_add(g, "%s", SAY[after]);
    if (g->items.food <= FOOD_DEAD) {
        char where[64];
        atlas_where(g, where, sizeof where);
        snprintf(g->cause, sizeof g->cause, "starved to death %s", where);
        combat_death(g, g->player, HANDLE_NONE);
        return;
    }
    if (after == 3 && rng_percent(&g->play, 5))
        status_apply(g, g->player, find_effect_flag(g, EFK_(PARALYSED)), 300, 1, 0);
    sched_push(&g->sched, g->sched.now + SCHED_MOVE, FN_HUNGER, ev->target, 0, 0);
}

/* ---- resting -------------------------------------------------------------------------- */

/* An enemy that hunts you, in view: no rest with one about (a sleeping
 * or unaware monster in view does not stop you). */
static bool hostile_in_view(game_t *g)
{
    const level_t *lv = level_current(g);
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && lv; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && h != g->player && o->depth == g->depth &&
            (o->flags & OF_AWARE) && level_visible(lv, o->x, o->y))
            return true;
    }
    return false;
}

/* A monster that heard you rest: out of sight, from the level's tables
 * (its depths, a unique once a game), awake and on its way. */
static void wander_spawn(game_t *g)
{
    const level_t *lv = level_current(g);
    int danger = atlas_danger(g, g->depth);
    int k = danger > 0 ? creature_pick_kind(g, &g->play, danger) : -1;
    for (int tries = 0; lv && k >= 0 && tries < 200; tries++) {
        int x = (int)rng_below(&g->play, (uint32_t)lv->w),
            y = (int)rng_below(&g->play, (uint32_t)lv->h);
        if (!level_passable(g, lv, x, y) || level_visible(lv, x, y) ||
            level_creature_at(g, g->depth, x, y))
            continue;
        creature_make(g, (uint16_t)k, g->depth, x, y, &g->play, MAKE_AWARE);
        return;
    }
}

void status_rest(game_t *g)
{
    obj_t *p = reg_get(&g->reg, g->player);
    if (!p)
        return;
    if (hostile_in_view(g)) {
        msg_add(g, "You cannot rest with enemies in view.");
        return;
    }
    if (p->hp >= p->hp_max && g->pc.mana >= g->pc.mana_max) {
        msg_add(g, "You are not hurt: there is no need to rest.");
        return;
    }
    if (hunger_level(g->items.food) >= 2) {
        msg_add(g, "You are too hungry to rest.");
        return;
    }
    uint32_t said = g->said;
    int turns = 0;
    while (turns < REST_MAX_TURNS && g->state == GAME_RUNNING) {
        if (rng_below(&g->play, WANDER_ONE_IN) == 0)
            wander_spawn(g);
        if (sched_push(&g->sched, g->sched.now + SCHED_MOVE, FN_PLAYER_TURN, g->player, 0, 0) < 0)
            break;
        vision_update(g);
        turn_run(g);
        vision_update(g);
        turns++;
        p = reg_get(&g->reg, g->player);
        if (!p || (p->hp >= p->hp_max && g->pc.mana >= g->pc.mana_max) || hostile_in_view(g) ||
            g->said != said || hunger_level(g->items.food) >= 2)
            break;
    }
    if (g->state != GAME_RUNNING || !p)
        return;
    if (p->hp >= p->hp_max && g->pc.mana >= g->pc.mana_max)
        msg_add(g, "You rest for %d turn%s and feel fit again.", turns, turns == 1 ? "" : "s");
    else
        msg_add(g, "Your rest is interrupted after %d turn%s.", turns, turns == 1 ? "" : "s");
}

bool status_player_stuck(game_t *g)
{
    conduct_t c;
    status_conduct(g, g->player, &c);
    if (!c.lose_turn)
        return false;
    msg_add(g, "You cannot move!");
    return true;
}
