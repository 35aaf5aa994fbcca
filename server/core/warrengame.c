/* warrengame — Warren's own engine as a session's game (backend.h): its
 * keys applied and journalled, its frames answered once stored, its
 * snapshots, its end stored and verified. See warrengame.h.
 *
 * Keys: a player's key is applied to the engine at once and appended to the
 * journal; the frame it produces is sent only once the journal row has
 * committed (db callback), so no keystroke a player saw answered is ever
 * lost. Keys typed in the same loop turn commit together and give one frame.
 *
 * When storage fails (a full disk, the db-max-size cap) a frame cannot be
 * an acknowledgement: the game pauses (jqueue.h). No frame goes out for the
 * keys not stored, keys typed meanwhile are dropped (never applied, never
 * acknowledged), and every viewer sees the last frame with a notice over
 * its top rows. The game stays in memory; storage.c retries the held rows
 * with backoff and the game goes on by itself once they are stored.
 *
 * Snapshots: on level change, every cfg.snapshot_every turns, when the
 * player detaches, at the end of the grace period and at shutdown. */
#include "warrengame.h"
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "backend.h"
#include "frames.h"
#include "game.h"
#include "hooks.h"
#include "lease.h"
#include "log.h"
#include "server.h"
#include "session_impl.h"
#include "shard.h"

static const backend_ops_t backend_warren;

session_t *warrengame_new(server_t *srv, int64_t game_id, int64_t user_id, const char *user,
                          game_t *g, uint64_t seq)
{
    session_t *s = session_new(srv, game_id, user_id, user, &backend_warren);
    if (!s)
        return NULL;
    snprintf(s->kind, sizeof s->kind, "warren");
    snprintf(s->kind_name, sizeof s->kind_name, "Warren");
    s->game = g;
    session_playable(s);
    s->seq = s->snap_seq = seq;
    if (g) {
        s->seed = game_seed(g);
        game_status_t st;
        game_status(g, &st);
        s->snap_turn = st.turn;
        s->level_changes = st.level_changes;
    }
    return s;
}

/* ---- snapshots and progress ------------------------------------------------------ */

static void on_snapshot_saved(void *ud, int status, int64_t id)
{
    session_t *s = ud;
    (void)id;
    if (status != DB_OK) {
        const char *why =
            status == DB_ENOTFOUND ? "its journal rows are not stored" : db_error(s->srv->db);
        log_error("snapshot not stored game=%lld: %s", (long long)s->game_id, why);
        if (status != DB_ENOTFOUND)
            storage_failed(s->srv, why);
        if (!s->dead)
            s->snap_seq = 0; /* the next occasion takes one */
        s->snap_put = 0;     /* and may store the same seq again */
    }
    session_db_done(s);
}

/* A snapshot on its way: the state is copied on the loop (cheap), packed
 * (deflate: the expensive part) on libuv's thread pool, and handed to the
 * writer back on the loop, so detaching thousands of players at once
 * does not stop every other game. The job holds a db_ref on its session. */
typedef struct {
    uv_work_t req;
    session_t *s;
    buf_t state, blob;
    int64_t turn;
    uint64_t seq;
    int ret;
} snap_job_t;

/* Hands a packed snapshot to the writer, unless a newer one went first
 * (jobs finish in any order) or the game ended meanwhile (its end deletes
 * its snapshots: a late one must not come back). A session freed since
 * (detached, grace over) still saves: the job kept its memory. */
static void snapshot_put(session_t *s, int64_t turn, uint64_t seq, const buf_t *blob)
{
    if (s->ended || s->fenced || seq <= s->snap_put)
        return;
    if (jqueue_paused(&s->jq)) { /* its journal may now be behind it */
        if (!s->dead)
            s->snap_seq = 0; /* the next occasion takes one */
        return;
    }
    s->snap_put = seq;
    s->db_refs++;
    db_snapshot_save(s->srv->db, s->game_id, turn, (int64_t)seq, (const uint8_t *)blob->data,
                     blob->len, on_snapshot_saved, s);
}

