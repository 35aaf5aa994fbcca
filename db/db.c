/* db — open/close, the writer threads with group commit (PostgreSQL's
 * overlapping batches of journal appends, and lazy commits of game rows
 * in batches of their own), the reader threads,
 * delivery of results to the loop, and the callbacks owed when an operation
 * could not even be made. Building and running operations is db_query.c;
 * the operations themselves are db_ops.c, db_records.c and db_admin.c. */
#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "db_internal.h"

#define DB_READERS     2
#define DB_WRITERS     3 /* PostgreSQL's; SQLite has one */
/* A batch written beside another (overlap) holds at most this many ops,
 * and overlaps one of at most this many: the games are compared pair by
 * pair under the queue's lock. */
#define DB_OVERLAP_MAX 64
#define DB_BUSY_MS     5000

typedef struct {
    db_op_t *head, *tail;
} db_list_t;

/* The games of a batch being written, kept apart from its ops (which
 * its loops free once they are answered): what another batch taken
 * meanwhile must stay apart from. */
typedef struct {
    bool on;       /* a batch is being written */
    bool any;      /* it holds a write whose game is not said, or too many to compare */
    bool accounts; /* it holds an account's writes only, none a new account (account_only) */
    int n;
    int64_t games[DB_OVERLAP_MAX];
} db_busy_t;

/* A callback owed a status with no operation behind it (no memory for one,
 * or the db closing); count calls of the same callback in a row. */
typedef struct {
    db_cb_t cb;
    int status;
    uint32_t count;
} db_owed_t;

#define DB_OWED         256 /* owed callbacks kept between two loop turns */
/* The loop's time for one turn's answers: each may render a frame (up to
 * a few hundred us when a view slides), so a commit of thousands of keys
 * is delivered a few ms a turn, its sockets read and timers run between.
 * 2 ms: well under the 5 ms a key's answer should take at p99, so a key
 * that comes meanwhile waits for little of it, and some thirty times a
 * quiet turn's own cost (under 64 us of CPU), so the extra turns cost a
 * burst a few per cent at most. */
#define DB_DELIVER_NS   2000000u
/* Ops between two looks at the clock: a look (~25 ns, vDSO) against an
 * op's delivery (its callback and free, a us or more), so under 1 % of
 * it; costly ones overshoot the time by 3 of them at most. */
#define DB_DELIVER_LOOK 4

/* A writer thread: its connection, and why the batch it ran last failed. */
typedef struct {
    struct db_core *db;
    db_conn_t *c;
    int me; /* its index in busy[]; writer 0 also takes game ids ahead */
    char msg[200];
} db_writer_arg_t;

/* What every loop's handle shares: the file, its connections, the threads
 * and their queues. Freed by the close of the last handle. */
typedef struct db_core {
    char *path;
    db_file_t file; /* the file itself: its guards, its id, held open to watch it */
    int version;
    db_ids_t ids;        /* game ids taken ahead of need (db_ids.c) */
    int64_t max_pages;   /* the writer's page limit before any cap (SQLite's) */
    char lease_node[64]; /* db_lease_fence: set once at start, then only read */
    int64_t lease_ttl_ms;

    pthread_mutex_t wmu; /* guards wq, submitted, written, told, wstop, failed_*, handles,
                          * conflict_fn, conflict_ud */
    pthread_cond_t wcv, wdone;
    db_list_t wq;
    uint64_t submitted, written;
    uint64_t told; /* writes handed back to their loops: counted before they go, as a
                    * loop may have them before written moves */
    /* The last batch that failed whole: told once it ended, its status and
     * message, so a db_flush_sync reports only batches of its own wait. */
    uint64_t failed_at;
    int failed_status;
    char failed_msg[200];
    bool wstop;
    bool fenced; /* db_fence: every write fails with fence */
    char fence[200];
    int handles; /* open handles (db_open, db_attach, less db_close) */
    pthread_t writers[DB_WRITERS];
    db_writer_arg_t wargs[DB_WRITERS];
    int nwriters;                           /* started */
    db_conn_t wconn, wmore[DB_WRITERS - 1]; /* the writers' (wmore: PostgreSQL's others) */
    /* Batches being written (wmu): each writer's until its answers are
     * posted. */
    db_busy_t busy[DB_WRITERS];
    /* The first queue place (db_op_t.seq) of each writer's batch until it
     * is counted in written, 0 when none: what reads wait for (done). */
    uint64_t low[DB_WRITERS];
    _Atomic uint64_t overlaps; /* batches begun while another was in flight */
    bool lazy_apart;           /* lazy ops (db_op_t.lazy) are written in batches of their own */
    int wal_pages;             /* writer only: the WAL's length after the last commit */
    int ckpt_mark;             /* writer only: the WAL length at which it copies the rest itself */

    pthread_mutex_t cmu; /* guards ckpt_want, ckpt_stop, ckpt_running */
    pthread_cond_t ccv;
    pthread_cond_t cdone; /* a checkpointer's run ended */
    bool ckpt_want, ckpt_stop, ckpt_started, ckpt_running;
    pthread_t ckpt;
    sqlite3 *ckh; /* the checkpointer's own connection */

    pthread_mutex_t rmu;
    pthread_cond_t rcv;
    db_list_t rq;
    bool rstop;
    pthread_t readers[DB_READERS];
    db_conn_t rconn[DB_READERS];
    int nreaders;

    _Atomic uint64_t commits, writes, failed, reads, ckpt_asks, ckpt_stops;
    /* transactions run again after a conflict (db_retry.c), ops failed by one left after */
    _Atomic uint64_t retries, conflicts;
    /* db_on_conflict's (wmu) */
    void (*conflict_fn)(void *ud, const db_conflict_t *what);
    void *conflict_ud;
    _Atomic uint64_t batch_started_ns[DB_WRITERS], batch_ended_ns; /* db_writer_state */

    pthread_mutex_t tmu; /* guards times: every loop's handle adds to it */
    db_timering_t times; /* the journal appends' times (db_write_times) */
} db_core_t;

/* One loop's handle: what it queued, what comes back to it, what it owes. */
struct db {
    db_core_t *core;
    uv_loop_t *loop;
    uv_prepare_t prepare; /* flushes once per loop turn */
    uv_async_t async;     /* wakes the loop for finished operations */
    int handles_open;
    bool autoflush, closing, async_ref, stopping;
    char errmsg[256];

    db_list_t pending; /* loop only: writes since the last flush */
    db_list_t held;    /* loop only: reads queued behind those writes */
    size_t npending;
    uint64_t outstanding; /* loop only: queued and not yet called back */
    uint64_t flushed;     /* loop only: the core's submitted after our last flush */
    uint64_t handed;      /* loop only: ops handed to the threads */

    pthread_mutex_t dmu; /* guards done, posted */
    pthread_cond_t dcv;  /* posted grew */
    db_list_t done;
    uint64_t posted; /* ops the threads handed back */

    db_owed_t owed[DB_OWED]; /* loop only: a ring, oldest at owed_head */
    size_t owed_head, owed_n;
    int fail_after, fail_count;             /* tests: allocations to let through, then to fail */
    void (*round_fn)(void *ud, bool begin); /* db_on_round */
    void *round_ud;
    uint32_t test_budget; /* tests: ops a round delivers (0: DB_DELIVER_NS of them) */
};

static void list_push(db_list_t *l, db_op_t *op)
{
    op->next = NULL;
    if (l->tail)
        l->tail->next = op;
    else
        l->head = op;
    l->tail = op;
}

static void list_append(db_list_t *l, db_list_t *more)
{
    if (!more->head)
        return;
    if (l->tail)
        l->tail->next = more->head;
    else
        l->head = more->head;
    l->tail = more->tail;
    more->head = more->tail = NULL;
}

