/* webgw — the web gateway: libwebsockets (web.h) on the home loop, its
 * websockets as conns (webgw.c: players, watchers, chat, the lobby), the
 * page shell and the client's pages (site.c), the account pages (login.c,
 * mail_page.c, rc_page.c). The daemon starts and stops it (the calls just
 * below); the records pages above it (records/) build theirs with the
 * page shell; the route table that names every URL is main's (routes.h).
 * Loop thread only. */
#ifndef WARREN_WEBGW_H
#define WARREN_WEBGW_H
#include <stdint.h>
#include "buf.h"
#include "log.h"
#include "server.h"
#include "web.h"
#include "session.h"

#define PREVIEW_MAX   24 /* games with a live preview in the lobby */
#define PREVIEW_SLICE 4  /* of them, encoded in one loop turn at most */

typedef struct hooks hooks_t;

/* ---- the daemon's calls ---- */

/* Registers what the core asks of the web gateway (hooks.h). */
void webgw_hooks(hooks_t *h);
/* Starts it on the home loop with the route table routes[0..n) (borrowed
 * for its life); 0 also when http is off or unavailable. */
int webgw_start(server_t *s, const web_route_t *routes, size_t n);
/* home, once a second: the lobby's rounds kept at their phase of the tick */
void webgw_tick(server_t *s);
void webgw_stop(server_t *s); /* step 1, on the loop (shutdown) */
void webgw_free(server_t *s); /* step 2, after uv_run returned */
/* The account's password changed: its websockets opened with another web
 * session than keep (a token hash; NULL: all) are told and closed, here
 * and at other nodes. */
void webgw_revoke(server_t *s, int64_t user_id, const char *keep_hash);
/* The account's websockets (user_id 0: those from an address the bans
 * refuse) but those logged in as keep (a rename's new name; NULL: none)
 * are told msg and closed; returns how many. */
int webgw_kick(server_t *s, int64_t user_id, const char *msg, const char *keep);
/* A logout: the websockets opened with that web session (a token hash)
 * are told and closed, here and at other nodes; returns how many here. */
int webgw_end_session(server_t *s, const char *hash);
/* A login of the account was made, ended of its sessions deleted past
 * the cap (db_session_create's count): when there were any, its
 * websockets whose sessions are gone close, here at once and at other
 * nodes (an event to the others); a login under the cap, the usual one,
 * tells nobody. An account's logins past the cap within a second (a
 * script logging in again and again) are one event: the first at once,
 * any after it at the next tick (WEBGW_LOGINS_TOLD_MAX accounts a
 * second; past them each is told at once). */
void webgw_login_made(server_t *s, int64_t user_id, int64_t ended);
/* A login's key across nodes (notify.h): the first 60 bits of its
 * session's hash, 0 for none. */
int64_t webgw_login_key(const char *hash);

/* The client's pages served as templates (site.c): a route's arg. */
enum { WEBGW_LOBBY_PAGE, WEBGW_PLAY_PAGE, WEBGW_WATCH_PAGE, WEBGW_TEMPLATES };

typedef struct wsock wsock_t;

typedef struct {
    int64_t game_id;
    uint64_t seq;
} preview_t;

#define WEBGW_LOGINS_TOLD_MAX 64
typedef struct webgw {
    server_t *srv;
    web_t *web;
    list_t socks;        /* every open websocket (wsock_t) */
    list_t lobbies;      /* of them, the lobby's (wsock_t.lnode) */
    uint64_t view_gen;   /* the loops' view_gen summed when viewers were last told */
    bool status_pending; /* a socket was not in its game then: told next round */
    uv_timer_t lobby_timer;
    uv_timer_t size_timer;           /* draws held's changes when their time comes */
    list_t held;                     /* sockets whose size change waits (wsock_t.hnode) */
    bool timer_on;                   /* lobby_timer and size_timer are open */
    buf_t lobby;                     /* the last game list sent */
    preview_t previews[PREVIEW_MAX]; /* the frame each last sent */
    int npreviews;
    int64_t pending[PREVIEW_MAX]; /* games whose preview a round left for later turns */
    int npending;
    uint64_t lobby_msgs;     /* lobby messages written (their shared ids) */
    uv_idle_t previews_idle; /* those, a slice a turn */
    bool previews_on;
    uint64_t previews_turn;         /* the loop turn (turns_now) previews were last encoded in */
    int previews_encoded;           /* how many then */
    char *tpl[WEBGW_TEMPLATES];     /* the client's pages (site.c); NULL when not built */
    buf_t feed;                     /* the lobby's feed as HTML (lobby_page.c) */
    uint64_t feed_ms;               /* when it was read; 0: never */
    struct feed_wait *feed_waiting; /* what waits for the read under way (lobby_page.c) */
    bool feed_reading;              /* a read of the feed is under way */
    uint64_t feed_reads;            /* reads of the feed so far (health) */
    /* Accounts whose logins past the cap other nodes were told of this
     * second (webgw_login_made), and whether another came since (told at
     * the next tick) */
    int64_t logins_told[WEBGW_LOGINS_TOLD_MAX];
    bool logins_due[WEBGW_LOGINS_TOLD_MAX];
    int nlogins_told;
} webgw_t;

