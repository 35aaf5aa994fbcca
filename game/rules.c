/* rules — the small world: moving, bumping to attack through the event
 * chain (attack -> hit -> damage -> death), monsters at their own speeds,
 * a poison bite that starts a timed effect. */
#include "rules.h"
#include <stdio.h>
#include <string.h>
#include "grammar.h"
#include "itemui.h"
#include "itemuse.h"
#include "mapgen.h"
#include "status.h"
#include "world.h"

/* ---- words ------------------------------------------------------------------- */

static bool is_player(game_t *g, handle_t h)
{
    return h != HANDLE_NONE && h == g->player;
}

const creature_kind_t *world_ckind(const game_t *g, const obj_t *o)
{
    return o->kind < g->c->n_creatures ? &g->c->creatures[o->kind] : &g->c->creatures[0];
}
#define ckind world_ckind

/* Can the player see this creature now? Messages about others are dropped. */
bool world_walkable(game_t *g, const level_t *lv, int x, int y)
{
    return world_passable(g, lv, x, y) || level_terrain(lv, x, y) == MAP_DOOR_CLOSED;
}

bool world_sees(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    const level_t *lv = world_level(g);
    if (!o || !lv || o->depth != g->depth)
        return false;
    return is_player(g, h) || level_visible(lv, o->x, o->y);
}

gram_noun_t world_noun(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    const creature_kind_t *k = o ? ckind(g, o) : NULL;
    gram_noun_t n = {k ? k->name : "thing", NULL, 1, k ? k->gender : GRAM_IT, 0};
    if (k && (k->flags & CF_PROPER))
        n.flags |= GRAM_PROPER;
    else if (k && (k->flags & CF_UNIQUE))
        n.flags |= GRAM_UNIQUE;
    if (is_player(g, h))
        n.flags |= GRAM_PLAYER;
    if (world_sees(g, h))
        n.flags |= GRAM_PERCEIVED;
    return n;
}

/* One message through the grammar: nothing when neither noun is perceived. */
void world_say(game_t *g, const char *tmpl, handle_t actor, handle_t victim)
{
    gram_arg_t args[2];
    int n = 0;
    if (actor)
        args[n++] = (gram_arg_t){"actor", world_noun(g, actor)};
    if (victim)
        args[n++] = (gram_arg_t){"victim", world_noun(g, victim)};
    char text[MSG_LEN];
    if (gram_format(text, sizeof text, tmpl, args, n) > 0)
        world_msg(g, "%s", text);
}
#define say world_say

/* ---- handlers ------------------------------------------------------------- */

static int h_map(game_t *g, ev_info_t *e, handle_t self)
{
    (void)self;
    if (e->type != EV_MOVE || e->phase != PHASE_PRE)
        return EV_NOTHING;
    level_t *lv = g->levels[e->map];
    if (!lv || !world_passable(g, lv, e->x, e->y))
        return EV_DONE; /* veto: walls */
    if (world_creature_at(g, e->map, e->x, e->y))
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
    int dc = 10 + world_ckind(g, a)->level;
    if (e->victim == g->player && (int)rng_range(&g->play, 1, 20) + pc_save(g, SAVE_FORT) >= dc)
        return EV_NOTHING;
    effect_apply(g, e->victim, g->c->poison_effect, 300 + 100 * world_ckind(g, a)->level, 1);
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
    if (event_throw(g, &m) == EV_DONE)
        say(g, "<Actor> slide<s:Actor> on the slick floor.", e->actor, HANDLE_NONE);
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
    if (phase == HOOK_START)
        say(g, "<Actor> <is:Actor> poisoned.", t, HANDLE_NONE);
    if (phase == HOOK_END)
        say(g, "<Actor> <is:Actor> no longer poisoned.", t, HANDLE_NONE);
    if (phase != HOOK_TICK)
        return;
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
    if (!o || phase == HOOK_TICK)
        return;
    if (phase == HOOK_START) {
        o->speed = (int16_t)(o->speed > 1 ? o->speed / 2 : 1);
        say(g, "<Actor> slow<s:Actor> down.", t, HANDLE_NONE);
    } else {
        o->speed = (int16_t)(o->speed * 2);
        say(g, "<Actor> speed<s:Actor> up again.", t, HANDLE_NONE);
    }
}

const effect_hook_t RULES_HOOKS[HK_COUNT] = {
    [HK_POISON_START] = hk_poison, [HK_POISON_TICK] = hk_poison, [HK_POISON_END] = hk_poison,
    [HK_SLOW_START] = hk_slow,     [HK_SLOW_TICK] = hk_slow,     [HK_SLOW_END] = hk_slow,
    [HK_STATUS] = status_hook,
};

