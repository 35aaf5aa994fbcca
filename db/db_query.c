/* db_query — the machinery under every query: the statement table and its
 * checks, building an operation from typed arguments (loop thread), running
 * its steps with generic binding and row reading (a db thread), and handing
 * results to the right callback type (loop thread). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

#define DB_PARAMS_MAX 16 /* parameters of one statement */

const db_row_t db_row_none = {0, 0, NULL, NULL};

static int read_int(const db_cur_t *st, void *row)
{
    *(int64_t *)row = db_col_int(st, 0);
    return DB_OK;
}

const db_row_t db_row_int = {sizeof(int64_t), 1, read_int, NULL};

const db_stmt_def_t db_stmt_defs[DB_STMT_COUNT] = {
#define DB_STMT_DEF_(n, sig, out, row, sql) \
    {#n, sig, sizeof(sig) - 1, DB_OUT_##out, &db_row_##row, sql},
    DB_STMT_LIST(DB_STMT_DEF_)
#undef DB_STMT_DEF_
};

/* ---- failures and columns ------------------------------------------------- */

int db_op_fail_msg(db_op_t *op, int status, const char *msg)
{
    free(op->err);
    op->err = db_strdup(msg);
    op->status = status;
    return status;
}

int db_op_fail(db_op_t *op, db_conn_t *c, int status)
{
    if (status == DB_ERR && !op->err)
        op->err = db_strdup(c->be->errmsg(c));
    op->status = status;
    return status;
}

static int fail_fmt(db_op_t *op, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_fmt(db_op_t *op, int status, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return db_op_fail_msg(op, status, msg);
}

void db_col_copy(const db_cur_t *c, int col, char *dst, size_t n)
{
    snprintf(dst, n, "%s", db_col_text(c, col));
}

void *db_col_dup(const db_cur_t *c, int col, size_t *len)
{
    return c->ops->col_dup(c, col, len);
}

/* ---- statements: checked against their row ------------------------------- */

bool db_reads_rows(const db_stmt_def_t *d)
{
    return d->outcome == DB_OUT_ROW || d->outcome == DB_OUT_ROWS;
}

/* The statement's parameters and columns, as its backend counted them,
 * against its signature and row reader. */
int db_check_sig(const db_stmt_def_t *d, int params, int cols, char *err, size_t errlen)
{
    if (d->nparams > DB_PARAMS_MAX || strspn(d->sig, "itb") != d->nparams) {
        snprintf(err, errlen, "statement %s: bad signature \"%s\"", d->name, d->sig);
        return DB_ERR;
    }
    if ((size_t)params != d->nparams) {
        snprintf(err, errlen, "statement %s: signature \"%s\" has %zu parameters, its SQL %d",
                 d->name, d->sig, d->nparams, params);
        return DB_ERR;
    }
    int want = db_reads_rows(d) ? d->row->ncols : 0;
    if (db_reads_rows(d) != (d->row->read != NULL) || cols != want) {
        snprintf(err, errlen, "statement %s: its SQL gives %d columns, its reader takes %d",
                 d->name, cols, d->row->read ? d->row->ncols : 0);
        return DB_ERR;
    }
    return DB_OK;
}

/* ---- building an operation (loop thread) ------------------------------------ */

/* An op with room for inline bytes of steps, all in one allocation. */
static db_op_t *op_new(db_t *db, db_cb_t cb, int64_t id, size_t inline_bytes)
{
    if (db_is_stopping(db)) {
        db_owe(db, cb, DB_ECLOSED);
        return NULL;
    }
    db_op_t *op = db_op_alloc(db, NULL, sizeof *op + inline_bytes);
    if (!op) {
        db_owe(db, cb, DB_ENOMEM);
        return NULL;
    }
    *op = (db_op_t){.db = db, .cb = cb, .id = id, .cap = inline_bytes};
    op->mem = op->mem_inline;
    return op;
}

db_op_t *db_op_begin(db_t *db, db_cb_t cb, int64_t id)
{
    return op_new(db, cb, id, DB_OP_INLINE);
}

void db_op_game(db_op_t *op, int64_t game)
{
    if (op)
        op->game = game;
}

void db_op_lazy(db_op_t *op)
{
    if (op)
        op->lazy = true;
}

/* The bytes a step of these arguments takes; their lengths in len. */
static size_t step_size(const db_arg_t *a, size_t n, size_t *len)
{
    size_t size = sizeof(db_rec_t) + n * sizeof(db_val_t);
    for (size_t i = 0; i < n; i++) {
        len[i] = a[i].type == 'i'                    ? 0
                 : !a[i].p                           ? 0
                 : a[i].type == 't' && !a[i].has_len ? strlen(a[i].p)
                                                     : a[i].len;
        size += a[i].type == 't' ? len[i] + 1 : len[i];
    }
    return (size + 7) & ~(size_t)7;
}

/* Checks args, of byte lengths len, against the statement's signature. */
static int check_args(db_op_t *op, const db_stmt_def_t *d, const db_arg_t *a, size_t n,
                      const size_t *len)
{
    if (n != d->nparams)
        return fail_fmt(op, DB_EINVAL, "%s: %zu arguments for %zu parameters", d->name, n,
                        d->nparams);
    for (size_t i = 0; i < n; i++) {
        if (a[i].type != d->sig[i])
            return fail_fmt(op, DB_EINVAL, "%s: argument %zu is '%c', the signature says '%c'",
                            d->name, i + 1, a[i].type, d->sig[i]);
        if (a[i].type == 't' && a[i].max && len[i] >= a[i].max)
            return fail_fmt(op, DB_EINVAL, "%s: argument %zu is too long (%zu bytes, under %zu)",
                            d->name, i + 1, len[i], (size_t)a[i].max);
        if (len[i] > UINT32_MAX)
            return fail_fmt(op, DB_EINVAL, "%s: argument %zu is too big", d->name, i + 1);
    }
    return DB_OK;
}

static int reserve(db_op_t *op, size_t need)
{
    if (op->used + need <= op->cap)
        return DB_OK;
    size_t cap = op->cap * 2 > op->used + need ? op->cap * 2 : op->used + need;
    bool inl = op->mem == op->mem_inline;
    unsigned char *m = db_op_alloc(op->db, inl ? NULL : op->mem, cap);
    if (!m)
        return db_op_fail_msg(op, DB_ENOMEM, "out of memory queueing a database operation");
    if (inl)
        memcpy(m, op->mem_inline, op->used);
    op->mem = m;
    op->cap = cap;
    return DB_OK;
}

/* Adds a step of size bytes whose arguments have byte lengths len. */
static void add_step(db_op_t *op, int stmt, const db_arg_t *args, size_t nargs, const size_t *len,
                     size_t size)
{
    const db_stmt_def_t *d = &db_stmt_defs[stmt];
    if (!op || op->status != DB_OK)
        return;
    if (nargs > DB_PARAMS_MAX) {
        fail_fmt(op, DB_EINVAL, "%s: too many arguments", d->name);
        return;
    }
    if (check_args(op, d, args, nargs, len) != DB_OK)
        return;
    if (db_reads_rows(d) && op->nread == DB_RES_MAX) {
        fail_fmt(op, DB_EINVAL, "%s: more than %d reading steps", d->name, DB_RES_MAX);
        return;
    }
    if (size > UINT32_MAX || reserve(op, size) != DB_OK)
        return;
    db_rec_t *r = (db_rec_t *)(op->mem + op->used);
    size_t at = op->used + sizeof(db_rec_t) + nargs * sizeof(db_val_t);
    *r = (db_rec_t){(uint32_t)size, (uint16_t)stmt, (uint16_t)nargs};
    for (size_t i = 0; i < nargs; i++) {
        r->v[i] = (db_val_t){args[i].i, (uint32_t)len[i], args[i].type};
        if (args[i].type == 'i')
            continue;
        r->v[i].i = (int64_t)at;
        if (len[i])
            memcpy(op->mem + at, args[i].p, len[i]);
        at += len[i];
        if (args[i].type == 't')
            op->mem[at++] = '\0';
    }
    op->used += size;
    op->nsteps++;
    if (db_reads_rows(d))
        op->nread++;
    else
        op->write = true;
}

void db_op_step(db_op_t *op, int stmt, const db_arg_t *args, size_t nargs)
{
    size_t len[DB_PARAMS_MAX], size = 0;
    if (op && op->status == DB_OK && nargs <= DB_PARAMS_MAX)
        size = step_size(args, nargs, len);
    add_step(op, stmt, args, nargs, len, size);
}

/* The statements that touch an account's own rows only (its users row
 * but for its key, its sessions, mail, bans, mutes): none a journal
 * append or a game's write reads or locks, so an op of one of them is
 * DB_OP_NO_GAME (db_queue): it waits for a row another session holds
 * without holding up other games' writes (db.c's take). */
static const int account_stmts[] = {
    DB_STMT_USER_SET_PW,   DB_STMT_USER_SET_OPTIONS, DB_STMT_USER_SET_LOCKED,
    DB_STMT_USER_RENAME,   DB_STMT_SESSION_DELETE,   DB_STMT_SESSIONS_DELETE_USER,
    DB_STMT_SESSION_PURGE, DB_STMT_MAIL_INSERT,      DB_STMT_MAIL_SEEN,
    DB_STMT_MAIL_PURGE,    DB_STMT_BAN_PUT,          DB_STMT_BAN_DELETE,
    DB_STMT_MUTE_PUT,      DB_STMT_MUTE_DELETE,
};

static bool account_stmt(int stmt)
{
    for (size_t i = 0; i < sizeof account_stmts / sizeof account_stmts[0]; i++)
        if (account_stmts[i] == stmt)
            return true;
    return false;
}

void db_queue(db_t *db, db_cb_t cb, int64_t id, int stmt, const db_arg_t *args, size_t nargs)
{
    size_t len[DB_PARAMS_MAX], size = nargs <= DB_PARAMS_MAX ? step_size(args, nargs, len) : 0;
    db_op_t *op = op_new(db, cb, id, size);
    add_step(op, stmt, args, nargs, len, size);
    if (account_stmt(stmt))
        db_op_game(op, DB_OP_NO_GAME);
    db_submit(db, op);
}

void db_op_free(db_op_t *op)
{
    if (!op)
        return;
    for (int k = 0; op->res && k < DB_RES_MAX; k++) {
        db_rows_t *r = &op->res[k];
        for (size_t i = 0; r->row && r->row->free && i < r->n; i++)
            r->row->free((char *)r->v + i * r->row->size);
        free(r->v);
    }
    free(op->res);
    if (op->mem != op->mem_inline)
        free(op->mem);
    free(op->err);
    free(op);
}

/* ---- running an operation (a db thread) ------------------------------------- */

void *db_op_add_row(db_op_t *op, int k, const db_row_t *row)
{
    if (!op->res && !(op->res = calloc(DB_RES_MAX, sizeof *op->res)))
        return NULL;
    db_rows_t *r = &op->res[k];
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        void *v = realloc(r->v, cap * row->size);
        if (!v)
            return NULL;
        r->v = v;
        r->cap = cap;
    }
    r->row = row;
    void *p = (char *)r->v + r->n++ * row->size;
    memset(p, 0, row->size);
    return p;
}

/* A fenced append that stored nothing (r: JOURNAL_INSERT_LEASED): the
 * lease is checked after the fact, on this rare path only, to tell a lease
 * another node holds (DB_ELEASE) from a gap in the journal (DB_ENOTFOUND). */
int db_op_lease_or_gap(db_conn_t *c, db_op_t *op, const db_rec_t *r)
{
    _Alignas(8) unsigned char mem[sizeof(db_rec_t) + 2 * sizeof(db_val_t)];
    db_rec_t *hold = (db_rec_t *)mem;
    hold->size = sizeof mem;
    hold->stmt = DB_STMT_LEASE_HOLD;
    hold->nvals = 2;
    hold->v[0] = r->v[0]; /* the game */
    hold->v[1] = r->v[4]; /* the node: its bytes are op's too */
    int ret = c->be->run_step(c, op, hold, 0);
    if (ret == DB_ENOTFOUND)
        return db_op_fail_msg(op, DB_ELEASE, "another node holds the game's lease");
    return ret == DB_OK ? db_op_fail_msg(op, DB_ENOTFOUND, "no such row") : ret;
}

int db_op_run(db_conn_t *c, db_op_t *op)
{
    if (op->run)
        return op->run(c, op);
    int k = 0;
    for (size_t off = 0; off < op->used;) {
        const db_rec_t *r = (const db_rec_t *)(op->mem + off);
        bool reads = db_reads_rows(&db_stmt_defs[r->stmt]);
        int ret = c->be->run_step(c, op, r, reads ? k++ : -1);
        if (ret == DB_ENOTFOUND && r->stmt == DB_STMT_LEASE_HOLD) /* fenced: not ours */
            return db_op_fail_msg(op, DB_ELEASE, "another node holds the game's lease");
        if (ret == DB_ENOTFOUND && r->stmt == DB_STMT_USER_LEASES_FREE)
            return db_op_fail_msg(op, DB_ELEASE, "another node holds a game of the account");
        if (ret == DB_ENOTFOUND && r->stmt == DB_STMT_JOURNAL_INSERT_LEASED)
            return db_op_lease_or_gap(c, op, r);
        if (ret != DB_OK)
            return ret;
        off += r->size;
    }
    return DB_OK;
}

/* ---- delivering (loop thread) ----------------------------------------------- */

static void (*const deliver[])(const db_op_t *op) = {
#define DB_DELIVER_(n, t) [DB_CB_##n] = db_deliver_##n,
    DB_CALLBACKS(DB_DELIVER_)
#undef DB_DELIVER_
};

void db_op_deliver(const db_op_t *op)
{
    deliver[op->cb.kind](op);
}

void db_deliver_error(db_cb_t cb, int status)
{
    db_op_t op = {.cb = cb, .status = status};
    deliver[cb.kind](&op);
}

const void *db_op_first(const db_op_t *op, int k)
{
    return db_op_count(op, k) ? op->res[k].v : NULL;
}

size_t db_op_count(const db_op_t *op, int k)
{
    return op->status == DB_OK && op->res ? op->res[k].n : 0;
}
