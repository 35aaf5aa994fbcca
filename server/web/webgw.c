/* webgw — the daemon's side of the web gateway (web.h): who a websocket is,
 * what it views, web accounts and the lobby.
 *
 * Every /ws/play and /ws/watch/NAME websocket is a conn_t with web ops
 * (server.h), so sessions treat it like a telnet viewer: same takeover,
 * same shared frames, same bounded queue (web_send refuses past outq_max;
 * the drained hook brings a keyframe). A browser that leaves its game is
 * told why ({"t":"left"}) and the socket closes with 1000; the page goes
 * back to the lobby.
 *
 * Accounts: /login, /register and /logout are plain HTML forms (no script
 * needed) using the same accounts_t as telnet, so the rules and throttles
 * are the same. A login sets a cookie holding a random 128-bit token; the
 * database stores only its BLAKE2b hash with an expiry. The cookie is what
 * authenticates /ws/play and chat.
 *
 * The lobby (/ws/lobby) gets the live game list whenever it changes, and
 * small previews: a JSON keyframe of each game that moved, at most every
 * LOBBY_MS. All protocol messages are listed in protocol/README.md. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sodium.h>
#include "drain.h"
#include "chat.h"
#include "daily.h"
#include "hooks.h"
#include "json.h"
#include "log.h"
#include "logcap.h"
#include "menu.h"
#include "moderation.h"
#include "notify.h"
#include "ratelimit.h"
#include "readturn.h"
#include "relay.h"
#include "server.h"
#include "session.h"
#include "shard.h"
#include "siteinfo.h"
#include "web.h"
#include "web_json.h"
#include "webgw.h"

/* The lobby's round (its list, previews and watcher counts) every
 * LOBBY_MS, at a set phase of the one-second tick: a quarter of a second
 * after it and after that, so never in the turn of the tick, whose first
 * slice of watch-list redraws runs in its turn (webgw_tick re-arms it
 * each tick: two timers of their own would drift back into step). */
#define LOBBY_MS    500
#define LOBBY_PHASE 250

#define COOKIE_DAYS 30
#define CHAT_RATE   1.0 /* lines per second ... */
#define CHAT_BURST  3.0 /* ... with this burst */
#define TOKEN_BYTES 16

/* One websocket. The conn comes first: ops get a conn_t *. */
struct wsock {
    conn_t c;
    webgw_t *g;
    web_conn_t *wc; /* NULL once the websocket is gone */
    list_t node;    /* webgw_t.socks */
    list_t lnode;   /* webgw_t.lobbies when a lobby */
    web_kind_t kind;
    char watch[WEB_WHO_MAX + 1];
    bool authed;         /* the cookie check is done (user_id may be 0) */
    char token_hash[65]; /* of the session cookie it opened with, "" none */
    keydec_t kd;         /* terminal input bytes (/ws/play) */
    int last_watchers;
    bool last_chat_off;
    int last_w, last_h; /* the game's size last told ({"t":"size"}) */
    ratelimit_t *chat;  /* chat lines */
    list_t hnode;       /* webgw_t.held: a size or format change waits to be drawn */
};

/* Every conn of web_ops is a wsock_t, whose first member it is. */
static wsock_t *wsock_of(const conn_t *c)
{
    return (wsock_t *)c;
}

static const conn_ops_t web_ops;

/* ---- small helpers ---------------------------------------------------------- */

static void send_json(wsock_t *ws, const char *json)
{
    conn_write_text(&ws->c, json, strlen(json));
}

/* {"t":T,"text":TEXT} */
static void send_text_msg(wsock_t *ws, const char *t, const char *text)
{
    buf_t b;
    buf_init(&b);
    buf_printf(&b, "{\"t\":\"%s\",\"text\":", t);
    json_put_string(&b, text, strlen(text));
    buf_putc(&b, '}');
    if (!b.failed)
        conn_write_text(&ws->c, b.data, b.len);
    buf_free(&b);
}

static void ws_free(wsock_t *ws)
{
    list_remove(&ws->hnode);
    conn_fini(&ws->c);
    ratelimit_free(ws->chat);
    free(ws);
}

/* ---- the conn ops ------------------------------------------------------------- */

static void op_write(conn_t *c, const void *data, size_t len, bool text)
{
    wsock_t *ws = wsock_of(c);
    /* the player's own frames leave at once; everyone else's on the next
     * loop turns, so fanning out never holds up the player's next key */
    bool now = !c->sess || c == c->sess->player;
    int ret = !ws->wc ? -1
              : now   ? web_send(ws->wc, data, len, text)
                      : web_send_later(ws->wc, data, len, text);
    if (ret < 0)
        c->need_key = true; /* on_drained brings a keyframe */
}

/* A frame's encoding shared by its watchers: one copy queued for all (the
 * player's own frame still leaves at once). A watcher of a game on
 * another loop has no sess here, but its place says it watches. */
static void op_write_shared(conn_t *c, const void *data, size_t len, bool text, uint64_t id)
{
    wsock_t *ws = wsock_of(c);
    if (c->place != CONN_WATCH) {
        op_write(c, data, len, text);
        return;
    }
    if (!ws->wc || web_send_shared(ws->wc, data, len, text, id) < 0)
        c->need_key = true; /* on_drained brings a keyframe */
}

/* Not writable: the caller skips a frame (need_key), so on_drained is
 * owed when the queue empties, or that keyframe would wait for the next
 * change (a player waiting for its screen before its next key). */
static bool op_writable(const conn_t *c)
{
    const wsock_t *ws = wsock_of(c);
    if (!ws->wc || c->closing)
        return false;
    if (web_queued(ws->wc) < (size_t)c->srv->cfg.outq_max)
        return true;
    web_owe_drained(ws->wc);
    return false;
}

static void op_close(conn_t *c, const char *why)
{
    wsock_t *ws = wsock_of(c);
    if (ws->wc)
        web_close(ws->wc, 1000, why);
}

static void op_leave(conn_t *c, const char *msg)
{
    wsock_t *ws = wsock_of(c);
    if (strcmp(msg, SESSION_DETACH_SAID) == 0) /* the telnet menu's words */
        msg = SESSION_DETACH_SAID_WEB;
    send_text_msg(ws, "left", msg);
    if (ws->wc)
        web_close(ws->wc, 1000, "left the game");
}

static void op_release(conn_t *c)
{
    ws_free(wsock_of(c));
}

/* conn_ops_t.pause: its keys wait for a later turn (readturn.h). */
static void op_pause(conn_t *c, bool stop)
{
    wsock_t *ws = wsock_of(c);
    if (ws->wc)
        web_conn_pause(ws->wc, stop);
}

