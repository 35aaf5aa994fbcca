/* daily_pages — the daily game's board (core/daily.h): /daily (today),
 * /daily/DATE and their JSON under /api/. Ranked are the day's games that
 * finished and whose replay agreed with their record (verified), by
 * score; the others (in progress, not checked yet, mismatched, broken)
 * are listed apart, unranked. A past day's rows link each game's replay,
 * dump and milestones, so players can learn from the day's dungeon;
 * today's link none of them (nor say the seed) until the day is over.
 * A day to come is 404; a malformed or impossible date 400.
 *
 * JSON: {"day","today":bool,"seed":string|null,"ranked":[game + "rank",
 *        "links"],"unranked":[game + "links"]} (game: pages.c's object;
 *        links: {} today, else {"page","replay","dump","milestones"}) */
#include <string.h>
#include <time.h>
#include "daily.h"
#include "db_daily.h"
#include "json.h"
#include "pages_impl.h"

#define DAILY_ROWS_MAX 500 /* games shown on one day's board */

static bool ranked(const db_game_t *g)
{
    return g->state == DB_GAME_FINISHED && g->verified == 1;
}

static bool is_today(const page_t *p)
{
    char today[DAILY_DATE_LEN];
    daily_date((int64_t)time(NULL), today);
    return strcmp(p->name, today) == 0;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void links_json(buf_t *o, const db_game_t *g, bool today)
{
    long long id = (long long)g->id;
    if (today)
        buf_puts(o, ",\"links\":{}}");
    else
        buf_printf(o,
                   ",\"links\":{\"page\":\"/game/%lld\",\"replay\":\"/game/%lld/replay\","
                   "\"dump\":\"/game/%lld/dump\",\"milestones\":\"/game/%lld#milestones\"}}",
                   id, id, id, id);
}

static void board_json(page_t *p, const db_game_t *gs, size_t n, bool today)
{
    buf_t *o = &p->out;
    /* the day is a checked YYYY-MM-DD: nothing in it to escape */
    buf_printf(o, "{\"day\":\"%s\",\"today\":%s,\"seed\":", p->name, today ? "true" : "false");
    if (today || n == 0)
        buf_puts(o, "null");
    else
        buf_printf(o, "\"%llu\"", (unsigned long long)gs[0].seed);
    for (int part = 0; part < 2; part++) {
        buf_puts(o, part ? ",\"unranked\":[" : ",\"ranked\":[");
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (ranked(&gs[i]) != (part == 0))
                continue;
            buf_puts(o, k ? ",\n" : "\n");
            game_json(o, &gs[i]);
            if (!o->failed && o->len) /* reopen the object for the board's own keys */
                o->len--;
            if (part == 0)
                buf_printf(o, ",\"rank\":%zu", k + 1);
            links_json(o, &gs[i], today);
            k++;
        }
        buf_putc(o, ']');
    }
    buf_puts(o, "}\n");
    page_send(p, 200, "application/json");
}

/* ---- HTML ------------------------------------------------------------------------------ */

static void row_html(buf_t *o, const db_game_t *g, size_t rank, bool today)
{
    buf_puts(o, "<tr>");
    buf_printf(o, rank ? "<td>%zu</td>" : "<td></td>", rank);
    buf_puts(o, "<td class=\"player\">");
    player_link(o, g->player);
    buf_puts(o, "</td>");
    game_cells_html(o, g, "playing now");
    buf_puts(o, "<td>");
    if (g->state == DB_GAME_FINISHED)
        verified_html(o, g->verified);
    buf_puts(o, "</td><td class=\"links\">");
    long long id = (long long)g->id;
    if (!today && g->state == DB_GAME_FINISHED)
        buf_printf(o,
                   "<a href=\"/game/%lld/replay\">replay</a> · <a href=\"/game/%lld/dump\">dump</a>"
                   " · <a href=\"/game/%lld#milestones\">milestones</a>",
                   id, id, id);
    buf_puts(o, "</td></tr>\n");
}

