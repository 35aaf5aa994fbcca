/* db_pg — the PostgreSQL backend, through libpq: a connection per db
 * thread, each statement of the table prepared once per connection (its
 * parameters typed from the row's signature) and checked against the row,
 * results read as text through a cursor, and the migrations of
 * schema_pg.c. Each write op's savepoint (PostgreSQL undoes no single
 * failed statement by itself) travels with the op's first statement in one
 * pipeline, its RELEASE with the next op's. A connection lost between two
 * batches is connected again when the next begins (its statements
 * prepared again as they are used). */
#include <ctype.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

/* PostgreSQL's type oids (pg_type.h is a server header). */
#define OID_BYTEA 17
#define OID_INT8  20
#define OID_TEXT  25

#define PG_SQL_MAX 4096 /* bytes of one statement's translated text */

/* A key for pg_advisory_lock: one node migrates at a time. */
#define MIGRATE_LOCK "7702151"

static PGconn *pgc(const db_conn_t *c)
{
    return (PGconn *)c->pg;
}

bool db_pg_is_url(const char *url)
{
    return url && (strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0);
}

/* libpq's message without its trailing newline, into c->err. */
static const char *keep_err(db_conn_t *c, const char *msg)
{
    snprintf(c->err, sizeof c->err, "%s", msg && *msg ? msg : "PostgreSQL failed");
    size_t n = strlen(c->err);
    while (n > 0 && (c->err[n - 1] == '\n' || c->err[n - 1] == ' '))
        c->err[--n] = '\0';
    return c->err;
}

/* ---- the statements' text ------------------------------------------------------ */

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* Appends what to out at *at; false when it does not fit. */
static bool put(char *out, size_t n, size_t *at, const char *what, size_t len)
{
    if (*at + len >= n)
        return false;
    memcpy(out + *at, what, len);
    *at += len;
    out[*at] = '\0';
    return true;
}

/* ?N to $N and the word user to "user", outside quotes. */
const char *db_pg_sql(const db_stmt_def_t *def, char *out, size_t n)
{
    const char *s = def->pg_sql ? def->pg_sql : def->sql;
    size_t at = 0;
    char quote = 0;
    out[0] = '\0';
    for (size_t i = 0; s[i]; i++) {
        bool ok;
        if (quote || s[i] == '\'' || s[i] == '"') {
            quote = quote == s[i] ? 0 : quote ? quote : s[i];
            ok = put(out, n, &at, s + i, 1);
        } else if (s[i] == '?') {
            ok = put(out, n, &at, "$", 1);
        } else if (strncmp(s + i, "user", 4) == 0 && !ident_char(s[i + 4]) &&
                   (i == 0 || !ident_char(s[i - 1]))) {
            ok = put(out, n, &at, "\"user\"", 6);
            i += 3;
        } else {
            ok = put(out, n, &at, s + i, 1);
        }
        if (!ok)
            return NULL;
    }
    return out;
}

/* ---- the cursor: text columns of one row of a result ---------------------------- */

static int64_t col_int(const db_cur_t *c, int col)
{
    const char *v = PQgetvalue(c->res, c->row, col);
    if (v[0] == 't' || v[0] == 'f') /* a boolean */
        return v[0] == 't';
    return strtoll(v, NULL, 10);
}

static const char *col_text(const db_cur_t *c, int col)
{
    return PQgetvalue(c->res, c->row, col);
}

static int hexval(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* bytea comes as text in PostgreSQL's hex format (\x0a1b...). */
static void *col_dup(const db_cur_t *c, int col, size_t *len)
{
    const char *v = PQgetvalue(c->res, c->row, col);
    size_t n = (size_t)PQgetlength(c->res, c->row, col);
    bool hex = PQftype(c->res, col) == OID_BYTEA && n >= 2 && v[0] == '\\' && v[1] == 'x';
    size_t out = hex ? (n - 2) / 2 : n;
    unsigned char *d = malloc(out + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i < out; i++)
        d[i] = hex ? (unsigned char)(hexval(v[2 + 2 * i]) << 4 | hexval(v[3 + 2 * i]))
                   : (unsigned char)v[i];
    d[out] = '\0';
    if (len)
        *len = out;
    return d;
}

static const db_cur_ops_t cur_ops = {col_int, col_text, col_dup};

/* ---- statements: prepared once per connection, checked against their row -------- */

static bool prepare(db_conn_t *c, int id)
{
    if (c->prepared[id])
        return true;
    const db_stmt_def_t *d = &db_stmt_defs[id];
    char sql[PG_SQL_MAX], name[16];
    Oid types[16];
    if (!db_pg_sql(d, sql, sizeof sql) || d->nparams > sizeof types / sizeof types[0]) {
        snprintf(c->err, sizeof c->err, "statement %s: too long for PostgreSQL", d->name);
        return false;
    }
    for (size_t i = 0; i < d->nparams; i++)
        types[i] = d->sig[i] == 'i' ? OID_INT8 : d->sig[i] == 't' ? OID_TEXT : OID_BYTEA;
    snprintf(name, sizeof name, "w%d", id);
    PGresult *r = PQprepare(pgc(c), name, sql, (int)d->nparams, types);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    r = ok ? PQdescribePrepared(pgc(c), name) : NULL; /* not the one cleared */
    ok = ok && PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s", keep_err(c, PQerrorMessage(pgc(c))));
        snprintf(c->err, sizeof c->err, "statement %s: %s", d->name, msg);
        PQclear(r);
        return false;
    }
    /* a ROWID row says RETURNING id: its one column is the new row's id */
    int cols = PQnfields(r) - (d->outcome == DB_OUT_ROWID ? 1 : 0);
    ok = db_check_sig(d, PQnparams(r), cols, c->err, sizeof c->err) == DB_OK;
    PQclear(r);
    c->prepared[id] = ok;
    return ok;
}

