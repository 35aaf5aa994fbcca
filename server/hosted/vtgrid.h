/* vtgrid — a terminal emulator whose screen is Warren's cell grid, so a
 * program under a pty is drawn, diffed, watched and recorded like Warren's
 * own game. libvterm parses the output and keeps the terminal's state
 * (cursor, modes, margins, pen); its state layer's callbacks draw into a
 * screen kept here in four-byte cells (a code point and the index of its
 * style in a table of the screen's styles), not libvterm's screen layer
 * (two screens of 36-byte cells): a terminal costs 4 bytes a cell and
 * about two kilobytes besides. The alternate screen keeps a copy of the
 * primary one only when the primary is not blank. With more distinct
 * styles on the screen at once than the table holds (2048: only a screen
 * of more cells than that can have them), new ones show in the default
 * style.
 *
 * Feed the program's output with vtgrid_write; vtgrid_sync copies what
 * changed since the last sync into a screen_t through screen_put, so only
 * rows whose cells really changed become dirty.
 *
 * Mapping: palette colours stay 0..255, the default colours become
 * SCREEN_DEFAULT_COLOR, 24-bit colours the nearest entry of the xterm
 * 6x6x6 cube or grey ramp (16..255). Bold, underline (any style), blink
 * and reverse (per cell, XOR the whole-screen DECSCNM) map to ATTR_*;
 * libvterm 0.1.4 has no faint attribute, so SGR 2 is dropped, as are
 * italic and strike. Combining marks are dropped (the base character
 * stays; REP repeats the base alone). A wide character (two columns)
 * keeps its code point in its first cell; the second cell is a blank of
 * the same style. The encoders show a
 * code point that is not one column wide as '?', so a row never shifts.
 * A double-width or double-height line (DECDWL, DECDHL) shows its text at
 * normal width, its right half blank.
 *
 * The output passes vtguard (vtguard.h) first: what crashes or hangs
 * libvterm 0.1.4 never reaches it, and REP is done here.
 *
 * What the terminal answers back (device attributes, cursor position
 * reports) goes to the reply callback: it belongs on the program's input.
 *
 * Ownership: vtgrid_new returns an object freed with vtgrid_free. The
 * screen_t given to vtgrid_sync is the caller's. Not thread-safe; no
 * global state. */
#ifndef WARREN_VTGRID_H
#define WARREN_VTGRID_H
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "screen.h"

typedef struct vtgrid vtgrid_t;
/* Bytes the terminal sends to the program (borrowed for the call). */
typedef void vtgrid_reply_fn(const char *bytes, size_t len, void *user);

/* libvterm 0.1.4 crashes on a wide character in a one-column terminal. */
#define VTGRID_MIN_W 2

/* A w x h terminal (VTGRID_MIN_W..SCREEN_MAX_W, 1..SCREEN_MAX_H), cursor
 * at the top left, UTF-8 input. reply may be NULL (answers are dropped). NULL on a
 * bad size or OOM. */
vtgrid_t *vtgrid_new(int w, int h, vtgrid_reply_fn *reply, void *user);
void vtgrid_free(vtgrid_t *g);

/* The program's output; any bytes (a sequence may be split across calls). */
void vtgrid_write(vtgrid_t *g, const void *bytes, size_t len);
/* New size, content kept where it fits. Returns 0, or -1 on a bad size
 * (nothing changed). */
int vtgrid_resize(vtgrid_t *g, int w, int h);
void vtgrid_size(const vtgrid_t *g, int *w, int *h);
/* True when the screen changed since the last sync (what the unit tests
 * check vtgrid_sync's "changed" against). */
bool vtgrid_damaged(const vtgrid_t *g);

/* Copies the changed cells and the cursor into dst: the spans damaged
 * since the last sync, and every row of dst that is not what the last
 * sync left there (a row sum each tells: dst may be another screen, or
 * have been drawn over), so a frame costs the rows that changed, not the
 * screen; all cells when all is true or when dst has another size (dst is
 * resized). Returns the number of cells read from the terminal, or -1 if
 * dst could not be resized. */
int vtgrid_sync(vtgrid_t *g, screen_t *dst, bool all);

/* The program's own screen as text into out: each row's characters in
 * UTF-8, then a newline; what vtgrid_sync would copy, without touching
 * its damage (a reader on another loop, this one parked, may call it). */
void vtgrid_text(const vtgrid_t *g, buf_t *out);

/* Bytes this terminal holds: its grid (and the primary screen kept under
 * the alternate one), libvterm's state and parser, this object. */
size_t vtgrid_memory(const vtgrid_t *g);

/* The palette index nearest to an RGB colour among 16..255 (exposed for
 * tests). */
int vtgrid_nearest256(int r, int g, int b);

#endif
