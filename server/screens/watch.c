/* watch — a terminal watcher's keys and overlays (see watch.h). */
#include "watch.h"
#include <stdlib.h>
#include <string.h>
#include "announce.h"
#include "chat.h"
#include "lineedit.h"
#include "ratelimit.h"
#include "relay.h"
#include "server.h"
#include "session.h"
#include "shard.h"

#define NOTICE_MS    5000
#define CHAT_RATE    1.0 /* lines per second ... */
#define CHAT_BURST   3.0 /* ... with this burst */
/* A watcher's < and > each look in every loop's index of live games by
 * name (the other loops parked meanwhile) and redraw the next game whole:
 * they pass at SWITCH_RATE a second, bursts of SWITCH_BURST, per
 * connection, kept across the games and loops it moves between. */
#define SWITCH_RATE  4.0
#define SWITCH_BURST 8.0
#define TOO_FAST     "Too fast: wait a moment."

struct watchview {
    bool help, typing;
    bool asking;             /* away: home picks its next game; its keys wait for it */
    char line[CHAT_MAX + 1]; /* the chat line being typed */
    size_t len;
    char notice[120];
    bool intro;                  /* the watch line over a hosted game's bottom row */
    uint64_t notice_end;         /* uv_now ms, of the notice or the intro */
    char footer[TERM_MAX_W + 1]; /* the footer last written */
    ratelimit_t *rate;           /* chat lines */
    conn_t *conn;                /* whose */
    list_t notice_node;          /* the server's watch_notices while a notice is up */
};

static const style_t st_box = {15, 4, 0};
static const style_t st_key = {11, 4, ATTR_BOLD};
static const style_t st_bar = {0, 14, 0};

void watch_free(watchview_t *w)
{
    if (w) {
        ratelimit_free(w->rate);
        list_remove(&w->notice_node);
    }
    free(w);
}

static watchview_t *view_of_conn(conn_t *c)
{
    if (!c->watch && (c->watch = calloc(1, sizeof *c->watch)) != NULL) {
        c->watch->conn = c;
        list_init(&c->watch->notice_node);
    }
    return c->watch;
}

bool watch_overlay(const conn_t *c)
{
    const watchview_t *w = c->watch;
    return w && (w->help || w->typing || w->notice[0] || w->intro);
}

/* A notice over the watcher's view for a few seconds. */
static void watch_say(conn_t *c, const char *text)
{
    watchview_t *w = c->watch;
    snprintf(w->notice, sizeof w->notice, "%s", text);
    w->notice_end = now_ms(c->srv) + NOTICE_MS;
    if (!list_linked(&w->notice_node))
        list_push_back(&c->srv->watch_notices, &w->notice_node);
}

/* ---- other games ---------------------------------------------------------------------- */

/* From n on in loop k's sess_by_player (live Warren games by name), the
 * first game that is not the viewer's own and not named name. */
static session_t *first_from(bynode_t *n, int64_t viewer, const char *name, int dir)
{
    for (; n; n = byname_step(n, dir)) {
        session_t *t = BYNAME_ITEM(n, session_t, by_player);
        if (t->user_id != viewer && strcmp(t->user, name))
            return t;
    }
    return NULL;
}

/* Whether t's player comes nearer after name (dir > 0), or before it, than
 * was's; any t beats no was. */
static bool nearer(const session_t *t, const session_t *was, int dir)
{
    return t && (!was || strcmp(t->user, was->user) * dir < 0);
}

/* Among loop k's games, the one whose player comes next after name (dir > 0)
 * or before it, and the first around the end: into best and wrap when
 * nearer than those of the loops before. O(log n) but for the games it
 * passes over (the viewer's own, name's). */
static void neighbour_in(server_t *k, int64_t viewer, const char *name, int dir, session_t **best,
                         session_t **wrap)
{
    byname_t *idx = &k->sess_by_player;
    session_t *b = first_from(byname_after(idx, name, dir), viewer, name, dir);
    session_t *w = first_from(byname_end(idx, dir), viewer, name, dir);
    if (nearer(b, *best, dir))
        *best = b;
    if (nearer(w, *wrap, dir))
        *wrap = w;
}

