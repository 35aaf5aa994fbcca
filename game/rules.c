/* rules — the small world: moving, bumping to attack through the event
 * chain (attack -> hit -> damage -> death), monsters at their own speeds,
 * a poison bite that starts a timed effect. */
#include "rules.h"
#include <stdio.h>
#include <string.h>
#include "grammar.h"
#include "mapgen.h"
#include "world.h"

/* ---- words ------------------------------------------------------------------- */

static bool is_player(game_t *g, handle_t h) { return h != HANDLE_NONE && h == g->player; }

static const creature_kind_t *ckind(game_t *g, const obj_t *o)
{
    return o->kind < g->c->n_creatures ? &g->c->creatures[o->kind] : &g->c->creatures[0];
}

/* Can the player see this creature now? Messages about others are dropped. */
static bool seen(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    const level_t *lv = world_level(g);
    if (!o || !lv || o->depth != g->depth) return false;
    return is_player(g, h) || level_visible(lv, o->x, o->y);
}

static gram_noun_t noun_of(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    gram_noun_t n = {o ? ckind(g, o)->name : "thing", NULL, 1, o ? ckind(g, o)->gender : GRAM_IT, 0};
    if (is_player(g, h)) n.flags |= GRAM_PLAYER;
    if (seen(g, h)) n.flags |= GRAM_PERCEIVED;
    return n;
}

/* One message through the grammar: nothing when neither noun is perceived. */
static void say(game_t *g, const char *tmpl, handle_t actor, handle_t victim)
{
    gram_arg_t args[2];
    int n = 0;
    if (actor) args[n++] = (gram_arg_t){"actor", noun_of(g, actor)};
    if (victim) args[n++] = (gram_arg_t){"victim", noun_of(g, victim)};
    char text[MSG_LEN];
    if (gram_format(text, sizeof text, tmpl, args, n) > 0) world_msg(g, "%s", text);
}

/* ---- handlers ------------------------------------------------------------- */

static int h_map(game_t *g, ev_info_t *e, handle_t self)
{
    (void)self;
    if (e->type != EV_MOVE || e->phase != PHASE_PRE) return EV_NOTHING;
    level_t *lv = g->levels[e->map];
    if (!lv || !world_passable(g, lv, e->x, e->y)) return EV_DONE; /* veto: walls */
    if (world_creature_at(g, e->map, e->x, e->y)) return EV_DONE;
    return EV_NOTHING;
}

static int rules_attack(game_t *g, ev_info_t *e)
{
    obj_t *a = reg_get(&g->reg, e->actor), *v = reg_get(&g->reg, e->victim);
    if (!a || !v) return EV_DONE;
    const creature_kind_t *ak = ckind(g, a), *vk = ckind(g, v);
    int roll = (int)rng_range(&g->play, 1, 20);
    if (roll != 20 && roll + ak->to_hit < 10 + vk->defence) {
        say(g, "<Actor> miss<es:Actor> <victim>.", e->actor, e->victim);
        return EV_DONE;
    }
    ev_info_t hit = {.type = EV_HIT, .actor = e->actor, .victim = e->victim, .map = -1, .dtype = DT_HIT};
    hit.amount[0] = dice_roll(&ak->attack, &g->play);
    if (hit.amount[0] < 1) hit.amount[0] = 1;
    event_throw(g, &hit);
    return EV_DONE;
}

static int rules_damage(game_t *g, ev_info_t *e, obj_t *v)
{
    v->hp -= e->amount[0];
    if (v->hp > 0) return EV_DONE;
    ev_info_t d = {.type = EV_DEATH, .actor = e->actor, .victim = e->victim, .map = -1, .dtype = e->dtype};
    event_throw(g, &d);
    return EV_DONE;
}

static int h_creature(game_t *g, ev_info_t *e, handle_t self)
{
    if (e->phase != PHASE_MAIN) return EV_NOTHING;
    obj_t *o = reg_get(&g->reg, self);
    if (!o) return EV_NOTHING;
    if (self == e->actor && e->type == EV_MOVE) {
        o->x = e->x;
        o->y = e->y;
        return EV_DONE;
    }
    if (self == e->actor && e->type == EV_ATTACK) return rules_attack(g, e);
    if (self == e->actor && e->type == EV_HIT) {
        say(g, "<Actor> hit<s:Actor> <victim>.", e->actor, e->victim);
        /* the damage step shares the hit's info: same actor, victim, amount */
        e->type = EV_DAMAGE;
        event_throw(g, e);
        return EV_DONE;
    }
    if (self == e->victim && e->type == EV_DAMAGE) return rules_damage(g, e, o);
    if (self == e->victim && e->type == EV_DEATH) {
        rules_kill(g, self, e->actor);
        return EV_DONE;
    }
    return EV_NOTHING;
}

