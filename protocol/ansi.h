/* ansi — encodes grid changes as terminal output bytes.
 *
 * Contract that makes shared frames possible: the terminal state after a
 * frame (cursor position and visibility, current SGR pen) is a function of
 * the grid the frame produced and the profile alone. So diff(A -> B) is
 * valid for every viewer whose terminal shows A, whatever path got it there.
 * A keyframe starts from an unknown state (it resets and redraws all).
 * Concretely, every frame ends with the default SGR pen, the ASCII (G0 = B)
 * charset, the cursor shown or hidden as in the grid and, when it is shown,
 * on the grid's cursor; a hidden cursor's position is unspecified and the
 * next diff does not rely on it. A diff of equal grids is empty (no sync
 * brackets either). Cells never reach the terminal raw: control characters
 * and code points that are not one column wide show as '?'. A diff may move
 * rows the terminal shows rather than redraw them: up or down in a
 * scrolling region (profiles other than ASCII-only), sideways by deleting
 * and inserting characters (UTF-8 profiles). A run of one ASCII glyph may
 * go out as the glyph and REP (CSI n b) on profiles that have it (rep). */
#ifndef WARREN_ANSI_H
#define WARREN_ANSI_H
#include <stdbool.h>
#include "buf.h"
#include "screen.h"

typedef enum {
    ANSI_COLORS_256 = 0,
    ANSI_COLORS_16 = 1,   /* colours above 15 show as the nearest of the 16 */
    ANSI_COLORS_NONE = 2, /* terminal default colours; attributes only */
} ansi_colors_t;

typedef struct {
    ansi_colors_t colors;
    bool utf8;         /* false: ASCII only; line-drawing glyphs via DEC graphics or ASCII */
    bool dec_graphics; /* with !utf8: use DEC special graphics for box/wall glyphs */
    bool sync;         /* wrap frames in DEC mode 2026 synchronized-output brackets */
    bool fallbacks;    /* with utf8: glyphs of the fallback table (glyph.h) show as
                        * their DEC chart code point or ASCII (few-glyph fonts) */
    bool rep;          /* with utf8: a run of one ASCII glyph is drawn once and
                        * repeated by REP (CSI n b), which xterm and xterm.js have */
} ansi_profile_t;

/* Profile for a terminal type name (TTYPE/$TERM), case-insensitive; NULL or
 * unknown gives the default (256 colours, UTF-8). "xterm-256color" -> 256;
 * "xterm", "linux", "screen"... -> 16 colours, UTF-8 with glyph
 * fallbacks; "vt100", "vt220"... -> 16 colours, ASCII with DEC graphics;
 * "ansi", "dumb", "ascii" -> ASCII-only. REP for "xterm" and
 * "xterm-256color" alone (their terminfo entries have it). */
void ansi_profile_for_term(ansi_profile_t *p, const char *term);
/* Small integer id of a profile, for sharing encoded frames between viewers
 * with equal profiles (0..ANSI_PROFILE_IDS-1). */
#define ANSI_PROFILE_IDS 64 /* a power of two */
int ansi_profile_id(const ansi_profile_t *p);

/* Full redraw from an unknown terminal state. Appends to out. */
void ansi_keyframe(const ansi_profile_t *p, const screen_t *b, buf_t *out);
/* Minimal bytes turning a terminal showing a into one showing b. Only rows
 * dirty in b are examined. a and b must be the same size (else keyframe). */
void ansi_diff(const ansi_profile_t *p, const screen_t *a, const screen_t *b, buf_t *out);
/* ansi_diff without its pre-tests, which skip a search for rows moved
 * where they show it can find none: the same bytes at more cost (tests
 * hold the two to that). */
void ansi_diff_exhaustive(const ansi_profile_t *p, const screen_t *a, const screen_t *b,
                          buf_t *out);
/* Fewer rows than this dirty in b, and ansi_diff reads of a only those
 * rows (and its cursor): its searches for rows that scrolled or slid
 * sideways, which read all of a, begin at this many changed rows. */
#define ANSI_DIFF_SEARCH_ROWS 3

#endif
