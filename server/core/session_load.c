/* session_load — bringing games into memory: a player's 'p' (the live game,
 * else the saved one restored, else a new game), and at start the recovery
 * of every unfinished game. Restoring is written once (game_restore): the
 * newest snapshot plus the journal after it, or, when the snapshot is of
 * another format version or does not load, the seed plus the whole journal
 * (a rebuild, logged as "game rebuilt"). A journal with a gap restores up
 * to the gap; the rows after it are logged and set aside, never played.
 * A game begun under another content version (an upgrade came between)
 * goes on from its newest snapshot, read by this content's kind names,
 * the rows after it played under this content's rules (logged as "game
 * resumed across content versions"); never from its seed, whose game was
 * another. Its row keeps the version it began under, so the records never
 * check it by replay. Without a snapshot this content reads, it is broken.
 *
 * Recovery never silently replaces a game: one that cannot be restored is
 * marked broken and kept for the admins (the log, `warren-admin health`),
 * and its player is told (at login, else at 'p') before a new game can
 * start. A new game starts only once its row is stored: while storage is
 * failing, or when the row cannot be stored, the player is told so and
 * stays in the menu. See session.h.
 *
 * Recovery at start runs in the background (RECOVER_SLOTS games at a
 * time, restored on the thread pool): the listeners answer meanwhile, and
 * a player's own 'p' restores their game ahead of it. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "journal.h"
#include "lease.h"
#include "log.h"
#include "logcap.h"
#include "moderation.h"
#include "notify.h"
#include "peer.h"
#include "server.h"
#include "session_impl.h"
#include "shard.h"
#include "session.h"
#include "game.h"
#include "warrengame.h"

/* ---- restoring games ---------------------------------------------------------------- */

typedef struct {
    list_t node; /* on srv->loads while it runs */
    server_t *srv;
    conn_t *c; /* the player who asked (NULL at recovery) */
    int64_t user_id;
    char user[32];
    game_t *g;         /* a new game while its row is being stored */
    int64_t game_id;   /* the live game whose lease is being taken */
    uint64_t asked_ms; /* takeover: when its node was first asked for it (0: not yet) */
    bool owes_release; /* the lease was handed to it (lease_hand_over): settled at its end
                          unless a session here plays the game then */
    bool resuming;     /* game_id's lease is this node's: its rows are read to resume it */
    int64_t watched;   /* a game another node asked to watch meanwhile (0: none): answered at
                          the load's end (session_watch_held) */
} load_req_t;

static const char MSG_BROKEN[] =
    "Your last game could not be restored (kept for the admins). p: a new game.";
static const char MSG_NO_SAVE[] =
    "The server cannot save a new game right now. Please try again later.";

/* A game brought back from the database: game_restore's answer. */
typedef struct {
    const db_game_t *row; /* borrowed during the callback */
    game_t *g;            /* the callee owns it; NULL: not restored, err says why */
    uint64_t seq;         /* keys applied */
    uint64_t snap_seq;    /* seq of the newest snapshot this build loads (0: none) */
    size_t replayed;      /* journal rows played */
    uint64_t gap_seq;     /* 0, or the first row after a gap (not played) */
    size_t unplayed;      /* rows from the gap on */
    bool rebuilt;         /* from the seed and every row: the snapshot was stale */
    bool across;          /* begun under another content version: a fresh snapshot is due */
    bool retry;           /* a read failed, not the game: do not mark it broken */
    const char *err;
} restored_t;

typedef void (*restored_fn)(void *ud, const restored_t *r);

/* The answer of journal_restore in a restored_t. */
static void restored_from(restored_t *res, const journal_restored_t *out)
{
    res->seq = out->seq;
    res->replayed = out->played;
    res->gap_seq = out->gap_seq;
    res->unplayed = out->unplayed;
}

/* A rebuild waits for the whole journal. */
typedef struct {
    server_t *srv;
    db_game_t row;
    char why[200]; /* what was wrong with the snapshot */
    restored_fn done;
    void *ud;
} rebuild_t;

static void on_whole_journal(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    rebuild_t *rb = ud;
    server_t *srv = rb->srv;
    char err[200] = "cannot read the journal";
    restored_t res = {.row = &rb->row, .rebuilt = true, .err = err};
    res.retry = status != DB_OK;
    if (status == DB_OK) {
        journal_restore_t in = {.content = srv->content,
                                .vm = srv->vm,
                                .seed = rb->row.seed,
                                .name = rb->row.player,
                                .rows = rows,
                                .nrows = n};
        journal_restored_t out;
        res.g = journal_restore(&in, &out, err, sizeof err);
        restored_from(&res, &out);
    }
    if (res.g)
        log_info("game rebuilt game=%lld user=%s seq=%llu: %s", (long long)rb->row.id,
                 rb->row.player, (unsigned long long)res.seq, rb->why);
    rb->done(rb->ud, &res);
    free(rb);
}

static void rebuild_start(server_t *srv, const db_game_t *row, const char *why, restored_fn done,
                          void *ud)
{
    rebuild_t *rb = malloc(sizeof *rb);
    if (!rb) {
        restored_t res = {.row = row, .retry = true, .err = "out of memory"};
        done(ud, &res);
        return;
    }
    *rb = (rebuild_t){.srv = srv, .row = *row, .done = done, .ud = ud};
    snprintf(rb->why, sizeof rb->why, "%s", why);
    db_journal_read(srv->db, row->id, 0, on_whole_journal, rb);
}

/* A game of another content version from its snapshot and the rows after
 * it; no rebuild from the seed. done is called now. */
