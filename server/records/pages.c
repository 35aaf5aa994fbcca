/* pages — the score pages, player and game pages, their JSON under /api/,
 * the dump, the asciicast export and the browser replay (records_query.h
 * lists the URLs). Every page is built from database reads (reader
 * threads) or a replay job (thread pool); the loop only formats text.
 * Everything a player or the content wrote is escaped (html_escape,
 * json_put_string). Bodies of HTTP_GZIP_MIN bytes and more go gzipped to
 * clients that take it: a replay's as it is built (rbuild.h: built once,
 * cached, at most replay-max bytes), the others (at most
 * HTTP_GZIP_LOOP_MAX) on the loop.
 *
 * JSON shapes (documented in docs/RECORDS.md, "JSON shapes"):
 *   game object  {"id","player","race","class","seed" (string),"content_version",
 *                 "start_time","end_time","turns","depth","max_depth","xl",
 *                 "score","cause","end_kind","state","verified"}
 *   /api/scores  {"filter":{"race","class","period"},"scores":[game + "rank"]}
 *   /api/scores/ID {"game":ID,"name","scores":[hosted]}  (a [game ID] of warren.conf)
 *   hosted row   {"game","name","player","role","race","gender","align","max_depth","death",
 *                 "points","turns","realtime","start_time","end_time"} (xlogfile's)
 *   /api/player/NAME {"name","totals":{...},"games":[game],"hosted":[hosted]}
 *   /api/game/ID {"game":game,"milestones":[{"turn","depth","kind","text"}],
 *                 "dump":text|null,"links":{...}}
 *   /api/game/ID/replay {"w","h","keyframe_turns","idle_ms",
 *                 "frames":[[turn,ms,"ansi diff"(,"keyframe")]],"turns","keys","hash",
 *                 "truncated"}
 *                 (ms: the frame's playback time, replay.h "Times") */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "db_records.h"
#include "gamecfg.h"
#include "http_gzip.h"
#include "json.h"
#include "log.h"
#include "records.h"
#include "pages_impl.h"
#include "rbuild.h"
#include "records_query.h"
#include "replay.h"
#include "web_parse.h"
#include "webgw.h"
#include "worldmap.h"
#include "session.h"
#include "shard.h"

#define SCORES_MAX       100
#define PLAYER_GAMES_MAX 100
#define CAST_STEP        0.2 /* seconds between keys without a recorded time in the asciicast */

static const char *const verified_words[] = {"mismatch", "unchecked", "verified"};
static const char *const state_words[] = {"live", "finished", "broken"};

static const char *verified_word(int v)
{
    return verified_words[(v < 0 ? -1 : v > 0 ? 1 : 0) + 1];
}

/* ---- replies -------------------------------------------------------------------- */

void page_free(page_t *p)
{
    list_remove(&p->wnode);
    buf_free(&p->out);
    buf_free(&p->gz);
    free(p);
}

/* Gzips the body for a client that takes it, when it is worth it. */
static void page_zip(page_t *p, size_t max)
{
    if (p->gzip && !p->zipped && !p->out.failed && p->out.len >= HTTP_GZIP_MIN && p->out.len <= max)
        p->zipped = http_gzip(p->out.data, p->out.len, &p->gz) == 0;
}

void page_send(page_t *p, int status, const char *ctype)
{
    const char *hdrs[7] = {"vary:", "Accept-Encoding"};
    char retry[16];
    int n = 2;
    web_t *w = p->srv->web ? p->web : NULL; /* NULL: the gateway is gone (shutdown) */
    if (p->out.failed) {
        buf_reset(&p->out);
        buf_puts(&p->out, "out of memory\n");
        status = 500;
        ctype = "text/plain; charset=utf-8";
        p->zipped = false;
    }
    page_zip(p, HTTP_GZIP_LOOP_MAX);
    if (p->zipped) {
        hdrs[n++] = "content-encoding:";
        hdrs[n++] = "gzip";
    }
    if (p->retry_after > 0) {
        snprintf(retry, sizeof retry, "%d", p->retry_after);
        hdrs[n++] = "retry-after:";
        hdrs[n++] = retry;
    }
    const buf_t *body = p->zipped ? &p->gz : &p->out;
    if (w)
        web_reply(w, p->id, status, ctype, hdrs, body->data ? body->data : "", body->len);
    page_free(p);
}

void html_head(page_t *p, const char *title)
{
    webgw_page_open(&p->out, title, p->viewer, p->here, NULL);
}

void html_tail(buf_t *o)
{
    webgw_page_close(o);
}

void page_error(page_t *p, int status, const char *msg)
{
    buf_reset(&p->out);
    p->zipped = false;
    if (status == 503 && !p->retry_after)
        p->retry_after = RECORDS_RETRY_S;
    if (p->api) {
        buf_puts(&p->out, "{\"error\":");
        json_put_string(&p->out, msg, strlen(msg));
        buf_puts(&p->out, ",\"status\":");
        buf_put_uint(&p->out, (uint64_t)status);
        buf_puts(&p->out, "}\n");
        page_send(p, status, "application/json");
        return;
    }
    html_head(p, status == 404 ? "Not found" : "Error");
    buf_puts(&p->out, "<h2>");
    html_escape_str(&p->out, msg);
    buf_puts(&p->out, "</h2><p><a href=\"/scores\">Scores</a></p>\n");
    html_tail(&p->out);
    page_send(p, status, "text/html; charset=utf-8");
}

