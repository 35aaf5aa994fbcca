/* db_listen — PostgreSQL's LISTEN/NOTIFY between the nodes that share one
 * database (lease.h): small events (a game wanted elsewhere, a ban, a chat
 * line, a mail) that other nodes must hear at once. An event is a row of
 * node_events (below); its notification only tells the others to read
 * the log now. PostgreSQL asks no privilege for NOTIFY, so whoever can
 * connect can send one: a receiver never takes a notification's payload
 * for an event (notify.h), only the rows, which need INSERT.
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
 * Every notification is also a row of node_events, written in the same
 * transaction and numbered by that transaction's id (xid): a node whose
 * listener was down reads what it missed with db_events_since, the
 * notification carrying the row's id and the event's key so the two
 * never apply one event twice. Rows go after DB_EVENTS_KEEP_MS (db_events_prune);
 * a read takes only the newest DB_EVENTS_KEEP_ROWS.
 *
 * SQLite has none of it: db_notify is a no-op there, db_listen_open fails. */
#ifndef WARREN_DB_LISTEN_H
#define WARREN_DB_LISTEN_H
#include <stddef.h>
#include "db.h"

#define DB_NOTIFY_CHANNEL     "warren"
#define DB_NOTIFY_PAYLOAD_MAX 1024 /* bytes (a chat line fits); PostgreSQL allows 8000 */

/* A sender writes an event again (its write failed, or its commit went
 * unanswered) for at most DB_EVENTS_RESEND_MS after it was sent (notify.c's
 * outbox, each kind under it): its first row, if that one committed, must
 * still be there for its key to make the new write none. So rows stay
 * that long and two minutes more, for a write held up between the
 * sender's look at its age and its commit (the connection's timeouts are
 * seconds) and for the database's clock, which measures the rows' age,
 * being stepped meanwhile; never fewer by their count, which would let a
 * flood of others push such a row out. Far more than a listener's gap
 * (seconds: it connects again every second, a failover takes about ten).
 * The count bounds what one read returns while a flood is logged. */
#define DB_EVENTS_RESEND_MS 600000
#define DB_EVENTS_KEEP_MS   (DB_EVENTS_RESEND_MS + 120000)
#define DB_EVENTS_KEEP_ROWS 4096

typedef struct db_listen db_listen_t;

/* An event's key, chosen by its sender (notify.c): 32 lower-case hex
 * digits, unique among the log's rows (migration 18). */
#define DB_EVENT_KEY_LEN 32

/* A row of node_events: id, the number of its transaction (xid), its
 * payload as sent (without "ID XID KEY "), its key ("" for a row of a
 * build before keys), its age when read (ms, the database's clock);
 * next: where the following read starts. A read with no events has one
 * row of id 0, next set. */
typedef struct {
    int64_t id, xid, next, age_ms;
    char payload[DB_NOTIFY_PAYLOAD_MAX];
    char key[DB_EVENT_KEY_LEN + 1];
} db_node_event_t;
typedef void (*db_node_events_cb)(void *ud, int status, const db_node_event_t *rows, size_t n);
/* The events of other nodes than node numbered from or more, by id, of
 * the newest DB_EVENTS_KEEP_ROWS, however many older the log keeps. */
void db_events_since(db_t *db, int64_t from, const char *node, db_node_events_cb cb, void *ud);
/* Deletes the rows older than DB_EVENTS_KEEP_MS, however many are newer. */
void db_events_prune(db_t *db);
/* Of the accounts ids (n of them), those deleted (a: the id, b: 0) or
 * locked (b: 1): one read. */
void db_users_gone(db_t *db, const int64_t *ids, size_t n, db_pairs_cb cb, void *ud);
/* Web logins looked up again: of the n sessions (hashes[i], as
 * webgw_token_hash writes them, of account users[i]), those whose row
 * is gone, expired by now or another account's (a: i, b:
 * DB_LOGIN_ENDED), whose account is locked (DB_LOGIN_LOCKED) or deleted
 * (DB_LOGIN_DELETED), by i: one read, however many. */
enum { DB_LOGIN_ENDED = 1, DB_LOGIN_LOCKED = 2, DB_LOGIN_DELETED = 3 };
void db_logins_gone(db_t *db, const char *const *hashes, const int64_t *users, size_t n,
                    int64_t now, db_pairs_cb cb, void *ud);

/* Queues NOTIFY channel with "ID XID KEY payload" (payload at most
 * DB_NOTIFY_PAYLOAD_MAX bytes, key DB_EVENT_KEY_LEN hex digits) and its
 * row in the writer's next batch; cb (may be NULL) is told whether they
 * were written: a failed write leaves neither (the sender keeps the
 * event: notify.c's outbox), and one whose key a row has already (its
 * first write committed, the answer lost) writes neither again and is
 * DB_OK. No-op unless db is fenced by a node's leases (db_lease_fence:
 * PostgreSQL); cb then gets DB_OK. */
void db_notify(db_t *db, const char *channel, const char *payload, const char *key, db_done_cb cb,
               void *ud);

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
