/* verify — replay jobs (a finished game's row, journal and dump read off
 * the loop, then replayed on the thread pool) and the verification of
 * every finished game built on them. See records.h. */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "db_records.h"
#include "journal.h"
#include "log.h"
#include "bodycache.h"
#include "records.h"
#include "replay.h"
#include "webgw.h"

#define BACKLOG_BATCH 64

records_t *records_new(server_t *srv, const char *web_root)
{
    records_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->srv = srv;
    list_init(&r->waiting);
    list_init(&r->builds);
    list_init(&r->scores_waiting);
    r->jobs_max = srv->cfg.replay_builds > 0 ? srv->cfg.replay_builds : 1;
    r->hosted_max = r->jobs_max > 1 ? r->jobs_max - 1 : 1;
    r->wait_max = srv->cfg.replay_queue;
    r->body_max = (uint64_t)srv->cfg.replay_max;
    r->cache = bodycache_new((size_t)srv->cfg.replay_cache);
    r->held_max = (size_t)(srv->cfg.replay_cache ? srv->cfg.replay_cache : srv->cfg.replay_max);
    r->readers = budget_new(INT_MAX, RECORDS_READERS_PER_ADDR);
    r->builders = budget_new(INT_MAX, RECORDS_BUILDS_PER_ADDR);
    if (!r->cache || !r->readers || !r->builders) {
        bodycache_free(r->cache);
        budget_free(r->readers);
        budget_free(r->builders);
        free(r);
        return NULL;
    }
    if (web_root) {
        r->replay_tpl = webgw_read_file(web_root, "replay.html");
        if (!r->replay_tpl)
            log_warn("replay page: %s/replay.html not found (build client-web/)", web_root);
    }
    return r;
}

void records_free(records_t *r)
{
    if (!r)
        return;
    /* normally empty: while the loop ran down, each finishing job started
     * the next, which ended at once (stopping) */
    for (list_t *n; (n = list_pop_front(&r->waiting));) {
        records_job_t *j = LIST_ITEM(n, records_job_t, node);
        j->status = 503;
        j->done(j);
    }
    bodycache_free(r->cache);
    budget_free(r->readers);  /* the web, freed first, closed every reader */
    budget_free(r->builders); /* every build ended with its job */
    free(r->replay_tpl);
    free(r);
}

void records_job_free(records_job_t *j)
{
    if (!j)
        return;
    journal_free(&j->journal);
    free(j->dump);
    free(j);
}

/* ---- the job pipeline ---------------------------------------------------------- */

static void job_next(records_t *r);

static void job_finish(records_job_t *j, int status, const char *msg)
{
    records_t *r = j->srv->records;
    if (status && !j->status) {
        j->status = status;
        snprintf(j->err, sizeof j->err, "%s", msg);
    }
    r->running--;
    if (j->hosted)
        r->running_hosted--;
    j->done(j);
    job_next(r);
}

static void on_work(uv_work_t *w)
{
    records_job_t *j = w->data;
    j->work(j);
}

static void on_work_done(uv_work_t *w, int status)
{
    records_job_t *j = w->data;
    if (status || !j->again)
        job_finish(j, status ? 503 : 0, "cancelled");
    else if (j->srv->stopping)
        job_finish(j, 503, "the server is stopping");
    else if (j->wanted && !j->wanted(j))
        job_finish(j, 503, "no one waits for it"); /* the rest would be built for no one */
    else {
        j->again = false;
        j->read(j); /* the next round: it ends in records_job_read_done */
    }
}

static void job_queue_work(records_job_t *j)
{
    j->req.data = j;
    if (uv_queue_work(j->srv->loop, &j->req, on_work, on_work_done))
        job_finish(j, 500, "cannot queue the replay");
}

static void on_job_dump(void *ud, int status, const char *text, size_t len)
{
    records_job_t *j = ud;
    if (status == DB_OK && (j->dump = malloc(len + 1))) {
        memcpy(j->dump, text, len);
        j->dump[len] = '\0';
        j->dump_len = len;
    }
    if (j->srv->stopping)
        job_finish(j, 503, "the server is stopping");
    else
        job_queue_work(j);
}

static void on_job_journal(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    records_job_t *j = ud;
    if (status != DB_OK || journal_copy(&j->journal, rows, n))
        job_finish(j, 500, "cannot read the journal");
    else if (j->srv->stopping)
        job_finish(j, 503, "the server is stopping");
    else if (j->want_dump)
        db_dump_get(j->srv->db, j->game_id, on_job_dump, j);
    else
        job_queue_work(j);
}

