/* combat — the attack chain's rules: d20 + attack bonus against defence
 * (a natural 20 always hits and, confirmed, crits; a natural 1 misses),
 * damage dice, sneak attacks by rogues on unaware foes, damage types and
 * resistances, armour absorbing blows, death, experience and uniques. */
#include <stdio.h>
#include <string.h>
#include "effect.h"
#include "itemuse.h"
#include "rules.h"
#include "status.h"
#include "world.h"

#define SPELL_INFO_(id, nm, mana, dt, dice) {nm, mana, dt, dice},
const spell_info_t RULES_SPELLS[SPELL_COUNT] = {SPELL_LIST(SPELL_INFO_)};
#undef SPELL_INFO_

static bool is_player(const game_t *g, handle_t h)
{
    return h != HANDLE_NONE && h == g->player;
}

int unique_index(const content_t *c, uint16_t kind)
{
    if (kind >= c->n_creatures || !(c->creatures[kind].flags & CF_UNIQUE))
        return -1;
    int n = 0;
    for (uint16_t i = 0; i < kind; i++)
        n += (c->creatures[i].flags & CF_UNIQUE) != 0;
    return n < 64 ? n : -1;
}

/* Equipment and timed effects add to everyone's figures (status.h). */
static int attack_bonus(const game_t *g, handle_t h, const obj_t *o)
{
    gear_t s;
    status_stats(g, h, false, &s);
    return (is_player(g, h) ? pc_attack_bonus(g) : world_ckind(g, o)->to_hit) + s.to_hit;
}

static int defence(const game_t *g, handle_t h, const obj_t *o)
{
    gear_t s;
    status_stats(g, h, false, &s);
    return (is_player(g, h) ? pc_defence(g) : 10 + world_ckind(g, o)->defence) + s.defence;
}

/* The player's blows read differently each time (cosmetic stream). */
static const char *const PLAYER_HITS[] = {
    "<Actor> hit<s:Actor> <victim>.",
    "<Actor> swing<s:Actor> low, hitting <victim>.",
    "<Actor> strike<s:Actor> <victim>.",
    "<Actor> slash<es:Actor> at <victim> and connect<s:Actor>.",
    "<Actor> catch<es:Actor> <victim> with a quick blow.",
};

static void hit_message(game_t *g, handle_t a, handle_t v, bool crit)
{
    char tmpl[96];
    if (crit) {
        world_say(g, "<Actor> land<s:Actor> a crushing blow on <victim>!", a, v);
        return;
    }
    if (is_player(g, a)) {
        world_say(g,
                  PLAYER_HITS[rng_below(&g->cosmetic, sizeof PLAYER_HITS / sizeof PLAYER_HITS[0])],
                  a, v);
        return;
    }
    const obj_t *o = reg_get(&g->reg, a);
    snprintf(tmpl, sizeof tmpl, "<Actor> %s <victim>.",
             o ? world_ckind(g, o)->hits : "hit<s:Actor>");
    world_say(g, tmpl, a, v);
}

/* Damage dice of the attacker (player: the wielded weapon, else the
 * class's, and Str), with what equipment and effects add. */
static int roll_damage(game_t *g, handle_t h, const obj_t *o)
{
    gear_t s;
    status_stats(g, h, false, &s);
    if (!is_player(g, h))
        return dice_roll(s.armed ? &s.dmg : &world_ckind(g, o)->attack, &g->play) + s.damage;
    const class_kind_t *k = g->pc.cls < g->c->n_classes ? &g->c->classes[g->pc.cls] : NULL;
    dice_t w = s.armed ? s.dmg : k ? k->weapon : (dice_t){1, 4, 0};
    return dice_roll(&w, &g->play) + chargen_mod(g->pc.ab[AB_STR]) + s.damage;
}

