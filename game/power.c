/* power — the class powers (see power.h): one row per class. */
#include "power.h"
#include <stdlib.h>
#include <string.h>
#include "combat.h"
#include "creature.h"
#include "event.h"
#include "msg.h"
#include "pc.h"
#include "status.h"
#include "target.h"
#include "vision.h"

#define HIDE_COST  (2 * SCHED_MOVE)
#define TURN_COST  SCHED_MOVE
#define SPARK_DICE ((dice_t){1, 4, 0})

static int power_attack(game_t *g)
{
    g->pc.power_attack = !g->pc.power_attack;
    msg_add(g, g->pc.power_attack ? "You put your weight into every blow (power attack on)."
                                  : "You fight with care again (power attack off).");
    return 0;
}

/* Monsters in view that know where the rogue is may lose it; with none
 * watching there is nothing to hide from (no time spent), and one right
 * beside the rogue is too close to lose. */
static int hide(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    int lost = 0, watching = 0, close = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || !(o->flags & OF_AWARE) ||
            !vision_sees(g, h))
            continue;
        watching++;
        if (abs(o->x - p->x) <= 1 && abs(o->y - p->y) <= 1) {
            close++;
            continue; /* too close to lose */
        }
        const creature_kind_t *k = creature_kind(g, o);
        int roll = (int)rng_range(&g->play, 1, 20) + k->perception + k->level / 3;
        if (roll >= 10 + pc_stealth(g))
            continue;
        o->flags &= (uint8_t)~OF_AWARE;
        o->remaining = 0;
        lost++;
    }
    if (!watching) {
        msg_add(g, "Nothing in view is watching you.");
        return 0;
    }
    msg_add(g, lost                ? "You melt into the shadows."
               : close == watching ? "You cannot hide from a foe right beside you."
                                   : "You try to hide, but you are watched.");
    return HIDE_COST;
}

static int find_effect(const game_t *g, const char *name)
{
    for (int i = 0; i < g->c->n_effects; i++)
        if (!strcmp(g->c->effects[i].name, name))
            return i;
    return -1;
}

/* Holy damage of no type to an undead (all it has: it crumbles). */
static void sear(game_t *g, handle_t h, int amount, bool crumble)
{
    creature_say(g, crumble ? "<Actor> crumble<s:Actor> to dust!" : "<Actor> <is:Actor> seared!", h,
                 HANDLE_NONE);
    ev_info_t e = {.type = EV_DAMAGE, .actor = g->player, .victim = h, .map = -1, .dtype = DT_NONE};
    e.amount[0] = crumble ? reg_get(&g->reg, h)->hp : amount;
    event_throw(g, &e);
}

/* One undead turned: the weak crumble; the rest save or flee, and those
 * that cannot fear (the mindless) are seared instead. */
static void turn_one(game_t *g, handle_t h, int fear, int dc)
{
    const obj_t *o = reg_get(&g->reg, h);
    creature_disturb(g, h);
    if (creature_kind(g, o)->level * 2 < g->pc.xl) {
        sear(g, h, 0, true);
        return;
    }
    if (combat_save(g, h, SAVE_WILL, dc, EFK_(AFRAID))) {
        creature_say(g, "<Actor> stand<s:Actor> firm.", h, HANDLE_NONE);
        return;
    }
    if (creature_mind(g, o)->immune & EFK_(AFRAID)) {
        dice_t d = {2, 6, 0};
        sear(g, h, dice_roll(&d, &g->play) + g->pc.xl, false);
        return;
    }
    if (fear >= 0) /* the save is made: no second one */
        status_apply(g, h, fear, (int32_t)(rng_range(&g->play, 3, 8) + g->pc.xl) * SCHED_MOVE, 1,
                     0);
}

static int turn_undead(game_t *g)
{
    if (g->pc.mana < TURN_MANA) {
        msg_add(g, "You need %d mana to turn undead.", TURN_MANA);
        return 0;
    }
    handle_t seen[64];
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && n < 64; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && h != g->player && vision_sees(g, h) &&
            (creature_kind(g, o)->flags & CF_UNDEAD))
            seen[n++] = h;
    }
    if (!n) { /* as the spark with nothing to spark at: no mana, no time */
        msg_add(g, "You see no undead to turn.");
        return 0;
    }
    g->pc.mana = (int16_t)(g->pc.mana - TURN_MANA);
    msg_add(g, "You present your holy symbol!");
    int fear = find_effect(g, "fear"), dc = combat_dc(g, g->player) + 2;
    for (int i = 0; i < n; i++)
        if (reg_get(&g->reg, seen[i]))
            turn_one(g, seen[i], fear, dc);
    return TURN_COST;
}

static int spark(game_t *g)
{
    if (!target_default(g)) {
        msg_add(g, "You see nothing to spark at.");
        return 0;
    }
    return target_begin(g, AIM_POWER, 0);
}

int power_cantrip(game_t *g, int x, int y)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, p->x, p->y, x, y, POWER_SPARK_RANGE, path);
    handle_t t = target_first(g, g->depth, g->player, path, n, x, y, NULL);
    if (!t && (abs(x - p->x) > POWER_SPARK_RANGE || abs(y - p->y) > POWER_SPARK_RANGE)) {
        msg_add(g, "That is out of reach: your spark goes %d steps.", POWER_SPARK_RANGE);
        return 0; /* nothing spent: aim nearer */
    }
    if (!t) {
        msg_add(g, "Your spark fizzles out.");
        return SCHED_MOVE;
    }
    creature_say(g, "<Actor> flick<s:Actor> a spark at <victim>.", g->player, t);
    creature_disturb(g, t);
    dice_t d = SPARK_DICE;
    /* raw force flung like a missile, not a spell: of no damage type,
     * so no armour, resistance or ward against spells turns it (power.h) */
    ev_info_t e = {.type = EV_DAMAGE,
                   .actor = g->player,
                   .victim = t,
                   .map = -1,
                   .dtype = DT_NONE,
                   .flags = EVF_MISSILE};
    e.amount[0] = dice_roll(&d, &g->play) + g->pc.xl / 3;
    event_throw(g, &e);
    return SCHED_MOVE;
}

static const struct {
    const char *cls;
    int (*use)(game_t *g);
} POWERS[] = {
    {"fighter", power_attack},
    {"rogue", hide},
    {"cleric", turn_undead},
    {"wizard", spark},
};

static int row(const game_t *g)
{
    if (!g->pc.created)
        return -1;
    for (size_t i = 0; i < sizeof POWERS / sizeof POWERS[0]; i++)
        if (!strcmp(pc_class(g)->name, POWERS[i].cls))
            return (int)i;
    return -1;
}

bool power_is_spark(const game_t *g)
{
    int r = row(g);
    return r >= 0 && POWERS[r].use == spark;
}

int power_use(game_t *g)
{
    int r = row(g);
    if (r < 0) {
        msg_add(g, "Your class has no power.");
        return 0;
    }
    return POWERS[r].use(g);
}
