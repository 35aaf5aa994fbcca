-- Warren's database schema: the result of every migration in db/schema.c,
-- applied in order (PRAGMA user_version = number of migrations applied).
-- A unit test (tests/unit/db_schema.c) checks the two agree.
-- Times are Unix seconds. Seeds are 64-bit values stored as signed integers.

-- Accounts. name_key is the lowercased name: names are unique ignoring case.
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    pwhash TEXT NOT NULL,
    created INTEGER NOT NULL,
    locked INTEGER NOT NULL DEFAULT 0,
    options TEXT NOT NULL DEFAULT ''
);

-- One row per game ever started. state: live (playing or saved), finished
-- (ended: the end fields are set) or broken (could not be restored; kept).
-- broken_told: the player of a broken game has been told (a new game then
-- starts without asking again).
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    user INTEGER NOT NULL REFERENCES users(id),
    seed INTEGER NOT NULL,
    content_version TEXT NOT NULL,
    race TEXT NOT NULL DEFAULT '',
    class TEXT NOT NULL DEFAULT '',
    start_time INTEGER NOT NULL,
    end_time INTEGER NOT NULL DEFAULT 0,
    turns INTEGER NOT NULL DEFAULT 0,
    depth INTEGER NOT NULL DEFAULT 1,
    max_depth INTEGER NOT NULL DEFAULT 1,
    xl INTEGER NOT NULL DEFAULT 1,
    score INTEGER NOT NULL DEFAULT 0,
    cause TEXT NOT NULL DEFAULT '',
    end_kind TEXT NOT NULL DEFAULT '' CHECK (end_kind IN ('', 'dead', 'won', 'quit')),
    verified INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (-1, 0, 1)),
    state TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'finished', 'broken')),
    broken_reason TEXT NOT NULL DEFAULT '',
    broken_told INTEGER NOT NULL DEFAULT 0
);
-- At most one live game per account.
CREATE UNIQUE INDEX games_live_user ON games(user) WHERE state = 'live';
CREATE INDEX games_by_score ON games(score DESC, end_time) WHERE state = 'finished';
CREATE INDEX games_by_user ON games(user, id);
-- The lobby's feed: the newest ends first.
CREATE INDEX games_by_end ON games(end_time) WHERE state = 'finished';
-- The score pages' race and class filters, matched ignoring case, in the
-- pages' order (score, earliest end, id); the other of the two last, so a
-- page asking for both is read from the index alone.
CREATE INDEX games_by_race ON games(race COLLATE NOCASE, score DESC, end_time, id, class COLLATE NOCASE) WHERE state = 'finished';
CREATE INDEX games_by_class ON games(class COLLATE NOCASE, score DESC, end_time, id, race COLLATE NOCASE) WHERE state = 'finished';

