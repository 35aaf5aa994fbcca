/* db_records — score tables, player totals and the verification backlog
 * (see db_records.h). Statements live in db_internal.h's table. */
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"
#include "db_records.h"

void db_scores_filtered(db_t *db, const db_scores_filter_t *f, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_SCORES_FILTERED,
             DB_ARGS(DB_TEXT(f->race), DB_TEXT(f->cls), DB_INT(f->since), DB_INT(f->limit),
                     DB_INT(f->offset)));
}

void db_games_unverified(db_t *db, int64_t after_id, size_t limit, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_UNVERIFIED,
             DB_ARGS(DB_INT(after_id), DB_INT(limit)));
}

/* ---- player totals ------------------------------------------------------------ */

static int read_totals(sqlite3_stmt *st, void *row)
{
    db_player_totals_t *t = row;
    int64_t *f[] = {&t->games, &t->finished, &t->live, &t->verified, &t->mismatched, &t->turns};
    for (int i = 0; i < 6; i++)
        *f[i] = sqlite3_column_int64(st, i);
    t->max_depth = sqlite3_column_int(st, 6);
    t->first_start = sqlite3_column_int64(st, 7);
    t->last_end = sqlite3_column_int64(st, 8);
    return DB_OK;
}

const db_row_t db_row_totals = {sizeof(db_player_totals_t), 9, read_totals, NULL};

typedef struct {
    int64_t game, score;
} best_row_t;

static int read_best(sqlite3_stmt *st, void *row)
{
    best_row_t *b = row;
    b->game = sqlite3_column_int64(st, 0);
    b->score = sqlite3_column_int64(st, 1);
    return DB_OK;
}

const db_row_t db_row_best = {sizeof(best_row_t), 2, read_best, NULL};

void db_player_totals(db_t *db, int64_t user, db_totals_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(totals, cb, ud), 0);
    db_op_step(op, DB_STMT_PLAYER_TOTALS, DB_ARGS(DB_INT(user)));
    db_op_step(op, DB_STMT_PLAYER_BEST, DB_ARGS(DB_INT(user)));
    db_submit(db, op);
}

void db_deliver_totals(const db_op_t *op)
{
    const db_player_totals_t *t = db_op_first(op, 0);
    if (!t) {
        op->cb.fn.totals(op->cb.ud, op->status, NULL);
        return;
    }
    db_player_totals_t all = *t;
    const best_row_t *b = db_op_first(op, 1);
    if (b) {
        all.best_game = b->game;
        all.best_score = b->score;
    }
    op->cb.fn.totals(op->cb.ud, op->status, &all);
}
