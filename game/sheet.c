/* sheet — the character sheet (see sheet.h). */
#include "sheet.h"
#include <stdio.h>
#include <string.h>
#include "end.h"
#include "prompt.h"
#include "status.h"
#include "world.h"

int sheet_open(game_t *g)
{
    g->prompt = PROMPT_SHEET;
    return 0;
}

int sheet_key(game_t *g, key_event_t k)
{
    (void)k;
    g->prompt = PROMPT_NONE;
    return 0;
}

/* Speed, the effects on the character, its spells: lines after the sheet. */
static void sheet_more(game_t *g, buf_t *out)
{
    buf_printf(out, "Speed %d\n", status_speed(g, g->player));
    size_t n = 0;
    for (handle_t h = reg_next_held(&g->reg, g->player, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, g->player, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_EFFECT && o->target == g->player && o->kind < g->c->n_effects)
            buf_printf(out, "%s%s", n++ ? ", " : "Now: ", g->c->effects[o->kind].name);
    }
    buf_puts(out, n ? "\n" : "Now: nothing out of the ordinary\n");
    n = 0;
    for (int i = 0; i < g->c->n_spells && i < 32; i++)
        if (g->pc.spells & (1u << i))
            buf_printf(out, "%s%s (%d mana)", n++ ? ", " : "Spells: ", g->c->spells[i].name,
                       g->c->spells[i].mana);
    if (n)
        buf_putc(out, '\n');
}

/* The widest row the sheet draws: its box leaves most of the map up. */
#define SHEET_WRAP 46

/* How much of a line of len (more than width) goes on this row: up to
 * about an even share of the rows it needs, cut between two figures
 * (their double space) when one lies past the first half, else at a
 * space, else at width. */
static size_t sheet_cut(const char *p, size_t len, size_t width)
{
    size_t rows = (len + width - 1) / width, even = (len + rows - 1) / rows + 4;
    size_t want = even < width ? even : width;
    for (size_t i = want; i > want / 2; i--)
        if (p[i] == ' ' && p[i - 1] == ' ')
            return i - 1;
    for (size_t i = want; i > 0; i--)
        if (p[i] == ' ')
            return i;
    return want;
}

/* The lines under the title, each wrapped at SHEET_WRAP (or the screen's
 * width when narrower); what is left over goes on below. */
void sheet_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    buf_t b;
    buf_init(&b);
    end_sheet(g, &b);
    sheet_more(g, &b);
    screen_text(s, 0, 0, hi, "Character sheet (any key returns)");
    size_t width = (size_t)(s->w < SHEET_WRAP ? s->w : SHEET_WRAP);
    const char *p = b.data ? b.data : "";
    for (int row = 1; *p && row < s->h - 1; row++) {
        size_t len = strcspn(p, "\n"), cut = len > width ? sheet_cut(p, len, width) : len;
        screen_textf(s, 0, row, STYLE_DEFAULT, "%.*s", (int)cut, p);
        p += cut;
        while (*p == ' ')
            p++;
        p += *p == '\n';
    }
    buf_free(&b);
}
