/* status — what timed effects, equipment and hunger do to a creature.
 *
 * Effect kinds name the generic "status" hook (content effects.lua): it
 * prints the kind's start and end messages and heals on each tick.
 * Bonuses, speed and conditions (blind, confused, paralysed, free action,
 * afraid, asleep) are read while the effect is there, never stored.
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
/* The speed who moves at now, derived each time and never stored: its
 * base speed plus equipment and effects, times the effects' multipliers,
 * at least SPEED_MIN. So effects compose and wear off exactly. */
#define SPEED_MIN 10
int status_speed(const game_t *g, handle_t who);
/* The EFK_* conditions on who now: its effects' and its natural sleep
 * (OF_ASLEEP); free action takes paralysis away. */
unsigned status_conditions(const game_t *g, handle_t who);
/* True when who has one of the EFK_* conditions. */
bool status_has(const game_t *g, handle_t who, unsigned efk);
/* What who's conditions do to its turn (one table for monsters and the
 * player): the sum of the rows of every condition it has. */
typedef struct {
    bool lose_turn;  /* paralysed or asleep: the turn passes */
    uint8_t stagger; /* percent of its steps that go astray (confused) */
    bool flee;       /* afraid: it runs, and fights only when cornered */
    bool blind;      /* no sight: it goes by sound and memory */
    bool no_magic;   /* cannot cast, read or zap (confused) */
} conduct_t;
void status_conduct(const game_t *g, handle_t who, conduct_t *out);
/* Applies effect kind to who for a duration: the effect's handle, or NONE
 * when it did not take. dc 0: nothing resists (a potion you drink); else
 * who resists by its mind (the mindless know no fear), free action
 * (paralysis), or the kind's save against dc (combat_save). */
handle_t status_apply(game_t *g, handle_t who, int kind, int32_t duration, int32_t magnitude,
                      int dc);
/* Status effects are counted while they run, so that the usual "none at
 * all" answer costs no walk: forget drops who's from the count before
 * they go without end hooks (death); recount rebuilds it (a load). */
void status_forget(game_t *g, handle_t who);
void status_recount(game_t *g);
/* Removes every effect of who carrying one of the flags (with end hooks). */
void status_cure(game_t *g, handle_t who, unsigned efk_mask);
/* Ends one effect now, with its end hook. */
void status_end(game_t *g, handle_t eff);

/* The scheduler function counting hunger down (world's FN_HUNGER). */
void status_hunger_tick(game_t *g, const event_t *ev);
const char *status_hunger_word(const game_t *g); /* "", "Hungry", "Weak", "Fainting" */
/* Passes turns until healed (hit points and mana) or interrupted (R). */
void status_rest(game_t *g);
/* Before a player command: true when the player cannot act (paralysed):
 * the turn is lost (the conduct table). */
bool status_player_stuck(game_t *g);

#endif
