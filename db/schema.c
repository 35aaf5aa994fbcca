/* schema — the migrations, in order. Migration i (from 1) takes the database
 * from PRAGMA user_version i-1 to i; each runs in its own transaction with
 * the version bump. Never edit a released migration: append a new one, and
 * update db/schema.sql (the full schema, checked against these by a test). */
#include "db_internal.h"

/* Migration 8's assignment of a game name to the new account NEW: its name
 * with '-' made '_' (20 bytes at most, as account names are), or, when a
 * name given or retired holds that ignoring case, the same with one more
 * than the largest number any name holds after it (from 2). Frozen with
 * migration 8: a change is a new migration. */
#define GAME_NAME_ASSIGN_8                                                                      \
    "INSERT INTO game_names(key, name, user) SELECT lower(b || s), b || s, NEW.id FROM (\n"     \
    "        SELECT b, CASE WHEN lower(b) NOT IN (SELECT key FROM game_names) THEN '' ELSE (\n" \
    "            SELECT coalesce(max(CAST(substr(key, length(b) + 1) AS INTEGER)), 1) + 1\n"    \
    "            FROM game_names WHERE key > lower(b) || '0' AND key < lower(b) || ':'\n"       \
    "            AND length(key) <= length(b) + 10 AND substr(key, length(b) + 1) NOT GLOB "    \
    "'*[^0-9]*'\n"                                                                              \
    "        ) END AS s\n"                                                                      \
    "        FROM (SELECT substr(replace(NEW.name, '-', '_'), 1, 20) AS b));"

