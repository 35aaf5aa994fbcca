/* creature — creatures: kinds, names, making, peopling a level, a step
 * and regeneration (see creature.h). */
#include "creature.h"
#include "combat.h"
#include "effect.h"
#include "event.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "msg.h"
#include "overland.h"
#include "shop.h"
#include "special.h"
#include "status.h"
#include "target.h"
#include "trap.h"
#include "vision.h"

static bool is_player(game_t *g, handle_t h)
{
    return h != HANDLE_NONE && h == g->player;
}

const creature_kind_t *creature_kind(const game_t *g, const obj_t *o)
{
    return o->kind < g->c->n_creatures ? &g->c->creatures[o->kind] : &g->c->creatures[0];
}

int creature_unique_index(const content_t *c, uint16_t kind)
{
    if (kind >= c->n_creatures || !(c->creatures[kind].flags & CF_UNIQUE))
        return -1;
    int n = 0;
    for (uint16_t i = 0; i < kind; i++)
        n += (c->creatures[i].flags & CF_UNIQUE) != 0;
    return n < 64 ? n : -1;
}

gram_noun_t creature_noun(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    const creature_kind_t *k = o ? creature_kind(g, o) : NULL;
    gram_noun_t n = {k ? k->name : "thing", NULL, 1, k ? k->gender : GRAM_IT, 0};
    if (k && (k->flags & CF_PROPER))
        n.flags |= GRAM_PROPER;
    else if (k && (k->flags & CF_UNIQUE))
        n.flags |= GRAM_UNIQUE;
    if (is_player(g, h))
        n.flags |= GRAM_PLAYER;
    if (vision_sees(g, h))
        n.flags |= GRAM_PERCEIVED;
    return n;
}

/* One message through the grammar: nothing when neither noun is perceived. */
void creature_say(game_t *g, const char *tmpl, handle_t actor, handle_t victim)
{
    gram_arg_t args[2];
    int n = 0;
    if (actor)
        args[n++] = (gram_arg_t){"actor", creature_noun(g, actor)};
    if (victim)
        args[n++] = (gram_arg_t){"victim", creature_noun(g, victim)};
    char text[MSG_LEN];
    if (gram_format(text, sizeof text, tmpl, args, n) > 0)
        msg_add(g, "%s", text);
}

/* ---- making and placing ---------------------------------------------------- */

handle_t creature_spawn(game_t *g, uint16_t kind, int depth, int x, int y)
{
    if (kind >= g->c->n_creatures)
        return HANDLE_NONE;
    level_t *lv = g->levels[depth];
    obj_t *o;
    handle_t h = reg_new(&g->reg, OBJ_CREATURE, &o);
    if (!h)
        return HANDLE_NONE;
    const creature_kind_t *k = &g->c->creatures[kind];
    int u = creature_unique_index(g->c, kind);
    g->uniques_held |= u >= 0 ? 1ull << u : 0; /* combat_unique_seen looks for him */
    o->kind = kind;
    o->x = (int16_t)x;
    o->y = (int16_t)y;
    o->depth = (int16_t)depth;
    reg_refile(&g->reg, h);
    o->speed = k->speed;
    o->magnitude = -1; /* no wander goal yet (ai.c) */
    int32_t hp = dice_roll(&k->hp, lv ? &lv->gen : &g->play);
    o->hp = o->hp_max = hp > 0 ? hp : 1;
    return h;
}

/* What each kind of mind does: thinking (the default), animal, mindless. */
enum { MIND_THINKING = 0, MIND_ANIMAL, MIND_MINDLESS, MIND_COUNT };
static const mind_t MINDS[MIND_COUNT] = {
    [MIND_THINKING] = {.uses_items = true, .flees = true, .sleeps = 50},
    [MIND_ANIMAL] = {.flees = true, .sleeps = 60, .perception = 3},
    [MIND_MINDLESS] = {.perception = -2, .immune = EFK_(AFRAID) | EFK_(CONFUSED) | EFK_(ASLEEP)},
};

const mind_t *creature_mind(const game_t *g, const obj_t *o)
{
    unsigned f = o ? creature_kind(g, o)->flags : 0;
    return &MINDS[(f & CF_MINDLESS) ? MIND_MINDLESS
                  : (f & CF_ANIMAL) ? MIND_ANIMAL
                                    : MIND_THINKING];
}

