/* db_copy — one database copied into another, verified (db_copy.h). Each
 * side is an "end": a SQLite handle or a libpq connection, with the same
 * few operations (run, one integer, scan a table's rows, insert rows). A
 * row's checksum is BLAKE2b of its values in a form both backends give
 * alike (integers as 8 bytes, text and blobs as their bytes); a table's is
 * the sum of its rows', so the order rows come in does not matter. */
#include <endian.h>
#include <libpq-fe.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include "db_copy.h"
#include "db_internal.h"

#define OID_BYTEA 17
#define OID_INT8  20
#define OID_TEXT  25
#define MAX_COLS  24
#define PG_BATCH  500 /* rows per INSERT on PostgreSQL */

/* A table: its columns in SQLite's words and a type letter each (i, t,
 * b); rows left out (where); the order rows are inserted in where it
 * gives PostgreSQL its ids (milestones); what runs before its rows go in;
 * whether PostgreSQL counts its id with an identity sequence. In the
 * order foreign keys need. Every table of the schema is here or in
 * NOT_COPIED: a table missing from both stops the copy. */
typedef struct {
    const char *name, *cols, *types, *where, *order, *pg_order, *before;
    bool ident;
} table_t;

static const table_t TABLES[] = {
    {"users", "id, name, name_key, pwhash, created, locked, options", "itttiit", .ident = true},
    /* the users' insert trigger gave names of its own: the source's replace them */
    {"game_names", "key, name, user", "tti", .before = "DELETE FROM game_names"},
    {"games",
     "id, user, seed, content_version, race, class, start_time, end_time, turns, depth, "
     "max_depth, xl, score, cause, end_kind, verified, state, broken_reason, broken_told",
     "iiitttiiiiiiittitti"},
    {"journal", "game, seq, keys, ms", "iibi"},
    {"journal_aside", "game, after_seq, seq, keys, ms", "iiibi"},
    {"snapshots", "game, turn, seq, blob", "iiib"},
    {"milestones", "game, turn, depth, kind, text", "iiitt", .order = "rowid", .pg_order = "id"},
    {"dumps", "game, text", "it"},
    {"daily", "day, user, game", "tii"},
    {"sessions", "token_hash, user, expires", "tii"},
    {"mail", "id, recipient, sender, sent, text, seen", "iiiiti", .ident = true},
    {"bans", "net, until, created", "tii"},
    {"mutes", "user, until", "ii"},
    {"hosted_scores",
     "id, user, game, name, role, race, gender, align, max_depth, death, points, turns, "
     "realtime, start_time, end_time",
     "iittttttitiiiii", .ident = true},
    {"hosted_games", "id, user, game, start_time, end_time, width, height, bytes, truncated, score",
     "iitiiiiiii", .ident = true},
    {"hosted_chunks", "game, seq, ms, data", "iiib"},
    {"hosted_files", "user, game, path, data", "ittb"},
    {"hosted_file_sets", "user, game, gen, node, bytes, at, uid, gid", "ititiiii"},
    /* the target keeps its own id: it is another database */
    {"meta", "key, value", "tt", .where = "key <> 'id'"},
};
#define NTABLES (sizeof TABLES / sizeof TABLES[0])

/* Tables made by the migrations that are no rows of the data: the
 * counters (set after the copy), PostgreSQL's schema version, and the
 * leases of the nodes that ran the source (none run the copy yet) with
 * their change feed's counter and tombstones, and the events between
 * those nodes. */
static const char *const NOT_COPIED[] = {"game_ids",   "schema_version", "leases",     "lease_chg",
                                         "lease_gone", "nodes",          "node_events"};

/* ---- an end: one side of the copy ----------------------------------------------- */

typedef struct {
    bool pg;
    sqlite3 *h;
    PGconn *c;
    char shown[256]; /* the path or URL for messages, no password */
    char err[1024];
} end_t;

