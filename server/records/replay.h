/* replay — plays a finished game again from its seed, player name and
 * journal, with nothing but the engine: the proof behind "verified", the
 * frames of the browser replay and the asciicast export. Pure and
 * thread-safe: the game is private to the call and content is only read, so
 * it runs on the thread pool (each replay makes its own script vm).
 *
 * Frames: frame 0 is the first screen; frame i is the screen after the i-th
 * key event of the journal, all at opts->w x opts->h with the default view
 * (no watcher count, one-cell tiles) but the turn counter shown, and the
 * default 256-colour UTF-8 profile. Each frame carries the ANSI bytes turning frame i-1 into it (the
 * first: a keyframe); frames marked key also carry a full keyframe, at least
 * every opts->keyframe_turns game turns, so a player can seek to any frame
 * by drawing the nearest keyframe before it and the diffs after it.
 *
 * Times: each frame has a playback time, in milliseconds from frame 0. A
 * journal row's recorded time (db_journal_row_t.ms, the gap since the row
 * before) spaces its first key from the previous frame, capped at
 * opts->idle_ms so a pause or a detached hour plays as a short wait (as
 * asciinema's idle_time_limit); further keys of the same row follow at
 * once. Rows without a time (DB_MS_UNKNOWN) space each key opts->step_ms
 * apart, as replays did before times were kept. Times never change what a
 * replay computes: verification ignores them. */
#ifndef WARREN_REPLAY_H
#define WARREN_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "body.h"
#include "buf.h"
#include "db.h"
#include "game.h"

#define REPLAY_IDLE_MS 2000 /* default longest gap played back */
#define REPLAY_STEP_MS 100  /* default gap for keys without a recorded time */

typedef struct {
    int w, h;           /* 20x5 .. SCREEN_MAX; 0 = 80x24 */
    int keyframe_turns; /* 0 = 50 */
    int idle_ms;        /* longest gap between frames; 0 = REPLAY_IDLE_MS */
    int step_ms;        /* gap for keys without a time; 0 = REPLAY_STEP_MS */
} replay_opts_t;

typedef struct {
    uint64_t index;   /* 0 = before any key */
    uint64_t turn;    /* game turn after this frame's key */
    uint64_t ms;      /* playback time: ms after frame 0, idle gaps capped */
    const char *diff; /* ANSI from the previous frame (may be empty) */
    size_t diff_len;
    const char *key; /* full keyframe, or NULL */
    size_t key_len;
} replay_frame_t;

/* Called for every frame; a negative return stops the replay (an error),
 * a positive one stops it there (no error: res->cut). */
typedef int (*replay_frame_cb)(void *ud, const replay_frame_t *f);

typedef struct {
    game_status_t end;       /* status after the last key */
    uint64_t hash;           /* game_hash after the last key */
    uint64_t keys;           /* key events applied (= last frame index) */
    uint64_t keys_after_end; /* key events the journal holds after the game ended */
    bool cut;                /* the frame callback stopped the replay before the end */
    buf_t dump;              /* game_dump after the last key; caller frees (replay_result_free) */
} replay_result_t;

/* The input of one replay; rows are borrowed (the journal as read from db). */
typedef struct {
    const content_t *content;
    uint64_t seed;
    const char *name; /* the player's name: part of the game's state */
    const db_journal_row_t *rows;
    size_t nrows;
} replay_input_t;

/* Plays in->rows in order. cb may be NULL (no frames are drawn then).
 * Returns 0 and fills res, or -1 with a message in err: a gap in seq,
 * undecodable key bytes, out of memory, or the callback's refusal. */
int replay_run(const replay_input_t *in, const replay_opts_t *opts, replay_frame_cb cb, void *ud,
               replay_result_t *res, char *err, size_t errlen);
void replay_result_free(replay_result_t *res);

/* The frames as one JSON document for the browser player (see
 * server/records/pages.c for the shape: each frame [turn, ms, diff(, keyframe)]);
 * written to out (body.h), then out closed. A body that reaches its cap
 * stops after that frame with "truncated":true ("turns", "keys" and
 * "hash" then say where it stopped). */
int replay_frames_json(const replay_input_t *in, const replay_opts_t *opts, body_t *out, char *err,
                       size_t errlen);
/* An asciicast v2 recording: a header line (with idle_time_limit, the cap
 * in seconds), then one "o" event per frame that changes the screen, at the
 * frame's playback time; keys without a recorded time are `step` seconds
 * apart (opts->step_ms is ignored here). title is copied into the header.
 * Written to out, then out closed; a body that reaches its cap ends with
 * body_cast_cut's event. */
int replay_asciicast(const replay_input_t *in, const replay_opts_t *opts, double step,
                     const char *title, body_t *out, char *err, size_t errlen);

#endif
