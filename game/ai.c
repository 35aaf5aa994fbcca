/* ai — monsters (Incursion's sum of gravities, Kharne's flight).
 *
 * Each turn a monster scores its eight neighbours and its own cell by a sum
 * of pulls and pushes: the player pulls a hunter (by the player's distance
 * map), pushes a fleeing monster (the same map, reversed), and allies pull
 * a fleeing monster towards them. A monster flees when badly hurt (early
 * when cowardly, never when mindless) and turns to fight when cornered.
 * Without sight of the player it walks to where it last saw you, then
 * wanders towards random points. Casters pick a spell by purpose first:
 * a cure when hurt, a bolt when they see you from afar. Monsters that
 * think quaff healing when badly hurt, zap wands at you along a line, pick
 * up what they want and, with nothing to hunt, walk to it.
 *
 * The distance map is one bounded breadth-first search from the player,
 * made at most once per player move, when a monster first needs it, and
 * shared by every monster (derived, never saved: a load rebuilds the same
 * map, and when it is made never changes what it holds). */
#include "ai.h"
#include <stdio.h>
#include <string.h>
#include "creature.h"
#include "event.h"
#include "itemuse.h"
#include "level.h"
#include "mapgen.h"
#include "spell.h"
#include "vision.h"
#include "world.h"

#define DMAP_RADIUS  24 /* steps the map reaches; farther monsters go by memory */
#define MEMORY_TURNS 25 /* how long a monster hunts where it last saw you */
#define ALLY_RANGE   8
#define CAST_REST    4 /* turns between a monster's spells */
#define WANT_RANGE   6 /* how far a wandering monster goes for an item it wants */

static const int8_t DIRS[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                  {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};

static int cheb(int x0, int y0, int x1, int y1)
{
    int dx = x0 > x1 ? x0 - x1 : x1 - x0, dy = y0 > y1 ? y0 - y1 : y1 - y0;
    return dx > dy ? dx : dy;
}

/* Breadth-first steps from the player over passable cells (creatures do
 * not block: they move). Bounded by DMAP_RADIUS. */
void ai_dmap_update(game_t *g)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p)
        return;
    if (g->dmap && g->dmap_depth == g->depth && g->dmap_x == p->x && g->dmap_y == p->y)
        return;
    size_t n = (size_t)lv->w * (size_t)lv->h;
    if (!g->dmap || g->dmap_w != lv->w || g->dmap_h != lv->h) {
        gfree(&g->al, g->dmap);
        g->dmap = galloc(&g->al, n * sizeof *g->dmap);
        g->dmap_depth = -1;
        if (!g->dmap)
            return;
        g->dmap_w = (uint16_t)lv->w, g->dmap_h = (uint16_t)lv->h;
    }
    memset(g->dmap, 0xff, n * sizeof *g->dmap); /* -1: not reached */
    uint8_t walk[256];                          /* by terrain id: passable or a closed door */
    for (int t = 0; t < 256; t++)
        walk[t] =
            t < g->c->n_terrain && ((g->c->terrain[t].flags & TF_PASSABLE) || t == MAP_DOOR_CLOSED);
    /* the radius bounds the search to a (2 * R + 1)^2 box, well inside the queue */
    int32_t q[4096];
    int head = 0, tail = 0, start = p->y * lv->w + p->x, w = lv->w;
    g->dmap[start] = 0;
    q[tail++] = start;
    while (head < tail) {
        int c = q[head++], cx = c % w, cy = c / w, d = g->dmap[c];
        if (d >= DMAP_RADIUS || cx < 1 || cy < 1 || cx >= w - 1 || cy >= lv->h - 1)
            continue; /* edges are rock */
        static const int8_t DX[8] = {0, 1, 1, 1, 0, -1, -1, -1},
                            DY[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
        for (int i = 0; i < 8; i++) {
            int nc = c + DY[i] * w + DX[i];
            if (g->dmap[nc] >= 0 || !walk[lv->terrain[nc]])
                continue;
            g->dmap[nc] = (int16_t)(d + 1);
            q[tail++] = nc;
        }
    }
    g->dmap_x = p->x, g->dmap_y = p->y, g->dmap_depth = g->depth;
}

int ai_dmap_at(const game_t *g, int x, int y)
{
    if (!g->dmap || g->dmap_depth != g->depth || x < 0 || y < 0 || x >= g->dmap_w || y >= g->dmap_h)
        return -1;
    return g->dmap[y * g->dmap_w + x];
}

