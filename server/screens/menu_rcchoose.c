/* menu_rcchoose — which hosted game's rc file to edit, when more than one
 * has one (with one, the editor opens at once). */
#include "menu_impl.h"

void menu_open_rc(conn_t *c)
{
    int first = 0;
    if (menu_rc_games(c, &first) == 1) {
        menu_rcedit_open(c, first);
        return;
    }
    menu_show(c, MENU_RCCHOOSE);
    menu_redraw(c);
}

static void draw_rc_choose(conn_t *c, screen_t *scr)
{
    menu_draw_header(c, scr);
    screen_text(scr, 2, 5, ST_TITLE, "Edit a game's rc file");
    int y = 7;
    for (int g = 0; g < menu_hosted_count(c); g++)
        if (c->srv->cfg.games.games[g].rcfile[0])
            menu_draw_item(scr, y++, (char)('1' + g), c->srv->cfg.games.games[g].name, NULL);
    screen_text(scr, 2, y + 1, ST_DIM, "Esc goes back.");
    screen_cursor(scr, 0, 0, false);
}

static void rc_choose_key(conn_t *c, key_event_t k)
{
    int g = (int)k.code - '1';
    if (g >= 0 && g < menu_hosted_count(c) && !k.mods && c->srv->cfg.games.games[g].rcfile[0])
        menu_rcedit_open(c, g);
    else if (k.code == KEY_ESC || k.code == 'q')
        conn_menu(c, NULL);
}

const menu_screen_t menu_screen_rcchoose = {draw_rc_choose, rc_choose_key};
