/* ansi_shift — the ANSI encoder's search for a view that slid sideways
 * (the map moving under the player), which ansi.c then draws by deleting
 * and inserting characters. Internal to the encoder. */
#ifndef WARREN_ANSI_SHIFT_H
#define WARREN_ANSI_SHIFT_H
#include <stdbool.h>
#include "screen.h"

/* The sideways move most of b's changed rows (changed[y]) show of a: k > 0
 * the content moved left k columns, k < 0 right; *dy the rows it moved
 * with it (> 0 up). 0 when no move has ANSI_DIFF_SEARCH_ROWS votes. full:
 * always by the table of a's windows that defines the votes, never by the
 * quicker way that gives the same move (for tests). */
int ansi_shift_find(const screen_t *a, const screen_t *b, const bool *changed, bool full, int *dy);

#endif
