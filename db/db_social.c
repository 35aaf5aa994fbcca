/* db_social — what players leave for each other and where their games
 * stand: a game's place on the scores. */
#include "db_internal.h"

void db_game_rank(db_t *db, int64_t game, db_number_cb cb, void *ud)
{
    db_queue(db, DB_ON(number, cb, ud), 0, DB_STMT_GAME_RANK, DB_ARGS(DB_INT(game)));
}

void db_deliver_number(const db_op_t *op)
{
    const int64_t *n = db_op_first(op, 0);
    op->cb.fn.number(op->cb.ud, op->status, n ? *n : 0);
}
