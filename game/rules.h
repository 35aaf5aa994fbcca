/* rules — the code side of the rules: built-in event handlers, kind and
 * region handlers and effect hooks, which content names by name (lower
 * case: "poison_bite", "poison_tick") and holds by id once loaded.
 * Snapshots keep kinds, never these ids, and a snapshot only loads with
 * the content it was made with. */
#ifndef WARREN_RULES_H
#define WARREN_RULES_H
#include "effect.h"
#include "event.h"

/* X(ID, fn): fn is rules.c's handler for the id (the ids after 0). */
#define RULES_HANDLER_LIST(X)     \
    X(MAP, h_map)                 \
    X(CREATURE, h_creature)       \
    X(POISON_BITE, h_poison_bite) \
    X(SLIPPERY, h_slippery)

enum {
    H_NONE_ = 0,
#define RULES_H_ENUM_(n, fn) H_##n,
    RULES_HANDLER_LIST(RULES_H_ENUM_)
#undef RULES_H_ENUM_
        H_COUNT
};

/* X(ID, fn): fn is the effect hook for the id (rules.c's, or status.h's). */
#define RULES_HOOK_LIST(X)     \
    X(POISON_START, hk_poison) \
    X(POISON_TICK, hk_poison)  \
    X(POISON_END, hk_poison)   \
    X(STATUS, status_hook)

enum {
    HK_NONE_ = 0,
#define RULES_HK_ENUM_(n, fn) HK_##n,
    RULES_HOOK_LIST(RULES_HK_ENUM_)
#undef RULES_HK_ENUM_
        HK_COUNT
};

extern const ev_handler_t RULES_HANDLERS[H_COUNT];
extern const effect_hook_t RULES_HOOKS[HK_COUNT];

#endif
