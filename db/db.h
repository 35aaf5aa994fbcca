/* db — Warren's SQLite store: accounts, games, journals, snapshots, scores.
 *
 * Threads. The caller's libuv loop thread is the only thread that calls
 * these functions with its handle (db_open's, or one db_attach made for
 * another loop: several loops share one database, its writer and readers). One writer thread owns the write connection; a few reader
 * threads own read-only connections (WAL lets them read while it writes);
 * a checkpointer thread at a lower priority copies the WAL into the file
 * beside the writer, so no commit waits for a checkpoint (db.c).
 * The loop never blocks on the database: every call below only queues work,
 * except db_open(_guarded), db_flush_sync and db_close, which are for start
 * and stop, and db_file_state, one stat of the file.
 *
 * Group commit. Write operations queued on the loop thread are collected
 * until db_flush(); everything queued between two flushes commits as ONE
 * transaction (each operation inside its own savepoint, so one failing
 * operation - say a name already taken - does not undo the others). db_open
 * installs a uv_prepare handle that calls db_flush once per loop turn, just
 * before the loop waits for I/O, so callers normally never call it. A turn
 * that queues many writes (a burst of keys) also flushes every 32 of them,
 * so the writer commits in parallel with the rest of the turn.
 *
 * Durability. WAL with synchronous=NORMAL: a committed transaction survives
 * a crash or SIGKILL of the daemon at once (it is in the OS); a power loss
 * may roll back the last transactions, never corrupt the file. Measured on
 * the 2-core dev VM: 10,000 journal appends/s from the loop commit with an
 * ack p50 of 54 us and p99 of 6 ms; a burst sustains ~110,000 appends/s.
 *
 * Order. Writes run in the order queued, but for one thing: a journal
 * append goes ahead of other games' writes queued before it (their game
 * starts: accounts, game rows, first snapshots), which a batch takes a
 * bounded number of statements of, so a player's key never waits behind
 * many games starting. A game's writes still run and are answered in
 * their order (its game row and snapshot before a later append), and an
 * append never goes ahead of a write that does not say its game (a
 * lease's, a node's). A read sees every write queued before it (it waits
 * for their commit), so create-then-read works in one loop turn.
 *
 * Callbacks. Every callback (write completion or read result) comes exactly
 * once, later, on the loop thread, never inside the call that queued it
 * (db_close excepted: it delivers whatever is still pending) - even when
 * there was no memory to queue the operation (DB_ENOMEM) or the db is
 * closing (DB_ECLOSED). Pointers handed to a callback are borrowed and
 * valid only during the callback. Input buffers and strings are copied when
 * queued, so the caller may free them right after the call.
 *
 * Status codes are DB_OK or a negative DB_E* value; db_error() gives the
 * message of the last failure. Times are Unix seconds chosen by the caller.
 *
 * Order, callbacks and flushes are per handle: one loop's writes run in
 * the order it queued them (as above), its reads see its own earlier writes, its
 * callbacks come on its loop. Writes of several handles that wait together
 * commit together.
 *
 * Ownership: db_open (or db_open_guarded) / db_close pair, and db_attach /
 * db_close. db_close frees the object once the loop has run its handle
 * close callbacks (run the loop before uv_loop_close). */
#ifndef WARREN_DB_H
#define WARREN_DB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct db db_t;

enum {
    DB_OK = 0,
    DB_ERR = -1,       /* SQLite failure: see db_error() */
    DB_ENOTFOUND = -2, /* no such row */
    DB_EEXISTS = -3,   /* a unique constraint: name taken, second live game, duplicate seq */
    DB_ECLOSED = -4,   /* the db is closing */
    DB_ENOMEM = -5,
    DB_EINVAL = -6,    /* bad argument (too long a string, NULL where not allowed) */
    DB_ELEASE = -7,    /* a fenced write of a game whose lease this node does not hold */
    DB_ECONFLICT = -8, /* PostgreSQL ended it for another transaction's locks (a
                        * deadlock, a serialization failure, a lock waited for over
                        * db_guard_t.lock_wait_ms) on every one of its tries
                        * (the writer runs such a transaction again, 3 tries in all):
                        * nothing done, try again */
};

/* What db_error says of a DB_ECONFLICT: the server's own text is not for
 * the people who see it. DB_CONFLICT_TRIES: the writer's tries of it (the
 * message says the number too). */
#define DB_CONFLICT_TRIES 3
/* How long a writer's statement waits for another transaction's lock on
 * PostgreSQL unless db_guard_t.lock_wait_ms says (the writers'
 * lock_timeout; migrations wait as long as it takes): then it ends as a
 * conflict (55P03) and the batch is run again, so a session that holds
 * rows for long holds up a writer for a few times this, never until it
 * lets go: a try waits once (its batch ended at the first wait), the
 * last try once at once and once more for each op that meets a held
 * lock as it runs op by op (each fails alone), so 4 waits for a batch of
 * one such op (about 2 s). Less than the server's deadlock_timeout (1 s
 * by default): a deadlock ends this way before it is looked for.
 * DB_LOCK_WAIT_MIN, _MAX: the bounds a setting of it keeps to (0 is
 * PostgreSQL's "wait for ever": never). */
