/* travel — many steps with one key, and the look cursor (see travel.h). */
#include "travel.h"
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "ai.h"
#include "atlas.h"
#include "combat.h"
#include "creature.h"
#include "grammar.h"
#include "item.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "shop.h"
#include "prompt.h"
#include "status.h"
#include "target.h"
#include "turn.h"
#include "vision.h"
#include "trap.h"
#include "world.h"

enum { RUN_NONE = 0, RUN_TRAVEL, RUN_EXPLORE, RUN_LINE }; /* game_t.run, within one input */
enum { TRAVEL_STEPS = 500 };                              /* steps one key walks at most */

/* A distance is a count of steps over one level's cells, kept in an
 * int16_t; INT16_MAX is best_step's "no distance yet": the largest level's
 * cells stay below it (a bigger level needs a wider type). */
_Static_assert(1L * MAPGEN_MAX_W * MAPGEN_MAX_H < INT16_MAX,
               "travel's int16_t distances need the largest level's cells below INT16_MAX");

static const int8_t DIRS[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                  {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};

static bool known_passable(game_t *g, const level_t *lv, int x, int y)
{
    return level_in(lv, x, y) && lv->seen[y * lv->w + x] && level_walkable(g, lv, x, y);
}

/* A cell a walk crosses: known traps are walked round (only the goal, or
 * where the player stands, may be one). */
static bool on_route(game_t *g, const level_t *lv, int x, int y)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    return known_passable(g, lv, x, y) &&
           (trap_at(lv, x, y, true) < 0 || (p && p->x == x && p->y == y));
}

/* A known cell next to a cell never seen, its layout known or not. */
static bool beside_unseen(const level_t *lv, int x, int y)
{
    if (!level_in(lv, x, y) || !lv->seen[y * lv->w + x]) /* cheap first: on_route asks it too */
        return false;
    bool unseen = false;
    if (x > 0 && y > 0 && x < lv->w - 1 && y < lv->h - 1) { /* inside: the three rows round it */
        const uint8_t *r = lv->seen + (y - 1) * lv->w + x - 1, *m = r + lv->w, *b = m + lv->w;
        unseen = !(r[0] & r[1] & r[2] & m[0] & m[2] & b[0] & b[1] & b[2] & SEEN_EYES); /* a bit */
    }
    for (int i = 0; i < 8 && !unseen && (x == 0 || y == 0 || x == lv->w - 1 || y == lv->h - 1);
         i++) {
        int nx = x + DIRS[i][0], ny = y + DIRS[i][1];
        unseen = level_in(lv, nx, ny) && !(lv->seen[ny * lv->w + nx] & SEEN_EYES);
    }
    return unseen;
}

/* Unexplored: a known open cell next to a cell never seen (not where the
 * player stands: what could be seen from there has been). */
static bool frontier(game_t *g, const level_t *lv, int x, int y)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    return beside_unseen(lv, x, y) && !(p && p->x == x && p->y == y) && on_route(g, lv, x, y);
}

/* An item explore walks to, as DCSS's does: lying on a cell seen, not
 * where the player has stood (IF_VISITED: stepped on or put down, so
 * declined), not a shop's stock, reached by a walk (no known trap). */
static bool item_goal(game_t *g, const level_t *lv, const obj_t *o)
{
    return o->type == OBJ_ITEM && !o->target && o->depth == lv->depth && level_in(lv, o->x, o->y) &&
           !(o->flags & (IF_VISITED | IF_UNPAID)) && (lv->seen[o->y * lv->w + o->x] & SEEN_EYES) &&
           on_route(g, lv, o->x, o->y);
}

/* A creature the walk goes round stands at x, y: one in view as it
 * began (run_known: the same all the walk long, so its way never turns
 * back on itself), or in view now. */
static bool seen_creature_at(game_t *g, const level_t *lv, int x, int y)
{
    handle_t h = level_creature_at(g, lv->depth, x, y);
    if (!h || h == g->player)
        return false;
    for (int i = 0; i < g->run_nknown; i++)
        if (g->run_known[i] == h)
            return true;
    return vision_sees(g, h);
}

/* Each goal kind seeds dist (0) and the queue q from tail on: the new tail.
 * Explore leaves the items a creature in view lies on for last (none). */
static int seed_items(game_t *g, const level_t *lv, int16_t *dist, int32_t *q, int tail)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (!item_goal(g, lv, o) || dist[o->y * lv->w + o->x] >= 0 ||
            seen_creature_at(g, lv, o->x, o->y))
            continue; /* not one, a pile's second, or under a sleeper */
        dist[o->y * lv->w + o->x] = 0, q[tail++] = o->y * lv->w + o->x;
    }
    return tail;
}

static int seed_frontier(game_t *g, const level_t *lv, int16_t *dist, int32_t *q, int tail)
{
    for (int i = 0; i < lv->w * lv->h; i++)
        if (frontier(g, lv, i % lv->w, i / lv->w))
            dist[i] = 0, q[tail++] = i;
    return tail;
}

static int seed_spot(game_t *g, const level_t *lv, int16_t *dist, int32_t *q, int tail)
{
    if (!known_passable(g, lv, g->goal_x, g->goal_y))
        return tail;
    int i = g->goal_y * lv->w + g->goal_x;
    dist[i] = 0, q[tail++] = i;
    return tail;
}

typedef int (*seed_fn)(game_t *g, const level_t *lv, int16_t *dist, int32_t *q, int tail);

/* What a walk heads for, in order: explore takes items not yet visited
 * before the unexplored, the next kind only when no goal of the one
 * before can be reached; travel its chosen spot. */
static const seed_fn EXPLORE_GOALS[] = {seed_items, seed_frontier, NULL};
static const seed_fn TRAVEL_GOALS[] = {seed_spot, NULL};

/* on_route through memo (w*h: 0 not asked yet, 1 off the route, 2 on
 * it), good while the map, the memory and the player's place stand: one
 * step's goal maps share it. */
static bool route_at(game_t *g, const level_t *lv, uint8_t *memo, int x, int y)
{
    if (!level_in(lv, x, y))
        return false;
    uint8_t *m = &memo[y * lv->w + x];
    if (!*m)
        *m = on_route(g, lv, x, y) ? 2 : 1;
    return *m == 2;
}

