/* db_records — score tables, player totals and the verification backlog
 * (see db_records.h). Statements live in db_internal.h's table. */
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"
#include "db_records.h"

/* ---- scores ------------------------------------------------------------------- */

static int run_scores_filtered(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_SCORES_FILTERED);
    if (st) {
        sqlite3_bind_text(st, 1, op->s[0] ? op->s[0] : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, op->s[1] ? op->s[1] : "", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, op->i[0]);
        sqlite3_bind_int64(st, 4, op->i[1]);
        sqlite3_bind_int64(st, 5, op->i[2]);
    }
    return db_read_games(c, op, st);
}

static const db_op_kind_t kind_scores_filtered = {run_scores_filtered, db_deliver_games,
                                                  db_free_res_plain, false};

void db_scores_filtered(db_t *db, const db_scores_filter_t *f, db_games_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&kind_scores_filtered, ud);
    if (op) {
        op->cb.games = cb;
        op->s[0] = db_strdup(f->race ? f->race : "");
        op->s[1] = db_strdup(f->cls ? f->cls : "");
        op->i[0] = f->since;
        op->i[1] = (int64_t)f->limit;
        op->i[2] = (int64_t)f->offset;
        if (!op->s[0] || !op->s[1]) {
            db_op_free(op);
            op = NULL;
        }
    }
    db_submit(db, op);
}

/* ---- player totals ------------------------------------------------------------ */

static int read_totals(db_conn_t *c, db_op_t *op, db_player_totals_t *t)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_PLAYER_TOTALS);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    if (sqlite3_step(st) != SQLITE_ROW)
        return db_op_fail(op, c, DB_ERR);
    int64_t *f[] = {&t->games, &t->finished, &t->live, &t->verified, &t->mismatched, &t->turns};
    for (int i = 0; i < 6; i++)
        *f[i] = sqlite3_column_int64(st, i);
    t->max_depth = sqlite3_column_int(st, 6);
    t->first_start = sqlite3_column_int64(st, 7);
    t->last_end = sqlite3_column_int64(st, 8);
    sqlite3_reset(st);
    return DB_OK;
}

/* op->res: the callback (the op's union has no member of this type) and
 * the result, allocated when queued. */
typedef struct {
    db_totals_cb cb;
    db_player_totals_t t;
} totals_res_t;

static int run_player_totals(db_conn_t *c, db_op_t *op)
{
    db_player_totals_t *t = &((totals_res_t *)op->res)->t;
    int rc = read_totals(c, op, t);
    if (rc != DB_OK)
        return rc;
    sqlite3_stmt *st = db_stmt(c, DB_STMT_PLAYER_BEST);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        t->best_game = sqlite3_column_int64(st, 0);
        t->best_score = sqlite3_column_int64(st, 1);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_op_fail(op, c, DB_ERR);
}

static void deliver_totals(db_op_t *op)
{
    totals_res_t *r = op->res;
    r->cb(op->ud, op->status, op->status == DB_OK ? &r->t : NULL);
}

static const db_op_kind_t kind_player_totals = {run_player_totals, deliver_totals,
                                                db_free_res_plain, false};

void db_player_totals(db_t *db, int64_t user, db_totals_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&kind_player_totals, ud);
    totals_res_t *r = op ? calloc(1, sizeof *r) : NULL;
    if (op && !r) {
        db_op_free(op);
        op = NULL;
    }
    if (op) {
        r->cb = cb;
        op->res = r;
        op->i[0] = user;
    }
    db_submit(db, op);
}

/* ---- verification backlog ------------------------------------------------------ */

static int run_games_unverified(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAMES_UNVERIFIED);
    if (st) {
        sqlite3_bind_int64(st, 1, op->i[0]);
        sqlite3_bind_int64(st, 2, op->i[1]);
    }
    return db_read_games(c, op, st);
}

static const db_op_kind_t kind_games_unverified = {run_games_unverified, db_deliver_games,
                                                   db_free_res_plain, false};

void db_games_unverified(db_t *db, int64_t after_id, size_t limit, db_games_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&kind_games_unverified, ud);
    if (op) {
        op->cb.games = cb;
        op->i[0] = after_id;
        op->i[1] = (int64_t)limit;
    }
    db_submit(db, op);
}