static const conn_ops_t web_ops = {.browser = true,
                                   .write = op_write,
                                   .write_shared = op_write_shared,
                                   .writable = op_writable,
                                   .close = op_close,
                                   .leave = op_leave,
                                   .release = op_release,
                                   .pause = op_pause};

/* ---- sizes and keys ------------------------------------------------------------- */

static void on_size_timer(uv_timer_t *t);

/* Draws the size the client said last (raw_w, raw_h) and the format:
 * clamped into w and h, a keyframe when in a game. */
static void ws_draw_size(wsock_t *ws)
{
    conn_t *c = &ws->c;
    int w = c->raw_w ? c->raw_w : c->w, h = c->raw_h ? c->raw_h : c->h;
    list_remove(&ws->hnode); /* below its game's least size: conn_small tells it */
    if (w < TERM_MIN_W)
        w = TERM_MIN_W;
    if (h < TERM_MIN_H)
        h = TERM_MIN_H;
    if (w > TERM_MAX_W)
        w = TERM_MAX_W;
    if (h > TERM_MAX_H)
        h = TERM_MAX_H;
    conn_size_fit(c, &w, &h);
    c->w = w;
    c->h = h;
    if (conn_in_game(c))
        conn_resized(c);
}

/* A size or format the client sent: drawn now, or held on webgw_t.held
 * until CONN_RESIZE_MS after the last one drawn (conn_resize_wait). */
static void ws_size_changed(wsock_t *ws)
{
    webgw_t *g = ws->g;
    if (list_linked(&ws->hnode) || ws->c.closing)
        return; /* held already: drawn with the latest size */
    uint64_t wait = conn_resize_wait(&ws->c);
    if (wait == 0 || !g->timer_on) /* stopping: no timer any more */
        return ws_draw_size(ws);
    list_push_back(&g->held, &ws->hnode);
    if (!uv_is_active((uv_handle_t *)&g->size_timer))
        uv_timer_start(&g->size_timer, on_size_timer, wait, 0);
}

/* The held changes whose time came are drawn; the timer waits for the
 * next of the others. */
static void on_size_timer(uv_timer_t *t)
{
    webgw_t *g = t->data;
    list_t due; /* a keyframe may end other sockets: each is taken off before it is drawn */
    list_init(&due);
    for (list_t *n; (n = list_pop_front(&g->held));)
        list_push_back(&due, n);
    uint64_t next = 0;
    for (list_t *n; (n = list_pop_front(&due));) {
        wsock_t *ws = LIST_ITEM(n, wsock_t, hnode);
        if (ws->c.closing)
            continue;
        uint64_t wait = conn_resize_wait(&ws->c);
        if (wait == 0) {
            ws_draw_size(ws);
            continue;
        }
        list_push_back(&g->held, &ws->hnode);
        next = next && next < wait ? next : wait;
    }
    if (next)
        uv_timer_start(&g->size_timer, on_size_timer, next, 0);
}

static void on_key(void *ud, key_event_t k)
{
    conn_t *c = ud;
    if (!c->closing && conn_in_game(c) && (c->place == CONN_PLAY || c->place == CONN_WATCH))
        conn_key(c, k);
}

/* A key from a JSON message: one unit of the same input limit as a byte
 * from the terminal (conn_rate_allow), so neither form floods the game. */
static void on_json_key(void *ud, key_event_t k)
{
    conn_t *c = ud;
    if (conn_rate_allow(c, 1) == 1)
        on_key(c, k);
}

/* ---- opening: who is it ------------------------------------------------------------ */

static void lobby_send_all(webgw_t *g, wsock_t *only);

static void send_hello(wsock_t *ws)
{
    buf_t b;
    buf_init(&b);
    buf_puts(&b, "{\"t\":\"hello\",\"user\":");
    if (ws->c.user_id)
        json_put_string(&b, ws->c.user, strlen(ws->c.user));
    else
        buf_puts(&b, "null");
    buf_putc(&b, '}');
    if (!b.failed)
        conn_write_text(&ws->c, b.data, b.len);
    buf_free(&b);
}

static void ws_refuse(wsock_t *ws, const char *t, const char *text, const char *reason)
{
    send_text_msg(ws, t, text);
    if (ws->wc)
        web_close(ws->wc, 1008, reason);
}

/* The cookie is checked: start what the socket is for. */
static void ws_ready(wsock_t *ws)
{
    conn_t *c = &ws->c;
    ws->authed = true;
    send_hello(ws);
    if (ws->kind == WEB_LOBBY) {
        lobby_send_all(ws->g, ws);
        return;
    }
    if (ws->kind == WEB_PLAY) {
        if (!c->user_id) {
            ws_refuse(ws, "login", "Log in to play.", "login required");
            return;
        }
        if (drain_of(c->srv)) { /* this node stops soon: the player goes on elsewhere */
            ws_refuse(ws, "left", drain_of(c->srv)->message, "draining");
            return;
        }
        static const logcap_kind_t say_play = {"web play", 5, 1000};
        logcap_say_user(c->srv->strangers, now_ms(c->srv), LOG_INFO, &say_play, c->key, c->user,
                        "web play user=%s conn=%llu ip=%s game=%s", c->user,
                        (unsigned long long)c->id, c->ip, ws->watch[0] ? ws->watch : "warren");
        const gamecfg_t *hosted = gamecfg_find(&c->srv->cfg.games, ws->watch);
        if (strcmp(ws->watch, "daily") == 0)
            daily_play(c); /* /play/daily: the daily game (core/daily.h) */
        else if (ws->watch[0] && !hosted)
            ws_refuse(ws, "left", "There is no such game here.", "no such game");
        else if (hosted)
            hooks_hosted_play(c, hosted);
        else
            session_play(c);
        return;
    }
    session_t *s = NULL;
    server_t *k = NULL;
    int64_t game_id = 0;
    char who[WEB_WHO_MAX + 1]; /* "NAME" (any of their games) or "NAME/GAME" */
    snprintf(who, sizeof who, "%s", ws->watch);
    char *kind = strchr(who, '/');
    if (kind)
        *kind++ = 0;
    shards_lock_all(c->srv);
    for (int i = 0; i < shard_count(c->srv) && !s; i++) {
        k = shard_at(c->srv, i);
        if ((s = kind ? session_find_named(k, who, kind) : session_find_name(k, who)))
            game_id = s->game_id;
    }
    shards_unlock_all(c->srv);
    if (!s) {
        char msg[96];
        if (kind)
            snprintf(msg, sizeof msg, "%s is not playing %s now.", who, kind);
        else
            snprintf(msg, sizeof msg, "%s is not playing now.", who);
        ws_refuse(ws, "left", msg, "not playing");
        return;
    }
    if (k == c->srv)
        session_watch(c, s);
    else /* on another loop: watched from there */
        relay_start(c, k, game_id);
}

