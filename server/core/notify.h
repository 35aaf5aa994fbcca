/* notify — small events between the nodes that share one PostgreSQL
 * (lease.h), over LISTEN/NOTIFY (db_listen.h): one channel, every node
 * listening on a connection of its own, polled by the home loop.
 *
 * An event is a line "KIND TO FROM A B": a kind from the table in
 * notify.c, the node it is for ("*": every node), the node that sent it
 * and two ids; the receiver reads the rows they name. Two kinds carry
 * words: a rename its account's new name, "rename * FROM ACCOUNT 0 NAME",
 * and a chat line its sender's name and text, "chat * FROM GAME SEQ NAME
 * TEXT", TEXT percent-encoded (every byte but printable ASCII other than
 * '%'), so a payload stays one line of ASCII under DB_NOTIFY_PAYLOAD_MAX.
 * Events a node sends are not read back by it (a chat line is shown once
 * where it is said); it skips those for another node. What a kind does
 * runs on the home loop (a game's on the loop that holds it: shard_post).
 *
 * An event is a row of the database's event log, written with a NOTIFY
 * (db_listen.h), and only the rows are applied: PostgreSQL asks no
 * privilege for NOTIFY, so any role that can connect could send one,
 * while a row needs INSERT on node_events. A notification, whatever it
 * says, only makes the node read the log at once (one read in flight
 * and at most one more waiting, however many come: a flood costs two
 * reads at a time, and a line a second in the log for those not of the
 * nodes' form); the node also reads it every 2 s. A read applies, in
 * order, the events past its cursor that it has not applied yet (each
 * known by its row's id and key), so each is applied once however many
 * reads return it while the log keeps it (notify_once_t). The cursor
 * follows migration 13's rule (a transaction still running keeps it
 * back), so an event committed late is never passed over. The first read
 * only sets the cursor, before the listener connects: what commits after
 * it is read, heard of or not.
 *
 * A node of a build before the log sends its events bare ("KIND TO FROM
 * A B", no ids) and writes no row: they are heard only through the log,
 * which it does not write, so they are not applied (said as not
 * understood; a rolling upgrade: deploy/RUNNING.md).
 *
 * The listener's connection, lost (a restart, a failover), is made again
 * every second off the loop (libuv's thread pool) until it works; events
 * sent meanwhile (a kick, a chat line, an end) come from the log within
 * 2 s, and at once when the listener is back; all but a takeover's
 * request read more than a second after it was written, which its sender
 * repeats while it waits (session_load.c), so one read late never takes
 * a game from a player who came back since. The node then
 * also reads again what the rows keep of the others' events (bans and
 * mutes, its connections' accounts, mail waiting for those at the menu)
 * and asks for its mirrors' chat-off (below), for a gap longer than the
 * log keeps them (DB_EVENTS_KEEP_MS: 12 minutes).
 *
 * A player's chat-off travels as an event (NOTIFY_CHAT_OFF) to the
 * mirrors other nodes keep of the game, so their watchers are refused
 * where they type, as at the game's node (rather than checked where the
 * line is heard, which would still show it to the watchers beside its
 * sender). A mirror made after the toggle learns it when the game's node
 * drops the first line said there: that node says it again. A node that
 * listens again after a gap (perhaps longer than the log keeps) takes
 * its mirrors' chat as on, as new ones, and asks (NOTIFY_CHAT_ASK): every
 * node says again which of its games have chat off, and so does it.
 *
 * SQLite (one node): nothing is started, notify_send does nothing.
 * Home loop only, except notify_send (any loop, on its own db handle). */
#ifndef WARREN_NOTIFY_H
#define WARREN_NOTIFY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "db_listen.h"

typedef struct server server_t;
typedef struct notify notify_t;

/* Home, after lease_start: listens when leases are on. */
void notify_start(server_t *home);
/* Home, at a stop: the listener closed (its memory once libuv let go). */
void notify_stop(server_t *home);

/* Since the start (warren-admin health): notifications heard, reads of
 * the log begun, events new to the node read from it (applied when for
 * it).
 * Zeros when leases are off. Home loop. */
typedef struct {
    uint64_t heard, reads, events;
} notify_stats_t;
void notify_stats(const server_t *home, notify_stats_t *out);

/* The event kinds. */
#define NOTIFY_TAKE      "take"      /* a: game, b: account; its player is at another node now */
#define NOTIFY_SANCTIONS "sanctions" /* the stored bans or mutes changed */
/* An account's connections sent off by the administrator, each kind
 * told its own words (moderation.h): a: the account. A kick's b is 0; a
 * build before lock, delete and rename were kinds of their own sent them
 * as a kick, b 1 a lock and 2 a delete, still read so. */
