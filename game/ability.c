/* ability — breath, boons, kin, blinks and theft (see ability.h). Each
 * ability is one function; ability_turn tries them in the order a
 * monster would want them: away from a foe beside it first, then help,
 * then the breath, then a boon. */
#include "ability.h"
#include <stdio.h>
#include "combat.h"
#include "creature.h"
#include "effect.h"
#include "event.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "status.h"

#define BLINK_MIN   4 /* a hop lands at least this far from the foe */
#define BLINK_MAX   9 /* and at most this far from where it stood */
#define CALL_REST   8 /* turns between calls for help */
#define BOON_TURNS  20
#define THIEF_FLEES 30 /* turns a thief runs with its loot */
#define BLINK_REST  6  /* turns after a hop before it hops, breathes, calls or casts again */

static int cheb(int x0, int y0, int x1, int y1)
{
    int dx = x0 > x1 ? x0 - x1 : x1 - x0, dy = y0 > y1 ? y0 - y1 : y1 - y0;
    return dx > dy ? dx : dy;
}

/* n * k / d rounded to the nearest integer (d > 0). */
static int scale(int n, int k, int d)
{
    int v = n * k;
    return v >= 0 ? (2 * v + d) / (2 * d) : -((-2 * v + d) / (2 * d));
}

static bool open_at(const game_t *g, const level_t *lv, int x, int y)
{
    uint8_t t = level_terrain(lv, x, y);
    return t < g->c->n_terrain && (g->c->terrain[t].flags & TF_PASSABLE) &&
           !(g->c->terrain[t].flags & TF_OPAQUE);
}

/* Open ground on the straight way from (x0, y0) to (x1, y1), both ends included. */
static bool clear_way(const game_t *g, const level_t *lv, int x0, int y0, int x1, int y1)
{
    int n = cheb(x0, y0, x1, y1);
    for (int k = 1; k <= n; k++)
        if (!open_at(g, lv, x0 + scale(x1 - x0, k, n), y0 + scale(y1 - y0, k, n)))
            return false;
    return true;
}

bool ability_breath_covers(game_t *g, handle_t h, int tx, int ty, int x, int y)
{
    const obj_t *m = reg_get(&g->reg, h);
    if (!m || m->type != OBJ_CREATURE)
        return false;
    const ability_t *ab = &creature_kind(g, m)->ab;
    const level_t *lv = g->levels[m->depth];
    int ax = tx - m->x, ay = ty - m->y, dx = x - m->x, dy = y - m->y, d = cheb(0, 0, dx, dy);
    int n = cheb(0, 0, ax, ay);
    if (!lv || ab->breath == BREATH_NONE || n == 0 || d == 0 || d > ab->breath_range)
        return false;
    if (ab->breath == BREATH_LINE) { /* the cells the line from m through the target passes */
        if (scale(ax, d, n) != dx || scale(ay, d, n) != dy)
            return false;
    } else { /* the cone: within 45 degrees of the aim */
        long dot = (long)ax * dx + (long)ay * dy;
        if (dot <= 0 ||
            2 * dot * dot < ((long)ax * ax + (long)ay * ay) * ((long)dx * dx + (long)dy * dy))
            return false;
    }
    return clear_way(g, lv, m->x, m->y, x, y);
}

static const char *const BREATH_WHAT[DT_COUNT] = {
    [DT_HIT] = "a blast",    [DT_POISON] = "poison",       [DT_FIRE] = "fire",
    [DT_COLD] = "frost",     [DT_LIGHTNING] = "lightning", [DT_ACID] = "acid",
    [DT_MAGIC] = "raw magic"};

