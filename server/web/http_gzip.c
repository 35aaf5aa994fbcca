/* http_gzip — gzip of a response body (http_gzip.h). */
#include <limits.h>
#include "http_gzip.h"

/* 15 + 16: a 32 KB window with the gzip header and trailer */
#define GZIP_WBITS (15 + 16)

/* ---- written in pieces ------------------------------------------------------------- */

int http_gzw_open(http_gzw_t *w, buf_t *out)
{
    *w = (http_gzw_t){.out = out};
    if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WBITS, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return -1;
    w->open = true;
    return 0;
}

/* Runs deflate with flush until it has taken all its input (and, with
 * Z_FINISH, written the trailer), growing out as it needs. */
static int gzw_run(http_gzw_t *w, int flush)
{
    for (;;) {
        if (!buf_reserve(w->out, 16384))
            return -1;
        w->z.next_out = (Bytef *)w->out->data + w->out->len;
        w->z.avail_out = (uInt)(w->out->cap - w->out->len - 1); /* buf keeps a NUL's room */
        uInt room = w->z.avail_out;
        int zr = deflate(&w->z, flush);
        w->out->len += room - w->z.avail_out;
        w->out->data[w->out->len] = 0;
        if (zr == Z_STREAM_END || (flush == Z_NO_FLUSH && w->z.avail_in == 0))
            return 0;
        if (zr != Z_OK && zr != Z_BUF_ERROR)
            return -1;
    }
}

int http_gzw_put(http_gzw_t *w, const void *p, size_t n)
{
    if (!w->open || w->out->failed)
        return -1;
    const unsigned char *s = p;
    while (n) { /* avail_in is 32 bits */
        uInt k = n > UINT_MAX / 2 ? UINT_MAX / 2 : (uInt)n;
        w->z.next_in = (Bytef *)(uintptr_t)s;
        w->z.avail_in = k;
        if (gzw_run(w, Z_NO_FLUSH))
            return -1;
        s += k;
        n -= k;
        w->in += k;
    }
    return 0;
}

int http_gzw_finish(http_gzw_t *w)
{
    if (!w->open || w->out->failed)
        return -1;
    w->z.next_in = NULL;
    w->z.avail_in = 0;
    return gzw_run(w, Z_FINISH);
}

void http_gzw_close(http_gzw_t *w)
{
    if (w->open)
        deflateEnd(&w->z);
    w->open = false;
}

int http_gzip(const void *in, size_t len, buf_t *out)
{
    size_t was = out->len;
    http_gzw_t w;
    if (out->failed || http_gzw_open(&w, out))
        return -1;
    int ret = http_gzw_put(&w, in, len) || http_gzw_finish(&w) ? -1 : 0;
    http_gzw_close(&w);
    if (ret) { /* out as it was */
        out->failed = false;
        out->len = was;
        if (out->data)
            out->data[was] = 0;
    }
    return ret;
}

/* ---- read back in pieces ----------------------------------------------------------- */

int http_gunz_open(http_gunz_t *r, const void *gz, size_t len)
{
    *r = (http_gunz_t){0};
    if (len > UINT_MAX || inflateInit2(&r->z, GZIP_WBITS) != Z_OK)
        return -1;
    r->z.next_in = (Bytef *)(uintptr_t)gz;
    r->z.avail_in = (uInt)len;
    r->open = true;
    return 0;
}

ssize_t http_gunz_read(http_gunz_t *r, void *dst, size_t cap)
{
    if (!r->open)
        return -1;
    r->z.next_out = dst;
    r->z.avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
    uInt room = r->z.avail_out;
    /* a call may only take the header in: go on until bytes come out */
    while (!r->done && room && r->z.avail_out == room) {
        int zr = inflate(&r->z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END)
            r->done = true;
        else if (zr != Z_OK)
            return -1; /* bad, or cut short (Z_BUF_ERROR: no input left) */
    }
    return (ssize_t)(room - r->z.avail_out);
}

void http_gunz_close(http_gunz_t *r)
{
    if (r->open)
        inflateEnd(&r->z);
    r->open = false;
}
