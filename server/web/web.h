/* web — warrend's HTTP and websocket gateway (libwebsockets on the daemon's
 * libuv loop). It serves the built browser client (client-web/dist) and carries
 * terminal streams over websockets. It knows nothing of games, sessions or
 * accounts: the daemon fills a web_hooks_t, decides what a connection is,
 * and passes the route table (web_route_t) that says what each URL is.
 *
 * URLs: a request is matched against the route table, first row first; a
 * path no row takes gets 404 (a method other than GET, HEAD or POST 405).
 * warrend's table is server/routes.c. Parameters are checked by the pattern
 * before any hook runs, so a {name} is always 1-32 of [A-Za-z0-9_-].
 * HEAD is answered like GET without the body. A websocket whose Origin
 * header does not match its Host is refused; so is a POST (403) whose
 * Origin, or without one whose Referer, names another site.
 *
 * Connections: the door (web_door.h) accepts them, charges them to the
 * budget and checks each request's head (431, 400) before libwebsockets
 * reads it; every HTTP answer closes its connection ("connection: close"),
 * so every request passes the door. Over the budget: 503, or a websocket
 * closed with 1013 "try again later".
 *
 * Websocket messages (one message = one unit, both directions)
 *   client -> server, binary   terminal input bytes (what xterm.js emits);
 *                              given to on_input as they are
 *   client -> server, text     one JSON object with a string field "t":
 *                                {"t":"resize","w":W,"h":H} -> on_resize
 *                              any other "t" goes whole to on_message (the
 *                              daemon parses it: keys_from_json, chat, ...).
 *                              Text that is not a JSON object with "t" closes
 *                              the socket with 1007 (invalid payload).
 *   server -> client, binary   ANSI frame bytes (web_send, text = false)
 *   server -> client, text     JSON messages (web_send, text = true), e.g.
 *                              {"t":"lobby",...}, {"t":"status",...}
 *   A message larger than web_config_t.msg_max closes with 1009.
 *
 * Threading: everything (hooks included) runs on the loop thread. */
#ifndef WARREN_WEB_H
#define WARREN_WEB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

typedef struct web web_t;
typedef struct web_conn web_conn_t; /* one websocket; owned by web */

typedef enum { WEB_LOBBY = 1, WEB_PLAY = 2, WEB_WATCH = 3 } web_kind_t;

#define WEB_COOKIE_NAME "warren_session"
#define WEB_NAME_MAX    32
#define WEB_WHO_MAX     (2 * WEB_NAME_MAX + 1)

typedef struct web_http web_http_t;

/* What a route answers (web_route_t.methods, any of them). */
#define WEB_GET  1u
#define WEB_HEAD 2u
#define WEB_POST 4u
#define WEB_WS   8u /* a websocket upgrade */

/* One URL of the site: a row of the route table. pattern is a path with at
 * most one parameter:
 *   {name}   1..WEB_NAME_MAX of [A-Za-z0-9_-]
 *   {who}    a {name}, or two joined by '/' (a player and a game:
 *            WEB_WHO_MAX bytes at most)
 *   {id}     a decimal id: 1-15 digits, no leading zero
 *   {file}   an asset's name (web_file_ok): a plain file, no folders
 *   *        the rest of the path, whatever it is (last in the pattern)
 * A row does one of three things:
 *   file     a file of the client's root, for GET and HEAD; a file ending in
 *            '/' is a folder and the parameter names the file in it
 *   WEB_WS   a websocket of kind arg (web_kind_t); on_open takes it or not
 *   handler  a dynamic request (GET, POST): handler(ctx, req) answers with
 *            web_reply, now or later, and returns 0; -1 means 404 */
typedef struct web_route {
    unsigned methods;
    const char *pattern;
    const char *file;
    bool immutable; /* file: the names carry a content hash, cache for good */
    int (*handler)(void *ctx, const web_http_t *req);
    int arg; /* WEB_WS: the web_kind_t; a handler's own (req->route->arg) */
} web_route_t;