/* The nearest other monster within ALLY_RANGE, or HANDLE_NONE. */
static handle_t nearest_ally(game_t *g, handle_t self, const obj_t *m)
{
    handle_t best = HANDLE_NONE;
    int bd = ALLY_RANGE + 1;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (h == self || h == g->player || o->type != OBJ_CREATURE || o->depth != m->depth)
            continue;
        int d = cheb(o->x, o->y, m->x, m->y);
        if (d < bd)
            bd = d, best = h;
    }
    return best;
}

typedef struct {
    int hunt;                   /* weight of the player's pull (negative: push) */
    int goal_x, goal_y, goal_w; /* a point's pull (memory, wander, ally) */
} gravity_t;

/* Score of standing at (x, y): lower is better. */
static int score_cell(game_t *g, const gravity_t *gv, int x, int y)
{
    int s = 0, d = ai_dmap_at(g, x, y);
    if (gv->hunt)
        s += gv->hunt * (d >= 0 ? d : DMAP_RADIUS + 1);
    if (gv->goal_w)
        s += gv->goal_w * cheb(x, y, gv->goal_x, gv->goal_y);
    return s;
}

/* The best free neighbour by the gravities, or -1 to stay. */
static int pick_step(game_t *g, const obj_t *m, const gravity_t *gv)
{
    level_t *lv = level_current(g);
    int best = -1, bs = score_cell(g, gv, m->x, m->y);
    int first = (int)rng_below(&g->play, 8); /* ties broken at random, from the play stream */
    for (int k = 0; k < 8; k++) {
        int i = (first + k) % 8, nx = m->x + DIRS[i][0], ny = m->y + DIRS[i][1];
        if (!level_walkable(g, lv, nx, ny) || level_creature_at(g, g->depth, nx, ny))
            continue;
        int sc = score_cell(g, gv, nx, ny);
        if (sc < bs)
            bs = sc, best = i;
    }
    return best;
}

static bool wants_to_flee(game_t *g, const obj_t *m)
{
    const creature_kind_t *k = creature_kind(g, m);
    if (k->flags & CF_MINDLESS)
        return false;
    int pct = (k->flags & CF_COWARD) ? 50 : 25;
    return m->hp * 100 < m->hp_max * pct;
}

/* A new wander point on the level (packed y * 256 + x into magnitude). */
static void new_wander(game_t *g, obj_t *m)
{
    level_t *lv = level_current(g);
    for (int t = 0; t < 20; t++) {
        int x = (int)rng_below(&g->play, (uint32_t)lv->w),
            y = (int)rng_below(&g->play, (uint32_t)lv->h);
        if (level_passable(g, lv, x, y)) {
            m->magnitude = y * 256 + x;
            return;
        }
    }
    m->magnitude = -1;
}

/* A spell for a purpose, cast now: true when the turn went on it. */
static bool cast_by_purpose(game_t *g, handle_t h, obj_t *m, bool sees, int d)
{
    const creature_kind_t *k = creature_kind(g, m);
    if (!k->spells || g->sched.now < m->t)
        return false; /* t: when it may cast again */
    int cure = spell_first(g->c, k->spells, true), bolt = spell_first(g->c, k->spells, false);
    int sp = -1;
    if (cure >= 0 && m->hp * 2 < m->hp_max && rng_percent(&g->play, 50))
        sp = cure;
    else if (bolt >= 0 && sees && d >= 2 && d <= 8 && rng_percent(&g->play, 35))
        sp = bolt;
    if (sp < 0)
        return false;
    m->t = g->sched.now + CAST_REST * SCHED_MOVE;
    const spell_kind_t *s = &g->c->spells[sp];
    dice_t dice = s->dice;
    if (sp != cure)
        dice.n = (int16_t)(dice.n + k->level / 4); /* bolts grow with the caster */
    char tmpl[96];
    if (sp == cure) {
        int heal = dice_roll(&dice, &g->play);
        m->hp = m->hp + heal > m->hp_max ? m->hp_max : m->hp + heal;
        snprintf(tmpl, sizeof tmpl, "<Actor> cast<s:Actor> %s and look<s:Actor> healthier.",
                 s->name);
        creature_say(g, tmpl, h, HANDLE_NONE);
        return true;
    }
    snprintf(tmpl, sizeof tmpl, "<Actor> cast<s:Actor> %s at <victim>.", s->name);
    creature_say(g, tmpl, h, g->player);
    ev_info_t e = {.type = EV_DAMAGE,
                   .actor = h,
                   .victim = g->player,
                   .map = -1,
                   .dtype = s->dtype,
                   .flags = EVF_SPELL};
    e.amount[0] = dice_roll(&dice, &g->play);
    event_throw(g, &e);
    return true;
}

