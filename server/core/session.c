/* session — one live game, its viewers and its journal.
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
 * Frames: the session renders into `grid` at the player's size and keeps
 * `sent`, the baseline every in-step viewer's terminal shows. Each change is
 * encoded once per ANSI profile and the same bytes go to every viewer of
 * that profile. A viewer that is behind (queue full) or new gets a keyframe
 * of its own; a watcher whose terminal is smaller renders at its own size.
 *
 * Snapshots: on level change, every cfg.snapshot_every turns, when the
 * player detaches, at the end of the grace period and at shutdown.
 *
 * Bringing a game into memory (start, resume, recovery) is session_load.c. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "backend.h"
#include "game.h"
#include "hooks.h"
#include "json.h"
#include "log.h"
#include "server.h"
#include "session_impl.h"
#include "shard.h"

#define DETACH_SAID SESSION_DETACH_SAID

static void session_broadcast(session_t *s);
static void session_broadcast_once(session_t *s);

/* ---- lifetime ------------------------------------------------------------------- */

/* Lookups go through the server's indexes: a login or a game start costs
 * the same with 10 sessions or 10,000. */
session_t *session_find_user(server_t *srv, int64_t user_id)
{
    HMAP_EACH(it, &srv->sess_by_user, hmap_hash_u64((uint64_t)user_id))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_user);
        if (s->user_id == user_id && !s->ended)
            return s;
    }
    return NULL;
}

session_t *session_find_kind(server_t *srv, int64_t user_id, const char *kind)
{
    HMAP_EACH(it, &srv->sess_by_user, hmap_hash_u64((uint64_t)user_id))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_user);
        if (s->user_id == user_id && !s->ended && strcmp(s->kind, kind) == 0)
            return s;
    }
    return NULL;
}

session_t *session_find_name(server_t *srv, const char *user)
{
    HMAP_EACH(it, &srv->sess_by_name, hmap_hash_nocase(user))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_name);
        if (!s->ended && strcasecmp(s->user, user) == 0)
            return s;
    }
    return NULL;
}

session_t *session_find_game(server_t *srv, int64_t game_id)
{
    HMAP_EACH(it, &srv->sess_by_game, hmap_hash_u64((uint64_t)game_id))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_game);
        if (s->game_id == game_id)
            return s;
    }
    return NULL;
}

/* Puts s in the three indexes, or in none (out of memory: -1). */
static int session_index(server_t *srv, session_t *s)
{
    if (hmap_add(&srv->sess_by_user, &s->by_user, hmap_hash_u64((uint64_t)s->user_id)) < 0)
        return -1;
    if (hmap_add(&srv->sess_by_name, &s->by_name, hmap_hash_nocase(s->user)) < 0) {
        hmap_del(&srv->sess_by_user, &s->by_user);
        return -1;
    }
    if (hmap_add(&srv->sess_by_game, &s->by_game, hmap_hash_u64((uint64_t)s->game_id)) < 0) {
        hmap_del(&srv->sess_by_user, &s->by_user);
        hmap_del(&srv->sess_by_name, &s->by_name);
        return -1;
    }
    return 0;
}

static void session_unindex(server_t *srv, session_t *s)
{
    hmap_del(&srv->sess_by_user, &s->by_user);
    hmap_del(&srv->sess_by_name, &s->by_name);
    hmap_del(&srv->sess_by_game, &s->by_game);
}

void session_set_game_id(session_t *s, int64_t game_id)
{
    hmap_del(&s->srv->sess_by_game, &s->by_game);
    s->game_id = game_id;
    (void)hmap_add(&s->srv->sess_by_game, &s->by_game, hmap_hash_u64((uint64_t)game_id));
    /* cannot fail: the slot array is kept and one entry just left it */
}

