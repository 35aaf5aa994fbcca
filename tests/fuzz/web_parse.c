/* Fuzz target: the web gateway's readers of request text
 * (server/web/web_parse.c): request and websocket paths against warrend's
 * route table (server/web/routes.c), the session cookie, the
 * X-Forwarded-For address and the client behind trusted proxies,
 * X-Forwarded-Proto, Origin and Referer against Host, Accept-Encoding, the
 * head of a request as the door judges it, and form fields; and the web
 * pages' "next" redirect check and HTML escaping (server/web/login.c).
 * The input is one text; each reader gets it whole (and Origin/Host split
 * at the first newline). What comes out must be safe to use: a route names
 * only a plain file under the root, a watch name and a cookie are plain
 * tokens, form values fit their buffers, a redirect stays on this site,
 * escaped text holds no markup, a client address is the peer or a real
 * address, a head's verdict fits what was given. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "routes.h"
#include "web_parse.h"
#include "webgw.h"

#define TOKEN_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

/* Every row warrend's table gives a path: a file row names a plain file
 * under the root, a websocket row a known kind with a plain name, and the
 * parameter is what the pattern allows. */
static void check_routes(const char *path)
{
    static const unsigned methods[] = {WEB_GET, WEB_HEAD, WEB_POST, WEB_WS};
    char param[256];
    /* an upgrade is refused with 400 or 404 exactly when no row takes it */
    unsigned refusal = web_ws_refusal(WEB_ROUTES, WEB_NROUTES, path);
    bool ws = web_route_find(WEB_ROUTES, WEB_NROUTES, WEB_WS, path, param, sizeof param) != NULL;
    if ((refusal != 0 && refusal != 400 && refusal != 404) || ws != (refusal == 0))
        abort();
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        const web_route_t *r =
            web_route_find(WEB_ROUTES, WEB_NROUTES, methods[i], path, param, sizeof param);
        if (!r)
            continue;
        if (!(r->methods & methods[i]) || strlen(param) >= sizeof param)
            abort();
        if (r->file && strchr(r->file, '/') &&
            (!web_file_ok(param, strlen(param)) || strchr(param, '/') || strstr(param, "..")))
            abort();
        if (methods[i] == WEB_WS) {
            if (r->arg != WEB_LOBBY && r->arg != WEB_PLAY && r->arg != WEB_WATCH)
                abort();
            /* watch names a player (and may name their game: NAME/GAME), play
             * may name a hosted game, the lobby nothing */
            const char *game = r->arg == WEB_WATCH ? strchr(param, '/') : NULL;
            size_t who = game ? (size_t)(game - param) : strlen(param);
            if ((r->arg == WEB_WATCH && !who) || (r->arg == WEB_LOBBY && param[0]) ||
                strspn(param, TOKEN_CHARS) != who ||
                (game && (!game[1] || strspn(game + 1, TOKEN_CHARS) != strlen(game + 1))))
                abort();
        }
    }
}

static void check_headers(const char *text)
{
    char cookie[160];
    web_cookie_find(text, cookie, sizeof cookie);
    if (strspn(cookie, TOKEN_CHARS) != strlen(cookie))
        abort();
    const char *nl = strchr(text, '\n');
    if (nl) { /* Host before the newline, Origin or Referer after */
        (void)web_origin_matches(nl + 1, text);
        (void)web_referer_matches(nl + 1, text);
        /* the Referer's path (login's way back): this site's, or none */
        char path[64];
        web_referer_path(nl + 1, text, path, sizeof path);
        if (path[0] && (path[0] != '/' || strchr(path, '#') || !web_referer_matches(nl + 1, text)))
            abort();
    }
    (void)web_forwarded_https(text);
    /* the client is the peer, or an address in canonical form */
    char client[64], canon[64];
    bool believed = web_client_addr("127.0.0.1", text, "127.0.0.1,::1", client, sizeof client);
    if (!believed ? strcmp(client, "127.0.0.1") != 0
                  : !web_addr_canon(client, strlen(client), canon, sizeof canon) ||
                        strcmp(client, canon) != 0)
        abort();
    if (web_client_addr("192.0.2.1", text, "127.0.0.1", client, sizeof client))
        abort(); /* an untrusted peer is never looked past */
    /* gzip is only ever taken when the header names it or "*" */
    if (web_accepts_gzip(text) && !strcasestr(text, "gzip") && !strchr(text, '*'))
        abort();
}

/* A complete head is never longer than what was given, nor the limit. */
static void check_head(const char *text, size_t len)
{
    int v = web_head_check(text, len);
    if (v > (int)len || v > WEB_HEAD_MAX ||
        (v != WEB_HEAD_MORE && v != WEB_HEAD_BAD && v != WEB_HEAD_TOO_LARGE && v <= 0))
        abort();
    /* the body a whole head announces: fine or one of the door's refusals */
    int body = v > 0 ? web_head_body(text, (size_t)v) : 0;
    if (body != 0 && body != WEB_HEAD_BAD && body != WEB_HEAD_NO_LENGTH &&
        body != WEB_HEAD_BODY_LARGE)
        abort();
    /* the door asks a head whether it is an upgrade: never past its bytes */
    (void)web_head_upgrade(text, v > 0 ? (size_t)v : len);
    /* the door's X-Forwarded-For: within its buffer, ended, no longer than the head */
    char xff[512];
    if (web_head_field(text, v > 0 ? (size_t)v : len, "x-forwarded-for:", xff, sizeof xff) &&
        (strnlen(xff, sizeof xff) >= sizeof xff || strlen(xff) > len))
        abort();
}

static void check_form(const char *form, size_t len)
{
    static const char *const names[] = {"name", "password", "t", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char out[64];
        int n = web_form_get(form, len, names[i], out, sizeof out);
        if (n < -1 || n >= (int)sizeof out || (n >= 0 && out[n] != 0))
            abort();
        char tiny[1];
        if (web_form_get(form, len, names[i], tiny, sizeof tiny) > 0)
            abort();
    }
}

static void check_pages(const char *text)
{
    char next[128];
    webgw_safe_next(text, next, sizeof next);
    if (next[0] != '/' || next[1] == '/' || next[1] == '\\' || strlen(next) >= sizeof next ||
        strspn(next, TOKEN_CHARS "/.?=&%") != strlen(next))
        abort();
    buf_t b;
    buf_init(&b);
    html_escape_str(&b, text);
    for (size_t i = 0; i < b.len; i++) {
        if (strchr("<>\"'", b.data[i]))
            abort();
        if (b.data[i] == '&' && strncmp(b.data + i, "&amp;", 5) && strncmp(b.data + i, "&lt;", 4) &&
            strncmp(b.data + i, "&gt;", 4) && strncmp(b.data + i, "&quot;", 6) &&
            strncmp(b.data + i, "&#39;", 5))
            abort();
    }
    buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    check_routes(text);
    check_headers(text);
    check_form(text, size);
    check_head((const char *)data, size);
    check_pages(text);
    (void)web_name_ok(text, strlen(text));
    free(text);
    return 0;
}
