/* menu — what a terminal shows outside a game; see menu.h. Each screen is
 * a file of its own holding its row of the screen table (menu_impl.h);
 * this file draws whichever a conn shows, hands it its keys, and keeps
 * what they all share. Account checks run on the thread pool
 * (accounts.h); while one is out the conn is in CONN_WAIT and its keys
 * are held (conn_key): an account check's are played where it leads, a
 * game load's in the game. */
#include <stdlib.h>
#include <string.h>
#include "announce.h"
#include "hooks.h"
#include "inbox.h"
#include "menu_impl.h"
#include "session.h"
#include "siteinfo.h"

#define MENU_SCREEN_ROW_(id, name) [MENU_##id] = &menu_screen_##name,
static const menu_screen_t *const screens[MENU_SCREENS] = {MENU_SCREEN_LIST(MENU_SCREEN_ROW_)};
#undef MENU_SCREEN_ROW_

menu_state_t *menu_state_new(void)
{
    return calloc(1, sizeof(menu_state_t));
}

void menu_state_free(menu_state_t *m)
{
    if (m) { /* it may hold a password */
        rcedit_free(m->rc);
        memset(m, 0, sizeof *m);
    }
    free(m);
}

void menu_show(conn_t *c, menu_screen_id_t screen)
{
    conn_set_place(c, CONN_MENU);
    c->menu->screen = screen;
}

int menu_screens_ready(conn_t *c)
{
    int w = c->w, h = c->h;
    if (conn_small(c)) /* the notice at the size the terminal has */
        conn_said_size(c, &w, &h);
    if (w > TERM_MAX_W)
        w = TERM_MAX_W;
    if (h > TERM_MAX_H)
        h = TERM_MAX_H;
    if (!c->scr && !(c->scr = screen_new(w, h)))
        return -1;
    if (!c->shown) {
        if (!(c->shown = screen_new(w, h)))
            return -1;
        c->shown_valid = false;
    }
    if (c->scr->w != w || c->scr->h != h) {
        if (screen_resize(c->scr, w, h))
            return -1;
        c->shown_valid = false;
    }
    return 0;
}

/* Terminal below what it shows needs (conn_min_size: the menu's 80x24,
 * a game's own): a message drawn at the size it has, word by word,
 * saying what becomes of keys meanwhile. */
static void draw_too_small(conn_t *c, screen_t *scr)
{
    char text[300], *save = NULL;
    int mw, mh, w, h;
    conn_min_size(c, &mw, &mh);
    conn_said_size(c, &w, &h);
    if (c->place == CONN_PLAY || c->place == CONN_WATCH)
        snprintf(text, sizeof text,
                 "This game needs a terminal of at least %dx%d; yours is %dx%d. Please "
                 "enlarge your terminal. Keys are ignored until then.",
                 mw, mh, w, h);
    else
        snprintf(text, sizeof text,
                 "Please enlarge your terminal to at least %dx%d. (now %dx%d) Keys but q "
                 "(quit) are ignored until then.",
                 mw, mh, w, h);
    int x = 0, y = 0;
    for (char *wd = strtok_r(text, " ", &save); wd; wd = strtok_r(NULL, " ", &save)) {
        int n = (int)strlen(wd);
        if (x > 0 && x + n > scr->w)
            x = 0, y++;
        screen_text(scr, x, y, ST_MSG, wd);
        x += n + 1;
    }
    screen_cursor(scr, 0, 0, false);
}

/* The banner: the server's name and message of the day, who is logged
 * in, the site's address and how many play now (siteinfo.h). */
void menu_draw_header(conn_t *c, screen_t *scr)
{
    const config_t *cfg = &c->srv->cfg;
    int x = screen_text(scr, 2, 1, ST_TITLE, siteinfo_name(cfg));
    screen_text(scr, x + 1, 1, STYLE_DEFAULT, "- a roguelike host");
    screen_text(scr, 2, 2, STYLE_DEFAULT, cfg->motd);
    if (c->user_id)
        x = screen_textf(scr, 2, 3, STYLE_DEFAULT, "Logged in as %s.", c->user);
    else
        x = screen_text(scr, 2, 3, STYLE_DEFAULT, "Not logged in.");
    char url[200];
    siteinfo_url(cfg, url, sizeof url);
    int live = siteinfo_live(c->srv, false);
    screen_textf(scr, x + 2, 3, ST_DIM, "%d playing now%s%s", live, url[0] ? " · " : "", url);
}

