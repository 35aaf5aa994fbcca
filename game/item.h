/* item — items as registry objects: on the floor, carried, equipped.
 *
 * An item is an OBJ_ITEM object. Its fields mean:
 *   kind       the item kind (content items, itemkind.h)
 *   target     who carries it (HANDLE_NONE: it lies at depth/x/y)
 *   magnitude  how many (a stack; 1 for anything that does not stack)
 *   hp         its enchantment (+1, -2...), known once IF_KNOWN
 *   remaining  charges (wands)
 *   a[0]       inventory letter (0 = 'a') while carried; on a shop's floor
 *              unpaid, its stock letter + 1 (0 none yet: shop.c)
 *   a[1]       its ego (runic kind, ego.h) + 1; 0 none
 *   t          carried unpaid, its stock letter + 1 (0 none): it keeps
 *              that letter on the trade screen and takes it back when put
 *              down whole in the shop
 *   flags      IF_* below
 * Identical items stack: same kind, enchantment, curse and knowledge.
 *
 * Per-game item state (which kinds are identified, flavours, hunger, the
 * open item screen) lives in game_t.items (item_state_t) and is saved with
 * item_state_save. Flavours are not saved: they follow from the seed. */
#ifndef WARREN_ITEM_H
#define WARREN_ITEM_H
#include <stdbool.h>
#include <stdint.h>
#include "game.h"
#include "itemkind.h"
#include "obj.h"
#include "ser.h"

/* Item flags (obj_t.flags; creatures read their own bits). IF_KNOWN: the
 * enchantment and charges are known; IF_CURSE_SEEN: the curse is known;
 * IF_UNPAID: a shop's stock, not yet paid for (shop.h); IF_VISITED: on
 * the floor where the player has stood (or dropped it): explore (travel.h)
 * goes to it no more; cleared in a pack. */
enum {
    IF_VISITED = 1 << 0,
    IF_EQUIPPED = 1 << 2,
    IF_CURSED = 1 << 3,
    IF_KNOWN = 1 << 4,
    IF_CURSE_SEEN = 1 << 5,
    IF_UNPAID = 1 << 6,
    IF_THROWN = 1 << 7 /* on the floor, thrown or fired by the player: taken up again in passing */
};

/* Hunger: nutrition counts down a point a turn (status.c). */
enum {
    FOOD_MAX = 15000,
    FOOD_START = 4500,
    FOOD_HUNGRY = 1000,
    FOOD_WEAK = 300,
    FOOD_DEAD = -1500
};

/* Item screens and prompts (itemui.c). */
enum {
    ITEMUI_NONE = 0,
    ITEMUI_INVENTORY,
    ITEMUI_EQUIPMENT,
    ITEMUI_CHOOSE,
    ITEMUI_DIRECTION, /* unused: wands aim with the target cursor (target.h); the id stays */
    ITEMUI_IDENTIFY,  /* a scroll of identify was read: which item? */
    ITEMUI_COUNT
};

#define INV_SLOTS      26
#define CARRY_CAPACITY 1500 /* tenths of a pound */

typedef struct {
    uint8_t *known;   /* [n_items] 1: the kind is identified */
    uint8_t *flavour; /* [n_items] flavour index in its class (from the seed) */
    int32_t food;     /* nutrition left; hungry below FOOD_HUNGRY */
    int32_t gold;
    uint8_t screen;  /* ITEMUI_*: the open screen or prompt */
    uint8_t verb;    /* the prompt's verb (itemui.c) */
    handle_t chosen; /* an item chosen, waiting for a direction */
    uint32_t live;   /* effects with status hooks now running (derived, not saved) */
} item_state_t;

/* Allocates and fills the per-game state (flavours from g->seed): 0 or -1. */
int item_state_init(game_t *g);
void item_state_free(game_t *g);
void item_state_save(const game_t *g, ser_t *s);
void item_state_load(game_t *g, rd_t *in);
/* Cross-checks of a loaded game's items (holders alive, letters unique...). */
void item_check(game_t *g, rd_t *in);

/* A new item of kind on the floor, or carried by holder when holder is set
 * (then x, y, depth are ignored). count > 1 only for stacking kinds.
 * Enchantment, curse and charges come from r. HANDLE_NONE on OOM. */