#define NOTIFY_KICK      "kick"
#define NOTIFY_LOCK      "lock"
#define NOTIFY_DELETE    "delete"
#define NOTIFY_RENAME    "rename"  /* NAME: the account's new name */
#define NOTIFY_MAIL      "mail"    /* a: an account that has new mail */
#define NOTIFY_CHAT      "chat"    /* a: game, b: the sender's count; NAME TEXT: a chat line */
#define NOTIFY_CHAT_OFF  "chatoff" /* a: game, b: 1 its player turned chat off, 0 on */
#define NOTIFY_CHAT_ASK  "chatask" /* a node listening again asks which games have chat off */
#define NOTIFY_END       "end"     /* a: game, b: account; the administrator ends it (nodeend.h) */
#define NOTIFY_ENDED     "ended"   /* a: game asked of, b: 1 ended, 0 no such game here */
/* a: game, b: account; the account is deleted: its game saved and closed
 * (nodeend.h), answered NOTIFY_ENDED */
#define NOTIFY_CLOSE     "close"
/* a: account, b: a delete's number at its node (> 0) began, -number ended
 * (moderation.h) */
#define NOTIFY_DELETING  "deleting"
/* a: account; its games here saved and closed (its account deleted),
 * answered NOTIFY_HCLOSED once their last copies are stored (hostclose.h) */
#define NOTIFY_HCLOSE    "hclose"
#define NOTIFY_HCLOSED   "hclosed" /* a: account, b: 1 closed and stored, 0 not in time */
/* Web logins ended at another node (hooks.h's logins_ended); a login's
 * key is its session's (webgw_login_key), never the cookie nor its hash. */
#define NOTIFY_LOGOUT    "logout" /* b: the key of a login that logged out */
#define NOTIFY_PASSWD    "passwd" /* a: account whose password changed, b: key of the login kept */
#define NOTIFY_LOGINS    "logins" /* a: account whose logins past the cap were deleted */

#define NOTIFY_TEXT_MAX 200 /* bytes of a chat line's text (chat.h's CHAT_MAX) */

/* An event as notify_parse reads it. */
typedef struct {
    char kind[16], to[64], from[64]; /* to: a node's name or "*"; from: a node's */
    int64_t a, b;
    /* an account's name: a rename's new one, a chat line's sender ("" for
     * the other kinds); a chat line's words ("" and 0 for the others),
     * text_len bytes, no control characters */
    char name[32];
    char text[NOTIFY_TEXT_MAX + 1];
    size_t text_len;
} notify_event_t;
/* payload, "KIND TO FROM A B" (single spaces, a known kind, node names
 * as config_node_ok, ids as decimal numbers) and, for a rename, " NAME"
 * (an account's name: letters, digits, '_' and '-'), for a chat line,
 * " NAME TEXT" (TEXT as notify_format writes it, nothing else), into ev:
 * 0, or -1 when it is not one (ev then undefined). Any thread. */
int notify_parse(const char *payload, notify_event_t *ev);
/* ev as a payload into out (n bytes): its length, or -1 when it does not
 * fit. notify_parse reads it back as ev. Any thread. */
int notify_format(const notify_event_t *ev, char *out, size_t n);

/* A notification as the event log sends it, "ID XID KEY PAYLOAD"
 * (db_listen.h: the row's id and its transaction's number, positive
 * decimal numbers; the event's key, DB_EVENT_KEY_LEN lower-case hex
 * digits; single spaces), or "ID XID PAYLOAD" as a build before keys
 * sends it: 0 with key set ("" when there is none) and *rest pointing at
 * PAYLOAD (for notify_parse), or -1 when it is neither. A kind is never
 * 32 hex digits, so the two cannot be taken for each other. Any thread. */
int notify_split(const char *payload, int64_t *id, int64_t *xid, char key[DB_EVENT_KEY_LEN + 1],
                 const char **rest);

/* The start of a payload not understood, as the log shows it: its first
 * NOTIFY_SHOWN_MAX bytes as one line of printable ASCII, any other byte
 * (and a backslash) written \xNN, "..." after them when there are more (no
 * line break or escape sequence forged by whoever can NOTIFY). Returns
 * out. Any thread. */
#define NOTIFY_SHOWN_MAX  80
#define NOTIFY_SHOWN_SIZE (4 * NOTIFY_SHOWN_MAX + 4)
const char *notify_shown(const char *payload, char out[NOTIFY_SHOWN_SIZE]);

