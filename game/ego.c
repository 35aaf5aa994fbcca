/* ego — runic properties and artifacts (see ego.h). */
#include "ego.h"
#include <stdio.h>
#include "creature.h"
#include "status.h"

int ego_of(const game_t *g, const obj_t *it)
{
    if (!it || it->type != OBJ_ITEM || it->kind >= g->c->n_items)
        return -1;
    int e = it->a[1] ? it->a[1] - 1 : g->c->items[it->kind].ego - 1;
    return e >= 0 && e < g->c->n_egos ? e : -1;
}

int ego_chance(int depth)
{
    int p = 3 + depth;
    return p < EGO_CHANCE_MAX ? p : EGO_CHANCE_MAX;
}

/* An ego kind for an item of class cls at depth, by weight; -1 none. */
static int pick_ego(const content_t *c, int cls, int depth, rng_t *r)
{
    int total = 0;
    for (int i = 0; i < c->n_egos; i++)
        if ((c->egos[i].classes >> cls & 1) && c->egos[i].min_depth <= depth)
            total += c->egos[i].freq;
    int roll = total > 0 ? (int)rng_below(r, (uint32_t)total) : -1;
    for (int i = 0; roll >= 0 && i < c->n_egos; i++)
        if ((c->egos[i].classes >> cls & 1) && c->egos[i].min_depth <= depth &&
            (roll -= c->egos[i].freq) < 0)
            return i;
    return -1;
}

int ego_roll(game_t *g, handle_t h, int depth, rng_t *r)
{
    obj_t *o = reg_get(&g->reg, h);
    if (!o || o->type != OBJ_ITEM || o->kind >= g->c->n_items)
        return -1;
    const item_kind_t *k = &g->c->items[o->kind];
    if ((k->flags & (IKF_ARTIFACT | IKF_UNIQUE | IKF_STACK)) || k->slot == SLOT_NONE ||
        !rng_percent(r, (uint32_t)ego_chance(depth)))
        return -1;
    int e = pick_ego(g->c, k->cls, depth, r);
    if (e < 0)
        return -1;
    o->a[1] = e + 1;
    if (!(k->flags & IKF_CURSED)) {
        o->flags &= (uint8_t)~IF_CURSED;
        o->hp = o->hp < 0 ? -o->hp : o->hp;
    }
    return e;
}

void ego_gear(const game_t *g, const obj_t *it, bool known_only, gear_t *out)
{
    int e = ego_of(g, it);
    bool known =
        !known_only || (it->flags & IF_KNOWN) || (g->c->items[it->kind].flags & IKF_ARTIFACT);
    if (e < 0 || !known)
        return;
    const ego_kind_t *ek = &g->c->egos[e];
    out->to_hit += ek->to_hit;
    out->damage += ek->damage;
    out->defence += ek->defence;
    out->speed += ek->speed;
    out->stealth += ek->stealth;
    out->resist |= ek->resist;
}

/* The ego of who's wielded weapon; -1 none. */
static int weapon_ego(const game_t *g, handle_t who)
{
    for (handle_t h = reg_next_held(&g->reg, who, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, who, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && o->target == who && (o->flags & IF_EQUIPPED) &&
            o->kind < g->c->n_items && g->c->items[o->kind].slot == SLOT_WEAPON)
            return ego_of(g, o);
    }
    return -1;
}

/* A brand's damage on victim after its immunity, resistance or weakness. */
static int branded(game_t *g, handle_t victim, const obj_t *v, const ego_kind_t *ek)
{
    uint16_t bit = (uint16_t)(1u << ek->brand), resist = 0, immune = 0, vuln = 0;
    if (victim == g->player) {
        resist = g->pc.race < g->c->n_races ? g->c->races[g->pc.race].resist : 0;
    } else {
        const creature_kind_t *k = creature_kind(g, v);
        resist = k->resist, immune = k->immune, vuln = k->vuln;
    }
    gear_t s;
    item_gear(g, victim, false, &s);
    int dmg = dice_roll(&ek->brand_dice, &g->play);
    if (immune & bit)
        return 0;
    if ((resist | s.resist) & bit)
        dmg /= 2;
    if (vuln & bit)
        dmg += dmg / 2;
    return dmg;
}

int ego_blow_damage(game_t *g, handle_t attacker, handle_t victim)
{
    const obj_t *v = reg_get(&g->reg, victim);
    int e = v && v->type == OBJ_CREATURE ? weapon_ego(g, attacker) : -1;
    if (e < 0)
        return 0;
    const ego_kind_t *ek = &g->c->egos[e];
    int dmg = ek->brand != DT_NONE && ek->brand < DT_COUNT ? branded(g, victim, v, ek) : 0;
    if (ek->slays && victim != g->player && (creature_kind(g, v)->flags & ek->slays))
        dmg += dice_roll(&ek->slay_dice, &g->play);
    return dmg;
}

int ego_artifact_index(const content_t *c, uint16_t kind)
{
    if (kind >= c->n_items || !(c->items[kind].flags & IKF_ARTIFACT))
        return -1;
    int n = 0;
    for (uint16_t i = 0; i < kind; i++)
        n += (c->items[i].flags & IKF_ARTIFACT) != 0;
    return n < 64 ? n : -1;
}

bool ego_artifact_made(const game_t *g, uint16_t kind)
{
    int a = ego_artifact_index(g->c, kind);
    return a >= 0 && (g->pc.artifacts_made >> a & 1);
}

void ego_resist_words(const game_t *g, bool known_only, char *out, size_t n)
{
    static const char *const WORDS[DT_COUNT] = {
        [DT_HIT] = "blows",  [DT_POISON] = "poison",       [DT_FIRE] = "fire",
        [DT_COLD] = "cold",  [DT_LIGHTNING] = "lightning", [DT_ACID] = "acid",
        [DT_MAGIC] = "magic"};
    gear_t k;
    status_stats(g, g->player, known_only, &k);
    uint16_t bits = k.resist | (g->pc.race < g->c->n_races ? g->c->races[g->pc.race].resist : 0);
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < DT_COUNT && len < n; i++)
        if ((bits >> i & 1) && WORDS[i])
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", WORDS[i]);
}