int db_pg_verify(db_conn_t *c, int id, char *err, size_t errlen)
{
    c->prepared[id] = 0;
    bool ok = prepare(c, id);
    snprintf(err, errlen, "%s", ok ? "" : c->err);
    return ok ? DB_OK : DB_ERR;
}

/* ---- running a step ---------------------------------------------------------------- */

/* A failed statement's status by its SQLSTATE: constraint kinds and
 * conflicts get their own codes, the rest DB_ERR. */
static int state_status(const char *state)
{
    static const struct {
        const char *state;
        int status;
    } codes[] = {
        {"23505", DB_EEXISTS},   /* unique_violation */
        {"23503", DB_ENOTFOUND}, /* foreign_key_violation */
        {"23514", DB_EINVAL},    /* check_violation */
        {"23502", DB_EINVAL},    /* not_null_violation */
        {"40P01", DB_ECONFLICT}, /* deadlock_detected */
        {"40001", DB_ECONFLICT}, /* serialization_failure */
        {"55P03", DB_ECONFLICT}, /* lock_not_available: a writer's lock_timeout */
    };
    for (size_t i = 0; state && i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(state, codes[i].state) == 0)
            return codes[i].status;
    return DB_ERR;
}

/* Whether op's step r failed for a conflict: then its SQLSTATE in
 * c->state, op in c->state_op. */
static bool conflicted(db_conn_t *c, const db_op_t *op, const PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (state_status(state) != DB_ECONFLICT)
        return false;
    snprintf(c->state, sizeof c->state, "%s", state);
    c->state_op = op;
    return true;
}

/* A failed result's status (state_status), its message in op. */
static int fail_status(db_conn_t *c, db_op_t *op, const PGresult *r)
{
    const char *msg = keep_err(c, r ? PQresultErrorMessage(r) : PQerrorMessage(pgc(c)));
    if (conflicted(c, op, r))
        return db_op_fail_msg(op, DB_ECONFLICT, msg);
    return db_op_fail_msg(op, state_status(r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL),
                          msg);
}

/* A step's values for libpq: integers as text, text as it is, blobs as binary. */
typedef struct {
    char ints[16][24], name[16];
    const char *vals[16];
    int lens[16], fmts[16];
} params_t;

static void params(params_t *p, const db_op_t *op, const db_rec_t *r)
{
    for (int i = 0; i < r->nvals && i < 16; i++) {
        const db_val_t *v = &r->v[i];
        if (v->type == 'i')
            snprintf(p->ints[i], sizeof p->ints[i], "%lld", (long long)v->i);
        p->vals[i] = v->type == 'i' ? p->ints[i] : db_val_bytes(op, v);
        p->lens[i] = (int)v->len;
        p->fmts[i] = v->type == 'b';
    }
    snprintf(p->name, sizeof p->name, "w%d", r->stmt);
}

static PGresult *exec_rec(db_conn_t *c, const db_op_t *op, const db_rec_t *r)
{
    params_t p;
    params(&p, op, r);
    return PQexecPrepared(pgc(c), p.name, r->nvals, p.vals, p.lens, p.fmts, 0);
}

/* The next result of a pipeline, its end (NULL) read too. */
static PGresult *next_result(PGconn *h)
{
    PGresult *r = PQgetResult(h);
    for (PGresult *x; r && (x = PQgetResult(h));)
        PQclear(x);
    return r;
}

/* The held RELEASE (of the op before) and SAVEPOINT (of this op) sent
 * with the step in one round trip: a write op of one statement costs one
 * round trip, not three. The step's result, or the failure before it. */
