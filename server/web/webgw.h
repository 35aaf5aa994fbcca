/* webgw — internals shared by the files of the daemon's web glue:
 * webgw.c (websockets, viewers, chat, lobby), login.c (the HTML pages: log
 * in, register, log out), routes.c (every URL) and the records pages
 * (records/pages.c). The daemon itself only sees the webgw_* calls in
 * server.h. Loop thread only. */
#ifndef WARREN_WEBGW_H
#define WARREN_WEBGW_H
#include <stdint.h>
#include "buf.h"
#include "log.h"
#include "server.h"
#include "web.h"

#define PREVIEW_MAX 24 /* games with a live preview in the lobby */

typedef struct wsock wsock_t;

typedef struct {
    int64_t game_id;
    uint64_t seq;
} preview_t;

typedef struct webgw {
    server_t *srv;
    web_t *web;
    list_t socks; /* every open websocket (wsock_t) */
    uv_timer_t lobby_timer;
    bool timer_on;
    buf_t lobby; /* the last game list sent */
    preview_t previews[PREVIEW_MAX];
    int npreviews;
    log_every_t refused_log; /* throttled and busy logins (login.c) */
} webgw_t;

/* The route table's handlers (web/routes.c) for the account pages
 * (login.c): ctx is the webgw_t. Each answers with web_reply, now or
 * later, and returns 0. */
int webgw_login(void *ctx, const web_http_t *req);    /* /login */
int webgw_register(void *ctx, const web_http_t *req); /* /register */
int webgw_logout(void *ctx, const web_http_t *req);   /* /logout */
int webgw_password(void *ctx, const web_http_t *req); /* /password */

/* A cookie token's BLAKE2b-256 hash in hex: what the database keeps. */
void webgw_token_hash(const char *token, char out[65]);
int64_t webgw_unix_now(void);
/* Appends s with &<>"' escaped for HTML text and attribute values. */
void webgw_html_escape(buf_t *b, const char *s);
/* The page to go to after a form (the "next" argument) into out: in when it
 * is a local path ("/..." but not "//host", plain URL characters, shorter
 * than cap), else "/". */
void webgw_safe_next(const char *in, char *out, size_t cap);

#endif
