/* overland — the surface walked (see overland.h). */
#include "overland.h"
#include <stdio.h>
#include <string.h>
#include "creature.h"
#include "escape.h"
#include "grammar.h"
#include "item.h"
#include "level.h"
#include "msg.h"
#include "vision.h"

#define HOARD_ITEMS  4 /* treasure on a branch's last level, */
#define HOARD_DEEPER 3 /* as from this many levels deeper */
#define HOARD_STREAM 0x6000u

/* ---- making the overland -------------------------------------------------------- */

static uint8_t land_terrain(const worldmap_t *w, const uint8_t *road, int c)
{
    if (w->kind[c] != WM_LAND)
        return w->kind[c] == WM_LAKE ? MAP_LAKE : w->lane[c] ? MAP_SEA_LANE : MAP_SEA;
    if (road[c])
        return MAP_ROAD;
    return w->river[c] ? MAP_RIVER : w->high[c] ? MAP_HILLS : MAP_PLAINS;
}

/* Terrain and regions from the world map: a region a territory (the
 * content's wilds), one more for the water. */
static int overland_lay(game_t *g, level_t *lv, const worldmap_t *w, const uint8_t *road)
{
    const atlas_table_t *t = g->atlas.t;
    if (level_set_regions(g, lv, t->n_terrs + 1) < 0)
        return -1;
    for (int i = 0; i <= t->n_terrs; i++)
        lv->regions[i] = (level_region_t){g->c->world.wilds, 0, SHAPE_TOWN};
    for (int c = 0; c < w->w * w->h; c++) {
        lv->terrain[c] = land_terrain(w, road, c);
        lv->region[c] = w->terr[c] ? w->terr[c] : (uint8_t)(t->n_terrs + 1);
        lv->seen[c] = 1; /* the continent is known: the M screen shows as much */
    }
    for (int i = 0; i < t->n_towns; i++)
        lv->terrain[t->towns[i].y * lv->w + t->towns[i].x] = MAP_TOWN;
    for (int i = 0; i < t->n_terrs; i++)
        if (t->terrs[i].levels)
            lv->terrain[t->terrs[i].ey * lv->w + t->terrs[i].ex] = MAP_ENTRANCE;
    level_all_changed(lv);
    const atlas_town_t *home = &t->towns[t->home];
    lv->up_x = home->x, lv->up_y = home->y;
    lv->down_x = lv->down_y = -1;
    return 0;
}

int overland_generate(game_t *g, level_t *lv)
{
    atlas_table_t *t = g->atlas.t;
    char err[96];
    worldmap_t *w = t ? worldmap_new(g->c, g->seed, err, sizeof err) : NULL;
    uint8_t *road = w ? gcalloc(&g->al, (size_t)w->w * (size_t)w->h, 1) : NULL;
    int ret = -1;
    if (road && w->w == lv->w && w->h == lv->h) {
        atlas_table_t *again = gcalloc(&g->al, 1, sizeof *again);
        if (again) { /* the same roads as the table's links: a copy takes them */
            memcpy(again, t, sizeof *again);
            again->n_links = 0;
            ret = atlas_roads(w, again, road) < 0 ? -1 : overland_lay(g, lv, w, road);
        }
        gfree(&g->al, again);
    }
    gfree(&g->al, road);
    worldmap_free(w);
    return ret;
}

/* ---- towns and branches ---------------------------------------------------------- */

void overland_gates(game_t *g, level_t *lv)
{
    (void)g;
    int mid = lv->h / 2; /* the road through the town (mapgen's town_layout) */
    level_set_terrain(lv, mid * lv->w, MAP_GATE);
    level_set_terrain(lv, mid * lv->w + lv->w - 1, MAP_GATE);
    lv->up_x = 0, lv->up_y = (int16_t)mid;
    lv->opaque_ok = lv->fov_ok = 0;
}

/* Another town: no stairs (the Warren lies under the home town only),
 * its streets the content's. */
static void other_town(game_t *g, level_t *lv)
{
    if (lv->down_x >= 0)
        level_set_terrain(lv, lv->down_y * lv->w + lv->down_x, MAP_FLOOR);
    lv->down_x = lv->down_y = -1;
    for (int r = 0; r < lv->nregions; r++)
        if (lv->regions[r].shape == SHAPE_TOWN && g->c->world.streets >= 0)
            lv->regions[r].kind = g->c->world.streets;
}

/* A branch's last level keeps a hoard, far from its stairs. */
static int hoard(game_t *g, level_t *lv)
{
    rng_t r;
    rng_seed(&r, rng_hash2(g->seed, HOARD_STREAM + (uint64_t)lv->depth), 8);
    int danger = atlas_danger(g, lv->depth), bx = -1, by = -1, bd = -1;
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w; x++) {
            int dx = x - lv->up_x, dy = y - lv->up_y, d = dx * dx + dy * dy;
            if (level_terrain(lv, x, y) == MAP_FLOOR && d > bd)
                bx = x, by = y, bd = d;
        }
    for (int i = 0, tries = 0; bx >= 0 && i < HOARD_ITEMS && tries < 100; tries++) {
        int x = bx + (int)rng_range(&r, -2, 2), y = by + (int)rng_range(&r, -2, 2);
        if (level_terrain(lv, x, y) != MAP_FLOOR || item_floor_at(g, lv->depth, x, y))
            continue;
        if (item_treasure_at(g, lv->depth, danger + HOARD_DEEPER, x, y, &r) < 0)
            return -1;
        i++;
    }
    return 0;
}

