/* html — text made safe for the pages the web gateway and the records
 * serve: for HTML text and attribute values, and for a URL path segment.
 * Pure functions over outside input (a name, a chat line, a cause of
 * death), fuzzed by tests/fuzz/records_query.c. */
#ifndef WARREN_HTML_H
#define WARREN_HTML_H
#include <stddef.h>
#include "buf.h"

/* Appends s (len bytes) escaped for HTML text and attribute values: & < > "
 * ' become entities; control characters other than tab and newline are
 * dropped; each byte that is not part of valid UTF-8 becomes U+FFFD. */
void html_escape(buf_t *out, const char *s, size_t len);
/* Appends s percent-encoded for one URL path segment (safe in HTML too). */
void url_escape(buf_t *out, const char *s);
static inline void html_escape_str(buf_t *out, const char *s)
{
    size_t n = 0;
    while (s && s[n])
        n++;
    html_escape(out, s, n);
}

#endif
