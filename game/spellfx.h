/* spellfx — spell effects that items use too (spell.h's SPELL_EFFECT_LIST
 * names their functions; spell.c's table calls them). Items use them
 * through spell_cast_kind (spell.h) when their use is "cast"
 * (item_kind_t.does).
 *
 * BEAM: damage to every creature on the line, as far as it reaches.
 * CONE: damage to every creature within the radius and 45 degrees of the
 *   aim, the caster spared.
 * CHAIN: damage to the first creature on the line, then an arc to the
 *   nearest other within three steps of the last, three more at most.
 * PUSH: damage to the first creature on the line, which is thrown back up
 *   to three steps; a wall it hits hurts it as much again.
 * BANISH: the first creature on the line is sent elsewhere on the level
 *   (the warden stands fast).
 * MEND: hit points back (the dice) and poison ended.
 * VIGOUR: hit points back; what would heal past full raises the most by
 *   up to 3, and every ailment ends.
 * RENEW: every hit point back, every ailment ended, drained abilities
 *   restored.
 * HOLY: damage to every undead or demon the caster sees, which take fright.
 * MASS_HEX: the status on every creature the caster sees (its save resists).
 * SHROUD: every creature that sees the caster loses track of it. */
#ifndef WARREN_SPELLFX_H
#define WARREN_SPELLFX_H
#include <stdbool.h>
#include "content.h"
#include "world.h"

/* The spell functions' signature (spell.c's): caster, the target (a bolt's
 * first creature; the caster for one cast on itself), the place aimed at
 * or where it bursts, the kind and its dice grown with the caster. */
#define SPELLFX_ARGS                                                                  \
    game_t *g, handle_t caster, handle_t target, int x, int y, const spell_kind_t *s, \
        const dice_t *d
bool cast_beam(SPELLFX_ARGS);
bool cast_cone(SPELLFX_ARGS);
bool cast_chain(SPELLFX_ARGS);
bool cast_push(SPELLFX_ARGS);
bool cast_banish(SPELLFX_ARGS);
bool cast_mend(SPELLFX_ARGS);
bool cast_vigour(SPELLFX_ARGS);
bool cast_renew(SPELLFX_ARGS);
bool cast_holy(SPELLFX_ARGS);
bool cast_mass_hex(SPELLFX_ARGS);
bool cast_shroud(SPELLFX_ARGS);

#endif
