/* itemui — item commands, prompts and screens (see itemui.h). */
#include "itemui.h"
#include <stdio.h>
#include "cmd.h"
#include "ego.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "missile.h"
#include "msg.h"
#include "pc.h"
#include "status.h"
#include "target.h"
#include "world.h"

typedef bool (*fits_fn_t)(const game_t *g, const obj_t *o);

static bool fits_any(const game_t *g, const obj_t *o)
{
    return (void)g, (void)o, true;
}
static bool fits_gear(const game_t *g, const obj_t *o)
{
    return item_kind(g, o)->slot != SLOT_NONE && !(o->flags & IF_EQUIPPED);
}
/* NetHack's P: a ring or an amulet; its W: armour (worn on body, arm or head). */
static bool fits_accessory(const game_t *g, const obj_t *o)
{
    int slot = item_kind(g, o)->slot;
    return (slot == SLOT_RING || slot == SLOT_NECK) && !(o->flags & IF_EQUIPPED);
}
static bool fits_armour(const game_t *g, const obj_t *o)
{
    int slot = item_kind(g, o)->slot;
    return (slot == SLOT_BODY || slot == SLOT_SHIELD || slot == SLOT_HEAD) &&
           !(o->flags & IF_EQUIPPED);
}
static bool fits_worn(const game_t *g, const obj_t *o)
{
    return (void)g, (o->flags & IF_EQUIPPED) != 0;
}
static bool fits_potion(const game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_POTION;
}
static bool fits_scroll(const game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_SCROLL;
}
static bool fits_wand(const game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_WAND;
}
static bool fits_food(const game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_FOOD;
}
static bool fits_throw(const game_t *g, const obj_t *o)
{
    return (void)g, !(o->flags & IF_EQUIPPED);
}
static bool fits_quiver(const game_t *g, const obj_t *o)
{
    return missile_quiverable(g, o);
}
static bool fits_unknown(const game_t *g, const obj_t *o)
{
    return itemuse_unidentified(g, o);
}

enum {
    VERB_NONE = 0,
    VERB_DROP,
    VERB_WEAR,
    VERB_REMOVE,
    VERB_QUAFF,
    VERB_READ,
    VERB_ZAP,
    VERB_EAT,
    VERB_THROW,
    VERB_QUIVER,
    VERB_PUT_ON,
    VERB_WEAR_ARMOUR,
    VERB_COUNT
};

typedef struct {
    uint32_t key;
    const char *prompt; /* "Quaff which potion?" */
    const char *none;   /* "You have no potions." */
    fits_fn_t fits;
} verb_t;

static const verb_t VERBS[VERB_COUNT] = {
    [VERB_DROP] = {'d', "Drop what?", "You have nothing to drop.", fits_any},
    [VERB_WEAR] = {'w', "Wear or wield what?", "You have nothing to wear or wield.", fits_gear},
    [VERB_REMOVE] = {'T', "Take off what?", "You are not wearing anything.", fits_worn},
    [VERB_QUAFF] = {'q', "Quaff which potion?", "You have no potions.", fits_potion},
    [VERB_READ] = {'r', "Read which scroll?", "You have no scrolls.", fits_scroll},
    [VERB_ZAP] = {'z', "Zap which wand?", "You have no wands.", fits_wand},
    [VERB_EAT] = {'E', "Eat what?", "You have nothing to eat.", fits_food},
    [VERB_THROW] = {'t', "Throw what?", "You have nothing to throw.", fits_throw},
    [VERB_QUIVER] = {'v', "Quiver what?", "You have no missiles: arrows, bolts, stones, darts.",
                     fits_quiver},
    [VERB_PUT_ON] = {'P', "Put on what?", "You have no rings or amulets to put on.",
                     fits_accessory},
    [VERB_WEAR_ARMOUR] = {'W', "Wear what?", "You have no armour to wear.", fits_armour},
};