#define DB_LOCK_WAIT_MS   500
#define DB_LOCK_WAIT_MIN  10
#define DB_LOCK_WAIT_MAX  60000
#define DB_CONFLICT_MSG                                                               \
    "the database was busy with another transaction on the same rows (a deadlock, a " \
    "serialization failure or a lock held too long, on 3 tries); nothing changed, try again"

#define DB_NAME_MAX    32  /* bytes incl. NUL, for user names */
#define DB_PWHASH_MAX  128 /* crypto_pwhash_STRBYTES */
#define DB_OPTIONS_MAX 512 /* the user's options, free text (key=value lines) */
#define DB_SHORT_MAX   16  /* race, class, end kind */
#define DB_VERSION_MAX 64  /* content version id */
#define DB_CAUSE_MAX   128

typedef enum { DB_GAME_LIVE = 0, DB_GAME_FINISHED = 1, DB_GAME_BROKEN = 2 } db_game_state_t;

typedef struct {
    int64_t id;
    char name[DB_NAME_MAX];     /* as registered */
    char name_key[DB_NAME_MAX]; /* lowercased: the unique key */
    char pwhash[DB_PWHASH_MAX]; /* argon2id string */
    int64_t created;
    bool locked;
    char options[DB_OPTIONS_MAX];
    char game_name[DB_NAME_MAX]; /* what hosted games know it as (schema.sql: game_names) */
} db_user_t;

typedef struct {
    int64_t id;
    int64_t user;
    char player[DB_NAME_MAX]; /* the user's name (joined) */
    uint64_t seed;
    char content_version[DB_VERSION_MAX];
    char race[DB_SHORT_MAX];
    char cls[DB_SHORT_MAX];
    int64_t start_time, end_time; /* end_time 0 while live */
    int64_t turns;
    int depth, max_depth, xl;
    int64_t score;
    char cause[DB_CAUSE_MAX];
    char end_kind[DB_SHORT_MAX]; /* "" while live; "dead", "won", "quit" */
    int verified;                /* 0 not checked, 1 replay agrees, -1 replay disagrees */
    db_game_state_t state;
    char broken_reason[DB_CAUSE_MAX]; /* why it could not be restored (state BROKEN) */
    bool broken_told;                 /* its player has been told so */
} db_game_t;

/* Fields of a new game; copied. */
typedef struct {
    int64_t user;
    uint64_t seed;
    const char *content_version;
    const char *race, *cls;
    int64_t start_time;
} db_game_new_t;

/* Progress of a live game (kept current for menus and crash reports). */
typedef struct {
    int64_t turns;
    int depth, max_depth, xl;
    const char *race, *cls; /* copied; "" leaves the stored value (the
                               character is made after the game row) */
} db_progress_t;

/* The end record of a game. */
typedef struct {
    int64_t end_time;
    int64_t turns;
    int depth, max_depth, xl;
    int64_t score;
    const char *cause;      /* copied */
    const char *end_kind;   /* "dead", "won" or "quit" */
    const char *race, *cls; /* copied; "" leaves the stored value */
} db_game_end_t;

typedef struct {
    int64_t turn;
    int depth;
    const char *kind; /* as game_milestone_t: "start", "xl", "depth", ... */
    const char *text;
} db_milestone_t;

/* One journal row: the key bytes of one or more input events, in the
 * caller's encoding. seq is the caller's counter, strictly increasing per
 * game (from 1); it is what snapshots refer to. ms is the time in
 * milliseconds since the game's previous row (see journal.ms in
 * db/schema.sql), DB_MS_UNKNOWN for rows written before times were kept. */
#define DB_MS_UNKNOWN (-1)
typedef struct {
    int64_t seq;
    const uint8_t *keys;
    size_t len;
    int64_t ms;
} db_journal_row_t;

/* What recovery needs: the game row, the newest snapshot (if any) and every
 * journal row after the snapshot's seq (all rows if there is none). */
typedef struct {
    db_game_t game;
    bool has_snapshot;
    int64_t snap_turn, snap_seq;
    const uint8_t *snap;
    size_t snap_len;
    const db_journal_row_t *rows;
    size_t nrows;
} db_resume_t;