/* Steps from the goals seed gives over known open cells into dist (w*h
 * int16, -1 unreached); round: not across a creature in view, as a
 * walker goes round one standing in the way. It stops once the cell at
 * (the player's) is reached, at D steps: breadth first, every cell
 * nearer than D is reached by then, all a step asks of the map (cells
 * D or more away stay -1 or not, as it went: no caller tells them
 * apart). Returns how many goals it seeded. */
static int spread(game_t *g, const level_t *lv, int16_t *dist, int32_t *q, uint8_t *memo,
                  seed_fn seed, bool round, int at)
{
    int n = lv->w * lv->h, head = 0, tail = 0;
    for (int i = 0; i < n; i++)
        dist[i] = -1;
    tail = seed(g, lv, dist, q, 0);
    int goals = tail;
    while (head < tail && (at < 0 || dist[at] < 0)) {
        int c = q[head++], cx = c % lv->w, cy = c / lv->w;
        for (int k = 0; k < 8; k++) {
            int nx = cx + DIRS[k][0], ny = cy + DIRS[k][1], nc = ny * lv->w + nx;
            if (!level_in(lv, nx, ny) || dist[nc] >= 0 || !route_at(g, lv, memo, nx, ny) ||
                (round && seen_creature_at(g, lv, nx, ny)))
                continue;
            dist[nc] = (int16_t)(dist[c] + 1);
            q[tail++] = nc;
        }
    }
    return goals;
}

/* The first kind of goal the player can reach sets dist (two searches at
 * most a step: bounded by the level's cells; round as spread's). Returns
 * goals seeded. */
static int goal_map(game_t *g, const level_t *lv, int16_t *dist, int32_t *q, uint8_t *memo,
                    bool explore, bool round)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    int goals = 0, at = p ? p->y * lv->w + p->x : -1;
    for (const seed_fn *s = explore ? EXPLORE_GOALS : TRAVEL_GOALS; *s; s++) {
        int n = spread(g, lv, dist, q, memo, *s, round, at);
        goals += n;
        if (n && p && dist[p->y * lv->w + p->x] >= 0)
            break;
    }
    return goals;
}

typedef bool (*keep_fn)(game_t *g, handle_t h, const obj_t *o);

/* A monster in view that could reach you (one across deep water does not
 * stop a walk) and for which keep says no (the distances are fresh). */
static bool stops_walk(game_t *g, handle_t h, const obj_t *o, keep_fn keep)
{
    return o->type == OBJ_CREATURE && h != g->player && vision_sees(g, h) &&
           ai_dmap_at(g, o->x, o->y) >= 0 && !keep(g, h, o);
}

/* The first monster in view that stops a walk, or HANDLE_NONE. */
static handle_t monster_in_view(game_t *g, keep_fn keep)
{
    ai_dmap_update(g);
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h))
        if (stops_walk(g, h, reg_get(&g->reg, h), keep))
            return h;
    return HANDLE_NONE;
}

enum { SEEN_KINDS = 8 }; /* kinds a stop names at most; past them, "others" */

/* A unique never seen before: its first sighting names it (combat.c's
 * "You notice ..."), so a stop's line leaves it out. */
static bool unique_unmet(const game_t *g, const obj_t *o)
{
    int u = creature_unique_index(g->c, o->kind);
    return u >= 0 && !(g->pc.uniques_seen >> u & 1);
}

/* One noun a kind of the monsters in view that stop a walk ("2 jackals"),
 * in registry order, at most SEEN_KINDS: how many; *more when some kind
 * was left out. A named one is never counted with another. */
static int seen_nouns(game_t *g, keep_fn keep, gram_noun_t out[SEEN_KINDS], int *more)
{
    int n = 0;
    *more = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        if (!stops_walk(g, h, reg_get(&g->reg, h), keep) || unique_unmet(g, reg_get(&g->reg, h)))
            continue;
        gram_noun_t one = creature_noun(g, h);
        int i = 0;
        while (i < n &&
               (strcmp(out[i].name, one.name) != 0 || (one.flags & (GRAM_PROPER | GRAM_UNIQUE))))
            i++;
        if (i < n)
            out[i].count++;
        else if (n < SEEN_KINDS)
            out[n++] = one;
        else
            *more = 1;
    }
    return n;
}

/* Every monster that stops the walk, on one line with room for --More--
 * (MSG_WIDTH): "You see a giant newt and 2 jackals.", or at the start of
 * an exploration "Not with a kobold and a jackal in view: fight or move by
 * hand." */
static void say_seen(game_t *g, keep_fn keep, bool start)
{
    static const char SEE[] = "You see .", NOT[] = "Not with  in view: fight or move by hand.";
    gram_noun_t nouns[SEEN_KINDS];
    int more, n = seen_nouns(g, keep, nouns, &more);
    /* the line less " --More--" and the frame (sizeof counts a NUL), and a NUL */
    char list[MSG_WIDTH - (sizeof MORE_TEXT - 1) - (sizeof SEE - 1) + 1];
    _Static_assert(sizeof NOT >= sizeof SEE, "the list buffer fits either frame");
    size_t room = sizeof list - (start ? sizeof NOT - sizeof SEE : 0);
    if (!n || gram_list(list, room, nouns, n, more) <= 0)
        return;
    if (start)
        msg_add(g, "Not with %s in view: fight or move by hand.", list);
    else
        msg_add(g, "You see %s.", list);
}

/* A monster that has not noticed you and was in view when the walk began
 * lets it go on (you saw it and walked anyway); one that hunts you, or
 * one that comes into view, stops it. A keeper at its trade never does
 * (the town's four would stop every walk to the stairs). */
static bool lets_walk(game_t *g, handle_t h, const obj_t *o)
{
    if (shop_peaceful(g, o)) /* a keeper at its trade: no cause to stop */
        return true;
    if (o->flags & OF_AWARE)
        return false;
    for (int i = 0; i < g->run_nknown; i++)
        if (g->run_known[i] == h)
            return true;
    return false;
}

static bool unaware(game_t *g, handle_t h, const obj_t *o)
{
    (void)h;
    return !(o->flags & OF_AWARE) || shop_peaceful(g, o);
}

/* A walk begins: the monsters in view that have not noticed you are known. */
static void run_begin(game_t *g, uint8_t run)
{
    g->run = run;
    g->run_said = g->said - g->said_aside;
    g->run_nknown = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && h != g->player && vision_sees(g, h) &&
            !(o->flags & OF_AWARE) && g->run_nknown < sizeof g->run_known / sizeof g->run_known[0])
            g->run_known[g->run_nknown++] = h;
    }
}

