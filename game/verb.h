/* verb — what a content handler may ask of the engine: the e.NAME(...)
 * functions of a Lua handler's event (script.h), Incursion's way of letting
 * a monster's own script say what its powers do.
 *
 * A verb is a query, answered at once from the state (e.dist(), e.sees
 * ("other")), or a deed, kept and done in order once the handler has
 * returned (e.status("other", "paralysis", 3), e.split()), so a handler
 * never runs while another event is under way. Arguments follow the
 * verb's signature: w a participant ("self" or "other": the one whose
 * handler runs, and the other side of the event: its victim for an
 * actor, its actor for a victim), s a string, n an integer, b a boolean.
 *
 * VERB_LIST(X): X(ID, fn, signature, ask) — fn is verb.c's function for
 * it; ask: true for a query. Lua names are the ids in lower case; new
 * verbs may go anywhere (ids are never saved). */
#ifndef WARREN_VERB_H
#define WARREN_VERB_H
#include <stdbool.h>
#include "event.h"
#include "game.h"
#include "obj.h"
#include "script.h"

/* Queries:
 *   sees(w)        w sees the other one (a gaze needs its victim to look)
 *   dist()         steps between the two (Chebyshev); a large number when apart
 *   aware()        self has noticed its foe
 *   hp(w)          hit points of w now; hpmax(w) at most
 *   has(w, effect) w bears a timed effect of that kind (effects.lua)
 *   count()        creatures of self's kind on its level, self included
 *   size(w)        0 tiny, 1 small, 2 medium, 3 large, 4 huge
 *   disguised()    self passes for what it disguises itself as
 *   holding()      self holds the other one engulfed
 *   melee()        the event is a blow in hand (no spell, breath or missile)
 *   player(w)      w is the player
 * Deeds:
 *   say(template)        a message: <Actor> is self, <victim> the other
 *   status(w, effect, n) that effect on w for n turns (on the other: its save
 *                        against self's DC, as the effect says)
 *   cure(w, effect)      that effect off w
 *   hurt(w, n, dtype)    n damage of that type to w, self the source
 *   split()              self divides: a twin beside it, each with half
 *   disguise(b)          self passes for its kind's disguise (content), or stops
 *   engulf(n)            self holds the other engulfed for up to n turns
 *   release()            lets go of what it holds
 *   steal(what)          "gold" or "item" from the player, then a hop away and flight
 *   blink()              self hops away from the other one
 *   flit()               self takes a step in a random free direction
 *   drain(ability)       "str".."cha": the player's Fort save or a point lost
 *   rush(n)              self runs up to n steps straight at the other
 *   attack()             self strikes at the other (beside it)
 *   corrode()            a piece of the other's worn armour loses a point
 *   summon(kind, n)      up to n creatures of that kind around self */
#define VERB_LIST(X)                      \
    X(SEES, ask_sees, "w", true)          \
    X(DIST, ask_dist, "", true)           \
    X(AWARE, ask_aware, "", true)         \
    X(HP, ask_hp, "w", true)              \
    X(HPMAX, ask_hpmax, "w", true)        \
    X(HAS, ask_has, "ws", true)           \
    X(COUNT, ask_count, "", true)         \
    X(SIZE, ask_size, "w", true)          \
    X(DISGUISED, ask_disguised, "", true) \
    X(HOLDING, ask_holding, "", true)     \
    X(MELEE, ask_melee, "", true)         \
    X(PLAYER, ask_player, "w", true)      \
    X(SAY, do_say, "s", false)            \
    X(STATUS, do_status, "wsn", false)    \
    X(CURE, do_cure, "ws", false)         \
    X(HURT, do_hurt, "wns", false)        \
    X(SPLIT, do_split, "", false)         \
    X(DISGUISE, do_disguise, "b", false)  \
    X(ENGULF, do_engulf, "n", false)      \
    X(RELEASE, do_release, "", false)     \
    X(STEAL, do_steal, "s", false)        \
    X(BLINK, do_blink, "", false)         \
    X(FLIT, do_flit, "", false)           \
    X(DRAIN, do_drain, "s", false)        \
    X(RUSH, do_rush, "n", false)          \
    X(ATTACK, do_attack, "", false)       \
    X(CORRODE, do_corrode, "", false)     \
    X(SUMMON, do_summon, "sn", false)

enum {
#define VERB_ENUM_(id, fn, sig, ask) VERB_##id,
    VERB_LIST(VERB_ENUM_)
#undef VERB_ENUM_
        VERBS
};

/* What a verb sees: the game, the event, and whose handler runs. */
typedef struct {
    game_t *g;
    const ev_info_t *e;
    handle_t self;
} verb_ctx_t;

/* The query q for ctx (a verb_ctx_t): its answer into out; -1 with why
 * when an argument names nothing. */
int verb_ask(void *ctx, const script_call_t *q, script_answer_t *out, char *why, size_t n);
/* Does a deed kept by a handler; -1 (reported like a failing handler)
 * when an argument names nothing. */
int verb_do(verb_ctx_t *ctx, const script_call_t *d);

#endif
