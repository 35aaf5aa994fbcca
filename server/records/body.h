/* body — a replay's or an asciicast's body as it is made (replay.h,
 * hostreplay.h), bounded: the producer appends to text and calls
 * body_full between two frames or events. With zip, text is gzipped away
 * every BODY_PIECE bytes (http_gzip.h), so memory holds the gzip so far
 * and one piece, never the whole body. Once the body has reached cap
 * bytes, body_full says stop: the producer ends its document there with
 * its marker ("truncated": true in frames JSON, body_cast_cut's last
 * event in an asciicast), so a body passes cap by at most one frame or
 * event and its closing.
 *
 * Ownership: the body owns text and gz (body_free). Pure, one thread at a
 * time: it is made on the thread pool, then handed to the loop. */
#ifndef WARREN_BODY_H
#define WARREN_BODY_H
#include <stdbool.h>
#include <stdint.h>
#include "buf.h"
#include "http_gzip.h"

#define BODY_PIECE    (64 << 10)
/* What the last event of a cut asciicast shows. */
#define BODY_CUT_NOTE "[truncated: this replay stops here, at the server's replay-max]"

typedef struct {
    buf_t text;    /* the producer appends here (zip: the piece not yet gzipped) */
    buf_t gz;      /* zip: the gzip so far */
    uint64_t cap;  /* 0: none */
    uint64_t done; /* body bytes gzipped away */
    bool zip;
    bool cut; /* body_full said stop at the cap */
    http_gzw_t z;
} body_t;

/* 0, or -1 (out of memory: nothing to free then). */
int body_open(body_t *b, uint64_t cap, bool zip);
/* True when the producer must stop: the cap is reached (cut is set then),
 * or memory ran out (body_close fails). */
bool body_full(body_t *b);
/* Body bytes made so far. */
uint64_t body_len(const body_t *b);
/* Ends the body (zip: the rest gzipped, the trailer). 0, or -1 out of
 * memory. */
int body_close(body_t *b);
void body_free(body_t *b);
/* The asciicast event at ms that says the cast was cut (BODY_CUT_NOTE). */
void body_cast_cut(body_t *b, uint64_t ms);

#endif
