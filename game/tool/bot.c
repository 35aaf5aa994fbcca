/* bot — the policy (see bot.h). Paths come from one breadth-first search
 * over the cells the player has seen. */
#include "bot.h"
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "ident.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "pc.h"
#include "prompt.h"
#include "status.h"
#include "trap.h"

#define EXPLORE_KEYS 500 /* keys on a level before heading for the stairs anyway */

static const int8_t DIRS[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                  {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
static const char DIRKEY[8] = {'k', 'u', 'l', 'n', 'j', 'b', 'h', 'y'};

void bot_init(bot_t *b, uint64_t seed, int cls)
{
    memset(b, 0, sizeof *b);
    b->rng = seed * 0x9E3779B97F4A7C15ull + 1;
    b->depth = -1;
    b->cls = cls;
}

void bot_free(bot_t *b)
{
    free(b->dist);
    free(b->first);
    free(b->open);
    free(b->ignore);
    free(b->visited);
    memset(b, 0, sizeof *b);
}

static uint32_t bot_rand(bot_t *b, uint32_t n)
{
    b->rng ^= b->rng << 13, b->rng ^= b->rng >> 7, b->rng ^= b->rng << 17;
    return n ? (uint32_t)(b->rng % n) : 0;
}

static void push(bot_t *b, uint32_t k)
{
    if (b->nq < 4)
        b->queue[b->nq++] = k;
}

static bool visible(const level_t *lv, int x, int y)
{
    return level_in(lv, x, y) && lv->vis[y * lv->w + x];
}

static handle_t adjacent_monster(game_t *g, const obj_t *p, int *dir)
{
    const level_t *lv = level_current(g);
    for (int i = 0; i < 8; i++) {
        int x = p->x + DIRS[i][0], y = p->y + DIRS[i][1];
        handle_t h = visible(lv, x, y) ? level_creature_at(g, p->depth, x, y) : HANDLE_NONE;
        if (h && h != g->player) {
            *dir = i;
            return h;
        }
    }
    return HANDLE_NONE;
}

/* An inventory letter whose item matches, or 0. */
static int find_item(game_t *g, bool (*want)(game_t *, const obj_t *))
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++) {
        const obj_t *o = reg_get(&g->reg, inv[i]);
        if (want(g, o))
            return 'a' + o->a[0];
    }
    return 0;
}

static bool is_healing(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    return k->cls == IC_POTION && ident_known(g, o->kind) &&
           (k->use == USE_HEAL || k->use == USE_CURE);
}
static bool is_unknown_potion(game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_POTION && !ident_known(g, o->kind);
}
static bool is_unknown_scroll(game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_SCROLL && !ident_known(g, o->kind);
}
static bool is_food(game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_FOOD;
}
/* Armour for an empty slot, or a weapon that hits harder than the one in hand. */
static bool is_upgrade(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    if (k->slot == SLOT_NONE || k->slot == SLOT_RING || k->slot == SLOT_NECK ||
        (o->flags & IF_EQUIPPED))
        return false;
    if ((o->flags & IF_CURSE_SEEN) && (o->flags & IF_CURSED))
        return false;
    gear_t cur;
    item_gear(g, g->player, true, &cur);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++) {
        const obj_t *w = reg_get(&g->reg, inv[i]);
        if (!(w->flags & IF_EQUIPPED) || item_kind(g, w)->slot != k->slot)
            continue;
        if (k->slot != SLOT_WEAPON)
            return false;
        return dice_max(&k->power) + k->power.n > dice_max(&cur.dmg) + cur.dmg.n;
    }
    return true;
}

/* Breadth-first distances from the player over seen, passable cells. */
static void bfs(bot_t *b, game_t *g, const level_t *lv, const obj_t *p)
{
    for (int i = 0; i < b->cells; i++)
        b->dist[i] = -1;
    int head = 0, tail = 0, start = p->y * lv->w + p->x;
    b->dist[start] = 0;
    b->first[start] = -1;
    b->open[tail++] = start;
    while (head < tail) {
        int c = b->open[head++], cx = c % lv->w, cy = c / lv->w;
        for (int i = 0; i < 8; i++) {
            int x = cx + DIRS[i][0], y = cy + DIRS[i][1];
            if (!level_in(lv, x, y))
                continue;
            int n = y * lv->w + x;
            bool door = level_terrain(lv, x, y) == MAP_DOOR_CLOSED;
            if (b->dist[n] >= 0 || !lv->seen[n] || !(door || level_passable(g, lv, x, y)) ||
                trap_at(lv, x, y, true) >= 0)
                continue;
            if (visible(lv, x, y) && level_creature_at(g, p->depth, x, y))
                continue;
            b->dist[n] = (int16_t)(b->dist[c] + 1);
            b->first[n] = c == start ? (int8_t)i : b->first[c];
            b->open[tail++] = n;
        }
    }
}

