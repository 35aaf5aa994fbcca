/* byname — an ordered index of names (a red-black tree, libbsd's
 * <bsd/sys/tree.h>): a loop's live Warren games by player name, so a
 * watcher's < and > find the next game in O(log n) instead of walking
 * every session (screens/watch.c).
 *
 * Each element embeds a bynode_t, keyed by a name it keeps pointing at
 * (the element's own, unchanged while it is in) and a tie id telling
 * equal names apart (a game id). Names compare with strcmp.
 *
 *   byname_add(&idx, &s->by_player, s->user, s->game_id);
 *   for (bynode_t *n = byname_after(&idx, "kim", 1); n; n = byname_step(n, 1))
 *       ... the games of players after kim, in order ...
 *   byname_del(&idx, &s->by_player);
 *
 * Ownership: the elements are the caller's; the index allocates nothing.
 * Not thread-safe: its loop's thread, or that loop parked (shard.h). */
#ifndef WARREN_BYNAME_H
#define WARREN_BYNAME_H
#include <bsd/sys/tree.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bynode {
    RB_ENTRY(bynode) rb; /* private */
    const char *name;    /* read-only while in */
    int64_t tie;
    bool in; /* read-only: in an index */
} bynode_t;

typedef struct {
    RB_HEAD(byname_tree, bynode) root; /* private */
    size_t count;
} byname_t;

/* The element of type `type` whose member `field` is the node n. */
#define BYNAME_ITEM(n, type, field) ((type *)(void *)((char *)(n)-offsetof(type, field)))

void byname_init(byname_t *idx); /* empty */
/* n goes in under (name, tie); name is borrowed until byname_del. A node
 * already in stays where it is. */
void byname_add(byname_t *idx, bynode_t *n, const char *name, int64_t tie);
void byname_del(byname_t *idx, bynode_t *n); /* a node not in: nothing */
/* The first node whose name comes after name (dir > 0) or the last whose
 * name comes before it (dir < 0): never one named name; NULL when none. */
bynode_t *byname_after(byname_t *idx, const char *name, int dir);
/* The first node (dir > 0) or the last (dir < 0); NULL when empty. */
bynode_t *byname_end(byname_t *idx, int dir);
/* The node after n (dir > 0) or before it; NULL at the end. */
bynode_t *byname_step(bynode_t *n, int dir);

#endif