/* With nothing to hunt: towards a wanted item near by, else a wander point. */
static int wander(game_t *g, handle_t h, obj_t *m)
{
    gravity_t gv = {0, 0, 0, 0};
    int x, y;
    if (itemuse_wanted_near(g, h, WANT_RANGE, &x, &y)) {
        gv.goal_x = x, gv.goal_y = y, gv.goal_w = 1;
        int step = pick_step(g, m, &gv);
        if (step >= 0)
            return step;
    }
    if (m->magnitude < 0 || (m->x == m->magnitude % 256 && m->y == m->magnitude / 256))
        new_wander(g, m);
    if (m->magnitude < 0)
        return -1;
    gv.goal_x = m->magnitude % 256, gv.goal_y = m->magnitude / 256, gv.goal_w = 1;
    int step = pick_step(g, m, &gv);
    if (step < 0)
        new_wander(g, m); /* stuck: somewhere else next time */
    return step;
}

/* Chooses this turn's move; returns the direction or -1 (stay), and sets
 * *attack when it should strike the player instead, *busy to the ticks
 * when it spent the turn otherwise (a spell, an item). */
static int decide(game_t *g, handle_t h, obj_t *m, const obj_t *p, bool *attack, int *busy)
{
    gravity_t gv = {0, 0, 0, 0};
    bool sees = vision_sees(g, h); /* sight is symmetric */
    int d = cheb(m->x, m->y, p->x, p->y);
    if (sees || d <= 2) {
        m->flags |= OF_AWAKE;
        m->a[0] = p->x, m->a[1] = p->y, m->remaining = MEMORY_TURNS;
    }
    if (!(m->flags & OF_AWAKE))
        return rng_percent(&g->play, 25) ? (int)rng_below(&g->play, 8) : -1;
    bool flee = wants_to_flee(g, m) && (sees || d <= 6);
    if (cast_by_purpose(g, h, m, sees, d)) {
        *busy = (int)sched_cost(SCHED_MOVE, m->speed);
        return -1;
    }
    if ((*busy = itemuse_monster(g, h, sees)) > 0)
        return -1;
    if (flee || sees)
        ai_dmap_update(g); /* made once per player move, only when someone needs it */
    if (flee) {
        gv.hunt = -3; /* pushed away from you... */
        handle_t ally = nearest_ally(g, h, m);
        const obj_t *a = reg_get(&g->reg, ally);
        if (a)
            gv.goal_x = a->x, gv.goal_y = a->y, gv.goal_w = 1; /* ...and pulled towards friends */
        int step = pick_step(g, m, &gv);
        if (step >= 0)
            return step;
        *attack = d <= 1; /* cornered: fight */
        return -1;
    }
    if (d <= 1) {
        *attack = true;
        return -1;
    }
    if ((*busy = itemuse_monster_pick_up(g, h)) > 0)
        return -1;
    if (sees && ai_dmap_at(g, m->x, m->y) >= 0) {
        gv.hunt = 1;
        return pick_step(g, m, &gv);
    }
    if (m->remaining > 0) { /* to where it last saw you */
        m->remaining--;
        if (m->x == m->a[0] && m->y == m->a[1])
            m->remaining = 0;
        gv.goal_x = m->a[0], gv.goal_y = m->a[1], gv.goal_w = 1;
        return pick_step(g, m, &gv);
    }
    return wander(g, h, m);
}

void ai_monster_turn(game_t *g, handle_t h)
{
    obj_t *m = reg_get(&g->reg, h), *p = reg_get(&g->reg, g->player);
    if (!m || m->type != OBJ_CREATURE || !p)
        return;
    if (m->depth != g->depth)
        return; /* frozen off-level; woken on arrival */
    bool attack = false;
    int busy = 0, dir = decide(g, h, m, p, &attack, &busy), cost = 0;
    m = reg_get(&g->reg, h),
    p = reg_get(&g->reg, g->player); /* a spell may have moved the registry */
    if (!m || !p)
        return;
    if (busy > 0)
        cost = busy;
    else if (attack)
        cost = creature_step(g, h, p->x - m->x, p->y - m->y);
    else if (dir >= 0)
        cost = creature_step(g, h, DIRS[dir][0], DIRS[dir][1]);
    m = reg_get(&g->reg, h);
    if (!m)
        return;
    if (cost <= 0)
        cost = (int)sched_cost(SCHED_MOVE, m->speed);
    sched_push(&g->sched, g->sched.now + (uint64_t)cost, FN_MONSTER_TURN, h, 0, 0);
}