static PGresult *exec_held(db_conn_t *c, const db_op_t *op, const db_rec_t *r)
{
    PGconn *h = pgc(c);
    const char *held[2];
    int n = 0;
    if (c->held_rel)
        held[n++] = "RELEASE op";
    if (c->held_sp)
        held[n++] = "SAVEPOINT op";
    c->held_rel = c->held_sp = false;
    params_t p;
    params(&p, op, r);
    bool ok = PQenterPipelineMode(h);
    for (int i = 0; ok && i < n; i++)
        ok = PQsendQueryParams(h, held[i], 0, NULL, NULL, NULL, NULL, 0);
    ok = ok && PQsendQueryPrepared(h, p.name, r->nvals, p.vals, p.lens, p.fmts, 0) &&
         PQpipelineSync(h);
    PGresult *failed = NULL, *step = NULL;
    for (int i = 0; ok && i <= n; i++) {
        PGresult *x = next_result(h);
        if (i == n)
            step = x;
        else if (PQresultStatus(x) != PGRES_COMMAND_OK && !failed)
            failed = x;
        else
            PQclear(x);
    }
    PGresult *sync = ok ? PQgetResult(h) : NULL; /* PGRES_PIPELINE_SYNC */
    PQclear(sync);
    PQexitPipelineMode(h);
    if (!failed)
        return step;
    PQclear(step);
    return failed;
}

static int read_rows(db_op_t *op, PGresult *res, const db_stmt_def_t *d, int k)
{
    int n = PQntuples(res);
    if (d->outcome == DB_OUT_ROW && n > 1)
        n = 1;
    for (int i = 0; i < n; i++) {
        db_cur_t cur = {&cur_ops, res, i};
        void *row = db_op_add_row(op, k, d->row);
        if (!row || d->row->read(&cur, row) != DB_OK)
            return db_op_fail_msg(op, DB_ENOMEM, "out of memory");
    }
    if (n == 0 && d->outcome == DB_OUT_ROW)
        return db_op_fail_msg(op, DB_ENOTFOUND, "no such row");
    return DB_OK;
}

static int changed(db_op_t *op, PGresult *res, const db_stmt_def_t *d)
{
    int64_t n = strtoll(PQcmdTuples(res), NULL, 10);
    if (d->outcome == DB_OUT_CHANGE && n == 0)
        return db_op_fail_msg(op, DB_ENOTFOUND, "no such row");
    if (d->outcome == DB_OUT_ROWID) /* none when an insert was skipped */
        op->id = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
    if (d->outcome == DB_OUT_COUNT)
        op->id = n;
    return DB_OK;
}

static int run_step(db_conn_t *c, db_op_t *op, const db_rec_t *r, int k)
{
    const db_stmt_def_t *d = &db_stmt_defs[r->stmt];
    if (!prepare(c, r->stmt))
        return db_op_fail_msg(op, DB_ERR, c->err);
    PGresult *res = c->held_sp || c->held_rel ? exec_held(c, op, r) : exec_rec(c, op, r);
    ExecStatusType st = PQresultStatus(res);
    int ret = st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK ? fail_status(c, op, res)
              : k >= 0                                        ? read_rows(op, res, d, k)
                                                              : changed(op, res, d);
    PQclear(res);
    return ret;
}

/* ---- the connection ------------------------------------------------------------------ */

/* Runs sql, which returns no rows: DB_OK, or DB_ERR with c->err. */
static int exec_sql(db_conn_t *c, const char *sql)
{
    PGresult *r = PQexec(pgc(c), sql);
    int ret = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK
                  ? DB_OK
                  : DB_ERR;
    if (ret != DB_OK)
        keep_err(c, r ? PQresultErrorMessage(r) : PQerrorMessage(pgc(c)));
    PQclear(r);
    return ret;
}

/* What a new session of the connection is set to: a name in
 * pg_stat_activity, and a reader's transactions read-only. */
/* The writer never waits inside a transaction: one open for long is a
 * node stopped mid-batch (SIGSTOP, a frozen machine), whose row locks (a
 * game's lease: db_lease.c) would hold up every other node; the server
 * ends that session, and its batch, which was never answered. Nor does
 * it wait long for another's locks (db_guard_t.lock_wait_ms): a session holding
 * rows (an operator's psql, another node's long batch) would hold up the
 * writer, and every write queued behind it, until it let go. */
#define SETUP_SQL_MAX 256

static int lock_wait_ms(const db_conn_t *c)
{
    return c->lock_wait_ms > 0 ? c->lock_wait_ms : DB_LOCK_WAIT_MS;
}

/* The writer's lock_timeout (db_guard_t.lock_wait_ms) as SQL, into out. */
static const char *lock_wait_sql(const db_conn_t *c, char *out, size_t n)
{
    snprintf(out, n, "SET lock_timeout = '%dms'", lock_wait_ms(c));
    return out;
}

static const char *setup_sql(const db_conn_t *c, char *out, size_t n)
{
    if (c->pg_reader)
        return "SET default_transaction_read_only = on; SET application_name = 'warrend reader'";
    char wait[64];
    snprintf(out, n,
             "SET application_name = 'warrend writer'; "
             "SET idle_in_transaction_session_timeout = '10s'; %s",
             lock_wait_sql(c, wait, sizeof wait));
    return out;
}

/* ---- connecting again: the host that answered last tried first ---------------------- */

#define PG_OPTS_MAX  96   /* libpq's connection options (about 45 in libpq 15) */
#define PG_HOSTS_MAX 1024 /* bytes of a URL's host, hostaddr or port list */

static void quiet(void *arg, const char *msg);