static void restore_across(server_t *srv, const db_resume_t *r, restored_fn done, void *ud)
{
    char err[300], why[200] = "no snapshot to go on from";
    restored_t res = {.row = &r->game, .err = err};
    const char *now = content_version(srv->content);
    if (r->has_snapshot) {
        journal_restore_t in = {srv->content,    srv->vm, r->game.seed, r->game.player,
                                r->has_snapshot, r->snap, r->snap_len,  (uint64_t)r->snap_seq,
                                r->rows,         r->nrows};
        journal_restored_t out;
        res.g = journal_restore(&in, &out, why, sizeof why);
        restored_from(&res, &out);
        res.snap_seq = (uint64_t)r->snap_seq;
        res.across = res.g != NULL;
    }
    snprintf(err, sizeof err, "content version %s, this server has %s: %s", r->game.content_version,
             now, why);
    if (res.g)
        log_info("game resumed across content versions game=%lld user=%s from %s to %s: snapshot "
                 "seq %lld, %zu rows after it played under %s",
                 (long long)r->game.id, r->game.player, r->game.content_version, now,
                 (long long)r->snap_seq, res.replayed, now);
    done(ud, &res);
}

/* Builds the game of r: its newest snapshot plus the journal after it; or,
 * when the snapshot is of another format version or does not load, its
 * seed plus the whole journal (read first). A game of another content
 * version: restore_across. done is called once, now or after that read. */
static void game_restore(server_t *srv, const db_resume_t *r, restored_fn done, void *ud)
{
    char err[200], why[200];
    restored_t res = {.row = &r->game, .err = err};
    unsigned version;
    if (strcmp(r->game.content_version, content_version(srv->content)) != 0) {
        restore_across(srv, r, done, ud);
        return;
    }
    if (r->has_snapshot && journal_snapshot_stale(r->snap, r->snap_len, &version)) {
        snprintf(why, sizeof why, "snapshot format version %u, this build reads %u", version,
                 GAME_SNAPSHOT_VERSION);
        rebuild_start(srv, &r->game, why, done, ud);
        return;
    } else {
        journal_restore_t in = {srv->content,    srv->vm, r->game.seed, r->game.player,
                                r->has_snapshot, r->snap, r->snap_len,  (uint64_t)r->snap_seq,
                                r->rows,         r->nrows};
        journal_restored_t out;
        res.g = journal_restore(&in, &out, err, sizeof err);
        if (!res.g && out.snap_invalid) { /* the journal holds every key since the start */
            snprintf(why, sizeof why, "snapshot unreadable (%.150s)", err);
            rebuild_start(srv, &r->game, why, done, ud);
            return;
        }
        restored_from(&res, &out);
        res.snap_seq = r->has_snapshot ? (uint64_t)r->snap_seq : 0;
    }
    done(ud, &res);
}

/* Rows after a gap are never played: logged, and moved aside so the game
 * goes on from the part before it. */
static void set_aside_gap(server_t *srv, const restored_t *r)
{
    if (!r->gap_seq)
        return;
    log_error("journal gap at seq %llu game=%lld user=%s: restored to seq %llu; %zu rows after "
              "the gap kept aside, not played",
              (unsigned long long)r->gap_seq, (long long)r->row->id, r->row->player,
              (unsigned long long)r->seq, r->unplayed);
    db_journal_set_aside(srv->db, r->row->id, (int64_t)r->seq, NULL, NULL);
}

static void mark_broken(server_t *srv, const db_game_t *g, const char *why)
{
    log_error("game cannot be restored game=%lld user=%s: %s (kept as broken)", (long long)g->id,
              g->player, why);
    db_game_mark_broken(srv->db, g->id, why, NULL, NULL);
}

static bool broken_untold(const db_game_t *g)
{
    return g->state == DB_GAME_BROKEN && !g->broken_told;
}

/* The player is being told that game g could not be restored. */
static void tell_broken(server_t *srv, int64_t game, const char *user)
{
    log_info("told user=%s game=%lld could not be restored", user, (long long)game);
    db_game_broken_told(srv->db, game, NULL, NULL);
}

static bool req_conn_ok(load_req_t *rq)
{
    conn_t *c = rq->c;
    return c && !c->closing && c->place == CONN_WAIT && c->user_id == rq->user_id;
}

/* Nobody took s up (its player left while it loaded): kept as a game
 * whose player leaves is (session_detach): its grace period runs, and its
 * lease (taken for the load) is let go, so any node may take it and every
 * node lists it as detached, not as played here. */
static void keep_detached(session_t *s)
{
    if (!s->detached_ms) {
        s->detached_ms = now_ms(s->srv) ? now_ms(s->srv) : 1;
        session_retime(s);
    }
    session_set_away(s, true);
    if (s->game && !s->let_go && lease_on(s->srv) && !jqueue_paused(&s->jq)) {
        lease_let_go(s->srv, s->game_id);
        s->let_go = true;
    }
}

/* A player's load of game under way here (its lease taken, or being
 * taken), other than but. */
static load_req_t *load_of_game(server_t *srv, int64_t game, const load_req_t *but)
{
    LIST_EACH (it, &srv->loads) {
        load_req_t *rq = LIST_ITEM(it, load_req_t, node);
        if (rq != but && rq->game_id == game)
            return rq;
    }
    return NULL;
}

/* This loop is done with game's lease: released when no session here
 * runs the game, let go again when one is kept here detached (a load took
 * it back and did not keep it); unless a player's load of it is under
 * way (its take may have found the lease this node's already, and a
 * release queued now would delete it under the session that load makes):
 * that load is handed the lease, settled so at its end. */
