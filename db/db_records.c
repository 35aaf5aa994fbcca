/* db_records — score tables, player totals and the verification backlog
 * (see db_records.h). Statements live in db_internal.h's table. */
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"
#include "db_records.h"

/* The statement of each filter, by race given + 2 * class given. */
static const int scores_stmts[] = {DB_STMT_SCORES_TOP, DB_STMT_SCORES_RACE, DB_STMT_SCORES_CLASS,
                                   DB_STMT_SCORES_RACE_CLASS};

void db_scores_filtered(db_t *db, const db_scores_filter_t *f, db_games_cb cb, void *ud)
{
    bool race = f->race && f->race[0], cls = f->cls && f->cls[0];
    int stmt = scores_stmts[race + 2 * cls];
    if (stmt == DB_STMT_SCORES_TOP && f->since > 0)
        stmt = DB_STMT_SCORES_SINCE;
    db_queue(db, DB_ON(games, cb, ud), 0, stmt,
             DB_ARGS(DB_TEXT(f->race), DB_TEXT(f->cls), DB_INT(f->since), DB_INT(f->limit),
                     DB_INT(f->offset)));
}

void db_games_unverified(db_t *db, int64_t after_id, size_t limit, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_UNVERIFIED,
             DB_ARGS(DB_INT(after_id), DB_INT(limit)));
}

/* ---- player totals ------------------------------------------------------------ */

static int read_totals(const db_cur_t *st, void *row)
{
    db_player_totals_t *t = row;
    int64_t *f[] = {&t->games, &t->finished, &t->live, &t->verified, &t->mismatched, &t->turns};
    for (int i = 0; i < 6; i++)
        *f[i] = db_col_int(st, i);
    t->max_depth = (int)db_col_int(st, 6);
    t->first_start = db_col_int(st, 7);
    t->last_end = db_col_int(st, 8);
    return DB_OK;
}

const db_row_t db_row_totals = {sizeof(db_player_totals_t), 9, read_totals, NULL};

typedef struct {
    int64_t game, score;
} best_row_t;

static int read_best(const db_cur_t *st, void *row)
{
    best_row_t *b = row;
    b->game = db_col_int(st, 0);
    b->score = db_col_int(st, 1);
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

/* ---- hosted games' end rows ------------------------------------------------------ */

static int read_hosted(const db_cur_t *st, void *row)
{
    db_hosted_score_t *r = row;
    r->user = db_col_int(st, 0);
    const char **text[] = {&r->game,   &r->name,  &r->role, &r->race,
                           &r->gender, &r->align, &r->death};
    for (int i = 0; i < 7; i++)
        if (!(*text[i] = db_col_dup(st, 1 + i, NULL)))
            return DB_ENOMEM;
    int64_t *num[] = {&r->max_depth, &r->points,     &r->turns,
                      &r->realtime,  &r->start_time, &r->end_time};
    for (int i = 0; i < 6; i++)
        *num[i] = db_col_int(st, 8 + i);
    r->recording = db_col_int(st, 14);
    if (!(r->player = db_col_dup(st, 15, NULL)))
        return DB_ENOMEM;
    return DB_OK;
}

static void free_hosted(void *row)
{
    db_hosted_score_t *r = row;
    const char *text[] = {r->game,   r->name,  r->role,  r->race,
                          r->gender, r->align, r->death, r->player};
    for (int i = 0; i < 8; i++)
        free((char *)text[i]);
}

const db_row_t db_row_hosted = {sizeof(db_hosted_score_t), 16, read_hosted, free_hosted};

void db_hosted_scores_top(db_t *db, const char *game, size_t limit, size_t offset, db_hosted_cb cb,
                          void *ud)
{
    db_queue(db, DB_ON(hosted, cb, ud), 0, DB_STMT_HOSTED_SCORES_TOP,
             DB_ARGS(DB_TEXT(game), DB_INT(limit), DB_INT(offset)));
}

void db_hosted_scores_of_user(db_t *db, int64_t user, size_t limit, db_hosted_cb cb, void *ud)
{
    db_queue(db, DB_ON(hosted, cb, ud), 0, DB_STMT_HOSTED_SCORES_OF_USER,
             DB_ARGS(DB_INT(user), DB_INT(limit)));
}

void db_deliver_hosted(const db_op_t *op)
{
    op->cb.fn.hosted(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}