/* Packing yields to the loop: on a busy core the games come first (the
 * pool's other work, replays and big gzips, is background work too). */
#define SNAP_NICE 10

static void snap_pack(uv_work_t *w)
{
    snap_job_t *j = w->data;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), SNAP_NICE);
    j->ret = game_snapshot_pack(&j->state, &j->blob);
}

static void snap_packed(uv_work_t *w, int status)
{
    snap_job_t *j = w->data;
    session_t *s = j->s;
    if (status == 0 && j->ret == 0)
        snapshot_put(s, j->turn, j->seq, &j->blob);
    else
        log_error("snapshot encode failed game=%lld", (long long)s->game_id);
    buf_free(&j->state);
    buf_free(&j->blob);
    free(j);
    session_db_done(s);
}

/* Packs on the thread pool; inline at shutdown (the final flush must find
 * every snapshot queued) or when the pool cannot take the job. */
static int snapshot_start(session_t *s, int64_t turn)
{
    snap_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    j->s = s;
    j->turn = turn;
    j->seq = s->seq;
    j->req.data = j;
    buf_init(&j->state);
    buf_init(&j->blob);
    int ret = game_snapshot_state(s->game, &j->state);
    s->db_refs++;
    if (ret == 0 && !s->srv->stopping &&
        uv_queue_work(s->srv->loop, &j->req, snap_pack, snap_packed) == 0)
        return 0;
    if (ret == 0)
        snap_pack(&j->req);
    else
        j->ret = -1;
    snap_packed(&j->req, 0);
    return 0;
}

/* Never while paused: a snapshot must not get ahead of the stored journal
 * (the database refuses one over a row it does not hold, too). */
void warrengame_snapshot(session_t *s, const char *why)
{
    if (s->ended || s->fenced || s->seq == s->snap_seq || jqueue_paused(&s->jq))
        return;
    server_t *srv = s->srv;
    game_status_t st;
    game_status(s->game, &st);
    if (snapshot_start(s, (int64_t)st.turn) < 0) {
        log_error("snapshot: out of memory game=%lld", (long long)s->game_id);
        return;
    }
    db_progress_t p = {(int64_t)st.turn, st.depth, st.max_depth, st.xl, st.race, st.cls};
    db_game_progress(srv->db, s->game_id, &p, NULL, NULL);
    s->snap_seq = s->seq;
    s->snap_turn = st.turn;
    (void)why;
}

/* A detach's snapshot waits on snaps_due and is taken a few per loop turn:
 * ten thousand players leaving at once (a network cut) then costs every
 * other game a few short turns, not one long one. */
#define SNAPS_PER_TURN 32

static void on_snap_idle(uv_idle_t *h)
{
    server_t *srv = h->data;
    for (int i = 0; i < SNAPS_PER_TURN; i++) {
        list_t *n = list_pop_front(&srv->snaps_due);
        if (!n)
            break;
        warrengame_snapshot(LIST_ITEM(n, session_t, snap_node), "detach");
    }
    if (list_empty(&srv->snaps_due))
        uv_idle_stop(h);
}

static void snapshot_soon(session_t *s)
{
    server_t *srv = s->srv;
    if (srv->stopping) {
        warrengame_snapshot(s, "detach");
        return;
    }
    if (!srv->snap_idle.loop) {
        uv_idle_init(srv->loop, &srv->snap_idle);
        srv->snap_idle.data = srv;
    }
    if (!list_linked(&s->snap_node))
        list_push_back(&srv->snaps_due, &s->snap_node);
    uv_idle_start(&srv->snap_idle, on_snap_idle);
}

/* Warren's game made durable: a detach's snapshot waits its turn (see
 * above), any other is taken now. */
