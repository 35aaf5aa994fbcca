/* recchunk — a hosted game's recording as it is stored: chunks, each a
 * run of records compressed with zlib (one zlib stream per chunk).
 *
 * A record is a kind byte, then the milliseconds since the record before
 * it (the chunk's first: since the chunk's own time, which is stored
 * beside it) as an unsigned LEB128 varint, then
 *   'o'  a varint length (1..RECCHUNK_RAW_MAX) and that many bytes of
 *        the program's output, as read;
 *   'r'  the window's new width and height, two varints
 *        (VTGRID_MIN_W..SCREEN_MAX_W, 1..SCREEN_MAX_H).
 * A chunk holds at most RECCHUNK_RAW_MAX bytes of records uncompressed;
 * the decoder refuses anything else (stored bytes are not trusted).
 *
 * Ownership: a recchunk_t owns its buffer (recchunk_free). Pure: no
 * globals, thread-safe per object. */
#ifndef WARREN_RECCHUNK_H
#define WARREN_RECCHUNK_H
#include <stddef.h>
#include <stdint.h>
#include "buf.h"

#define RECCHUNK_RAW_MAX (256 * 1024)

/* Records being collected for one chunk. */
typedef struct {
    buf_t raw;      /* the records, uncompressed */
    uint64_t ms0;   /* time of the first record (the chunk's time) */
    uint64_t last;  /* time of the last record */
    size_t records; /* 0: empty */
} recchunk_t;

void recchunk_init(recchunk_t *c);
void recchunk_free(recchunk_t *c);
/* Empties c for the next chunk (memory kept). */
void recchunk_reset(recchunk_t *c);
/* Appends a record at time ms (earlier than the last record: taken as the
 * last's time). 0, or -1: out of memory, a bad size or length, or the
 * chunk would pass RECCHUNK_RAW_MAX (nothing appended then). */
int recchunk_output(recchunk_t *c, uint64_t ms, const void *bytes, size_t len);
int recchunk_resize(recchunk_t *c, uint64_t ms, int w, int h);
/* Keeps the output of c's records up to keep bytes: the record that
 * crosses it cut at the byte, the output after it dropped, the window
 * sizes kept. The output bytes kept, or -1 (out of memory: c emptied). */
int64_t recchunk_cut(recchunk_t *c, size_t keep);
/* Appends the compressed chunk to out. 0, or -1 (out of memory). */
int recchunk_compress(const recchunk_t *c, buf_t *out);

/* One decoded record: kind 'o' (data, len) or 'r' (w, h), at ms. */
typedef struct {
    char kind;
    uint64_t ms;
    const char *data; /* borrowed for the callback */
    size_t len;
    int w, h;
} recevent_t;

/* Called per record in order; non-zero stops the decoding (an error). */
typedef int (*recevent_fn)(void *ud, const recevent_t *e);

/* Decodes one stored chunk whose time is ms, calling fn for every record.
 * scratch (the caller's, reusable) holds the inflated records. Returns 0,
 * or -1 with a reason in err: not zlib, more than RECCHUNK_RAW_MAX
 * inflated, a bad or cut record, out of memory, or fn's refusal. */
int recchunk_decode(uint64_t ms, const void *data, size_t len, buf_t *scratch, recevent_fn fn,
                    void *ud, char *err, size_t errlen);

#endif
