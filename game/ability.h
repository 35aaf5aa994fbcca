/* ability — what monsters do besides blows and spells, as their kinds
 * declare it (ability_t in content.h): breath in a cone or a line that
 * must recharge, a boon put on itself before a fight, kin called to its
 * side (never more than the kind's bound on the level), a hop away from
 * a foe beside it; and theft of gold or an item followed by flight, which
 * a thief's own handler asks for (verb.h's steal). The AI asks
 * ability_turn first on each of a monster's turns. */
#ifndef WARREN_ABILITY_H
#define WARREN_ABILITY_H
#include <stdbool.h>
#include "world.h"

/* A monster h, aware of its foe (d steps away, seen or not, fleeing or
 * not), may use an ability now: true when its turn went on one. */
bool ability_turn(game_t *g, handle_t h, handle_t foe, int d, bool sees, bool flee);
/* h breathes towards (tx, ty): everyone in its cone or line but h takes
 * the breath's damage (a Ref save halves an element's); its breath then
 * recharges. False when it has no breath. */
bool ability_breathe(game_t *g, handle_t h, int tx, int ty);
/* Whether (x, y) lies in the breath of h aimed at (tx, ty): within its
 * range, in the cone (45 degrees either side) or on the line, with open
 * ground all the way from h. */
bool ability_breath_covers(game_t *g, handle_t h, int tx, int ty, int x, int y);
/* h hops to a free floor cell out of its foe's reach: true when it moved. */
bool ability_blink(game_t *g, handle_t h, handle_t foe);
/* h calls its kin to its side, up to its kind's bound: how many came;
 * -1 (no call, no time) when the bound is reached already. */
int ability_summon(game_t *g, handle_t h);
/* thief takes gold (else an item) or an item (else gold) from victim,
 * the player, unless its Ref save against the thief keeps hold; then it
 * hops away and runs with it. One running already steals no more. True
 * when it took something. */
bool ability_steal(game_t *g, handle_t thief, handle_t victim, bool gold);

#endif