/* Whether kind i may be made at depth: within its depths, by weight, a
 * unique once a game, never the player's kind nor the warden (he is put on
 * the bottom level, place_warden). */
static bool kind_fits(const game_t *g, uint16_t i, int depth)
{
    const creature_kind_t *k = &g->c->creatures[i];
    if (i == g->c->player_kind || k->min_depth > depth || k->max_depth < depth || k->weight <= 0 ||
        (k->flags & CF_WARDEN))
        return false;
    int u = creature_unique_index(g->c, i);
    return u < 0 || !(g->pc.uniques_made >> u & 1);
}

int creature_pick_kind(game_t *g, rng_t *r, int depth)
{
    int total = 0;
    for (uint16_t i = 0; i < g->c->n_creatures; i++)
        if (kind_fits(g, i, depth))
            total += g->c->creatures[i].weight;
    if (total <= 0)
        return -1;
    int roll = (int)rng_below(r, (uint32_t)total);
    for (uint16_t i = 0; i < g->c->n_creatures; i++) {
        if (!kind_fits(g, i, depth))
            continue;
        roll -= g->c->creatures[i].weight;
        if (roll < 0)
            return i;
    }
    return -1;
}

static int dist(int x0, int y0, int x1, int y1)
{
    int dx = x0 > x1 ? x0 - x1 : x1 - x0, dy = y0 > y1 ? y0 - y1 : y1 - y0;
    return dx > dy ? dx : dy;
}

handle_t creature_make(game_t *g, uint16_t kind, int depth, int x, int y, rng_t *r, int how)
{
    handle_t h = creature_spawn(g, kind, depth, x, y);
    obj_t *o = reg_get(&g->reg, h);
    if (!o)
        return HANDLE_NONE;
    int u = creature_unique_index(g->c, kind);
    if (u >= 0)
        g->pc.uniques_made |= 1ull << u;
    const mind_t *mind = creature_mind(g, o);
    if (creature_kind(g, o)->disguise[0] && how != MAKE_AWARE)
        o->flags |= OF_DISGUISED; /* its script gives it away */
    if (how == MAKE_AWARE)
        o->flags |= OF_AWARE;
    else if (mind->sleeps && rng_percent(r, mind->sleeps))
        o->flags |= OF_ASLEEP;
    if (sched_push(&g->sched, g->sched.now + sched_cost(SCHED_MOVE, status_speed(g, h)),
                   FN_MONSTER_TURN, h, 0, 0) < 0)
        return HANDLE_NONE;
    if (mind->uses_items)
        itemuse_monster_kit(g, h, r); /* last: it may move the registry under o */
    return h;
}

/* One creature of a new level, from the level's stream; HANDLE_NONE on OOM. */
static handle_t place(game_t *g, level_t *lv, uint16_t kind, int x, int y)
{
    return creature_make(g, kind, lv->depth, x, y, &lv->gen, MAKE_SLEEPY);
}

/* The rest of a pack on free floor around (x, y). */
static int place_pack(game_t *g, level_t *lv, uint16_t kind, int x, int y)
{
    int more = (int)rng_range(&lv->gen, 0, g->c->creatures[kind].pack);
    for (int i = 0, tries = 0; i < more && tries < 40; tries++) {
        int nx = x + (int)rng_range(&lv->gen, -2, 2), ny = y + (int)rng_range(&lv->gen, -2, 2);
        if (level_terrain(lv, nx, ny) != MAP_FLOOR || level_creature_at(g, lv->depth, nx, ny))
            continue;
        if (!place(g, lv, kind, nx, ny))
            return -1;
        i++;
    }
    return 0;
}

/* The warden waits on the bottom level, as far from the stairs as it can;
 * once a game, like any unique, and nowhere else. */
static int place_warden(game_t *g, level_t *lv)
{
    for (uint16_t i = 0; i < g->c->n_creatures; i++) {
        int u = creature_unique_index(g->c, i);
        if (!(g->c->creatures[i].flags & CF_WARDEN) || (u >= 0 && (g->pc.uniques_made >> u & 1)))
            continue;
        int bx = -1, by = -1, bd = -1;
        for (int y = 0; y < lv->h; y++)
            for (int x = 0; x < lv->w; x++)
                if (level_terrain(lv, x, y) == MAP_FLOOR && dist(x, y, lv->up_x, lv->up_y) > bd &&
                    !level_creature_at(g, lv->depth, x, y))
                    bx = x, by = y, bd = dist(x, y, lv->up_x, lv->up_y);
        if (bx >= 0 && !place(g, lv, i, bx, by))
            return -1;
    }
    return 0;
}