static bool frontier(const bot_t *b, const level_t *lv, int c)
{
    if (b->visited[c])
        return false;
    int x = c % lv->w, y = c / lv->w;
    for (int i = 0; i < 8; i++) {
        int nx = x + DIRS[i][0], ny = y + DIRS[i][1];
        if (level_in(lv, nx, ny) && !lv->seen[ny * lv->w + nx])
            return true;
    }
    return false;
}

static bool has_item(game_t *g, bot_t *b, const level_t *lv, int c)
{
    return !b->ignore[c] && lv->seen[c] && item_floor_at(g, lv->depth, c % lv->w, c / lv->w);
}

/* The direction of the first step towards the nearest wanted cell, or -1. */
static int step_towards(bot_t *b, game_t *g, const level_t *lv, int want)
{
    int best = -1, bestd = 1 << 30;
    for (int c = 0; c < b->cells; c++) {
        if (b->dist[c] <= 0 || b->dist[c] >= bestd)
            continue;
        bool ok = want == 0   ? has_item(g, b, lv, c)
                  : want == 1 ? frontier(b, lv, c)
                              : (c == lv->down_y * lv->w + lv->down_x);
        if (ok)
            best = c, bestd = b->dist[c];
    }
    return best >= 0 ? b->first[best] : -1;
}

static void new_level(bot_t *b, const level_t *lv, int depth)
{
    int cells = lv->w * lv->h;
    if (cells != b->cells) {
        free(b->dist), free(b->first), free(b->open), free(b->ignore), free(b->visited);
        b->visited = malloc((size_t)cells);
        b->dist = malloc((size_t)cells * sizeof *b->dist);
        b->first = malloc((size_t)cells);
        b->open = malloc((size_t)cells * sizeof *b->open);
        b->ignore = malloc((size_t)cells);
        b->cells = cells;
    }
    memset(b->ignore, 0, (size_t)cells);
    memset(b->visited, 0, (size_t)cells);
    b->depth = depth;
    b->level_keys = 0;
}

/* The nearest monster in view, and how far (Chebyshev); NONE if none. */
static handle_t nearest_monster(game_t *g, const obj_t *p, int *dist)
{
    const level_t *lv = level_current(g);
    handle_t best = HANDLE_NONE;
    *dist = 1 << 20;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || o->depth != p->depth ||
            !visible(lv, o->x, o->y))
            continue;
        int dx = abs(o->x - p->x), dy = abs(o->y - p->y), d = dx > dy ? dx : dy;
        if (d < *dist)
            *dist = d, best = h;
    }
    return best;
}

/* The direction of the line from p to o (one of the eight) when nothing
 * stands between them within range; -1 otherwise. */
static int line_to(game_t *g, const obj_t *p, const obj_t *o, int range)
{
    int dx = o->x - p->x, dy = o->y - p->y, adx = abs(dx), ady = abs(dy);
    int d = adx > ady ? adx : ady;
    if (d < 1 || d > range || (dx && dy && adx != ady))
        return -1;
    int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0);
    const level_t *lv = level_current(g);
    for (int i = 1; i < d; i++)
        if (!level_passable(g, lv, p->x + sx * i, p->y + sy * i) ||
            level_creature_at(g, p->depth, p->x + sx * i, p->y + sy * i))
            return -1;
    for (int i = 0; i < 8; i++)
        if (DIRS[i][0] == sx && DIRS[i][1] == sy)
            return i;
    return -1;
}

/* A known spell with this effect the mana pays for, keeping reserve
 * mana: the one with the most damage; -1 when none. */
static int spell_to_cast(game_t *g, int effect, int reserve)
{
    int best = -1, most = -1;
    for (int i = 0; i < g->c->n_spells; i++) {
        const spell_kind_t *s = &g->c->spells[i];
        if (!(g->pc.spells & (1u << i)) || s->effect != effect || g->pc.mana - s->mana < reserve)
            continue;
        int dmg = dice_max(&s->dice);
        if (dmg > most)
            most = dmg, best = i;
    }
    return best;
}

static int cast_key(int spell)
{
    return 'a' + spell;
}

static bool is_wand_to_zap(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    if (k->cls != IC_WAND || ((o->flags & IF_KNOWN) && o->remaining <= 0))
        return false;
    return !ident_known(g, o->kind) || k->use == USE_BOLT || k->use == USE_BOLT_EFFECT;
}

