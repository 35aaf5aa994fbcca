/* world — a game's lifecycle, the run loop, messages and vision. */
#include "world.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "effect.h"
#include "fov.h"
#include "mapgen.h"
#include "ident.h"
#include "itemuse.h"
#include "rules.h"
#include "status.h"

#define LEVEL_W   MAPGEN_DEFAULT_W
#define LEVEL_H   MAPGEN_DEFAULT_H
#define RUN_GUARD 100000 /* events per input: a runaway schedule cannot hang */

static void fn_effect_tick(game_t *g, const event_t *ev)
{
    effect_on_tick(g, ev);
}
static void fn_test(game_t *g, const event_t *ev)
{
    (void)g, (void)ev;
}

const sched_fn_t WORLD_SCHED_FNS[FN_COUNT] = {
    [FN_PLAYER_TURN] = rules_player_turn,
    [FN_MONSTER_TURN] = rules_monster_turn,
    [FN_EFFECT_TICK] = fn_effect_tick,
    [FN_REGEN] = rules_regen,
    [FN_TEST] = fn_test,
    [FN_HUNGER] = status_hunger_tick,
};

game_t *world_new_empty(const content_t *c, uint64_t seed)
{
    galloc_t al = {0};
    game_t *g = galloc(&al, sizeof *g);
    if (!g)
        return NULL;
    memset(g, 0, sizeof *g);
    g->al = al;
    g->c = c;
    g->seed = seed;
    rng_seed(&g->play, rng_hash2(seed, 0x706c6179u), 2);
    rng_seed(&g->cosmetic, rng_hash2(seed, 0x636f736du), 3);
    reg_init(&g->reg, &g->al);
    sched_init(&g->sched, &g->al);
    g->depth = g->max_depth = 1;
    g->pc.xl = 1;
    g->dmap_depth = -1;
    snprintf(g->name, sizeof g->name, "Adventurer");
    if (item_state_init(g) < 0) {
        game_free(g);
        return NULL;
    }
    return g;
}

void game_free(game_t *g)
{
    if (!g)
        return;
    for (int i = 0; i <= WORLD_MAX_DEPTH; i++)
        level_free(g, g->levels[i]);
    reg_free(&g->reg);
    sched_free(&g->sched);
    gfree(&g->al, g->ms);
    gfree(&g->al, g->dmap);
    item_state_free(g);
    galloc_t al = g->al;
    gfree(&al, g);
}

int world_start(game_t *g)
{
    level_t *lv = level_new(g, LEVEL_W, LEVEL_H, 1);
    if (!lv)
        return -1;
    g->levels[1] = lv;
    if (level_generate(g, lv) < 0)
        return -1;
    g->player = rules_spawn(g, g->c->player_kind, 1, lv->up_x, lv->up_y);
    obj_t *p = reg_get(&g->reg, g->player);
    if (!p)
        return -1;
    p->flags |= OF_PLAYER;
    if (rules_populate(g, lv) < 0)
        return -1;
    if (sched_push(&g->sched, 8 * SCHED_MOVE, FN_REGEN, g->player, 0, 0) < 0)
        return -1;
    p = reg_get(&g->reg, g->player);
    p->magnitude = -1;
    if (sched_push(&g->sched, SCHED_MOVE, FN_HUNGER, g->player, 0, 0) < 0)
        return -1;
    chargen_begin(g);
    world_update_vision(g);
    return 0;
}

game_t *game_new(const content_t *c, uint64_t seed, const game_options_t *opt)
{
    if (!c)
        return NULL;
    game_t *g = world_new_empty(c, seed);
    if (!g)
        return NULL;
    if (opt && opt->name[0])
        snprintf(g->name, sizeof g->name, "%s", opt->name);
    if (world_start(g) < 0) {
        game_free(g);
        return NULL;
    }
    return g;
}

level_t *world_level(game_t *g)
{
    return g->depth >= 0 && g->depth <= WORLD_MAX_DEPTH ? g->levels[g->depth] : NULL;
}

bool world_passable(game_t *g, const level_t *lv, int x, int y)
{
    uint8_t t = level_terrain(lv, x, y);
    return t < g->c->n_terrain && (g->c->terrain[t].flags & TF_PASSABLE);
}

handle_t world_creature_at(game_t *g, int depth, int x, int y)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && o->depth == depth && o->x == x && o->y == y)
            return h;
    }
    return HANDLE_NONE;
}

void world_milestone(game_t *g, const char *kind, const char *fmt, ...)
{
    if (g->nms >= MILESTONES_MAX)
        return;
    if (g->nms == g->ms_cap) {
        uint32_t cap = g->ms_cap ? g->ms_cap * 2 : 4;
        game_milestone_t *ms = grealloc(&g->al, g->ms, cap * sizeof *ms);
        if (!ms)
            return;
        g->ms = ms;
        g->ms_cap = cap;
    }
    game_milestone_t *m = &g->ms[g->nms++];
    memset(m, 0, sizeof *m);
    m->turn = g->sched.now / SCHED_MOVE;
    m->depth = g->depth;
    snprintf(m->kind, sizeof m->kind, "%s", kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof m->text, fmt, ap);
    va_end(ap);
}

