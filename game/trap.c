/* trap — locked and secret doors, traps, searching, the door commands
 * (see trap.h). What a trap does is one function per action, in a table. */
#include "trap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "combat.h"
#include "creature.h"
#include "grammar.h"
#include "item.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "status.h"
#include "vision.h"

/* ---- laying them ------------------------------------------------------------ */

/* Whether every walkable cell without a trap is reached from the up
 * stairs without crossing a trap (4-way, as mapgen joins). q: w*h
 * scratch; seen: w*h scratch. */
static bool whole(game_t *g, const level_t *lv, int32_t *q, uint8_t *seen)
{
    size_t n = (size_t)lv->w * (size_t)lv->h, open = 0, reached = 0;
    memset(seen, 0, n);
    for (size_t i = 0; i < n; i++)
        open += !lv->trap[i] &&
                level_walkable(g, lv, (int)(i % (size_t)lv->w), (int)(i / (size_t)lv->w));
    size_t head = 0, tail = 0;
    int s = lv->up_y * lv->w + lv->up_x;
    q[tail++] = s;
    seen[s] = 1;
    static const int8_t DX[4] = {1, -1, 0, 0}, DY[4] = {0, 0, 1, -1};
    while (head < tail) {
        int c = q[head++], x = c % lv->w, y = c / lv->w;
        reached++;
        for (int d = 0; d < 4; d++) {
            int nx = x + DX[d], ny = y + DY[d], nc = ny * lv->w + nx;
            if (!level_in(lv, nx, ny) || seen[nc] || lv->trap[nc] || !level_walkable(g, lv, nx, ny))
                continue;
            seen[nc] = 1;
            q[tail++] = nc;
        }
    }
    return reached >= open;
}

/* A trap kind for depth, by weight among those whose band holds it; -1 none. */
static int pick_kind(const content_t *c, int depth, rng_t *r)
{
    int total = 0;
    for (int i = 0; i < c->n_traps; i++)
        if (depth >= c->traps[i].min_depth && depth <= c->traps[i].max_depth)
            total += c->traps[i].weight;
    if (total <= 0)
        return -1;
    int roll = (int)rng_below(r, (uint32_t)total);
    for (int i = 0; i < c->n_traps; i++) {
        if (depth < c->traps[i].min_depth || depth > c->traps[i].max_depth)
            continue;
        if (roll < c->traps[i].weight)
            return i;
        roll -= c->traps[i].weight;
    }
    return -1;
}

/* Doors: a few locked, a few secret, deeper more; only those the level
 * can do without. */
static void hide_doors(game_t *g, level_t *lv, rng_t *r, int32_t *q, uint8_t *seen)
{
    int danger = atlas_danger(g, lv->depth), secret = 4 + danger / 2, locked = 8 + danger / 3;
    for (int i = 0; i < lv->w * lv->h; i++) {
        uint8_t t = lv->terrain[i];
        if (t != MAP_DOOR_CLOSED && t != MAP_DOOR_OPEN)
            continue;
        int roll = (int)rng_below(r, 100);
        if (roll >= secret + locked)
            continue;
        level_set_terrain(lv, i, roll < secret ? MAP_DOOR_SECRET : MAP_DOOR_LOCKED);
        if (!whole(g, lv, q, seen))
            lv->terrain[i] = t; /* as it was: its row's mark stands */
    }
}

static void lay_traps(game_t *g, level_t *lv, rng_t *r, int32_t *q, uint8_t *seen)
{
    int danger = atlas_danger(g, lv->depth), n = 2 + danger / 2 + (int)rng_below(r, 3);
    for (int k = 0; k < n; k++) {
        int kind = pick_kind(g->c, danger, r);
        for (int tries = 0; kind >= 0 && tries < 50; tries++) {
            int x = (int)rng_below(r, (uint32_t)lv->w), y = (int)rng_below(r, (uint32_t)lv->h);
            int i = y * lv->w + x;
            uint8_t t = lv->terrain[i];
            if ((t != MAP_FLOOR && t != MAP_CORRIDOR) || lv->trap[i] ||
                (abs(x - lv->up_x) <= 1 && abs(y - lv->up_y) <= 1))
                continue;
            lv->trap[i] = (uint8_t)(kind + 1);
            if (whole(g, lv, q, seen))
                break;
            lv->trap[i] = 0;
        }
    }
}

