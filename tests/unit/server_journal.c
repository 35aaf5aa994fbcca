/* Unit tests: server/journal — playing rows (sequence check, key bytes,
 * the caller's stop), owned copies, stale snapshot headers, and restoring a
 * game from a snapshot plus its tail or from the seed alone, against the
 * same game played key by key. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "journal.h"

#define NAME "jess"
#define SEED 4242

static const char KEYS[] = "..hjkl..yubn....llll"; /* one key per row */

typedef struct {
    content_t *c;
    script_vm_t *vm;
    uint8_t keys[64];
    db_journal_row_t rows[64];
    size_t n;
} jfx_t;

static void jfx_open(jfx_t *f)
{
    char err[256];
    f->c = content_load(NULL, err, sizeof err);
    ck_assert_msg(f->c != NULL, "%s", err);
    f->vm = script_vm_new();
    ck_assert_ptr_nonnull(f->vm);
    f->n = strlen(KEYS);
    for (size_t i = 0; i < f->n; i++) {
        f->keys[i] = (uint8_t)KEYS[i];
        f->rows[i] = (db_journal_row_t){(int64_t)i + 1, &f->keys[i], 1, DB_MS_UNKNOWN};
    }
}

static void jfx_close(jfx_t *f)
{
    script_vm_free(f->vm);
    content_free(f->c);
}

/* The game after the first n keys, played straight. */
static game_t *played(jfx_t *f, size_t n)
{
    game_t *g = journal_new_game(f->c, SEED, NAME);
    ck_assert_ptr_nonnull(g);
    for (size_t i = 0; i < n; i++)
        game_input(g, f->vm, (key_event_t){f->keys[i], 0});
    return g;
}

typedef struct {
    size_t keys;
    int64_t last_seq;
    size_t stop_at; /* stop before this key (0: never) */
} count_t;

static const char *count_key(void *ud, const db_journal_row_t *row, size_t off, key_event_t k)
{
    count_t *c = ud;
    (void)k;
    ck_assert_uint_lt(off, row->len);
    if (c->stop_at && c->keys + 1 == c->stop_at)
        return "told to stop";
    c->keys++;
    c->last_seq = row->seq;
    return NULL;
}

START_TEST(play_checks_the_sequence)
{
    jfx_t f;
    jfx_open(&f);
    char err[120] = "";
    uint64_t seq = 0;
    count_t c = {0};
    ck_assert_int_eq(journal_play(f.rows, f.n, &seq, count_key, &c, err, sizeof err), 0);
    ck_assert_uint_eq(seq, f.n);
    ck_assert_uint_eq(c.keys, f.n);
    /* starting after a snapshot at seq 5: row 6 comes first */
    seq = 5;
    c = (count_t){0};
    ck_assert_int_eq(journal_play(f.rows + 5, f.n - 5, &seq, count_key, &c, err, sizeof err), 0);
    ck_assert_uint_eq(c.keys, f.n - 5);
    /* a missing row */
    db_journal_row_t gap[3] = {f.rows[0], f.rows[1], f.rows[3]};
    seq = 0;
    c = (count_t){0};
    ck_assert_int_eq(journal_play(gap, 3, &seq, count_key, &c, err, sizeof err), -1);
    ck_assert_str_eq(err, "journal gap at seq 4");
    ck_assert_uint_eq(seq, 2);
    /* rows that do not start where the game is */
    seq = 3;
    ck_assert_int_eq(journal_play(f.rows, 2, &seq, count_key, &c, err, sizeof err), -1);
    ck_assert_str_eq(err, "journal gap at seq 1");
    jfx_close(&f);
}
END_TEST

START_TEST(play_reports_bad_bytes_and_stops)
{
    jfx_t f;
    jfx_open(&f);
    char err[120];
    uint64_t seq = 0;
    static const uint8_t bad[] = {0xFF, 0xFF, 0xFF};
    db_journal_row_t rows[2] = {f.rows[0], {2, bad, sizeof bad, DB_MS_UNKNOWN}};
    count_t c = {0};
    ck_assert_int_eq(journal_play(rows, 2, &seq, count_key, &c, err, sizeof err), -1);
    ck_assert_str_eq(err, "bad key bytes at seq 2");
    ck_assert_uint_eq(c.keys, 1);
    seq = 0;
    c = (count_t){.stop_at = 3};
    ck_assert_int_eq(journal_play(f.rows, f.n, &seq, count_key, &c, err, sizeof err), -1);
    ck_assert_str_eq(err, "told to stop at seq 3");
    ck_assert_uint_eq(c.keys, 2);
    jfx_close(&f);
}
END_TEST

START_TEST(copies_are_owned)
{
    jfx_t f;
    jfx_open(&f);
    journal_t j = {0};
    ck_assert_int_eq(journal_copy(&j, f.rows, f.n), 0);
    ck_assert_uint_eq(j.n, f.n);
    memset(f.keys, 'x', sizeof f.keys); /* the lender's bytes change */
    for (size_t i = 0; i < j.n; i++) {
        ck_assert_int_eq(j.rows[i].seq, (int64_t)i + 1);
        ck_assert_uint_eq(j.rows[i].keys[0], (uint8_t)KEYS[i]);
        ck_assert_int_eq(j.rows[i].ms, DB_MS_UNKNOWN);
    }
    journal_free(&j);
    ck_assert_ptr_null(j.rows);
    ck_assert_uint_eq(j.n, 0);
    journal_free(&j); /* twice is fine */
    ck_assert_int_eq(journal_copy(&j, NULL, 0), 0);
    ck_assert_uint_eq(j.n, 0);
    journal_free(&j);
    jfx_close(&f);
}
END_TEST