int combat_attack(game_t *g, ev_info_t *e)
{
    obj_t *a = reg_get(&g->reg, e->actor), *v = reg_get(&g->reg, e->victim);
    if (!a || !v)
        return EV_DONE;
    bool unaware = !is_player(g, e->victim) && !(v->flags & OF_AWAKE);
    int bonus = attack_bonus(g, e->actor, a) + (unaware ? 4 : 0), def = defence(g, e->victim, v);
    int roll = (int)rng_range(&g->play, 1, 20);
    v->flags |= OF_AWAKE;
    if (roll == 1 || (roll != 20 && roll + bonus < def)) {
        world_say(g, "<Actor> miss<es:Actor> <victim>.", e->actor, e->victim);
        return EV_DONE;
    }
    bool crit = roll == 20 && (int)rng_range(&g->play, 1, 20) + bonus >= def;
    int dmg = roll_damage(g, e->actor, a);
    if (crit)
        dmg += roll_damage(g, e->actor, a);
    if (unaware && is_player(g, e->actor) && g->pc.cls < g->c->n_classes &&
        g->c->classes[g->pc.cls].sneak) {
        dice_t sneak = {(g->pc.xl + 1) / 2, 6, 0};
        dmg += dice_roll(&sneak, &g->play);
        world_say(g, "<Actor> strike<s:Actor> <victim> unawares!", e->actor, e->victim);
    }
    ev_info_t hit = {.type = EV_HIT, .actor = e->actor, .victim = e->victim, .map = -1};
    hit.dtype = is_player(g, e->actor) ? DT_HIT : world_ckind(g, a)->dtype;
    hit.amount[0] = dmg > 1 ? dmg : 1;
    hit.amount[1] = crit;
    if (!crit || !world_sees(g, e->victim))
        hit_message(g, e->actor, e->victim, false);
    else
        hit_message(g, e->actor, e->victim, true);
    event_throw(g, &hit);
    return EV_DONE;
}

/* Resistances and armour of the victim for one blow. */
static int mitigate(game_t *g, handle_t vh, const obj_t *v, const ev_info_t *e)
{
    int dmg = e->amount[0];
    uint16_t bit = (uint16_t)(1u << (e->dtype < DT_COUNT ? e->dtype : 0));
    uint16_t resist = 0, immune = 0, vuln = 0;
    int armour = 0;
    if (is_player(g, vh)) {
        resist = g->pc.race < g->c->n_races ? g->c->races[g->pc.race].resist : 0;
        armour = pc_armour(g);
    } else {
        const creature_kind_t *k = world_ckind(g, v);
        resist = k->resist, immune = k->immune, vuln = k->vuln, armour = k->armour;
    }
    gear_t s;
    item_gear(g, vh, false, &s);
    armour += s.absorb;
    if (immune & bit)
        return 0;
    if (resist & bit)
        dmg /= 2;
    if (vuln & bit)
        dmg += dmg / 2;
    if (e->dtype == DT_HIT && armour > 0)
        dmg -= (int)rng_range(&g->play, 0, armour);
    return dmg > 0 ? dmg : 0;
}

/* A draining creature's blow (not its spells or wands) that wounded the
 * player: Fort against 10 + half its level, or an ability point goes. */
static void drain_blow(game_t *g, const ev_info_t *e)
{
    const obj_t *a = reg_get(&g->reg, e->actor);
    if (!is_player(g, e->victim) || !a || is_player(g, e->actor) || a->type != OBJ_CREATURE)
        return;
    const creature_kind_t *k = world_ckind(g, a);
    if (!k->drain || (e->flags & EVF_SPELL) || e->dtype != k->dtype)
        return;
    pc_drain(g, k->drain - 1, 10 + k->level / 2);
}

int combat_damage(game_t *g, ev_info_t *e, obj_t *v)
{
    handle_t vh = e->victim;
    int dmg = mitigate(g, vh, v, e);
    if (dmg == 0 && e->amount[0] > 0) {
        world_say(g,
                  e->dtype == DT_HIT ? "<Victim> shrug<s:Victim> off the blow."
                                     : "<Victim> <is:Victim> unharmed.",
                  HANDLE_NONE, vh);
        return EV_DONE;
    }
    v = reg_get(&g->reg, vh);
    if (!v)
        return EV_DONE;
    v->hp -= dmg;
    if (v->hp > 0) {
        drain_blow(g, e);
        return EV_DONE;
    }
    ev_info_t d = {.type = EV_DEATH, .actor = e->actor, .victim = vh, .map = -1, .dtype = e->dtype};
    event_throw(g, &d);
    return EV_DONE;
}

void combat_cause(game_t *g, handle_t killer, char *out, size_t n)
{
    const obj_t *k = reg_get(&g->reg, killer);
    if (!k || killer == g->player) {
        snprintf(out, n, "died of poison on level %d", g->depth);
        return;
    }
    const creature_kind_t *ck = world_ckind(g, k);
    const char *art = (ck->flags & CF_PROPER) ? "" : (ck->flags & CF_UNIQUE) ? "the " : NULL;
    if (!art)
        snprintf(out, n, "killed by %s %s on level %d", gram_article(ck->name), ck->name, g->depth);
    else
        snprintf(out, n, "killed by %s%s on level %d", art, ck->name, g->depth);
}

