/* discoveries — the discoveries list (\): every kind of potion, scroll,
 * wand, ring and amulet the character has identified, with the look it
 * had before ("potion of healing, the fizzing violet potion"), by class,
 * and how many of each class are still unknown. A paged screen (PAGE_ROWS
 * lines a page, as help); it spends no time and changes nothing. */
#ifndef WARREN_DISCOVERIES_H
#define WARREN_DISCOVERIES_H
#include "game.h"

int discoveries_open(game_t *g);               /* the command (cmd.c's table) */
int discoveries_key(game_t *g, key_event_t k); /* PROMPT_DISCOVERIES's row (prompt.c) */
void discoveries_draw(game_t *g, screen_t *s);

#endif