static void lease_hand_over(server_t *srv, int64_t game, const load_req_t *but)
{
    load_req_t *rq = load_of_game(srv, game, but);
    session_t *s = session_find_game(srv, game);
    if (rq)
        rq->owes_release = true;
    else if (!s)
        lease_release(srv, game);
    else if (s->let_go && !s->player)
        lease_let_go(srv, game);
}

void session_lease_done(server_t *srv, int64_t game)
{
    lease_hand_over(srv, game, NULL);
}

/* A player's resume of game under way on srv (its lease this node's),
 * or NULL. */
static load_req_t *resume_of_game(server_t *srv, int64_t game)
{
    load_req_t *rq = load_of_game(srv, game, NULL);
    return rq && rq->resuming ? rq : NULL;
}

bool session_resuming(server_t *srv, int64_t game)
{
    return resume_of_game(srv, game) != NULL;
}

bool session_watch_held(server_t *srv, int64_t game)
{
    load_req_t *rq = resume_of_game(srv, game);
    if (rq)
        rq->watched = game;
    return rq != NULL;
}

static void play_finish_load(load_req_t *rq, session_t *s, const char *fail)
{
    conn_t *c = rq->c;
    list_remove(&rq->node);
    if (rq->owes_release)
        lease_hand_over(rq->srv, rq->game_id, rq);
    if (req_conn_ok(rq)) {
        if (s && s->let_go && !s->player)
            session_play(c); /* let go meanwhile (its other loader left): taken again first */
        else if (s)
            session_attach_player(s, c);
        else
            conn_menu(c, fail);
    } else if (s && !s->player && !load_of_game(rq->srv, s->game_id, rq)) {
        keep_detached(s); /* else the other load takes it up: its take may have come
                             before a let go queued now, so no let go */
    }
    if (rq->watched) /* the game runs here now, or not: the nodes that asked are answered */
        peer_resume_done(rq->srv, rq->watched);
    if (c)
        conn_unref(c);
    free(rq);
}

/* rq's game was leased to be read and is not live here after all (it is
 * broken, a read failed, memory ran out): its lease goes, queued after
 * the broken mark, so no node is kept from the game for good. */
static void unlease_failed(load_req_t *rq)
{
    if (rq->game_id && !session_find_game(rq->srv, rq->game_id))
        lease_hand_over(rq->srv, rq->game_id, rq);
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
        if (!r->retry) {
            mark_broken(srv, r->row, r->err);
            tell_broken(srv, r->row->id, rq->user);
        }
        unlease_failed(rq);
        play_finish_load(
            rq, NULL, r->retry ? "Your game could not be loaded. Please try again." : MSG_BROKEN);
        return;
    }
    session_t *s = session_find_kind(srv, rq->user_id, "warren"); /* made while a rebuild read */
    if (s) {
        game_free(r->g);
        play_finish_load(rq, s, NULL);
        return;
    }
    if (moderation_deleting(srv, rq->user_id)) { /* read before the delete's close */
        game_free(r->g);
        unlease_failed(rq);
        play_finish_load(rq, NULL, MOD_DELETING_MSG);
        return;
    }
    set_aside_gap(srv, r); /* before any new row of this game */
    s = warrengame_new(srv, r->row->id, rq->user_id, rq->user, r->g, r->seq);
    if (!s) {
        game_free(r->g);
        unlease_failed(rq);
        play_finish_load(rq, NULL, "Out of memory.");
        return;
    }
    s->snap_seq = r->snap_seq;
    log_info("game resume user=%s game=%lld seq=%llu replayed=%zu", s->user, (long long)s->game_id,
             (unsigned long long)r->seq, r->replayed);
    bool over = game_over(s->game);
    if ((r->rebuilt || r->across) && !over)
        warrengame_snapshot(s, r->rebuilt ? "rebuild" : "upgrade");
    play_finish_load(rq, s, NULL);
    if (over) { /* it ended just before a crash */
        session_mark_ended(s);
        session_finish(s);
    }
}

static void on_resume(void *ud, int status, const db_resume_t *r)
{
    load_req_t *rq = ud;
    server_t *srv = rq->srv;
    session_t *s = session_find_kind(srv, rq->user_id, "warren");
    if (s || status != DB_OK) {
        if (!s) {
            log_error("resume read failed user=%s: %d", rq->user, status);
            unlease_failed(rq);
        }
        play_finish_load(rq, s, "Your game could not be loaded. Please try again.");
        return;
    }
    game_restore(srv, r, on_player_restored, rq);
}

/* The new game's row is stored (or not): only then does the player get it. */
static void on_game_created(void *ud, int status, int64_t id)
{
    load_req_t *rq = ud;
    server_t *srv = rq->srv;
    game_t *g = rq->g;
    rq->g = NULL;
    /* made or resumed meanwhile from another connection (whose game then
     * won the one live game: ours failed with DB_EEXISTS, or is that one) */
    session_t *s = session_find_kind(srv, rq->user_id, "warren");
    if (s) {
        game_free(g);
        play_finish_load(rq, s, NULL);
        return;
    }
    if (status != DB_OK) {
        log_error("game create failed user=%s game=%lld: %s", rq->user, (long long)id,
                  db_error(srv->db));
        if (status != DB_EEXISTS)
            storage_failed(srv, db_error(srv->db));
        game_free(g);
        play_finish_load(rq, NULL,
                         status == DB_EEXISTS ? "Your game could not be loaded. Please try again."
                                              : MSG_NO_SAVE);
        return;
    }
    if (moderation_deleting(srv, rq->user_id)) { /* its row goes with the delete */
        game_free(g);
        rq->game_id = id;
        unlease_failed(rq); /* taken with its row */
        play_finish_load(rq, NULL, MOD_DELETING_MSG);
        return;
    }
    s = warrengame_new(srv, id, rq->user_id, rq->user, g, 0);
    if (!s) {
        game_free(g);
        play_finish_load(rq, NULL, "Out of memory.");
        return;
    }
    log_info("game start user=%s game=%lld seed=%llu", s->user, (long long)id,
             (unsigned long long)s->seed);
    play_finish_load(rq, s, NULL);
}

