/* rcedit — the telnet rc file editor: a hosted game's rc file (a text of
 * lines) shown full screen, one line chosen, changed, inserted or deleted,
 * then saved or dropped. Pure: keys in, a screen and the text out; the
 * menu (menu.c) reads and writes the file (hostgame.h).
 *
 * Keys while choosing a line: Up/Down (or k/j), PgUp/PgDn, Home/End move;
 * Enter or c changes the line, i inserts a line below it (above the first
 * of an empty file), d deletes it, s saves, q or Esc leaves without
 * saving. While typing a line (UTF-8; the cursor moves and deletes by
 * characters, as lineedit.h says): Enter keeps it, Esc drops the change
 * (an inserted line goes again).
 *
 * Bounds: RCEDIT_LINES lines of RCEDIT_LINE_MAX bytes, RCEDIT_TEXT_MAX
 * bytes in all (newlines included); a text beyond them, or holding a NUL
 * byte, is refused by rcedit_new, an edit that would pass them is refused
 * with a notice.
 *
 * Ownership: rcedit_new returns an editor the caller frees (rcedit_free). */
#ifndef WARREN_RCEDIT_H
#define WARREN_RCEDIT_H
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "gamecfg.h"
#include "keys.h"
#include "screen.h"

#define RCEDIT_TEXT_MAX GAMECFG_RC_MAX /* gamecfg_rc_check: the web's bounds too */
#define RCEDIT_LINES    GAMECFG_RC_LINES
#define RCEDIT_LINE_MAX GAMECFG_RC_LINE_MAX

typedef struct rcedit rcedit_t;

typedef enum {
    RCEDIT_GOING = 0, /* redraw */
    RCEDIT_SAVE,      /* s: the caller saves rcedit_text, then frees */
    RCEDIT_QUIT,      /* q or Esc: leave without saving */
} rcedit_result_t;

/* An editor of text (len bytes; "\r\n" and "\n" end lines), titled title.
 * NULL when out of memory or when text passes the bounds (err says which). */
rcedit_t *rcedit_new(const char *title, const char *text, size_t len, char *err, size_t errlen);
void rcedit_free(rcedit_t *e);

rcedit_result_t rcedit_key(rcedit_t *e, key_event_t k);
/* The editor on scr (cleared first; any size of at least 20 x 8). */
void rcedit_draw(const rcedit_t *e, screen_t *scr);
/* The lines, each ended by "\n", appended to out. */
void rcedit_text(const rcedit_t *e, buf_t *out);
bool rcedit_changed(const rcedit_t *e);
/* A notice under the lines ("" none), e.g. why saving failed. */
void rcedit_notice(rcedit_t *e, const char *msg);

#endif
