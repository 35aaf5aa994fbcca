/* spell — the spell menu, casting for the player and for monsters, and
 * the spell table's questions (see spell.h). What a spell does is one
 * function per effect (SPELL_*), in a table. */
#include "spell.h"
#include <stdio.h>
#include "combat.h"
#include "creature.h"
#include "event.h"
#include "msg.h"
#include "prompt.h"
#include "status.h"
#include "vision.h"
#include "world.h"

int spell_first(const content_t *c, uint16_t set, int effect)
{
    for (int i = 0; i < c->n_spells; i++)
        if ((set & (1u << i)) && c->spells[i].effect == effect)
            return i;
    return -1;
}

/* What a spell does, from caster to target (a heal: the caster), with
 * its dice already grown with the caster: true when it took effect. */
typedef bool (*spell_fn_t)(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s,
                           const dice_t *d);

static bool say_cast(game_t *g, const char *verb, const char *what, handle_t caster,
                     handle_t target)
{
    char tmpl[96];
    snprintf(tmpl, sizeof tmpl, "<Actor> %s %s at <victim>.", verb, what);
    creature_say(g, tmpl, caster, target);
    return true;
}

static void hurt(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s,
                 const dice_t *d, uint32_t flags)
{
    ev_info_t e = {.type = EV_DAMAGE,
                   .actor = caster,
                   .victim = target,
                   .map = -1,
                   .dtype = s->dtype,
                   .flags = flags};
    e.amount[0] = dice_roll(d, &g->play);
    event_throw(g, &e);
}

static bool cast_bolt(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s,
                      const dice_t *d)
{
    say_cast(g, "cast<s:Actor>", s->name, caster, target);
    hurt(g, caster, target, s, d, EVF_SPELL);
    return true;
}

static bool cast_heal(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s,
                      const dice_t *d)
{
    (void)target;
    obj_t *o = reg_get(&g->reg, caster);
    int heal = dice_roll(d, &g->play);
    o->hp = o->hp + heal > o->hp_max ? o->hp_max : o->hp + heal;
    char tmpl[96];
    snprintf(tmpl, sizeof tmpl, "<Actor> cast<s:Actor> %s and <v:Actor:looks/feel> better.",
             s->name);
    creature_say(g, tmpl, caster, HANDLE_NONE);
    return true;
}

static bool cast_breath(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s,
                        const dice_t *d)
{
    static const char *const WHAT[DT_COUNT] = {
        [DT_HIT] = "a blast",    [DT_POISON] = "poison",    [DT_FIRE] = "fire",
        [DT_COLD] = "frost",     [DT_LIGHTNING] = "sparks", [DT_ACID] = "acid",
        [DT_MAGIC] = "raw magic"};
    const char *what = s->dtype < DT_COUNT && WHAT[s->dtype] ? WHAT[s->dtype] : "a blast";
    say_cast(g, "breathe<s:Actor>", what, caster, target);
    hurt(g, caster, target, s, d, EVF_BREATH);
    return true;
}

static bool cast_hex(game_t *g, handle_t caster, handle_t target, const spell_kind_t *s,
                     const dice_t *d)
{
    say_cast(g, "cast<s:Actor>", s->name, caster, target);
    return status_apply(g, target, s->status, dice_roll(d, &g->play) * SCHED_MOVE, 1,
                        combat_dc(g, caster)) != HANDLE_NONE;
}

static const spell_fn_t SPELL_FNS[SPELL_EFFECTS] = {
    [SPELL_BOLT] = cast_bolt,
    [SPELL_HEAL] = cast_heal,
    [SPELL_BREATH] = cast_breath,
    [SPELL_HEX] = cast_hex,
};

bool spell_cast_at(game_t *g, handle_t caster, handle_t target, int spell)
{
    const obj_t *o = reg_get(&g->reg, caster);
    if (!o || spell < 0 || spell >= g->c->n_spells || g->c->spells[spell].effect >= SPELL_EFFECTS)
        return false;
    const spell_kind_t *s = &g->c->spells[spell];
    dice_t d = s->dice;
    bool player = caster == g->player;
    /* bolts and breath grow a die every fourth level of the caster's; heals do not */
    if (s->effect == SPELL_BOLT || s->effect == SPELL_BREATH)
        d.n = (int16_t)(d.n + (player ? g->pc.xl : creature_kind(g, o)->level) / 4);
    obj_t *t = reg_get(&g->reg, target);
    if (t && target != caster)
        creature_disturb(g, target);
    return SPELL_FNS[s->effect](g, caster, target, s, &d);
}

/* The nearest creature the player sees, for bolts; HANDLE_NONE if none. */
static handle_t nearest_foe(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    handle_t best = HANDLE_NONE;
    int bestd = 1 << 30;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && p; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || !vision_sees(g, h))
            continue;
        int dx = o->x - p->x, dy = o->y - p->y, d = dx * dx + dy * dy;
        if (d < bestd)
            bestd = d, best = h;
    }
    return best;
}

int spell_cast(game_t *g, int spell)
{
    if (spell < 0 || spell >= g->c->n_spells || !(g->pc.spells & (1u << spell)))
        return 0;
    const spell_kind_t *s = &g->c->spells[spell];
    if (g->pc.mana < s->mana) {
        msg_add(g, "You need %d mana to cast %s.", s->mana, s->name);
        return 0;
    }
    if (status_has(g, g->player, EFK_(CONFUSED))) {
        msg_add(g, "You are too confused to cast.");
        return 0;
    }
    handle_t t = s->effect == SPELL_HEAL ? g->player : nearest_foe(g);
    if (!t) {
        msg_add(g, "You see nothing to cast %s at.", s->name);
        return 0;
    }
    g->pc.mana = (int16_t)(g->pc.mana - s->mana);
    spell_cast_at(g, g->player, t, spell);
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

int spell_menu_key(game_t *g, key_event_t k)
{
    g->prompt = PROMPT_NONE;
    int i = (int)k.code - 'a';
    return i >= 0 && i < g->c->n_spells ? spell_cast(g, i) : 0;
}

void spell_menu_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    screen_textf(s, 2, 0, hi, "Cast which spell? Mana %d/%d (other keys cancel)", g->pc.mana,
                 g->pc.mana_max);
    int y = 2;
    for (int i = 0; i < g->c->n_spells && y < s->h; i++)
        if (g->pc.spells & (1u << i))
            screen_textf(s, 2, y++, STYLE_DEFAULT, "%c) %-15s %d mana", 'a' + i,
                         g->c->spells[i].name, g->c->spells[i].mana);
}
