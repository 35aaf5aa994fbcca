/* session — one live game's life: made, found, attached to its player
 * and watchers, detached, timed out, ended and freed (session.h). What it
 * shows its viewers is frames.c; how its game runs is its backend's
 * (backend.h: warrengame.c, hosted/hostgame.c); bringing a Warren game
 * into memory (start, resume, recovery) is session_load.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "backend.h"
#include "frames.h"
#include "hooks.h"
#include "lease.h"
#include "log.h"
#include "logcap.h"
#include "notify.h"
#include "peer.h"
#include "server.h"
#include "session_impl.h"
#include "shard.h"
#include "warrengame.h"

/* ---- lifetime ------------------------------------------------------------------- */

/* Lookups go through the server's indexes: a login or a game start costs
 * the same with 10 sessions or 10,000. */
static session_t *session_find_user(server_t *srv, int64_t user_id)
{
    HMAP_EACH(it, &srv->sess_by_user, hmap_hash_u64((uint64_t)user_id))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_user);
        if (s->user_id == user_id && !s->ended && !s->mirror)
            return s;
    }
    return NULL;
}

session_t *session_find_kind(server_t *srv, int64_t user_id, const char *kind)
{
    HMAP_EACH(it, &srv->sess_by_user, hmap_hash_u64((uint64_t)user_id))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_user);
        if (s->user_id == user_id && !s->ended && !s->mirror && strcmp(s->kind, kind) == 0)
            return s;
    }
    return NULL;
}

session_t *session_find_name(server_t *srv, const char *user)
{
    HMAP_EACH(it, &srv->sess_by_name, hmap_hash_keyed_nocase(&srv->name_secret, user))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_name);
        if (!s->ended && strcasecmp(s->user, user) == 0)
            return s;
    }
    return NULL;
}