typedef struct {
    const char *listen;        /* "ADDR:PORT", "[V6]:PORT"; "" or NULL = do not serve */
    int backlog;               /* listen() backlog (0 = the listener's default) */
    const char *root;          /* directory of the built client; NULL = web_default_root() */
    size_t outq_max;           /* bytes queued per websocket before web_send refuses
                             (0 = 262144) */
    size_t msg_max;            /* largest websocket message accepted (0 = 65536) */
    const web_route_t *routes; /* every URL served; borrowed for the gateway's life */
    size_t nroutes;
    /* Limits (web_door.h). budget: the connection budget every socket is
     * charged to (borrowed; NULL = none). trust_proxy: comma-separated
     * addresses of proxies whose X-Forwarded-For (the client) and
     * X-Forwarded-Proto (https) are believed; NULL or "" = none. */
    struct budget *budget;
    struct addrrate *pace; /* requests a second per client (addrrate.h): over it 429, or a
                              websocket closed with 1013; borrowed, NULL = no limit */
    struct logcap *cap;    /* the log's cap on lines others can make (logcap.h); NULL = none */
    const char *trust_proxy;
    /* proxy-from (proxywait.h): networks of balancers whose sockets start
     * with a PROXY header naming the client; NULL or "" = none. */
    const char *proxy_from;
    int ipv6_prefix; /* IPv6 bits per-address limits count as one address (addrkey.h);
                        0 = ADDRKEY_V6_DEFAULT */
} web_config_t;

/* Info about a websocket as it opens; pointers valid during on_open only. */
typedef struct {
    web_kind_t kind;
    const char *name;   /* the route's parameter: WEB_WATCH's "NAME" or "NAME/GAME" */
    const char *cookie; /* value of the WEB_COOKIE_NAME cookie, "" when none */
    const char *ip;     /* the client's address (logs, bans, the admin's views) */
    const char *key;    /* what its per-address limits charge (addrkey.h) */
    int w, h; /* the size its address asks for (?w=COLS&h=ROWS), 1..1000 each; 0 when none */
} web_open_t;

/* A dynamic HTTP request (a handler row's, GET or POST). Pointers are
 * valid during the handler only. */
#define WEB_ARGS_MAX 16
#define WEB_BODY_MAX 16384 /* larger POST bodies get 413 before any hook */
struct web_http {
    uint64_t id; /* pass to web_reply, now or later */
    bool post;
    const web_route_t *route;       /* the row that took it */
    const char *param;              /* the pattern's parameter, "" when none */
    const char *path;               /* decoded, e.g. "/scores" */
    const char *args[WEB_ARGS_MAX]; /* query arguments, decoded "name=value" */
    int nargs;
    const char *cookie;  /* value of the WEB_COOKIE_NAME cookie, "" when none */
    const char *referer; /* the path (and query) of the page on this site that
                            sent the request (its Referer), "" when none */
    const char *ip;      /* the client (from a trusted proxy: X-Forwarded-For) */
    const char *key;     /* what its per-address limits charge (addrkey.h) */
    bool https;          /* a trusted proxy says it came over https */
    const char *body;    /* POST body as sent (form-urlencoded), NUL-terminated */
    size_t body_len;
    bool gzip; /* Accept-Encoding takes gzip (web_accepts_gzip): the
                             reply may carry content-encoding: gzip */
};

/* Filled by the daemon; every hook is optional (NULL). ctx is passed back. */
typedef struct {
    void *ctx;
    /* A websocket opened. Return 0 to accept, negative to refuse (the socket
     * is closed with 1008 policy violation and on_close is NOT called).
     * Keep your own state with web_conn_set_user. Without this hook every
     * websocket is refused. */
    int (*on_open)(void *ctx, web_conn_t *wc, const web_open_t *info);
    /* Before an upgrade is answered: 0 to let it open, or the HTTP status
     * that refuses it (404: the name is of nothing the daemon has). name is
     * the row's parameter, as web_open_t's. */
    int (*on_upgrade)(void *ctx, web_kind_t kind, const char *name);
    void (*on_input)(void *ctx, web_conn_t *wc, const uint8_t *bytes, size_t len);
    void (*on_resize)(void *ctx, web_conn_t *wc, int w, int h); /* 1..1000 each */
    /* json is a checked JSON object, NUL-terminated at json[len]. */
    void (*on_message)(void *ctx, web_conn_t *wc, const char *json, size_t len);
    /* The queue emptied after web_send refused something: send a keyframe. */
    void (*on_drained)(void *ctx, web_conn_t *wc);
    /* The websocket is gone; wc is invalid after this returns. */
    void (*on_close)(void *ctx, web_conn_t *wc);
} web_hooks_t;

/* Starts serving on loop. Returns NULL with a message in err when the
 * address is bad, the port is busy or the root has no index.html. hooks is
 * copied. When cfg->listen is empty, returns NULL with err = "". */