/* Why no step leads on from where the player stands (said once). */
static void no_step(game_t *g, const level_t *lv, const int16_t *dist, int here, int goals)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    for (int k = 0; k < 8 && here > 0; k++) { /* the way on is there, but someone stands on it */
        int nx = p->x + DIRS[k][0], ny = p->y + DIRS[k][1];
        handle_t h = level_in(lv, nx, ny) ? level_creature_at(g, g->depth, nx, ny) : 0;
        if (h && dist[ny * lv->w + nx] >= 0 && dist[ny * lv->w + nx] < here) {
            creature_say(g, "<Actor> <is:Actor> in the way.", h, HANDLE_NONE);
            if (vision_sees(g, h))
                return;
        }
    }
    if (g->run == RUN_EXPLORE)
        msg_add(g, goals ? "You see no way on from here to explore."
                         : "There is nothing left to explore here.");
    else if (here == 0)
        msg_add(g, "You are already there.");
    else if (here < 0)
        msg_add(g, "You know no way there from here.");
    else
        msg_add(g, "Something is in the way.");
}

/* The free neighbour of p nearest the goal(s) by dist, nearer than where p
 * stands (any reached one when here < 0), or -1. */
static int best_step(game_t *g, const level_t *lv, const obj_t *p, const int16_t *dist)
{
    int here = dist[p->y * lv->w + p->x], best = -1;
    bool off = here < 0; /* where no walk goes (swimming): any way back will do */
    int bd = off ? INT16_MAX : here;
    for (int k = 0; k < 8 && (off || here > 0); k++) {
        int nx = p->x + DIRS[k][0], ny = p->y + DIRS[k][1];
        if (!level_in(lv, nx, ny) || level_creature_at(g, g->depth, nx, ny))
            continue;
        int d = dist[ny * lv->w + nx];
        if (d >= 0 && d < bd)
            bd = d, best = k;
    }
    return best;
}

/* Whether a creature the walk goes round stands on a cell the straight
 * map reached by a step (not a goal's own) nearer than below (the
 * player's distance; any when below < 0): only then can the map round
 * differ where a step looks. Without one, the search round asks the same
 * cells in the same order and stops at the same one, so its map is this
 * one; one D or more away only lengthens ways at least D + 1 long. */
static bool creature_on_map(game_t *g, const level_t *lv, const int16_t *dist, int below)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        int d = o->type == OBJ_CREATURE && o->depth == lv->depth && level_in(lv, o->x, o->y)
                    ? dist[o->y * lv->w + o->x]
                    : -1;
        if (d > 0 && (below < 0 || d < below) && seen_creature_at(g, lv, o->x, o->y))
            return true;
    }
    return false;
}

enum { KEPT_ITEMS = 32 }; /* item goals an exploration's kept map holds at most */

/* The goal map a travel keeps over its walk: its spot's whole straight
 * search (not stopped at the player: every distance exact, so a step
 * reads the same nearer cells as its own search would give), and what it
 * was built from: the level's seen, terrain and trap bytes, and on_route
 * of every cell (1 off, 2 on). Each step compares them with the level:
 * cells come onto the route (seen, a door unlocked) lower the distances
 * from them on; a cell off it (a door locked, a trap found), the goal's
 * cell changed, another level or spot builds it again. Creatures are
 * not in it: the search round them is a step's own, as before. An
 * exploration keeps its step's stopped search instead (explore_map). */
struct travel_map {
    const level_t *lv;
    int depth, n, goal, player; /* goal -1: not built (an exploration's: -2) */
    int reach, nitems;          /* explore: cells nearer than reach are in dist */
    int32_t items[KEPT_ITEMS];  /* explore: its item goals, 0 of them when it heads out */
    int16_t *dist;
    int32_t *q; /* the queue, round (the lowering's) */
    uint8_t *seen, *terrain, *trap, *route, *inq;
};

travel_map_t *travel_map_new(game_t *g)
{
    travel_map_t *m = gcalloc(&g->al, 1, sizeof *m);
    if (m)
        m->goal = -1;
    return m;
}

static void map_drop(game_t *g, travel_map_t *m)
{
    void *arrays[] = {m->dist, m->q, m->seen, m->terrain, m->trap, m->route, m->inq};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        gfree(&g->al, arrays[i]);
    *m = (travel_map_t){.goal = -1};
}

void travel_map_free(game_t *g, travel_map_t *m)
{
    if (m)
        map_drop(g, m);
    gfree(&g->al, m);
}

/* Room for a level of n cells: false (and none kept) when it cannot be had. */
static bool map_room(game_t *g, travel_map_t *m, int n)
{
    if (m->n == n && m->dist)
        return true;
    map_drop(g, m);
    size_t c = (size_t)n;
    m->dist = galloc(&g->al, c * sizeof *m->dist), m->q = galloc(&g->al, c * sizeof *m->q);
    m->seen = galloc(&g->al, c), m->terrain = galloc(&g->al, c), m->trap = galloc(&g->al, c);
    m->route = galloc(&g->al, c), m->inq = gcalloc(&g->al, c, 1);
    m->n = n;
    if (m->dist && m->q && m->seen && m->terrain && m->trap && m->route && m->inq)
        return true;
    map_drop(g, m);
    return false;
}

static bool map_build(game_t *g, const level_t *lv, travel_map_t *m, int at)
{
    int n = lv->w * lv->h;
    if (!map_room(g, m, n))
        return false;
    memcpy(m->seen, lv->seen, (size_t)n), memcpy(m->terrain, lv->terrain, (size_t)n);
    memcpy(m->trap, lv->trap, (size_t)n), memset(m->inq, 0, (size_t)n);
    for (int i = 0; i < n; i++)
        m->route[i] = on_route(g, lv, i % lv->w, i / lv->w) ? 2 : 1;
    spread(g, lv, m->dist, m->q, m->route, seed_spot, false, -1);
    m->lv = lv, m->depth = lv->depth, m->goal = g->goal_y * lv->w + g->goal_x, m->player = at;
    return true;
}

/* Cell i asked again: false when it left the route; one come onto it
 * joins the queue (*tail) to be lowered. */
static bool map_recheck(game_t *g, const level_t *lv, travel_map_t *m, int i, int *tail)
{
    uint8_t r = on_route(g, lv, i % lv->w, i / lv->w) ? 2 : 1;
    if (r == m->route[i])
        return true;
    m->route[i] = r;
    if (r == 1)
        return false;
    if (!m->inq[i])
        m->inq[i] = 1, m->q[(*tail)++] = i;
    return true;
}