typedef struct {
    uint64_t commits;    /* transactions committed by the writer */
    uint64_t writes;     /* write operations run */
    uint64_t failed;     /* write operations that failed */
    uint64_t reads;      /* read requests run */
    uint64_t pending;    /* operations queued or running, not yet called back */
    uint64_t ckpt_asks;  /* times the writer woke the checkpointer thread */
    uint64_t ckpt_stops; /* checkpointer runs the writer stopped to copy the WAL itself */
    bool ckpt_idle;      /* the checkpointer neither asked nor running */
    uint64_t overlaps;   /* batches begun beside another (PostgreSQL's other writers) */
    uint64_t retries;    /* transactions run again after a conflict (DB_ECONFLICT) */
    uint64_t conflicts;  /* write operations failed by a conflict left after the tries */
} db_stats_t;

/* Callbacks. status is DB_OK or DB_E*. */
typedef void (*db_done_cb)(void *ud, int status, int64_t id); /* id: new row id where one is made */
typedef void (*db_user_cb)(void *ud, int status, const db_user_t *u); /* u NULL unless DB_OK */
typedef void (*db_game_cb)(void *ud, int status, const db_game_t *g);
typedef void (*db_games_cb)(void *ud, int status, const db_game_t *games, size_t n);
typedef void (*db_milestones_cb)(void *ud, int status, const db_milestone_t *m, size_t n);
typedef void (*db_text_cb)(void *ud, int status, const char *text, size_t len);
typedef void (*db_journal_cb)(void *ud, int status, const db_journal_row_t *rows, size_t n);
typedef void (*db_resume_cb)(void *ud, int status, const db_resume_t *r);

/* ---- open and close (synchronous) ----------------------------------------- */

/* Opens or creates the database at path (its parent directory is created if
 * missing), applies pending migrations, sets WAL, foreign keys and a busy
 * timeout, starts the writer and reader threads. NULL and a message in err
 * when the file is unwritable, corrupt, or from a newer schema.
 * A path that is a postgresql:// (or postgres://) URL, libpq's, opens that
 * PostgreSQL database instead, with the same operations and migrations; the
 * guards of db_open_guarded and db_set_max_size's cap are the file's and
 * do nothing there. */
/* Once, before any thread: process-wide settings of the database library.
 * SQLite then keeps no memory statistics (kept, every allocation of every
 * connection takes one global mutex). false: too late, SQLite already in
 * use (nothing changes). */
bool db_process_init(void);

db_t *db_open(uv_loop_t *loop, const char *path, char *err, size_t errlen);
/* ---- open with guards (warrend's start; db_file.c) -------------------------- */

#define DB_ID_MAX     40  /* a database id: 32 hex digits and a NUL */
#define DB_PATH_MAX   300 /* a database path with "-wal" or ".id" added */
#define DB_SECRET_HEX 64  /* the daily game's secret: 32 bytes as lowercase hex */

/* How db_open_guarded treats the file. Whatever the process's umask, a new
 * database is made with mode 0600 (SQLite gives its -wal and -shm files
 * the database's mode), and an existing database, -wal, -shm or PATH.id
 * that others may read (any mode but 0600 or 0640) is narrowed to 0600. */
typedef struct {
    int busy_ms;      /* a write waits this long for another program's lock, then fails (0: 5000) */
    int lock_wait_ms; /* PostgreSQL: a writer's statement waits this long for another
                         transaction's row lock, then its batch is tried again (0:
                         DB_LOCK_WAIT_MS) */
    int check_ms;     /* PRAGMA quick_check at open may run this long (0: no check); a file it
                     finds damaged is refused, one it had no time for is opened */
    bool keep_id;     /* the database's id (stored in it) is kept in PATH.id: with PATH.id there,
                     a missing, empty or different database is refused, never made anew */
    const char *daily_secret; /* the daily game's secret (DB_SECRET_HEX hex digits) stored in
                                 the database if it holds none yet (one statement: of nodes
                                 starting at once one wins); the one it holds comes back in
                                 db_opened_t.daily_secret. NULL: nothing stored */
    bool daily_read;          /* with daily_secret NULL, the one it holds still comes back
                                 ("" when none): a node whose daily-secret file wins compares */
} db_guard_t;

enum { DB_CHECK_OFF = 0, DB_CHECK_OK, DB_CHECK_CUT }; /* the quick check: not run, ok, cut short */

/* What db_open_guarded found, for the caller's log. */
typedef struct {
    bool created;       /* a new, empty database was made */
    bool id_written;    /* PATH.id was written now (a new database, or none kept yet) */
    char id[DB_ID_MAX]; /* the database's id */
    char daily_secret[DB_SECRET_HEX + 1]; /* the one the database holds (db_guard_t) */
    int check;                            /* DB_CHECK_* */
    int64_t check_ms;                     /* how long the quick check ran */
    int nfixed;                           /* files whose mode was narrowed to 0600 */
    char role_risk[80];                   /* PostgreSQL: the role's rights beyond its database
                         * ("SUPERUSER, CREATEROLE"), "" none */
    struct {
        char path[DB_PATH_MAX];
        unsigned mode; /* the mode it had */
    } fixed[4];
} db_opened_t;

