/* drain — the state of a drain, for every layer; see drain.h. */
#include "drain.h"
#include "server.h"
#include "session.h"
#include "shard.h"

const drain_t *drain_of(const server_t *any)
{
    return shard_at(any, 0)->drain;
}

int drain_players(server_t *home)
{
    int n = 0;
    shards_lock_all(home);
    for (int i = 0; i < shard_count(home); i++) {
        LIST_EACH (it, &shard_at(home, i)->sessions) {
            const session_t *s = LIST_ITEM(it, session_t, node);
            n += !s->ended && s->player != NULL;
        }
    }
    shards_unlock_all(home);
    return n;
}