/* The distances lowered from the cells queued (q[0, tail)): each takes
 * one more than its nearest reached neighbour, then passes it on, round
 * the queue until none changes. The route only grew, so the distances
 * kept are ways still there: what comes out is the search's own. */
static void map_lower(const level_t *lv, travel_map_t *m, int tail)
{
    int n = m->n, head = 0, queued = tail;
    tail %= n;
    while (queued > 0) {
        int c = m->q[head], cx = c % lv->w, cy = c / lv->w;
        head = (head + 1) % n, queued--, m->inq[c] = 0;
        for (int k = 0; k < 8; k++) { /* from the nearest neighbour reached */
            int nx = cx + DIRS[k][0], ny = cy + DIRS[k][1];
            int d = level_in(lv, nx, ny) ? m->dist[ny * lv->w + nx] : -1;
            if (d >= 0 && (m->dist[c] < 0 || d + 1 < m->dist[c]))
                m->dist[c] = (int16_t)(d + 1);
        }
        for (int k = 0; k < 8 && m->dist[c] >= 0; k++) { /* and on to those it brings nearer */
            int nx = cx + DIRS[k][0], ny = cy + DIRS[k][1], nc = ny * lv->w + nx;
            if (!level_in(lv, nx, ny) || m->route[nc] != 2 ||
                (m->dist[nc] >= 0 && m->dist[nc] <= m->dist[c] + 1))
                continue;
            m->dist[nc] = (int16_t)(m->dist[c] + 1);
            if (!m->inq[nc])
                m->inq[nc] = 1, m->q[tail] = nc, tail = (tail + 1) % n, queued++;
        }
    }
}

/* The first cell from i on where a and b differ (eight at a time while
 * they agree), or n. */