bool db_failed(page_t *p, int status, const char *what_missing)
{
    if (status == DB_OK)
        return false;
    if (status == DB_ENOTFOUND && what_missing)
        page_error(p, 404, what_missing);
    else
        page_error(p, 500, "the database is not available");
    return true;
}

/* ---- shared pieces ------------------------------------------------------------------ */

void json_key_str(buf_t *o, const char *key, const char *v, bool comma)
{
    buf_printf(o, "%s\"%s\":", comma ? "," : "", key);
    json_put_string(o, v, strlen(v));
}

void game_json(buf_t *o, const db_game_t *g)
{
    buf_printf(o, "{\"id\":%lld", (long long)g->id);
    json_key_str(o, "player", g->player, true);
    json_key_str(o, "race", g->race, true);
    json_key_str(o, "class", g->cls, true);
    buf_printf(o, ",\"seed\":\"%llu\"", (unsigned long long)g->seed);
    json_key_str(o, "content_version", g->content_version, true);
    buf_printf(o,
               ",\"start_time\":%lld,\"end_time\":%lld,\"turns\":%lld,\"depth\":%d,"
               "\"max_depth\":%d,\"xl\":%d,\"score\":%lld",
               (long long)g->start_time, (long long)g->end_time, (long long)g->turns, g->depth,
               g->max_depth, g->xl, (long long)g->score);
    json_key_str(o, "cause", g->cause, true);
    json_key_str(o, "end_kind", g->end_kind, true);
    json_key_str(o, "state", state_words[g->state % 3], true);
    json_key_str(o, "verified", verified_word(g->verified), true);
    buf_putc(o, '}');
}

void verified_html(buf_t *o, int v)
{
    static const char *const text[] = {"✗ mismatch", "unchecked", "✓ verified"};
    const char *w = verified_word(v);
    buf_printf(o, "<span class=\"%s\" title=\"replay check: %s\">%s</span>", w, w,
               text[(v < 0   ? -1
                     : v > 0 ? 1
                             : 0) +
                    1]);
}

void player_link(buf_t *o, const char *name)
{
    buf_puts(o, "<a href=\"/player/");
    url_escape(o, name);
    buf_puts(o, "\">");
    html_escape_str(o, name);
    buf_puts(o, "</a>");
}

void game_cells_html(buf_t *o, const db_game_t *g, const char *live)
{
    buf_printf(o, "<td class=\"score\">%lld</td><td>", (long long)g->score);
    html_escape_str(o, g->race);
    buf_puts(o, "</td><td>");
    html_escape_str(o, g->cls);
    buf_printf(o, "</td><td>%lld</td><td>%d (%d)</td><td>%d</td><td class=\"cause\">",
               (long long)g->turns, g->depth, g->max_depth, g->xl);
    const char *end = g->state == DB_GAME_FINISHED ? g->cause
                      : g->state == DB_GAME_LIVE   ? live
                                                   : state_words[g->state % 3];
    html_escape_str(o, end);
    buf_puts(o, "</td>");
}

/* One row of a games table; rank 0 = no rank column. */
static void game_row_html(buf_t *o, const db_game_t *g, size_t rank, bool with_player)
{
    buf_puts(o, "<tr>");
    if (rank)
        buf_printf(o, "<td>%zu</td>", rank);
    if (with_player) {
        buf_puts(o, "<td class=\"player\">");
        player_link(o, g->player);
        buf_puts(o, "</td>");
    }
    game_cells_html(o, g, state_words[DB_GAME_LIVE]);
    buf_puts(o, "<td>");
    webgw_put_time(o, g->end_time ? g->end_time : g->start_time);
    buf_puts(o, "</td><td>");
    verified_html(o, g->verified);
    buf_printf(o, "</td><td><a href=\"/game/%lld\">game %lld</a></td></tr>\n", (long long)g->id,
               (long long)g->id);
}

static void games_table_html(buf_t *o, const db_game_t *gs, size_t n, bool ranked, bool with_player)
{
    buf_printf(o,
               "<table class=\"games\"><thead><tr>%s%s<th>Score</th><th>Race</th><th>Class</th>"
               "<th>Turns</th><th>Depth (max)</th><th>Level</th><th>End</th><th>Date</th>"
               "<th>Replay check</th><th></th></tr></thead><tbody>\n",
               ranked ? "<th>#</th>" : "", with_player ? "<th>Player</th>" : "");
    for (size_t i = 0; i < n; i++)
        game_row_html(o, &gs[i], ranked ? i + 1 : 0, with_player);
    buf_puts(o, "</tbody></table>\n");
    if (n == 0)
        buf_puts(o, "<p class=\"empty\">No games yet.</p>\n");
}

/* ---- hosted games' rows ---------------------------------------------------------------- */

/* "Scores of: Warren · NetHack 3.6.6 ...": each game's score page; current
 * ("" for Warren's) is not a link. */
static void games_nav_html(buf_t *o, const server_t *srv, const char *current)
{
    const gamecfg_list_t *gl = &srv->cfg.games;
    if (gl->n == 0)
        return;
    buf_puts(o, "<p class=\"games-nav\">Scores of: ");
    buf_puts(o, current[0] ? "<a href=\"/scores\">Warren</a>" : "<b>Warren</b>");
    for (int i = 0; i < gl->n; i++) {
        const gamecfg_t *g = &gl->games[i];
        bool here = strcmp(g->id, current) == 0;
        buf_puts(o, " · ");
        buf_printf(o, here ? "<b>" : "<a href=\"/scores/%s\">", g->id); /* ids are [a-z0-9_-] */
        html_escape_str(o, g->name);
        buf_puts(o, here ? "</b>" : "</a>");
    }
    buf_puts(o, "</p>\n");
}

