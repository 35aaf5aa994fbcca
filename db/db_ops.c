/* db_ops — every operation: its queueing function (loop thread), its run
 * function (a db thread, SQL through the statement table) and its delivery
 * (loop thread). Kinds are const tables; db.c only moves ops around. */
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

/* ---- helpers -------------------------------------------------------------- */

static int fail_msg(db_op_t *op, int status, const char *msg)
{
    free(op->err);
    op->err = db_strdup(msg);
    op->status = status;
    return status;
}

/* Maps a finished step to a status; constraint kinds get their own codes. */
static int step_status(db_conn_t *c, db_op_t *op, int rc)
{
    if (rc == SQLITE_DONE || rc == SQLITE_ROW)
        return DB_OK;
    int ext = sqlite3_extended_errcode(c->h);
    if (ext == SQLITE_CONSTRAINT_UNIQUE || ext == SQLITE_CONSTRAINT_PRIMARYKEY)
        return fail_msg(op, DB_EEXISTS, sqlite3_errmsg(c->h));
    if (ext == SQLITE_CONSTRAINT_FOREIGNKEY)
        return fail_msg(op, DB_ENOTFOUND, sqlite3_errmsg(c->h));
    if (ext == SQLITE_CONSTRAINT_CHECK || ext == SQLITE_CONSTRAINT_NOTNULL)
        return fail_msg(op, DB_EINVAL, sqlite3_errmsg(c->h));
    return db_op_fail(op, c, DB_ERR);
}

/* Runs a statement that changes rows; DB_ENOTFOUND when none changed. */
static int exec_change(db_conn_t *c, db_op_t *op, sqlite3_stmt *st, bool need_change)
{
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    int rc = step_status(c, op, sqlite3_step(st));
    sqlite3_reset(st);
    if (rc == DB_OK && need_change && sqlite3_changes(c->h) == 0)
        return fail_msg(op, DB_ENOTFOUND, "no such row");
    return rc;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_STATIC);
}

static void bind_blob(sqlite3_stmt *st, int i, const uint8_t *b, size_t len)
{
    /* A non-NULL pointer even for 0 bytes: an empty blob, not NULL. */
    sqlite3_bind_blob64(st, i, b ? (const void *)b : (const void *)"", len, SQLITE_STATIC);
}

static void copy_col(sqlite3_stmt *st, int i, char *dst, size_t n)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(dst, n, "%s", t ? (const char *)t : "");
}

static bool too_long(const char *s, size_t max)
{
    return s && strlen(s) >= max;
}

static void deliver_done(db_op_t *op)
{
    if (op->cb.done)
        op->cb.done(op->ud, op->status, op->status == DB_OK ? op->id : 0);
}

static void free_res_plain(db_op_t *op)
{
    free(op->res);
}

/* ---- users ----------------------------------------------------------------- */

static int run_user_create(db_conn_t *c, db_op_t *op)
{
    if (too_long(op->s[0], DB_NAME_MAX) || too_long(op->s[1], DB_NAME_MAX) ||
        too_long(op->s[2], DB_PWHASH_MAX))
        return fail_msg(op, DB_EINVAL, "user name or hash too long");
    sqlite3_stmt *st = db_stmt(c, DB_STMT_USER_INSERT);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    bind_text(st, 1, op->s[0]);
    bind_text(st, 2, op->s[1]);
    bind_text(st, 3, op->s[2]);
    sqlite3_bind_int64(st, 4, op->i[0]);
    int rc = exec_change(c, op, st, false);
    if (rc == DB_OK)
        op->id = sqlite3_last_insert_rowid(c->h);
    return rc;
}

/* UPDATE users SET <column> = ?2 WHERE id = ?1: text from s[0], else i[1]. */
static int run_user_set(db_conn_t *c, db_op_t *op, int stmt)
{
    sqlite3_stmt *st = db_stmt(c, stmt);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    if (op->s[0])
        bind_text(st, 2, op->s[0]);
    else
        sqlite3_bind_int64(st, 2, op->i[1]);
    op->id = op->i[0];
    return exec_change(c, op, st, true);
}

static int run_user_set_pw(db_conn_t *c, db_op_t *op)
{
    if (too_long(op->s[0], DB_PWHASH_MAX))
        return fail_msg(op, DB_EINVAL, "hash too long");
    return run_user_set(c, op, DB_STMT_USER_SET_PW);
}