/* Monsters on free floor away from the arrival point (out of its light),
 * from the level's stream. */
int creature_populate(game_t *g, level_t *lv)
{
    if (lv->depth == WORLD_MAX_DEPTH && place_warden(g, lv) < 0)
        return -1;
    int danger = atlas_danger(g, lv->depth), want = 5 + (int)rng_below(&lv->gen, 4) + danger / 2;
    for (int n = 0, tries = 0; n < want && tries < 2000; tries++) {
        int x = (int)rng_below(&lv->gen, (uint32_t)lv->w),
            y = (int)rng_below(&lv->gen, (uint32_t)lv->h);
        if (level_terrain(lv, x, y) != MAP_FLOOR || dist(x, y, lv->up_x, lv->up_y) < POPULATE_CLEAR)
            continue;
        if (level_creature_at(g, lv->depth, x, y))
            continue;
        int kind = creature_pick_kind(g, &lv->gen, danger);
        if (kind < 0)
            break;
        if (!place(g, lv, (uint16_t)kind, x, y))
            return -1;
        if (g->c->creatures[kind].pack && place_pack(g, lv, (uint16_t)kind, x, y) < 0)
            return -1;
        n++;
    }
    return special_populate(g, lv);
}

void creature_remove(game_t *g, handle_t h)
{
    for (handle_t i = reg_next(&g->reg, HANDLE_NONE); i; i = reg_next(&g->reg, i)) {
        const obj_t *o = reg_get(&g->reg, i);
        if (o->type == OBJ_ITEM && o->target == h)
            reg_del(&g->reg, i);
    }
    status_forget(g, h);
    effect_clear(g, h);
    sched_cancel(&g->sched, h);
    reg_del(&g->reg, h);
}

/* ---- acting ------------------------------------------------------------------ */

/* Whether h may strike other: the player anyone, a monster the player or
 * the foe it hunts (no infighting otherwise). */
static bool may_attack(game_t *g, handle_t h, const obj_t *o, handle_t other)
{
    return is_player(g, h) || is_player(g, other) || (o->target && o->target == other);
}

/* A step away by h, held fast (engulfed): a hold whose holder is gone or
 * no longer beside h ends; else a Ref save against the holder breaks it,
 * or the step is lost. True when h may step. */
static bool break_hold(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    for (handle_t e = reg_next(&g->reg, HANDLE_NONE); e; e = reg_next(&g->reg, e)) {
        const obj_t *eo = reg_get(&g->reg, e);
        if (eo->type != OBJ_EFFECT || eo->target != h || eo->kind >= g->c->n_effects ||
            !(g->c->effects[eo->kind].flags & EFK_(HELD)))
            continue;
        handle_t holder = (handle_t)eo->a[0];
        const obj_t *ho = reg_get(&g->reg, holder);
        if (ho && ho->type == OBJ_CREATURE && ho->depth == o->depth &&
            dist(ho->x, ho->y, o->x, o->y) <= 1 &&
            !combat_save(g, h, SAVE_REF, combat_dc(g, holder), 0)) {
            creature_say(g, "<Actor> struggle<s:Actor> inside <victim>.", h, holder);
            return false;
        }
        status_end(g, e);
    }
    return true;
}

int creature_attack(game_t *g, handle_t h, handle_t other)
{
    const obj_t *o = reg_get(&g->reg, h), *v = reg_get(&g->reg, other);
    if (!o || !v || other == h)
        return 0;
    if (is_player(g, h) && status_has(g, h, EFK_(AFRAID))) {
        msg_add(g, "You are too afraid to attack!");
        return 0;
    }
    ev_info_t a = {
        .type = EV_ATTACK, .actor = h, .victim = other, .map = o->depth, .x = v->x, .y = v->y};
    int speed = status_speed(g, h);
    event_throw(g, &a);
    return (int)sched_cost(SCHED_MOVE, speed);
}

/* Moves or attacks; returns ticks spent (0 when the move was refused).
 * The move carries its direction (amount 0 and 1) for the region rules.
 * The player bumping a keeper trades with it, or, away from its shop, is
 * asked whether to attack it. */