/* Seconds as H:MM:SS. */
static void put_duration(buf_t *o, int64_t s)
{
    if (s < 0)
        s = 0;
    buf_printf(o, "%lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60),
               (long long)(s % 60));
}

static void hosted_row_html(buf_t *o, const server_t *srv, const db_hosted_score_t *r, size_t rank)
{
    buf_puts(o, "<tr>");
    if (rank)
        buf_printf(o, "<td>%zu</td><td class=\"player\">", rank);
    else {
        const gamecfg_t *g = gamecfg_find(&srv->cfg.games, r->game);
        buf_printf(o, "<td class=\"game\"><a href=\"/scores/%s\">", r->game);
        html_escape_str(o, g ? g->name : r->game);
        buf_puts(o, "</a></td><td class=\"player\">");
    }
    if (r->player && r->player[0]) /* the account, whatever the game called it */
        player_link(o, r->player);
    else
        html_escape_str(o, r->name);
    const char *text[] = {r->role, r->race, r->gender, r->align};
    for (int i = 0; i < 4; i++) {
        buf_puts(o, "</td><td>");
        html_escape_str(o, text[i]);
    }
    buf_puts(o, "</td><td>");
    if (r->max_depth > 0) /* Crawl's logfile has none */
        buf_printf(o, "%lld", (long long)r->max_depth);
    buf_puts(o, "</td><td class=\"cause\">");
    html_escape_str(o, r->death);
    buf_printf(o, "</td><td class=\"score\">%lld</td><td>%lld</td><td>", (long long)r->points,
               (long long)r->turns);
    put_duration(o, r->realtime);
    buf_puts(o, "</td><td>");
    webgw_put_time(o, r->end_time);
    buf_puts(o, "</td><td>");
    if (r->recording)
        buf_printf(o, "<a href=\"/hosted/%lld\">recording</a>", (long long)r->recording);
    buf_puts(o, "</td></tr>\n");
}

/* ranked: a /scores/ID table (rank column); else a player's (game column). */
void hosted_table_html(buf_t *o, const server_t *srv, const db_hosted_score_t *r, size_t n,
                       bool ranked)
{
    buf_printf(o,
               "<table class=\"games hosted\"><thead><tr>%s<th>Name</th><th>Role</th><th>Race</th>"
               "<th>Gender</th><th>Alignment</th><th>Deepest level</th><th>Death</th>"
               "<th>Points</th><th>Turns</th><th>Real time</th><th>Date</th><th></th></tr></thead>"
               "<tbody>\n",
               ranked ? "<th>#</th>" : "<th>Game</th>");
    for (size_t i = 0; i < n; i++)
        hosted_row_html(o, srv, &r[i], ranked ? i + 1 : 0);
    buf_puts(o, "</tbody></table>\n");
    if (n == 0)
        buf_puts(o, "<p class=\"empty\">No games yet.</p>\n");
}

void hosted_json(buf_t *o, const db_hosted_score_t *r)
{
    json_key_str(o, "game", r->game, false);
    json_key_str(o, "name", r->name, true);
    json_key_str(o, "player", r->player ? r->player : "", true);
    json_key_str(o, "role", r->role, true);
    json_key_str(o, "race", r->race, true);
    json_key_str(o, "gender", r->gender, true);
    json_key_str(o, "align", r->align, true);
    buf_printf(o, ",\"max_depth\":%lld", (long long)r->max_depth);
    json_key_str(o, "death", r->death, true);
    buf_printf(o,
               ",\"points\":%lld,\"turns\":%lld,\"realtime\":%lld,\"start_time\":%lld,"
               "\"end_time\":%lld,\"recording\":",
               (long long)r->points, (long long)r->turns, (long long)r->realtime,
               (long long)r->start_time, (long long)r->end_time);
    if (r->recording)
        buf_printf(o, "%lld}", (long long)r->recording);
    else
        buf_puts(o, "null}");
}

static void hosted_list_json(buf_t *o, const db_hosted_score_t *r, size_t n)
{
    buf_putc(o, '[');
    for (size_t i = 0; i < n; i++) {
        buf_puts(o, i ? ",\n{" : "\n{");
        hosted_json(o, &r[i]);
    }
    buf_putc(o, ']');
}

/* ---- /scores/ID: a hosted game's ----------------------------------------------------------- */

static void on_hosted_scores(void *ud, int status, const db_hosted_score_t *r, size_t n)
{
    page_t *p = ud;
    if (db_failed(p, status, NULL))
        return;
    const gamecfg_t *g = gamecfg_find(&p->srv->cfg.games, p->name);
    buf_t *o = &p->out;
    if (p->api) {
        buf_puts(o, "{");
        json_key_str(o, "game", p->name, false);
        json_key_str(o, "name", g ? g->name : p->name, true);
        buf_puts(o, ",\"scores\":");
        hosted_list_json(o, r, n);
        buf_puts(o, "}\n");
        page_send(p, 200, "application/json");
        return;
    }
    html_head(p, g ? g->name : p->name);
    buf_puts(o, "<h2 class=\"scores\">High scores: ");
    html_escape_str(o, g ? g->name : p->name);
    buf_puts(o, "</h2>\n");
    games_nav_html(o, p->srv, p->name);
    hosted_table_html(o, p->srv, r, n, true);
    html_tail(o);
    page_send(p, 200, "text/html; charset=utf-8");
}

