/* ser — fixed-width little-endian writer (snapshot or hash) and bounded reader. */
#include "ser.h"
#include <string.h>

uint64_t ser_fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

void ser_init(ser_t *s, buf_t *out)
{
    s->out = out;
    s->hash = SER_FNV_INIT;
}

void ser_bytes(ser_t *s, const void *p, size_t n)
{
    if (s->out)
        buf_put(s->out, p, n);
    else
        s->hash = ser_fnv(s->hash, p, n);
}

static void ser_le(ser_t *s, uint64_t v, int n)
{
    uint8_t b[8];
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    ser_bytes(s, b, (size_t)n);
}

void ser_u8(ser_t *s, uint8_t v)
{
    ser_le(s, v, 1);
}
void ser_u16(ser_t *s, uint16_t v)
{
    ser_le(s, v, 2);
}
void ser_u32(ser_t *s, uint32_t v)
{
    ser_le(s, v, 4);
}
void ser_u64(ser_t *s, uint64_t v)
{
    ser_le(s, v, 8);
}
void ser_i32(ser_t *s, int32_t v)
{
    ser_le(s, (uint32_t)v, 4);
}

void ser_str(ser_t *s, const char *str)
{
    size_t n = strlen(str);
    if (n > 0xFFFF)
        n = 0xFFFF;
    ser_u16(s, (uint16_t)n);
    ser_bytes(s, str, n);
}

void rd_init(rd_t *r, const uint8_t *p, size_t len)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->len = len;
}

void rd_fail(rd_t *r, const char *why)
{
    if (!r->bad) {
        size_t n = strlen(why);
        if (n >= sizeof r->why)
            n = sizeof r->why - 1;
        memcpy(r->why, why, n);
        r->why[n] = 0;
    }
    r->bad = true;
}

bool rd_bytes(rd_t *r, void *out, size_t n)
{
    if (r->bad || n > r->len - r->pos) {
        rd_fail(r, "truncated");
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->p + r->pos, n);
    r->pos += n;
    return true;
}

static uint64_t rd_le(rd_t *r, int n)
{
    uint8_t b[8];
    if (!rd_bytes(r, b, (size_t)n))
        return 0;
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

uint8_t rd_u8(rd_t *r)
{
    return (uint8_t)rd_le(r, 1);
}
uint16_t rd_u16(rd_t *r)
{
    return (uint16_t)rd_le(r, 2);
}
uint32_t rd_u32(rd_t *r)
{
    return (uint32_t)rd_le(r, 4);
}
uint64_t rd_u64(rd_t *r)
{
    return rd_le(r, 8);
}
int32_t rd_i32(rd_t *r)
{
    return (int32_t)(uint32_t)rd_le(r, 4);
}

void rd_str(rd_t *r, char *out, size_t cap)
{
    uint16_t n = rd_u16(r);
    out[0] = 0;
    if (r->bad)
        return;
    if ((size_t)n >= cap) {
        rd_fail(r, "string too long");
        return;
    }
    if (rd_bytes(r, out, n))
        out[n] = 0;
    else
        out[0] = 0;
    if (memchr(out, 0, n))
        rd_fail(r, "NUL in string");
}
