/* ai — monsters (Incursion's sum of gravities, Kharne's flight).
 *
 * A monster's turn starts with what it is: its conditions (status.h's
 * conduct table) may take the turn (asleep, paralysed), send its steps
 * astray (confused), make it run (afraid) or leave it to sound and memory
 * (blind). Then what it knows: a monster that has not noticed its foe
 * rolls to notice it (its perception against the player's stealth, worse
 * from afar, unseen or asleep) and, until it does, shuffles about. Then
 * what it does: a spell or an item by purpose, flight, a blow, or a step.
 *
 * Each step scores its eight neighbours and its own cell by a sum of
 * pulls and pushes: its foe pulls a hunter (by the player's distance map,
 * or straight for another foe), pushes a fleeing monster (the same,
 * reversed), and allies pull a fleeing monster towards them. A monster
 * flees when afraid, or badly hurt when its mind flees (early when
 * cowardly); it turns to fight when cornered. Without sight of its foe it
 * walks to where it last knew it to be, then wanders towards random
 * points. Abilities come first (ability.h: a hop away, kin called, a
 * breath, a boon); casters pick a spell by purpose: a cure when hurt, a
 * hex or a bolt or a breath when they see their foe. A pack spreads out
 * as it closes in, so that it surrounds its foe. Monsters whose mind uses
 * items quaff healing when badly hurt, zap wands at the player along a
 * line, pick up what they want and, with nothing to hunt, walk to it.
 *
 * A monster's foe is the player, or the creature it is set on (obj_t's
 * target: the arena's fights). */
#include "ai.h"
#include <stdio.h>
#include "ability.h"
#include <string.h>
#include "creature.h"
#include "effect.h"
#include "event.h"
#include "itemuse.h"
#include "level.h"
#include "mapgen.h"
#include "missile.h"
#include "pc.h"
#include "script.h"
#include "shop.h"
#include "spell.h"
#include "status.h"
#include "vision.h"
#include "world.h"

#define DMAP_RADIUS  24 /* steps the map reaches; farther monsters go by memory */
#define MEMORY_TURNS 25 /* how long a monster hunts where it last knew you to be */
#define ALLY_RANGE   8
#define CAST_REST    4  /* turns between a monster's spells */
#define SHOOT_CHANCE 60 /* percent: a ranged attacker in range shoots rather than closes in */
#define WANT_RANGE   6  /* how far a wandering monster goes for an item it wants */
#define HEAR_RANGE   8  /* steps along the passages a monster hears its foe from */
#define UNSEEN_MALUS 4  /* to notice a foe only heard */
#define ASLEEP_MALUS 8  /* to notice anything in one's sleep */

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

/* What a monster makes of this turn: its foe, its conditions, its senses. */
typedef struct {
    handle_t h, foe;
    bool foe_player; /* the foe is the player: the distance map serves */
    conduct_t c;
    int d;      /* Chebyshev steps to the foe */
    bool sees;  /* the foe is in sight */
    bool hears; /* the foe is within earshot, along the passages */
} look_t;

/* The creature h hunts: the one it is set on while that lives here, else
 * the player. */
static handle_t foe_of(game_t *g, const obj_t *m)
{
    const obj_t *t = reg_get(&g->reg, m->target);
    return t && t->type == OBJ_CREATURE && t->depth == m->depth ? m->target : g->player;
}

/* Steps from (x, y) to the foe: the distance map for the player (-1 out
 * of its reach), straight for anyone else. */
static int foe_steps(game_t *g, const look_t *l, int x, int y)
{
    if (l->foe_player)
        return ai_dmap_at(g, x, y);
    const obj_t *f = reg_get(&g->reg, l->foe);
    return f ? cheb(x, y, f->x, f->y) : -1;
}

static void observe(game_t *g, handle_t h, const obj_t *m, look_t *l)
{
    memset(l, 0, sizeof *l);
    l->h = h;
    l->foe = foe_of(g, m);
    l->foe_player = l->foe == g->player;
    status_conduct(g, h, &l->c);
    const obj_t *f = reg_get(&g->reg, l->foe);
    l->d = f ? cheb(m->x, m->y, f->x, f->y) : 1 << 20;
    l->sees = f && !l->c.blind && vision_between(g, h, l->foe);
    if (f && l->d <= HEAR_RANGE) {
        if (l->foe_player)
            ai_dmap_update(g); /* made once per player move, only when someone needs it */
        int steps = foe_steps(g, l, m->x, m->y);
        l->hears = steps >= 0 && steps <= HEAR_RANGE;
    }
}