/* A new game for rq's player, once its row is stored; none while storage
 * is failing (its keys could not be stored either). */
static void game_start(load_req_t *rq)
{
    server_t *srv = rq->srv;
    if (shard_paused_all(srv) > 0) { /* on any loop: they share the database */
        log_info("game start refused user=%s: storage failing", rq->user);
        play_finish_load(rq, NULL, MSG_NO_SAVE);
        return;
    }
    uint64_t seed = 0;
    if (uv_random(NULL, NULL, &seed, sizeof seed, 0, NULL))
        seed = uv_hrtime() ^ (uint64_t)rq->user_id << 32;
    seed &= 0x7FFFFFFFFFFFFFFFull; /* fits SQLite's signed integers unchanged */
    rq->g = journal_new_game(srv->content, seed, rq->user);
    if (!rq->g) {
        play_finish_load(rq, NULL, "A new game could not be started.");
        return;
    }
    game_status_t st;
    game_status(rq->g, &st);
    db_game_new_t ng = {rq->user_id, seed,   content_version(srv->content),
                        st.race,     st.cls, (int64_t)time(NULL)};
    /* fenced (lease.h), the game's lease is taken with its row */
    if (db_game_create(srv->db, &ng, on_game_created, rq) <= 0) {
        game_free(rq->g);
        rq->g = NULL;
        play_finish_load(rq, NULL, "A new game could not be started.");
    }
}

/* games-per-hour: the oldest of the account's newest games-per-hour (g,
 * newest first) began within the hour; the player is told when to come
 * back. Every game row stays (its record, its dump): a script starting
 * and quitting games by the thousand would grow the database for ever. */
static bool too_many_started(load_req_t *rq, const db_game_t *g, size_t n)
{
    static const logcap_kind_t say = {"game start refused: games-per-hour", 1, 100};
    server_t *srv = rq->srv;
    int cap = srv->cfg.games_per_hour;
    int64_t now = (int64_t)time(NULL);
    if (cap <= 0 || n < (size_t)cap || g[cap - 1].start_time <= now - 3600)
        return false;
    int64_t wait = g[cap - 1].start_time + 3600 - now;
    char msg[160];
    snprintf(msg, sizeof msg,
             "You have started %d games in the last hour: a new one can start in %lld "
             "minute%s.",
             cap, (long long)(wait + 59) / 60, wait > 60 ? "s" : "");
    logcap_say_user(srv->strangers, now_ms(srv), LOG_INFO, &say, rq->c ? rq->c->key : "-", rq->user,
                    "game start refused user=%s: %d games in the last hour", rq->user, cap);
    play_finish_load(rq, NULL, msg);
    return true;
}

/* No live game: the newest one decides whether the player is told of a
 * broken game first (then a later 'p' starts one) or a new game starts;
 * the newest games-per-hour whether one may start now. */
static void on_newest_game(void *ud, int status, const db_game_t *g, size_t n)
{
    load_req_t *rq = ud;
    session_t *s = session_find_kind(rq->srv, rq->user_id, "warren");
    if (s) {
        play_finish_load(rq, s, NULL);
    } else if (status != DB_OK) {
        log_error("games lookup failed user=%s: %d", rq->user, status);
        play_finish_load(rq, NULL, "The game store is not available. Please try again.");
    } else if (n >= 1 && broken_untold(g)) {
        tell_broken(rq->srv, g->id, rq->user);
        play_finish_load(rq, NULL, MSG_BROKEN);
    } else if (!too_many_started(rq, g, n)) {
        game_start(rq);
    }
}

static void on_reclaim_rows(void *ud, int status, const db_journal_row_t *rows, size_t n);
static void on_live_game(void *ud, int status, const db_game_t *g);

/* ---- takeover: the game asked of the node that runs it ---------------------------- */

/* A live node answers within a few round trips (lease.c's
 * lease_give_notified); one that does not is stopped or cut off, and its
 * player is told where the game runs, as before, to come back once its
 * lease lapses. */
#define TAKEOVER_WAIT_MS  750
#define TAKEOVER_RETRY_MS 100

static void on_play_lease(void *ud, int status, const char *holder);

/* A timer of a load: its lease taken again (on_retake), its read held
 * (on_resume_held). */
typedef struct {
    uv_timer_t t; /* first: the struct is freed through it */
    load_req_t *rq;
} retake_t;

static void on_retake_closed(uv_handle_t *h)
{
    free(h);
}

static void on_retake(uv_timer_t *t)
{
    retake_t *r = (retake_t *)t;
    load_req_t *rq = r->rq;
    uv_close((uv_handle_t *)t, on_retake_closed);
    if (rq->srv->stopping)
        return play_finish_load(rq, NULL, "The server is shutting down.");
    lease_take(rq->srv, rq->game_id, on_play_lease, rq);
}