bool ability_breathe(game_t *g, handle_t h, int tx, int ty)
{
    obj_t *m = reg_get(&g->reg, h);
    if (!m || m->type != OBJ_CREATURE || creature_kind(g, m)->ab.breath == BREATH_NONE)
        return false;
    const ability_t *ab = &creature_kind(g, m)->ab;
    const char *what = ab->breath_dtype < DT_COUNT && BREATH_WHAT[ab->breath_dtype]
                           ? BREATH_WHAT[ab->breath_dtype]
                           : "a blast";
    char tmpl[80];
    snprintf(tmpl, sizeof tmpl, "<Actor> breathe<s:Actor> %s!", what);
    creature_say(g, tmpl, h, HANDLE_NONE);
    m->t = g->sched.now + (uint64_t)ab->recharge * SCHED_MOVE;
    int dmg = dice_roll(&ab->breath_dice, &g->play), depth = m->depth;
    handle_t hit[64];
    int n = 0;
    for (handle_t v = reg_next(&g->reg, HANDLE_NONE); v && n < 64; v = reg_next(&g->reg, v)) {
        const obj_t *o = reg_get(&g->reg, v);
        if (v != h && o->type == OBJ_CREATURE && o->depth == depth &&
            ability_breath_covers(g, h, tx, ty, o->x, o->y))
            hit[n++] = v;
    }
    for (int i = 0; i < n; i++) { /* victims first, then damage: deaths move nobody's turn */
        if (!reg_get(&g->reg, hit[i]))
            continue;
        ev_info_t e = {.type = EV_DAMAGE,
                       .actor = h,
                       .victim = hit[i],
                       .map = -1,
                       .dtype = ab->breath_dtype,
                       .flags = EVF_BREATH};
        e.amount[0] = dmg;
        event_throw(g, &e);
    }
    return true;
}

bool ability_blink(game_t *g, handle_t h, handle_t foe)
{
    obj_t *m = reg_get(&g->reg, h);
    const obj_t *f = reg_get(&g->reg, foe);
    const level_t *lv = m ? g->levels[m->depth] : NULL;
    for (int tries = 0; lv && f && tries < 60; tries++) {
        int x = m->x + (int)rng_range(&g->play, -BLINK_MAX, BLINK_MAX),
            y = m->y + (int)rng_range(&g->play, -BLINK_MAX, BLINK_MAX);
        if (level_terrain(lv, x, y) != MAP_FLOOR || level_creature_at(g, m->depth, x, y) ||
            cheb(x, y, f->x, f->y) < BLINK_MIN)
            continue;
        creature_say(g, "<Actor> blink<s:Actor> away.", h, HANDLE_NONE);
        m->x = (int16_t)x, m->y = (int16_t)y;
        reg_refile(&g->reg, h);
        return true;
    }
    return false;
}