/* A kind handler: after a spider's bite hurts, maybe poison. */
static int h_poison_bite(game_t *g, ev_info_t *e, handle_t self)
{
    if (e->type != EV_DAMAGE || e->phase != PHASE_POST || self != e->actor || e->dtype != DT_HIT) return EV_NOTHING;
    obj_t *v = reg_get(&g->reg, e->victim);
    if (v && v->hp > 0 && rng_percent(&g->play, 50)) effect_apply(g, e->victim, g->c->poison_effect, 500, 1);
    return EV_NOTHING;
}

/* A region handler: on a slippery floor a step may slide one cell further
 * (a nested move, so walls, creatures and other rules still apply). */
static int h_slippery(game_t *g, ev_info_t *e, handle_t self)
{
    (void)self;
    if (e->type != EV_MOVE || e->phase != PHASE_POST || !rng_percent(&g->play, 25)) return EV_NOTHING;
    int dx = e->amount[0], dy = e->amount[1];
    if (dx < -1 || dx > 1 || dy < -1 || dy > 1 || (!dx && !dy)) return EV_NOTHING;
    ev_info_t m = *e;
    m.phase = PHASE_PRE;
    m.x = (int16_t)(e->x + dx);
    m.y = (int16_t)(e->y + dy);
    if (event_throw(g, &m) == EV_DONE) say(g, "<Actor> slide<s:Actor> on the slick floor.", e->actor, HANDLE_NONE);
    return EV_NOTHING;
}

const ev_handler_t RULES_HANDLERS[H_COUNT] = {
    [H_MAP] = h_map,
    [H_CREATURE] = h_creature,
    [H_POISON_BITE] = h_poison_bite,
    [H_SLIPPERY] = h_slippery,
};

/* ---- effect hooks --------------------------------------------------------- */

static void hk_poison(game_t *g, handle_t eh, obj_t *e, effect_phase_t phase)
{
    (void)eh;
    handle_t t = e->target;
    if (phase == HOOK_START) say(g, "<Actor> <is:Actor> poisoned.", t, HANDLE_NONE);
    if (phase == HOOK_END) say(g, "<Actor> <is:Actor> no longer poisoned.", t, HANDLE_NONE);
    if (phase != HOOK_TICK) return;
    ev_info_t d = {.type = EV_DAMAGE, .victim = t, .map = -1, .dtype = DT_POISON};
    d.amount[0] = e->magnitude;
    event_throw(g, &d);
}

/* Slowed: half speed from start to end (the start does not run again
 * when a refresh stacks, so halving happens once). */
static void hk_slow(game_t *g, handle_t eh, obj_t *e, effect_phase_t phase)
{
    (void)eh;
    handle_t t = e->target;
    obj_t *o = reg_get(&g->reg, t);
    if (!o || phase == HOOK_TICK) return;
    if (phase == HOOK_START) {
        o->speed = (int16_t)(o->speed > 1 ? o->speed / 2 : 1);
        say(g, "<Actor> slow<s:Actor> down.", t, HANDLE_NONE);
    } else {
        o->speed = (int16_t)(o->speed * 2);
        say(g, "<Actor> speed<s:Actor> up again.", t, HANDLE_NONE);
    }
}

const effect_hook_t RULES_HOOKS[HK_COUNT] = {
    [HK_POISON_START] = hk_poison,
    [HK_POISON_TICK] = hk_poison,
    [HK_POISON_END] = hk_poison,
    [HK_SLOW_START] = hk_slow,
    [HK_SLOW_TICK] = hk_slow,
    [HK_SLOW_END] = hk_slow,
};

/* ---- creatures ------------------------------------------------------------- */

handle_t rules_spawn(game_t *g, uint16_t kind, int depth, int x, int y)
{
    if (kind >= g->c->n_creatures) return HANDLE_NONE;
    level_t *lv = g->levels[depth];
    obj_t *o;
    handle_t h = reg_new(&g->reg, OBJ_CREATURE, &o);
    if (!h) return HANDLE_NONE;
    const creature_kind_t *k = &g->c->creatures[kind];
    o->kind = kind;
    o->x = (int16_t)x;
    o->y = (int16_t)y;
    o->depth = (int16_t)depth;
    o->speed = k->speed;
    int32_t hp = dice_roll(&k->hp, lv ? &lv->gen : &g->play);
    o->hp = o->hp_max = hp > 0 ? hp : 1;
    return h;
}

