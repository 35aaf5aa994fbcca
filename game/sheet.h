/* sheet — the character sheet (C): the lines the dump begins with (who
 * the character is, its abilities, attack, defence, saves, resists), then
 * its speed, what is on it now and the spells it knows. A screen: any key
 * returns; it spends no time and changes nothing. */
#ifndef WARREN_SHEET_H
#define WARREN_SHEET_H
#include "game.h"

int sheet_open(game_t *g);               /* the command (cmd.c's table) */
int sheet_key(game_t *g, key_event_t k); /* PROMPT_SHEET's row (prompt.c) */
void sheet_draw(game_t *g, screen_t *s);

#endif
