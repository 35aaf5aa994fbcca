/* snapkinds — the kind names a snapshot carries, so that later content
 * can read it.
 *
 * A saved game stores kinds by index into the content's tables (creatures,
 * items, effects, terrain, spells, regions, traps, egos, races, classes)
 * and in bit sets by order (uniques, artifacts, known spells). A snapshot
 * therefore carries, beside its state, each table's names in the order of
 * the content that wrote it, the unique and artifact orders, and the
 * appearance (flavour) each item kind was dealt.
 *
 * Loading under other content: snapkinds_read maps every old index to the
 * loading content's by name and makes a shadow content (the loading
 * content's kinds laid out in the snapshot's order), under which the
 * state is read and checked unchanged; snapkinds_apply then moves every
 * index the state holds to the loading content and points the game at it.
 * A kind the state refers to that the loading content lacks makes the
 * snapshot unreadable, with its name in the message; kinds the state does
 * not refer to may be gone. Everything here lives on the game's allocator
 * and is freed by snapkinds_free (or game_free). */
#ifndef WARREN_SNAPKINDS_H
#define WARREN_SNAPKINDS_H
#include <stdbool.h>
#include "ser.h"
#include "world.h"

typedef struct snapkinds snapkinds_t;

/* The block: a u32 length, then the names, orders and flavours of g. */
void snapkinds_write(const game_t *g, ser_t *s);
/* Reads the block and maps it onto g->c. NULL with in failed (bad or
 * oversized block, out of memory). */
snapkinds_t *snapkinds_read(game_t *g, rd_t *in);
/* The content the state must be read under (borrowed from k): g->c itself
 * when every table maps to itself. */
const content_t *snapkinds_content(const snapkinds_t *k);
/* The state of g was read under snapkinds_content: fails in naming a kind
 * it refers to that c lacks, else moves every index to c, sets g->c = c
 * and the flavours the snapshot dealt. 0, or -1 with in failed. */
int snapkinds_apply(game_t *g, snapkinds_t *k, const content_t *c, rd_t *in);
void snapkinds_free(game_t *g, snapkinds_t *k); /* NULL is fine */

#endif