static void on_session_user(void *ud, int status, const db_user_t *u)
{
    wsock_t *ws = ud;
    conn_t *c = &ws->c;
    if (!c->closing) {
        if (status == DB_OK && u && !u->locked) {
            conn_set_user(c, u->id, u->name, u->game_name);
            menu_options_apply(c, u->options);
        }
        ws_ready(ws);
    }
    conn_unref(c);
}

/* /ws/play/ID of a game this daemon does not have: 404 before it opens. */
static int on_upgrade(void *ctx, web_kind_t kind, const char *name)
{
    webgw_t *g = ctx;
    if (kind != WEB_PLAY || !name[0] || strcmp(name, "daily") == 0 ||
        gamecfg_find(&g->srv->cfg.games, name))
        return 0;
    return 404;
}

static int on_open(void *ctx, web_conn_t *wc, const web_open_t *info)
{
    webgw_t *g = ctx;
    server_t *srv = g->srv;
    if (srv->stopping)
        return -1;
    wsock_t *ws = calloc(1, sizeof *ws);
    if (!ws)
        return -1;
    list_init(&ws->hnode);
    conn_t *c = &ws->c;
    int ret = conn_init(c, srv, &web_ops);
    conn_set_ip(c, info->ip);
    snprintf(c->term, sizeof c->term, "xterm-256color");
    menu_apply_profile(c);
    keydec_init(&ws->kd);
    /* the size the page asked for in its address: a hosted program starts
     * (or is brought back) at it, not at 80x24 for a moment first (Crawl
     * aborts on a shrink and a grow that close together). A lobby draws
     * no screen: its two stay 80x24 whatever the address says (at 400x200
     * they were 1.3 MB a socket, kept for as long as it stays open, and a
     * lobby needs no login) */
    bool fits = info->kind != WEB_LOBBY && info->w >= TERM_MIN_W && info->w <= TERM_MAX_W &&
                info->h >= TERM_MIN_H && info->h <= TERM_MAX_H;
    c->w = fits ? info->w : TERM_MIN_W;
    c->h = fits ? info->h : TERM_MIN_H;
    if (ret == 0)
        conn_size_fit(c, &c->w, &c->h);
    c->scr = screen_new(c->w, c->h); /* sessions draw into these at once */
    c->shown = screen_new(c->w, c->h);
    ws->chat = ratelimit_new(CHAT_RATE, CHAT_BURST, now_ms(srv));
    if (ret || !c->scr || !c->shown || !ws->chat) {
        ws_free(ws);
        return -1;
    }
    ws->g = g;
    ws->wc = wc;
    ws->kind = info->kind;
    ws->last_watchers = -1;
    snprintf(ws->watch, sizeof ws->watch, "%s", info->name);
    list_push_front(&g->socks, &ws->node);
    list_init(&ws->lnode);
    if (ws->kind == WEB_LOBBY)
        list_push_front(&g->lobbies, &ws->lnode);
    web_conn_set_user(wc, ws);
    if (info->cookie[0]) {
        webgw_token_hash(info->cookie, ws->token_hash);
        conn_ref(c);
        db_session_user(srv->db, ws->token_hash, webgw_unix_now(), on_session_user, ws);
    } else {
        ws_ready(ws);
    }
    return 0;
}

/* The conn of a websocket that is gone ends. */
static void ws_end(conn_t *c, const readmark_t *m)
{
    (void)m;
    c->closing = true;
    if (conn_in_game(c))
        conn_detach(c, NULL);
    if (c->refs == 0)
        ws_free(wsock_of(c));
}

/* The websocket is gone; its conn ends now, or, with keys kept for a
 * later turn, once they are played (they were read: they count as sent),
 * what they draw going nowhere. */
static void on_close(void *ctx, web_conn_t *wc)
{
    (void)ctx;
    wsock_t *ws = web_conn_user(wc);
    if (!ws)
        return;
    ws->wc = NULL;
    list_remove(&ws->node);
    list_remove(&ws->lnode);
    list_remove(&ws->hnode);
    if (!readturn_keep_mark(&ws->c, &(readmark_t){.run = ws_end}))
        ws_end(&ws->c, NULL);
}

/* ---- input ------------------------------------------------------------------------ */

static void on_input(void *ctx, web_conn_t *wc, const uint8_t *bytes, size_t len)
{
    (void)ctx;
    wsock_t *ws = web_conn_user(wc);
    conn_t *c = &ws->c;
    if (ws->kind != WEB_PLAY || c->closing)
        return;
    size_t ok = conn_rate_allow(c, len);
    keydec_feed(&ws->kd, bytes, ok, on_key, c);
    /* a message is complete: a lone Esc at its end is the Esc key */
    if (!c->closing && keydec_pending(&ws->kd))
        keydec_timeout(&ws->kd, on_key, c);
}

static void on_mark_resize(conn_t *c, const readmark_t *m)
{
    c->raw_w = m->a;
    c->raw_h = m->b;
    ws_size_changed(wsock_of(c));
}

/* A size: it waits behind keys kept for a later turn, which are drawn at
 * the size they were typed at. */
static void on_resize(void *ctx, web_conn_t *wc, int w, int h)
{
    (void)ctx;
    wsock_t *ws = web_conn_user(wc);
    if (ws->kind == WEB_LOBBY || ws->c.closing)
        return;
    readmark_t m = {.run = on_mark_resize, .a = w, .b = h};
    if (!readturn_keep_mark(&ws->c, &m))
        on_mark_resize(&ws->c, &m);
}

static void on_drained(void *ctx, web_conn_t *wc)
{
    (void)ctx;
    wsock_t *ws = web_conn_user(wc);
    if (conn_in_game(&ws->c) && !ws->c.closing)
        conn_drained(&ws->c);
}

static bool chat_allowed(wsock_t *ws)
{
    return ratelimit_take(ws->chat, 1, now_ms(ws->c.srv)) == 1;
}

/* {"t":"chat","text":...}: a line to everyone viewing the same game
 * (chat.c: browsers and terminals alike). */
/* What a viewer's status messages say of its game. */
typedef struct {
    int w, h, watchers;
    bool chat_off;
} view_status_t;

/* The game c views, here or on another loop (parked by the caller); false
 * if none. */
static bool view_status(const conn_t *c, view_status_t *v)
{
    const session_t *s = c->relay ? relay_session(c) : c->sess;
    if (s)
        *v = (view_status_t){s->grid->w, s->grid->h, s->nwatchers, s->chat_off};
    return s != NULL;
}

/* On the game's loop (relay_to_game): the stand-in r says the line, and
 * hears there why not. */
