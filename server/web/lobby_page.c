/* lobby_page — the lobby's welcome and feed (lobby_page.h). */
#include "lobby_page.h"
#include <stdlib.h>
#include <string.h>
#include "db_records.h"
#include "gamecfg.h"
#include "html.h"
#include "json.h"
#include "siteinfo.h"

/* ---- the welcome ------------------------------------------------------------------ */

/* One way to connect: a label and the line in a read-only field. */
static void connect_line(buf_t *b, const char *label, const char *line)
{
    if (!line[0])
        return;
    buf_printf(b, "<li><label>%s <input class=\"copy\" readonly size=\"%zu\" value=\"", label,
               strlen(line) + 2);
    html_escape_str(b, line);
    buf_puts(b, "\"></label></li>"); /* lobby.js adds a Copy button */
}

static void play_buttons(webgw_t *g, buf_t *b)
{
    const gamecfg_list_t *games = &g->srv->cfg.games;
    buf_puts(b, "<p class=\"play\"><a class=\"button\" href=\"/play\">Play Warren</a>");
    for (int i = 0; i < games->n; i++) {
        buf_printf(b, " <a class=\"button\" href=\"/play/%s\">Play ", games->games[i].id);
        html_escape_str(b, games->games[i].name); /* ids are [a-z0-9_-]: no escape needed */
        buf_puts(b, "</a>");
    }
    buf_puts(b, "</p>\n");
}

void lobby_page_welcome(webgw_t *g, buf_t *b)
{
    const config_t *c = &g->srv->cfg;
    char telnet[240], ssh[160];
    siteinfo_telnet(c, telnet, sizeof telnet);
    siteinfo_ssh(c, ssh, sizeof ssh);
    buf_puts(b, "<section id=\"welcome\"><h2>");
    html_escape_str(b, siteinfo_name(c));
    buf_puts(b, "</h2>");
    if (c->motd[0]) {
        buf_puts(b, "<p id=\"motd\">");
        html_escape_str(b, c->motd);
        buf_puts(b, "</p>");
    }
    if (telnet[0] || ssh[0]) {
        buf_puts(b, "<p>Play here in the browser, or from a terminal:</p><ul id=\"connect\">");
        connect_line(b, "telnet", telnet);
        connect_line(b, "ssh", ssh);
        buf_puts(b, "</ul>");
    }
    play_buttons(g, b);
    buf_puts(b, "</section>\n");
}

/* ---- the feed ----------------------------------------------------------------------- */

/* What happened, after the player's name. */
static void feed_what(webgw_t *g, buf_t *b, const db_feed_t *f)
{
    if (!strcmp(f->kind, "milestone")) {
        buf_puts(b, " ");
        html_escape_str(b, f->text);
        buf_printf(b, " (turn %lld)", (long long)f->score);
        return;
    }
    if (!strcmp(f->kind, "hosted")) {
        const gamecfg_t *h = gamecfg_find(&g->srv->cfg.games, f->game);
        buf_puts(b, " (");
        html_escape_str(b, h ? h->name : f->game);
        buf_puts(b, "): ");
        html_escape_str(b, f->text);
        buf_printf(b, ", %lld points", (long long)f->score);
        return;
    }
    bool quit = !strcmp(f->kind, "quit");
    /* a quit's cause says so itself ("quit in the town") */
    buf_puts(b, !strcmp(f->kind, "won")                 ? " won: "
                : quit && !strncmp(f->text, "quit ", 5) ? " "
                : quit                                  ? " quit: "
                                                        : " died: ");
    html_escape_str(b, f->text);
    buf_printf(b, ", score %lld, deepest level %d", (long long)f->score, f->depth);
}

static void feed_row(webgw_t *g, buf_t *b, const db_feed_t *f)
{
    bool hosted = !strcmp(f->kind, "hosted");
    buf_printf(b, "<li class=\"%s\"><time>", hosted ? "dead" : f->kind);
    webgw_put_time(b, f->time);
    buf_puts(b, "</time> <a href=\"/player/");
    url_escape(b, f->player);
    buf_puts(b, "\">");
    html_escape_str(b, f->player);
    buf_puts(b, "</a>");
    feed_what(g, b, f);
    if (f->link > 0)
        buf_printf(b, " <a href=\"/%s/%lld\">%s</a>", hosted ? "hosted" : "game",
                   (long long)f->link, hosted ? "recording" : "game");
    buf_puts(b, "</li>\n");
}