/* One value of a row as read: borrowed until the next row. */
typedef struct {
    bool null;
    int64_t i;
    const void *p;
    size_t len;
} val_t;

static int fail(end_t *e, const char *what, const char *msg)
{
    snprintf(e->err, sizeof e->err, "%.255s: %.200s: %.400s", e->shown, what, msg);
    return DB_ERR;
}

/* sql in SQLite's words; PostgreSQL's translation (user quoted, ?N $N) into out. */
static const char *pg_words(const char *sql, char *out, size_t n)
{
    db_stmt_def_t d = {.name = "copy", .sql = sql};
    return db_pg_sql(&d, out, n);
}

static int run(end_t *e, const char *sql)
{
    if (!e->pg) {
        char *msg = NULL;
        int ret = sqlite3_exec(e->h, sql, NULL, NULL, &msg) == SQLITE_OK
                      ? DB_OK
                      : fail(e, sql, msg ? msg : sqlite3_errmsg(e->h));
        sqlite3_free(msg);
        return ret;
    }
    char text[1024];
    if (!pg_words(sql, text, sizeof text))
        return fail(e, sql, "too long");
    PGresult *r = PQexec(e->c, text);
    ExecStatusType st = PQresultStatus(r);
    int ret = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK
                  ? DB_OK
                  : fail(e, text, PQresultErrorMessage(r));
    PQclear(r);
    return ret;
}

/* The text of a one-row, one-column query (SQLite's words) into out. */
static int query_text(end_t *e, const char *sql, char *out, size_t n)
{
    out[0] = '\0';
    if (!e->pg) {
        sqlite3_stmt *st = NULL;
        int ret = sqlite3_prepare_v2(e->h, sql, -1, &st, NULL);
        if (ret == SQLITE_OK && (ret = sqlite3_step(st)) == SQLITE_ROW)
            snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return ret == SQLITE_ROW ? DB_OK : fail(e, sql, sqlite3_errmsg(e->h));
    }
    char text[1024];
    if (!pg_words(sql, text, sizeof text))
        return fail(e, sql, "too long");
    PGresult *r = PQexec(e->c, text);
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    if (ok)
        snprintf(out, n, "%s", PQgetvalue(r, 0, 0));
    else
        fail(e, text, PQresultErrorMessage(r));
    PQclear(r);
    return ok ? DB_OK : DB_ERR;
}

static int query_int(end_t *e, const char *sql, int64_t *v)
{
    char text[32];
    int ret = query_text(e, sql, text, sizeof text);
    *v = strtoll(text, NULL, 10);
    return ret;
}

static int end_open(end_t *e, const char *path, bool source)
{
    memset(e, 0, sizeof *e);
    db_redact(path, e->shown, sizeof e->shown);
    e->pg = db_pg_is_url(path);
    if (e->pg) {
        e->c = PQconnectdb(path);
        if (PQstatus(e->c) != CONNECTION_OK)
            return fail(e, "cannot connect", PQerrorMessage(e->c));
        return run(e, source ? "SET default_transaction_read_only = on"
                             : "SET client_min_messages "
                               "= warning");
    }
    int flags = source ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (sqlite3_open_v2(path, &e->h, flags, NULL) != SQLITE_OK)
        return fail(e, "cannot open", sqlite3_errmsg(e->h));
    sqlite3_busy_timeout(e->h, 5000);
    return run(e, "PRAGMA foreign_keys = ON");
}

static void end_close(end_t *e)
{
    if (e->c)
        PQfinish(e->c);
    sqlite3_close(e->h);
    e->c = NULL;
    e->h = NULL;
}

/* ---- reading a table ------------------------------------------------------------ */

/* The SELECT of t's columns (SQLite's words, or PostgreSQL's). */
static void select_sql(const table_t *t, bool pg, char *out, size_t n)
{
    const char *order = pg ? t->pg_order : t->order;
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s%s%s%s%s", t->cols, t->name,
             t->where ? " WHERE " : "", t->where ? t->where : "", order ? " ORDER BY " : "",
             order ? order : "");
    if (!pg || !pg_words(sql, out, n))
        snprintf(out, n, "%s", sql);
}