static void chat_line_there(conn_t *r, const char *text, size_t len, int arg)
{
    (void)arg;
    const char *why = r->sess ? chat_say(r, text, len) : NULL;
    if (!why)
        return;
    buf_t b;
    buf_init(&b);
    buf_puts(&b, "{\"t\":\"chat_error\",\"text\":");
    json_put_string(&b, why, strlen(why));
    buf_putc(&b, '}');
    if (!b.failed)
        conn_write_text(r, b.data, b.len);
    buf_free(&b);
}

/* On the game's loop: its player turned chat off or on. */
static void chat_off_there(conn_t *r, const char *data, size_t len, int off)
{
    (void)data, (void)len;
    if (r->sess && r == r->sess->player)
        chat_set_off(r->sess, off);
}

static void chat_line(wsock_t *ws, const char *json, size_t len)
{
    conn_t *c = &ws->c;
    char text[CHAT_MAX * 4 + 1];
    int n = web_json_string(json, len, "text", text, sizeof text);
    const char *why = n < 0 ? "A chat line is at most 200 bytes of text." : NULL;
    view_status_t v = {0};
    if (!why && c->relay) { /* the game is on another loop: what it says of chat */
        shard_lock(relay_game_loop(c));
        bool viewing = view_status(c, &v);
        shard_unlock(relay_game_loop(c));
        why = chat_check_game(viewing, v.chat_off, c->place == CONN_PLAY, c, (size_t)n);
    } else if (!why)
        why = chat_check(c, (size_t)n);
    if (!why && !chat_allowed(ws))
        why = "Too fast: wait a moment.";
    if (!why && c->relay) /* the game is on another loop: it answers from there */
        return relay_to_game(c, chat_line_there, text, (size_t)n, 0);
    if (!why)
        why = chat_say(c, text, (size_t)n);
    if (why)
        send_text_msg(ws, "chat_error", why);
}

static void set_frames(wsock_t *ws, const char *json, size_t len)
{
    conn_t *c = &ws->c;
    if (web_json_str_is(json, len, "format", "json"))
        c->json = true;
    else if (web_json_str_is(json, len, "format", "ansi"))
        c->json = false;
    else
        return send_text_msg(ws, "error", "format is \"json\" or \"ansi\".");
    c->shown_valid = false;
    ws_size_changed(ws); /* a keyframe in the new format */
}

static void on_message(void *ctx, web_conn_t *wc, const char *json, size_t len)
{
    (void)ctx;
    wsock_t *ws = web_conn_user(wc);
    conn_t *c = &ws->c;
    if (c->closing)
        return;
    if (ws->kind != WEB_LOBBY && web_json_str_is(json, len, "t", "frames"))
        return set_frames(ws, json, len);
    if (ws->kind != WEB_LOBBY && web_json_str_is(json, len, "t", "chat"))
        return chat_line(ws, json, len);
    if (ws->kind == WEB_PLAY && web_json_str_is(json, len, "t", "chat_off")) {
        bool off;
        if (c->relay && web_json_bool(json, len, "off", &off) == 0)
            relay_to_game(c, chat_off_there, NULL, 0, off);
        else if (c->sess && c == c->sess->player && web_json_bool(json, len, "off", &off) == 0)
            chat_set_off(c->sess, off);
        return;
    }
    if (ws->kind == WEB_PLAY &&
        (web_json_str_is(json, len, "t", "i") || web_json_str_is(json, len, "t", "k"))) {
        if (keys_from_json(json, len, on_json_key, c) < 0)
            send_text_msg(ws, "error", "bad key message");
        return;
    }
    send_text_msg(ws, "error", "unknown message");
}

/* ---- the lobby ---------------------------------------------------------------------- */

typedef struct {
    session_t *s;
    int watchers;
    uint64_t last_key_ms;
} live_pick_t;

static int live_cmp(const void *a, const void *b)
{
    const live_pick_t *x = a, *y = b;
    if (x->watchers != y->watchers)
        return x->watchers > y->watchers ? -1 : 1;
    if (x->last_key_ms != y->last_key_ms)
        return x->last_key_ms > y->last_key_ms ? -1 : 1;
    return strcmp(x->s->user, y->s->user);
}

static void live_call(const session_t *s, uint64_t now, void (*fn)(void *ud, const webgw_live_t *l),
                      void *ud)
{
    session_status_t st;
    session_status(s, &st);
    int w, h; /* another node's game too, as its own node's lobby shows it */
    bool detached = !session_played(s, &w, &h);
    webgw_live_t l = {.name = s->user,
                      .game = s->kind,
                      .game_name = s->kind_name,
                      .race = st.race,
                      .cls = st.cls,
                      .depth = st.depth,
                      .watchers = s->nwatchers,
                      .w = w,
                      .h = h,
                      .turn = st.turn,
                      .idle_s = now > s->last_key_ms ? (now - s->last_key_ms) / 1000 : 0,
                      .chat = !s->chat_off,
                      .detached = detached,
                      .sess = s};
    fn(ud, &l);
}

typedef struct {
    live_pick_t *v;
    size_t n, cap;
} picks_t;

/* An unwatched game (the watched come first, from their own list); past
 * cap (games keyed in one millisecond) counted, not kept. */
static bool pick_unwatched(void *ud, session_t *s)
{
    picks_t *p = ud;
    if (s->ended || s->nwatchers > 0)
        return false;
    if (p->n < p->cap)
        p->v[p->n++] = (live_pick_t){s, s->nwatchers, s->last_key_ms};
    return true;
}

/* Up to max of the games of every loop on list (watched, or the latest
 * keyed: session_each_recent, which may give more), into v from n on;
 * returns the new n. */
static size_t live_pick(server_t *srv, bool watched, size_t max, live_pick_t *v, size_t n,
                        size_t cap)
{
    for (int i = 0; i < shard_count(srv); i++) {
        picks_t p = {v, n, cap};
        if (!watched) {
            session_each_recent(shard_at(srv, i), max, pick_unwatched, &p);
            n = p.n;
            continue;
        }
        size_t took = 0;
        LIST_EACH (it, &shard_at(srv, i)->watched) {
            if (took >= max)
                break;
            session_t *s = LIST_ITEM(it, session_t, wdnode);
            if (s->ended)
                continue;
            v[n++] = (live_pick_t){s, s->nwatchers, s->last_key_ms};
            took++;
        }
    }
    return n;
}

/* The watched games, most watched first, then the latest keyed: from each
 * loop's watched list and latest keyed (session_each_recent; the other
 * loops parked meanwhile), so the cost is what is shown (plus the watched
 * games), not one walk of every session. When the loops' own counters
 * say no game is live, no loop is parked at all (a game starting
 * meanwhile shows at the next refresh). */
