/* spell — the spell menu, casting for the player and for monsters, and
 * the spell table's questions (see spell.h). What a spell does is one
 * function per effect, in the table SPELL_EFFECT_LIST makes. */
#include "spell.h"
#include <stdio.h>
#include <stdlib.h>
#include "combat.h"
#include "creature.h"
#include "event.h"
#include "itemuse.h"
#include "level.h"
#include "msg.h"
#include "power.h"
#include "prompt.h"
#include "spellfx.h"
#include "status.h"
#include "target.h"
#include "trap.h"
#include "vision.h"
#include "world.h"

#define SPELL_RANGE 12

int spell_first(const content_t *c, uint32_t set, int effect)
{
    for (int i = 0; i < c->n_spells; i++)
        if ((set & (1u << i)) && c->spells[i].effect == effect)
            return i;
    return -1;
}

/* What a spell does, from caster to target (a heal: the caster) or to the
 * place (x, y) it was aimed at (areas), with its dice already grown with
 * the caster: true when it took effect. */
typedef bool (*spell_fn_t)(game_t *g, handle_t caster, handle_t target, int x, int y,
                           const spell_kind_t *s, const dice_t *d);

static bool say_cast(game_t *g, const char *verb, const char *what, handle_t caster,
                     handle_t target)
{
    char tmpl[96];
    snprintf(tmpl, sizeof tmpl, "<Actor> %s %s at <victim>.", verb, what);
    creature_say(g, tmpl, caster, target);
    return true;
}

static void say_self(game_t *g, const char *tail, const spell_kind_t *s, handle_t caster)
{
    char tmpl[96];
    snprintf(tmpl, sizeof tmpl, "<Actor> cast<s:Actor> %s%s", s->name, tail);
    creature_say(g, tmpl, caster, HANDLE_NONE);
}

static void hurt(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s, int amount,
                 uint32_t flags)
{
    ev_info_t e = {.type = EV_DAMAGE,
                   .actor = caster,
                   .victim = target,
                   .map = -1,
                   .dtype = s->dtype,
                   .flags = flags};
    e.amount[0] = amount;
    if (target != caster)
        creature_disturb(g, target);
    event_throw(g, &e);
}

static bool cast_bolt(game_t *g, handle_t caster, handle_t target, int x, int y,
                      const spell_kind_t *s, const dice_t *d)
{
    (void)x, (void)y;
    say_cast(g, "cast<s:Actor>", s->name, caster, target);
    hurt(g, caster, target, s, dice_roll(d, &g->play), EVF_SPELL);
    return true;
}

static bool cast_heal(game_t *g, handle_t caster, handle_t target, int x, int y,
                      const spell_kind_t *s, const dice_t *d)
{
    (void)target, (void)x, (void)y;
    obj_t *o = reg_get(&g->reg, caster);
    int heal = dice_roll(d, &g->play);
    o->hp = o->hp + heal > o->hp_max ? o->hp_max : o->hp + heal;
    say_self(g, " and <v:Actor:looks/feel> better.", s, caster);
    return true;
}

static bool cast_breath(game_t *g, handle_t caster, handle_t target, int x, int y,
                        const spell_kind_t *s, const dice_t *d)
{
    static const char *const WHAT[DT_COUNT] = {
        [DT_HIT] = "a blast",    [DT_POISON] = "poison",    [DT_FIRE] = "fire",
        [DT_COLD] = "frost",     [DT_LIGHTNING] = "sparks", [DT_ACID] = "acid",
        [DT_MAGIC] = "raw magic"};
    (void)x, (void)y;
    const char *what = s->dtype < DT_COUNT && WHAT[s->dtype] ? WHAT[s->dtype] : "a blast";
    say_cast(g, "breathe<s:Actor>", what, caster, target);
    hurt(g, caster, target, s, dice_roll(d, &g->play), EVF_BREATH);
    return true;
}

