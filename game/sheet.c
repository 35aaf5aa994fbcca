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
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
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

/* The lines, each cut at the screen's width (a long one goes on below). */
void sheet_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    buf_t b;
    buf_init(&b);
    end_sheet(g, &b);
    sheet_more(g, &b);
    screen_text(s, 0, 0, hi, "Character sheet (any key returns)");
    const char *p = b.data ? b.data : "";
    for (int row = 2; *p && row < s->h - 1;) {
        size_t len = strcspn(p, "\n");
        for (size_t at = 0; at < len && row < s->h - 1; at += (size_t)s->w, row++)
            screen_textf(s, 0, row, STYLE_DEFAULT, "%.*s",
                         (int)(len - at < (size_t)s->w ? len - at : (size_t)s->w), p + at);
        p += len + (p[len] == '\n');
    }
    buf_free(&b);
}