static int run_user_set_options(db_conn_t *c, db_op_t *op)
{
    if (too_long(op->s[0], DB_OPTIONS_MAX))
        return fail_msg(op, DB_EINVAL, "options too long");
    return run_user_set(c, op, DB_STMT_USER_SET_OPTIONS);
}

static int run_user_set_locked(db_conn_t *c, db_op_t *op)
{
    return run_user_set(c, op, DB_STMT_USER_SET_LOCKED);
}

const db_op_kind_t db_kind_user_create = {run_user_create, deliver_done, NULL, true};
const db_op_kind_t db_kind_user_set_pw = {run_user_set_pw, deliver_done, NULL, true};
const db_op_kind_t db_kind_user_set_options = {run_user_set_options, deliver_done, NULL, true};
const db_op_kind_t db_kind_user_set_locked = {run_user_set_locked, deliver_done, NULL, true};

void db_user_create(db_t *db, const char *name, const char *name_key, const char *pwhash,
                    int64_t created, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_user_create, ud);
    if (op) {
        op->cb.done = cb;
        op->s[0] = db_strdup(name);
        op->s[1] = db_strdup(name_key);
        op->s[2] = db_strdup(pwhash);
        op->i[0] = created;
    }
    db_submit(db, op);
}

static void user_set(db_t *db, const db_op_kind_t *k, int64_t user, const char *s, int64_t v,
                     db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(k, ud);
    if (op) {
        op->cb.done = cb;
        op->i[0] = user;
        op->i[1] = v;
        if (s)
            op->s[0] = db_strdup(s);
    }
    db_submit(db, op);
}

void db_user_set_password(db_t *db, int64_t user, const char *pwhash, db_done_cb cb, void *ud)
{
    user_set(db, &db_kind_user_set_pw, user, pwhash ? pwhash : "", 0, cb, ud);
}

void db_user_set_options(db_t *db, int64_t user, const char *options, db_done_cb cb, void *ud)
{
    user_set(db, &db_kind_user_set_options, user, options ? options : "", 0, cb, ud);
}

void db_user_set_locked(db_t *db, int64_t user, bool locked, db_done_cb cb, void *ud)
{
    user_set(db, &db_kind_user_set_locked, user, NULL, locked ? 1 : 0, cb, ud);
}

/* ---- games ------------------------------------------------------------------ */

static int run_game_create(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAME_INSERT);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    sqlite3_bind_int64(st, 2, op->i[1]);
    sqlite3_bind_int64(st, 3, op->i[2]);
    bind_text(st, 4, op->s[0]);
    bind_text(st, 5, op->s[1]);
    bind_text(st, 6, op->s[2]);
    sqlite3_bind_int64(st, 7, op->i[3]);
    op->id = op->i[0];
    return exec_change(c, op, st, false);
}

static int run_game_progress(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAME_PROGRESS);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    if (too_long(op->s[0], DB_SHORT_MAX) || too_long(op->s[1], DB_SHORT_MAX))
        return fail_msg(op, DB_EINVAL, "race or class too long");
    for (int i = 0; i < 5; i++)
        sqlite3_bind_int64(st, i + 1, op->i[i]);
    bind_text(st, 6, op->s[0]);
    bind_text(st, 7, op->s[1]);
    op->id = op->i[0];
    return exec_change(c, op, st, true);
}

static int run_game_finish(db_conn_t *c, db_op_t *op)
{
    if (too_long(op->s[0], DB_CAUSE_MAX) || too_long(op->s[1], DB_SHORT_MAX) ||
        too_long(op->s[2], DB_SHORT_MAX) || too_long(op->s[3], DB_SHORT_MAX))
        return fail_msg(op, DB_EINVAL, "cause, end kind, race or class too long");
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAME_FINISH);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    for (int i = 0; i < 7; i++)
        sqlite3_bind_int64(st, i + 1, op->i[i]);
    bind_text(st, 8, op->s[0]);
    bind_text(st, 9, op->s[1]);
    bind_text(st, 10, op->s[2]);
    bind_text(st, 11, op->s[3]);
    op->id = op->i[0];
    int rc = exec_change(c, op, st, true);
    if (rc == DB_OK) {
        st = db_stmt(c, DB_STMT_MILESTONES_CLEAR);
        if (st)
            sqlite3_bind_int64(st, 1, op->i[0]);
        rc = exec_change(c, op, st, false);
    }
    for (size_t i = 0; rc == DB_OK && i < op->nms; i++) {
        st = db_stmt(c, DB_STMT_MILESTONE_INSERT);
        if (st) {
            sqlite3_bind_int64(st, 1, op->i[0]);
            sqlite3_bind_int64(st, 2, op->ms[i].turn);
            sqlite3_bind_int(st, 3, op->ms[i].depth);
            bind_text(st, 4, op->ms[i].kind);
            bind_text(st, 5, op->ms[i].text);
        }
        rc = exec_change(c, op, st, false);
    }
    if (rc == DB_OK) {
        st = db_stmt(c, DB_STMT_DUMP_PUT);
        if (st) {
            sqlite3_bind_int64(st, 1, op->i[0]);
            sqlite3_bind_text64(st, 2, op->blob ? (const char *)op->blob : "", op->len,
                                SQLITE_STATIC, SQLITE_UTF8);
        }
        rc = exec_change(c, op, st, false);
    }
    if (rc == DB_OK) {
        st = db_stmt(c, DB_STMT_SNAPSHOTS_DELETE);
        if (st)
            sqlite3_bind_int64(st, 1, op->i[0]);
        rc = exec_change(c, op, st, false);
    }
    return rc;
}