static bool cast_hex(game_t *g, handle_t caster, handle_t target, int x, int y,
                     const spell_kind_t *s, const dice_t *d)
{
    (void)x, (void)y;
    say_cast(g, "cast<s:Actor>", s->name, caster, target);
    creature_disturb(g, target);
    return status_apply(g, target, s->status, dice_roll(d, &g->play) * SCHED_MOVE, 1,
                        combat_dc(g, caster)) != HANDLE_NONE;
}

/* Every creature within the radius of (x, y) that the blast reaches (a
 * clear line from the centre), the caster and peacefuls spared (one the
 * player aimed at is not: it was asked); one roll for all. */
static bool cast_area(game_t *g, handle_t caster, handle_t target, int x, int y,
                      const spell_kind_t *s, const dice_t *d)
{
    (void)target;
    const obj_t *c = reg_get(&g->reg, caster);
    handle_t hit[64];
    int n = 0, r = s->radius, amount = dice_roll(d, &g->play);
    say_self(g, ".", s, caster);
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && n < 64; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == caster || o->depth != c->depth || abs(o->x - x) > r ||
            abs(o->y - y) > r || target_spares(g, caster, h, x, y))
            continue;
        target_cell_t path[TARGET_RANGE_MAX];
        int len = target_path(g, x, y, o->x, o->y, r, path);
        bool reached = o->x == x && o->y == y;
        for (int i = 0; i < len && !reached; i++)
            reached = path[i].x == o->x && path[i].y == o->y;
        if (reached)
            hit[n++] = h;
    }
    for (int i = 0; i < n; i++)
        if (reg_get(&g->reg, hit[i]))
            hurt(g, caster, hit[i], s, amount, EVF_SPELL);
    return n > 0;
}

static bool cast_buff(game_t *g, handle_t caster, handle_t target, int x, int y,
                      const spell_kind_t *s, const dice_t *d)
{
    (void)target, (void)x, (void)y;
    say_self(g, ".", s, caster);
    return status_apply(g, caster, s->status, dice_roll(d, &g->play) * SCHED_MOVE, 1, 0) !=
           HANDLE_NONE;
}