START_TEST(restores_snapshot_plus_tail)
{
    jfx_t f;
    jfx_open(&f);
    size_t at = 8;
    game_t *mid = played(&f, at);
    buf_t snap;
    buf_init(&snap);
    ck_assert_int_eq(game_snapshot(mid, &snap), 0);
    unsigned v = 0;
    ck_assert(!journal_snapshot_stale((const uint8_t *)snap.data, snap.len, &v));
    ck_assert_uint_eq(v, GAME_SNAPSHOT_VERSION);
    game_t *whole = played(&f, f.n);
    char err[200];
    journal_restored_t out;
    journal_restore_t in = {f.c,      f.vm, SEED,        NAME,    true, (const uint8_t *)snap.data,
                            snap.len, at,   f.rows + at, f.n - at};
    game_t *g = journal_restore(&in, &out, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    ck_assert_uint_eq(out.seq, f.n);
    ck_assert_uint_eq(out.played, f.n - at);
    ck_assert_uint_eq(out.gap_seq, 0);
    ck_assert_uint_eq(game_hash(g), game_hash(whole));
    game_free(g);
    /* a tail that does not follow the snapshot: the snapshot alone */
    in.rows = f.rows + at + 1;
    in.nrows = f.n - at - 1;
    g = journal_restore(&in, &out, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    ck_assert_uint_eq(out.seq, at);
    ck_assert_uint_eq(out.played, 0);
    ck_assert_uint_eq(out.gap_seq, at + 2);
    ck_assert_uint_eq(out.unplayed, f.n - at - 1);
    ck_assert_uint_eq(game_hash(g), game_hash(mid));
    game_free(g);
    /* a snapshot that does not load is said so: the caller rebuilds */
    in.snap_len = 10;
    ck_assert_ptr_null(journal_restore(&in, &out, err, sizeof err));
    ck_assert(out.snap_invalid);
    game_free(whole);
    game_free(mid);
    buf_free(&snap);
    jfx_close(&f);
}
END_TEST

START_TEST(stale_snapshot_rebuilds_from_seed)
{
    jfx_t f;
    jfx_open(&f);
    game_t *mid = played(&f, 6);
    buf_t snap;
    buf_init(&snap);
    ck_assert_int_eq(game_snapshot(mid, &snap), 0);
    uint8_t *blob = (uint8_t *)snap.data;
    blob[4] = (uint8_t)(GAME_SNAPSHOT_VERSION - 1); /* an older format */
    blob[5] = 0;
    unsigned v = 0;
    ck_assert(journal_snapshot_stale(blob, snap.len, &v));
    ck_assert_uint_eq(v, GAME_SNAPSHOT_VERSION - 1);
    char err[200];
    ck_assert_ptr_null(game_load(f.c, blob, snap.len, err, sizeof err)); /* why a rebuild */
    ck_assert(!journal_snapshot_stale(blob, 5, &v));                     /* too short to say */
    ck_assert(!journal_snapshot_stale((const uint8_t *)"NOPE\x03\x00", 6, &v));
    /* the rebuild: no snapshot, every row */
    journal_restored_t out;
    journal_restore_t in = {
        .content = f.c, .vm = f.vm, .seed = SEED, .name = NAME, .rows = f.rows, .nrows = f.n};
    game_t *g = journal_restore(&in, &out, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    ck_assert_uint_eq(out.seq, f.n);
    ck_assert(!out.snap_invalid);
    game_t *whole = played(&f, f.n);
    ck_assert_uint_eq(game_hash(g), game_hash(whole));
    game_free(whole);
    game_free(g);
    game_free(mid);
    buf_free(&snap);
    jfx_close(&f);
}
END_TEST

/* A journal with a gap (a row missing in the middle) restores the game to
 * the row before the gap, the same game as played that far; one missing
 * its first row, with no snapshot, cannot be restored at all. */
START_TEST(gap_restores_the_part_before_it)
{
    jfx_t f;
    jfx_open(&f);
    db_journal_row_t rows[64];
    size_t gap = 11; /* rows[gap] has seq 12: it goes, so 13 follows 11 */
    memcpy(rows, f.rows, gap * sizeof *rows);
    memcpy(rows + gap, f.rows + gap + 1, (f.n - gap - 1) * sizeof *rows);
    journal_restore_t in = {
        .content = f.c, .vm = f.vm, .seed = SEED, .name = NAME, .rows = rows, .nrows = f.n - 1};
    journal_restored_t out;
    char err[200];
    game_t *g = journal_restore(&in, &out, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    ck_assert_uint_eq(out.seq, gap);
    ck_assert_uint_eq(out.played, gap);
    ck_assert_uint_eq(out.gap_seq, gap + 2);
    ck_assert_uint_eq(out.unplayed, f.n - 1 - gap);
    game_t *before = played(&f, gap);
    ck_assert_uint_eq(game_hash(g), game_hash(before));
    game_free(before);
    game_free(g);
    in.rows = f.rows + 1;
    in.nrows = f.n - 1;
    ck_assert_ptr_null(journal_restore(&in, &out, err, sizeof err));
    ck_assert_str_eq(err, "journal gap at seq 2 with no row before it");
    jfx_close(&f);
}
END_TEST

Suite *suite_server_journal(void)
{
    Suite *s = suite_create("server_journal");
    TCase *t = tcase_create("journal");
    tcase_add_test(t, play_checks_the_sequence);
    tcase_add_test(t, play_reports_bad_bytes_and_stops);
    tcase_add_test(t, copies_are_owned);
    tcase_add_test(t, restores_snapshot_plus_tail);
    tcase_add_test(t, stale_snapshot_rebuilds_from_seed);
    tcase_add_test(t, gap_restores_the_part_before_it);
    suite_add_tcase(s, t);
    return s;
}
