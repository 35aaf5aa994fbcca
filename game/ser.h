/* ser — the byte stream every saved structure goes through.
 *
 * One writer serves two uses: a snapshot (bytes appended to a buf_t) and the
 * state hash (bytes folded into a 64-bit FNV-1a hash, no buffer). Values are
 * little-endian and fixed-width, so blobs are portable.
 *
 * The reader is bounded: reading past the end returns 0 and sets `bad`, so
 * a loader reads everything, then checks `bad` once, and validates values
 * before use. A loader never trusts a length it has not checked. */
#ifndef WARREN_SER_H
#define WARREN_SER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"

typedef struct {
    buf_t *out;    /* NULL: hash only */
    uint64_t hash; /* FNV-1a over every byte written */
} ser_t;

void ser_init(ser_t *s, buf_t *out);
void ser_bytes(ser_t *s, const void *p, size_t n);
void ser_u8(ser_t *s, uint8_t v);
void ser_u16(ser_t *s, uint16_t v);
void ser_u32(ser_t *s, uint32_t v);
void ser_u64(ser_t *s, uint64_t v);
void ser_i32(ser_t *s, int32_t v);
void ser_str(ser_t *s, const char *str); /* u16 length + bytes */

typedef struct {
    const uint8_t *p;
    size_t len, pos;
    bool bad;
    char why[160]; /* first failure, for the load error */
} rd_t;

void rd_init(rd_t *r, const uint8_t *p, size_t len);
void rd_fail(rd_t *r, const char *why); /* keeps the first reason */
bool rd_bytes(rd_t *r, void *out, size_t n);
uint8_t rd_u8(rd_t *r);
uint16_t rd_u16(rd_t *r);
uint32_t rd_u32(rd_t *r);
uint64_t rd_u64(rd_t *r);
int32_t rd_i32(rd_t *r);
/* Reads a string written by ser_str into out (cap bytes, NUL-terminated);
 * a string that does not fit fails the reader. */
void rd_str(rd_t *r, char *out, size_t cap);

uint64_t ser_fnv(uint64_t h, const void *p, size_t n);
#define SER_FNV_INIT 0xcbf29ce484222325ULL

#endif