/* Element i of a comma-separated list (hosts, ports) into out, or "". */
static void nth(const char *list, int i, char *out, size_t n)
{
    for (; list && i > 0; i--)
        if ((list = strchr(list, ',')))
            list++;
    size_t len = list ? strcspn(list, ",") : 0;
    snprintf(out, n, "%.*s", (int)len, list ? list : "");
}

static int count(const char *list)
{
    int k = list && *list;
    for (const char *p = list; k && (p = strchr(p, ',')); p++)
        k++;
    return k;
}

/* list from its element i on, then the ones before ("a,b,c" at 1:
 * "b,c,a"); a list of one (a port for every host) stays as it is. */
static void rotate(const char *list, int i, char *out, size_t n)
{
    const char *p = list;
    for (int j = 0; p && j < i; j++)
        if ((p = strchr(p, ',')))
            p++;
    if (i <= 0 || !p || !*p)
        snprintf(out, n, "%s", list);
    else
        snprintf(out, n, "%s,%.*s", p, (int)(p - 1 - list), list);
}

static const char *opt(const PQconninfoOption *o, const char *key)
{
    for (; o && o->keyword; o++)
        if (strcmp(o->keyword, key) == 0)
            return o->val;
    return NULL;
}

/* Which of the connection's hosts it is connected to: its index in the
 * host (or hostaddr) list, 0 when it cannot be told. */
static int answered(PGconn *h)
{
    PQconninfoOption *o = PQconninfo(h);
    const char *hosts = opt(o, "host"), *addrs = opt(o, "hostaddr"), *ports = opt(o, "port");
    int n = count(hosts) > count(addrs) ? count(hosts) : count(addrs), found = 0;
    for (int i = 0; i < n && !found; i++) {
        char host[256], port[32];
        nth(hosts, i, host, sizeof host);
        if (!*host)
            nth(addrs, i, host, sizeof host);
        nth(ports, count(ports) > 1 ? i : 0, port, sizeof port);
        if (strcmp(host, PQhost(h)) == 0 && (!*port || strcmp(port, PQport(h)) == 0))
            found = i;
    }
    PQconninfoFree(o);
    return found;
}

/* A new connection with old's options, its host lists started at the host
 * that answered last: after a failover each reconnect would otherwise
 * wait out connect_timeout on the old primary, gone, before the new one. */
static PGconn *connect_again(const db_conn_t *c, PGconn *old)
{
    static const char *const lists[] = {"host", "hostaddr", "port"};
    PQconninfoOption *o = PQconninfo(old);
    const char *keys[PG_OPTS_MAX + 1], *vals[PG_OPTS_MAX + 1];
    char turned[3][PG_HOSTS_MAX];
    int n = 0;
    for (const PQconninfoOption *p = o; p && p->keyword && n < PG_OPTS_MAX; p++) {
        if (!p->val)
            continue;
        keys[n] = p->keyword;
        vals[n] = p->val;
        for (int k = 0; k < 3; k++)
            if (strcmp(p->keyword, lists[k]) == 0) {
                rotate(p->val, c->pg_first, turned[k], sizeof turned[k]);
                vals[n] = turned[k];
            }
        n++;
    }
    keys[n] = vals[n] = NULL;
    PGconn *h = o ? PQconnectdbParams(keys, vals, 0) : NULL;
    PQconninfoFree(o);
    return h;
}

/* A server restarted, a standby promoted (libpq finds the server that
 * takes writes when the URL names several with target_session_attrs) or
 * a connection dropped between batches: connected again when a
 * transaction is to begin (nothing of a transaction is lost by that: none
 * is open), set up as at the start, its statements to be prepared again.
 * A dropped connection shows only once something fails on it: a BEGIN
 * that fails on a connection found broken is tried once more on a new one. */
static void revive(db_conn_t *c)
{
    PGconn *h = connect_again(c, pgc(c));
    if (h) {
        PQfinish(pgc(c));
        c->pg = (struct pg_conn *)h;
        PQsetNoticeProcessor(h, quiet, NULL);
    } else {
        PQreset(pgc(c)); /* out of memory: as it was */
    }
    memset(c->prepared, 0, sizeof c->prepared);
    c->pg_first = 0; /* the host that answered last is first now */
    if (PQstatus(pgc(c)) != CONNECTION_OK)
        return;
    c->pg_first = answered(pgc(c));
    char sql[SETUP_SQL_MAX];
    exec_sql(c, setup_sql(c, sql, sizeof sql));
}

/* A lazy batch's transaction (db_conn_t.lazy, db_op_t.lazy): its COMMIT
 * returns once the commit is in the WAL's buffers, neither flushed nor
 * on the standby. The WAL is one sequence: the next commit that waits for
 * both (a key's append, of any node) takes it along. */
#define LAZY_SQL "SET LOCAL synchronous_commit = off"

/* SAVEPOINT and RELEASE are held and sent with the next step (exec_held);
 * a savepoint never sent needs no RELEASE or ROLLBACK TO. Any other
 * statement sends what is held first. */
