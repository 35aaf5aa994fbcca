/* Fuzz target: hosted games' recordings as stored (server/hosted/recchunk.c)
 * and played back (server/records/hostreplay.c). The chunks come from the
 * database, so the decoder must refuse anything malformed with a message:
 * the input is tried as a stored (compressed) chunk, and compressed here
 * so the record parser sees arbitrary records; an accepted chunk is then
 * played as an asciicast and as frames. */
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
