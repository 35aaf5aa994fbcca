"""warren-admin migrate-db: a whole database copied from SQLite into
PostgreSQL and back (pgcluster.py's private cluster).

- every table's rows go over and come back byte for byte (blobs with NUL
  bytes, text beyond ASCII, rows with NULLs, the milestones' order), each
  table's count and checksum printed the same on both sides;
- warrend on the copy goes on where the file left off: the daily game's
  secret is the same (so are the days' seeds), the game resumes with the
  same hash, a new account and a new game get ids past the copied
  ones (the identity sequences and game_ids set after the copy);
- a target holding accounts is refused (nothing changes) unless --replace;
  the same database on both sides, a missing source and a bad address are
  refused with a message, and no password is ever printed."""
import re
import sqlite3
import subprocess

import pytest

from harness import PW, hook, program
from pgcluster import PgCluster
from test_storage_pg import stored_hook

# Each table and the order its rows are compared in (every column).
TABLES = ["users", "game_names", "games", "journal", "journal_aside", "snapshots", "milestones",
          "dumps", "daily", "sessions", "mail", "bans", "mutes", "hosted_scores", "hosted_games",
          "hosted_chunks", "hosted_files", "hosted_file_sets", "meta"]


@pytest.fixture
def pg(tmp_path):
    with PgCluster(tmp_path / "pg") as cluster:
        yield cluster