static int hold(db_conn_t *c, int id)
{
    bool undo = id == DB_STMT_ROLLBACK_TO;
    if (id == DB_STMT_SAVEPOINT)
        c->held_sp = true;
    else if ((id == DB_STMT_RELEASE || undo) && c->held_sp) /* of a savepoint never made */
        c->held_sp = undo;
    else if (id == DB_STMT_RELEASE)
        c->held_rel = true;
    else
        return -1;
    return DB_OK;
}

static int send_held(db_conn_t *c)
{
    const char *sql = c->held_rel && c->held_sp ? "RELEASE op; SAVEPOINT op"
                      : c->held_rel             ? "RELEASE op"
                      : c->held_sp              ? "SAVEPOINT op"
                                                : NULL;
    c->held_rel = c->held_sp = false;
    return sql ? exec_sql(c, sql) : DB_OK;
}

static int exec_stmt(db_conn_t *c, int id)
{
    char sql[256];
    bool begin = id == DB_STMT_BEGIN || id == DB_STMT_BEGIN_READ;
    if (hold(c, id) == DB_OK)
        return DB_OK;
    if (id == DB_STMT_ROLLBACK)
        c->held_rel = c->held_sp = false; /* all of it undone anyway */
    if (send_held(c) != DB_OK)
        return DB_ERR;
    if (begin && PQstatus(pgc(c)) != CONNECTION_OK)
        revive(c);
    if (!db_pg_sql(&db_stmt_defs[id], sql, sizeof sql)) {
        snprintf(c->err, sizeof c->err, "statement %s: too long", db_stmt_defs[id].name);
        return DB_ERR;
    }
    int ret = exec_sql(c, sql);
    if (ret != DB_OK && begin && PQstatus(pgc(c)) != CONNECTION_OK) {
        revive(c);
        ret = exec_sql(c, sql);
    }
    if (ret == DB_OK && id == DB_STMT_BEGIN && c->lazy)
        ret = exec_sql(c, LAZY_SQL);
    return ret;
}

static bool in_tx(const db_conn_t *c)
{
    return PQtransactionStatus(pgc(c)) == PQTRANS_INTRANS;
}

static const char *errmsg(const db_conn_t *c)
{
    return c->err[0] ? c->err : "PostgreSQL failed";
}

static void conn_close(db_conn_t *c)
{
    PQfinish(pgc(c));
    c->pg = NULL;
}

/* n values of the sequence game_ids: not one run when other nodes take
 * theirs meanwhile, each unique. A connection lost since the last batch
 * is made again once. */
static int take_ids(db_conn_t *c, int64_t *ids, int n)
{
    char count[16];
    snprintf(count, sizeof count, "%d", n);
    const char *vals[1] = {count};
    PGresult *r = NULL;
    for (int tries = 0; tries < 2; tries++) {
        PQclear(r);
        r = PQexecParams(pgc(c), "SELECT nextval('game_ids') FROM generate_series(1, $1::int)", 1,
                         NULL, vals, NULL, NULL, 0);
        if (PQresultStatus(r) == PGRES_TUPLES_OK || PQstatus(pgc(c)) == CONNECTION_OK)
            break;
        revive(c);
    }
    int got = PQresultStatus(r) == PGRES_TUPLES_OK ? PQntuples(r) : -1;
    if (got < 0)
        keep_err(c, r ? PQresultErrorMessage(r) : PQerrorMessage(pgc(c)));
    for (int i = 0; i < got && i < n; i++)
        ids[i] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
    PQclear(r);
    return got < 0 ? -1 : got < n ? got : n;
}

/* ---- a whole batch at once ------------------------------------------------------------ */

/* Statements sent before their answers are read: libpq writes blocking,
 * so the server's answers to many more could fill the socket both ways. */
#define PG_PIPE_STEPS 256

/* Whether op may be sent with the others before any answer is seen: it
 * reads no rows (a batch run again op by op would find them twice). */
static bool pipeable(const db_op_t *op)
{
    return op->status == DB_OK && !op->run && op->nread == 0 && op->used > 0;
}

/* Whether op's COMMIT may go in the same pipeline as op, before its answer
 * is seen: op is one statement, so one that changed no row where a change
 * is wanted (run_step's DB_ENOTFOUND) changed nothing at all (no
 * statement of the table modifies in a WITH, no trigger fires for no
 * row), as rolled back to op's savepoint. */
static bool one_trip(const db_op_t *op)
{
    return op->nsteps == 1;
}

/* An op of one statement that changed no row in a committed batch: what
 * db_op_run says of it. A fenced append's lease is looked at after the
 * commit: only this node's writer takes its leases, so one that was not
 * the node's in the batch is not now either (a gap whose lease another
 * node took meanwhile is told DB_ELEASE: not the node's game either way). */
static void none_after(db_conn_t *c, db_op_t *op)
{
    const db_rec_t *r = (const db_rec_t *)op->mem;
    if (r->stmt == DB_STMT_JOURNAL_INSERT_LEASED)
        db_op_lease_or_gap(c, op, r);
    else
        db_op_fail_msg(op, DB_ENOTFOUND, "no such row"); /* as run_step says it */
}