void trap_hide(game_t *g, level_t *lv)
{
    if (atlas_danger(g, lv->depth) < 1)
        return;
    size_t n = (size_t)lv->w * (size_t)lv->h;
    int32_t *q = gcalloc(&g->al, n, sizeof *q);
    uint8_t *seen = gcalloc(&g->al, n, 1);
    if (q && seen) {
        rng_t r;
        rng_seed(&r, rng_hash2(g->seed, 0x2000u + (uint64_t)lv->depth), 5);
        hide_doors(g, lv, &r, q, seen);
        lay_traps(g, lv, &r, q, seen);
    }
    lv->hidden_ok = 0; /* the traps laid: the next search scans the bytes */
    gfree(&g->al, q);
    gfree(&g->al, seen);
}

int trap_at(const level_t *lv, int x, int y, bool known)
{
    if (!lv || !level_in(lv, x, y))
        return -1;
    uint8_t t = lv->trap[y * lv->w + x];
    if (!(t & TRAP_KIND) || (known && !(t & TRAP_FOUND)))
        return -1;
    return (t & TRAP_KIND) - 1;
}

/* ---- finding them ------------------------------------------------------------ */

int trap_search_chance(const game_t *g, bool searching)
{
    const class_kind_t *k = g->pc.cls < g->c->n_classes ? &g->c->classes[g->pc.cls] : NULL;
    int c = 25 + 5 * pc_mod(g->pc.ab[AB_WIS]) + g->pc.xl + (k && k->sneak ? 20 : 0);
    c = c < 5 ? 5 : c > 95 ? 95 : c;
    return searching ? c : c / 3;
}

/* What is hidden at i, found: a message and the map updated. */
static bool find_at(game_t *g, level_t *lv, int i)
{
    if (lv->terrain[i] == MAP_DOOR_SECRET) {
        level_set_terrain(lv, i, MAP_DOOR_CLOSED);
        lv->opaque_ok = 0;
        level_set_seen(lv, i, SEEN_EYES);
        msg_add(g, "You find a secret door!");
        return true;
    }
    if ((lv->trap[i] & TRAP_KIND) && !(lv->trap[i] & TRAP_FOUND)) {
        lv->trap[i] |= TRAP_FOUND;
        lv->traps_found = 1;
        level_set_seen(lv, i, SEEN_EYES);
        const char *name = g->c->traps[(lv->trap[i] & TRAP_KIND) - 1].name;
        msg_add(g, "You find %s %s.", gram_article(name), name);
        return true;
    }
    return false;
}

static bool hidden_at(const level_t *lv, int i)
{
    return lv->terrain[i] == MAP_DOOR_SECRET ||
           ((lv->trap[i] & TRAP_KIND) && !(lv->trap[i] & TRAP_FOUND));
}

uint64_t trap_hidden_rows(level_t *lv)
{
    if (!lv->hidden_ok) {
        lv->hidden_rows = 0;
        for (int y = 0; y < lv->h && y < LEVEL_DIRTY_ROWS; y++)
            for (int i = y * lv->w, end = i + lv->w; i < end; i++)
                if (hidden_at(lv, i)) {
                    lv->hidden_rows |= 1ull << y;
                    break;
                }
        lv->hidden_ok = 1;
    }
    return lv->hidden_rows;
}

/* Searches the cells within radius of the player, each hidden thing
 * found with chance percent. Rows with nothing hidden are passed by
 * unread: they hold no cell that would roll. */
static int search_around(game_t *g, int radius, int chance)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int found = 0;
    if (!lv)
        return 0;
    /* the square clipped to the map: the same cells in the same order */
    int x0 = p->x - radius > 0 ? p->x - radius : 0,
        x1 = p->x + radius < lv->w ? p->x + radius : lv->w - 1;
    int y0 = p->y - radius > 0 ? p->y - radius : 0,
        y1 = p->y + radius < lv->h ? p->y + radius : lv->h - 1;
    uint64_t rows = trap_hidden_rows(lv);
    for (int y = y0; y <= y1; y++) {
        if (y < LEVEL_DIRTY_ROWS && !(rows >> y & 1))
            continue;
        for (int i = y * lv->w + x0, end = y * lv->w + x1; i <= end; i++)
            if (hidden_at(lv, i) && rng_percent(&g->play, chance))
                found += find_at(g, lv, i);
    }
    if (found)
        vision_update(g);
    return found;
}