static void hosted_scores_start(page_t *p)
{
    db_hosted_scores_top(p->srv->db, p->name, SCORES_MAX, 0, on_hosted_scores, p);
}

/* ---- /scores ------------------------------------------------------------------------- */

static void scores_form(buf_t *o, const rq_filter_t *q)
{
    static const char *const periods[] = {"all", "day", "week", "month", "year"};
    buf_puts(o, "<form method=\"get\" action=\"/scores\"><label>Race <input name=\"race\" "
                "maxlength=\"15\" value=\"");
    html_escape_str(o, q->race);
    buf_puts(o, "\"></label> <label>Class <input name=\"class\" maxlength=\"15\" value=\"");
    html_escape_str(o, q->cls);
    buf_puts(o, "\"></label> <label>Period <select name=\"period\">");
    for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++)
        buf_printf(o, "<option%s>%s</option>", strcmp(q->period, periods[i]) ? "" : " selected",
                   periods[i]);
    buf_puts(o, "</select></label> <button>Show</button></form>\n");
}

/* What the table shows, in words: "High scores: elf rogue, the last 7 days". */
static void scores_heading(buf_t *o, const rq_filter_t *q, size_t n)
{
    buf_puts(o, "<h2 class=\"scores\">High scores: ");
    if (q->race[0] || q->cls[0]) {
        html_escape_str(o, q->race[0] ? q->race : "every race");
        buf_puts(o, q->cls[0] ? " " : ", ");
        html_escape_str(o, q->cls[0] ? q->cls : "every class");
    } else {
        buf_puts(o, "every race and class");
    }
    buf_printf(o,
               ", %s</h2>\n<p>%zu finished game%s, best first (at most %d); times are UTC.</p>\n",
               q->period_words, n, n == 1 ? "" : "s", SCORES_MAX);
}

static void scores_read(page_t *p);

/* The next /scores page waiting for the database, if any. */
static void scores_next(records_t *r)
{
    r->scores_reading = false;
    list_t *n = list_pop_front(&r->scores_waiting);
    if (!n)
        return;
    r->nscores_waiting--;
    page_t *p = LIST_ITEM(n, page_t, wnode);
    list_init(&p->wnode);
    if (p->srv->stopping)
        page_error(p, 503, "the server is stopping");
    else
        scores_read(p);
    if (!r->scores_reading) /* answered at once: the next one */
        scores_next(r);
}

static void scores_answer(page_t *p, const db_game_t *gs, size_t n)
{
    buf_t *o = &p->out;
    if (p->api) {
        buf_puts(o, "{\"filter\":{");
        json_key_str(o, "race", p->filter.race, false);
        json_key_str(o, "class", p->filter.cls, true);
        json_key_str(o, "period", p->filter.period, true);
        buf_puts(o, "},\"scores\":[");
        for (size_t i = 0; i < n; i++) {
            buf_printf(o, "%s{\"rank\":%zu,\"game\":", i ? ",\n" : "\n", i + 1);
            game_json(o, &gs[i]);
            buf_putc(o, '}');
        }
        buf_puts(o, "]}\n");
        page_send(p, 200, "application/json");
        return;
    }
    html_head(p, "High scores");
    scores_heading(o, &p->filter, n);
    games_nav_html(o, p->srv, "");
    scores_form(o, &p->filter);
    games_table_html(o, gs, n, true, true);
    html_tail(o);
    page_send(p, 200, "text/html; charset=utf-8");
}

static void on_scores(void *ud, int status, const db_game_t *gs, size_t n)
{
    page_t *p = ud;
    records_t *r = p->srv->records;
    if (!db_failed(p, status, NULL))
        scores_answer(p, gs, n);
    scores_next(r);
}

static void scores_read(page_t *p)
{
    int64_t now = (int64_t)time(NULL);
    db_scores_filter_t f = {p->filter.race, p->filter.cls,
                            p->filter.period_secs ? now - p->filter.period_secs : 0, SCORES_MAX, 0};
    p->srv->records->scores_reading = true;
    db_scores_filtered(p->srv->db, &f, on_scores, p);
}

/* A filter the games' indexes cannot serve (a race or class few or no
 * games have, a period) reads every finished game: one such read runs at
 * a time, so the other reader threads stay free for logins and pages, and
 * RECORDS_SCORES_WAIT wait for it; past them 503 (the log says when that
 * begins and ends). */
static void scores_start(page_t *p)
{
    records_t *r = p->srv->records;
    if (!r->scores_reading) {
        scores_read(p);
        return;
    }
    bool full = r->nscores_waiting >= RECORDS_SCORES_WAIT;
    if (full != r->scores_full)
        log_warn(full ? "scores: %d pages wait for the score read running: more answered 503"
                      : "scores: below %d pages waiting for the score read: letting them wait",
                 RECORDS_SCORES_WAIT);
    r->scores_full = full;
    if (full) {
        p->retry_after = 1;
        page_error(p, 503, "the score pages are busy; try again in a moment");
        return;
    }
    list_push_back(&r->scores_waiting, &p->wnode);
    r->nscores_waiting++;
}

/* ---- /player/NAME ----------------------------------------------------------------------- */