static int run_game_broken(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAME_BROKEN);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    bind_text(st, 2, op->s[0]);
    op->id = op->i[0];
    return exec_change(c, op, st, true);
}

static int run_game_verified(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAME_VERIFIED);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    sqlite3_bind_int64(st, 2, op->i[1]);
    op->id = op->i[0];
    return exec_change(c, op, st, true);
}

const db_op_kind_t db_kind_game_create = {run_game_create, deliver_done, NULL, true};
const db_op_kind_t db_kind_game_progress = {run_game_progress, deliver_done, NULL, true};
const db_op_kind_t db_kind_game_finish = {run_game_finish, deliver_done, NULL, true};
const db_op_kind_t db_kind_game_broken = {run_game_broken, deliver_done, NULL, true};
const db_op_kind_t db_kind_game_verified = {run_game_verified, deliver_done, NULL, true};

int64_t db_game_create(db_t *db, const db_game_new_t *g, db_done_cb cb, void *ud)
{
    if (!db || !g || !g->content_version || too_long(g->content_version, DB_VERSION_MAX) ||
        too_long(g->race, DB_SHORT_MAX) || too_long(g->cls, DB_SHORT_MAX))
        return DB_EINVAL;
    db_op_t *op = db_op_new(&db_kind_game_create, ud);
    if (!op)
        return DB_ENOMEM;
    op->cb.done = cb;
    op->i[0] = db_next_game_id_(db);
    op->i[1] = g->user;
    op->i[2] = (int64_t)g->seed;
    op->i[3] = g->start_time;
    op->s[0] = db_strdup(g->content_version);
    op->s[1] = db_strdup(g->race);
    op->s[2] = db_strdup(g->cls);
    int64_t id = op->i[0];
    db_submit(db, op);
    return id;
}

void db_game_progress(db_t *db, int64_t game, const db_progress_t *p, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_game_progress, ud);
    if (op) {
        op->cb.done = cb;
        op->i[0] = game;
        op->i[1] = p->turns;
        op->i[2] = p->depth;
        op->i[3] = p->max_depth;
        op->i[4] = p->xl;
        op->s[0] = db_strdup(p->race ? p->race : "");
        op->s[1] = db_strdup(p->cls ? p->cls : "");
        if (!op->s[0] || !op->s[1]) {
            db_op_free(op);
            op = NULL;
        }
    }
    db_submit(db, op);
}

static bool copy_milestones(db_op_t *op, const db_milestone_t *ms, size_t n)
{
    if (n == 0)
        return true;
    op->ms = calloc(n, sizeof *op->ms);
    if (!op->ms)
        return false;
    for (size_t i = 0; i < n; i++, op->nms++) {
        op->ms[i].turn = ms[i].turn;
        op->ms[i].depth = ms[i].depth;
        op->ms[i].kind = db_strdup(ms[i].kind);
        op->ms[i].text = db_strdup(ms[i].text);
        if (!op->ms[i].kind || !op->ms[i].text)
            return false;
    }
    return true;
}

