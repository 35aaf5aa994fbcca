/* nodeend — the administrator's `end` of a game another node runs
 * (several nodes on one PostgreSQL, lease.h): the node the admin asked
 * tells the lease's holder (notify.h, NOTIFY_END), which ends the game
 * there as abandoned, as its own `end` would, and answers (NOTIFY_ENDED)
 * whether it had the game. The asker waits NODEEND_WAIT_MS for the
 * answer.
 *
 * The requests waiting for an answer are home's (lease_t.ends), freed by
 * nodeend_stop. Home loop only. */
#ifndef WARREN_NODEEND_H
#define WARREN_NODEEND_H
#include <stdbool.h>
#include <stdint.h>
#include "notify.h"

#define NODEEND_WAIT_MS 5000

typedef enum {
    NODEEND_ENDED,  /* node ended the game */
    NODEEND_NONE,   /* node has no such game (it ended, or moved, meanwhile) */
    NODEEND_SILENT, /* no answer within NODEEND_WAIT_MS */
    NODEEND_FAILED, /* not asked, or no answer awaited: this node stops, or out of memory */
} nodeend_result_t;

/* cb(ud, result) once, on home, after the answer (inside this call only
 * when it cannot ask: the listener stopped, or out of memory). */
typedef void (*nodeend_cb)(void *ud, nodeend_result_t result);
/* Asks node to end game, user's live game there: as abandoned, or when
 * close (NOTIFY_CLOSE: its account is being deleted) saved and closed,
 * its player told so and left at the menu. */
void nodeend_ask(server_t *home, const char *node, int64_t game, int64_t user, bool close,
                 nodeend_cb cb, void *ud);
/* notify.c's handlers: another node asks this one (NOTIFY_END,
 * NOTIFY_CLOSE), or
 * answers (NOTIFY_ENDED). */
void nodeend_asked(server_t *home, const notify_event_t *ev);
void nodeend_answered(server_t *home, const notify_event_t *ev);
/* Home, at a stop: every request still waiting answered NODEEND_FAILED. */
void nodeend_stop(server_t *home);

#endif