void rules_kill(game_t *g, handle_t victim, handle_t killer)
{
    obj_t *v = reg_get(&g->reg, victim);
    if (!v) return;
    if (is_player(g, victim)) {
        v->hp = 0;
        obj_t *k = reg_get(&g->reg, killer);
        if (k) snprintf(g->cause, sizeof g->cause, "killed by a %s on level %d", ckind(g, k)->name, g->depth);
        else snprintf(g->cause, sizeof g->cause, "died of poison on level %d", g->depth);
        world_msg(g, "You die...");
        g->state = GAME_DEAD;
        world_milestone(g, "end", "%s", g->cause);
        return;
    }
    say(g, "<Actor> die<s:Actor>.", victim, HANDLE_NONE);
    if (is_player(g, killer)) g->score += 10;
    effect_clear(g, victim);
    sched_cancel(&g->sched, victim);
    reg_del(&g->reg, victim);
}

static uint16_t pick_kind(game_t *g, rng_t *r, int depth)
{
    int total = 0;
    for (uint16_t i = 0; i < g->c->n_creatures; i++)
        if (i != g->c->player_kind && g->c->creatures[i].min_depth <= depth) total += g->c->creatures[i].weight;
    int roll = (int)rng_below(r, (uint32_t)(total > 0 ? total : 1));
    for (uint16_t i = 0; i < g->c->n_creatures; i++) {
        if (i == g->c->player_kind || g->c->creatures[i].min_depth > depth) continue;
        roll -= g->c->creatures[i].weight;
        if (roll < 0) return i;
    }
    return g->c->player_kind == 0 && g->c->n_creatures > 1 ? 1 : 0;
}

static int dist(int x0, int y0, int x1, int y1)
{
    int dx = x0 > x1 ? x0 - x1 : x1 - x0, dy = y0 > y1 ? y0 - y1 : y1 - y0;
    return dx > dy ? dx : dy;
}

/* Monsters on free floor away from the arrival point, from the level's stream. */
int rules_populate(game_t *g, level_t *lv)
{
    int want = 5 + (int)rng_below(&lv->gen, 4) + lv->depth;
    for (int n = 0, tries = 0; n < want && tries < 2000; tries++) {
        int x = (int)rng_below(&lv->gen, (uint32_t)lv->w), y = (int)rng_below(&lv->gen, (uint32_t)lv->h);
        if (level_terrain(lv, x, y) != MAP_FLOOR || dist(x, y, lv->up_x, lv->up_y) < 6) continue;
        if (world_creature_at(g, lv->depth, x, y)) continue;
        handle_t h = rules_spawn(g, pick_kind(g, &lv->gen, lv->depth), lv->depth, x, y);
        if (!h) return -1;
        const obj_t *o = reg_get(&g->reg, h);
        if (sched_push(&g->sched, g->sched.now + sched_cost(SCHED_MOVE, o->speed), FN_MONSTER_TURN, h, 0, 0) < 0)
            return -1;
        n++;
    }
    return 0;
}

/* ---- actions ---------------------------------------------------------------- */

static const int8_t DIRS[8][2] = {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}};

/* Moves or attacks; returns ticks spent (0 when the move was refused).
 * The move carries its direction (amount 0 and 1) for the region rules. */
int rules_step(game_t *g, handle_t h, int dx, int dy)
{
    obj_t *o = reg_get(&g->reg, h);
    if (!o) return 0;
    int x = o->x + dx, y = o->y + dy, speed = o->speed;
    handle_t other = world_creature_at(g, o->depth, x, y);
    if (other && other != h && !is_player(g, h) && !is_player(g, other)) return 0; /* no infighting */
    if (other && other != h) {
        ev_info_t a = {.type = EV_ATTACK, .actor = h, .victim = other, .map = o->depth, .x = (int16_t)x, .y = (int16_t)y};
        event_throw(g, &a);
        return (int)sched_cost(SCHED_MOVE, speed);
    }
    ev_info_t m = {.type = EV_MOVE, .actor = h, .map = o->depth, .x = (int16_t)x, .y = (int16_t)y,
                   .amount = {dx, dy}};
    if (event_throw(g, &m) != EV_DONE) return 0;
    return (int)sched_cost(dx && dy ? SCHED_DIAG : SCHED_MOVE, speed);
}

