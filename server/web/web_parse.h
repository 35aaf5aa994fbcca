/* web_parse — the web gateway's readers of request text: paths, names,
 * cookies, forwarded addresses, Origin, form fields. Pure functions (no
 * lws), so web.c's handling of outside input is unit tested and fuzzed
 * (tests/fuzz/web_parse.c). Inputs are NUL-terminated unless a length is
 * given; outputs always are. */
#ifndef WARREN_WEB_PARSE_H
#define WARREN_WEB_PARSE_H
#include <stdbool.h>
#include <stddef.h>
#include "web.h"

/* A player name in a URL: 1..WEB_NAME_MAX of [A-Za-z0-9_-]. */
/* Copies src into dst (cap > 0 bytes), cut to fit and NUL-terminated
 * (snprintf's truncation warnings are errors in this build). */
void web_copy_str(char *dst, size_t cap, const char *src);
bool web_name_ok(const char *s, size_t n);
/* A websocket path: /ws/lobby, /ws/play or /ws/watch/NAME. Returns 0 with
 * the kind, and the name in name for WEB_WATCH ("" otherwise; namelen >
 * WEB_NAME_MAX), or -1. */
int web_ws_route(const char *path, web_kind_t *kind, char *name, size_t namelen);
/* Maps a request path to a file under the client's root and whether it may
 * be cached for good. Only known routes and plain asset names map: no "..",
 * no dot files, no subfolders, so nothing outside root can be named.
 * Returns 0 or -1. */
int web_http_route(const char *path, char *rel, size_t rellen, bool *immutable);
/* Origin "scheme://host[:port]" names host exactly. */
bool web_origin_matches(const char *origin, const char *host);
/* The WEB_COOKIE_NAME value from a Cookie header into out ("" when absent,
 * too long or not a plain [A-Za-z0-9_-] token). */
void web_cookie_find(const char *hdr, char *out, size_t outlen);
/* The last address of an X-Forwarded-For list (the one our proxy added),
 * leading spaces dropped, truncated to outlen - 1 bytes. */
void web_forwarded_for(const char *xff, char *out, size_t outlen);
/* An Accept-Encoding header says the client takes gzip: "gzip" (or
 * "x-gzip") is listed with a q-value above 0, or it is not listed and "*"
 * is, with a q-value above 0. Names ignore case; NULL is false. */
bool web_accepts_gzip(const char *hdr);
/* web_form_get (declared in web.h) is here too. */

#endif