/* See watch.h; t->srv is the loop the game is on. */
int64_t watch_pick(server_t *home, int64_t viewer, const char *name, int dir, server_t **at)
{
    session_t *best = NULL, *wrap = NULL;
    shards_lock_all(home);
    for (int i = 0; i < shard_count(home); i++)
        neighbour_in(shard_at(home, i), viewer, name, dir, &best, &wrap);
    session_t *t = best ? best : wrap;
    *at = t ? t->srv : NULL;
    int64_t game_id = t ? t->game_id : 0;
    shards_unlock_all(home);
    return game_id;
}

/* From home: c watches the game whose player comes after name (dir > 0)
 * or before it on any loop; false when there is none. */
static bool watch_next_any(conn_t *c, const char *name, int dir)
{
    server_t *at;
    int64_t game_id = watch_pick(c->srv, c->user_id, name, dir, &at);
    if (!game_id)
        return false;
    if (at == c->srv) {
        session_watch(c, session_find_game(at, game_id));
        return true;
    }
    if (conn_in_game(c))
        conn_detach(c, NULL);
    conn_to_game(c, at, game_id);
    return true;
}

/* On the game's loop (relay_to_game): the watcher r is told text. */
static void say_there(conn_t *r, const char *text, size_t len, int arg)
{
    (void)len, (void)arg;
    if (r->sess && r->watch) {
        watch_say(r, text);
        session_view_changed(r);
    }
}

/* Whether c may move to another game now (SWITCH_*). */
static bool switch_allowed(conn_t *c)
{
    if (!c->switch_limit)
        c->switch_limit = ratelimit_new(SWITCH_RATE, SWITCH_BURST, now_ms(c->srv));
    return c->switch_limit && ratelimit_take(c->switch_limit, 1, now_ms(c->srv)) == 1;
}

/* At home (relay_to_home): the browser watching through a relay moves on,
 * or hears there that there is nowhere to go (or that it moves too fast). */
static void next_at_home(conn_t *c, const char *name, size_t len, int dir)
{
    static const char none[] = "No other game is being played.";
    static const char fast[] = TOO_FAST;
    (void)len;
    if (!switch_allowed(c)) /* the browser's own conn: its stand-in there is made anew */
        relay_to_game(c, say_there, fast, sizeof fast - 1, 0);
    else if (!watch_next_any(c, name, dir))
        relay_to_game(c, say_there, none, sizeof none - 1, 0);
}

/* A watcher handed to a game's loop asks home for the next game; the
 * answer finds it back by id (it may have left meanwhile). */
typedef struct {
    server_t *from, *at;
    uint64_t conn_id;
    int64_t viewer, game_id;
    char name[32];
    int dir;
} next_req_t;

static conn_t *conn_here(server_t *k, uint64_t id)
{
    LIST_EACH (it, &k->conns) {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (c->id == id)
            return c;
    }
    return NULL;
}

/* The keys typed while home picked (held: watch_key) go to where c is
 * then, in order: another loop's game takes them with it (conn_to_game). */
static void next_answer(server_t *k, void *ud)
{
    next_req_t *q = ud;
    conn_t *c = conn_here(k, q->conn_id);
    session_t *t = q->at == k ? session_find_game(k, q->game_id) : NULL;
    bool asked = c && c->watch && c->watch->asking;
    if (!asked || c->closing || c->place != CONN_WATCH || !c->sess) {
        free(q);
        return;
    }
    c->watch->asking = false;
    if (q->game_id && q->at != k) {
        conn_detach(c, NULL);
        conn_to_game(c, q->at, q->game_id);
        free(q);
        return;
    }
    key_event_t keys[CONN_HELD_KEYS];
    int n = conn_take_held(c, keys);
    if (!q->game_id || !t || t == c->sess) {
        watch_say(c, "No other game is being played.");
        session_view_changed(c);
    } else {
        session_watch(c, t);
    }
    conn_play_keys(c, keys, n);
    free(q);
}

static void next_ask(server_t *home, void *ud)
{
    next_req_t *q = ud;
    q->game_id = watch_pick(home, q->viewer, q->name, q->dir, &q->at);
    if (shard_post(q->from, next_answer, q))
        free(q); /* that loop stopped */
}

static void watch_next_away(conn_t *c, const char *name, int dir)
{
    next_req_t *q = calloc(1, sizeof *q);
    if (!q)
        return;
    *q = (next_req_t){.from = c->srv, .conn_id = c->id, .viewer = c->user_id, .dir = dir};
    snprintf(q->name, sizeof q->name, "%s", name);
    if (shard_post(shard_at(c->srv, 0), next_ask, q))
        free(q); /* home stopped */
    else
        c->watch->asking = true;
}