size_t webgw_each_live(server_t *srv, size_t max, void (*fn)(void *ud, const webgw_live_t *l),
                       void *ud)
{
    uint64_t now = now_ms(srv);
    size_t nw = 0, late = 0, live = 0, shown = 0;
    int loops = shard_count(srv);
    if (siteinfo_live(srv, true) == 0)
        return 0; /* read unparked: an idle lobby's refresh parks no loop */
    shards_lock_all(srv);
    for (int i = 0; i < loops; i++) {
        server_t *k = shard_at(srv, i);
        LIST_EACH (it, &k->watched)
            nw++;
        LIST_EACH (it, &k->recency_late) /* read whole besides the front */
            late++;
        live += (size_t)(k->nsessions - k->nended);
    }
    live += (size_t)srv->peer_unlisted; /* other nodes' games past the mirrors (peer.h) */
    size_t cap = nw + late + max * (size_t)loops + 1;
    live_pick_t *v = malloc(cap * sizeof *v);
    if (v) {
        size_t n = live_pick(srv, true, nw, v, 0, cap);
        qsort(v, n, sizeof *v, live_cmp);
        for (size_t i = 0; i < n && shown < max; i++, shown++)
            live_call(v[i].s, now, fn, ud);
        n = live_pick(srv, false, max - shown, v, 0, cap); /* the latest keyed of each loop */
        qsort(v, n, sizeof *v, live_cmp);
        for (size_t i = 0; i < n && shown < max; i++, shown++)
            live_call(v[i].s, now, fn, ud);
        free(v);
    }
    shards_unlock_all(srv);
    return live;
}

typedef struct {
    buf_t *b;
    bool more;    /* a game is in already */
    size_t shown; /* games in */
} lobby_json_t;

static void lobby_game_json(void *ud, const webgw_live_t *l)
{
    lobby_json_t *lj = ud;
    buf_t *b = lj->b;
    lj->shown++;
    buf_puts(b, lj->more ? ",{\"name\":" : "{\"name\":");
    lj->more = true;
    json_put_string(b, l->name, strlen(l->name));
    buf_puts(b, ",\"game\":"); /* "warren" or a hosted game's id */
    json_put_string(b, l->game, strlen(l->game));
    buf_puts(b, ",\"game_name\":");
    json_put_string(b, l->game_name, strlen(l->game_name));
    buf_puts(b, ",\"race\":");
    json_put_string(b, l->race, strlen(l->race));
    buf_puts(b, ",\"class\":");
    json_put_string(b, l->cls, strlen(l->cls));
    buf_printf(b,
               ",\"depth\":%d,\"turn\":%llu,\"idle\":%llu,\"watchers\":%d,\"w\":%d,\"h\":%d,"
               "\"chat\":%s,\"detached\":%s}",
               l->depth, (unsigned long long)l->turn, (unsigned long long)l->idle_s, l->watchers,
               l->w, l->h, l->chat ? "true" : "false", l->detached ? "true" : "false");
}

static void lobby_build(webgw_t *g, buf_t *b)
{
    lobby_json_t lj = {b, false, 0};
    buf_puts(b, "{\"t\":\"lobby\",\"games\":[");
    size_t live = webgw_each_live(g->srv, WEBGW_LIVE_MAX, lobby_game_json, &lj);
    turns_note(&g->srv->turns, TURN_LOBBY, TURN_GAMES, (uint32_t)lj.shown);
    buf_printf(b, "],\"more\":%zu,\"hosted\":[",
               live > lj.shown ? live - lj.shown
                               : (size_t)0); /* the games one can start besides Warren's own */
    for (int i = 0; i < g->srv->cfg.games.n; i++) {
        const gamecfg_t *h = &g->srv->cfg.games.games[i];
        buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
        json_put_string(b, h->id, strlen(h->id));
        buf_puts(b, ",\"name\":");
        json_put_string(b, h->name, strlen(h->name));
        buf_putc(b, '}');
    }
    buf_puts(b, "]}");
}

/* One message to every lobby (or only one): one copy shared by all of
 * them, written a slice of sockets a turn (web_send_shared, as watchers'
 * frames), so ten lobbies cost one copy and no burst of writes. Lobby
 * message ids have the top 16 bits set, beside the frames' (loop + 1) << 48. */
static void lobby_write(webgw_t *g, wsock_t *only, const char *data, size_t len)
{
    uint64_t id = 0xffffull << 48 | (++g->lobby_msgs & ((1ull << 48) - 1));
    LIST_EACH (it, &g->lobbies) {
        wsock_t *ws = LIST_ITEM(it, wsock_t, lnode);
        if (ws->kind != WEB_LOBBY || !ws->authed || ws->c.closing || (only && ws != only))
            continue;
        if (!ws->wc || web_send_shared(ws->wc, data, len, true, id) < 0)
            ws->c.need_key = true; /* as op_write: a full queue */
    }
}

#define PREVIEW_NONE UINT64_MAX /* a preview_t.seq: nothing sent yet */

/* What was last sent of game id's preview (in g->previews), NULL none. */
static preview_t *preview_sent(webgw_t *g, int64_t id)
{
    for (int i = 0; i < g->npreviews; i++)
        if (g->previews[i].game_id == id)
            return &g->previews[i];
    return NULL;
}

static bool preview_pending(const webgw_t *g, int64_t id)
{
    for (int i = 0; i < g->npending; i++)
        if (g->pending[i] == id)
            return true;
    return false;
}

typedef struct {
    webgw_t *g;
    bool round;                  /* the round's walk, not a slice's */
    preview_t next[PREVIEW_MAX]; /* the round's: the games shown, what each was sent */
    int n;
    int encoded;               /* this turn */
    int64_t left[PREVIEW_MAX]; /* due, left for the next turn */
    int nleft;
} previews_t;

static void preview_send(webgw_t *g, const session_t *s)
{
    server_t *srv = g->srv;
    buf_reset(&srv->scratch);
    buf_puts(&srv->scratch, "{\"t\":\"preview\",\"name\":");
    json_put_string(&srv->scratch, s->user, strlen(s->user));
    buf_puts(&srv->scratch, ",\"game\":"); /* a player may be live in two */
    json_put_string(&srv->scratch, s->kind, strlen(s->kind));
    buf_puts(&srv->scratch, ",\"frame\":");
    json_frame(NULL, s->sent, s->frame_seq, &srv->scratch);
    buf_putc(&srv->scratch, '}');
    if (!srv->scratch.failed)
        lobby_write(g, NULL, srv->scratch.data, srv->scratch.len);
    turns_note(&srv->turns, TURN_LOBBY, TURN_PREVIEWS, 1);
}

/* The round: every game shown is recorded, the changed ones are due. A
 * slice: only the round's due ones still shown (pending), so a round's
 * work ends within PREVIEW_MAX / PREVIEW_SLICE turns however fast the
 * games shown change. */
