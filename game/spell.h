/* spell — casting. Spells are content (spells.lua: name, mana, a bolt, a
 * heal, a breath or a hex, damage type or effect, dice; content_t.spells);
 * a spell's id is its place in that list and a spell set is a mask of ids
 * (spell_kind_t in content.h). The player casts from a menu (Z) with
 * mana, aiming with the target cursor; monsters cast by purpose (ai.c) through spell_first and
 * spell_cast_at. */
#ifndef WARREN_SPELL_H
#define WARREN_SPELL_H
#include <stdbool.h>
#include <stdint.h>
#include "content.h"

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
/* True for the spells that aim: bolts, hexes, areas and breath. */
bool spell_aims(const spell_kind_t *s);
/* caster casts spell at target (a heal, buff, power: on itself; an area:
 * bursting on the target), mana aside: what the spell's effect does. The
 * player's bolts and areas grow a die every fourth level, a monster's
 * bolts and breath likewise. True when it took effect (a hex resisted
 * did not). */
bool spell_cast_at(game_t *g, handle_t caster, handle_t target, int spell);
/* The first spell of set with this effect (SPELL_*); -1 when none. */
int spell_first(const content_t *c, uint32_t set, int effect);

#endif