/* Creatures of the depth on the cells around the caster, aware of it all. */
static bool cast_summon(game_t *g, handle_t caster, handle_t target, int x, int y,
                        const spell_kind_t *s, const dice_t *d)
{
    static const int8_t D[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                   {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
    (void)target, (void)x, (void)y;
    say_self(g, ".", s, caster);
    const obj_t *c = reg_get(&g->reg, caster);
    int depth = c->depth, cx = c->x, cy = c->y, want = dice_roll(d, &g->play), made = 0;
    const level_t *lv = g->levels[depth];
    for (int i = 0; i < 8 && made < want; i++) {
        int nx = cx + D[i][0], ny = cy + D[i][1];
        if (!level_passable(g, lv, nx, ny) || level_creature_at(g, depth, nx, ny))
            continue;
        int kind = creature_pick_kind(g, &g->play, depth);
        if (kind < 0 || !creature_make(g, (uint16_t)kind, depth, nx, ny, &g->play, MAKE_AWARE))
            break;
        made++;
    }
    return made > 0;
}

static bool cast_power(game_t *g, handle_t caster, handle_t target, int x, int y,
                       const spell_kind_t *s, const dice_t *d)
{
    (void)target, (void)x, (void)y;
    say_self(g, ".", s, caster);
    return itemuse_power(g, caster, s->use, d);
}

static bool cast_detect(game_t *g, handle_t caster, handle_t target, int x, int y,
                        const spell_kind_t *s, const dice_t *d)
{
    (void)target, (void)x, (void)y, (void)d;
    say_self(g, ".", s, caster);
    if (caster != g->player)
        return false;
    int found = trap_detect(g, s->radius);
    if (found)
        msg_add(g, "You sense %d hidden thing%s near you.", found, found == 1 ? "" : "s");
    else
        msg_add(g, "You sense nothing hidden near you.");
    return found > 0;
}

static const struct {
    spell_fn_t cast;
    uint8_t flags; /* SPF_* */
} EFFECTS[SPELL_EFFECTS] = {
#define SPELL_EFFECT_ROW_(id, fn, flags) [SPELL_##id] = {fn, flags},
    SPELL_EFFECT_LIST(SPELL_EFFECT_ROW_)
#undef SPELL_EFFECT_ROW_
};

static bool has(const spell_kind_t *s, unsigned flag)
{
    return s->effect < SPELL_EFFECTS && (EFFECTS[s->effect].flags & flag);
}

/* The spell with its dice grown by the caster's level (SPF_GROWS: a die
 * every fourth level). */
static bool cast(game_t *g, handle_t caster, handle_t target, int x, int y, int spell)
{
    const obj_t *o = reg_get(&g->reg, caster);
    if (!o || spell < 0 || spell >= g->c->n_spells || g->c->spells[spell].effect >= SPELL_EFFECTS)
        return false;
    const spell_kind_t *s = &g->c->spells[spell];
    dice_t d = s->dice;
    bool player = caster == g->player;
    if (has(s,
            SPF_GROWS)) /* a die every fourth level of the player's, every sixth of a monster's */
        d.n = (int16_t)(d.n + (player ? g->pc.xl / 4 : creature_kind(g, o)->level / 6));
    return EFFECTS[s->effect].cast(g, caster, target, x, y, s, &d);
}

bool spell_cast_kind(game_t *g, handle_t caster, const spell_kind_t *s, int x, int y)
{
    const obj_t *c = reg_get(&g->reg, caster);
    if (!c || s->effect >= SPELL_EFFECTS)
        return false;
    if (!has(s, SPF_AIMS))
        return EFFECTS[s->effect].cast(g, caster, caster, c->x, c->y, s, &s->dice);
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, c->x, c->y, x, y, SPELL_RANGE, path), at = -1;
    handle_t t = target_first(g, c->depth, caster, path, n, x, y, &at);
    if (has(s, SPF_BURST) && n > 0) { /* it bursts on the first creature, or where the line ends */
        int end = t ? at : n - 1;
        return EFFECTS[s->effect].cast(g, caster, t, path[end].x, path[end].y, s, &s->dice);
    }
    if (!t && s->effect != SPELL_BEAM && s->effect != SPELL_CONE) {
        msg_add(g, "The %s flies off into the distance.",
                s->effect == SPELL_BOLT ? "bolt" : "spell");
        return false;
    }
    return EFFECTS[s->effect].cast(g, caster, t, x, y, s, &s->dice);
}

bool spell_cast_at(game_t *g, handle_t caster, handle_t target, int spell)
{
    const obj_t *t = reg_get(&g->reg, target);
    const obj_t *c = reg_get(&g->reg, caster);
    if (!c)
        return false;
    return cast(g, caster, target, t ? t->x : c->x, t ? t->y : c->y, spell);
}

/* Why the player cannot cast spell now (a message said so): true if so. */
static bool cannot_cast(game_t *g, int spell)
{
    if (spell < 0 || spell >= g->c->n_spells || !(g->pc.spells & (1u << spell)))
        return true;
    const spell_kind_t *s = &g->c->spells[spell];
    if (g->pc.mana < s->mana) {
        msg_add(g, "You need %d mana to cast %s%s", s->mana, s->name,
                power_is_spark(g) ? "; your spark (^A) needs none." : ".");
        return true;
    }
    if (status_has(g, g->player, EFK_(CONFUSED))) {
        msg_add(g, "You are too confused to cast.");
        return true;
    }
    return false;
}

int spell_cast_toward(game_t *g, int spell, int x, int y)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!p || cannot_cast(g, spell))
        return 0;
    const spell_kind_t *s = &g->c->spells[spell];
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, p->x, p->y, x, y, SPELL_RANGE, path), at = -1;
    handle_t t = target_first(g, g->depth, g->player, path, n, x, y, &at);
    if (has(s, SPF_BURST) && n > 0) { /* it bursts on the first creature, or where aimed */
        int end = n - 1;
        for (int i = 0; i < n; i++)
            if (path[i].x == x && path[i].y == y)
                end = i;
        if (t && at < end)
            end = at;
        g->pc.mana = (int16_t)(g->pc.mana - s->mana);
        cast(g, g->player, HANDLE_NONE, path[end].x, path[end].y, spell);
        return SCHED_MOVE;
    }
    int dx = abs(x - p->x), dy = abs(y - p->y);
    if (!t && (dx > SPELL_RANGE || dy > SPELL_RANGE)) { /* nothing spent: aim nearer */
        msg_add(g, "That is out of reach: %s goes %d steps.", s->name, SPELL_RANGE);
        return 0;
    }
    if (!t) {
        msg_add(g, "Your %s finds nothing to strike.", s->name);
        g->pc.mana = (int16_t)(g->pc.mana - s->mana);
        return SCHED_MOVE;
    }
    g->pc.mana = (int16_t)(g->pc.mana - s->mana);
    spell_cast_at(g, g->player, t, spell);
    return SCHED_MOVE;
}

