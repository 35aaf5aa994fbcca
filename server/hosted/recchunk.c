/* recchunk — a hosted game's recording in chunks (recchunk.h). */
#include "recchunk.h"
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include "screen.h"
#include "vtgrid.h"

void recchunk_init(recchunk_t *c)
{
    memset(c, 0, sizeof *c);
    buf_init(&c->raw);
}

void recchunk_free(recchunk_t *c)
{
    buf_free(&c->raw);
}

void recchunk_reset(recchunk_t *c)
{
    buf_reset(&c->raw);
    c->records = 0;
    c->ms0 = c->last = 0;
}

/* ---- encoding ---------------------------------------------------------------------- */

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* The record's head (kind, time, two numbers) into head; its length. */
static size_t record_head(recchunk_t *c, uint64_t ms, char kind, uint64_t a, uint64_t b, bool two,
                          uint8_t *head)
{
    if (c->records == 0)
        c->ms0 = c->last = ms;
    if (ms < c->last)
        ms = c->last;
    size_t n = 0;
    head[n++] = (uint8_t)kind;
    n += put_varint(head + n, ms - c->last);
    n += put_varint(head + n, a);
    if (two)
        n += put_varint(head + n, b);
    return n;
}

static int record_put(recchunk_t *c, uint64_t ms, const uint8_t *head, size_t hlen,
                      const void *bytes, size_t len)
{
    if (c->raw.len + hlen + len > RECCHUNK_RAW_MAX || !buf_reserve(&c->raw, hlen + len)) {
        if (c->records == 0)
            c->ms0 = c->last = 0;
        return -1;
    }
    buf_put(&c->raw, head, hlen);
    buf_put(&c->raw, bytes, len);
    if (ms > c->last)
        c->last = ms;
    c->records++;
    return 0;
}

int recchunk_output(recchunk_t *c, uint64_t ms, const void *bytes, size_t len)
{
    uint8_t head[32];
    if (len == 0 || len > RECCHUNK_RAW_MAX)
        return -1;
    size_t n = record_head(c, ms, 'o', len, 0, false, head);
    return record_put(c, ms, head, n, bytes, len);
}

int recchunk_resize(recchunk_t *c, uint64_t ms, int w, int h)
{
    uint8_t head[32];
    if (w < VTGRID_MIN_W || w > SCREEN_MAX_W || h < 1 || h > SCREEN_MAX_H)
        return -1;
    size_t n = record_head(c, ms, 'r', (uint64_t)w, (uint64_t)h, true, head);
    return record_put(c, ms, head, n, NULL, 0);
}

int recchunk_compress(const recchunk_t *c, buf_t *out)
{
    uLongf bound = compressBound((uLong)c->raw.len);
    if (!buf_reserve(out, bound))
        return -1;
    uLongf got = bound;
    if (compress2((Bytef *)out->data + out->len, &got, (const Bytef *)c->raw.data,
                  (uLong)c->raw.len, Z_DEFAULT_COMPRESSION) != Z_OK)
        return -1;
    out->len += got;
    return 0;
}

/* ---- decoding ---------------------------------------------------------------------- */

/* Inflates data into scratch: at most RECCHUNK_RAW_MAX bytes. */
static int inflate_chunk(const void *data, size_t len, buf_t *scratch, char *err, size_t n)
{
    z_stream z = {0};
    buf_reset(scratch);
    if (!buf_reserve(scratch, RECCHUNK_RAW_MAX + 1) || inflateInit(&z) != Z_OK) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)scratch->data;
    z.avail_out = RECCHUNK_RAW_MAX + 1;
    int zr = inflate(&z, Z_FINISH);
    size_t got = RECCHUNK_RAW_MAX + 1 - z.avail_out;
    bool rest = z.avail_in != 0;
    inflateEnd(&z);
    if (zr != Z_STREAM_END || rest || got > RECCHUNK_RAW_MAX) {
        snprintf(err, n,
                 got > RECCHUNK_RAW_MAX ? "a chunk inflates past %d bytes"
                                        : "a chunk is not one whole zlib stream",
                 RECCHUNK_RAW_MAX);
        return -1;
    }
    scratch->len = got;
    return 0;
}

typedef struct {
    const uint8_t *p, *end;
} reader_t;

static bool get_varint(reader_t *r, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return v <= max;
        }
    }
    return false;
}

/* One record at r into e (its time added to *ms). */
static bool get_record(reader_t *r, uint64_t *ms, recevent_t *e)
{
    uint64_t dt, a, b = 0;
    e->kind = (char)*r->p++;
    if (!get_varint(r, UINT32_MAX, &dt))
        return false;
    *ms += dt;
    e->ms = *ms;
    if (e->kind == 'o') {
        if (!get_varint(r, RECCHUNK_RAW_MAX, &a) || a == 0 || a > (uint64_t)(r->end - r->p))
            return false;
        e->data = (const char *)r->p;
        e->len = (size_t)a;
        r->p += a;
        return true;
    }
    if (e->kind != 'r' || !get_varint(r, SCREEN_MAX_W, &a) || !get_varint(r, SCREEN_MAX_H, &b))
        return false;
    e->w = (int)a;
    e->h = (int)b;
    return e->w >= VTGRID_MIN_W && e->h >= 1;
}

/* One record of c's at r into out, its output cut to what *room leaves. */
static int cut_record(recchunk_t *out, reader_t *r, uint64_t *ms, size_t *room)
{
    recevent_t e = {0};
    if (!get_record(r, ms, &e))
        return -1;
    if (e.kind == 'r')
        return recchunk_resize(out, e.ms, e.w, e.h);
    size_t n = e.len < *room ? e.len : *room;
    *room -= n;
    return n ? recchunk_output(out, e.ms, e.data, n) : 0;
}

int64_t recchunk_cut(recchunk_t *c, size_t keep)
{
    recchunk_t out;
    recchunk_init(&out);
    reader_t r = {(const uint8_t *)c->raw.data, (const uint8_t *)c->raw.data + c->raw.len};
    uint64_t ms = c->ms0;
    size_t room = keep;
    int bad = 0;
    while (r.p < r.end && !bad)
        bad = cut_record(&out, &r, &ms, &room);
    recchunk_free(c);
    *c = out;
    if (bad) {
        recchunk_reset(c);
        return -1;
    }
    return (int64_t)(keep - room);
}

int recchunk_decode(uint64_t ms, const void *data, size_t len, buf_t *scratch, recevent_fn fn,
                    void *ud, char *err, size_t errlen)
{
    if (inflate_chunk(data, len, scratch, err, errlen) < 0)
        return -1;
    reader_t r = {(const uint8_t *)scratch->data, (const uint8_t *)scratch->data + scratch->len};
    while (r.p < r.end) {
        recevent_t e = {0};
        if (!get_record(&r, &ms, &e)) {
            snprintf(err, errlen, "a bad record in a chunk");
            return -1;
        }
        if (fn(ud, &e)) {
            snprintf(err, errlen, "the recording's reader stopped");
            return -1;
        }
    }
    return 0;
}