static void on_job_game(void *ud, int status, const db_game_t *g)
{
    records_job_t *j = ud;
    if (status == DB_ENOTFOUND || (status == DB_OK && g->state != DB_GAME_FINISHED))
        job_finish(j, 404, status == DB_OK ? "this game has not finished" : "no such game");
    else if (status != DB_OK)
        job_finish(j, 500, "cannot read the game");
    else if (j->srv->stopping)
        job_finish(j, 503, "the server is stopping");
    else {
        j->game = *g;
        db_journal_read(j->srv->db, j->game_id, 0, on_job_journal, j);
    }
}

static void job_begin(records_job_t *j)
{
    j->srv->records->running++;
    if (j->hosted)
        j->srv->records->running_hosted++;
    if (j->srv->stopping) {
        job_finish(j, 503, "the server is stopping");
        return;
    }
    if (j->read)
        j->read(j);
    else
        db_game_get(j->srv->db, j->game_id, on_job_game, j);
}

void records_job_read_done(records_job_t *j, int status, const char *msg)
{
    if (status)
        job_finish(j, status, msg);
    else if (j->srv->stopping)
        job_finish(j, 503, "the server is stopping");
    else
        job_queue_work(j);
}

static void backlog_read(records_t *r);

/* A slot is free for j now. */
static bool job_fits(const records_t *r, const records_job_t *j)
{
    return r->running < r->jobs_max && (!j->hosted || r->running_hosted < r->hosted_max);
}

/* The first waiting job there is a slot for, or NULL. */
static records_job_t *job_pick(records_t *r)
{
    LIST_EACH (it, &r->waiting) {
        records_job_t *j = LIST_ITEM(it, records_job_t, node);
        if (job_fits(r, j))
            return j;
    }
    return NULL;
}

static void job_unwait(records_t *r, records_job_t *j)
{
    list_remove(&j->node);
    if (j->refusable)
        r->nwaiting--;
}

/* A job no one wants any more ends unstarted: it costs nothing. */
static void job_drop(records_t *r, records_job_t *j)
{
    job_unwait(r, j);
    j->status = 503;
    snprintf(j->err, sizeof j->err, "no one waits for it");
    j->done(j);
}

static void job_next(records_t *r)
{
    for (records_job_t *j; (j = job_pick(r));) {
        if (j->wanted && !j->wanted(j))
            job_drop(r, j);
        else {
            job_unwait(r, j);
            job_begin(j);
        }
    }
    if (!r->running && list_empty(&r->waiting) && r->backlog_more && !r->srv->stopping)
        backlog_read(r);
}

/* Drops the waiting page jobs no one wants any more. */
static void job_prune(records_t *r)
{
    LIST_EACH (it, &r->waiting) {
        records_job_t *j = LIST_ITEM(it, records_job_t, node);
        if (j->refusable && j->wanted && !j->wanted(j))
            job_drop(r, j);
    }
}

/* A page's job that would have to wait while the queue is full. */
static bool job_refused(records_t *r, const records_job_t *j)
{
    if (!j->refusable || r->nwaiting < r->wait_max || job_fits(r, j))
        return false;
    job_prune(r);
    return r->nwaiting >= r->wait_max;
}

void records_job_start(records_job_t *j)
{
    records_t *r = j->srv->records;
    if (!r || job_refused(r, j)) {
        j->status = 503;
        snprintf(j->err, sizeof j->err, "too many replays asked for at once; try again soon");
        j->done(j);
        return;
    }
    if (j->refusable)
        r->nwaiting++;
    list_push_back(&r->waiting, &j->node);
    job_next(r);
}

/* ---- verification ------------------------------------------------------------------- */

typedef struct {
    replay_result_t res;
    int ret;
    bool skipped;
    char why[240];
} verdict_t;

static const char *const end_kinds[] = {"", "dead", "won", "quit"};

/* The first difference between the stored record and the replay, or NULL. */
static const char *first_difference(const records_job_t *j, const replay_result_t *res, char *buf,
                                    size_t n)
{
    const db_game_t *g = &j->game;
    const game_status_t *e = &res->end;
    struct {
        const char *what;
        long long stored, replayed;
    } nums[] = {{"turns", g->turns, (long long)e->turn},
                {"depth", g->depth, e->depth},
                {"max depth", g->max_depth, e->max_depth},
                {"level", g->xl, e->xl},
                {"score", g->score, e->score},
                {"keys after the end", 0, (long long)res->keys_after_end}};
    if (e->state == GAME_RUNNING)
        return "the replay does not end";
    if (strcmp(g->end_kind, end_kinds[e->state & 3]) != 0)
        return snprintf(buf, n, "end %s, replay %s", g->end_kind, end_kinds[e->state & 3]), buf;
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (nums[i].stored != nums[i].replayed)
            return snprintf(buf, n, "%s %lld, replay %lld", nums[i].what, nums[i].stored,
                            nums[i].replayed),
                   buf;
    if (strcmp(g->cause, e->cause) != 0)
        return snprintf(buf, n, "cause \"%.80s\", replay \"%.80s\"", g->cause, e->cause), buf;
    if (j->dump && (j->dump_len != res->dump.len || memcmp(j->dump, res->dump.data, j->dump_len)))
        return "the dump differs";
    return NULL;
}

