/* buf — a growable byte buffer: the output of every encoder.
 * The buffer owns data; buf_free releases it. An allocation failure sets
 * `failed` and later appends do nothing, so callers check once at the end. */
#ifndef WARREN_BUF_H
#define WARREN_BUF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *data;
    size_t len, cap;
    bool failed;
} buf_t;

void buf_init(buf_t *b);
void buf_free(buf_t *b);
void buf_reset(buf_t *b);                 /* len = 0, keeps memory, clears failed */
bool buf_reserve(buf_t *b, size_t extra); /* false (and failed) on OOM */
void buf_put(buf_t *b, const void *p, size_t n);
void buf_putc(buf_t *b, char c);
void buf_puts(buf_t *b, const char *s);
void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_put_utf8(buf_t *b, uint32_t cp); /* invalid code points become U+FFFD */
void buf_put_uint(buf_t *b, uint64_t v);  /* decimal, fast */

#endif
