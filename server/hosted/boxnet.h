/* boxnet — the network namespace games without network share: one per
 * user (and group) they run as, made once by the spawner, loopback down,
 * owned by a user namespace of that user's id alone. Each game joins it
 * (setns) instead of making one of its own, which costs the kernel some
 * 190 KB and a millisecond to make and to tear down. What games could
 * share through it, abstract unix sockets, the kernel scopes to each game
 * (Landlock's LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, Linux 6.12): without
 * that, each game makes its own as before. Internal to the spawner. */
#ifndef WARREN_BOXNET_H
#define WARREN_BOXNET_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    uid_t uid;
    gid_t gid;
    int userns, netns; /* descriptors of its namespaces, close-on-exec */
} boxnet_t;

typedef struct {
    boxnet_t *v;
    int n, cap;
    int scope; /* 1: the kernel scopes abstract unix sockets; 0: no; -1: not asked yet */
} boxnets_t;

/* The shared namespaces for games run as uid/gid: *userns and *netns
 * (borrowed), made the first time. 1 when games share none (the kernel
 * cannot scope abstract unix sockets: each makes its own); -1 with err
 * when they could not be made. */
int boxnet_get(boxnets_t *b, uid_t uid, gid_t gid, int *userns, int *netns, char *err,
               size_t errlen);

void boxnet_free(boxnets_t *b);

/* In a game's process, in its own user namespace: abstract unix sockets
 * made outside its Landlock domain out of its reach (the domain its
 * children inherit). 0, or -1 with errno. */
int boxnet_scope_self(void);

/* In a user namespace just made: uid and gid map to themselves alone, no
 * setgroups. 0, or -1 with errno. */
int boxnet_map_ids(uid_t uid, gid_t gid);

#endif
