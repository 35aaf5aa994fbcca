/* db_internal — what db.c, db_ops.c and schema.c share. Not a contract:
 * nothing outside db/ includes it (tests may, for the migration list). */
#ifndef WARREN_DB_INTERNAL_H
#define WARREN_DB_INTERNAL_H
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include "db.h"

/* ---- schema.c ---- */
int db_migration_count(void);
const char *db_migration_sql(int i); /* 1-based; NULL out of range */
int db_migrate(sqlite3 *h, int *version, char *err, size_t errlen);

/* ---- statements: one table, prepared lazily per connection ---- */
#define DB_STMT_LIST(X)                                                                            \
    X(BEGIN, "BEGIN IMMEDIATE")                                                                    \
    X(BEGIN_READ, "BEGIN")                                                                         \
    X(COMMIT, "COMMIT")                                                                            \
    X(ROLLBACK, "ROLLBACK")                                                                        \
    X(SAVEPOINT, "SAVEPOINT op")                                                                   \
    X(ROLLBACK_TO, "ROLLBACK TO op")                                                               \
    X(RELEASE, "RELEASE op")                                                                       \
    X(USER_INSERT, "INSERT INTO users(name, name_key, pwhash, created) VALUES (?1, ?2, ?3, ?4)")   \
    X(USER_SET_PW, "UPDATE users SET pwhash = ?2 WHERE id = ?1")                                   \
    X(USER_SET_OPTIONS, "UPDATE users SET options = ?2 WHERE id = ?1")                             \
    X(USER_SET_LOCKED, "UPDATE users SET locked = ?2 WHERE id = ?1")                               \
    X(USER_BY_KEY, "SELECT id, name, name_key, pwhash, created, locked, options FROM users WHERE " \
                   "name_key = ?1")                                                                \
    X(USER_BY_ID,                                                                                  \
      "SELECT id, name, name_key, pwhash, created, locked, options FROM users WHERE id = ?1")      \
    X(USER_BY_SESSION,                                                                             \
      "SELECT u.id, u.name, u.name_key, u.pwhash, u.created, u.locked, u.options "                 \
      "FROM sessions s JOIN users u ON u.id = s.user WHERE s.token_hash = ?1 AND s.expires > ?2")  \
    X(GAME_INSERT, "INSERT INTO games(id, user, seed, content_version, race, class, start_time) "  \
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")                                          \
    X(GAME_PROGRESS,                                                                               \
      "UPDATE games SET turns = ?2, depth = ?3, max_depth = ?4, xl = ?5, "                         \
      "race = coalesce(nullif(?6, ''), race), class = coalesce(nullif(?7, ''), class) "            \
      "WHERE id = ?1 AND state = 'live'")                                                          \
    X(GAME_FINISH, "UPDATE games SET end_time = ?2, turns = ?3, depth = ?4, max_depth = ?5, xl = " \
                   "?6, score = ?7, "                                                              \
                   "cause = ?8, end_kind = ?9, race = coalesce(nullif(?10, ''), race), "           \
                   "class = coalesce(nullif(?11, ''), class), state = 'finished' WHERE id = ?1 "   \
                   "AND state = 'live'")                                                           \
    X(GAME_BROKEN,                                                                                 \
      "UPDATE games SET state = 'broken', broken_reason = ?2 WHERE id = ?1 AND state = 'live'")    \
    X(GAME_VERIFIED, "UPDATE games SET verified = ?2 WHERE id = ?1")                               \
    X(GAME_MAX_ID, "SELECT coalesce(max(id), 0) FROM games")                                       \
    X(MILESTONES_CLEAR, "DELETE FROM milestones WHERE game = ?1")                                  \
    X(MILESTONE_INSERT,                                                                            \
      "INSERT INTO milestones(game, turn, depth, kind, text) VALUES (?1, ?2, ?3, ?4, ?5)")         \
    X(DUMP_PUT, "INSERT OR REPLACE INTO dumps(game, text) VALUES (?1, ?2)")                        \
    X(SNAPSHOTS_DELETE, "DELETE FROM snapshots WHERE game = ?1")                                   \
    X(SNAPSHOTS_DELETE_OLDER, "DELETE FROM snapshots WHERE game = ?1 AND seq < ?2")                \
    X(SNAPSHOT_PUT,                                                                                \
      "INSERT OR REPLACE INTO snapshots(game, turn, seq, blob) VALUES (?1, ?2, ?3, ?4)")           \
    X(SNAPSHOT_NEWEST,                                                                             \
      "SELECT turn, seq, blob FROM snapshots WHERE game = ?1 ORDER BY seq DESC LIMIT 1")           \
    X(JOURNAL_INSERT, "INSERT INTO journal(game, seq, keys, ms) VALUES (?1, ?2, ?3, ?4)")          \
    X(JOURNAL_AFTER,                                                                               \
      "SELECT seq, keys, ms FROM journal WHERE game = ?1 AND seq > ?2 ORDER BY seq")               \
    X(SESSION_INSERT, "INSERT INTO sessions(token_hash, user, expires) VALUES (?1, ?2, ?3)")       \
    X(SESSION_DELETE, "DELETE FROM sessions WHERE token_hash = ?1")                                \
    X(SESSION_PURGE, "DELETE FROM sessions WHERE expires <= ?1")                                   \
    X(GAME_BY_ID, DB_GAME_COLS " WHERE g.id = ?1")                                                 \
    X(GAME_LIVE_OF_USER, DB_GAME_COLS " WHERE g.user = ?1 AND g.state = 'live'")                   \
    X(GAMES_TOP, DB_GAME_COLS                                                                      \
      " WHERE g.state = 'finished' ORDER BY g.score DESC, g.end_time, g.id LIMIT ?1 OFFSET ?2")    \
    X(GAMES_OF_USER, DB_GAME_COLS " WHERE g.user = ?1 ORDER BY g.id DESC LIMIT ?2 OFFSET ?3")      \
    X(GAMES_LIVE, DB_GAME_COLS " WHERE g.state = 'live' ORDER BY g.id")                            \
    X(MILESTONES_OF,                                                                               \
      "SELECT turn, depth, kind, text FROM milestones WHERE game = ?1 ORDER BY rowid")             \
    X(DUMP_OF, "SELECT text FROM dumps WHERE game = ?1")                                           \
    DB_RECORDS_STMTS(X)

/* Reads for score pages and verification (db_records.c). */
#define DB_RECORDS_STMTS(X)                                                                       \
    X(SCORES_FILTERED,                                                                            \
      DB_GAME_COLS " WHERE g.state = 'finished' AND (?1 = '' OR g.race = ?1 COLLATE NOCASE) "     \
                   "AND (?2 = '' OR g.class = ?2 COLLATE NOCASE) AND g.end_time >= ?3 "           \
                   "ORDER BY g.score DESC, g.end_time, g.id LIMIT ?4 OFFSET ?5")                  \
    X(PLAYER_TOTALS,                                                                              \
      "SELECT count(*), coalesce(sum(state = 'finished'), 0), coalesce(sum(state = 'live'), 0), " \
      "coalesce(sum(verified = 1), 0), coalesce(sum(verified = -1), 0), "                         \
      "coalesce(sum(CASE WHEN state = 'finished' THEN turns END), 0), "                           \
      "coalesce(max(max_depth), 0), coalesce(min(start_time), 0), coalesce(max(end_time), 0) "    \
      "FROM games WHERE user = ?1")                                                               \
    X(PLAYER_BEST, "SELECT id, score FROM games WHERE user = ?1 AND state = 'finished' "          \
                   "ORDER BY score DESC, end_time, id LIMIT 1")                                   \
    X(GAMES_UNVERIFIED,                                                                           \
      DB_GAME_COLS " WHERE g.state = 'finished' AND g.verified = 0 AND g.id > ?1 "                \
                   "ORDER BY g.id LIMIT ?2")

#define DB_GAME_COLS                                                                           \
    "SELECT g.id, g.user, u.name, g.seed, g.content_version, g.race, g.class, g.start_time, "  \
    "g.end_time, "                                                                             \
    "g.turns, g.depth, g.max_depth, g.xl, g.score, g.cause, g.end_kind, g.verified, g.state, " \
    "g.broken_reason "                                                                         \
    "FROM games g JOIN users u ON u.id = g.user"

enum {
#define DB_STMT_ENUM_(n, s) DB_STMT_##n,
    DB_STMT_LIST(DB_STMT_ENUM_)
#undef DB_STMT_ENUM_
        DB_STMT_COUNT
};

typedef struct {
    sqlite3 *h;
    sqlite3_stmt *st[DB_STMT_COUNT];
} db_conn_t;

/* The statement, reset and unbound; NULL on a prepare failure. */
sqlite3_stmt *db_stmt(db_conn_t *c, int id);

/* ---- operations ---- */
typedef struct db_op db_op_t;
typedef struct {
    int (*run)(db_conn_t *c, db_op_t *op); /* on a db thread: DB_OK or DB_E* */
    void (*deliver)(db_op_t *op);          /* on the loop: call the callback */
    void (*free_res)(db_op_t *op);         /* release op->res (may be NULL) */
    bool write;
    bool single; /* one SQL statement: atomic by itself, no savepoint needed */
} db_op_kind_t;

struct db_op {
    db_op_t *next;
    const db_op_kind_t *kind;
    union {
        db_done_cb done;
        db_user_cb user;
        db_game_cb game;
        db_games_cb games;
        db_milestones_cb ms;
        db_text_cb text;
        db_journal_cb journal;
        db_resume_cb resume;
        db_users_cb users;
        db_health_cb health;
    } cb;
    void *ud;
    int status;
    int64_t id;    /* result id of a write */
    int64_t i[8];  /* integer arguments */
    char *s[4];    /* owned string arguments */
    uint8_t *blob; /* owned blob argument */
    size_t len;
    db_milestone_t *ms; /* owned (with their strings) */
    size_t nms;
    char *err;      /* owned failure message */
    uint64_t after; /* a read runs once this many writes are done */
    void *res;      /* owned result, freed by kind->free_res */
    size_t nres;
};

/* The kinds (db_ops.c). */
extern const db_op_kind_t db_kind_user_create, db_kind_user_set_pw, db_kind_user_set_options,
    db_kind_user_set_locked, db_kind_game_create, db_kind_game_progress, db_kind_game_finish,
    db_kind_game_broken, db_kind_game_verified, db_kind_journal_append, db_kind_snapshot_save,
    db_kind_session_create, db_kind_session_delete, db_kind_session_purge, db_kind_user_by_name,
    db_kind_user_by_id, db_kind_session_user, db_kind_game_get, db_kind_game_live_of_user,
    db_kind_scores_top, db_kind_games_of_user, db_kind_games_unfinished, db_kind_milestones_get,
    db_kind_dump_get, db_kind_journal_read, db_kind_game_resume;

/* db_ops.c: collects every row of st (a DB_GAME_COLS query) into op->res
 * as a db_game_t array; deliver_games hands them to op->cb.games. */
int db_read_games(db_conn_t *c, db_op_t *op, sqlite3_stmt *st);
void db_deliver_games(db_op_t *op);
void db_free_res_plain(db_op_t *op);

/* db.c: a zeroed op of that kind; the queue functions take ownership. */
db_op_t *db_op_new(const db_op_kind_t *kind, void *ud);
void db_op_free(db_op_t *op);
/* Queues a write (until the next flush) or a read (at once). A NULL op
 * (allocation failed) is ignored: callers report DB_ENOMEM themselves. */
void db_submit(db_t *db, db_op_t *op);
/* Records the connection's message on op (thread side). */
int db_op_fail(db_op_t *op, db_conn_t *c, int status);
char *db_strdup(const char *s);
int64_t db_next_game_id_(db_t *db); /* loop thread: the id for a new game */

#endif