static int next_diff(const uint8_t *a, const uint8_t *b, int i, int n)
{
    for (uint64_t x, y; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
        if (x != y)
            break;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* m brought up to the level as it is, the player at cell at: false when
 * it must be built again. The cells whose bytes changed are asked again,
 * and where the player stood and stands (a known trap is on the route
 * only under the player). */
static bool map_refresh(game_t *g, const level_t *lv, travel_map_t *m, int at)
{
    int n = lv->w * lv->h, goal = g->goal_y * lv->w + g->goal_x, tail = 0;
    if (m->goal < 0 || m->lv != lv || m->depth != lv->depth || m->n != n || m->goal != goal)
        return false;
    uint8_t *kept[] = {m->seen, m->terrain, m->trap};
    const uint8_t *now[] = {lv->seen, lv->terrain, lv->trap};
    for (int a = 0; a < 3; a++)
        for (int i = next_diff(kept[a], now[a], 0, n); i < n;
             i = next_diff(kept[a], now[a], i + 1, n)) {
            kept[a][i] = now[a][i];
            if (i == goal || !map_recheck(g, lv, m, i, &tail))
                return false;
        }
    if (!map_recheck(g, lv, m, m->player, &tail) || !map_recheck(g, lv, m, at, &tail))
        return false;
    m->player = at;
    if (tail)
        map_lower(lv, m, tail);
    return true;
}

/* Whether the goals explore seeds could differ for the player having
 * left or come to cell c: a known trap there (on the route only under
 * the player), or a cell beside the unseen (never a goal under the
 * player, one elsewhere). */
static bool moves_goals(game_t *g, const level_t *lv, int c)
{
    int x = c % lv->w, y = c / lv->w;
    return trap_at(lv, x, y, true) >= 0 || (beside_unseen(lv, x, y) && known_passable(g, lv, x, y));
}

/* An exploration's kept map, good for this step when the level's bytes,
 * its item goals (n, in q) and where it heads are as it was made, and
 * the search then went at least as far as the player is now. */
static bool explore_kept(game_t *g, const level_t *lv, travel_map_t *m, int at, const int32_t *q,
                         int n)
{
    int cells = lv->w * lv->h;
    if (m->goal != -2 || m->lv != lv || m->depth != lv->depth || m->n != cells || m->nitems != n ||
        memcmp(m->items, q, (size_t)n * sizeof *q) ||
        next_diff(m->seen, lv->seen, 0, cells) < cells ||
        next_diff(m->terrain, lv->terrain, 0, cells) < cells ||
        next_diff(m->trap, lv->trap, 0, cells) < cells)
        return false;
    if (at != m->player && (moves_goals(g, lv, at) || moves_goals(g, lv, m->player)))
        return false;
    int d = m->dist[at];
    return d >= 0 && d <= m->reach;
}

/* The straight goal map of an exploration's step in m: kept from the
 * step before while explore_kept says so, else searched again (the
 * search of a step, stopped at the player). dist and q: room to find the
 * item goals in. False when m has no room. */
static bool explore_map(game_t *g, const level_t *lv, travel_map_t *m, int at, int16_t *dist,
                        int32_t *q)
{
    int cells = lv->w * lv->h;
    memset(dist, 0xff, (size_t)cells * sizeof *dist); /* -1: seed_items asks it of a pile */
    int n = seed_items(g, lv, dist, q, 0);
    if (explore_kept(g, lv, m, at, q, n)) {
        m->player = at;
        return true;
    }
    if (!map_room(g, m, cells))
        return false;
    memcpy(m->seen, lv->seen, (size_t)cells), memcpy(m->terrain, lv->terrain, (size_t)cells);
    memcpy(m->trap, lv->trap, (size_t)cells), memset(m->route, 0, (size_t)cells);
    goal_map(g, lv, m->dist, m->q, m->route, true, false);
    bool heads_out = !(n && m->dist[at] >= 0);    /* the items' map, or the unexplored's */
    bool keep = heads_out ? !n : n <= KEPT_ITEMS; /* items not reached: searched each step */
    m->lv = lv, m->depth = lv->depth, m->player = at, m->goal = keep ? -2 : -1;
    m->nitems = keep ? n : 0;
    m->reach = m->dist[at] >= 0 ? m->dist[at] : INT16_MAX; /* not reached: searched it all */
    memcpy(m->items, q, (size_t)m->nitems * sizeof *q);
    return true;
}

enum { DETOUR_MAX = 2 }; /* steps more than the straight way a walk goes round */

/* The straight goal map of this step: a travel's kept one brought up to
 * date (m, when it has one), else one searched into dist. */
static const int16_t *straight_map(game_t *g, level_t *lv, int16_t *dist, int32_t *q, uint8_t *memo,
                                   travel_map_t *m, int at)
{
    if (m && g->run == RUN_TRAVEL && (map_refresh(g, lv, m, at) || map_build(g, lv, m, at)))
        return m->dist;
    if (m && g->run == RUN_EXPLORE && explore_map(g, lv, m, at, dist, q))
        return m->dist;
    goal_map(g, lv, dist, q, memo, g->run == RUN_EXPLORE, false);
    return dist;
}

/* The step that brings the player nearer the goal(s): ticks spent, or 0
 * with the reason said. The way goes round creatures in view when that is
 * at most DETOUR_MAX steps longer (along it the excess never grows, so the
 * walk never turns back), else it is the way as if they were not there
 * (one in the way is said). */
static int step_on(game_t *g, level_t *lv, obj_t *p, int16_t *dist, int32_t *q, uint8_t *memo,
                   travel_map_t *m)
{
    bool explore = g->run == RUN_EXPLORE;
    int at = p->y * lv->w + p->x;
    const int16_t *sd = straight_map(g, lv, dist, q, memo, m, at);
    int straight = sd[at], best = best_step(g, lv, p, sd);
    int round = straight, best_round = best;
    if (creature_on_map(g, lv, sd, straight)) { /* else the way round is this way */
        goal_map(g, lv, dist, q, memo, explore, true);
        round = dist[at], best_round = best_step(g, lv, p, dist);
    }
    if (best_round >= 0 && round >= 0 && straight >= 0 && round <= straight + DETOUR_MAX)
        best = best_round;
    if (best < 0) {
        int goals = goal_map(g, lv, dist, q, memo, explore, false);
        int here = dist[at];
        no_step(g, lv, dist, here < 0 && goals ? -1 : here, goals);
        return 0;
    }
    uint32_t said = g->said;
    int cost = creature_step(g, g->player, DIRS[best][0], DIRS[best][1]);
    if (cost <= 0 && g->said == said && g->prompt == PROMPT_NONE)
        msg_add(g, "Something stops you.");
    return cost;
}

/* A step's own search room: all of it, or none (dist NULL). */
typedef struct {
    int16_t *dist;
    int32_t *q;
    uint8_t *memo; /* this step's: the step changes what it holds */
} step_room_t;

static void step_room_free(game_t *g, step_room_t *r)
{
    gfree(&g->al, r->dist), gfree(&g->al, r->q), gfree(&g->al, r->memo);
    *r = (step_room_t){0};
}

static bool step_room(game_t *g, const level_t *lv, step_room_t *r)
{
    size_t n = (size_t)lv->w * (size_t)lv->h;
    r->dist = galloc(&g->al, n * sizeof *r->dist), r->q = galloc(&g->al, n * sizeof *r->q);
    r->memo = gcalloc(&g->al, n, 1);
    if (r->dist && r->q && r->memo)
        return true;
    step_room_free(g, r);
    return false;
}

/* One step of the running travel or exploration: its ticks, or 0 to stop.
 * The first step of a travel is taken even with a monster in view (you
 * asked for it); exploring will not start with a monster hunting you in
 * view, and every later step stops for one, or for a monster coming into
 * view, and says which. Whenever it stops short, it says why. m: the
 * walk's kept map, or NULL. */
static int travel_step(game_t *g, bool first, travel_map_t *m)
{
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p || g->prompt != PROMPT_NONE)
        return 0;
    handle_t seen = !first                  ? monster_in_view(g, lets_walk)
                    : g->run == RUN_EXPLORE ? monster_in_view(g, unaware)
                                            : HANDLE_NONE;
    if (seen) {
        say_seen(g, first ? unaware : lets_walk, first);
        return 0;
    }
    step_room_t r;
    if (!step_room(g, lv, &r) && m && m->dist) { /* the kept map gives way to the step's own */
        step_room_free(g, &r);
        map_drop(g, m);
        step_room(g, lv, &r);
    }
    int cost = r.dist ? step_on(g, lv, p, r.dist, r.q, r.memo, m) : 0;
    if (!r.dist)
        msg_add(g, "You cannot find your way just now.");
    step_room_free(g, &r);
    return cost;
}

/* ---- running one way ------------------------------------------------------------- */

/* Where a run stops on arriving (NetHack's and Crawl's): what is worth a look. */
static const uint8_t RUN_STOPS[] = {
    MAP_DOOR_CLOSED, MAP_DOOR_OPEN, MAP_DOOR_LOCKED, MAP_DOOR_BROKEN, MAP_STAIRS_UP,
    MAP_STAIRS_DOWN, MAP_GATE,      MAP_TOWN,        MAP_ENTRANCE,
};

static bool run_stop_terrain(uint8_t t)
{
    for (size_t i = 0; i < sizeof RUN_STOPS; i++)
        if (RUN_STOPS[i] == t)
            return true;
    return false;
}

static int dir_index(int dx, int dy)
{
    for (int k = 0; k < 8; k++)
        if (DIRS[k][0] == dx && DIRS[k][1] == dy)
            return k;
    return -1;
}

/* A pillar: a known wall cell with open ground on all four sides, as a
 * pillared hall's are. A run takes it for open ground, or it would stop
 * every second step beside a row of them. */
static bool pillar(game_t *g, const level_t *lv, int x, int y)
{
    if (!level_in(lv, x, y) || !lv->seen[y * lv->w + x] || level_terrain(lv, x, y) != MAP_WALL)
        return false;
    for (int k = 0; k < 8; k += 2)
        if (!on_route(g, lv, x + DIRS[k][0], y + DIRS[k][1]))
            return false;
    return true;
}

/* The open cells beside (x, y), straight on and straight back left out,
 * a bit per DIRS: what a side passage opening or closing changes. */
static uint8_t run_sides(game_t *g, const level_t *lv, int x, int y, int way)
{
    unsigned open = 0;
    for (int k = 0; k < 8; k++) {
        int nx = x + DIRS[k][0], ny = y + DIRS[k][1];
        if (k != way && k != (way + 4) % 8 && (on_route(g, lv, nx, ny) || pillar(g, lv, nx, ny)))
            open |= 1u << k;
    }
    return (uint8_t)open;
}

/* A door, stairs or way in beside (x, y), not straight on (the run steps
 * onto that one), that was not beside where its last step came from. */
static bool stop_came_up(const level_t *lv, int x, int y, int way)
{
    int px = x - DIRS[way][0], py = y - DIRS[way][1];
    for (int k = 0; k < 8; k++) {
        int nx = x + DIRS[k][0], ny = y + DIRS[k][1];
        if (k != way && level_in(lv, nx, ny) && lv->seen[ny * lv->w + nx] &&
            run_stop_terrain(level_terrain(lv, nx, ny)) && (abs(nx - px) > 1 || abs(ny - py) > 1))
            return true;
    }
    return false;
}

/* A corridor's way on from (x, y): straight on, or the one turn to a
 * side, or the one diagonal with neither square cell beside it open (a
 * diagonal beside an open square cell is its corner, cut); -1 at a fork
 * (two ways on) or a dead end. */
static int corridor_way(game_t *g, const level_t *lv, int x, int y, int way)
{
    bool open[5]; /* by turn: -2 (square left), -1, 0 (straight on), 1, 2 */
    for (int d = -2; d <= 2; d++) {
        int k = (way + 8 + d) % 8;
        open[d + 2] = on_route(g, lv, x + DIRS[k][0], y + DIRS[k][1]);
    }
    static const int8_t TURNS[5] = {0, -2, 2, -1, 1}; /* in the order a way on is taken */
    int ways = 0, on = -1;
    for (int i = 0; i < 5; i++) {
        int d = TURNS[i];
        bool corner = (d == -1 || d == 1) && (open[2] || open[d * 2 + 2]);
        if (open[d + 2] && !corner && ways++ == 0)
            on = (way + 8 + d) % 8;
    }
    return ways == 1 ? on : -1;
}

/* Where a run goes from where the player stands: its way (turned at a
 * corridor's bend), or -1 where it stops: on a door, stairs or an item,
 * at a fork or a wall, beside a door or stairs come up at its side, or
 * where a side opens or closes in a narrow place (a room's mouth). Open
 * ground changing at its sides (grass, a room) does not stop it. */
static int run_way(game_t *g, const level_t *lv, const obj_t *p, int way)
{
    if (run_stop_terrain(level_terrain(lv, p->x, p->y)) || item_floor_at(g, g->depth, p->x, p->y) ||
        stop_came_up(lv, p->x, p->y, way))
        return -1;
    if (level_terrain(lv, p->x, p->y) == MAP_CORRIDOR) {
        int on = corridor_way(g, lv, p->x, p->y, way);
        if (on >= 0)
            g->run_sides = run_sides(g, lv, p->x, p->y, on);
        return on;
    }
    uint8_t was = g->run_sides, now = run_sides(g, lv, p->x, p->y, way);
    g->run_sides = now;
    if (!on_route(g, lv, p->x + DIRS[way][0], p->y + DIRS[way][1]))
        return -1;
    bool narrow = __builtin_popcount(was) <= 2 || __builtin_popcount(now) <= 2;
    return now != was && narrow ? -1 : way;
}

/* The next step of a run: its ticks, or 0 to stop (where run_way says,
 * without a word: a step into the wall would say nothing new either). */
static int run_step(game_t *g)
{
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p || g->prompt != PROMPT_NONE)
        return 0;
    if (monster_in_view(g, lets_walk)) {
        say_seen(g, lets_walk, false);
        return 0;
    }
    int way = dir_index(g->run_dx, g->run_dy);
    if (way < 0 || (way = run_way(g, lv, p, way)) < 0)
        return 0;
    g->run_dx = DIRS[way][0], g->run_dy = DIRS[way][1];
    if (level_creature_at(g, g->depth, p->x + g->run_dx, p->y + g->run_dy))
        return 0; /* one unseen: you stop short of it */
    return creature_step(g, g->player, g->run_dx, g->run_dy);
}

