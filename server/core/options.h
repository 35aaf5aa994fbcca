/* options — what an account keeps in users.options: two-cell map tiles,
 * a colour mode, a map glyph set and the turn counter, each a choice over what the terminal
 * type says. One table of choices serves the telnet options menu (menu.c)
 * and the web's /options page (web/site.c), so both offer the same.
 *
 * Stored as "two_cell=0|1\ncolors=KEY\nglyphs=KEY\nturns=0|1\n"; an absent or unknown
 * value reads as the first choice ("from the terminal type"), so an older
 * "colors=256" means the terminal's colours. */
#ifndef WARREN_OPTIONS_H
#define WARREN_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A colour mode; colors < 0: as the terminal type says, else an ansi_colors_t. */
typedef struct {
    const char *key, *label;
    int colors;
} colour_mode_t;

/* A map glyph set a player may pick over what the terminal type says (a
 * UTF-8 terminal whose font lacks the map's glyphs, a terminal that says
 * xterm but is not). utf8 < 0: the terminal type decides. */
typedef struct {
    const char *key, *label;
    int utf8;
    bool fallbacks, dec_graphics;
} glyph_set_t;

extern const colour_mode_t COLOUR_MODES[];
extern const size_t NCOLOUR_MODES;
extern const glyph_set_t GLYPH_SETS[];
extern const size_t NGLYPH_SETS;

typedef struct {
    bool two_cell;
    bool turns;     /* the turn counter on the status line */
    uint8_t colors; /* index into COLOUR_MODES */
    uint8_t glyphs; /* index into GLYPH_SETS */
} account_options_t;

/* users.options text into o (NULL or "" gives the defaults). */
void account_options_parse(const char *text, account_options_t *o);
/* o as users.options text into out (64 bytes are enough). */
void account_options_format(const account_options_t *o, char *out, size_t n);
/* The index of the choice named key among n names spaced stride bytes
 * apart (a table of structs whose first member is the name), or -1. */
int account_option_find(const char *key, size_t len, const char *const *names, size_t stride,
                        size_t n);

#endif