/* The bytes of p's first line of at most w characters: up to its last
 * space that fits (or a newline, or the end), all w when no space does. */
static size_t wrap_line(const char *p, int w)
{
    size_t k = 0, space = 0;
    for (int chars = 0; p[k] && p[k] != '\n'; k++) {
        if (((unsigned char)p[k] & 0xC0) == 0x80)
            continue; /* inside a UTF-8 character */
        if (chars++ == w)
            return p[k] == ' ' || !space ? k : space;
        if (p[k] == ' ')
            space = k;
    }
    return k;
}

int menu_wrap(screen_t *scr, int x, int y, int w, int max, style_t st, const char *text)
{
    int lines = 0;
    for (const char *p = text; *p && lines < max; lines++) {
        size_t k = wrap_line(p, w > 0 ? w : 1);
        if (scr)
            screen_textf(scr, x, y + lines, st, "%.*s", (int)k, p);
        p += k + (p[k] == '\n');
        while (*p == ' ')
            p++;
    }
    return lines;
}

/* A menu item at row y: its key, then ") label" and an optional value. */
void menu_draw_item(screen_t *scr, int y, char key, const char *label, const char *value)
{
    screen_put(scr, 4, y, (unsigned char)key, ST_KEY);
    if (value)
        screen_textf(scr, 5, y, STYLE_DEFAULT, ") %s: %s", label, value);
    else
        screen_textf(scr, 5, y, STYLE_DEFAULT, ") %s", label);
}

static void draw_wait(conn_t *c, screen_t *scr)
{
    menu_draw_header(c, scr);
    screen_text(scr, 2, 5, STYLE_DEFAULT, "One moment...");
    screen_cursor(scr, 0, 0, false);
}

/* Hosted games ([game ID] sections) take the keys 1-9, after Warren's own. */
#define HOSTED_KEYS 9

int menu_hosted_count(const conn_t *c)
{
    int n = c->srv->cfg.games.n;
    return c->user_id && n > HOSTED_KEYS ? HOSTED_KEYS : c->user_id ? n : 0;
}

/* The hosted games with an rc file the player may edit: how many, the
 * first in *first. */
int menu_rc_games(const conn_t *c, int *first)
{
    int n = 0;
    for (int g = menu_hosted_count(c) - 1; g >= 0; g--)
        if (c->srv->cfg.games.games[g].rcfile[0])
            n++, *first = g;
    return n;
}

/* Draws what c should show now (held: once the read is handled). */
static void menu_draw(conn_t *c)
{
    menu_state_t *m = c->menu;
    if (m->held) { /* one redraw after the whole read, however many keys */
        m->redraw_due = true;
        return;
    }
    m->redraw_due = false;
    if (menu_screens_ready(c)) {
        conn_close(c, "out of memory");
        return;
    }
    screen_clear(c->scr);
    if (conn_small(c))
        draw_too_small(c, c->scr);
    else if (c->place == CONN_WAIT)
        draw_wait(c, c->scr);
    else
        screens[m->screen]->draw(c, c->scr);
    if (!conn_small(c))
        announce_draw(c->srv, c->scr);
    conn_send_diff(c);
}

void menu_redraw(conn_t *c)
{
    bool in_game = c->place == CONN_PLAY || c->place == CONN_WATCH;
    if (c->ops->relay || c->closing || (in_game && !conn_small(c))) /* a game draws itself */
        return;
    menu_draw(c); /* or the notice of a terminal too small for it */
}

bool menu_at_main(const conn_t *c)
{
    return c->place == CONN_MENU && c->menu->screen == MENU_MAIN;
}

/* hooks_t.menu_too_small: a terminal here (conn_too_small routes). */
static void too_small_here(conn_t *c)
{
    c->shown_valid = false;
    if (!c->closing)
        menu_draw(c);
}

void menu_redraw_all(server_t *s)
{
    LIST_EACH (it, &s->conns) {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing && c->place != CONN_PLAY && c->place != CONN_WATCH)
            menu_redraw(c);
    }
}

void menu_hold(conn_t *c)
{
    c->menu->held = true;
}

void menu_release(conn_t *c)
{
    c->menu->held = false;
    if (c->menu->redraw_due)
        menu_redraw(c);
}

