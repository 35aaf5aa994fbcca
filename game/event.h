/* event — the dispatch chain (the Incursion model).
 *
 * A game action is an event: a type plus an info struct naming who takes
 * part. event_throw runs it in three phases, PRE, MAIN and POST. In each
 * phase the handlers of the participants run in a fixed order:
 *
 *     map, item, item2, victim, actor
 *
 * The map's turn starts with the handlers of the region kind at the
 * event's place (x, y): a slippery floor, say. For each object its kind's
 * handlers run before the built-in handler of its object type: first the
 * kind's Lua handler for this event type (script.h; it runs in every phase
 * and reads e.phase), through the vm lent to the game for this input; then
 * the kind's code handlers. A handler
 * returns EV_DONE to end the chain of that phase or EV_NOTHING to pass.
 * A PRE handler returning EV_DONE vetoes the event: MAIN and POST do not run
 * and event_throw returns EV_ABORT. Otherwise event_throw returns what MAIN
 * gave (EV_DONE when some handler carried the action out).
 *
 * Handlers may throw nested events, with a fresh info or the parent's own
 * (type and phase are restored after a nested throw). Nesting is bounded
 * (EV_MAX_DEPTH) so a loop in content cannot blow the stack: past it
 * event_throw returns EV_ERROR.
 *
 * Handlers are found by id in the content's handler table (a const code
 * table, ids stable in saves); an id past the table is skipped. */
#ifndef WARREN_EVENT_H
#define WARREN_EVENT_H
#include <stdint.h>
#include "game.h"
#include "obj.h"

#define EVENT_LIST(X) X(MOVE) X(ATTACK) X(HIT) X(DAMAGE) X(DEATH) X(TEST)

typedef enum {
    EV_NONE = 0,
#define EVENT_ENUM_(n) EV_##n,
    EVENT_LIST(EVENT_ENUM_)
#undef EVENT_ENUM_
        EV_TYPES
} ev_type_t;

typedef enum { PHASE_PRE = 0, PHASE_MAIN, PHASE_POST } ev_phase_t;

enum { EV_ERROR = -1, EV_NOTHING = 0, EV_DONE = 1, EV_ABORT = 2 };
enum { EV_MAX_DEPTH = 16, EV_PARTICIPANTS = 5 };

/* Damage types: how a blow or a spell hurts. Resistances and scripted
 * handlers (the flesh golem) key on them; content names them lower case. */
#define DAMAGE_LIST(X) X(NONE) X(HIT) X(POISON) X(FIRE) X(COLD) X(LIGHTNING) X(ACID) X(MAGIC)
typedef enum {
#define DAMAGE_ENUM_(n) DT_##n,
    DAMAGE_LIST(DAMAGE_ENUM_)
#undef DAMAGE_ENUM_
        DT_COUNT
} damage_type_t;

/* Event flags. EVF_SPELL: a direct spell (bolt, missile), which some
 * creatures shrug off whatever its damage type; EVF_BREATH: a breath.
 * Either lets the victim's Ref save halve an element's damage (combat.c).
 * EVF_MISSILE: an attack by something thrown or shot (missile.h): amount[0]
 * adjusts the to-hit, amount[1] is the damage, and the attack sets
 * amount[2] to 1 when it hits. EVF_TICK: a timed effect's tick (poison):
 * whether it hurts at all was said when the effect began. */
enum { EVF_SPELL = 1u << 0, EVF_BREATH = 1u << 1, EVF_MISSILE = 1u << 2, EVF_TICK = 1u << 3 };

typedef struct {
    uint16_t type; /* ev_type_t */
    uint8_t phase; /* ev_phase_t, set by event_throw */
    handle_t actor, victim, item, item2;
    int16_t map;   /* level depth; -1 none */
    int16_t x, y;  /* a place (moves) */
    uint8_t dtype; /* DT_* */
    int32_t amount[3];
    uint32_t flags; /* EVF_* */
} ev_info_t;

/* self: the participant whose handler runs (HANDLE_NONE for the map). */
typedef int (*ev_handler_t)(game_t *g, ev_info_t *e, handle_t self);

/* A watcher of events for tests and tools (the arena counts attacks):
 * called once for every event thrown, before its phases. Lent through
 * game_t.watch, never saved; the rules never read it. */
typedef void (*ev_watch_t)(void *ctx, const ev_info_t *e);

int event_throw(game_t *g, ev_info_t *e);

#endif