void db_game_finish(db_t *db, int64_t game, const db_game_end_t *end, const db_milestone_t *ms,
                    size_t nms, const char *dump, size_t dumplen, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_game_finish, ud);
    if (op) {
        op->cb.done = cb;
        const int64_t v[7] = {game,           end->end_time, end->turns, end->depth,
                              end->max_depth, end->xl,       end->score};
        memcpy(op->i, v, sizeof v);
        op->s[0] = db_strdup(end->cause);
        op->s[1] = db_strdup(end->end_kind);
        op->s[2] = db_strdup(end->race ? end->race : "");
        op->s[3] = db_strdup(end->cls ? end->cls : "");
        if (dump && dumplen) {
            op->blob = malloc(dumplen);
            if (op->blob)
                memcpy(op->blob, dump, dumplen), op->len = dumplen;
        }
        if (!copy_milestones(op, ms, nms) || (dumplen && dump && !op->blob) || !op->s[2] ||
            !op->s[3]) {
            db_op_free(op);
            op = NULL;
        }
    }
    db_submit(db, op);
}

void db_game_mark_broken(db_t *db, int64_t game, const char *reason, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_game_broken, ud);
    if (op) {
        op->cb.done = cb;
        op->i[0] = game;
        op->s[0] = db_strdup(reason);
    }
    db_submit(db, op);
}

void db_game_set_verified(db_t *db, int64_t game, int verified, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_game_verified, ud);
    if (op) {
        op->cb.done = cb;
        op->i[0] = game;
        op->i[1] = verified;
    }
    db_submit(db, op);
}

/* ---- journal and snapshots ---------------------------------------------------- */

static int run_journal_append(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_JOURNAL_INSERT);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    sqlite3_bind_int64(st, 2, op->i[1]);
    bind_blob(st, 3, op->blob, op->len);
    sqlite3_bind_int64(st, 4, op->i[2]);
    op->id = op->i[1];
    return exec_change(c, op, st, false);
}

static int run_snapshot_save(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_SNAPSHOT_PUT);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    sqlite3_bind_int64(st, 2, op->i[1]);
    sqlite3_bind_int64(st, 3, op->i[2]);
    bind_blob(st, 4, op->blob, op->len);
    int rc = exec_change(c, op, st, false);
    if (rc == DB_OK) {
        st = db_stmt(c, DB_STMT_SNAPSHOTS_DELETE_OLDER);
        if (st) {
            sqlite3_bind_int64(st, 1, op->i[0]);
            sqlite3_bind_int64(st, 2, op->i[2]);
        }
        rc = exec_change(c, op, st, false);
    }
    op->id = op->i[2];
    return rc;
}

/* the hot path (one per key): a single INSERT needs no savepoint of its own */
const db_op_kind_t db_kind_journal_append = {run_journal_append, deliver_done, NULL, true, true};
const db_op_kind_t db_kind_snapshot_save = {run_snapshot_save, deliver_done, NULL, true};

static db_op_t *op_with_blob(const db_op_kind_t *k, const uint8_t *b, size_t len, db_done_cb cb,
                             void *ud)
{
    db_op_t *op = db_op_new(k, ud);
    if (!op)
        return NULL;
    op->cb.done = cb;
    if (len) {
        op->blob = malloc(len);
        if (!op->blob) {
            db_op_free(op);
            return NULL;
        }
        memcpy(op->blob, b, len);
        op->len = len;
    }
    return op;
}

void db_journal_append(db_t *db, int64_t game, int64_t seq, const uint8_t *keys, size_t len,
                       int64_t ms, db_done_cb cb, void *ud)
{
    db_op_t *op = op_with_blob(&db_kind_journal_append, keys, keys ? len : 0, cb, ud);
    if (op) {
        op->i[0] = game;
        op->i[1] = seq;
        op->i[2] = ms < 0 ? DB_MS_UNKNOWN : ms;
    }
    db_submit(db, op);
}

void db_snapshot_save(db_t *db, int64_t game, int64_t turn, int64_t seq, const uint8_t *blob,
                      size_t len, db_done_cb cb, void *ud)
{
    db_op_t *op = op_with_blob(&db_kind_snapshot_save, blob, blob ? len : 0, cb, ud);
    if (op) {
        op->i[0] = game;
        op->i[1] = turn;
        op->i[2] = seq;
    }
    db_submit(db, op);
}

/* ---- web sessions -------------------------------------------------------------- */

static int run_session_create(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_SESSION_INSERT);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    bind_text(st, 1, op->s[0]);
    sqlite3_bind_int64(st, 2, op->i[0]);
    sqlite3_bind_int64(st, 3, op->i[1]);
    return exec_change(c, op, st, false);
}

static int run_session_delete(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_SESSION_DELETE);
    if (st)
        bind_text(st, 1, op->s[0]);
    return exec_change(c, op, st, false);
}

static int run_session_purge(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_SESSION_PURGE);
    if (st)
        sqlite3_bind_int64(st, 1, op->i[0]);
    int rc = exec_change(c, op, st, false);
    op->id = sqlite3_changes(c->h);
    return rc;
}

