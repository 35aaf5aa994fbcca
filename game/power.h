/* power — the class powers, one key (Ctrl-A) and one power per class:
 *
 *   fighter  power attack: a stance, on or off (no time); while on, blows
 *            are 2 worse to hit and 2 + level/4 harder (combat.c)
 *   rogue    hide: every monster in view that is not next to the rogue
 *            loses track of it unless it wins a perception roll against
 *            the rogue's stealth, so its next blow is a sneak attack
 *   cleric   turn undead (2 mana): the undead in view of less than half
 *            the cleric's level crumble to dust; the rest make a Will
 *            save or flee in fear (the mindless, who cannot fear, are
 *            seared for 2d6 + the cleric's level)
 *   wizard   arcane spark: 1d4 + level/3 of raw force at a target (the
 *            cursor), free of mana; flung like a missile, not cast, and
 *            of no damage type, so what shrugs off magic or spells (a
 *            clay or flesh golem) takes it all the same: the wizard's
 *            answer with no mana left or against a spell-proof foe
 *
 * The class is found by its content name; a class with no row has no
 * power. */
#ifndef WARREN_POWER_H
#define WARREN_POWER_H
#include "world.h"

/* Ctrl-A (the command table): the class's power; ticks spent. */
int power_use(game_t *g);
/* Whether the class's power is the spark (the mana message names it). */
bool power_is_spark(const game_t *g);
/* The wizard's spark at (x, y), the target cursor's confirm: ticks spent. */
int power_cantrip(game_t *g, int x, int y);

#define TURN_MANA         2
/* How far the spark goes; a spark aimed past it is not flung. */
#define POWER_SPARK_RANGE 8

#endif
