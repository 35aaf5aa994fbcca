/* db_listen — PostgreSQL's LISTEN/NOTIFY between the nodes that share one
 * database (lease.h): small events (a game wanted elsewhere, a ban, a chat
 * line, a mail) that other nodes must hear at once. A payload carries ids
 * (a receiver reads the rows they name) or, for a chat line, its words.
 *
 * Sending (db_notify) is queued like any write, on the writer's
 * connection: PostgreSQL delivers a notification when its transaction
 * commits, so a receiver never hears of a row before it can read it.
 * Listening is on a connection of its own (db_listen_t), never the
 * writer's: the loop polls its socket (db_listen_fd) and reads what came
 * (db_listen_read); a lost connection is closed by its owner and opened
 * again (db_listen_open, which blocks: call it off the loop). Every node
 * hears every notification of the channel, its own too.
 *
 * SQLite has none of it: db_notify is a no-op there, db_listen_open fails. */
#ifndef WARREN_DB_LISTEN_H
#define WARREN_DB_LISTEN_H
#include <stddef.h>
#include "db.h"

#define DB_NOTIFY_CHANNEL     "warren"
#define DB_NOTIFY_PAYLOAD_MAX 1024 /* bytes (a chat line fits); PostgreSQL allows 8000 */

typedef struct db_listen db_listen_t;

/* Queues NOTIFY channel with payload (at most DB_NOTIFY_PAYLOAD_MAX
 * bytes) in the writer's next batch. No-op unless db is fenced by a
 * node's leases (db_lease_fence: PostgreSQL). */
void db_notify(db_t *db, const char *channel, const char *payload);

/* A new connection to url listening on channel, or NULL with err set.
 * Blocks up to the connection's timeout. Freed by db_listen_close. */
db_listen_t *db_listen_open(const char *url, const char *channel, char *err, size_t errlen);
/* Its socket, for the caller's poll (readable: call db_listen_read). */
int db_listen_fd(const db_listen_t *l);
/* cb(ud, payload) for each notification received (payload borrowed).
 * DB_OK, or DB_ERR when the connection is lost (err says why). */
typedef void (*db_listen_cb)(void *ud, const char *payload);
int db_listen_read(db_listen_t *l, db_listen_cb cb, void *ud, char *err, size_t errlen);
void db_listen_close(db_listen_t *l);

#endif
