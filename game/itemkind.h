/* itemkind — what an item kind is (content), and the names of its classes,
 * equipment slots and use ids.
 *
 * Item kinds are declared in content (game/content/items.lua) and read by
 * the item modules: item (objects, stacks, inventory, equipment), ident
 * (flavours), itemuse (what quaffing, reading, zapping and eating do).
 * Every list is an X-macro: the Lua loader takes names from it, the C side
 * the enum. Ids are stored in content only, never in saves. */
#ifndef WARREN_ITEMKIND_H
#define WARREN_ITEMKIND_H
#include <stdint.h>
#include "rng.h"

#define ITEM_CLASS_LIST(X) \
    X(WEAPON)              \
    X(ARMOUR)              \
    X(SHIELD)              \
    X(HELM)                \
    X(POTION)              \
    X(SCROLL)              \
    X(WAND)                \
    X(RING)                \
    X(AMULET)              \
    X(FOOD)                \
    X(GOLD)                \
    X(MISSILE)
enum {
#define ITEM_CLASS_ENUM_(n) IC_##n,
    ITEM_CLASS_LIST(ITEM_CLASS_ENUM_)
#undef ITEM_CLASS_ENUM_
        IC_COUNT
};

/* Where an equipped item sits; a slot holds one item (rings: two). */
#define ITEM_SLOT_LIST(X) \
    X(NONE)               \
    X(WEAPON)             \
    X(BODY)               \
    X(SHIELD)             \
    X(HEAD)               \
    X(RING)               \
    X(NECK)               \
    X(LAUNCHER)
enum {
#define ITEM_SLOT_ENUM_(n) SLOT_##n,
    ITEM_SLOT_LIST(ITEM_SLOT_ENUM_)
#undef ITEM_SLOT_ENUM_
        SLOT_COUNT
};

/* What using the kind does (itemuse.c's table). LEARN: a book that
 * teaches its spell (item_kind_t.spell) to a class that may learn it, at
 * the spell's level; read, it is gone. CAST: what a spell effect
 * does (item_kind_t.does, a row of spell.h's SPELL_EFFECT_LIST), with the
 * kind's dtype, power (damage or healing), effect and duration (a status)
 * and radius: a wand's along the line it is zapped, a potion's or a
 * scroll's on whoever uses it. */
#define ITEM_USE_LIST(X) \
    X(NONE)              \
    X(HEAL)              \
    X(CURE)              \
    X(RESTORE)           \
    X(EFFECT)            \
    X(IDENTIFY)          \
    X(TELEPORT)          \
    X(MAP)               \
    X(ENCHANT_WEAPON)    \
    X(ENCHANT_ARMOUR)    \
    X(REMOVE_CURSE)      \
    X(FEAR)              \
    X(EAT)               \
    X(BOLT)              \
    X(BOLT_EFFECT)       \
    X(LIGHT)             \
    X(CURSE)             \
    X(SUMMON)            \
    X(CAST)              \
    X(LEARN)
enum {
#define ITEM_USE_ENUM_(n) USE_##n,
    ITEM_USE_LIST(ITEM_USE_ENUM_)
#undef ITEM_USE_ENUM_
        USE_COUNT
};

/* Weapon damage types (event dtype is DT_HIT for all of them for now). */
#define ITEM_DAMAGE_LIST(X) \
    X(NONE)                 \
    X(SLASH)                \
    X(PIERCE)               \
    X(BLUNT)                \
    X(FIRE)                 \
    X(COLD)                 \
    X(LIGHTNING)            \
    X(MAGIC)
enum {
#define ITEM_DMG_ENUM_(n) IDT_##n,
    ITEM_DAMAGE_LIST(ITEM_DMG_ENUM_)
#undef ITEM_DMG_ENUM_
        IDT_COUNT
};

/* Ammunition: what a launcher shoots and what a missile is (missile.c);
 * a launcher fires only its own kind. */
#define ITEM_AMMO_LIST(X) \
    X(NONE)               \
    X(ARROW)              \
    X(BOLT)               \
    X(STONE)
enum {
#define ITEM_AMMO_ENUM_(n) AMMO_##n,
    ITEM_AMMO_LIST(ITEM_AMMO_ENUM_)
#undef ITEM_AMMO_ENUM_
        AMMO_COUNT
};

enum {
    IKF_STACK = 1 << 0,  /* identical ones stack ("6 loaves of bread") */
    IKF_CURSED = 1 << 1, /* always made cursed */
    IKF_OBVIOUS =
        1 << 2, /* its effect is plain to see: using it (or watching it used) identifies it */
    IKF_UNIQUE = 1 << 3,    /* one of a kind ("the Heartstone"); never generated at random */
    IKF_NOFLAVOUR = 1 << 4, /* a potion/scroll/... known from the start (no random flavour) */
    IKF_MASS = 1 << 5,      /* a mass noun: "some leather armour", never "a leather armour" */
    IKF_THROW = 1 << 6,   /* made to be thrown (darts, daggers, spears): its own dice, no penalty */
    IKF_ARTIFACT = 1 << 7 /* named and one of a kind: made at most once a game, at random */
};

#define ITEM_NAME_LEN 32

typedef struct {
    char name[ITEM_NAME_LEN];   /* "potion of healing", "long sword" */
    char plural[ITEM_NAME_LEN]; /* "" : the grammar's regular plural */
    uint32_t glyph;
    uint16_t fg;
    uint8_t cls;    /* IC_* */
    uint8_t slot;   /* SLOT_* (equipment) */
    uint8_t use;    /* USE_* */
    uint8_t dtype;  /* IDT_* (weapons, wands) */
    uint8_t flags;  /* IKF_* */
    int16_t weight; /* tenths of a pound, one item */
    dice_t power;   /* weapons: damage; potions: hit points; wands: bolt damage; gold: amount */
    int16_t to_hit, damage, defence, absorb, speed; /* bonuses while equipped */
    int16_t effect;                                 /* effect kind applied on use; -1 none */
    dice_t duration;                                /* of that effect, in turns (100 ticks) */
    int16_t magnitude;                              /* of that effect; heal: % of most hp */
    int16_t nutrition;                              /* food */
    dice_t charges;                                 /* wands */
    int16_t min_depth, max_depth, freq;             /* generation: weight freq between the depths */
    int16_t value;                                  /* score for carrying it out */
    uint8_t ammo;    /* AMMO_*: what a launcher shoots, or what a missile is */
    uint8_t range;   /* a launcher's or thrown missile's reach in steps; 0: the rules' own */
    uint8_t breaks;  /* percent: a missile that hits breaks */
    uint16_t resist; /* bits 1 << DT_*: halved while equipped */
    uint16_t ego;    /* its fixed ego (artifacts) + 1; 0 none */
    uint8_t does;    /* USE_CAST: its spell effect (SPELL_*, spell.h) + 1; 0 none */
    uint8_t radius;  /* USE_CAST: its effect's reach (a cone's, an area's) */
    int16_t spell;   /* USE_LEARN (a book): the spell it teaches; -1 none */
    uint16_t handlers[4];
} item_kind_t;

#endif
