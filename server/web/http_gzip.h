/* http_gzip — gzip (RFC 1952) of an HTTP response body, for clients that
 * send Accept-Encoding: gzip (web_http_t.gzip). Pure and thread-safe: big
 * bodies (replays) are compressed on the thread pool where they are built;
 * the loop only compresses bodies up to HTTP_GZIP_LOOP_MAX.
 *
 * A body too big to hold whole is gzipped as it is made (http_gzw_t: each
 * piece deflated into the output at once, so only the gzip is kept) and,
 * for a client that does not take gzip, inflated again in pieces as the
 * client reads (http_gunz_t), so no request holds the whole body. */
#ifndef WARREN_HTTP_GZIP_H
#define WARREN_HTTP_GZIP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>
#include "buf.h"

#define HTTP_GZIP_MIN      1024       /* smaller bodies are sent as they are */
#define HTTP_GZIP_LOOP_MAX (64 << 10) /* the most the loop thread compresses (about 1 ms) */

/* Appends the gzip of in[0..len) to out (http_gzw_t in one go). Returns 0,
 * or -1 (out of memory) with out as it was. */
int http_gzip(const void *in, size_t len, buf_t *out);

/* A gzip being written: open, put the body in pieces, finish; close frees
 * zlib's state whatever happened (after finish too). out is borrowed. */
typedef struct {
    z_stream z;
    buf_t *out;
    uint64_t in; /* body bytes taken */
    bool open;
} http_gzw_t;

int http_gzw_open(http_gzw_t *w, buf_t *out); /* 0, or -1 out of memory */
/* Deflates p[0..n) onto out: 0, or -1 (out of memory). */
int http_gzw_put(http_gzw_t *w, const void *p, size_t n);
/* Ends the stream (the gzip trailer): 0, or -1. */
int http_gzw_finish(http_gzw_t *w);
void http_gzw_close(http_gzw_t *w);

/* A gzip read back in pieces; gz is borrowed until close. */
typedef struct {
    z_stream z;
    bool open, done;
} http_gunz_t;

int http_gunz_open(http_gunz_t *r, const void *gz, size_t len); /* 0, or -1 */
/* The next bytes of the body, at most cap, into dst: how many (0 only at
 * the end), or -1 when the gzip is bad or cut short. */
ssize_t http_gunz_read(http_gunz_t *r, void *dst, size_t cap);
void http_gunz_close(http_gunz_t *r);

#endif
