/* prompt — what the game is waiting for, and what a key means there.
 *
 * A game always waits on one prompt (game_t.prompt): PROMPT_NONE is play,
 * where keys go to the command table (cmd.h); the others are screens and
 * questions. One const table holds a row per prompt: its key handler and
 * what it draws. game_input hands each key to the current row; render
 * draws the row's screen instead of the map, or its line and cursor over
 * the map. Adding a prompt is adding an id here and a row in prompt.c.
 *
 * Ids are saved (game_t.prompt in snapshots): append only. */
#ifndef WARREN_PROMPT_H
#define WARREN_PROMPT_H
#include <stdint.h>
#include "game.h"

enum {
    PROMPT_NONE = 0,
    PROMPT_QUIT,
    PROMPT_MORE,
    PROMPT_HISTORY,
    PROMPT_RACE,
    PROMPT_CLASS,
    PROMPT_LEVELUP,
    PROMPT_TRAVEL,
    PROMPT_LOOK,
    PROMPT_HELP,
    PROMPT_CAST,
    PROMPT_DOOR,
    PROMPT_WORLD,
    PROMPT_TARGET,
    PROMPT_SHOP,        /* the trade screen (shop.h) */
    PROMPT_VICTORY,     /* the game is won (escape.h): shown, never waited on */
    PROMPT_ATTACK,      /* "Really attack the shopkeeper?" (target.h) */
    PROMPT_SHEET,       /* the character sheet (sheet.h) */
    PROMPT_DISCOVERIES, /* the discoveries list (discoveries.h) */
    PROMPT_VOYAGE,      /* an inn's passage: where to travel (voyage.h) */
    PROMPT_WELCOME,     /* a new level's --More--, before its choices (chargen.h) */
    PROMPT_COUNT
};

enum {
    PF_PAGING = 1 << 0, /* its keys only page or close: the world never sees them */
    PF_SCREEN = 1 << 1, /* draw fills the screen instead of the map view */
    PF_CURSOR = 1 << 2, /* the map's cursor is on g->cur_x, cur_y, not the player */
    PF_LIST = 1 << 3,   /* with PF_SCREEN: a list drawn from the left, which the view
                         * may put over the map's right side instead (render.h) */
};

typedef struct {
    uint8_t id;    /* PROMPT_*: the row's index */
    uint8_t flags; /* PF_* */
    /* A key while the prompt is up: the ticks the player spent (0: none). */
    int (*key)(game_t *g, key_event_t k);
    /* Its screen (PF_SCREEN), or its part over the map; NULL: nothing. */
    void (*draw)(game_t *g, screen_t *s);
    /* A PF_LIST's box width on every page, so that paging does not move
     * it (NULL: each page's own widest line). */
    int (*width)(const game_t *g);
} prompt_t;

/* Paged screens (help, history) show PAGE_ROWS rows a page whatever the
 * terminal, so a replay at any size takes the same keys the same way
 * (an 80x24 screen shows a whole page with its title and footer). A key
 * on one: space, >, j, Page Down or Down goes on (the last page closes),
 * <, k, Page Up or Up goes back; any other key closes. */
#define PAGE_ROWS 20
void prompt_page_key(game_t *g, key_event_t k, int pages);
/* What those keys do on page (0-based) of pages, for a paged screen's
 * title: "space: NEXT, Esc returns" and so on, true on every page; next
 * and prev name the directions ("next", "older"). Returns out. */
const char *prompt_page_hint(int page, int pages, const char *next, const char *prev, char *out,
                             size_t n);

/* A question on the top line, over the messages, for a row that asks
 * (quit, a door's direction, "Really attack?"): drawn, never logged, so
 * the message history and the dump hold what happened, not what was
 * asked. */
void prompt_ask(screen_t *s, const char *question);

/* The row of the prompt g waits on (never NULL: ids are checked on load);
 * a won game shows PROMPT_VICTORY's screen (g->prompt is never set to it). */
const prompt_t *prompt_of(const game_t *g);

#endif