/* db_open with the guards above (g NULL: none, as db_open); what it found
 * goes to *out unless NULL. A refused file gives NULL and a message in err
 * that names the file and says what to do. */
db_t *db_open_guarded(uv_loop_t *loop, const char *path, const db_guard_t *g, db_opened_t *out,
                      char *err, size_t errlen);

/* Whether the file at the path still is the one open (a stat of the path
 * and of the open file, on the caller's thread): DB_OK, or DB_ERR with
 * what happened in why ("was deleted", "was replaced by another file"). */
int db_file_state(const db_t *db, char *why, size_t n);
/* From now on every write fails with msg (the file is gone: nothing may be
 * acknowledged into it); reads go on. Until the db is closed. */
void db_fence(db_t *db, const char *msg);

/* The writer thread, seen from any thread: when its batch now running
 * began (CLOCK_MONOTONIC ns; 0 while it waits for work) and when the last
 * one ended. A batch that runs for seconds is a storage stall. */
typedef struct {
    uint64_t started_ns, ended_ns;
} db_writer_t;
void db_writer_state(const db_t *db, db_writer_t *out);

/* Where the time of the journal appends of every loop went (all handles
 * on db's database), over those whose callback came within the last
 * window_ms (DB_TIMES_MAX appends at most):
 * queue, from the submit until a writer took it (the rest of the loop's
 * turn, the writer's wake-up, a batch in flight before it); commit, the
 * writer's transaction until the server's answer to its COMMIT; back,
 * from that answer to the callback on the loop (the batches before it
 * handed back first, the loop's wake-up and turn). In us: the whole's
 * percentiles, each part's p99, and the parts' means over the slowest
 * 1 % by the whole (at least one append). */
#define DB_TIMES_MAX 8192
typedef struct {
    size_t n;
    double p50, p99, max;
    double queue_p99, commit_p99, back_p99;
    double slow_queue, slow_commit, slow_back;
} db_times_t;
void db_write_times(const db_t *db, uint64_t window_ms, db_times_t *out);

/* Another handle on db's database for another loop (call it on that
 * loop's thread, or before it runs); NULL without memory. */
db_t *db_attach(db_t *db, uv_loop_t *loop);
/* Flushes, waits for every operation of this handle, delivers the pending
 * callbacks (inside this call); the last handle closed also stops the
 * threads and closes the connections. The memory goes when the loop next
 * runs; calls made until then are answered DB_ECLOSED when it does. NULL
 * is a no-op. */
void db_close(db_t *db);

/* Hands everything queued so far to the writer as one transaction. */
void db_flush(db_t *db);
/* Flushes and blocks until the writer has committed everything queued.
 * For shutdown. Returns DB_OK or the error of a batch that failed while
 * it waited (db_error then says why; a batch that failed before the call
 * was told to its own callbacks). Callbacks still come through the loop. */
int db_flush_sync(db_t *db);
/* Turn the per-loop-turn flush off (then the caller calls db_flush): the
 * unit tests time the writer's commits with it. */
void db_set_autoflush(db_t *db, bool on);
/* fn(ud, true) before a round of callbacks the loop delivers at once (the
 * answers of one commit, one after another) and fn(ud, false) after it,
 * so the caller may hold what the callbacks write and send it together
 * (conn_hold_writes). A round takes a few ms of the loop's turn at most:
 * a longer run of answers (a burst's commit) is delivered as several
 * rounds, one a turn, in order, the loop's sockets and timers run between.
 * NULL: none. Not called for db_close's last round (it delivers all). */
void db_on_round(db_t *db, void (*fn)(void *ud, bool begin), void *ud);
/* What the writer says each time a write transaction meets a conflict
 * (DB_ECONFLICT; db_on_conflict): the batch is run again (again), or the
 * last try met it and the op that did fails alone. */
#define DB_KINDS_MAX 160
typedef struct {
    char sqlstate[6];         /* PostgreSQL's code: 40P01, 40001, 55P03 ("" unknown) */
    char op[48];              /* the statement of the op that met it ("" unknown) */
    char kinds[DB_KINDS_MAX]; /* the batch's ops' statements, each once, ", " between */
    size_t ops;               /* ops in the batch */
    int tried, tries;         /* the try that met it (1 ...), of tries */
    bool again;               /* run again after a pause */
} db_conflict_t;
/* fn(ud, what) on a writer thread (never a loop: fn must be thread-safe
 * and quick, as the writer waits for it) each time a write transaction
 * meets a conflict. Set once, before anything is written; NULL: none. Any
 * handle of the database sets it for all. */
void db_on_conflict(db_t *db, void (*fn)(void *ud, const db_conflict_t *what), void *ud);
/* Caps the database at bytes (whole pages, never below its size now; 0
 * lifts the cap), queued in write order. A write that needs more room then
 * fails as on a full disk (DB_ERR, "database or disk is full") and works
 * again once the cap is raised. cb's id is the cap in force, in bytes (0:
 * none). */
