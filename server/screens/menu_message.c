/* menu_message — a notice (conn_message): its lines, then any key goes
 * back to the main menu. */
#include <string.h>
#include "menu_impl.h"

static void draw_message(conn_t *c, screen_t *scr)
{
    menu_draw_header(c, scr);
    int y = 5;
    for (const char *p = c->menu->msg; y < scr->h - 3; y++) {
        size_t n = strcspn(p, "\n");
        screen_textf(scr, 2, y, y == 5 ? ST_MSG : STYLE_DEFAULT, "%.*s", (int)n, p);
        if (!p[n])
            break;
        p += n + 1;
    }
    screen_text(scr, 2, y + 2, ST_DIM, "Press any key.");
    screen_cursor(scr, 0, 0, false);
}

static void back_key(conn_t *c, key_event_t k)
{
    (void)k;
    conn_menu(c, NULL);
}

const menu_screen_t menu_screen_message = {draw_message, back_key};
