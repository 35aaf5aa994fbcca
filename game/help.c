/* help — the help screen and the cycling help line (see help.h). */
#include "help.h"
#include <stdio.h>
#include "cmd.h"
#include "prompt.h"
#include "sched.h"
#include "world.h"

int help_open(game_t *g)
{
    g->prompt = PROMPT_HELP;
    g->page = 0;
    return 0;
}

static int help_pages(void)
{
    size_t n;
    cmd_table(&n);
    return (int)((n + PAGE_ROWS - 1) / PAGE_ROWS);
}

int help_key(game_t *g, key_event_t k)
{
    prompt_page_key(g, k, help_pages());
    return 0;
}

/* A page of commands between a title and a footer that every page
 * repeats: how to leave, for now or for good. The footer follows the
 * page's last command, so that at 80x24 the page is a list of 22 rows
 * that sits in a box over the map (render.c), the status lines left up,
 * and closing it redraws only the map under the box. */
void help_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    size_t n;
    const cmd_t *t = cmd_table(&n);
    int pages = help_pages(), row = 1;
    char keys[64];
    screen_textf(s, 0, 0, hi, "Commands, page %d of %d (%s)", g->page + 1, pages,
                 prompt_page_hint(g->page, pages, "next", "previous", keys, sizeof keys));
    for (size_t i = (size_t)g->page * PAGE_ROWS; i < n && row < 1 + PAGE_ROWS; i++, row++)
        screen_textf(s, 0, row, STYLE_DEFAULT, "%-9s %s", t[i].label, t[i].what);
    screen_text(s, 0, row, hi, HELP_FOOTER);
}

size_t help_line_first(const game_view_t *view)
{
    size_t n;
    cmd_table(&n);
    return (size_t)((view ? view->hint_tick : 0) % n);
}

/* The line starts one command further as the host's idle clock counts,
 * never on a key or a game turn: keys cost it no bytes. It shows as many commands as fit. */
int help_line(game_t *g, screen_t *s, const game_view_t *view)
{
    style_t dim = {8, SCREEN_DEFAULT_COLOR, 0};
    if (g->state != GAME_RUNNING)
        return screen_text(s, 0, s->h - 1, dim,
                           g->state == GAME_DEAD  ? "You are dead."
                           : g->state == GAME_WON ? "You won!"
                                                  : "You quit.");
    size_t n;
    const cmd_t *t = cmd_table(&n);
    size_t first = help_line_first(view);
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        const cmd_t *c = &t[(first + i) % n];
        char one[96];
        int len = snprintf(one, sizeof one, "%s%s %s", x ? "  " : "", c->label, c->what);
        if (x + len > s->w)
            break;
        x = screen_text(s, x, s->h - 1, dim, one);
    }
    return x;
}