static const char *const migrations[] = {
    /* 1: accounts, games, journal, snapshots, milestones, dumps, sessions */
    "CREATE TABLE users (\n"
    "    id INTEGER PRIMARY KEY,\n"
    "    name TEXT NOT NULL,\n"
    "    name_key TEXT NOT NULL UNIQUE,\n"
    "    pwhash TEXT NOT NULL,\n"
    "    created INTEGER NOT NULL,\n"
    "    locked INTEGER NOT NULL DEFAULT 0,\n"
    "    options TEXT NOT NULL DEFAULT ''\n"
    ");\n"
    "CREATE TABLE games (\n"
    "    id INTEGER PRIMARY KEY,\n"
    "    user INTEGER NOT NULL REFERENCES users(id),\n"
    "    seed INTEGER NOT NULL,\n"
    "    content_version TEXT NOT NULL,\n"
    "    race TEXT NOT NULL DEFAULT '',\n"
    "    class TEXT NOT NULL DEFAULT '',\n"
    "    start_time INTEGER NOT NULL,\n"
    "    end_time INTEGER NOT NULL DEFAULT 0,\n"
    "    turns INTEGER NOT NULL DEFAULT 0,\n"
    "    depth INTEGER NOT NULL DEFAULT 1,\n"
    "    max_depth INTEGER NOT NULL DEFAULT 1,\n"
    "    xl INTEGER NOT NULL DEFAULT 1,\n"
    "    score INTEGER NOT NULL DEFAULT 0,\n"
    "    cause TEXT NOT NULL DEFAULT '',\n"
    "    end_kind TEXT NOT NULL DEFAULT '' CHECK (end_kind IN ('', 'dead', 'won', 'quit')),\n"
    "    verified INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (-1, 0, 1)),\n"
    "    state TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'finished', 'broken')),\n"
    "    broken_reason TEXT NOT NULL DEFAULT ''\n"
    ");\n"
    "CREATE UNIQUE INDEX games_live_user ON games(user) WHERE state = 'live';\n"
    "CREATE INDEX games_by_score ON games(score DESC, end_time) WHERE state = 'finished';\n"
    "CREATE INDEX games_by_user ON games(user, id);\n"
    "CREATE TABLE journal (\n"
    "    game INTEGER NOT NULL REFERENCES games(id),\n"
    "    seq INTEGER NOT NULL,\n"
    "    keys BLOB NOT NULL,\n"
    "    PRIMARY KEY (game, seq)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE snapshots (\n"
    "    game INTEGER NOT NULL REFERENCES games(id),\n"
    "    turn INTEGER NOT NULL,\n"
    "    seq INTEGER NOT NULL,\n"
    "    blob BLOB NOT NULL,\n"
    "    PRIMARY KEY (game, seq)\n"
    ");\n"
    "CREATE TABLE milestones (\n"
    "    game INTEGER NOT NULL REFERENCES games(id),\n"
    "    turn INTEGER NOT NULL,\n"
    "    depth INTEGER NOT NULL,\n"
    "    kind TEXT NOT NULL,\n"
    "    text TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX milestones_by_game ON milestones(game);\n"
    "CREATE TABLE dumps (\n"
    "    game INTEGER PRIMARY KEY REFERENCES games(id),\n"
    "    text TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE sessions (\n"
    "    token_hash TEXT PRIMARY KEY,\n"
    "    user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,\n"
    "    expires INTEGER NOT NULL\n"
    ");\n"
    "CREATE INDEX sessions_by_expiry ON sessions(expires);\n",
    /* 2: the time of each journal row (rows written before read DB_MS_UNKNOWN) */
    "ALTER TABLE journal ADD COLUMN ms INTEGER NOT NULL DEFAULT -1;\n",
    /* 3: telling players of broken games; journal rows after a gap kept aside */
    "ALTER TABLE games ADD COLUMN broken_told INTEGER NOT NULL DEFAULT 0;\n"
    "CREATE TABLE journal_aside (\n"
    "    game INTEGER NOT NULL REFERENCES games(id),\n"
    "    after_seq INTEGER NOT NULL,\n"
    "    seq INTEGER NOT NULL,\n"
    "    keys BLOB NOT NULL,\n"
    "    ms INTEGER NOT NULL DEFAULT -1,\n"
    "    PRIMARY KEY (game, after_seq, seq)\n"
    ") WITHOUT ROWID;\n",
    /* 4: mail between players, address bans, chat mutes */
    "CREATE TABLE mail (\n"
    "    id INTEGER PRIMARY KEY,\n"
    "    recipient INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,\n"
    "    sender INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,\n"
    "    sent INTEGER NOT NULL,\n"
    "    text TEXT NOT NULL,\n"
    "    seen INTEGER NOT NULL DEFAULT 0\n"
    ");\n"
    "CREATE INDEX mail_unseen ON mail(recipient, seen, id);\n"
    "CREATE INDEX mail_by_sender ON mail(sender, sent);\n"
    "CREATE TABLE bans (\n"
    "    net TEXT PRIMARY KEY,\n"
    "    until INTEGER NOT NULL,\n"
    "    created INTEGER NOT NULL\n"
    ");\n"
    "CREATE TABLE mutes (\n"
    "    user INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,\n"
    "    until INTEGER NOT NULL\n"
    ");\n",
    /* 5: hosted games' end rows (a NetHack xlogfile row, imported once) */
    "CREATE TABLE hosted_scores (\n"
    "    id INTEGER PRIMARY KEY,\n"
    "    user INTEGER NOT NULL REFERENCES users(id),\n"
    "    game TEXT NOT NULL,\n"
    "    name TEXT NOT NULL,\n"
    "    role TEXT NOT NULL,\n"
    "    race TEXT NOT NULL,\n"
    "    gender TEXT NOT NULL,\n"
    "    align TEXT NOT NULL,\n"
    "    max_depth INTEGER NOT NULL,\n"
    "    death TEXT NOT NULL,\n"
    "    points INTEGER NOT NULL,\n"
    "    turns INTEGER NOT NULL,\n"
    "    realtime INTEGER NOT NULL,\n"
    "    start_time INTEGER NOT NULL,\n"
    "    end_time INTEGER NOT NULL,\n"
    "    UNIQUE (game, name, start_time, end_time)\n"
    ");\n"
    "CREATE INDEX hosted_scores_by_points ON hosted_scores(game, points DESC);\n"
    "CREATE INDEX hosted_scores_by_user ON hosted_scores(user, id);\n",
    /* 6: hosted games' recordings (their output, compressed in chunks) */
    "CREATE TABLE hosted_games (\n"
    "    id INTEGER PRIMARY KEY,\n"
    "    user INTEGER NOT NULL REFERENCES users(id),\n"
    "    game TEXT NOT NULL,\n"
    "    start_time INTEGER NOT NULL,\n"
    "    end_time INTEGER NOT NULL DEFAULT 0,\n"
    "    width INTEGER NOT NULL,\n"
    "    height INTEGER NOT NULL,\n"
    "    bytes INTEGER NOT NULL DEFAULT 0,\n"
    "    truncated INTEGER NOT NULL DEFAULT 0,\n"
    "    score INTEGER REFERENCES hosted_scores(id)\n"
    ");\n"
    "CREATE INDEX hosted_games_open ON hosted_games(user, game, end_time);\n"
    "CREATE INDEX hosted_games_by_score ON hosted_games(score);\n"
    "CREATE TABLE hosted_chunks (\n"
    "    game INTEGER NOT NULL REFERENCES hosted_games(id),\n"
    "    seq INTEGER NOT NULL,\n"
    "    ms INTEGER NOT NULL,\n"
    "    data BLOB NOT NULL,\n"
    "    PRIMARY KEY (game, seq)\n"
    ") WITHOUT ROWID;\n",
    /* 7: the database's own id, made once here (db_file.c keeps a copy beside
     * the file, so a missing or different database is refused) */
    "CREATE TABLE meta (\n"
    "    key TEXT PRIMARY KEY,\n"
    "    value TEXT NOT NULL\n"
    ");\n"
    "INSERT INTO meta(key, value) VALUES ('id', lower(hex(randomblob(16))));\n",
    /* 8: game names, what hosted games know a player as (%u): one per
     * account for ever. NetHack's generic names (sysconf GENERICUSERS:
     * it asks such a player who they are) are never given. Accounts whose
     * name already is a game name keep it (their saves go on), the others
     * get the folded name, with digits when it is taken, oldest first. */
    "CREATE TABLE game_names (\n"
    "    key TEXT PRIMARY KEY,\n"
    "    name TEXT NOT NULL,\n"
    "    user INTEGER UNIQUE REFERENCES users(id) ON DELETE SET NULL\n"
    ");\n"
    "INSERT INTO game_names(key, name) VALUES ('play', 'play'), ('player', 'player'),\n"
    "    ('game', 'game'), ('games', 'games'), ('nethack', 'nethack'), ('nethacker', "
    "'nethacker');\n"
    "INSERT INTO game_names(key, name, user) SELECT lower(name), name, id FROM users\n"
    "    WHERE length(name) BETWEEN 1 AND 31 AND name NOT GLOB '*[^A-Za-z0-9_]*'\n"
    "    AND lower(name) NOT IN (SELECT key FROM game_names) ORDER BY id;\n"
    "CREATE TABLE game_names_todo (id INTEGER, name TEXT);\n"
    "CREATE TRIGGER game_names_todo_assign AFTER INSERT ON game_names_todo BEGIN\n"
    "    " GAME_NAME_ASSIGN_8 "\n"
    "END;\n"
    "INSERT INTO game_names_todo SELECT id, name FROM users\n"
    "    WHERE id NOT IN (SELECT user FROM game_names WHERE user IS NOT NULL) ORDER BY id;\n"
    "DROP TRIGGER game_names_todo_assign;\n"
    "DROP TABLE game_names_todo;\n"
    "CREATE TRIGGER users_game_name AFTER INSERT ON users BEGIN\n"
    "    UPDATE game_names SET user = NULL WHERE user = NEW.id;\n"
    "    " GAME_NAME_ASSIGN_8 "\n"
    "END;\n",
    /* 9: the daily game: one attempt per account per UTC day (server/core/daily.h) */
    "CREATE TABLE daily (\n"
    "    day TEXT NOT NULL,\n"
    "    user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,\n"
    "    game INTEGER NOT NULL UNIQUE REFERENCES games(id) ON DELETE CASCADE,\n"
    "    PRIMARY KEY (day, user)\n"
    ");\n",
    /* 10: game ids from the database (db_ids.c takes them in blocks): the
     * next one to give, above every game there is */
    "CREATE TABLE game_ids (next INTEGER NOT NULL);\n"
    "INSERT INTO game_ids SELECT coalesce(max(id), 0) + 1 FROM games;\n",
    /* 11: game leases: which node runs a live game, until when (ms, the
     * database's clock; db_lease.c) */
    "CREATE TABLE leases (\n"
    "    game INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,\n"
    "    node TEXT NOT NULL,\n"
    "    expires INTEGER NOT NULL\n"
    ");\n"
    "CREATE INDEX leases_by_node ON leases(node);\n",
    /* 12: the lobby's feed reads the newest ends first (DB_FEED_SQL) */
    "CREATE INDEX games_by_end ON games(end_time) WHERE state = 'finished';\n"
    "CREATE INDEX hosted_scores_by_end ON hosted_scores(end_time);\n",
    /* 13: the leases as a change feed (db_peer.c): a change number on each
     * row, set when the row is made or changes node (not when renewed),
     * and a tombstone with its own number when it goes */
    "ALTER TABLE leases ADD COLUMN chg INTEGER NOT NULL DEFAULT 0;\n"
    "CREATE INDEX leases_by_chg ON leases(chg);\n"
    "CREATE TABLE lease_chg (n INTEGER NOT NULL);\n"
    "INSERT INTO lease_chg VALUES (0);\n"
    "CREATE TABLE lease_gone (\n"
    "    game INTEGER PRIMARY KEY,\n"
    "    chg INTEGER NOT NULL,\n"
    "    at INTEGER NOT NULL\n"
    ");\n"
    "CREATE INDEX lease_gone_by_chg ON lease_gone(chg);\n"
    "CREATE TRIGGER leases_chg_made AFTER INSERT ON leases BEGIN\n"
    "    UPDATE lease_chg SET n = n + 1;\n"
    "    UPDATE leases SET chg = (SELECT n FROM lease_chg) WHERE game = NEW.game;\n"
    "END;\n"
    "CREATE TRIGGER leases_chg_moved AFTER UPDATE OF node ON leases BEGIN\n"
    "    UPDATE lease_chg SET n = n + 1;\n"
    "    UPDATE leases SET chg = (SELECT n FROM lease_chg) WHERE game = NEW.game;\n"
    "END;\n"
    "CREATE TRIGGER leases_gone AFTER DELETE ON leases BEGIN\n"
    "    UPDATE lease_chg SET n = n + 1;\n"
    "    INSERT OR REPLACE INTO lease_gone(game, chg, at) VALUES (OLD.game, (SELECT n FROM "
    "lease_chg), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));\n"
    "END;\n",
    /* 14: a heartbeat row per node (db_lease.c): a lease is valid while its
     * node's row has not expired, so a renewal writes one row, not one per
     * game; the leases' own expiry goes, their nodes keeping the latest */
    "CREATE TABLE nodes (\n"
    "    node TEXT PRIMARY KEY,\n"
    "    expires INTEGER NOT NULL\n"
    ");\n"
    "INSERT INTO nodes(node, expires) SELECT node, max(expires) FROM leases GROUP BY node;\n"
    "ALTER TABLE leases DROP COLUMN expires;\n",
    /* 15: the events between nodes as rows (db_listen.h), so a node whose
     * listener was down reads those it missed; xid orders them as
     * leases.chg does (PostgreSQL: the writing transaction's id) */
    "CREATE TABLE node_events (\n"
    "    id INTEGER PRIMARY KEY,\n"
    "    xid INTEGER NOT NULL,\n"
    "    origin TEXT NOT NULL,\n"
    "    at INTEGER NOT NULL,\n"
    "    payload TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX node_events_by_xid ON node_events(xid);\n"
    "CREATE INDEX node_events_by_at ON node_events(at);\n",
    /* 16: a game kept on its node after its player left (detached) keeps
     * its lease row, marked away: free for any node to take, and listed on
     * every node as its own node lists it (db_peer.c); a change of away is
     * a change in the feed as a move is */
    "ALTER TABLE leases ADD COLUMN away INTEGER NOT NULL DEFAULT 0;\n"
    "DROP TRIGGER leases_chg_moved;\n"
    "CREATE TRIGGER leases_chg_moved AFTER UPDATE OF node, away ON leases BEGIN\n"
    "    UPDATE lease_chg SET n = n + 1;\n"
    "    UPDATE leases SET chg = (SELECT n FROM lease_chg) WHERE game = NEW.game;\n"
    "END;\n",
    /* 17: what each node's heartbeat says of its games (peersum.h: a line
     * a game) and when it last said it (the database's clock, ms), so
     * every node lists another's games as that node shows them */
    "ALTER TABLE nodes ADD COLUMN games TEXT NOT NULL DEFAULT '';\n"
    "ALTER TABLE nodes ADD COLUMN games_at INTEGER NOT NULL DEFAULT 0;\n",
    /* 18: each event's key, chosen by its sender (notify.c): a write
     * tried again after its commit went unanswered finds the row there
     * and adds none; NULL for the rows of a build before it */
    "ALTER TABLE node_events ADD COLUMN event_key TEXT;\n"
    "CREATE UNIQUE INDEX node_events_by_key ON node_events(event_key);\n",
    /* 19: an account's web sessions found by its id (a login keeps its
     * newest DB_SESSIONS_PER_USER, a password change deletes the others) */
    "CREATE INDEX sessions_by_user ON sessions(user, expires);\n",
    /* 20: an account's hosted games' ends by their time (games-per-hour
     * counts those of the last hour before a hosted game starts) */
    "CREATE INDEX hosted_scores_by_user_end ON hosted_scores(user, end_time);\n",
    /* 21: a hosted game's files (its save, level and lock files: hostfiles.h)
     * copied as they change, so another node restores the game once the
     * node that ran it is gone: one row a file, and one a player's set,
     * with its generation (one more each copy), the node that holds the
     * game (only it may copy) and its bytes (-1: the last copy was over
     * copy-max) */
    "CREATE TABLE hosted_files (\n"
    "    user INTEGER NOT NULL REFERENCES users(id),\n"
    "    game TEXT NOT NULL,\n"
    "    path TEXT NOT NULL,\n"
    "    data BLOB NOT NULL,\n"
    "    PRIMARY KEY (user, game, path)\n"
    ");\n"
    "CREATE TABLE hosted_file_sets (\n"
    "    user INTEGER NOT NULL REFERENCES users(id),\n"
    "    game TEXT NOT NULL,\n"
    "    gen INTEGER NOT NULL,\n"
    "    node TEXT NOT NULL,\n"
    "    bytes INTEGER NOT NULL,\n"
    "    at INTEGER NOT NULL,\n"
    "    PRIMARY KEY (user, game)\n"
    ");\n",
    /* 22: the ids the files of a set were read as (the games' user of the
     * node that copied them: -1 unknown, copied before), so a node whose
     * games run as other ids refuses to restore them */
    "ALTER TABLE hosted_file_sets ADD COLUMN uid INTEGER NOT NULL DEFAULT -1;\n"
    "ALTER TABLE hosted_file_sets ADD COLUMN gid INTEGER NOT NULL DEFAULT -1;\n",
    /* 23: the score pages' race and class filters (db_records.c): each
     * finished game by its race, and by its class, matched ignoring case,
     * in the pages' order (the other of the two last, so a page asking
     * for both reads it from the index too) */
    "CREATE INDEX games_by_race ON games(race COLLATE NOCASE, score DESC, end_time, id, "
    "class COLLATE NOCASE) WHERE state = 'finished';\n"
    "CREATE INDEX games_by_class ON games(class COLLATE NOCASE, score DESC, end_time, id, "
    "race COLLATE NOCASE) WHERE state = 'finished';\n",
};