int travel_run(game_t *g, int dx, int dy)
{
    const level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int way = dir_index(dx, dy);
    if (!lv || !p || way < 0)
        return 0;
    run_begin(g, RUN_LINE);
    g->run_dx = (int8_t)dx, g->run_dy = (int8_t)dy;
    int cost = creature_step(g, g->player, dx, dy); /* the first as a step: it may attack */
    p = reg_get(&g->reg, g->player);
    if (cost <= 0 || !p)
        g->run = RUN_NONE;
    else
        g->run_sides = run_sides(g, lv, p->x, p->y, way);
    return cost;
}

static bool floor_item_here(const level_t *lv, const obj_t *o)
{
    return o && o->type == OBJ_ITEM && !o->target && o->depth == lv->depth &&
           level_in(lv, o->x, o->y);
}

/* Items on this level on cells never seen (at most max handles), not a
 * shop's stock: a walk does not stop for goods in a shop. */
static int hidden_items(game_t *g, handle_t *out, int max)
{
    const level_t *lv = level_current(g);
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && lv && n < max;
         h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (floor_item_here(lv, o) && !(o->flags & IF_UNPAID) &&
            !(lv->seen[o->y * lv->w + o->x] & SEEN_EYES))
            out[n++] = h;
    }
    return n;
}

/* After a step: whether one of the hidden items came into sight (said:
 * "You see a dagger."). */
static bool saw_item(game_t *g, const handle_t *hidden, int n)
{
    const level_t *lv = level_current(g);
    for (int i = 0; i < n && lv; i++) {
        const obj_t *o = reg_get(&g->reg, hidden[i]);
        if (floor_item_here(lv, o) && level_visible(lv, o->x, o->y)) {
            item_say(g, "You see <a:obj>.", HANDLE_NONE, hidden[i]);
            return true;
        }
    }
    return false;
}

/* Travel and exploration go on step by step while nothing new happens
 * (a walk's first step, the command's, included): no monster in view
 * (travel_step checks), no item seen for the first time, no new message,
 * no lost hit point, no prompt. Every stop short
 * of the goal says why (a message, a prompt, or one said here). */
