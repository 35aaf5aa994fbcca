/* escape — the Heartstone's chase and the victory (see escape.h). */
#include "escape.h"
#include <stdio.h>
#include <string.h>
#include "creature.h"
#include "end.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"

void escape_wake(game_t *g)
{
    msg_add(g, "The Warren wakes: the ground shudders and howls rise from every tunnel above!");
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && o->depth == g->depth && h != g->player &&
            !(creature_kind(g, o)->flags & CF_PEACEFUL))
            creature_disturb(g, h);
    }
}

int escape_pursuers(int depth)
{
    return 1 + (WORLD_MAX_DEPTH - depth) / 5;
}

/* Where a pursuer may stand: floor in the Warren; on the surface any
 * open ground but a town's or a dungeon's gate. */
static bool pursuer_ground(game_t *g, const level_t *lv, int x, int y)
{
    uint8_t t = level_terrain(lv, x, y);
    if (atlas_kind(lv->depth) == ATLAS_WARREN)
        return t == MAP_FLOOR;
    return level_passable(g, lv, x, y) && t != MAP_TOWN && t != MAP_ENTRANCE && t != MAP_GATE &&
           t != MAP_STAIRS_DOWN;
}

/* A cell at a pursuer's distance from the player, or false. */
static bool pursuer_spot(game_t *g, const level_t *lv, int px, int py, int *x, int *y)
{
    for (int tries = 0; tries < 300; tries++) {
        int dx = (int)rng_below(&g->play, 2 * ESCAPE_NEAR_MAX + 1) - ESCAPE_NEAR_MAX,
            dy = (int)rng_below(&g->play, 2 * ESCAPE_NEAR_MAX + 1) - ESCAPE_NEAR_MAX;
        int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy, d = ax > ay ? ax : ay;
        if (d < ESCAPE_NEAR_MIN || !pursuer_ground(g, lv, px + dx, py + dy) ||
            level_creature_at(g, lv->depth, px + dx, py + dy))
            continue;
        *x = px + dx, *y = py + dy;
        return true;
    }
    return false;
}

/* Rubble falls on open floor around the arrival (never on a creature or
 * an item: rubble is passable, so nothing is cut off). */
static void collapse(game_t *g, level_t *lv, int px, int py)
{
    if (lv->down_x >= 0 && level_terrain(lv, lv->down_x, lv->down_y) == MAP_STAIRS_DOWN)
        level_set_terrain(lv, lv->down_y * lv->w + lv->down_x, MAP_RUBBLE);
    for (int i = 0; i < 12; i++) {
        int x = px + (int)rng_below(&g->play, 17) - 8, y = py + (int)rng_below(&g->play, 17) - 8;
        if (level_terrain(lv, x, y) == MAP_FLOOR && !level_creature_at(g, lv->depth, x, y) &&
            (x != px || y != py))
            level_set_terrain(lv, y * lv->w + x, MAP_RUBBLE);
    }
    lv->opaque_ok = 0;
    lv->fov_ok = 0;
}

/* n hunters of danger `as_deep` near the player, awake: 0 or -1 (OOM). */
static int hunters(game_t *g, int n, int as_deep)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y;
    for (int i = 0; i < n; i++) {
        int x, y, kind = creature_pick_kind(g, &g->play, as_deep);
        if (kind < 0 || !pursuer_spot(g, lv, px, py, &x, &y))
            continue;
        if (!creature_make(g, (uint16_t)kind, g->depth, x, y, &g->play, MAKE_AWARE))
            return -1;
    }
    return 0;
}

int escape_arrive(game_t *g)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    collapse(g, lv, p->x, p->y);
    msg_add(g, "The stairs collapse behind you and stones rain down. The Warren hunts you!");
    int deeper =
        g->depth + ESCAPE_DEEPER < WORLD_MAX_DEPTH ? g->depth + ESCAPE_DEEPER : WORLD_MAX_DEPTH;
    return hunters(g, escape_pursuers(g->depth), deeper);
}

/* "Oakford or Saltmere": the safe towns (three at most), for the chase's messages. */
static void safe_towns(const game_t *g, char *out, size_t n)
{
    const atlas_table_t *t = g->atlas.t;
    size_t len = 0;
    int named = 0, total = 0;
    for (int i = 0; t && i < t->n_towns; i++)
        total += t->towns[i].safe;
    for (int i = 0; t && i < t->n_towns && named < 3 && len < n; i++)
        if (t->towns[i].safe)
            len += (size_t)snprintf(out + len, n - len, "%s%s",
                                    !named                             ? ""
                                    : named + 1 == total || named == 2 ? " or "
                                                                       : ", ",
                                    t->towns[i].name),
                named++;
    if (!named)
        snprintf(out, n, "any town");
}

int escape_town(game_t *g)
{
    char where[160];
    if (atlas_need(g) < 0)
        return -1;
    safe_towns(g, where, sizeof where);
    msg_add(g,
            "Bells ring: no gate here will shut behind the Heartstone. Run for the seat of "
            "another land: %s!",
            where);
    return hunters(g, ESCAPE_SURFACE_PURSUERS, ESCAPE_SURFACE_DANGER);
}

int escape_surface(game_t *g)
{
    char where[160];
    safe_towns(g, where, sizeof where);
    msg_add(g, "Howls on the wind: the Warren's hunters are out. Make for %s!", where);
    return hunters(g, ESCAPE_SURFACE_PURSUERS, ESCAPE_SURFACE_DANGER);
}

void escape_win(game_t *g)
{
    end_win(g);
    g->prompt = PROMPT_NONE; /* prompt_of shows the victory screen from now on */
}

int escape_victory_key(game_t *g, key_event_t k)
{
    (void)g, (void)k;
    return 0; /* the game is over: the host closes it */
}

void escape_victory_draw(game_t *g, screen_t *s)
{
    style_t hi = {14, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    int y = s->h / 2 - 5 > 0 ? s->h / 2 - 5 : 0;
    static const char *const ART[] = {
        "        *        ", "      .***.      ", "    .*******.    ",
        "      '***'      ", "        *        ",
    };
    for (size_t i = 0; i < sizeof ART / sizeof ART[0]; i++)
        screen_text(s, s->w / 2 - 8, y++, hi, ART[i]);
    y++;
    int town = atlas_town_of(g, g->depth);
    screen_textf(s, 2, y++, hi, "%s the %s %s walks in at the gates of %s", g->name,
                 pc_race_name(g), pc_class_name(g),
                 town >= 0 ? g->atlas.t->towns[town].name : "the town");
    screen_text(s, 2, y++, STYLE_DEFAULT, "with the Heartstone. The Warren sleeps again.");
    screen_textf(s, 2, y + 1, STYLE_DEFAULT, "Victory on turn %llu, score %lld.",
                 (unsigned long long)(g->sched.now / SCHED_MOVE), (long long)g->score);
}