const db_op_kind_t db_kind_session_create = {run_session_create, deliver_done, NULL, true};
const db_op_kind_t db_kind_session_delete = {run_session_delete, deliver_done, NULL, true};
const db_op_kind_t db_kind_session_purge = {run_session_purge, deliver_done, NULL, true};

void db_session_create(db_t *db, const char *token_hash, int64_t user, int64_t expires,
                       db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_session_create, ud);
    if (op) {
        op->cb.done = cb;
        op->s[0] = db_strdup(token_hash);
        op->i[0] = user;
        op->i[1] = expires;
    }
    db_submit(db, op);
}

void db_session_delete(db_t *db, const char *token_hash, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_session_delete, ud);
    if (op) {
        op->cb.done = cb;
        op->s[0] = db_strdup(token_hash);
    }
    db_submit(db, op);
}

void db_session_purge(db_t *db, int64_t now, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_session_purge, ud);
    if (op) {
        op->cb.done = cb;
        op->i[0] = now;
    }
    db_submit(db, op);
}

/* ---- reads: users ---------------------------------------------------------------- */

static int read_user(db_conn_t *c, db_op_t *op, sqlite3_stmt *st)
{
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return fail_msg(op, DB_ENOTFOUND, "no such user");
    if (rc != SQLITE_ROW)
        return db_op_fail(op, c, DB_ERR);
    db_user_t *u = calloc(1, sizeof *u);
    if (!u)
        return fail_msg(op, DB_ENOMEM, "out of memory");
    u->id = sqlite3_column_int64(st, 0);
    copy_col(st, 1, u->name, sizeof u->name);
    copy_col(st, 2, u->name_key, sizeof u->name_key);
    copy_col(st, 3, u->pwhash, sizeof u->pwhash);
    u->created = sqlite3_column_int64(st, 4);
    u->locked = sqlite3_column_int(st, 5) != 0;
    copy_col(st, 6, u->options, sizeof u->options);
    sqlite3_reset(st);
    op->res = u;
    return DB_OK;
}

static int run_user_by_name(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_USER_BY_KEY);
    if (st)
        bind_text(st, 1, op->s[0]);
    return read_user(c, op, st);
}

static int run_user_by_id(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_USER_BY_ID);
    if (st)
        sqlite3_bind_int64(st, 1, op->i[0]);
    return read_user(c, op, st);
}

static int run_session_user(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_USER_BY_SESSION);
    if (st) {
        bind_text(st, 1, op->s[0]);
        sqlite3_bind_int64(st, 2, op->i[0]);
    }
    return read_user(c, op, st);
}

static void deliver_user(db_op_t *op)
{
    op->cb.user(op->ud, op->status, op->status == DB_OK ? op->res : NULL);
}

const db_op_kind_t db_kind_user_by_name = {run_user_by_name, deliver_user, free_res_plain, false};
const db_op_kind_t db_kind_user_by_id = {run_user_by_id, deliver_user, free_res_plain, false};
const db_op_kind_t db_kind_session_user = {run_session_user, deliver_user, free_res_plain, false};

void db_user_by_name(db_t *db, const char *name, db_user_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_user_by_name, ud);
    if (op) {
        op->cb.user = cb;
        op->s[0] = db_strdup(name);
        /* ASCII lowercase: names are ASCII by rule; the key is what is unique. */
        for (char *p = op->s[0]; p && *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
    }
    db_submit(db, op);
}

void db_user_by_id(db_t *db, int64_t user, db_user_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_user_by_id, ud);
    if (op) {
        op->cb.user = cb;
        op->i[0] = user;
    }
    db_submit(db, op);
}

void db_session_user(db_t *db, const char *token_hash, int64_t now, db_user_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_session_user, ud);
    if (op) {
        op->cb.user = cb;
        op->s[0] = db_strdup(token_hash);
        op->i[0] = now;
    }
    db_submit(db, op);
}

/* ---- reads: games ------------------------------------------------------------------ */

static const char *const state_names[] = {"live", "finished", "broken"};

