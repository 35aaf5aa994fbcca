/* hosted_pages — the pages of hosted games' recordings (records.h):
 *   /hosted/ID         who, which game, when, size, its score row, links
 *   /api/hosted/ID     {"recording":{"id","player","game","name","start_time",
 *                       "end_time","width","height","bytes","truncated",
 *                       "verified":false},"score":hosted|null,"note",
 *                       "links":{"page","replay","frames","cast"}}
 *   /hosted/ID/replay  the browser player (client-web/dist/replay.html)
 *   /api/hosted/ID/replay  its frames (hostreplay.h)
 *   /hosted/ID.cast    asciicast v2 of what the terminal showed (hostreplay.h)
 * Recordings are read on a reader thread a few chunks at a time and
 * played back on the thread pool (rbuild.h: built once, cached, at most
 * replay-max bytes); the loop only formats text. */
#include <stdlib.h>
#include <string.h>
#include "gamecfg.h"
#include "hostreplay.h"
#include "json.h"
#include "pages_impl.h"
#include "rbuild.h"
#include "records.h"

#define NOTE                                                                                \
    "Recorded, not verified by replay: this game ran as its own program, outside Warren's " \
    "engine."
#define MISSING "no such recording"

/* The game's name from the config, else its id. */
static const char *game_name(const page_t *p)
{
    const gamecfg_t *g = gamecfg_find(&p->srv->cfg.games, p->hosted.game);
    return g ? g->name : p->hosted.game;
}

/* ---- /hosted/ID -------------------------------------------------------------------------- */

static void hosted_page_json(page_t *p, const db_hosted_score_t *score)
{
    const db_hosted_game_t *h = &p->hosted;
    long long id = (long long)h->id;
    buf_t *o = &p->out;
    buf_printf(o, "{\"recording\":{\"id\":%lld", id);
    json_key_str(o, "player", h->player, true);
    json_key_str(o, "game", h->game, true);
    json_key_str(o, "name", game_name(p), true);
    buf_printf(o,
               ",\"start_time\":%lld,\"end_time\":%lld,\"width\":%d,\"height\":%d,\"bytes\":%lld,"
               "\"truncated\":%s,\"verified\":false},\"score\":",
               (long long)h->start_time, (long long)h->end_time, h->width, h->height,
               (long long)h->bytes, h->truncated ? "true" : "false");
    if (score) {
        buf_putc(o, '{');
        hosted_json(o, score);
    } else {
        buf_puts(o, "null");
    }
    json_key_str(o, "note", NOTE, true);
    buf_printf(o,
               ",\"links\":{\"page\":\"/hosted/%lld\",\"replay\":\"/hosted/%lld/replay\","
               "\"frames\":\"/api/hosted/%lld/replay\",\"cast\":\"/hosted/%lld.cast\"}}\n",
               id, id, id, id);
    page_send(p, 200, "application/json");
}

static void hosted_summary_html(page_t *p)
{
    const db_hosted_game_t *h = &p->hosted;
    buf_t *o = &p->out;
    buf_puts(o, "<h2>");
    html_escape_str(o, game_name(p));
    buf_puts(o, " played by ");
    player_link(o, h->player);
    buf_printf(o, "</h2>\n<p class=\"note\">%s</p>\n", NOTE);
    buf_printf(o, "<table class=\"summary\"><tr><th>Game</th><td><a href=\"/scores/%s\">", h->game);
    html_escape_str(o, game_name(p));
    buf_puts(o, "</a></td></tr><tr><th>Started</th><td>");
    webgw_put_time(o, h->start_time);
    buf_puts(o, "</td></tr><tr><th>Ended</th><td>");
    if (h->end_time)
        webgw_put_time(o, h->end_time);
    else
        buf_puts(o, "not yet: the game was saved or is being played, and goes on here");
    buf_printf(o,
               "</td></tr><tr><th>Window</th><td>%dx%d</td></tr><tr><th>Recorded</th>"
               "<td class=\"bytes\">%lld bytes of output%s</td></tr></table>\n",
               h->width, h->height, (long long)h->bytes,
               h->truncated ? " — <b class=\"truncated\">truncated</b>: the recording stopped "
                              "at the server's record-max (a game's) or record-per-day (an "
                              "account's in 24 hours); the game went on unrecorded"
                            : "");
    buf_printf(o,
               "<p class=\"links\"><a href=\"/hosted/%lld/replay\">Watch the replay</a> · "
               "<a href=\"/hosted/%lld.cast\">asciicast</a></p>\n",
               (long long)h->id, (long long)h->id);
}