def migrate(bindir, *args):
    tool = program(bindir, "asan/warren-admin", "warren-admin")
    return subprocess.run([str(tool), "migrate-db", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def rows(path, table):
    """Every row of table in a SQLite file, in order (milestones in their own)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
        order = "rowid" if table == "milestones" else ", ".join(cols)
        where = " WHERE key <> 'id'" if table == "meta" else ""
        return con.execute(f"SELECT * FROM {table}{where} ORDER BY {order}").fetchall()
    finally:
        con.close()


def add_rows(path, user, game, other):
    """A row in each table a short game leaves empty: mail, bans, mutes,
    milestones, a dump, a daily attempt, rows set aside, a session, a finished game with a
    NULL-free odd text, a hosted score, recording and chunk (blobs with NUL)."""
    con = sqlite3.connect(str(path))
    with con:
        con.executemany("INSERT INTO mail(recipient, sender, sent, text, seen) VALUES (?,?,?,?,?)",
                        [(other, user, 5, "hé \"quoted\" 'x' \\ 🐉", 0), (other, user, 6, "", 1)])
        con.execute("INSERT INTO bans(net, until, created) VALUES ('10.0.0.0/8', 0, 7)")
        con.execute("INSERT INTO mutes(user, until) VALUES (?, 99)", (user,))
        con.executemany("INSERT INTO milestones(game, turn, depth, kind, text) VALUES (?,?,?,?,?)",
                        [(game, 9, 2, "z", "second by key, first by order"), (game, 1, 1, "a", "b")])
        con.execute("INSERT INTO dumps(game, text) VALUES (?, ?)", (game, "dump\nlines\t"))
        con.execute("INSERT INTO daily(day, user, game) VALUES ('2026-11-28', ?, ?)", (user, game))
        con.execute("INSERT INTO journal_aside(game, after_seq, seq, keys, ms) VALUES (?,?,?,?,?)",
                    (game, 1, 2, b"\x00\xff\x00", -1))
        con.execute("INSERT INTO sessions(token_hash, user, expires) VALUES ('abc', ?, 2000000000)",
                    (user,))
        sid = con.execute(
            "INSERT INTO hosted_scores(user, game, name, role, race, gender, align, max_depth, "
            "death, points, turns, realtime, start_time, end_time) VALUES "
            "(?, 'nethack', 'n', 'Val', 'Hum', 'Fem', 'Neu', 3, 'killed by a jackal', "
            "9223372036854775807, 10, 11, 12, 13)", (user,)).lastrowid
        hid = con.execute(
            "INSERT INTO hosted_games(user, game, start_time, end_time, width, height, bytes, "
            "truncated, score) VALUES (?, 'nethack', 1, 2, 80, 24, 3, 0, ?)", (user, sid)).lastrowid
        con.execute("INSERT INTO hosted_games(user, game, start_time, width, height, score) "
                    "VALUES (?, 'nethack', 3, 80, 24, NULL)", (user,))
        con.execute("INSERT INTO hosted_chunks(game, seq, ms, data) VALUES (?, 1, 0, ?)",
                    (hid, b"\x00\x01\x02\x1b[H"))
        con.execute("INSERT INTO hosted_chunks(game, seq, ms, data) VALUES (?, 2, 5, x'')", (hid,))
        con.executemany("INSERT INTO hosted_files(user, game, path, data) VALUES (?, ?, ?, ?)",
                        [(user, "nethack", "playground/save/1000n.gz", b"\x1f\x8b\x00\xff"),
                         (user, "nethack", "nethackrc", b"OPTIONS=color\n")])
        con.execute("INSERT INTO hosted_file_sets(user, game, gen, node, bytes, at) VALUES "
                    "(?, 'nethack', 7, 'n1', 40, 1700000000)", (user,))
    con.close()


def test_sqlite_to_postgresql_and_back(pg, bindir, tmp_path, start_daemon, clients):
    d = start_daemon(sqlite=True)  # the file to move from, whatever WARREN_DB says
    t = clients(d.port).connected()
    t.register("alice")
    t.random_character("alice")
    for key in "hjklyubn" * 2:
        t.send(key)
    before = stored_hook(d, t, "alice")
    uid = d.db_rows("SELECT id FROM users WHERE name = 'alice'")[0][0]
    clients(d.port).connected().register("bob")
    bob = d.db_rows("SELECT id FROM users WHERE name = 'bob'")[0][0]
    d.stop_clean()
    add_rows(d.db, uid, before["game"], bob)

    secret = d.db_rows("SELECT value FROM meta WHERE key = 'daily_secret'")[0][0]
    url = pg.create_db("copy")
    r = migrate(bindir, d.db, url)
    assert r.returncode == 0, r.stderr
    assert secret not in r.stdout + r.stderr
    printed = dict(re.findall(r"^(\w+) +(\d+ rows +checksum \w+) +verified$", r.stdout, re.M))
    assert sorted(printed) == sorted(TABLES), r.stdout
    for table in TABLES:
        assert int(printed[table].split()[0]) == len(rows(d.db, table)), (table, r.stdout)
    assert pg.psql("SELECT count(*) FROM hosted_chunks", db="copy").strip() == "2"

    back = tmp_path / "back" / "warren.db"
    r2 = migrate(bindir, url, back)
    assert r2.returncode == 0, r2.stderr
    # the same counts and checksums printed both ways, and the same rows
    assert dict(re.findall(r"^(\w+) +(\d+ rows +checksum \w+)", r2.stdout, re.M)) == printed
    for table in TABLES:
        assert rows(back, table) == rows(d.db, table), table
    con = sqlite3.connect(str(back))
    assert con.execute("SELECT next FROM game_ids").fetchone()[0] > before["game"]
    con.close()

    # warrend on the copy: the daily game's secret is the file's (its days
    # keep their seeds), the game goes on, new rows get new ids
    d2 = start_daemon(extra=["--db", url])
    held = "SELECT value FROM meta WHERE key = 'daily_secret'"
    assert pg.psql(held, db="copy").strip() == secret
    t2 = clients(d2.port).connected()
    t2.login("alice", PW)
    t2.send("p")
    d2.wait_log(r"attach user=alice ")
    t2.pump()
    after = hook(d2, t2, "alice")
    assert (after["hash"], after["seq"]) == (before["hash"], before["seq"])
    t3 = clients(d2.port).connected()
    t3.register("carol")
    t3.random_character("carol")
    carol = stored_hook(d2, t3, "carol")
    assert carol["game"] > before["game"]
    ids = pg.psql("SELECT id FROM users WHERE name = 'carol'", db="copy").strip()
    assert int(ids) > uid


def test_migrate_db_refuses_and_says_why(pg, bindir, tmp_path, start_daemon, clients):
    d = start_daemon(sqlite=True)
    clients(d.port).connected().register("dora")
    d.stop_clean()
    url = pg.create_db("full")
    assert migrate(bindir, d.db, url).returncode == 0

    # a target with accounts: refused, unchanged; --replace copies over it
    pg.psql("UPDATE users SET locked = 1", db="full")
    r = migrate(bindir, d.db, url)
    assert r.returncode == 1
    assert "not empty" in r.stderr and "1 accounts" in r.stderr and "--replace" in r.stderr, \
        r.stderr
    assert pg.psql("SELECT locked FROM users", db="full").strip() == "1"
    r = migrate(bindir, "--replace", d.db, url)
    assert r.returncode == 0, r.stderr
    assert pg.psql("SELECT locked, name FROM users", db="full").strip() == "0|dora"

    r = migrate(bindir, url, url)
    assert r.returncode == 1 and "the source database itself" in r.stderr, r.stderr
    r = migrate(bindir, tmp_path / "none.db", url)
    assert r.returncode == 1 and "no such database" in r.stderr, r.stderr
    assert not (tmp_path / "none.db").exists()
    empty = pg.create_db("empty")
    r = migrate(bindir, empty, tmp_path / "x.db")
    assert r.returncode == 1 and "no Warren database" in r.stderr, r.stderr
    r = migrate(bindir, d.db, "postgresql://warren:s3cret@127.0.0.1:1/none")
    assert r.returncode == 1 and "cannot connect" in r.stderr, r.stderr
    assert "s3cret" not in r.stderr + r.stdout
    r = migrate(bindir, d.db)
    assert r.returncode == 2 and "usage" in r.stderr
