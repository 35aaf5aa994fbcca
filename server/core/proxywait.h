/* proxywait — sockets from a `proxy-from` balancer waiting for their PROXY
 * header (proxyproto.h) before their listener takes them, for telnet and
 * the web door alike. The header is read off the socket and nothing past
 * it, so the gateway then reads the client's first byte as its own; the
 * listener's callback then gets the socket with the header's client
 * address in place of the balancer's, and everything keyed by address
 * (budget, bans, logs, login records) sees the client.
 *
 * A header may arrive a byte at a time; it must be complete within
 * PROXYWAIT_MS. A broken or late header, or more than PROXYWAIT_MAX
 * sockets waiting at once, closes the socket with a log line. A LOCAL
 * header (the balancer's own health check) keeps the balancer's address.
 *
 * Ownership: proxywait_new / proxywait_close (which drops the sockets
 * still waiting; the set is freed once their handles have closed). Loop
 * thread only. */
#ifndef WARREN_PROXYWAIT_H
#define WARREN_PROXYWAIT_H
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>
#include "listener.h"

#define PROXYWAIT_MS  5000 /* to send a whole header */
#define PROXYWAIT_MAX 1024 /* sockets waiting at once */

typedef struct proxywait proxywait_t;
struct logcap;

/* networks: proxy-from's text (config.h), already checked. name is what
 * log lines call the listener; its lines go under cap (logcap.h,
 * borrowed; NULL: none), a client's under its key (addrkey.h, IPv6 cut to
 * ipv6_prefix bits). cb gets each socket whose header came, with the
 * client's address as its peer. NULL when out of memory. */
proxywait_t *proxywait_new(uv_loop_t *loop, const char *name, const char *networks,
                           struct logcap *cap, int ipv6_prefix, listener_cb cb, void *ud);
/* Whether peer is a balancer listed in proxy-from (NULL w: none is). */
bool proxywait_from(const proxywait_t *w, const char *peer);
/* Takes the socket fd of the balancer peer: read its header, then cb. */
void proxywait_add(proxywait_t *w, int fd, const char *peer);
int proxywait_count(const proxywait_t *w); /* sockets waiting now */
void proxywait_close(proxywait_t *w);      /* NULL is fine */

#endif
