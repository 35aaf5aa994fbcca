/* end — how a game ends and what it leaves: victory (climbing out with
 * the Heartstone), the score, the status a lobby shows, and the dump. */
#ifndef WARREN_END_H
#define WARREN_END_H
#include <stdint.h>
#include "game.h"

/* Depth reached, experience, kills, the Heartstone and victory; a quick
 * victory is worth more than a slow one. */
int64_t end_score(const game_t *g);
void end_win(game_t *g);                             /* the player climbed out with the stone */
void end_status(const game_t *g, game_status_t *st); /* game_status */
void end_dump(const game_t *g, buf_t *out);          /* game_dump */
/* The character's lines the dump and the sheet (C) begin with: name,
 * level, depth, hit points, abilities, attack, defence, saves, resists,
 * how the game ended. */
void end_sheet(const game_t *g, buf_t *out);

#endif