void rules_monster_turn(game_t *g, const event_t *ev)
{
    obj_t *m = reg_get(&g->reg, ev->target), *p = reg_get(&g->reg, g->player);
    if (!m || m->type != OBJ_CREATURE || !p) return;
    if (m->depth != g->depth) return; /* frozen off-level; woken on arrival */
    int d = dist(m->x, m->y, p->x, p->y), cost = 0;
    const level_t *lv = world_level(g);
    /* sight is symmetric: if the player sees it, it sees the player; close by, it smells you */
    bool sees = level_visible(lv, m->x, m->y);
    if (sees || d <= 4) m->flags |= OF_AWAKE;
    if (d <= 1) {
        cost = rules_step(g, ev->target, p->x - m->x, p->y - m->y);
    } else if (m->flags & OF_AWAKE) {
        int best = -1, bestd = d;
        for (int i = 0; i < 8; i++) {
            int nx = m->x + DIRS[i][0], ny = m->y + DIRS[i][1], nd = dist(nx, ny, p->x, p->y);
            if (nd < bestd && world_passable(g, lv, nx, ny) && !world_creature_at(g, g->depth, nx, ny)) {
                best = i;
                bestd = nd;
            }
        }
        if (best >= 0) cost = rules_step(g, ev->target, DIRS[best][0], DIRS[best][1]);
    } else if (rng_percent(&g->play, 50)) {
        int i = (int)rng_below(&g->play, 8);
        cost = rules_step(g, ev->target, DIRS[i][0], DIRS[i][1]);
    }
    m = reg_get(&g->reg, ev->target);
    if (!m) return;
    if (cost <= 0) cost = (int)sched_cost(SCHED_MOVE, m->speed);
    sched_push(&g->sched, g->sched.now + (uint64_t)cost, FN_MONSTER_TURN, ev->target, 0, 0);
}

void rules_regen(game_t *g, const event_t *ev)
{
    obj_t *p = reg_get(&g->reg, ev->target);
    if (!p) return;
    if (p->hp < p->hp_max) p->hp++;
    sched_push(&g->sched, g->sched.now + 8 * SCHED_MOVE, FN_REGEN, ev->target, 0, 0);
}

void rules_player_turn(game_t *g, const event_t *ev) { (void)g, (void)ev; }

/* ---- stairs ----------------------------------------------------------------- */

/* Creatures of the arrival level get turns again (they froze when we left). */
static void rules_wake_level(game_t *g, int depth)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != depth || h == g->player) continue;
        bool pending = false;
        for (uint32_t i = 0; i < g->sched.n && !pending; i++) pending = g->sched.heap[i].target == h;
        if (!pending) sched_push(&g->sched, g->sched.now + sched_cost(SCHED_MOVE, o->speed), FN_MONSTER_TURN, h, 0, 0);
    }
}

int rules_stairs(game_t *g, int dir)
{
    obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = world_level(g);
    uint8_t t = level_terrain(lv, p->x, p->y);
    if (t != (dir > 0 ? MAP_STAIRS_DOWN : MAP_STAIRS_UP)) {
        world_msg(g, "There is no staircase %s here.", dir > 0 ? "down" : "up");
        return 0;
    }
    int nd = g->depth + dir;
    if (nd < 1 || nd > WORLD_MAX_DEPTH) {
        world_msg(g, "The way up is barred by rubble.");
        return 0;
    }
    if (!g->levels[nd]) {
        level_t *n = level_new(g, lv->w, lv->h, nd);
        if (!n) return 0;
        g->levels[nd] = n;
        if (level_generate(g, n) < 0 || rules_populate(g, n) < 0) return 0;
    }
    level_t *to = g->levels[nd];
    level_sleep(g, lv); /* only the current level stays live */
    p = reg_get(&g->reg, g->player); /* populating may have moved the registry */
    g->depth = (int16_t)nd;
    p->depth = (int16_t)nd;
    p->x = dir > 0 ? to->up_x : to->down_x;
    p->y = dir > 0 ? to->up_y : to->down_y;
    g->level_changes++;
    if (nd > g->max_depth) {
        g->max_depth = (int16_t)nd;
        g->score += 50;
        world_milestone(g, "depth", "reached level %d", nd);
    }
    rules_wake_level(g, nd);
    world_msg(g, "You %s the stairs.", dir > 0 ? "descend" : "climb");
    return SCHED_MOVE;
}