typedef int (*row_fn)(void *ud, const val_t *v, int n);

static int scan_sqlite(end_t *e, const table_t *t, row_fn fn, void *ud)
{
    char sql[1024];
    select_sql(t, false, sql, sizeof sql);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(e->h, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(e, t->name, sqlite3_errmsg(e->h));
    int n = (int)strlen(t->types), ret, status = DB_OK;
    val_t v[MAX_COLS];
    while (status == DB_OK && (ret = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++) {
            v[i].null = sqlite3_column_type(st, i) == SQLITE_NULL;
            v[i].i = sqlite3_column_int64(st, i);
            v[i].p = t->types[i] == 'b' ? sqlite3_column_blob(st, i)
                                        : (const void *)sqlite3_column_text(st, i);
            v[i].len = (size_t)sqlite3_column_bytes(st, i);
        }
        status = fn(ud, v, n);
    }
    if (status == DB_OK && ret != SQLITE_DONE)
        status = fail(e, t->name, sqlite3_errmsg(e->h));
    sqlite3_finalize(st);
    return status;
}

/* Binary results, a row at a time: integers come as 8 bytes big-endian. */
static void pg_row(const PGresult *r, const char *types, val_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        v[i].null = PQgetisnull(r, 0, i);
        v[i].p = PQgetvalue(r, 0, i);
        v[i].len = (size_t)PQgetlength(r, 0, i);
        v[i].i = 0;
        if (types[i] == 'i' && !v[i].null && v[i].len == 8) {
            uint64_t be;
            memcpy(&be, v[i].p, 8);
            v[i].i = (int64_t)be64toh(be);
        }
    }
}

static int scan_pg(end_t *e, const table_t *t, row_fn fn, void *ud)
{
    char sql[1024];
    select_sql(t, true, sql, sizeof sql);
    if (!PQsendQueryParams(e->c, sql, 0, NULL, NULL, NULL, NULL, 1) || !PQsetSingleRowMode(e->c))
        return fail(e, t->name, PQerrorMessage(e->c));
    int n = (int)strlen(t->types), status = DB_OK;
    val_t v[MAX_COLS];
    for (PGresult *r; (r = PQgetResult(e->c)); PQclear(r)) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE && status == DB_OK) {
            pg_row(r, t->types, v, n);
            status = fn(ud, v, n);
        } else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && status == DB_OK) {
            status = fail(e, t->name, PQresultErrorMessage(r));
        }
    }
    return status;
}

static int scan(end_t *e, const table_t *t, row_fn fn, void *ud)
{
    return e->pg ? scan_pg(e, t, fn, ud) : scan_sqlite(e, t, fn, ud);
}

/* ---- the checksum: a table's rows summed --------------------------------------- */

typedef struct {
    const char *types;
    int64_t rows;
    uint64_t sum[2];
} tally_t;

static void tally_row(tally_t *t, const val_t *v, int n)
{
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, 16);
    for (int i = 0; i < n; i++) {
        uint8_t head[9] = {v[i].null ? 'n' : (uint8_t)t->types[i]};
        uint64_t x = htole64(t->types[i] == 'i' ? (uint64_t)v[i].i : (uint64_t)v[i].len);
        memcpy(head + 1, &x, 8);
        crypto_generichash_update(&h, head, v[i].null ? 1 : 9);
        if (!v[i].null && t->types[i] != 'i' && v[i].len)
            crypto_generichash_update(&h, v[i].p, v[i].len);
    }
    uint8_t out[16];
    crypto_generichash_final(&h, out, sizeof out);
    for (int k = 0; k < 2; k++) {
        uint64_t part;
        memcpy(&part, out + 8 * k, 8);
        t->sum[k] += le64toh(part);
    }
    t->rows++;
}

