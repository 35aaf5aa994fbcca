/* itemuse — what quaffing, reading, zapping and eating do: one const table
 * indexed by the kind's use id (itemkind.h's ITEM_USE_LIST). Using an item
 * whose effect the player sees identifies its kind (ident.h). Monsters use
 * items through the same table (a hurt monster quaffs healing). */
#ifndef WARREN_ITEMUSE_H
#define WARREN_ITEMUSE_H
#include "game.h"
#include "obj.h"
#include "rng.h"

/* who uses it (aimed at dx, dy for wands). Consumes it (potions, scrolls,
 * food) or a charge. Returns the ticks spent, 0 when nothing happened. */
int itemuse_use(game_t *g, handle_t who, handle_t it, int dx, int dy);
/* A monster's turn with items: quaffs healing when badly hurt. Returns the
 * ticks spent, or 0 when it used nothing. */
int itemuse_monster(game_t *g, handle_t m);
/* Gives a new monster what it carries (from the level's stream r). */
void itemuse_monster_kit(game_t *g, handle_t m, rng_t *r);
/* Everything who carries falls to the floor (death). */
void itemuse_drop_all(game_t *g, handle_t who);

#endif
