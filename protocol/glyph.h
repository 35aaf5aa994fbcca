/* glyph — what a terminal without a glyph shows instead.
 *
 * The game may draw any single-width code point; every non-ASCII glyph it
 * uses on the map must have an entry here (content loading checks). An
 * entry gives the DEC special graphics character that draws it on a VT100
 * (0: none) and a plain ASCII character. Encoders pick per profile: UTF-8
 * with full fonts shows the glyph, UTF-8 with few glyphs shows the DEC
 * set's own code point (every terminal that emulates a VT100 has those in
 * its font), ASCII terminals get DEC graphics or the ASCII character.
 * Pure functions over const tables. */
#ifndef WARREN_GLYPH_H
#define WARREN_GLYPH_H
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint32_t lo, hi; /* code points lo..hi share the fallback */
    char dec;        /* DEC special graphics character, 0 when none */
    char ascii;      /* plain printable ASCII */
} glyph_fallback_t;

/* The fallback of a code point above 0x7F, or NULL when it has none. */
const glyph_fallback_t *glyph_fallback(uint32_t cp);
/* The code point a DEC special graphics character ('_'..'~') shows, or 0. */
uint32_t glyph_dec_unicode(char dec);
/* Box-drawing line for a wall cell joined to its neighbours: mask bits
 * GLYPH_N/E/S/W for the sides, GLYPH_NE/SE/SW/NW for the corners. Sides
 * decide; a cell joined only at corners along one diagonal (round rooms)
 * gets a diagonal line; any other cell gets `lone`. */
enum {
    GLYPH_N = 1,
    GLYPH_E = 2,
    GLYPH_S = 4,
    GLYPH_W = 8,
    GLYPH_NE = 16,
    GLYPH_SE = 32,
    GLYPH_SW = 64,
    GLYPH_NW = 128
};
uint32_t glyph_join(unsigned mask, uint32_t lone);

#endif
