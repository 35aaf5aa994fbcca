/* help — the help screen and the cycling help line (see help.h). */
#include "help.h"
#include <stdio.h>
#include "cmd.h"
#include "prompt.h"
#include "world.h"

int help_open(game_t *g)
{
    g->prompt = PROMPT_HELP;
    return 0;
}

void help_draw(game_t *g, screen_t *s)
{
    (void)g;
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    size_t n;
    const cmd_t *t = cmd_table(&n);
    screen_text(s, 2, 0, hi, "Commands (any key returns)");
    for (size_t i = 0; i < n && (int)i + 2 < s->h; i++)
        screen_textf(s, 2, (int)i + 2, STYLE_DEFAULT, "%-9s %s", t[i].label, t[i].what);
}

/* Neohack's: each key starts the line one command further, and it shows
 * as many as fit. */
void help_line(game_t *g, screen_t *s)
{
    style_t dim = {8, SCREEN_DEFAULT_COLOR, 0};
    if (g->state != GAME_RUNNING) {
        screen_text(s, 0, s->h - 1, dim,
                    g->state == GAME_DEAD  ? "You are dead."
                    : g->state == GAME_WON ? "You won!"
                                           : "You quit.");
        return;
    }
    size_t n;
    const cmd_t *t = cmd_table(&n);
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        const cmd_t *c = &t[(g->keys + i) % n];
        char one[96];
        int len = snprintf(one, sizeof one, "%s%s %s", x ? "  " : "", c->label, c->what);
        if (x + len > s->w)
            break;
        x = screen_text(s, x, s->h - 1, dim, one);
    }
}
