/* notify — small events between the nodes that share one PostgreSQL
 * (lease.h), over LISTEN/NOTIFY (db_listen.h): one channel, every node
 * listening on a connection of its own, polled by the home loop.
 *
 * An event is a line "KIND TO FROM A B": a kind from the table in
 * notify.c, the node it is for ("*": every node), the node that sent it
 * and two ids; the receiver reads the rows they name. A chat line is the
 * one event that carries its words: "chat * FROM GAME SEQ NAME TEXT",
 * TEXT percent-encoded (every byte but printable ASCII other than '%'),
 * so a payload stays one line of ASCII under DB_NOTIFY_PAYLOAD_MAX.
 * Events a node sends reach it too; it skips those (a chat line is shown
 * once where it is said), and those for another node. What a kind does
 * runs on the home loop (a game's on the loop that holds it: shard_post).
 *
 * The listener's connection, lost (a restart, a failover), is made again
 * every second off the loop (libuv's thread pool) until it works; events
 * sent meanwhile are not heard, so a sender that waits on one sends it
 * again (session_load.c's takeover does), and once the listener is back
 * the node reads again what it keeps of the others' events (the bans and
 * mutes, its connections' accounts, mail waiting for those at the menu),
 * so a ban made meanwhile holds here too. Chat lines of the gap are lost.
 *
 * SQLite (one node): nothing is started, notify_send does nothing.
 * Home loop only, except notify_send (any loop, on its own db handle). */
#ifndef WARREN_NOTIFY_H
#define WARREN_NOTIFY_H
#include <stddef.h>
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
#define NOTIFY_CHAT      "chat"      /* a: game, b: the sender's count; NAME TEXT: a chat line */
#define NOTIFY_CHAT_OFF  "chatoff"   /* a: game, b: 1 its player turned chat off, 0 on */
#define NOTIFY_END       "end"   /* a: game, b: account; the administrator ends it (nodeend.h) */
#define NOTIFY_ENDED     "ended" /* a: game asked of, b: 1 ended, 0 no such game here */

#define NOTIFY_TEXT_MAX 200 /* bytes of a chat line's text (chat.h's CHAT_MAX) */

/* An event as notify_parse reads it. */
typedef struct {
    char kind[16], to[64], from[64]; /* to: a node's name or "*"; from: a node's */
    int64_t a, b;
    /* a chat line's ("" and 0 for the other kinds): who said it (an
     * account's name) and what, text_len bytes, no control characters */
    char name[32];
    char text[NOTIFY_TEXT_MAX + 1];
    size_t text_len;
} notify_event_t;
/* payload, "KIND TO FROM A B" (single spaces, a known kind, node names
 * as config_node_ok, ids as decimal numbers) and, for a chat line,
 * " NAME TEXT" (TEXT as notify_format writes it, nothing else), into ev:
 * 0, or -1 when it is not one (ev then undefined). Any thread. */
int notify_parse(const char *payload, notify_event_t *ev);
/* ev as a payload into out (n bytes): its length, or -1 when it does not
 * fit. notify_parse reads it back as ev. Any thread. */
int notify_format(const notify_event_t *ev, char *out, size_t n);

/* Queues event kind for node to ("*": all) with ids a, b, sent when the
 * writer's batch commits. No-op when leases are off. Any loop. */
void notify_send(server_t *s, const char *kind, const char *to, int64_t a, int64_t b);
/* A chat line said here in game (chat.c), for the other nodes' viewers of
 * it: seq tells two equal lines apart (PostgreSQL folds equal
 * notifications of one transaction into one). No-op when leases are
 * off, and for a hosted game (game 0: never watched elsewhere). The
 * game's loop. */
void notify_send_chat(server_t *s, int64_t game, int64_t seq, const char *name, const char *text,
                      size_t n);

#endif