static void monster_died(game_t *g, handle_t victim, handle_t killer)
{
    obj_t *v = reg_get(&g->reg, victim);
    const creature_kind_t *k = world_ckind(g, v);
    world_say(g, "<Actor> die<s:Actor>.", victim, HANDLE_NONE);
    if (is_player(g, killer)) {
        g->pc.kills++;
        int u = unique_index(g->c, v->kind);
        if (u >= 0) {
            g->pc.uniques_killed |= 1ull << u;
            world_milestone(g, "unique.killed", "killed %s", k->name);
        }
        if (k->flags & CF_WARDEN) {
            g->pc.heartstone = 1;
            world_msg(g, "You pry the Heartstone from the warden's chest. Now climb out!");
            world_milestone(g, "artifact", "took the Heartstone");
        }
        pc_gain_xp(g, 5 * k->level * k->level + 5);
    }
    itemuse_drop_all(g, victim);
    status_forget(g, victim);
    effect_clear(g, victim);
    sched_cancel(&g->sched, victim);
    reg_del(&g->reg, victim);
}

void combat_death(game_t *g, handle_t victim, handle_t killer)
{
    obj_t *v = reg_get(&g->reg, victim);
    if (!v)
        return;
    if (!is_player(g, victim)) {
        monster_died(g, victim, killer);
        return;
    }
    v->hp = 0;
    if (killer || !g->cause[0])
        combat_cause(g, killer, g->cause, sizeof g->cause); /* starving sets its own */
    world_msg(g, "You die...");
    g->state = GAME_DEAD;
    g->score = end_score(g);
    world_milestone(g, "end", "%s", g->cause);
}

/* Uniques coming into view for the first time are milestones. */
bool combat_unique_seen(game_t *g)
{
    bool any = false;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != g->depth)
            continue;
        int u = unique_index(g->c, o->kind);
        if (u < 0 || (g->pc.uniques_seen >> u & 1) || !world_sees(g, h))
            continue;
        g->pc.uniques_seen |= 1ull << u;
        world_say(g, "You notice <a:actor>, and <he:actor> notice<s:actor> you.", h, HANDLE_NONE);
        world_milestone(g, "unique.seen", "noticed %s", world_ckind(g, o)->name);
        any = true;
    }
    return any;
}

/* The nearest creature the player sees, for bolts; HANDLE_NONE if none. */
static handle_t nearest_foe(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    handle_t best = HANDLE_NONE;
    int bestd = 1 << 30;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && p; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || !world_sees(g, h))
            continue;
        int dx = o->x - p->x, dy = o->y - p->y, d = dx * dx + dy * dy;
        if (d < bestd)
            bestd = d, best = h;
    }
    return best;
}

int combat_cast(game_t *g, int spell)
{
    if (spell < 0 || spell >= SPELL_COUNT || !(g->pc.spells & (1u << spell)))
        return 0;
    const spell_info_t *s = &RULES_SPELLS[spell];
    if (g->pc.mana < s->mana) {
        world_msg(g, "You need %d mana to cast %s.", s->mana, s->name);
        return 0;
    }
    dice_t d;
    dice_parse(s->dice, &d);
    d.n = d.n + (int16_t)(g->pc.xl / 4);
    obj_t *p = reg_get(&g->reg, g->player);
    if (s->dtype == DT_NONE) {
        g->pc.mana = (int16_t)(g->pc.mana - s->mana);
        int heal = dice_roll(&d, &g->play);
        p->hp = p->hp + heal > p->hp_max ? p->hp_max : p->hp + heal;
        world_msg(g, "You cast %s and feel better.", s->name);
        return SCHED_MOVE;
    }
    handle_t t = nearest_foe(g);
    if (!t) {
        world_msg(g, "You see nothing to cast %s at.", s->name);
        return 0;
    }
    g->pc.mana = (int16_t)(g->pc.mana - s->mana);
    char tmpl[96];
    snprintf(tmpl, sizeof tmpl, "<Actor> cast<s:Actor> %s at <victim>.", s->name);
    world_say(g, tmpl, g->player, t);
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
