/* peersum — what a node says of its games at each heartbeat (peer.h): a
 * line per live Warren game, stored in the node's heartbeat row (db.h:
 * db_lease_renew) and read by the other nodes, so their lists show each
 * game's race, class, depth, turn, terminal size and idle as its own
 * node does, without a watcher and without a write per key. Pure: no
 * loop, no database, so the parser is fuzzed on its own
 * (tests/fuzz/peersum.c).
 *
 * A line: GAME DEPTH MAXDEPTH XL TURN W H IDLE RACE CLASS, separated by
 * one space and ended by '\n'. Numbers are decimal: IDLE is the ms since
 * the player's last key when the line was made, W x H the player's
 * terminal (0 x 0 while nobody plays it). RACE and CLASS are
 * percent-encoded (every byte outside '!'..'~', and '%'), "-" when empty.
 *
 * Bad input (a field missing, not a number or out of range, a text too
 * long, a game twice, more than PEERSUM_GAMES_MAX lines) is refused whole
 * with a message: nothing of it is kept. */
#ifndef WARREN_PEERSUM_H
#define WARREN_PEERSUM_H
#include <stddef.h>
#include <stdint.h>
#include "buf.h"

#define PEERSUM_TEXT_MAX  15    /* bytes of a race or class (session_status_t's) */
#define PEERSUM_GAMES_MAX 20000 /* lines of one summary (peer.c's list holds as many) */

typedef struct {
    int64_t game;
    int depth, max_depth, xl;
    int w, h;
    uint64_t turn, idle_ms;
    char race[PEERSUM_TEXT_MAX + 1], cls[PEERSUM_TEXT_MAX + 1];
} peersum_game_t;

/* Appends g's line to b (texts past PEERSUM_TEXT_MAX cut). */
void peersum_put(buf_t *b, const peersum_game_t *g);
/* The lines of text[0, n): 0 with *out (malloc'd, the caller frees it;
 * NULL when there are none) holding *nout games sorted by game; -1 with
 * *why (nothing allocated) when the text is bad or memory ran out. */
int peersum_parse(const char *text, size_t n, peersum_game_t **out, size_t *nout, const char **why);
/* game's line in v (n games, sorted as peersum_parse leaves them), or NULL. */
const peersum_game_t *peersum_find(const peersum_game_t *v, size_t n, int64_t game);

#endif