static bool prepare_op(db_conn_t *c, const db_op_t *op)
{
    for (size_t off = 0; off < op->used;) {
        const db_rec_t *r = (const db_rec_t *)(op->mem + off);
        if (!prepare(c, r->stmt))
            return false;
        off += r->size;
    }
    return true;
}

static bool send_op(db_conn_t *c, const db_op_t *op)
{
    for (size_t off = 0; off < op->used;) {
        const db_rec_t *r = (const db_rec_t *)(op->mem + off);
        params_t p;
        params(&p, op, r);
        if (!PQsendQueryPrepared(pgc(c), p.name, r->nvals, p.vals, p.lens, p.fmts, 0))
            return false;
        off += r->size;
    }
    return true;
}

/* What the answers to an op's steps say. */
enum { PIPE_OK, PIPE_NONE /* no row changed where one is wanted */, PIPE_FAILED };

/* Whether r is the server's refusal (a lost connection's, made by libpq,
 * has no SQLSTATE): the transaction is rolled back, nothing after it
 * commits. */
static bool refused(const PGresult *r)
{
    return PQresultStatus(r) == PGRES_FATAL_ERROR && PQresultErrorField(r, PG_DIAG_SQLSTATE);
}

/* The answers to op's steps, against what run_step takes for success;
 * op->id as run_step sets it; *aborted when the server refused one. */
static int read_op(db_conn_t *c, db_op_t *op, bool *aborted)
{
    int how = PIPE_OK;
    for (size_t off = 0; off < op->used;) {
        const db_rec_t *r = (const db_rec_t *)(op->mem + off);
        const db_stmt_def_t *d = &db_stmt_defs[r->stmt];
        PGresult *res = next_result(pgc(c));
        ExecStatusType st = PQresultStatus(res);
        int64_t n = strtoll(PQcmdTuples(res), NULL, 10);
        *aborted = *aborted || refused(res);
        if (refused(res))
            conflicted(c, op, res); /* write_all's DB_ECONFLICT */
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
            how = PIPE_FAILED;
        else if (how == PIPE_OK && d->outcome == DB_OUT_CHANGE && n == 0)
            how = PIPE_NONE;
        if (how == PIPE_OK && d->outcome == DB_OUT_ROWID)
            op->id = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
        if (how == PIPE_OK && d->outcome == DB_OUT_COUNT)
            op->id = n;
        PQclear(res);
        off += r->size;
    }
    return how;
}

/* One batch sent at once: its ops (linked by next) and what each came to. */
typedef struct {
    db_op_t *ops;
    int64_t *ids; /* each op's id as it was, for a run op by op */
    bool *none;   /* each op's PIPE_NONE */
    bool commit;  /* COMMIT goes in the pipeline, after the last op */
    bool aborted; /* the server refused a statement before the COMMIT */
    bool unknown; /* it went, and whether it committed is not known */
} pipe_t;

/* A query of no parameters into the pipeline, or its answer read: whether
 * it succeeded (a COMMIT: committed). */
static bool send_plain(PGconn *h, const char *sql)
{
    return PQsendQueryParams(h, sql, 0, NULL, NULL, NULL, NULL, 0);
}

static bool read_plain(PGconn *h, const char *sql, bool *aborted)
{
    PGresult *r = next_result(h);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), sql) == 0;
    *aborted = *aborted || refused(r);
    PQclear(r);
    return ok;
}

/* Sends the ops from *at on (op i of the batch; BEGIN first at the
 * start), PG_PIPE_STEPS steps at most, the COMMIT after the last when
 * p->commit, and a sync; reads every answer. *at, *i: the op after them.
 * false when something failed (a PIPE_NONE does not, when p->commit). */
static bool pipe_part(db_conn_t *c, pipe_t *p, db_op_t **at, size_t *i)
{
    PGconn *h = pgc(c);
    bool begin = *at == p->ops, ok = !begin || send_plain(h, "BEGIN");
    bool lazy = begin && c->lazy;
    ok = ok && (!lazy || send_plain(h, LAZY_SQL));
    db_op_t *op = *at;
    for (int steps = 0; ok && op && steps < PG_PIPE_STEPS; op = op->next) {
        ok = send_op(c, op);
        steps += op->nsteps;
    }
    bool commit = p->commit && !op, sent = ok && commit && send_plain(h, "COMMIT");
    if (!(ok && (!commit || sent) && PQpipelineSync(h))) {
        p->unknown = sent; /* it may have gone */
        return false;      /* unsent statements: the connection is given up */
    }
    ok = !begin || read_plain(h, "BEGIN", &p->aborted);
    ok = (!lazy || read_plain(h, "SET", &p->aborted)) && ok;
    for (db_op_t *o = *at; o != op; o = o->next, (*i)++) {
        int how = read_op(c, o, &p->aborted); /* every answer read, failed or not */
        p->none[*i] = how == PIPE_NONE;
        ok = ok && (how == PIPE_OK || (how == PIPE_NONE && p->commit));
    }
    bool before = p->aborted, done = !commit || read_plain(h, "COMMIT", &p->aborted);
    /* not committed for sure only when the server refused a statement
     * before it: libpq answers PGRES_PIPELINE_ABORTED for every query
     * after a lost connection too, whatever the server had done */
    p->unknown = !done && !before;
    ok = done && ok;
    PGresult *sync = PQgetResult(h); /* PGRES_PIPELINE_SYNC */
    ok = ok && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
    PQclear(sync);
    *at = op;
    return ok;
}