static void game_from_row(sqlite3_stmt *st, db_game_t *g)
{
    memset(g, 0, sizeof *g);
    g->id = sqlite3_column_int64(st, 0);
    g->user = sqlite3_column_int64(st, 1);
    copy_col(st, 2, g->player, sizeof g->player);
    g->seed = (uint64_t)sqlite3_column_int64(st, 3);
    copy_col(st, 4, g->content_version, sizeof g->content_version);
    copy_col(st, 5, g->race, sizeof g->race);
    copy_col(st, 6, g->cls, sizeof g->cls);
    g->start_time = sqlite3_column_int64(st, 7);
    g->end_time = sqlite3_column_int64(st, 8);
    g->turns = sqlite3_column_int64(st, 9);
    g->depth = sqlite3_column_int(st, 10);
    g->max_depth = sqlite3_column_int(st, 11);
    g->xl = sqlite3_column_int(st, 12);
    g->score = sqlite3_column_int64(st, 13);
    copy_col(st, 14, g->cause, sizeof g->cause);
    copy_col(st, 15, g->end_kind, sizeof g->end_kind);
    g->verified = sqlite3_column_int(st, 16);
    const char *s = (const char *)sqlite3_column_text(st, 17);
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, state_names[i]) == 0)
            g->state = (db_game_state_t)i;
    copy_col(st, 18, g->broken_reason, sizeof g->broken_reason);
}

/* Collects every row of st into op->res (a db_game_t array). */
static int read_games(db_conn_t *c, db_op_t *op, sqlite3_stmt *st)
{
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    size_t cap = 0;
    db_game_t *v = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (op->nres == cap) {
            cap = cap ? cap * 2 : 16;
            db_game_t *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                free(v);
                sqlite3_reset(st);
                return fail_msg(op, DB_ENOMEM, "out of memory");
            }
            v = nv;
        }
        game_from_row(st, &v[op->nres++]);
    }
    sqlite3_reset(st);
    op->res = v;
    if (rc != SQLITE_DONE)
        return db_op_fail(op, c, DB_ERR);
    return DB_OK;
}

static int read_one_game(db_conn_t *c, db_op_t *op, int stmt)
{
    sqlite3_stmt *st = db_stmt(c, stmt);
    if (st)
        sqlite3_bind_int64(st, 1, op->i[0]);
    int rc = read_games(c, op, st);
    if (rc == DB_OK && op->nres == 0)
        return fail_msg(op, DB_ENOTFOUND, "no such game");
    return rc;
}

static int run_game_get(db_conn_t *c, db_op_t *op)
{
    return read_one_game(c, op, DB_STMT_GAME_BY_ID);
}

static int run_game_live_of_user(db_conn_t *c, db_op_t *op)
{
    return read_one_game(c, op, DB_STMT_GAME_LIVE_OF_USER);
}

static int run_scores_top(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAMES_TOP);
    if (st) {
        sqlite3_bind_int64(st, 1, op->i[0]);
        sqlite3_bind_int64(st, 2, op->i[1]);
    }
    return read_games(c, op, st);
}

static int run_games_of_user(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAMES_OF_USER);
    if (st)
        for (int i = 0; i < 3; i++)
            sqlite3_bind_int64(st, i + 1, op->i[i]);
    return read_games(c, op, st);
}

static int run_games_unfinished(db_conn_t *c, db_op_t *op)
{
    return read_games(c, op, db_stmt(c, DB_STMT_GAMES_LIVE));
}

static void deliver_game(db_op_t *op)
{
    op->cb.game(op->ud, op->status, op->status == DB_OK ? op->res : NULL);
}

static void deliver_games(db_op_t *op)
{
    bool ok = op->status == DB_OK;
    op->cb.games(op->ud, op->status, ok ? op->res : NULL, ok ? op->nres : 0);
}

int db_read_games(db_conn_t *c, db_op_t *op, sqlite3_stmt *st)
{
    return read_games(c, op, st);
}

void db_deliver_games(db_op_t *op)
{
    deliver_games(op);
}

void db_free_res_plain(db_op_t *op)
{
    free_res_plain(op);
}

const db_op_kind_t db_kind_game_get = {run_game_get, deliver_game, free_res_plain, false};
const db_op_kind_t db_kind_game_live_of_user = {run_game_live_of_user, deliver_game, free_res_plain,
                                                false};
const db_op_kind_t db_kind_scores_top = {run_scores_top, deliver_games, free_res_plain, false};
const db_op_kind_t db_kind_games_of_user = {run_games_of_user, deliver_games, free_res_plain,
                                            false};
const db_op_kind_t db_kind_games_unfinished = {run_games_unfinished, deliver_games, free_res_plain,
                                               false};

