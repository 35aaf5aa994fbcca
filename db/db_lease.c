/* db_lease — game leases (db.h): a row per live game naming the node that
 * runs it and until when. Taking one is a single upsert that succeeds only
 * when the lease is free, expired or already the node's own, so two nodes
 * racing for a game cannot both win; the heartbeat is one UPDATE of every
 * lease of the node, queued like any write (on the writer's connection, in
 * its next batch). Fencing (db_lease_fence) is in the journal's and the
 * snapshots' own statements (db_ops.c): an append locks the lease row in
 * its INSERT, so a fenced append costs no round trip more than another. */
#include "db_internal.h"

#define DB_NODE_MAX 64 /* bytes of a node's name */

void db_lease_take(db_t *db, int64_t game, const char *node, int64_t ttl_ms, db_done_cb cb,
                   void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), game, DB_STMT_LEASE_TAKE,
             DB_ARGS(DB_INT(game), DB_TEXT_MAX(node, DB_NODE_MAX), DB_INT(ttl_ms)));
}

void db_lease_renew(db_t *db, const char *node, int64_t ttl_ms, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_LEASE_RENEW,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX), DB_INT(ttl_ms)));
}

void db_lease_release(db_t *db, int64_t game, const char *node, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), game, DB_STMT_LEASE_RELEASE,
             DB_ARGS(DB_INT(game), DB_TEXT_MAX(node, DB_NODE_MAX)));
}

void db_lease_release_node(db_t *db, const char *node, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_LEASE_RELEASE_NODE,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX)));
}

void db_lease_step_new(const db_t *db, db_op_t *op, int64_t game)
{
    int64_t ttl;
    const char *node = db_lease_node_(db, &ttl);
    if (node)
        db_op_step(op, DB_STMT_LEASE_TAKE, DB_ARGS(DB_INT(game), DB_TEXT(node), DB_INT(ttl)));
}

void db_leases_of_node(db_t *db, const char *node, db_game_ids_cb cb, void *ud)
{
    db_queue(db, DB_ON(game_ids, cb, ud), 0, DB_STMT_LEASES_OF_NODE,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX)));
}

void db_deliver_game_ids(const db_op_t *op)
{
    op->cb.fn.game_ids(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

void db_lease_holder(db_t *db, int64_t game, db_text_cb cb, void *ud)
{
    db_queue(db, DB_ON(text, cb, ud), 0, DB_STMT_LEASE_HOLDER, DB_ARGS(DB_INT(game)));
}

void db_games_lease_lapsed(db_t *db, const char *node, int64_t limit, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_LEASE_LAPSED,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX), DB_INT(limit)));
}