static void totals_html(buf_t *o, const db_player_totals_t *t)
{
    buf_printf(o,
               "<table class=\"totals\"><tr><th>Games</th><td>%lld</td></tr>"
               "<tr><th>Finished</th><td>%lld</td></tr><tr><th>Playing</th><td>%lld</td></tr>"
               "<tr><th>Best score</th><td>%lld",
               (long long)t->games, (long long)t->finished, (long long)t->live,
               (long long)t->best_score);
    if (t->best_game)
        buf_printf(o, " (<a href=\"/game/%lld\">game %lld</a>)", (long long)t->best_game,
                   (long long)t->best_game);
    buf_printf(o,
               "</td></tr><tr><th>Turns played</th><td>%lld</td></tr>"
               "<tr><th>Deepest level</th><td>%d</td></tr>"
               "<tr><th>Replays verified</th><td>%lld</td></tr>"
               "<tr><th>Replay mismatches</th><td>%lld</td></tr></table>\n",
               (long long)t->turns, t->max_depth, (long long)t->verified, (long long)t->mismatched);
}

static void totals_json(buf_t *o, const db_player_totals_t *t)
{
    buf_printf(o,
               "\"totals\":{\"games\":%lld,\"finished\":%lld,\"live\":%lld,\"verified\":%lld,"
               "\"mismatched\":%lld,\"turns\":%lld,\"max_depth\":%d,\"first_start\":%lld,"
               "\"last_end\":%lld,\"best_score\":%lld,\"best_game\":",
               (long long)t->games, (long long)t->finished, (long long)t->live,
               (long long)t->verified, (long long)t->mismatched, (long long)t->turns, t->max_depth,
               (long long)t->first_start, (long long)t->last_end, (long long)t->best_score);
    if (t->best_game)
        buf_printf(o, "%lld}", (long long)t->best_game);
    else
        buf_puts(o, "null}");
}

/* Whether game runs here or at another node as its heartbeat said
 * (peer.c); st: as it is now. Called with the shards locked. */
static bool live_status(server_t *srv, int64_t game, session_status_t *st)
{
    for (int i = 0; i < shard_count(srv); i++) {
        session_t *s = session_find_game(shard_at(srv, i), game);
        if (s && !s->ended && (s->game || s->mirror))
            return session_status(s, st);
    }
    return false;
}

/* The player's live games in gs as they are now rather than at their last
 * snapshot: their rows in the copy games and the turns they add to t. */
static void live_overlay(page_t *p, db_game_t *games, size_t n, db_player_totals_t *t)
{
    session_status_t st;
    shards_lock_all(p->srv);
    for (size_t i = 0; i < n; i++) {
        db_game_t *g = &games[i];
        if (g->state != DB_GAME_LIVE || !live_status(p->srv, g->id, &st))
            continue;
        t->turns += (int64_t)st.turn - g->turns;
        if (st.max_depth > t->max_depth)
            t->max_depth = st.max_depth;
        g->turns = (int64_t)st.turn;
        g->depth = st.depth;
        g->max_depth = st.max_depth;
        g->xl = st.xl;
    }
    shards_unlock_all(p->srv);
}

static void on_player_hosted(void *ud, int status, const db_hosted_score_t *r, size_t n)
{
    page_t *p = ud;
    if (db_failed(p, status, NULL))
        return;
    buf_t *o = &p->out;
    if (p->api) {
        buf_puts(o, ",\"hosted\":");
        hosted_list_json(o, r, n);
        buf_puts(o, "}\n");
        page_send(p, 200, "application/json");
        return;
    }
    if (n || p->srv->cfg.games.n) {
        buf_puts(o, "<h3>Hosted games</h3>\n");
        hosted_table_html(o, p->srv, r, n, false);
    }
    html_tail(o);
    page_send(p, 200, "text/html; charset=utf-8");
}

/* After Warren's games: the hosted games' rows of the player. */
static void player_hosted_next(page_t *p)
{
    if (p->srv->stopping)
        page_error(p, 503, "the server is stopping");
    else
        db_hosted_scores_of_user(p->srv->db, p->user, PLAYER_GAMES_MAX, on_player_hosted, p);
}

static void on_player_games(void *ud, int status, const db_game_t *gs, size_t n)
{
    page_t *p = ud;
    if (db_failed(p, status, NULL))
        return;
    db_game_t *games = n ? malloc(n * sizeof *games) : NULL;
    if (n && !games) {
        page_error(p, 500, "out of memory");
        return;
    }
    if (n)
        memcpy(games, gs, n * sizeof *games);
    live_overlay(p, games, n, &p->totals);
    buf_t *o = &p->out;
    if (p->api) {
        totals_json(o, &p->totals);
        buf_puts(o, ",\"games\":[");
        for (size_t i = 0; i < n; i++) {
            buf_puts(o, i ? ",\n" : "\n");
            game_json(o, &games[i]);
        }
        buf_puts(o, "]");
        free(games);
        player_hosted_next(p);
        return;
    }
    totals_html(o, &p->totals);
    buf_puts(o, "<h3>Games</h3>\n");
    games_table_html(o, games, n, false, false);
    free(games);
    player_hosted_next(p);
}

static void on_player_totals(void *ud, int status, const db_player_totals_t *t)
{
    page_t *p = ud;
    if (db_failed(p, status, NULL))
        return;
    p->totals = *t;
    if (p->srv->stopping)
        page_error(p, 503, "the server is stopping");
    else
        db_games_of_user(p->srv->db, p->user, PLAYER_GAMES_MAX, 0, on_player_games, p);
}

