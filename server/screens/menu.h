/* menu — what a terminal shows outside a game: the main menu, the Name:
 * and Password: prompts, scores, options and the list of live games.
 * Every screen is drawn into the conn's grid and sent as a diff, like game
 * frames. Each screen is a file of its own, menu_NAME.c, holding its row
 * of the screen table (menu_impl.h lists them); a menu in it is one table
 * of rows {keys, label, who, action}: the same rows draw the menu and
 * dispatch its keys.
 *
 * Every conn reaches the menu through conn.h (conn_menu, conn_message,
 * conn_wait, conn_too_small, conn_key): those route a browser home
 * through its gateway, a relay's stand-in and a conn on another loop home
 * first, and hand a terminal here to the calls menu_hooks registers.
 * Account options (two-cell tiles, colours, glyphs) apply to every conn.
 *
 * The menu keeps its own state per conn (menu_state_t: the screen shown,
 * the prompt's line, pending name and passwords, the watch list's page and
 * sort, the options' indices), made by conn_init (screens.c registers
 * it) and opaque outside the menu's files.
 * Loop thread only. */
#ifndef WARREN_MENU_H
#define WARREN_MENU_H
#include "conn.h"
#include "hooks.h"
#include "keys.h"

/* A notice's bytes (conn_message): a mail of MAIL_MAX characters, wrapped,
 * always fits. */
#define MENU_MSG_MAX 1024
_Static_assert(MENU_MSG_MAX <= CONN_MSG_MAX, "a notice shown at home is taken there whole");

/* Registers the menu with the core (hooks.h: menu_enter, menu_message,
 * menu_redraw, menu_too_small, menu_key). */
void menu_hooks(hooks_t *h);

menu_state_t *menu_state_new(void); /* NULL when out of memory */
void menu_state_free(menu_state_t *m);
/* Frees the watch list shared by its viewers (server shutdown). */
void menu_cache_free(server_t *s);

/* Draws what c shows outside a game, unless it is in one (or closing). */
void menu_redraw(conn_t *c);
/* c shows the main menu (not a prompt, a notice or a list). */
bool menu_at_main(const conn_t *c);
/* While a read is handled, redraws wait; menu_release draws once. */
void menu_hold(conn_t *c);
void menu_release(conn_t *c);
/* c's unseen mail shows the next time it is back at the main menu. */
void menu_mail_later(conn_t *c);
/* An admin locked the account: c is logged out and told msg. */
void menu_log_out(conn_t *c, const char *msg);

/* prof from the terminal type and the account's options (colours, glyphs). */
void menu_apply_profile(conn_t *c);
/* The account's options (users.options) on c: two-cell tiles, colours, glyphs. */
void menu_options_apply(conn_t *c, const char *opts);

/* Refreshes watch lists: starts a round of redraws, a few a loop turn. */
void menu_tick(server_t *s);
void menu_tick_close(server_t *s); /* shutdown: the round's handle closed */
void menu_redraw_all(server_t *s); /* every telnet conn outside a game */

#endif
