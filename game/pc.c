/* pc — the character's numbers (see pc.h). */
#include "pc.h"
#include "chargen.h"
#include "item.h"
#include "msg.h"
#include "prompt.h"
#include "status.h"
#include "world.h"

int pc_mod(int score)
{
    return score >= 10 ? (score - 10) / 2 : -((11 - score) / 2);
}

const char *pc_race_name(const game_t *g)
{
    return g->pc.created && g->pc.race < g->c->n_races ? g->c->races[g->pc.race].name : "";
}

const char *pc_class_name(const game_t *g)
{
    return g->pc.created && g->pc.cls < g->c->n_classes ? g->c->classes[g->pc.cls].name : "";
}

const race_kind_t *pc_race(const game_t *g)
{
    static const race_kind_t NONE = {.name = ""};
    return g->pc.race < g->c->n_races ? &g->c->races[g->pc.race] : &NONE;
}

const class_kind_t *pc_class(const game_t *g)
{
    static const class_kind_t NONE = {.hit_die = 8,
                                      .bab = 75,
                                      .weapon = {1, 4, 0},
                                      .weapon_name = "fists",
                                      .armour_name = "clothes"};
    return g->pc.cls < g->c->n_classes ? &g->c->classes[g->pc.cls] : &NONE;
}

int pc_attack_bonus(const game_t *g)
{
    int bab = pc_class(g)->bab * g->pc.xl / 100, str = pc_mod(g->pc.ab[AB_STR]),
        dex = pc_mod(g->pc.ab[AB_DEX]);
    int aim = pc_class(g)->finesse && dex > str ? dex : str;
    return (bab > 0 ? bab : 1) + aim + pc_race(g)->to_hit + g->pc.pick_hit;
}

/* The class's armour figure stands for its armour only when the class has
 * no kit; a class with a kit wears real armour, which counts as gear
 * (status_stats), so the class figure would count it twice. */
static int class_armour(const game_t *g)
{
    const class_kind_t *k = pc_class(g);
    return k->kit[0][0] ? 0 : k->armour;
}

int pc_defence(const game_t *g)
{
    int dodge = pc_class(g)->dodge ? g->pc.xl / pc_class(g)->dodge : 0;
    return 10 + pc_mod(g->pc.ab[AB_DEX]) + class_armour(g) + pc_race(g)->defence + g->pc.pick_def +
           dodge;
}

int pc_armour(const game_t *g)
{
    return class_armour(g) / 2;
}

bool pc_drain(game_t *g, int ab, int dc)
{
    static const char *const WORDS[AB_COUNT] = ABILITY_WORDS;
    if (ab < 0 || ab >= AB_COUNT || g->pc.ab[ab] <= 3)
        return false;
    if ((int)rng_range(&g->play, 1, 20) + pc_save(g, SAVE_FORT) >= dc)
        return false;
    g->pc.ab[ab]--;
    g->pc.drain[ab]++;
    msg_add(g, "You feel your %s drain away!", WORDS[ab]);
    return true;
}

bool pc_restore(game_t *g)
{
    bool any = false;
    for (int i = 0; i < AB_COUNT; i++) {
        any |= g->pc.drain[i] > 0;
        g->pc.ab[i] = (int8_t)(g->pc.ab[i] + g->pc.drain[i]);
        g->pc.drain[i] = 0;
    }
    return any;
}

int pc_save(const game_t *g, int save)
{
    int ab = save == SAVE_FORT ? AB_CON : save == SAVE_REF ? AB_DEX : AB_WIS;
    int base = (pc_class(g)->good_saves & save) ? 2 + g->pc.xl / 2 : g->pc.xl / 3;
    return base + pc_mod(g->pc.ab[ab]);
}

/* Tenths of a pound of worn armour, shields and helms: what clanks. */
static int armour_weight(const game_t *g)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), w = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *o = reg_get(&g->reg, inv[i]);
        const item_kind_t *k = item_kind(g, o);
        if ((o->flags & IF_EQUIPPED) &&
            (k->cls == IC_ARMOUR || k->cls == IC_SHIELD || k->cls == IC_HELM))
            w += k->weight;
    }
    return w;
}

int pc_stealth(const game_t *g)
{
    int speed = status_speed(g, g->player);
    gear_t gear;
    item_gear(g, g->player, false, &gear);
    return gear.stealth + pc_class(g)->stealth + pc_mod(g->pc.ab[AB_DEX]) -
           armour_weight(g) / STEALTH_CLANK + (speed - 100) / STEALTH_QUICK;
}

int pc_price(const game_t *g, int base)
{
    int price = (int)((int64_t)base * (100 - 5 * pc_mod(g->pc.ab[AB_CHA])) / 100);
    return price > 0 ? price : 1;
}

int32_t pc_xp_for(int xl)
{
    return xl <= 1 ? 0 : 10 * (xl - 1) * xl * (xl + 1) / 3;
}

/* Hit points for one level: the class's hit die plus Con, at least 1. */
int pc_level_hp(game_t *g, bool first)
{
    const class_kind_t *k = pc_class(g);
    dice_t d = {1, k->hit_die, 0};
    int hp =
        (first ? k->hit_die : dice_roll(&d, &g->play)) + pc_mod(g->pc.ab[AB_CON]) + g->pc.pick_hp;
    return hp > 0 ? hp : 1;
}

static void level_up(game_t *g)
{
    pc_t *pc = &g->pc;
    pc->xl++;
    obj_t *p = reg_get(&g->reg, g->player);
    int hp = pc_level_hp(g, false);
    if (p)
        p->hp_max += hp, p->hp += hp;
    const class_kind_t *k = pc_class(g);
    if (k->mana)
        pc->mana_max = (int16_t)(pc->mana_max + k->mana), pc->mana = pc->mana_max;
    msg_add(g, "Welcome to experience level %d!", pc->xl);
    msg_milestone(g, "xl", "reached experience level %d", pc->xl);
    if (pc->xl % 3 == 0)
        pc->choices++;
    if (k->mana && pc->spell_picks < 20)
        pc->spell_picks++;
}

/* A veteran rank: what a level gives but the level itself, and a gift. */
static void veteran_up(game_t *g)
{
    pc_t *pc = &g->pc;
    pc->veteran++;
    obj_t *p = reg_get(&g->reg, g->player);
    int hp = pc_level_hp(g, false);
    if (p)
        p->hp_max += hp, p->hp += hp;
    if (pc_class(g)->mana)
        pc->mana_max = (int16_t)(pc->mana_max + pc_class(g)->mana), pc->mana = pc->mana_max;
    pc->choices++;
    msg_add(g, "You grow more seasoned: veteran rank %d!", pc->veteran);
    msg_milestone(g, "xl", "reached veteran rank %d", pc->veteran);
}

void pc_gain_xp(game_t *g, int32_t xp)
{
    pc_t *pc = &g->pc;
    if (xp <= 0 || !pc->created)
        return;
    pc->xp = pc->xp > INT32_MAX - xp ? INT32_MAX : pc->xp + xp;
    while (pc->xl < 20 && pc->xp >= pc_xp_for(pc->xl + 1))
        level_up(g);
    while (pc->xl == 20 && pc->veteran < PC_VETERAN_MAX &&
           (int64_t)pc->xp >= (int64_t)pc_xp_for(20) + (int64_t)(pc->veteran + 1) * PC_VETERAN_XP)
        veteran_up(g);
    if (chargen_owed(g) && g->prompt == PROMPT_NONE)
        g->prompt = PROMPT_WELCOME;
}