static void game_read(db_t *db, const db_op_kind_t *k, int64_t a, int64_t b, int64_t c, void *ud,
                      db_game_cb g1, db_games_cb gn)
{
    db_op_t *op = db_op_new(k, ud);
    if (op) {
        if (g1)
            op->cb.game = g1;
        else
            op->cb.games = gn;
        op->i[0] = a;
        op->i[1] = b;
        op->i[2] = c;
    }
    db_submit(db, op);
}

void db_game_get(db_t *db, int64_t game, db_game_cb cb, void *ud)
{
    game_read(db, &db_kind_game_get, game, 0, 0, ud, cb, NULL);
}

void db_game_live_of_user(db_t *db, int64_t user, db_game_cb cb, void *ud)
{
    game_read(db, &db_kind_game_live_of_user, user, 0, 0, ud, cb, NULL);
}

void db_scores_top(db_t *db, size_t limit, size_t offset, db_games_cb cb, void *ud)
{
    game_read(db, &db_kind_scores_top, (int64_t)limit, (int64_t)offset, 0, ud, NULL, cb);
}

void db_games_of_user(db_t *db, int64_t user, size_t limit, size_t offset, db_games_cb cb, void *ud)
{
    game_read(db, &db_kind_games_of_user, user, (int64_t)limit, (int64_t)offset, ud, NULL, cb);
}

void db_games_unfinished(db_t *db, db_games_cb cb, void *ud)
{
    game_read(db, &db_kind_games_unfinished, 0, 0, 0, ud, NULL, cb);
}

/* ---- reads: milestones, dump ----------------------------------------------------- */

static void free_res_milestones(db_op_t *op)
{
    db_milestone_t *m = op->res;
    for (size_t i = 0; m && i < op->nres; i++) {
        free((char *)m[i].kind);
        free((char *)m[i].text);
    }
    free(m);
}

static int run_milestones_get(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_MILESTONES_OF);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (op->nres == cap) {
            cap = cap ? cap * 2 : 16;
            db_milestone_t *nv = realloc(op->res, cap * sizeof *nv);
            if (!nv)
                break;
            op->res = nv;
        }
        db_milestone_t *m = (db_milestone_t *)op->res + op->nres++;
        m->turn = sqlite3_column_int64(st, 0);
        m->depth = sqlite3_column_int(st, 1);
        m->kind = db_strdup((const char *)sqlite3_column_text(st, 2));
        m->text = db_strdup((const char *)sqlite3_column_text(st, 3));
    }
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return fail_msg(op, DB_ENOMEM, "out of memory");
    return rc == SQLITE_DONE ? DB_OK : db_op_fail(op, c, DB_ERR);
}

static void deliver_milestones(db_op_t *op)
{
    bool ok = op->status == DB_OK;
    op->cb.ms(op->ud, op->status, ok ? op->res : NULL, ok ? op->nres : 0);
}

static int run_dump_get(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_DUMP_OF);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return fail_msg(op, DB_ENOTFOUND, "no dump");
    if (rc != SQLITE_ROW)
        return db_op_fail(op, c, DB_ERR);
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    char *t = malloc(n + 1);
    if (!t)
        return fail_msg(op, DB_ENOMEM, "out of memory");
    if (n)
        memcpy(t, sqlite3_column_text(st, 0), n);
    t[n] = '\0';
    sqlite3_reset(st);
    op->res = t;
    op->nres = n;
    return DB_OK;
}

static void deliver_text(db_op_t *op)
{
    bool ok = op->status == DB_OK;
    op->cb.text(op->ud, op->status, ok ? op->res : NULL, ok ? op->nres : 0);
}

const db_op_kind_t db_kind_milestones_get = {run_milestones_get, deliver_milestones,
                                             free_res_milestones, false};
const db_op_kind_t db_kind_dump_get = {run_dump_get, deliver_text, free_res_plain, false};

void db_milestones_get(db_t *db, int64_t game, db_milestones_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_milestones_get, ud);
    if (op) {
        op->cb.ms = cb;
        op->i[0] = game;
    }
    db_submit(db, op);
}

void db_dump_get(db_t *db, int64_t game, db_text_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_dump_get, ud);
    if (op) {
        op->cb.text = cb;
        op->i[0] = game;
    }
    db_submit(db, op);
}

/* ---- reads: journal and resume ------------------------------------------------------ */

typedef struct {
    db_resume_t r;
    db_journal_row_t *rows;
    size_t nrows;
    uint8_t *snap;
} resume_res_t;

static void free_rows(db_journal_row_t *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        free((uint8_t *)rows[i].keys);
    free(rows);
}