int creature_step(game_t *g, handle_t h, int dx, int dy)
{
    obj_t *o = reg_get(&g->reg, h);
    if (!o)
        return 0;
    int x = o->x + dx, y = o->y + dy, speed = status_speed(g, h);
    handle_t other = level_creature_at(g, o->depth, x, y);
    if (!other && status_has(g, h, EFK_(HELD)) && !break_hold(g, h))
        return (int)sched_cost(SCHED_MOVE, speed); /* the struggle takes the turn */
    if (other && other != h && is_player(g, h) && shop_peaceful(g, reg_get(&g->reg, other)))
        return shop_trades(g, other) ? shop_open(g, other) : target_ask(g, AIM_MELEE, 0, x, y);
    if (other && other != h && !may_attack(g, h, o, other))
        return 0;
    if (other && other != h)
        return creature_attack(g, h, other);
    level_t *lv = g->levels[o->depth];
    if (level_terrain(lv, x, y) == MAP_DOOR_CLOSED) { /* bumping a door opens it */
        level_set_terrain(lv, y * lv->w + x, MAP_DOOR_OPEN);
        lv->opaque_ok = 0;
        if (h != g->player)
            creature_say(g, "<Actor> open<s:Actor> a door.", h, HANDLE_NONE);
        return (int)sched_cost(SCHED_MOVE, speed);
    }
    if (level_terrain(lv, x, y) == MAP_DOOR_LOCKED && h == g->player) {
        msg_add(g, "This door is locked (^D kicks, ^L picks the lock).");
        return 0;
    }
    ev_info_t m = {.type = EV_MOVE,
                   .actor = h,
                   .map = o->depth,
                   .x = (int16_t)x,
                   .y = (int16_t)y,
                   .amount = {dx, dy}};
    if (event_throw(g, &m) != EV_DONE)
        return 0;
    int cost = (int)sched_cost(dx && dy ? SCHED_DIAG : SCHED_MOVE, speed);
    o = reg_get(&g->reg, h);
    cost = special_step_cost(g, cost, o->x, o->y);
    if (is_player(g, h)) {
        shop_left(g, x - dx, y - dy);
        cost += item_arrive(g); /* what lies where the player stands now (a slide included) */
        trap_arrive(g);
        special_underfoot(g); /* deep water, lava, a chasm */
        overland_step(g);     /* on the overland: what lies here, encounters */
    }
    return cost;
}

void creature_disturb(game_t *g, handle_t h)
{
    obj_t *o = reg_get(&g->reg, h);
    if (!o || is_player(g, h))
        return;
    o->flags = (uint8_t)((o->flags & ~OF_ASLEEP) | OF_AWARE);
    if (o->hp >= o->hp_max || (o->flags & OF_REGEN))
        return;
    if (sched_push(&g->sched, g->sched.now + MONSTER_REGEN_TICKS, FN_REGEN, h, 0, 0) == 0)
        o->flags |= OF_REGEN;
}

/* The player: every 8 turns a fortieth of its hit points and a thirtieth
 * of its mana (at least one of each), so a seasoned body mends as fast as
 * a young one in its measure; a monster, while hurt, a twentieth of its
 * hit points (at least one) every MONSTER_REGEN_TICKS. */
void creature_regen(game_t *g, const event_t *ev)
{
    obj_t *p = reg_get(&g->reg, ev->target);
    if (!p)
        return;
    if (ev->target == g->player) {
        int hp = p->hp_max / PLAYER_REGEN_HP > 1 ? p->hp_max / PLAYER_REGEN_HP : 1,
            mp = g->pc.mana_max / PLAYER_REGEN_MANA > 1 ? g->pc.mana_max / PLAYER_REGEN_MANA : 1;
        p->hp = p->hp + hp < p->hp_max ? p->hp + hp : p->hp_max;
        if (g->pc.mana < g->pc.mana_max)
            g->pc.mana =
                (int16_t)(g->pc.mana + mp < g->pc.mana_max ? g->pc.mana + mp : g->pc.mana_max);
        sched_push(&g->sched, g->sched.now + 8 * SCHED_MOVE, FN_REGEN, ev->target, 0, 0);
        return;
    }
    int gain = p->hp_max / 20 > 1 ? p->hp_max / 20 : 1;
    p->hp = p->hp + gain < p->hp_max ? p->hp + gain : p->hp_max;
    if (p->hp >= p->hp_max ||
        sched_push(&g->sched, g->sched.now + MONSTER_REGEN_TICKS, FN_REGEN, ev->target, 0, 0) < 0)
        p->flags &= (uint8_t)~OF_REGEN;
}
