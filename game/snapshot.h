/* snapshot — the whole state as one blob, and the state hash.
 *
 * One walk over the state gives both: its bytes, packed
 * into a versioned, checksummed, compressed blob, and its FNV-1a hash, so
 * hash and snapshot can never disagree on what the state is. Derived
 * things (vision, the distance map, script errors) are not state. */
#ifndef WARREN_SNAPSHOT_H
#define WARREN_SNAPSHOT_H
#include <stddef.h>
#include <stdint.h>
#include "game.h"

uint64_t snapshot_hash(const game_t *g);           /* game_hash */
int snapshot_write(const game_t *g, buf_t *out);   /* game_snapshot: 0 or -1 */
int snapshot_state(const game_t *g, buf_t *state); /* game_snapshot_state */
int snapshot_pack(const buf_t *state, buf_t *out); /* game_snapshot_pack */
/* game_load: NULL and a message in err for a bad blob; never crashes. */
game_t *snapshot_read(const content_t *c, const uint8_t *blob, size_t len, char *err,
                      size_t errlen);

#endif