/* The live game whose player comes next (dir > 0) or before, by name,
 * around the end; s itself when it is the only one (this loop's). */
static session_t *neighbour(conn_t *c, session_t *s, int dir)
{
    session_t *best = NULL, *wrap = NULL;
    neighbour_in(c->srv, c->user_id, s->user, dir, &best, &wrap);
    return best ? best : wrap ? wrap : s;
}

/* ---- keys ------------------------------------------------------------------------------ */

static void send_line(conn_t *c, watchview_t *w)
{
    w->typing = false;
    if (!w->rate)
        w->rate = ratelimit_new(CHAT_RATE, CHAT_BURST, now_ms(c->srv));
    const char *why = chat_check(c, w->len);
    if (!why && (!w->rate || ratelimit_take(w->rate, 1, now_ms(c->srv)) != 1))
        why = TOO_FAST;
    if (!why)
        why = chat_say(c, w->line, w->len);
    if (why)
        watch_say(c, why);
    memset(w->line, 0, sizeof w->line);
    w->len = 0;
}

static bool typing_key(conn_t *c, watchview_t *w, key_event_t k)
{
    switch (lineedit_key(w->line, &w->len, CHAT_MAX, k)) {
    case LINE_CANCEL:
        w->typing = false;
        w->len = 0;
        w->line[0] = 0;
        break;
    case LINE_ENTER: send_line(c, w); break;
    case LINE_EDITED: break;
    case LINE_IGNORED:
    case LINE_FULL: return true;
    }
    session_view_changed(c);
    return true;
}

bool watch_key(conn_t *c, session_t *s, key_event_t k)
{
    watchview_t *w = view_of_conn(c);
    if (!w)
        return false;
    if (w->asking) { /* for the game home picks */
        conn_hold_key(c, k);
        return true;
    }
    if (w->typing)
        return typing_key(c, w, k);
    if (w->help) { /* any key closes help; q still leaves */
        w->help = false;
        session_view_changed(c);
        return k.code != 'q' && k.code != 'Q';
    }
    if (k.code == '?')
        w->help = true;
    else if (k.code == ':' && !c->user_id)
        watch_say(c, "Log in to chat: q, then l at the menu.");
    else if (k.code == ':')
        w->typing = true;
    else if (k.code == '<' || k.code == '>') {
        int dir = k.code == '>' ? 1 : -1;
        if (c->ops->relay) { /* home looks on every loop: it answers */
            relay_to_home(c, next_at_home, s->user, strlen(s->user), dir);
            return true;
        }
        if (!switch_allowed(c)) {
            watch_say(c, TOO_FAST);
            session_view_changed(c);
            return true;
        }
        if (conn_away(c)) {
            watch_next_away(c, s->user, dir);
            return true;
        }
        if (c->srv->shards && watch_next_any(c, s->user, dir))
            return true;
        session_t *t = c->srv->shards ? s : neighbour(c, s, dir);
        if (t != s) {
            session_watch(c, t);
            return true;
        }
        watch_say(c, "No other game is being played.");
    } else
        return false;
    session_view_changed(c);
    return true;
}

/* ---- drawing ------------------------------------------------------------------------------ */

#define KEYS_HINT "q stops \u00b7 ? help"

/* Whom c watches, and whether the player is there: one who left (to the
 * menu, or lost the connection) leaves the game waiting for them. Another
 * node's game has no player here: its node's heartbeat says (away). */
static void who_line(session_t *s, char *out, size_t n)
{
    bool left = s->mirror ? s->away : !s->player;
    if (left && !s->ended) {
        snprintf(out, n, "Watching %.31s, who has left: the game waits. %d watching.", s->user,
                 s->nwatchers);
        return;
    }
    if (session_hosted(s)) { /* its state is the program's own */
        snprintf(out, n, "Watching %.31s play %.32s, %d watching.", s->user, s->kind_name,
                 s->nwatchers);
        return;
    }
    session_status_t st;
    session_status(s, &st);
    snprintf(out, n, "Watching %s, game %lld, depth %d, %d watching.", s->user,
             (long long)s->game_id, st.depth, s->nwatchers);
}

