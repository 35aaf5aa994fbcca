/* spell — casting. Spells are content (spells.lua: name, mana, a bolt or a
 * heal, damage type, dice; content_t.spells); a spell's id is its place in
 * that list and a spell set is a mask of ids (spell_kind_t in content.h).
 * The player casts from a menu (Z) with mana; monsters cast by purpose
 * (ai.c) through spell_first. */
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
/* The player casts a known spell (at the nearest foe in view for a bolt):
 * ticks spent, 0 when nothing was cast (a message says why). */
int spell_cast(game_t *g, int spell);
/* The first spell of set that heals (heal) or does not; -1 when none. */
int spell_first(const content_t *c, uint16_t set, bool heal);

#endif