static int count_fitting(const game_t *g, int verb)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), fit = 0;
    for (int i = 0; i < n; i++)
        fit += VERBS[verb].fits(g, reg_get(&g->reg, inv[i]));
    return fit;
}

static int close_ui(game_t *g)
{
    g->items.screen = ITEMUI_NONE;
    g->items.verb = VERB_NONE;
    g->items.chosen = HANDLE_NONE;
    return 0;
}

static int pick_up(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    handle_t it = item_floor_at(g, p->depth, p->x, p->y);
    if (!it) {
        msg_add(g, "There is nothing here to pick up.");
        return 0;
    }
    return item_pick_up(g, g->player, it) == 0 ? SCHED_MOVE : 0;
}

/* The chosen item, then what the verb does with it. */
static int act(game_t *g, int verb, handle_t it)
{
    close_ui(g);
    switch (verb) {
    case VERB_DROP: return item_drop(g, g->player, it, 0) == 0 ? SCHED_MOVE : 0;
    case VERB_WEAR:
    case VERB_PUT_ON:
    case VERB_WEAR_ARMOUR: return item_equip(g, g->player, it) == 0 ? SCHED_MOVE : 0;
    case VERB_REMOVE: return item_unequip(g, g->player, it) == 0 ? SCHED_MOVE : 0;
    case VERB_READ:
        if (status_has(g, g->player, EFK_(BLIND))) {
            msg_add(g, "You cannot see to read.");
            return 0;
        }
        return itemuse_use(g, g->player, it, 0, 0);
    case VERB_ZAP: return target_begin(g, AIM_ZAP, it);
    case VERB_THROW: return target_begin(g, AIM_THROW, it);
    case VERB_QUIVER: {
        g->quiver = it;
        char d[96];
        item_describe(g, it, d, sizeof d);
        msg_add(g, "%c - %s.", 'a' + reg_get(&g->reg, it)->a[0], d);
        return 0;
    }
    default: return itemuse_use(g, g->player, it, 0, 0);
    }
}

static int on_choose(game_t *g, key_event_t k)
{
    int verb = g->items.verb;
    handle_t it =
        k.code >= 'a' && k.code <= 'z' ? item_by_letter(g, g->player, (int)k.code) : HANDLE_NONE;
    const obj_t *o = reg_get(&g->reg, it);
    if (!o || verb <= VERB_NONE || verb >= VERB_COUNT || !VERBS[verb].fits(g, o)) {
        close_ui(g);
        msg_add(g, it ? "You cannot do that with that." : "Never mind.");
        return 0;
    }
    return act(g, verb, it);
}

/* After a scroll of identify: the chosen unknown item, or on Escape the
 * first (the scroll is read either way); other keys ask again. */
static int on_identify(game_t *g, key_event_t k)
{
    handle_t inv[INV_SLOTS], it = HANDLE_NONE;
    if (k.code == KEY_ESC) {
        int n = item_inventory(g, g->player, inv);
        for (int i = 0; i < n && !it; i++)
            if (fits_unknown(g, reg_get(&g->reg, inv[i])))
                it = inv[i];
    } else if (k.code >= 'a' && k.code <= 'z') {
        it = item_by_letter(g, g->player, (int)k.code);
        const obj_t *o = reg_get(&g->reg, it);
        if (o && !fits_unknown(g, o))
            it = HANDLE_NONE;
    }
    if (!it) {
        msg_add(g, "Choose an item you do not know yet (a letter), or Escape for the first.");
        return 0;
    }
    close_ui(g);
    itemuse_identify(g, it);
    return 0;
}

static int open_verb(game_t *g, int verb)
{
    if (!count_fitting(g, verb)) {
        msg_add(g, "%s", VERBS[verb].none);
        return 0;
    }
    g->items.screen = ITEMUI_CHOOSE;
    g->items.verb = (uint8_t)verb;
    return 0;
}