char *db_strdup(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---- connections ---------------------------------------------------------- */

static void conn_close(db_conn_t *c)
{
    if (c->be)
        c->be->close(c);
}

static int conn_exec(db_conn_t *c, int id)
{
    return c->be->exec(c, id);
}

/* mkdir -p of path's directory part. */
static int make_parent(const char *path, char *err, size_t errlen)
{
    char *d = db_strdup(path);
    if (!d)
        return DB_ENOMEM;
    char *slash = strrchr(d, '/');
    int ret = DB_OK;
    if (slash && slash != d) {
        *slash = '\0';
        for (char *p = d + 1; ret == DB_OK; p++) {
            bool end = *p == '\0';
            if (*p != '/' && !end)
                continue;
            *p = '\0';
            if (mkdir(d, 0755) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot create directory %s: %s", d, strerror(errno));
                ret = DB_ERR;
            }
            if (end)
                break;
            *p = '/';
        }
    }
    free(d);
    return ret;
}

static int pragma_text(sqlite3 *h, const char *sql, char *out, size_t outlen)
{
    sqlite3_stmt *st = NULL;
    int ret = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    if (ret == SQLITE_OK) {
        ret = sqlite3_step(st);
        if (ret == SQLITE_ROW) {
            snprintf(out, outlen, "%s", (const char *)sqlite3_column_text(st, 0));
            ret = SQLITE_OK;
        } else if (ret == SQLITE_DONE) {
            out[0] = '\0';
            ret = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return ret;
}

/* Checkpoints are neither SQLite's nor the writer's: SQLite's automatic
 * one runs inside the commit that crosses the mark, and one run by the
 * writer after its commit holds up the next batch; either way every key
 * waiting then waited for it (copying a few MB and syncing the file take
 * 3-20 ms here). A checkpointer thread with its own connection, at a lower
 * priority, copies the WAL into the file while the writer goes on (WAL
 * lets a PASSIVE checkpoint run beside a writer): asked by every commit
 * that leaves DB_CKPT_PAGES or more, it runs at most every DB_CKPT_GAP_MS.
 * Once a checkpoint has copied the whole WAL the next commit starts it
 * over. A writer that never pauses gives the checkpointer no such moment:
 * at DB_CKPT_MAX_PAGES the writer copies the rest itself (the frames of
 * the last DB_CKPT_GAP_MS or so). A checkpointer run under way then (one
 * checkpoint at a time: the writer's own gets SQLITE_BUSY) is stopped, not
 * waited out: a thread at a lower priority on a busy machine, or one held
 * up by a slow disk, would take as long as it takes while the WAL grew
 * (to 120 MB and more), so the WAL's bound would depend on the scheduler. */
#define DB_CKPT_PAGES     1000 /* SQLite's own default mark */
#define DB_CKPT_MAX_PAGES 8000 /* about 32 MB of WAL */
#define DB_CKPT_GAP_MS    100  /* between two checkpoints */
#define DB_CKPT_NICE      10   /* the checkpointer yields the core to the loop and the writer */

static int on_wal_commit(void *ud, sqlite3 *h, const char *name, int pages)
{
    (void)h;
    (void)name;
    ((db_core_t *)ud)->wal_pages = pages;
    return SQLITE_OK;
}

static int busy_ms(const db_core_t *db)
{
    return db->file.guard.busy_ms > 0 ? db->file.guard.busy_ms : DB_BUSY_MS;
}

/* The file exists by now (db_file_prepare made it): SQLite never makes it. */
static int open_writer(db_core_t *db, char *err, size_t errlen)
{
    sqlite3 *h = NULL;
    int ret = sqlite3_open_v2(db->path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    db->wconn.be = &db_sqlite_backend;
    db->wconn.h = h;
    if (ret != SQLITE_OK) {
        snprintf(err, errlen, "cannot open database %s: %s", db->path,
                 h ? sqlite3_errmsg(h) : sqlite3_errstr(ret));
        return DB_ERR;
    }
    if (sqlite3_db_readonly(h, "main") == 1) {
        snprintf(err, errlen, "database %s is not writable", db->path);
        return DB_ERR;
    }
    sqlite3_busy_timeout(h, busy_ms(db));
    sqlite3_wal_hook(h, on_wal_commit, db); /* also turns SQLite's own checkpoints off */
    /* The file as found, before anything changes it: damage, the kept id. */
    if (db_file_check_open(&db->file, h, err, errlen) != DB_OK)
        return DB_ERR;
    char mode[32];
    /* A corrupt or foreign file fails here at the latest. */
    if (pragma_text(h, "PRAGMA journal_mode = WAL", mode, sizeof mode) != SQLITE_OK) {
        db_file_failed(&db->file, h, "cannot use", err, errlen);
        return DB_ERR;
    }
    if (strcmp(mode, "wal") != 0) {
        snprintf(err, errlen, "cannot use database %s: WAL mode refused", db->path);
        return DB_ERR;
    }
    if (sqlite3_exec(h, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;", NULL, NULL,
                     NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot configure database %s: %s", db->path, sqlite3_errmsg(h));
        return DB_ERR;
    }
    char e2[200] = "";
    if (db_migrate(h, &db->version, e2, sizeof e2) != DB_OK) {
        if ((sqlite3_errcode(h) & 0xff) == SQLITE_CORRUPT)
            db_file_failed(&db->file, h, "cannot migrate", err, errlen);
        else
            snprintf(err, errlen, "database %s: %s", db->path, e2);
        return DB_ERR;
    }
    if (db_file_keep_id(&db->file, h, err, errlen) != DB_OK)
        return DB_ERR;
    if (db_ids_refill(&db->ids, &db->wconn) != DB_OK) {
        snprintf(err, errlen, "database %s: %s", db->path, db->wconn.err);
        return DB_ERR;
    }
    char max[32];
    if (pragma_text(h, "PRAGMA max_page_count", max, sizeof max) != SQLITE_OK) {
        snprintf(err, errlen, "database %s: %s", db->path, sqlite3_errmsg(h));
        return DB_ERR;
    }
    db->max_pages = strtoll(max, NULL, 10);
    return DB_OK;
}

/* A connection of a db thread other than the writer: opened with flags,
 * then set up by sql; what names it in an error. */
static int open_side(db_core_t *db, sqlite3 **h, int flags, const char *sql, const char *what,
                     char *err, size_t errlen)
{
    int ret = sqlite3_open_v2(db->path, h, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (ret == SQLITE_OK) {
        sqlite3_busy_timeout(*h, busy_ms(db));
        ret = sqlite3_exec(*h, sql, NULL, NULL, NULL);
    }
    if (ret != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s on %s: %s", what, db->path,
                 *h ? sqlite3_errmsg(*h) : sqlite3_errstr(ret));
        return DB_ERR;
    }
    return DB_OK;
}

static int open_checkpointer(db_core_t *db, char *err, size_t errlen)
{
    return open_side(db, &db->ckh, SQLITE_OPEN_READWRITE, "PRAGMA synchronous = NORMAL;",
                     "the checkpointer", err, errlen);
}

static int open_reader(db_core_t *db, db_conn_t *c, char *err, size_t errlen)
{
    c->be = &db_sqlite_backend;
    return open_side(db, &c->h, SQLITE_OPEN_READONLY, "PRAGMA query_only = ON;", "reader", err,
                     errlen);
}

#define DB_EARLY_FLUSH 32 /* pending writes that are flushed without waiting for the turn to end */

/* ---- threads ---------------------------------------------------------------- */

/* Hands finished ops back to their loop. The wake-up is sent under dmu: a
 * handle being closed waits there for every op it handed out, so it is
 * not freed before this returns. */
static void post_done(db_t *db, db_list_t *l)
{
    uint64_t n = 0;
    for (db_op_t *op = l->head; op; op = op->next)
        n++;
    pthread_mutex_lock(&db->dmu);
    list_append(&db->done, l);
    db->posted += n;
    uv_async_send(&db->async);
    pthread_cond_signal(&db->dcv);
    pthread_mutex_unlock(&db->dmu);
}

/* A batch holds the writes of every handle: each run of one handle's ops
 * goes back to it (in order, as queued). */
static void post_batch(db_list_t *batch)
{
    while (batch->head) {
        db_t *h = batch->head->db;
        db_list_t mine = {NULL, NULL};
        db_op_t *op = batch->head;
        while (op && op->db == h) {
            db_op_t *next = op->next;
            list_push(&mine, op);
            op = next;
        }
        batch->head = op;
        if (!op)
            batch->tail = NULL;
        post_done(h, &mine);
    }
}

/* Each op in its own savepoint, so a failing op undoes only itself; an op
 * of one statement gets that from SQLite's statement rollback for free
 * (PostgreSQL has none: there every op has its savepoint).
 * An op that failed when it was built (a bad argument) runs nothing. */
static int run_write(db_core_t *db, db_conn_t *c, db_op_t *op)
{
    bool sp = op->nsteps > 1 || !c->be->stmt_rollback;
    if (op->status != DB_OK) {
        atomic_fetch_add(&db->failed, 1);
        atomic_fetch_add(&db->writes, 1);
        return op->status;
    }
    if (sp && conn_exec(c, DB_STMT_SAVEPOINT) != DB_OK)
        return db_op_fail_msg(op, DB_ERR, c->err);
    op->status = db_op_run(c, op);
    if (op->status != DB_OK) {
        if (op->status == DB_ERR && !op->err)
            db_op_fail(op, c, DB_ERR);
        if (sp)
            conn_exec(c, DB_STMT_ROLLBACK_TO);
        atomic_fetch_add(&db->failed, 1);
    }
    if (sp)
        conn_exec(c, DB_STMT_RELEASE);
    atomic_fetch_add(&db->writes, 1);
    return op->status;
}

/* One transaction for everything taken from the queue, op by op; each op
 * in a savepoint. DB_OK, or the failure with its message in msg. */
static int write_each(db_core_t *db, db_conn_t *c, db_list_t *batch, char *msg, size_t n)
{
    int ret = conn_exec(c, DB_STMT_BEGIN);
    if (ret != DB_OK)
        snprintf(msg, n, "%s", c->err);
    for (db_op_t *op = batch->head; op && ret == DB_OK; op = op->next) {
        if (run_write(db, c, op) == DB_ECONFLICT && c->retry)
            return DB_ECONFLICT; /* all of it to be tried again (write_tried) */
        /* Some failures (a full disk, I/O, a lost server) may roll the
         * whole transaction back: then nothing of the batch is stored, and
         * what would run next must not run outside a transaction. */
        if (!c->be->in_tx(c)) {
            snprintf(msg, n, "%s", op->err ? op->err : "transaction rolled back");
            ret = DB_ERR;
        }
    }
    if (ret == DB_OK && (ret = conn_exec(c, DB_STMT_COMMIT)) != DB_OK)
        snprintf(msg, n, "%s", c->err);
    return ret;
}

/* Every op of batch not failed already fails with msg. */
static void fail_ops(db_list_t *batch, const char *msg)
{
    for (db_op_t *op = batch->head; op; op = op->next) {
        if (op->status == DB_OK) {
            op->status = DB_ERR;
            free(op->err);
            op->err = db_strdup(msg);
        }
    }
}

/* One transaction for everything taken from the queue: all of it at once
 * where the backend can (write_all), else op by op. A failure's message
 * in the writer's msg. */
static int write_batch(db_writer_arg_t *w, db_list_t *batch)
{
    db_core_t *db = w->db;
    db_conn_t *c = w->c;
    char msg[200] = "";
    c->lazy = db->lazy_apart && batch->head && batch->head->lazy; /* all or none (take) */
    int ret = c->be->write_all ? c->be->write_all(c, batch->head) : DB_RUN_EACH;
    if (ret == DB_OK) {
        for (db_op_t *op = batch->head; op; op = op->next) {
            if (op->status != DB_OK)
                atomic_fetch_add(&db->failed, 1);
            atomic_fetch_add(&db->writes, 1);
        }
    } else if (ret == DB_RUN_EACH) {
        ret = write_each(db, c, batch, msg, sizeof msg);
    } else {
        snprintf(msg, sizeof msg, "%s", c->err);
    }
    if (ret == DB_OK) {
        atomic_fetch_add(&db->commits, 1);
        return DB_OK;
    }
    if (ret == DB_ECONFLICT) { /* nothing of it stored: to be run again */
        if (c->be->in_tx(c))
            conn_exec(c, DB_STMT_ROLLBACK);
        return DB_ECONFLICT;
    }
    snprintf(w->msg, sizeof w->msg, "%s", msg);
    fail_ops(batch, msg); /* the whole transaction is lost: every op reports it */
    if (c->be->in_tx(c))
        conn_exec(c, DB_STMT_ROLLBACK);
    return DB_ERR;
}

/* The statement of op's first step ("" for an op of code of its own). */
static const char *op_kind(const db_op_t *op)
{
    if (op->run || op->used < sizeof(db_rec_t))
        return "";
    const db_rec_t *r = (const db_rec_t *)op->mem;
    return r->stmt < DB_STMT_COUNT ? db_stmt_defs[r->stmt].name : "";
}

/* The batch's ops' statements into what->kinds, each once, as many as fit
 * ("..." after them when some do not). */
static void conflict_kinds(db_conflict_t *what, const db_op_t *ops)
{
    size_t used = 0;
    for (const db_op_t *op = ops; op; op = op->next) {
        const char *k = op_kind(op);
        bool seen = false;
        for (const db_op_t *o = ops; o != op && !seen; o = o->next)
            seen = strcmp(op_kind(o), k) == 0;
        if (seen || !*k)
            continue;
        size_t left = sizeof what->kinds - used;
        int n = snprintf(what->kinds + used, left, "%s%s", used ? ", " : "", k);
        if (n < 0 || (size_t)n >= left - 4) { /* room kept for "..." */
            snprintf(what->kinds + used, sizeof what->kinds - used, "%s...", used ? ", " : "");
            return;
        }
        used += (size_t)n;
    }
}

/* A conflict the batch met on try tried, told to db_on_conflict's fn. */
static void tell_conflict(db_writer_arg_t *w, const db_list_t *batch, int tried, bool again)
{
    db_core_t *db = w->db;
    pthread_mutex_lock(&db->wmu);
    void (*fn)(void *, const db_conflict_t *) = db->conflict_fn;
    void *ud = db->conflict_ud;
    pthread_mutex_unlock(&db->wmu);
    if (!fn)
        return;
    db_conflict_t what = {.tried = tried, .tries = DB_RETRY_TRIES, .again = again};
    snprintf(what.sqlstate, sizeof what.sqlstate, "%s", w->c->state);
    for (const db_op_t *op = batch->head; op; op = op->next)
        what.ops++;
    if (w->c->state_op)
        snprintf(what.op, sizeof what.op, "%s", op_kind(w->c->state_op));
    conflict_kinds(&what, batch->head);
    fn(ud, &what);
}

/* write_batch, a batch that a conflict ended (DB_ECONFLICT) run again
 * whole after a pause, DB_RETRY_TRIES tries at most; the last commits
 * what it can, the op that met the conflict failed alone. */
static int write_tried(db_writer_arg_t *w, db_list_t *batch)
{
    db_retry_t kept;
    bool again = db_retry_keep(&kept, batch->head);
    int ret = DB_ECONFLICT;
    int tried = 1;
    for (; ret == DB_ECONFLICT; tried++) {
        w->c->retry = again && tried < DB_RETRY_TRIES;
        w->c->state[0] = '\0';
        w->c->state_op = NULL;
        ret = write_batch(w, batch);
        if (ret == DB_ECONFLICT) {
            atomic_fetch_add(&w->db->retries, 1);
            tell_conflict(w, batch, tried, true);
            db_retry_reset(&kept, batch->head);
            db_retry_pause(tried);
        }
    }
    w->c->retry = false;
    bool failed = false;
    for (db_op_t *op = batch->head; op; op = op->next)
        if (op->status == DB_ECONFLICT) {
            atomic_fetch_add(&w->db->conflicts, 1);
            failed = true;
        }
    if (failed)
        tell_conflict(w, batch, tried - 1, false);
    if (again)
        db_retry_free(&kept);
    return ret;
}

/* The file is gone (db_fence): nothing of the batch may be acknowledged
 * into it, so every op fails with the fence's message. */
static int fail_batch(db_writer_arg_t *w, db_list_t *batch, const char *msg)
{
    db_core_t *db = w->db;
    snprintf(w->msg, sizeof w->msg, "%s", msg);
    fail_ops(batch, msg);
    for (db_op_t *op = batch->head; op; op = op->next) {
        atomic_fetch_add(&db->failed, 1);
        atomic_fetch_add(&db->writes, 1);
    }
    return DB_ERR;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The writer's own checkpoint: a checkpointer's run in its way is
 * interrupted (SQLite stops between two pages; what it copied is copied
 * again) and waited for, then the writer copies the WAL. */
static int checkpoint_now(db_core_t *db)
{
    int ret = sqlite3_wal_checkpoint_v2(db->wconn.h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    if (ret != SQLITE_BUSY)
        return ret;
    pthread_mutex_lock(&db->cmu);
    bool ran = db->ckpt_running;
    if (ran)
        sqlite3_interrupt(db->ckh);
    while (db->ckpt_running)
        pthread_cond_wait(&db->cdone, &db->cmu);
    pthread_mutex_unlock(&db->cmu);
    if (ran)
        atomic_fetch_add(&db->ckpt_stops, 1);
    return ran ? sqlite3_wal_checkpoint_v2(db->wconn.h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL)
               : ret;
}

static void checkpoint_if_due(db_core_t *db)
{
    if (db->wal_pages < DB_CKPT_PAGES) {
        db->ckpt_mark = DB_CKPT_MAX_PAGES; /* the WAL started over */
        return;
    }
    if (db->wal_pages < db->ckpt_mark) {
        /* One wake-up per request: a request still pending (the
         * checkpointer within its gap) is not signalled again, or every
         * commit would wake that thread and contend for cmu with it. */
        pthread_mutex_lock(&db->cmu);
        if (!db->ckpt_want) {
            db->ckpt_want = true;
            pthread_cond_signal(&db->ccv);
            atomic_fetch_add(&db->ckpt_asks, 1);
        }
        pthread_mutex_unlock(&db->cmu);
        return;
    }
    /* Past the limit: at the next commit again while another process
     * checkpoints (SQLITE_BUSY), else once per DB_CKPT_PAGES (a reader may
     * hold frames back: no sync of the file on every commit). */
    if (checkpoint_now(db) != SQLITE_BUSY)
        db->ckpt_mark = db->wal_pages + DB_CKPT_PAGES;
}

/* Waits for a request (false: stop), at least DB_CKPT_GAP_MS after the last run. */
static bool ckpt_wait(db_core_t *db, bool ran)
{
    if (ran) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += DB_CKPT_GAP_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (!db->ckpt_stop && pthread_cond_timedwait(&db->ccv, &db->cmu, &until) != ETIMEDOUT)
            ;
    }
    while (!db->ckpt_want && !db->ckpt_stop)
        pthread_cond_wait(&db->ccv, &db->cmu);
    db->ckpt_want = false;
    return !db->ckpt_stop;
}

static void *ckpt_main(void *arg)
{
    db_core_t *db = arg;
    setpriority(PRIO_PROCESS, (id_t)gettid(), DB_CKPT_NICE); /* this thread only */
    pthread_setname_np(pthread_self(), "db-ckpt");
    pthread_mutex_lock(&db->cmu);
    for (bool ran = false; ckpt_wait(db, ran); ran = true) {
        db->ckpt_running = true; /* before the lock goes: the writer may stop this run */
        pthread_mutex_unlock(&db->cmu);
        sqlite3_wal_checkpoint_v2(db->ckh, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&db->cmu);
        db->ckpt_running = false;
        pthread_cond_broadcast(&db->cdone);
    }
    pthread_mutex_unlock(&db->cmu);
    return NULL;
}

/* Whether op is one journal append and nothing else: the kind of op that
 * goes ahead of the queue's other writes, and the only kind written
 * beside another batch. */
static bool lone_append(const db_op_t *op)
{
    if (op->status != DB_OK || op->nsteps != 1 || op->nread != 0 || op->run || op->used == 0)
        return false;
    const db_rec_t *r = (const db_rec_t *)op->mem;
    return r->stmt == DB_STMT_JOURNAL_INSERT || r->stmt == DB_STMT_JOURNAL_INSERT_LEASED;
}

static int64_t game_of(const db_op_t *op)
{
    return ((const db_rec_t *)op->mem)->v[0].i;
}

/* The game whose rows op touches (db_op_t.game), 0: any. */
static int64_t game_key(const db_op_t *op)
{
    return lone_append(op) ? game_of(op) : op->game;
}

/* Whether op is an account's write (DB_OP_NO_GAME) that makes no row
 * another write refers to: a new account's row is one (its game's row
 * and its sessions refer to it), so a batch that makes one is no
 * account's batch for busy_set. */
static bool account_only(const db_op_t *op)
{
    if (op->game != DB_OP_NO_GAME || lone_append(op) || op->run || op->used == 0)
        return false;
    return ((const db_rec_t *)op->mem)->stmt != DB_STMT_USER_INSERT;
}

/* What batch b, about to be written, holds. Journal appends may be
 * written beside it, on another connection, and commit before it, only
 * if it is short and says every op's game (none of a lease's or a
 * node's row, which any append may read). */
static void busy_set(db_busy_t *busy, const db_list_t *b)
{
    *busy = (db_busy_t){.on = b->head != NULL, .accounts = b->head != NULL};
    for (const db_op_t *op = b->head; op && busy->accounts; op = op->next)
        busy->accounts = account_only(op);
    for (const db_op_t *op = b->head; op && !busy->any; op = op->next) {
        int64_t g = game_key(op);
        busy->any = g == 0 || busy->n == DB_OVERLAP_MAX;
        if (!busy->any)
            busy->games[busy->n++] = g;
    }
}

/* Whether op, a journal append, is apart from the batch being written
 * (one not busy->any): it holds no row of op's game. A game's row never
 * commits before the one before it (its append would find a gap), and
 * an append needs nothing else that is not committed already (its game,
 * its lease: ops of batches before). */
static bool apart(const db_op_t *op, const db_busy_t *busy)
{
    for (int i = 0; i < busy->n; i++)
        if (busy->games[i] == game_of(op))
            return false;
    return true;
}

/* What a batch takes (take): every journal append the order allows,
 * whatever is queued before it, and the other writes (a game's start:
 * its account, its game row, its first snapshot) in their order up to
 * DB_BULK_STEPS statements and DB_BULK_BYTES, so a start of many games
 * makes no batch long that players' keys wait for. An append goes ahead
 * of what is left in the queue unless something of its game, or a write
 * whose game is not said, is left before it: a game's rows commit in
 * their order, its first rows before its journal.
 * Where lazy commits are kept apart (PostgreSQL), a batch holds lazy ops
 * only (db_op_t.lazy: game rows, whose commit waits for no flush and no
 * standby) or none, and an account's ops (DB_OP_NO_GAME: a lock, a ban,
 * a password, whose row another session may hold for as long as the
 * writers' lock wait) only or none: the first op it takes says which.
 * So no key's append waits in a batch for an account's row, and as no
 * other write reads such a batch's rows, every other write may be
 * written beside it meanwhile (another account's stays behind it, and so
 * does a node's event: other nodes read the rows once told). An
 * append passed by a lazy or an account's batch holds back only the ops
 * of its own game; an op passed by a batch of another kind holds back
 * every other write, as any op left does. */
#define DB_BULK_STEPS 24
#define DB_BULK_BYTES (64 * 1024)
#define DB_LEFT_MAX   64   /* games of ops left behind that a take keeps apart */
#define DB_SCAN_MAX   4096 /* queued ops a take looks at */

typedef struct {
    int64_t games[DB_LEFT_MAX];
    int n;
    bool all; /* something left behind orders with every game */
    int steps;
    size_t bytes;
    bool split;  /* lazy ops, and an account's, go in batches of their own */
    int kind;    /* of the ops taken: 0 none yet, else DB_TAKE_* */
    bool passed; /* an append was left as the batch is of another kind */
    /* the batches in flight hold an account's writes only: no other
     * write reads their rows, so any other goes beside them (not only
     * appends), and an account's stay behind them, in their order, as
     * does a node's event (tells_nodes) */
    bool accounts_busy;
} db_left_t;

enum { DB_TAKE_WAITS = 1, DB_TAKE_LAZY, DB_TAKE_ACCOUNT };
/* What takes says of an op: taken, left (the others after it keep their
 * order behind it), or passed (an append a lazy batch does not hold:
 * only its game's ops stay behind it). */
enum { DB_TAKEN, DB_LEFT, DB_PASSED };

static bool left_has(const db_left_t *l, int64_t game)
{
    if (l->all)
        return true;
    for (int i = 0; i < l->n; i++)
        if (l->games[i] == game)
            return true;
    return false;
}

/* Whether op is a node's event (db_notify): the other nodes read rows
 * again once they hear of it (a ban's, a mute's, queued right before
 * it: moderation_tell_nodes), so it commits after every write queued
 * before it, an account's too. */
static bool tells_nodes(const db_op_t *op)
{
    return op->nsteps == 1 && op->used && ((const db_rec_t *)op->mem)->stmt == DB_STMT_NOTIFY;
}

/* Beside an account's batch, an event left waits for that batch alone:
 * the appends behind it still go (as they would beside it), the other
 * writes stay behind it in their order (takes: nleft). */
static void leave(db_left_t *l, const db_op_t *op)
{
    int64_t g = game_key(op);
    if (g == DB_OP_NO_GAME || (l->accounts_busy && tells_nodes(op)))
        return;
    if (g == 0 || l->n == DB_LEFT_MAX)
        l->all = true;
    else if (!left_has(l, g))
        l->games[l->n++] = g;
}

/* The kind of batch op goes in (db_left_t.kind). */
static int take_kind(const db_left_t *l, const db_op_t *op)
{
    if (!l->split)
        return DB_TAKE_WAITS;
    if (op->lazy)
        return DB_TAKE_LAZY;
    return op->game == DB_OP_NO_GAME && !lone_append(op) ? DB_TAKE_ACCOUNT : DB_TAKE_WAITS;
}

/* Whether a take takes op, queued after the nleft ops left in l (other:
 * the batch in flight, if any; beside it only appends go). */
static int takes(db_left_t *l, const db_op_t *op, const db_busy_t *other, int nleft)
{
    int kind = take_kind(l, op);
    if (l->accounts_busy && (kind == DB_TAKE_ACCOUNT || tells_nodes(op)))
        return DB_LEFT;
    if (l->kind && kind != l->kind)
        return lone_append(op) ? DB_PASSED : DB_LEFT;
    if (lone_append(op)) {
        if (left_has(l, game_of(op)) || (other && !apart(op, other)))
            return DB_LEFT;
    } else {
        int64_t g = game_key(op);
        if (other || nleft > 0 || (l->passed && (g == 0 || left_has(l, g))))
            return DB_LEFT; /* the others keep their order: none goes ahead of one left */
        if (l->steps > 0 &&
            (l->steps + op->nsteps > DB_BULK_STEPS || l->bytes + op->used > DB_BULK_BYTES))
            return DB_LEFT;
        l->steps += op->nsteps;
        l->bytes += op->used;
    }
    l->kind = kind;
    return DB_TAKEN;
}

/* The batches the writers other than me are writing, as one (wmu held):
 * NULL when none is; any when one holds a write whose game is not said,
 * or together more games than a busy set holds; accounts when each holds
 * an account's writes only. */
static const db_busy_t *others_busy(const db_core_t *db, int me, db_busy_t *out)
{
    *out = (db_busy_t){.on = false, .accounts = true};
    for (int i = 0; i < DB_WRITERS; i++) {
        const db_busy_t *o = &db->busy[i];
        if (i == me || !o->on)
            continue;
        out->on = true;
        out->accounts &= o->accounts;
        out->any |= o->any || out->n + o->n > DB_OVERLAP_MAX;
        for (int k = 0; k < o->n && !out->any; k++)
            out->games[out->n++] = o->games[k];
    }
    return out->on ? out : NULL;
}

/* What writer me takes from the queue (wmu held; see db_left_t): beside
 * the batches being written, at most DB_OVERLAP_MAX journal appends apart
 * from them (PostgreSQL then flushes the commits together, or this one
 * right after another's flush instead of after its round trip too);
 * beside an account's batches, what it would take with none in flight
 * but an account's writes. A third writer lets a key's append go while
 * a game start's batch and another batch of appends are both in their
 * commit. */
static db_list_t take(db_core_t *db, int me)
{
    db_list_t b = {NULL, NULL};
    db_busy_t busy;
    const db_busy_t *other = others_busy(db, me, &busy);
    if (other && other->any)
        return b;
    db_left_t l = {.split = db->lazy_apart, .accounts_busy = other && other->accounts};
    if (l.accounts_busy)
        other = NULL; /* as if none were in flight, for all but an account's writes */
    int nleft = 0, ntaken = 0, scanned = 0;
    db_op_t **at = &db->wq.head, *prev = NULL;
    while (*at && scanned++ < DB_SCAN_MAX && !(other && ntaken == DB_OVERLAP_MAX)) {
        db_op_t *op = *at;
        int how = takes(&l, op, other, nleft);
        if (how != DB_TAKEN) {
            leave(&l, op);
            if (l.all)
                break; /* nothing past it can go ahead of it */
            l.passed |= how == DB_PASSED;
            nleft += how == DB_LEFT;
            prev = op;
            at = &op->next;
            continue;
        }
        *at = op->next;
        list_push(&b, op);
        ntaken++;
    }
    if (!*at) /* walked to the end: the last op left is the tail */
        db->wq.tail = prev;
    if (b.head && busy.on)
        atomic_fetch_add(&db->overlaps, 1);
    return b;
}

/* A written batch handed back (wmu held on entry and return) as soon as
 * it committed: a batch taken beside another is apart from it (take), so
 * none waits for another's answers; a read waits for every batch that
 * holds a write queued before it (done). */
static void hand_back(db_writer_arg_t *w, db_list_t *batch, int ret)
{
    db_core_t *db = w->db;
    uint64_t n = 0;
    for (db_op_t *op = batch->head; op; op = op->next)
        n++;
    db->told += n;
    if (ret != DB_OK) {
        db->failed_at = db->told;
        db->failed_status = ret;
        memcpy(db->failed_msg, w->msg, sizeof db->failed_msg);
    }
    pthread_mutex_unlock(&db->wmu);
    post_batch(batch);
    if (w->me == 0)
        checkpoint_if_due(db);
    atomic_store(&db->batch_ended_ns, mono_ns());
    atomic_store(&db->batch_started_ns[w->me], 0);
    pthread_mutex_lock(&db->wmu);
    /* Committed and its answers posted: its games' next rows may go
     * anywhere, and their answers come after these. */
    db->busy[w->me].on = false;
    db->written += n;
    db->low[w->me] = 0;
    pthread_cond_broadcast(&db->wcv);
    pthread_cond_broadcast(&db->wdone);
}

/* Time i of the batch's timed ops (db_write_times). */
static void stamp(db_list_t *batch, int i, uint64_t t)
{
    for (db_op_t *op = batch->head; op; op = op->next)
        if (op->timed)
            op->t[i] = t;
}

/* A writer: batches taken, written (or failed by the fence) on its own
 * connection, handed back; writer 0 also takes game ids ahead, between two
 * of its transactions (a take is stored at once, whatever becomes of the
 * batch). */
static void *writer_main(void *arg)
{
    db_writer_arg_t *w = arg;
    db_core_t *db = w->db;
    pthread_setname_np(pthread_self(), "db-writer"); /* for profiles */
    pthread_mutex_lock(&db->wmu);
    for (;;) {
        db_list_t batch = take(db, w->me);
        bool ids = w->me == 0 && db_ids_asked(&db->ids);
        if (!batch.head && !ids) {
            if (db->wstop && !db->wq.head)
                break;
            pthread_cond_wait(&db->wcv, &db->wmu);
            continue;
        }
        busy_set(&db->busy[w->me], &batch);
        db->low[w->me] = batch.head ? batch.head->seq : 0;
        char fence[sizeof db->fence];
        bool fenced = db->fenced;
        if (fenced)
            memcpy(fence, db->fence, sizeof fence);
        pthread_mutex_unlock(&db->wmu);
        if (ids)
            db_ids_refill(&db->ids, w->c);
        int ret = DB_OK;
        if (batch.head) {
            uint64_t t = mono_ns();
            atomic_store(&db->batch_started_ns[w->me], t);
            stamp(&batch, 1, t);
            ret = fenced ? fail_batch(w, &batch, fence) : write_tried(w, &batch);
            stamp(&batch, 2, mono_ns());
        }
        pthread_mutex_lock(&db->wmu);
        if (batch.head)
            hand_back(w, &batch, ret);
    }
    pthread_mutex_unlock(&db->wmu);
    return NULL;
}

/* How many of the queue's first writes are written and handed back
 * (wmu held): those before the first that is still queued or in a batch
 * not handed back yet. An append that went ahead of them is not counted
 * in it before they are. */
static uint64_t done(const db_core_t *db)
{
    uint64_t d = db->wq.head ? db->wq.head->seq - 1 : db->submitted;
    for (int i = 0; i < DB_WRITERS; i++)
        if (db->low[i] && db->low[i] - 1 < d)
            d = db->low[i] - 1;
    return d;
}

/* One read transaction, so multi-query results are consistent. An op that
 * failed when it was built (a bad argument) runs nothing. */
static void run_read(db_conn_t *c, db_op_t *op)
{
    if (op->status != DB_OK)
        return;
    if (conn_exec(c, DB_STMT_BEGIN_READ) != DB_OK) {
        db_op_fail_msg(op, DB_ERR, c->err);
        return;
    }
    op->status = db_op_run(c, op);
    if (op->status == DB_ERR && !op->err)
        db_op_fail(op, c, DB_ERR);
    conn_exec(c, DB_STMT_COMMIT);
}

typedef struct {
    db_core_t *db;
    db_conn_t *conn;
} reader_arg_t;

static void *reader_main(void *arg)
{
    db_core_t *db = ((reader_arg_t *)arg)->db;
    db_conn_t *c = ((reader_arg_t *)arg)->conn;
    free(arg);
    pthread_setname_np(pthread_self(), "db-reader");
    for (;;) {
        pthread_mutex_lock(&db->rmu);
        while (!db->rq.head && !db->rstop)
            pthread_cond_wait(&db->rcv, &db->rmu);
        db_op_t *op = db->rq.head;
        if (!op) {
            pthread_mutex_unlock(&db->rmu);
            break;
        }
        db->rq.head = op->next;
        if (!db->rq.head)
            db->rq.tail = NULL;
        pthread_mutex_unlock(&db->rmu);

        /* A read sees every write queued before it. */
        pthread_mutex_lock(&db->wmu);
        while (done(db) < op->after)
            pthread_cond_wait(&db->wdone, &db->wmu);
        pthread_mutex_unlock(&db->wmu);

        run_read(c, op);
        atomic_fetch_add(&db->reads, 1);
        db_list_t one = {op, op};
        op->next = NULL;
        post_done(op->db, &one);
    }
    return NULL;
}

/* ---- loop side -------------------------------------------------------------- */

static void update_ref(db_t *db)
{
    /* Keep the loop alive only while results are owed. */
    bool want = db->outstanding > 0;
    if (want == db->async_ref || db->closing)
        return;
    if (want)
        uv_ref((uv_handle_t *)&db->async);
    else
        uv_unref((uv_handle_t *)&db->async);
    db->async_ref = want;
}

/* Pays the oldest owed callback (every call it is owed). */
static void pay_oldest(db_t *db)
{
    db_owed_t o = db->owed[db->owed_head];
    db->owed_head = (db->owed_head + 1) % DB_OWED;
    db->owed_n--;
    for (uint32_t i = 0; i < o.count; i++) {
        db->outstanding--;
        db_deliver_error(o.cb, o.status);
    }
}

static bool same_cb(const db_cb_t *a, const db_cb_t *b)
{
    return a->kind == b->kind && a->ud == b->ud && memcmp(&a->fn, &b->fn, sizeof a->fn) == 0;
}

void db_owe(db_t *db, db_cb_t cb, int status)
{
    snprintf(db->errmsg, sizeof db->errmsg, "%s",
             status == DB_ECLOSED ? "database closed"
                                  : "out of memory queueing a database operation");
    db_owed_t *last = db->owed_n ? &db->owed[(db->owed_head + db->owed_n - 1) % DB_OWED] : NULL;
    if (last && last->status == status && last->count < UINT32_MAX && same_cb(&last->cb, &cb)) {
        last->count++;
    } else {
        /* Full (memory gone and hundreds of callers in one turn): the oldest
         * is paid now, inside this later call, never inside its own. */
        if (db->owed_n == DB_OWED)
            pay_oldest(db);
        db->owed[(db->owed_head + db->owed_n++) % DB_OWED] = (db_owed_t){cb, status, 1};
    }
    db->outstanding++;
    if (db->closing)
        return; /* paid when the handles have closed */
    update_ref(db);
    uv_async_send(&db->async);
}

void *db_op_alloc(db_t *db, void *old, size_t n)
{
    if (db->fail_count > 0) {
        if (db->fail_after > 0)
            db->fail_after--;
        else if (db->fail_count-- > 0)
            return NULL;
    }
    return old ? realloc(old, n) : malloc(n);
}

void db_test_fail_allocs(db_t *db, int after, int count)
{
    db->fail_after = after;
    db->fail_count = count;
}

bool db_is_stopping(const db_t *db)
{
    return db->stopping;
}

static void add_time(db_core_t *k, const db_op_t *op)
{
    uint64_t t[4] = {op->t[0], op->t[1], op->t[2], mono_ns()};
    pthread_mutex_lock(&k->tmu);
    db_times_add(&k->times, t);
    pthread_mutex_unlock(&k->tmu);
}

/* The done list, now the loop's. */
static db_list_t take_done(db_t *db)
{
    pthread_mutex_lock(&db->dmu);
    db_list_t l = db->done;
    db->done.head = db->done.tail = NULL;
    pthread_mutex_unlock(&db->dmu);
    return l;
}

/* What a round left goes back ahead of what the threads posted meanwhile
 * (its order kept), and the loop is woken for it: a turn of its own. */
static void put_back(db_t *db, db_list_t *rest)
{
    pthread_mutex_lock(&db->dmu);
    rest->tail->next = db->done.head;
    if (!db->done.head)
        db->done.tail = rest->tail;
    db->done.head = rest->head;
    uv_async_send(&db->async);
    pthread_mutex_unlock(&db->dmu);
}

static void deliver_one(db_t *db, db_op_t *op)
{
    if (op->status == DB_ECONFLICT) /* words, not the server's: never changed anything */
        snprintf(db->errmsg, sizeof db->errmsg, "%s", DB_CONFLICT_MSG);
    else if (op->status != DB_OK && op->status != DB_ENOTFOUND)
        snprintf(db->errmsg, sizeof db->errmsg, "%s",
                 op->err ? op->err : "database operation failed");
    db->outstanding--;
    if (op->timed && op->status == DB_OK)
        add_time(db->core, op);
    db_op_deliver(op);
    db_op_free(op);
}

/* Whether a round that began at start and has delivered n ops has had its
 * turn's share: DB_DELIVER_NS, the clock read every DB_DELIVER_LOOK ops
 * (or db_test_deliver_budget's count of ops). */
static bool round_spent(const db_t *db, uint32_t n, uint64_t start)
{
    if (db->test_budget)
        return n >= db->test_budget;
    return n % DB_DELIVER_LOOK == 0 && mono_ns() - start >= DB_DELIVER_NS;
}

/* Delivers what the threads handed back, in order, as one round (the
 * round hook's begin and end around it). Unless all, a round stops when
 * spent and the rest waits for the loop's next turn, so a burst of costly
 * answers (each renders a frame) never holds the loop's sockets and timers
 * for long; db_close delivers all. */
static void deliver_done(db_t *db, bool all)
{
    db_list_t l = take_done(db);
    void (*round)(void *, bool) = l.head ? db->round_fn : NULL;
    uint64_t start = all || db->test_budget ? 0 : mono_ns();
    if (round)
        round(db->round_ud, true);
    for (uint32_t n = 1; l.head; n++) {
        db_op_t *op = l.head;
        l.head = op->next;
        deliver_one(db, op);
        if (l.head && !all && round_spent(db, n, start))
            break;
    }
    if (round)
        round(db->round_ud, false);
    if (l.head)
        put_back(db, &l);
    /* Those owed now; any owed during these callbacks have their own wakeup. */
    for (size_t n = db->owed_n; n > 0 && db->owed_n > 0; n--)
        pay_oldest(db);
    update_ref(db);
}

static void on_async(uv_async_t *h)
{
    deliver_done(h->data, false);
}

void db_test_deliver_budget(db_t *db, uint32_t ops)
{
    db->test_budget = ops;
}

static void on_prepare(uv_prepare_t *h)
{
    db_t *db = h->data;
    if (db->autoflush && db->pending.head)
        db_flush(db);
}

void db_submit(db_t *db, db_op_t *op)
{
    if (!op)
        return; /* db_op_begin has already owed its callback */
    if (db->stopping) {
        /* Queued from a callback that db_close delivers: nobody is left to run it. */
        db_owe(db, op->cb, DB_ECLOSED);
        db_op_free(op);
        return;
    }
    db->outstanding++;
    update_ref(db);
    if (op->write) {
        op->timed = lone_append(op);
        if (op->timed)
            op->t[0] = mono_ns();
        list_push(&db->pending, op);
        /* A long loop turn (a burst of keys) hands its writes over in
         * slices, so the writer commits while the loop is still reading. */
        if (++db->npending >= DB_EARLY_FLUSH && db->autoflush)
            db_flush(db);
        return;
    }
    if (db->pending.head) {
        list_push(&db->held, op); /* released by the flush of those writes */
        return;
    }
    op->after = db->flushed;
    db->handed++;
    db_core_t *k = db->core;
    pthread_mutex_lock(&k->rmu);
    list_push(&k->rq, op);
    pthread_cond_signal(&k->rcv);
    pthread_mutex_unlock(&k->rmu);
}

void db_flush(db_t *db)
{
    if (!db || !db->pending.head)
        return;
    db_core_t *k = db->core;
    pthread_mutex_lock(&k->wmu);
    for (db_op_t *op = db->pending.head; op; op = op->next)
        op->seq = ++k->submitted;
    db->flushed = k->submitted; /* our writes are done once these are */
    list_append(&k->wq, &db->pending);
    pthread_mutex_unlock(&k->wmu);
    /* Signalled after the unlock: woken under it, a writer would at once
     * block on wmu and need a second wake-up from this unlock. Both
     * writers (PostgreSQL's): one alone may be the one that cannot take it. */
    pthread_cond_broadcast(&k->wcv);
    db->handed += db->npending;
    db->npending = 0;
    if (!db->held.head)
        return;
    for (db_op_t *op = db->held.head; op; op = op->next) {
        op->after = db->flushed;
        db->handed++;
    }
    pthread_mutex_lock(&k->rmu);
    list_append(&k->rq, &db->held);
    pthread_cond_broadcast(&k->rcv);
    pthread_mutex_unlock(&k->rmu);
}

int db_flush_sync(db_t *db)
{
    if (!db)
        return DB_EINVAL;
    db_core_t *k = db->core;
    /* A batch told before this (its ops' callbacks may not have run yet)
     * is not ours to tell; one told from here on is. */
    pthread_mutex_lock(&k->wmu);
    uint64_t from = k->told;
    pthread_mutex_unlock(&k->wmu);
    db_flush(db);
    pthread_mutex_lock(&k->wmu);
    while (k->written < k->submitted)
        pthread_cond_wait(&k->wdone, &k->wmu);
    int ret = k->failed_at > from ? k->failed_status : DB_OK;
    if (ret != DB_OK)
        snprintf(db->errmsg, sizeof db->errmsg, "%s", k->failed_msg);
    pthread_mutex_unlock(&k->wmu);
    return ret;
}

void db_set_autoflush(db_t *db, bool on)
{
    if (db)
        db->autoflush = on;
}

void db_on_round(db_t *db, void (*fn)(void *ud, bool begin), void *ud)
{
    if (!db)
        return;
    db->round_fn = fn;
    db->round_ud = ud;
}

void db_on_conflict(db_t *db, void (*fn)(void *ud, const db_conflict_t *what), void *ud)
{
    if (!db)
        return;
    pthread_mutex_lock(&db->core->wmu);
    db->core->conflict_fn = fn;
    db->core->conflict_ud = ud;
    pthread_mutex_unlock(&db->core->wmu);
}

const char *db_error(const db_t *db)
{
    return db ? db->errmsg : "no database";
}

bool db_process_init(void)
{
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
}

void db_stats(const db_t *db, db_stats_t *out)
{
    out->commits = atomic_load(&db->core->commits);
    out->writes = atomic_load(&db->core->writes);
    out->failed = atomic_load(&db->core->failed);
    out->reads = atomic_load(&db->core->reads);
    out->ckpt_asks = atomic_load(&db->core->ckpt_asks);
    out->ckpt_stops = atomic_load(&db->core->ckpt_stops);
    pthread_mutex_lock(&db->core->cmu);
    out->ckpt_idle = !db->core->ckpt_want && !db->core->ckpt_running;
    pthread_mutex_unlock(&db->core->cmu);
    out->overlaps = atomic_load(&db->core->overlaps);
    out->retries = atomic_load(&db->core->retries);
    out->conflicts = atomic_load(&db->core->conflicts);
    out->pending = db->outstanding;
}

bool db_is_server(const char *path)
{
    return db_pg_is_url(path);
}

/* Copies src to out with the value starting at src[from] (up to a stop
 * character) replaced by "***". */
static size_t mask_value(const char *src, size_t from, const char *stops, char *out, size_t n)
{
    size_t end = from + strcspn(src + from, stops);
    snprintf(out, n, "%.*s***%s", (int)from, src, src + end);
    return from + 3;
}

void db_redact(const char *path, char *out, size_t n)
{
    char tmp[1024];
    snprintf(out, n, "%s", path ? path : "");
    const char *scheme = strstr(out, "://");
    if (scheme) { /* postgresql://user:secret@host/db */
        size_t auth = (size_t)(scheme - out) + 3;
        size_t end = auth + strcspn(out + auth, "/?");
        const char *at = memrchr(out + auth, '@', end - auth);
        const char *colon = at ? memchr(out + auth, ':', (size_t)(at - out) - auth) : NULL;
        if (colon) {
            snprintf(tmp, sizeof tmp, "%s", out);
            mask_value(tmp, (size_t)(colon - out) + 1, "@", out, n);
        }
    }
    /* password=secret as a key-value pair or a URL parameter */
    for (char *p = strstr(out, "password="); p; p = strstr(p + 1, "password=")) {
        size_t from = (size_t)(p - out) + strlen("password=");
        snprintf(tmp, sizeof tmp, "%s", out);
        from = mask_value(tmp, from, scheme ? "&" : " ", out, n);
        p = out + from - strlen("password=") - 3;
    }
}

bool db_hide_secret(char *path)
{
    bool hid = false;
    char *scheme = strstr(path, "://");
    if (scheme) { /* postgresql://user:secret@host/db */
        char *auth = scheme + 3;
        size_t end = strcspn(auth, "/?");
        char *at = memrchr(auth, '@', end);
        char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon && at > colon + 1) {
            memset(colon + 1, '*', (size_t)(at - colon - 1));
            hid = true;
        }
    }
    for (char *p = strstr(path, "password="); p; p = strstr(p + 1, "password=")) {
        char *v = p + strlen("password=");
        size_t n = strcspn(v, scheme ? "&" : " ");
        memset(v, '*', n);
        hid |= n > 0;
    }
    return hid;
}

int db_schema_version(const db_t *db)
{
    return db->core->version;
}

int db_file_state(const db_t *db, char *why, size_t n)
{
    return db_file_stat(&db->core->file, why, n);
}

void db_fence(db_t *db, const char *msg)
{
    db_core_t *k = db->core;
    pthread_mutex_lock(&k->wmu);
    snprintf(k->fence, sizeof k->fence, "%s", msg && *msg ? msg : "the database is fenced");
    k->fenced = true;
    pthread_mutex_unlock(&k->wmu);
}

void db_lease_fence(db_t *db, const char *node, int64_t ttl_ms)
{
    if (db->closing)
        return;
    snprintf(db->core->lease_node, sizeof db->core->lease_node, "%s", node ? node : "");
    db->core->lease_ttl_ms = ttl_ms;
}

const char *db_lease_node_(const db_t *db, int64_t *ttl_ms)
{
    if (db->closing) /* the core may be gone: what is queued now is answered DB_ECLOSED */
        return NULL;
    if (ttl_ms)
        *ttl_ms = db->core->lease_ttl_ms;
    return db->core->lease_node[0] ? db->core->lease_node : NULL;
}

void db_writer_state(const db_t *db, db_writer_t *out)
{
    out->started_ns = 0; /* the oldest batch being written */
    for (int i = 0; i < DB_WRITERS; i++) {
        uint64_t t = atomic_load(&db->core->batch_started_ns[i]);
        if (t && (!out->started_ns || t < out->started_ns))
            out->started_ns = t;
    }
    out->ended_ns = atomic_load(&db->core->batch_ended_ns);
}

/* Read from a copy: the sorting is done without holding up the loops. */
void db_write_times(const db_t *db, uint64_t window_ms, db_times_t *out)
{
    db_core_t *k = db->core;
    db_timering_t copy = {0};
    pthread_mutex_lock(&k->tmu);
    if (k->times.n && (copy.v = malloc(k->times.n * sizeof *copy.v))) {
        memcpy(copy.v, k->times.v, k->times.n * sizeof *copy.v);
        copy.n = k->times.n;
    }
    pthread_mutex_unlock(&k->tmu);
    db_times_read(&copy, mono_ns(), window_ms * 1000000u, out);
    free(copy.v);
}

/* The writer's op of db_set_max_size: op->id holds the bytes asked for,
 * then the cap in force. */
static int run_max_size(db_conn_t *c, db_op_t *op)
{
    char v[32], sql[64];
    if (!c->h) { /* PostgreSQL: its server's disk and quotas are the operator's */
        op->id = 0;
        return DB_OK;
    }
    if (pragma_text(c->h, "PRAGMA page_size", v, sizeof v) != SQLITE_OK)
        return db_op_fail(op, c, DB_ERR);
    int64_t page = strtoll(v, NULL, 10), bytes = op->id;
    if (page <= 0)
        return db_op_fail_msg(op, DB_ERR, "no page size");
    int64_t pages = bytes > 0 ? (bytes / page > 0 ? bytes / page : 1) : op->db->core->max_pages;
    snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld", (long long)pages);
    if (pragma_text(c->h, sql, v, sizeof v) != SQLITE_OK)
        return db_op_fail(op, c, DB_ERR);
    op->id = bytes > 0 ? strtoll(v, NULL, 10) * page : 0;
    return DB_OK;
}

void db_set_max_size(db_t *db, int64_t bytes, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), bytes > 0 ? bytes : 0);
    if (op) {
        op->run = run_max_size;
        op->write = true;
        op->nsteps = 1;
    }
    db_submit(db, op);
}

int64_t db_next_game_id_(db_t *db)
{
    return db_ids_next(&db->core->ids);
}

int64_t db_game_id_take(db_t *db)
{
    return db_next_game_id_(db);
}

/* db_ids.c asks for more game ids. */
static void wake_writer(void *ud)
{
    db_core_t *db = ud;
    pthread_mutex_lock(&db->wmu);
    pthread_cond_broadcast(&db->wcv);
    pthread_mutex_unlock(&db->wmu);
}

/* ---- open / close ----------------------------------------------------------- */

static void on_handle_closed(uv_handle_t *h)
{
    db_t *db = h->data;
    if (--db->handles_open > 0)
        return;
    while (db->owed_n > 0) /* queued after db_close returned */
        pay_oldest(db);
    pthread_mutex_destroy(&db->dmu);
    pthread_cond_destroy(&db->dcv);
    free(db);
}

static void core_free(db_core_t *db)
{
    for (int i = 0; i < DB_READERS; i++)
        if (db->rconn[i].be)
            conn_close(&db->rconn[i]);
    if (db->wconn.be && !db->fenced)
        db_ids_give_back(&db->ids, &db->wconn);
    if (db->wconn.be)
        conn_close(&db->wconn);
    for (int i = 0; i < DB_WRITERS - 1; i++)
        if (db->wmore[i].be)
            conn_close(&db->wmore[i]);
    db_ids_destroy(&db->ids);
    sqlite3_close(db->ckh);
    db_file_close(&db->file, db->fenced); /* after every connection: earlier drops their locks */
    pthread_mutex_destroy(&db->wmu);
    pthread_mutex_destroy(&db->cmu);
    pthread_cond_destroy(&db->ccv);
    pthread_cond_destroy(&db->cdone);
    pthread_mutex_destroy(&db->rmu);
    pthread_mutex_destroy(&db->tmu);
    db_times_free(&db->times);
    pthread_cond_destroy(&db->wcv);
    pthread_cond_destroy(&db->wdone);
    pthread_cond_destroy(&db->rcv);
    free(db->path);
    free(db);
}

static int start_threads(db_core_t *db, char *err, size_t errlen)
{
    db_conn_t *conns[DB_WRITERS] = {&db->wconn};
    for (int i = 1; i < DB_WRITERS; i++)
        conns[i] = &db->wmore[i - 1];
    for (int i = 0; i < DB_WRITERS && conns[i]->be; i++) {
        db->wargs[i] = (db_writer_arg_t){db, conns[i], i, ""};
        if (pthread_create(&db->writers[i], NULL, writer_main, &db->wargs[i]) != 0) {
            snprintf(err, errlen, "cannot start the database writer thread");
            return DB_ERR;
        }
        db->nwriters++;
    }
    if (db->ckh && pthread_create(&db->ckpt, NULL, ckpt_main, db) != 0) {
        snprintf(err, errlen, "cannot start the database checkpointer thread");
        return DB_ERR;
    }
    db->ckpt_started = db->ckh != NULL;
    for (int i = 0; i < DB_READERS; i++) {
        reader_arg_t *ra = malloc(sizeof *ra);
        if (!ra)
            break;
        ra->db = db;
        ra->conn = &db->rconn[i];
        if (pthread_create(&db->readers[i], NULL, reader_main, ra) != 0) {
            free(ra);
            break;
        }
        db->nreaders++;
    }
    if (db->nreaders == 0) {
        snprintf(err, errlen, "cannot start the database reader threads");
        return DB_ERR;
    }
    return DB_OK;
}

/* Every queued op runs first: the writer and the readers empty their queues. */
static void stop_threads(db_core_t *db)
{
    if (db->ckpt_started) {
        pthread_mutex_lock(&db->cmu);
        db->ckpt_stop = true;
        pthread_cond_signal(&db->ccv);
        pthread_mutex_unlock(&db->cmu);
        pthread_join(db->ckpt, NULL);
        db->ckpt_started = false;
    }
    if (db->nwriters > 0) {
        pthread_mutex_lock(&db->wmu);
        db->wstop = true;
        pthread_cond_broadcast(&db->wcv);
        pthread_mutex_unlock(&db->wmu);
        for (int i = 0; i < db->nwriters; i++)
            pthread_join(db->writers[i], NULL);
        db->nwriters = 0;
    }
    pthread_mutex_lock(&db->rmu);
    db->rstop = true;
    pthread_cond_broadcast(&db->rcv);
    pthread_mutex_unlock(&db->rmu);
    for (int i = 0; i < db->nreaders; i++)
        pthread_join(db->readers[i], NULL);
    db->nreaders = 0;
}

/* The SQLite file: its guards, the writer (which migrates it), the
 * checkpointer, the readers. */
static int open_sqlite(db_core_t *db, const db_guard_t *g, db_opened_t *out, char *err,
                       size_t errlen)
{
    int ret = make_parent(db->path, err, errlen);
    if (ret == DB_OK)
        ret = db_file_prepare(&db->file, db->path, g, out, err, errlen);
    if (ret == DB_OK)
        ret = open_writer(db, err, errlen);
    if (ret == DB_OK)
        ret = open_checkpointer(db, err, errlen);
    for (int i = 0; ret == DB_OK && i < DB_READERS; i++)
        ret = open_reader(db, &db->rconn[i], err, errlen);
    return ret;
}

#define ROLE_RISK_SQL                                                                            \
    "SELECT concat_ws(', ', CASE WHEN rolsuper THEN 'SUPERUSER' END, "                           \
    "CASE WHEN rolcreaterole THEN 'CREATEROLE' END, CASE WHEN rolcreatedb THEN 'CREATEDB' END, " \
    "CASE WHEN rolreplication THEN 'REPLICATION' END, CASE WHEN rolbypassrls THEN 'BYPASSRLS' "  \
    "END) FROM pg_roles WHERE rolname = current_user"

/* A PostgreSQL server: the writer's connection (which migrates it), the
 * readers'. The file guards are SQLite's: the server keeps its own files. */
static int open_pg(db_core_t *db, const db_guard_t *g, db_opened_t *out, char *err, size_t errlen)
{
    int wait = g && g->lock_wait_ms > 0 ? g->lock_wait_ms : DB_LOCK_WAIT_MS;
    db->wconn.lock_wait_ms = wait;
    for (int i = 0; i < DB_WRITERS - 1; i++)
        db->wmore[i].lock_wait_ms = wait;
    db_opened_t found;
    if (!out)
        out = &found;
    memset(out, 0, sizeof *out);
    if (db_pg_connect(&db->wconn, db->path, false, err, errlen) != DB_OK)
        return DB_ERR;
    char e2[200] = "";
    if (db_pg_migrate(&db->wconn, &db->version, e2, sizeof e2) != DB_OK ||
        db_pg_query_text(&db->wconn, "SELECT value FROM meta WHERE key = 'id'", out->id,
                         sizeof out->id) != DB_OK ||
        db_ids_refill(&db->ids, &db->wconn) != DB_OK) {
        snprintf(err, errlen, "PostgreSQL database: %s", e2[0] ? e2 : db->wconn.err);
        return DB_ERR;
    }
    /* rights a node never uses: a superuser's SQL reaches the server's files
     * and programs (COPY ... PROGRAM); unknown when the query fails */
    if (db_pg_query_text(&db->wconn, ROLE_RISK_SQL, out->role_risk, sizeof out->role_risk) != DB_OK)
        out->role_risk[0] = 0;
    /* more writers: batches of journal appends are written beside the
     * one in flight (writer_main) instead of after it */
    for (int i = 0; i < DB_WRITERS - 1; i++)
        if (db_pg_connect(&db->wmore[i], db->path, false, err, errlen) != DB_OK)
            return DB_ERR;
    /* a game's rows commit without waiting for the WAL's flush or the
     * standby (db_op_t.lazy), in batches of their own: a key's append
     * beside them then shares its flush and its wait with fewer commits */
    db->lazy_apart = true;
    for (int i = 0; i < DB_READERS; i++)
        if (db_pg_connect(&db->rconn[i], db->path, true, err, errlen) != DB_OK)
            return DB_ERR;
    return DB_OK;
}

/* One text of sql's one row on the writer's connection (either dialect):
 * DB_OK, or DB_ERR with why in err. */
static int query_one(db_core_t *db, const char *sql, char *out, size_t n, char *err, size_t errlen)
{
    int ret = DB_ERR;
    out[0] = '\0';
    if (db->wconn.pg) {
        ret = db_pg_query_text(&db->wconn, sql, out, n);
        if (ret != DB_OK)
            snprintf(err, errlen, "the daily secret: %s", db->wconn.err);
        return ret;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->wconn.h, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        snprintf(out, n, "%s", v ? (const char *)v : "");
        ret = DB_OK;
    } else {
        snprintf(err, errlen, "the daily secret: %s", sqlite3_errmsg(db->wconn.h));
    }
    sqlite3_finalize(st);
    return ret;
}

static bool secret_hex(const char *s)
{
    return strlen(s) == DB_SECRET_HEX && strspn(s, "0123456789abcdef") == DB_SECRET_HEX;
}

/* The daily game's secret (db_guard_t.daily_secret): the one under meta's
 * 'daily_secret' read; only when there is none, want stored, and the row
 * read back, in one statement (the conflict's no-op update returns the row
 * another node's start stored first). So a start writes nothing once the
 * row is there (a full disk still starts). want NULL (daily_read): only
 * read, "" when there is none. Never printed: the meta rows other than
 * 'id' go nowhere but to migrate-db's copy. */
static int claim_daily_secret(db_core_t *db, const char *want, char out[DB_SECRET_HEX + 1],
                              char *err, size_t errlen)
{
    if (want && !secret_hex(want)) {
        snprintf(err, errlen, "the daily secret to store is not %d hex digits", DB_SECRET_HEX);
        return DB_ERR;
    }
    char sql[256], got[DB_SECRET_HEX + 8];
    int ret =
        query_one(db, "SELECT coalesce((SELECT value FROM meta WHERE key = 'daily_secret'), '')",
                  got, sizeof got, err, errlen);
    if (ret == DB_OK && !got[0] && want) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO meta(key, value) VALUES ('daily_secret', '%s') ON CONFLICT (key) "
                 "DO UPDATE SET value = meta.value RETURNING value",
                 want);
        ret = query_one(db, sql, got, sizeof got, err, errlen);
        sodium_memzero(sql, sizeof sql);
    }
    if (ret == DB_OK && (got[0] || want) && !secret_hex(got)) {
        snprintf(err, errlen, "the daily secret the database holds is not %d hex digits",
                 DB_SECRET_HEX);
        ret = DB_ERR;
    }
    if (ret == DB_OK)
        memcpy(out, got, DB_SECRET_HEX + 1);
    sodium_memzero(got, sizeof got);
    return ret;
}

static db_core_t *core_open(const char *path, const db_guard_t *g, db_opened_t *out, char *err,
                            size_t errlen)
{
    db_core_t *db = calloc(1, sizeof *db);
    if (!db || !(db->path = db_strdup(path))) {
        free(db);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    db->ckpt_mark = DB_CKPT_MAX_PAGES;
    pthread_mutex_init(&db->wmu, NULL);
    pthread_mutex_init(&db->cmu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&db->ccv, &ca);
    pthread_cond_init(&db->cdone, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&db->rmu, NULL);
    pthread_mutex_init(&db->tmu, NULL);
    pthread_cond_init(&db->wcv, NULL);
    pthread_cond_init(&db->wdone, NULL);
    pthread_cond_init(&db->rcv, NULL);
    db->file.fd = -1;
    db_ids_init(&db->ids, wake_writer, db);
    int ret = db_pg_is_url(path) ? open_pg(db, g, out, err, errlen)
                                 : open_sqlite(db, g, out, err, errlen);
    char secret[DB_SECRET_HEX + 1];
    if (ret == DB_OK && g && (g->daily_secret || g->daily_read))
        ret =
            claim_daily_secret(db, g->daily_secret, out ? out->daily_secret : secret, err, errlen);
    sodium_memzero(secret, sizeof secret);
    if (ret == DB_OK)
        ret = start_threads(db, err, errlen);
    if (ret != DB_OK) {
        stop_threads(db);
        core_free(db);
        return NULL;
    }
    db->handles = 1;
    return db;
}

/* A handle on loop for core; NULL when its loop handles cannot be made. */
static db_t *handle_new(db_core_t *core, uv_loop_t *loop)
{
    db_t *db = calloc(1, sizeof *db);
    if (!db)
        return NULL;
    db->core = core;
    db->loop = loop;
    db->autoflush = true;
    pthread_mutex_init(&db->dmu, NULL);
    pthread_cond_init(&db->dcv, NULL);
    db->async.data = db->prepare.data = db;
    if (uv_async_init(loop, &db->async, on_async) == 0)
        db->handles_open++;
    if (db->handles_open == 1 && uv_prepare_init(loop, &db->prepare) == 0)
        db->handles_open++;
    if (db->handles_open != 2) {
        db->closing = true;
        if (db->handles_open == 0) {
            pthread_mutex_destroy(&db->dmu);
            pthread_cond_destroy(&db->dcv);
            free(db);
        } else {
            uv_close((uv_handle_t *)&db->async, on_handle_closed);
        }
        return NULL;
    }
    uv_prepare_start(&db->prepare, on_prepare);
    uv_unref((uv_handle_t *)&db->prepare);
    uv_unref((uv_handle_t *)&db->async);
    return db;
}

db_t *db_open(uv_loop_t *loop, const char *path, char *err, size_t errlen)
{
    return db_open_guarded(loop, path, NULL, NULL, err, errlen);
}

db_t *db_open_guarded(uv_loop_t *loop, const char *path, const db_guard_t *g, db_opened_t *out,
                      char *err, size_t errlen)
{
    char dummy[8];
    if (!err || errlen == 0)
        err = dummy, errlen = sizeof dummy;
    err[0] = '\0';
    if (!loop || !path || !*path) {
        snprintf(err, errlen, "no loop or database path");
        return NULL;
    }
    db_core_t *core = core_open(path, g, out, err, errlen);
    if (!core)
        return NULL;
    db_t *db = handle_new(core, loop);
    if (!db) {
        snprintf(err, errlen, "cannot create loop handles");
        stop_threads(core);
        core_free(core);
    }
    return db;
}

db_t *db_attach(db_t *db, uv_loop_t *loop)
{
    if (!db || !loop)
        return NULL;
    db_core_t *k = db->core;
    db_t *h = handle_new(k, loop);
    if (h) {
        pthread_mutex_lock(&k->wmu);
        k->handles++;
        pthread_mutex_unlock(&k->wmu);
    }
    return h;
}

/* Waits until the threads have handed back every op db handed them. */
static void wait_handed_back(db_t *db)
{
    pthread_mutex_lock(&db->dmu);
    while (db->posted < db->handed)
        pthread_cond_wait(&db->dcv, &db->dmu);
    pthread_mutex_unlock(&db->dmu);
}

void db_close(db_t *db)
{
    if (!db)
        return;
    db_core_t *k = db->core;
    db_flush(db);
    pthread_mutex_lock(&k->wmu);
    bool last = --k->handles == 0;
    pthread_mutex_unlock(&k->wmu);
    if (last)
        stop_threads(k);
    else
        wait_handed_back(db);
    db->stopping = true;
    db->round_fn = NULL; /* the caller may be going: its callbacks write alone */
    /* Callbacks may queue more: those are owed DB_ECLOSED, paid here too. */
    do
        deliver_done(db, true);
    while (db->owed_n > 0);
    db->closing = true;
    if (last) {
        if (k->wconn.h) /* SQLite: refresh planner stats */
            sqlite3_exec(k->wconn.h, "PRAGMA optimize;", NULL, NULL, NULL);
        core_free(k);
    }
    uv_prepare_stop(&db->prepare);
    uv_close((uv_handle_t *)&db->prepare, on_handle_closed);
    uv_close((uv_handle_t *)&db->async, on_handle_closed);
}
