/* combat — the attack chain's rules: d20 + attack bonus against defence
 * (a natural 20 always hits and, confirmed, crits; a natural 1 misses),
 * damage dice, sneak attacks on unaware foes (rogues' great ones), saving
 * throws, damage types and resistances, armour absorbing blows, wounds
 * told, death, experience, the Heartstone and uniques. */
#include "combat.h"
#include <stdio.h>
#include "ability.h"
#include "creature.h"
#include "ego.h"
#include "effect.h"
#include "end.h"
#include "escape.h"
#include "itemuse.h"
#include "msg.h"
#include "pc.h"
#include "shop.h"
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

/* The player's blows read differently each time (cosmetic stream), in
 * words that fit what strikes: an edge slashes, a point stabs, a mace
 * bashes, a fist punches (never "slash" with a mace). As many of each. */
enum { HITS_EACH = 5 };
enum { BLOW_EDGE, BLOW_POINT, BLOW_BLUNT, BLOW_FIST, BLOW_OTHER, BLOWS };
static const char *const PLAYER_HITS[BLOWS][HITS_EACH] = {
    [BLOW_EDGE] = {"<Actor> hit<s:Actor> <victim>.",
                   "<Actor> swing<s:Actor> low, hitting <victim>.",
                   "<Actor> strike<s:Actor> <victim>.",
                   "<Actor> slash<es:Actor> at <victim> and connect<s:Actor>.",
                   "<Actor> catch<es:Actor> <victim> with a quick blow."},
    [BLOW_POINT] = {"<Actor> hit<s:Actor> <victim>.", "<Actor> stab<s:Actor> <victim>.",
                    "<Actor> strike<s:Actor> <victim>.",
                    "<Actor> thrust<s:Actor> at <victim> and connect<s:Actor>.",
                    "<Actor> catch<es:Actor> <victim> with a quick blow."},
    [BLOW_BLUNT] = {"<Actor> hit<s:Actor> <victim>.",
                    "<Actor> swing<s:Actor> low, hitting <victim>.",
                    "<Actor> strike<s:Actor> <victim>.", "<Actor> bash<es:Actor> <victim>.",
                    "<Actor> catch<es:Actor> <victim> with a quick blow."},
    [BLOW_FIST] = {"<Actor> hit<s:Actor> <victim>.", "<Actor> punch<es:Actor> <victim>.",
                   "<Actor> strike<s:Actor> <victim>.", "<Actor> land<s:Actor> a jab on <victim>.",
                   "<Actor> catch<es:Actor> <victim> with a quick blow."},
    [BLOW_OTHER] = {"<Actor> hit<s:Actor> <victim>.",
                    "<Actor> swing<s:Actor> low, hitting <victim>.",
                    "<Actor> strike<s:Actor> <victim>.",
                    "<Actor> land<s:Actor> a blow on <victim>.",
                    "<Actor> catch<es:Actor> <victim> with a quick blow."},
};

/* Which words the player's blow takes: by the wielded weapon's kind. */
static int player_blow(const game_t *g, handle_t a)
{
    gear_t s;
    status_stats(g, a, false, &s);
    if (!s.armed)
        return BLOW_FIST;
    return s.dtype == IDT_SLASH    ? BLOW_EDGE
           : s.dtype == IDT_PIERCE ? BLOW_POINT
           : s.dtype == IDT_BLUNT  ? BLOW_BLUNT
                                   : BLOW_OTHER;
}

/* What a missile's hit, strong hit or miss reads: the thing thrown or
 * shot ("The arrow hits the kobold."), or a monster's shot. */
enum { SAY_HIT, SAY_CRIT, SAY_MISS };
static const char *const MISSILE_SAYS[3][2] = {
    [SAY_HIT] = {"<The:obj> hit<s:obj> <victim>.", "<Poss:Actor> shot hits <victim>."},
    [SAY_CRIT] = {"<The:obj> strike<s:obj> <victim> squarely!",
                  "<Poss:Actor> shot strikes <victim> squarely!"},
    [SAY_MISS] = {"<The:obj> miss<es:obj> <victim>.", "<Poss:Actor> shot misses <victim>."},
};

/* A blow's words by its kind: a missile's are its own; the player's
 * blows vary, a monster's are its kind's. */