static void on_player_user(void *ud, int status, const db_user_t *u)
{
    page_t *p = ud;
    if (db_failed(p, status, "no such player"))
        return;
    p->user = u->id;
    buf_t *o = &p->out;
    if (p->api) {
        buf_putc(o, '{');
        json_key_str(o, "name", u->name, false);
        buf_putc(o, ',');
    } else {
        html_head(p, u->name);
        buf_puts(o, "<h2 class=\"name\">");
        html_escape_str(o, u->name);
        buf_puts(o, "</h2>\n");
    }
    if (p->srv->stopping)
        page_error(p, 503, "the server is stopping");
    else
        db_player_totals(p->srv->db, u->id, on_player_totals, p);
}

/* ---- /game/ID -------------------------------------------------------------------------- */

static void game_summary_html(buf_t *o, const db_game_t *g)
{
    buf_printf(o, "<h2>Game %lld: ", (long long)g->id);
    player_link(o, g->player);
    buf_puts(o, "</h2>\n<table class=\"summary\"><tr><th>Character</th><td>");
    html_escape_str(o, g->race);
    buf_putc(o, ' ');
    html_escape_str(o, g->cls);
    buf_printf(o, "</td></tr><tr><th>State</th><td class=\"state\">%s</td></tr>",
               state_words[g->state % 3]);
    if (g->state == DB_GAME_FINISHED) {
        buf_printf(o,
                   "<tr><th>Score</th><td class=\"score\">%lld</td></tr><tr><th>End</th>"
                   "<td class=\"cause\">",
                   (long long)g->score);
        html_escape_str(o, g->cause);
        buf_puts(o, "</td></tr>");
    } else if (g->state == DB_GAME_BROKEN) {
        buf_puts(o, "<tr><th>Problem</th><td>");
        html_escape_str(o, g->broken_reason);
        buf_puts(o, "</td></tr>");
    }
    buf_printf(o,
               "<tr><th>Turns</th><td class=\"turns\">%lld</td></tr><tr><th>Depth</th>"
               "<td>%d (deepest %d)</td></tr><tr><th>Level</th><td>%d</td></tr>"
               "<tr><th>Started</th><td>",
               (long long)g->turns, g->depth, g->max_depth, g->xl);
    webgw_put_time(o, g->start_time);
    buf_puts(o, "</td></tr><tr><th>Ended</th><td>");
    webgw_put_time(o, g->end_time);
    buf_printf(o, "</td></tr><tr><th>Seed</th><td>%llu</td></tr><tr><th>Content</th><td>",
               (unsigned long long)g->seed);
    html_escape_str(o, g->content_version);
    buf_puts(o, "</td></tr><tr><th>Replay check</th><td class=\"check\">");
    verified_html(o, g->verified);
    buf_puts(o, "</td></tr></table>\n");
    if (g->state == DB_GAME_FINISHED)
        buf_printf(o,
                   "<p class=\"links\"><a href=\"/game/%lld/replay\">Watch the replay</a> · "
                   "<a href=\"/game/%lld.cast\">asciicast</a> · "
                   "<a href=\"/game/%lld/dump\">dump (text)</a></p>\n",
                   (long long)g->id, (long long)g->id, (long long)g->id);
}

/* The surface world of the game's seed (worldmap.h), as this server's
 * content makes it: the map and its legend as text. Nothing without one. */
static void world_html(buf_t *o, const content_t *c, uint64_t seed)
{
    char err[96];
    worldmap_t *w = c ? worldmap_new(c, seed, err, sizeof err) : NULL;
    if (!w)
        return;
    buf_t t;
    buf_init(&t);
    worldmap_text(w, &t);
    buf_puts(o, "<h3>The world</h3>\n<pre class=\"world\">");
    html_escape(o, t.data, t.len);
    buf_puts(o, "</pre>\n");
    buf_free(&t);
    worldmap_free(w);
}

static void on_game_dump(void *ud, int status, const char *text, size_t len)
{
    page_t *p = ud;
    if (status != DB_ENOTFOUND && db_failed(p, status, NULL))
        return;
    buf_t *o = &p->out;
    bool have = status == DB_OK;
    if (p->api) {
        buf_puts(o, ",\"dump\":");
        if (have)
            json_put_string(o, text, len);
        else
            buf_puts(o, "null");
        long long id = (long long)p->game.id;
        if (p->game.state == DB_GAME_FINISHED)
            buf_printf(o,
                       ",\"links\":{\"page\":\"/game/%lld\",\"replay\":\"/game/%lld/replay\","
                       "\"frames\":\"/api/game/%lld/replay\",\"cast\":\"/game/%lld.cast\","
                       "\"dump\":\"/game/%lld/dump\"}}\n",
                       id, id, id, id, id);
        else
            buf_printf(o, ",\"links\":{\"page\":\"/game/%lld\"}}\n", id);
        page_send(p, 200, "application/json");
        return;
    }
    if (have) {
        buf_puts(o, "<h3>Dump</h3>\n<pre class=\"dump\">");
        html_escape(o, text, len);
        buf_puts(o, "</pre>\n");
    }
    html_tail(o);
    page_send(p, 200, "text/html; charset=utf-8");
}

