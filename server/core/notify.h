/* notify — small events between the nodes that share one PostgreSQL
 * (lease.h), over LISTEN/NOTIFY (db_listen.h): one channel, every node
 * listening on a connection of its own, polled by the home loop.
 *
 * An event is a line "KIND TO FROM A B": a kind from the table in
 * notify.c, the node it is for ("*": every node), the node that sent it
 * and two ids; the receiver reads the rows they name. Events a node sends
 * reach it too; it skips those, and those for another node. What a kind does runs on the home loop (a game's on the
 * loop that holds it: shard_post).
 *
 * The listener's connection, lost (a restart, a failover), is made again
 * every second off the loop (libuv's thread pool) until it works; events
 * sent meanwhile are not heard, so a sender that waits on one sends it
 * again (session_load.c's takeover does).
 *
 * SQLite (one node): nothing is started, notify_send does nothing.
 * Home loop only, except notify_send (any loop, on its own db handle). */
#ifndef WARREN_NOTIFY_H
#define WARREN_NOTIFY_H
#include <stdint.h>

typedef struct server server_t;
typedef struct notify notify_t;

/* Home, after lease_start: listens when leases are on. */
void notify_start(server_t *home);
/* Home, at a stop: the listener closed (its memory once libuv let go). */
void notify_stop(server_t *home);

/* The event kinds. */
#define NOTIFY_TAKE      "take"      /* a: game, b: account; its player is at another node now */
#define NOTIFY_SANCTIONS "sanctions" /* the stored bans or mutes changed */
#define NOTIFY_KICK      "kick"      /* a: an account the administrator disconnected */
#define NOTIFY_MAIL      "mail"      /* a: an account that has new mail */

/* An event as notify_parse reads it. */
typedef struct {
    char kind[16], to[64], from[64]; /* to: a node's name or "*"; from: a node's */
    int64_t a, b;
} notify_event_t;
/* payload, "KIND TO FROM A B" (single spaces, a known kind, node names
 * as config_node_ok, ids as decimal numbers), into ev: 0, or -1 when it
 * is not one (ev then undefined). Any thread. */
int notify_parse(const char *payload, notify_event_t *ev);

/* Queues event kind for node to ("*": all) with ids a, b, sent when the
 * writer's batch commits. No-op when leases are off. Any loop. */
void notify_send(server_t *s, const char *kind, const char *to, int64_t a, int64_t b);

#endif
