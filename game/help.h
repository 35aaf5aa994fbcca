/* help — what the command table (cmd.h) tells the player: the help screen
 * (?) listing every command, and the bottom line that cycles through them,
 * one command further with each key. */
#ifndef WARREN_HELP_H
#define WARREN_HELP_H
#include "game.h"

int help_open(game_t *g);               /* ? (the command table): no time */
void help_draw(game_t *g, screen_t *s); /* PROMPT_HELP's screen (prompt.c) */
/* The help line on the bottom row, or how the game ended. */
void help_line(game_t *g, screen_t *s);

#endif