/* The nearest other monster within ALLY_RANGE, or HANDLE_NONE. */
static handle_t nearest_ally(game_t *g, const look_t *l, const obj_t *m)
{
    handle_t best = HANDLE_NONE;
    int bd = ALLY_RANGE + 1;
    for (handle_t h = reg_next_near(&g->reg, m->depth, HANDLE_NONE); h;
         h = reg_next_near(&g->reg, m->depth, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (h == l->h || h == g->player || h == l->foe || o->type != OBJ_CREATURE ||
            o->depth != m->depth)
            continue;
        int d = cheb(o->x, o->y, m->x, m->y);
        if (d < bd)
            bd = d, best = h;
    }
    return best;
}

typedef struct {
    int hunt;                   /* weight of the foe's pull (negative: push) */
    int goal_x, goal_y, goal_w; /* a point's pull (memory, wander, ally) */
    int crowd;                  /* push of each packmate next to a cell (a pack spreads out) */
    int nmates;                 /* packmates near by, for crowd */
    int16_t mate[8][2];
} gravity_t;

/* Its packmates (its own kind) within two steps, into gv. */
static void find_packmates(game_t *g, handle_t h, const obj_t *m, gravity_t *gv)
{
    gv->nmates = 0;
    for (handle_t o = reg_next_near(&g->reg, m->depth, HANDLE_NONE); o && gv->nmates < 8;
         o = reg_next_near(&g->reg, m->depth, o)) {
        const obj_t *c = reg_get(&g->reg, o);
        if (o != h && c->type == OBJ_CREATURE && c->kind == m->kind && c->depth == m->depth &&
            cheb(c->x, c->y, m->x, m->y) <= 2)
            gv->mate[gv->nmates][0] = c->x, gv->mate[gv->nmates++][1] = c->y;
    }
}

static int packmates_next_to(const gravity_t *gv, int x, int y)
{
    int n = 0;
    for (int i = 0; i < gv->nmates; i++)
        n += cheb(x, y, gv->mate[i][0], gv->mate[i][1]) == 1;
    return n;
}

/* Score of standing at (x, y): lower is better. */
static int score_cell(game_t *g, const look_t *l, const gravity_t *gv, int x, int y)
{
    int s = 0;
    if (gv->hunt) {
        int d = foe_steps(g, l, x, y);
        s += gv->hunt * (d >= 0 ? d : DMAP_RADIUS + 1);
    }
    if (gv->goal_w)
        s += gv->goal_w * cheb(x, y, gv->goal_x, gv->goal_y);
    if (gv->crowd)
        s += gv->crowd * packmates_next_to(gv, x, y);
    return s;
}

/* The best free neighbour by the gravities, or -1 to stay. */
static int pick_step(game_t *g, const look_t *l, const obj_t *m, const gravity_t *gv)
{
    level_t *lv = level_current(g);
    int best = -1, bs = score_cell(g, l, gv, m->x, m->y);
    int first = (int)rng_below(&g->play, 8); /* ties broken at random, from the play stream */
    for (int k = 0; k < 8; k++) {
        int i = (first + k) % 8, nx = m->x + DIRS[i][0], ny = m->y + DIRS[i][1];
        if (!level_walkable(g, lv, nx, ny) || level_creature_at(g, g->depth, nx, ny))
            continue;
        int sc = score_cell(g, l, gv, nx, ny);
        if (sc < bs)
            bs = sc, best = i;
    }
    return best;
}

/* Ticks of a step in direction dir (0 when refused). */
static int step(game_t *g, handle_t h, int dir)
{
    return dir >= 0 ? creature_step(g, h, DIRS[dir][0], DIRS[dir][1]) : 0;
}

static bool hurt_enough_to_flee(game_t *g, const obj_t *m)
{
    if (!creature_mind(g, m)->flees)
        return false;
    int pct = (creature_kind(g, m)->flags & CF_COWARD) ? 50 : 25;
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

/* ---- noticing ------------------------------------------------------------------ */

/* A monster's roll to notice its foe: d20 + perception (kind, mind, a
 * third of its level), less half the distance, more when only heard or
 * asleep, against 10 + the player's stealth. Anyone else it notices as
 * soon as it senses it. */
static bool notices(game_t *g, const look_t *l, const obj_t *m)
{
    if (!l->sees && !l->hears)
        return false;
    if (!l->foe_player)
        return true;
    const creature_kind_t *k = creature_kind(g, m);
    int perception = k->perception + creature_mind(g, m)->perception + k->level / 3 - l->d / 2 -
                     (l->sees ? 0 : UNSEEN_MALUS) - ((m->flags & OF_ASLEEP) ? ASLEEP_MALUS : 0);
    return (int)rng_range(&g->play, 1, 20) + perception >= 10 + pc_stealth(g);
}

/* An unaware monster may notice its foe; a sleeping one wakes if it does. */
static void notice(game_t *g, const look_t *l, obj_t *m)
{
    if ((m->flags & OF_AWARE) || !notices(g, l, m))
        return;
    bool slept = (m->flags & OF_ASLEEP) != 0;
    m->flags = (uint8_t)((m->flags & ~OF_ASLEEP) | OF_AWARE);
    if (l->foe_player)
        creature_say(g, slept ? "<Actor> wake<s:Actor> up." : "<Actor> notice<s:Actor> you.", l->h,
                     HANDLE_NONE);
}

/* ---- doing ----------------------------------------------------------------------- */

/* A spell for a purpose, cast now: true when the turn went on it. A cure
 * when hurt; seeing its foe, a hex it lacks, else a bolt or a breath from
 * afar. Afraid, it only cures. */
static bool cast_by_purpose(game_t *g, const look_t *l, obj_t *m)
{
    const creature_kind_t *k = creature_kind(g, m);
    if (!k->spells || g->sched.now < m->t)
        return false; /* t: when it may cast again */
    int cure = spell_first(g->c, k->spells, SPELL_HEAL),
        hex = spell_first(g->c, k->spells, SPELL_HEX);
    int bolt = spell_first(g->c, k->spells, SPELL_BOLT);
    if (bolt < 0)
        bolt = spell_first(g->c, k->spells, SPELL_BREATH);
    bool aim = l->sees && !l->c.flee && l->d <= 8;
    int sp = -1;
    if (cure >= 0 && m->hp * 2 < m->hp_max && rng_percent(&g->play, 50))
        sp = cure;
    else if (hex >= 0 && aim && !effect_find(g, l->foe, (uint16_t)g->c->spells[hex].status) &&
             rng_percent(&g->play, 20))
        sp = hex;
    else if (bolt >= 0 && aim && l->d >= 2 && rng_percent(&g->play, 35))
        sp = bolt;
    if (sp < 0)
        return false;
    m->t = g->sched.now + CAST_REST * SCHED_MOVE;
    spell_cast_at(g, l->h, sp == cure ? l->h : l->foe, sp);
    return true;
}

/* With nothing to hunt: towards a wanted item near by, else a wander point. */
static int wander(game_t *g, const look_t *l, obj_t *m)
{
    gravity_t gv = {0};
    int x, y;
    if (itemuse_wanted_near(g, l->h, WANT_RANGE, &x, &y)) {
        gv.goal_x = x, gv.goal_y = y, gv.goal_w = 1;
        int dir = pick_step(g, l, m, &gv);
        if (dir >= 0)
            return step(g, l->h, dir);
    }
    if (m->magnitude < 0 || (m->x == m->magnitude % 256 && m->y == m->magnitude / 256))
        new_wander(g, m);
    if (m->magnitude < 0)
        return 0;
    gv.goal_x = m->magnitude % 256, gv.goal_y = m->magnitude / 256, gv.goal_w = 1;
    int dir = pick_step(g, l, m, &gv);
    if (dir < 0)
        new_wander(g, m); /* stuck: somewhere else next time */
    return step(g, l->h, dir);
}

/* A blow at its foe. */
static int strike(game_t *g, const look_t *l, const obj_t *m)
{
    const obj_t *f = reg_get(&g->reg, l->foe);
    return f ? creature_step(g, l->h, f->x - m->x, f->y - m->y) : 0;
}

/* Runs from its foe towards friends; cornered, it fights. */
static int flee(game_t *g, const look_t *l, const obj_t *m)
{
    gravity_t gv = {.hunt = -3}; /* pushed away from its foe... */
    const obj_t *a = reg_get(&g->reg, nearest_ally(g, l, m));
    if (a)
        gv.goal_x = a->x, gv.goal_y = a->y, gv.goal_w = 1; /* ...and pulled towards friends */
    int dir = pick_step(g, l, m, &gv);
    if (dir >= 0)
        return step(g, l->h, dir);
    return l->d <= 1 ? strike(g, l, m) : 0;
}

/* A confused step: any way at all (into its foe, a blow). */
static int stagger(game_t *g, const look_t *l)
{
    creature_say(g, "<Actor> stagger<s:Actor>.", l->h, HANDLE_NONE);
    return step(g, l->h, (int)rng_below(&g->play, 8));
}

/* Unaware of its foe, it shuffles about now and then, bumping into no one
 * (a disguised one keeps still). */
static int shuffle(game_t *g, const look_t *l, const obj_t *m)
{
    if ((m->flags & OF_DISGUISED) || !rng_percent(&g->play, 25))
        return 0;
    int dir = (int)rng_below(&g->play, 8);
    if (level_creature_at(g, m->depth, m->x + DIRS[dir][0], m->y + DIRS[dir][1]))
        return 0;
    return step(g, l->h, dir);
}

/* Towards its foe in sight, else to where it last knew it to be, else
 * anywhere. */
static int hunt(game_t *g, const look_t *l, obj_t *m)
{
    gravity_t gv = {0};
    if (l->sees && foe_steps(g, l, m->x, m->y) >= 0) {
        /* a pack closes in spread out, round its foe rather than in a queue */
        bool pack = (creature_kind(g, m)->flags & CF_PACK) != 0;
        gv.hunt = pack ? 4 : 1, gv.crowd = pack;
        if (pack)
            find_packmates(g, l->h, m, &gv);
        return step(g, l->h, pick_step(g, l, m, &gv));
    }
    if (m->remaining > 0) {
        m->remaining--;
        if (m->x == m->a[0] && m->y == m->a[1])
            m->remaining = 0;
        gv.goal_x = m->a[0], gv.goal_y = m->a[1], gv.goal_w = 1;
        return step(g, l->h, pick_step(g, l, m, &gv));
    }
    return wander(g, l, m);
}

/* Its kind's script may take the turn (a gaze, a disguise kept, a rush):
 * TURN thrown with its foe as the victim; a handler's DONE spends it. */
static bool scripted_turn(game_t *g, const look_t *l, const obj_t *m)
{
    if (!script_kind_handler(g->c, SCRIPT_KIND_CREATURE, m->kind, EV_TURN))
        return false;
    ev_info_t t = {
        .type = EV_TURN, .actor = l->h, .victim = l->foe, .map = m->depth, .x = m->x, .y = m->y};
    int r = event_throw(g, &t);
    return r == EV_DONE || r == EV_ABORT;
}

/* The turn of a monster that is up and about: ticks spent (0: it waited). */
static int decide(game_t *g, const look_t *l, obj_t *m)
{
    notice(g, l, m);
    if (scripted_turn(g, l, m))
        return (int)sched_cost(SCHED_MOVE, status_speed(g, l->h));
    m = reg_get(&g->reg, l->h); /* the script may have moved the registry, or killed it */
    if (!m)
        return 0;
    if (!(m->flags & OF_AWARE))
        return shuffle(g, l, m);
    /* where its foe is: in sight, next to it, or heard by a blind one */
    const obj_t *f = reg_get(&g->reg, l->foe);
    if (f && (l->sees || l->d <= 1 || (l->c.blind && l->hears)))
        m->a[0] = f->x, m->a[1] = f->y, m->remaining = MEMORY_TURNS;
    if (l->c.stagger && rng_percent(&g->play, l->c.stagger))
        return stagger(g, l);
    if (!l->c.no_magic && ability_turn(g, l->h, l->foe, l->d, l->sees, l->c.flee))
        return (int)sched_cost(SCHED_MOVE, status_speed(g, l->h));
    m = reg_get(&g->reg, l->h);
    if (!m)
        return 0;
    if (!l->c.no_magic && cast_by_purpose(g, l, m))
        return (int)sched_cost(SCHED_MOVE, status_speed(g, l->h));
    int busy = l->c.no_magic ? 0 : itemuse_monster(g, l->h, l->sees && !l->c.flee);
    if (busy > 0)
        return busy;
    if (l->sees && !l->c.flee && l->d >= 2 && rng_percent(&g->play, SHOOT_CHANCE) &&
        (busy = missile_monster(g, l->h, l->foe)) > 0)
        return (int)sched_cost((uint32_t)busy, status_speed(g, l->h));
    m = reg_get(&g->reg, l->h); /* an item may have moved the registry */
    if (!m)
        return 0;
    if (l->c.flee || (hurt_enough_to_flee(g, m) && (l->sees || l->d <= 6)))
        return flee(g, l, m);
    if (l->d <= 1)
        return strike(g, l, m);
    if ((busy = itemuse_monster_pick_up(g, l->h)) > 0)
        return busy;
    return hunt(g, l, m);
}

void ai_monster_turn(game_t *g, handle_t h)
{
    obj_t *m = reg_get(&g->reg, h);
    if (!m || m->type != OBJ_CREATURE || !reg_get(&g->reg, g->player))
        return;
    if (m->depth != g->depth)
        return;                /* frozen off-level; woken on arrival */
    if (shop_peaceful(g, m)) { /* a keeper minds its shop */
        sched_push(&g->sched, g->sched.now + SCHED_MOVE, FN_MONSTER_TURN, h, 0, 0);
        return;
    }
    look_t l;
    observe(g, h, m, &l);
    int cost = 0;
    if (!l.c.lose_turn)
        cost = decide(g, &l, m);
    else if (m->flags & OF_ASLEEP)
        notice(g, &l, m);    /* it may wake; the turn is gone either way */
    m = reg_get(&g->reg, h); /* a blow or a spell may have moved the registry, or killed it */
    if (!m)
        return;
    if (cost <= 0)
        cost = (int)sched_cost(SCHED_MOVE, status_speed(g, h));
    sched_push(&g->sched, g->sched.now + (uint64_t)cost, FN_MONSTER_TURN, h, 0, 0);
}
