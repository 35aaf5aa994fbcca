/* spell — the spell menu, the player's casting and the spell table's
 * questions (see spell.h). */
#include "spell.h"
#include <stdio.h>
#include "creature.h"
#include "event.h"
#include "msg.h"
#include "prompt.h"
#include "vision.h"
#include "world.h"

int spell_first(const content_t *c, uint16_t set, bool heal)
{
    for (int i = 0; i < c->n_spells; i++)
        if ((set & (1u << i)) && (c->spells[i].effect == SPELL_HEAL) == heal)
            return i;
    return -1;
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
    dice_t d = s->dice;
    d.n = d.n + (int16_t)(g->pc.xl / 4);
    obj_t *p = reg_get(&g->reg, g->player);
    if (s->effect == SPELL_HEAL) {
        g->pc.mana = (int16_t)(g->pc.mana - s->mana);
        int heal = dice_roll(&d, &g->play);
        p->hp = p->hp + heal > p->hp_max ? p->hp_max : p->hp + heal;
        msg_add(g, "You cast %s and feel better.", s->name);
        return SCHED_MOVE;
    }
    handle_t t = nearest_foe(g);
    if (!t) {
        msg_add(g, "You see nothing to cast %s at.", s->name);
        return 0;
    }
    g->pc.mana = (int16_t)(g->pc.mana - s->mana);
    char tmpl[96];
    snprintf(tmpl, sizeof tmpl, "<Actor> cast<s:Actor> %s at <victim>.", s->name);
    creature_say(g, tmpl, g->player, t);
    obj_t *v = reg_get(&g->reg, t);
    v->flags |= OF_AWAKE;
    ev_info_t e = {.type = EV_DAMAGE,
                   .actor = g->player,
                   .victim = t,
                   .map = -1,
                   .dtype = s->dtype,
                   .flags = EVF_SPELL};
    e.amount[0] = dice_roll(&d, &g->play);
    event_throw(g, &e);
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