void db_set_max_size(db_t *db, int64_t bytes, db_done_cb cb, void *ud);

const char *db_error(const db_t *db); /* message of the last failure, "" if none */
void db_stats(const db_t *db, db_stats_t *out);
/* Whether a database setting names a PostgreSQL server, not a file. */
bool db_is_server(const char *path);
/* path with any password in it (user:SECRET@ or password=SECRET) shown as
 * "***": what logs and messages may print. */
void db_redact(const char *path, char *out, size_t n);
/* The same password overwritten with '*' in place, the length kept: a
 * command line's copy (argv), which every local user reads in ps.
 * Returns whether there was one. */
bool db_hide_secret(char *path);
int db_schema_version(const db_t *db); /* the schema's version after migration (tests) */

/* ---- writes (queued; cb may be NULL) ----------------------------------------- */

/* Users. name_key must be the lowercased name; DB_EEXISTS if taken. id = user id.
 * The account gets its game name in the same transaction (schema.sql:
 * users_game_name); read the account back for it. */
void db_user_create(db_t *db, const char *name, const char *name_key, const char *pwhash,
                    int64_t created, db_done_cb cb, void *ud);
void db_user_set_password(db_t *db, int64_t user, const char *pwhash, db_done_cb cb, void *ud);
void db_user_set_options(db_t *db, int64_t user, const char *options, db_done_cb cb, void *ud);
void db_user_set_locked(db_t *db, int64_t user, bool locked, db_done_cb cb, void *ud);

/* Games. The id is assigned at once (returned, > 0; negative DB_E* on a bad
 * argument, or DB_ERR when the database gives no ids, and then cb never
 * comes) so journal appends can follow in the same loop turn. Ids come
 * from the database's counter (a sequence on PostgreSQL), so daemons
 * sharing one database never give the same id; the insert itself fails with DB_EEXISTS if the user
 * already has a live game, and then everything later queued for that id
 * fails too. */
int64_t db_game_create(db_t *db, const db_game_new_t *g, db_done_cb cb, void *ud);
/* An id from the same counter with no game row: a hosted game's (its
 * session's id is its negation, hostgame.h), so nodes sharing one
 * database name each other's hosted games alike. > 0, or DB_ERR when the
 * database gives none (within the wait db_game_create has too). */
int64_t db_game_id_take(db_t *db);
void db_game_progress(db_t *db, int64_t game, const db_progress_t *p, db_done_cb cb, void *ud);
/* Ends a game: the end record, state FINISHED, the milestones (replacing any
 * stored) and the dump; deletes its snapshots (permadeath). The journal is
 * kept for replays. */
void db_game_finish(db_t *db, int64_t game, const db_game_end_t *end, const db_milestone_t *ms,
                    size_t nms, const char *dump, size_t dumplen, db_done_cb cb, void *ud);
/* Game leases (db_lease.c): with several daemons ("nodes") on one
 * PostgreSQL, each live game is run by the node holding its lease, a row
 * (game, node). A lease is valid while its node's heartbeat is fresh: a
 * row per node (nodes) whose expiry the heartbeat pushes forward, one row
 * written per renewal whatever the number of games. A node that stops
 * renewing (killed, cut off) loses its leases once its heartbeat lapses;
 * another may then take them and resume the games from snapshot and
 * journal, as crash recovery does. Times are the database's clock. node is
 * the node's name (at most 63 bytes).
 * Take: node's heartbeat pushed to ttl_ms from now and the lease taken, in
 * one op: DB_OK when the lease was free, let go, its node's heartbeat lapsed
 * or it was already node's; DB_ENOTFOUND while another node holds it. Renew (the
 * heartbeat): node's row pushed to ttl_ms from now, cb's id how many leases
 * node holds; games, when not NULL, is what node's games show now
 * (peersum.h), stored in the same row with the time (db_peer_node reads
 * it). Release: node's lease of game dropped (none: no error). Let
 * go: node's lease of game kept but marked away (its player left, the game
 * kept on node): any node may take it, fenced writes of node's are
 * refused as with no lease, and other nodes list it as detached.
 * Holder: the node holding game's lease while its heartbeat is fresh,
 * DB_ENOTFOUND when none does. */
void db_lease_take(db_t *db, int64_t game, const char *node, int64_t ttl_ms, db_done_cb cb,
                   void *ud);
void db_lease_renew(db_t *db, const char *node, int64_t ttl_ms, const char *games, db_done_cb cb,
                    void *ud);
void db_lease_release(db_t *db, int64_t game, const char *node, db_done_cb cb, void *ud);
void db_lease_let_go(db_t *db, int64_t game, const char *node, db_done_cb cb, void *ud);
void db_lease_holder(db_t *db, int64_t game, db_text_cb cb, void *ud);
/* Release-all (a clean stop): every lease of node dropped, cb's id how
 * many. Of node: the games whose lease rows name node (expired or not),
 * in ascending order: those it may still store rows of. */