int itemui_answer(game_t *g, key_event_t k)
{
    switch (g->items.screen) {
    case ITEMUI_CHOOSE: return on_choose(g, k);
    case ITEMUI_IDENTIFY: return on_identify(g, k);
    default: return close_ui(g);
    }
}

int itemui_pick_up(game_t *g)
{
    return pick_up(g);
}
CMD_BIND(itemui_drop, open_verb, VERB_DROP)
CMD_BIND(itemui_wear, open_verb, VERB_WEAR)
CMD_BIND(itemui_put_on, open_verb, VERB_PUT_ON)
CMD_BIND(itemui_wear_armour, open_verb, VERB_WEAR_ARMOUR)
CMD_BIND(itemui_take_off, open_verb, VERB_REMOVE)
CMD_BIND(itemui_quaff, open_verb, VERB_QUAFF)
CMD_BIND(itemui_read, open_verb, VERB_READ)
CMD_BIND(itemui_zap, open_verb, VERB_ZAP)
CMD_BIND(itemui_throw, open_verb, VERB_THROW)
CMD_BIND(itemui_quiver, open_verb, VERB_QUIVER)
CMD_BIND(itemui_eat, open_verb, VERB_EAT)

int itemui_inventory(game_t *g)
{
    g->items.screen = ITEMUI_INVENTORY;
    return 0;
}

int itemui_equipment(game_t *g)
{
    g->items.screen = ITEMUI_EQUIPMENT;
    return 0;
}

int itemui_rest(game_t *g)
{
    status_rest(g);
    return 0;
}

/* ---- drawing ------------------------------------------------------------------------ */

static int list_items(game_t *g, screen_t *s, int row, fits_fn_t fits)
{
    handle_t inv[INV_SLOTS], shown[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), count = 0;
    for (int i = 0; i < n; i++)
        if (fits(g, reg_get(&g->reg, inv[i])))
            shown[count++] = inv[i];
    /* more than the rows under the title hold: two columns (a full pack
     * on 80x24), each line cut to its column */
    int rows = s->h - 2 - row, cols = count > rows ? 2 : 1;
    int per = cols == 2 ? (count + 1) / 2 : count, cw = s->w / cols;
    for (int i = 0; i < count && rows > 0; i++) {
        int c = i / per, y = row + i % per;
        if (y >= s->h - 2)
            continue;
        const obj_t *o = reg_get(&g->reg, shown[i]);
        char d[96];
        item_describe(g, shown[i], d, sizeof d);
        screen_fill(s, c * cw, y, c ? s->w - cw : s->w, 1, ' ', STYLE_DEFAULT);
        screen_textf(s, c * cw + 1, y, STYLE_DEFAULT, "%c) %.*s", 'a' + o->a[0],
                     cols > 1 ? cw - 5 : (int)sizeof d, d);
    }
    if (!count && rows > 0) {
        screen_fill(s, 0, row, s->w, 1, ' ', STYLE_DEFAULT);
        screen_text(s, 1, row, STYLE_DEFAULT, "(nothing)");
    }
    return row + (count ? (per < rows ? per : rows) : rows > 0);
}

static void title(screen_t *s, const char *t)
{
    screen_fill(s, 0, 0, s->w, 1, ' ', STYLE_DEFAULT);
    screen_text(s, 0, 0, (style_t){15, SCREEN_DEFAULT_COLOR, ATTR_BOLD}, t);
}

/* The abilities line, a drained one with its full score too ("Str
 * 12/14"), then what the player resists on a row of its own; returns the
 * row after them. */