static void warren_save(session_t *s, const char *why)
{
    if (strcmp(why, "detach") == 0)
        snapshot_soon(s);
    else
        warrengame_snapshot(s, why);
}

/* ---- game end ---------------------------------------------------------------------- */

typedef struct {
    server_t *from;
    int64_t game_id;
} verify_req_t;

static void verify_posted(server_t *home, void *ud)
{
    verify_req_t *v = ud;
    HOOKS_CALL(home->hooks->game_stored, home, v->game_id);
    free(v);
}

/* Another loop's finish write is stored: home, which keeps the records,
 * checks the game (its reads see the write now). */
static void on_finish_stored(void *ud, int status, int64_t unused)
{
    verify_req_t *v = ud;
    (void)status, (void)unused;
    if (shard_post(shard_at(v->from, 0), verify_posted, v)) {
        log_error("verify game=%lld: not queued (stopping)", (long long)v->game_id);
        free(v);
    }
}

/* What the layers above may know of Warren's game (session_status_t). */
static void status_from_game(const game_status_t *g, session_status_t *st)
{
    *st = (session_status_t){.depth = g->depth,
                             .max_depth = g->max_depth,
                             .xl = g->xl,
                             .turn = g->turn,
                             .score = g->score};
    memcpy(st->race, g->race, sizeof st->race);
    memcpy(st->cls, g->cls, sizeof st->cls);
    memcpy(st->cause, g->cause, sizeof st->cause);
}

static bool warren_status(const session_t *s, session_status_t *st)
{
    game_status_t g;
    game_status(s->game, &g);
    status_from_game(&g, st);
    return true;
}

/* Warren's own game ended: its record, milestones and dump are stored; how
 * it ended goes to its last screen. */
static bool warren_finish(session_t *s, session_end_t *out, char *msg, size_t msglen)
{
    server_t *srv = s->srv;
    game_status_t st;
    game_status(s->game, &st);
    static const char *const kinds[] = {"", "dead", "won", "quit"};
    size_t nms = game_milestone_count(s->game);
    db_milestone_t *ms = calloc(nms + 1, sizeof *ms);
    for (size_t i = 0; ms && i < nms; i++) {
        const game_milestone_t *m = game_milestone(s->game, i);
        ms[i] = (db_milestone_t){(int64_t)m->turn, m->depth, m->kind, m->text};
    }
    buf_t dump;
    buf_init(&dump);
    game_dump(s->game, &dump);
    db_game_end_t end = {
        (int64_t)time(NULL), (int64_t)st.turn, st.depth, st.max_depth, st.xl, st.score, st.cause,
        kinds[st.state & 3], st.race,          st.cls};
    verify_req_t *v = srv->shard ? malloc(sizeof *v) : NULL; /* checked at home, once stored */
    if (v)
        *v = (verify_req_t){srv, s->game_id};
    db_game_finish(srv->db, s->game_id, &end, ms, ms ? nms : 0, dump.data ? dump.data : "",
                   dump.len, v ? on_finish_stored : NULL, v);
    buf_free(&dump);
    free(ms);
    if (srv->shard == 0)
        HOOKS_CALL(srv->hooks->game_stored, srv, s->game_id); /* reads after the write: see it */
    log_info("game end user=%s game=%lld kind=%s turns=%llu score=%lld cause=\"%s\"", s->user,
             (long long)s->game_id, end.end_kind, (unsigned long long)st.turn, (long long)st.score,
             st.cause);
    out->game_id = s->game_id;
    snprintf(out->player, sizeof out->player, "%s", s->user);
    status_from_game(&st, &out->st);
    snprintf(msg, msglen, "Game over: %s. Score %lld after %llu turns.", st.cause,
             (long long)st.score, (unsigned long long)st.turn);
    return true;
}

/* ---- keys and their journal rows ------------------------------------------------------ */

static void on_journaled(void *ud, int status, int64_t id);

