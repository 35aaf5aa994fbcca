/* web_parse — the web gateway's readers of request text: paths against
 * the route table, names, cookies, forwarded addresses, Origin, form fields. Pure functions (no
 * lws), so web.c's handling of outside input is unit tested and fuzzed
 * (tests/fuzz/web_parse.c). Inputs are NUL-terminated unless a length is
 * given; outputs always are. */
#ifndef WARREN_WEB_PARSE_H
#define WARREN_WEB_PARSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "web.h"

/* A player name in a URL: 1..WEB_NAME_MAX of [A-Za-z0-9_-]. */
/* Copies src into dst (cap > 0 bytes), cut to fit and NUL-terminated
 * (snprintf's truncation warnings are errors in this build). */
void web_copy_str(char *dst, size_t cap, const char *src);
bool web_name_ok(const char *s, size_t n);
/* A decimal id of 1..15 digits, no sign, no leading zero: n bytes of s
 * into *id. */
bool web_parse_id(const char *s, size_t n, int64_t *id);
/* An asset's file name: 1..100 of [A-Za-z0-9._-], not starting with '.',
 * no "..": it can only name a plain file in one folder. */
bool web_file_ok(const char *s, size_t n);
/* path matches pattern (web_route_t, web.h); the parameter's text, cut to
 * cap - 1 bytes, goes to param ("" when the pattern has none). */
bool web_route_match(const char *pattern, const char *path, char *param, size_t cap);
/* The first row of routes[0..n) that answers method (one WEB_* bit) on
 * path, with its parameter in param; NULL when none does. */
const web_route_t *web_route_find(const web_route_t *routes, size_t n, unsigned method,
                                  const char *path, char *param, size_t cap);
/* Origin "scheme://host[:port]" names host exactly. */
/* The HTTP status that refuses a websocket upgrade to path: 0 when a
 * WEB_WS row of routes[0..n) takes it, 404 when the path is well formed
 * (segments of web_name_ok's characters) but none does, 400 when not. */
unsigned web_ws_refusal(const web_route_t *routes, size_t n, const char *path);
bool web_origin_matches(const char *origin, const char *host);
/* The WEB_COOKIE_NAME value from a Cookie header into out ("" when absent,
 * too long or not a plain [A-Za-z0-9_-] token). */
void web_cookie_find(const char *hdr, char *out, size_t outlen);
/* An IPv4 or IPv6 address in its canonical text (an IPv4 address mapped
 * into IPv6 as IPv4) into out; false when s is not an address. */
bool web_addr_canon(const char *s, size_t n, char *out, size_t outlen);
/* addr is one of a comma-separated list of addresses (compared as
 * addresses, not as text). */
bool web_addr_listed(const char *addr, const char *list);
/* The client of a request: peer itself, unless peer is a trusted proxy
 * (listed in trusted); then the rightmost X-Forwarded-For address that is
 * not itself trusted (xff may be NULL; a list of only trusted addresses
 * gives the leftmost; an entry that is not an address, or none, gives
 * peer). Returns whether a forwarded address was believed. */
bool web_client_addr(const char *peer, const char *xff, const char *trusted, char *out,
                     size_t outlen);
/* X-Forwarded-Proto says https (its rightmost value, ignoring case). */
bool web_forwarded_https(const char *proto);
/* A Referer's "scheme://host[:port]" names host exactly. */
bool web_referer_matches(const char *referer, const char *host);
/* When the Referer names host: its path and query (no fragment) into out;
 * else, or when that is longer than cap - 1 bytes, out is "". */
void web_referer_path(const char *referer, const char *host, char *out, size_t cap);

/* The head of a request (the request line and header fields, up to the
 * blank line), checked before libwebsockets sees it. */
#define WEB_HEAD_MAX       8192 /* bytes, the blank line included */
/* header field lines and the target's query parameters together:
 * libwebsockets 4.1 holds 93 of them (the path among them) and drops a
 * request with more without an answer */
#define WEB_HEAD_FIELDS    90
#define WEB_HEAD_MORE      0      /* not complete yet */
#define WEB_HEAD_TOO_LARGE (-431) /* too many bytes or too many fields */
/* a folded line (obs-fold), a NUL, a field without ':', a '%' in the
 * target not followed by two hex digits or followed by 00 */
#define WEB_HEAD_BAD       (-400)
/* len bytes read so far of a connection: the head's length when it is
 * complete and well formed, else WEB_HEAD_MORE, _TOO_LARGE or _BAD (a
 * verdict that no further bytes could change). */
int web_head_check(const char *buf, size_t len);
/* The body the len bytes of a head (web_head_check's length) announce,
 * as far as libwebsockets 4.1 can take it (it drops the others without an
 * answer): 0 when fine (a Content-Length of at most WEB_BODY_MAX, or
 * none), else the status that refuses it: WEB_HEAD_NO_LENGTH for a
 * Transfer-Encoding (chunked bodies are not read), WEB_HEAD_BAD for a
 * Content-Length that is no number or given twice differently,
 * WEB_HEAD_BODY_LARGE for one over WEB_BODY_MAX. */
#define WEB_HEAD_NO_LENGTH  (-411)
#define WEB_HEAD_BODY_LARGE (-413)
int web_head_body(const char *buf, size_t len);
/* The len bytes of a head (web_head_check's length) ask for a websocket:
 * an Upgrade field lists "websocket" (case ignored). Reads no further. */
bool web_head_upgrade(const char *buf, size_t len);
/* The values of every field called name (with its colon: "x-forwarded-for:",
 * case ignored) of the len bytes of a head, joined with ',' as
 * libwebsockets joins them, blanks around each dropped, into out. False
 * when there is none, or they do not fit in cap - 1 bytes (out is then
 * not to be used). */
bool web_head_field(const char *buf, size_t len, const char *name, char *out, size_t cap);
/* An Accept-Encoding header says the client takes gzip: "gzip" (or
 * "x-gzip") is listed with a q-value above 0, or it is not listed and "*"
 * is, with a q-value above 0. Names ignore case; NULL is false. */
bool web_accepts_gzip(const char *hdr);
/* web_form_get (declared in web.h) is here too. */

#endif