static void on_resume_held(uv_timer_t *t)
{
    load_req_t *rq = ((retake_t *)t)->rq;
    uv_close((uv_handle_t *)t, on_retake_closed);
    if (!rq->srv->stopping) {
        db_game_resume(rq->srv->db, rq->game_id, on_resume, rq);
        return;
    }
    unlease_failed(rq);
    play_finish_load(rq, NULL, "The server is shutting down.");
}

/* rq's game is leased here: its rows are read to resume it (after
 * test-resume-hold, which widens the time another node may ask to watch
 * it meanwhile). */
static void resume_read(load_req_t *rq)
{
    rq->resuming = true;
    int hold = rq->srv->cfg.test_resume_hold;
    retake_t *r = hold > 0 ? malloc(sizeof *r) : NULL;
    if (!r) {
        db_game_resume(rq->srv->db, rq->game_id, on_resume, rq);
        return;
    }
    log_info("game resume user=%s game=%lld: its read held %d ms (test-resume-hold)", rq->user,
             (long long)rq->game_id, hold);
    r->rq = rq;
    uv_timer_init(rq->srv->loop, &r->t);
    uv_timer_start(&r->t, on_resume_held, (uint64_t)hold, 0);
}

/* holder (a node's name, or "another node" when the lease went
 * meanwhile) runs rq's game: asked to give it up (again: an event sent
 * while its listener reconnects is lost), the lease taken again shortly.
 * False once the wait is over: the player is told. */
static bool takeover_wait(load_req_t *rq, const char *holder)
{
    server_t *srv = rq->srv;
    uint64_t now = now_ms(srv);
    if (!lease_on(srv) || !req_conn_ok(rq) || !holder || strcmp(holder, srv->cfg.node) == 0)
        return false;
    if (!rq->asked_ms)
        rq->asked_ms = now ? now : 1;
    retake_t *r = now - rq->asked_ms < TAKEOVER_WAIT_MS ? malloc(sizeof *r) : NULL;
    if (!r)
        return false;
    if (strcmp(holder, "another node") != 0)
        notify_send(srv, NOTIFY_TAKE, holder, rq->game_id, rq->user_id);
    r->rq = rq;
    uv_timer_init(srv->loop, &r->t);
    uv_timer_start(&r->t, on_retake, TAKEOVER_RETRY_MS, 0);
    return true;
}

/* The live game's lease, taken before its journal is read: from then on
 * no other node stores a row of it, so the read holds every key. */
static void on_play_lease(void *ud, int status, const char *holder)
{
    load_req_t *rq = ud;
    server_t *srv = rq->srv;
    session_t *s = session_find_kind(srv, rq->user_id, "warren");
    if (status == DB_OK && rq->asked_ms) /* given up by the other node, or lapsed */
        log_info("game taken over user=%s game=%lld: lease ours %llu ms after asking", rq->user,
                 (long long)rq->game_id, (unsigned long long)(now_ms(srv) - rq->asked_ms));
    if (s && s->let_go && status == DB_OK) { /* kept here, and ours again: still current? */
        rq->game_id = s->game_id;
        db_journal_read(srv->db, s->game_id, (int64_t)s->seq, on_reclaim_rows, rq);
        return;
    }
    if (s && s->let_go && status == DB_ENOTFOUND) { /* another node runs it: stale here */
        s->fenced = true;
        session_drop(s, "", "That game now runs on another server.");
    } else if (s && s->let_go) { /* not taken (a failed write): kept, let go, as it was */
        log_info("game kept user=%s game=%lld: its lease not taken again", rq->user,
                 (long long)rq->game_id);
    } else if (s || status == DB_OK) {
        if (s)
            play_finish_load(rq, s, NULL);
        else
            resume_read(rq);
        return;
    }
    if (status == DB_ENOTFOUND && takeover_wait(rq, holder))
        return;
    char msg[200] = "Your game could not be loaded. Please try again.";
    if (status == DB_ENOTFOUND) {
        log_info("game elsewhere user=%s game=%lld node=%s", rq->user, (long long)rq->game_id,
                 holder);
        snprintf(msg, sizeof msg,
                 "Your game is running on another server (%s). If it stopped, press p again "
                 "in %d seconds.",
                 holder, (srv->cfg.lease_ttl_ms + 999) / 1000);
    }
    play_finish_load(rq, NULL, msg);
}

/* A game kept here after its player left was let go (session.c): another
 * node may have played it since. Taken again, it is kept only when the
 * journal holds no row after it; else it is dropped and read anew. */
static void on_reclaim_rows(void *ud, int status, const db_journal_row_t *rows, size_t n)
{
    load_req_t *rq = ud;
    server_t *srv = rq->srv;
    (void)rows;
    session_t *s = session_find_game(srv, rq->game_id);
    if (s && s->let_go && status == DB_OK && n == 0) {
        s->let_go = false;
        s->leased_ms = now_ms(srv);
        play_finish_load(rq, s, NULL);
        return;
    }
    if (status != DB_OK) { /* taken again for the read: let go again, as it was */
        log_error("journal read failed user=%s game=%lld: %s; its lease let go again, the "
                  "game kept as it was",
                  rq->user, (long long)rq->game_id, db_error(srv->db));
        lease_hand_over(srv, rq->game_id, rq);
        play_finish_load(rq, NULL, "Your game could not be loaded. Please try again.");
        return;
    }
    if (s && s->let_go) {
        log_info("game played elsewhere user=%s game=%lld: %zu rows after seq %llu; read anew",
                 rq->user, (long long)rq->game_id, n, (unsigned long long)s->seq);
        s->fenced = true; /* nothing more of it written from here */
        session_drop(s, "", "That game was played on another server; watch it again.");
    }
    lease_hand_over(srv, rq->game_id, rq); /* the live game (if it still is) is taken anew */
    db_game_live_of_user(srv->db, rq->user_id, on_live_game, rq);
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
        rq->game_id = g->id;
        lease_take(rq->srv, g->id, on_play_lease, rq);
        return;
    }
    if (status != DB_ENOTFOUND) {
        log_error("live game lookup failed user=%s: %d", rq->user, status);
        play_finish_load(rq, NULL, "The game store is not available. Please try again.");
        return;
    }
    int cap = rq->srv->cfg.games_per_hour;
    db_games_of_user(rq->srv->db, rq->user_id, cap > 1 ? (size_t)cap : 1, 0, on_newest_game, rq);
}