/* BEGIN and the ops' steps after it in one pipeline (several when there
 * are many), every answer read: whether all did as they should. */
static bool piped(db_conn_t *c, pipe_t *p)
{
    if (!PQenterPipelineMode(pgc(c)))
        return false;
    bool ok = true;
    size_t i = 0;
    for (db_op_t *at = p->ops; ok && at;)
        ok = pipe_part(c, p, &at, &i);
    if (!PQexitPipelineMode(pgc(c))) {
        revive(c); /* answers left unread: the transaction goes with its connection */
        return false;
    }
    return ok;
}

/* The ops checked and prepared, their ids kept: the batch's pipe_t, or
 * false to run it op by op. */
static bool pipe_start(db_conn_t *c, db_op_t *ops, pipe_t *p)
{
    size_t n = 0;
    bool one = true;
    for (db_op_t *op = ops; op; op = op->next, n++) {
        if (!pipeable(op))
            return false;
        one = one && one_trip(op);
    }
    if (c->held_sp || c->held_rel || n == 0)
        return false;
    if (PQstatus(pgc(c)) != CONNECTION_OK)
        revive(c);
    *p = (pipe_t){ops, malloc(n * sizeof *p->ids), calloc(n, sizeof *p->none),
                  one && n <= PG_PIPE_STEPS};
    bool ok = p->ids && p->none;
    n = 0;
    for (db_op_t *op = ops; ok && op; op = op->next) {
        p->ids[n++] = op->id;
        ok = prepare_op(c, op);
    }
    return ok;
}

/* BEGIN, every op's steps and COMMIT in one pipeline when every op is one
 * statement (one_trip), else COMMIT once the answers are in: one or two
 * round trips for a batch instead of one per op and three more, and no
 * savepoints. A step that fails (or changes nothing where run_step would
 * fail, with more than one statement in an op) rolls it all back: the
 * batch then runs op by op, each op in its savepoint, for each op's own
 * outcome; one that met a conflict (c->state) when the batch may be run
 * again (c->retry) ends it as DB_ECONFLICT instead. */
static int write_all(db_conn_t *c, db_op_t *ops)
{
    pipe_t p = {0};
    c->state[0] = '\0';
    c->state_op = NULL;
    bool ok = pipe_start(c, ops, &p) && piped(c, &p);
    int ret = ok ? DB_OK : DB_RUN_EACH;
    if (!ok && c->retry && c->state[0])
        ret = DB_ECONFLICT; /* run again whole: op by op would wait for the locks again */
    if ((ok && !p.commit && exec_sql(c, "COMMIT") != DB_OK) || p.unknown) {
        if (p.unknown)
            keep_err(c, PQerrorMessage(pgc(c)));
        ret = DB_ERR; /* as a COMMIT op by op fails: the batch with it */
    }
    if (!ok && !p.unknown && PQtransactionStatus(pgc(c)) != PQTRANS_IDLE)
        exec_sql(c, "ROLLBACK");
    size_t i = 0;
    for (db_op_t *op = ops; p.ids && op; op = op->next, i++) {
        if (!ok)
            op->id = p.ids[i];
        else if (p.none[i])
            none_after(c, op);
    }
    free(p.ids);
    free(p.none);
    return ret;
}

const db_backend_t db_pg_backend = {
    .name = "PostgreSQL",
    .stmt_rollback = false,
    .run_step = run_step,
    .exec = exec_stmt,
    .in_tx = in_tx,
    .errmsg = errmsg,
    .close = conn_close,
    .take_ids = take_ids,
    .write_all = write_all,
};

/* The server's notices (a NOTICE of CREATE ... IF NOT EXISTS) are no
 * daemon's business: libpq would print them on stderr. */
static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

/* A server that vanishes (its machine gone: no reset, no close) would
 * hold a connection for the kernel's minutes of retransmissions: it is
 * given up on after 10 s of unacknowledged data, or of unanswered
 * keepalives while waiting for an answer, a connection to it after 5 s,
 * and the next transaction connects again (to a promoted standby when
 * the URL names it). A setting in the URL wins: it comes after these. */
static const char *const CONN_KEYS[] = {"keepalives",
                                        "keepalives_idle",
                                        "keepalives_interval",
                                        "keepalives_count",
                                        "tcp_user_timeout",
                                        "connect_timeout",
                                        "dbname",
                                        NULL};
static const char *const CONN_DEFAULTS[] = {"1", "10", "2", "3", "10000", "5"};

