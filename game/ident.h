/* ident — identification (Incursion): unknown potions, scrolls, wands,
 * rings and amulets carry a random flavour per game ("a fizzing violet
 * potion", "a scroll labelled ZELGO MER"), drawn from the game's seed.
 * A kind becomes known by using it (when its effect is obvious), by a
 * scroll of identify, or by watching a monster use it to obvious effect.
 * Names shown to the player follow what is known; rules use actual kinds. */
#ifndef WARREN_IDENT_H
#define WARREN_IDENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game.h"
#include "obj.h"

/* Deals this game's flavours (item_state_init calls it). */
void ident_deal(game_t *g);
bool ident_known(const game_t *g, uint16_t kind);
/* Marks the kind known; true when it was not known before. */
bool ident_learn(game_t *g, uint16_t kind);
/* The unknown name and plural ("fizzing violet potion(s)"). */
void ident_flavour_name(const game_t *g, uint16_t kind, char *name, size_t n, char *plural,
                        size_t pn);
/* Whether kind goes by a flavour until known (potions, scrolls, wands,
 * rings and amulets that are not one of a kind). */
bool ident_flavoured(const game_t *g, uint16_t kind);
/* Someone used kind where the player saw it (user may be the player): if
 * its effect is obvious, the kind becomes known, with a message. */
void ident_seen_use(game_t *g, handle_t user, uint16_t kind);

#endif
