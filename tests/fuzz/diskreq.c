/* Fuzz target: the disk measurer's requests (server/hosted/diskreq.c).
 * The measurer acts on a request with the game's user's ids and its
 * capabilities, so whatever the bytes, a request parses or is refused
 * with a reason; one that parses names a game of the config's, a pid
 * past 1, that game's own user, a directory name of [A-Za-z0-9_-], at
 * most 64 inodes watched, and is made again, from its fields, to the
 * very same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hosted/diskreq.h"

#define NAME_SET "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

static const spawner_user_t USERS[3] = {
    {.ok = true, .sw = true, .uid = 1000, .gid = 1000},
    {.ok = true},
    {.ok = true, .sw = true, .uid = 65534, .gid = 65534},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diskreq_t q;
    char err[160] = "";
    if (diskreq_parse(data, size, USERS, 3, &q, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return 0;
    }
    if (q.game < 0 || q.game >= 3 || q.pid < 2 || q.nwatched > DISKREQ_WATCH_MAX)
        abort();
    const spawner_user_t *u = &USERS[q.game];
    if (q.uid != u->uid || q.gid != u->gid || q.sw != (uint32_t)u->sw)
        abort();
    size_t len = strnlen(q.dir, sizeof q.dir);
    if (len == 0 || len == sizeof q.dir || strspn(q.dir, NAME_SET) != len)
        abort();
    diskreq_t again;
    diskreq_make(&again, q.batch, q.i, q.flags, q.game, q.pid, u, q.dir);
    again.nwatched = q.nwatched;
    memcpy(again.watched, q.watched, q.nwatched * sizeof q.watched[0]);
    if (size != sizeof again || memcmp(&again, data, size) != 0)
        abort();
    return 0;
}
