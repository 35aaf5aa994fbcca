/* journal — journal rows played into an engine; see journal.h. */
#include "journal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The snapshot header as game/snapshot.c writes it: "WRNS", then the
 * format version as a little-endian u16. Only the version is read here. */
#define SNAP_MAGIC       "WRNS"
#define SNAP_VERSION_END 6

static int row_play(const db_journal_row_t *row, journal_key_fn fn, void *ud, char *err,
                    size_t errlen)
{
    for (size_t off = 0; off < row->len;) {
        key_event_t k;
        size_t used = key_unpack(row->keys + off, row->len - off, &k);
        if (!used) {
            snprintf(err, errlen, "bad key bytes at seq %lld", (long long)row->seq);
            return -1;
        }
        const char *why = fn(ud, row, off, k);
        if (why) {
            snprintf(err, errlen, "%s at seq %lld", why, (long long)row->seq);
            return -1;
        }
        off += used;
    }
    return 0;
}

int journal_play(const db_journal_row_t *rows, size_t n, uint64_t *seq, journal_key_fn fn, void *ud,
                 char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if ((uint64_t)rows[i].seq != *seq + 1) {
            snprintf(err, errlen, "journal gap at seq %lld", (long long)rows[i].seq);
            return -1;
        }
        if (row_play(&rows[i], fn, ud, err, errlen))
            return -1;
        *seq = (uint64_t)rows[i].seq;
    }
    return 0;
}

int journal_copy(journal_t *j, const db_journal_row_t *rows, size_t n)
{
    j->n = 0;
    j->rows = calloc(n ? n : 1, sizeof *j->rows);
    if (!j->rows)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint8_t *k = malloc(rows[i].len ? rows[i].len : 1);
        if (!k)
            return -1;
        memcpy(k, rows[i].keys, rows[i].len);
        j->rows[j->n++] = (db_journal_row_t){rows[i].seq, k, rows[i].len, rows[i].ms};
    }
    return 0;
}

void journal_free(journal_t *j)
{
    for (size_t i = 0; i < j->n; i++)
        free((void *)j->rows[i].keys);
    free(j->rows);
    j->rows = NULL;
    j->n = 0;
}

game_t *journal_new_game(const content_t *c, uint64_t seed, const char *name)
{
    game_options_t opt = {{0}};
    snprintf(opt.name, sizeof opt.name, "%s", name ? name : "");
    return game_new(c, seed, &opt);
}

bool journal_snapshot_stale(const uint8_t *blob, size_t len, unsigned *version)
{
    if (!blob || len < SNAP_VERSION_END || memcmp(blob, SNAP_MAGIC, 4) != 0)
        return false; /* not a snapshot at all: game_load says what is wrong */
    *version = (unsigned)blob[4] | (unsigned)blob[5] << 8;
    return *version != GAME_SNAPSHOT_VERSION;
}

typedef struct {
    game_t *g;
    script_vm_t *vm;
} restore_play_t;

static const char *restore_key(void *ud, const db_journal_row_t *row, size_t off, key_event_t k)
{
    restore_play_t *rp = ud;
    (void)row;
    (void)off;
    game_input(rp->g, rp->vm, k);
    return NULL;
}

/* Rows from the first one that follow each other from seq + 1. */
static size_t contiguous(const db_journal_row_t *rows, size_t n, uint64_t seq)
{
    size_t i = 0;
    while (i < n && (uint64_t)rows[i].seq == seq + 1 + i)
        i++;
    return i;
}

game_t *journal_restore(const journal_restore_t *in, journal_restored_t *out, char *err,
                        size_t errlen)
{
    *out = (journal_restored_t){.seq = in->has_snap ? in->snap_seq : 0};
    size_t n = contiguous(in->rows, in->nrows, out->seq);
    if (n < in->nrows) {
        out->gap_seq = (uint64_t)in->rows[n].seq;
        out->unplayed = in->nrows - n;
        if (!in->has_snap && n == 0) {
            snprintf(err, errlen, "journal gap at seq %llu with no row before it",
                     (unsigned long long)out->gap_seq);
            return NULL;
        }
    }
    game_t *g;
    if (in->has_snap) {
        g = game_load(in->content, in->snap, in->snap_len, err, errlen);
        out->snap_invalid = !g;
    } else {
        g = journal_new_game(in->content, in->seed, in->name);
        if (!g)
            snprintf(err, errlen, "out of memory");
    }
    restore_play_t rp = {g, in->vm};
    if (g && journal_play(in->rows, n, &out->seq, restore_key, &rp, err, errlen)) {
        game_free(g);
        return NULL;
    }
    out->played = n;
    return g;
}