/* ---- creatures ------------------------------------------------------------- */

handle_t rules_spawn(game_t *g, uint16_t kind, int depth, int x, int y)
{
    if (kind >= g->c->n_creatures)
        return HANDLE_NONE;
    level_t *lv = g->levels[depth];
    obj_t *o;
    handle_t h = reg_new(&g->reg, OBJ_CREATURE, &o);
    if (!h)
        return HANDLE_NONE;
    const creature_kind_t *k = &g->c->creatures[kind];
    o->kind = kind;
    o->x = (int16_t)x;
    o->y = (int16_t)y;
    o->depth = (int16_t)depth;
    o->speed = k->speed;
    o->magnitude = -1; /* no wander goal yet (ai.c) */
    int32_t hp = dice_roll(&k->hp, lv ? &lv->gen : &g->play);
    o->hp = o->hp_max = hp > 0 ? hp : 1;
    return h;
}

void rules_kill(game_t *g, handle_t victim, handle_t killer)
{
    combat_death(g, victim, killer);
}

static bool kind_fits(const game_t *g, uint16_t i, int depth)
{
    const creature_kind_t *k = &g->c->creatures[i];
    if (i == g->c->player_kind || k->min_depth > depth || k->max_depth < depth || k->weight <= 0)
        return false;
    int u = unique_index(g->c, i);
    return u < 0 || !(g->pc.uniques_made >> u & 1); /* a unique once a game */
}

/* A kind by generation weight at this depth; -1 when none fits. */
static int pick_kind(game_t *g, rng_t *r, int depth)
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

/* One creature and its first turn; HANDLE_NONE on OOM. */
static handle_t place(game_t *g, level_t *lv, uint16_t kind, int x, int y)
{
    handle_t h = rules_spawn(g, kind, lv->depth, x, y);
    const obj_t *o = reg_get(&g->reg, h);
    if (!o)
        return HANDLE_NONE;
    int u = unique_index(g->c, kind);
    if (u >= 0)
        g->pc.uniques_made |= 1ull << u;
    if (sched_push(&g->sched, g->sched.now + sched_cost(SCHED_MOVE, o->speed), FN_MONSTER_TURN, h,
                   0, 0) < 0)
        return HANDLE_NONE;
    itemuse_monster_kit(g, h, &lv->gen); /* last: it may move the registry under o */
    return h;
}

/* The rest of a pack on free floor around (x, y). */
static int place_pack(game_t *g, level_t *lv, uint16_t kind, int x, int y)
{
    int more = (int)rng_range(&lv->gen, 0, g->c->creatures[kind].pack);
    for (int i = 0, tries = 0; i < more && tries < 40; tries++) {
        int nx = x + (int)rng_range(&lv->gen, -2, 2), ny = y + (int)rng_range(&lv->gen, -2, 2);
        if (level_terrain(lv, nx, ny) != MAP_FLOOR || world_creature_at(g, lv->depth, nx, ny))
            continue;
        if (!place(g, lv, kind, nx, ny))
            return -1;
        i++;
    }
    return 0;
}

/* The warden waits on the bottom level, as far from the stairs as it can. */
static int place_warden(game_t *g, level_t *lv)
{
    for (uint16_t i = 0; i < g->c->n_creatures; i++) {
        if (!(g->c->creatures[i].flags & CF_WARDEN))
            continue;
        int bx = -1, by = -1, bd = -1;
        for (int y = 0; y < lv->h; y++)
            for (int x = 0; x < lv->w; x++)
                if (level_terrain(lv, x, y) == MAP_FLOOR && dist(x, y, lv->up_x, lv->up_y) > bd &&
                    !world_creature_at(g, lv->depth, x, y))
                    bx = x, by = y, bd = dist(x, y, lv->up_x, lv->up_y);
        if (bx >= 0 && !place(g, lv, i, bx, by))
            return -1;
    }
    return 0;
}

