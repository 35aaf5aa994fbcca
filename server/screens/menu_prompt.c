/* menu_prompt — reading one line (a name, a password, a message) for the
 * prompt a screen's file gave (menu_prompt_t): its title and hint, the
 * line as typed (a password not echoed), Esc back to the menu, Enter to
 * the prompt's done. */
#include <string.h>
#include "accounts.h"
#include "lineedit.h"
#include "menu_impl.h"

static void draw_prompt(conn_t *c, screen_t *scr)
{
    menu_state_t *m = c->menu;
    const menu_prompt_t *p = m->prompt;
    menu_draw_header(c, scr);
    screen_text(scr, 2, 5, ST_TITLE, p->title);
    screen_text(scr, 2, 6, ST_DIM, p->hint);
    if (m->msg[0])
        menu_wrap(scr, 2, 10, scr->w - 2, scr->h - 11, ST_MSG, m->msg);
    int x = screen_text(scr, 2, 8, STYLE_DEFAULT, p->label);
    if (!p->secret) /* a long line shows its end */
        x = screen_text(scr, x, 8, ST_KEY, lineedit_tail(m->line, m->line_len, scr->w - x - 1));
    screen_cursor(scr, x, 8, true);
}

void menu_prompt_open(conn_t *c, const menu_prompt_t *p)
{
    menu_show(c, MENU_PROMPT);
    c->menu->prompt = p;
    c->menu->line_len = 0;
    c->menu->line[0] = 0;
    menu_redraw(c);
}

void menu_prompt_next(conn_t *c, const menu_prompt_t *p)
{
    c->menu->msg[0] = 0;
    menu_prompt_open(c, p);
}

void menu_prompt_again(conn_t *c, const char *why)
{
    snprintf(c->menu->msg, sizeof c->menu->msg, "%s", why);
    menu_prompt_open(c, c->menu->prompt);
}

void menu_wipe_secrets(menu_state_t *m)
{
    memset(m->pend_pass, 0, sizeof m->pend_pass);
    memset(m->pend_old, 0, sizeof m->pend_old);
    memset(m->line, 0, sizeof m->line);
    m->line_len = 0;
}

static void prompt_key(conn_t *c, key_event_t k)
{
    menu_state_t *m = c->menu;
    const menu_prompt_t *p = m->prompt;
    size_t max = p->max ? p->max : p->secret ? ACCOUNTS_PASSWORD_BYTES : ACCOUNTS_NAME_MAX;
    if (max > sizeof m->line - 1)
        max = sizeof m->line - 1;
    switch (lineedit_key(m->line, &m->line_len, max, k)) {
    case LINE_CANCEL:
        menu_wipe_secrets(m);
        conn_menu(c, NULL);
        return;
    case LINE_ENTER: p->done(c); return;
    case LINE_EDITED: menu_redraw(c); return;
    case LINE_FULL:
        snprintf(m->msg, sizeof m->msg, "That is as long as it may be.");
        menu_redraw(c);
        return;
    case LINE_IGNORED: return;
    }
}

const menu_screen_t menu_screen_prompt = {draw_prompt, prompt_key};