void travel_keep_going(game_t *g)
{
    if (g->run == RUN_NONE)
        return; /* no run begun by this key: the objects need no walk */
    if (travel_walking(g) && g->said - g->said_aside != g->run_said) {
        g->run = RUN_NONE; /* the first step told something ("You see here a dagger.") */
        return;
    }
    handle_t hidden[128]; /* once per run: each step looks only at these */
    int nh = hidden_items(g, hidden, (int)(sizeof hidden / sizeof hidden[0]));
    travel_map_t *m = travel_walking(g) ? travel_map_new(g) : NULL; /* none: each step's own */
    int steps = 0;
    for (; g->run && steps < TRAVEL_STEPS && g->state == GAME_RUNNING; steps++) {
        const obj_t *p = reg_get(&g->reg, g->player);
        int32_t hp = p ? p->hp : 0;
        uint32_t said = g->said - g->said_aside;
        int cost = travel_walk_step(g, m);
        if (cost <= 0)
            break;
        turn_advance(g, cost);
        p = reg_get(&g->reg, g->player);
        bool told = g->said - g->said_aside != said;
        if (p && p->hp < hp && !told && g->prompt == PROMPT_NONE)
            msg_add(g, "You stop: something hurt you.");
        if (!p || p->hp < hp || told || g->prompt != PROMPT_NONE)
            break;
        if (saw_item(g, hidden, nh))
            break;
        if (g->run == RUN_TRAVEL && p->x == g->goal_x && p->y == g->goal_y)
            break;
    }
    if (g->run && steps == TRAVEL_STEPS && g->state == GAME_RUNNING)
        msg_add(g, "You stop to look around.");
    g->run = RUN_NONE;
    travel_map_free(g, m);
}

int travel_walk_step(game_t *g, travel_map_t *m)
{
    return g->run == RUN_LINE ? run_step(g) : travel_step(g, false, m);
}

bool travel_walking(const game_t *g)
{
    return g->run == RUN_TRAVEL || g->run == RUN_EXPLORE;
}

int travel_explore(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    if (p) /* what lies here is declined: explore walks on from it */
        item_mark_visited(g, p->depth, p->x, p->y);
    run_begin(g, RUN_EXPLORE);
    int cost = travel_step(g, true, NULL);
    if (cost <= 0)
        g->run = RUN_NONE;
    return cost;
}

/* ---- the cursor prompts ----------------------------------------------------------- */

/* A cursor prompt (travel or look) starting on the player. */
static int cursor_prompt(game_t *g, uint8_t prompt)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!p)
        return 0;
    g->cur_x = p->x, g->cur_y = p->y;
    g->prompt = prompt;
    return 0;
}

int travel_choose(game_t *g)
{
    return cursor_prompt(g, PROMPT_TRAVEL);
}

int travel_look(game_t *g)
{
    g->page = 0; /* look's keys on the help line once ? asks for them */
    return cursor_prompt(g, PROMPT_LOOK);
}

/* A way in on the overland, ordered by distance from the player, then
 * row and column: lower sorts first. */
static int64_t way_key(const obj_t *p, int x, int y)
{
    int64_t dx = x - p->x, dy = y - p->y;
    return ((dx * dx + dy * dy) << 32) | ((int64_t)(y & 0xffff) << 16) | (x & 0xffff);
}

/* On the overland, > moves the cursor to the next seen way in (a town or
 * a dungeon's mouth, what > enters), nearest the player first, round
 * again after the last: false when none is seen. */
static bool next_way_in(game_t *g, const level_t *lv)
{
    const atlas_table_t *t = g->atlas.t;
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!t || !p)
        return false;
    int64_t at = way_key(p, g->cur_x, g->cur_y), next = INT64_MAX, first = INT64_MAX;
    int nx = -1, ny = -1, fx = -1, fy = -1;
    for (int i = 0; i < t->n_towns + t->n_terrs; i++) {
        int x = i < t->n_towns ? t->towns[i].x : t->terrs[i - t->n_towns].ex;
        int y = i < t->n_towns ? t->towns[i].y : t->terrs[i - t->n_towns].ey;
        if (i >= t->n_towns && !t->terrs[i - t->n_towns].levels)
            continue;
        if (!level_in(lv, x, y) || !lv->seen[y * lv->w + x])
            continue;
        int64_t key = way_key(p, x, y);
        if (key < first)
            first = key, fx = x, fy = y;
        if (key > at && key < next)
            next = key, nx = x, ny = y;
    }
    if (fx < 0)
        return false;
    g->cur_x = (int16_t)(nx >= 0 ? nx : fx), g->cur_y = (int16_t)(nx >= 0 ? ny : fy);
    return true;
}

static bool cursor_move(game_t *g, key_event_t k)
{
    static const struct {
        uint32_t code;
        int8_t dx, dy;
    } M[] = {
        {'h', -1, 0},      {'j', 0, 1},      {'k', 0, -1},    {'l', 1, 0},
        {'y', -1, -1},     {'u', 1, -1},     {'b', -1, 1},    {'n', 1, 1},
        {'H', -8, 0},      {'J', 0, 8},      {'K', 0, -8},    {'L', 8, 0},
        {KEY_LEFT, -1, 0}, {KEY_DOWN, 0, 1}, {KEY_UP, 0, -1}, {KEY_RIGHT, 1, 0},
    };
    level_t *lv = level_current(g);
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        if (M[i].code != k.code)
            continue;
        int x = g->cur_x + M[i].dx, y = g->cur_y + M[i].dy;
        g->cur_x = (int16_t)(x < 0 ? 0 : x >= lv->w ? lv->w - 1 : x);
        g->cur_y = (int16_t)(y < 0 ? 0 : y >= lv->h ? lv->h - 1 : y);
        return true;
    }
    if (k.code == '>' && lv && g->depth == ATLAS_OVERLAND && next_way_in(g, lv))
        return true;
    if ((k.code == '<' || k.code == '>') && lv) {
        int x = k.code == '<' ? lv->up_x : lv->down_x, y = k.code == '<' ? lv->up_y : lv->down_y;
        if (level_in(lv, x, y) && lv->seen[y * lv->w + x]) {
            g->cur_x = (int16_t)x, g->cur_y = (int16_t)y;
            return true;
        }
        g->prompt = PROMPT_NONE; /* nowhere to jump: the cursor closes, saying why */
        msg_add(g, "You have not found the staircase %s here.", k.code == '<' ? "up" : "down");
        return true;
    }
    return false;
}

static bool confirm_key(key_event_t k)
{
    return k.code == '.' || k.code == KEY_ENTER || k.code == '_' || k.code == ',';
}

/* Cursor keys move it; a confirming key travels there; others cancel. */
int travel_key(game_t *g, key_event_t k)
{
    if (cursor_move(g, k))
        return 0;
    g->prompt = PROMPT_NONE;
    if (!confirm_key(k))
        return 0;
    level_t *lv = level_current(g);
    if (!lv->seen[g->cur_y * lv->w + g->cur_x]) {
        msg_add(g, "You do not know the way there.");
        return 0;
    }
    if (!level_walkable(g, lv, g->cur_x, g->cur_y)) { /* the sea, a wall: known, and no floor */
        msg_add(g, "You cannot walk there.");
        return 0;
    }
    g->goal_x = g->cur_x, g->goal_y = g->cur_y;
    run_begin(g, RUN_TRAVEL);
    int cost = travel_step(g, true, NULL);
    if (cost <= 0)
        g->run = RUN_NONE;
    return cost;
}

