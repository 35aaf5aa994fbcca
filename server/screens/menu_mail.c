/* menu_mail — leaving a player a message (mail.h): to whom, then the
 * text, then what mail_send says. */
#include <stdio.h>
#include "mail.h"
#include "menu_impl.h"

static void mail_to_done(conn_t *c);
static void mail_text_done(conn_t *c);

static const menu_prompt_t prompt_mail_to = {
    "Mail a player", "To: ", "Shown at their next menu. Esc cancels.", false, mail_to_done};
static const menu_prompt_t prompt_mail_text = {
    "Mail a player", "Message: ",    "At most 200 characters. Esc cancels.",
    false,           mail_text_done, MAIL_BYTES};

void menu_open_mail(conn_t *c)
{
    menu_prompt_open(c, &prompt_mail_to);
}

static void mail_to_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    if (m->line_len == 0) {
        conn_menu(c, NULL);
        return;
    }
    snprintf(m->pend_name, sizeof m->pend_name, "%.31s", m->line);
    menu_prompt_next(c, &prompt_mail_text);
}

static void on_mail_sent(void *ud, bool ok, const char *msg)
{
    conn_t *c = ud;
    (void)ok;
    if (!c->closing && c->place == CONN_WAIT)
        conn_menu(c, msg);
    conn_unref(c);
}

static void mail_text_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    conn_set_place(c, CONN_WAIT);
    conn_ref(c);
    mail_send(c->srv, c->user_id, m->pend_name, m->line, m->line_len, on_mail_sent, c);
    menu_redraw(c);
}
