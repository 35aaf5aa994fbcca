/* spell — casting. Spells are content (spells.lua: name, mana, an effect,
 * and what that effect needs: damage type, timed effect, radius, item use,
 * dice; content_t.spells); a spell's id is its place in that list and a
 * spell set is a mask of ids (spell_kind_t in content.h). The player casts
 * from a menu (Z) with mana, aiming with the target cursor; monsters cast
 * by purpose (ai.c) through spell_first and spell_cast_at.
 *
 * What a spell does is its effect: a row of SPELL_EFFECT_LIST, X(ID, fn,
 * flags), where fn is spell.c's function that casts it and flags say what
 * it needs and how it is cast. Content names an effect in lower case
 * ("bolt"); the ids are not saved (a spell is saved by its id, its effect
 * read from the content), but new effects go last all the same. */
#ifndef WARREN_SPELL_H
#define WARREN_SPELL_H
#include <stdbool.h>
#include <stdint.h>
#include "content.h"

/* SPF_DAMAGE, SPF_STATUS, SPF_RADIUS, SPF_USE: the spell's field dtype,
 * status (a timed effect), radius or use is required, and others have none
 * (the loader checks: declare.c). SPF_AIMS: cast at a target chosen with
 * the cursor; SPF_BURST: bursts on the first creature in the line or where
 * it ends, not at the first creature only; SPF_GROWS: its dice grow a die
 * every fourth level of the player casting it, every sixth of a monster. */
enum {
    SPF_DAMAGE = 1 << 0,
    SPF_STATUS = 1 << 1,
    SPF_RADIUS = 1 << 2,
    SPF_USE = 1 << 3,
    SPF_AIMS = 1 << 4,
    SPF_BURST = 1 << 5,
    SPF_GROWS = 1 << 6,
};

/* BOLT: damage to the first creature on the line to the target (a Ref save
 *   halves an element's).
 * HEAL: heals the caster.
 * BREATH: a monster's breath, damage a Ref save halves (not a spell: what
 *   shrugs off spells does not shrug it off).
 * HEX: a timed effect on the first creature on the line (the effect's own
 *   save resists it).
 * AREA: damage to every creature within the radius of where it bursts, the
 *   caster spared.
 * BUFF: a timed effect on the caster, no save.
 * SUMMON: creatures of the depth around the caster.
 * POWER: what an item use does (identify, map, light, teleport,
 *   remove_curse, cure) for the caster.
 * DETECT: traps and secret doors within the radius of the caster are found.
 * BEAM, CONE, CHAIN, PUSH, BANISH, MEND, VIGOUR, RENEW, HOLY, MASS_HEX,
 * SHROUD: spellfx.h, where their functions are. */
#define SPELL_EFFECT_LIST(X)                                                       \
    X(BOLT, cast_bolt, SPF_DAMAGE | SPF_AIMS | SPF_GROWS)                          \
    X(HEAL, cast_heal, 0)                                                          \
    X(BREATH, cast_breath, SPF_DAMAGE | SPF_AIMS | SPF_GROWS)                      \
    X(HEX, cast_hex, SPF_STATUS | SPF_AIMS)                                        \
    X(AREA, cast_area, SPF_DAMAGE | SPF_RADIUS | SPF_AIMS | SPF_BURST | SPF_GROWS) \
    X(BUFF, cast_buff, SPF_STATUS)                                                 \
    X(SUMMON, cast_summon, 0)                                                      \
    X(POWER, cast_power, SPF_USE)                                                  \
    X(DETECT, cast_detect, SPF_RADIUS)                                             \
    X(BEAM, cast_beam, SPF_DAMAGE | SPF_AIMS | SPF_GROWS)                          \
    X(CONE, cast_cone, SPF_DAMAGE | SPF_RADIUS | SPF_AIMS | SPF_GROWS)             \
    X(CHAIN, cast_chain, SPF_DAMAGE | SPF_AIMS | SPF_GROWS)                        \
    X(PUSH, cast_push, SPF_DAMAGE | SPF_AIMS)                                      \
    X(BANISH, cast_banish, SPF_AIMS)                                               \
    X(MEND, cast_mend, 0)                                                          \
    X(VIGOUR, cast_vigour, 0)                                                      \
    X(RENEW, cast_renew, 0)                                                        \
    X(HOLY, cast_holy, SPF_DAMAGE)                                                 \
    X(MASS_HEX, cast_mass_hex, SPF_STATUS)                                         \
    X(SHROUD, cast_shroud, 0)

enum {
#define SPELL_EFFECT_ENUM_(id, fn, flags) SPELL_##id,
    SPELL_EFFECT_LIST(SPELL_EFFECT_ENUM_)
#undef SPELL_EFFECT_ENUM_
        SPELL_EFFECTS
};

/* Z (the command table): opens the spell menu, or says there is none. No time. */
int spell_menu(game_t *g);
/* A known spell's letter in the menu: the known spells in id order are
 * a, b, c...; 0 when the spell is not known (or past z). */
int spell_letter(const game_t *g, int spell);
/* The menu's prompt row (prompt.c): a spell's letter casts it, any other
 * key cancels. */
int spell_menu_key(game_t *g, key_event_t k);
void spell_menu_draw(game_t *g, screen_t *s);
/* The aimed spell cast towards (x, y) (the cursor's confirm): a bolt or
 * hex at the first creature on the line, an area bursting there or where
 * aimed. Mana is paid; ticks spent (0: it could not be cast). */
int spell_cast_toward(game_t *g, int spell, int x, int y);
/* caster casts spell at target (a heal, buff, power: on itself; an area:
 * bursting on the target), mana aside: what the spell's effect does. The
 * player's bolts and areas grow a die every fourth level, a monster's
 * bolts and breath every sixth. True when it took effect (a hex resisted
 * did not). */
bool spell_cast_at(game_t *g, handle_t caster, handle_t target, int spell);
/* The first spell of set with this effect (SPELL_*); -1 when none. */
int spell_first(const content_t *c, uint32_t set, int effect);
/* A spell kind s that is not one of the content's spells (what an item
 * does when its use is "cast") cast by caster at the place (x, y): one
 * that aims goes along the line from the caster towards it (at its first
 * creature, or bursting where the line ends); the others on the caster.
 * Its dice are its own. True when it took effect. */
bool spell_cast_kind(game_t *g, handle_t caster, const spell_kind_t *s, int x, int y);

#endif