web_t *web_start(uv_loop_t *loop, const web_config_t *cfg, const web_hooks_t *hooks, char *err,
                 size_t errlen);
/* Step 1 of teardown, on the loop: stops listening and closes every
 * websocket with 1001 "server shutting down" (on_close is called for each).
 * Let uv_run return, then call web_free. */
void web_stop(web_t *w);
/* Step 2, after uv_run has returned: frees everything. NULL is fine. */
void web_free(web_t *w);

/* Port actually listened on (useful with port 0). */
int web_port(const web_t *w);

/* Queues one message. Returns 0, or -1 when the connection's queue would
 * pass outq_max (nothing queued; on_drained follows once it empties) or the
 * connection is closing. data is copied. */
int web_send(web_conn_t *wc, const void *data, size_t len, bool text);
/* Like web_send, but the message is written on a later loop turn, a
 * slice of connections per turn (at most about 100 us of writes), so
 * fanning one frame out to many watchers never holds up input (a
 * player's next key) for long. Messages of a connection
 * keep their order across web_send and web_send_later. */
int web_send_later(web_conn_t *wc, const void *data, size_t len, bool text);
/* Like web_send_later for bytes many connections are sent (a frame's
 * shared encoding): id (not 0) names them, the same id the same bytes, and
 * they are copied once for all the connections that queue them while they
 * are among the latest few ids. 0: web_send_later. */
int web_send_shared(web_conn_t *wc, const void *data, size_t len, bool text, uint64_t id);
/* Answers dynamic request id. headers is NULL or a NULL-terminated list of
 * name/value pairs, names ending with ':' ("set-cookie:", "v", NULL). body
 * is copied. The security headers are always added; cache-control defaults
 * to no-store. Returns 0, or -1 when the client has gone or id was answered. */
int web_reply(web_t *w, uint64_t id, int status, const char *content_type,
              const char *const *headers, const void *body, size_t len);
/* A body handed over in pieces as the client takes it (web_reply_source),
 * so a big one is never copied whole: read writes the next bytes, at most
 * cap, at dst and returns how many (0 only once the body is over; -1
 * cuts the answer off). close comes once, on the loop, when the answer is
 * done or can no longer be (the client gone, the gateway freed). */
typedef struct {
    ssize_t (*read)(void *ud, void *dst, size_t cap);
    void (*close)(void *ud);
} web_source_t;
/* Answers id as web_reply does with a body of len bytes read from src
 * (borrowed: a static table) with ud. Returns 0 (ud is the request's now:
 * close follows), or -1 when the client has gone or id was answered (ud
 * stays the caller's, close is not called). */
int web_reply_source(web_t *w, uint64_t id, int status, const char *content_type,
                     const char *const *headers, uint64_t len, const web_source_t *src, void *ud);
/* Whether request id still waits for its answer: false once it was
 * answered or its client has gone (closed its side or reset: looked at
 * on the socket at once, before libwebsockets notices). */
bool web_pending(const web_t *w, uint64_t id);
/* Finds name in a form-urlencoded body (or a query "name=value" list joined
 * by '&') and URL-decodes its value into out. Returns the length, or -1 when
 * absent or longer than outlen - 1. */
int web_form_get(const char *form, size_t len, const char *name, char *out, size_t outlen);

/* The caller skipped a message because wc's queue is full (it asked
 * web_queued): on_drained is owed once the queue empties, as after a
 * refused send, so the caller can then catch up (a keyframe). */
void web_owe_drained(web_conn_t *wc);
/* Bytes queued and not yet written. */
size_t web_queued(const web_conn_t *wc);
/* Closes with a websocket close code (1000 normal, 1008 policy, ...) and a
 * short reason. Queued messages are sent first. on_close follows. */
void web_close(web_conn_t *wc, int code, const char *reason);
/* Stops reading wc's messages (stop; lws keeps what it read, the kernel
 * the rest) or starts again. */
void web_conn_pause(web_conn_t *wc, bool stop);
void web_conn_set_user(web_conn_t *wc, void *user);
void *web_conn_user(const web_conn_t *wc);
web_kind_t web_conn_kind(const web_conn_t *wc); /* tests/tools/web_harness asks it */

/* Where the built client is looked for when cfg->root is NULL: $WARREN_WEB_ROOT,
 * else client-web/dist two or three levels above the binary (bin/warrend,
 * bin/asan/warrend), else
 * ./client-web/dist. Writes into out; returns out. */
char *web_default_root(char *out, size_t outlen);

#endif
