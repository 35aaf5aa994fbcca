/* journal — a game's journal played into an engine. The one reader of
 * journal rows for recovery and resuming (session.c), replays
 * (records/replay.c) and verification (records/verify.c).
 *
 * A journal is every key event of one game, in rows numbered from 1 (each
 * row holds one or more keys packed with key_pack, protocol/keys.h; see
 * db_journal_row_t). Playing rows checks that each row's seq follows the one
 * before and unpacks its keys; errors read "journal gap at seq N", "bad key
 * bytes at seq N" or "WHY at seq N" when the caller's key function says WHY.
 *
 * A game is restored from its newest snapshot plus the rows after it. A
 * snapshot made by another format version (game.h GAME_SNAPSHOT_VERSION)
 * cannot be loaded; such a game is rebuilt from its seed and every row
 * instead, since the journal holds each key since the start. A journal
 * with a gap (written before rows were stored only after the one before
 * them) restores up to the gap: the rows after it are not played.
 *
 * Pure and thread-safe over its arguments (replays run on the thread
 * pool); nothing here logs. */
#ifndef WARREN_JOURNAL_H
#define WARREN_JOURNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "db.h"
#include "game.h"
#include "keys.h"

/* Called for each key in order: row is the key's row, off its byte offset
 * in row->keys. Returns NULL to go on, or a short reason to stop. */
typedef const char *(*journal_key_fn)(void *ud, const db_journal_row_t *row, size_t off,
                                      key_event_t k);

/* Plays rows[0..n): the first must be seq *seq + 1, each next one more.
 * Returns 0 with *seq the last row's seq, or -1 with the error in err
 * (*seq is then the last row played whole). */
int journal_play(const db_journal_row_t *rows, size_t n, uint64_t *seq, journal_key_fn fn, void *ud,
                 char *err, size_t errlen);

/* An owned copy of journal rows, for work that outlives the db callback
 * that lent them. */
typedef struct {
    db_journal_row_t *rows;
    size_t n;
} journal_t;

/* Copies rows into j (zeroed or freed before). Returns 0, or -1 when out of
 * memory (j then holds what was copied; journal_free it). */
int journal_copy(journal_t *j, const db_journal_row_t *rows, size_t n);
void journal_free(journal_t *j); /* leaves j empty; an empty j is fine */

/* A new game as the journal's first key found it: seed and player name. */
game_t *journal_new_game(const content_t *c, uint64_t seed, const char *name);

/* True when blob is a snapshot (by its header) of a format version other
 * than GAME_SNAPSHOT_VERSION; *version is set to the blob's. */
bool journal_snapshot_stale(const uint8_t *blob, size_t len, unsigned *version);

/* What a game is restored from. Without a snapshot, rows start at 1. */
typedef struct {
    const content_t *content;
    script_vm_t *vm; /* the calling thread's */
    uint64_t seed;
    const char *name; /* the player's name (part of the game's state) */
    bool has_snap;
    const uint8_t *snap;
    size_t snap_len;
    uint64_t snap_seq; /* the seq the snapshot covers */
    const db_journal_row_t *rows;
    size_t nrows;
} journal_restore_t;

/* What a restore found. */
typedef struct {
    uint64_t seq;      /* the last row played (the snapshot's seq, or 0) */
    size_t played;     /* rows played */
    uint64_t gap_seq;  /* 0, or the first row after a gap: it and the rest were not played */
    size_t unplayed;   /* rows from the gap on */
    bool snap_invalid; /* the snapshot does not load (err says why) */
} journal_restored_t;

/* The snapshot (or a new game) with the rows after it played up to a gap,
 * if there is one. Returns the game, or NULL with the reason in err: a
 * snapshot that does not load, bad key bytes, or a gap with neither a
 * snapshot nor a row before it (nothing of the game to go on from). */
game_t *journal_restore(const journal_restore_t *in, journal_restored_t *out, char *err,
                        size_t errlen);

#endif