static void on_game_milestones(void *ud, int status, const db_milestone_t *ms, size_t n)
{
    page_t *p = ud;
    if (db_failed(p, status, NULL))
        return;
    buf_t *o = &p->out;
    if (p->api)
        buf_puts(o, ",\"milestones\":[");
    else
        buf_puts(o, "<h3 id=\"milestones\">Milestones</h3>\n"
                    "<table class=\"milestones\"><thead><tr><th>Turn</th>"
                    "<th>Depth</th><th>What</th><th></th></tr></thead><tbody>\n");
    for (size_t i = 0; i < n; i++) {
        if (p->api) {
            buf_printf(o, "%s{\"turn\":%lld,\"depth\":%d", i ? ",\n" : "\n", (long long)ms[i].turn,
                       ms[i].depth);
            json_key_str(o, "kind", ms[i].kind, true);
            json_key_str(o, "text", ms[i].text, true);
            buf_putc(o, '}');
            continue;
        }
        buf_printf(o, "<tr><td>%lld</td><td>%d</td><td>", (long long)ms[i].turn, ms[i].depth);
        html_escape_str(o, ms[i].kind);
        buf_puts(o, "</td><td class=\"text\">");
        html_escape_str(o, ms[i].text);
        buf_puts(o, "</td></tr>\n");
    }
    buf_puts(o, p->api ? "]" : "</tbody></table>\n");
    if (p->srv->stopping)
        page_error(p, 503, "the server is stopping");
    else
        db_dump_get(p->srv->db, p->game.id, on_game_dump, p);
}

static void on_game(void *ud, int status, const db_game_t *g)
{
    page_t *p = ud;
    if (db_failed(p, status, "no such game"))
        return;
    p->game = *g;
    if (p->api) {
        buf_puts(&p->out, "{\"game\":");
        game_json(&p->out, g);
    } else {
        char title[64];
        snprintf(title, sizeof title, "Game %lld", (long long)g->id);
        html_head(p, title);
        game_summary_html(&p->out, g);
        world_html(&p->out, p->srv->content, g->seed);
    }
    if (p->srv->stopping)
        page_error(p, 503, "the server is stopping");
    else
        db_milestones_get(p->srv->db, g->id, on_game_milestones, p);
}

/* ---- /game/ID/dump ---------------------------------------------------------------------- */

static void on_dump_only(void *ud, int status, const char *text, size_t len)
{
    page_t *p = ud;
    if (db_failed(p, status, "no dump for this game (it has not finished)"))
        return;
    buf_put(&p->out, text, len);
    page_send(p, 200, "text/plain; charset=utf-8");
}

/* ---- replays: /game/ID.cast and /api/game/ID/replay ------------------------------------------ */

/* Thread pool: the game replayed into the build's body (rbuild.h). */
static void replay_work(records_job_t *j)
{
    rbuild_t *b = j->ud;
    server_t *srv = j->srv;
    replay_input_t in = {srv->content, j->game.seed, j->game.player, j->journal.rows, j->journal.n};
    int ret =
        b->cast ? replay_asciicast(&in, NULL, CAST_STEP, b->title, &b->body, b->err, sizeof b->err)
                : replay_frames_json(&in, NULL, &b->body, b->err, sizeof b->err);
    if (ret)
        b->status = 500;
}

/* The game's row says which body answers (and whether one can). */
static void on_replay_row(void *ud, int status, const db_game_t *g)
{
    page_t *p = ud;
    char title[256];
    if (db_failed(p, status, "no such game"))
        return;
    if (g->state != DB_GAME_FINISHED) {
        page_error(p, 404, "this game has not finished");
        return;
    }
    if (strcmp(g->content_version, content_version(p->srv->content)) != 0) {
        snprintf(title, sizeof title, "this game was played with other content (%s)",
                 g->content_version);
        page_error(p, 409, title);
        return;
    }
    snprintf(title, sizeof title, "Warren game %lld: %s, %s", (long long)g->id, g->player,
             g->cause);
    bodycache_key_t key = {p->cast ? BODYCACHE_GAME_CAST : BODYCACHE_GAME_FRAMES, g->id,
                           (int64_t)g->seed, g->end_time};
    rbuild_answer(p, &key, title, NULL, replay_work);
}

static void replay_start(page_t *p)
{
    db_game_get(p->srv->db, p->game_id, on_replay_row, p);
}

/* ---- /game/ID/replay: the browser player -------------------------------------------------- */

/* The replay template filled (pages_impl.h). */
void page_replay_tpl(page_t *p, const char *tpl, const char *id, const char *page,
                     const char *frames, const char *game_html)
{
    const char *const keys[] = {"{{id}}", "{{page}}", "{{frames}}", "{{game}}"};
    const char *const vals[] = {id, page, frames, game_html};
    buf_t *o = &p->out;
    for (const char *s = tpl; *s;) {
        const char *m = strstr(s, "{{");
        if (!m) {
            buf_puts(o, s);
            break;
        }
        buf_put(o, s, (size_t)(m - s));
        s = m + 2;
        if (strncmp(m, "{{nav}}", 7) == 0) {
            webgw_nav(o, p->viewer, p->here);
            s = m + 7;
            continue;
        }
        buf_puts(o, "{{");
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (strncmp(m, keys[i], strlen(keys[i])) == 0) {
                o->len -= 2;
                buf_puts(o, vals[i]);
                s = m + strlen(keys[i]);
                break;
            }
    }
}

