/* db_peer — what the node-to-node stream (server/core/peer.h) reads: the
 * live games other nodes hold leases of, so every node's lists show them. */
#include "db_internal.h"

#define DB_NODE_MAX 64 /* bytes of a node's name, as db_lease.c */

void db_games_leased_elsewhere(db_t *db, const char *node, size_t limit, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_LEASED_ELSEWHERE,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX), DB_INT(limit)));
}
