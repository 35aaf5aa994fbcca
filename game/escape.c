/* escape — the Heartstone's chase and the victory (see escape.h). */
#include "escape.h"
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

/* A floor cell at a pursuer's distance from the player, or false. */
static bool pursuer_spot(game_t *g, const level_t *lv, int px, int py, int *x, int *y)
{
    for (int tries = 0; tries < 300; tries++) {
        int dx = (int)rng_below(&g->play, 2 * ESCAPE_NEAR_MAX + 1) - ESCAPE_NEAR_MAX,
            dy = (int)rng_below(&g->play, 2 * ESCAPE_NEAR_MAX + 1) - ESCAPE_NEAR_MAX;
        int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy, d = ax > ay ? ax : ay;
        if (d < ESCAPE_NEAR_MIN || level_terrain(lv, px + dx, py + dy) != MAP_FLOOR ||
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
        lv->terrain[lv->down_y * lv->w + lv->down_x] = MAP_RUBBLE;
    for (int i = 0; i < 12; i++) {
        int x = px + (int)rng_below(&g->play, 17) - 8, y = py + (int)rng_below(&g->play, 17) - 8;
        if (level_terrain(lv, x, y) == MAP_FLOOR && !level_creature_at(g, lv->depth, x, y) &&
            (x != px || y != py))
            lv->terrain[y * lv->w + x] = MAP_RUBBLE;
    }
    lv->opaque_ok = 0;
    lv->fov_ok = 0;
}

int escape_arrive(game_t *g)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y;
    collapse(g, lv, px, py);
    msg_add(g, "The stairs collapse behind you and stones rain down. The Warren hunts you!");
    int deeper =
        g->depth + ESCAPE_DEEPER < WORLD_MAX_DEPTH ? g->depth + ESCAPE_DEEPER : WORLD_MAX_DEPTH;
    for (int i = 0; i < escape_pursuers(g->depth); i++) {
        int x, y, kind = creature_pick_kind(g, &g->play, deeper);
        if (kind < 0 || !pursuer_spot(g, lv, px, py, &x, &y))
            continue;
        if (!creature_make(g, (uint16_t)kind, g->depth, x, y, &g->play, MAKE_AWARE))
            return -1;
    }
    return 0;
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
    screen_textf(s, 2, y++, hi, "%s the %s %s climbs into the daylight of Burrowmouth", g->name,
                 pc_race_name(g), pc_class_name(g));
    screen_text(s, 2, y++, STYLE_DEFAULT, "with the Heartstone. The Warren sleeps again.");
    screen_textf(s, 2, y + 1, STYLE_DEFAULT, "Victory on turn %llu, score %lld.",
                 (unsigned long long)(g->sched.now / SCHED_MOVE), (long long)g->score);
}
