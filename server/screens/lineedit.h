/* lineedit — the one-line editor of the menu's prompts (Name:, Password:,
 * a mail), a watcher's chat line and the player's: a pure function over a
 * key, so every prompt edits the same way and the editor is tested alone.
 * ASCII only and bounded: names and passwords are typed here. */
#ifndef WARREN_LINEEDIT_H
#define WARREN_LINEEDIT_H
#include <stddef.h>
#include "keys.h"

typedef enum {
    LINE_IGNORED = 0, /* the key changes nothing */
    LINE_EDITED,      /* the line changed: redraw */
    LINE_ENTER,       /* Enter: the line is done */
    LINE_CANCEL,      /* Esc: leave the prompt */
} line_action_t;

/* Applies key k to line (NUL-terminated, *len bytes, room for max + 1):
 * printable ASCII appends while *len < max, Backspace drops one UTF-8
 * character, Ctrl-U clears. */
line_action_t lineedit_key(char *line, size_t *len, size_t max, key_event_t k);

#endif
