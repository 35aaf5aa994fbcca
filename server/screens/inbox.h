/* inbox — a player's unseen mail (core/mail.h) shown on a terminal: as a
 * notice over the menu at login, or at once when mail comes while it
 * waits at the main menu (in a game: once back there); then marked seen.
 * Home loop only. */
#ifndef WARREN_INBOX_H
#define WARREN_INBOX_H
#include <stdint.h>
#include "conn.h"

/* A terminal at the main menu: its unseen mail, if any, as a notice. */
void inbox_show(conn_t *c);
/* hooks_t.mail_left: mail came for user; its terminals at the main menu
 * show it now, the others once back there (user 0: every logged-in
 * terminal, if it has some). */
void inbox_notify(server_t *srv, int64_t user);

#endif
