/* combat — the attack chain's rules (attack -> hit -> damage -> death):
 * d20 + attack bonus against defence (a natural 20 always hits and,
 * confirmed, crits; a natural 1 misses), damage dice, sneak attacks on
 * foes that have not noticed you, saving throws (a Ref save halves an
 * element's bolt or breath), damage types and resistances, armour,
 * drained abilities, wounds told, death with its experience, the
 * Heartstone and the tombstone's cause, and uniques. */
#ifndef WARREN_COMBAT_H
#define WARREN_COMBAT_H
#include <stdbool.h>
#include <stddef.h>
#include "event.h"

/* The parts the built-in creature handler (rules.c) plays: the attacker's
 * MAIN ATTACK, the victim's MAIN DAMAGE and death. */
int combat_attack(game_t *g, ev_info_t *e);
int combat_damage(game_t *g, ev_info_t *e, obj_t *victim);
void combat_death(game_t *g, handle_t victim, handle_t killer); /* killer NONE: no one */
/* A saving throw of who (SAVE_FORT, SAVE_REF or SAVE_WILL) against dc:
 * d20 plus the player's save (Cha steels it against fear, efk holding
 * EFK_(AFRAID)) or half a monster's level. True when it saves. */
bool combat_save(game_t *g, handle_t who, int save, int dc, unsigned efk);
/* The dc of what actor casts, zaps or breathes: 10 plus half its level
 * (the player: plus Int or Wis, the better). */
int combat_dc(const game_t *g, handle_t actor);
/* How h takes damage of dtype (DT_*): 0 whole, 1 halved (it resists, by
 * race, kind or gear), 2 not at all (immune). */
int combat_resistance(game_t *g, handle_t h, int dtype);
/* How hurt o looks: "unhurt", "lightly wounded", ... "almost dead". */
const char *combat_wound_word(const obj_t *o);
/* Milestones (and a message) for uniques coming into view the first time. */
bool combat_unique_seen(game_t *g);

#endif