static int abilities(game_t *g, screen_t *s, int row)
{
    static const char *const AB[AB_COUNT] = {"Str", "Dex", "Con", "Int", "Wis", "Cha"};
    char line[128];
    int n = 0, drained = 0;
    for (int i = 0; i < AB_COUNT; i++) {
        int d = g->pc.drain[i], left = (int)sizeof line - n;
        n += d ? snprintf(line + n, (size_t)left, "%s %d/%d  ", AB[i], g->pc.ab[i], g->pc.ab[i] + d)
               : snprintf(line + n, (size_t)left, "%s %d  ", AB[i], g->pc.ab[i]);
        drained += d;
    }
    if (!drained && n >= 2)
        line[n - 2] = 0; /* no blanks after the last: the box is as wide as its text */
    char resist[64];
    ego_resist_words(g, true, resist, sizeof resist);
    screen_fill(s, 0, row, s->w, 1, ' ', STYLE_DEFAULT);
    screen_textf(s, 1, row++, drained ? (style_t){11, SCREEN_DEFAULT_COLOR, 0} : STYLE_DEFAULT,
                 "%s%s", line, drained ? "(drained)" : "");
    if (resist[0]) {
        screen_fill(s, 0, row, s->w, 1, ' ', STYLE_DEFAULT);
        screen_textf(s, 1, row++, STYLE_DEFAULT, "Resist %s", resist);
    }
    return row;
}

/* The character sheet lines: what the player knows of their gear, in
 * rows short enough that the box leaves most of the map up; returns the
 * row after them. */
static int sheet(game_t *g, screen_t *s, int row)
{
    gear_t k;
    status_stats(g, g->player, true, &k);
    const class_kind_t *ck = g->pc.cls < g->c->n_classes ? &g->c->classes[g->pc.cls] : NULL;
    char dmg[32];
    dice_t d = k.armed ? k.dmg : ck ? ck->weapon : (dice_t){1, 4, 0};
    snprintf(dmg, sizeof dmg, "%dd%d%+d", d.n, d.sides,
             d.bonus + k.damage + pc_mod(g->pc.ab[AB_STR]));
    screen_fill(s, 0, row, s->w, 2, ' ', STYLE_DEFAULT);
    screen_textf(s, 1, row, STYLE_DEFAULT, "Attack %+d  Damage %s  Defence %d",
                 pc_attack_bonus(g) + k.to_hit, dmg, pc_defence(g) + k.defence);
    screen_textf(s, 1, row + 1, STYLE_DEFAULT, "Absorb %d  Speed %d  Stealth %+d",
                 pc_armour(g) + k.absorb, status_speed(g, g->player), pc_stealth(g));
    return abilities(g, s, row + 2);
}

bool itemui_render(game_t *g, screen_t *s)
{
    int scr = g->items.screen, row = 2;
    if (scr == ITEMUI_NONE || s->h < 6)
        return false;
    int w = item_carried_weight(g, g->player);
    char t[96];
    if (scr == ITEMUI_INVENTORY) {
        snprintf(t, sizeof t, "Inventory: %d.%d of %d lb, %d gold (any key)", w / 10, w % 10,
                 CARRY_CAPACITY / 10, (int)g->items.gold);
        title(s, t);
        row = list_items(g, s, 1, fits_any);
    } else if (scr == ITEMUI_EQUIPMENT) {
        title(s, "Equipment (any key)");
        row = list_items(g, s, sheet(g, s, 1), fits_worn);
    } else if (scr == ITEMUI_CHOOSE) {
        snprintf(t, sizeof t, "%s [letter, Esc]",
                 VERBS[g->items.verb < VERB_COUNT ? g->items.verb : 0].prompt
                     ? VERBS[g->items.verb].prompt
                     : "Which?");
        title(s, t);
        row = list_items(g, s, 1,
                         g->items.verb < VERB_COUNT && VERBS[g->items.verb].fits
                             ? VERBS[g->items.verb].fits
                             : fits_any);
    } else if (scr == ITEMUI_IDENTIFY) {
        title(s, "Identify which item? [letter, Esc: the first]");
        row = list_items(g, s, 1, fits_unknown);
    } else {
        return false;
    }
    (void)row;
    return true;
}

const char *itemui_status_word(const game_t *g)
{
    return status_hunger_word(g);
}
