/* menu_scores — the high scores, read from the database once the screen
 * is up ("Loading scores..." until then); any key goes back. */
#include "menu_impl.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The lines cause takes from column 8, wrapped at spaces (a word longer
 * than a line is cut); drawn from row y when draw: how many. */
static int cause_lines(screen_t *scr, int y, const char *cause, bool draw)
{
    int w = scr->w - 8 > 20 ? scr->w - 8 : 20;
    return menu_wrap(draw ? scr : NULL, 8, y, w, INT_MAX, STYLE_DEFAULT, cause);
}

/* A row per game; a cause of death too long for the row's end (at 80
 * columns it has 26) goes whole under the row, on as many lines as it
 * takes. */
static void draw_scores_rows(screen_t *scr, const db_game_t *g, size_t n)
{
    screen_text(scr, 2, 1, ST_TITLE, "High scores");
    screen_text(scr, 2, 3, STY(SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE),
                " #  Score      Player               Depth  Turns   Cause");
    int y = 4, last = scr->h - 4; /* rows 4..last; "Press any key." below */
    for (size_t i = 0; i < n && y <= last; i++) {
        char row[96];
        int len =
            snprintf(row, sizeof row, "%2zu  %-10lld %-20.20s %5d %7lld   ", i + 1,
                     (long long)g[i].score, g[i].player, g[i].max_depth, (long long)g[i].turns);
        if (len < 0 || 2 + len + (int)strlen(g[i].cause) <= scr->w) {
            screen_textf(scr, 2, y++, STYLE_DEFAULT, "%s%s", row, g[i].cause);
            continue;
        }
        int under = cause_lines(scr, y + 1, g[i].cause, false);
        if (y + under > last) /* not all its lines: the list ends here */
            break;
        screen_text(scr, 2, y++, STYLE_DEFAULT, row);
        y += cause_lines(scr, y, g[i].cause, true);
    }
    if (n == 0)
        screen_text(scr, 4, 5, ST_DIM, "No finished games yet.");
}

/* Until the scores come, and whenever the screen is redrawn. */
static void draw_scores_loading(conn_t *c, screen_t *scr)
{
    (void)c;
    screen_text(scr, 2, 1, STYLE_DEFAULT, "Loading scores...");
}

static void on_scores(void *ud, int status, const db_game_t *games, size_t n)
{
    conn_t *c = ud;
    bool showing = !c->closing && c->place == CONN_MENU && c->menu->screen == MENU_SCORES;
    if (showing && menu_screens_ready(c) == 0 && !conn_small(c)) {
        screen_clear(c->scr);
        if (status == DB_OK)
            draw_scores_rows(c->scr, games, n);
        else
            screen_text(c->scr, 2, 1, ST_MSG, "Scores are not available right now.");
        screen_text(c->scr, 2, c->scr->h - 2, ST_DIM, "Press any key.");
        screen_cursor(c->scr, 0, 0, false);
        conn_send_diff(c);
    }
    conn_unref(c);
}

void menu_open_scores(conn_t *c)
{
    menu_show(c, MENU_SCORES);
    menu_redraw(c);
    conn_ref(c);
    db_scores_top(c->srv->db, 15, 0, on_scores, c);
}

static void scores_key(conn_t *c, key_event_t k)
{
    (void)k;
    conn_menu(c, NULL);
}

const menu_screen_t menu_screen_scores = {draw_scores_loading, scores_key};
