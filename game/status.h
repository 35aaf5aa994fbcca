/* status — what timed effects, equipment and hunger do to a creature.
 *
 * Effect kinds name the generic "status" hook (content effects.lua): it
 * prints the kind's start and end messages, changes speed while the effect
 * lasts and heals on each tick. Bonuses and conditions (blind, confused,
 * paralysed, free action, afraid) are read while the effect is there.
 * Hunger counts down one point a turn (FN_HUNGER); resting (`R`) passes
 * turns until healed or interrupted and may bring wandering monsters. */
#ifndef WARREN_STATUS_H
#define WARREN_STATUS_H
#include <stdbool.h>
#include "effect.h"
#include "item.h"
#include "sched.h"

void status_hook(game_t *g, handle_t eff, obj_t *e, effect_phase_t phase);
/* Equipment plus effects: what the rules use (known_only: the sheet's view). */
void status_stats(const game_t *g, handle_t who, bool known_only, gear_t *out);
/* True when an effect on who carries the EFK_* flag. */
bool status_has(const game_t *g, handle_t who, unsigned efk);
/* Applies effect kind to who for a duration; the player's immunities
 * (free action against paralysis) apply. The effect's handle or NONE. */
handle_t status_apply(game_t *g, handle_t who, int kind, int32_t duration, int32_t magnitude);
/* Status effects are counted while they run, so that the usual "none at
 * all" answer costs no walk: forget drops who's from the count before
 * they go without end hooks (death); recount rebuilds it (a load). */
void status_forget(game_t *g, handle_t who);
void status_recount(game_t *g);
/* Removes every effect of who carrying one of the flags (with end hooks). */
void status_cure(game_t *g, handle_t who, unsigned efk_mask);

/* The scheduler function counting hunger down (world's FN_HUNGER). */
void status_hunger_tick(game_t *g, const event_t *ev);
const char *status_hunger_word(const game_t *g); /* "", "Hungry", "Weak", "Fainting" */
/* Passes turns until healed or interrupted (R). */
void status_rest(game_t *g);
/* Before a player command: true when the player cannot act (paralysed):
 * the turn is lost. */
bool status_player_stuck(game_t *g);

#endif