/* Which events to apply, of those the log's reads bring (notify.c's,
 * exposed for its tests). An event is known by its
 * row's id and, under that id, by its sender's key (a row of a build
 * before keys: by its transaction's number and payload; notify_once_key).
 * A write tried again after its commit went unanswered adds no row
 * (db_notify), so one event is one row. The events applied are
 * remembered, a key each, down to NOTIFY_ONCE_SPAN ids below the newest
 * read, and a read returns only rows among the log's newest
 * DB_EVENTS_KEEP_ROWS (db_listen.h). So one event is applied once
 * however many reads, however far apart, return it, as long as a read
 * may return it, in a fixed 64 KiB.
 *
 * A database restored from a backup numbers its rows again from where
 * the backup left them: below ids this node has seen. An id that comes
 * again as another event (another key) is a new event, applied; one far
 * below the newest (NOTIFY_ONCE_SPAN or more) starts the memory again
 * from it; a read whose next cursor is below the one it started from
 * (the transactions' numbers went back) moves the cursor back. Each said
 * in one line, the first time it is seen. Zeroed: nothing applied, no
 * read yet. */
#define NOTIFY_ONCE_SPAN (2 * DB_EVENTS_KEEP_ROWS)
typedef struct {
    int64_t cursor;                  /* the next read takes the events numbered this or more */
    bool started;                    /* cursor set by a first read */
    int64_t top;                     /* the newest id remembered (0: none) */
    int64_t back;                    /* top when ids going back were last said (0: never) */
    uint64_t keys[NOTIFY_ONCE_SPAN]; /* id % SPAN: the key applied, for ids above top - SPAN */
} notify_once_t;
/* What an event is known by under its id: its sender's key, hashed, or
 * for one without ("") its transaction's number and payload (as the log
 * keeps it, without "ID XID "); never 0. */
uint64_t notify_once_key(int64_t xid, const char *key, const char *payload);
/* A read of the log (db_events_since's rows): fn(ud, row) for each event
 * to apply, in order, and the cursor moved to the read's next; the first
 * read applies none (what was said before the node started is not its).
 * Returns how many were applied. */
typedef void (*notify_once_fn)(void *ud, const db_node_event_t *row);
size_t notify_once_read(notify_once_t *o, const db_node_event_t *rows, size_t n, notify_once_fn fn,
                        void *ud);

/* Queues event kind for node to ("*": all) with ids a, b, sent when the
 * writer's batch commits. No-op when leases are off. Any loop.
 *
 * Each event has a key of its sender's (the loop's 64 random bits drawn
 * once, and its count of events), written in its row's UNIQUE column:
 * a write whose commit went unanswered (the connection lost after the
 * server committed) is written again under the same key, which the
 * database then takes as done (no second row, no second notification),
 * so the other nodes apply it once.
 *
 * An event whose write fails (the database away, a statement refused) is
 * not lost: the loop keeps it in its outbox, in order with those sent
 * after it, up to NOTIFY_OUTBOX_MAX (past that one is dropped, said in
 * the log), and writes them again once the database takes one (tried on
 * the loop's second tick, notify_retry), each while it still means
 * something: an event kept longer than its kind's age limit (notify.c's
 * KINDS: a chat line 15 s, a kick, lock, delete, deleting or rename 60 s, an end, close or hclose
 * while its asker waits, a change to read again 10 min) is dropped
 * unwritten, the count said in one line. A takeover's request is not kept: its sender asks again
 * while it waits, and a late one could take a game from a player back
 * since. */
#define NOTIFY_OUTBOX_MAX 4096
void notify_send(server_t *s, const char *kind, const char *to, int64_t a, int64_t b);
/* notify_send of a kind that carries an account's name (a rename's new
 * name): not sent, said in the log, when name is not one. */
void notify_send_named(server_t *s, const char *kind, const char *to, int64_t a, int64_t b,
                       const char *name);
/* Each second (server_tick): while the loop's outbox holds events the
 * database refused, the oldest is written again; once it is, the rest. */
void notify_retry(server_t *s);
/* After the loop's db_close: what the outbox still holds is let go (said
 * in the log). */
void notify_outbox_free(server_t *s);
/* A chat line said here in game (chat.c), for the other nodes' viewers of
 * it: seq tells two equal lines apart (PostgreSQL folds equal
 * notifications of one transaction into one). No-op when leases are
 * off, and for a hosted game (game 0: never watched elsewhere). The
 * game's loop. */
void notify_send_chat(server_t *s, int64_t game, int64_t seq, const char *name, const char *text,
                      size_t n);

#endif