static int tally_cb(void *ud, const val_t *v, int n)
{
    tally_row(ud, v, n);
    return DB_OK;
}

static void tally_hex(const tally_t *t, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)t->sum[0],
             (unsigned long long)t->sum[1]);
}

/* ---- writing a table ------------------------------------------------------------ */

/* Rows of one table going into the target: SQLite's prepared insert, or
 * PostgreSQL's rows held (their bytes in buf) for one INSERT of many. */
typedef struct {
    end_t *e;
    const table_t *t;
    int n;
    tally_t tally; /* of the rows read from the source */
    sqlite3_stmt *st;
    unsigned char *buf;
    size_t used, cap;
    int rows, max_rows;
    size_t off[PG_BATCH * MAX_COLS];
    int lens[PG_BATCH * MAX_COLS];
    bool nulls[PG_BATCH * MAX_COLS];
} ins_t;

static int put_sqlite(ins_t *in, const val_t *v)
{
    sqlite3_stmt *st = in->st;
    for (int i = 0; i < in->n; i++) {
        char ty = in->t->types[i];
        int col = i + 1;
        if (v[i].null)
            sqlite3_bind_null(st, col);
        else if (ty == 'i')
            sqlite3_bind_int64(st, col, v[i].i);
        else if (ty == 't')
            sqlite3_bind_text64(st, col, v[i].len ? v[i].p : "", v[i].len, SQLITE_TRANSIENT,
                                SQLITE_UTF8);
        else if (v[i].len == 0) /* a NULL pointer would bind NULL, not an empty blob */
            sqlite3_bind_zeroblob(st, col, 0);
        else
            sqlite3_bind_blob64(st, col, v[i].p, v[i].len, SQLITE_TRANSIENT);
    }
    int ret = sqlite3_step(st);
    sqlite3_reset(st);
    return ret == SQLITE_DONE ? DB_OK : fail(in->e, in->t->name, sqlite3_errmsg(in->e->h));
}

/* The INSERT of in's held rows: $1.. numbered row after row. */
static char *batch_sql(const ins_t *in)
{
    char head[1024], text[1024];
    snprintf(head, sizeof head, "INSERT INTO %s (%s) VALUES ", in->t->name, in->t->cols);
    if (!pg_words(head, text, sizeof text))
        return NULL;
    size_t cap = strlen(text) + (size_t)in->rows * (size_t)in->n * 10 + 16;
    char *sql = malloc(cap);
    if (!sql)
        return NULL;
    size_t at = (size_t)snprintf(sql, cap, "%s", text);
    for (int r = 0, p = 1; r < in->rows; r++)
        for (int i = 0; i < in->n; i++, p++)
            at += (size_t)snprintf(sql + at, cap - at, "%s$%d%s",
                                   i   ? ""
                                   : r ? ", ("
                                       : "(",
                                   p, i == in->n - 1 ? ")" : ", ");
    return sql;
}

static int flush_pg(ins_t *in)
{
    if (in->rows == 0)
        return DB_OK;
    int np = in->rows * in->n;
    char *sql = batch_sql(in);
    const char **vals = malloc(sizeof *vals * (size_t)np);
    Oid *types = malloc(sizeof *types * (size_t)np);
    int *fmts = malloc(sizeof *fmts * (size_t)np);
    int ret = DB_ERR;
    if (sql && vals && types && fmts) {
        for (int k = 0; k < np; k++) {
            char ty = in->t->types[k % in->n];
            vals[k] = in->nulls[k] ? NULL : (const char *)in->buf + in->off[k];
            types[k] = ty == 'i' ? OID_INT8 : ty == 't' ? OID_TEXT : OID_BYTEA;
            fmts[k] = 1;
        }
        PGresult *r = PQexecParams(in->e->c, sql, np, types, vals, in->lens, fmts, 0);
        ret = PQresultStatus(r) == PGRES_COMMAND_OK
                  ? DB_OK
                  : fail(in->e, in->t->name, PQresultErrorMessage(r));
        PQclear(r);
    } else {
        fail(in->e, in->t->name, "out of memory");
    }
    free(sql);
    free(vals);
    free(types);
    free(fmts);
    in->rows = 0;
    in->used = 0;
    return ret;
}

