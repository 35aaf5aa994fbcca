/* menu_main — the main menu: one table of items {keys, label, who sees
 * it, action}, the same rows drawn and dispatching keys; the hosted games
 * ([game ID]) follow Warren's own Play on the keys 1-9. */
#include <string.h>
#include "daily.h"
#include "drain.h"
#include "hooks.h"
#include "menu_impl.h"
#include "playkeys.h"
#include "session.h"

static void act_quit(conn_t *c);

/* Who sees an item: anyone, a visitor, an account; FOR_RC: an account
 * with a hosted game's rc file to edit; FOR_ROOM: an account, its row
 * drawn only when the terminal has one to spare (its key always works). */
typedef enum { FOR_ALL, FOR_ANON, FOR_USER, FOR_RC, FOR_ROOM } menu_who_t;

/* One row of a menu: its keys (the first is shown), its label, who sees it
 * (logged in or not) and what choosing it does. */
typedef struct {
    const char *keys;
    const char *label;
    menu_who_t who;
    void (*action)(conn_t *c);
} menu_item_t;

/* The main menu, in the order it is drawn. */
static const menu_item_t main_menu[] = {
    {"l", "Log in", FOR_ANON, menu_open_login},
    {"r", "Register", FOR_ANON, menu_open_register},
    {"p", "Play Warren (new game or resume)", FOR_USER, session_play},
    {"d", "Daily game (one seed for everyone today, one try)", FOR_ROOM, daily_play},
    {"w", "Watch games", FOR_ALL, menu_open_watchlist},
    {"c", "Change password", FOR_ROOM, menu_open_password},
    {"o", "Options", FOR_ROOM, menu_open_options},
    {"m", "Mail a player", FOR_ROOM, menu_open_mail},
    {"e", "Edit a game's rc file", FOR_RC, menu_open_rc},
    {"s", "High scores", FOR_ALL, menu_open_scores},
    {"qQ", "Quit", FOR_ALL, act_quit},
};
#define MAIN_ITEMS (sizeof main_menu / sizeof main_menu[0])

static bool item_shown(const conn_t *c, const menu_item_t *it)
{
    int first;
    if (it->who == FOR_RC)
        return menu_rc_games(c, &first) > 0;
    if (it->who == FOR_ROOM)
        return c->user_id != 0;
    return it->who == FOR_ALL || (it->who == FOR_USER) == (c->user_id != 0);
}

/* Whether an item's row is drawn: FOR_ROOM's, in the table's order, only
 * while the menu, its message and its prompt still fit the terminal with
 * them (their keys work all the same). */
static bool item_drawn(const conn_t *c, const menu_item_t *it)
{
    if (!item_shown(c, it))
        return false;
    if (it->who != FOR_ROOM)
        return true;
    int rows = menu_hosted_count(c);
    for (const menu_item_t *i = main_menu; i < main_menu + MAIN_ITEMS; i++)
        rows += (i->who != FOR_ROOM || i <= it) && item_shown(c, i);
    return 8 + rows < c->h;
}

static void draw_main(conn_t *c, screen_t *scr)
{
    menu_draw_header(c, scr);
    int n = 0;
    for (size_t i = 0; i < MAIN_ITEMS; i++) {
        if (item_drawn(c, &main_menu[i]))
            menu_draw_item(scr, 5 + n++, main_menu[i].keys[0], main_menu[i].label, NULL);
        for (int g = 0; main_menu[i].action == session_play && g < menu_hosted_count(c); g++) {
            const gamecfg_t *game = &c->srv->cfg.games.games[g];
            char label[160], keys[48];
            playkeys_hint(game->key_prefix, keys, sizeof keys);
            snprintf(label, sizeof label, "Play %s  (%s)", game->name, keys);
            menu_draw_item(scr, 5 + n++, (char)('1' + g), label, NULL);
        }
    }
    /* the notice wraps onto the rows left, cut where "Your choice" would
     * fall off the screen (a row between them, the prompt on the last) */
    int room = scr->h - 8 - n;
    int lines = menu_wrap(scr, 2, 6 + n, scr->w - 2, room > 1 ? room : 1, ST_MSG, c->menu->msg);
    int y = 7 + n + (lines > 1 ? lines : 1);
    screen_text(scr, 2, y, STYLE_DEFAULT, "Your choice: ");
    screen_cursor(scr, 15, y, true);
}

/* While a drain is under way (drain.h) nothing starts here: no login, no
 * game; watching, scores and quitting still work. */
static bool drain_refuses(conn_t *c, const menu_item_t *it)
{
    const drain_t *d = drain_of(c->srv);
    if (!d || (it && (it->action == act_quit || it->action == menu_open_watchlist ||
                      it->action == menu_open_scores)))
        return false;
    conn_menu(c, d->message);
    return true;
}

static void main_key(conn_t *c, key_event_t k)
{
    c->menu->msg[0] = 0;
    if (k.code >= '1' && k.code < '1' + (uint32_t)menu_hosted_count(c) && !k.mods) {
        if (drain_refuses(c, NULL))
            return;
        hooks_hosted_play(c, &c->srv->cfg.games.games[k.code - '1']);
        return;
    }
    for (size_t i = 0; i < MAIN_ITEMS; i++) {
        const menu_item_t *it = &main_menu[i];
        if (k.code < 0x80 && k.code && strchr(it->keys, (int)k.code) && item_shown(c, it)) {
            if (!drain_refuses(c, it))
                it->action(c);
            return;
        }
    }
    menu_redraw(c);
}

static void act_quit(conn_t *c)
{
    const char *bye = "\033[m\033[H\033[2J\033[?25hGoodbye.\n";
    conn_write(c, bye, strlen(bye));
    conn_close(c, "quit");
}

const menu_screen_t menu_screen_main = {draw_main, main_key};
