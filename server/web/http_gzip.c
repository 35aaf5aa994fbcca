/* http_gzip — gzip of a response body (http_gzip.h). */
#include <limits.h>
#include <zlib.h>
#include "http_gzip.h"

int http_gzip(const void *in, size_t len, buf_t *out)
{
    z_stream z = {0};
    if (len > UINT_MAX / 2 || out->failed)
        return -1;
    /* 15 + 16: a 32 KB window with the gzip header and trailer */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    uLong bound = deflateBound(&z, (uLong)len);
    int zr = Z_MEM_ERROR;
    if (buf_reserve(out, bound)) {
        z.next_in = (Bytef *)(uintptr_t)in;
        z.avail_in = (uInt)len;
        z.next_out = (Bytef *)out->data + out->len;
        z.avail_out = (uInt)bound;
        zr = deflate(&z, Z_FINISH);
    }
    if (zr == Z_STREAM_END) {
        out->len += z.total_out;
        out->data[out->len] = 0; /* as every buf append leaves it */
    } else
        out->failed = false; /* a failed reserve: out is still as it was */
    deflateEnd(&z);
    return zr == Z_STREAM_END ? 0 : -1;
}