/* Holds one value's bytes (integers big-endian, as int8's binary form). */
static bool hold(ins_t *in, int k, const val_t *v, char ty)
{
    size_t len = ty == 'i' ? 8 : v->len;
    if (in->used + len > in->cap) {
        size_t cap = (in->cap ? in->cap * 2 : 1 << 16) + len;
        unsigned char *b = realloc(in->buf, cap);
        if (!b)
            return false;
        in->buf = b;
        in->cap = cap;
    }
    in->off[k] = in->used;
    in->lens[k] = (int)len;
    in->nulls[k] = v->null;
    uint64_t be = htobe64((uint64_t)v->i);
    if (len)
        memcpy(in->buf + in->used, ty == 'i' ? (const void *)&be : v->p, len);
    in->used += len;
    return true;
}

static int put_pg(ins_t *in, const val_t *v)
{
    for (int i = 0; i < in->n; i++)
        if (!hold(in, in->rows * in->n + i, &v[i], in->t->types[i]))
            return fail(in->e, in->t->name, "out of memory");
    in->rows++;
    return in->rows >= in->max_rows ? flush_pg(in) : DB_OK;
}

static int put_row(void *ud, const val_t *v, int n)
{
    ins_t *in = ud;
    (void)n;
    tally_row(&in->tally, v, in->n);
    return in->e->pg ? put_pg(in, v) : put_sqlite(in, v);
}

/* Every row of t from src into dst; the source's count and checksum in tally. */
static int copy_table(end_t *src, end_t *dst, const table_t *t, tally_t *tally)
{
    ins_t *in = calloc(1, sizeof *in);
    if (!in)
        return fail(dst, t->name, "out of memory");
    *in = (ins_t){.e = dst, .t = t, .n = (int)strlen(t->types), .tally = {.types = t->types}};
    in->max_rows = 65535 / in->n < PG_BATCH ? 65535 / in->n : PG_BATCH;
    int ret = t->before ? run(dst, t->before) : DB_OK;
    if (ret == DB_OK && !dst->pg) {
        char sql[1024], qs[MAX_COLS * 4] = "";
        for (int i = 0; i < in->n; i++)
            strcat(qs, i ? ", ?" : "?");
        snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (%s)", t->name, t->cols, qs);
        if (sqlite3_prepare_v2(dst->h, sql, -1, &in->st, NULL) != SQLITE_OK)
            ret = fail(dst, t->name, sqlite3_errmsg(dst->h));
    }
    if (ret == DB_OK)
        ret = scan(src, t, put_row, in);
    if (ret == DB_OK && dst->pg)
        ret = flush_pg(in);
    *tally = in->tally;
    sqlite3_finalize(in->st);
    free(in->buf);
    free(in);
    return ret;
}

/* ---- the copy ------------------------------------------------------------------- */

static bool known(const char *name)
{
    for (size_t i = 0; i < NTABLES; i++)
        if (strcmp(TABLES[i].name, name) == 0)
            return true;
    for (size_t i = 0; i < sizeof NOT_COPIED / sizeof *NOT_COPIED; i++)
        if (strcmp(NOT_COPIED[i], name) == 0)
            return true;
    return false;
}

