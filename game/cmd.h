/* cmd — the player's commands: one const table (key, label, what it does,
 * function) that key dispatch, the help screen and the cycling help line
 * all read. A row with run NULL documents keys handled elsewhere
 * (movement: vi-keys, arrows, numpad). Adding a command is adding a row. */
#ifndef WARREN_CMD_H
#define WARREN_CMD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game.h"

typedef struct {
    uint32_t code;
    const char *label; /* what help shows ("^P") */
    const char *what;
    int (*run)(game_t *g); /* ticks spent; 0: no time */
} cmd_t;
const cmd_t *cmd_table(size_t *n);
/* A row's function that is fn with a fixed argument, in one line:
 * CMD_BIND(trap_cmd_kick, ask, DOOR_KICK) defines
 * int trap_cmd_kick(game_t *g) { return ask(g, DOOR_KICK); } */
#define CMD_BIND(name, fn, arg) \
    int name(game_t *g)         \
    {                           \
        return fn(g, arg);      \
    }

/* PROMPT_NONE's row (prompt.c): a key in play, to an open item screen, a
 * move or the table's command; ticks spent. */
int cmd_key(game_t *g, key_event_t k);
/* A move key's direction (false: not one, or a wait key). */
bool cmd_direction(key_event_t k, int *dx, int *dy);
/* PROMPT_QUIT's row: y ends the game for good, any other key goes back. */
int cmd_quit_key(game_t *g, key_event_t k);
void cmd_quit_draw(game_t *g, screen_t *s); /* its question */

#endif
