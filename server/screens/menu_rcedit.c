/* menu_rcedit — a player's rc file of a hosted game in the terminal's
 * editor (rcedit.h), read and saved through the hosted games' hooks. */
#include <stdio.h>
#include "hooks.h"
#include "log.h"
#include "menu_impl.h"

/* Opens the editor on the player's rc file of game g (index into the games). */
void menu_rcedit_open(conn_t *c, int g)
{
    menu_state_t *m = c->menu;
    const gamecfg_t *game = &c->srv->cfg.games.games[g];
    char err[200], title[120];
    buf_t text;
    buf_init(&text);
    rcedit_free(m->rc);
    m->rc = NULL;
    if (hooks_rc_load(c->srv, game, c->game_name, &text, err, sizeof err) == 0) {
        snprintf(title, sizeof title, "Your rc file of %s", game->name);
        m->rc = rcedit_new(title, text.data ? text.data : "", text.len, err, sizeof err);
    }
    buf_free(&text);
    if (!m->rc) {
        log_error("rc file user=%s game=%s: %s", c->user, game->id, err);
        char msg[240];
        snprintf(msg, sizeof msg, "The rc file cannot be edited: %s.", err);
        conn_menu(c, msg);
        return;
    }
    m->rc_of = game;
    menu_show(c, MENU_RCEDIT);
    menu_redraw(c);
}

static void draw_rc_edit(conn_t *c, screen_t *scr)
{
    rcedit_draw(c->menu->rc, scr);
}

static void rc_leave(conn_t *c, const char *msg)
{
    menu_state_t *m = c->menu;
    rcedit_free(m->rc);
    m->rc = NULL;
    conn_menu(c, msg);
}

static void rc_save(conn_t *c)
{
    menu_state_t *m = c->menu;
    char err[200], msg[160];
    buf_t text;
    buf_init(&text);
    rcedit_text(m->rc, &text);
    int r = text.failed ? (snprintf(err, sizeof err, "out of memory"), -1)
                        : hooks_rc_save(c->srv, m->rc_of, c->game_name, text.data ? text.data : "",
                                        text.len, err, sizeof err);
    buf_free(&text);
    if (r < 0) {
        rcedit_notice(m->rc, err);
        menu_redraw(c);
        return;
    }
    snprintf(msg, sizeof msg, "Saved your rc file of %s.", m->rc_of->name);
    rc_leave(c, msg);
}

static void rc_edit_key(conn_t *c, key_event_t k)
{
    switch (rcedit_key(c->menu->rc, k)) {
    case RCEDIT_SAVE: rc_save(c); return;
    case RCEDIT_QUIT:
        rc_leave(c, rcedit_changed(c->menu->rc) ? "The rc file was not saved." : NULL);
        return;
    case RCEDIT_GOING: menu_redraw(c); return;
    }
}

const menu_screen_t menu_screen_rcedit = {draw_rc_edit, rc_edit_key};