int db_migration_count(void)
{
    return (int)(sizeof migrations / sizeof *migrations);
}

const char *db_migration_sql(int i)
{
    return i >= 1 && i <= db_migration_count() ? migrations[i - 1] : NULL;
}

/* Applies migrations above the file's user_version. A file from a newer
 * schema is refused rather than guessed at. */
int db_migrate(sqlite3 *h, int *version, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (v < 0) {
        snprintf(err, errlen, "cannot read schema version: %s", sqlite3_errmsg(h));
        return DB_ERR;
    }
    if (v > db_migration_count()) {
        snprintf(err, errlen, "database schema version %d is newer than this program (%d)", v,
                 db_migration_count());
        return DB_ERR;
    }
    for (int i = v + 1; i <= db_migration_count(); i++) {
        char bump[64];
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d;", i);
        char *msg = NULL;
        int ret = sqlite3_exec(h, "BEGIN IMMEDIATE;", NULL, NULL, &msg);
        if (ret == SQLITE_OK)
            ret = sqlite3_exec(h, migrations[i - 1], NULL, NULL, &msg);
        if (ret == SQLITE_OK)
            ret = sqlite3_exec(h, bump, NULL, NULL, &msg);
        if (ret == SQLITE_OK)
            ret = sqlite3_exec(h, "COMMIT;", NULL, NULL, &msg);
        if (ret != SQLITE_OK) {
            snprintf(err, errlen, "migration %d failed: %s", i, msg ? msg : sqlite3_errmsg(h));
            sqlite3_free(msg);
            sqlite3_exec(h, "ROLLBACK;", NULL, NULL, NULL);
            return DB_ERR;
        }
        v = i;
    }
    *version = v;
    return DB_OK;
}