/* A table this program does not know would be left behind: refused. */
static int check_tables(end_t *e)
{
    char names[4096];
    const char *sql = e->pg ? "SELECT coalesce(string_agg(table_name, ' '), '') FROM "
                              "information_schema.tables WHERE table_schema = current_schema() "
                              "AND table_type = 'BASE TABLE'"
                            : "SELECT coalesce(group_concat(name, ' '), '') FROM sqlite_master "
                              "WHERE type = 'table' AND name NOT LIKE 'sqlite_%'";
    if (query_text(e, sql, names, sizeof names) != DB_OK)
        return DB_ERR;
    for (char *save = NULL, *w = strtok_r(names, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (!known(w))
            return fail(e, w, "a table migrate-db does not know how to copy");
    return DB_OK;
}

/* Rows the target holds beyond what its migrations made. */
static int target_rows(end_t *e, int64_t *users, int64_t *games, int64_t *all)
{
    *all = 0;
    for (size_t i = 0; i < NTABLES; i++) {
        const table_t *t = &TABLES[i];
        char sql[256];
        int64_t n = 0;
        if (t->before || t->where) /* made by the migrations too */
            continue;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", t->name);
        if (query_int(e, sql, &n) != DB_OK)
            return DB_ERR;
        *all += n;
        if (i == 0)
            *users = n;
        if (strcmp(t->name, "games") == 0)
            *games = n;
    }
    return DB_OK;
}

/* An empty target, or one emptied (replace): its rows deleted, last table first. */
static int make_room(end_t *e, bool replace)
{
    int64_t users = 0, games = 0, all = 0;
    if (target_rows(e, &users, &games, &all) != DB_OK)
        return DB_ERR;
    if (all > 0 && !replace) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "holds %lld accounts, %lld games and %lld rows in all: not overwritten "
                 "(--replace deletes them first)",
                 (long long)users, (long long)games, (long long)all);
        return fail(e, "target not empty", msg);
    }
    for (size_t i = NTABLES; all > 0 && i-- > 0;) {
        char sql[256];
        snprintf(sql, sizeof sql, "DELETE FROM %s%s%s", TABLES[i].name,
                 TABLES[i].where ? " WHERE " : "", TABLES[i].where ? TABLES[i].where : "");
        if (run(e, sql) != DB_OK)
            return DB_ERR;
    }
    return DB_OK;
}

/* Every table read back from the target, compared with the source's. */
static int verify(end_t *dst, const tally_t *src, db_copy_report_t *rep)
{
    for (size_t i = 0; i < NTABLES; i++) {
        tally_t got = {.types = TABLES[i].types};
        if (scan(dst, &TABLES[i], tally_cb, &got) != DB_OK)
            return DB_ERR;
        db_copy_table_t *r = &rep->t[rep->n++];
        r->table = TABLES[i].name;
        r->rows = src[i].rows;
        tally_hex(&src[i], r->sum);
        char mine[33], msg[200];
        tally_hex(&got, mine);
        if (got.rows != src[i].rows || strcmp(mine, r->sum) != 0) {
            snprintf(msg, sizeof msg, "%lld rows (checksum %s) in the source, %lld (%s) copied",
                     (long long)src[i].rows, r->sum, (long long)got.rows, mine);
            return fail(dst, TABLES[i].name, msg);
        }
    }
    return DB_OK;
}

/* The target's counters past the rows copied: game ids, and on
 * PostgreSQL each identity column's sequence (SQLite's rowids follow by
 * themselves). */
static int set_counters(end_t *e)
{
    if (!e->pg)
        return run(e, "UPDATE game_ids SET next = (SELECT coalesce(max(id), 0) + 1 FROM games)");
    int ret = run(e, "SELECT setval('game_ids', (SELECT coalesce(max(id), 0) + 1 FROM games), "
                     "false)");
    for (size_t i = 0; ret == DB_OK && i < NTABLES; i++) {
        char sql[300];
        if (!TABLES[i].ident)
            continue;
        snprintf(sql, sizeof sql,
                 "SELECT setval(pg_get_serial_sequence('%s', 'id'), "
                 "(SELECT coalesce(max(id), 0) + 1 FROM %s), false)",
                 TABLES[i].name, TABLES[i].name);
        ret = run(e, sql);
    }
    return ret;
}