int trap_search(game_t *g, int chance)
{
    return search_around(g, 1, chance);
}

int trap_detect(game_t *g, int radius)
{
    return search_around(g, radius, 100);
}

/* ---- springing them ------------------------------------------------------------ */

typedef void (*trap_fn_t)(game_t *g, const trap_kind_t *t);

static void spring_damage(game_t *g, const trap_kind_t *t)
{
    char where[64];
    atlas_where(g, where, sizeof where);
    snprintf(g->cause, sizeof g->cause, "killed by %s %s %s", gram_article(t->name), t->name,
             where);
    ev_info_t e = {.type = EV_DAMAGE, .victim = g->player, .map = -1, .dtype = t->dtype};
    e.amount[0] = dice_roll(&t->dice, &g->play);
    const obj_t *p = reg_get(&g->reg, g->player);
    int32_t hp = p ? p->hp : 0;
    event_throw(g, &e);
    p = reg_get(&g->reg, g->player);
    /* the spring's line says what came; this one what it did */
    if (g->state == GAME_RUNNING && p && p->hp < hp)
        msg_add(g, "You take %d damage.", (int)(hp - p->hp));
    if (g->state == GAME_RUNNING)
        g->cause[0] = 0;
}

static void spring_effect(game_t *g, const trap_kind_t *t)
{
    status_apply(g, g->player, t->effect, dice_roll(&t->dice, &g->play) * SCHED_MOVE, 1,
                 12 + atlas_danger(g, g->depth) / 2);
}

static void spring_teleport(game_t *g, const trap_kind_t *t)
{
    (void)t;
    obj_t *p = reg_get(&g->reg, g->player);
    const level_t *lv = level_current(g);
    for (int tries = 0; tries < 1000; tries++) {
        int x = (int)rng_below(&g->play, (uint32_t)lv->w),
            y = (int)rng_below(&g->play, (uint32_t)lv->h);
        if (level_terrain(lv, x, y) != MAP_FLOOR || level_creature_at(g, g->depth, x, y) ||
            lv->trap[y * lv->w + x])
            continue;
        p->x = (int16_t)x;
        p->y = (int16_t)y;
        reg_refile(&g->reg, g->player);
        msg_add(g, "You are somewhere else.");
        return;
    }
}

static void spring_fall(game_t *g, const trap_kind_t *t)
{
    int below = atlas_below(g, g->depth);
    if (below < 0 || atlas_kind(below) == ATLAS_NONE) {
        spring_damage(g, t);
        return;
    }
    if (level_enter(g, below) == 0)
        msg_add(g, "You fall to the level below.");
}

static void spring_alarm(game_t *g, const trap_kind_t *t)
{
    (void)t;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && o->depth == g->depth && h != g->player &&
            !(creature_kind(g, o)->flags & CF_MINDLESS))
            creature_disturb(g, h);
    }
}

static const trap_fn_t SPRING[TRAP_ACTIONS] = {
#define TRAP_ACTION_ROW_(id, fn, flags) [TRAP_##id] = fn,
    TRAP_ACTION_LIST(TRAP_ACTION_ROW_)
#undef TRAP_ACTION_ROW_
};

void trap_arrive(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int k = trap_at(lv, p->x, p->y, false);
    if (k >= 0 && k < g->c->n_traps) {
        const trap_kind_t *t = &g->c->traps[k];
        int i = p->y * lv->w + p->x;
        if ((lv->trap[i] & TRAP_FOUND) && combat_save(g, g->player, SAVE_REF, 12, 0)) {
            msg_add(g, "You step carefully over the %s.", t->name);
        } else {
            lv->trap[i] |= TRAP_FOUND;
            lv->traps_found = 1;
            level_set_seen(lv, i, SEEN_EYES);
            msg_add(g, "%s", t->msg);
            SPRING[t->action](g, t);
            vision_update(g);
        }
    }
    if (g->state == GAME_RUNNING)
        trap_search(g, trap_search_chance(g, false));
}