int overland_level(game_t *g, level_t *lv)
{
    int k = atlas_kind(lv->depth);
    if (k == ATLAS_TOWN && atlas_world(g)) {
        overland_gates(g, lv);
        if (lv->depth != 0)
            other_town(g, lv);
    }
    if (k == ATLAS_BRANCH && atlas_below(g, lv->depth) < 0 && g->levels[lv->depth] == lv)
        return hoard(g, lv);
    return 0;
}

/* ---- going in and out ------------------------------------------------------------ */

/* What was met in the wilds stays there: the wilds are wide. */
static void forget_wilds(game_t *g)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h;) {
        const obj_t *o = reg_get(&g->reg, h);
        bool gone = o->type == OBJ_CREATURE && o->depth == ATLAS_OVERLAND && h != g->player;
        if (gone)
            creature_remove(g, h); /* its things go too: start over */
        h = reg_next(&g->reg, gone ? HANDLE_NONE : h);
    }
}

static int out_to(game_t *g, int x, int y, const char *what)
{
    if (level_arrive(g, ATLAS_OVERLAND, x, y) < 0)
        return 0;
    msg_add(g, "%s", what);
    if (g->pc.heartstone && escape_surface(g) < 0)
        return 0;
    return SCHED_MOVE;
}

/* Out of the town the player stands in, onto its cell of the overland. */
static int leave_town(game_t *g)
{
    if (atlas_need(g) < 0)
        return 0;
    int town = atlas_town_of(g, g->depth);
    if (town < 0) {
        msg_add(g, "The trees close in: there is no way on.");
        return 0;
    }
    const atlas_town_t *t = &g->atlas.t->towns[town];
    char what[128];
    snprintf(what, sizeof what, "You leave %s for the wilds of %s.", t->name,
             g->atlas.t->terrs[t->terr].name);
    return out_to(g, t->x, t->y, what);
}

static int enter_town(game_t *g, int town)
{
    const atlas_table_t *t = g->atlas.t;
    int id = atlas_town_id(g, town);
    const level_t *lv = level_make(g, id);
    forget_wilds(g);
    if (!lv || level_arrive(g, id, lv->up_x, lv->up_y) < 0)
        return 0;
    msg_add(g, "You walk in at the gates of %s.", t->towns[town].name);
    if (g->pc.heartstone && t->towns[town].safe)
        escape_win(g);
    else if (g->pc.heartstone && escape_town(g) < 0)
        return 0;
    return SCHED_MOVE;
}

static int enter_branch(game_t *g, int terr)
{
    int id = atlas_branch_id(terr, 1);
    forget_wilds(g);
    if (level_enter(g, id) < 0)
        return 0;
    char name[64];
    atlas_branch_name(g, terr, name, sizeof name);
    msg_add(g, "You go down into %s.", name);
    if (!(g->atlas.told >> terr & 1)) {
        g->atlas.told |= 1u << terr;
        const special_level_t *th = &g->c->branches[g->atlas.t->terrs[terr].theme];
        if (th->msg[0])
            msg_add(g, "%s", th->msg);
        msg_milestone(g, "branch", "entered %s", name);
    }
    return SCHED_MOVE;
}

/* Up out of a branch's first level, onto its entrance. */
static int out_of_branch(game_t *g)
{
    int terr, k;
    if (!atlas_branch_of(g->depth, &terr, &k) || !g->atlas.t)
        return 0;
    const atlas_terr_t *tr = &g->atlas.t->terrs[terr];
    char name[64], what[128];
    atlas_branch_name(g, terr, name, sizeof name);
    snprintf(what, sizeof what, "You climb out of %s into the wilds of %s.", name, tr->name);
    return out_to(g, tr->ex, tr->ey, what);
}

int overland_stairs(game_t *g, int dir)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    if (g->depth != ATLAS_OVERLAND)
        return dir < 0 && atlas_kind(g->depth) == ATLAS_TOWN     ? leave_town(g)
               : dir < 0 && atlas_kind(g->depth) == ATLAS_BRANCH ? out_of_branch(g)
                                                                 : 0;
    int town = atlas_town_at(g, p->x, p->y), terr = atlas_entrance_at(g, p->x, p->y);
    if (dir < 0) {
        msg_add(g, "You are under the open sky already.");
        return 0;
    }
    if (town >= 0)
        return enter_town(g, town);
    if (terr >= 0)
        return enter_branch(g, terr);
    msg_add(g, "There is no way in here: > enters a town (*) or a dungeon's mouth (>).");
    return 0;
}

/* ---- walking --------------------------------------------------------------------- */