/* The route table's handlers (server/routes.c) for the account pages
 * (login.c): ctx is the webgw_t. Each answers with web_reply, now or
 * later, and returns 0. */
int webgw_login(void *ctx, const web_http_t *req);    /* /login */
int webgw_register(void *ctx, const web_http_t *req); /* /register */
int webgw_logout(void *ctx, const web_http_t *req);   /* /logout */
int webgw_password(void *ctx, const web_http_t *req); /* /password */
int webgw_mail(void *ctx, const web_http_t *req);     /* /mail (mail_page.c) */
int webgw_health(void *ctx, const web_http_t *req);   /* /health (health_page.c) */
/* While a drain is under way (drain.h), a login or registration posted is
 * answered 503 with the drain's message: true when it was (health_page.c). */
bool webgw_drain_refuses(webgw_t *g, const web_http_t *req);
/* site.c: the lobby, /play and /watch/NAME from their templates
 * (req->route->arg is a WEBGW_*_PAGE), and /options. */
int webgw_page(void *ctx, const web_http_t *req);
int webgw_options(void *ctx, const web_http_t *req);
/* A plain-text answer. */
void webgw_reply_text(webgw_t *g, uint64_t id, int status, const char *msg);
/* A visitor at an account's page (here, a local path): a GET is sent to
 * log in and back (303), a POST refused (403). */
void webgw_login_first(webgw_t *g, uint64_t id, bool post, const char *here);
int webgw_rc(void *ctx,
             const web_http_t *req); /* /options/ID: a hosted game's rc file (rc_page.c) */

/* ---- the page shell (site.c) ---- */

/* The navigation bar: Lobby, Play, Scores, then for a viewer (an account
 * name) their page, Options and a Log out form; for a visitor (NULL or "")
 * Log in and Register links that come back to here (a local path). */
void webgw_nav(buf_t *b, const char *viewer, const char *here);
/* Everything before a page's content: head, styles, header with the
 * navigation, and <main> (with class main_class when not NULL). */
void webgw_page_open(buf_t *b, const char *title, const char *viewer, const char *here,
                     const char *main_class);
void webgw_page_close(buf_t *b);
/* Any address no other row takes (routes.c, last): 404 with the site's
 * header and a link back to the lobby. */
int webgw_not_found(void *ctx, const web_http_t *req);
/* An /api/ address no other row takes: 404 with a JSON error. */
int webgw_api_not_found(void *ctx, const web_http_t *req);
/* A time as every page shows it: "2026-11-24 11:32 UTC" ("" for 0). */
void webgw_put_time(buf_t *b, int64_t t);
/* Answers with b as text/html, gzipped when the client takes it and it is
 * worth it; b is not freed. */
void webgw_reply_html(webgw_t *g, uint64_t id, int status, buf_t *b, bool gzip);
/* Looks up the account of a session cookie (copied at once) and calls
 * cb(ud, user), user NULL for none, an expired session or a locked
 * account; now when there is no cookie. */
typedef void (*webgw_viewer_cb)(void *ud, const db_user_t *user);
void webgw_viewer(webgw_t *g, const char *cookie, webgw_viewer_cb cb, void *ud);
/* A file of the client's root (at most 1 MB), NUL-terminated; NULL when
 * missing. The caller frees it. */
char *webgw_read_file(const char *root, const char *name);
void webgw_templates_load(webgw_t *g, const char *root);
void webgw_templates_free(webgw_t *g);

/* ---- live games (webgw.c) ---- */

/* One live game as the lobby shows it; strings borrowed for the call. */
typedef struct {
    const char *name, *race, *cls;
    const char *game, *game_name; /* "warren" or a [game ID]; the game's name */
    int depth, watchers, w, h;    /* w, h: 0 while nobody plays it (or not known yet) */
    uint64_t turn, idle_s;
    bool chat;
    bool detached;         /* nobody plays it: its player left it, kept for their return */
    const session_t *sess; /* borrowed for the call */
} webgw_live_t;
/* The lobby and the home page list at most this many live games: the most
 * watched, then the most recently keyed (a list of thousands helps nobody
 * and costs the loop). */
#define WEBGW_LIVE_MAX 100
/* Calls fn for the first max live games in that order; returns how many
 * games are live. */
size_t webgw_each_live(server_t *srv, size_t max, void (*fn)(void *ud, const webgw_live_t *l),
                       void *ud);
/* The account's options changed (users.options text): its open browser
 * games and watch pages draw with them from now on. */
void webgw_options_changed(webgw_t *g, int64_t user_id, const char *options);

/* A cookie token's BLAKE2b-256 hash in hex: what the database keeps. */
void webgw_token_hash(const char *token, char out[65]);
int64_t webgw_unix_now(void);
/* The login (reg: registration) page into b: msg shown when not "", name
 * in its field (NULL: empty), next the page to go to after. */
void webgw_login_form(buf_t *b, bool reg, const char *msg, const char *name, const char *next);
/* The page to go to after a form (the "next" argument) into out: in when it
 * is a local path ("/..." but not "//host", plain URL characters, shorter
 * than cap), else "/". */
void webgw_safe_next(const char *in, char *out, size_t cap);

#endif