/* Whether row[x0, x1) holds a found trap (a byte with TRAP_FOUND set):
 * eight cells a load, no branch but the loop's. */
static bool row_has_found(const uint8_t *row, int x0, int x1)
{
    uint64_t any = 0;
    int x = x0;
    for (; x + 8 <= x1; x += 8) {
        uint64_t w;
        memcpy(&w, row + x, 8);
        any |= w;
    }
    for (; x < x1; x++)
        any |= row[x];
    return (any & 0x0101010101010101ull * TRAP_FOUND) != 0;
}

typedef uint8_t trap16_t __attribute__((vector_size(16)));

/* Whether lv's bytes from row y0's column x0 to row y1 - 1's column x1
 * (the view's rows and the cells between them) hold a found trap: sixteen
 * a load, four loads a turn, ORed together and tested once. A found trap there is rare; one
 * beside the view only sends trap_render through the view's rows. */
static bool view_has_found(const level_t *lv, int x0, int x1, int y0, int y1)
{
    const uint8_t *p = lv->trap + (size_t)y0 * (size_t)lv->w + (size_t)x0;
    size_t n = (size_t)(y1 - 1 - y0) * (size_t)lv->w + (size_t)(x1 - x0), i = 0;
    if (n < 16)
        return row_has_found(p, 0, (int)n);
    trap16_t any = {0}, a, b, c, d;
    for (; i + 64 <= n; i += 64) {
        memcpy(&a, p + i, 16), memcpy(&b, p + i + 16, 16);
        memcpy(&c, p + i + 32, 16), memcpy(&d, p + i + 48, 16);
        any |= (a | b) | (c | d);
    }
    for (; i + 16 <= n; i += 16)
        memcpy(&a, p + i, 16), any |= a;
    memcpy(&a, p + n - 16, 16), any |= a; /* the last sixteen */
    uint64_t half[2];
    memcpy(half, &any, 16);
    return ((half[0] | half[1]) & 0x0101010101010101ull * TRAP_FOUND) != 0;
}

/* Runs every frame over every cell in view, so it reads the level's trap
 * bytes directly: a found trap is rare, a call per cell is not cheap. */
void trap_render(game_t *g, screen_t *s, int ox, int oy, int vw, int vh, int top, int tw)
{
    const level_t *lv = level_current(g);
    if (!lv)
        return;
    int x0 = ox > 0 ? ox : 0, x1 = ox + vw < lv->w ? ox + vw : lv->w;
    int y0 = oy > 0 ? oy : 0, y1 = oy + vh < lv->h ? oy + vh : lv->h;
    if (!lv->traps_found || x0 >= x1 || y0 >= y1 || !view_has_found(lv, x0, x1, y0, y1))
        return; /* most levels: no trap found; most frames: none in view */
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = lv->trap + (size_t)y * (size_t)lv->w;
        if (!row_has_found(row, x0, x1))
            continue; /* most rows: no trap found on them */
        for (int x = x0; x < x1; x++) {
            uint64_t w = 1;
            if (x + 8 <= x1 && (memcpy(&w, row + x, 8), w == 0)) {
                x += 7; /* eight cells without a trap: most of a row */
                continue;
            }
            if (row[x] <= TRAP_FOUND) /* none, or not found yet */
                continue;
            int k = (row[x] & TRAP_KIND) - 1;
            if (k >= g->c->n_traps)
                continue;
            bool vis = level_visible(lv, x, y);
            style_t st = {vis ? g->c->traps[k].fg : 8, SCREEN_DEFAULT_COLOR, vis ? 0 : ATTR_DIM};
            screen_put(s, (x - ox) * tw, top + y - oy, '^', st);
        }
    }
}

/* ---- doors ---------------------------------------------------------------------- */

static const char *const DOOR_ASK[DOOR_CMDS] = {"Close", "Lock or pick", "Kick"};

static int ask(game_t *g, int cmd)
{
    g->door_cmd = (uint8_t)cmd;
    g->prompt = PROMPT_DOOR;
    return 0;
}

void trap_door_draw(game_t *g, screen_t *s)
{
    char q[80];
    snprintf(q, sizeof q, "%s in which direction? (a move key; others cancel)",
             DOOR_ASK[g->door_cmd < DOOR_CMDS ? g->door_cmd : 0]);
    prompt_ask(s, q);
}

