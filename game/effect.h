/* effect — timed effects (Kharne's timers, saved).
 *
 * An effect is an object in the registry (OBJ_EFFECT) aimed at a target: a
 * kind (content: name, stacking rule, tick interval and start/tick/end hook
 * ids), a magnitude and the ticks it has left. effect_apply runs start now
 * and schedules a tick; every tick accounts the time since the last one,
 * runs the tick hook, and when no time is left runs end and deletes the
 * effect. So a duration of 1 tick still runs start, tick and end.
 *
 * Applying a kind the target already has follows the kind's stacking rule:
 * REFRESH (time left = the longer of the two), ADD (durations add up),
 * STRONGEST (the higher magnitude wins with its duration; equal magnitude
 * refreshes). Start does not run again for a stacked application.
 *
 * Everything is in the registry and the schedule, so it is saved with them. */
#ifndef WARREN_EFFECT_H
#define WARREN_EFFECT_H
#include <stdint.h>
#include "game.h"
#include "obj.h"
#include "sched.h"

typedef enum { STACK_REFRESH = 0, STACK_ADD, STACK_STRONGEST } effect_stack_t;
typedef enum { HOOK_START = 0, HOOK_TICK, HOOK_END } effect_phase_t;

/* A hook gets the effect's handle and object (valid for the call only). */
typedef void (*effect_hook_t)(game_t *g, handle_t eff, obj_t *e, effect_phase_t phase);

/* Returns the effect's handle (new or the stacked one), or HANDLE_NONE when
 * the target or kind is bad, the stacking rule dropped it, or on OOM. */
handle_t effect_apply(game_t *g, handle_t target, uint16_t kind, int32_t duration,
                      int32_t magnitude);
/* The scheduler function for an effect's tick (world's FN_EFFECT_TICK). */
void effect_on_tick(game_t *g, const event_t *ev);
/* Removes every effect on target without running hooks (the target died). */
void effect_clear(game_t *g, handle_t target);
/* The effect of this kind on target, or HANDLE_NONE. */
handle_t effect_find(game_t *g, handle_t target, uint16_t kind);

#endif
