/* session_load — bringing games into memory: a player's 'p' (the live game,
 * else the saved one restored, else a new game), and at start the recovery
 * of every unfinished game. Restoring is written once (game_restore): the
 * newest snapshot plus the journal after it, or, when the snapshot is of
 * another format version, the seed plus the whole journal (a rebuild,
 * logged as "game rebuilt"). A game that cannot be restored is marked
 * broken and kept for the admins. See session.h. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "journal.h"
#include "log.h"
#include "server.h"
#include "session_impl.h"

/* ---- restoring games ---------------------------------------------------------------- */

typedef struct {
    server_t *srv;
    conn_t *c; /* the player who asked (NULL at recovery) */
    int64_t user_id;
    char user[32];
} load_req_t;

/* A game brought back from the database: game_restore's answer. */
typedef struct {
    const db_game_t *row; /* borrowed during the callback */
    game_t *g;            /* the callee owns it; NULL: not restored, err says why */
    uint64_t seq;         /* keys applied */
    uint64_t snap_seq;    /* seq of the newest snapshot this build loads (0: none) */
    size_t replayed;      /* journal rows played */
    bool rebuilt;         /* from the seed and every row: the snapshot was stale */
    bool retry;           /* a read failed, not the game: do not mark it broken */
    const char *err;
} restored_t;

typedef void (*restored_fn)(void *ud, const restored_t *r);

/* A rebuild waits for the whole journal. */
typedef struct {
    server_t *srv;
    db_game_t row;
    unsigned version; /* the stale snapshot's */
    restored_fn done;
    void *ud;
} rebuild_t;

static void on_whole_journal(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    rebuild_t *rb = ud;
    server_t *srv = rb->srv;
    char err[200] = "cannot read the journal";
    restored_t res = {.row = &rb->row, .replayed = n, .rebuilt = true, .err = err};
    res.retry = status != DB_OK;
    if (status == DB_OK) {
        journal_restore_t in = {.content = srv->content,
                                .vm = srv->vm,
                                .seed = rb->row.seed,
                                .name = rb->row.player,
                                .rows = rows,
                                .nrows = n};
        res.g = journal_restore(&in, &res.seq, err, sizeof err);
    }
    if (res.g)
        log_info("game rebuilt game=%lld user=%s seq=%llu: snapshot format version %u, this build "
                 "reads %u",
                 (long long)rb->row.id, rb->row.player, (unsigned long long)res.seq, rb->version,
                 GAME_SNAPSHOT_VERSION);
    rb->done(rb->ud, &res);
    free(rb);
}

static void rebuild_start(server_t *srv, const db_game_t *row, unsigned version, restored_fn done,
                          void *ud)
{
    rebuild_t *rb = malloc(sizeof *rb);
    if (!rb) {
        restored_t res = {.row = row, .retry = true, .err = "out of memory"};
        done(ud, &res);
        return;
    }
    *rb = (rebuild_t){srv, *row, version, done, ud};
    db_journal_read(srv->db, row->id, 0, on_whole_journal, rb);
}

/* Builds the game of r: its newest snapshot plus the journal after it; or,
 * when the snapshot is of another format version, its seed plus the whole
 * journal (read first). done is called once, now or after that read. */
static void game_restore(server_t *srv, const db_resume_t *r, restored_fn done, void *ud)
{
    char err[200];
    restored_t res = {.row = &r->game, .replayed = r->nrows, .err = err};
    unsigned version;
    if (strcmp(r->game.content_version, content_version(srv->content)) != 0) {
        snprintf(err, sizeof err, "content version %s, this server has %s", r->game.content_version,
                 content_version(srv->content));
    } else if (r->has_snapshot && journal_snapshot_stale(r->snap, r->snap_len, &version)) {
        rebuild_start(srv, &r->game, version, done, ud);
        return;
    } else {
        journal_restore_t in = {srv->content,    srv->vm, r->game.seed, r->game.player,
                                r->has_snapshot, r->snap, r->snap_len,  (uint64_t)r->snap_seq,
                                r->rows,         r->nrows};
        res.g = journal_restore(&in, &res.seq, err, sizeof err);
        res.snap_seq = r->has_snapshot ? (uint64_t)r->snap_seq : 0;
    }
    done(ud, &res);
}