CMD_BIND(trap_cmd_close, ask, DOOR_CLOSE)
CMD_BIND(trap_cmd_lock, ask, DOOR_LOCK)
CMD_BIND(trap_cmd_kick, ask, DOOR_KICK)

static void set_terrain(level_t *lv, int i, uint8_t t)
{
    level_set_terrain(lv, i, t);
    lv->opaque_ok = 0;
}

static int door_close(game_t *g, level_t *lv, int x, int y)
{
    int i = y * lv->w + x;
    if (lv->terrain[i] != MAP_DOOR_OPEN) {
        msg_add(g, lv->terrain[i] == MAP_DOOR_BROKEN ? "That door is broken."
                                                     : "There is no open door there.");
        return 0;
    }
    if (level_creature_at(g, g->depth, x, y) || item_floor_at(g, g->depth, x, y)) {
        msg_add(g, "Something is in the way.");
        return 0;
    }
    set_terrain(lv, i, MAP_DOOR_CLOSED);
    msg_add(g, "You close the door.");
    return SCHED_MOVE;
}

/* A closed door locks; a locked one may be picked (rogues are good at it). */
static int door_lock(game_t *g, level_t *lv, int x, int y)
{
    int i = y * lv->w + x;
    if (lv->terrain[i] == MAP_DOOR_CLOSED) {
        set_terrain(lv, i, MAP_DOOR_LOCKED);
        msg_add(g, "You lock the door.");
        return SCHED_MOVE;
    }
    if (lv->terrain[i] != MAP_DOOR_LOCKED) {
        msg_add(g, lv->terrain[i] == MAP_DOOR_OPEN     ? "Close it first."
                   : lv->terrain[i] == MAP_DOOR_BROKEN ? "That door is broken."
                                                       : "There is no door there.");
        return 0;
    }
    const class_kind_t *k = &g->c->classes[g->pc.cls < g->c->n_classes ? g->pc.cls : 0];
    int chance = 20 + 5 * pc_mod(g->pc.ab[AB_DEX]) + (k->sneak ? 50 : 0);
    if (rng_percent(&g->play, chance < 5 ? 5 : chance)) {
        set_terrain(lv, i, MAP_DOOR_CLOSED);
        msg_add(g, "You pick the lock.");
    } else {
        msg_add(g, "You fail to pick the lock.");
    }
    return SCHED_MOVE;
}

/* A kick breaks a door by Str (a locked one holds better). */
static int door_kick(game_t *g, level_t *lv, int x, int y)
{
    int i = y * lv->w + x;
    uint8_t t = lv->terrain[i];
    if (t != MAP_DOOR_CLOSED && t != MAP_DOOR_LOCKED) {
        msg_add(g, "You kick at nothing.");
        return SCHED_MOVE;
    }
    int roll = (int)rng_range(&g->play, 1, 20) + pc_mod(g->pc.ab[AB_STR]);
    if (roll >= (t == MAP_DOOR_LOCKED ? 14 : 8)) {
        set_terrain(lv, i, MAP_DOOR_BROKEN);
        msg_add(g, "WHAMM! The door crashes open.");
        vision_update(g);
    } else {
        msg_add(g, "WHAMM!");
    }
    return SCHED_MOVE;
}

typedef int (*door_fn_t)(game_t *g, level_t *lv, int x, int y);
static const door_fn_t DOOR_FNS[DOOR_CMDS] = {door_close, door_lock, door_kick};

/* The door command on the cell dx, dy from the player: ticks spent. */
static int trap_door(game_t *g, int cmd, int dx, int dy)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    level_t *lv = level_current(g);
    int x = p->x + dx, y = p->y + dy;
    if (cmd < 0 || cmd >= DOOR_CMDS || !level_in(lv, x, y) || (!dx && !dy)) {
        msg_add(g, "Never mind.");
        return 0;
    }
    return DOOR_FNS[cmd](g, lv, x, y);
}

int trap_door_key(game_t *g, key_event_t k)
{
    g->prompt = PROMPT_NONE;
    int dx, dy;
    if (!cmd_direction(k, &dx, &dy))
        return trap_door(g, -1, 0, 0);
    return trap_door(g, g->door_cmd, dx, dy);
}
