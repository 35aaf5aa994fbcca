/* web_json — the little JSON the web gateway itself reads: it checks that a
 * websocket text message is one well-formed JSON object and picks top-level
 * members out of it. Everything else in a message is the daemon's business.
 * Pure code, no allocation. */
#ifndef WARREN_WEB_JSON_H
#define WARREN_WEB_JSON_H
#include <stdbool.h>
#include <stddef.h>

#define WEB_JSON_DEPTH 16

/* True when s[0..n) is exactly one JSON object (whitespace around allowed),
 * strings are valid UTF-8 and nesting is at most WEB_JSON_DEPTH. */
bool web_json_is_object(const char *s, size_t n);
/* Finds top-level member `key` (compared byte for byte with the raw key) in
 * an object that passed web_json_is_object. Sets the raw value span.
 * Returns 0, or -1 when absent. */
int web_json_member(const char *s, size_t n, const char *key, const char **val, size_t *vlen);
/* Member as a plain string without escapes: true when it equals want. */
bool web_json_str_is(const char *s, size_t n, const char *key, const char *want);
/* Member as an integer in [lo, hi]: returns 0 and sets *out, or -1. */
int web_json_int(const char *s, size_t n, const char *key, long lo, long hi, long *out);
/* Member as a string, unescaped into out as UTF-8 and NUL-terminated
 * (\u escapes included; a lone surrogate becomes U+FFFD). Returns the byte
 * length, or -1 when absent, not a string, or longer than cap - 1. */
int web_json_string(const char *s, size_t n, const char *key, char *out, size_t cap);
/* Member as true/false: returns 0 and sets *out, or -1. */
int web_json_bool(const char *s, size_t n, const char *key, bool *out);

#endif
