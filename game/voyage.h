/* voyage — passage between towns, sold at a town's inn (the shop service
 * "passage", content's town.lua): by coach to the towns a road joins to
 * this one, by ship or riverboat along the water routes (atlas.h's
 * links). The screen lists each destination, the way, the journey's time
 * and its price (the service's gold for every stage of four cells, by
 * Cha); paying takes the player there, the journey's time passing on the
 * way. Nobody carries the bearer of the Heartstone, nor a thief with
 * unpaid goods. */
#ifndef WARREN_VOYAGE_H
#define WARREN_VOYAGE_H
#include "world.h"

#define VOYAGE_MAX   16
#define VOYAGE_STAGE 4 /* cells a stage */

typedef struct {
    int town;  /* where to */
    int by;    /* ATLAS_BY_* */
    int river; /* its river (by river) */
    int turns; /* the journey */
    int gold;  /* its price */
} voyage_t;

/* Where the inn whose keeper is g->shop_keeper sends travellers: how
 * many, into out. */
int voyage_list(const game_t *g, voyage_t out[VOYAGE_MAX]);
/* The passage service (shop.c): the list, or a message why not. No time. */
int voyage_open(game_t *g);
/* PROMPT_VOYAGE's row (prompt.c): a letter travels, Escape goes back to
 * the inn's trade screen. */
int voyage_key(game_t *g, key_event_t k);
void voyage_draw(game_t *g, screen_t *s);

#endif
