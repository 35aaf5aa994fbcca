/* db_lease — game leases (db.h): a row per live game naming the node that
 * runs it, and a row per node (nodes) with its heartbeat's expiry. A lease
 * is valid while its node's heartbeat is fresh, so the heartbeat is one
 * upsert of one row, whatever the number of the node's games, queued like
 * any write (on the writer's connection, in its next batch). Taking a
 * lease succeeds only when it is free, its holder's heartbeat lapsed or it
 * is already the node's own, so two nodes racing for a game cannot both
 * win (take_steps); a take renews the taker's heartbeat in the same op, so
 * every lease's node has a row. Fencing (db_lease_fence) is in the
 * journal's and the snapshots' own statements (db_ops.c): an append locks
 * the lease row in its INSERT, so a fenced append costs no round trip more
 * than another; a taker moves the row under that lock, so the old holder's
 * later rows are refused. */
#include "db_internal.h"

#define DB_NODE_MAX 64 /* bytes of a node's name */

/* The node's heartbeat, then the lease, in one savepoint (db_op_t): made
 * if there is none (waiting for one being made), locked, moved to node if
 * its holder's heartbeat lapsed, and then node's or not (DB_ENOTFOUND).
 * Separate statements: on PostgreSQL each reads what committed before it
 * began, so the move sees the heartbeat of whoever held the row last, and
 * two nodes racing cannot both win. */
static void take_steps(db_op_t *op, int64_t game, const char *node, int64_t ttl_ms)
{
    db_arg_t n = DB_TEXT_MAX(node, DB_NODE_MAX);
    db_op_step(op, DB_STMT_NODE_BEAT, DB_ARGS(n, DB_INT(ttl_ms)));
    db_op_step(op, DB_STMT_LEASE_NEW, DB_ARGS(DB_INT(game), n));
    db_op_step(op, DB_STMT_LEASE_LOCK, DB_ARGS(DB_INT(game)));
    db_op_step(op, DB_STMT_LEASE_MOVE, DB_ARGS(DB_INT(game), n));
    db_op_step(op, DB_STMT_LEASE_OURS, DB_ARGS(DB_INT(game), n));
}

void db_lease_take(db_t *db, int64_t game, const char *node, int64_t ttl_ms, db_done_cb cb,
                   void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), game);
    take_steps(op, game, node, ttl_ms);
    db_submit(db, op);
}

/* cb's id: how many leases the node holds (read in the same op). The
 * games' text rides in the heartbeat's own upsert: one statement either
 * way, never one per game. */
void db_lease_renew(db_t *db, const char *node, int64_t ttl_ms, const char *games, db_done_cb cb,
                    void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(number, cb, ud), 0);
    db_arg_t n = DB_TEXT_MAX(node, DB_NODE_MAX);
    if (games)
        db_op_step(op, DB_STMT_NODE_BEAT_GAMES, DB_ARGS(n, DB_INT(ttl_ms), DB_TEXT(games)));
    else
        db_op_step(op, DB_STMT_NODE_BEAT, DB_ARGS(n, DB_INT(ttl_ms)));
    db_op_step(op, DB_STMT_NODE_LEASES, DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX)));
    db_submit(db, op);
}

void db_lease_release(db_t *db, int64_t game, const char *node, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), game, DB_STMT_LEASE_RELEASE,
             DB_ARGS(DB_INT(game), DB_TEXT_MAX(node, DB_NODE_MAX)));
}

void db_lease_let_go(db_t *db, int64_t game, const char *node, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), game, DB_STMT_LEASE_LET_GO,
             DB_ARGS(DB_INT(game), DB_TEXT_MAX(node, DB_NODE_MAX)));
}

void db_nodes_prune(db_t *db, int64_t ms, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_NODES_PRUNE, DB_ARGS(DB_INT(ms)));
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
        take_steps(op, game, node, ttl);
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
