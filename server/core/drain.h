/* drain — a node leaving service for a rolling upgrade (`warren-admin
 * drain`): what every layer needs to know of it. While home's drain is
 * set, /health answers 503 "draining" (a balancer stops sending players
 * here), the telnet door refuses new connections, the menu and /ws/play
 * start no game, and the clean stop (SIGTERM's) bids its players goodbye
 * with the drain's message, which tells them to reconnect.
 *
 * The control socket starts a drain and owns it (admin/control_drain.c:
 * the announcement, the deadline, then the clean stop); server_t.drain
 * points at it from then until the daemon has stopped. Home loop only;
 * other loops read it only while the daemon stops (conn_bye). */
#ifndef WARREN_DRAIN_H
#define WARREN_DRAIN_H
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#define DRAIN_MESSAGE_MAX     200
#define DRAIN_DEFAULT_MESSAGE "This server is restarting. Your game is saved: reconnect to go on."

typedef struct server server_t;

typedef struct drain {
    /* read-only once started */
    int64_t since;        /* Unix seconds */
    uint64_t start_ms;    /* home's uv_now then */
    uint64_t deadline_ms; /* the clean stop begins by then */
    char message[DRAIN_MESSAGE_MAX];
    /* control_drain.c's */
    bool stopping; /* the clean stop was asked for */
    uv_timer_t timer;
} drain_t;

/* Home's drain, or NULL when the node is in service. */
const drain_t *drain_of(const server_t *any);
/* Players attached to a live game on any loop (home only: parks the others). */
int drain_players(server_t *home);

#endif
