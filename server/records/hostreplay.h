/* hostreplay — a hosted game's recording (db_hosted.h, recchunk.h) played
 * back: the asciicast straight from the recorded bytes, and the browser
 * player's frames, made by running the bytes through a terminal (vtgrid.h)
 * into Warren's screen and its ANSI diff encoder, so the frames have the
 * shape of Warren's own replays (replay.h): [index, ms, diff(, keyframe)].
 * Nothing here is verified: the program ran outside Warren's engine.
 *
 * Times: a record's time is its milliseconds since the game's start; every
 * gap between records plays as at most idle_ms (as asciinema's
 * idle_time_limit). Frames: output within HOSTREPLAY_MERGE_MS of a frame's
 * first change joins that frame, shown at the time of that first change; a keyframe comes at least every
 * HOSTREPLAY_KEY_EVERY frames, after a resize and on the last frame (an
 * extra frame with no diff when needed). The player's screen is
 * the largest window the recording had; each frame is the terminal's
 * screen drawn into it from the top left.
 *
 * Pure and thread-safe (it runs on the thread pool): the chunks are
 * borrowed, everything else is the call's own. */
#ifndef WARREN_HOSTREPLAY_H
#define WARREN_HOSTREPLAY_H
#include <stddef.h>
#include "buf.h"
#include "db_hosted.h"

#define HOSTREPLAY_MERGE_MS  20
#define HOSTREPLAY_KEY_EVERY 100

typedef struct {
    int w, h;                        /* the window at the start */
    const db_hosted_chunk_t *chunks; /* in seq order; borrowed */
    size_t n;
    int idle_ms; /* 0: REPLAY_IDLE_MS */
} hostreplay_input_t;

/* An asciicast v2 document appended to out: a header (w x h, the idle
 * limit, title copied), then "o" events of the recorded output (a UTF-8
 * sequence cut between two reads is kept whole) and "r" events "WxH".
 * Returns 0, or -1 with err (a bad chunk, out of memory). */
int hostreplay_cast(const hostreplay_input_t *in, const char *title, buf_t *out, char *err,
                    size_t errlen);
/* The frames as one JSON document appended to out: {"w","h",
 * "keyframe_turns","idle_ms","frames":[[index,ms,diff(,keyframe)]],
 * "turns" (the last frame's index),"bytes" (output replayed)}. Returns 0,
 * or -1 with err. */
int hostreplay_frames_json(const hostreplay_input_t *in, buf_t *out, char *err, size_t errlen);

#endif
