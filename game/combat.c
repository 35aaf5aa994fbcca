/* combat — the attack chain's rules: d20 + attack bonus against defence
 * (a natural 20 always hits and, confirmed, crits; a natural 1 misses),
 * damage dice, sneak attacks by rogues on unaware foes, damage types and
 * resistances, armour absorbing blows, death, experience and uniques. */
#include "combat.h"
#include <stdio.h>
#include "creature.h"
#include "effect.h"
#include "end.h"
#include "itemuse.h"
#include "msg.h"
#include "pc.h"
#include "status.h"
#include "vision.h"

static bool is_player(const game_t *g, handle_t h)
{
    return h != HANDLE_NONE && h == g->player;
}

/* Equipment and timed effects add to everyone's figures (status.h). */
static int attack_bonus(const game_t *g, handle_t h, const obj_t *o)
{
    gear_t s;
    status_stats(g, h, false, &s);
    return (is_player(g, h) ? pc_attack_bonus(g) : creature_kind(g, o)->to_hit) + s.to_hit;
}

static int defence(const game_t *g, handle_t h, const obj_t *o)
{
    gear_t s;
    status_stats(g, h, false, &s);
    return (is_player(g, h) ? pc_defence(g) : 10 + creature_kind(g, o)->defence) + s.defence;
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
        creature_say(g, "<Actor> land<s:Actor> a crushing blow on <victim>!", a, v);
        return;
    }
    if (is_player(g, a)) {
        creature_say(
            g, PLAYER_HITS[rng_below(&g->cosmetic, sizeof PLAYER_HITS / sizeof PLAYER_HITS[0])], a,
            v);
        return;
    }
    const obj_t *o = reg_get(&g->reg, a);
    snprintf(tmpl, sizeof tmpl, "<Actor> %s <victim>.",
             o ? creature_kind(g, o)->hits : "hit<s:Actor>");
    creature_say(g, tmpl, a, v);
}

/* Damage dice of the attacker (player: the wielded weapon, else the
 * class's, and Str), with what equipment and effects add. */
static int roll_damage(game_t *g, handle_t h, const obj_t *o)
{
    gear_t s;
    status_stats(g, h, false, &s);
    if (!is_player(g, h))
        return dice_roll(s.armed ? &s.dmg : &creature_kind(g, o)->attack, &g->play) + s.damage;
    const class_kind_t *k = g->pc.cls < g->c->n_classes ? &g->c->classes[g->pc.cls] : NULL;
    dice_t w = s.armed ? s.dmg : k ? k->weapon : (dice_t){1, 4, 0};
    return dice_roll(&w, &g->play) + pc_mod(g->pc.ab[AB_STR]) + s.damage;
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
        creature_say(g, "<Actor> miss<es:Actor> <victim>.", e->actor, e->victim);
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
        creature_say(g, "<Actor> strike<s:Actor> <victim> unawares!", e->actor, e->victim);
    }
    ev_info_t hit = {.type = EV_HIT, .actor = e->actor, .victim = e->victim, .map = -1};
    hit.dtype = is_player(g, e->actor) ? DT_HIT : creature_kind(g, a)->dtype;
    hit.amount[0] = dmg > 1 ? dmg : 1;
    hit.amount[1] = crit;
    if (!crit || !vision_sees(g, e->victim))
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
        const creature_kind_t *k = creature_kind(g, v);
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
    const creature_kind_t *k = creature_kind(g, a);
    if (!k->drain || (e->flags & EVF_SPELL) || e->dtype != k->dtype)
        return;
    pc_drain(g, k->drain - 1, 10 + k->level / 2);
}

int combat_damage(game_t *g, ev_info_t *e, obj_t *v)
{
    handle_t vh = e->victim;
    int dmg = mitigate(g, vh, v, e);
    if (dmg == 0 && e->amount[0] > 0) {
        creature_say(g,
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
    const creature_kind_t *ck = creature_kind(g, k);
    const char *art = (ck->flags & CF_PROPER) ? "" : (ck->flags & CF_UNIQUE) ? "the " : NULL;
    if (!art)
        snprintf(out, n, "killed by %s %s on level %d", gram_article(ck->name), ck->name, g->depth);
    else
        snprintf(out, n, "killed by %s%s on level %d", art, ck->name, g->depth);
}

static void monster_died(game_t *g, handle_t victim, handle_t killer)
{
    obj_t *v = reg_get(&g->reg, victim);
    const creature_kind_t *k = creature_kind(g, v);
    creature_say(g, "<Actor> die<s:Actor>.", victim, HANDLE_NONE);
    if (is_player(g, killer)) {
        g->pc.kills++;
        int u = creature_unique_index(g->c, v->kind);
        if (u >= 0) {
            g->pc.uniques_killed |= 1ull << u;
            msg_milestone(g, "unique.killed", "killed %s", k->name);
        }
        if (k->flags & CF_WARDEN) {
            g->pc.heartstone = 1;
            msg_add(g, "You pry the Heartstone from the warden's chest. Now climb out!");
            msg_milestone(g, "artifact", "took the Heartstone");
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
    msg_add(g, "You die...");
    g->state = GAME_DEAD;
    g->score = end_score(g);
    msg_milestone(g, "end", "%s", g->cause);
}

/* Uniques coming into view for the first time are milestones. */
bool combat_unique_seen(game_t *g)
{
    bool any = false;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != g->depth)
            continue;
        int u = creature_unique_index(g->c, o->kind);
        if (u < 0 || (g->pc.uniques_seen >> u & 1) || !vision_sees(g, h))
            continue;
        g->pc.uniques_seen |= 1ull << u;
        creature_say(g, "You notice <a:actor>, and <he:actor> notice<s:actor> you.", h,
                     HANDLE_NONE);
        msg_milestone(g, "unique.seen", "noticed %s", creature_kind(g, o)->name);
        any = true;
    }
    return any;
}
