/* hostclose — an account's hosted games closed at every node before its
 * delete's rows go (several nodes on one PostgreSQL, lease.h). A hosted
 * game holds no lease row, so the deleting node asks every live node
 * (db_peer_nodes; notify.h, NOTIFY_HCLOSE): each saves and closes the
 * account's games there (its player told, as session_close_user says)
 * and answers (NOTIFY_HCLOSED) once none of them runs any more and the
 * last copy of the player's files (hostcopy.h) is stored, or given up
 * (logged); the copy not done within HOSTCLOSE_WAIT_MS, it answers so.
 * The asker waits HOSTCLOSE_ASK_MS for every answer: longer, so a node's
 * answer that its close was not done in time comes while it waits.
 *
 * The requests and waits are home's (lease_t.closes), freed by
 * hostclose_stop. Home loop only. */
#ifndef WARREN_HOSTCLOSE_H
#define WARREN_HOSTCLOSE_H
#include <stdbool.h>
#include <stdint.h>
#include "notify.h"

#define HOSTCLOSE_WAIT_MS  5000
#define HOSTCLOSE_ASK_MS   (HOSTCLOSE_WAIT_MS + 3000) /* and the answer's way back */
#define HOSTCLOSE_NODES    32 /* nodes asked at once at most: more, the delete refused */
#define HOSTCLOSE_POLL_MS  50 /* how often a close here looks whether its copies are done */
/* closes here waiting at once at most (asked by other nodes, or this
 * one's deletes): more are closed but not waited for, answered not done
 * (logged), so a flood of asks never grows the list or its timers */
#define HOSTCLOSE_HERES    64
#define HOSTCLOSE_LOG_MS   60000 /* a close past the cap logged once in this */
#define HOSTCLOSE_GAME_MSG "The administrator saved and closed your game."

/* The account's games here saved and closed (its player told
 * HOSTCLOSE_GAME_MSG), then done(ud, true) on home once none of them runs
 * and every last copy of its files is stored or given up, or done(ud,
 * false) when that takes over HOSTCLOSE_WAIT_MS (or this node stops, or
 * HOSTCLOSE_HERES closes wait already).
 * done may be called within this call. */
typedef void (*hostclose_here_cb)(void *ud, bool done);
void hostclose_here(server_t *home, int64_t user, hostclose_here_cb done, void *ud);

typedef enum {
    HOSTCLOSE_DONE,     /* every live node answered: closed, its copies stored */
    HOSTCLOSE_SILENT,   /* node did not answer within HOSTCLOSE_ASK_MS */
    HOSTCLOSE_UNSTORED, /* node answered its games had not ended, or their copies stored, in time */
    HOSTCLOSE_FAILED,   /* not asked: the nodes not read (node NULL), or stopping */
    HOSTCLOSE_TOO_MANY, /* not asked: over HOSTCLOSE_NODES live, or a name too long */
} hostclose_result_t;
/* cb(ud, result, node: the node it names, or NULL) once, on home. */
typedef void (*hostclose_cb)(void *ud, hostclose_result_t result, const char *node);
/* Asks every other live node to close the account's games there. */
void hostclose_nodes(server_t *home, int64_t user, hostclose_cb cb, void *ud);

/* notify.c's handlers: another node asks this one (NOTIFY_HCLOSE), or
 * answers (NOTIFY_HCLOSED). */
void hostclose_asked(server_t *home, const notify_event_t *ev);
void hostclose_answered(server_t *home, const notify_event_t *ev);
/* Home, at a stop: every request and wait answered as failed. */
void hostclose_stop(server_t *home);

#endif
