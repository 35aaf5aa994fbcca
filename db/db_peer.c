/* db_peer — what the node-to-node stream (server/core/peer.h) reads: the
 * live games other nodes hold leases of, so every node's lists show them.
 * Read once in full, then as a change feed: the lease rows and tombstones
 * whose change number (migration 13) is at or past the last read's, so an
 * idle cluster costs a read of nothing, whatever its number of games.
 * And each other node's heartbeat row (db_peer_node): fresh or not, and
 * what its heartbeat says of its games (a text, migration 17) only when
 * it said something since the reader's last look, and the names of the
 * nodes whose heartbeat is fresh (db_peer_nodes: one that runs only
 * hosted games holds no lease, and is found so). */
#include <stdlib.h>
#include "db_internal.h"

#define DB_NODE_MAX 64 /* bytes of a node's name, as db_lease.c */

static int read_peer_game(const db_cur_t *st, void *row)
{
    db_peer_game_t *r = row;
    *r = (db_peer_game_t){0};
    int ret = db_row_game.read(st, &r->g); /* all NULL for a tombstone of a game deleted since */
    db_col_copy(st, 20, r->node, sizeof r->node);
    r->chg = db_col_int(st, 21);
    r->g.id = db_col_int(st, 22);
    r->away = db_col_int(st, 23) != 0;
    if (!r->node[0]) /* a tombstone: nothing of the game row counts */
        r->g.state = DB_GAME_FINISHED;
    return ret;
}

const db_row_t db_row_peer_game = {sizeof(db_peer_game_t), 24, read_peer_game, NULL};

void db_deliver_peer_games(const db_op_t *op)
{
    op->cb.fn.peer_games(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

void db_peer_cursor(db_t *db, db_number_cb cb, void *ud)
{
    db_queue(db, DB_ON(number, cb, ud), 0, DB_STMT_PEER_CURSOR, DB_NOARGS);
}

void db_peer_games_all(db_t *db, const char *node, size_t limit, db_peer_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(peer_games, cb, ud), 0, DB_STMT_PEER_GAMES_ALL,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX), DB_INT(limit)));
}

void db_peer_games_changed(db_t *db, int64_t cursor, db_peer_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(peer_games, cb, ud), 0, DB_STMT_PEER_GAMES_CHANGED, DB_ARGS(DB_INT(cursor)));
}

static int read_peer_node(const db_cur_t *st, void *row)
{
    db_peer_node_t *r = row;
    *r = (db_peer_node_t){
        .alive = db_col_int(st, 0) != 0, .at = db_col_int(st, 1), .age_ms = db_col_int(st, 2)};
    if (!db_col_int(st, 3)) /* nothing new said: the text is not read */
        return DB_OK;
    return (r->games = db_col_dup(st, 4, &r->len)) ? DB_OK : DB_ENOMEM;
}

static void free_peer_node(void *row)
{
    free(((db_peer_node_t *)row)->games);
}

const db_row_t db_row_peer_node = {sizeof(db_peer_node_t), 5, read_peer_node, free_peer_node};

void db_deliver_peer_node(const db_op_t *op)
{
    op->cb.fn.peer_node(op->cb.ud, op->status, db_op_first(op, 0));
}

void db_peer_node(db_t *db, const char *node, int64_t known_at, db_peer_node_cb cb, void *ud)
{
    db_queue(db, DB_ON(peer_node, cb, ud), 0, DB_STMT_PEER_NODE,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX), DB_INT(known_at)));
}

void db_peer_nodes(db_t *db, const char *node, db_text_cb cb, void *ud)
{
    db_queue(db, DB_ON(text, cb, ud), 0, DB_STMT_PEER_NODES,
             DB_ARGS(DB_TEXT_MAX(node, DB_NODE_MAX)));
}

void db_peer_prune(db_t *db, int64_t ms, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_PEER_PRUNE, DB_ARGS(DB_INT(ms)));
}
