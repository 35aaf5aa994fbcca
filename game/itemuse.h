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
/* What an item use does (USE_*: identify, map, light, teleport,
 * remove_curse, heal, cure...), done by who without an item, power its
 * dice (a spell's power, spell.c). True when its effect was plain to see;
 * false for uses that need an item (wands, food). */
bool itemuse_power(game_t *g, handle_t who, int use, const dice_t *power);
/* A monster's turn with items (only a mind that uses items: no beast, no
 * mindless thing; creature.h's mind table): quaffs healing or
 * curing when badly hurt, else, when it sees the player, may zap a charged
 * wand at the player if the player is the first creature along one of the
 * eight lines. Returns
 * the ticks spent, or 0 when it used nothing. */
int itemuse_monster(game_t *g, handle_t m, bool sees);
/* A monster picks up a wanted item (healing, curing, a hurtful wand) from
 * its cell: the ticks spent, or 0. */
int itemuse_monster_pick_up(game_t *g, handle_t m);
/* The nearest wanted item on the floor within radius of monster m (0: its
 * cell), with its place in *x, *y (either may be NULL); HANDLE_NONE if none. */
handle_t itemuse_wanted_near(const game_t *g, handle_t m, int radius, int *x, int *y);
/* True when o's kind, or its enchantment or charges, are not yet known. */
bool itemuse_unidentified(const game_t *g, const obj_t *o);
/* Makes the item and its kind known, and says what it is. */
void itemuse_identify(game_t *g, handle_t it);
/* Gives a new monster what it carries (from the level's stream r). */
void itemuse_monster_kit(game_t *g, handle_t m, rng_t *r);
/* Everything who carries falls to the floor (death). */
void itemuse_drop_all(game_t *g, handle_t who);

#endif
