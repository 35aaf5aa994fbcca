/* db_sqlite — the SQLite backend's statements: each prepared once per
 * connection and checked against its row of the statement table, bound
 * from an op's stored values, run, its rows read through a cursor. Opening
 * the file, its guards and its checkpoints are db.c's and db_file.c's. */
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

/* ---- the cursor: columns of the current row of a statement ---- */

static int64_t col_int(const db_cur_t *c, int col)
{
    return sqlite3_column_int64(c->res, col);
}

static const char *col_text(const db_cur_t *c, int col)
{
    const unsigned char *t = sqlite3_column_text(c->res, col);
    return t ? (const char *)t : "";
}

static void *col_dup(const db_cur_t *c, int col, size_t *len)
{
    const void *b = sqlite3_column_blob(c->res, col);
    size_t n = (size_t)sqlite3_column_bytes(c->res, col);
    unsigned char *d = malloc(n + 1);
    if (!d)
        return NULL;
    if (n)
        memcpy(d, b, n);
    d[n] = '\0';
    if (len)
        *len = n;
    return d;
}

static const db_cur_ops_t cur_ops = {col_int, col_text, col_dup};

/* ---- statements: prepared once per connection, checked against their row ---- */

static int check_stmt(const db_stmt_def_t *d, sqlite3_stmt *st, char *err, size_t errlen)
{
    if (db_check_sig(d, sqlite3_bind_parameter_count(st), sqlite3_column_count(st), err, errlen) !=
        DB_OK)
        return DB_ERR;
    if (db_reads_rows(d) && !sqlite3_stmt_readonly(st)) {
        snprintf(err, errlen, "statement %s: reads rows but changes the database", d->name);
        return DB_ERR;
    }
    return DB_OK;
}

int db_stmt_verify(sqlite3 *h, const db_stmt_def_t *def, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, def->sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "statement %s: %s", def->name, sqlite3_errmsg(h));
        return DB_ERR;
    }
    int ret = check_stmt(def, st, err, errlen);
    sqlite3_finalize(st);
    return ret;
}

