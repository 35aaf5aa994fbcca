/* rules — the code side of the rules: built-in event handlers, kind and
 * region handlers and effect hooks, which content names by id (lower
 * case: "poison_bite", "poison_tick"). Ids are saved (in content and,
 * through kinds, in snapshots): append only. */
#ifndef WARREN_RULES_H
#define WARREN_RULES_H
#include "effect.h"
#include "event.h"

#define RULES_HANDLER_LIST(X) \
    X(MAP)                    \
    X(CREATURE)               \
    X(POISON_BITE)            \
    X(SLIPPERY)

enum {
    H_NONE_ = 0,
#define RULES_H_ENUM_(n) H_##n,
    RULES_HANDLER_LIST(RULES_H_ENUM_)
#undef RULES_H_ENUM_
        H_COUNT
};

#define RULES_HOOK_LIST(X) \
    X(POISON_START)        \
    X(POISON_TICK)         \
    X(POISON_END)          \
    X(SLOW_START)          \
    X(SLOW_TICK)           \
    X(SLOW_END)            \
    X(STATUS)

enum {
    HK_NONE_ = 0,
#define RULES_HK_ENUM_(n) HK_##n,
    RULES_HOOK_LIST(RULES_HK_ENUM_)
#undef RULES_HK_ENUM_
        HK_COUNT
};

/* Spells: (id, name, mana, damage type, damage dice; "" heals). Bits
 * 1 << SPELL_* name them in class kinds; content names them lower case. */
#define SPELL_LIST(X)                                           \
    X(MAGIC_MISSILE, "magic missile", 2, DT_MAGIC, "2d4")       \
    X(FIRE_BOLT, "fire bolt", 4, DT_FIRE, "3d6")                \
    X(FROST_BOLT, "frost bolt", 4, DT_COLD, "3d6")              \
    X(LIGHTNING_BOLT, "lightning bolt", 6, DT_LIGHTNING, "5d6") \
    X(CURE_WOUNDS, "cure wounds", 3, DT_NONE, "2d8")            \
    X(SMITE, "smite", 3, DT_MAGIC, "2d8")

enum {
#define SPELL_ENUM_(id, name, mana, dt, dice) SPELL_##id,
    SPELL_LIST(SPELL_ENUM_)
#undef SPELL_ENUM_
        SPELL_COUNT
};

typedef struct {
    const char *name;
    int mana;
    uint8_t dtype;
    const char *dice;
} spell_info_t;
extern const spell_info_t RULES_SPELLS[SPELL_COUNT]; /* spell.c */

extern const ev_handler_t RULES_HANDLERS[H_COUNT];
extern const effect_hook_t RULES_HOOKS[HK_COUNT];

#endif
