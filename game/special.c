/* special — hazards underfoot and special levels (see special.h). */
#include "special.h"
#include <stdio.h>
#include "creature.h"
#include "item.h"
#include "level.h"
#include "msg.h"

const special_level_t *special_of(const content_t *c, int depth)
{
    for (uint16_t i = 0; i < c->n_specials; i++)
        if (c->specials[i].depth == depth)
            return &c->specials[i];
    return NULL;
}

/* ---- laying terrain ------------------------------------------------------------ */

static bool walk_ok(const game_t *g, uint8_t t)
{
    return (t < g->c->n_terrain && (g->c->terrain[t].flags & TF_PASSABLE)) || t == MAP_DOOR_CLOSED;
}

/* Whether every walkable cell is reachable from the up stairs; mark and
 * queue are w*h scratch. */
static bool all_reachable(const game_t *g, const level_t *lv, uint8_t *mark, int32_t *queue)
{
    int n = lv->w * lv->h, open = 0, head = 0, tail = 0;
    for (int i = 0; i < n; i++) {
        mark[i] = 0;
        open += walk_ok(g, lv->terrain[i]);
    }
    int start = lv->up_y * lv->w + lv->up_x;
    mark[start] = 1;
    queue[tail++] = start;
    while (head < tail) {
        int i = queue[head++], x = i % lv->w, y = i / lv->w;
        static const int8_t D[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        for (int d = 0; d < 4; d++) {
            int nx = x + D[d][0], ny = y + D[d][1], j = ny * lv->w + nx;
            if (level_in(lv, nx, ny) && !mark[j] && walk_ok(g, lv->terrain[j]))
                mark[j] = 1, queue[tail++] = j;
        }
    }
    return tail >= open;
}

/* Far enough from both stairs for a hazard. */
static bool clear_of_stairs(const level_t *lv, int x, int y)
{
    int ux = x - lv->up_x, uy = y - lv->up_y, dx = x - lv->down_x, dy = y - lv->down_y;
    return ux * ux + uy * uy > 9 && (lv->down_x < 0 || dx * dx + dy * dy > 9);
}

/* One blob of terrain t grown from a random floor cell of a region; a
 * hazard that would cut the level apart is taken back. */
static void blob(game_t *g, level_t *lv, uint8_t t, uint8_t *mark, int32_t *queue)
{
    int x = 0, y = 0, tries = 0;
    do {
        x = (int)rng_below(&lv->gen, (uint32_t)lv->w);
        y = (int)rng_below(&lv->gen, (uint32_t)lv->h);
    } while (++tries < 200 && (lv->terrain[y * lv->w + x] != MAP_FLOOR ||
                               !lv->region[y * lv->w + x] || !clear_of_stairs(lv, x, y)));
    if (tries >= 200)
        return;
    int32_t laid[12];
    int n = 0, want = 3 + (int)rng_below(&lv->gen, 9);
    static const int8_t D[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (int steps = 0; n < want && steps < 40; steps++) {
        int i = y * lv->w + x;
        if (lv->terrain[i] == MAP_FLOOR && clear_of_stairs(lv, x, y)) {
            level_set_terrain(lv, i, t);
            laid[n++] = i;
        }
        int d = (int)rng_below(&lv->gen, 4), nx = x + D[d][0], ny = y + D[d][1];
        if (level_in(lv, nx, ny) && lv->terrain[ny * lv->w + nx] == MAP_FLOOR)
            x = nx, y = ny;
    }
    if (walk_ok(g, t) || n == 0 || all_reachable(g, lv, mark, queue))
        return;
    for (int i = 0; i < n; i++)
        level_set_terrain(lv, laid[i], MAP_FLOOR);
}

/* The special level of a Warren level, or a branch level's theme. */
static const special_level_t *special_here(const game_t *g, int id)
{
    int terr, k;
    if (atlas_kind(id) == ATLAS_WARREN)
        return special_of(g->c, id);
    if (!g->atlas.t || !atlas_branch_of(id, &terr, &k) || terr >= g->atlas.t->n_terrs)
        return NULL;
    int th = g->atlas.t->terrs[terr].theme;
    return th < g->c->n_branches ? &g->c->branches[th] : NULL;
}

int special_apply(game_t *g, level_t *lv)
{
    const special_level_t *sp = special_here(g, lv->depth);
    if (!sp)
        return 0;
    if (sp->region >= 0)
        for (int r = 0; r < lv->nregions; r++)
            if (lv->regions[r].shape != SHAPE_VAULT)
                lv->regions[r].kind = sp->region;
    size_t n = (size_t)lv->w * (size_t)lv->h;
    uint8_t *mark = gcalloc(&g->al, n, 1);
    int32_t *queue = gcalloc(&g->al, n, sizeof *queue);
    if (!mark || !queue) {
        gfree(&g->al, mark);
        gfree(&g->al, queue);
        return -1;
    }
    const struct {
        uint8_t count, terrain;
    } LAY[] = {{sp->water, MAP_WATER},
               {sp->rubble, MAP_RUBBLE},
               {sp->deep, MAP_DEEP_WATER},
               {sp->lava, MAP_LAVA},
               {sp->chasm, MAP_CHASM}};
    for (size_t k = 0; k < sizeof LAY / sizeof LAY[0]; k++)
        for (int i = 0; i < LAY[k].count; i++)
            blob(g, lv, LAY[k].terrain, mark, queue);
    gfree(&g->al, mark);
    gfree(&g->al, queue);
    return 0;
}

int special_populate(game_t *g, level_t *lv)
{
    const special_level_t *sp = special_here(g, lv->depth);
    if (!sp || sp->creature < 0)
        return 0;
    if (atlas_kind(lv->depth) == ATLAS_BRANCH &&
        g->c->creatures[sp->creature].min_depth > atlas_danger(g, lv->depth))
        return 0; /* a branch's own kind waits on its levels deep enough for it */
    for (int made = 0, tries = 0; made < sp->extra && tries < 2000; tries++) {
        int x = (int)rng_below(&lv->gen, (uint32_t)lv->w),
            y = (int)rng_below(&lv->gen, (uint32_t)lv->h);
        int ux = x - lv->up_x, uy = y - lv->up_y;
        if (level_terrain(lv, x, y) != MAP_FLOOR || ux * ux + uy * uy < 64 ||
            level_creature_at(g, lv->depth, x, y))
            continue;
        if (!creature_make(g, (uint16_t)sp->creature, lv->depth, x, y, &lv->gen, MAKE_SLEEPY))
            return -1;
        made++;
    }
    return 0;
}

void special_arrive(game_t *g)
{
    const special_level_t *sp =
        atlas_kind(g->depth) == ATLAS_WARREN ? special_of(g->c, g->depth) : NULL;
    if (!sp || g->depth >= 32 || (g->specials_told & (1u << g->depth)))
        return;
    g->specials_told |= 1u << g->depth;
    if (sp->msg[0])
        msg_add(g, "%s", sp->msg);
    msg_milestone(g, "special", "entered %s", sp->name);
}

/* ---- hazards underfoot --------------------------------------------------------- */

int special_hazard(const game_t *g, uint8_t t)
{
    return t < g->c->n_terrain ? g->c->terrain[t].hazard : HAZARD_NONE;
}

bool special_may_enter(const game_t *g, handle_t who, uint8_t t)
{
    return who == g->player && special_hazard(g, t) != HAZARD_NONE;
}

int special_step_cost(const game_t *g, int ticks, int x, int y)
{
    uint8_t t = level_terrain(level_current((game_t *)g), x, y);
    int pct = t < g->c->n_terrain && g->c->terrain[t].move ? g->c->terrain[t].move : 100;
    return (int)((int64_t)ticks * pct / 100);
}

static void hurt(game_t *g, const terrain_kind_t *t, uint8_t dtype, const char *how)
{
    char where[64];
    atlas_where(g, where, sizeof where);
    snprintf(g->cause, sizeof g->cause, "%s %s", how, where);
    ev_info_t e = {.type = EV_DAMAGE, .victim = g->player, .map = -1, .dtype = dtype};
    e.amount[0] = dice_roll(&t->dice, &g->play);
    event_throw(g, &e);
    if (g->state == GAME_RUNNING)
        g->cause[0] = 0;
}

/* A thing not worn or wielded, at random, sinks out of reach. */
static void sink_one(game_t *g)
{
    handle_t inv[INV_SLOTS], loose[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), m = 0;
    for (int i = 0; i < n; i++)
        if (!(reg_get(&g->reg, inv[i])->flags & IF_EQUIPPED))
            loose[m++] = inv[i];
    if (!m)
        return;
    handle_t it = loose[rng_below(&g->play, (uint32_t)m)];
    char name[96];
    item_describe(g, it, name, sizeof name);
    msg_add(g, "You lose %s in the deep water.", name);
    reg_del(&g->reg, it); /* an item has no effects or turns of its own */
}

static void hazard_swim(game_t *g, const terrain_kind_t *t)
{
    if (item_carried_weight(g, g->player) <= SWIM_LOAD) {
        msg_add(g, "You swim.");
        return;
    }
    msg_add(g, "Your heavy pack drags you under!");
    if (rng_percent(&g->play, 34))
        sink_one(g);
    hurt(g, t, DT_HIT, "drowned");
}

static void hazard_burn(game_t *g, const terrain_kind_t *t)
{
    msg_add(g, "The %s burns you!", t->name);
    hurt(g, t, DT_FIRE, "burned to death in lava");
}

static void hazard_fall(game_t *g, const terrain_kind_t *t)
{
    int below = atlas_below(g, g->depth);
    if (below >= 0 && level_enter(g, below) == 0)
        msg_add(g, "You fall into the %s, down to the level below!", t->name);
    hurt(g, t, DT_HIT, "killed by a fall");
}

typedef void (*hazard_fn_t)(game_t *g, const terrain_kind_t *t);
static const hazard_fn_t HAZARD_FNS[HAZARDS] = {
#define HAZARD_ROW_(id, fn) [HAZARD_##id] = fn,
    HAZARD_LIST(HAZARD_ROW_)
#undef HAZARD_ROW_
};

void special_underfoot(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    uint8_t tt = level_terrain(level_current(g), p->x, p->y);
    if (tt >= g->c->n_terrain)
        return;
    const terrain_kind_t *t = &g->c->terrain[tt];
    if (t->hazard < HAZARDS && HAZARD_FNS[t->hazard])
        HAZARD_FNS[t->hazard](g, t);
}
