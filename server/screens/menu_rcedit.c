/* menu_rcedit — a player's rc file of a hosted game in the terminal's
 * editor (rcedit.h), read and saved through the hosted games' hooks.
 *
 * The spawner reads and writes the file (hosted/spawner.h), so both are
 * asynchronous: the screen says "Loading..." until the text comes, and
 * "Saving..." while it is written; keys wait meanwhile (dropped). A read
 * that fails or is not answered in time sends the player back to the
 * menu, told; a save that fails keeps the editor and its text, told, so
 * nothing typed is lost (and a save given up on is never made later:
 * spawner.h). */
#include <stdio.h>
#include <stdlib.h>
#include "hooks.h"
#include "log.h"
#include "menu_impl.h"

enum { RC_IDLE, RC_LOADING, RC_SAVING };

/* What a request's answer needs to find its editor: the conn (referenced
 * until then) and the token of the request its editor waits for. */
typedef struct {
    conn_t *c;
    uint32_t token;
} rc_wait_t;

/* A request of c's editor made now: its rc_wait_t (NULL without memory). */
static rc_wait_t *rc_wait_new(conn_t *c, uint8_t busy)
{
    rc_wait_t *w = malloc(sizeof *w);
    if (!w)
        return NULL;
    menu_state_t *m = c->menu;
    m->rc_busy = busy;
    *w = (rc_wait_t){c, ++m->rc_token};
    conn_ref(c);
    return w;
}

/* The editor w's answer is for, if it still waits for it; w is freed and
 * the conn let go. */
static conn_t *rc_wait_end(rc_wait_t *w, conn_t **unref)
{
    conn_t *c = w->c;
    menu_state_t *m = c->menu;
    bool still = !c->closing && c->place == CONN_MENU && m->screen == MENU_RCEDIT &&
                 m->rc_busy != RC_IDLE && m->rc_token == w->token;
    *unref = c;
    free(w);
    if (still)
        m->rc_busy = RC_IDLE;
    return still ? c : NULL;
}

static void rc_fail_open(conn_t *c, const gamecfg_t *game, const char *err)
{
    log_error("rc file user=%s game=%s: %s", c->user, game->id, err);
    char msg[240];
    snprintf(msg, sizeof msg, "The rc file cannot be edited: %s.", err);
    rcedit_free(c->menu->rc);
    c->menu->rc = NULL;
    c->menu->rc_busy = RC_IDLE;
    conn_menu(c, msg);
}

static void on_rc_loaded(void *ud, const char *text, size_t len, const char *err)
{
    conn_t *unref, *c = rc_wait_end(ud, &unref);
    if (c) {
        menu_state_t *m = c->menu;
        char why[200], title[120];
        snprintf(title, sizeof title, "Your rc file of %s", m->rc_of->name);
        if (!err && !(m->rc = rcedit_new(title, text, len, why, sizeof why)))
            err = why;
        if (err)
            rc_fail_open(c, m->rc_of, err);
        else
            menu_redraw(c);
    }
    conn_unref(unref);
}

/* Opens the editor on the player's rc file of game g (index into the
 * games): "Loading..." until the spawner's answer. */
void menu_rcedit_open(conn_t *c, int g)
{
    menu_state_t *m = c->menu;
    const gamecfg_t *game = &c->srv->cfg.games.games[g];
    char err[200] = "out of memory";
    rcedit_free(m->rc);
    m->rc = NULL;
    m->rc_of = game;
    menu_show(c, MENU_RCEDIT);
    rc_wait_t *w = rc_wait_new(c, RC_LOADING);
    if (!w || hooks_rc_load(c->srv, game, c->game_name, on_rc_loaded, w, err, sizeof err) < 0) {
        if (w) {
            conn_unref(c);
            free(w);
        }
        rc_fail_open(c, game, err);
        return;
    }
    menu_redraw(c);
}

static void draw_rc_edit(conn_t *c, screen_t *scr)
{
    menu_state_t *m = c->menu;
    if (m->rc) {
        rcedit_draw(m->rc, scr);
        return;
    }
    menu_draw_header(c, scr);
    screen_textf(scr, 2, 5, STYLE_DEFAULT, "Loading your rc file of %s...", m->rc_of->name);
    screen_cursor(scr, 0, 0, false);
}

static void rc_leave(conn_t *c, const char *msg)
{
    menu_state_t *m = c->menu;
    rcedit_free(m->rc);
    m->rc = NULL;
    conn_menu(c, msg);
}

static void on_rc_saved(void *ud, const char *text, size_t len, const char *err)
{
    conn_t *unref, *c = rc_wait_end(ud, &unref);
    (void)text, (void)len;
    if (c && err) { /* the text stays: s tries again, q leaves */
        char msg[240];
        snprintf(msg, sizeof msg, "Not saved: %s.", err);
        rcedit_notice(c->menu->rc, msg);
        menu_redraw(c);
    } else if (c) {
        char msg[160];
        snprintf(msg, sizeof msg, "Saved your rc file of %s.", c->menu->rc_of->name);
        rc_leave(c, msg);
    }
    conn_unref(unref);
}

static void rc_save(conn_t *c)
{
    menu_state_t *m = c->menu;
    char err[200] = "out of memory";
    buf_t text;
    buf_init(&text);
    rcedit_text(m->rc, &text);
    rc_wait_t *w = text.failed ? NULL : rc_wait_new(c, RC_SAVING);
    int r = w ? hooks_rc_save(c->srv, m->rc_of, c->game_name, text.data ? text.data : "", text.len,
                              on_rc_saved, w, err, sizeof err)
              : -1;
    buf_free(&text);
    if (r < 0) {
        if (w) {
            m->rc_busy = RC_IDLE;
            conn_unref(c);
            free(w);
        }
        rcedit_notice(m->rc, err);
    } else
        rcedit_notice(m->rc, "Saving...");
    menu_redraw(c);
}

static void rc_edit_key(conn_t *c, key_event_t k)
{
    if (c->menu->rc_busy != RC_IDLE || !c->menu->rc)
        return; /* the spawner's answer first */
    switch (rcedit_key(c->menu->rc, k)) {
    case RCEDIT_SAVE: rc_save(c); return;
    case RCEDIT_QUIT:
        rc_leave(c, rcedit_changed(c->menu->rc) ? "The rc file was not saved." : NULL);
        return;
    case RCEDIT_GOING: menu_redraw(c); return;
    }
}

const menu_screen_t menu_screen_rcedit = {draw_rc_edit, rc_edit_key};