handle_t item_new(game_t *g, uint16_t kind, int count, handle_t holder, int depth, int x, int y,
                  rng_t *r);
const item_kind_t *item_kind(const game_t *g, const obj_t *it);
/* The new character's kit (chargen): 0, or -1 on OOM. */
int item_start_kit(game_t *g);
/* Treasure for a new level, from the level's own stream; once per level. */
int item_populate(game_t *g, int depth, rng_t *r);
/* One thing of treasure at (x, y) of level depth, of the kinds found as
 * deep as `as_deep` (a vault's is richer): 0, or -1 (OOM). */
int item_treasure_at(game_t *g, int depth, int as_deep, int x, int y, rng_t *r);

/* "a +1 long sword (wielded)" / "6 loaves of bread" into out. */
void item_describe(const game_t *g, handle_t h, char *out, size_t n);

/* A message about actor (<Actor>) and an item (<obj>) through the grammar;
 * dropped when the player perceives neither. */
void item_say(game_t *g, const char *tmpl, handle_t actor, handle_t it);
/* The same with a victim too (<victim>): "<Obj> hit<s:Obj> <victim>."
 * Every name goes through creature_noun or the item's own noun. */
void item_tell(game_t *g, const char *tmpl, handle_t actor, handle_t it, handle_t victim);

/* Inventory of holder in letter order: fills out (up to INV_SLOTS). */
int item_inventory(const game_t *g, handle_t holder, handle_t out[INV_SLOTS]);
handle_t item_by_letter(const game_t *g, handle_t holder, int letter);
handle_t item_floor_at(const game_t *g, int depth, int x, int y); /* the top one */
/* What lies on a cell, top first, as a phrase into out: "a dagger",
 * "a dagger and 12 gold pieces", "some leather armour, a dagger and an
 * apple", past ITEM_LIST_MAX "7 things". Returns how many lie there. */
#define ITEM_LIST_MAX 4
int item_floor_list(const game_t *g, int depth, int x, int y, char *out, size_t n);
/* The player has stepped onto a cell (its items become IF_VISITED): gold
 * there is picked up unless the
 * game's option says by hand (game_options_t), so are the player's own
 * thrown or fired missiles (a pickup's SCHED_MOVE, returned: the ticks
 * spent; their words do not stop a travel, g->said_aside; within one
 * input a stack's later pickup line replaces its earlier one), and what else
 * lies there is said ("You see here a long sword."). */
int item_arrive(game_t *g);
/* Every loose item on the cell becomes IF_VISITED (the player stood there). */
void item_mark_visited(game_t *g, int depth, int x, int y);
int item_carried_weight(const game_t *g, handle_t holder);

/* Actions: 0 on success (the message said what happened), -1 refused (the
 * message said why). count 0 = the whole stack. */
int item_pick_up(game_t *g, handle_t who, handle_t it);
int item_drop(game_t *g, handle_t who, handle_t it, int count);
int item_equip(game_t *g, handle_t who, handle_t it);
int item_unequip(game_t *g, handle_t who, handle_t it);
/* One of a carried, unequipped stack taken out of the pack, loose at its
 * holder's feet without a word (a throw; the caller moves it on):
 * HANDLE_NONE when it is equipped, not carried, or on OOM. */
handle_t item_detach(game_t *g, handle_t it);
/* Takes one off a stack (deleting the item when it was the last one). */
void item_use_up(game_t *g, handle_t it);
/* Moves n of it to holder (merging into a stack); the handle that holds them. */
handle_t item_give(game_t *g, handle_t it, handle_t holder, int n);

/* What a creature's equipment adds (rules read actual values; known_only
 * counts only what the player knows, for the character sheet). */
typedef struct {
    int to_hit, damage, defence, absorb, speed;
    bool armed;
    dice_t dmg; /* the wielded weapon's dice */
    uint8_t dtype;
    uint16_t resist; /* bits 1 << DT_*: halved (rings, runic armour) */
    int stealth;     /* added to the wearer's stealth (runic armour) */
} gear_t;
void item_gear(const game_t *g, handle_t who, bool known_only, gear_t *out);

/* The dump's equipment and inventory part (everything identified). */
void item_dump(const game_t *g, buf_t *out);

#endif
