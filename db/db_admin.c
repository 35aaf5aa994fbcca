/* db_admin — reads for the admin tools: the list of accounts and the
 * database's health. Rare requests, so their statements are prepared per
 * call rather than kept in the statement table. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "db_internal.h"

static void free_res_plain(db_op_t *op)
{
    free(op->res);
}

/* ---- users ------------------------------------------------------------------- */

static const char USERS_SQL[] =
    "SELECT u.id, u.name, u.created, u.locked, "
    "(SELECT count(*) FROM games g WHERE g.user = u.id), "
    "coalesce((SELECT g.id FROM games g WHERE g.user = u.id AND g.state = 'live'), 0) "
    "FROM users u ORDER BY u.name_key";

static int users_grow(db_op_t *op, size_t *cap)
{
    if (op->nres < *cap)
        return 0;
    *cap = *cap ? *cap * 2 : 32;
    db_user_info_t *nv = realloc(op->res, *cap * sizeof *nv);
    if (!nv)
        return -1;
    op->res = nv;
    return 0;
}

static int run_users_list(db_conn_t *c, db_op_t *op)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->h, USERS_SQL, -1, &st, NULL) != SQLITE_OK)
        return db_op_fail(op, c, DB_ERR);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (users_grow(op, &cap))
            break;
        db_user_info_t *u = (db_user_info_t *)op->res + op->nres++;
        memset(u, 0, sizeof *u);
        u->id = sqlite3_column_int64(st, 0);
        const unsigned char *name = sqlite3_column_text(st, 1);
        snprintf(u->name, sizeof u->name, "%s", name ? (const char *)name : "");
        u->created = sqlite3_column_int64(st, 2);
        u->locked = sqlite3_column_int(st, 3) != 0;
        u->games = sqlite3_column_int64(st, 4);
        u->live_game = sqlite3_column_int64(st, 5);
    }
    int status = rc == SQLITE_DONE  ? DB_OK
                 : rc == SQLITE_ROW ? DB_ENOMEM
                                    : db_op_fail(op, c, DB_ERR);
    sqlite3_finalize(st);
    return status;
}

static void deliver_users(db_op_t *op)
{
    bool ok = op->status == DB_OK;
    op->cb.users(op->ud, op->status, ok ? op->res : NULL, ok ? op->nres : 0);
}

static const db_op_kind_t db_kind_users_list = {run_users_list, deliver_users, free_res_plain,
                                                false};

void db_users_list(db_t *db, db_users_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_users_list, ud);
    if (op)
        op->cb.users = cb;
    db_submit(db, op);
}

/* ---- health ------------------------------------------------------------------ */

/* One integer from a one-row query; -1 if it fails. */
static int64_t query_int(sqlite3 *h, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* PRAGMA integrity_check: "ok", or its first few messages joined by "; ". */
static int integrity(sqlite3 *h, char *out, size_t n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, "PRAGMA integrity_check(5)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    size_t len = 0;
    out[0] = '\0';
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && len + 1 < n) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        len +=
            (size_t)snprintf(out + len, n - len, "%s%s", len ? "; " : "", t ? (const char *)t : "");
        if (len >= n)
            len = n - 1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static const struct {
    size_t off;
    const char *sql;
} COUNTS[] = {
    {offsetof(db_health_t, page_size), "PRAGMA page_size"},
    {offsetof(db_health_t, page_count), "PRAGMA page_count"},
    {offsetof(db_health_t, freelist_pages), "PRAGMA freelist_count"},
    {offsetof(db_health_t, users), "SELECT count(*) FROM users"},
    {offsetof(db_health_t, locked_users), "SELECT count(*) FROM users WHERE locked"},
    {offsetof(db_health_t, games_live), "SELECT count(*) FROM games WHERE state = 'live'"},
    {offsetof(db_health_t, games_finished), "SELECT count(*) FROM games WHERE state = 'finished'"},
    {offsetof(db_health_t, games_broken), "SELECT count(*) FROM games WHERE state = 'broken'"},
    {offsetof(db_health_t, journal_rows), "SELECT count(*) FROM journal"},
    {offsetof(db_health_t, journal_bytes), "SELECT coalesce(sum(length(keys)), 0) FROM journal"},
    {offsetof(db_health_t, snapshots), "SELECT count(*) FROM snapshots"},
    {offsetof(db_health_t, snapshot_bytes), "SELECT coalesce(sum(length(blob)), 0) FROM snapshots"},
};

static int run_health(db_conn_t *c, db_op_t *op)
{
    db_health_t *h = calloc(1, sizeof *h);
    if (!h)
        return DB_ENOMEM;
    op->res = h;
    if (integrity(c->h, h->integrity, sizeof h->integrity))
        return db_op_fail(op, c, DB_ERR);
    for (size_t i = 0; i < sizeof COUNTS / sizeof COUNTS[0]; i++) {
        int64_t v = query_int(c->h, COUNTS[i].sql);
        if (v < 0)
            return db_op_fail(op, c, DB_ERR);
        memcpy((char *)h + COUNTS[i].off, &v, sizeof v);
    }
    h->schema_version = (int)query_int(c->h, "PRAGMA user_version");
    const char *file = sqlite3_db_filename(c->h, "main");
    char wal[1100];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", file ? file : "");
    if (file && file[0] && stat(wal, &sb) == 0)
        h->wal_bytes = (int64_t)sb.st_size;
    return DB_OK;
}

static void deliver_health(db_op_t *op)
{
    op->cb.health(op->ud, op->status, op->status == DB_OK ? op->res : NULL);
}

static const db_op_kind_t db_kind_health = {run_health, deliver_health, free_res_plain, false};

void db_health(db_t *db, db_health_cb cb, void *ud)
{
    db_op_t *op = db_op_new(&db_kind_health, ud);
    if (op)
        op->cb.health = cb;
    db_submit(db, op);
}
