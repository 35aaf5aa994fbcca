/* itemui — the item commands and screens: pick up (g ,), drop (d), wear or
 * wield (w), take off (T), quaff (q), read (r), zap (z, then the target
 * cursor), throw (t, then the cursor), quiver (v), eat (E), rest (R), the inventory (i) and equipment (e) screens. A prompt
 * lists what fits and takes a letter; Escape cancels. A scroll of identify
 * read with several unknown items asks which (Escape: the first). The open screen is
 * game state (item_state_t), so it is saved and redrawn like the rest. */
#ifndef WARREN_ITEMUI_H
#define WARREN_ITEMUI_H
#include "game.h"
#include "keys.h"
#include "screen.h"

/* A key while an item screen or prompt is open (g->items.screen): the
 * ticks spent (0: none). */
int itemui_answer(game_t *g, key_event_t k);
/* The commands (cmd.c's table): ticks spent, 0 when none (a prompt opened). */
int itemui_pick_up(game_t *g);
int itemui_drop(game_t *g);
int itemui_wear(game_t *g);
int itemui_put_on(game_t *g);      /* P: rings and amulets */
int itemui_wear_armour(game_t *g); /* W: armour only */
int itemui_take_off(game_t *g);
int itemui_quaff(game_t *g);
int itemui_read(game_t *g);
int itemui_zap(game_t *g);
int itemui_eat(game_t *g);
int itemui_throw(game_t *g);  /* t: what to throw, then the target cursor */
int itemui_quiver(game_t *g); /* v: what the quiver holds */
int itemui_inventory(game_t *g);
int itemui_equipment(game_t *g);
int itemui_rest(game_t *g);
/* Draws the open item screen over the map; false when none is open. */
bool itemui_render(game_t *g, screen_t *s);
/* The words for the status line ("Hungry"), "" when none. */
const char *itemui_status_word(const game_t *g);

#endif