static int read_journal(db_conn_t *c, db_op_t *op, int64_t game, int64_t after,
                        db_journal_row_t **out, size_t *n)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_JOURNAL_AFTER);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, game);
    sqlite3_bind_int64(st, 2, after);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            db_journal_row_t *nv = realloc(*out, cap * sizeof *nv);
            if (!nv)
                break;
            *out = nv;
        }
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        uint8_t *k = malloc(len ? len : 1);
        if (!k)
            break;
        if (len)
            memcpy(k, sqlite3_column_blob(st, 1), len);
        (*out)[(*n)++] =
            (db_journal_row_t){sqlite3_column_int64(st, 0), k, len, sqlite3_column_int64(st, 2)};
    }
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return fail_msg(op, DB_ENOMEM, "out of memory");
    return rc == SQLITE_DONE ? DB_OK : db_op_fail(op, c, DB_ERR);
}

static int run_journal_read(db_conn_t *c, db_op_t *op)
{
    db_journal_row_t *rows = NULL;
    int rc = read_journal(c, op, op->i[0], op->i[1], &rows, &op->nres);
    op->res = rows;
    return rc;
}

static void free_res_journal(db_op_t *op)
{
    free_rows(op->res, op->nres);
}

static void deliver_journal(db_op_t *op)
{
    bool ok = op->status == DB_OK;
    op->cb.journal(op->ud, op->status, ok ? op->res : NULL, ok ? op->nres : 0);
}

static int read_snapshot(db_conn_t *c, db_op_t *op, resume_res_t *rr)
{
    sqlite3_stmt *st = db_stmt(c, DB_STMT_SNAPSHOT_NEWEST);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        size_t len = (size_t)sqlite3_column_bytes(st, 2);
        rr->snap = malloc(len ? len : 1);
        if (!rr->snap)
            return fail_msg(op, DB_ENOMEM, "out of memory");
        if (len)
            memcpy(rr->snap, sqlite3_column_blob(st, 2), len);
        rr->r.has_snapshot = true;
        rr->r.snap_turn = sqlite3_column_int64(st, 0);
        rr->r.snap_seq = sqlite3_column_int64(st, 1);
        rr->r.snap = rr->snap;
        rr->r.snap_len = len;
    } else if (rc != SQLITE_DONE) {
        return db_op_fail(op, c, DB_ERR);
    }
    sqlite3_reset(st);
    return DB_OK;
}

static int run_game_resume(db_conn_t *c, db_op_t *op)
{
    resume_res_t *rr = calloc(1, sizeof *rr);
    if (!rr)
        return fail_msg(op, DB_ENOMEM, "out of memory");
    op->res = rr;
    sqlite3_stmt *st = db_stmt(c, DB_STMT_GAME_BY_ID);
    if (!st)
        return db_op_fail(op, c, DB_ERR);
    sqlite3_bind_int64(st, 1, op->i[0]);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return fail_msg(op, DB_ENOTFOUND, "no such game");
    if (rc != SQLITE_ROW)
        return db_op_fail(op, c, DB_ERR);
    game_from_row(st, &rr->r.game);
    sqlite3_reset(st);
    rc = read_snapshot(c, op, rr);
    if (rc == DB_OK)
        rc = read_journal(c, op, op->i[0], rr->r.snap_seq, &rr->rows, &rr->nrows);
    rr->r.rows = rr->rows;
    rr->r.nrows = rr->nrows;
    return rc;
}

static void free_res_resume(db_op_t *op)
{
    resume_res_t *rr = op->res;
    if (!rr)
        return;
    free_rows(rr->rows, rr->nrows);
    free(rr->snap);
    free(rr);
}

static void deliver_resume(db_op_t *op)
{
    resume_res_t *rr = op->res;
    op->cb.resume(op->ud, op->status, op->status == DB_OK ? &rr->r : NULL);
}

const db_op_kind_t db_kind_journal_read = {run_journal_read, deliver_journal, free_res_journal,
                                           false};
const db_op_kind_t db_kind_game_resume = {run_game_resume, deliver_resume, free_res_resume, false};

void db_journal_read(db_t *db, int64_t game, int64_t after_seq, db_journal_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_journal_read, ud);
    if (op) {
        op->cb.journal = cb;
        op->i[0] = game;
        op->i[1] = after_seq;
    }
    db_submit(db, op);
}

void db_game_resume(db_t *db, int64_t game, db_resume_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_game_resume, ud);
    if (op) {
        op->cb.resume = cb;
        op->i[0] = game;
    }
    db_submit(db, op);
}
