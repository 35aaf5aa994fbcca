/* http_gzip — gzip (RFC 1952) of an HTTP response body, for clients that
 * send Accept-Encoding: gzip (web_http_t.gzip). Pure and thread-safe: big
 * bodies (replays) are compressed on the thread pool where they are built;
 * the loop only compresses bodies up to HTTP_GZIP_LOOP_MAX. */
#ifndef WARREN_HTTP_GZIP_H
#define WARREN_HTTP_GZIP_H
#include <stddef.h>
#include "buf.h"

#define HTTP_GZIP_MIN      1024       /* smaller bodies are sent as they are */
#define HTTP_GZIP_LOOP_MAX (64 << 10) /* the most the loop thread compresses (about 1 ms) */

/* Appends the gzip of in[0..len) to out. Returns 0, or -1 (out of memory or
 * a body over 4 GB) with out as it was. */
int http_gzip(const void *in, size_t len, buf_t *out);

#endif