/* Potions that help a fight: speed, might, reflexes, mastery. */
static bool is_fight_potion(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    if (k->cls != IC_POTION || !ident_known(g, o->kind) || k->use != USE_EFFECT || k->effect < 0)
        return false;
    const effect_kind_t *e = &g->c->effects[k->effect];
    return (e->speed > 0 || e->damage > 0 || e->defence > 0) && !e->flags;
}

static bool is_teleport(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    return k->cls == IC_SCROLL && ident_known(g, o->kind) && k->use == USE_TELEPORT;
}

/* Magic against what it sees: a heal when hurt, a bolt (a caster's only
 * weapon, a cleric's when it can spare the mana), a wand along a line,
 * a fighting potion when a fight goes badly. */
static bool bot_magic(bot_t *b, game_t *g, const obj_t *p)
{
    int d, l, heal = spell_to_cast(g, SPELL_HEAL, 0);
    bool low = p->hp * 2 < p->hp_max;
    if (low && heal >= 0)
        return push(b, 'Z'), push(b, (uint32_t)cast_key(heal)), true;
    handle_t m = nearest_monster(g, p, &d);
    const obj_t *mo = reg_get(&g->reg, m);
    if (!mo || d > 8)
        return false;
    bool caster = pc_class(g)->bab <= 50;
    int reserve = heal >= 0 ? g->c->spells[heal].mana : 0;
    int bolt = spell_to_cast(g, SPELL_BOLT, caster ? 0 : reserve);
    if (bolt >= 0 && (caster || d >= 2 || low))
        return push(b, 'Z'), push(b, (uint32_t)cast_key(bolt)), true;
    int dir = line_to(g, p, mo, 8);
    if (dir >= 0 && (d >= 2 || low) && (l = find_item(g, is_wand_to_zap)))
        return push(b, 'z'), push(b, (uint32_t)l), push(b, (uint32_t)DIRKEY[dir]), true;
    if (d <= 1 && p->hp * 3 < p->hp_max * 2 && !g->items.live &&
        (l = find_item(g, is_fight_potion)))
        return push(b, 'q'), push(b, (uint32_t)l), true;
    return false;
}

/* Fight, flee, heal, eat: what to do about the body first. */
static bool bot_survive(bot_t *b, game_t *g, const obj_t *p)
{
    int dir = -1, l;
    handle_t m = adjacent_monster(g, p, &dir);
    bool low = p->hp * 3 < p->hp_max;
    if (low && (l = find_item(g, is_healing)))
        return push(b, 'q'), push(b, (uint32_t)l), true;
    if (low && m && (l = find_item(g, is_teleport)))
        return push(b, 'r'), push(b, (uint32_t)l), true;
    if (low && m && (l = find_item(g, is_unknown_potion)))
        return push(b, 'q'), push(b, (uint32_t)l), true;
    if (m && low && level_terrain(level_current(g), p->x, p->y) == MAP_STAIRS_DOWN)
        return push(b, '>'), true;
    if (bot_magic(b, g, p))
        return true;
    if (m)
        return push(b, (uint32_t)DIRKEY[dir]), true;
    if (g->items.food < FOOD_HUNGRY && (l = find_item(g, is_food)))
        return push(b, 'E'), push(b, (uint32_t)l), true;
    return false;
}

/* With nothing in the way: gear up, try unknown scrolls, rest, pick up. */
static bool bot_tidy(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    int l, c = p->y * lv->w + p->x;
    if ((l = find_item(g, is_upgrade)))
        return push(b, 'w'), push(b, (uint32_t)l), true;
    if (has_item(g, b, lv, c)) {
        b->ignore[c] = 1; /* one try per cell: a refusal must not loop */
        return push(b, 'g'), true;
    }
    bool hostile = false;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && !hostile; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        hostile = o->type == OBJ_CREATURE && h != g->player && o->depth == p->depth &&
                  visible(lv, o->x, o->y);
    }
    if (hostile)
        return false;
    if ((l = find_item(g, is_unknown_scroll)) && b->level_keys % 40 == 1)
        return push(b, 'r'), push(b, (uint32_t)l), true;
    if ((l = find_item(g, is_unknown_potion)) && p->hp == p->hp_max && b->level_keys % 40 == 21)
        return push(b, 'q'), push(b, (uint32_t)l), true; /* known by use, while it is safe */
    if (p->hp * 2 < p->hp_max && g->items.food >= FOOD_WEAK && b->level_keys % 8 == 0)
        return push(b, 'R'), true;
    return false;
}

/* A rogue stalks: the first step towards a monster in view that has not
 * noticed it (look tells the player as much), to strike it unawares. */