static void verify_work(records_job_t *j)
{
    verdict_t *v = j->ud;
    server_t *srv = j->srv;
    if (strcmp(j->game.content_version, content_version(srv->content)) != 0) {
        v->skipped = true;
        snprintf(v->why, sizeof v->why, "content version %s, this server has %s",
                 j->game.content_version, content_version(srv->content));
        return;
    }
    replay_input_t in = {srv->content, j->game.seed, j->game.player, j->journal.rows, j->journal.n};
    v->ret = replay_run(&in, NULL, NULL, NULL, &v->res, v->why, sizeof v->why);
    if (v->ret == 0) {
        const char *d = first_difference(j, &v->res, v->why, sizeof v->why);
        if (d && d != v->why)
            snprintf(v->why, sizeof v->why, "%s", d);
        v->ret = d ? 1 : 0;
    }
}

/* The verdict is logged once it is stored, so "ok" in the log means the
 * games row says so too. */
typedef struct {
    server_t *srv;
    int64_t game_id;
    int verdict;
    uint64_t keys, hash;
    char why[240];
} verdict_saved_t;

static void on_verdict_saved(void *ud, int status, int64_t id)
{
    verdict_saved_t *s = ud;
    (void)id;
    if (status != DB_OK)
        log_warn("verify game=%lld %s, not stored: %s", (long long)s->game_id,
                 s->verdict > 0 ? "ok" : "mismatch", db_error(s->srv->db));
    else if (s->verdict > 0)
        log_info("verify game=%lld ok keys=%llu hash=%016llx", (long long)s->game_id,
                 (unsigned long long)s->keys, (unsigned long long)s->hash);
    else
        log_warn("verify game=%lld mismatch: %s", (long long)s->game_id, s->why);
    free(s);
}

static void store_verdict(server_t *srv, int64_t game_id, const verdict_t *v)
{
    verdict_saved_t *s = calloc(1, sizeof *s);
    if (!s) {
        log_error("verify game=%lld: out of memory storing the verdict", (long long)game_id);
        return;
    }
    *s = (verdict_saved_t){srv, game_id, v->ret == 0 ? 1 : -1, v->res.keys, v->res.hash, ""};
    snprintf(s->why, sizeof s->why, "%s", v->why);
    db_game_set_verified(srv->db, game_id, s->verdict, on_verdict_saved, s);
}

static void verify_done(records_job_t *j)
{
    verdict_t *v = j->ud;
    server_t *srv = j->srv;
    if (j->status)
        log_warn("verify game=%lld not done: %s", (long long)j->game_id, j->err);
    else if (v->skipped)
        log_warn("verify game=%lld skipped: %s", (long long)j->game_id, v->why);
    else if (!srv->stopping)
        store_verdict(srv, j->game_id, v);
    replay_result_free(&v->res);
    free(v);
    records_job_free(j);
}

/* A finished game (hooks.h: game_stored): its verification queued. */
static void records_verify(server_t *srv, int64_t game_id)
{
    records_job_t *j = calloc(1, sizeof *j);
    verdict_t *v = calloc(1, sizeof *v);
    if (!j || !v) {
        free(j);
        free(v);
        log_error("verify game=%lld: out of memory", (long long)game_id);
        return;
    }
    buf_init(&v->res.dump);
    *j = (records_job_t){.srv = srv,
                         .game_id = game_id,
                         .want_dump = true,
                         .work = verify_work,
                         .done = verify_done,
                         .ud = v};
    records_job_start(j);
}

/* ---- the backlog at start ------------------------------------------------------------- */

static void on_backlog(void *ud, int status, const db_game_t *games, size_t n)
{
    records_t *r = ud;
    r->backlog_reading = false;
    r->backlog_more = status == DB_OK && n == BACKLOG_BATCH;
    if (status != DB_OK)
        log_error("verify backlog: cannot list games: %d", status);
    else if (n)
        log_info("verify backlog: %zu finished games to check", n);
    for (size_t i = 0; i < n; i++) {
        r->backlog_after = games[i].id;
        records_verify(r->srv, games[i].id);
    }
}

static void backlog_read(records_t *r)
{
    if (r->backlog_reading)
        return;
    r->backlog_reading = true;
    r->backlog_more = false;
    db_games_unverified(r->srv->db, r->backlog_after, BACKLOG_BATCH, on_backlog, r);
}

void records_verify_backlog(server_t *srv)
{
    records_t *r = srv->records;
    if (r && !srv->stopping)
        backlog_read(r);
}

void records_hooks(hooks_t *h)
{
    HOOKS_ADD(h, game_stored, records_verify);
}
