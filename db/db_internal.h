/* db_internal — what the db/ sources share. Not a contract: nothing outside
 * db/ includes it (tests may).
 *
 * A query is one row of the statement table below plus one function.
 *
 *  1. The row: X(NAME, signature, outcome, row, SQL).
 *     SQL        one text for both backends, or DB_BOTH(SQLite's,
 *                PostgreSQL's) where the dialects differ. Written in
 *                SQLite's words: PostgreSQL gets ?N as $N and the column
 *                user quoted ("user" is a reserved word there) by itself.
 *     signature  one letter per ?N parameter of the SQL, in order:
 *                i integer, t text, b blob ("" for none). A row whose
 *                signature does not match its SQL fails when prepared (and
 *                tests/unit/db_query.c prepares every row).
 *     outcome    what running it yields:
 *                RUN    nothing
 *                CHANGE nothing, but DB_ENOTFOUND if no row changed
 *                ROWID  the callback's id is the new row's rowid
 *                COUNT  the callback's id is the number of rows changed
 *                ROW    one row, DB_ENOTFOUND if none
 *                ROWS   any number of rows
 *     row        for ROW and ROWS, the reader of one result row: the
 *                table refers to db_row_<row> (a db_row_t, below); none
 *                for the others. Its column count is checked too.
 *
 *  2. The function, the public wrapper: it names the callback and fills the
 *     statement's arguments, typed and in order; they are checked against
 *     the signature and copied when queued:
 *
 *         void db_thing_get(db_t *db, int64_t id, db_thing_cb cb, void *ud)
 *         {
 *             db_queue(db, DB_ON(thing, cb, ud), 0, DB_STMT_THING_BY_ID,
 *                      DB_ARGS(DB_INT(id)));
 *         }
 *
 *     An operation of several statements (run in order in one savepoint on
 *     the writer, or one read transaction on a reader) is db_op_begin, one
 *     db_op_step per statement, db_submit.
 *
 *  3. Only for a new shape of result: its row reader (a const db_row_t
 *     db_row_<row>) next to the wrapper, and for a new callback type one
 *     line in DB_CALLBACKS and its db_deliver_<name>.
 *
 * Whether an operation is a write (writer thread, group commit) or a read
 * (a reader thread) follows from its statements' outcomes. */
#ifndef WARREN_DB_INTERNAL_H
#define WARREN_DB_INTERNAL_H
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include "db.h"
#include "db_daily.h"
#include "db_hosted.h"
#include "db_listen.h"
#include "db_records.h"

/* ---- schema.c ---- */
int db_migration_count(void);
const char *db_migration_sql(int i); /* 1-based; NULL out of range */
int db_migrate(sqlite3 *h, int *version, char *err, size_t errlen);

/* ---- schema_pg.c: the same migrations in PostgreSQL's words ---- */
int db_pg_migration_count(void);
const char *db_pg_migration_sql(int i); /* 1-based; NULL out of range */

/* ---- db_file.c: the file itself, for db.c's open ---- */

/* The database file as db.c opens it: the guards asked, what was found,
 * and the file held open (never closed before every connection is: a
 * close would drop SQLite's POSIX locks on it) to see it deleted. */
typedef struct {
    char path[DB_PATH_MAX];
    db_guard_t guard;
    db_opened_t *info;    /* the caller's, or found below */
    db_opened_t found;    /* when the caller asked for nothing */
    char kept[DB_ID_MAX]; /* the id in PATH.id; "" when there is none */
    int fd;               /* the file, open for its stat (-1: none) */
    uint64_t dev, ino;    /* what the path named when it was opened */
} db_file_t;

/* Before SQLite opens it: makes the file (0600) or narrows the modes of
 * what is there, reads PATH.id and refuses a missing database it names.
 * DB_OK, or DB_ERR with the message in err. */
int db_file_prepare(db_file_t *f, const char *path, const db_guard_t *g, db_opened_t *out,
                    char *err, size_t errlen);
/* Once SQLite has opened it, before the migrations: the quick check in its
 * time budget, then the id against PATH.id. */
int db_file_check_open(db_file_t *f, sqlite3 *h, char *err, size_t errlen);
/* After the migrations: the id read, PATH.id written if there was none. */
int db_file_keep_id(db_file_t *f, sqlite3 *h, char *err, size_t errlen);
/* The message for a failure of SQLite on the file at open: a damaged file
 * is named as such, with what to do. */
void db_file_failed(const db_file_t *f, sqlite3 *h, const char *what, char *err, size_t errlen);
/* Whether the path still names the open file (db_file_state). */
int db_file_stat(const db_file_t *f, char *why, size_t n);
/* Closes the file; lost (db_fence): its -wal and -shm are moved aside
 * (PATH-wal.lost, PATH-shm.lost). After every connection is closed. */
void db_file_close(db_file_t *f, bool lost);

/* ---- the statement table ---- */
/* Parts of rows whose two dialects share them. */
#define DB_HOSTED_SCORE_INS                                                                    \
    "user, game, name, role, race, gender, align, max_depth, death, points, turns, realtime, " \
    "start_time, end_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14"
/* games-per-hour (hostgame.c): the account's newest ?3 hosted ends after ?2,
 * read from migration 20's index alone */
#define DB_HOSTED_ENDS_SQL                                                  \
    "SELECT end_time FROM hosted_scores WHERE user = ?1 AND end_time > ?2 " \
    "ORDER BY end_time DESC LIMIT ?3"
#define DB_SNAPSHOT_SEL                      \
    "SELECT ?1, ?2, ?3, ?4 WHERE ?3 = 0 OR " \
    "EXISTS (SELECT 1 FROM journal WHERE game = ?1 AND seq = ?3)"
/* ... and, fenced (db_lease_fence), no other node holds the game's lease */
#define DB_SNAPSHOT_SEL_LEASED                                          \
    "SELECT ?1, ?2, ?3, ?4 WHERE (?3 = 0 OR "                           \
    "EXISTS (SELECT 1 FROM journal WHERE game = ?1 AND seq = ?3)) AND " \
    "NOT EXISTS (SELECT 1 FROM leases WHERE game = ?1 AND node <> ?5)"
#define DB_SNAPSHOT_UPSERT \
    " ON CONFLICT (game, seq) DO UPDATE SET turn = excluded.turn, blob = excluded.blob"
#define DB_ASIDE_SEL "SELECT game, ?2, seq, keys, ms FROM journal WHERE game = ?1 AND seq > ?2"
/* The score pages (db_scores_filtered): finished games at or after ?3,
 * of race ?1 and class ?2 (ignoring case) when the row's filter names
 * them, best first. Each filter has its row, so each is read from an
 * index range: race or class from migration 23's index, in order. */
#define DB_SCORES_SQL(filter, order)                                                          \
    DB_GAME_COLS " WHERE g.state = 'finished' " filter "AND g.end_time >= ?3 ORDER BY " order \
                 " LIMIT ?4 OFFSET ?5"
/* A period alone: when it holds fewer than DB_SCORES_FEW games, those,
 * read from games_by_end's range and sorted ("+": not in games_by_score's
 * order); else games_by_score walked from the best, where one game in
 * DB_SCORES_FEW or more is in the period. Each half's LIMIT is 0 unless
 * the count (at most DB_SCORES_FEW of games_by_end) picks it. */
#define DB_SCORES_FEW "10000"
#define DB_SCORES_COUNT                                                                 \
    "(SELECT count(*) FROM (SELECT 1 FROM games WHERE state = 'finished' AND end_time " \
    ">= ?3 LIMIT " DB_SCORES_FEW ") n)"
#define DB_SCORES_HALF(order, cmp)                                                        \
    "SELECT * FROM (" DB_GAME_COLS " WHERE g.state = 'finished' AND g.end_time >= ?3 "    \
    "ORDER BY " order " LIMIT CASE WHEN " DB_SCORES_COUNT cmp DB_SCORES_FEW " THEN ?4 + " \
    "?5 ELSE 0 END)"
#define DB_SCORES_SINCE_SQL                 \
    DB_SCORES_HALF(DB_SCORES_ORDER, " >= ") \
    " a UNION ALL " DB_SCORES_HALF(         \
        DB_SCORES_ORDER_SORTED, " < ") " b ORDER BY score DESC, end_time, id LIMIT ?4 OFFSET ?5"
#define DB_SCORES_ORDER        "g.score DESC, g.end_time, g.id"
#define DB_SCORES_ORDER_SORTED "+g.score DESC, g.end_time, g.id"
#define DB_SCORES_RACE_LITE    "AND g.race = ?1 COLLATE NOCASE "
#define DB_SCORES_CLASS_LITE   "AND g.class = ?2 COLLATE NOCASE "
#define DB_SCORES_RACE_PG      "AND lower(g.race) = lower(?1) "
#define DB_SCORES_CLASS_PG     "AND lower(g.class) = lower(?2) "
/* PostgreSQL sums no booleans: counted with CASE on both. */
#define DB_TOTALS_COUNTS                                          \
    "coalesce(sum(CASE WHEN state = 'finished' THEN 1 END), 0), " \
    "coalesce(sum(CASE WHEN state = 'live' THEN 1 END), 0), "     \
    "coalesce(sum(CASE WHEN verified = 1 THEN 1 END), 0), "       \
    "coalesce(sum(CASE WHEN verified = -1 THEN 1 END), 0), "
#define DB_HOSTED_COLS                                                                      \
    "SELECT user, game, name, role, race, gender, align, death, max_depth, points, turns, " \
    "realtime, start_time, end_time, "                                                      \
    "coalesce((SELECT max(r.id) FROM hosted_games r WHERE r.score = hosted_scores.id), 0)," \
    "coalesce((SELECT u.name FROM users u WHERE u.id = hosted_scores.user), '') "           \
    "FROM hosted_scores"
/* Leases (db_lease.c): now in ms by the database's clock, so nodes' clocks
 * need not agree; a lease is taken when free, expired, or already ours. */