/* ---- telling a player at login ------------------------------------------------------------ */

typedef struct {
    server_t *srv;
    conn_t *c;
    int64_t user_id;
} login_req_t;

static void on_login_newest(void *ud, int status, const db_game_t *g, size_t n)
{
    login_req_t *rq = ud;
    conn_t *c = rq->c;
    bool still = !c->closing && c->place == CONN_MENU && c->user_id == rq->user_id && !c->sess;
    if (status == DB_OK && n == 1 && broken_untold(g) && still) {
        tell_broken(rq->srv, g->id, c->user);
        conn_menu(c, MSG_BROKEN);
    }
    conn_unref(c);
    free(rq);
}

void session_login_notice(conn_t *c)
{
    login_req_t *rq = malloc(sizeof *rq);
    if (!rq)
        return; /* 'p' tells them instead */
    *rq = (login_req_t){c->srv, c, c->user_id};
    conn_ref(c);
    db_games_of_user(c->srv->db, c->user_id, 1, 0, on_login_newest, rq);
}

void session_play(conn_t *c)
{
    server_t *srv = c->srv;
    if (srv->stopping) {
        conn_menu(c, "The server is shutting down.");
        return;
    }
    if (moderation_deleting(srv, c->user_id)) {
        conn_menu(c, MOD_DELETING_MSG);
        return;
    }
    server_t *k = shard_of_user(srv, c->user_id);
    if (k != srv) { /* its game lives on another loop */
        conn_to_game(c, k, 0);
        return;
    }
    session_t *s = session_find_kind(srv, c->user_id, "warren");
    if (s && !s->let_go) {
        session_attach_player(s, c);
        return;
    }
    load_req_t *rq = calloc(1, sizeof *rq);
    if (!rq) {
        conn_menu(c, "Out of memory.");
        return;
    }
    rq->srv = srv;
    list_push_back(&srv->loads, &rq->node);
    rq->c = c;
    rq->user_id = c->user_id;
    snprintf(rq->user, sizeof rq->user, "%s", c->user);
    conn_ref(c);
    conn_wait(c);
    if (s) { /* kept here, its lease let go: taken again first */
        rq->game_id = s->game_id;
        lease_take(srv, s->game_id, on_play_lease, rq);
        return;
    }
    db_game_live_of_user(srv->db, c->user_id, on_live_game, rq);
}

/* ---- recovery at start ------------------------------------------------------------------ */

/* Each loop restores the games it holds in the background, RECOVER_SLOTS
 * at a time: a slot reads one game, restores it on libuv's thread pool
 * (its own script vm; the threads run niced, so live games come first),
 * and takes the next when that one is done. So the listeners answer at
 * once, the database's queue stays short and the loop's turns stay
 * short, and a player who comes back meanwhile gets the game at once
 * (session_play restores it first; the background then skips it). */
#define RECOVER_SLOTS 4
#define RECOVER_NICE  10

typedef struct recover recover_t;

typedef struct {
    recover_t *rc;
    script_vm_t *vm; /* NULL: this slot restores on the loop */
    bool busy;
    int64_t leased; /* the game whose lease the slot took (0: none) */
    uv_work_t req;
    /* the game being restored on the pool: copies of its rows */
    db_game_t row;
    uint8_t *snap;
    size_t snap_len;
    uint64_t snap_seq;
    bool has_snap;
    journal_t rows;
    game_t *g;
    journal_restored_t out;
    char err[200];
    buf_t state, blob; /* its fresh snapshot, packed on the pool too */
    bool packed;
} recover_slot_t;

struct recover {
    server_t *srv;
    bool lapsed;  /* games of a stopped node (session_restore_lapsed), not the start's */
    int64_t *ids; /* this loop's unfinished games, in the order restored */
    size_t n, next, ok, broken;
    uint64_t t0;
    recover_slot_t slot[RECOVER_SLOTS];
};

/* Home: one loop's recovery is done; the sum is logged after the last. */
static void recovery_add(server_t *home, void *ud)
{
    recover_t *rc = ud;
    home->recovered_ok += rc->ok;
    home->recovered_broken += rc->broken;
    if (--home->recovering == 0)
        log_info("recovery done: %zu games resumed, %zu broken, %llu ms", home->recovered_ok,
                 home->recovered_broken, (unsigned long long)(uv_hrtime() - rc->t0) / 1000000ull);
    free(rc);
}

static void recover_free_parts(recover_t *rc)
{
    for (int i = 0; i < RECOVER_SLOTS; i++)
        if (rc->slot[i].vm)
            script_vm_free(rc->slot[i].vm);
    free(rc->ids);
    rc->ids = NULL;
}