static void table_html(buf_t *o, const db_game_t *gs, size_t n, bool want_ranked, bool today)
{
    buf_puts(o, "<table class=\"games daily\"><thead><tr><th>#</th><th>Player</th><th>Score</th>"
                "<th>Race</th><th>Class</th><th>Turns</th><th>Depth (max)</th><th>Level</th>"
                "<th>End</th><th>Replay check</th><th></th></tr></thead><tbody>\n");
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (ranked(&gs[i]) == want_ranked)
            row_html(o, &gs[i], want_ranked ? ++k : 0, today);
    buf_puts(o, "</tbody></table>\n");
    if (k == 0 && want_ranked)
        buf_puts(o, "<p class=\"empty\">No verified game yet.</p>\n");
}

/* The day before or after day (a valid date) as YYYY-MM-DD. */
static void day_step(const char *day, int by, char out[DAILY_DATE_LEN])
{
    struct tm tm = {0};
    tm.tm_year =
        (day[0] - '0') * 1000 + (day[1] - '0') * 100 + (day[2] - '0') * 10 + (day[3] - '0') - 1900;
    tm.tm_mon = (day[5] - '0') * 10 + (day[6] - '0') - 1;
    tm.tm_mday = (day[8] - '0') * 10 + (day[9] - '0');
    daily_date((int64_t)timegm(&tm) + by * 86400, out);
}

static void intro_html(buf_t *o, const char *day, bool today)
{
    char prev[DAILY_DATE_LEN], next[DAILY_DATE_LEN];
    day_step(day, -1, prev);
    day_step(day, 1, next);
    buf_printf(o, "<h2 class=\"scores\">Daily game: %s</h2>\n", day);
    buf_puts(o, "<p>Every day (UTC) one dungeon and one character for everyone, one try per "
                "account. Ranked: finished games whose replay agreed with their score.</p>\n");
    if (today)
        buf_puts(o, "<p><a class=\"button\" href=\"/play/daily\">Play today's daily game</a> "
                    "(or <code>d</code> in the telnet menu). Replays, dumps and milestones "
                    "open when the day is over.</p>\n");
    buf_printf(o, "<p class=\"games-nav\"><a href=\"/daily/%s\">← %s</a>", prev, prev);
    if (!today)
        buf_printf(o, " · <a href=\"/daily/%s\">%s →</a> · <a href=\"/daily\">today</a>", next,
                   next);
    buf_puts(o, "</p>\n");
}

static void on_board(void *ud, int status, const db_game_t *gs, size_t n)
{
    page_t *p = ud;
    if (db_failed(p, status, NULL))
        return;
    bool today = is_today(p);
    if (p->api) {
        board_json(p, gs, n, today);
        return;
    }
    buf_t *o = &p->out;
    char title[48];
    snprintf(title, sizeof title, "Daily game %s", p->name);
    html_head(p, title);
    intro_html(o, p->name, today);
    table_html(o, gs, n, true, today);
    buf_puts(o, "<h3>Not ranked (yet)</h3>\n<p>In progress, not yet checked by replay, or "
                "whose replay disagreed.</p>\n");
    table_html(o, gs, n, false, today);
    html_tail(o);
    page_send(p, 200, "text/html; charset=utf-8");
}

static void board_start(page_t *p)
{
    db_daily_board(p->srv->db, p->name, DAILY_ROWS_MAX, on_board, p);
}

int records_daily(void *gw, const web_http_t *req)
{
    page_t *p = page_new(gw, req);
    char err[160] = "";
    if (!p)
        return -1;
    char today[DAILY_DATE_LEN];
    daily_date((int64_t)time(NULL), today);
    int status = 0;
    const char *pat = req->route->pattern;
    if (pat[strlen(pat) - 1] != '*') /* /daily, /api/daily: today's */
        memcpy(p->name, today, DAILY_DATE_LEN);
    else if ((status = rq_daily_date(req->param, p->name, err, sizeof err)) == 0 &&
             strcmp(p->name, today) > 0) {
        status = 404;
        snprintf(err, sizeof err, "the daily game of %s has not started yet", p->name);
    }
    if (!page_refused(p, req, status, err))
        page_go(p, req, board_start);
    return 0;
}