/* What lies on the player's cell, told when stepped on. */
static void tell_here(game_t *g, int x, int y)
{
    const atlas_table_t *t = g->atlas.t;
    int town = atlas_town_at(g, x, y), terr = atlas_entrance_at(g, x, y);
    if (town >= 0) {
        const atlas_town_t *tw = &t->towns[town];
        msg_add(g, "%s, a town of %s%s%s. > enters.", tw->name, t->terrs[tw->terr].name,
                tw->port ? ", a port" : "", town == t->home ? ", your home" : "");
    } else if (terr >= 0) {
        char name[64];
        atlas_branch_name(g, terr, name, sizeof name);
        msg_add(g, "The mouth of %s. > goes down.", name);
    }
}

static int wild_crowd(game_t *g)
{
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        n += o->type == OBJ_CREATURE && o->depth == ATLAS_OVERLAND && h != g->player;
    }
    return n;
}

#define SPOT_R 6 /* how far off an encounter starts */
#define SPOT_W (2 * SPOT_R + 1)

/* Open country round (px, py) a walker reaches from there (within SPOT_R):
 * reach[(dy + SPOT_R) * SPOT_W + dx + SPOT_R] set. */
static void wild_reach(game_t *g, const level_t *lv, int px, int py, uint8_t *reach)
{
    int queue[SPOT_W * SPOT_W], head = 0, tail = 0;
    memset(reach, 0, SPOT_W * SPOT_W);
    reach[SPOT_R * SPOT_W + SPOT_R] = 1;
    queue[tail++] = SPOT_R * SPOT_W + SPOT_R;
    while (head < tail) {
        int i = queue[head++], cx = i % SPOT_W, cy = i / SPOT_W;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nx = cx + dx, ny = cy + dy, j = ny * SPOT_W + nx;
                if (nx < 0 || ny < 0 || nx >= SPOT_W || ny >= SPOT_W || reach[j] ||
                    !level_passable(g, lv, px + nx - SPOT_R, py + ny - SPOT_R))
                    continue;
                reach[j] = 1;
                queue[tail++] = j;
            }
    }
}

/* A free cell of open country the player can be reached from, at a
 * distance, or false. */
static bool wild_spot(game_t *g, const level_t *lv, const uint8_t *reach, int px, int py, int *x,
                      int *y)
{
    for (int tries = 0; tries < 100; tries++) {
        int dx = (int)rng_range(&g->play, -SPOT_R, SPOT_R), dy = (int)rng_range(&g->play, -4, 4);
        int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy, nx = px + dx, ny = py + dy;
        uint8_t t = level_terrain(lv, nx, ny);
        if ((ax > ay ? ax : ay) < 3 || !reach[(dy + SPOT_R) * SPOT_W + dx + SPOT_R] ||
            t == MAP_TOWN || t == MAP_ENTRANCE || level_creature_at(g, ATLAS_OVERLAND, nx, ny))
            continue;
        *x = nx, *y = ny;
        return true;
    }
    return false;
}

/* Creatures of the territory's danger come at the player: one to three, a
 * unique alone. */
static void encounter(game_t *g, int danger, int more)
{
    const level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y, kind = creature_pick_kind(g, &g->play, danger);
    int n = 1 + (int)rng_below(&g->play, 2) + more, x, y;
    if (kind >= 0 && (g->c->creatures[kind].flags & CF_UNIQUE))
        n = 1; /* there is one of him */
    handle_t first = HANDLE_NONE;
    int came = 0;
    uint8_t reach[SPOT_W * SPOT_W];
    wild_reach(g, lv, px, py, reach);
    for (int i = 0; kind >= 0 && i < n && wild_spot(g, lv, reach, px, py, &x, &y); i++) {
        handle_t h = creature_make(g, (uint16_t)kind, ATLAS_OVERLAND, x, y, &g->play, MAKE_AWARE);
        first = first ? first : h;
        came += h != HANDLE_NONE;
    }
    if (!first)
        return;
    g->atlas.encounters++;
    vision_update(g);
    gram_arg_t a = {"actor", creature_noun(g, first)}; /* new to the player, all of them */
    a.noun.count = came;
    char text[MSG_LEN];
    if (gram_format(text, sizeof text, "<A:actor> come<s:actor> at you across the wilds!", &a, 1) >
        0)
        msg_add(g, "%s", text);
}

void overland_step(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    if (g->depth != ATLAS_OVERLAND || !p || !g->atlas.t)
        return;
    g->atlas.steps++;
    int x = p->x, y = p->y, terr = atlas_terr_at(g, x, y);
    uint8_t t = level_terrain(level_current(g), x, y);
    if (t == MAP_TOWN || t == MAP_ENTRANCE) {
        tell_here(g, x, y);
        return; /* nothing waylays a traveller at a town's gate or a dungeon's mouth */
    }
    bool hunted = g->pc.heartstone != 0;
    int pct = ENCOUNTER_PCT + (hunted ? ESCAPE_SURFACE_PCT : 0);
    if (terr < 0 || wild_crowd(g) >= ENCOUNTER_CROWD || !rng_percent(&g->play, pct))
        return;
    encounter(g, hunted ? ESCAPE_SURFACE_DANGER : g->atlas.t->terrs[terr].danger, hunted);
}
