/* glyph — the fallback table and the DEC special graphics chart. */
#include "glyph.h"
#include <stddef.h>

/* Sorted by code point. Box drawing, blocks and the VT100 chart's symbols,
 * then the map glyphs content uses: rubble (a newt is ':'), deep water
 * and lava (shallow water is '~' everywhere: in ASCII the three liquids
 * stay apart), trees. */
static const glyph_fallback_t FALLBACK[] = {
    {0x00A3, 0x00A3, '}', '?'}, {0x00B0, 0x00B0, 'f', '?'}, {0x00B1, 0x00B1, 'g', '?'},
    {0x00B7, 0x00B7, '~', '.'}, {0x03C0, 0x03C0, '{', '?'}, {0x2022, 0x2022, '~', '*'},
    {0x2190, 0x2190, 0, '<'},   {0x2191, 0x2191, 0, '^'},   {0x2192, 0x2192, 0, '>'},
    {0x2193, 0x2193, 0, 'v'},   {0x2219, 0x2219, '~', '.'}, {0x2234, 0x2234, 0, ';'},
    {0x2248, 0x2248, 0, '}'},   {0x224B, 0x224B, 0, '{'},   {0x2260, 0x2260, '|', '?'},
    {0x2264, 0x2264, 'y', '<'}, {0x2265, 0x2265, 'z', '>'}, {0x2500, 0x2501, 'q', '-'},
    {0x2502, 0x2503, 'x', '|'}, {0x2504, 0x2505, 'q', '-'}, {0x2506, 0x2507, 'x', '|'},
    {0x2508, 0x2509, 'q', '-'}, {0x250A, 0x250B, 'x', '|'}, {0x250C, 0x250F, 'l', '+'},
    {0x2510, 0x2513, 'k', '+'}, {0x2514, 0x2517, 'm', '+'}, {0x2518, 0x251B, 'j', '+'},
    {0x251C, 0x2523, 't', '+'}, {0x2524, 0x252B, 'u', '+'}, {0x252C, 0x2533, 'w', '+'},
    {0x2534, 0x253B, 'v', '+'}, {0x253C, 0x254B, 'n', '+'}, {0x254C, 0x254D, 'q', '-'},
    {0x254E, 0x254F, 'x', '|'}, {0x2550, 0x2550, 'q', '-'}, {0x2551, 0x2551, 'x', '|'},
    {0x2552, 0x2554, 'l', '+'}, {0x2555, 0x2557, 'k', '+'}, {0x2558, 0x255A, 'm', '+'},
    {0x255B, 0x255D, 'j', '+'}, {0x255E, 0x2560, 't', '+'}, {0x2561, 0x2563, 'u', '+'},
    {0x2564, 0x2566, 'w', '+'}, {0x2567, 0x2569, 'v', '+'}, {0x256A, 0x256C, 'n', '+'},
    {0x256D, 0x256D, 'l', '+'}, {0x256E, 0x256E, 'k', '+'}, {0x256F, 0x256F, 'j', '+'},
    {0x2570, 0x2570, 'm', '+'}, {0x2571, 0x2571, 0, '/'},   {0x2572, 0x2572, 0, '\\'},
    {0x2573, 0x2573, 0, 'X'},   {0x2588, 0x2588, 'a', '#'}, {0x2591, 0x2593, 'a', '#'},
    {0x25C6, 0x25C6, '`', '*'}, {0x2660, 0x2660, 0, '&'},   {0x2663, 0x2663, 0, '&'},
    {0x2666, 0x2666, '`', '*'},
};

/* What the VT100 shows for '_'..'~' with G0 = DEC special graphics. */
static const uint16_t DEC_CHART[] = {
    0x00A0, 0x25C6, 0x2592, 0x2409, 0x240C, 0x240D, 0x240A, 0x00B0, 0x00B1, 0x2424, 0x240B,
    0x2518, 0x2510, 0x250C, 0x2514, 0x253C, 0x23BA, 0x23BB, 0x2500, 0x23BC, 0x23BD, 0x251C,
    0x2524, 0x2534, 0x252C, 0x2502, 0x2264, 0x2265, 0x03C0, 0x2260, 0x00A3, 0x00B7,
};

/* Joined walls by neighbour mask (N 1, E 2, S 4, W 8); [0] is unused. */
static const uint16_t JOIN[16] = {
    0,      0x2502, 0x2500, 0x2514, 0x2502, 0x2502, 0x250C, 0x251C,
    0x2500, 0x2518, 0x2500, 0x2534, 0x2510, 0x2524, 0x252C, 0x253C,
};

const glyph_fallback_t *glyph_fallback(uint32_t cp)
{
    size_t lo = 0, hi = sizeof FALLBACK / sizeof FALLBACK[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < FALLBACK[mid].lo)
            hi = mid;
        else if (cp > FALLBACK[mid].hi)
            lo = mid + 1;
        else
            return &FALLBACK[mid];
    }
    return NULL;
}

uint32_t glyph_dec_unicode(char dec)
{
    if (dec < '_' || dec > '~')
        return 0;
    return DEC_CHART[dec - '_'];
}

uint32_t glyph_join(unsigned mask, uint32_t lone)
{
    if (mask & 15)
        return JOIN[mask & 15];
    bool rising = mask & (GLYPH_NE | GLYPH_SW), falling = mask & (GLYPH_NW | GLYPH_SE);
    if (rising && !falling)
        return 0x2571;
    if (falling && !rising)
        return 0x2572;
    return lone;
}
