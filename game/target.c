/* target — the missile line and the aiming cursor (see target.h). */
#include "target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "creature.h"
#include "itemuse.h"
#include "level.h"
#include "missile.h"
#include "msg.h"
#include "power.h"
#include "prompt.h"
#include "shop.h"
#include "spell.h"
#include "vision.h"

/* num / den rounded to the nearest, halves away from zero. */
static int round_div(int num, int den)
{
    return num >= 0 ? (2 * num + den) / (2 * den) : -((-2 * num + den) / (2 * den));
}

/* num / den + (4 + bias) / 8, rounded down (den > 0): the line nudged
 * across by bias eighths of a cell; exact where num / den is whole. */
static int nudged_div(int num, int den, int bias)
{
    int t = 8 * num + (4 + bias) * den, q = 8 * den;
    return t >= 0 ? t / q : -((-t + q - 1) / q);
}

/* The cells of one line (bias 0: the straight one), up to the first that
 * nothing passes. */
static int line_cells(game_t *g, const level_t *lv, int x0, int y0, int dx, int dy, int d,
                      int range, int bias, target_cell_t *out)
{
    int n = 0;
    for (int i = 1; i <= range; i++) {
        int x = x0 + (bias ? nudged_div(dx * i, d, bias) : round_div(dx * i, d));
        int y = y0 + (bias ? nudged_div(dy * i, d, bias) : round_div(dy * i, d));
        if (!level_passable(g, lv, x, y))
            break;
        out[n++] = (target_cell_t){(int16_t)x, (int16_t)y};
    }
    return n;
}

int target_path(game_t *g, int x0, int y0, int x1, int y1, int range,
                target_cell_t out[TARGET_RANGE_MAX])
{
    static const int8_t BIAS[] = {1, -1, 2, -2, 3, -3};
    const level_t *lv = g->levels[g->depth];
    int dx = x1 - x0, dy = y1 - y0, d = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
    if (range > TARGET_RANGE_MAX)
        range = TARGET_RANGE_MAX;
    if (!d || !lv)
        return 0;
    int n = line_cells(g, lv, x0, y0, dx, dy, d, range, 0, out), reach = d < range ? d : range;
    if (n >= reach)
        return n;
    /* The straight line is blocked short of the target, or of the range
     * towards one beyond it (round a pillar or a door's jamb that sight
     * passes): a nudged line that gets as far instead, if one does. */
    target_cell_t alt[TARGET_RANGE_MAX];
    for (size_t b = 0; b < sizeof BIAS; b++) {
        int m = line_cells(g, lv, x0, y0, dx, dy, d, range, BIAS[b], alt);
        if (m >= reach) {
            memcpy(out, alt, (size_t)m * sizeof *alt);
            return m;
        }
    }
    return n;
}

void target_blocker(int x0, int y0, int x1, int y1, int n, int *x, int *y)
{
    int dx = x1 - x0, dy = y1 - y0, d = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
    *x = d ? x0 + round_div(dx * (n + 1), d) : x0;
    *y = d ? y0 + round_div(dy * (n + 1), d) : y0;
}

bool target_spares(game_t *g, handle_t from, handle_t h, int ax, int ay)
{
    const obj_t *o = reg_get(&g->reg, h);
    return o && shop_peaceful(g, o) && !(from == g->player && o->x == ax && o->y == ay);
}

handle_t target_first(game_t *g, int depth, handle_t from, const target_cell_t *path, int n, int ax,
                      int ay, int *at)
{
    for (int i = 0; i < n; i++) {
        handle_t h = level_creature_at(g, depth, path[i].x, path[i].y);
        if (h && h != from && !target_spares(g, from, h, ax, ay)) {
            if (at)
                *at = i;
            return h;
        }
    }
    return HANDLE_NONE;
}

/* ---- the cursor ----------------------------------------------------------------- */

#define SEEN_MAX 64

static int dist2(const obj_t *a, const obj_t *b)
{
    int dx = a->x - b->x, dy = a->y - b->y;
    return dx * dx + dy * dy;
}

/* The creatures the player sees and might aim at, nearest first (ties by
 * handle); peacefuls (aimed at by hand only) too when peaceful. */
static int seen_creatures(game_t *g, handle_t out[SEEN_MAX], bool peaceful)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && p && n < SEEN_MAX;
         h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || !vision_sees(g, h) ||
            (!peaceful && shop_peaceful(g, o)))
            continue;
        int i = n++, d = dist2(o, p);
        while (i > 0 && dist2(reg_get(&g->reg, out[i - 1]), p) > d)
            out[i] = out[i - 1], i--;
        out[i] = h;
    }
    return n;
}