static void on_hosted_game(void *ud, int status, const db_hosted_game_t *h,
                           const db_hosted_score_t *score, const db_hosted_chunk_t *c, size_t n)
{
    page_t *p = ud;
    (void)c, (void)n;
    if (db_failed(p, status, MISSING))
        return;
    p->hosted = *h;
    if (p->api) {
        hosted_page_json(p, score);
        return;
    }
    char title[64];
    snprintf(title, sizeof title, "Recording %lld", (long long)h->id);
    html_head(p, title);
    hosted_summary_html(p);
    buf_puts(&p->out, "<h3>Score</h3>\n");
    if (score)
        hosted_table_html(&p->out, p->srv, score, 1, false);
    else
        buf_puts(&p->out, "<p class=\"empty\">No score row: the program has not written one "
                          "for this game.</p>\n");
    html_tail(&p->out);
    page_send(p, 200, "text/html; charset=utf-8");
}

static void hosted_game_start(page_t *p)
{
    db_hosted_game_get(p->srv->db, p->game_id, on_hosted_game, p);
}

/* ---- /hosted/ID/replay ------------------------------------------------------------------- */

static void on_hosted_replay_page(void *ud, int status, const db_hosted_game_t *h,
                                  const db_hosted_score_t *score, const db_hosted_chunk_t *c,
                                  size_t n)
{
    page_t *p = ud;
    (void)score, (void)c, (void)n;
    if (db_failed(p, status, MISSING))
        return;
    const char *tpl = p->srv->records ? p->srv->records->replay_tpl : NULL;
    if (!tpl) {
        page_error(p, 503, "the replay player is not built on this server");
        return;
    }
    p->hosted = *h;
    char id[24], page[48], frames[64];
    snprintf(id, sizeof id, "%lld", (long long)h->id);
    snprintf(page, sizeof page, "/hosted/%lld", (long long)h->id);
    snprintf(frames, sizeof frames, "/api/hosted/%lld/replay", (long long)h->id);
    buf_t game;
    buf_init(&game);
    buf_printf(&game, "<a href=\"%s\">", page);
    html_escape_str(&game, game_name(p));
    buf_puts(&game, "</a> played by ");
    player_link(&game, h->player);
    buf_puts(&game, " (recorded, not verified)");
    if (game.failed)
        p->out.failed = true;
    else
        page_replay_tpl(p, tpl, id, page, frames, game.data);
    buf_free(&game);
    page_send(p, 200, "text/html; charset=utf-8");
}

static void hosted_replay_start(page_t *p)
{
    db_hosted_game_get(p->srv->db, p->game_id, on_hosted_replay_page, p);
}

/* ---- the cast and the frames: a build (rbuild.h) --------------------------------------- */

/* A recording is read HOSTED_BATCH chunks at a time (each at most
 * RECCHUNK_RAW_MAX raw): the frames read it twice, for the largest window
 * first, then for the body; the cast once. Each batch is copied off the
 * database's callback on the loop (a few hundred KB at most) and played
 * on the thread pool. */
#define HOSTED_BATCH 8

typedef struct {
    bool sizing;                           /* the frames' first pass */
    int64_t after;                         /* the last chunk read */
    int maxw, maxh;                        /* the largest window seen */
    db_hosted_chunk_t batch[HOSTED_BATCH]; /* data owned */
    size_t n;
    buf_t scratch;
    hostreplay_t *play;
} hosted_build_t;

static void batch_free(hosted_build_t *h)
{
    for (size_t i = 0; i < h->n; i++)
        free((void *)h->batch[i].data);
    h->n = 0;
}

static void hosted_build_free(void *state)
{
    hosted_build_t *h = state;
    if (!h)
        return;
    batch_free(h);
    buf_free(&h->scratch);
    hostreplay_free(h->play);
    free(h);
}

static void on_batch(void *ud, int status, const db_hosted_game_t *g,
                     const db_hosted_score_t *score, const db_hosted_chunk_t *c, size_t n)
{
    records_job_t *j = ud;
    hosted_build_t *h = ((rbuild_t *)j->ud)->state;
    (void)g, (void)score;
    if (status != DB_OK) {
        records_job_read_done(j, status == DB_ENOTFOUND ? 404 : 500,
                              status == DB_ENOTFOUND ? MISSING : "cannot read the recording");
        return;
    }
    for (; h->n < n && h->n < HOSTED_BATCH; h->n++) {
        void *d = malloc(c[h->n].len ? c[h->n].len : 1);
        if (!d) {
            records_job_read_done(j, 500, "out of memory");
            return;
        }
        memcpy(d, c[h->n].data, c[h->n].len);
        h->batch[h->n] = c[h->n];
        h->batch[h->n].data = d;
    }
    records_job_read_done(j, 0, NULL);
}