/* The player casts a known spell: one that aims opens the target cursor
 * (target.h) and is cast when it is confirmed; the others (a heal, a
 * buff, a power, a detection) at once. Ticks spent, 0 when nothing was
 * cast yet (a message says why, or the cursor is up). */
static int spell_cast(game_t *g, int spell)
{
    if (cannot_cast(g, spell))
        return 0;
    const spell_kind_t *s = &g->c->spells[spell];
    if (has(s, SPF_AIMS)) {
        if (!target_default(g)) {
            msg_add(g, "You see nothing to cast %s at.", s->name);
            return 0;
        }
        return target_begin(g, AIM_SPELL, (uint32_t)spell);
    }
    const obj_t *p = reg_get(&g->reg, g->player);
    if (s->effect == SPELL_HEAL && p && p->hp >= p->hp_max) { /* nothing to heal: keep the mana */
        msg_add(g, "You are not hurt: %s would do nothing.", s->name);
        return 0;
    }
    g->pc.mana = (int16_t)(g->pc.mana - s->mana);
    spell_cast_at(g, g->player, g->player, spell);
    return SCHED_MOVE;
}

int spell_menu(game_t *g)
{
    if (!g->pc.spells) {
        msg_add(g, "You know no spells.");
        return 0;
    }
    g->prompt = PROMPT_CAST;
    return 0;
}

int spell_letter(const game_t *g, int spell)
{
    if (spell < 0 || spell >= g->c->n_spells || !(g->pc.spells & (1u << spell)))
        return 0;
    int n = 0;
    for (int i = 0; i < spell; i++)
        n += (g->pc.spells >> i) & 1;
    return n < 26 ? 'a' + n : 0;
}

int spell_menu_key(game_t *g, key_event_t k)
{
    g->prompt = PROMPT_NONE;
    for (int i = 0; i < g->c->n_spells; i++)
        if (k.code && (uint32_t)spell_letter(g, i) == k.code)
            return spell_cast(g, i);
    return 0;
}

void spell_menu_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    screen_textf(s, 2, 0, hi, "Cast which spell? Mana %d/%d (other keys cancel)", g->pc.mana,
                 g->pc.mana_max);
    int y = 2;
    for (int i = 0; i < g->c->n_spells && y < s->h; i++)
        if (spell_letter(g, i))
            screen_textf(s, 2, y++, STYLE_DEFAULT, "%c) %-15s %d mana%s", spell_letter(g, i),
                         g->c->spells[i].name, g->c->spells[i].mana,
                         has(&g->c->spells[i], SPF_AIMS) ? " (aims)" : "");
}