session_t *session_new(server_t *srv, int64_t game_id, int64_t user_id, const char *user, game_t *g,
                       uint64_t seq)
{
    session_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->grid = screen_new(TERM_MIN_W, TERM_MIN_H);
    s->sent = screen_new(TERM_MIN_W, TERM_MIN_H);
    s->game_id = game_id;
    s->user_id = user_id;
    snprintf(s->user, sizeof s->user, "%s", user);
    if (!s->grid || !s->sent || session_index(srv, s) < 0) {
        screen_free(s->grid);
        screen_free(s->sent);
        free(s);
        return NULL;
    }
    s->srv = srv;
    s->ops = &backend_warren;
    snprintf(s->kind, sizeof s->kind, "warren");
    snprintf(s->kind_name, sizeof s->kind_name, "Warren");
    s->game = g;
    s->seq = s->snap_seq = seq;
    if (g) {
        s->seed = game_seed(g);
        game_status_t st;
        game_status(g, &st);
        s->snap_turn = st.turn;
        s->level_changes = st.level_changes;
    }
    s->started_ms = s->last_key_ms = now_ms(srv);
    jqueue_init(&s->jq);
    list_init(&s->watchers);
    list_init(&s->snap_node);
    list_init(&s->tnode);
    list_init(&s->wdnode);
    list_init(&s->rnode);
    list_push_front(&srv->by_recency, &s->rnode);
    list_push_front(&srv->sessions, &s->node);
    srv->sess_gen++;
    srv->nsessions++;
    return s;
}

static void session_really_free(session_t *s)
{
    HOOKS_CALL(s->srv->hooks->session_gone, s);
    s->ops->free(s);
    screen_free(s->grid);
    screen_free(s->sent);
    screen_free(s->frozen);
    jqueue_free(&s->jq);
    free(s);
}

/* Unlinks now; the memory goes once no db callback points at it. Rows
 * still held go with it: they were never acknowledged. */
void session_free(session_t *s)
{
    server_t *srv = s->srv;
    if (s->dead)
        return;
    s->dead = true;
    s->srv->sess_gen++;
    if (s->ended)
        s->srv->nended--;
    list_remove(&s->node);
    list_remove(&s->tnode);
    list_remove(&s->rnode);
    list_remove(&s->wdnode);
    list_remove(&s->snap_node);
    session_unindex(srv, s);
    srv->nsessions--;
    if (jqueue_paused(&s->jq)) {
        log_info("game closed while paused user=%s game=%lld: %zu keys not stored (none was "
                 "answered)",
                 s->user, (long long)s->game_id, jqueue_unstored(&s->jq));
        storage_unpause(srv, false);
    }
    if (s->db_refs == 0)
        session_really_free(s);
}

void session_db_done(session_t *s)
{
    if (--s->db_refs == 0 && s->dead)
        session_really_free(s);
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
    int rc;
} snap_job_t;

/* Hands a packed snapshot to the writer, unless a newer one went first
 * (jobs finish in any order) or the game ended meanwhile (its end deletes
 * its snapshots: a late one must not come back). A session freed since
 * (detached, grace over) still saves: the job kept its memory. */
static void snapshot_put(session_t *s, int64_t turn, uint64_t seq, const buf_t *blob)
{
    if (s->ended || seq <= s->snap_put)
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
    j->rc = game_snapshot_pack(&j->state, &j->blob);
}

static void snap_packed(uv_work_t *w, int status)
{
    snap_job_t *j = w->data;
    session_t *s = j->s;
    if (status == 0 && j->rc == 0)
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
    int rc = game_snapshot_state(s->game, &j->state);
    s->db_refs++;
    if (rc == 0 && !s->srv->stopping &&
        uv_queue_work(s->srv->loop, &j->req, snap_pack, snap_packed) == 0)
        return 0;
    if (rc == 0)
        snap_pack(&j->req);
    else
        j->rc = -1;
    snap_packed(&j->req, 0);
    return 0;
}

/* Never while paused: a snapshot must not get ahead of the stored journal
 * (the database refuses one over a row it does not hold, too). */
void session_snapshot(session_t *s, const char *why)
{
    if (s->ended || s->broken || s->seq == s->snap_seq || jqueue_paused(&s->jq))
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
        session_snapshot(LIST_ITEM(n, session_t, snap_node), "detach");
    }
    if (list_empty(&srv->snaps_due))
        uv_idle_stop(h);
}

