/* body — a bounded replay body, gzipped as it is made (body.h). */
#include "body.h"
#include <string.h>
#include "json.h"

int body_open(body_t *b, uint64_t cap, bool zip)
{
    memset(b, 0, sizeof *b);
    buf_init(&b->text);
    buf_init(&b->gz);
    b->cap = cap;
    b->zip = zip;
    if (zip && http_gzw_open(&b->z, &b->gz))
        return -1;
    return 0;
}

uint64_t body_len(const body_t *b)
{
    return b->done + b->text.len;
}

/* The text so far into the gzip. */
static int drain(body_t *b)
{
    if (!b->zip || b->text.len == 0)
        return 0;
    if (http_gzw_put(&b->z, b->text.data, b->text.len))
        return -1;
    b->done += b->text.len;
    buf_reset(&b->text);
    return 0;
}

bool body_full(body_t *b)
{
    if (b->text.failed || b->gz.failed)
        return true;
    if (b->text.len >= BODY_PIECE && drain(b))
        return true;
    if (b->cap && body_len(b) >= b->cap)
        b->cut = true;
    return b->cut;
}

int body_close(body_t *b)
{
    if (b->text.failed || b->gz.failed)
        return -1;
    if (!b->zip)
        return 0;
    if (drain(b) || http_gzw_finish(&b->z))
        return -1;
    http_gzw_close(&b->z);
    return 0;
}

void body_free(body_t *b)
{
    http_gzw_close(&b->z);
    buf_free(&b->text);
    buf_free(&b->gz);
}

void body_cast_cut(body_t *b, uint64_t ms)
{
    static const char note[] = "\r\n\x1b[0m" BODY_CUT_NOTE "\r\n";
    buf_printf(&b->text, "[%llu.%03u, \"o\", ", (unsigned long long)(ms / 1000),
               (unsigned)(ms % 1000));
    json_put_string(&b->text, note, sizeof note - 1);
    buf_puts(&b->text, "]\n");
}
