/* hostcap — the cap on live hosted games: hosted-max in all and
 * hosted-per-ip from one address (config.h), so a crowd of accounts
 * cannot use up the processes, descriptors and memory the daemon and
 * everyone else's games need.
 *
 * A game is charged to the address its player connected from when it
 * started (a takeover from elsewhere does not move it) and counts from its
 * start until its session is gone: one in its grace period, detached and
 * still running, counts. Over a cap the start is refused with a message
 * for the player and nothing is spawned. Attaching to one's own running
 * game takes nothing.
 *
 * The counts are budget.h's, kept in srv->hosted_cap on the home loop
 * (hosted games run only there). Ownership: hostcap_open / hostcap_close
 * pair (main.c); a slot taken is released once (hostgame.c, when its
 * session goes). */
#ifndef WARREN_HOSTCAP_H
#define WARREN_HOSTCAP_H
#include <stddef.h>
#include "budget.h"
#include "server.h"

/* Makes srv->hosted_cap from srv->cfg. 0, or -1 without memory. */
int hostcap_open(server_t *srv);
void hostcap_close(server_t *srv); /* every slot released first */

/* Charges a new game from addr ("" or NULL: the total only) to its key
 * (addrkey.h) in slot. 0, or
 * -1 with a line for the player in msg (n bytes) and nothing held. */
int hostcap_take(server_t *srv, budget_slot_t *slot, const char *addr, const char *key, char *msg,
                 size_t n);
/* Uncharges slot; one never taken (zeroed) is ignored. */
void hostcap_release(server_t *srv, budget_slot_t *slot);

#endif
