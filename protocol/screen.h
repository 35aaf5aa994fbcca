/* screen — the bedrock cell grid. The engine draws into it; encoders
 * (ansi, json), spectating and recording work only on grids.
 *
 * A grid is plain memory: cells are row-major in `cells`, and callers may
 * read them directly. Write through the helpers so dirty tracking stays
 * right: dirty[y] != 0 means row y may differ from the baseline it was last
 * compared with; a clean row is guaranteed unchanged. Writes that do not
 * change a cell leave its row clean, so redrawing an unchanged frame costs a
 * diff nothing. screen_clean() marks every row clean (after a frame is sent).
 *
 * Ownership: screen_new returns a grid the caller frees with screen_free. */
#ifndef WARREN_SCREEN_H
#define WARREN_SCREEN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SCREEN_DEFAULT_COLOR 0x100 /* fg/bg value: the terminal's default */
#define SCREEN_MAX_W         512
#define SCREEN_MAX_H         256

enum {
    ATTR_BOLD = 1 << 0,
    ATTR_DIM = 1 << 1,
    ATTR_UNDERLINE = 1 << 2,
    ATTR_REVERSE = 1 << 3,
    ATTR_BLINK = 1 << 4,
    ATTR_ALL = 0x1F
};

/* Eight bytes, every bit named, so rows compare with memcmp: a grid is the
 * bulk of a session's memory (three or more 80x24 grids per game). */
typedef struct {
    uint32_t ch : 21;   /* Unicode code point; ' ' for blank */
    uint32_t attr : 11; /* ATTR_* bits; the rest ignored */
    uint16_t fg;        /* 0..255 palette index or SCREEN_DEFAULT_COLOR */
    uint16_t bg;
} cell_t;

_Static_assert(sizeof(cell_t) == 8, "a cell is eight bytes, every bit named");

/* A drawing style: colours and attributes for the helpers. */
typedef struct {
    uint16_t fg, bg;
    uint8_t attr;
} style_t;

typedef struct screen {
    int w, h;
    cell_t *cells;  /* w * h, row-major */
    uint8_t *dirty; /* h entries */
    int cur_x, cur_y;
    bool cur_visible;
    /* Not 0: the cells are those of whatever handed out this stamp, as
     * they were when it did (the game's kept frame: render_world). Every
     * change of a cell sets it to 0; screen_copy passes the source's on. */
    uint64_t stamp;
    /* Not NULL (screen_keep_begin): a grid of the same size that gets each
     * row's cells as they were before their first change, its dirty[y]
     * saying the row is there; a resize puts every row there first and
     * ends the keeping. */
    struct screen *before;
} screen_t;

extern const style_t STYLE_DEFAULT; /* const data, not state */

screen_t *screen_new(int w, int h); /* NULL on bad size or OOM */
void screen_free(screen_t *s);
/* Changes size keeping the overlapping content; new cells blank; all rows
 * dirty. Returns 0, or -1 on bad size/OOM (grid unchanged). */
int screen_resize(screen_t *s, int w, int h);
/* Makes dst an exact copy of src (size, cells, cursor); dst rows whose
 * content changed become dirty. Returns 0 or -1 on OOM. */
int screen_copy(screen_t *dst, const screen_t *src);
/* Draws src into dst (which keeps its size): the overlap copied, the rest
 * blank, the cursor shown only where it fits. */
void screen_blit(screen_t *dst, const screen_t *src);
void screen_clean(screen_t *s);
void screen_touch_all(screen_t *s); /* every row dirty (forces a full diff) */

/* Drawing over s in place while keeping what it showed: before (resized
 * to s's size, cursor copied) gets each row of s as it was before the
 * row's first change, so that the rows a frame changed are copied twice
 * and the rest not at all. Returns 0, or -1 on OOM (nothing kept). */
int screen_keep_begin(screen_t *s, screen_t *before);
/* Ends the keeping: every row dirty in s is then in before (one dirty
 * with no change of a cell is copied as it is). */
void screen_keep_end(screen_t *s, screen_t *before);
/* The rows before lacks, from now (the same grid after the drawing, whose
 * rows not in before did not change): before is then all of the old one. */
void screen_keep_whole(screen_t *before, const screen_t *now);
/* Row y of s is about to change (for those that write cells directly). */
void screen_keep_row(screen_t *s, int y);
static inline void screen_will_change(screen_t *s, int y)
{
    if (s->before && !s->before->dirty[y])
        screen_keep_row(s, y);
}

static inline cell_t screen_blank(void)
{
    cell_t c = {.ch = ' ', .attr = 0, .fg = SCREEN_DEFAULT_COLOR, .bg = SCREEN_DEFAULT_COLOR};
    return c;
}
/* Every bit of a cell is named: equal cells are equal words. */
static inline bool cell_eq(const cell_t *a, const cell_t *b)
{
    uint64_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x == y;
}
/* NULL when (x, y) is outside the grid. */
const cell_t *screen_at(const screen_t *s, int x, int y);

void screen_clear(screen_t *s);                                      /* all blank */
void screen_put(screen_t *s, int x, int y, uint32_t ch, style_t st); /* clipped */
/* Writes UTF-8 text from (x, y) on one row, clipped at the right edge;
 * invalid bytes show as U+FFFD; control characters are skipped.
 * Returns the column after the last cell written. */
int screen_text(screen_t *s, int x, int y, style_t st, const char *utf8);
int screen_textf(screen_t *s, int x, int y, style_t st, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void screen_fill(screen_t *s, int x, int y, int w, int h, uint32_t ch, style_t st);
void screen_box(screen_t *s, int x, int y, int w, int h, style_t st); /* single line */
void screen_cursor(screen_t *s, int x, int y, bool visible);

/* Decodes one UTF-8 code point from p[0..len); sets *used (>= 1 when len > 0).
 * Returns the code point, or 0xFFFD for an invalid or truncated sequence. */
uint32_t utf8_decode(const uint8_t *p, size_t len, size_t *used);
/* Characters in p[0..len) as a person counts them (and the grid draws
 * them, a cell each): its bytes but UTF-8 continuation bytes. */
size_t utf8_chars(const char *p, size_t len);

#endif
