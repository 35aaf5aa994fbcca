/* gameover — the last screen of a game (see gameover.h). */
#include "gameover.h"
#include <stdlib.h>
#include <string.h>
#include "server.h"
#include "session.h"

typedef struct {
    server_t *srv;
    session_end_t end;
    int n;
    hooks_viewer_t v[];
} gameover_t;

/* The address of a game's page: "URL/game/ID", "" when there is no site. */
static void game_url(const server_t *srv, int64_t game_id, char *out, size_t n)
{
    const char *base = srv->cfg.public_url;
    char made[160];
    if (!base[0] && srv->cfg.http[0]) {
        snprintf(made, sizeof made, "http://%s", srv->cfg.http);
        base = made;
    }
    size_t len = strlen(base);
    while (len > 0 && base[len - 1] == '/')
        len--;
    if (len == 0)
        snprintf(out, n, "%s", "");
    else
        snprintf(out, n, "%.*s/game/%lld", (int)len, base, (long long)game_id);
}

/* The screen's lines, "\n" between them (conn_message draws each). */
static void gameover_text(const gameover_t *g, bool player, int64_t rank, char *out, size_t n)
{
    const session_status_t *st = &g->end.st;
    char url[240], place[64] = "";
    game_url(g->srv, g->end.game_id, url, sizeof url);
    if (rank > 0)
        snprintf(place, sizeof place, "Place on the high scores: #%lld.\n", (long long)rank);
    /* the Warren's depth alone: the wilds, towns and branches are none */
    char deepest[48] = "Never went down into the Warren.";
    if (st->max_depth > 0)
        snprintf(deepest, sizeof deepest, "Deepest level of the Warren: %d.", st->max_depth);
    /* the depth on a line of its own: a long name, race and class fit 80 columns */
    snprintf(out, n, "%s\nGame over: %s.\n%s the %s %s: score %lld after %llu turns.\n%s\n%s%s%s",
             player ? "Your game is over." : "The game you watched has ended.", st->cause,
             g->end.player, st->race, st->cls, (long long)st->score, (unsigned long long)st->turn,
             deepest, place, url[0] ? "Its page: " : "", url);
}

static void on_rank(void *ud, int status, int64_t rank)
{
    gameover_t *g = ud;
    for (int i = 0; i < g->n; i++) {
        conn_t *c = g->v[i].conn;
        if (!c->closing && c->place == CONN_WAIT) {
            char text[640];
            gameover_text(g, g->v[i].player, status == DB_OK ? rank : 0, text, sizeof text);
            conn_message(c, text);
        }
        conn_unref(c);
    }
    free(g);
}

bool gameover_show(server_t *srv, const session_end_t *end, const hooks_viewer_t *v, int n)
{
    gameover_t *g = malloc(sizeof *g + (size_t)n * sizeof g->v[0]);
    if (!g)
        return false;
    *g = (gameover_t){.srv = srv, .end = *end, .n = n};
    for (int i = 0; i < n; i++) {
        g->v[i] = v[i];
        conn_ref(v[i].conn);
        conn_wait(v[i].conn);
    }
    db_game_rank(srv->db, end->game_id, on_rank, g);
    return true;
}