void db_lease_release_node(db_t *db, const char *node, db_done_cb cb, void *ud);
/* The heartbeat rows of nodes that lapsed over ms ago and hold no lease
 * row (not even one let go) deleted, cb's id how many: a node still
 * renewing, or one whose games another node has yet to take, keeps its
 * row. */
void db_nodes_prune(db_t *db, int64_t ms, db_done_cb cb, void *ud);
typedef void (*db_game_ids_cb)(void *ud, int status, const int64_t *games, size_t n);
/* Two numbers a row (db_users_gone, db_logins_gone say what each is). */
typedef struct {
    int64_t a, b;
} db_pair_t;
typedef void (*db_pairs_cb)(void *ud, int status, const db_pair_t *rows, size_t n);
void db_leases_of_node(db_t *db, const char *node, db_game_ids_cb cb, void *ud);
/* Up to limit live games whose lease rows name another node than node
 * whose heartbeat lapsed (it stopped renewing): in ascending order. The
 * lapsed nodes are found first (a row each), then their games. */
void db_games_lease_lapsed(db_t *db, const char *node, int64_t limit, db_games_cb cb, void *ud);
/* Fencing: from now on every handle's journal appends, and a game's
 * progress, end record (db_game_finish) and broken mark, are stored only
 * while node holds the game's lease, checked in the write's own
 * transaction (the lease row locked until it commits, so a node taking
 * the lease waits for it and then reads every row it stored); else the
 * write fails with DB_ELEASE. A snapshot is stored unless another node
 * holds the lease (DB_ENOTFOUND). So a node that lost a game never
 * writes it again. A game this node creates (db_game_create,
 * db_daily_create) is its own from the start: its lease (ttl_ms) is
 * taken in the same savepoint as its row. Call once at start, before any
 * other loop attaches; without it (one node, SQLite) nothing is checked. */
void db_lease_fence(db_t *db, const char *node, int64_t ttl_ms);
/* A game that could not be restored: state BROKEN, kept with its data. */
void db_game_mark_broken(db_t *db, int64_t game, const char *reason, db_done_cb cb, void *ud);
/* Its player has been told that the BROKEN game could not be restored. */
void db_game_broken_told(db_t *db, int64_t game, db_done_cb cb, void *ud);
void db_game_set_verified(db_t *db, int64_t game, int verified, db_done_cb cb, void *ud);

/* A hosted game's end row (an xlogfile row); a row already stored (same
 * game, name, start and end) is ignored. id = the new row's id. */
typedef struct {
    int64_t user;
    const char *game; /* [game ID] */
    const char *name, *role, *race, *gender, *align, *death;
    int64_t max_depth, points, turns, realtime, start_time, end_time;
    int64_t recording; /* read: its hosted_games row (db_hosted.h), 0 if none */
    /* read: the account's name now ("" once deleted); name is what the
     * game called it (its game name, for rows since %u) */
    const char *player;
} db_hosted_score_t;
void db_hosted_score_add(db_t *db, const db_hosted_score_t *r, db_done_cb cb, void *ud);

/* Journal: one row (keys copied). len may be 0. ms: milliseconds since the
 * previous row (>= 0; a negative value is stored as DB_MS_UNKNOWN).
 * DB_EEXISTS on a repeated seq; DB_ENOTFOUND unless seq is 1 or row seq-1
 * is stored, so a journal never has a gap. */
void db_journal_append(db_t *db, int64_t game, int64_t seq, const uint8_t *keys, size_t len,
                       int64_t ms, db_done_cb cb, void *ud);
/* Snapshot covering the journal up to and including seq; older snapshots of
 * the game are deleted in the same transaction. DB_ENOTFOUND unless journal
 * row seq is stored (or seq is 0): a snapshot never gets ahead of the
 * journal. */
void db_snapshot_save(db_t *db, int64_t game, int64_t turn, int64_t seq, const uint8_t *blob,
                      size_t len, db_done_cb cb, void *ud);
/* A journal with a gap goes on from its part before the gap: rows after
 * seq move to the journal_aside table (kept, never played) and snapshots
 * after seq are deleted. cb's id is the number of rows moved. */
void db_journal_set_aside(db_t *db, int64_t game, int64_t seq, db_done_cb cb, void *ud);

/* Web sessions: token_hash is a hash of the cookie (never the cookie).
 * An account keeps its newest DB_SESSIONS_PER_USER: a new one deletes the
 * oldest past them (logins by the thousand cannot grow the table);
 * db_session_create's cb id says how many it deleted. */
#define DB_SESSIONS_PER_USER 20
void db_session_create(db_t *db, const char *token_hash, int64_t user, int64_t expires,
                       db_done_cb cb, void *ud);