/* Inside both transactions: the rows over, checked, the counters set. */
static int copy_all(end_t *src, end_t *dst, bool replace, db_copy_report_t *rep)
{
    tally_t tallies[NTABLES];
    if (check_tables(src) != DB_OK || check_tables(dst) != DB_OK ||
        make_room(dst, replace) != DB_OK)
        return DB_ERR;
    for (size_t i = 0; i < NTABLES; i++)
        if (copy_table(src, dst, &TABLES[i], &tallies[i]) != DB_OK)
            return DB_ERR;
    if (verify(dst, tallies, rep) != DB_OK)
        return DB_ERR;
    return set_counters(dst);
}

/* The database made or migrated to this program's schema, as warrend opens it. */
static int bring_up(const char *path, char *err, size_t errlen)
{
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0) {
        snprintf(err, errlen, "cannot make an event loop");
        return DB_ERR;
    }
    db_t *db = db_open(&loop, path, err, errlen);
    if (db)
        db_close(db);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return db ? DB_OK : DB_ERR;
}

/* The source must be a Warren database already: never made here. */
static int source_exists(const char *from, char *err, size_t errlen)
{
    char shown[256], has[8] = "";
    db_redact(from, shown, sizeof shown);
    if (!db_pg_is_url(from)) {
        if (access(from, F_OK) == 0)
            return DB_OK;
        snprintf(err, errlen, "%s: no such database", shown);
        return DB_ERR;
    }
    end_t e;
    int ret = end_open(&e, from, true);
    if (ret == DB_OK)
        ret = query_text(&e, "SELECT to_regclass('users') IS NOT NULL", has, sizeof has);
    if (ret == DB_OK && strcmp(has, "t") != 0)
        ret = fail(&e, "no Warren database there", "it has no users table");
    if (ret != DB_OK)
        snprintf(err, errlen, "%s", e.err);
    end_close(&e);
    return ret;
}

/* Both ends open; the same database on both sides refused (their ids). */
static int open_ends(end_t *src, end_t *dst, const char *from, const char *to)
{
    char a[64], b[64];
    if (end_open(src, from, true) != DB_OK || end_open(dst, to, false) != DB_OK ||
        query_text(src, "SELECT value FROM meta WHERE key = 'id'", a, sizeof a) != DB_OK ||
        query_text(dst, "SELECT value FROM meta WHERE key = 'id'", b, sizeof b) != DB_OK)
        return DB_ERR;
    if (strcmp(a, b) == 0)
        return fail(dst, "cannot copy", "it is the source database itself");
    const char *begin = src->pg ? "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY" : "BEGIN";
    if (run(src, begin) != DB_OK || run(dst, dst->pg ? "BEGIN" : "BEGIN IMMEDIATE") != DB_OK)
        return DB_ERR;
    return DB_OK;
}

int db_copy(const char *from, const char *to, bool replace, db_copy_report_t *rep, char *err,
            size_t errlen)
{
    memset(rep, 0, sizeof *rep);
    if (sodium_init() < 0) {
        snprintf(err, errlen, "cannot start libsodium");
        return DB_ERR;
    }
    if (source_exists(from, err, errlen) != DB_OK || bring_up(from, err, errlen) != DB_OK ||
        bring_up(to, err, errlen) != DB_OK)
        return DB_ERR;
    end_t src, dst;
    int ret = open_ends(&src, &dst, from, to);
    if (ret == DB_OK)
        ret = copy_all(&src, &dst, replace, rep);
    if (ret == DB_OK)
        ret = run(&dst, "COMMIT");
    if (ret != DB_OK) {
        snprintf(err, errlen, "%s", dst.err[0] ? dst.err : src.err);
        rep->n = 0;
    }
    end_close(&src); /* an open transaction ends with its connection, undone */
    end_close(&dst);
    return ret;
}