static bool bot_stalk(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    int d;
    const obj_t *m = reg_get(&g->reg, nearest_monster(g, p, &d));
    if (!pc_class(g)->sneak || !m || (m->flags & OF_AWARE) || d > 8 || d < 2)
        return false;
    bfs(b, g, lv, p);
    int best = -1, bestd = 1 << 30;
    for (int i = 0; i < 8; i++) {
        int x = m->x + DIRS[i][0], y = m->y + DIRS[i][1];
        if (!level_in(lv, x, y))
            continue;
        int c = y * lv->w + x;
        if (b->dist[c] > 0 && b->dist[c] < bestd)
            bestd = b->dist[c], best = c;
    }
    if (best < 0)
        return false;
    push(b, (uint32_t)DIRKEY[b->first[best]]);
    return true;
}

static void bot_move(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    if (p->x == lv->down_x && p->y == lv->down_y &&
        (b->level_keys > EXPLORE_KEYS / 4 || p->hp * 2 > p->hp_max)) {
        push(b, '>');
        return;
    }
    bfs(b, g, lv, p);
    int dir = -1;
    bool go_down = b->level_keys > EXPLORE_KEYS && lv->down_x >= 0 &&
                   lv->seen[lv->down_y * lv->w + lv->down_x];
    if (go_down)
        dir = step_towards(b, g, lv, 2);
    if (dir < 0)
        dir = step_towards(b, g, lv, 0);
    if (dir < 0)
        dir = step_towards(b, g, lv, 1);
    if (dir < 0)
        dir = step_towards(b, g, lv, 2);
    if (dir < 0 && b->idle == 0 &&
        b->stuck <= 20) { /* nothing known to go for: the game's own explore */
        push(b, 'o');
        return;
    }
    if (dir < 0 || b->stuck > 20)
        dir = (int)bot_rand(b, 8);
    push(b, (uint32_t)DIRKEY[dir]);
}

/* Questions the game asks: its class (any race) or a random character,
 * tougher or keener at a new level (by turns), a spell when it may learn
 * one, never quit; other prompts are dismissed. */
static key_event_t bot_answer(bot_t *b, game_t *g)
{
    b->nq = 0;
    switch (g->prompt) {
    case PROMPT_RACE: return (key_event_t){b->cls >= 0 ? 'a' + bot_rand(b, g->c->n_races) : ' ', 0};
    case PROMPT_CLASS: return (key_event_t){b->cls >= 0 ? 'a' + (uint32_t)b->cls : ' ', 0};
    case PROMPT_LEVELUP:
        if (pc_class(g)->learnable & (uint16_t)~g->pc.spells)
            return (key_event_t){'d', 0};
        return (key_event_t){g->pc.xl % 2 ? 'a' : 'b', 0};
    case PROMPT_MORE:
    case PROMPT_HISTORY: return (key_event_t){' ', 0};
    case PROMPT_QUIT: return (key_event_t){'n', 0};
    default: return (key_event_t){KEY_ESC, 0};
    }
}

key_event_t bot_next_key(bot_t *b, game_t *g)
{
    b->keys++;
    b->level_keys++;
    if (g->pc.mana < b->mana_before)
        b->casts++; /* what the last keys cast */
    b->mana_before = g->pc.mana;
    if (g->prompt && !(g->prompt == PROMPT_CAST && b->nq)) /* the spell menu it opened */
        return bot_answer(b, g);
    if (b->nq) {
        key_event_t k = {b->queue[0], 0};
        memmove(b->queue, b->queue + 1, (size_t)--b->nq * sizeof b->queue[0]);
        return k;
    }
    if (g->items.screen != ITEMUI_NONE)
        return (key_event_t){KEY_ESC, 0};
    const obj_t *p = reg_get(&g->reg, g->player);
    const level_t *lv = level_current(g);
    if (!p || !lv)
        return (key_event_t){'.', 0};
    if (g->depth != b->depth || lv->w * lv->h != b->cells)
        new_level(b, lv, g->depth);
    b->stuck = p->x == b->last_x && p->y == b->last_y ? b->stuck + 1 : 0;
    b->last_x = p->x, b->last_y = p->y;
    uint8_t *here = &b->visited[p->y * lv->w + p->x];
    if (*here < 255)
        (*here)++;
    /* decisions that take no time (a refused action) must not loop */
    b->idle = g->sched.now == b->last_now ? b->idle + 1 : 0;
    b->last_now = g->sched.now;
    if (b->idle > 3 || (*here > 40 && bot_rand(b, 2)))
        push(b, (uint32_t)DIRKEY[bot_rand(b, 8)]);
    else if (*here > 20 && *here % 4 == 0)
        push(b, 'o'); /* going round in circles: the game's explore */
    else if (!bot_survive(b, g, p) && !bot_stalk(b, g, p, lv) && !bot_tidy(b, g, p, lv))
        bot_move(b, g, p, lv);
    return bot_next_key(b, g);
}