-- Input of every game: key bytes in the daemon's encoding, in seq order
-- from 1 with no gaps (a row is inserted only after the row before it).
-- ms: when the row's keys arrived, in milliseconds since the game's previous
-- row (the first row: since the game started; the first row after a restore:
-- since the game was restored). Real times, detached pauses included: players
-- cap idle gaps when they play them back. -1: not recorded (rows written
-- before migration 2; replays space them evenly). Not part of the game's
-- state: replays and verification ignore it.
CREATE TABLE journal (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    keys BLOB NOT NULL,
    ms INTEGER NOT NULL DEFAULT -1,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;

-- Journal rows found after a gap when a game was restored: the game goes
-- on from the rows before the gap (after_seq), these are kept for the
-- admins and never played.
CREATE TABLE journal_aside (
    game INTEGER NOT NULL REFERENCES games(id),
    after_seq INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    keys BLOB NOT NULL,
    ms INTEGER NOT NULL DEFAULT -1,
    PRIMARY KEY (game, after_seq, seq)
) WITHOUT ROWID;

-- Serialized game state covering the journal up to and including seq
-- (stored only once journal row seq is: never ahead of the journal).
CREATE TABLE snapshots (
    game INTEGER NOT NULL REFERENCES games(id),
    turn INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    blob BLOB NOT NULL,
    PRIMARY KEY (game, seq)
);

CREATE TABLE milestones (
    game INTEGER NOT NULL REFERENCES games(id),
    turn INTEGER NOT NULL,
    depth INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX milestones_by_game ON milestones(game);

CREATE TABLE dumps (
    game INTEGER PRIMARY KEY REFERENCES games(id),
    text TEXT NOT NULL
);

-- Web login sessions: a hash of the cookie, never the cookie itself.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires INTEGER NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions(expires);
-- An account keeps its newest DB_SESSIONS_PER_USER sessions (db.h).
CREATE INDEX sessions_by_user ON sessions(user, expires);

-- Messages players leave for each other (shown at the recipient's next
-- menu or game start, then marked seen). Sender and recipient go with
-- their accounts.
CREATE TABLE mail (
    id INTEGER PRIMARY KEY,
    recipient INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sender INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sent INTEGER NOT NULL,
    text TEXT NOT NULL,
    seen INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX mail_unseen ON mail(recipient, seen, id);
CREATE INDEX mail_by_sender ON mail(sender, sent);

-- Addresses refused by the administrator: "ADDR/PREFIX", until a Unix
-- time (0 = until lifted).
CREATE TABLE bans (
    net TEXT PRIMARY KEY,
    until INTEGER NOT NULL,
    created INTEGER NOT NULL
);

-- Accounts whose spectator chat the administrator muted, until a Unix
-- time (0 = until lifted).
CREATE TABLE mutes (
    user INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    until INTEGER NOT NULL
);

-- A hosted game's end (warren.conf [game ID]): its xlogfile row, imported
-- once when the program ends. max_depth is NetHack's deepest level.
CREATE TABLE hosted_scores (
    id INTEGER PRIMARY KEY,
    user INTEGER NOT NULL REFERENCES users(id),
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    race TEXT NOT NULL,
    gender TEXT NOT NULL,
    align TEXT NOT NULL,
    max_depth INTEGER NOT NULL,
    death TEXT NOT NULL,
    points INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    realtime INTEGER NOT NULL,
    start_time INTEGER NOT NULL,
    end_time INTEGER NOT NULL,
    UNIQUE (game, name, start_time, end_time)
);
CREATE INDEX hosted_scores_by_points ON hosted_scores(game, points DESC);
CREATE INDEX hosted_scores_by_user ON hosted_scores(user, id);
CREATE INDEX hosted_scores_by_end ON hosted_scores(end_time);
CREATE INDEX hosted_scores_by_user_end ON hosted_scores(user, end_time);

-- A hosted game's recording: the program's output as it ran, never a
-- `games` row (nothing replays it through Warren's engine). end_time is 0
-- while the game may go on (a program hung up restores its save and
-- continues the same row); bytes counts the raw output recorded, truncated
-- says the record-max cap stopped it; score links the xlogfile row
-- imported when the program ended.
CREATE TABLE hosted_games (
    id INTEGER PRIMARY KEY,
    user INTEGER NOT NULL REFERENCES users(id),
    game TEXT NOT NULL,
    start_time INTEGER NOT NULL,
    end_time INTEGER NOT NULL DEFAULT 0,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    bytes INTEGER NOT NULL DEFAULT 0,
    truncated INTEGER NOT NULL DEFAULT 0,
    score INTEGER REFERENCES hosted_scores(id)
);
CREATE INDEX hosted_games_open ON hosted_games(user, game, end_time);
CREATE INDEX hosted_games_by_score ON hosted_games(score);

-- The recording in order: seq from 1, ms the first record's time since
-- the game's start, data zlib-compressed output and resize records
-- (server/hosted/recchunk.h).
CREATE TABLE hosted_chunks (
    game INTEGER NOT NULL REFERENCES hosted_games(id),
    seq INTEGER NOT NULL,
    ms INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;

-- A hosted game's files (saves, level and lock files: hostfiles.h) copied
-- as they change, so another node restores the game once the node that
-- ran it is gone (hostcopy.h): one row a file, and one a player's set
-- with its generation, the node that holds the game (only it may copy)
-- and its bytes (-1: the last copy was over copy-max), and the ids its
-- files were read as (the copying node's games user; -1: unknown).
CREATE TABLE hosted_files (
    user INTEGER NOT NULL REFERENCES users(id),
    game TEXT NOT NULL,
    path TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (user, game, path)
);
CREATE TABLE hosted_file_sets (
    user INTEGER NOT NULL REFERENCES users(id),
    game TEXT NOT NULL,
    gen INTEGER NOT NULL,
    node TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    at INTEGER NOT NULL, uid INTEGER NOT NULL DEFAULT -1, gid INTEGER NOT NULL DEFAULT -1,
    PRIMARY KEY (user, game)
);

-- The database's own facts, one row each. 'id': 32 hex digits made once
-- (by the migration that made this table), kept beside the file in
-- PATH.id so a missing or different database is refused at start
-- (db/db_file.c); a backup or copy of the file carries the same id.
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- What hosted games know a player as (%u in a [game ID] section): letters,
-- digits and '_' (what NetHack and Crawl keep whole), at most 31 bytes,
-- unique ignoring case (key is the lowercased name) across every account
-- there ever was. A rename keeps it; a delete retires it (user NULL) and it
-- is never given again, so nobody inherits a save or a player directory.
-- NetHack's generic names (sysconf GENERICUSERS: NetHack asks such a
-- player who they are) are retired from the start.
CREATE TABLE game_names (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    user INTEGER UNIQUE REFERENCES users(id) ON DELETE SET NULL
);
-- A new account's game name: its name with '-' made '_', or when that is
-- held (given or retired), the same with one more than the largest number
-- any name holds after it (from 2). A row left by an account deleted
-- without foreign keys (its id used again) is retired first.
CREATE TRIGGER users_game_name AFTER INSERT ON users BEGIN
    UPDATE game_names SET user = NULL WHERE user = NEW.id;
    INSERT INTO game_names(key, name, user) SELECT lower(b || s), b || s, NEW.id FROM (
        SELECT b, CASE WHEN lower(b) NOT IN (SELECT key FROM game_names) THEN '' ELSE (
            SELECT coalesce(max(CAST(substr(key, length(b) + 1) AS INTEGER)), 1) + 1
            FROM game_names WHERE key > lower(b) || '0' AND key < lower(b) || ':'
            AND length(key) <= length(b) + 10 AND substr(key, length(b) + 1) NOT GLOB '*[^0-9]*'
        ) END AS s
        FROM (SELECT substr(replace(NEW.name, '-', '_'), 1, 20) AS b));
END;

-- The daily game (server/core/daily.h): each UTC day (day is YYYY-MM-DD)
-- one seed and one character for everyone, one attempt per account. The
-- row is made with its game, in one transaction, so a second attempt is
-- refused by the key; the game's own row says how it went.
CREATE TABLE daily (
    day TEXT NOT NULL,
    user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    game INTEGER NOT NULL UNIQUE REFERENCES games(id) ON DELETE CASCADE,
    PRIMARY KEY (day, user)
);

-- The next game id to give (one row). The daemon takes them in blocks
-- (db_ids.c), never below max(games.id) + 1; on PostgreSQL this is the
-- sequence game_ids, which nodes sharing the database all draw from.
CREATE TABLE game_ids (next INTEGER NOT NULL);

-- Which node runs a live game: with several daemons on one PostgreSQL each
-- live game is run by the node holding its lease. A lease is valid while
-- its node's heartbeat is fresh: nodes holds a row per node whose expires
-- (ms since 1970 by the database's clock) the heartbeat pushes forward, one
-- row written per renewal whatever the number of games. A node that stops
-- renewing loses its leases when its row expires; another may then take
-- them and resume the games from snapshot and journal (db_lease.c).
-- chg is the row's change number, so other nodes read only what changed
-- since their last read (db_peer.c): set when the row is made or changes
-- node, never by a renewal. A row that goes leaves a tombstone in
-- lease_gone with a number of its own; lease_chg is the last number given
-- (PostgreSQL uses the changing transaction's id instead). A detached
-- game (its player left, the game kept on its node for their return) keeps
-- its row with away = 1: any node may take it, and every node lists it as
-- detached, as its own node does; the row goes when its node frees it.
-- A node's heartbeat also says what its games show (games: a line per
-- game, server/core/peersum.h: race, class, depth, turn, terminal size,
-- idle), when one of them changed, and when it said it (games_at, the
-- database's clock): the other nodes read it with their check of the
-- node's heartbeat, only when games_at moved, and list its games as it
-- does.
CREATE TABLE leases (
    game INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    node TEXT NOT NULL,
    chg INTEGER NOT NULL DEFAULT 0, away INTEGER NOT NULL DEFAULT 0);
CREATE TABLE nodes (
    node TEXT PRIMARY KEY,
    expires INTEGER NOT NULL
, games TEXT NOT NULL DEFAULT '', games_at INTEGER NOT NULL DEFAULT 0);
CREATE INDEX leases_by_node ON leases(node);
CREATE INDEX leases_by_chg ON leases(chg);
CREATE TABLE lease_chg (n INTEGER NOT NULL);
CREATE TABLE lease_gone (
    game INTEGER PRIMARY KEY,
    chg INTEGER NOT NULL,
    at INTEGER NOT NULL
);
CREATE INDEX lease_gone_by_chg ON lease_gone(chg);
CREATE TRIGGER leases_chg_made AFTER INSERT ON leases BEGIN
    UPDATE lease_chg SET n = n + 1;
    UPDATE leases SET chg = (SELECT n FROM lease_chg) WHERE game = NEW.game;
END;
CREATE TRIGGER leases_chg_moved AFTER UPDATE OF node, away ON leases BEGIN
    UPDATE lease_chg SET n = n + 1;
    UPDATE leases SET chg = (SELECT n FROM lease_chg) WHERE game = NEW.game;
END;
CREATE TRIGGER leases_gone AFTER DELETE ON leases BEGIN
    UPDATE lease_chg SET n = n + 1;
    INSERT OR REPLACE INTO lease_gone(game, chg, at) VALUES (OLD.game, (SELECT n FROM lease_chg), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

-- The small events between nodes (a kick, a chat line, an administrator's
-- end), each also sent by PostgreSQL's NOTIFY in the same transaction: a
-- node whose listener was down reads here what it missed (db_listen.h).
-- xid orders them as leases.chg does (PostgreSQL: the writing
-- transaction's id, so a reader below its snapshot's xmin never passes
-- one that commits late); rows go after 12 minutes. event_key: the
-- sender's key for the event (notify.c), so a write tried again after a
-- commit whose answer was lost adds no second row.
CREATE TABLE node_events (
    id INTEGER PRIMARY KEY,
    xid INTEGER NOT NULL,
    origin TEXT NOT NULL,
    at INTEGER NOT NULL,
    payload TEXT NOT NULL
, event_key TEXT);
CREATE INDEX node_events_by_xid ON node_events(xid);
CREATE INDEX node_events_by_at ON node_events(at);
CREATE UNIQUE INDEX node_events_by_key ON node_events(event_key);
