/* frames — what a session's viewers see: the game's frame (or, paused,
 * the last one under storage's notice) with the layers' overlays on top
 * (hooks.h), diffed against the baseline and encoded once per profile for
 * every viewer that shares it; a keyframe for a viewer that is new,
 * resized or behind; a watcher that cannot share drawn at its own size.
 * The session's public calls about viewers (session_resized,
 * session_view_changed, session_drained, session_redraw, session_output)
 * are here too. Core only: the session and its backends. Loop thread
 * only. */
#ifndef WARREN_FRAMES_H
#define WARREN_FRAMES_H
#include <stdbool.h>
#include "session.h"

/* The change since the last frame to every viewer, now (not re-entered:
 * a broadcast asked for during one runs after it). */
void frames_broadcast(session_t *s);
/* A frame now when it shows only stored keys (or the paused notice), else
 * with the commit of the keys on their way. */
void frames_refresh(session_t *s);
/* The grid follows the player's terminal; everyone gets a keyframe. */
void frames_layout(session_t *s);
/* Whether watcher c shares the player's frames (its terminal holds them
 * and no overlay of its own is up). */
bool frames_shared(const session_t *s, const conn_t *c);
/* A keyframe of the shared baseline (or its own frame) for one viewer. */
void frames_keyframe(session_t *s, conn_t *c);
/* The watcher count changed (it shows on the player's status and the
 * watchers' line): a frame now, or for a crowd at the next frames_tick. */
void frames_count_changed(session_t *s);
/* Once a second: the frames crowds' counts wait for. */
void frames_tick(server_t *srv);
/* Frees what frames keep per session beside its grids (session_free). */
void frames_free(session_t *s);

#endif