#define DB_NOW_MS_LITE "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
#define DB_NOW_MS_PG   "CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)"
/* 1 unless a game of account ?1 has a lease held by another live node than ?2 */
#define DB_USER_LEASES_FREE(now)                                                                  \
    "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM leases l JOIN games g ON g.id = l.game JOIN nodes " \
    "n "                                                                                          \
    "ON n.node = l.node WHERE g.user = ?1 AND l.node <> ?2 AND n.expires >= " now ")"
/* A node's heartbeat (its row in nodes) is fresh: its leases are valid. */
#define DB_NODE_FRESH(node, now) \
    "EXISTS (SELECT 1 FROM nodes WHERE node = " node " AND expires >= " now ")"
#define DB_NODE_BEAT(now)                                         \
    "INSERT INTO nodes(node, expires) VALUES (?1, " now " + ?2) " \
    "ON CONFLICT (node) DO UPDATE SET expires = excluded.expires"
/* ... with what it says of its games (peersum.h) and when: a heartbeat
 * that has something new to say (db_lease_renew) */
#define DB_NODE_BEAT_GAMES(now)                                                               \
    "INSERT INTO nodes(node, expires, games, games_at) VALUES (?1, " now " + ?2, ?3, " now    \
    ") ON CONFLICT (node) DO UPDATE SET expires = excluded.expires, games = excluded.games, " \
    "games_at = excluded.games_at"
#define DB_NODES_PRUNE(now)                                   \
    "DELETE FROM nodes WHERE expires < " now " - ?1 AND NOT " \
    "EXISTS (SELECT 1 FROM leases WHERE leases.node = nodes.node)"
/* Taking a lease (db_lease.c: LEASE_NEW, LEASE_LOCK, LEASE_MOVE, LEASE_OURS,
 * each its own statement, so on PostgreSQL the move reads the holder's
 * heartbeat after the row's last locker committed): moved only when its
 * node's heartbeat lapsed or its node let it go (away: detached). */
#define DB_LEASE_MOVE(now)                                                              \
    "UPDATE leases SET node = ?2, away = 0 WHERE game = ?1 AND (away <> 0 OR (node <> " \
    "?2 AND NOT " DB_NODE_FRESH("leases.node", now) "))"
/* The games of the nodes whose heartbeat lapsed: those nodes first (a
 * handful of rows), then only their leases by leases_by_node. PostgreSQL's
 * planner would rather walk every lease against the few nodes; a LATERAL
 * subquery it may not flatten (OFFSET 0) keeps the nodes outside. */
#define DB_LAPSED_LITE                                                                 \
    "(SELECT game FROM leases WHERE node IN (SELECT node FROM nodes WHERE node <> ?1 " \
    "AND expires < " DB_NOW_MS_LITE "))"
#define DB_LAPSED_PG                                                                        \
    "(SELECT l.game FROM nodes n CROSS JOIN LATERAL (SELECT game FROM leases WHERE node = " \
    "n.node OFFSET 0) l WHERE n.node <> ?1 AND n.expires < " DB_NOW_MS_PG ")"
/* The change feed of other nodes' games (db_peer.c): a change number below
 * PostgreSQL's snapshot xmin is one no running transaction may still add.
 * The game's id comes last too: a tombstone's game row may be gone. */
#define DB_XMIN_PG "pg_snapshot_xmin(pg_current_snapshot())::text::bigint"
#define DB_PEER_ALL(now)                                                                \
    DB_GAME_LIST                                                                        \
    ", l.node, l.chg, l.game, l.away FROM games g JOIN users u ON u.id = g.user JOIN "  \
    "leases l ON l.game = g.id JOIN nodes n ON n.node = l.node WHERE l.node <> ?1 AND " \
    "g.state = 'live' AND n.expires >= " now " ORDER BY g.id LIMIT ?2"
#define DB_PEER_CHANGED(upto)                                                                  \
    DB_GAME_LIST                                                                               \
    ", x.node, x.chg, x.game, x.away FROM (SELECT game, node, chg, away FROM leases WHERE "    \
    "chg >= ?1" upto " UNION ALL SELECT game, '', chg, 0 FROM lease_gone WHERE chg >= ?1" upto \
    ") x LEFT JOIN games g ON g.id = x.game LEFT JOIN users u ON u.id = g.user "               \
    "ORDER BY x.chg"
/* A node's heartbeat fresh or not, when it last said what its games show
 * and how long ago, and that (the text) only when it said it since ?2;
 * no row for a lapsed node holding no lease. */
#define DB_PEER_NODE(now)                                                                      \
    "SELECT CASE WHEN expires >= " now " THEN 1 ELSE 0 END, games_at, " now " - games_at, "    \
    "CASE WHEN games_at <> ?2 THEN 1 ELSE 0 END, CASE WHEN games_at <> ?2 THEN games ELSE '' " \
    "END FROM nodes WHERE node = ?1 AND (expires >= " now " OR EXISTS (SELECT 1 FROM leases "  \
    "WHERE node = ?1))"
/* An event between nodes (db_listen.c): its row in node_events, numbered
 * by the writing transaction's id as migration 13's lease feed, and its
 * NOTIFY "ID XID KEY PAYLOAD", both in the writer's transaction; neither
 * when a row has its key ?4 already (a write tried again whose first
 * commit went unanswered). */
#define DB_EVENT_LOGGED                                                                     \
    "WITH e AS (INSERT INTO node_events(xid, origin, at, payload, event_key) VALUES "       \
    "(pg_current_xact_id()::text::bigint, ?3, " DB_NOW_MS_PG ", ?2, ?4) ON CONFLICT "       \
    "(event_key) DO NOTHING RETURNING id, xid), n AS (SELECT pg_notify(?1, e.id || ' ' || " \
    "e.xid || ' ' || ?4 || ' ' || ?2) FROM e) SELECT FROM n"
/* Other nodes' events numbered ?1 or more, by id, each row with m, the
 * number the next read starts from (PostgreSQL: the snapshot's xmin, so
 * a transaction still running never falls below it), and its age in ms
 * on the database's clock; one row of m and NULLs when there are none.
 * Only the newest ?3 ids (DB_EVENTS_KEEP_ROWS), however many the log
 * keeps, so a reader remembers that many (notify.h's notify_once_t). */
#define DB_EVENTS_SINCE(m, now)                                                           \
    "SELECT x.m, e.id, e.xid, e.payload, coalesce(e.event_key, ''), " now " - e.at FROM " \
    "(SELECT " m ") x LEFT JOIN node_events "                                             \
    "e ON e.xid >= ?1 AND e.origin <> ?2 AND e.id > (SELECT coalesce(max(id), 0) - ?3 "   \
    "FROM node_events) ORDER BY e.id"
