/* helpers — what the game suites share: the shipped content, kinds by
 * name, games set up the usual ways (past the creation screen; a made
 * character alone on level 1), keys, the message log, rooms, and
 * creatures put next to the player. Each failure aborts the calling test
 * (Check). */
#ifndef WARREN_TEST_HELPERS_H
#define WARREN_TEST_HELPERS_H
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include "content.h"
#include "world.h"

/* game/content, loaded (the test fails with the loader's message if not). */
content_t *shipped_content(void);
/* C is the shipped content during each test of a TCase given
 * with_shipped_content: loaded before the test and freed after it, in the
 * test's own process (a checked fixture); NULL outside such a test. */
extern content_t *C;
void with_shipped_content(TCase *t);
int kind_named(const content_t *c, const char *name);      /* a creature kind */
uint16_t item_named(const content_t *c, const char *name); /* an item kind */
int spell_named(const content_t *c, const char *name);     /* a spell's id */

/* g saved to a snapshot and loaded again as a new game (the test fails
 * with the loader's message if it cannot be); g itself is left as it was. */
game_t *reloaded(const game_t *g);
/* g past the creation screen (one key: a random character) and down from
 * the town to level 1, where most rules live; g may be NULL. */
game_t *started(game_t *g);
/* The player, in the town, goes down to level 1 (as its stairs would). */
game_t *down_from_town(game_t *g);
/* Every creature but the player leaves, with what it carries and its
 * effects (tests place their own). */
void clear_monsters(game_t *g);
/* A new game of seed with a made character (race, class indices) on
 * level 1 and no monsters. */
game_t *alone(const content_t *c, uint64_t seed, int race, int cls);
/* g (new, on its creation screen) becomes a strong human fighter beside
 * the warden on the bottom level, that level made and peopled. */
void hero_by_warden(game_t *g);

void key(game_t *g, uint32_t code);        /* one key, no script vm */
void keys(game_t *g, const char *k);       /* each byte a key */
void keys_paged(game_t *g, const char *k); /* the same, paging any --More-- first */

const char *last_msg(const game_t *g); /* the newest message */
/* True when a message since the from-th (of all ever logged) contains s
 * (a message logged in two, being too long for the line, read as one). */
bool said_since(const game_t *g, uint32_t from, const char *s);

/* An open room of floor around the player (radius r), walls beyond (the
 * player moved in from the map's edge when needed), no traps in it. */
void open_room(game_t *g, int r);
/* alone(c, seed, race, cls) in open_room(g, r). */
game_t *alone_in_room(const content_t *c, uint64_t seed, int race, int cls, int r);
/* Walls on every cell round the player but the one h stands on. */
void wall_in(game_t *g, handle_t h);
/* A free floor cell near the player, nearest ring first. */
void cell_near_player(game_t *g, int *x, int *y);
/* A creature of the named kind dx, dy from the player (the cell made
 * floor), with its first turn scheduled and the view updated. */
handle_t spawn_at(game_t *g, const char *name, int dx, int dy);

#endif