static void preview_one(void *ud, const webgw_live_t *l)
{
    previews_t *p = ud;
    const session_t *s = l->sess;
    preview_t *was = preview_sent(p->g, s->game_id), *now;
    if (p->round) {
        now = &p->next[p->n++];
        *now = (preview_t){s->game_id, was ? was->seq : PREVIEW_NONE};
    } else {
        if (!was || !preview_pending(p->g, s->game_id))
            return;
        now = was;
    }
    if (now->seq == s->frame_seq)
        return;
    if (p->encoded >= PREVIEW_SLICE) {
        p->left[p->nleft++] = s->game_id;
        return;
    }
    p->encoded++;
    now->seq = s->frame_seq;
    preview_send(p->g, s);
}

static void previews_slice(uv_idle_t *h);

/* A JSON keyframe of every game shown first in the lobby that changed,
 * PREVIEW_SLICE a loop turn (round: the round's walk; then the rest on
 * the next turns, previews_slice, each game's latest frame then). */
static void lobby_previews(webgw_t *g, bool round)
{
    previews_t p = {.g = g, .round = round};
    if (g->previews_turn == turns_now(&g->srv->turns)) /* the round and a slice in one turn */
        p.encoded = g->previews_encoded;
    webgw_each_live(g->srv, PREVIEW_MAX, preview_one, &p);
    if (round) {
        memcpy(g->previews, p.next, sizeof p.next[0] * (size_t)p.n);
        g->npreviews = p.n;
    }
    memcpy(g->pending, p.left, sizeof p.left[0] * (size_t)p.nleft);
    g->npending = p.nleft;
    g->previews_turn = turns_now(&g->srv->turns);
    g->previews_encoded = p.encoded;
    if (p.nleft && !g->previews_on) {
        uv_idle_start(&g->previews_idle, previews_slice);
        g->previews_on = true;
    } else if (!p.nleft && g->previews_on) {
        uv_idle_stop(&g->previews_idle);
        g->previews_on = false;
    }
}

static void previews_slice(uv_idle_t *h)
{
    webgw_t *g = h->data;
    uint64_t began = turns_begin(&g->srv->turns);
    lobby_previews(g, false);
    turns_end(&g->srv->turns, began);
}

static bool lobby_watched(const webgw_t *g)
{
    LIST_EACH (it, &g->lobbies) {
        const wsock_t *ws = LIST_ITEM(it, wsock_t, lnode);
        if (ws->kind == WEB_LOBBY && ws->authed && !ws->c.closing)
            return true;
    }
    return false;
}

/* Nothing is built while no lobby is open (a newcomer gets a fresh list). */
static void lobby_send_all(webgw_t *g, wsock_t *only)
{
    if (!only && !lobby_watched(g)) {
        buf_reset(&g->lobby);
        g->npreviews = g->npending = 0;
        if (g->previews_on)
            uv_idle_stop(&g->previews_idle);
        g->previews_on = false;
        return;
    }
    if (!only) {
        buf_t b;
        buf_init(&b);
        lobby_build(g, &b);
        bool same = b.len == g->lobby.len && memcmp(b.data, g->lobby.data, b.len) == 0;
        if (!same && !b.failed) {
            buf_reset(&g->lobby);
            buf_put(&g->lobby, b.data, b.len);
            lobby_write(g, NULL, b.data, b.len);
        }
        buf_free(&b);
    } else {
        if (!g->lobby.len)
            lobby_build(g, &g->lobby);
        lobby_write(g, only, g->lobby.data, g->lobby.len);
        g->npreviews = 0; /* every preview again, to every lobby: a few a turn */
    }
    lobby_previews(g, true);
}

/* The loops' view_gen summed (they are parked). */
static uint64_t view_gen(server_t *home)
{
    uint64_t gen = 0;
    for (int i = 0; i < shard_count(home); i++)
        gen += shard_at(home, i)->view_gen;
    return gen;
}

/* Viewers hear the watcher count and the chat setting, watch pages the
 * game's size, when they change: every socket is looked at only in a
 * round after a game's watchers, chat or size changed (view_gen), so ten
 * thousand watchers of games that stay as they are cost nothing here. */
static void tell_status(wsock_t *ws, const view_status_t *s)
{
    if (ws->kind == WEB_WATCH && (ws->last_w != s->w || ws->last_h != s->h)) {
        /* the page sizes its terminal to the game's and scales the font */
        ws->last_w = s->w;
        ws->last_h = s->h;
        char m[64];
        snprintf(m, sizeof m, "{\"t\":\"size\",\"w\":%d,\"h\":%d}", ws->last_w, ws->last_h);
        send_json(ws, m);
    }
    if (ws->last_watchers == s->watchers && ws->last_chat_off == s->chat_off)
        return;
    ws->last_watchers = s->watchers;
    ws->last_chat_off = s->chat_off;
    char m[96];
    snprintf(m, sizeof m, "{\"t\":\"watchers\",\"n\":%d,\"chat\":%s}", s->watchers,
             s->chat_off ? "false" : "true");
    send_json(ws, m);
}

static void viewers_status(webgw_t *g)
{
    shards_lock_all(g->srv); /* each other loop parked once, not once a viewer */
    uint64_t gen = view_gen(g->srv);
    if (gen != g->view_gen || g->status_pending) {
        g->view_gen = gen;
        g->status_pending = false;
        LIST_EACH (it, &g->socks) {
            wsock_t *ws = LIST_ITEM(it, wsock_t, node);
            view_status_t st;
            if (ws->c.closing || ws->kind == WEB_LOBBY)
                continue;
            if (view_status(&ws->c, &st))
                tell_status(ws, &st);
            else /* not in its game yet (a relay on its way): next round again */
                g->status_pending = true;
        }
    }
    shards_unlock_all(g->srv);
}

static void on_lobby_timer(uv_timer_t *t)
{
    webgw_t *g = t->data;
    /* both due at once (after a stall of the loop): the tick, about to run
     * in this turn, starts the next round at its phase */
    if (g->srv->tick.loop && uv_is_active((uv_handle_t *)&g->srv->tick) &&
        uv_timer_get_due_in(&g->srv->tick) == 0)
        return;
    uint64_t began = turns_begin(&g->srv->turns);
    turns_ran(&g->srv->turns, TURN_LOBBY);
    lobby_send_all(g, NULL);
    turns_ran(&g->srv->turns, TURN_STATUS);
    viewers_status(g);
    turns_end(&g->srv->turns, began);
}

static void logins_tell_due(webgw_t *g);

void webgw_tick(server_t *srv)
{
    webgw_t *g = srv->web;
    if (g)
        logins_tell_due(g);
    if (g && g->timer_on) /* next round a phase after this tick, then every LOBBY_MS */
        uv_timer_start(&g->lobby_timer, on_lobby_timer, LOBBY_PHASE, LOBBY_MS);
}