void db_session_delete(db_t *db, const char *token_hash, db_done_cb cb, void *ud);
/* Deletes every session of user but the one whose hash is keep (NULL or
 * "": all of them): a password change logs the account out elsewhere. */
void db_session_delete_user(db_t *db, int64_t user, const char *keep, db_done_cb cb, void *ud);
/* Deletes sessions that expired at or before now. */
void db_session_purge(db_t *db, int64_t now, db_done_cb cb, void *ud);

/* ---- reads (queued to a reader thread) --------------------------------------- */

/* name is matched case-insensitively (through name_key). */
void db_user_by_name(db_t *db, const char *name, db_user_cb cb, void *ud);
void db_user_by_id(db_t *db, int64_t user, db_user_cb cb, void *ud);
/* The user of a session token hash that expires after now. */
void db_session_user(db_t *db, const char *token_hash, int64_t now, db_user_cb cb, void *ud);

void db_game_get(db_t *db, int64_t game, db_game_cb cb, void *ud);
/* The user's live game; DB_ENOTFOUND if none. */
void db_game_live_of_user(db_t *db, int64_t user, db_game_cb cb, void *ud);
/* Finished games by score (highest first, then earliest end). */
void db_scores_top(db_t *db, size_t limit, size_t offset, db_games_cb cb, void *ud);
/* A user's games, newest first. */
void db_games_of_user(db_t *db, int64_t user, size_t limit, size_t offset, db_games_cb cb,
                      void *ud);
/* Every LIVE game (for recovery at start), by id. */
void db_games_unfinished(db_t *db, db_games_cb cb, void *ud);
/* The newest BROKEN games, newest first. */
void db_games_broken(db_t *db, size_t limit, db_games_cb cb, void *ud);
void db_milestones_get(db_t *db, int64_t game, db_milestones_cb cb, void *ud);
void db_dump_get(db_t *db, int64_t game, db_text_cb cb, void *ud);
/* Journal rows with seq > after_seq in order (after_seq 0: the whole game). */
void db_journal_read(db_t *db, int64_t game, int64_t after_seq, db_journal_cb cb, void *ud);
/* Game row + newest snapshot + later journal. */
void db_game_resume(db_t *db, int64_t game, db_resume_cb cb, void *ud);

/* ---- admin reads (db_admin.c; reader threads, never the writer) ------------- */

typedef struct {
    int64_t id;
    char name[DB_NAME_MAX];
    int64_t created;
    bool locked;
    int64_t games;     /* games ever started */
    int64_t live_game; /* id of the live game, 0 if none */
    char game_name[DB_NAME_MAX];
} db_user_info_t;

typedef struct {
    char integrity[256]; /* "ok", or the first problems PRAGMA quick_check found */
    int schema_version;
    int64_t page_size, page_count, freelist_pages;
    int64_t wal_bytes; /* size of the -wal file, 0 if none */
    int64_t users, locked_users;
    int64_t games_live, games_finished, games_broken;
    int64_t journal_rows, journal_bytes; /* journal rows and their key bytes */
    int64_t journal_aside;               /* rows after a gap, kept aside */
    int64_t snapshots, snapshot_bytes;
} db_health_t;

typedef void (*db_users_cb)(void *ud, int status, const db_user_info_t *users, size_t n);
typedef void (*db_health_cb)(void *ud, int status, const db_health_t *h);

/* The full check (PRAGMA integrity_check) of a live database, on a reader
 * connection: slow on a big file, but the loop and the writer go on. */
#define DB_CHECK_PROBLEMS 20 /* problems reported at most */
typedef struct {
    int problems;    /* found (at most DB_CHECK_PROBLEMS); 0: the database is sound */
    int64_t ms;      /* how long the check took */
    char text[2048]; /* the problems, one a line ("ok" when there is none) */
} db_check_t;
typedef void (*db_check_cb)(void *ud, int status, const db_check_t *c);
void db_check(db_t *db, db_check_cb cb, void *ud);

/* Every account by name (case-insensitively), with its game counts. */
void db_users_list(db_t *db, db_users_cb cb, void *ud);
/* Quick check (db_check is the full one), sizes and row counts; runs on a
 * reader connection, so a big database takes a while but never holds up
 * the loop or the writer. */
void db_health(db_t *db, db_health_cb cb, void *ud);

/* ---- players among themselves (db_social.c) ---- */

typedef void (*db_number_cb)(void *ud, int status, int64_t n);

#define DB_MAIL_MAX 800 /* bytes of one message: 200 characters of UTF-8 */

/* ---- other nodes' games (db_peer.c) ---- */

/* Other nodes' games, as a change feed (peer.h: the lists show every
 * node's games). A row: a game's lease row, node its holder, or a lease
 * that went (a tombstone: node ""); chg its change number; away: its
 * player left and its node keeps it for their return (db_lease_let_go). */
