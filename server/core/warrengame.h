/* warrengame — Warren's own engine as a session's game (backend.h): each
 * key applied, journalled and answered once its row is stored; the game
 * paused while rows cannot be stored; snapshots; its end stored, its
 * last screen told, its record verified (hooks.h: game_stored). Core only
 * (session_load.c brings its games into memory; storage.c retries).
 * Loop thread only. */
#ifndef WARREN_WARRENGAME_H
#define WARREN_WARRENGAME_H
#include <stddef.h>
#include <stdint.h>
#include "session.h"

/* A live session playing g (now owned by it) at journal length seq. NULL
 * when out of memory (g is not freed). */
session_t *warrengame_new(server_t *srv, int64_t game_id, int64_t user_id, const char *user,
                          game_t *g, uint64_t seq);
/* Writes a snapshot when keys came since the last one (why: for the log). */
void warrengame_snapshot(session_t *s, const char *why);

/* For storage.c, over this loop's Warren games: paused games submit their
 * held rows again; the rows not stored yet; dropping the held ones
 * (shutdown gave up). */
void warrengame_retry_paused(server_t *s);
size_t warrengame_unstored(server_t *s);
void warrengame_give_up(server_t *s);
/* For storage.c: this loop's copy of the database's state changed. While
 * storage holds (lost, stalled) every Warren game here shows the notice
 * over its last frame and drops keys, as a paused one does; after a
 * stall, those not paused go on. */
void warrengame_storage_changed(server_t *s);

#endif