void webgw_options_changed(webgw_t *g, int64_t user_id, const char *options)
{
    LIST_EACH (it, &g->socks) {
        wsock_t *ws = LIST_ITEM(it, wsock_t, node);
        conn_t *c = &ws->c;
        if (c->closing || c->user_id != user_id || ws->kind == WEB_LOBBY)
            continue;
        menu_options_apply(c, options);
        c->shown_valid = false;
        if (conn_in_game(c))
            conn_resized(c); /* a keyframe drawn with the new options */
    }
}

int64_t webgw_login_key(const char *hash)
{
    char digits[16];
    if (!hash || strlen(hash) < sizeof digits - 1)
        return 0;
    memcpy(digits, hash, sizeof digits - 1);
    digits[sizeof digits - 1] = '\0';
    return strtoll(digits, NULL, 16); /* 60 bits: positive */
}

/* Which websockets close_socks closes: the account's (only 0) but those
 * of the login kept (a key, 0 none), or (only) those of one login, or
 * (banned) those from an address the bans refuse. */
typedef struct {
    int64_t user_id, keep, only;
    const char *msg, *why;
    bool banned;
    const char *keep_name; /* those logged in under it stay (a rename's new name) */
} pick_t;

static bool picked(server_t *srv, const pick_t *p, wsock_t *ws, int64_t now)
{
    conn_t *c = &ws->c;
    if (p->banned)
        return moderation_banned(srv->mod, c->ip, now);
    int64_t key = webgw_login_key(ws->token_hash);
    if ((p->keep && key == p->keep) || moderation_known_as(c, p->keep_name))
        return false;
    return p->only ? key == p->only : c->user_id == p->user_id;
}

static int close_socks(server_t *srv, const pick_t *p)
{
    webgw_t *g = srv->web;
    int n = 0;
    if (!g)
        return 0;
    int64_t now = (int64_t)time(NULL);
    LIST_EACH (it, &g->socks) {
        wsock_t *ws = LIST_ITEM(it, wsock_t, node);
        if (ws->c.closing || !ws->wc || !picked(srv, p, ws, now))
            continue;
        send_text_msg(ws, "left", p->msg);
        web_close(ws->wc, 1008, p->why);
        n++;
    }
    return n;
}

#define PASSWD_MSG "Your password was changed: log in again."
#define LOGOUT_MSG "You logged out."
#define LOGINS_MSG "This login has ended: log in again."

void webgw_revoke(server_t *srv, int64_t user_id, const char *keep_hash)
{
    int64_t keep = webgw_login_key(keep_hash);
    notify_send(srv, NOTIFY_PASSWD, "*", user_id, keep); /* its browsers at other nodes too */
    close_socks(srv, &(pick_t){user_id, keep, 0, PASSWD_MSG, "password changed"});
}

int webgw_kick(server_t *srv, int64_t user_id, const char *msg, const char *keep)
{
    if (user_id < 0)
        return 0;
    if (!user_id)
        return close_socks(srv, &(pick_t){.msg = msg, .why = "banned", .banned = true});
    return close_socks(
        srv, &(pick_t){user_id, 0, 0, msg, "closed by the administrator", .keep_name = keep});
}

/* A kick, a lock, a delete, a rename or a ban at another node
 * (hooks_t.kicked_elsewhere): told its words. */
static void kicked_elsewhere(server_t *srv, int64_t user_id, const char *msg, const char *word,
                             const char *keep)
{
    char why[48];
    snprintf(why, sizeof why, "%s at another node", word);
    int n = user_id < 0 ? 0
            : user_id == 0
                ? close_socks(srv, &(pick_t){.msg = msg, .why = why, .banned = true})
                : close_socks(srv, &(pick_t){user_id, 0, 0, msg, why, .keep_name = keep});
    if (n)
        log_info("closed %d websocket%s (%s)", n, n == 1 ? "" : "s", why);
}

int webgw_end_session(server_t *srv, const char *hash)
{
    int64_t key = webgw_login_key(hash);
    if (!key)
        return 0;
    notify_send(srv, NOTIFY_LOGOUT, "*", 0, key); /* its tabs at other nodes too */
    return close_socks(srv, &(pick_t){0, 0, key, LOGOUT_MSG, "logged out"});
}

/* ---- logins past the cap -------------------------------------------------------------- */

/* Websockets' logins looked up again (check_logins), each held until
 * the answer; LOGINS_CHECK_MAX a read. */
#define LOGINS_CHECK_MAX 4096
typedef struct {
    server_t *srv;
    size_t n;
    wsock_t *ws[LOGINS_CHECK_MAX];
    const char *hash[LOGINS_CHECK_MAX];
    int64_t user[LOGINS_CHECK_MAX];
} logins_check_t;

/* The words and the close's reason of db_logins_gone's answers. */
static const struct {
    const char *msg, *why;
} LOGIN_GONE[] = {
    [DB_LOGIN_ENDED] = {LOGINS_MSG, "login ended"},
    [DB_LOGIN_LOCKED] = {"This account has been locked.", "account locked"},
    [DB_LOGIN_DELETED] = {"This account has been deleted.", "account deleted"},
};

/* Those whose session is gone (deleted past the cap, or at another node
 * while this one was not listening), or whose account was locked or
 * deleted, are told which and closed. */
static void on_logins_checked(void *ud, int status, const db_pair_t *rows, size_t n)
{
    logins_check_t *lc = ud;
    if (status != DB_OK)
        log_error("web logins not looked up again: %s", db_error(lc->srv->db));
    for (size_t i = 0; i < n; i++) {
        int64_t at = rows[i].a, how = rows[i].b;
        if (at < 0 || (size_t)at >= lc->n || how < DB_LOGIN_ENDED || how > DB_LOGIN_DELETED)
            continue;
        wsock_t *ws = lc->ws[at];
        if (ws->c.closing || !ws->wc)
            continue;
        send_text_msg(ws, "left", LOGIN_GONE[how].msg);
        web_close(ws->wc, 1008, LOGIN_GONE[how].why);
    }
    for (size_t i = 0; i < lc->n; i++)
        conn_unref(&lc->ws[i]->c);
    free(lc);
}

static void logins_check_send(server_t *srv, logins_check_t *lc)
{
    db_logins_gone(srv->db, lc->hash, lc->user, lc->n, webgw_unix_now(), on_logins_checked, lc);
}

/* The account's websockets here (user_id 0: every account's) whose
 * session rows are gone (deleted past the cap, DB_SESSIONS_PER_USER, or
 * at another node while this one was not listening), or whose account
 * is locked or deleted, close: looked up again in one read (per
 * LOGINS_CHECK_MAX), however many. */