int ability_summon(game_t *g, handle_t h)
{
    obj_t *m = reg_get(&g->reg, h);
    if (!m || m->type != OBJ_CREATURE || !creature_kind(g, m)->ab.summon)
        return 0;
    const ability_t *ab = &creature_kind(g, m)->ab;
    uint16_t kin = (uint16_t)(ab->summon - 1);
    int have = 0, depth = m->depth, mx = m->x, my = m->y;
    for (handle_t o = reg_next(&g->reg, HANDLE_NONE); o; o = reg_next(&g->reg, o)) {
        const obj_t *c = reg_get(&g->reg, o);
        have += c->type == OBJ_CREATURE && c->depth == depth && c->kind == kin && o != h;
    }
    if (have >= ab->summon_max)
        return -1; /* enough of them about: it calls none */
    int want = (int)rng_range(&g->play, 1, 2), came = 0;
    m->t = g->sched.now + CALL_REST * SCHED_MOVE;
    creature_say(g, "<Actor> call<s:Actor> for help!", h, HANDLE_NONE);
    const level_t *lv = g->levels[depth];
    for (int i = 0; i < 8 && came < want && have + came < ab->summon_max; i++) {
        static const int8_t D[8][2] = {{0, -1}, {1, 0}, {0, 1},  {-1, 0},
                                       {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
        int x = mx + D[i][0], y = my + D[i][1];
        if (level_terrain(lv, x, y) != MAP_FLOOR || level_creature_at(g, depth, x, y))
            continue;
        handle_t k = creature_make(g, kin, depth, x, y, &g->play, MAKE_AWARE);
        if (!k)
            break;
        creature_say(g, "<A:actor> appear<s:actor>.", k, HANDLE_NONE); /* new to the player */
        came++;
    }
    return came;
}

/* Its boon, when it lacks it: true when it took. */
static bool boon(game_t *g, handle_t h, const ability_t *ab)
{
    if (!ab->buff || ab->buff > g->c->n_effects || effect_find(g, h, (uint16_t)(ab->buff - 1)))
        return false;
    return status_apply(g, h, ab->buff - 1, BOON_TURNS * SCHED_MOVE, 1, 0) != HANDLE_NONE;
}

bool ability_turn(game_t *g, handle_t h, handle_t foe, int d, bool sees, bool flee)
{
    obj_t *m = reg_get(&g->reg, h);
    const obj_t *f = reg_get(&g->reg, foe);
    if (!m || !f)
        return false;
    const creature_kind_t *k = creature_kind(g, m);
    const ability_t *ab = &k->ab;
    bool ready = g->sched.now >= m->t, hurt = m->hp * 2 < m->hp_max;
    /* a hurt one, or one that does better from afar, hops away from blows */
    if (ab->blink && ready && d <= 1 && (hurt || ab->breath || ab->summon || k->spells) &&
        rng_percent(&g->play, 40) && ability_blink(g, h, foe)) {
        m = reg_get(&g->reg, h);
        m->t = g->sched.now + BLINK_REST * SCHED_MOVE;
        return true;
    }
    if (ab->summon && sees && ready && rng_percent(&g->play, 25))
        return ability_summon(g, h) >= 0;
    if (ab->breath && sees && !flee && ready && d <= ab->breath_range &&
        ability_breath_covers(g, h, f->x, f->y, f->x, f->y) && rng_percent(&g->play, 40))
        return ability_breathe(g, h, f->x, f->y);
    return ab->buff && sees && !flee && d <= 6 && rng_percent(&g->play, 50) && boon(g, h, ab);
}

/* ---- theft ----------------------------------------------------------------------- */

/* An unequipped item the player carries, at random; NONE when none. */
static handle_t loose_item(game_t *g)
{
    handle_t inv[INV_SLOTS], loose[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), k = 0;
    for (int i = 0; i < n; i++)
        if (!(reg_get(&g->reg, inv[i])->flags & IF_EQUIPPED))
            loose[k++] = inv[i];
    return k ? loose[rng_below(&g->play, (uint32_t)k)] : HANDLE_NONE;
}

static bool steal_gold(game_t *g, handle_t thief)
{
    int32_t gold = g->items.gold;
    int gk = -1;
    for (int i = 0; i < g->c->n_items && gk < 0; i++)
        if (g->c->items[i].cls == IC_GOLD)
            gk = i;
    if (gold <= 0 || gk < 0)
        return false;
    int take = (int)rng_range(&g->play, (gold + 3) / 4, (gold + 1) / 2);
    handle_t it = item_new(g, (uint16_t)gk, take, thief, 0, 0, 0, NULL);
    if (!it)
        return false;
    g->items.gold -= take;
    item_say(g, "<Actor> grab<s:Actor> <obj> from your purse!", thief, it);
    msg_alert(g);
    return true;
}

static bool steal_item(game_t *g, handle_t thief)
{
    handle_t it = loose_item(g);
    if (!it)
        return false;
    item_say(g, "<Actor> snatch<es:Actor> <obj>!", thief, it);
    msg_alert(g);
    return item_give(g, it, thief, 0) != HANDLE_NONE;
}

/* The first effect kind that makes its bearer afraid; -1 none. */
static int fear_kind(const content_t *c)
{
    for (int i = 0; i < c->n_effects; i++)
        if (c->effects[i].flags & EFK_(AFRAID))
            return i;
    return -1;
}

bool ability_steal(game_t *g, handle_t thief, handle_t victim, bool gold)
{
    const obj_t *a = reg_get(&g->reg, thief);
    if (!a || thief == g->player || victim != g->player || a->type != OBJ_CREATURE)
        return false;
    if (status_has(g, thief, EFK_(AFRAID)))
        return false; /* one running with its loot steals no more */
    if (combat_save(g, victim, SAVE_REF, combat_dc(g, thief), 0)) {
        creature_say(g, "<Actor> grab<s:Actor> at your pack, but you keep hold.", thief,
                     HANDLE_NONE);
        return false;
    }
    bool took = gold ? steal_gold(g, thief) || steal_item(g, thief)
                     : steal_item(g, thief) || steal_gold(g, thief);
    if (!took)
        return false;
    ability_blink(g, thief, victim);
    int fear = fear_kind(g->c);
    if (fear >= 0)
        status_apply(g, thief, fear, THIEF_FLEES * SCHED_MOVE, 1, 0);
    return true;
}