static void journal_submit(session_t *s, const jqueue_row_t *r)
{
    s->db_refs++;
    db_journal_append(s->srv->db, s->game_id, (int64_t)r->seq, r->keys, r->len, r->ms, on_journaled,
                      s);
}

/* No more keys, no frames: every viewer sees the last frame sent under the
 * notice (storage_notice says which) until session_thaw. */
static void session_freeze(session_t *s)
{
    if (!s->frozen) { /* else held already: sent is the notice, frozen the last frame */
        s->frozen = screen_new(s->sent->w, s->sent->h);
        if (s->frozen && screen_copy(s->frozen, s->sent) != 0) {
            screen_free(s->frozen);
            s->frozen = NULL;
        }
    }
    if (s->frozen)
        frames_broadcast(s);
}

/* The first row that could not be stored: frozen until a retry stores it. */
static void session_pause(session_t *s)
{
    storage_pause(s->srv);
    log_info("game paused user=%s game=%lld seq=%llu: its keys wait to be stored", s->user,
             (long long)s->game_id, (unsigned long long)s->seq);
    session_freeze(s);
}

/* The last frame again without the notice (the game may have moved on
 * since: its frame comes with the commit of its keys). */
static void session_thaw(session_t *s)
{
    screen_free(s->frozen);
    s->frozen = NULL;
    frames_refresh(s);
}

void warrengame_storage_changed(server_t *srv)
{
    bool hold = storage_holds(srv);
    LIST_EACH (it, &srv->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        if (!s->game || s->ended || s->dead) /* a hosted game saves nothing here */
            continue;
        if (hold)
            session_freeze(s); /* or, frozen, the notice for the new state */
        else if (s->frozen && !jqueue_paused(&s->jq))
            session_thaw(s);
        else if (s->frozen)
            frames_broadcast(s); /* still paused: its own notice again */
    }
}

static void session_resume(session_t *s)
{
    if (!storage_holds(s->srv)) { /* else it thaws when the stall is over */
        screen_free(s->frozen);
        s->frozen = NULL;
    }
    log_info("game resumed user=%s game=%lld seq=%llu", s->user, (long long)s->game_id,
             (unsigned long long)s->seq);
    storage_unpause(s->srv, true);
    s->frame_due = true;
}

static void journal_outcome(session_t *s, int status)
{
    server_t *srv = s->srv;
    if (status == DB_ELEASE) { /* another node runs it now: nothing more here */
        lease_lost(s, "a journal row refused");
        return;
    }
    if (status != DB_OK && status != DB_ENOTFOUND) /* not found: an earlier row failed */
        storage_failed(srv, db_error(srv->db));
    jqueue_event_t ev = jqueue_done(&s->jq, status == DB_OK);
    if (ev == JQ_PAUSED)
        session_pause(s);
    else if (ev == JQ_RESUMED)
        session_resume(s);
    if (ev == JQ_STORED || ev == JQ_RESUMED) { /* the frame of the keys just stored */
        if (s->frame_due) {
            frames_broadcast(s);
            if (s->ended)
                session_finish(s);
        }
        return;
    }
    if (jqueue_retry_due(&s->jq))
        storage_retry_later(srv);
}

static void on_journaled(void *ud, int status, int64_t id)
{
    session_t *s = ud;
    (void)id;
    if (!s->dead)
        journal_outcome(s, status);
    session_db_done(s);
}

void warrengame_retry_paused(server_t *srv)
{
    LIST_EACH (it, &srv->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        size_t n;
        const jqueue_row_t *r = jqueue_retry_due(&s->jq) ? jqueue_take_held(&s->jq, &n) : NULL;
        for (size_t i = 0; r && i < n; i++)
            journal_submit(s, &r[i]);
    }
}

size_t warrengame_unstored(server_t *srv)
{
    size_t n = 0;
    LIST_EACH (it, &srv->sessions)
        n += jqueue_unstored(&LIST_ITEM(it, session_t, node)->jq);
    return n;
}