handle_t target_default(game_t *g)
{
    const obj_t *t = reg_get(&g->reg, g->target);
    if (t && t->type == OBJ_CREATURE && g->target != g->player && vision_sees(g, g->target) &&
        !shop_peaceful(g, t))
        return g->target;
    handle_t seen[SEEN_MAX];
    return seen_creatures(g, seen, false) ? seen[0] : HANDLE_NONE;
}

static void cursor_on(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h ? h : g->player);
    if (o)
        g->cur_x = o->x, g->cur_y = o->y;
}

int target_begin(game_t *g, int aim, uint32_t arg)
{
    if (aim <= AIM_NONE || aim >= AIM_COUNT)
        return 0;
    g->aim = (uint8_t)aim;
    g->aim_arg = arg;
    cursor_on(g, target_default(g));
    g->prompt = PROMPT_TARGET;
    return 0;
}

void target_cycle(game_t *g, int step, bool peaceful)
{
    handle_t seen[SEEN_MAX];
    int n = seen_creatures(g, seen, peaceful), at = -1;
    if (!n)
        return;
    handle_t here = level_creature_at(g, g->depth, g->cur_x, g->cur_y);
    for (int i = 0; i < n; i++)
        if (seen[i] == here)
            at = i;
    at = at < 0 ? (step > 0 ? 0 : n - 1) : (at + step + n) % n;
    cursor_on(g, seen[at]);
}

typedef int (*aim_fn_t)(game_t *g, uint32_t arg, int x, int y);

static int aim_throw(game_t *g, uint32_t arg, int x, int y)
{
    return missile_throw(g, g->player, (handle_t)arg, x, y);
}
static int aim_fire(game_t *g, uint32_t arg, int x, int y)
{
    (void)arg;
    return missile_fire(g, x, y);
}
static int aim_spell(game_t *g, uint32_t arg, int x, int y)
{
    return spell_cast_toward(g, (int)arg, x, y);
}
static int aim_zap(game_t *g, uint32_t arg, int x, int y)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    return itemuse_use(g, g->player, (handle_t)arg, x - p->x, y - p->y);
}
static int aim_power(game_t *g, uint32_t arg, int x, int y)
{
    (void)arg;
    return power_cantrip(g, x, y);
}
static int aim_melee(game_t *g, uint32_t arg, int x, int y)
{
    (void)arg;
    handle_t h = level_creature_at(g, g->depth, x, y);
    return h && h != g->player ? creature_attack(g, g->player, h) : 0;
}

static const aim_fn_t AIMS[AIM_COUNT] = {
    [AIM_THROW] = aim_throw, [AIM_FIRE] = aim_fire,   [AIM_SPELL] = aim_spell,
    [AIM_ZAP] = aim_zap,     [AIM_POWER] = aim_power, [AIM_MELEE] = aim_melee,
};

/* The aim is taken: no more prompt; what it does, its ticks. */
static int aim_go(game_t *g)
{
    int aim = g->aim, x = g->cur_x, y = g->cur_y;
    uint32_t arg = g->aim_arg;
    g->prompt = PROMPT_NONE;
    g->aim = AIM_NONE;
    g->aim_arg = 0;
    return aim < AIM_COUNT && AIMS[aim] ? AIMS[aim](g, arg, x, y) : 0;
}

/* The peaceful the aim at the cursor would strike, if the player sees one
 * there (HANDLE_NONE: none). */
static handle_t peaceful_aimed(game_t *g)
{
    handle_t h = level_creature_at(g, g->depth, g->cur_x, g->cur_y);
    return h && h != g->player && vision_sees(g, h) && shop_peaceful(g, reg_get(&g->reg, h)) ? h
                                                                                             : 0;
}

int target_ask(game_t *g, int aim, uint32_t arg, int x, int y)
{
    g->aim = (uint8_t)aim;
    g->aim_arg = arg;
    g->cur_x = (int16_t)x, g->cur_y = (int16_t)y;
    g->prompt = PROMPT_ATTACK;
    return 0;
}

/* A peaceful at the cursor: asked first (target_attack_key goes on). */
static int confirm(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!p || (g->cur_x == p->x && g->cur_y == p->y)) {
        g->prompt = PROMPT_NONE;
        g->aim = AIM_NONE;
        g->aim_arg = 0;
        msg_add(g, target_default(g) ? "You cannot aim at yourself." : "No target in view.");
        return 0;
    }
    handle_t h = level_creature_at(g, g->depth, g->cur_x, g->cur_y);
    if (h && vision_sees(g, h))
        g->target = h;
    if (peaceful_aimed(g))
        return target_ask(g, g->aim, g->aim_arg, g->cur_x, g->cur_y);
    return aim_go(g);
}