static PGconn *connect_url(const char *url)
{
    const char *vals[sizeof CONN_KEYS / sizeof CONN_KEYS[0]];
    size_t n = sizeof CONN_DEFAULTS / sizeof CONN_DEFAULTS[0];
    memcpy(vals, CONN_DEFAULTS, sizeof CONN_DEFAULTS);
    vals[n] = url;
    vals[n + 1] = NULL;
    return PQconnectdbParams(CONN_KEYS, vals, 1);
}

int db_pg_connect(db_conn_t *c, const char *url, bool read_only, char *err, size_t errlen)
{
    c->be = &db_pg_backend;
    PGconn *h = connect_url(url);
    c->pg = (struct pg_conn *)h;
    if (!h || PQstatus(h) != CONNECTION_OK) {
        snprintf(err, errlen, "cannot connect to PostgreSQL: %s",
                 h ? keep_err(c, PQerrorMessage(h)) : "out of memory");
        return DB_ERR;
    }
    PQsetNoticeProcessor(h, quiet, NULL);
    c->pg_reader = read_only;
    c->pg_first = answered(h);
    char sql[SETUP_SQL_MAX];
    if (exec_sql(c, setup_sql(c, sql, sizeof sql)) != DB_OK) {
        snprintf(err, errlen, "cannot set up a PostgreSQL connection: %s", c->err);
        return DB_ERR;
    }
    return DB_OK;
}

int db_pg_query_text(db_conn_t *c, const char *sql, char *out, size_t n)
{
    PGresult *r = PQexec(pgc(c), sql);
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQnfields(r) == 1;
    if (ok)
        snprintf(out, n, "%s", PQgetvalue(r, 0, 0));
    else
        keep_err(c, r ? PQresultErrorMessage(r) : PQerrorMessage(pgc(c)));
    PQclear(r);
    return ok ? DB_OK : DB_ERR;
}

int db_pg_query_int(db_conn_t *c, const char *sql, int64_t *out)
{
    char v[32];
    if (db_pg_query_text(c, sql, v, sizeof v) != DB_OK)
        return DB_ERR;
    *out = strtoll(v, NULL, 10);
    return DB_OK;
}

/* ---- migrations -------------------------------------------------------------------- */

/* Migration i with the version bump, in one transaction. */
static int migrate_one(db_conn_t *c, int i)
{
    char bump[64];
    snprintf(bump, sizeof bump, "UPDATE schema_version SET version = %d", i);
    int ret = exec_sql(c, "BEGIN");
    if (ret == DB_OK)
        ret = exec_sql(c, db_pg_migration_sql(i));
    if (ret == DB_OK)
        ret = exec_sql(c, bump);
    if (ret == DB_OK)
        ret = exec_sql(c, "COMMIT");
    if (ret != DB_OK) {
        char msg[sizeof c->err];
        memcpy(msg, c->err, sizeof msg);
        exec_sql(c, "ROLLBACK");
        memcpy(c->err, msg, sizeof msg);
    }
    return ret;
}

/* The version table made when missing; the migrations above it applied. */
static int migrate_locked(db_conn_t *c, int *version, char *err, size_t errlen)
{
    int64_t v = -1;
    if (exec_sql(c, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL); "
                    "INSERT INTO schema_version SELECT 0 "
                    "WHERE NOT EXISTS (SELECT 1 FROM schema_version)") != DB_OK ||
        db_pg_query_int(c, "SELECT max(version) FROM schema_version", &v) != DB_OK) {
        snprintf(err, errlen, "cannot read schema version: %s", c->err);
        return DB_ERR;
    }
    if (v > db_pg_migration_count()) {
        snprintf(err, errlen, "database schema version %lld is newer than this program (%d)",
                 (long long)v, db_pg_migration_count());
        return DB_ERR;
    }
    for (int i = (int)v + 1; i <= db_pg_migration_count(); i++) {
        if (migrate_one(c, i) != DB_OK) {
            snprintf(err, errlen, "migration %d failed: %s", i, c->err);
            return DB_ERR;
        }
        v = i;
    }
    *version = (int)v;
    return DB_OK;
}

/* A migration waits for its locks as long as it takes (another node's
 * migration holds the advisory lock for as long as it runs); the
 * writer's bound (setup_sql) holds again after it. */
int db_pg_migrate(db_conn_t *c, int *version, char *err, size_t errlen)
{
    if (exec_sql(c, "SET lock_timeout = 0") != DB_OK ||
        exec_sql(c, "SELECT pg_advisory_lock(" MIGRATE_LOCK ")") != DB_OK) {
        snprintf(err, errlen, "cannot lock the schema: %s", c->err);
        return DB_ERR;
    }
    int ret = migrate_locked(c, version, err, errlen);
    exec_sql(c, "SELECT pg_advisory_unlock(" MIGRATE_LOCK ")");
    char wait[64];
    if (!c->pg_reader && exec_sql(c, lock_wait_sql(c, wait, sizeof wait)) != DB_OK &&
        ret == DB_OK) {
        snprintf(err, errlen, "cannot set up a PostgreSQL connection: %s", c->err);
        ret = DB_ERR;
    }
    return ret;
}
