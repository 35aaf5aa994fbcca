/* msg — what the game tells the player: the message log (MSG_LOG kept
 * and saved; the same words again fold into "(x2)"), --More-- when the
 * new messages overflow the line, the history screen (Ctrl-P, paged), and
 * milestones, the lasting record of a game (game.h's game_milestone_t).
 *
 * Paging decisions use a fixed line of MSG_WIDTH columns, never the
 * terminal's, so a replay at any size takes the same keys the same way. */
#ifndef WARREN_MSG_H
#define WARREN_MSG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "world.h"

#define MSG_WIDTH 80
#define MORE_TEXT " --More--"

/* A message. The same words as the newest message fold into it, read or
 * not ("Not with a kobold in view. (x19)"), and show again. */
void msg_add(game_t *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Message number i (of all ever logged); only the newest MSG_LOG are kept. */
const msg_t *msg_at(const game_t *g, uint32_t i);
/* Room for n messages (at most MSG_LOG) in the log: 0 or -1 (OOM). */
int msg_reserve(game_t *g, uint32_t n);
/* A milestone of kind ("start", "xl", "depth", ...) at this turn and depth. */
void msg_milestone(game_t *g, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int msg_format(const msg_t *m, char *out, size_t n); /* "text (x3)" */
/* Messages from `from` that fit on one line with room for MORE_TEXT (at
 * least one); *all set when every message up to the newest fits whole. */
uint32_t msg_fit(const game_t *g, uint32_t from, bool *all);
/* The newest message takes the place of message `at`, one of those since
 * the player's last key, and is dropped from the end ("e - 11 arrows"
 * over "e - 5 arrows"): false, nothing changed, when `at` is no such
 * message. */
bool msg_restate(game_t *g, uint32_t at);
void msg_dismiss(game_t *g); /* a key was pressed: what was shown is read */
/* What was just said must not slip by (a theft): --More-- waits on a key
 * even when the line holds it all, which stops a travel or explore too;
 * left as it is when another prompt is up (its own --More-- or screen
 * shows the words first). */
void msg_alert(game_t *g);
/* Opens --More-- when the new messages overflow; always at the player's
 * death, so "You die..." waits on a key (game_status_t.more). */
void msg_after_input(game_t *g);

/* The messages since the player's last key, joined, on row y from column
 * x, cut at the screen's edge: a screen drawn over the map (a shop's) shows
 * there what its keys did. */
void msg_draw_new(const game_t *g, screen_t *s, int x, int y);

/* Ctrl-P (the command table): opens the history screen; no time. */
int msg_history(game_t *g);
/* For the prompt table (prompt.c): a key pages --More--; the history
 * screen, PAGE_ROWS messages a page, newest first. */
int msg_more_key(game_t *g, key_event_t k);
int msg_history_key(game_t *g, key_event_t k);
void msg_history_draw(game_t *g, screen_t *s);
/* The history's widest line over all its pages, title included. */
int msg_history_width(const game_t *g);

#endif