/* This loop's recovery is done once no slot is busy: home sums it. */
static void recover_maybe_done(recover_t *rc)
{
    for (int i = 0; i < RECOVER_SLOTS; i++)
        if (rc->slot[i].busy)
            return;
    recover_free_parts(rc);
    server_t *home = shard_at(rc->srv, 0);
    if (rc->lapsed) {
        lease_lapsed_done(rc->srv, rc->ok, rc->broken);
        free(rc);
    } else if (home == rc->srv)
        recovery_add(home, rc);
    else if (shard_post(home, recovery_add, rc))
        free(rc);
}

static void slot_clear(recover_slot_t *sl)
{
    free(sl->snap);
    sl->snap = NULL;
    journal_free(&sl->rows);
    buf_free(&sl->state);
    buf_free(&sl->blob);
    sl->g = NULL;
    sl->packed = false;
}

static void on_recover_read(void *ud, int status, const db_resume_t *r);
static void recover_next(recover_slot_t *sl);

/* Its player came back meanwhile: the game is live here, or their load
 * of it is under way (it restores the game itself; a session made here
 * for a snapshot would let its lease go when freed). */
static bool taken_up(server_t *srv, int64_t game)
{
    return session_find_game(srv, game) || load_of_game(srv, game, NULL);
}
static void recover_start(recover_t *rc);

/* A game is restored only under its lease: one another node holds is its
 * (it runs there); free, expired or this node's, it is taken first. */
static void on_recover_lease(void *ud, int status, const char *holder)
{
    recover_slot_t *sl = ud;
    server_t *srv = sl->rc->srv;
    if (status != DB_OK) {
        if (status == DB_ENOTFOUND)
            log_info("recovery: game=%lld runs on node %s: left to it", (long long)sl->leased,
                     holder);
        sl->leased = 0;
        recover_next(sl);
        return;
    }
    if (taken_up(srv, sl->leased) || srv->stopping) /* its player came first */
        recover_next(sl);
    else
        db_game_resume(srv->db, sl->leased, on_recover_read, sl);
}

/* The slot is done with its game: its lease goes unless the game is live
 * here now (its player came back meanwhile). */
static void recover_let_go(recover_slot_t *sl)
{
    if (sl->leased && !session_find_game(sl->rc->srv, sl->leased))
        lease_hand_over(sl->rc->srv, sl->leased, NULL); /* a player's load may hold it now */
    sl->leased = 0;
}

/* The slot takes the next game not yet live (its player may have taken it
 * up meanwhile); none left, or the server stopping: the slot is done. */
static void recover_next(recover_slot_t *sl)
{
    recover_t *rc = sl->rc;
    slot_clear(sl);
    recover_let_go(sl);
    while (rc->next < rc->n && !rc->srv->stopping) {
        int64_t id = rc->ids[rc->next++];
        if (session_find_game(rc->srv, id))
            continue;
        sl->leased = id;
        lease_take(rc->srv, id, on_recover_lease, sl);
        return;
    }
    sl->busy = false;
    recover_maybe_done(rc);
}

static void on_recovered(void *ud, const restored_t *r)
{
    recover_slot_t *sl = ud;
    recover_t *rc = sl->rc;
    server_t *srv = rc->srv;
    if (!r->g) {
        if (r->retry)
            log_error("recovery read failed game=%lld: %s", (long long)r->row->id, r->err);
        else {
            mark_broken(srv, r->row, r->err);
            rc->broken++;
        }
        recover_next(sl);
        return;
    }
    rc->ok++;
    if (taken_up(srv, r->row->id) || srv->stopping) { /* its player took it up */
        game_free(r->g);
        recover_next(sl);
        return;
    }
    set_aside_gap(srv, r);
    /* a journal tail means a crash, a rebuild a stale snapshot, across an
     * upgrade one of older content: in each case a fresh snapshot is written now */
    session_t *s = r->replayed || r->rebuilt || r->across
                       ? warrengame_new(srv, r->row->id, r->row->user, r->row->player, r->g, r->seq)
                       : NULL;
    if (!s) {
        game_free(r->g);
    } else if (game_over(s->game)) {
        s->snap_seq = r->snap_seq;
        session_mark_ended(s);
        session_finish(s);
    } else {
        s->snap_seq = r->snap_seq;
        warrengame_snapshot(s, "recovery");
        session_free(s);
    }
    recover_next(sl);
}

/* On the pool: the newest snapshot plus the rows after it. */
static void recover_work(uv_work_t *w)
{
    recover_slot_t *sl = w->data;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), RECOVER_NICE);
    journal_restore_t in = {sl->rc->srv->content, sl->vm,    sl->row.seed, sl->row.player,
                            sl->has_snap,         sl->snap,  sl->snap_len, sl->snap_seq,
                            sl->rows.rows,        sl->rows.n};
    sl->g = journal_restore(&in, &sl->out, sl->err, sizeof sl->err);
    /* a journal tail means a crash: the fresh snapshot is made here too */
    if (sl->g && sl->out.played && !game_over(sl->g))
        sl->packed = game_snapshot_state(sl->g, &sl->state) == 0 &&
                     game_snapshot_pack(&sl->state, &sl->blob) == 0;
}

static void on_recover_stored(void *ud, int status, int64_t id)
{
    recover_slot_t *sl = ud;
    (void)id;
    if (status != DB_OK)
        log_error("recovery: snapshot not stored game=%lld: %s", (long long)sl->row.id,
                  db_error(sl->rc->srv->db));
    recover_next(sl);
}

/* The game restored and packed on the pool: its snapshot is stored, and
 * the slot waits for that, so the writer never has more than a few of
 * them queued ahead of what players ask for. */
