/* announce — the administrator's announcement on every screen (announce.h). */
#include "announce.h"
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "menu.h"
#include "session.h"
#include "shard.h"

void announce_draw(server_t *s, screen_t *scr)
{
    static const style_t st = {11, SCREEN_DEFAULT_COLOR, ATTR_BOLD | ATTR_REVERSE};
    if (!s->announce[0] || now_ms(s) >= s->announce_until)
        return;
    int y = scr->h - 1;
    screen_fill(scr, 0, y, scr->w, 1, ' ', STYLE_DEFAULT);
    int x = screen_text(scr, 0, y, st, " Announcement: ");
    screen_text(scr, x, y, st, s->announce);
}

/* When the line comes off games: ANNOUNCE_GAME_MS after it went up. */
static uint64_t game_until(const server_t *k)
{
    return k->announce_until - ANNOUNCE_MS + ANNOUNCE_GAME_MS;
}

bool announce_on_games(const server_t *k)
{
    return k->announce[0] && now_ms(k) < game_until(k);
}

void announce_overlay(session_t *s, screen_t *scr)
{
    if (announce_on_games(s->srv))
        announce_draw(s->srv, scr);
}

void announce_game_tick(server_t *k)
{
    uint64_t now = now_ms(k), off = game_until(k);
    /* the ticks are a second apart: two of them may fall in this window,
     * and a redraw of an unchanged game costs nothing */
    if (k->announce[0] && now >= off && now < off + 2000)
        session_redraw_all(k);
}

/* Keys waiting for their journal rows keep their frame (and the
 * announcement) until the commit; the others redraw now. */
typedef struct {
    char text[sizeof((server_t *)0)->announce];
    uint64_t until;
} announce_t;

/* On another loop's thread: its own copy, its games redrawn. */
static void announce_here(server_t *k, void *ud)
{
    announce_t *a = ud;
    memcpy(k->announce, a->text, sizeof k->announce);
    k->announce_until = a->until;
    free(a);
    session_redraw_all(k);
}

void announce_set(server_t *home, const char *text)
{
    snprintf(home->announce, sizeof home->announce, "%s", text);
    home->announce_until = text[0] ? now_ms(home) + ANNOUNCE_MS : 0;
    menu_redraw_all(home);
    session_redraw_all(home);
    for (int i = 1; i < shard_count(home); i++) {
        announce_t *a = malloc(sizeof *a);
        if (!a) {
            log_error("announcement: out of memory for loop %d", i);
            continue;
        }
        memcpy(a->text, home->announce, sizeof a->text);
        a->until = home->announce_until;
        if (shard_post(shard_at(home, i), announce_here, a))
            free(a); /* stopping: it draws nothing more */
    }
}

void announce_tick(server_t *home)
{
    if (home->announce[0] && now_ms(home) >= home->announce_until)
        announce_set(home, "");
}