static void check_logins(server_t *srv, int64_t user_id)
{
    webgw_t *g = srv->web;
    logins_check_t *lc = NULL;
    if (!g || user_id < 0)
        return;
    LIST_EACH (it, &g->socks) {
        wsock_t *ws = LIST_ITEM(it, wsock_t, node);
        conn_t *c = &ws->c;
        if (c->closing || !ws->wc || !c->user_id || (user_id && c->user_id != user_id) ||
            !ws->token_hash[0])
            continue;
        if (!lc && !(lc = calloc(1, sizeof *lc)))
            return log_error("web logins not looked up again: out of memory");
        lc->srv = srv;
        conn_ref(c);
        lc->ws[lc->n] = ws;
        lc->hash[lc->n] = ws->token_hash; /* the socket is held: it stays */
        lc->user[lc->n++] = c->user_id;
        if (lc->n == LOGINS_CHECK_MAX) {
            logins_check_send(srv, lc);
            lc = NULL;
        }
    }
    if (lc)
        logins_check_send(srv, lc);
}

void webgw_login_made(server_t *srv, int64_t user_id, int64_t ended)
{
    webgw_t *g = srv->web;
    if (ended <= 0) /* no login of the account ended: nothing to close anywhere */
        return;
    check_logins(srv, user_id);
    for (int i = 0; g && i < g->nlogins_told; i++)
        if (g->logins_told[i] == user_id) { /* told this second: once more at the tick */
            g->logins_due[i] = true;
            return;
        }
    if (g && g->nlogins_told < WEBGW_LOGINS_TOLD_MAX) {
        g->logins_told[g->nlogins_told] = user_id;
        g->logins_due[g->nlogins_told++] = false;
    }
    notify_send(srv, NOTIFY_LOGINS, "*", user_id, 0);
}

/* Each second: the accounts whose logins past the cap came after they
 * were told are told now (and stay told for this second); the rest are
 * forgotten. */
static void logins_tell_due(webgw_t *g)
{
    int kept = 0;
    for (int i = 0; i < g->nlogins_told; i++) {
        if (!g->logins_due[i])
            continue;
        notify_send(g->srv, NOTIFY_LOGINS, "*", g->logins_told[i], 0);
        g->logins_told[kept] = g->logins_told[i];
        g->logins_due[kept++] = false;
    }
    g->nlogins_told = kept;
}

/* Logins another node ended (hooks_t.logins_ended). */
static void logins_ended(server_t *srv, hooks_logins_t how, int64_t a, int64_t b)
{
    if (how == HOOKS_LOGOUT)
        close_socks(srv, &(pick_t){0, 0, b, LOGOUT_MSG, "logged out"});
    else if (how == HOOKS_PASSWD)
        close_socks(srv, &(pick_t){a, b, 0, PASSWD_MSG, "password changed"});
    else
        check_logins(srv, a);
}

/* ---- start and stop ------------------------------------------------------------------- */

int webgw_start(server_t *srv, const web_route_t *routes, size_t nroutes)
{
    if (!srv->cfg.http[0])
        return 0;
    if (sodium_init() < 0)
        return log_error("web: libsodium failed to start"), 0;
    webgw_t *g = calloc(1, sizeof *g);
    if (!g)
        return 0;
    g->srv = srv;
    list_init(&g->socks);
    list_init(&g->lobbies);
    list_init(&g->held);
    buf_init(&g->lobby);
    buf_init(&g->feed);
    char root[4096];
    webgw_templates_load(g, web_default_root(root, sizeof root));
    web_config_t wc = {.listen = srv->cfg.http,
                       .backlog = srv->cfg.listen_backlog,
                       .outq_max = (size_t)srv->cfg.outq_max,
                       .routes = routes,
                       .nroutes = nroutes,
                       .budget = srv->budget,
                       .pace = srv->pace,
                       .cap = srv->strangers,
                       .trust_proxy = srv->cfg.trust_proxy,
                       .ipv6_prefix = srv->cfg.ipv6_prefix,
                       .proxy_from = srv->cfg.proxy_from};
    web_hooks_t hooks = {.ctx = g,
                         .on_open = on_open,
                         .on_upgrade = on_upgrade,
                         .on_input = on_input,
                         .on_resize = on_resize,
                         .on_message = on_message,
                         .on_drained = on_drained,
                         .on_close = on_close};
    char err[256] = "";
    g->web = web_start(srv->loop, &wc, &hooks, err, sizeof err);
    if (!g->web) {
        log_warn("web gateway off: %s", err[0] ? err : "not available");
        webgw_templates_free(g);
        buf_free(&g->lobby);
        free(g);
        return 0;
    }
    srv->web = g;
    uv_timer_init(srv->loop, &g->lobby_timer);
    g->lobby_timer.data = g;
    uv_timer_init(srv->loop, &g->size_timer);
    g->size_timer.data = g;
    uv_idle_init(srv->loop, &g->previews_idle);
    g->previews_idle.data = g;
    g->timer_on = true;
    uv_timer_start(&g->lobby_timer, on_lobby_timer, LOBBY_PHASE, LOBBY_MS);
    log_info("listening http %s (port %d)", srv->cfg.http, web_port(g->web));
    return 0;
}

void webgw_stop(server_t *srv)
{
    webgw_t *g = srv->web;
    if (!g)
        return;
    if (g->timer_on) {
        g->timer_on = false;
        uv_timer_stop(&g->lobby_timer);
        uv_close((uv_handle_t *)&g->lobby_timer, NULL);
        uv_close((uv_handle_t *)&g->size_timer, NULL);
        uv_close((uv_handle_t *)&g->previews_idle, NULL);
        g->previews_on = false;
    }
    logins_tell_due(g); /* logins ended this second: the other nodes told before the stop */
    if (drain_of(srv))  /* a drain's goodbye: reconnect to go on */
        LIST_EACH (it, &g->socks) {
            wsock_t *ws = LIST_ITEM(it, wsock_t, node);
            if (ws->kind != WEB_LOBBY)
                send_text_msg(ws, "left", drain_of(srv)->message);
        }
    web_stop(g->web);
}

void webgw_free(server_t *srv)
{
    webgw_t *g = srv->web;
    if (!g)
        return;
    web_free(g->web); /* closes what is left; on_close is not called any more */
    for (list_t *it; (it = list_pop_front(&g->socks));)
        ws_free(LIST_ITEM(it, wsock_t, node)); /* sessions are freed next, without their viewers */
    webgw_templates_free(g);
    buf_free(&g->lobby);
    buf_free(&g->feed);
    free(g);
    srv->web = NULL;
}

void webgw_hooks(hooks_t *h)
{
    HOOKS_ADD(h, password_changed, webgw_revoke);
    HOOKS_ADD(h, logins_ended, logins_ended);
    HOOKS_ADD(h, kicked_elsewhere, kicked_elsewhere);
}
