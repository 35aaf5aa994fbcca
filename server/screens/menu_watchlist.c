/* menu_watchlist — the list of live games on every loop, WL_VIEW_ROWS a
 * page: a letter watches one, < > turn pages, . changes the order.
 * Redrawn every second while shown; the rows and orders are wlist.h's.
 * A letter keeps its game while the page is shown (wlist.h's wl_view_t):
 * new games take free letters below, ended ones stay marked a while. */
#include <stdlib.h>
#include <string.h>
#include "menu_impl.h"
#include "session.h"
#include "shard.h"
#include "wlist.h"

static const char *const sort_names[] = {"player", "depth", "turn", "idle", "watchers"};

void menu_cache_free(server_t *s)
{
    wlist_free(s);
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

/* A game that ended keeps its letter for a while, marked (wlist.h). */
static void draw_wl_gone(screen_t *scr, int i, const wl_slot_t *sl)
{
    screen_put(scr, 2, 4 + i, (uint32_t)wl_letter(i), ST_DIM);
    screen_textf(scr, 3, 4 + i, ST_DIM, ") %-20.20s (game over)", sl->user);
}

/* The page's rows: the live ones in rows[] (for wlist_detail), *n of them. */
static void wl_live(conn_t *c, const wl_row_t **rows, int *n)
{
    const wl_view_t *v = &c->menu->wl_view;
    *n = 0;
    for (int i = 0; i < v->n; i++) {
        const wl_row_t *r = wlist_view_row(c->srv, v, i);
        if (r)
            rows[(*n)++] = r;
    }
}

static void draw_wl_rows(conn_t *c, screen_t *scr)
{
    const wl_view_t *v = &c->menu->wl_view;
    const wl_row_t *live[WL_VIEW_ROWS];
    int nlive;
    wl_live(c, live, &nlive);
    wlist_detail(c->srv, live, 0, (size_t)nlive);
    uint64_t now = now_ms(c->srv);
    for (int i = 0; i < v->n; i++) {
        const wl_row_t *r = wlist_view_row(c->srv, v, i);
        if (r)
            draw_wl_row(scr, i, r, now);
        else
            draw_wl_gone(scr, i, &v->slot[i]);
    }
}

static void draw_watchlist(conn_t *c, screen_t *scr)
{
    menu_state_t *m = c->menu;
    wlist_view_update(c->srv, &m->wl_view, now_ms(c->srv));
    size_t n = wlist_count(c->srv);
    int pages = (int)((n + WL_VIEW_ROWS - 1) / WL_VIEW_ROWS);
    screen_text(scr, 2, 1, ST_TITLE, "Live games");
    /* "games", not "playing": a game its player left is listed (detached) */
    screen_textf(scr, 16, 1, ST_DIM, "%zu game%s, sorted by %s, page %d/%d", n, n == 1 ? "" : "s",
                 sort_names[m->wl_sort], m->wl_page + 1,
                 pages > m->wl_page ? pages : m->wl_page + 1);
    screen_text(scr, 2, 3, STY(SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE),
                "   Player               Race/class       Depth    Turn   Idle  Watch  Term");
    draw_wl_rows(c, scr);
    if (n == 0 && m->wl_view.n == 0)
        screen_text(scr, 5, 5, ST_DIM, "Nobody is playing right now.");
    screen_text(scr, 2, 5 + WL_VIEW_ROWS, ST_DIM,
                "Letter: watch   > next page   < previous page   . sort   q back");
    screen_cursor(scr, 0, 0, false);
}

/* The page laid anew: on opening, turning a page or sorting. */
static void wl_lay(conn_t *c)
{
    menu_state_t *m = c->menu;
    m->wl_page = wlist_view_lay(c->srv, &m->wl_view, m->wl_sort, m->wl_page);
}

/* Watches the game under letter key as the page was last drawn. */
static void wl_pick(conn_t *c, uint32_t key)
{
    int i = (int)(key - 'a') - (key > 'q');
    wlist_sync(c->srv); /* games that went since the tick are not picked */
    const wl_row_t *r = wlist_view_row(c->srv, &c->menu->wl_view, i);
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
    menu_redraw(c); /* a free letter, or its game is over: shown so */
}

static void watchlist_key(conn_t *c, key_event_t k)
{
    menu_state_t *m = c->menu;
    if (k.code == 'q' || k.code == KEY_ESC) {
        conn_menu(c, NULL);
        return;
    }
    if (k.code >= 'a' && k.code <= 'z') {
        wl_pick(c, k.code);
        return;
    }
    if (k.code == '>' || k.code == KEY_PGDN || k.code == ' ')
        m->wl_page++;
    else if ((k.code == '<' || k.code == KEY_PGUP) && m->wl_page > 0)
        m->wl_page--;
    else if (k.code == '.')
        m->wl_sort = (m->wl_sort + 1) % WL_ORDERS;
    else {
        menu_redraw(c);
        return;
    }
    wl_lay(c);
    menu_redraw(c);
}

void menu_open_watchlist(conn_t *c)
{
    menu_show(c, MENU_WATCHLIST);
    c->menu->wl_page = 0;
    wl_lay(c);
    menu_redraw(c);
}

const menu_screen_t menu_screen_watchlist = {draw_watchlist, watchlist_key, .tick = true};
