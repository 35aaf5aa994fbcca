/* db_fixture — what the db unit tests share: a database in a fresh
 * temporary directory with its own libuv loop, and a row count read
 * straight from the file. A suite that sets *fx_pg() to a PostgreSQL URL
 * (WARREN_PG_URL: the *_pg suites) gets a fresh schema of that database
 * instead, f->path its URL, and the counts read from there. Also the
 * recorders of the db's callbacks (fx_done_t, fx_user_t). */
#ifndef WARREN_TEST_DB_FIXTURE_H
#define WARREN_TEST_DB_FIXTURE_H
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>
#include <uv.h>
#include "db.h"
#include "db_internal.h" /* db_migration_sql */

typedef struct {
    char dir[64];
    char path[1024];
    uv_loop_t loop;
    db_t *db;
} fx_t;

/* The PostgreSQL URL fx_open uses instead of a file; NULL: SQLite. */
static inline const char **fx_pg(void)
{
    static const char *url;
    return &url;
}

/* A *_pg suite's unchecked fixture: its tests' databases on the server
 * WARREN_PG_URL names (the suite has no tests without it). */
static inline void fx_use_pg(void)
{
    *fx_pg() = getenv("WARREN_PG_URL");
}

/* A fresh schema in the PostgreSQL database; its URL (search_path) in f->path. */
static inline void fx_pg_schema(fx_t *f, const char *base)
{
    static int n;
    char schema[64], sql[128];
    snprintf(schema, sizeof schema, "fx%ld_%d", (long)getpid(), n++);
    snprintf(sql, sizeof sql, "CREATE SCHEMA %s", schema);
    PGconn *c = PQconnectdb(base);
    ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    snprintf(f->path, sizeof f->path, "%s%soptions=-csearch_path%%3D%s", base,
             strchr(base, '?') ? "&" : "?", schema);
}

/* The database in a directory it has to create (db_open makes parents). */
static inline void fx_open(fx_t *f)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/warren-dbtest-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/sub/dir/w.db", f->dir);
    if (*fx_pg())
        fx_pg_schema(f, *fx_pg());
    ck_assert_int_eq(uv_loop_init(&f->loop), 0);
    char err[256];
    f->db = db_open(&f->loop, f->path, err, sizeof err);
    ck_assert_msg(f->db != NULL, "db_open: %s", err);
}

/* After the db is gone: closes the loop, removes the directory. */
static inline void fx_remove(fx_t *f)
{
    ck_assert_int_eq(uv_loop_close(&f->loop), 0);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    ck_assert_int_eq(system(cmd), 0);
}

static inline void fx_close(fx_t *f)
{
    db_close(f->db);
    f->db = NULL;
    uv_run(&f->loop, UV_RUN_DEFAULT);
    fx_remove(f);
}

/* Callback recorders: how many answers came, and the last one's status
 * and what it carried (a row's id, a user). */
typedef struct {
    int calls, status;
    int64_t id;
} fx_done_t;

static inline void fx_on_done(void *ud, int status, int64_t id)
{
    fx_done_t *d = ud;
    d->calls++;
    d->status = status;
    d->id = id;
}

typedef struct {
    int calls, status;
    db_user_t u;
} fx_user_t;

static inline void fx_on_user(void *ud, int status, const db_user_t *u)
{
    fx_user_t *r = ud;
    r->calls++;
    r->status = status;
    if (u)
        r->u = *u;
}

/* The single integer sql (PostgreSQL's words) reads from the database at
 * url, through a connection of its own. */
static inline int64_t fx_pg_count(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    PGresult *r = PQexec(c, sql);
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", sql, PQerrorMessage(c));
    int64_t n = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
    return n;
}

/* The single integer sql counts, read through a connection of its own
 * (sql in SQLite's words: PostgreSQL gets it translated). */
static inline int count_rows(const char *path, const char *sql)
{
    if (db_is_server(path)) {
        char text[1024];
        db_stmt_def_t d = {.name = "count", .sql = sql};
        ck_assert_ptr_nonnull(db_pg_sql(&d, text, sizeof text));
        return (int)fx_pg_count(path, text);
    }
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

/* Runs sql (SQLite's words, translated) on the PostgreSQL database at url. */
static inline void fx_pg_exec(const char *url, const char *sql)
{
    char text[4096];
    db_stmt_def_t d = {.name = "fixture", .sql = sql};
    ck_assert_ptr_nonnull(db_pg_sql(&d, text, sizeof text));
    PGconn *c = PQconnectdb(url);
    PGresult *r = PQexec(c, text);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
                  "%s: %s", text, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* The older schema in a fresh PostgreSQL schema: its migrations 1..version
 * and the version table as db_pg_migrate keeps it, then rows. */
static inline void fx_pg_old(fx_t *f, int version, const char *rows)
{
    fx_pg_schema(f, *fx_pg());
    char bump[128];
    for (int i = 1; i <= version; i++) {
        PGconn *c = PQconnectdb(f->path);
        PGresult *r = PQexec(c, db_pg_migration_sql(i)); /* several statements: no translation */
        ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "migration %d: %s", i,
                      PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
    }
    snprintf(bump, sizeof bump,
             "CREATE TABLE schema_version (version INTEGER NOT NULL); "
             "INSERT INTO schema_version VALUES (%d)",
             version);
    fx_pg_exec(f->path, bump);
    fx_pg_exec(f->path, rows);
    /* rows given their ids leave the identity counters behind: moved past them */
    fx_pg_exec(f->path, "SELECT setval(pg_get_serial_sequence('users', 'id'), "
                        "coalesce(max(id), 0) + 1, false) FROM users");
}

/* A database file of an older schema: migrations 1..version, then rows
 * (SQL run on it); then db_open, which migrates it. */
static inline void fx_open_old(fx_t *f, int version, const char *rows)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/warren-dbtest-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/old.db", f->dir);
    if (*fx_pg()) {
        fx_pg_old(f, version, rows);
    } else {
        sqlite3 *h;
        ck_assert_int_eq(sqlite3_open(f->path, &h), SQLITE_OK);
        char *msg = NULL, bump[64];
        for (int i = 1; i <= version; i++)
            ck_assert_msg(sqlite3_exec(h, db_migration_sql(i), NULL, NULL, &msg) == SQLITE_OK,
                          "migration %d: %s", i, msg);
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d;", version);
        ck_assert_int_eq(sqlite3_exec(h, bump, NULL, NULL, NULL), SQLITE_OK);
        ck_assert_msg(sqlite3_exec(h, rows, NULL, NULL, &msg) == SQLITE_OK, "%s", msg);
        sqlite3_close(h);
    }
    ck_assert_int_eq(uv_loop_init(&f->loop), 0);
    char err[256];
    f->db = db_open(&f->loop, f->path, err, sizeof err);
    ck_assert_msg(f->db != NULL, "db_open: %s", err);
}

#endif