static void draw_help(session_t *s, screen_t *scr)
{
    static const char *const rows[][2] = {
        {"q", "stop watching"},
        {"?", "this help (any key closes it)"},
        {"< >", "the previous / next live game"},
        {":", "say something to the player and the watchers"},
        {"", "(Enter sends, Esc cancels; logged in only)"},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    int w = 62, x = (scr->w - w) / 2, y = (scr->h - n - 4) / 2;
    char who[120];
    who_line(s, who, sizeof who);
    screen_fill(scr, x, y, w, n + 4, ' ', st_box);
    screen_textf(scr, x + 2, y + 1, st_box, "%.58s", who);
    for (int i = 0; i < n; i++) {
        screen_text(scr, x + 2, y + 3 + i, st_key, rows[i][0]);
        screen_text(scr, x + 8, y + 3 + i, st_box, rows[i][1]);
    }
}

/* Whom it watches and the keys, in cols cells: the keys always show, the
 * first part cut to make room. */
static void watch_line(session_t *s, int cols, char *out, size_t n)
{
    char who[160];
    who_line(s, who, sizeof who);
    if (cols > (int)n - 2) /* the dot's second byte */
        cols = (int)n - 2;
    int hint = (int)strlen(KEYS_HINT) - 1; /* the middle dot: two bytes, one cell */
    int room = cols - hint - 2;
    if (room < 0)
        room = 0;
    int cut = (int)strlen(who) < room ? (int)strlen(who) : room;
    int pad = cols - cut - hint > 0 ? cols - cut - hint : 0;
    snprintf(out, n, "%.*s%*s%s", cut, who, pad, "", KEYS_HINT);
}

void watch_draw(session_t *s, conn_t *c, screen_t *scr)
{
    watchview_t *w = view_of_conn(c);
    if (!w)
        return;
    if (w->help)
        draw_help(s, scr);
    int y = scr->h - 1;
    if (w->typing) {
        screen_fill(scr, 0, y, scr->w, 1, ' ', st_bar);
        int x = screen_text(scr, 0, y, st_bar, "Say: ");
        x = screen_text(scr, x, y, st_bar, lineedit_tail(w->line, w->len, scr->w - 7));
        screen_cursor(scr, x, y, true);
    } else if (w->notice[0]) {
        screen_fill(scr, 0, y, scr->w, 1, ' ', st_bar);
        screen_text(scr, 1, y, st_bar, w->notice);
    } else if (!c->ops->browser && !announce_on_games(c->srv) && (w->intro || !session_hosted(s))) {
        /* a terminal's bottom row says whom it watches (a page says it
         * itself), over a hosted game's only for a while (watch_begun) */
        char line[TERM_MAX_W + 1];
        watch_line(s, scr->w, line, sizeof line);
        screen_fill(scr, 0, y, scr->w, 1, ' ', st_bar);
        screen_text(scr, 0, y, st_bar, line);
    }
}

/* A hosted game's bottom row is the program's own (NetHack's second
 * status line: hit points, depth): a terminal with no row below the game
 * is told there whom it watches and the keys for NOTICE_MS, then sees the
 * game's row (? shows whom it watches again). */
void watch_begun(conn_t *c, session_t *s)
{
    watchview_t *w = view_of_conn(c);
    if (!w || c->ops->browser || c->h > s->grid->h || !session_hosted(s))
        return;
    w->intro = true;
    w->notice_end = now_ms(c->srv) + NOTICE_MS;
    if (!list_linked(&w->notice_node))
        list_push_back(&c->srv->watch_notices, &w->notice_node);
}

bool watch_footer(session_t *s, conn_t *c, char *out, size_t n, bool force)
{
    watch_line(s, c->w, out, n);
    watchview_t *w = view_of_conn(c);
    if (!w)
        return true;
    if (!force && strcmp(w->footer, out) == 0)
        return false;
    snprintf(w->footer, sizeof w->footer, "%s", out);
    return true;
}

void watch_tick(server_t *srv)
{
    uint64_t now = now_ms(srv);
    LIST_EACH (it, &srv->watch_notices) {
        watchview_t *w = LIST_ITEM(it, watchview_t, notice_node);
        conn_t *c = w->conn;
        if (now < w->notice_end)
            continue;
        w->notice[0] = 0;
        w->intro = false;
        list_remove(&w->notice_node);
        if (c->closing)
            continue;
        if (c->place == CONN_WATCH && c->sess)
            session_view_changed(c);
    }
}
