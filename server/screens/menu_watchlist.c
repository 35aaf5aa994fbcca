/* menu_watchlist — the list of live games on every loop, WL_ROWS a page:
 * a letter watches one, < > turn pages, . changes the order. Redrawn
 * every second while shown; the rows and orders are wlist.h's. */
#include <stdlib.h>
#include <string.h>
#include "menu_impl.h"
#include "session.h"
#include "shard.h"
#include "wlist.h"

#define WL_ROWS 15

static const char *const sort_names[] = {"player", "depth", "turn", "idle", "watchers"};

void menu_cache_free(server_t *s)
{
    wlist_free(s);
}

/* The live games in the viewer's order as far as its page (wlist.h keeps
 * them); *n of them (0 without memory). */
static const wl_row_t *const *wl_collect(conn_t *c, size_t *n)
{
    size_t need = ((size_t)c->menu->wl_page + 1) * WL_ROWS;
    return wlist_order(c->srv, c->menu->wl_sort, need, n);
}

static char wl_letter(int i)
{
    return (char)('a' + i + (i >= 'q' - 'a')); /* skip q: it leaves */
}

static void draw_wl_row(screen_t *scr, int i, const wl_row_t *r, uint64_t now)
{
    uint64_t idle = now > r->last_key_ms ? (now - r->last_key_ms) / 1000 : 0;
    screen_put(scr, 2, 4 + i, (uint32_t)wl_letter(i), ST_KEY);
    screen_textf(scr, 3, 4 + i, STYLE_DEFAULT, ") %-20.20s %-16.16s %5d %7llu %5llum %6d  %s",
                 r->user, r->race_cls, r->depth, (unsigned long long)r->turn,
                 (unsigned long long)(idle / 60), r->watchers, r->term);
}

static void draw_watchlist(conn_t *c, screen_t *scr)
{
    menu_state_t *m = c->menu;
    size_t n;
    const wl_row_t *const *rows = wl_collect(c, &n);
    int pages = (int)((n + WL_ROWS - 1) / WL_ROWS);
    if (m->wl_page >= pages)
        m->wl_page = pages ? pages - 1 : 0;
    screen_text(scr, 2, 1, ST_TITLE, "Live games");
    /* "games", not "playing": a game its player left is listed (detached) */
    screen_textf(scr, 16, 1, ST_DIM, "%zu game%s, sorted by %s, page %d/%d", n, n == 1 ? "" : "s",
                 sort_names[m->wl_sort], m->wl_page + 1, pages ? pages : 1);
    screen_text(scr, 2, 3, STY(SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE),
                "   Player               Race/class       Depth    Turn   Idle  Watch  Term");
    uint64_t now = now_ms(c->srv);
    size_t first = (size_t)m->wl_page * WL_ROWS;
    wlist_detail(c->srv, rows, first, first + WL_ROWS < n ? first + WL_ROWS : n);
    for (int i = 0; i < WL_ROWS; i++) {
        size_t k = (size_t)m->wl_page * WL_ROWS + (size_t)i;
        if (k >= n)
            break;
        draw_wl_row(scr, i, rows[k], now);
    }
    if (n == 0)
        screen_text(scr, 5, 5, ST_DIM, "Nobody is playing right now.");
    screen_text(scr, 2, 5 + WL_ROWS, ST_DIM,
                "Letter: watch   > next page   < previous page   . sort   q back");
    screen_cursor(scr, 0, 0, false);
}

/* The game on the shown page under letter key, or NULL. */
static const wl_row_t *wl_pick(conn_t *c, uint32_t key)
{
    int i = (int)(key - 'a') - (key > 'q');
    size_t n;
    const wl_row_t *const *rows = wl_collect(c, &n);
    size_t idx = (size_t)c->menu->wl_page * WL_ROWS + (size_t)i;
    return (i < WL_ROWS && idx < n) ? rows[idx] : NULL;
}

static void watchlist_key(conn_t *c, key_event_t k)
{
    menu_state_t *m = c->menu;
    if (k.code == 'q' || k.code == KEY_ESC) {
        conn_menu(c, NULL);
        return;
    }
    if (k.code == '>' || k.code == KEY_PGDN || k.code == ' ')
        m->wl_page++;
    else if ((k.code == '<' || k.code == KEY_PGUP) && m->wl_page > 0)
        m->wl_page--;
    else if (k.code == '.')
        m->wl_sort = (m->wl_sort + 1) % WL_ORDERS;
    else if (k.code >= 'a' && k.code <= 'z') {
        wlist_sync(c->srv); /* games that went since the tick are not picked */
        const wl_row_t *r = wl_pick(c, k.code);
        if (r && r->user_id == c->user_id) {
            conn_menu(c, "That is your own game: press p to play it.");
            return;
        }
        session_t *s = r && r->k == c->srv ? wlist_game(r) : NULL;
        if (s) {
            session_watch(c, s);
            return;
        }
        if (r && r->k != c->srv) { /* on another loop: watched from there */
            conn_to_game(c, r->k, r->game_id);
            return;
        }
    }
    menu_redraw(c);
}

void menu_open_watchlist(conn_t *c)
{
    menu_show(c, MENU_WATCHLIST);
    c->menu->wl_page = 0;
    menu_redraw(c);
}

const menu_screen_t menu_screen_watchlist = {draw_watchlist, watchlist_key, .tick = true};