static void recover_store(recover_slot_t *sl, const restored_t *r)
{
    server_t *srv = sl->rc->srv;
    sl->rc->ok++;
    if (taken_up(srv, r->row->id) || srv->stopping) { /* its player took it up */
        game_free(r->g);
        recover_next(sl);
        return;
    }
    set_aside_gap(srv, r);
    game_status_t st;
    game_status(r->g, &st);
    db_progress_t p = {(int64_t)st.turn, st.depth, st.max_depth, st.xl, st.race, st.cls};
    db_game_progress(srv->db, r->row->id, &p, NULL, NULL);
    db_snapshot_save(srv->db, r->row->id, (int64_t)st.turn, (int64_t)r->seq,
                     (const uint8_t *)sl->blob.data, sl->blob.len, on_recover_stored, sl);
    game_free(r->g);
}

static void recover_work_done(uv_work_t *w, int status)
{
    recover_slot_t *sl = w->data;
    restored_t res = {.row = &sl->row, .g = sl->g, .err = sl->err};
    if (status != 0) { /* cancelled: the loop is closing */
        res.retry = true;
        snprintf(sl->err, sizeof sl->err, "cancelled");
    } else if (!sl->g && sl->out.snap_invalid && !sl->rc->srv->stopping) {
        char why[200];
        snprintf(why, sizeof why, "snapshot unreadable (%.150s)", sl->err);
        rebuild_start(sl->rc->srv, &sl->row, why, on_recovered, sl);
        return;
    }
    restored_from(&res, &sl->out);
    res.snap_seq = sl->has_snap ? sl->snap_seq : 0;
    if (sl->g && sl->packed)
        recover_store(sl, &res);
    else
        on_recovered(sl, &res);
}

/* The usual game (this content version, a snapshot this build reads, or
 * none) goes to the pool; the others are restored here (game_restore). */
static bool recover_on_pool(recover_slot_t *sl, const db_resume_t *r)
{
    unsigned version;
    if (!sl->vm || strcmp(r->game.content_version, content_version(sl->rc->srv->content)) != 0 ||
        (r->has_snapshot && journal_snapshot_stale(r->snap, r->snap_len, &version)))
        return false;
    sl->row = r->game;
    sl->has_snap = r->has_snapshot;
    sl->snap_seq = r->has_snapshot ? (uint64_t)r->snap_seq : 0;
    sl->snap_len = r->has_snapshot ? r->snap_len : 0;
    if ((sl->snap_len && !(sl->snap = malloc(sl->snap_len))) ||
        journal_copy(&sl->rows, r->rows, r->nrows)) {
        slot_clear(sl);
        return false;
    }
    if (sl->snap_len)
        memcpy(sl->snap, r->snap, sl->snap_len);
    sl->req.data = sl;
    if (uv_queue_work(sl->rc->srv->loop, &sl->req, recover_work, recover_work_done) == 0)
        return true;
    slot_clear(sl);
    return false;
}

static void on_recover_read(void *ud, int status, const db_resume_t *r)
{
    recover_slot_t *sl = ud;
    server_t *srv = sl->rc->srv;
    if (status != DB_OK || taken_up(srv, r->game.id) || srv->stopping) {
        if (status != DB_OK && status != DB_ECLOSED)
            log_error("recovery read failed: %d", status);
        recover_next(sl);
        return;
    }
    if (!recover_on_pool(sl, r))
        game_restore(srv, r, on_recovered, sl);
}

static void on_unfinished(void *ud, int status, const db_game_t *games, size_t n)
{
    recover_t *rc = ud;
    if (status != DB_OK) {
        log_error("recovery: cannot list unfinished games: %d", status);
        n = 0;
    }
    if (rc->srv->shard == 0 && status == DB_OK)
        log_info("recovery: %zu unfinished games", n);
    rc->ids = n ? malloc(n * sizeof *rc->ids) : NULL;
    for (size_t i = 0; rc->ids && i < n; i++) /* the loop's own games: each loop recovers those */
        if (shard_of_user(rc->srv, games[i].user) == rc->srv)
            rc->ids[rc->n++] = games[i].id;
    if (n && !rc->ids)
        log_error("recovery: out of memory for %zu games; each is restored when its player "
                  "comes back",
                  n);
    recover_start(rc);
}

/* The slots start on rc->ids. */
static void recover_start(recover_t *rc)
{
    for (int i = 0; i < RECOVER_SLOTS; i++) {
        recover_slot_t *sl = &rc->slot[i];
        sl->rc = rc;
        sl->vm = script_vm_new(); /* NULL: this slot restores on the loop */
        sl->busy = true;
    }
    for (int i = 0; i < RECOVER_SLOTS; i++)
        recover_next(&rc->slot[i]);
}

int session_restore_lapsed(server_t *k, int64_t *ids, size_t n)
{
    recover_t *rc = calloc(1, sizeof *rc);
    if (!rc) {
        free(ids);
        return -1;
    }
    *rc = (recover_t){.srv = k, .lapsed = true, .ids = ids, .n = n, .t0 = uv_hrtime()};
    recover_start(rc);
    return 0;
}

int session_recover_all(server_t *srv)
{
    recover_t *rc = calloc(1, sizeof *rc);
    if (!rc)
        return -1;
    rc->srv = srv;
    rc->t0 = uv_hrtime();
    if (srv->shard == 0) /* each loop recovers the games it holds; home sums them */
        srv->recovering = shard_count(srv);
    db_games_unfinished(srv->db, on_unfinished, rc);
    return 0;
}