void warrengame_give_up(server_t *srv)
{
    LIST_EACH (it, &srv->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        uint64_t from = s->seq - jqueue_unstored(&s->jq); /* the unstored rows are the last */
        size_t n = jqueue_drop_held(&s->jq);
        if (n)
            log_error("shutdown: game=%lld user=%s: %zu keys could not be stored (none was "
                      "answered); the game resumes from seq %llu",
                      (long long)s->game_id, s->user, n, (unsigned long long)from);
    }
}

/* The game in memory; stored: how many of its keys are in the journal
 * (fewer while some are on their way or the game is paused). */
static void warren_probe(session_t *s)
{
    game_status_t st;
    game_status(s->game, &st);
    log_info("hook user=%s game=%lld hash=%016llx seed=%llu turn=%llu seq=%llu stored=%llu",
             s->user, (long long)s->game_id, (unsigned long long)game_hash(s->game),
             (unsigned long long)s->seed, (unsigned long long)st.turn, (unsigned long long)s->seq,
             (unsigned long long)(s->seq - jqueue_unstored(&s->jq)));
}

/* A key for Warren's own game: applied, journalled, answered once durable. */
static void warren_key(conn_t *c, session_t *s, key_event_t k)
{
    server_t *srv = c->srv;
    /* paused, held (storage.c) or shutting down: the key is dropped, never
     * applied nor acknowledged */
    if (jqueue_paused(&s->jq) || s->frozen || s->fenced || srv->stopping)
        return;
    uint8_t packed[JQUEUE_KEYS_MAX];
    size_t n = key_pack(k, packed);
    uint64_t now = now_ms(srv);
    int64_t since = (int64_t)(now - s->last_key_ms); /* the key's time, for replays */
    const jqueue_row_t *row = jqueue_push(&s->jq, s->seq + 1, packed, n, since);
    if (!row)
        return; /* out of memory: dropped like a paused key */
    s->seq++;
    session_keyed(s);
    journal_submit(s, row);
    game_state_t state = game_input(s->game, srv->vm, k);
    s->frame_due = true;
    game_status_t st;
    game_status(s->game, &st);
    if (state != GAME_RUNNING) {
        if (!st.more) /* else "You die... --More--" waits on the player's key */
            session_mark_ended(s);
        return;
    }
    if (st.leave) { /* the game's own S (journalled like any key): as Ctrl-X */
        session_detach(c, SESSION_DETACH_SAID);
        return;
    }
    if (st.level_changes != s->level_changes) {
        s->level_changes = st.level_changes;
        warrengame_snapshot(s, "level");
    } else if (st.turn >= s->snap_turn + (uint64_t)srv->cfg.snapshot_every)
        warrengame_snapshot(s, "turns");
}

/* ---- Warren's own engine as a backend ---------------------------------------------------- */

/* Warren's game is over and waits on its last --More-- for the player. */
static bool warren_over_at_more(const session_t *s)
{
    game_status_t st;
    game_status(s->game, &st);
    return st.state != GAME_RUNNING && st.more;
}

/* The rest of the engine's view is zero: no idle clock yet. */
static void warren_draw(const session_t *s, screen_t *scr, const session_view_t *v)
{
    game_view_t gv = {.watchers = v->watchers,
                      .two_cell = v->two_cell,
                      .turns = v->turns,
                      .stamps = &s->srv->screen_stamps};
    game_render(s->game, scr, &gv);
}

static void warren_free(session_t *s)
{
    game_free(s->game);
}

static const backend_ops_t backend_warren = {
    .kind = "warren",
    .key = warren_key,
    .draw = warren_draw,
    .save = warren_save,
    .over_at_more = warren_over_at_more,
    .probe = warren_probe,
    .status = warren_status,
    .finish = warren_finish,
    .free = warren_free,
};
