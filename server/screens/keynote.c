/* keynote — dropped keys told over a game's bottom row (keynote.h). */
#include "keynote.h"
#include <stdio.h>

void keynote_overlay(session_t *s, screen_t *scr)
{
    static const style_t st = {11, SCREEN_DEFAULT_COLOR, ATTR_BOLD | ATTR_REVERSE};
    if (!list_linked(&s->keynote_node) || now_ms(s->srv) >= s->keynote_until || scr->h < 1)
        return;
    char line[96];
    snprintf(line, sizeof line, " Keys typed faster than %d a second were dropped. ",
             s->srv->cfg.input_rate);
    int y = scr->h - 1;
    screen_fill(scr, 0, y, scr->w, 1, ' ', STYLE_DEFAULT);
    screen_text(scr, 0, y, st, line);
}

void keynote_tick(server_t *k)
{
    uint64_t now = now_ms(k);
    LIST_EACH (it, &k->keynotes) {
        session_t *s = LIST_ITEM(it, session_t, keynote_node);
        if (now < s->keynote_until)
            continue;
        list_remove(&s->keynote_node);
        session_redraw(s); /* the game's own row again */
    }
}