static void mark_broken(server_t *srv, const db_game_t *g, const char *why)
{
    log_error("game cannot be restored game=%lld user=%s: %s", (long long)g->id, g->player, why);
    db_game_mark_broken(srv->db, g->id, why, NULL, NULL);
}

static bool req_conn_ok(load_req_t *rq)
{
    conn_t *c = rq->c;
    return c && !c->closing && c->place == CONN_WAIT && c->user_id == rq->user_id;
}

static void play_finish_load(load_req_t *rq, session_t *s, const char *fail)
{
    conn_t *c = rq->c;
    if (req_conn_ok(rq)) {
        if (s)
            session_attach_player(s, c);
        else
            menu_enter(c, fail);
    }
    if (c)
        conn_unref(c);
    free(rq);
}

static bool game_over(const game_t *g)
{
    game_status_t st;
    game_status(g, &st);
    return st.state != GAME_RUNNING;
}

static void on_player_restored(void *ud, const restored_t *r)
{
    load_req_t *rq = ud;
    server_t *srv = rq->srv;
    if (!r->g) {
        if (!r->retry)
            mark_broken(srv, r->row, r->err);
        play_finish_load(rq, NULL,
                         r->retry ? "Your game could not be loaded. Please try again."
                                  : "Your saved game could not be restored; it was kept for the "
                                    "admins.");
        return;
    }
    session_t *s = session_find_kind(srv, rq->user_id, "warren"); /* made while a rebuild read */
    if (s) {
        game_free(r->g);
        play_finish_load(rq, s, NULL);
        return;
    }
    s = session_new(srv, r->row->id, rq->user_id, rq->user, r->g, r->seq);
    if (!s) {
        game_free(r->g);
        play_finish_load(rq, NULL, "Out of memory.");
        return;
    }
    s->snap_seq = r->snap_seq;
    log_info("game resume user=%s game=%lld seq=%llu replayed=%zu", s->user, (long long)s->game_id,
             (unsigned long long)r->seq, r->replayed);
    bool over = game_over(s->game);
    if (r->rebuilt && !over)
        session_snapshot(s, "rebuild");
    play_finish_load(rq, s, NULL);
    if (over) { /* it ended just before a crash */
        s->ended = true;
        session_finish(s);
    }
}

static void on_resume(void *ud, int status, const db_resume_t *r)
{
    load_req_t *rq = ud;
    server_t *srv = rq->srv;
    session_t *s = session_find_kind(srv, rq->user_id, "warren");
    if (s || status != DB_OK) {
        if (!s)
            log_error("resume read failed user=%s: %d", rq->user, status);
        play_finish_load(rq, s, "Your game could not be loaded. Please try again.");
        return;
    }
    game_restore(srv, r, on_player_restored, rq);
}

static void on_game_created(void *ud, int status, int64_t id)
{
    session_t *s = ud;
    if (status != DB_OK && !s->dead) {
        log_error("game create failed game=%lld user=%s: %d %s", (long long)id, s->user, status,
                  db_error(s->srv->db));
        s->broken = true;
    }
    session_db_done(s);
}

static session_t *game_start(load_req_t *rq)
{
    server_t *srv = rq->srv;
    uint64_t seed = 0;
    if (uv_random(NULL, NULL, &seed, sizeof seed, 0, NULL))
        seed = uv_hrtime() ^ (uint64_t)rq->user_id << 32;
    seed &= 0x7FFFFFFFFFFFFFFFull; /* fits SQLite's signed integers unchanged */
    game_t *g = journal_new_game(srv->content, seed, rq->user);
    if (!g)
        return NULL;
    game_status_t st;
    game_status(g, &st);
    db_game_new_t ng = {rq->user_id, seed,   content_version(srv->content),
                        st.race,     st.cls, (int64_t)time(NULL)};
    session_t *s = session_new(srv, 0, rq->user_id, rq->user, g, 0);
    if (!s) {
        game_free(g);
        return NULL;
    }
    s->db_refs++;
    int64_t id = db_game_create(srv->db, &ng, on_game_created, s);
    if (id <= 0) {
        s->db_refs--;
        session_free(s);
        return NULL;
    }
    s->game_id = id;
    log_info("game start user=%s game=%lld seed=%llu", s->user, (long long)id,
             (unsigned long long)seed);
    return s;
}