static void hit_message(game_t *g, const ev_info_t *e, int say)
{
    handle_t a = e->actor, v = e->victim;
    char tmpl[96];
    if (e->flags & EVF_MISSILE) {
        item_tell(g, MISSILE_SAYS[say][e->item ? 0 : 1], a, e->item, v);
        return;
    }
    if (say == SAY_MISS) {
        creature_say(g, "<Actor> miss<es:Actor> <victim>.", a, v);
    } else if (say == SAY_CRIT) {
        creature_say(g, "<Actor> land<s:Actor> a crushing blow on <victim>!", a, v);
    } else if (is_player(g, a)) {
        const char *const *says = PLAYER_HITS[player_blow(g, a)];
        creature_say(g, says[rng_below(&g->cosmetic, HITS_EACH)], a, v);
    } else {
        const obj_t *o = reg_get(&g->reg, a);
        snprintf(tmpl, sizeof tmpl, "<Actor> %s <victim>.",
                 o ? creature_kind(g, o)->hits : "hit<s:Actor>");
        creature_say(g, tmpl, a, v);
    }
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

/* Extra damage on a foe that had not noticed its attacker: the class's
 * great sneak attack (rogues: a d6 for every two levels), a small one for
 * everyone else. */
static int sneak_damage(game_t *g, handle_t a)
{
    if (!is_player(g, a))
        return 0;
    dice_t d =
        pc_class(g)->sneak ? (dice_t){(int16_t)((g->pc.xl + 1) / 2 + 1), 6, 0} : (dice_t){1, 4, 0};
    return dice_roll(&d, &g->play);
}

/* The fighter's power attack (power.h): blows trade aim for weight. */
#define POWER_TO_HIT (-2)
static int power_damage(const game_t *g)
{
    return 2 + g->pc.xl / 4;
}

/* A blow's or a missile's damage (EVF_MISSILE: rolled by its sender). */
static int blow_damage(game_t *g, const ev_info_t *e, const obj_t *a)
{
    if (e->flags & EVF_MISSILE)
        return e->amount[1];
    int dmg = roll_damage(g, e->actor, a);
    if (is_player(g, e->actor) && g->pc.power_attack)
        dmg += power_damage(g);
    return dmg;
}

static int attack_modifier(const game_t *g, const ev_info_t *e)
{
    if (e->flags & EVF_MISSILE)
        return e->amount[0];
    return is_player(g, e->actor) && g->pc.power_attack ? POWER_TO_HIT : 0;
}

int combat_attack(game_t *g, ev_info_t *e)
{
    obj_t *a = reg_get(&g->reg, e->actor), *v = reg_get(&g->reg, e->victim);
    if (!a || !v)
        return EV_DONE;
    bool unaware = !is_player(g, e->victim) && !(v->flags & OF_AWARE);
    int bonus = attack_bonus(g, e->actor, a) + (unaware ? 4 : 0) + attack_modifier(g, e),
        def = defence(g, e->victim, v);
    int roll = (int)rng_range(&g->play, 1, 20);
    creature_disturb(g, e->victim);
    if (roll == 1 || (roll != 20 && roll + bonus < def)) {
        hit_message(g, e, SAY_MISS);
        return EV_DONE;
    }
    e->amount[2] = 1;
    bool crit = roll == 20 && (int)rng_range(&g->play, 1, 20) + bonus >= def;
    int dmg = blow_damage(g, e, a);
    if (crit)
        dmg += blow_damage(g, e, a);
    if (!(e->flags & EVF_MISSILE))
        dmg += ego_blow_damage(g, e->actor, e->victim); /* the weapon's brands and slaying */
    if (unaware && is_player(g, e->actor)) {
        dmg += sneak_damage(g, e->actor);
        creature_say(g, "<Actor> catch<es:Actor> <victim> unawares!", e->actor, e->victim);
    }
    ev_info_t hit = {.type = EV_HIT, .actor = e->actor, .victim = e->victim, .map = -1};
    hit.dtype = (e->flags & EVF_MISSILE) ? e->dtype
                : is_player(g, e->actor) ? DT_HIT
                                         : creature_kind(g, a)->dtype;
    hit.flags = e->flags & EVF_MISSILE;
    hit.amount[0] = dmg > 1 ? dmg : 1;
    hit.amount[1] = crit;
    hit_message(g, e, crit && vision_sees(g, e->victim) ? SAY_CRIT : SAY_HIT);
    event_throw(g, &hit);
    return EV_DONE;
}

/* ---- saving throws ---------------------------------------------------------- */

/* Abilities that steel a save against a condition: Cha against fear. */
static const struct {
    unsigned efk;
    int ab;
} STEELED_BY[] = {{EFK_(AFRAID), AB_CHA}};

static int save_bonus(const game_t *g, handle_t who, int save, unsigned efk)
{
    const obj_t *o = reg_get(&g->reg, who);
    if (!is_player(g, who))
        return o ? (creature_kind(g, o)->level + 1) / 2 : 0;
    int bonus = pc_save(g, save);
    for (size_t i = 0; i < sizeof STEELED_BY / sizeof STEELED_BY[0]; i++)
        if (efk & STEELED_BY[i].efk)
            bonus += pc_mod(g->pc.ab[STEELED_BY[i].ab]);
    return bonus;
}

bool combat_save(game_t *g, handle_t who, int save, int dc, unsigned efk)
{
    return (int)rng_range(&g->play, 1, 20) + save_bonus(g, who, save, efk) >= dc;
}

int combat_dc(const game_t *g, handle_t actor)
{
    const obj_t *o = reg_get(&g->reg, actor);
    if (!o)
        return 10;
    if (!is_player(g, actor))
        return 10 + creature_kind(g, o)->level / 2;
    int mind = g->pc.ab[AB_INT] > g->pc.ab[AB_WIS] ? g->pc.ab[AB_INT] : g->pc.ab[AB_WIS];
    return 10 + g->pc.xl / 2 + pc_mod(mind);
}

/* Damage types a Ref save halves when a bolt or a breath brings them:
 * the elements (magic never misses). */
static const bool DODGED[DT_COUNT] = {
    [DT_FIRE] = true, [DT_COLD] = true, [DT_LIGHTNING] = true, [DT_ACID] = true};

/* A bolt's or a breath's damage after the victim's Ref save. */
static int dodge(game_t *g, const ev_info_t *e)
{
    int dmg = e->amount[0];
    if (!(e->flags & (EVF_SPELL | EVF_BREATH)) || e->dtype >= DT_COUNT || !DODGED[e->dtype] ||
        dmg < 2 || !combat_save(g, e->victim, SAVE_REF, combat_dc(g, e->actor), 0))
        return dmg;
    creature_say(g, "<Victim> dodge<s:Victim> part of it.", HANDLE_NONE, e->victim);
    return dmg / 2;
}

/* What vh resists, is immune and vulnerable to (DT_* bits), and its
 * armour: its race or kind, and its gear (rings, runic armour). */
typedef struct {
    uint16_t resist, immune, vuln;
    int armour;
} guard_t;

static guard_t guard_of(game_t *g, handle_t vh, const obj_t *v)
{
    guard_t d = {0};
    if (is_player(g, vh)) {
        d.resist = g->pc.race < g->c->n_races ? g->c->races[g->pc.race].resist : 0;
        d.armour = pc_armour(g);
    } else {
        const creature_kind_t *k = creature_kind(g, v);
        d.resist = k->resist, d.immune = k->immune, d.vuln = k->vuln, d.armour = k->armour;
    }
    gear_t s;
    item_gear(g, vh, false, &s);
    d.armour += s.absorb;
    d.resist |= s.resist;
    return d;
}

int combat_resistance(game_t *g, handle_t h, int dtype)
{
    const obj_t *o = reg_get(&g->reg, h);
    if (!o || dtype < 0 || dtype >= DT_COUNT)
        return 0;
    guard_t d = guard_of(g, h, o);
    uint16_t bit = (uint16_t)(1u << dtype);
    return d.immune & bit ? 2 : d.resist & bit ? 1 : 0;
}

/* Resistances and armour of the victim for one blow. */
static int mitigate(game_t *g, handle_t vh, const obj_t *v, const ev_info_t *e)
{
    int dmg = dodge(g, e);
    v = reg_get(&g->reg, vh);
    uint16_t bit = (uint16_t)(1u << (e->dtype < DT_COUNT ? e->dtype : 0));
    guard_t d = guard_of(g, vh, v);
    if (d.immune & bit)
        return 0;
    if (d.resist & bit)
        dmg /= 2;
    if (d.vuln & bit)
        dmg += dmg / 2;
    if (e->dtype == DT_HIT && d.armour > 0)
        dmg -= (int)rng_range(&g->play, 0, d.armour);
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
    if (!k->drain || (e->flags & (EVF_SPELL | EVF_MISSILE)) || e->dtype != k->dtype)
        return;
    pc_drain(g, k->drain - 1, 10 + k->level / 2);
}

/* How hurt a creature looks, from its share of hit points left. */
static const struct {
    int pct; /* this share or more */
    const char *looks;
} WOUNDS[] = {{100, "unhurt"}, {90, "barely scratched"}, {60, "lightly wounded"},
              {35, "wounded"}, {15, "badly wounded"},    {0, "almost dead"}};

const char *combat_wound_word(const obj_t *o)
{
    int pct = o->hp_max > 0 ? (int)((int64_t)o->hp * 100 / o->hp_max) : 0;
    size_t i = 0;
    while (i + 1 < sizeof WOUNDS / sizeof WOUNDS[0] && pct < WOUNDS[i].pct)
        i++;
    return WOUNDS[i].looks;
}

/* What a wound looks like: a monster the player hurt and sees ("The orc
 * is badly wounded."); what a bolt or a breath did to the player. */
static void tell_wound(game_t *g, const ev_info_t *e, int dmg)
{
    const obj_t *v = reg_get(&g->reg, e->victim);
    char tmpl[64];
    if (is_player(g, e->victim) && (e->flags & (EVF_SPELL | EVF_BREATH))) {
        msg_add(g, "You take %d damage.", dmg);
    } else if (v && is_player(g, e->actor) && !is_player(g, e->victim)) {
        snprintf(tmpl, sizeof tmpl, "<Victim> <is:Victim> %s.", combat_wound_word(v));
        creature_say(g, tmpl, HANDLE_NONE, e->victim);
    }
}

int combat_damage(game_t *g, ev_info_t *e, obj_t *v)
{
    handle_t vh = e->victim;
    int dmg = mitigate(g, vh, v, e);
    if (dmg == 0 && e->amount[0] > 0 && (e->flags & EVF_TICK)) /* said when it began */
        return EV_DONE;
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
    if (e->actor && is_player(g, e->actor))
        shop_provoke(g, vh); /* a keeper hurt by the player trades no more */
    v = reg_get(&g->reg, vh);
    v->hp -= dmg;
    e->dealt = dmg; /* for the POST phase's handlers (a thief's hand in the purse) */
    if (v->hp > 0) {
        drain_blow(g, e);
        creature_disturb(g, vh);
        tell_wound(g, e, dmg);
        return EV_DONE;
    }
    ev_info_t d = {.type = EV_DEATH, .actor = e->actor, .victim = vh, .map = -1, .dtype = e->dtype};
    event_throw(g, &d);
    return EV_DONE;
}

/* "killed by a kobold on level 3" for the player's death by killer: its
 * name as the grammar gives it, seen or not ("killed by Skarg the Kobold
 * King", "killed by a kobold"). */
static void combat_cause(game_t *g, handle_t killer, char *out, size_t n)
{
    const obj_t *k = reg_get(&g->reg, killer);
    char where[64];
    atlas_where(g, where, sizeof where);
    if (!k || killer == g->player) {
        snprintf(out, n, "died of poison %s", where);
        return;
    }
    gram_arg_t a = {"actor", creature_noun(g, killer)};
    a.noun.flags |= GRAM_PERCEIVED;
    char who[96];
    gram_phrase(who, sizeof who, "<a:actor>", &a, 1);
    if (snprintf(out, n, "killed by %s %s", who, where) >= (int)n)
        out[n - 1] = '\0'; /* a long cause is cut, as the record's column is */
}

/* Only the warden, on the bottom level, dying by the player's hand (or
 * poison, anyone's) gives up the Heartstone. */
static void heartstone(game_t *g, const obj_t *v, handle_t killer)
{
    if (!(creature_kind(g, v)->flags & CF_WARDEN) || v->depth != WORLD_MAX_DEPTH ||
        (killer && !is_player(g, killer)) || g->pc.heartstone)
        return;
    g->pc.heartstone = 1;
    msg_add(g, "You pry the Heartstone from the warden's chest. Now climb out!");
    msg_milestone(g, "artifact", "took the Heartstone");
    escape_wake(g);
}

static void monster_died(game_t *g, handle_t victim, handle_t killer)
{
    obj_t *v = reg_get(&g->reg, victim);
    const creature_kind_t *k = creature_kind(g, v);
    creature_say(g, "<Actor> die<s:Actor>.", victim, HANDLE_NONE);
    heartstone(g, v, killer);
    if (is_player(g, killer)) {
        g->pc.kills++;
        int u = creature_unique_index(g->c, v->kind);
        if (u >= 0) {
            g->pc.uniques_killed |= 1ull << u;
            msg_milestone(g, "unique.killed", "killed %s", k->name);
        }
        pc_gain_xp(g, 5 * k->level * k->level + 5);
    }
    itemuse_drop_all(g, victim);
    creature_remove(g, victim);
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
/* Whether a unique may be about that the player has not seen: one made
 * (uniques_made; creature_spawn's uniques_held) or held by the registry
 * when first looked at (a save's creature, whose kind may have become
 * unique since: snapkinds), not yet seen. */
static bool unique_unseen(game_t *g)
{
    if (!g->uniques_looked) {
        g->uniques_looked = 1;
        for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
            const obj_t *o = reg_get(&g->reg, h);
            int u = o->type == OBJ_CREATURE ? creature_unique_index(g->c, o->kind) : -1;
            g->uniques_held |= u >= 0 ? 1ull << u : 0;
        }
    }
    return ((g->pc.uniques_made | g->uniques_held) & ~g->pc.uniques_seen) != 0;
}

bool combat_unique_seen(game_t *g)
{
    bool any = false;
    if (!unique_unseen(g))
        return false; /* the walk of every creature on the level, saved on most keys */
    for (handle_t h = reg_next_near(&g->reg, g->depth, HANDLE_NONE); h;
         h = reg_next_near(&g->reg, g->depth, h)) {
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
