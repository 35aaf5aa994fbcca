/* privsep — warrend's start as root, the OpenSSH way: the spawner
 * (hosted/spawner.h) is forked with root's rights to start hosted games as
 * their users, then warrend itself becomes run-as (that user's groups, gid
 * and uid), keeping only CAP_NET_BIND_SERVICE when a listener's port is
 * below 1024, before it opens its database or anything else.
 *
 * Refused, as configuration errors: a games-user or run-as of uid 0, a
 * run-as that a warrend not started as root cannot become, and a run-as
 * that is also a game's user (the games could read the database). Logged:
 * games whose user is missing (they cannot start), a warrend not root
 * (hosted games then run as its own user), a root warrend without run-as.
 *
 * Call once, before any thread exists. */
#ifndef WARREN_PRIVSEP_H
#define WARREN_PRIVSEP_H
#include <stddef.h>
#include "config.h"

struct spawner;
/* Forks the spawner into *sp and drops privileges. Returns 0, or -1 with
 * err (nothing started then). */
int privsep_start(const config_t *cfg, struct spawner **sp, char *err, size_t errlen);

#endif
