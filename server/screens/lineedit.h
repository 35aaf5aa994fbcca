/* lineedit — the one-line editor of the menu's prompts (Name:, Password:,
 * a mail), a watcher's chat line, the player's and the rc editor's: a pure
 * function over a key, so every prompt edits the same way and the editor
 * is tested alone.
 *
 * The line is UTF-8, bounded in bytes (max): any printable character
 * typed goes in (what a name may hold is the name rule's to say, with a
 * message, never the editor's to drop). A cursor (a byte offset, always
 * at a character's start) moves and deletes by whole characters; a
 * character is one cell wide on the screen grid, so a line's width is its
 * count of characters (lineedit_cols). */
#ifndef WARREN_LINEEDIT_H
#define WARREN_LINEEDIT_H
#include <stddef.h>
#include "keys.h"

typedef enum {
    LINE_IGNORED = 0, /* the key changes nothing */
    LINE_EDITED,      /* the line or the cursor changed: redraw */
    LINE_ENTER,       /* Enter: the line is done */
    LINE_CANCEL,      /* Esc: leave the prompt */
    LINE_FULL,        /* a character that does not fit in max bytes */
} line_action_t;

/* Applies key k to line (NUL-terminated, *len bytes, room for max + 1)
 * with the cursor at *at (<= *len): a printable character goes in at the
 * cursor while the line stays within max bytes; Left/Right, Home/End (and
 * Ctrl-A/Ctrl-E) move by characters; Backspace drops the character before
 * the cursor, Delete (and Ctrl-D) the one under it; Ctrl-U clears. */
line_action_t lineedit_key_at(char *line, size_t *len, size_t *at, size_t max, key_event_t k);
/* The same with the cursor always at the end (the prompts and chat lines). */
line_action_t lineedit_key(char *line, size_t *len, size_t max, key_event_t k);

/* Cells the first n bytes of line take on the grid (its characters). */
int lineedit_cols(const char *line, size_t n);
/* The start of the last room characters of line (len bytes): what a
 * field room cells wide shows of a long line's end. */
const char *lineedit_tail(const char *line, size_t len, int room);

#endif
