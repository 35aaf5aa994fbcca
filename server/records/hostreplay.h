/* hostreplay — a hosted game's recording (db_hosted.h, recchunk.h) played
 * back: the asciicast and the browser player's frames, both made by
 * running the recorded bytes through a terminal (vtgrid.h) into Warren's
 * screen and its ANSI diff encoder (ansi.h, the xterm-256color profile), as
 * watchers get them. So the frames have the shape of Warren's own replays
 * (replay.h): [index, ms, diff(, keyframe)]; and the cast holds what the
 * terminal showed, never the program's own bytes: no title, clipboard,
 * device string, mode switch or report request of the program reaches a
 * player's terminal, only text, SGR and the encoder's cursor, erase and
 * scroll sequences. Nothing here is verified: the program ran outside
 * Warren's engine.
 *
 * Times: a record's time is its milliseconds since the game's start; every
 * gap between records plays as at most idle_ms (as asciinema's
 * idle_time_limit). Cast: each record that changes the screen is an "o"
 * event at its time, the change from the screen the events before drew (a
 * keyframe from a cleared screen first, and after a resize at the size's
 * "r" event); each run's "r" event stays. The cast is the terminal's size
 * (its header the window at the start). Frames: output within
 * HOSTREPLAY_MERGE_MS of a frame's first change joins that frame, shown at
 * the time of that first change (but never more than idle_ms after the
 * frame before it); a keyframe comes at least every HOSTREPLAY_KEY_EVERY
 * frames, after a resize and on the last frame (an extra frame with no
 * diff when needed).
 * The player's screen is the largest window the recording had (a first
 * pass of hostreplay_sizes over every chunk); each frame is the
 * terminal's screen drawn into it from the top left.
 *
 * A replay is made a chunk at a time (hostreplay_feed), so only one chunk
 * is ever inflated, into a bounded body (body.h): once the body is full
 * the replay ends there, the frames with "truncated":true, the cast with
 * body_cast_cut's event.
 *
 * Pure and thread-safe (it runs on the thread pool): chunks are borrowed
 * for the call, the replay is its caller's (one thread at a time). */
#ifndef WARREN_HOSTREPLAY_H
#define WARREN_HOSTREPLAY_H
#include <stddef.h>
#include "body.h"
#include "buf.h"
#include "db_hosted.h"

#define HOSTREPLAY_MERGE_MS  20
#define HOSTREPLAY_KEY_EVERY 100

typedef enum { HOSTREPLAY_CAST = 0, HOSTREPLAY_FRAMES = 1 } hostreplay_kind_t;

typedef struct {
    int w, h;          /* the window at the start */
    int maxw, maxh;    /* frames: the largest window (hostreplay_sizes); 0: w x h */
    int idle_ms;       /* 0: REPLAY_IDLE_MS */
    const char *title; /* the cast's; copied, NULL: "" */
} hostreplay_opts_t;

typedef struct hostreplay hostreplay_t;

/* Folds the largest window chunk c sets into *w, *h. scratch is the
 * caller's, reused. 0, or -1 with err (a bad chunk). */
int hostreplay_sizes(const db_hosted_chunk_t *c, int *w, int *h, buf_t *scratch, char *err,
                     size_t errlen);
/* A replay of kind written to out (borrowed until hostreplay_free), its
 * header written. NULL with err: a bad size or out of memory. */
hostreplay_t *hostreplay_new(hostreplay_kind_t kind, const hostreplay_opts_t *o, body_t *out,
                             char *err, size_t errlen);
/* Plays the next chunk (in seq order). 0; 1 when the body is full (feed
 * no more, end it); -1 with err (a bad chunk, out of memory). */
int hostreplay_feed(hostreplay_t *r, const db_hosted_chunk_t *c, char *err, size_t errlen);
/* The document's end (with its marker when the body is full), then the
 * body closed. 0, or -1 with err. */
int hostreplay_end(hostreplay_t *r, char *err, size_t errlen);
void hostreplay_free(hostreplay_t *r); /* NULL is fine */

/* ---- a whole recording at once (tests and tools) ---- */

typedef struct {
    int w, h;                        /* the window at the start */
    const db_hosted_chunk_t *chunks; /* in seq order; borrowed */
    size_t n;
    int idle_ms; /* 0: REPLAY_IDLE_MS */
} hostreplay_input_t;

/* An asciicast v2 document: a header (w x h, the idle limit, title
 * copied), then "o" events drawing the terminal's screen as the recorded
 * output changed it (a UTF-8 sequence cut between two reads is drawn
 * whole) and "r" events "WxH". Returns 0, or -1 with err (a bad chunk, a
 * bad size, out of memory). */
int hostreplay_cast(const hostreplay_input_t *in, const char *title, body_t *out, char *err,
                    size_t errlen);
/* The frames as one JSON document: {"w","h","keyframe_turns","idle_ms",
 * "frames":[[index,ms,diff(,keyframe)]],"turns" (the last frame's index),
 * "bytes" (output replayed),"truncated"}. Returns 0, or -1 with err. */
int hostreplay_frames_json(const hostreplay_input_t *in, body_t *out, char *err, size_t errlen);

#endif