sqlite3_stmt *db_stmt(db_conn_t *c, int id)
{
    sqlite3_stmt *st = c->st[id];
    if (st) {
        sqlite3_reset(st); /* every parameter is bound again before it runs */
        return st;
    }
    const db_stmt_def_t *d = &db_stmt_defs[id];
    if (sqlite3_prepare_v3(c->h, d->sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
        snprintf(c->err, sizeof c->err, "statement %s: %s", d->name, sqlite3_errmsg(c->h));
        return NULL;
    }
    if (check_stmt(d, st, c->err, sizeof c->err) != DB_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    c->st[id] = st;
    return st;
}

/* ---- running a step ---------------------------------------------------------- */

/* Maps a finished step to a status; constraint kinds get their own codes. */
static int step_status(db_conn_t *c, db_op_t *op, int ret)
{
    if (ret == SQLITE_DONE || ret == SQLITE_ROW)
        return DB_OK;
    int ext = sqlite3_extended_errcode(c->h);
    if (ext == SQLITE_CONSTRAINT_UNIQUE || ext == SQLITE_CONSTRAINT_PRIMARYKEY)
        return db_op_fail_msg(op, DB_EEXISTS, sqlite3_errmsg(c->h));
    if (ext == SQLITE_CONSTRAINT_FOREIGNKEY)
        return db_op_fail_msg(op, DB_ENOTFOUND, sqlite3_errmsg(c->h));
    if (ext == SQLITE_CONSTRAINT_CHECK || ext == SQLITE_CONSTRAINT_NOTNULL)
        return db_op_fail_msg(op, DB_EINVAL, sqlite3_errmsg(c->h));
    return db_op_fail(op, c, DB_ERR);
}

static int bind_rec(db_conn_t *c, db_op_t *op, sqlite3_stmt *st, const db_rec_t *r)
{
    for (int i = 0; i < r->nvals; i++) {
        const db_val_t *v = &r->v[i];
        const void *p = db_val_bytes(op, v);
        int ret = v->type == 'i' ? sqlite3_bind_int64(st, i + 1, v->i)
                  : v->type == 't'
                      ? sqlite3_bind_text64(st, i + 1, p, v->len, SQLITE_STATIC, SQLITE_UTF8)
                      : sqlite3_bind_blob64(st, i + 1, p, v->len, SQLITE_STATIC);
        if (ret != SQLITE_OK)
            return db_op_fail(op, c, DB_ERR);
    }
    return DB_OK;
}

static int run_change(db_conn_t *c, db_op_t *op, sqlite3_stmt *st, const db_stmt_def_t *d)
{
    int ret = step_status(c, op, sqlite3_step(st));
    if (ret != DB_OK)
        return ret;
    if (d->outcome == DB_OUT_CHANGE && sqlite3_changes(c->h) == 0)
        return db_op_fail_msg(op, DB_ENOTFOUND, "no such row");
    if (d->outcome == DB_OUT_ROWID)
        op->id = sqlite3_last_insert_rowid(c->h);
    if (d->outcome == DB_OUT_COUNT)
        op->id = sqlite3_changes(c->h);
    return DB_OK;
}

/* Collects the rows of st as result k. */
static int run_read(db_conn_t *c, db_op_t *op, sqlite3_stmt *st, const db_stmt_def_t *d, int k)
{
    size_t max = d->outcome == DB_OUT_ROW ? 1 : SIZE_MAX, n = 0;
    db_cur_t cur = {&cur_ops, st, 0};
    while (n < max) {
        int ret = sqlite3_step(st);
        if (ret == SQLITE_DONE)
            break;
        if (ret != SQLITE_ROW)
            return db_op_fail(op, c, DB_ERR);
        void *row = db_op_add_row(op, k, d->row);
        n++;
        if (!row || d->row->read(&cur, row) != DB_OK)
            return db_op_fail_msg(op, DB_ENOMEM, "out of memory");
    }
    if (n == 0 && d->outcome == DB_OUT_ROW)
        return db_op_fail_msg(op, DB_ENOTFOUND, "no such row");
    return DB_OK;
}

/* A journal row follows only the row before it (or is the first): the
 * check the PostgreSQL statement makes in its INSERT ... SELECT, made here
 * by its own statement in the same transaction, so the INSERT reads no
 * journal row and SQLite needs no temporary table for it. Without the row
 * before, nothing is stored: "no such row", as an INSERT of no row says. */
static int journal_prev(db_conn_t *c, db_op_t *op, const db_rec_t *r)
{
    if (r->v[1].i == 1)
        return DB_OK;
    sqlite3_stmt *st = db_stmt(c, DB_STMT_JOURNAL_PREV);
    if (!st)
        return db_op_fail_msg(op, DB_ERR, c->err);
    int ret = sqlite3_bind_int64(st, 1, r->v[0].i);
    if (ret == SQLITE_OK)
        ret = sqlite3_bind_int64(st, 2, r->v[1].i);
    if (ret == SQLITE_OK)
        ret = sqlite3_step(st);
    int status = ret == SQLITE_ROW    ? DB_OK
                 : ret == SQLITE_DONE ? db_op_fail_msg(op, DB_ENOTFOUND, "no such row")
                                      : db_op_fail(op, c, DB_ERR);
    sqlite3_reset(st);
    return status;
}

static bool journal_append(int stmt)
{
    return stmt == DB_STMT_JOURNAL_INSERT || stmt == DB_STMT_JOURNAL_INSERT_LEASED;
}

static int run_step(db_conn_t *c, db_op_t *op, const db_rec_t *r, int k)
{
    const db_stmt_def_t *d = &db_stmt_defs[r->stmt];
    if (journal_append(r->stmt)) {
        int ret = journal_prev(c, op, r);
        if (ret != DB_OK)
            return ret;
    }
    sqlite3_stmt *st = db_stmt(c, r->stmt);
    if (!st)
        return db_op_fail_msg(op, DB_ERR, c->err);
    int ret = bind_rec(c, op, st, r);
    if (ret == DB_OK)
        ret = k >= 0 ? run_read(c, op, st, d, k) : run_change(c, op, st, d);
    sqlite3_reset(st);
    return ret;
}

/* ---- the connection ------------------------------------------------------------ */

static int exec_stmt(db_conn_t *c, int id)
{
    sqlite3_stmt *st = db_stmt(c, id);
    if (!st)
        return DB_ERR;
    int ret = sqlite3_step(st);
    sqlite3_reset(st);
    if (ret == SQLITE_DONE || ret == SQLITE_ROW)
        return DB_OK;
    snprintf(c->err, sizeof c->err, "%s", sqlite3_errmsg(c->h));
    return DB_ERR;
}

static bool in_tx(const db_conn_t *c)
{
    return !sqlite3_get_autocommit(c->h);
}

static const char *errmsg(const db_conn_t *c)
{
    return sqlite3_errmsg(c->h);
}

static void conn_close(db_conn_t *c)
{
    for (int i = 0; i < DB_STMT_COUNT; i++)
        sqlite3_finalize(c->st[i]);
    memset(c->st, 0, sizeof c->st);
    sqlite3_close(c->h);
    c->h = NULL;
}

/* ---- game ids (db_ids.c) ------------------------------------------------------ */

/* A block of n from the game_ids row, never below a game already there
 * (one written by another program). Its own statement: it both changes
 * the row and returns it, which no row of the table may. */
static int take_ids(db_conn_t *c, int64_t *ids, int n)
{
    sqlite3_stmt *st = NULL;
    int64_t first = -1;
    if (sqlite3_prepare_v2(c->h,
                           "UPDATE game_ids SET next = max(next, "
                           "(SELECT coalesce(max(id), 0) + 1 FROM games)) + ?1 RETURNING next - ?1",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_int(st, 1, n) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        first = sqlite3_column_int64(st, 0);
    if (first < 0 || sqlite3_step(st) != SQLITE_DONE) {
        snprintf(c->err, sizeof c->err, "cannot take game ids: %s",
                 first < 0 ? sqlite3_errmsg(c->h) : "no counter row");
        first = -1;
    }
    sqlite3_finalize(st);
    for (int i = 0; first > 0 && i < n; i++)
        ids[i] = first + i;
    return first > 0 ? n : -1;
}

static void give_ids(db_conn_t *c, int64_t first, int64_t end)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->h, "UPDATE game_ids SET next = ?1 WHERE next = ?2", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_bind_int64(st, 1, first) == SQLITE_OK &&
        sqlite3_bind_int64(st, 2, end) == SQLITE_OK)
        sqlite3_step(st);
    sqlite3_finalize(st);
}

const db_backend_t db_sqlite_backend = {
    .name = "SQLite",
    .stmt_rollback = true,
    .run_step = run_step,
    .exec = exec_stmt,
    .in_tx = in_tx,
    .errmsg = errmsg,
    .close = conn_close,
    .take_ids = take_ids,
    .give_ids = give_ids,
};
