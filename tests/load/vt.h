/* vt — the terminal controls warrend's frames use (cursor moves, erases,
 * SGR, charset switches, UTF-8, a scrolling region with index and reverse
 * index, deleting and inserting characters, REP), applied to an 80x24 grid of characters so
 * that warren-load can read what a player would see. Colours and
 * attributes are dropped; a character outside ASCII is stored as '?',
 * but for the map's floor (U+00B7, the middle dot), stored as '.'. */
#ifndef WARREN_LOAD_VT_H
#define WARREN_LOAD_VT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_W      80
#define VT_H      24
#define VT_PARAMS 8

/* Plain data, owned by whoever embeds it; vt_init before use. */
typedef struct {
    char row[VT_H][VT_W + 1]; /* read-only: each row NUL-terminated */
    /* private */
    int x, y;
    int top, bot; /* the scrolling region (DECSTBM), rows inclusive */
    bool wrap;    /* a glyph went into the last column: the next one wraps */
    uint8_t state;
    uint8_t lead; /* the last UTF-8 lead byte */
    char last;    /* the glyph put last, for REP (0: none yet) */
    bool priv;    /* CSI with a private marker (?, <, =, >) */
    int npar;
    int par[VT_PARAMS];
} vt_t;

void vt_init(vt_t *v);
/* Applies n bytes of terminal output (telnet already removed). */
void vt_feed(vt_t *v, const char *p, size_t n);
/* Row y (0 <= y < VT_H) as text, VT_W characters. */
const char *vt_row(const vt_t *v, int y);
/* The character at x, y beside the cursor (dx, dy from it); 0 off the grid. */
char vt_near_cursor(const vt_t *v, int dx, int dy);

#endif
