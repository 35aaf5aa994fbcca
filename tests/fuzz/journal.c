/* Fuzz target: a game's journal as the database gives it back
 * (server/core/journal.c), what recovery, replays and verification play.
 * The bytes make rows: each starts with a byte saying its length (its low
 * six bits) and whether a row is missing before it (0xFF: the gap a row
 * never stored leaves), then the row's packed keys. Whatever the bytes:
 * journal_restore gives a game or NULL with a message; a game comes with
 * the rows before the gap played and the rest counted unplayed, and can
 * be rendered and saved; playing the rows alone stops at the first bad
 * key or gap with a message, having handed over only keys that pack back
 * to their bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "journal.h"

#define ROWS_MAX 64

typedef struct {
    size_t keys;
} count_t;

static const char *check_key(void *ud, const db_journal_row_t *row, size_t off, key_event_t k)
{
    count_t *c = ud;
    uint8_t packed[6];
    size_t n = key_pack(k, packed);
    if (off >= row->len || !n || n > row->len - off || memcmp(packed, row->keys + off, n) != 0)
        abort(); /* a key read is the very bytes it packs to */
    c->keys++;
    return NULL;
}

static size_t make_rows(const uint8_t *data, size_t size, db_journal_row_t *rows)
{
    size_t n = 0;
    int64_t seq = 0;
    for (size_t at = 0; at < size && n < ROWS_MAX;) {
        uint8_t b = data[at++];
        size_t len = b & 0x3F;
        if (len > size - at)
            len = size - at;
        seq += b == 0xFF ? 2 : 1;
        rows[n] = (db_journal_row_t){seq, data + at, len, (int64_t)n * 250};
        n++;
        at += len;
    }
    return n;
}

static void exercise(game_t *g)
{
    screen_t *s = screen_new(80, 24);
    if (s)
        game_render(g, s, NULL);
    screen_free(s);
    buf_t b;
    buf_init(&b);
    game_snapshot(g, &b);
    buf_free(&b);
    (void)game_hash(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static content_t *c;
    static script_vm_t *vm; /* kept for the whole run, like the content */
    if (!c)
        c = content_load(NULL, NULL, 0);
    if (!vm)
        vm = script_vm_new();
    if (!c || !vm || size < 1 || size > 4096)
        return 0;
    db_journal_row_t rows[ROWS_MAX];
    size_t n = make_rows(data + 1, size - 1, rows);
    char err[160] = "";
    count_t cnt = {0};
    uint64_t seq = 0;
    int r = journal_play(rows, n, &seq, check_key, &cnt, err, sizeof err);
    if ((r != 0 && r != -1) || (r && !err[0]) || (!r && seq != (n ? (uint64_t)rows[n - 1].seq : 0)))
        abort(); /* played to the end, or stopped with a message */
    journal_restore_t in = {c, vm, data[0], "Fuzz", false, NULL, 0, 0, rows, n};
    journal_restored_t out;
    err[0] = 0;
    game_t *g = journal_restore(&in, &out, err, sizeof err);
    if (!g) {
        if (!err[0])
            abort();
        return 0;
    }
    if (out.played + out.unplayed != n || (out.unplayed && !out.gap_seq) ||
        out.seq != (out.played ? (uint64_t)rows[out.played - 1].seq : 0))
        abort();
    exercise(g);
    game_free(g);
    return 0;
}
