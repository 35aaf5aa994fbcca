/* warren-engine arena — two creature kinds fight, N times, in an empty
 * room, each set on the other (obj_t.target) and run by the real AI and
 * rules; the player waits walled up out of sight. A fight ends with a
 * death or after --turns turns (a draw). One line per fight and a last
 * line:
 *   arena fights N a_wins X b_wins Y a_attacks P b_attacks Q
 * --a-effect EFFECT puts a timed effect (effects.lua, by name) on A for
 * the whole fight, with no save: "paralysis" should leave A with no
 * attacks at all. Attacks are counted as the events thrown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chargen.h"
#include "creature.h"
#include "effect.h"
#include "level.h"
#include "mapgen.h"
#include "script.h"
#include "tool.h"
#include "turn.h"
#include "vision.h"
#include "world.h"

#define ROOM_X 4 /* a room big enough to run in; they start 6 apart in its middle */
#define ROOM_Y 3
#define ROOM_W 31
#define ROOM_H 11

typedef struct {
    const char *a, *b, *effect;
    long fights, turns;
    uint64_t seed;
} arena_opts_t;

typedef struct {
    handle_t a, b;
    long a_attacks, b_attacks;
} arena_watch_t;

static void watch_attacks(void *ctx, const ev_info_t *e)
{
    arena_watch_t *w = ctx;
    if (e->type != EV_ATTACK)
        return;
    w->a_attacks += e->actor == w->a;
    w->b_attacks += e->actor == w->b;
}

static int kind_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_creatures; i++)
        if (!strcmp(c->creatures[i].name, name))
            return i;
    return -1;
}

static int effect_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_effects; i++)
        if (!strcmp(c->effects[i].name, name))
            return i;
    return -1;
}

/* Level 1 made into rock with one lit-less room, and the player walled
 * into a cell of its own far from it; nobody else left. */
static void build_arena(game_t *g)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h))
        if (h != g->player && reg_get(&g->reg, h)->type == OBJ_CREATURE)
            creature_remove(g, h);
    level_t *lv = level_current(g);
    memset(lv->terrain, MAP_WALL, (size_t)lv->w * (size_t)lv->h);
    memset(lv->region, 0, (size_t)lv->w * (size_t)lv->h);
    level_regions_changed(lv);
    for (int y = ROOM_Y; y < ROOM_Y + ROOM_H; y++)
        for (int x = ROOM_X; x < ROOM_X + ROOM_W; x++)
            lv->terrain[y * lv->w + x] = MAP_FLOOR;
    obj_t *p = reg_get(&g->reg, g->player);
    p->x = (int16_t)(lv->w - 3), p->y = (int16_t)(lv->h - 3);
    reg_refile(&g->reg, g->player);
    lv->terrain[p->y * lv->w + p->x] = MAP_FLOOR;
    level_all_changed(lv);
    lv->opaque_ok = 0;
    vision_update(g);
}

/* One fight: 1 when A won, 2 when B did, 0 a draw; -1 on OOM. */
static int fight(const content_t *c, script_vm_t *vm, const arena_opts_t *o, uint64_t seed,
                 arena_watch_t *w)
{
    game_t *g = game_new(c, seed, NULL);
    if (!g)
        return -1;
    chargen_create(g, 0, 0);
    if (level_enter(g, 1) < 0) { /* down from the town: the arena is level 1 */
        game_free(g);
        return -1;
    }
    build_arena(g);
    int mid = ROOM_Y + ROOM_H / 2;
    w->a =
        creature_make(g, (uint16_t)kind_named(c, o->a), 1, ROOM_X + 3, mid, &g->play, MAKE_AWARE);
    w->b = creature_make(g, (uint16_t)kind_named(c, o->b), 1, ROOM_X + ROOM_W - 4, mid, &g->play,
                         MAKE_AWARE);
    obj_t *a = reg_get(&g->reg, w->a), *b = reg_get(&g->reg, w->b);
    int result = -1;
    if (a && b) {
        a->target = w->b, b->target = w->a;
        if (o->effect)
            effect_apply(g, w->a, (uint16_t)effect_named(c, o->effect),
                         (int32_t)(o->turns + 1) * SCHED_MOVE, 1);
        g->watch = watch_attacks, g->watch_ctx = w, g->vm = vm;
        for (long t = 0; t < o->turns && reg_get(&g->reg, w->a) && reg_get(&g->reg, w->b); t++)
            turn_advance(g, SCHED_MOVE);
        g->watch = NULL, g->vm = NULL;
        result = !reg_get(&g->reg, w->b) ? 1 : !reg_get(&g->reg, w->a) ? 2 : 0;
    }
    game_free(g);
    return result;
}

static int parse(int argc, char **argv, arena_opts_t *o)
{
    *o = (arena_opts_t){NULL, NULL, NULL, 100, 500, 1};
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--a"))
            o->a = v;
        else if (!strcmp(k, "--b"))
            o->b = v;
        else if (!strcmp(k, "--a-effect"))
            o->effect = v;
        else if (!strcmp(k, "--fights"))
            o->fights = strtol(v, NULL, 10);
        else if (!strcmp(k, "--turns"))
            o->turns = strtol(v, NULL, 10);
        else if (!strcmp(k, "--seed"))
            o->seed = strtoull(v, NULL, 0);
        else
            return fprintf(stderr, "arena: bad option %s\n", k), 2;
    }
    if (argc % 2 == 0 || !o->a || !o->b || o->fights < 1 || o->fights > 100000 || o->turns < 1)
        return fprintf(stderr, "arena: --a KIND --b KIND, --fights and --turns positive\n"), 2;
    return 0;
}

int cmd_arena(int argc, char **argv)
{
    arena_opts_t o;
    int status = parse(argc, argv, &o);
    if (status)
        return status;
    char err[256];
    content_t *c = content_load(NULL, err, sizeof err);
    if (!c)
        return fprintf(stderr, "arena: %s\n", err), 1;
    if (kind_named(c, o.a) < 0 || kind_named(c, o.b) < 0 ||
        (o.effect && effect_named(c, o.effect) < 0)) {
        fprintf(stderr, "arena: no creature '%s', creature '%s' or effect '%s'\n", o.a, o.b,
                o.effect ? o.effect : "");
        content_free(c);
        return 2;
    }
    script_vm_t *vm = script_vm_new();
    long wins[3] = {0, 0, 0}, a_attacks = 0, b_attacks = 0;
    for (long i = 0; vm && i < o.fights; i++) {
        arena_watch_t w = {0};
        int r = fight(c, vm, &o, o.seed + (uint64_t)i, &w);
        if (r < 0)
            break;
        wins[r]++, a_attacks += w.a_attacks, b_attacks += w.b_attacks;
        printf("fight %ld winner %s a_attacks %ld b_attacks %ld\n", i + 1,
               r == 1   ? "a"
               : r == 2 ? "b"
                        : "none",
               w.a_attacks, w.b_attacks);
    }
    printf("arena fights %ld a_wins %ld b_wins %ld a_attacks %ld b_attacks %ld\n", o.fights,
           wins[1], wins[2], a_attacks, b_attacks);
    script_vm_forget(vm, c);
    script_vm_free(vm);
    content_free(c);
    return vm ? 0 : 1;
}