static void on_live_game(void *ud, int status, const db_game_t *g)
{
    load_req_t *rq = ud;
    session_t *s = session_find_kind(rq->srv, rq->user_id, "warren");
    if (s) {
        play_finish_load(rq, s, NULL);
        return;
    }
    if (status == DB_OK) {
        db_game_resume(rq->srv->db, g->id, on_resume, rq);
        return;
    }
    if (status != DB_ENOTFOUND) {
        log_error("live game lookup failed user=%s: %d", rq->user, status);
        play_finish_load(rq, NULL, "The game store is not available. Please try again.");
        return;
    }
    s = game_start(rq);
    play_finish_load(rq, s, "A new game could not be started.");
}

void session_play(conn_t *c)
{
    server_t *srv = c->srv;
    session_t *s = session_find_kind(srv, c->user_id, "warren");
    if (s) {
        session_attach_player(s, c);
        return;
    }
    load_req_t *rq = calloc(1, sizeof *rq);
    if (!rq) {
        menu_enter(c, "Out of memory.");
        return;
    }
    rq->srv = srv;
    rq->c = c;
    rq->user_id = c->user_id;
    snprintf(rq->user, sizeof rq->user, "%s", c->user);
    conn_ref(c);
    menu_wait(c);
    db_game_live_of_user(srv->db, c->user_id, on_live_game, rq);
}

/* ---- recovery at start ------------------------------------------------------------------ */

typedef struct {
    server_t *srv;
    size_t left, ok, broken;
    uint64_t t0;
} recover_t;

static void recover_done_one(recover_t *rc)
{
    if (--rc->left > 0)
        return;
    log_info("recovery done: %zu games resumed, %zu broken, %llu ms", rc->ok, rc->broken,
             (unsigned long long)(uv_hrtime() - rc->t0) / 1000000ull);
    free(rc);
}

static void on_recovered(void *ud, const restored_t *r)
{
    recover_t *rc = ud;
    server_t *srv = rc->srv;
    if (!r->g) {
        if (r->retry)
            log_error("recovery read failed game=%lld: %s", (long long)r->row->id, r->err);
        else {
            mark_broken(srv, r->row, r->err);
            rc->broken++;
        }
        recover_done_one(rc);
        return;
    }
    rc->ok++;
    /* a journal tail means a crash, a rebuild a stale snapshot: either way
     * a fresh snapshot is written now */
    session_t *s = (r->replayed || r->rebuilt) && !session_find_game(srv, r->row->id)
                       ? session_new(srv, r->row->id, r->row->user, r->row->player, r->g, r->seq)
                       : NULL;
    if (!s) {
        game_free(r->g);
    } else if (game_over(s->game)) {
        s->snap_seq = r->snap_seq;
        s->ended = true;
        session_finish(s);
    } else {
        s->snap_seq = r->snap_seq;
        session_snapshot(s, "recovery");
        session_free(s);
    }
    recover_done_one(rc);
}

static void on_recover_one(void *ud, int status, const db_resume_t *r)
{
    recover_t *rc = ud;
    server_t *srv = rc->srv;
    if (status != DB_OK || session_find_game(srv, r->game.id)) {
        if (status != DB_OK)
            log_error("recovery read failed: %d", status);
        recover_done_one(rc);
        return;
    }
    game_restore(srv, r, on_recovered, rc);
}

static void on_unfinished(void *ud, int status, const db_game_t *games, size_t n)
{
    recover_t *rc = ud;
    if (status != DB_OK) {
        log_error("recovery: cannot list unfinished games: %d", status);
        free(rc);
        return;
    }
    log_info("recovery: %zu unfinished games", n);
    if (n == 0) {
        rc->left = 1;
        recover_done_one(rc);
        return;
    }
    rc->left = n;
    for (size_t i = 0; i < n; i++)
        db_game_resume(rc->srv->db, games[i].id, on_recover_one, rc);
}

int session_recover_all(server_t *srv)
{
    recover_t *rc = calloc(1, sizeof *rc);
    if (!rc)
        return -1;
    rc->srv = srv;
    rc->t0 = uv_hrtime();
    db_games_unfinished(srv->db, on_unfinished, rc);
    return 0;
}
