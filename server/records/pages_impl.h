/* pages_impl — what the records pages share (pages.c, hosted_pages.c):
 * a page being answered and the helpers that build and send it. Not a
 * contract outside server/records/. Loop thread only. */
#ifndef WARREN_PAGES_IMPL_H
#define WARREN_PAGES_IMPL_H
#include <stdbool.h>
#include <stdint.h>
#include "buf.h"
#include "db_hosted.h"
#include "db_records.h"
#include "records.h"
#include "html.h"
#include "records_query.h"
#include "server.h"
#include "web.h"
#include "webgw.h"

typedef struct page page_t;
struct page {
    server_t *srv;
    web_t *web;
    webgw_t *gw;
    uint64_t id;     /* the web request */
    bool api;        /* under /api/: answer JSON */
    bool cast;       /* a replay body: the asciicast (else the frames) */
    int64_t game_id; /* the game of /game/ID pages */
    char name[32];   /* a player, a [game ID], or a daily game's day */
    rq_filter_t filter;
    buf_t out;
    bool gzip;   /* the client takes gzip */
    bool zipped; /* gz holds out gzipped */
    buf_t gz;
    db_game_t game;
    int64_t user;
    int retry_after;           /* seconds, sent with a 503 (0: none) */
    char viewer[DB_NAME_MAX];  /* the account looking, "" for a visitor */
    db_player_totals_t totals; /* /player/NAME: shown with the games */
    char here[128];            /* the page's path, for the navigation's log-in link */
    void (*start)(page_t *p);  /* what to read once the viewer is known */
    db_hosted_game_t hosted;   /* /hosted/ID: the recording's row */
    list_t wnode;              /* rbuild_t.waiters while it waits for a body */
    char key[BUDGET_ADDR_MAX]; /* the client's address as its limits charge it */
};

void page_free(page_t *p);
/* Sends the body with status and content type, and frees p. */
void page_send(page_t *p, int status, const char *ctype);
/* Sends {"error","status"} or an HTML page saying msg (a 503 with
 * Retry-After), and frees p. */
void page_error(page_t *p, int status, const char *msg);
/* Answers p when status is not DB_OK (404 with what_missing when given
 * and DB_ENOTFOUND, else 500): true when answered. */
bool db_failed(page_t *p, int status, const char *what_missing);
/* A page for req (NULL when out of memory), not yet answered. */
page_t *page_new(webgw_t *g, const web_http_t *req);
/* Answers p at once when it cannot go on (then true): a bad URL (status
 * and why; 0: none), a POST, a stopping server. */
bool page_refused(page_t *p, const web_http_t *req, int status, const char *why);
/* A page for a route with an {id} (its game_id set), not yet answered;
 * NULL when answered already (a POST, a stopping server) or out of memory
 * (*ret -1). */
page_t *page_with_id(void *gw, const web_http_t *req, int *ret);
/* start(p) once the viewer is known (at once for JSON). */
void page_go(page_t *p, const web_http_t *req, void (*start)(page_t *p));
void html_head(page_t *p, const char *title);
void html_tail(buf_t *o);
void json_key_str(buf_t *o, const char *key, const char *v, bool comma);
void game_json(buf_t *o, const db_game_t *g); /* a game object (pages.c's top comment) */
/* A game's cells from score to how it ended (its cause; live for a game
 * being played), shared by every games table. */
void game_cells_html(buf_t *o, const db_game_t *g, const char *live);
void verified_html(buf_t *o, int v); /* "✓ verified", "unchecked", "✗ mismatch" */
void player_link(buf_t *o, const char *name);
/* Hosted games' score rows as a table: ranked (a /scores/ID table, a rank
 * column) or a player's (a game column); each links its recording. */
void hosted_table_html(buf_t *o, const server_t *srv, const db_hosted_score_t *r, size_t n,
                       bool ranked);
void hosted_json(buf_t *o, const db_hosted_score_t *r); /* one row, without its '{' */
/* The replay player's template (client-web/dist/replay.html) filled: {{id}},
 * {{page}} the game page's path (its .cast beside it), {{frames}} the
 * frames' URL, {{game}} a one-line summary (HTML as given), {{nav}}. */
void page_replay_tpl(page_t *p, const char *tpl, const char *id, const char *page,
                     const char *frames, const char *game_html);

#endif