/* Cursor keys move it, ? shows its keys on the help line; any other key
 * closes it. */
int travel_look_key(game_t *g, key_event_t k)
{
    if (k.code == KEY_TAB || k.code == '+' || k.code == '-')
        target_cycle(g, k.code == '-' ? -1 : 1, true); /* every creature, the peaceful too */
    else if (k.code == '?')
        g->page = !g->page;
    else if (!cursor_move(g, k))
        g->prompt = PROMPT_NONE, g->page = 0;
    return 0;
}

/* Conditions look shows, in this order. */
static const struct {
    unsigned efk;
    const char *word;
} LOOKS[] = {{EFK_(ASLEEP), "asleep"},
             {EFK_(PARALYSED), "paralysed"},
             {EFK_(CONFUSED), "confused"},
             {EFK_(AFRAID), "afraid"},
             {EFK_(BLIND), "blind"}};

/* "a kobold (badly wounded, asleep)": its wounds and its conditions, or
 * that it has not noticed you. */
static size_t creature_looks(game_t *g, handle_t h, char *out, size_t n)
{
    const obj_t *o = reg_get(&g->reg, h);
    gram_arg_t a = {"actor", creature_noun(g, h)};
    int len = gram_format(out, n, "<a:actor>", &a, 1);
    size_t at = len > 0 ? (size_t)len : 0;
    at += (size_t)snprintf(out + at, n - at, " (%s", combat_wound_word(o));
    unsigned f = status_conditions(g, h);
    for (size_t i = 0; i < sizeof LOOKS / sizeof LOOKS[0] && at < n; i++)
        if (f & LOOKS[i].efk)
            at += (size_t)snprintf(out + at, n - at, ", %s", LOOKS[i].word);
    if (!(o->flags & (OF_AWARE | OF_ASLEEP)) && at < n)
        at += (size_t)snprintf(out + at, n - at, ", unaware of you");
    if (at < n)
        at += (size_t)snprintf(out + at, n - at, ")");
    return at < n ? at : n - 1;
}

/* What the look cursor is on: a creature (how it is, what it stands on,
 * its flavour text), else what lies there and the place. */
static void look_line(game_t *g, char *out, size_t n)
{
    level_t *lv = level_current(g);
    int x = g->cur_x, y = g->cur_y;
    if (!lv->seen[y * lv->w + x]) {
        snprintf(out, n, "You have not seen that place.");
        return;
    }
    handle_t h = level_creature_at(g, g->depth, x, y);
    if (h && h == g->player) {
        snprintf(out, n, "That is you, %s the %s %s.", g->name, pc_race_name(g), pc_class_name(g));
        return;
    }
    char items[MSG_LEN * 2] = "", place[160];
    int nitems = lv->seen[y * lv->w + x] & SEEN_EYES /* a layout known unseen: no items */
                     ? item_floor_list(g, g->depth, x, y, items, sizeof items)
                     : 0;
    uint8_t t = level_terrain(lv, x, y);
    const region_kind_t *rk = level_region_kind(g, lv, x, y);
    int trap = trap_at(lv, x, y, true);
    const char *tn = trap >= 0 && trap < g->c->n_traps ? g->c->traps[trap].name : NULL;
    char tp[48] = "";
    if (tn)
        snprintf(tp, sizeof tp, "%s %s on ", gram_article(tn), tn);
    snprintf(place, sizeof place, "%s%s %s%s%s", tp, gram_article(g->c->terrain[t].name),
             g->c->terrain[t].name, rk ? " in " : "", rk ? rk->name : "");
    int len; /* cut at n; the top rows show it (top_lines) */
    if (h && vision_sees(g, h)) {
        size_t at = creature_looks(g, h, out, n);
        len = snprintf(out + at, n - at, "%s%s. %s", nitems ? ", on " : "", nitems ? items : "",
                       creature_kind(g, reg_get(&g->reg, h))->desc);
    } else if (nitems) {
        len = snprintf(out, n, "%s, on %s.", items, place);
    } else {
        len = snprintf(out, n, "%s.", place);
    }
    if (len < 0)
        out[0] = 0;
    out[0] = (char)(out[0] >= 'a' && out[0] <= 'z' ? out[0] - 32 : out[0]);
}

/* The prompt's top line (the map below shows the cursor). */
static void top_line_at(screen_t *s, int y, const char *line)
{
    for (int x = 0; x < s->w; x++)
        screen_put(s, x, y, ' ', STYLE_DEFAULT);
    screen_text(s, 0, y, STYLE_DEFAULT, line);
}

static void top_line(screen_t *s, const char *line)
{
    top_line_at(s, 0, line);
}

#define LOOK_ROWS 3

/* Text too long for the top line goes on over the rows below it, broken
 * between words, at most LOOK_ROWS of them (a creature's flavour text
 * is read whole, not cut at the screen's edge). */
static void top_lines(screen_t *s, const char *text)
{
    size_t len = strlen(text);
    for (int y = 0; y < LOOK_ROWS && y < s->h - 2 && (len || !y); y++) {
        size_t n = len <= (size_t)s->w ? len : (size_t)s->w;
        for (size_t b = n; n < len && b > 0; b--)
            if (text[b] == ' ') {
                n = b;
                break;
            }
        char row[256];
        snprintf(row, sizeof row, "%.*s", (int)n, text);
        top_line_at(s, y, row);
        text += n, len -= n;
        for (; *text == ' '; text++)
            len--;
    }
}

void travel_draw(game_t *g, screen_t *s)
{
    top_line(s, g->depth == ATLAS_OVERLAND /* each within 80 columns */
                    ? "Travel where? Move the cursor (> towns and dungeons), . to go; Esc cancels."
                    : "Travel where? Move the cursor (< > stairs), then . to go; other keys "
                      "cancel.");
}

void travel_look_draw(game_t *g, screen_t *s)
{
    char line[512];
    look_line(g, line, sizeof line);
    size_t n = strlen(line); /* how to learn its keys, NetHack's way */
    snprintf(line + n, sizeof line - n, " (? keys)");
    top_lines(s, line);
}
