/* peersum — what a node says of its games at each heartbeat (peer.h): a
 * line per live game (Warren's or hosted), stored in the node's heartbeat row (db.h:
 * db_lease_renew) and read by the other nodes, so their lists show each
 * game's race, class, depth, turn, terminal size and idle as its own
 * node does, without a watcher and without a write per key. Pure: no
 * loop, no database, so the parser is fuzzed on its own
 * (tests/fuzz/peersum.c).
 *
 * A line: GAME DEPTH MAXDEPTH XL TURN W H IDLE RACE CLASS, then any
 * number (at most PEERSUM_EXTRA_MAX) of KEY=VALUE fields, separated by
 * one space and ended by '\n'. Numbers are decimal: GAME is negative for
 * a hosted game (hostgame.h), IDLE is the ms since the player's last key
 * when the line was made, W x H the player's terminal (0 x 0 while
 * nobody plays it). RACE, CLASS and the values are percent-encoded
 * (every byte outside '!'..'~', and '%'), "-" when empty.
 *
 * The fields after CLASS are how the line grows without breaking a
 * reader of an older build: a KEY (1 to PEERSUM_KEY_MAX of a-z, 0-9,
 * '-') this build does not know is skipped, its value unread (at most
 * PEERSUM_FIELD_MAX bytes). Those it knows, written only when not empty
 * or 0 (a hosted game's, which another node lists with no row of it):
 *   kind=ID     the [game ID] of a hosted game
 *   name=TEXT   its name, as lists show it
 *   user=N      its player's account id
 *   player=NAME its player's name
 *   min=WxH     its section's min-size (a smaller terminal is told)
 *   away=1      its player left it running (detached)
 *
 * Bad input (a field missing, not a number or out of range, a text too
 * long, a field past PEERSUM_FIELD_MAX or not KEY=VALUE, more than
 * PEERSUM_EXTRA_MAX of them, a game twice, more than PEERSUM_GAMES_MAX
 * lines) is refused whole with a message: nothing of it is kept. */
#ifndef WARREN_PEERSUM_H
#define WARREN_PEERSUM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"

#define PEERSUM_TEXT_MAX  15    /* bytes of a race or class (session_status_t's) */
#define PEERSUM_GAMES_MAX 20000 /* lines of one summary (peer.c's list holds as many) */
#define PEERSUM_NAME_MAX  63    /* bytes of a hosted game's name */
#define PEERSUM_ID_MAX    31    /* bytes of a hosted game's kind or its player's name */
#define PEERSUM_KEY_MAX   15    /* bytes of a KEY */
#define PEERSUM_FIELD_MAX 255   /* bytes of a KEY=VALUE field */
#define PEERSUM_EXTRA_MAX 16    /* KEY=VALUE fields of one line */

typedef struct {
    int64_t game;
    int depth, max_depth, xl;
    int w, h;
    uint64_t turn, idle_ms;
    char race[PEERSUM_TEXT_MAX + 1], cls[PEERSUM_TEXT_MAX + 1];
    /* the KEY=VALUE fields known (a hosted game's) */
    char kind[PEERSUM_ID_MAX + 1], name[PEERSUM_NAME_MAX + 1], player[PEERSUM_ID_MAX + 1];
    int64_t user;
    int min_w, min_h;
    bool away;
} peersum_game_t;

/* Appends g's line to b (texts past their caps cut). */
void peersum_put(buf_t *b, const peersum_game_t *g);
/* The lines of text[0, n): 0 with *out (malloc'd, the caller frees it;
 * NULL when there are none) holding *nout games sorted by game; -1 with
 * *why (nothing allocated) when the text is bad or memory ran out. */
int peersum_parse(const char *text, size_t n, peersum_game_t **out, size_t *nout, const char **why);
/* game's line in v (n games, sorted as peersum_parse leaves them), or NULL. */
const peersum_game_t *peersum_find(const peersum_game_t *v, size_t n, int64_t game);

#endif
