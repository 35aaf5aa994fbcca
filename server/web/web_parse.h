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