/* Monsters on free floor away from the arrival point, from the level's stream. */
int rules_populate(game_t *g, level_t *lv)
{
    if (lv->depth >= WORLD_MAX_DEPTH && place_warden(g, lv) < 0)
        return -1;
    int want = 5 + (int)rng_below(&lv->gen, 4) + lv->depth / 2;
    for (int n = 0, tries = 0; n < want && tries < 2000; tries++) {
        int x = (int)rng_below(&lv->gen, (uint32_t)lv->w),
            y = (int)rng_below(&lv->gen, (uint32_t)lv->h);
        if (level_terrain(lv, x, y) != MAP_FLOOR || dist(x, y, lv->up_x, lv->up_y) < 6)
            continue;
        if (world_creature_at(g, lv->depth, x, y))
            continue;
        int kind = pick_kind(g, &lv->gen, lv->depth);
        if (kind < 0)
            break;
        if (!place(g, lv, (uint16_t)kind, x, y))
            return -1;
        if (g->c->creatures[kind].pack && place_pack(g, lv, (uint16_t)kind, x, y) < 0)
            return -1;
        n++;
    }
    return 0;
}

/* ---- actions ---------------------------------------------------------------- */

/* Moves or attacks; returns ticks spent (0 when the move was refused).
 * The move carries its direction (amount 0 and 1) for the region rules. */
int rules_step(game_t *g, handle_t h, int dx, int dy)
{
    obj_t *o = reg_get(&g->reg, h);
    if (!o)
        return 0;
    int x = o->x + dx, y = o->y + dy, speed = o->speed;
    handle_t other = world_creature_at(g, o->depth, x, y);
    if (other && other != h && !is_player(g, h) && !is_player(g, other))
        return 0; /* no infighting */
    if (other && other != h && is_player(g, h) && status_has(g, h, EFK_(AFRAID))) {
        world_msg(g, "You are too afraid to attack!");
        return 0;
    }
    if (other && other != h) {
        ev_info_t a = {.type = EV_ATTACK,
                       .actor = h,
                       .victim = other,
                       .map = o->depth,
                       .x = (int16_t)x,
                       .y = (int16_t)y};
        event_throw(g, &a);
        return (int)sched_cost(SCHED_MOVE, speed);
    }
    level_t *lv = g->levels[o->depth];
    if (level_terrain(lv, x, y) == MAP_DOOR_CLOSED) { /* bumping a door opens it */
        lv->terrain[y * lv->w + x] = MAP_DOOR_OPEN;
        lv->opaque_ok = 0;
        if (h != g->player)
            say(g, "<Actor> open<s:Actor> a door.", h, HANDLE_NONE);
        return (int)sched_cost(SCHED_MOVE, speed);
    }
    ev_info_t m = {.type = EV_MOVE,
                   .actor = h,
                   .map = o->depth,
                   .x = (int16_t)x,
                   .y = (int16_t)y,
                   .amount = {dx, dy}};
    if (event_throw(g, &m) != EV_DONE)
        return 0;
    return (int)sched_cost(dx && dy ? SCHED_DIAG : SCHED_MOVE, speed);
}

void rules_monster_turn(game_t *g, const event_t *ev)
{
    ai_monster_turn(g, ev->target);
}

void rules_regen(game_t *g, const event_t *ev)
{
    obj_t *p = reg_get(&g->reg, ev->target);
    if (!p)
        return;
    if (p->hp < p->hp_max)
        p->hp++;
    if (ev->target == g->player && g->pc.mana < g->pc.mana_max)
        g->pc.mana++;
    sched_push(&g->sched, g->sched.now + 8 * SCHED_MOVE, FN_REGEN, ev->target, 0, 0);
}

void rules_player_turn(game_t *g, const event_t *ev)
{
    (void)g, (void)ev;
}

/* ---- stairs ----------------------------------------------------------------- */

/* Creatures of the arrival level get turns again (they froze when we left). */
static void rules_wake_level(game_t *g, int depth)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != depth || h == g->player)
            continue;
        bool pending = false;
        for (uint32_t i = 0; i < g->sched.n && !pending; i++)
            pending = g->sched.heap[i].target == h;
        if (!pending)
            sched_push(&g->sched, g->sched.now + sched_cost(SCHED_MOVE, o->speed), FN_MONSTER_TURN,
                       h, 0, 0);
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
    if (nd < 1 && g->pc.heartstone) {
        end_win(g);
        return SCHED_MOVE;
    }
    if (nd < 1 || nd > WORLD_MAX_DEPTH) {
        world_msg(g, nd < 1 ? "You will not leave the Warren without the Heartstone."
                            : "The stairs end here.");
        return 0;
    }
    if (!g->levels[nd]) {
        level_t *n = level_new(g, lv->w, lv->h, nd);
        if (!n)
            return 0;
        g->levels[nd] = n;
        if (level_generate(g, n) < 0 || rules_populate(g, n) < 0)
            return 0;
    }
    level_t *to = g->levels[nd];
    level_sleep(g, lv);              /* only the current level stays live */
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