typedef struct {
    db_game_t g;
    char node[64];
    int64_t chg;
    bool away;
} db_peer_game_t;
typedef void (*db_peer_games_cb)(void *ud, int status, const db_peer_game_t *rows, size_t n);
/* The change number from which db_peer_games_changed reads what a full
 * read after it might not show (asked before db_peer_games_all). */
void db_peer_cursor(db_t *db, db_number_cb cb, void *ud);
/* Every live game whose unexpired lease another node than node holds, at
 * most limit, by id. */
void db_peer_games_all(db_t *db, const char *node, size_t limit, db_peer_games_cb cb, void *ud);
/* The lease rows (any node's) and tombstones changed at or after cursor,
 * in change order: only those, whatever the number of leases. */
void db_peer_games_changed(db_t *db, int64_t cursor, db_peer_games_cb cb, void *ud);
/* Another node's heartbeat row: alive while its heartbeat is fresh; at,
 * when its heartbeat last said what its games show (db_lease_renew; the
 * database's clock, ms; 0: never), age_ms how long ago; games, what it
 * said (peersum.h; len bytes, borrowed for the callback) when at is not
 * known_at, else NULL. DB_ENOTFOUND when node's heartbeat lapsed and it
 * holds no lease. */
typedef struct {
    bool alive;
    int64_t at, age_ms;
    char *games;
    size_t len;
} db_peer_node_t;
typedef void (*db_peer_node_cb)(void *ud, int status, const db_peer_node_t *row);
void db_peer_node(db_t *db, const char *node, int64_t known_at, db_peer_node_cb cb, void *ud);
/* The nodes but node whose heartbeat is fresh: their names, separated
 * by ',' ("" when none). */
void db_peer_nodes(db_t *db, const char *node, db_text_cb cb, void *ud);
/* Tombstones older than ms (the database's clock) are forgotten. */
void db_peer_prune(db_t *db, int64_t ms, db_done_cb cb, void *ud);

typedef struct {
    int64_t id;
    char from[DB_NAME_MAX];
    int64_t sent; /* Unix seconds */
    char text[DB_MAIL_MAX + 1];
} db_mail_t;

/* An admin's sanction: a ban (net "ADDR/PREFIX", user 0) or a chat mute
 * (net the account's name, user its id); until a Unix time, 0 = until lifted. */
typedef struct {
    char net[64];
    int64_t user;
    int64_t until;
} db_sanction_t;

typedef void (*db_mail_cb)(void *ud, int status, const db_mail_t *m, size_t n);
typedef void (*db_sanctions_cb)(void *ud, int status, const db_sanction_t *s, size_t n);

/* Leaves text (under DB_MAIL_MAX bytes) for user to from; DB_ENOTFOUND
 * when from sent per_hour messages in the hour before now or 20 wait
 * unseen for to. */
void db_mail_send(db_t *db, int64_t to, int64_t from, int64_t now, const char *text, int per_hour,
                  db_done_cb cb, void *ud);
void db_mail_unseen(db_t *db, int64_t user, db_mail_cb cb, void *ud); /* oldest first, <= 20 */
void db_mail_seen(db_t *db, int64_t user, int64_t upto_id, db_done_cb cb, void *ud);
/* Deletes mail that was read and sent at or before before; cb's id is how
 * many. */
void db_mail_purge(db_t *db, int64_t before, db_done_cb cb, void *ud);

void db_ban_put(db_t *db, const char *net, int64_t until, int64_t now, db_done_cb cb, void *ud);
void db_ban_delete(db_t *db, const char *net, db_done_cb cb, void *ud); /* DB_ENOTFOUND: none */
void db_bans_list(db_t *db, db_sanctions_cb cb, void *ud);
void db_mute_put(db_t *db, int64_t user, int64_t until, db_done_cb cb, void *ud);
void db_mute_delete(db_t *db, int64_t user, db_done_cb cb, void *ud); /* DB_ENOTFOUND: none */
void db_mutes_list(db_t *db, db_sanctions_cb cb, void *ud);

/* A new name (and its lowercased key) for an account; DB_ERR when taken.
 * Its game name stays: hosted games still know it by that. */
void db_user_rename(db_t *db, int64_t user, const char *name, const char *key, db_done_cb cb,
                    void *ud);
/* The account, its games and everything recorded of them, gone in one
 * transaction; DB_ENOTFOUND when there was no such account. Its game name
 * is kept, retired: no later account gets it. node: this node's name
 * with several nodes (NULL: one node), and then nothing is deleted, but
 * DB_ELEASE, while another live node holds the lease of a game of it:
 * checked in the delete's own transaction, its games and their leases
 * locked first, so no take gets in between. */
void db_user_delete(db_t *db, int64_t user, const char *node, db_done_cb cb, void *ud);

/* A finished game's place on the all-time scores (1 = best), ordered as
 * the score pages are; DB_ENOTFOUND unless it is finished. */
void db_game_rank(db_t *db, int64_t game, db_number_cb cb, void *ud);

#endif
