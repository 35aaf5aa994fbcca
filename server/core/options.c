/* options — the account options' choices and their stored text; see options.h. */
#include "options.h"
#include <stdio.h>
#include <string.h>
#include "ansi.h"

const glyph_set_t GLYPH_SETS[] = {
    {"auto", "from the terminal type", -1, false, false},
    {"unicode", "Unicode", 1, false, false},
    {"lines", "line drawing and ASCII", 1, true, false},
    {"dec", "DEC graphics, no UTF-8", 0, false, true},
    {"ascii", "plain ASCII", 0, false, false},
};
const size_t NGLYPH_SETS = sizeof GLYPH_SETS / sizeof GLYPH_SETS[0];

const colour_mode_t COLOUR_MODES[] = {
    {"auto", "from the terminal type", -1},
    {"16", "16", ANSI_COLORS_16},
    {"off", "off (bold, dim and reverse only)", ANSI_COLORS_NONE},
};
const size_t NCOLOUR_MODES = sizeof COLOUR_MODES / sizeof COLOUR_MODES[0];

int account_option_find(const char *key, size_t len, const char *const *names, size_t stride,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *name = *(const char *const *)((const char *)names + i * stride);
        if (strlen(name) == len && strncmp(key, name, len) == 0)
            return (int)i;
    }
    return -1;
}

/* The value of "field=" in text as an index into n names; 0 when absent
 * or unknown. */
static uint8_t value_index(const char *text, const char *field, const char *const *names,
                           size_t stride, size_t n)
{
    const char *v = strstr(text, field);
    if (!v)
        return 0;
    v += strlen(field);
    int i = account_option_find(v, strcspn(v, "\n"), names, stride, n);
    return i < 0 ? 0 : (uint8_t)i;
}

void account_options_parse(const char *text, account_options_t *o)
{
    if (!text)
        text = "";
    o->two_cell = strstr(text, "two_cell=1") != NULL;
    o->turns = strstr(text, "turns=1") != NULL;
    o->colors =
        value_index(text, "colors=", &COLOUR_MODES[0].key, sizeof COLOUR_MODES[0], NCOLOUR_MODES);
    o->glyphs = value_index(text, "glyphs=", &GLYPH_SETS[0].key, sizeof GLYPH_SETS[0], NGLYPH_SETS);
}

void account_options_format(const account_options_t *o, char *out, size_t n)
{
    snprintf(out, n, "two_cell=%d\ncolors=%s\nglyphs=%s\nturns=%d\n", o->two_cell ? 1 : 0,
             COLOUR_MODES[o->colors % NCOLOUR_MODES].key, GLYPH_SETS[o->glyphs % NGLYPH_SETS].key,
             o->turns ? 1 : 0);
}