/* Rebuilds the live level's derived arrays: what blocks sight, what is
 * lit (lit regions; never a dark one). */
static void vision_derive(game_t *g, level_t *lv)
{
    size_t n = (size_t)lv->w * (size_t)lv->h;
    for (size_t i = 0; i < n; i++) {
        uint8_t t = lv->terrain[i], r = lv->region[i];
        lv->opaque[i] = t >= g->c->n_terrain || (g->c->terrain[t].flags & TF_OPAQUE);
        lv->lit[i] = r && r <= lv->nregions && lv->regions[r - 1].lit;
    }
    lv->opaque_ok = 1;
}

/* Symmetric shadowcasting from the player, limited by the light radius
 * (one cell inside a dark region) except towards lit rooms; what is seen
 * is remembered. */
void world_update_vision(game_t *g)
{
    level_t *lv = world_level(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p || level_live(g, lv) < 0)
        return;
    if (!lv->opaque_ok)
        vision_derive(g, lv);
    const region_kind_t *rk = level_region_kind(g, lv, p->x, p->y);
    int radius =
        (rk && (rk->flags & RF_DARK)) || status_has(g, g->player, EFK_(BLIND)) ? 1 : LIGHT_RADIUS;
    fov_map_t m = {.w = lv->w, .h = lv->h, .opaque = lv->opaque, .lit = lv->lit};
    if (fov_compute(&m, p->x, p->y, radius, lv->vis) < 0)
        return;
    /* remember what is seen: both arrays hold 0 or 1, so eight cells OR at once */
    size_t n = (size_t)lv->w * (size_t)lv->h, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, lv->seen + i, 8);
        memcpy(&b, lv->vis + i, 8);
        a |= b;
        memcpy(lv->seen + i, &a, 8);
    }
    for (; i < n; i++)
        lv->seen[i] |= lv->vis[i];
}

void world_run(game_t *g)
{
    event_t ev;
    for (int i = 0; i < RUN_GUARD && g->state == GAME_RUNNING; i++) {
        if (!sched_pop(&g->sched, &ev))
            return;
        if (ev.fn == FN_PLAYER_TURN && ev.target == g->player)
            return;
        if (ev.fn < FN_COUNT && WORLD_SCHED_FNS[ev.fn])
            WORLD_SCHED_FNS[ev.fn](g, &ev);
    }
}

/* The player's action took cost ticks: the world runs until the player's
 * next turn. */
static void world_advance(game_t *g, int cost)
{
    if (cost <= 0 || g->state != GAME_RUNNING)
        return;
    if (sched_push(&g->sched, g->sched.now + (uint64_t)cost, FN_PLAYER_TURN, g->player, 0, 0) < 0)
        return;
    world_update_vision(g);
    world_run(g);
    world_update_vision(g);
}

/* Travel and exploration go on step by step while nothing new happens:
 * no monster in view (travel_step checks), no item seen for the first
 * time, no new message, no lost hit point, no prompt. */
static void world_keep_running(game_t *g)
{
    handle_t hidden[128]; /* once per run: each step looks only at these */
    int nh = travel_hidden_items(g, hidden, (int)(sizeof hidden / sizeof hidden[0]));
    for (int steps = 0; g->run && steps < 500 && g->state == GAME_RUNNING; steps++) {
        const obj_t *p = reg_get(&g->reg, g->player);
        int32_t hp = p ? p->hp : 0;
        uint32_t nmsg = g->nmsg;
        int cost = travel_step(g, false);
        if (cost <= 0)
            break;
        world_advance(g, cost);
        p = reg_get(&g->reg, g->player);
        if (!p || p->hp < hp || g->nmsg != nmsg || g->prompt != PROMPT_NONE)
            break;
        if (travel_saw_item(g, hidden, nh))
            break;
        if (g->run == RUN_TRAVEL && p->x == g->goal_x && p->y == g->goal_y)
            break;
    }
    g->run = RUN_NONE;
}

game_state_t game_input(game_t *g, script_vm_t *vm, key_event_t key)
{
    if (g->state != GAME_RUNNING)
        return (game_state_t)g->state;
    g->keys++;
    if (msg_key(g))
        return (game_state_t)g->state; /* the key paged messages or closed a screen */
    g->vm = vm;
    int cost = 0;
    if (!chargen_key(g, key) && !travel_key(g, key, &cost))
        cost = rules_player_command(g, key);
    world_advance(g, cost); /* sees again after the world moved */
    world_keep_running(g);
    g->vm = NULL;
    if (cost <= 0)
        world_update_vision(g);
    combat_unique_seen(g);
    if (g->pc.choices && g->prompt == PROMPT_NONE && g->state == GAME_RUNNING)
        g->prompt = PROMPT_LEVELUP;
    msg_after_input(g);
    return (game_state_t)g->state;
}