int target_attack_key(game_t *g, key_event_t k)
{
    if (k.code == 'y' || k.code == 'Y')
        return aim_go(g);
    g->prompt = PROMPT_NONE;
    g->aim = AIM_NONE;
    g->aim_arg = 0;
    return 0;
}

/* Names who would be struck; one the player cannot see is "it". */
void target_attack_draw(game_t *g, screen_t *s)
{
    char line[160];
    handle_t h = level_creature_at(g, g->depth, g->cur_x, g->cur_y);
    gram_arg_t a = {"victim", creature_noun(g, h)};
    if (!h || gram_format(line, sizeof line, "Really attack <victim>? (y/n)", &a, 1) <= 0)
        snprintf(line, sizeof line, "Really attack it? (y/n)");
    prompt_ask(s, line);
}

int target_key(game_t *g, key_event_t k)
{
    int dx, dy;
    level_t *lv = level_current(g);
    if (k.code == KEY_ESC || !lv) {
        g->prompt = PROMPT_NONE;
        g->aim = AIM_NONE;
        g->aim_arg = 0;
        return 0;
    }
    if (k.code == KEY_ENTER || k.code == '\n' || k.code == '.' || k.code == 't' || k.code == 'f')
        return confirm(g);
    if (k.code == '\t' || k.code == '+' || k.code == '-') {
        target_cycle(g, k.code == '-' ? -1 : 1, false);
        return 0;
    }
    if (cmd_direction(k, &dx, &dy)) {
        int x = g->cur_x + dx, y = g->cur_y + dy;
        if (level_in(lv, x, y))
            g->cur_x = (int16_t)x, g->cur_y = (int16_t)y;
    }
    return 0;
}

static const char *const AIM_WORDS[AIM_COUNT] = {
    [AIM_THROW] = "Throw", [AIM_FIRE] = "Fire",   [AIM_SPELL] = "Cast",
    [AIM_ZAP] = "Zap",     [AIM_POWER] = "Spark", [AIM_MELEE] = "Attack",
};

void target_draw(game_t *g, screen_t *s)
{
    char line[200], what[96] = "that spot";
    handle_t h = level_creature_at(g, g->depth, g->cur_x, g->cur_y);
    if (h == g->player && !target_default(g)) { /* nothing seen: a spot is aimed by hand */
        prompt_ask(s, "No target in view. [dirs move the cursor to a spot, Esc cancels]");
        return;
    }
    if (h && h != g->player && vision_sees(g, h)) {
        gram_arg_t a = {"actor", creature_noun(g, h)};
        gram_phrase(what, sizeof what, "<the:actor>", &a, 1);
    }
    /* the keys in as many words as the line holds after the question */
    static const char *const KEYS[] = {" [dirs move, Tab/+/- next, Enter/. go, Esc cancels]",
                                       " [Tab next, . go, Esc cancels]", ""};
    const char *verb = AIM_WORDS[g->aim < AIM_COUNT && AIM_WORDS[g->aim] ? g->aim : AIM_THROW];
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (snprintf(line, sizeof line, "%s at %s?%s", verb, what, KEYS[i]) <= s->w)
            break;
    for (int x = 0; x < s->w; x++)
        screen_put(s, x, 0, ' ', STYLE_DEFAULT);
    screen_text(s, 0, 0, STYLE_DEFAULT, line);
}

void target_render_path(game_t *g, screen_t *s, int ox, int oy, int vw, int vh, int top, int tw)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    target_cell_t path[TARGET_RANGE_MAX];
    if (!p)
        return;
    int n = target_path(g, p->x, p->y, g->cur_x, g->cur_y, TARGET_RANGE_MAX, path);
    for (int i = 0; i < n; i++) {
        int sx = path[i].x - ox, sy = path[i].y - oy;
        if (path[i].x == g->cur_x && path[i].y == g->cur_y)
            break;
        if (sx < 0 || sx >= vw || sy < 0 || sy >= vh ||
            level_creature_at(g, g->depth, path[i].x, path[i].y))
            continue; /* what stands in the way stays in sight */
        screen_put(s, sx * tw, top + sy, '*', (style_t){11, SCREEN_DEFAULT_COLOR, 0});
    }
}