/* hooks_t.menu_enter: a terminal here (conn_menu routes the others). */
static void enter_here(conn_t *c, const char *msg)
{
    menu_state_t *m = c->menu;
    menu_show(c, MENU_MAIN);
    c->shown_valid = false; /* coming back from a game: redraw everything */
    if (msg != m->msg)
        snprintf(m->msg, sizeof m->msg, "%s", msg ? msg : "");
    menu_redraw(c);
    if (m->mail_due && c->user_id) { /* mail that came while the player was away */
        m->mail_due = false;
        inbox_show(c);
    }
}

/* hooks_t.menu_message: a terminal here (conn_message routes the others). */
static void message_here(conn_t *c, const char *msg)
{
    menu_show(c, MENU_MESSAGE);
    c->shown_valid = false; /* it may come straight from a game screen */
    snprintf(c->menu->msg, sizeof c->menu->msg, "%s", msg);
    menu_redraw(c);
}

void menu_mail_later(conn_t *c)
{
    c->menu->mail_due = true;
}

void menu_log_out(conn_t *c, const char *msg)
{
    if (conn_in_game(c))
        conn_detach(c, NULL);
    conn_set_user(c, 0, "", "");
    c->menu->mail_due = false;
    conn_menu(c, msg);
}

/* hooks_t.menu_key: a key of a terminal in the menu (conn_key routes). */
static void menu_key(conn_t *c, key_event_t k)
{
    if (conn_small(c) && k.code != 'q')
        return;
    if (c->place == CONN_MENU)
        screens[c->menu->screen]->key(c, k);
}

/* The one-second redraw of the terminals in the menu (the watch list's
 * games and clocks) is spread over loop turns: at most MENU_TICK_SLICE
 * terminals redrawn a turn (about 30 us each: draw, diff, write), so 100
 * watch lists never hold a player's key behind all of their redraws; the
 * round is over a few turns later. The terminals looked at go to the back
 * of menu_conns, so a round takes each in turn. */
#define MENU_TICK_SLICE 8
#define MENU_TICK_LOOK  64 /* terminals looked at a turn (most may have no clock) */

static void tick_stop(server_t *s)
{
    s->menu_due = 0;
    if (s->menu_idle_on) {
        uv_idle_stop(&s->menu_idle);
        s->menu_idle_on = false;
    }
}

static void tick_slice(uv_idle_t *h)
{
    server_t *s = h->data;
    uint64_t began = turns_begin(&s->turns);
    int drawn = 0;
    if (s->menu_due > s->nmenu) /* some left the menu: the round ends sooner */
        s->menu_due = s->nmenu;
    for (int looked = 0; s->menu_due > 0 && drawn < MENU_TICK_SLICE && looked < MENU_TICK_LOOK;
         looked++) {
        list_t *n = list_pop_front(&s->menu_conns);
        if (!n)
            break;
        list_push_back(&s->menu_conns, n);
        s->menu_due--;
        conn_t *c = LIST_ITEM(n, conn_t, mnode);
        if (!c->closing && screens[c->menu->screen]->tick) {
            menu_redraw(c);
            drawn++;
        }
    }
    if (drawn)
        turns_note(&s->turns, TURN_MENU, TURN_REDRAWS, (uint32_t)drawn);
    turns_end(&s->turns, began);
    if (s->menu_due <= 0 || list_empty(&s->menu_conns))
        tick_stop(s);
}

void menu_tick(server_t *s)
{
    if (s->stopping)
        return;
    s->menu_due = s->nmenu; /* a round still under way is taken up by this one */
    if (!s->nmenu || s->menu_idle_on)
        return;
    if (!s->menu_idle.loop) {
        uv_idle_init(s->loop, &s->menu_idle);
        s->menu_idle.data = s;
    }
    uv_idle_start(&s->menu_idle, tick_slice);
    s->menu_idle_on = true;
}

void menu_tick_close(server_t *s)
{
    tick_stop(s);
    if (s->menu_idle.loop && !uv_is_closing((uv_handle_t *)&s->menu_idle))
        uv_close((uv_handle_t *)&s->menu_idle, NULL);
}

void menu_hooks(hooks_t *h)
{
    h->menu_enter = enter_here;
    h->menu_message = message_here;
    h->menu_redraw = menu_redraw;
    h->menu_too_small = too_small_here;
    h->menu_key = menu_key;
}
