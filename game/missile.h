/* missile — throwing and shooting.
 *
 * Anything carried and not in use can be thrown (t, then the target
 * cursor). A launcher (bow, crossbow, sling: slot "launcher") fires the
 * ammunition its `ammo` names; f fires what the quiver holds (v chooses
 * it; empty, the first thing that fits), from the launcher, or throws it
 * when it is made for throwing (darts, daggers: flag "throw").
 *
 * A missile flies along target_path towards the cell aimed at (stopping
 * there, at its range, or before a wall). Each creature on the way is
 * attacked through the attack chain (EV_ATTACK with EVF_MISSILE: the
 * to-hit adjustment in amount[0], the damage rolled in amount[1]; the
 * chain sets amount[2] on a hit). A hit stops it; a miss flies on; a
 * peaceful on the way is passed by (target_spares). A missile that hit breaks by its kind's `breaks` percent; every other one
 * lands where it stopped, to be picked up again.
 *
 * To hit: the attack bonus plus Dex, the launcher's and the missile's
 * to_hit and enchantments, less one for every three steps. Damage: a
 * shot, the missile's dice plus the launcher's damage and both
 * enchantments; a thrown weapon made for it, its dice plus Str; anything
 * else 1d2 at -4 to hit.
 *
 * A missile stopped short of its aim says where: "The dart hits the
 * wall." (a door, a tree), or "falls short" where its reach ran out.
 *
 * Monsters with a ranged attack (creature kind range and missile dice)
 * shoot along the same line, through the same chain; a shot that misses
 * flies on behind its mark to its reach, a wall or the next creature,
 * striking no one more, and is told when the player sees it hit a wall. */
#ifndef WARREN_MISSILE_H
#define WARREN_MISSILE_H
#include <stdbool.h>
#include "world.h"

/* who throws one of it (carried, not equipped) towards (x, y): ticks
 * spent, 0 when nothing was thrown. */
int missile_throw(game_t *g, handle_t who, handle_t it, int x, int y);
/* The player fires the quiver towards (x, y): ticks spent, 0 if not. */
int missile_fire(game_t *g, int x, int y);
/* f (the command table): opens the target cursor to fire the quiver, or
 * says why it cannot. No time. */
int missile_cmd_fire(game_t *g);
/* What f fires: the quivered item if it still fits, else the first
 * carried item that does (ammunition for the wielded launcher, or
 * something made for throwing); HANDLE_NONE when none. */
handle_t missile_ready(const game_t *g);
/* Whether it (carried by the player) can go in the quiver. */
bool missile_quiverable(const game_t *g, const obj_t *it);
/* The launcher the player has ready, or HANDLE_NONE. */
handle_t missile_launcher(const game_t *g, handle_t who);
/* A monster with a ranged attack shoots at foe when foe is in its range
 * and first on the line: ticks spent, 0 when it did not shoot. */
int missile_monster(game_t *g, handle_t m, handle_t foe);

#endif