static void snapshot_soon(session_t *s)
{
    server_t *srv = s->srv;
    if (srv->stopping) {
        session_snapshot(s, "detach");
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
        session_snapshot(s, why);
}

/* ---- viewers and frames ------------------------------------------------------------ */

/* A paused game: the last frame sent, at scr's size, the notice on top
 * (which one: storage.c's, for what keeps it). */
static void render_paused(const session_t *s, screen_t *scr)
{
    static const style_t st = {11, SCREEN_DEFAULT_COLOR, ATTR_BOLD | ATTR_REVERSE};
    const screen_t *frozen = s->frozen;
    const char *const *notice = storage_notice(s->srv);
    screen_clear(scr);
    for (int y = 0; y < scr->h && y < frozen->h; y++)
        for (int x = 0; x < scr->w && x < frozen->w; x++) {
            const cell_t *c = screen_at(frozen, x, y);
            screen_put(scr, x, y, c->ch, (style_t){c->fg, c->bg, c->attr});
        }
    for (int i = 0; i < 2 && i < scr->h; i++) {
        screen_fill(scr, 0, i, scr->w, 1, ' ', st);
        screen_text(scr, 1, i, st, notice[i]);
    }
    screen_cursor(scr, 0, 0, false);
}

/* The game's frame (or, paused, the last one with the notice), with what
 * the layers above draw over it (hooks.h: chat's strip, the announcement). */
static void session_render(const session_t *s, screen_t *scr, const session_view_t *v)
{
    if (s->frozen)
        render_paused(s, scr);
    else
        s->ops->draw(s, scr, v);
    HOOKS_CALL(s->srv->hooks->overlay, (session_t *)s, scr);
}

/* Every field set, so that a view's frame is the same for every caller. */
static void view_of(const session_t *s, session_view_t *v)
{
    *v = (session_view_t){.watchers = s->nwatchers,
                          .two_cell = s->player ? s->player->two_cell : false,
                          .turns = s->player ? s->player->turns : false};
}

/* A watcher shares the player's frames when its terminal can hold them. */
static bool viewer_shares(const session_t *s, const conn_t *c)
{
    const hooks_t *h = s->srv->hooks;
    if (c != s->player && h->watcher_own && h->watcher_own(c))
        return false; /* help, a chat line being typed: its own frames meanwhile */
    return c->json || (c->w >= s->grid->w && c->h >= s->grid->h);
}

/* Below the game on a taller terminal: whom it watches and the keys
 * (watch.c); written again only when it changed. */
static void watcher_footer(session_t *s, conn_t *c, buf_t *out, bool key)
{
    if (c == s->player || c->ops->browser || c->h <= s->grid->h) /* pages say it themselves */
        return;
    char line[TERM_MAX_W + 1];
    const hooks_t *h = s->srv->hooks;
    if (!h->watcher_footer || !h->watcher_footer(s, c, line, sizeof line, key))
        return;
    buf_printf(out, "\033[%d;1H\033[m\033[K\033[2m%s\033[m", s->grid->h + 1, line);
    if (s->sent->cur_visible)
        buf_printf(out, "\033[%d;%dH", s->sent->cur_y + 1, s->sent->cur_x + 1);
}

/* A watcher drawn at its own size: the game, then its overlays. */
static void own_frame(session_t *s, conn_t *c, const session_view_t *v)
{
    session_render(s, c->scr, v);
    if (c != s->player && s->srv->hooks->watcher_draw)
        s->srv->hooks->watcher_draw(s, c, c->scr);
    conn_send_diff(c);
}

/* A keyframe of the shared baseline for one viewer (new, resized or behind). */
static void viewer_keyframe(session_t *s, conn_t *c)
{
    server_t *srv = s->srv;
    if (c->too_small) {
        conn_too_small(c);
        return;
    }
    if (!conn_writable(c)) {
        c->need_key = true;
        return;
    }
    c->need_key = false;
    if (c->own_render) {
        c->shown_valid = false;
        session_view_t v;
        view_of(s, &v);
        if (!c->scr || c->scr->w != c->w || c->scr->h != c->h) {
            screen_free(c->scr);
            c->scr = screen_new(c->w, c->h);
        }
        if (!c->scr || (!c->shown && !(c->shown = screen_new(c->w, c->h))))
            return;
        own_frame(s, c, &v);
        return;
    }
    buf_reset(&srv->scratch);
    if (c->json) {
        json_frame(NULL, s->sent, s->frame_seq, &srv->scratch);
        conn_write_text(c, srv->scratch.data, srv->scratch.len);
        return;
    }
    ansi_keyframe(&c->prof, s->sent, &srv->scratch);
    watcher_footer(s, c, &srv->scratch, true);
    conn_write(c, srv->scratch.data, srv->scratch.len);
}

/* The JSON encoding of the change, made once per frame when asked. */
static void frame_send_json(session_t *s, conn_t *c, bool *encoded)
{
    buf_t *b = &s->srv->enc_json;
    if (!*encoded) {
        buf_reset(b);
        json_frame(s->sent, s->grid, s->frame_seq, b);
        *encoded = true;
    }
    conn_write_text(c, b->data, b->len);
}

/* What one frame has encoded so far: each profile's ANSI and the JSON
 * are made once and the same bytes go to every viewer that takes them. */
typedef struct {
    session_view_t v;
    uint32_t encoded; /* bit per ANSI profile id */
    bool json_encoded;
} fanout_t;

static void frame_send(session_t *s, conn_t *c, fanout_t *f)
{
    if (c->closing || c->too_small)
        return;
    if (c->own_render) {
        if (c->scr && c->shown) /* else its keyframe, on its way, makes them */
            own_frame(s, c, &f->v);
        return;
    }
    if (c->need_key || !conn_writable(c)) {
        c->need_key = true; /* keyframe when it drains */
        return;
    }
    if (c->json) {
        frame_send_json(s, c, &f->json_encoded);
        return;
    }
    int pid = c->prof_id & (ANSI_PROFILE_IDS - 1);
    buf_t *b = &s->srv->enc[pid];
    if (!(f->encoded & (1u << pid))) {
        buf_reset(b);
        ansi_diff(&c->prof, s->sent, s->grid, b);
        f->encoded |= 1u << pid;
    }
    conn_write(c, b->data, b->len);
    if (c != s->player && !c->ops->browser && c->h > s->grid->h) {
        buf_t *own = &s->srv->scratch;
        buf_reset(own);
        watcher_footer(s, c, own, false);
        if (own->len)
            conn_write(c, own->data, own->len);
    }
}

/* Sends the change from sent to grid to every viewer, the player first.
 * A failed write closes its conn at once, and that may detach any number
 * of watchers (a mass disconnect): the walk goes over a copy of the list,
 * each conn held by a ref, and skips those no longer watching. */
static void frames_send(session_t *s)
{
    fanout_t f = {.encoded = 0};
    view_of(s, &f.v);
    if (s->player)
        frame_send(s, s->player, &f);
    conn_t *few[16], **w = few;
    int n = 0;
    if (s->nwatchers > 16 && !(w = malloc(sizeof *w * (size_t)s->nwatchers)))
        return; /* out of memory: they get a keyframe with the next frame */
    LIST_EACH (it, &s->watchers) {
        w[n] = LIST_ITEM(it, conn_t, wnode);
        conn_ref(w[n++]);
    }
    for (int i = 0; i < n; i++) {
        if (w[i]->sess == s && w[i] != s->player)
            frame_send(s, w[i], &f);
    }
    for (int i = 0; i < n; i++)
        conn_unref(w[i]);
    if (w != few)
        free(w);
}

/* Not re-entered: a watcher leaving during a broadcast (its write failed)
 * asks for another, which runs once this one is done. */
static void session_broadcast(session_t *s)
{
    if (s->broadcasting) {
        s->broadcast_again = true;
        return;
    }
    s->broadcasting = true;
    do {
        s->broadcast_again = false;
        session_broadcast_once(s);
    } while (s->broadcast_again && !s->dead);
    s->broadcasting = false;
}

static void session_broadcast_once(session_t *s)
{
    session_view_t v;
    view_of(s, &v);
    s->frame_due = false;
    s->frame_seq++;
    session_render(s, s->grid, &v);
    frames_send(s);
    /* The frame just sent becomes the baseline by swapping, not copying.
     * The new scratch grid holds an older frame, so its dirty marks say
     * nothing about the baseline: every row is compared (a memcmp) next time. */
    screen_t *t = s->sent;
    s->sent = s->grid;
    s->grid = t;
    screen_clean(s->sent);
    screen_touch_all(s->grid);
}

/* A frame now when it shows only stored keys (or the paused notice), else
 * with the commit of the keys on their way. */
static void session_refresh(session_t *s)
{
    if (jqueue_empty(&s->jq) || s->frozen)
        session_broadcast(s);
    else
        s->frame_due = true;
}

/* The grid follows the player's terminal; everyone gets a keyframe. */
static void session_layout(session_t *s)
{
    conn_t *p = s->player;
    if (p && !p->too_small && (p->w != s->grid->w || p->h != s->grid->h)) {
        screen_resize(s->grid, p->w, p->h);
        screen_resize(s->sent, p->w, p->h);
        if (s->ops->resize)
            s->ops->resize(s, p->w, p->h);
    }
    session_view_t v;
    view_of(s, &v);
    session_render(s, s->grid, &v);
    screen_copy(s->sent, s->grid);
    screen_clean(s->sent);
    screen_clean(s->grid);
    if (p) {
        p->own_render = false;
        viewer_keyframe(s, p);
    }
    LIST_EACH (it, &s->watchers) {
        conn_t *c = LIST_ITEM(it, conn_t, wnode);
        c->own_render = !viewer_shares(s, c);
        viewer_keyframe(s, c);
    }
}

void session_resized(conn_t *c)
{
    session_t *s = c->sess;
    if (!s)
        return;
    if (c == s->player) {
        session_layout(s);
        return;
    }
    c->own_render = !viewer_shares(s, c);
    viewer_keyframe(s, c);
}

void session_view_changed(conn_t *c)
{
    session_t *s = c->sess;
    if (!s || c == s->player || c->closing)
        return;
    bool own = !viewer_shares(s, c);
    if (own && c->own_render && c->scr && c->shown && !c->too_small) {
        session_view_t v;
        view_of(s, &v);
        own_frame(s, c, &v);
        return;
    }
    c->own_render = own;
    viewer_keyframe(s, c);
}

void session_drained(conn_t *c)
{
    if (c->sess)
        viewer_keyframe(c->sess, c);
}

/* ---- attaching and leaving ------------------------------------------------------------ */

void session_attach_player(session_t *s, conn_t *c)
{
    conn_t *old = s->player;
    if (old && old != c) {
        log_info("takeover user=%s game=%lld from conn=%llu to conn=%llu", s->user,
                 (long long)s->game_id, (unsigned long long)old->id, (unsigned long long)c->id);
        old->sess = NULL;
        s->player = NULL;
        conn_message(old, "Your game was taken over by another connection.");
    }
    s->player = c;
    s->detached_ms = 0;
    session_retime(s);
    c->sess = s;
    conn_set_place(c, CONN_PLAY);
    c->own_render = false;
    c->need_key = false;
    /* The player's frames come from the session's grids; the menu's pair is
     * made again when a menu draws (two 80x24 grids: a quarter of a
     * session's memory). */
    screen_free(c->scr);
    screen_free(c->shown);
    c->scr = c->shown = NULL;
    c->shown_valid = false;
    log_info("attach user=%s game=%lld conn=%llu turn-seq=%llu loop=%d", s->user,
             (long long)s->game_id, (unsigned long long)c->id, (unsigned long long)s->seq,
             s->srv->shard);
    session_layout(s);
}

void session_watch(conn_t *c, session_t *s)
{
    if (conn_in_game(c)) /* here, or on another loop */
        conn_detach(c, NULL);
    c->sess = s;
    conn_set_place(c, CONN_WATCH);
    list_push_front(&s->watchers, &c->wnode);
    if (s->nwatchers++ == 0)
        list_push_back(&s->srv->watched, &s->wdnode);
    c->own_render = !viewer_shares(s, c);
    c->need_key = false;
    log_info("watch conn=%llu user=%s game=%lld watchers=%d", (unsigned long long)c->id, s->user,
             (long long)s->game_id, s->nwatchers);
    /* the player's status shows the count: everyone gets that frame first */
    session_refresh(s);
    viewer_keyframe(s, c);
}

static void watcher_unlink(session_t *s, conn_t *c)
{
    list_remove(&c->wnode);
    if (--s->nwatchers == 0)
        list_remove(&s->wdnode);
}

void session_detach(conn_t *c, const char *why)
{
    session_t *s = c->sess;
    if (!s)
        return;
    c->sess = NULL;
    if (c == s->player) {
        s->player = NULL;
        s->detached_ms = now_ms(s->srv);
        if (s->detached_ms == 0)
            s->detached_ms = 1;
        session_retime(s);
        log_info("detach user=%s game=%lld seq=%llu", s->user, (long long)s->game_id,
                 (unsigned long long)s->seq);
        s->ops->save(s, "detach");
    } else {
        watcher_unlink(s, c);
        if (!s->ended)
            session_refresh(s); /* the watcher count changed */
    }
    if (why && !c->closing)
        conn_menu(c, why);
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

/* The viewers of an ended game, off it: its last screen when the backend
 * says how it ended and the screens show one (hooks.h), else a line. */
void session_finish(session_t *s)
{
    char msg[256] = "";
    session_end_t end;
    const hooks_t *h = s->srv->hooks;
    bool screen = s->ops->finish(s, &end, msg, sizeof msg) && h->game_over;
    hooks_viewer_t few[16], *v = few;
    int n = 0;
    if (screen && s->nwatchers + 1 > 16 && !(v = malloc(sizeof *v * (size_t)(s->nwatchers + 1))))
        screen = false, v = few; /* out of memory: the line */
    if (s->player) {
        conn_t *p = s->player;
        p->sess = NULL;
        s->player = NULL;
        if (screen)
            v[n++] = (hooks_viewer_t){p, true};
        else
            conn_message(p, msg);
    }
    for (list_t *it; (it = list_front(&s->watchers));) {
        conn_t *w = LIST_ITEM(it, conn_t, wnode);
        watcher_unlink(s, w);
        w->sess = NULL;
        if (screen)
            v[n++] = (hooks_viewer_t){w, false};
        else
            conn_message(w, "The game you watched has ended.");
    }
    if (screen && !h->game_over(s->srv, &end, v, n)) /* out of memory: a line */
        for (int i = 0; i < n; i++)
            conn_message(v[i].conn, v[i].player ? msg : "The game you watched has ended.");
    if (v != few)
        free(v);
    session_free(s);
}

bool session_status(const session_t *s, session_status_t *st)
{
    if (s->ops->status && s->ops->status(s, st))
        return true;
    *st = (session_status_t){0};
    return false;
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
        session_broadcast(s);
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
    session_refresh(s);
}

void session_storage_changed(server_t *srv)
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
            session_broadcast(s); /* still paused: its own notice again */
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
    if (status != DB_OK && status != DB_ENOTFOUND) /* not found: an earlier row failed */
        storage_failed(srv, db_error(srv->db));
    jqueue_event_t ev = jqueue_done(&s->jq, status == DB_OK);
    if (ev == JQ_PAUSED)
        session_pause(s);
    else if (ev == JQ_RESUMED)
        session_resume(s);
    if (ev == JQ_STORED || ev == JQ_RESUMED) { /* the frame of the keys just stored */
        if (s->frame_due) {
            session_broadcast(s);
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

void session_retry_paused(server_t *srv)
{
    LIST_EACH (it, &srv->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        size_t n;
        const jqueue_row_t *r = jqueue_retry_due(&s->jq) ? jqueue_take_held(&s->jq, &n) : NULL;
        for (size_t i = 0; r && i < n; i++)
            journal_submit(s, &r[i]);
    }
}

size_t session_unstored(server_t *srv)
{
    size_t n = 0;
    LIST_EACH (it, &srv->sessions)
        n += jqueue_unstored(&LIST_ITEM(it, session_t, node)->jq);
    return n;
}

void session_give_up(server_t *srv)
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
static void test_hook(conn_t *c, session_t *s)
{
    game_status_t st;
    game_status(s->game, &st);
    log_info("hook user=%s game=%lld hash=%016llx seed=%llu turn=%llu seq=%llu stored=%llu",
             s->user, (long long)s->game_id, (unsigned long long)game_hash(s->game),
             (unsigned long long)s->seed, (unsigned long long)st.turn, (unsigned long long)s->seq,
             (unsigned long long)(s->seq - jqueue_unstored(&s->jq)));
    (void)c;
}

/* A key for Warren's own game: applied, journalled, answered once durable. */
static void warren_key(conn_t *c, session_t *s, key_event_t k)
{
    server_t *srv = c->srv;
    /* paused, held (storage.c) or shutting down: the key is dropped, never
     * applied nor acknowledged */
    if (jqueue_paused(&s->jq) || s->frozen || srv->stopping)
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
    if (state != GAME_RUNNING) {
        session_mark_ended(s);
        return;
    }
    game_status_t st;
    game_status(s->game, &st);
    if (st.leave) { /* the game's own S (journalled like any key): as Ctrl-X */
        session_detach(c, DETACH_SAID);
        return;
    }
    if (st.level_changes != s->level_changes) {
        s->level_changes = st.level_changes;
        session_snapshot(s, "level");
    } else if (st.turn >= s->snap_turn + (uint64_t)srv->cfg.snapshot_every)
        session_snapshot(s, "turns");
}

/* Warren's own keys first (hooks.h: leave, chat; direct or behind a
 * hosted game's prefix), even while a chat line is typed; that line
 * takes every other key. */
static void player_key(conn_t *c, session_t *s, key_event_t k)
{
    const hooks_t *h = c->srv->hooks;
    for (size_t i = 0; i < HOOKS_MAX && h->player_key[i]; i++)
        if (h->player_key[i](c, s, k))
            return;
    if (c->srv->cfg.test_hooks && k.code == KEY_F12 && s->game) {
        test_hook(c, s);
        return;
    }
    if (s->ended || s->broken || c->too_small)
        return;
    s->ops->key(c, s, k);
}

void session_key(conn_t *c, key_event_t k)
{
    session_t *s = c->sess;
    if (!s)
        return;
    if (c == s->player) {
        player_key(c, s, k);
        return;
    }
    if (c->srv->hooks->watcher_key && c->srv->hooks->watcher_key(c, s, k))
        return;
    if (k.code == 'q' || k.code == 'Q')
        session_detach(c, "");
}

/* Every watcher goes back to the menu, told msg. */
static void watchers_leave(session_t *s, const char *msg)
{
    for (list_t *it; (it = list_front(&s->watchers));) {
        conn_t *w = LIST_ITEM(it, conn_t, wnode);
        watcher_unlink(s, w);
        w->sess = NULL;
        conn_message(w, msg);
    }
}

/* Snapshots the game and frees the session; watchers go back to the menu. */
static void session_save_and_free(session_t *s, const char *why)
{
    s->ops->save(s, why);
    watchers_leave(s, "The player left; the game is saved.");
    if (!s->ops->stop || !s->ops->stop(s))
        session_free(s);
}

/* ---- time ------------------------------------------------------------------------------ */

/* A hosted game without a key for its idle limit ends as after the grace
 * period: its player goes back to the menu, the program gets SIGHUP. */
static void session_idle_over(session_t *s, uint64_t now)
{
    log_info("idle over user=%s game=%s idle_s=%llu: hung up", s->user, s->kind,
             (unsigned long long)((now - s->last_key_ms) / 1000));
    if (s->player)
        session_detach(s->player, "The game was idle too long; it is saved.");
    session_save_and_free(s, "idle");
}

void session_mark_ended(session_t *s)
{
    if (s->ended)
        return;
    s->ended = true;
    s->srv->sess_gen++;
    s->srv->nended++;
}

void session_keyed(session_t *s)
{
    s->last_key_ms = now_ms(s->srv);
    list_remove(&s->rnode);
    list_push_front(&s->srv->by_recency, &s->rnode);
}

void session_retime(session_t *s)
{
    if (s->dead || (!s->idle_limit_ms && (s->player || !s->detached_ms)))
        list_remove(&s->tnode);
    else if (!list_linked(&s->tnode))
        list_push_back(&s->srv->sess_timed, &s->tnode);
}

void session_tick(server_t *srv)
{
    uint64_t now = now_ms(srv), grace = (uint64_t)srv->cfg.grace * 1000;
    LIST_EACH (it, &srv->sess_timed) {
        session_t *s = LIST_ITEM(it, session_t, tnode);
        if (s->idle_limit_ms && !s->ended && now - s->last_key_ms >= s->idle_limit_ms) {
            session_idle_over(s, now);
            continue;
        }
        if (s->player || s->ended || !s->detached_ms || now - s->detached_ms < grace)
            continue;
        if (!jqueue_empty(&s->jq))
            continue; /* keys wait to be stored (a frame, or a pause) */
        log_info("grace over user=%s game=%lld: saved and freed", s->user, (long long)s->game_id);
        session_save_and_free(s, "grace");
    }
}

int64_t session_close_user(server_t *srv, int64_t user_id, const char *why)
{
    session_t *s = session_find_user(srv, user_id);
    if (!s)
        return 0;
    int64_t id = s->game_id;
    if (s->player)
        session_detach(s->player, why); /* snapshots it */
    log_info("game closed user=%s game=%lld: saved and freed", s->user, (long long)id);
    session_save_and_free(s, "closed");
    return id;
}

int64_t session_abandon_user(server_t *srv, int64_t user_id, const char *reason, const char *why)
{
    session_t *s = session_find_kind(srv, user_id, "warren"); /* only Warren's have records */
    if (!s)
        return 0;
    int64_t id = s->game_id;
    if (s->player)
        session_detach(s->player, why);
    session_snapshot(s, "abandoned"); /* the journal's end is kept with the record */
    db_game_mark_broken(srv->db, id, reason, NULL, NULL);
    db_game_broken_told(srv->db, id, NULL, NULL); /* why is said now, not at the next login */
    watchers_leave(s, why);
    log_info("game abandoned user=%s game=%lld: %s", s->user, (long long)id, reason);
    session_free(s);
    return id;
}

bool session_user_live(server_t *srv, int64_t user_id)
{
    if (session_find_user(srv, user_id))
        return true;
    server_t *k = shard_of_user(srv, user_id);
    if (k == srv)
        return false;
    shard_lock(k);
    bool live = session_find_user(k, user_id) != NULL;
    shard_unlock(k);
    return live;
}

void session_redraw(session_t *s)
{
    if (!s->ended && !s->broken && !s->dead)
        session_refresh(s);
}

void session_redraw_all(server_t *k)
{
    LIST_EACH (it, &k->sessions)
        session_redraw(LIST_ITEM(it, session_t, node));
}

void session_set_chat(session_t *s, bool off)
{
    s->chat_off = off;
}

/* ---- shutdown ------------------------------------------------------------------------------ */

/* Frames of keys on their way go out with their commit (storage_shutdown
 * waits for it); a paused game takes no snapshot. */
void session_shutdown_all(server_t *srv)
{
    while (list_pop_front(&srv->snaps_due))
        continue; /* every game is saved below */
    if (srv->snap_idle.loop)
        uv_close((uv_handle_t *)&srv->snap_idle, NULL);
    LIST_EACH (it, &srv->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        s->ops->save(s, "shutdown");
        if (s->ops->stop) /* a hosted program saves and exits: the loop runs down after */
            s->ops->stop(s);
    }
}

void session_free_all(server_t *srv)
{
    for (list_t *it; (it = list_pop_front(&srv->sessions));)
        session_really_free(LIST_ITEM(it, session_t, node));
    hmap_fini(&srv->sess_by_user);
    hmap_fini(&srv->sess_by_name);
    hmap_fini(&srv->sess_by_game);
}

/* ---- Warren's own engine as a backend ---------------------------------------------------- */

/* The rest of the engine's view is zero: no idle clock yet. */
static void warren_draw(const session_t *s, screen_t *scr, const session_view_t *v)
{
    game_view_t gv = {.watchers = v->watchers, .two_cell = v->two_cell, .turns = v->turns};
    game_render(s->game, scr, &gv);
}

static void warren_free(session_t *s)
{
    game_free(s->game);
}

void session_output(session_t *s)
{
    if (!s->dead && !s->ended && jqueue_empty(&s->jq))
        session_broadcast(s);
}

const backend_ops_t backend_warren = {
    .kind = "warren",
    .key = warren_key,
    .draw = warren_draw,
    .save = warren_save,
    .status = warren_status,
    .finish = warren_finish,
    .free = warren_free,
};
