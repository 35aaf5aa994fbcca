/* Fuzz target: hosted games' recordings as stored (server/hosted/recchunk.c)
 * and played back (server/records/hostreplay.c). The chunks come from the
 * database, so the decoder must refuse anything malformed with a message:
 * the input is tried as a stored (compressed) chunk, and compressed here
 * so the record parser sees arbitrary records; an accepted chunk is then
 * played as an asciicast and as frames. Whatever the program wrote, the
 * cast carries only the ANSI encoder's sequences (check_cast). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "hosted/recchunk.h"
#include "records/hostreplay.h"

static int check_event(void *ud, const recevent_t *e)
{
    (void)ud;
    if (e->kind == 'o' && (e->len == 0 || e->len > RECCHUNK_RAW_MAX || !e->data))
        abort();
    if (e->kind == 'r' && (e->w < 2 || e->w > 512 || e->h < 1 || e->h > 256))
        abort();
    if (e->kind != 'o' && e->kind != 'r')
        abort();
    return 0;
}

/* One escape sequence of the cast's JSON text at p (after "\u001b"), n
 * bytes left: true when the encoder could have written it (CSI with digits
 * and ';' ending in one of its finals, ?25 or ?2026 set or reset; ESC ( B,
 * ESC ( 0, IND, RI). */
static bool encoder_sequence(const char *p, size_t n)
{
    if (n >= 2 && p[0] == '(')
        return p[1] == 'B' || p[1] == '0';
    if (n >= 1 && (p[0] == 'D' || p[0] == 'M'))
        return true;
    if (n < 2 || p[0] != '[')
        return false;
    size_t i = 1;
    bool dec = p[i] == '?';
    i += dec;
    size_t digits = i;
    while (i < n && ((p[i] >= '0' && p[i] <= '9') || p[i] == ';'))
        i++;
    if (i == n)
        return false;
    if (dec)
        return (p[i] == 'h' || p[i] == 'l') &&
               ((i - digits == 2 && memcmp(p + digits, "25", 2) == 0) ||
                (i - digits == 4 && memcmp(p + digits, "2026", 4) == 0));
    return strchr("@ABCDGHJKPbmr", p[i]) != NULL;
}

/* The cast's text (JSON): no control character but ESC (in an encoder's
 * sequence), BS, CR and LF, none of the C1 controls. */
static void check_cast(const buf_t *t)
{
    const char *p = t->data;
    for (size_t i = 0; i < t->len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0xC2 && i + 1 < t->len && (unsigned char)p[i + 1] < 0xA0)
            abort(); /* U+0080..U+009F, as JSON leaves them */
        if (c != '\\' || i + 1 >= t->len)
            continue;
        i++;
        if (p[i] == 't')
            abort(); /* the encoder writes no tab */
        if (p[i] != 'u')
            continue; /* \" \\ \n \r: JSON's short escapes */
        if (i + 5 > t->len || memcmp(p + i + 1, "00", 2) != 0)
            continue;
        if (memcmp(p + i + 3, "1b", 2) == 0) {
            if (!encoder_sequence(p + i + 5, t->len - i - 5))
                abort();
        } else if (memcmp(p + i + 3, "08", 2) != 0) {
            abort();
        }
    }
}

/* Decodes data as a stored chunk; when it is accepted, plays it back. */
static void try_chunk(const void *data, size_t size, buf_t *scratch)
{
    char err[128] = "";
    if (recchunk_decode(1000, data, size, scratch, check_event, NULL, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return;
    }
    db_hosted_chunk_t ch = {1, 1000, data, size};
    hostreplay_input_t in = {20, 5, &ch, 1, 0};
    for (int cap = 0; cap < 2; cap++) { /* whole, then cut early and gzipped */
        body_t out;
        if (body_open(&out, cap ? 256 : 0, cap) != 0)
            abort();
        if (hostreplay_cast(&in, "fuzz", &out, err, sizeof err) != 0)
            abort();
        if (!cap)
            check_cast(&out.text);
        body_free(&out);
        if (body_open(&out, cap ? 256 : 0, cap) != 0)
            abort();
        if (hostreplay_frames_json(&in, &out, err, sizeof err) != 0)
            abort();
        body_free(&out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    buf_t scratch, z;
    buf_init(&scratch);
    buf_init(&z);
    try_chunk(data, size, &scratch);
    uLongf n = compressBound((uLong)size);
    if (buf_reserve(&z, n) && compress((Bytef *)z.data, &n, data, (uLong)size) == Z_OK)
        try_chunk(z.data, n, &scratch);
    buf_free(&z);
    buf_free(&scratch);
    return 0;
}