/* The feed's list, or a line saying there is none yet. */
static void feed_list(webgw_t *g, buf_t *b)
{
    if (g->feed.len)
        buf_put(b, g->feed.data, g->feed.len);
    else
        buf_puts(b, "<p>Nothing yet: no game has ended here.</p>");
}

void lobby_page_feed(webgw_t *g, buf_t *b)
{
    buf_puts(b, "<section id=\"feed\"><h2>Recent deaths, wins and milestones</h2>");
    feed_list(g, b);
    buf_puts(b, "</section>\n");
}

/* A page or an /api/feed waiting for the read under way. */
typedef struct feed_wait {
    void (*then)(void *ud);
    void *ud;
    struct feed_wait *next;
} feed_wait_t;

/* The read is done: everything that waited for it goes on, first come
 * first. */
static void feed_waiters_run(webgw_t *g)
{
    feed_wait_t *w = g->feed_waiting, *fifo = NULL;
    g->feed_waiting = NULL;
    g->feed_reading = false;
    while (w) {
        feed_wait_t *next = w->next;
        w->next = fifo;
        fifo = w;
        w = next;
    }
    while (fifo) {
        feed_wait_t *next = fifo->next;
        fifo->then(fifo->ud);
        free(fifo);
        fifo = next;
    }
}

static void on_feed(void *ud, int status, const db_feed_t *f, size_t n)
{
    webgw_t *g = ud;
    if (status == DB_OK) {
        buf_reset(&g->feed);
        if (n)
            buf_puts(&g->feed, "<ul>");
        for (size_t i = 0; i < n; i++)
            feed_row(g, &g->feed, &f[i]);
        if (n)
            buf_puts(&g->feed, "</ul>");
        if (g->feed.failed)
            buf_reset(&g->feed);
        g->feed_ms = now_ms(g->srv);
    }
    feed_waiters_run(g);
}

void lobby_page_refresh(webgw_t *g, void (*then)(void *ud), void *ud)
{
    uint64_t now = now_ms(g->srv);
    bool fresh = g->feed_ms && now - g->feed_ms < LOBBY_FEED_MS;
    feed_wait_t *w = fresh || !g->srv->db ? NULL : malloc(sizeof *w);
    if (!w) {
        then(ud);
        return;
    }
    /* many pages at once read it once: each of a burst of requests (a
     * stranger's 200 at once) was a query of its own */
    *w = (feed_wait_t){then, ud, g->feed_waiting};
    g->feed_waiting = w;
    if (g->feed_reading)
        return;
    g->feed_reading = true;
    g->feed_reads++;
    db_feed_recent(g->srv->db, LOBBY_FEED_ROWS, on_feed, g);
}

/* ---- /api/feed ----------------------------------------------------------------------- */

typedef struct {
    webgw_t *g;
    uint64_t id;
} feed_req_t;

static void feed_reply(void *ud)
{
    feed_req_t r = *(feed_req_t *)ud;
    free(ud);
    buf_t list, b;
    buf_init(&list);
    buf_init(&b);
    feed_list(r.g, &list);
    buf_puts(&b, "{\"html\":");
    json_put_string(&b, list.len ? list.data : "", list.len);
    buf_puts(&b, "}\n");
    b.failed |= list.failed;
    buf_free(&list);
    if (b.failed)
        web_reply(r.g->web, r.id, 503, "text/plain; charset=utf-8", NULL, "busy\n", 5);
    else
        web_reply(r.g->web, r.id, 200, "application/json", NULL, b.data, b.len);
    buf_free(&b);
}

int lobby_page_api(void *ctx, const web_http_t *req)
{
    webgw_t *g = ctx;
    feed_req_t *r = malloc(sizeof *r);
    if (!r) {
        web_reply(g->web, req->id, 503, "text/plain; charset=utf-8", NULL, "busy\n", 5);
        return 0;
    }
    *r = (feed_req_t){g, req->id};
    lobby_page_refresh(g, feed_reply, r);
    return 0;
}