/* Loop: the next batch of the recording, up to the chunk the key names. */
static void chunks_read(records_job_t *j)
{
    rbuild_t *b = j->ud;
    if (!b->state) {
        hosted_build_t *h = calloc(1, sizeof *h);
        if (!h) {
            records_job_read_done(j, 500, "out of memory");
            return;
        }
        h->sizing = !b->cast;
        buf_init(&h->scratch);
        b->state = h;
        b->state_free = hosted_build_free;
    }
    hosted_build_t *h = b->state;
    db_hosted_game_chunks(j->srv->db, j->game_id, h->after, b->key.v1, HOSTED_BATCH, on_batch, j);
}

/* Thread pool: the batch measured (first pass) or played. 0, 1 when the
 * body is full, -1 with b->err. */
static int batch_play(rbuild_t *b, hosted_build_t *h)
{
    int ret = 0;
    for (size_t i = 0; i < h->n && ret == 0; i++) {
        h->after = h->batch[i].seq;
        ret = h->sizing ? hostreplay_sizes(&h->batch[i], &h->maxw, &h->maxh, &h->scratch, b->err,
                                           sizeof b->err)
                        : hostreplay_feed(h->play, &h->batch[i], b->err, sizeof b->err);
    }
    batch_free(h);
    return ret;
}

/* The body's replay, once the sizes are known. 0, or -1 with b->err. */
static int play_open(rbuild_t *b, hosted_build_t *h)
{
    const db_hosted_game_t *g = &b->hosted;
    hostreplay_opts_t o = {g->width, g->height, h->maxw, h->maxh, 0, b->title};
    if (h->sizing || h->play)
        return 0;
    h->play = hostreplay_new(b->cast ? HOSTREPLAY_CAST : HOSTREPLAY_FRAMES, &o, &b->body, b->err,
                             sizeof b->err);
    return h->play ? 0 : -1;
}

static void hosted_work(records_job_t *j)
{
    rbuild_t *b = j->ud;
    hosted_build_t *h = b->state;
    bool full = h->n == HOSTED_BATCH; /* a whole batch: there may be more */
    int ret = play_open(b, h);
    if (ret == 0)
        ret = batch_play(b, h);
    batch_free(h);
    bool more = full && ret == 0 && h->after < b->key.v1;
    if (ret == 0 && h->sizing && !more) { /* the sizes known: the body, from the start */
        h->sizing = false;
        h->after = 0;
        more = true;
    }
    if (ret >= 0 && !more)
        ret = hostreplay_end(h->play, b->err, sizeof b->err);
    if (ret < 0)
        b->status = 500;
    j->again = ret == 0 && more;
}

static void on_frames_row(void *ud, int status, const db_hosted_game_t *h,
                          const db_hosted_score_t *score, const db_hosted_chunk_t *c, size_t n)
{
    page_t *p = ud;
    (void)score, (void)c, (void)n;
    if (db_failed(p, status, MISSING))
        return;
    p->hosted = *h;
    char title[200];
    snprintf(title, sizeof title, "%s played by %s (recorded, not verified)", game_name(p),
             h->player);
    /* a live recording grows: each size is a body of its own */
    bodycache_key_t key = {p->cast ? BODYCACHE_HOSTED_CAST : BODYCACHE_HOSTED_FRAMES, h->id,
                           h->chunks, h->bytes};
    rbuild_answer(p, &key, title, chunks_read, hosted_work);
}

static void hosted_job_start(page_t *p)
{
    db_hosted_game_get(p->srv->db, p->game_id, on_frames_row, p);
}

/* ---- the route table's handlers ---------------------------------------------------------- */

int records_hosted_game(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p)
        page_go(p, req, hosted_game_start);
    return ret;
}

int records_hosted_replay(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p)
        page_go(p, req, hosted_replay_start);
    return ret;
}

int records_hosted_cast(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p) {
        p->cast = true;
        hosted_job_start(p);
    }
    return ret;
}

int records_hosted_frames(void *gw, const web_http_t *req)
{
    int ret;
    page_t *p = page_with_id(gw, req, &ret);
    if (p)
        hosted_job_start(p);
    return ret;
}
