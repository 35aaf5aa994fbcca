/* help — what the command table (cmd.h) tells the player: the help menu
 * (?) of topics, each topic a page of its commands, and the bottom line
 * that cycles through them: one command further with each count of the
 * host's idle clock (game_view_t.hint_tick), never on a key or a turn, so
 * playing costs the line no bytes at all.
 *
 * Help is a short menu of topics in a small box over the map (as
 * NetHack's ? is), and a topic a box as wide as its lines: every row of
 * the command table is listed by one topic (a unit test holds every row
 * to it), so a page costs a few hundred cells, not the whole screen.
 * Which page is up is g->page under PROMPT_HELP: 0 the menu, 1 + i topic
 * i (saved as it always was; any other value shows the menu). */
#ifndef WARREN_HELP_H
#define WARREN_HELP_H
#include "game.h"

int help_open(game_t *g); /* ? : the menu of topics; no time */
/* PROMPT_HELP's row (prompt.c). On the menu a topic's letter opens it and
 * any other key returns to the game; on a topic ? or < goes back to the
 * menu and any other key (Esc) returns to the game. Every topic fits a
 * page at 80x24 (a unit test holds them to PAGE_ROWS lines). */
int help_key(game_t *g, key_event_t k);
void help_draw(game_t *g, screen_t *s);
/* The topics, for tests: how many, and topic i's name ("items"). */
int help_topics(void);
const char *help_topic_name(int i);
/* The first command the help line shows (an index into cmd_table). */
size_t help_line_first(const game_view_t *view);
/* The help line on the bottom row (under look's cursor, once its ? asks,
 * look's own keys), or how the game ended; returns the column after its
 * text. */
int help_line(game_t *g, screen_t *s, const game_view_t *view);
/* Which prompt's own keys the help line shows, -1 the commands'. */
int help_line_keys(const game_t *g);

#endif