/* A Warren game's replay page: its one-line summary and URLs. */
static void replay_page(page_t *p, const char *tpl, const db_game_t *g)
{
    char id[24], page[48], frames[64];
    snprintf(id, sizeof id, "%lld", (long long)g->id);
    snprintf(page, sizeof page, "/game/%lld", (long long)g->id);
    snprintf(frames, sizeof frames, "/api/game/%lld/replay", (long long)g->id);
    buf_t game;
    buf_init(&game);
    buf_printf(&game, "game <a href=\"%s\">%s</a> of ", page, id);
    player_link(&game, g->player);
    buf_puts(&game, ": ");
    html_escape_str(&game, g->cause);
    if (game.failed)
        p->out.failed = true;
    else
        page_replay_tpl(p, tpl, id, page, frames, game.data);
    buf_free(&game);
}

static void on_replay_game(void *ud, int status, const db_game_t *g)
{
    page_t *p = ud;
    if (db_failed(p, status, "no such game"))
        return;
    const char *tpl = p->srv->records ? p->srv->records->replay_tpl : NULL;
    if (g->state != DB_GAME_FINISHED) {
        page_error(p, 404, "this game has not finished");
        return;
    }
    if (!tpl) {
        page_error(p, 503, "the replay player is not built on this server");
        return;
    }
    replay_page(p, tpl, g);
    page_send(p, 200, "text/html; charset=utf-8");
}

/* ---- the route table's handlers ----------------------------------------------------- */

static void player_start(page_t *p)
{
    db_user_by_name(p->srv->db, p->name, on_player_user, p);
}

static void game_start(page_t *p)
{
    db_game_get(p->srv->db, p->game_id, on_game, p);
}

static void replay_page_start(page_t *p)
{
    db_game_get(p->srv->db, p->game_id, on_replay_game, p);
}

/* A page for req, or NULL when out of memory. */
page_t *page_new(webgw_t *g, const web_http_t *req)
{
    page_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->srv = g->srv;
    p->web = g->web;
    p->gw = g;
    p->id = req->id;
    web_copy_str(p->here, sizeof p->here, req->path);
    p->api = req->route->arg == RECORDS_JSON;
    p->gzip = req->gzip;
    web_copy_str(p->key, sizeof p->key, req->key ? req->key : "");
    list_init(&p->wnode);
    buf_init(&p->out);
    buf_init(&p->gz);
    return p;
}

/* Answers p at once when it cannot go on: a bad URL (status, why), a POST
 * (these pages only answer GET) or a stopping server. */
bool page_refused(page_t *p, const web_http_t *req, int status, const char *why)
{
    if (status)
        page_error(p, status, why);
    else if (req->post)
        page_error(p, 405, "these pages only answer GET");
    else if (p->srv->stopping || !p->srv->db)
        page_error(p, 503, "the server is stopping");
    else
        return false;
    return true;
}

static void on_viewer(void *ud, const db_user_t *u)
{
    page_t *p = ud;
    if (u)
        web_copy_str(p->viewer, sizeof p->viewer, u->name);
    if (p->srv->stopping)
        page_error(p, 503, "the server is stopping");
    else
        p->start(p);
}

/* Goes on with start(p), for an HTML page once it knows who is looking. */
void page_go(page_t *p, const web_http_t *req, void (*start)(page_t *p))
{
    p->start = start;
    if (p->api)
        start(p);
    else
        webgw_viewer(p->gw, req->cookie, on_viewer, p);
}

page_t *page_with_id(void *gw, const web_http_t *req, int *ret)
{
    page_t *p = page_new(gw, req);
    *ret = p ? 0 : -1;
    if (!p)
        return NULL;
    /* the pattern's {id} has been checked: this cannot fail */
    (void)web_parse_id(req->param, strlen(req->param), &p->game_id);
    return page_refused(p, req, 0, NULL) ? NULL : p;
}

int records_scores(void *gw, const web_http_t *req)
{
    page_t *p = page_new(gw, req);
    char err[160];
    if (!p)
        return -1;
    int status = rq_scores_filter(req->args, req->nargs, &p->filter, err, sizeof err);
    if (!page_refused(p, req, status, err))
        page_go(p, req, scores_start);
    return 0;
}

int records_hosted_scores(void *gw, const web_http_t *req)
{
    page_t *p = page_new(gw, req);
    if (!p)
        return -1;
    web_copy_str(p->name, sizeof p->name, req->param);
    bool known = gamecfg_find(&p->srv->cfg.games, p->name) != NULL;
    if (!page_refused(p, req, known ? 0 : 404, "no such game"))
        page_go(p, req, hosted_scores_start);
    return 0;
}

int records_player(void *gw, const web_http_t *req)
{
    page_t *p = page_new(gw, req);
    char err[160];
    if (!p)
        return -1;
    int status = rq_player_name(req->param, p->name, err, sizeof err);
    if (!page_refused(p, req, status, err))
        page_go(p, req, player_start);
    return 0;
}

int records_game(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p)
        page_go(p, req, game_start);
    return ret;
}

int records_dump(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p)
        db_dump_get(p->srv->db, p->game_id, on_dump_only, p);
    return ret;
}

int records_cast(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p) {
        p->cast = true;
        replay_start(p);
    }
    return ret;
}

int records_frames(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p)
        replay_start(p);
    return ret;
}

int records_replay(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p)
        page_go(p, req, replay_page_start);
    return ret;
}

int records_bad_game(void *gw, const web_http_t *req)
{
    page_t *p = page_new(gw, req);
    char err[160];
    if (!p)
        return -1;
    page_refused(p, req, rq_game_error(req->param, err, sizeof err), err);
    return 0;
}
