/* replay_bench — what finished games cost the daemon: replaying a journal
 * for verification (no frames), for the browser player (frames JSON) and
 * for the asciicast export, on a game of random keys (moves, waits and
 * paging keys; the game ends where the dungeon ends it). The best of five
 * rounds. Run from the repository root.
 *
 *   replay_bench [keys]
 *   BENCH records.verify.keys_per_s X keys/s
 *   BENCH records.frames.keys_per_s X keys/s
 *   BENCH records.frames.bytes_per_key X bytes
 *   BENCH records.frames.gz_bytes_per_key X bytes   (gzipped, as sent to browsers)
 *   BENCH records.frames.gzip_ms X ms               (one gzip of the whole JSON)
 *   BENCH records.cast.bytes_per_key X bytes
 *   BENCH records.cast.gz_bytes_per_key X bytes */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "http_gzip.h"
#include "replay.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef int (*run_fn)(const replay_input_t *in, buf_t *out);

static int run_verify(const replay_input_t *in, buf_t *out)
{
    replay_result_t r;
    char err[200];
    int ret = replay_run(in, NULL, NULL, NULL, &r, err, sizeof err);
    buf_put(out, "x", 1);
    replay_result_free(&r);
    return ret;
}

/* The body as plain text, no cap, handed over into out. */
static int body_run(const replay_input_t *in, bool cast, buf_t *out)
{
    char err[200];
    body_t b;
    if (body_open(&b, 0, false))
        return -1;
    int ret = cast ? replay_asciicast(in, NULL, 0.2, "bench", &b, err, sizeof err)
                   : replay_frames_json(in, NULL, &b, err, sizeof err);
    buf_free(out);
    *out = b.text;
    buf_init(&b.text);
    body_free(&b);
    return ret;
}

static int run_frames(const replay_input_t *in, buf_t *out)
{
    return body_run(in, false, out);
}

static int run_cast(const replay_input_t *in, buf_t *out)
{
    return body_run(in, true, out);
}

/* The gzipped size of what fn writes, and the best time of five gzips. */
static size_t gz_size(run_fn fn, const replay_input_t *in, double *ms)
{
    buf_t out, gz;
    buf_init(&out);
    buf_init(&gz);
    if (fn(in, &out)) {
        fprintf(stderr, "replay_bench: replay failed\n");
        exit(1);
    }
    *ms = 1e9;
    for (int r = 0; r < 5; r++) {
        buf_reset(&gz);
        double t0 = now_s();
        if (http_gzip(out.data, out.len, &gz)) {
            fprintf(stderr, "replay_bench: gzip failed\n");
            exit(1);
        }
        double t = (now_s() - t0) * 1000;
        *ms = t < *ms ? t : *ms;
    }
    size_t n = gz.len;
    buf_free(&out);
    buf_free(&gz);
    return n;
}

/* Best keys/s over five rounds; *bytes gets the output size. */
static double measure(run_fn fn, const replay_input_t *in, size_t keys, size_t *bytes)
{
    double best = 0;
    for (int r = 0; r < 5; r++) {
        buf_t out;
        buf_init(&out);
        double t0 = now_s();
        if (fn(in, &out)) {
            fprintf(stderr, "replay_bench: replay failed\n");
            exit(1);
        }
        double kps = keys / (now_s() - t0);
        best = kps > best ? kps : best;
        *bytes = out.len;
        buf_free(&out);
    }
    return best;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 2000;
    char err[256];
    content_t *c = content_load(NULL, err, sizeof err);
    uint8_t *keys = malloc(n ? n : 1);
    db_journal_row_t *rows = calloc(n ? n : 1, sizeof *rows);
    if (!c || !keys || !rows) {
        fprintf(stderr, "replay_bench: %s\n", c ? "out of memory" : err);
        return 1;
    }
    static const char pool[] = "hjklyubn.hjklyubn. \r";
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        keys[i] = (uint8_t)pool[x % (sizeof pool - 1)];
        /* a recorded time per key, as the daemon writes: 80 to 400 ms */
        rows[i] = (db_journal_row_t){(int64_t)i + 1, &keys[i], 1, (int64_t)(80 + (x >> 32) % 321)};
    }
    replay_input_t in = {c, 12345, "bench", rows, n};
    /* keys after the end cost little: rates count the keys the game played */
    replay_result_t r;
    if (replay_run(&in, NULL, NULL, NULL, &r, err, sizeof err)) {
        fprintf(stderr, "replay_bench: %s\n", err);
        return 1;
    }
    size_t live = (size_t)(r.keys - r.keys_after_end);
    fprintf(stderr, "replay_bench: %zu of %zu keys before the end, %llu turns\n", live, n,
            (unsigned long long)r.end.turn);
    replay_result_free(&r);
    n = live ? live : 1;
    in.nrows = n;
    size_t vb, fb, cb;
    double v = measure(run_verify, &in, n, &vb);
    double f = measure(run_frames, &in, n, &fb);
    measure(run_cast, &in, n, &cb);
    double fms, cms;
    size_t fgz = gz_size(run_frames, &in, &fms), cgz = gz_size(run_cast, &in, &cms);
    printf("BENCH records.verify.keys_per_s %.0f keys/s\n", v);
    printf("BENCH records.frames.keys_per_s %.0f keys/s\n", f);
    printf("BENCH records.frames.bytes_per_key %.0f bytes\n", (double)fb / n);
    printf("BENCH records.frames.gz_bytes_per_key %.1f bytes\n", (double)fgz / n);
    printf("BENCH records.frames.gzip_ms %.1f ms\n", fms);
    printf("BENCH records.cast.bytes_per_key %.0f bytes\n", (double)cb / n);
    printf("BENCH records.cast.gz_bytes_per_key %.1f bytes\n", (double)cgz / n);
    free(keys);
    free(rows);
    content_free(c);
    return 0;
}
