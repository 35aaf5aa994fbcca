/* gameover — the last screen of a game (see gameover.h). */
#include "gameover.h"
#include <stdlib.h>
#include <string.h>
#include "server.h"

struct gameover {
    server_t *srv;
    int64_t game_id;
    char player[32];
    game_status_t st;
    int n, cap;
    struct {
        conn_t *c;
        bool player;
    } v[];
};

gameover_t *gameover_new(server_t *srv, int64_t game_id, const char *player,
                         const game_status_t *st, int viewers)
{
    gameover_t *g = calloc(1, sizeof *g + (size_t)(viewers + 1) * sizeof g->v[0]);
    if (!g)
        return NULL;
    g->srv = srv;
    g->game_id = game_id;
    snprintf(g->player, sizeof g->player, "%s", player);
    g->st = *st;
    g->cap = viewers + 1;
    return g;
}

void gameover_add(gameover_t *g, conn_t *c, bool player)
{
    if (g->n >= g->cap)
        return;
    conn_ref(c);
    g->v[g->n].c = c;
    g->v[g->n++].player = player;
    menu_wait(c);
}

void gameover_game_url(const server_t *srv, int64_t game_id, char *out, size_t n)
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

/* The screen's lines, "\n" between them (menu_message draws each). */
static void gameover_text(const gameover_t *g, bool player, int64_t rank, char *out, size_t n)
{
    const game_status_t *st = &g->st;
    char url[240], place[64] = "";
    gameover_game_url(g->srv, g->game_id, url, sizeof url);
    if (rank > 0)
        snprintf(place, sizeof place, "Place on the high scores: #%lld.\n", (long long)rank);
    char deepest[32] = "never left the town";
    if (st->max_depth > 0)
        snprintf(deepest, sizeof deepest, "deepest level %d", st->max_depth);
    snprintf(out, n, "%s\nGame over: %s.\n%s the %s %s: score %lld after %llu turns, %s.\n%s%s%s",
             player ? "Your game is over." : "The game you watched has ended.", st->cause,
             g->player, st->race, st->cls, (long long)st->score, (unsigned long long)st->turn,
             deepest, place, url[0] ? "Its page: " : "", url);
}

static void on_rank(void *ud, int status, int64_t rank)
{
    gameover_t *g = ud;
    for (int i = 0; i < g->n; i++) {
        conn_t *c = g->v[i].c;
        if (!c->closing && c->place == CONN_WAIT) {
            char text[640];
            gameover_text(g, g->v[i].player, status == DB_OK ? rank : 0, text, sizeof text);
            menu_message(c, text);
        }
        conn_unref(c);
    }
    free(g);
}

void gameover_start(gameover_t *g)
{
    db_game_rank(g->srv->db, g->game_id, on_rank, g);
}
