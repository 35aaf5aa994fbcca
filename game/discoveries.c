/* discoveries — the discoveries list (see discoveries.h). */
#include "discoveries.h"
#include <stdio.h>
#include "grammar.h"
#include "ident.h"
#include "prompt.h"
#include "world.h"

/* The classes listed, in this order, with their headings. */
static const struct {
    uint8_t cls;
    const char *title;
} CLASSES[] = {{IC_POTION, "Potions"},
               {IC_SCROLL, "Scrolls"},
               {IC_WAND, "Wands"},
               {IC_RING, "Rings"},
               {IC_AMULET, "Amulets"}};
#define NCLASSES (sizeof CLASSES / sizeof CLASSES[0])

int discoveries_open(game_t *g)
{
    g->prompt = PROMPT_DISCOVERIES;
    g->page = 0;
    return 0;
}

/* Line i of the list (headings included) into out; false past the end. */
static bool line_at(const game_t *g, int i, char *out, size_t n)
{
    int at = 0;
    for (size_t c = 0; c < NCLASSES; c++) {
        int known = 0, all = 0;
        for (uint16_t k = 0; k < g->c->n_items; k++)
            if (g->c->items[k].cls == CLASSES[c].cls && ident_flavoured(g, k))
                all++, known += ident_known(g, k);
        if (at++ == i) {
            snprintf(out, n, "%s: %d of %d known", CLASSES[c].title, known, all);
            return true;
        }
        for (uint16_t k = 0; k < g->c->n_items; k++) {
            if (g->c->items[k].cls != CLASSES[c].cls || !ident_flavoured(g, k) ||
                !ident_known(g, k) || at++ != i)
                continue;
            char was[64], pl[64];
            ident_flavour_name(g, k, was, sizeof was, pl, sizeof pl);
            snprintf(out, n, "  %s, the %s", g->c->items[k].name, was);
            return true;
        }
    }
    return false;
}

static int pages(const game_t *g)
{
    char line[160];
    int n = 0;
    while (line_at(g, n, line, sizeof line))
        n++;
    return n ? (n + PAGE_ROWS - 1) / PAGE_ROWS : 1;
}

int discoveries_key(game_t *g, key_event_t k)
{
    prompt_page_key(g, k, pages(g));
    return 0;
}

void discoveries_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    int np = pages(g);
    char keys[64];
    screen_textf(s, 0, 0, hi, "Discoveries, page %d of %d (%s)", g->page + 1, np,
                 prompt_page_hint(g->page, np, "next", "previous", keys, sizeof keys));
    char line[160];
    for (int i = 0; i < PAGE_ROWS && line_at(g, g->page * PAGE_ROWS + i, line, sizeof line); i++)
        screen_text(s, 0, 2 + i, STYLE_DEFAULT, line);
}
