/* ego — runic weapons and armour, and artifacts (ego_kind_t in content.h).
 *
 * An item's ego is obj_t a[1] (item.h): its ego kind + 1, 0 none; an
 * artifact kind names a fixed one (item_kind_t.ego). Treasure of the
 * gear classes comes with an ego at a chance growing with depth
 * (ego_roll). While equipped an ego adds its bonuses and resistances to
 * the wearer (item_gear), a weapon's brand and slaying their dice to its
 * blows. An ego is known with the item's enchantment (IF_KNOWN); an
 * artifact is always known. Artifacts are made at most once a game:
 * pc_t.artifacts_made holds a bit per artifact kind in content order. */
#ifndef WARREN_EGO_H
#define WARREN_EGO_H
#include <stdbool.h>
#include "world.h"

#define EGO_CHANCE_MAX 20 /* percent of gear treasure with an ego, at most */
/* The ego kind of item it (its own or its artifact kind's); -1 none. */
int ego_of(const game_t *g, const obj_t *it);
/* Percent of new gear treasure with an ego at depth: 3 + depth, at most EGO_CHANCE_MAX. */
int ego_chance(int depth);
/* A new item at depth may get an ego (from r): the ego kind, or -1.
 * An ego item is never made cursed (unless its kind always is). */
int ego_roll(game_t *g, handle_t it, int depth, rng_t *r);
/* What it's ego adds while equipped, into out (known_only: only when known). */
void ego_gear(const game_t *g, const obj_t *it, bool known_only, gear_t *out);
/* Extra damage of attacker's blow on victim from its wielded weapon's ego. */
int ego_blow_damage(game_t *g, handle_t attacker, handle_t victim);
/* The character's resistances (race and gear; known_only: what the
 * sheet shows) as words, "fire cold", into out; "" when none. */
void ego_resist_words(const game_t *g, bool known_only, char *out, size_t n);
/* An artifact kind's order among the content's artifacts, or -1 (or past 64). */
int ego_artifact_index(const content_t *c, uint16_t kind);
/* Whether artifact kind was made already this game (false for other kinds). */
bool ego_artifact_made(const game_t *g, uint16_t kind);

#endif
