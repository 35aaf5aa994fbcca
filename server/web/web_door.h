/* web_door — the web listener's door, in front of libwebsockets (web.c).
 *
 * It accepts the sockets itself (listener.h: a pause, not a spin, when
 * descriptors run out), charges each to the connection budget shared with
 * telnet (budget.h) under its peer's address, and looks at the head of
 * the first request itself: a head over WEB_HEAD_MAX bytes or WEB_HEAD_FIELDS
 * fields and query parameters gets 431, a folded header line or a bad
 * escape in the target 400 (web_head_check), a client that
 * sends no complete head in time is dropped. Only then does the socket go
 * to libwebsockets, with a ticket web.c keeps beside the connection.
 *
 * A socket over the budget is still let in while few are, marked refused,
 * so that it gets a polite answer from web.c (HTTP 503; a websocket is
 * accepted and closed with 1013); past WEB_DOOR_REFUSING_MAX of those at
 * once a socket is closed at the door. A peer listed as a trusted proxy is
 * charged to the total only until web.c names the client it forwards
 * (web_door_charge). A socket from a proxy-from balancer first gives its
 * PROXY header (proxywait.h: read off the socket here, since libwebsockets
 * 4.1 has no PROXY support); its client then stands for the peer.
 *
 * Each request, and each websocket upgrade, also spends a token of its
 * client's bucket (addrrate.h: the same client the budget charges, its
 * key, addrkey.h), so one address opening and closing connections as fast
 * as they are accepted gets the rate, not the loop. A client that is the
 * peer (or a balancer's PROXY header) spends it here once its head has
 * come: over the rate, a request is answered 429 with Retry-After at the
 * door, never reaching libwebsockets, and a websocket upgrade goes on to
 * be closed with 1013 once open. A trusted proxy's client is known only
 * from its X-Forwarded-For: it spends its token in web.c (web_door_pace),
 * which answers the same way.
 *
 * Ownership: web_door_new / web_door_close; the door is freed once closed
 * and every ticket released. Loop thread only. */
#ifndef WARREN_WEB_DOOR_H
#define WARREN_WEB_DOOR_H
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>
#include "addrkey.h"
#include "budget.h"

#define WEB_DOOR_HEAD_MS      10000 /* to send a complete head */
#define WEB_DOOR_REFUSING_MAX 128   /* refused sockets waiting for their answer */

typedef struct web_door web_door_t;

/* One admitted socket, from the door until libwebsockets closes it. */
typedef struct web_ticket {
    web_door_t *door;
    budget_slot_t slot;
    bool refused; /* over the budget: answer 503 or 1013, then close */
    bool proxied; /* the peer is a trusted proxy */
    bool paced;   /* the request rate was checked at the door: wait_s is its answer */
    unsigned wait_s;
    char peer[64];
    char key[ADDRKEY_MAX]; /* peer's key (addrkey.h) */
} web_ticket_t;

/* Hands a socket on, unread (its head checked, still in the socket): fd and
 * ticket are the callee's from now on. */
typedef void (*web_door_pass_cb)(void *ud, int fd, web_ticket_t *t);

typedef struct {
    const char *listen;    /* "ADDR:PORT" */
    int backlog;           /* listen() backlog; 0 = LISTENER_BACKLOG */
    budget_t *budget;      /* borrowed; NULL = no limits */
    struct addrrate *pace; /* requests a second per client (addrrate.h), borrowed; NULL = none */
    struct logcap *cap;    /* the log's cap (logcap.h), borrowed; NULL = none */
    const char *trusted;   /* comma-separated proxy addresses, NULL = none */
    /* proxy-from: balancers whose sockets start with a PROXY header, read
     * at the door before the head (proxywait.h); NULL or "" = none */
    const char *proxy_from;
    int ipv6_prefix; /* what per-address limits count as one IPv6 address (addrkey.h) */
    web_door_pass_cb pass;
    void *ud;
} web_door_config_t;

/* NULL with a message in err when the address is bad or busy. */
web_door_t *web_door_new(uv_loop_t *loop, const web_door_config_t *cfg, char *err, size_t errlen);
int web_door_port(const web_door_t *d);
/* The client of a request on t is known (the peer, or whom a trusted proxy
 * forwards): charge t to its key (addrkey.h). 0, or -1 when that is over
 * the budget or client is banned (t is then refused). */
int web_door_charge(web_ticket_t *t, const char *client, const char *key);
/* A request (or websocket upgrade) on t from client: 0 when it is within
 * the rate of client's key (a token spent), else the seconds until it would
 * be (at least 1), the refusal logged under the log's cap. */
unsigned web_door_pace(web_ticket_t *t, const char *client, const char *key);
/* The socket of t closed: uncounts and frees t. */
void web_door_release(web_ticket_t *t);
/* Stops accepting and drops the sockets still at the door. NULL is fine. */
void web_door_close(web_door_t *d);

#endif