session_t *session_find_named(server_t *srv, const char *user, const char *kind)
{
    HMAP_EACH(it, &srv->sess_by_name, hmap_hash_keyed_nocase(&srv->name_secret, user))
    {
        session_t *s = HMAP_ITEM(it, session_t, by_name);
        if (!s->ended && strcasecmp(s->user, user) == 0 && strcmp(s->kind, kind) == 0)
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
    if (hmap_add(&srv->sess_by_name, &s->by_name,
                 hmap_hash_keyed_nocase(&srv->name_secret, s->user)) < 0) {
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

/* k's log has (or lost) a change: set before the change's stamp is taken,
 * so a reader that sees it clear (wlist.c: wl_sync) can only miss changes
 * stamped after what it read. */
static void change_due(server_t *k)
{
    atomic_store(&k->changes_due, true);
}

/* The watch list hears that s came (live) or ended or went. The log is
 * bounded: nobody may read it for hours; then its reader rebuilds. */
static void log_change(session_t *s, bool live)
{
    server_t *k = s->srv;
    change_due(k);
    if (k->changes_lost)
        return;
    if (!k->changes && !(k->changes = malloc(SESS_CHANGES_MAX * sizeof *k->changes)))
        k->nchanges = SESS_CHANGES_MAX; /* out of memory: lost, below */
    if (k->nchanges >= k->cfg.test_change_log) {
        k->changes_lost = true;
        return;
    }
    sess_change_t *ch = &k->changes[k->nchanges++];
    *ch = (sess_change_t){.game_id = s->game_id,
                          .user_id = s->user_id,
                          .stamp = live ? s->came_stamp : shard_stamp(k),
                          .live = live};
    memcpy(ch->user, s->user, sizeof ch->user);
}

void session_changes_clear(server_t *k)
{
    k->nchanges = 0;
    k->changes_lost = false;
    atomic_store(&k->changes_due, false);
}

session_t *session_new(server_t *srv, int64_t game_id, int64_t user_id, const char *user,
                       const backend_ops_t *ops)
{
    session_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    peer_game_here(srv, game_id); /* taken over from another node: one session of a game here */
    s->grid = s->sent = screen_new(TERM_MIN_W, TERM_MIN_H);
    s->min_w = TERM_MIN_W;
    s->min_h = TERM_MIN_H;
    s->game_id = game_id;
    s->user_id = user_id;
    snprintf(s->user, sizeof s->user, "%s", user);
    if (!s->sent || session_index(srv, s) < 0) {
        screen_free(s->sent);
        free(s);
        return NULL;
    }
    s->srv = srv;
    s->ops = ops;
    s->started_ms = s->last_key_ms = s->leased_ms = now_ms(srv);
    jqueue_init(&s->jq);
    list_init(&s->watchers);
    list_init(&s->snap_node);
    list_init(&s->tnode);
    list_init(&s->wdnode);
    list_init(&s->rnode);
    list_init(&s->keynote_node);
    list_push_front(&srv->by_recency, &s->rnode);
    list_push_front(&srv->sessions, &s->node);
    srv->sess_gen++;
    srv->nsessions++;
    change_due(srv);
    s->came_stamp = shard_stamp(srv); /* taken whether logged or not: a rebuild reads it */
    log_change(s, true);
    return s;
}

void session_playable(session_t *s)
{
    if (s->game && !s->ended && !s->dead)
        byname_add(&s->srv->sess_by_player, &s->by_player, s->user, s->game_id);
}

static void session_really_free(session_t *s)
{
    HOOKS_CALL(s->srv->hooks->session_gone, s);
    s->ops->free(s);
    frames_free(s);
    screen_free(s->sent);
    screen_free(s->frozen);
    jqueue_free(&s->jq);
    free(s);
}

/* Conns still on a session being freed (a hosted program that exited
 * while the server stops, before its conns are closed) let go of it
 * without a word: they close with the server, never reading it again. */
static void conns_let_go(session_t *s)
{
    for (list_t *it; (it = list_pop_front(&s->watchers));)
        LIST_ITEM(it, conn_t, wnode)->sess = NULL;
    s->nwatchers = 0;
    if (s->player)
        s->player->sess = NULL;
    s->player = NULL;
}

/* Unlinks now; the memory goes once no db callback points at it. Rows
 * still held go with it: they were never acknowledged. */
void session_free(session_t *s)
{
    server_t *srv = s->srv;
    if (s->dead)
        return;
    conns_let_go(s);
    session_set_away(s, false);
    s->dead = true;
    s->srv->sess_gen++;
    if (s->ended)
        s->srv->nended--;
    else
        log_change(s, false);
    list_remove(&s->node);
    list_remove(&s->tnode);
    list_remove(&s->rnode);
    list_remove(&s->wdnode);
    list_remove(&s->snap_node);
    list_remove(&s->keynote_node);
    session_unindex(srv, s);
    byname_del(&srv->sess_by_player, &s->by_player);
    srv->nsessions--;
    if (s->game && !s->fenced) /* Warren's: another node may run it now */
        session_lease_done(srv, s->game_id);
    if (s->peer) /* other nodes' watchers of it are told */
        peer_session_gone(s);
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

/* ---- attaching and leaving ------------------------------------------------------------ */

/* A player comes to, leaves or takes over a game as often as they like:
 * those lines are under the log's cap (logcap.h), each kind a few times
 * in a window per address and account. */
static const logcap_kind_t SAY_ATTACH = {"attach", 10, 1000}, SAY_DETACH = {"detach", 10, 1000},
                           SAY_TAKEOVER = {"takeover", 10, 1000};

void session_attach_player(session_t *s, conn_t *c)
{
    conn_t *old = s->player;
    if (old && old != c) {
        logcap_say_user(s->srv->strangers, now_ms(s->srv), LOG_INFO, &SAY_TAKEOVER, c->key, s->user,
                        "takeover user=%s game=%lld from conn=%llu to conn=%llu", s->user,
                        (long long)s->game_id, (unsigned long long)old->id,
                        (unsigned long long)c->id);
        old->sess = NULL;
        s->player = NULL;
        conn_message(old, "Your game was taken over by another connection.");
    }
    s->player = c;
    s->detached_ms = 0;
    session_set_away(s, false);
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
    logcap_say_user(s->srv->strangers, now_ms(s->srv), LOG_INFO, &SAY_ATTACH, c->key, s->user,
                    "attach user=%s game=%lld conn=%llu turn-seq=%llu loop=%d", s->user,
                    (long long)s->game_id, (unsigned long long)c->id, (unsigned long long)s->seq,
                    s->srv->shard);
    frames_layout(s);
    conn_play_held(c);
}

void session_watch(conn_t *c, session_t *s)
{
    if (conn_in_game(c)) /* here, or on another loop */
        conn_detach(c, NULL);
    c->sess = s;
    conn_set_place(c, CONN_WATCH);
    list_push_front(&s->watchers, &c->wnode);
    s->srv->view_gen++;
    if (s->nwatchers++ == 0)
        list_push_back(&s->srv->watched, &s->wdnode);
    if (s->srv->hooks->watcher_begun)
        s->srv->hooks->watcher_begun(c, s);
    c->own_render = !frames_shared(s, c);
    c->need_key = false;
    /* anyone may watch, again and again: under the log's cap (logcap.h),
     * a few times per address and game in a window */
    static const logcap_kind_t say_watch = {"watch", 10, 1000};
    logcap_say_user(s->srv->strangers, now_ms(s->srv), LOG_INFO, &say_watch, c->key, s->user,
                    "watch conn=%llu user=%s game=%lld watchers=%d", (unsigned long long)c->id,
                    s->user, (long long)s->game_id, s->nwatchers);
    /* the player's status shows the count: everyone gets that frame first */
    frames_count_changed(s);
    frames_keyframe(s, c);
    if (s->ops->watched) /* another node's game: its frames are asked for */
        s->ops->watched(s);
}

static void watcher_unlink(session_t *s, conn_t *c)
{
    list_remove(&c->wnode);
    s->srv->view_gen++;
    if (--s->nwatchers == 0)
        list_remove(&s->wdnode);
}

/* Its player left a game over at its last --More--: it ends as if the key
 * had come (its record is stored at once, or when its last keys are). */
static void end_left(session_t *s, conn_t *c, const char *why)
{
    session_mark_ended(s);
    if (jqueue_empty(&s->jq))
        session_finish(s);
    else
        s->frame_due = true; /* finished once its rows are stored */
    if (why && !c->closing)
        conn_menu(c, why);
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
        session_set_away(s, true);
        session_retime(s);
        logcap_say_user(s->srv->strangers, now_ms(s->srv), LOG_INFO, &SAY_DETACH, c->key, s->user,
                        "detach user=%s game=%lld seq=%llu", s->user, (long long)s->game_id,
                        (unsigned long long)s->seq);
        if (!s->ended && s->ops->over_at_more && s->ops->over_at_more(s))
            return end_left(s, c, why); /* left on the last --More--: it ends now */
        s->ops->save(s, "detach");
        /* after its last rows (unless they wait to be stored): another node may take it */
        if (s->game && lease_on(s->srv) && !jqueue_paused(&s->jq)) {
            lease_let_go(s->srv, s->game_id); /* listed as detached on every node */
            s->let_go = true;
        }
        if (s->nwatchers)
            frames_refresh(s); /* watchers' lines say the player left */
    } else {
        watcher_unlink(s, c);
        if (!s->ended)
            frames_count_changed(s);
    }
    if (why && !c->closing)
        conn_menu(c, why);
}

/* ---- the game's end ---------------------------------------------------------------- */

/* The viewers of an ended game, off it: its last screen when the backend
 * says how it ended and the screens show one (hooks.h), else a line. */
void session_finish(session_t *s)
{
    char msg[512] = "";
    session_end_t end;
    const hooks_t *h = s->srv->hooks;
    bool screen = s->ops->finish(s, &end, msg, sizeof msg) && h->game_over;
    session_mark_ended(s); /* out of "playing now" before the menus it returns to are drawn */
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
    *st = (session_status_t){0};
    return s->ops->status && s->ops->status(s, st);
}

bool session_hosted(const session_t *s)
{
    return s->ops->hosted && s->ops->hosted(s);
}

bool session_played(const session_t *s, int *w, int *h)
{
    *w = *h = 0;
    if (s->player)
        *w = s->grid->w, *h = s->grid->h;
    else if (!s->ops->played || !s->ops->played(s, w, h)) {
        *w = *h = 0;
        return false;
    }
    return true;
}

void session_term_text(const session_t *s, char *out, size_t n)
{
    int w, h;
    if (!session_played(s, &w, &h)) {
        snprintf(out, n, "detached");
        return;
    }
    if (w)
        snprintf(out, n, "%dx%d", w, h);
    else
        snprintf(out, n, "-");
}

/* ---- keys ---------------------------------------------------------------------------- */

/* Warren's own keys first (hooks.h: leave, chat; direct or behind a
 * hosted game's prefix), even while a chat line is typed; that line
 * takes every other key. */
static void player_key(conn_t *c, session_t *s, key_event_t k)
{
    const hooks_t *h = c->srv->hooks;
    for (size_t i = 0; i < HOOKS_MAX && h->player_key[i]; i++)
        if (h->player_key[i](c, s, k))
            return;
    if (c->srv->cfg.test_hooks && k.code == KEY_F12 && s->ops->probe) {
        s->ops->probe(s);
        return;
    }
    if (s->ended || conn_small(c))
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

void session_drop(session_t *s, const char *line, const char *msg)
{
    watchers_leave(s, msg);
    conn_t *p = s->player;
    if (p) {
        s->player = NULL;
        p->sess = NULL;
        conn_tell_close(p, line, "game runs elsewhere");
    }
    session_free(s);
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
    session_hang_up(s, "The game was idle too long; it is saved.", "idle");
}

void session_hang_up(session_t *s, const char *msg, const char *why)
{
    if (s->player)
        session_detach(s->player, msg);
    session_save_and_free(s, why);
}

void session_mark_ended(session_t *s)
{
    if (s->ended)
        return;
    session_set_away(s, false);
    s->ended = true;
    byname_del(&s->srv->sess_by_player, &s->by_player);
    s->srv->sess_gen++;
    s->srv->nended++;
    log_change(s, false);
}

void session_set_away(session_t *s, bool away)
{
    away = away && !s->ended && !s->dead;
    if (away == s->away)
        return;
    s->away = away;
    s->srv->naway += away ? 1 : -1;
}

void session_keyed(session_t *s)
{
    s->last_key_ms = now_ms(s->srv);
    list_remove(&s->rnode);
    list_push_front(&s->srv->by_recency, &s->rnode);
}

void session_keyed_at(session_t *s, uint64_t ms)
{
    s->last_key_ms = ms;
    list_remove(&s->rnode);
    list_t *head = &s->srv->by_recency, *at = head;
    int passed = 0;
    LIST_EACH (it, head) {
        if (LIST_ITEM(it, session_t, rnode)->last_key_ms <= ms)
            break;
        if (passed++ == SESSION_RECENCY_WALK) {
            list_push_front(&s->srv->recency_late, &s->rnode);
            return;
        }
        at = it;
    }
    list_insert_after(at, &s->rnode);
}

void session_each_recent(server_t *k, size_t need, bool (*take)(void *ud, session_t *s), void *ud)
{
    size_t took = 0;
    uint64_t last = 0; /* the last counted one's last key */
    if (!need)
        return;
    LIST_EACH (it, &k->by_recency) {
        session_t *s = LIST_ITEM(it, session_t, rnode);
        if (took >= need && s->last_key_ms != last)
            break;
        if (take(ud, s)) {
            took++;
            last = s->last_key_ms;
        }
    }
    LIST_EACH (it, &k->recency_late)
        take(ud, LIST_ITEM(it, session_t, rnode));
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
    lease_tick(srv);
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
    frames_tick(srv);
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

bool session_user_any(server_t *srv, int64_t user_id)
{
    HMAP_EACH(it, &srv->sess_by_user, hmap_hash_u64((uint64_t)user_id))
    {
        const session_t *s = HMAP_ITEM(it, session_t, by_user);
        if (s->user_id == user_id && !s->mirror)
            return true;
    }
    return false;
}

int64_t session_abandon_user(server_t *srv, int64_t user_id, const char *reason, const char *why)
{
    session_t *s = session_find_kind(srv, user_id, "warren"); /* only Warren's have records */
    if (!s)
        return 0;
    int64_t id = s->game_id;
    /* before the detach lets its lease go: the mark is fenced by it (db.h) */
    db_game_mark_broken(srv->db, id, reason, NULL, NULL);
    db_game_broken_told(srv->db, id, NULL, NULL); /* why is said now, not at the next login */
    if (s->player)
        session_detach(s->player, why);
    warrengame_snapshot(s, "abandoned"); /* the journal's end is kept with the record */
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

void session_set_chat(session_t *s, bool off)
{
    s->chat_off = off;
    s->srv->view_gen++;
    if (!s->mirror && s->game_id > 0) /* other nodes' mirrors of the game follow */
        notify_send(s->srv, NOTIFY_CHAT_OFF, "*", s->game_id, off);
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