/* Rows older than ?1 ms (db_listen.h: never by their count) */
#define DB_EVENTS_PRUNE(now) "DELETE FROM node_events WHERE at < " now " - ?1"
#define DB_STMT_LIST(X)                                                                            \
    X(BEGIN, "", RUN, none, DB_BOTH("BEGIN IMMEDIATE", "BEGIN"))                                   \
    X(BEGIN_READ, "", RUN, none,                                                                   \
      DB_BOTH("BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"))                        \
    X(COMMIT, "", RUN, none, "COMMIT")                                                             \
    X(ROLLBACK, "", RUN, none, "ROLLBACK")                                                         \
    X(SAVEPOINT, "", RUN, none, "SAVEPOINT op")                                                    \
    X(ROLLBACK_TO, "", RUN, none, "ROLLBACK TO op")                                                \
    X(RELEASE, "", RUN, none, "RELEASE op")                                                        \
    X(USER_INSERT, "ttti", ROWID, none,                                                            \
      DB_BOTH("INSERT INTO users(name, name_key, pwhash, created) VALUES (?1, ?2, ?3, ?4)",        \
              "INSERT INTO users(name, name_key, pwhash, created) VALUES (?1, ?2, ?3, ?4) "        \
              "RETURNING id"))                                                                     \
    X(USER_SET_PW, "it", CHANGE, none, "UPDATE users SET pwhash = ?2 WHERE id = ?1")               \
    X(USER_SET_OPTIONS, "it", CHANGE, none, "UPDATE users SET options = ?2 WHERE id = ?1")         \
    X(USER_SET_LOCKED, "ii", CHANGE, none, "UPDATE users SET locked = ?2 WHERE id = ?1")           \
    X(USER_BY_KEY, "t", ROW, user, DB_USER_COLS " WHERE name_key = ?1")                            \
    X(USER_BY_ID, "i", ROW, user, DB_USER_COLS " WHERE id = ?1")                                   \
    X(USER_BY_SESSION, "ti", ROW, user,                                                            \
      "SELECT u.id, u.name, u.name_key, u.pwhash, u.created, u.locked, u.options, "                \
      "coalesce((SELECT g.name FROM game_names g WHERE g.user = u.id), '') "                       \
      "FROM sessions s JOIN users u ON u.id = s.user WHERE s.token_hash = ?1 AND s.expires > ?2")  \
    X(GAME_INSERT, "iiittti", RUN, none,                                                           \
      "INSERT INTO games(id, user, seed, content_version, race, class, start_time) "               \
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")                                                       \
    X(GAME_PROGRESS, "iiiiitt", CHANGE, none,                                                      \
      "UPDATE games SET turns = ?2, depth = ?3, max_depth = ?4, xl = ?5, "                         \
      "race = coalesce(nullif(?6, ''), race), class = coalesce(nullif(?7, ''), class) "            \
      "WHERE id = ?1 AND state = 'live'")                                                          \
    X(GAME_FINISH, "iiiiiiitttt", CHANGE, none,                                                    \
      "UPDATE games SET end_time = ?2, turns = ?3, depth = ?4, max_depth = ?5, xl = ?6, "          \
      "score = ?7, cause = ?8, end_kind = ?9, race = coalesce(nullif(?10, ''), race), "            \
      "class = coalesce(nullif(?11, ''), class), state = 'finished' "                              \
      "WHERE id = ?1 AND state = 'live'")                                                          \
    X(GAME_BROKEN, "it", CHANGE, none,                                                             \
      "UPDATE games SET state = 'broken', broken_reason = ?2 WHERE id = ?1 AND state = 'live'")    \
    X(GAME_BROKEN_TOLD, "i", CHANGE, none,                                                         \
      "UPDATE games SET broken_told = 1 WHERE id = ?1 AND state = 'broken'")                       \
    X(GAME_VERIFIED, "ii", CHANGE, none, "UPDATE games SET verified = ?2 WHERE id = ?1")           \
    X(HOSTED_SCORE_INSERT, "ittttttitiiiii", ROWID, none,                                          \
      DB_BOTH("INSERT OR IGNORE INTO hosted_scores (" DB_HOSTED_SCORE_INS ")",                     \
              "INSERT INTO hosted_scores (" DB_HOSTED_SCORE_INS ") ON CONFLICT DO NOTHING "        \
              "RETURNING id"))                                                                     \
    X(MILESTONES_CLEAR, "i", RUN, none, "DELETE FROM milestones WHERE game = ?1")                  \
    X(MILESTONE_INSERT, "iiitt", RUN, none,                                                        \
      "INSERT INTO milestones(game, turn, depth, kind, text) VALUES (?1, ?2, ?3, ?4, ?5)")         \
    X(DUMP_PUT, "it", RUN, none,                                                                   \
      DB_BOTH("INSERT OR REPLACE INTO dumps(game, text) VALUES (?1, ?2)",                          \
              "INSERT INTO dumps(game, text) VALUES (?1, ?2) "                                     \
              "ON CONFLICT (game) DO UPDATE SET text = excluded.text"))                            \
    X(SNAPSHOTS_DELETE, "i", RUN, none, "DELETE FROM snapshots WHERE game = ?1")                   \
    X(SNAPSHOTS_DELETE_OLDER, "ii", RUN, none,                                                     \
      "DELETE FROM snapshots WHERE game = ?1 AND seq < ?2")                                        \
    /* only over a stored journal row: a snapshot never gets ahead of the journal */               \
    X(SNAPSHOT_PUT, "iiib", CHANGE, none,                                                          \
      DB_BOTH("INSERT OR REPLACE INTO snapshots(game, turn, seq, blob) " DB_SNAPSHOT_SEL,          \
              "INSERT INTO snapshots(game, turn, seq, blob) " DB_SNAPSHOT_SEL                      \
              " ON CONFLICT (game, seq) DO UPDATE SET turn = excluded.turn, "                      \
              "blob = excluded.blob"))                                                             \
    X(SNAPSHOT_PUT_LEASED, "iiibt", CHANGE, none,                                                  \
      DB_BOTH("INSERT OR REPLACE INTO snapshots(game, turn, seq, blob) " DB_SNAPSHOT_SEL_LEASED,   \
              "INSERT INTO snapshots(game, turn, seq, blob) " DB_SNAPSHOT_SEL_LEASED               \
                  DB_SNAPSHOT_UPSERT))                                                             \
    X(SNAPSHOTS_DELETE_AFTER, "ii", RUN, none,                                                     \
      "DELETE FROM snapshots WHERE game = ?1 AND seq > ?2")                                        \
    X(SNAPSHOT_NEWEST, "i", ROWS, snapshot,                                                        \
      "SELECT turn, seq, blob FROM snapshots WHERE game = ?1 ORDER BY seq DESC LIMIT 1")           \
    /* only after the row before it: a journal never has a gap. On PostgreSQL the same row      \
     * again is stored already: a commit whose answer was lost with its server (a failover),     \
     * retried; another row in its place changes nothing (DB_ENOTFOUND). On SQLite the row      \
     * before is looked up first (JOURNAL_PREV, db_sqlite.c): an INSERT whose SELECT reads      \
     * journal would copy its row through a temporary table, a third of an append's work. Still  \
     * an INSERT ... SELECT, not VALUES: that keeps a statement journal, so a full disk undoes   \
     * this row only and not the batch's other games' rows (db_store's full-disk test). */  \
    X(JOURNAL_PREV, "ii", ROW, int, "SELECT 1 FROM journal WHERE game = ?1 AND seq = ?2 - 1")      \
    X(JOURNAL_INSERT, "iibi", CHANGE, none,                                                        \
      DB_BOTH("INSERT INTO journal(game, seq, keys, ms) SELECT ?1, ?2, ?3, ?4",                    \
              "INSERT INTO journal(game, seq, keys, ms) SELECT ?1, ?2, ?3, ?4 WHERE ?2 = 1 OR "    \
              "EXISTS (SELECT 1 FROM journal WHERE game = ?1 AND seq = ?2 - 1) "                   \
              "ON CONFLICT (game, seq) DO UPDATE SET ms = journal.ms "                             \
              "WHERE journal.keys = excluded.keys"))                                               \
    /* ... fenced (db_lease_fence): only while node ?5 holds the game's lease, its row locked    \
     * as LEASE_HOLD does, in the same statement (one round trip); none: see db_op_run */ \
    X(JOURNAL_INSERT_LEASED, "iibit", CHANGE, none,                                                \
      DB_BOTH(                                                                                     \
          "INSERT INTO journal(game, seq, keys, ms) SELECT ?1, ?2, ?3, ?4 WHERE "                  \
          "EXISTS (SELECT 1 FROM leases WHERE game = ?1 AND node = ?5 AND away = 0)",              \
          "INSERT INTO journal(game, seq, keys, ms) SELECT ?1, ?2, ?3, ?4 WHERE (?2 = 1 OR "       \
          "EXISTS (SELECT 1 FROM journal WHERE game = ?1 AND seq = ?2 - 1)) AND "                  \
          "EXISTS (SELECT 1 FROM leases WHERE game = ?1 AND node = ?5 AND away = 0 FOR SHARE) "    \
          "ON CONFLICT (game, seq) DO UPDATE SET ms = journal.ms "                                 \
          "WHERE journal.keys = excluded.keys"))                                                   \
    X(JOURNAL_SET_ASIDE, "ii", COUNT, none,                                                        \
      DB_BOTH("INSERT OR IGNORE INTO journal_aside(game, after_seq, seq, keys, ms) " DB_ASIDE_SEL, \
              "INSERT INTO journal_aside(game, after_seq, seq, keys, ms) " DB_ASIDE_SEL            \
              " ON CONFLICT DO NOTHING"))                                                          \
    X(JOURNAL_DELETE_AFTER, "ii", RUN, none, "DELETE FROM journal WHERE game = ?1 AND seq > ?2")   \
    X(JOURNAL_AFTER, "ii", ROWS, journal,                                                          \
      "SELECT seq, keys, ms FROM journal WHERE game = ?1 AND seq > ?2 ORDER BY seq")               \
    X(JOURNAL_AFTER_SNAPSHOT, "i", ROWS, journal,                                                  \
      "SELECT seq, keys, ms FROM journal WHERE game = ?1 AND seq > "                               \
      "coalesce((SELECT max(seq) FROM snapshots WHERE game = ?1), 0) ORDER BY seq")                \
    X(SESSION_INSERT, "tii", RUN, none,                                                            \
      "INSERT INTO sessions(token_hash, user, expires) VALUES (?1, ?2, ?3)")                       \
    X(SESSIONS_TRIM, "iti", COUNT, none,                                                           \
      "DELETE FROM sessions WHERE user = ?1 AND token_hash <> ?2 AND token_hash NOT IN "           \
      "(SELECT token_hash FROM sessions WHERE user = ?1 AND token_hash <> ?2 "                     \
      "ORDER BY expires DESC, token_hash LIMIT ?3)")                                               \
    X(SESSION_DELETE, "t", RUN, none, "DELETE FROM sessions WHERE token_hash = ?1")                \
    X(SESSIONS_DELETE_USER, "it", RUN, none,                                                       \
      "DELETE FROM sessions WHERE user = ?1 AND token_hash <> ?2")                                 \
    X(SESSION_PURGE, "i", COUNT, none, "DELETE FROM sessions WHERE expires <= ?1")                 \
    X(GAME_BY_ID, "i", ROW, game, DB_GAME_COLS " WHERE g.id = ?1")                                 \
    X(GAME_LIVE_OF_USER, "i", ROW, game, DB_GAME_COLS " WHERE g.user = ?1 AND g.state = 'live'")   \
    X(GAMES_TOP, "ii", ROWS, game,                                                                 \
      DB_GAME_COLS                                                                                 \
      " WHERE g.state = 'finished' ORDER BY g.score DESC, g.end_time, g.id LIMIT ?1 OFFSET ?2")    \
    X(GAMES_OF_USER, "iii", ROWS, game,                                                            \
      DB_GAME_COLS " WHERE g.user = ?1 ORDER BY g.id DESC LIMIT ?2 OFFSET ?3")                     \
    X(GAMES_LIVE, "", ROWS, game, DB_GAME_COLS " WHERE g.state = 'live' ORDER BY g.id")            \
    /* peer.c: other nodes' games for the lists, as a change feed (db_peer.c) */                   \
    X(PEER_CURSOR, "", ROW, int, DB_BOTH("SELECT n + 1 FROM lease_chg", "SELECT " DB_XMIN_PG))     \
    X(PEER_GAMES_ALL, "ti", ROWS, peer_game,                                                       \
      DB_BOTH(DB_PEER_ALL(DB_NOW_MS_LITE), DB_PEER_ALL(DB_NOW_MS_PG)))                             \
    X(PEER_GAMES_CHANGED, "i", ROWS, peer_game,                                                    \
      DB_BOTH(DB_PEER_CHANGED(""), DB_PEER_CHANGED(" AND chg < " DB_XMIN_PG)))                     \
    X(PEER_NODE, "ti", ROW, peer_node,                                                             \
      DB_BOTH(DB_PEER_NODE(DB_NOW_MS_LITE), DB_PEER_NODE(DB_NOW_MS_PG)))                           \
    X(PEER_NODES, "t", ROW, text,                                                                  \
      DB_BOTH("SELECT COALESCE(group_concat(node, ','), '') FROM nodes WHERE node <> ?1 AND "      \
              "expires >= " DB_NOW_MS_LITE,                                                        \
              "SELECT COALESCE(string_agg(node, ','), '') FROM nodes WHERE node <> ?1 AND "        \
              "expires >= " DB_NOW_MS_PG))                                                         \
    X(PEER_PRUNE, "i", RUN, none,                                                                  \
      DB_BOTH("DELETE FROM lease_gone WHERE at < " DB_NOW_MS_LITE " - ?1",                         \
              "DELETE FROM lease_gone WHERE at < " DB_NOW_MS_PG " - ?1"))                          \
    X(GAMES_BROKEN, "i", ROWS, game,                                                               \
      DB_GAME_COLS " WHERE g.state = 'broken' ORDER BY g.id DESC LIMIT ?1")                        \
    X(MILESTONES_OF, "i", ROWS, milestone,                                                         \
      DB_BOTH("SELECT turn, depth, kind, text FROM milestones WHERE game = ?1 ORDER BY rowid",     \
              "SELECT turn, depth, kind, text FROM milestones WHERE game = ?1 ORDER BY id"))       \
    X(DUMP_OF, "i", ROW, text, "SELECT text FROM dumps WHERE game = ?1")                           \
    X(GAME_RANK, "i", ROW, int,                                                                    \
      "SELECT 1 + (SELECT count(*) FROM games g WHERE g.state = 'finished' "                       \
      "AND (-g.score, g.end_time, g.id) < (-me.score, me.end_time, me.id)) "                       \
      "FROM games me WHERE me.id = ?1 AND me.state = 'finished'")                                  \
    DB_RECORDS_STMTS(X)                                                                            \
    DB_ADMIN_STMTS(X)                                                                              \
    DB_SOCIAL_STMTS(X)                                                                             \
    DB_HOSTED_STMTS(X)                                                                             \
    DB_DAILY_STMTS(X)

/* The daily game (db_daily.c): an account's state for a day
 * (db_daily_state_t), its attempt's row, a day's board. */
#define DB_DAILY_STMTS(X)                                                                       \
    X(DAILY_STATE, "ti", ROW, int,                                                              \
      "SELECT CASE WHEN EXISTS (SELECT 1 FROM daily d JOIN games g ON g.id = d.game "           \
      "WHERE d.day = ?1 AND d.user = ?2 AND g.state = 'live') THEN 1 "                          \
      "WHEN EXISTS (SELECT 1 FROM games WHERE user = ?2 AND state = 'live') THEN 2 "            \
      "WHEN EXISTS (SELECT 1 FROM daily WHERE day = ?1 AND user = ?2) THEN 3 ELSE 0 END")       \
    X(DAILY_INSERT, "tii", RUN, none, "INSERT INTO daily(day, user, game) VALUES (?1, ?2, ?3)") \
    X(DAILY_BOARD, "ti", ROWS, game,                                                            \
      DB_GAME_COLS " JOIN daily d ON d.game = g.id WHERE d.day = ?1 ORDER BY CASE WHEN "        \
                   "g.state = 'finished' AND g.verified = 1 THEN 0 ELSE 1 END, g.score DESC, "  \
                   "g.end_time, g.id LIMIT ?2")

/* Hosted games' recordings (db_hosted.c). */
/* day: what the user's other recordings begun since ?3 hold (db_hosted_game_t) */
#define DB_HOSTED_GAME_COLS_DAY(day)                                                     \
    "SELECT h.id, h.user, u.name, h.game, h.start_time, h.end_time, h.width, h.height, " \
    "h.bytes, h.truncated, coalesce(h.score, 0), "                                       \
    "coalesce((SELECT max(c.seq) FROM hosted_chunks c WHERE c.game = h.id), 0), "        \
    "coalesce((SELECT max(c.ms) FROM hosted_chunks c WHERE c.game = h.id), 0), " day     \
    " FROM hosted_games h JOIN users u ON u.id = h.user"
#define DB_HOSTED_GAME_COLS DB_HOSTED_GAME_COLS_DAY("0")
#define DB_HOSTED_DAY_BYTES                                                                \
    "coalesce((SELECT sum(o.bytes) FROM hosted_games o WHERE o.user = h.user AND o.id <> " \
    "h.id AND o.start_time > ?3), 0)"
#define DB_HOSTED_STMTS(X)                                                                        \
    X(HOSTED_GAME_INSERT, "itiiiii", RUN, none,                                                   \
      "INSERT INTO hosted_games(user, game, start_time, width, height) "                          \
      "SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS (SELECT 1 FROM hosted_games "                   \
      "WHERE user = ?1 AND game = ?2 AND end_time = 0) AND (?7 <= 0 OR coalesce((SELECT "         \
      "sum(bytes) FROM hosted_games WHERE user = ?1 AND start_time > ?6), 0) < ?7)")              \
    X(HOSTED_GAME_OPEN, "iti", ROW, hosted_game,                                                  \
      DB_HOSTED_GAME_COLS_DAY(DB_HOSTED_DAY_BYTES) " WHERE h.user = ?1 AND h.game = ?2 AND "      \
                                                   "h.end_time = 0 "                              \
                                                   "ORDER BY h.id DESC LIMIT 1")                  \
    X(HOSTED_GAME_BY_ID, "i", ROW, hosted_game, DB_HOSTED_GAME_COLS " WHERE h.id = ?1")           \
    X(HOSTED_GAME_SCORE, "i", ROWS, hosted,                                                       \
      DB_HOSTED_COLS " WHERE id = (SELECT score FROM hosted_games WHERE id = ?1)")                \
    X(HOSTED_CHUNKS, "iiii", ROWS, hosted_chunk,                                                  \
      "SELECT seq, ms, data FROM hosted_chunks WHERE game = ?1 AND seq > ?2 AND seq <= ?3 "       \
      "ORDER BY seq LIMIT ?4")                                                                    \
    /* seq in commit order: two runs of one game (one still saving) never collide */              \
    X(HOSTED_CHUNK_INSERT, "iib", RUN, none,                                                      \
      "INSERT INTO hosted_chunks(game, seq, ms, data) SELECT ?1, coalesce(max(seq), 0) + 1, "     \
      "?2, ?3 FROM hosted_chunks WHERE game = ?1")                                                \
    X(HOSTED_GAME_BYTES, "iii", CHANGE, none,                                                     \
      DB_BOTH("UPDATE hosted_games SET bytes = bytes + ?2, truncated = max(truncated, ?3) "       \
              "WHERE id = ?1",                                                                    \
              "UPDATE hosted_games SET bytes = bytes + ?2, truncated = greatest(truncated, ?3) "  \
              "WHERE id = ?1"))                                                                   \
    X(HOSTED_GAME_END, "ii", CHANGE, none, "UPDATE hosted_games SET end_time = ?2 WHERE id = ?1") \
    X(HOSTED_ENDS_SINCE, "iii", ROWS, int, DB_HOSTED_ENDS_SQL)                                    \
    X(HOSTED_GAME_LINK, "ittii", RUN, none,                                                       \
      "UPDATE hosted_games SET score = (SELECT id FROM hosted_scores WHERE game = ?2 AND "        \
      "name = ?3 AND start_time = ?4 AND end_time = ?5) WHERE id = ?1")                           \
    X(USER_HOSTED_CHUNKS_DELETE, "i", RUN, none,                                                  \
      "DELETE FROM hosted_chunks WHERE game IN (SELECT id FROM hosted_games WHERE user = ?1)")    \
    X(USER_HOSTED_GAMES_DELETE, "i", RUN, none, "DELETE FROM hosted_games WHERE user = ?1")       \
    X(USER_HOSTED_SCORES_DELETE, "i", RUN, none, "DELETE FROM hosted_scores WHERE user = ?1")     \
    X(USER_HOSTED_FILES_DELETE, "i", RUN, none, "DELETE FROM hosted_files WHERE user = ?1")       \
    X(USER_HOSTED_FILE_SETS_DELETE, "i", RUN, none,                                               \
      "DELETE FROM hosted_file_sets WHERE user = ?1")                                             \
    /* the node that starts a player's game holds their set from now on */                        \
    X(HOSTED_FILES_CLAIM, "itti", RUN, none,                                                      \
      "INSERT INTO hosted_file_sets(user, game, gen, node, bytes, at) VALUES (?1, ?2, 0, ?3, 0, " \
      "?4) ON CONFLICT (user, game) DO UPDATE SET node = excluded.node")                          \
    /* a copy by a node that no longer holds the set changes nothing */                           \
    X(HOSTED_FILES_GEN, "itiitii", CHANGE, none,                                                  \
      "UPDATE hosted_file_sets SET gen = gen + 1, bytes = ?3, at = ?4, uid = ?6, gid = ?7 "       \
      "WHERE user = ?1 AND game = ?2 AND node = ?5")                                              \
    X(HOSTED_FILES_CLEAR, "it", RUN, none,                                                        \
      "DELETE FROM hosted_files WHERE user = ?1 AND game = ?2")                                   \
    X(HOSTED_FILE_INSERT, "ittb", RUN, none,                                                      \
      "INSERT INTO hosted_files(user, game, path, data) VALUES (?1, ?2, ?3, ?4)")                 \
    X(HOSTED_FILE_SET, "it", ROW, hosted_file_set,                                                \
      "SELECT gen, node, bytes, uid, gid FROM hosted_file_sets WHERE user = ?1 AND game = ?2")    \
    X(HOSTED_FILES, "it", ROWS, hosted_file,                                                      \
      "SELECT path, data FROM hosted_files WHERE user = ?1 AND game = ?2 ORDER BY path")

/* Reads for score pages and verification (db_records.c). */
#define DB_RECORDS_STMTS(X)                                                                    \
    /* one row per filter: each read from its index (migration 23) */                          \
    X(SCORES_TOP, "ttiii", ROWS, game, DB_SCORES_SQL("", DB_SCORES_ORDER))                     \
    X(SCORES_SINCE, "ttiii", ROWS, game, DB_SCORES_SINCE_SQL)                                  \
    X(SCORES_RACE, "ttiii", ROWS, game,                                                        \
      DB_BOTH(DB_SCORES_SQL(DB_SCORES_RACE_LITE, DB_SCORES_ORDER),                             \
              DB_SCORES_SQL(DB_SCORES_RACE_PG, DB_SCORES_ORDER)))                              \
    X(SCORES_CLASS, "ttiii", ROWS, game,                                                       \
      DB_BOTH(DB_SCORES_SQL(DB_SCORES_CLASS_LITE, DB_SCORES_ORDER),                            \
              DB_SCORES_SQL(DB_SCORES_CLASS_PG, DB_SCORES_ORDER)))                             \
    X(SCORES_RACE_CLASS, "ttiii", ROWS, game,                                                  \
      DB_BOTH(DB_SCORES_SQL(DB_SCORES_RACE_LITE DB_SCORES_CLASS_LITE, DB_SCORES_ORDER),        \
              DB_SCORES_SQL(DB_SCORES_RACE_PG DB_SCORES_CLASS_PG, DB_SCORES_ORDER)))           \
    X(PLAYER_TOTALS, "i", ROW, totals,                                                         \
      "SELECT count(*), " DB_TOTALS_COUNTS                                                     \
      "coalesce(sum(CASE WHEN state IN ('finished', 'live') THEN turns END), 0), "             \
      "coalesce(max(max_depth), 0), coalesce(min(start_time), 0), coalesce(max(end_time), 0) " \
      "FROM games WHERE user = ?1")                                                            \
    X(PLAYER_BEST, "i", ROWS, best,                                                            \
      "SELECT id, score FROM games WHERE user = ?1 AND state = 'finished' "                    \
      "ORDER BY score DESC, end_time, id LIMIT 1")                                             \
    X(HOSTED_SCORES_TOP, "tii", ROWS, hosted,                                                  \
      DB_HOSTED_COLS " WHERE game = ?1 ORDER BY points DESC, end_time, id LIMIT ?2 OFFSET ?3") \
    X(HOSTED_SCORES_OF_USER, "ii", ROWS, hosted,                                               \
      DB_HOSTED_COLS " WHERE user = ?1 ORDER BY id DESC LIMIT ?2")                             \
    X(FEED_RECENT, "i", ROWS, feed, DB_FEED_SQL)                                               \
    X(GAMES_UNVERIFIED, "ii", ROWS, game,                                                      \
      DB_GAME_COLS " WHERE g.state = 'finished' AND g.verified = 0 AND g.id > ?1 "             \
                   "ORDER BY g.id LIMIT ?2")

/* The lobby's feed (db_feed.c): the newest ends of Warren's games with
 * their milestones, and hosted games' xlogfile rows, newest first. */
#define DB_FEED_ENDS                                                              \
    "SELECT * FROM (SELECT g.end_time AS t, u.name AS player, 'warren' AS game, " \
    "g.end_kind AS kind, g.cause AS text, g.id AS link, g.score AS score, "       \
    "g.max_depth AS depth, 0 AS ord FROM games g JOIN users u ON u.id = g.user "  \
    "WHERE g.state = 'finished' ORDER BY g.end_time DESC LIMIT ?1) e"
#define DB_FEED_MILESTONES                                                                \
    "SELECT g.end_time, u.name, 'warren', 'milestone', m.text, g.id, m.turn, m.depth, 1 " \
    "FROM milestones m JOIN games g ON g.id = m.game JOIN users u ON u.id = g.user "      \
    "WHERE m.kind <> 'start' AND g.id IN (SELECT id FROM games WHERE state = 'finished' " \
    "ORDER BY end_time DESC LIMIT ?1)"
#define DB_FEED_HOSTED                                                                     \
    "SELECT * FROM (SELECT s.end_time, u.name, s.game, 'hosted', s.death, "                \
    "coalesce((SELECT max(r.id) FROM hosted_games r WHERE r.score = s.id), 0), s.points, " \
    "s.max_depth, 0 FROM hosted_scores s JOIN users u ON u.id = s.user "                   \
    "ORDER BY s.end_time DESC LIMIT ?1) h"
#define DB_FEED_SQL                                                              \
    "SELECT t, player, game, kind, text, link, score, depth FROM (" DB_FEED_ENDS \
    " UNION ALL " DB_FEED_MILESTONES " UNION ALL " DB_FEED_HOSTED                \
    ") f ORDER BY t DESC, link DESC, ord, score DESC LIMIT ?1"

/* Reads for the admin tools (db_admin.c). */
#define DB_ADMIN_STMTS(X)                                                                 \
    X(USERS_LIST, "", ROWS, user_info,                                                    \
      "SELECT u.id, u.name, u.created, u.locked, "                                        \
      "(SELECT count(*) FROM games g WHERE g.user = u.id), "                              \
      "coalesce((SELECT g.id FROM games g WHERE g.user = u.id AND g.state = 'live'), 0)," \
      "coalesce((SELECT n.name FROM game_names n WHERE n.user = u.id), '') "              \
      "FROM users u ORDER BY u.name_key")

/* Mail, bans, mutes, renames and deletions (db_social.c). */
#define DB_SOCIAL_STMTS(X)                                                                         \
    X(MAIL_INSERT, "iiiti", CHANGE, none,                                                          \
      "INSERT INTO mail(recipient, sender, sent, text) SELECT ?1, ?2, ?3, ?4 "                     \
      "WHERE (SELECT count(*) FROM mail WHERE sender = ?2 AND sent > ?3 - 3600) < ?5 "             \
      "AND (SELECT count(*) FROM mail WHERE recipient = ?1 AND seen = 0) < 20")                    \
    X(MAIL_UNSEEN, "i", ROWS, mail,                                                                \
      "SELECT m.id, u.name, m.sent, m.text FROM mail m JOIN users u ON u.id = m.sender "           \
      "WHERE m.recipient = ?1 AND m.seen = 0 ORDER BY m.id LIMIT 20")                              \
    X(MAIL_SEEN, "ii", RUN, none, "UPDATE mail SET seen = 1 WHERE recipient = ?1 AND id <= ?2")    \
    X(MAIL_PURGE, "i", COUNT, none, "DELETE FROM mail WHERE seen = 1 AND sent <= ?1")              \
    X(BAN_PUT, "tii", RUN, none,                                                                   \
      DB_BOTH("INSERT OR REPLACE INTO bans(net, until, created) VALUES (?1, ?2, ?3)",              \
              "INSERT INTO bans(net, until, created) VALUES (?1, ?2, ?3) ON CONFLICT (net) "       \
              "DO UPDATE SET until = excluded.until, created = excluded.created"))                 \
    X(BAN_DELETE, "t", CHANGE, none, "DELETE FROM bans WHERE net = ?1")                            \
    X(BANS_ALL, "", ROWS, sanction, "SELECT net, 0, until FROM bans ORDER BY net")                 \
    X(MUTE_PUT, "ii", RUN, none,                                                                   \
      DB_BOTH("INSERT OR REPLACE INTO mutes(user, until) VALUES (?1, ?2)",                         \
              "INSERT INTO mutes(user, until) VALUES (?1, ?2) "                                    \
              "ON CONFLICT (user) DO UPDATE SET until = excluded.until"))                          \
    X(MUTE_DELETE, "i", CHANGE, none, "DELETE FROM mutes WHERE user = ?1")                         \
    X(MUTES_ALL, "", ROWS, sanction,                                                               \
      "SELECT u.name, m.user, m.until FROM mutes m JOIN users u ON u.id = m.user")                 \
    X(USER_RENAME, "itt", CHANGE, none, "UPDATE users SET name = ?2, name_key = ?3 WHERE id = ?1") \
    /* an account's delete with nodes (db_user_delete): its games' leases                       \
     * and its games locked (a lease's take waits for the delete, then finds                    \
     * no game), then none may be held by another live node than ?2                             \
     * (USER_LEASES_FREE: DB_ELEASE when one is) */  \
    X(USER_GAMES_LOCK, "i", ROWS, int,                                                             \
      DB_BOTH("SELECT id FROM games WHERE user = ?1 ORDER BY id",                                  \
              "SELECT id FROM games WHERE user = ?1 ORDER BY id FOR UPDATE"))                      \
    X(USER_LEASES_LOCK, "i", ROWS, int,                                                            \
      DB_BOTH("SELECT game FROM leases WHERE game IN (SELECT id FROM games WHERE user = ?1) "      \
              "ORDER BY game",                                                                     \
              "SELECT game FROM leases WHERE game IN (SELECT id FROM games WHERE user = ?1) "      \
              "ORDER BY game FOR UPDATE"))                                                         \
    X(USER_LEASES_FREE, "it", ROW, int,                                                            \
      DB_BOTH(DB_USER_LEASES_FREE(DB_NOW_MS_LITE), DB_USER_LEASES_FREE(DB_NOW_MS_PG)))             \
    X(USER_GAMES_JOURNAL_DELETE, "i", RUN, none,                                                   \
      "DELETE FROM journal WHERE game IN (SELECT id FROM games WHERE user = ?1)")                  \
    X(USER_GAMES_ASIDE_DELETE, "i", RUN, none,                                                     \
      "DELETE FROM journal_aside WHERE game IN (SELECT id FROM games WHERE user = ?1)")            \
    X(USER_GAMES_SNAPSHOTS_DELETE, "i", RUN, none,                                                 \
      "DELETE FROM snapshots WHERE game IN (SELECT id FROM games WHERE user = ?1)")                \
    X(USER_GAMES_MILESTONES_DELETE, "i", RUN, none,                                                \
      "DELETE FROM milestones WHERE game IN (SELECT id FROM games WHERE user = ?1)")               \
    X(USER_GAMES_DUMPS_DELETE, "i", RUN, none,                                                     \
      "DELETE FROM dumps WHERE game IN (SELECT id FROM games WHERE user = ?1)")                    \
    X(USER_GAMES_DELETE, "i", RUN, none, "DELETE FROM games WHERE user = ?1")                      \
    X(USER_GAME_NAME_RETIRE, "i", RUN, none, "UPDATE game_names SET user = NULL WHERE user = ?1")  \
    X(USER_DELETE, "i", CHANGE, none, "DELETE FROM users WHERE id = ?1")                           \
    X(LEASE_NEW, "it", RUN, none,                                                                  \
      "INSERT INTO leases(game, node) VALUES (?1, ?2) ON CONFLICT (game) DO NOTHING")              \
    X(LEASE_LOCK, "i", ROWS, int,                                                                  \
      DB_BOTH("SELECT game FROM leases WHERE game = ?1",                                           \
              "SELECT game FROM leases WHERE game = ?1 FOR UPDATE"))                               \
    X(LEASE_MOVE, "it", RUN, none,                                                                 \
      DB_BOTH(DB_LEASE_MOVE(DB_NOW_MS_LITE), DB_LEASE_MOVE(DB_NOW_MS_PG)))                         \
    X(LEASE_OURS, "it", ROW, int, "SELECT 1 FROM leases WHERE game = ?1 AND node = ?2")            \
    /* the heartbeat: one row per node, whatever the number of its games */                        \
    X(NODE_BEAT, "ti", CHANGE, none,                                                               \
      DB_BOTH(DB_NODE_BEAT(DB_NOW_MS_LITE), DB_NODE_BEAT(DB_NOW_MS_PG)))                           \
    X(NODE_BEAT_GAMES, "tit", CHANGE, none,                                                        \
      DB_BOTH(DB_NODE_BEAT_GAMES(DB_NOW_MS_LITE), DB_NODE_BEAT_GAMES(DB_NOW_MS_PG)))               \
    X(NODE_LEASES, "t", ROW, int, "SELECT count(*) FROM leases WHERE node = ?1")                   \
    X(LEASE_RELEASE, "it", RUN, none, "DELETE FROM leases WHERE game = ?1 AND node = ?2")          \
    /* detached, kept here: any node may take it, every node lists it as away */                   \
    X(LEASE_LET_GO, "it", RUN, none, "UPDATE leases SET away = 1 WHERE game = ?1 AND node = ?2")   \
    /* a node's leases, locked in game order as every statement locking                       \
     * several lease or game rows does (two never wait on each other) */    \
    X(LEASE_RELEASE_NODE, "t", COUNT, none,                                                        \
      DB_BOTH("DELETE FROM leases WHERE node = ?1",                                                \
              "DELETE FROM leases WHERE game IN (SELECT game FROM leases WHERE node = ?1 "         \
              "ORDER BY game FOR UPDATE)"))                                                        \
    X(LEASES_OF_NODE, "t", ROWS, int, "SELECT game FROM leases WHERE node = ?1 ORDER BY game")     \
    /* heartbeat rows lapsed over ?1 ms ago whose node holds no lease (db_nodes_prune) */          \
    X(NODES_PRUNE, "i", COUNT, none,                                                               \
      DB_BOTH(DB_NODES_PRUNE(DB_NOW_MS_LITE), DB_NODES_PRUNE(DB_NOW_MS_PG)))                       \
    /* fencing: the lease row is node's, locked (shared, so a take waits                        \
     * for the batch, and for the next too when it locks first: until the                       \
     * game's appends pause; cheap again in the same transaction); none: DB_ELEASE.             \
     * Not node's heartbeat: a take moves the row, under this lock, so a row                    \
     * still node's is a game nobody took (a pause or a failover past the ttl) */  \
    X(LEASE_HOLD, "it", ROW, int,                                                                  \
      DB_BOTH("SELECT 1 FROM leases WHERE game = ?1 AND node = ?2 AND away = 0",                   \
              "SELECT 1 FROM leases WHERE game = ?1 AND node = ?2 AND away = 0 FOR SHARE"))        \
    X(LEASE_HOLDER, "i", ROW, text,                                                                \
      DB_BOTH("SELECT l.node FROM leases l JOIN nodes n ON n.node = l.node WHERE l.game = ?1 "     \
              "AND n.expires >= " DB_NOW_MS_LITE,                                                  \
              "SELECT l.node FROM leases l JOIN nodes n ON n.node = l.node WHERE l.game = ?1 "     \
              "AND n.expires >= " DB_NOW_MS_PG))                                                   \
    /* live games whose lease another node let lapse (stopped, cut off): up to ?2 */               \
    X(GAMES_LEASE_LAPSED, "ti", ROWS, game,                                                        \
      DB_BOTH(DB_GAME_COLS " WHERE g.state = 'live' AND g.id IN " DB_LAPSED_LITE                   \
                           " ORDER BY g.id LIMIT ?2",                                              \
              DB_GAME_COLS " WHERE g.state = 'live' AND g.id IN " DB_LAPSED_PG                     \
                           " ORDER BY g.id LIMIT ?2"))                                             \
    /* PostgreSQL's only (db_listen.c); SQLite's text just keeps the row valid */                  \
    X(NOTIFY, "tttt", RUN, none,                                                                   \
      DB_BOTH("UPDATE meta SET value = value WHERE ?1 IS NULL AND ?2 IS NULL AND ?3 IS NULL AND "  \
              "?4 IS NULL",                                                                        \
              DB_EVENT_LOGGED))                                                                    \
    X(EVENTS_SINCE, "iti", ROWS, node_event,                                                       \
      DB_BOTH(DB_EVENTS_SINCE("coalesce(max(xid), 0) + 1 AS m FROM node_events", DB_NOW_MS_LITE),  \
              DB_EVENTS_SINCE(DB_XMIN_PG " AS m", DB_NOW_MS_PG)))                                  \
    X(EVENTS_PRUNE, "i", RUN, none,                                                                \
      DB_BOTH(DB_EVENTS_PRUNE(DB_NOW_MS_LITE), DB_EVENTS_PRUNE(DB_NOW_MS_PG)))                     \
    /* of the account ids ?1 (a JSON array), those deleted (id, 0) or locked (id, 1) */            \
    X(USERS_GONE, "t", ROWS, pair,                                                                 \
      DB_BOTH("SELECT j.value, u.id IS NOT NULL FROM json_each(?1) j LEFT JOIN users u "           \
              "ON u.id = j.value WHERE u.id IS NULL OR u.locked <> 0",                             \
              "SELECT j.v, (u.id IS NOT NULL)::int FROM (SELECT value::bigint AS v FROM "          \
              "json_array_elements_text(?1::json)) j LEFT JOIN users u ON u.id = j.v "             \
              "WHERE u.id IS NULL OR u.locked <> 0"))                                              \
    /* of the logins ?1 (a JSON array of [token_hash, account id]), by their place in it      \
     * from 0, those whose session is no longer the account's by ?2 (place, 1), whose             \
     * account is locked (place, 2) or deleted (place, 3) */    \
    X(LOGINS_GONE, "ti", ROWS, pair,                                                               \
      DB_BOTH("SELECT j.key, CASE WHEN u.id IS NULL THEN 3 WHEN u.locked <> 0 THEN 2 ELSE 1 END "  \
              "FROM json_each(?1) j LEFT JOIN users u ON u.id = json_extract(j.value, '$[1]') "    \
              "WHERE u.id IS NULL OR u.locked <> 0 OR NOT EXISTS (SELECT 1 FROM sessions s "       \
              "WHERE s.token_hash = json_extract(j.value, '$[0]') AND s.user = u.id AND "          \
              "s.expires > ?2) ORDER BY j.key",                                                    \
              "SELECT j.i - 1, CASE WHEN u.id IS NULL THEN 3 WHEN u.locked <> 0 THEN 2 ELSE 1 "    \
              "END FROM json_array_elements(?1::json) WITH ORDINALITY AS j(v, i) LEFT JOIN "       \
              "users u ON u.id = (j.v->>1)::bigint WHERE u.id IS NULL OR u.locked <> 0 OR NOT "    \
              "EXISTS (SELECT 1 FROM sessions s WHERE s.token_hash = j.v->>0 AND "                 \
              "s.user = u.id AND s.expires > ?2) ORDER BY j.i"))

/* An account and its game name ("" if it has none). */
#define DB_USER_COLS                                                \
    "SELECT id, name, name_key, pwhash, created, locked, options, " \
    "coalesce((SELECT g.name FROM game_names g WHERE g.user = users.id), '') FROM users"
#define DB_GAME_LIST                                                                           \
    "SELECT g.id, g.user, u.name, g.seed, g.content_version, g.race, g.class, g.start_time, "  \
    "g.end_time, "                                                                             \
    "g.turns, g.depth, g.max_depth, g.xl, g.score, g.cause, g.end_kind, g.verified, g.state, " \
    "g.broken_reason, g.broken_told "
#define DB_GAME_COLS DB_GAME_LIST "FROM games g JOIN users u ON u.id = g.user"

enum {
#define DB_STMT_ENUM_(n, sig, out, row, sql) DB_STMT_##n,
    DB_STMT_LIST(DB_STMT_ENUM_)
#undef DB_STMT_ENUM_
        DB_STMT_COUNT
};

typedef enum {
    DB_OUT_RUN,
    DB_OUT_CHANGE,
    DB_OUT_ROWID,
    DB_OUT_COUNT,
    DB_OUT_ROW,
    DB_OUT_ROWS
} db_outcome_t;

/* How one result row is read: size bytes, filled from ncols columns by
 * read (DB_OK or DB_ENOMEM); free releases what read allocated inside a
 * row (NULL when nothing). */
typedef struct db_cur db_cur_t;
typedef struct {
    size_t size;
    int ncols;
    int (*read)(const db_cur_t *st, void *row);
    void (*free)(void *row);
} db_row_t;

#define DB_ROW_DECL_(n, sig, out, row, sql) extern const db_row_t db_row_##row;
DB_STMT_LIST(DB_ROW_DECL_)
#undef DB_ROW_DECL_

typedef struct {
    const char *name; /* "JOURNAL_INSERT", for messages */
    const char *sig;  /* see the top of this file */
    size_t nparams;   /* strlen(sig) */
    db_outcome_t outcome;
    const db_row_t *row; /* db_row_none unless ROW or ROWS */
    const char *sql;
    const char *pg_sql; /* PostgreSQL's where it differs, else NULL (sql translated) */
} db_stmt_def_t;

/* The SQL of a row whose dialects differ (see the top of this file). */
#define DB_BOTH(sqlite, pg) sqlite, pg

extern const db_stmt_def_t db_stmt_defs[DB_STMT_COUNT];

typedef struct db_backend db_backend_t;

/* One connection of a db thread, to either backend. */
typedef struct db_op db_op_t;
typedef struct {
    const db_backend_t *be;
    sqlite3 *h; /* SQLite */
    sqlite3_stmt *st[DB_STMT_COUNT];
    struct pg_conn *pg;                    /* PostgreSQL: libpq's PGconn */
    unsigned char prepared[DB_STMT_COUNT]; /* PostgreSQL: prepared on pg */
    bool held_sp, held_rel; /* PostgreSQL: SAVEPOINT, RELEASE not sent yet (db_pg.c) */
    bool pg_reader;         /* PostgreSQL: a reader's connection (read-only) */
    int lock_wait_ms;       /* PostgreSQL: a writer's lock_timeout (0: DB_LOCK_WAIT_MS) */
    bool lazy;     /* PostgreSQL: the batch under way is all db_op_t.lazy (db.c's write_batch) */
    bool retry;    /* a conflict ends the whole transaction, to be run again (db_retry.c) */
    int pg_first;  /* PostgreSQL: the URL's host that answered last (db_pg.c) */
    char err[200]; /* why the last statement failed */
    char state[6]; /* PostgreSQL: the SQLSTATE of the last conflict (DB_ECONFLICT) */
    const db_op_t *state_op; /* and the op that met it (NULL: not known) */
} db_conn_t;

/* ---- backends: what differs between SQLite and PostgreSQL ---- */

/* One result row as the backend holds it; row readers take its columns
 * through db_col_* whichever backend ran the query. */
typedef struct {
    int64_t (*col_int)(const db_cur_t *c, int col);      /* NULL reads 0 */
    const char *(*col_text)(const db_cur_t *c, int col); /* NULL reads "" */
    void *(*col_dup)(const db_cur_t *c, int col, size_t *len);
} db_cur_ops_t;
struct db_cur {
    const db_cur_ops_t *ops;
    void *res; /* sqlite3_stmt, or PGresult */
    int row;   /* PGresult: the row */
};

typedef struct db_op db_op_t;
typedef struct db_rec db_rec_t; /* one step of an op: a statement and its values */

/* A backend's table of operations on a connection. Opening it (and the
 * migrations, run by the writer's connection before anything else) is
 * db.c's, through db_sqlite_* and db_pg_* below. */
struct db_backend {
    const char *name;
    /* A failing statement undoes only itself (SQLite): an op of one
     * statement needs no savepoint of its own. PostgreSQL fails the whole
     * transaction instead, so each of its ops runs in a savepoint. */
    bool stmt_rollback;
    /* Binds step r's values, runs it, and for a reading statement adds
     * its rows to op's result k: DB_OK or DB_E* (the message in op). */
    int (*run_step)(db_conn_t *c, db_op_t *op, const db_rec_t *r, int k);
    /* A statement of the table without arguments or rows (BEGIN, COMMIT,
     * SAVEPOINT, ...): DB_OK, or DB_ERR with the message in c->err. */
    int (*exec)(db_conn_t *c, int stmt);
    /* Whether the connection is inside a transaction that can go on
     * (false once a failure has rolled it back or poisoned it). */
    bool (*in_tx)(const db_conn_t *c);
    const char *(*errmsg)(const db_conn_t *c); /* the last failure's message */
    void (*close)(db_conn_t *c);
    /* Takes up to n new game ids from the database's counter into ids,
     * outside any transaction (each take stored at once): how many, or -1
     * with the message in c->err. */
    int (*take_ids)(db_conn_t *c, int64_t *ids, int n);
    /* Gives back the unused ids [first, end) if nothing was taken after
     * them (NULL: the counter cannot go back, as a sequence's). */
    void (*give_ids)(db_conn_t *c, int64_t first, int64_t end);
    /* Writes and commits the whole batch ops (linked by next) at once,
     * in fewer round trips than op by op (NULL: none such). DB_OK when
     * committed, every op done; DB_ERR when the COMMIT failed (the
     * message in c->err); DB_RUN_EACH when nothing is stored and nothing
     * of the ops changed: the batch is to run op by op; DB_ECONFLICT (only
     * when c->retry) when nothing is stored as a statement met a conflict:
     * the batch is to run again whole. */
    int (*write_all)(db_conn_t *c, db_op_t *ops);
};
#define DB_RUN_EACH 1 /* write_all: run the batch op by op instead */

/* ---- db_retry.c: a transaction ended by a conflict, run again ---- */
#define DB_RETRY_TRIES    DB_CONFLICT_TRIES /* tries of a transaction, the first included */
#define DB_RETRY_PAUSE_MS 10 /* before the second try: 10-20 ms, the third 20-40 ms */

/* What a batch's ops were before its first try. */
typedef struct {
    int *status;
    int64_t *id;
    size_t n;
} db_retry_t;

/* Keeps ops' state (linked by next): false when the batch may not be run
 * again (an op of code of its own) or there is no memory to keep it. */
bool db_retry_keep(db_retry_t *k, const db_op_t *ops);
/* ops as kept: statuses, ids, no messages, no rows read. */
void db_retry_reset(const db_retry_t *k, db_op_t *ops);
void db_retry_free(db_retry_t *k);
/* The pause after try number tried (1, 2): randomized, doubling. The
 * writer thread sleeps it, never a loop. */
uint32_t db_retry_pause_ms(int tried);
void db_retry_pause(int tried);

extern const db_backend_t db_sqlite_backend; /* db_sqlite.c */
extern const db_backend_t db_pg_backend;     /* db_pg.c */

/* db_sqlite.c. The statement, reset; prepared and checked against its row
 * on first use. NULL on a failure, with the reason in c->err. */
sqlite3_stmt *db_stmt(db_conn_t *c, int id);
/* Prepares def's SQL on h and checks its signature, outcome and reader
 * against it: DB_OK, or DB_ERR with the mismatch in err. */
int db_stmt_verify(sqlite3 *h, const db_stmt_def_t *def, char *err, size_t errlen);

/* db_pg.c. Whether a database setting names PostgreSQL (postgresql:// or
 * postgres://, libpq's URIs). */
bool db_pg_is_url(const char *url);
/* Connects c to url (read_only: a reader's connection): DB_OK, or DB_ERR
 * with the message in err (the password never in it). */
int db_pg_connect(db_conn_t *c, const char *url, bool read_only, char *err, size_t errlen);
/* Applies the PostgreSQL migrations above the database's version, each in
 * its own transaction, one node at a time (an advisory lock). */
int db_pg_migrate(db_conn_t *c, int *version, char *err, size_t errlen);
/* Prepares statement id on c and checks it against its row (as
 * db_stmt_verify does for SQLite): DB_OK, or DB_ERR with the mismatch. */
int db_pg_verify(db_conn_t *c, int id, char *err, size_t errlen);
/* One integer, or text (truncated to n), from a query of one row and
 * column: DB_OK, or DB_ERR with the message in c->err. */
int db_pg_query_int(db_conn_t *c, const char *sql, int64_t *out);
int db_pg_query_text(db_conn_t *c, const char *sql, char *out, size_t n);
/* The PostgreSQL text of statement def: its own, or sql translated (?N to
 * $N, user quoted) into out. NULL when out is too small. */
const char *db_pg_sql(const db_stmt_def_t *def, char *out, size_t n);

/* ---- db_ids.c: game ids taken from the database ahead of need ---- */
#define DB_IDS_CAP 32 /* ids held at most */
#define DB_IDS_LOW 8  /* fewer left: the writer is asked for more */
typedef struct {
    pthread_mutex_t mu; /* guards v, head, n, rounds */
    pthread_cond_t cv;  /* rounds grew */
    int64_t v[DB_IDS_CAP];
    int head, n;
    uint64_t rounds;      /* refills done, whether or not they got any */
    _Atomic bool asked;   /* the writer is to refill */
    void (*wake)(void *); /* wakes the writer (db.c) */
    void *ud;
} db_ids_t;

void db_ids_init(db_ids_t *p, void (*wake)(void *ud), void *ud);
void db_ids_destroy(db_ids_t *p);
/* Any thread: the next id, waiting (2 s at most) for the writer when none
 * is left; DB_ERR when none came. Asks for more when few are left. */
int64_t db_ids_next(db_ids_t *p);
/* Whether a refill is asked for (the writer's wait checks it). */
bool db_ids_asked(db_ids_t *p);
/* The writer (or open, before it starts): fills the pool from c. DB_OK, or
 * DB_ERR with the message in c->err; waiters are woken either way. */
int db_ids_refill(db_ids_t *p, db_conn_t *c);
/* At close, every thread stopped: unused ids back to the counter where the
 * backend can (SQLite), so a restart goes on where the last games ended. */
void db_ids_give_back(db_ids_t *p, db_conn_t *c);

/* ---- arguments: typed, in the order of the SQL's ?N ---- */
typedef struct {
    char type;    /* 'i', 't' or 'b': must be the signature's letter */
    bool has_len; /* 't': len is given (DB_TEXT_LEN), else strlen */
    uint32_t max; /* 't': DB_EINVAL unless its length < max; 0 = no limit */
    union {
        int64_t i;     /* 'i' */
        const void *p; /* 't', 'b': borrowed, copied when queued (NULL: "" or empty) */
    };
    size_t len; /* 'b', and 't' with has_len */
} db_arg_t;

#define DB_INT(v)         ((db_arg_t){.type = 'i', .i = (int64_t)(v)})
#define DB_TEXT(s)        ((db_arg_t){.type = 't', .p = (s)})
#define DB_TEXT_MAX(s, m) ((db_arg_t){.type = 't', .max = (m), .p = (s)})
#define DB_TEXT_LEN(s, n) ((db_arg_t){.type = 't', .has_len = true, .p = (s), .len = (n)})
#define DB_BLOB(b, n)     ((db_arg_t){.type = 'b', .p = (b), .len = (n)})
/* (args, count) for db_queue and db_op_step; DB_NOARGS for none. */
#define DB_ARGS(...)      DB_ARGS_((db_arg_t[]){__VA_ARGS__})
#define DB_ARGS_(...)     (__VA_ARGS__), sizeof(__VA_ARGS__) / sizeof(db_arg_t)
#define DB_NOARGS         NULL, 0

/* ---- callbacks: one line per callback type; db_deliver_<name> calls it ---- */
#define DB_CALLBACKS(X)                 \
    X(done, db_done_cb)                 \
    X(user, db_user_cb)                 \
    X(game, db_game_cb)                 \
    X(games, db_games_cb)               \
    X(milestones, db_milestones_cb)     \
    X(text, db_text_cb)                 \
    X(journal, db_journal_cb)           \
    X(resume, db_resume_cb)             \
    X(users, db_users_cb)               \
    X(health, db_health_cb)             \
    X(check, db_check_cb)               \
    X(totals, db_totals_cb)             \
    X(number, db_number_cb)             \
    X(mail, db_mail_cb)                 \
    X(sanctions, db_sanctions_cb)       \
    X(hosted, db_hosted_cb)             \
    X(feed, db_feed_cb)                 \
    X(hosted_game, db_hosted_game_cb)   \
    X(hosted_files, db_hosted_files_cb) \
    X(game_ids, db_game_ids_cb)         \
    X(peer_games, db_peer_games_cb)     \
    X(peer_node, db_peer_node_cb)       \
    X(node_events, db_node_events_cb)   \
    X(pairs, db_pairs_cb)

enum {
#define DB_CB_ENUM_(n, t) DB_CB_##n,
    DB_CALLBACKS(DB_CB_ENUM_)
#undef DB_CB_ENUM_
};

typedef struct {
    int kind; /* DB_CB_<name> */
    union {
#define DB_CB_MEMBER_(n, t) t n;
        DB_CALLBACKS(DB_CB_MEMBER_)
#undef DB_CB_MEMBER_
    } fn;
    void *ud;
} db_cb_t;

/* The callback of kind name (checked by the compiler against its type). */
#define DB_ON(name, f, u) ((db_cb_t){.kind = DB_CB_##name, .fn.name = (f), .ud = (u)})

/* ---- operations ---- */

/* The rows one reading step collected; row says how to free them. */
typedef struct {
    void *v;
    size_t n, cap;
    const db_row_t *row;
} db_rows_t;

#define DB_RES_MAX   3   /* reading steps per operation */
#define DB_OP_INLINE 256 /* bytes for the steps of an op begun with db_op_begin */

/* The last DB_TIMES_MAX journal appends of every loop (db_times.c); the
 * core's tmu guards it. */
typedef struct {
    uint64_t end_ns; /* its callback */
    uint32_t queue_us, commit_us, back_us;
} db_time_t;
typedef struct {
    db_time_t *v; /* DB_TIMES_MAX, made with the first */
    size_t head, n;
} db_timering_t;
/* t: submitted, taken, committed, called back (ns). */
void db_times_add(db_timering_t *r, const uint64_t t[4]);
void db_times_read(const db_timering_t *r, uint64_t now, uint64_t window_ns, db_times_t *out);
void db_times_free(db_timering_t *r);

typedef struct db_op db_op_t;
struct db_op {
    db_op_t *next;
    db_t *db;
    db_cb_t cb;
    int status;     /* preset when building failed: then nothing runs */
    bool write;     /* some step changes the database */
    bool timed;     /* a journal append, its times kept (db_write_times) */
    int nsteps;     /* a write of one step needs no savepoint */
    int nread;      /* steps that read rows */
    int64_t id;     /* a write's result id (preset, or from ROWID / COUNT) */
    char *err;      /* owned failure message */
    uint64_t after; /* a read runs once this many writes are done */
    uint64_t seq;   /* a write's place in the queue (db_flush numbers them from 1) */
    /* Whose rows a write touches, for the writers' order (db.c's take): a
     * game's id, DB_OP_NO_GAME (an account's or a web session's rows, none
     * a journal append reads), or 0 (not said: any, so nothing goes
     * ahead of it). Set with db_op_game. */
    int64_t game;
    /* Its commit need not wait for the disk or a standby (PostgreSQL):
     * the next commit that waits makes it durable too, as the WAL is one
     * sequence. A game's start (db_game_create): before its first key is
     * answered its own append's commit waits, so nothing answered hangs
     * on it. Set with db_op_lazy; a batch holds lazy ops only or none. */
    bool lazy;
    uint64_t t[3];  /* timed: submitted, taken by a writer, committed (ns) */
    db_rows_t *res; /* DB_RES_MAX: what the reading steps returned, in order */
    /* Instead of the steps, for a read that is no list of statements. */
    int (*run)(db_conn_t *c, db_op_t *op);
    /* The steps: in mem_inline (allocated with the op) or in owned memory. */
    unsigned char *mem;
    size_t used, cap;
    _Alignas(8) unsigned char mem_inline[];
};

/* Starts an operation whose callback is cb and whose result id is id
 * unless a step sets it. NULL when it cannot be made (out of memory, or
 * the db is closing): cb is then already owed DB_ENOMEM or DB_ECLOSED, and
 * db_op_step and db_submit take the NULL. */
db_op_t *db_op_begin(db_t *db, db_cb_t cb, int64_t id);
/* Adds one statement and its arguments (copied). A mismatch with the
 * statement's signature, or text over its max, fails the operation with
 * DB_EINVAL; no memory, with DB_ENOMEM: it is delivered in its turn. */
void db_op_step(db_op_t *op, int stmt, const db_arg_t *args, size_t nargs);
/* Queues op: a write until the next flush, a read at once. Takes ownership;
 * the callback comes exactly once, later, on the loop thread. */
void db_submit(db_t *db, db_op_t *op);
/* db_op_begin, one db_op_step, db_submit. */
void db_queue(db_t *db, db_cb_t cb, int64_t id, int stmt, const db_arg_t *args, size_t nargs);
void db_op_free(db_op_t *op);
#define DB_OP_NO_GAME (-1)
/* Says whose rows op touches (db_op_t.game); NULL op is a no-op. */
void db_op_game(db_op_t *op, int64_t game);
/* Says op may commit without waiting for the disk or a standby
 * (db_op_t.lazy); NULL op is a no-op. */
void db_op_lazy(db_op_t *op);

/* Runs op's steps on connection c (a db thread): DB_OK or DB_E*. */
int db_op_run(db_conn_t *c, db_op_t *op);
/* A fenced append (r: JOURNAL_INSERT_LEASED) that stored nothing: its
 * failure in op, DB_ELEASE when the lease is not the node's, else
 * DB_ENOTFOUND (a gap). */
int db_op_lease_or_gap(db_conn_t *c, db_op_t *op, const db_rec_t *r);
/* Calls op's callback with its status and results (loop thread). */
void db_op_deliver(const db_op_t *op);
/* cb with status and no result, as if from an operation that never ran. */
void db_deliver_error(db_cb_t cb, int status);

#define DB_DELIVER_DECL_(n, t) void db_deliver_##n(const db_op_t *op);
DB_CALLBACKS(DB_DELIVER_DECL_)
#undef DB_DELIVER_DECL_

/* A result of a reading step: the first row, or NULL when op failed or
 * there is none. db_op_count: its number of rows (0 when op failed). */
const void *db_op_first(const db_op_t *op, int k);
size_t db_op_count(const db_op_t *op, int k);
/* For custom runs (a db thread): one more zeroed row in result k, NULL
 * without memory. */
void *db_op_add_row(db_op_t *op, int k, const db_row_t *row);

/* ---- the steps of an op as stored (db_query.c builds them) ---- */

/* One argument as stored in the op: the integer, or where its bytes are. */
typedef struct {
    int64_t i; /* 'i': the value; 't', 'b': offset of the bytes in op->mem */
    uint32_t len;
    char type;
} db_val_t;

/* One step: a statement and its values, then their bytes. */
struct db_rec {
    uint32_t size; /* bytes of the whole record, 8-aligned */
    uint16_t stmt, nvals;
    db_val_t v[];
};

/* The bytes of value v of a step of op ('t': NUL-terminated). */
static inline const void *db_val_bytes(const db_op_t *op, const db_val_t *v)
{
    return op->mem + v->i;
}

/* ---- helpers shared by the readers ---- */
int db_op_fail(db_op_t *op, db_conn_t *c, int status); /* the connection's message */
int db_op_fail_msg(db_op_t *op, int status, const char *msg);
static inline int64_t db_col_int(const db_cur_t *c, int col)
{
    return c->ops->col_int(c, col);
}
static inline const char *db_col_text(const db_cur_t *c, int col)
{
    return c->ops->col_text(c, col);
}
void db_col_copy(const db_cur_t *c, int col, char *dst, size_t n); /* text, truncated */
/* A malloc'd copy of the column's bytes plus a NUL; NULL without memory. */
void *db_col_dup(const db_cur_t *c, int col, size_t *len);
/* The statements' checks both backends make: DB_OK or DB_ERR with err. */
bool db_reads_rows(const db_stmt_def_t *d);
int db_check_sig(const db_stmt_def_t *d, int params, int cols, char *err, size_t errlen);
char *db_strdup(const char *s);
int64_t db_next_game_id_(db_t *db); /* loop thread: the id for a new game */
/* The node whose leases fence journal appends and snapshots
 * (db_lease_fence) and the ttl of its new games' leases (unless NULL);
 * NULL when nothing is fenced. */
const char *db_lease_node_(const db_t *db, int64_t *ttl_ms);
/* Fenced: a step taking new game's lease for the node, in the op that
 * creates the game (db_lease.c). Else nothing. */
void db_lease_step_new(const db_t *db, db_op_t *op, int64_t game);

/* Tests only: after `after` more op allocations succeed, the next `count`
 * fail, as if memory ran out. */
void db_test_fail_allocs(db_t *db, int after, int count);
/* Tests only: a turn's round delivers ops answers and leaves the rest for
 * the next turn, instead of a time's worth (0: back to the time). */
void db_test_deliver_budget(db_t *db, uint32_t ops);
/* db.c: an allocation for an op, honouring db_test_fail_allocs. */
void *db_op_alloc(db_t *db, void *old, size_t n);
/* db.c: owes cb the status (DB_ENOMEM, DB_ECLOSED), delivered on the loop
 * later; never inside this call. */
void db_owe(db_t *db, db_cb_t cb, int status);
bool db_is_stopping(const db_t *db);

#endif
