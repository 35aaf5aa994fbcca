/* help — what the command table (cmd.h) tells the player: the help screen
 * (?) listing every command, a page at a time, and the bottom line that
 * cycles through them: one command further with each count of the host's
 * idle clock (game_view_t.hint_tick), never on a key or a turn, so playing
 * costs the line no bytes at all. */
#ifndef WARREN_HELP_H
#define WARREN_HELP_H
#include "game.h"

int help_open(game_t *g); /* ? (the command table): no time */
/* PROMPT_HELP's row (prompt.c): pages of PAGE_ROWS commands (prompt.h),
 * each with the footer below, so that every command fits from 80x24. */
#define HELP_FOOTER "S (or Ctrl-X): save and return to the menu.  Q: quit the game for good."
int help_key(game_t *g, key_event_t k);
void help_draw(game_t *g, screen_t *s);
/* The first command the help line shows (an index into cmd_table). */
size_t help_line_first(const game_view_t *view);
/* The help line on the bottom row, or how the game ended; returns the
 * column after its text. */
int help_line(game_t *g, screen_t *s, const game_view_t *view);

#endif
