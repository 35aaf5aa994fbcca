/* worldui — the world-map screen (M): the continent the town lies on
 * (worldmap.h), its territories in colour with their letters, rivers,
 * towns, sea routes, the dungeons' entrances (atlas.h) and a legend; the
 * player's town marked @. Any key
 * returns. It changes nothing but the prompt: the world is made again
 * from the seed each time it is drawn. */
#ifndef WARREN_WORLDUI_H
#define WARREN_WORLDUI_H
#include "game.h"

int worldui_open(game_t *g); /* M (the command table): no time */
/* PROMPT_WORLD's row (prompt.c). */
int worldui_key(game_t *g, key_event_t k);
void worldui_draw(game_t *g, screen_t *s);

#endif
