/* spell — casting. Spells are content (spells.lua: name, mana, a bolt, a
 * heal, a breath or a hex, damage type or effect, dice; content_t.spells);
 * a spell's id is its place in that list and a spell set is a mask of ids
 * (spell_kind_t in content.h). The player casts from a menu (Z) with
 * mana; monsters cast by purpose (ai.c) through spell_first and
 * spell_cast_at. */
#ifndef WARREN_SPELL_H
#define WARREN_SPELL_H
#include <stdbool.h>
#include <stdint.h>
#include "content.h"

/* Z (the command table): opens the spell menu, or says there is none. No time. */
int spell_menu(game_t *g);
/* The menu's prompt row (prompt.c): a spell's letter casts it, any other
 * key cancels. */
int spell_menu_key(game_t *g, key_event_t k);
void spell_menu_draw(game_t *g, screen_t *s);
/* The player casts a known spell (at the nearest foe in view, a heal on
 * oneself): ticks spent, 0 when nothing was cast (a message says why). */
int spell_cast(game_t *g, int spell);
/* caster casts spell at target (a heal: on itself), mana aside: what the
 * spell's effect does (bolt, heal, breath, hex). The player's dice grow
 * a die every fourth level, a monster's bolts and breath likewise. True
 * when it took effect (a hex resisted did not). */
bool spell_cast_at(game_t *g, handle_t caster, handle_t target, int spell);
/* The first spell of set with this effect (SPELL_*); -1 when none. */
int spell_first(const content_t *c, uint16_t set, int effect);

#endif
