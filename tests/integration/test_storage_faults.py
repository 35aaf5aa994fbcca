"""Storage faults against the real daemon over telnet: nothing a player saw
answered is ever lost, even when the database cannot be written.

A database of 512-byte pages, compacted, is capped at its own size with
--db-max-size once alice has a game and bob watches it: her keys then fill
what room is left until one cannot be stored. From there on no frame goes
out, the player and the watcher see the notice over the last frame, keys
typed are dropped, `warren-admin health` says storage is failing, and a new
game is refused with a clear message. SIGKILL then loses no acknowledged
key (the restarted game equals the same keys replayed); raising the cap at
runtime (`warren-admin db-max-size`) lets the game go on by itself with the
held key's frame; SIGTERM while paused retries, gives up cleanly and keeps
the journal whole. A journal with a gap is restored from the part before
it (the rest set aside and logged); a game that cannot be restored at all
is kept as broken, listed by health, and its player is told before a new
game starts.

The database watched: deleted under the running daemon, it stops answering
keys (the notice, health, registrations and games refused) and a restart
refuses to make a new, empty one in its place (PATH.id) until the old one
is put back; another database, or a damaged one, is refused at start; a
write stalled behind another program's lock shows the notice and is logged
when it starts and ends; and every file warrend makes is 0600 whatever the
umask, wider modes narrowed at start."""
import os
import random
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import tempfile
import time

import pytest

from harness import CTRL_X, F12, PW, SANITIZER_WORDS, hook, program, replay, sqlite_only

# What only the SQLite file has (docs/LIMITS.md): its size cap, its write
# lock that another process can hold, the file itself and what lies beside it.
FULL = sqlite_only("db-max-size caps the SQLite file's pages")
LOCK = sqlite_only("another process holds the SQLite file's write lock")
FILE = sqlite_only("the SQLite file itself: deleted, swapped, damaged, its modes")

NOTICE = "The server cannot save right now"
LOST = "The server has lost its saved data"
STALLED = "The server's disk is not answering"
PAGE = 512       # small pages: a few dozen keys fill one
MAX_FILL = 400   # keys typed at most before the database must be full


@pytest.fixture
def ctl_dir():
    """A short directory for the control socket (Unix socket paths are short)."""
    d = tempfile.mkdtemp(prefix="wst-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def admin(bindir, ctl, *args):
    tool = program(bindir, "asan/warren-admin", "warren-admin")
    r = subprocess.run([str(tool), "--control", ctl, *args], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def small_page_db(dir):
    """An empty database file of PAGE-byte pages in dir (warrend adds its schema)."""
    dir.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(str(dir / "warren.db"))
    con.execute(f"PRAGMA page_size = {PAGE}")
    con.execute("PRAGMA journal_mode = WAL")
    con.close()


def compact(db):
    """VACUUM (no free pages left); returns the file's size in bytes."""
    con = sqlite3.connect(str(db), isolation_level=None)
    try:
        con.execute("VACUUM")
        return con.execute("SELECT page_count * page_size FROM pragma_page_count(), "
                           "pragma_page_size()").fetchone()[0]
    finally:
        con.close()


def restart(d, *flags):
    """Starts d again with its first flags plus these."""
    if not hasattr(d, "first_argv"):
        d.first_argv = list(d.argv)
    d.argv = d.first_argv + [str(f) for f in flags]
    d.start()


def journal(d, game):
    return d.db_rows("SELECT seq, keys FROM journal WHERE game = ? ORDER BY seq", game)


def journal_keys(d, game):
    return b"".join(bytes(k) for _, k in journal(d, game))


def answered(t, key, timeout=15):
    """Types key; True once its frame changed the screen, False when the
    notice shows instead."""
    before = t.text()
    t.send(key, settle=False)
    end = time.time() + timeout
    while time.time() < end:
        t.pump(quiet=0.02, limit=0.1)
        text = t.text()
        if NOTICE in text:
            return False
        if text != before:
            t.pump(quiet=0.05)
            return True
    raise AssertionError(f"neither a frame nor the notice after {key!r}:\n{t.text()}")


def eventually(check, timeout=10):
    """check() until it returns something true (a write may land a moment
    after the log line that queued it); returns that."""
    end = time.time() + timeout
    while not (got := check()):
        assert time.time() < end, "never came true"
        time.sleep(0.05)
    return got


def wait_gone(t, needle, timeout=15):
    end = time.time() + timeout
    while needle in t.text():
        assert time.time() < end, f"still showing {needle!r}:\n{t.text()}"
        t.pump(quiet=0.05, limit=0.2)


def login_play(d, clients, name):
    """A new connection logs name in and takes its game up."""
    t = clients(d.port).connected()
    t.login(name, PW)
    t.send("p")
    d.wait_log(rf"attach user={name} ")
    t.pump()
    return t


def capped_game(start_daemon, clients, tmp_path, ctl):
    """alice plays a game of a small-page database, which is then compacted
    and capped at its size (--db-max-size); bob (registered) watches her.
    Returns (daemon, alice, bob, game id, seed)."""
    small_page_db(tmp_path / "daemon")
    d = start_daemon(extra=["--control", ctl])
    a = clients(d.port).connected()
    a.register("alice")
    a.random_character("alice")
    m = re.search(r"game start user=alice game=(\d+) seed=(\d+)", d.log())
    game, seed = int(m.group(1)), int(m.group(2))
    b = clients(d.port).connected()
    b.register("bob")
    a.play_keys("hjkl")
    d.stop_clean()
    size = compact(d.db)
    restart(d, "--db-max-size", size)
    d.wait_log(rf"database cap {size} bytes")
    a = login_play(d, clients, "alice")
    b = clients(d.port).connected()
    b.login("bob")
    b.send("w")
    b.wait_for("alice")
    b.send("a")
    d.wait_log(r"watch conn=\d+ user=alice")
    a.pump()
    b.pump()
    return d, a, b, game, seed


def stored_hook(d, t, name, timeout=15):
    """The hook once every key typed is stored (its frame may go), without
    the stored count."""
    end = time.time() + timeout
    while True:
        t.send(F12, settle=False)
        m = d.wait_log(rf"hook user={name} game=\d+ hash=([0-9a-f]+) seed=(\d+) turn=(\d+) "
                       rf"seq=(\d+) stored=(\d+)")
        if m.group(4) == m.group(5):
            return {"hash": m.group(1), "seed": int(m.group(2)), "turn": int(m.group(3)),
                    "seq": int(m.group(4))}
        assert time.time() < end, "keys never stored"
        time.sleep(0.1)


def resumed_as_replayed(bindir, tmp_path, d, clients, name, game, seed):
    """name takes the game up after a restart: it must equal its stored
    journal played without interruption (hash and screen). Returns the
    terminal and the game's hook."""
    t = login_play(d, clients, name)
    got = hook(d, t, name)
    lines, h = replay(bindir, tmp_path, seed, name, journal_keys(d, game))
    assert got["hash"] == h
    assert t.lines() == lines
    return t, got


def fill(t):
    """Types '?' (the help screen, open and shut: every key answered with a
    new screen, no game time for a monster to end the game) until a key is
    not answered; returns the screen before it."""
    for _ in range(MAX_FILL):
        before = t.lines()
        if not answered(t, "?"):
            return before
    raise AssertionError("the database never filled")


def paused(d, a, b, before):
    """The pause as everyone sees it; returns the hook of the game in memory
    (the held key applied)."""
    a.wait_for(NOTICE)
    b.wait_for(NOTICE)
    a.pump()
    assert a.lines()[2:] == before[2:]  # the last frame, under the notice
    d.wait_log(r"storage failing: database or disk is full")
    d.wait_log(r"game paused user=alice ")
    return hook(d, a, "alice")


def paused_game(start_daemon, clients, tmp_path, ctl):
    """capped_game filled until alice's game pauses: (daemon, alice, bob,
    game id, seed, the screen before the held key, the hook with it)."""
    d, a, b, game, seed = capped_game(start_daemon, clients, tmp_path, ctl)
    before = fill(a)
    return d, a, b, game, seed, before, paused(d, a, b, before)


@FULL
def test_full_database_pauses_and_loses_nothing(bindir, tmp_path, start_daemon, clients,
                                                ctl_dir):
    ctl = f"{ctl_dir}/w.ctl"
    d, a, b, game, seed, before, held = paused_game(start_daemon, clients, tmp_path, ctl)
    acked = held["seq"] - 1

    # keys typed while paused are dropped: never applied, nothing answered
    a.play_keys("..hj")
    assert hook(d, a, "alice")["seq"] == held["seq"]
    assert a.lines()[2:] == before[2:] and NOTICE in a.text()
    assert d.log().count("storage failing") == 1  # once, not per key

    out = admin(bindir, ctl, "health")
    assert re.search(r"storage: failing since \S+ \S+ UTC \(\d+ s\), 1 games paused", out), out
    assert re.search(r"storage last error: database or disk is full", out), out
    assert "database cap: " in out

    # a new game cannot start while storage fails: a clear message, the menu
    b.send("q")
    b.wait_for("Your choice")
    b.send("p")
    b.wait_for("The server cannot save a new game right now")
    assert "Your choice" in b.text()
    d.wait_log(r"game start refused user=bob: storage failing")

    # SIGKILL while full: every acknowledged key is stored, none after it
    d.kill(signal.SIGKILL)
    assert [s for s, _ in journal(d, game)] == list(range(1, acked + 1))
    assert (d.db_rows("SELECT max(seq) FROM snapshots WHERE game = ?", game)[0][0] or 0) <= acked

    restart(d)  # without the cap
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")
    assert resumed_as_replayed(bindir, tmp_path, d, clients, "alice", game, seed)[1]["seq"] == acked


@FULL
def test_play_resumes_by_itself_when_space_returns(bindir, tmp_path, start_daemon, clients,
                                                   ctl_dir):
    ctl = f"{ctl_dir}/w.ctl"
    d, a, b, game, seed, before, held = paused_game(start_daemon, clients, tmp_path, ctl)
    # leaving and coming back while paused: the same paused game, no snapshot
    a.send(CTRL_X)
    a.wait_for("Your choice")
    a.send("p")
    a.wait_for(NOTICE)
    assert hook(d, a, "alice")["seq"] == held["seq"]
    time.sleep(0.5)  # a few retries fail meanwhile

    # more room at runtime: the held key is stored and its frame comes,
    # with no key from the player
    assert "database cap: 67108864 bytes" in admin(bindir, ctl, "db-max-size", "64M")
    wait_gone(a, NOTICE)
    wait_gone(b, NOTICE)
    d.wait_log(r"game resumed user=alice ")
    d.wait_log(r"storage recovered after \d+ s")
    assert d.log().count("storage recovered") == 1
    assert a.lines()[2:] != before[2:]
    assert [s for s, _ in journal(d, game)][-1] == held["seq"]
    assert "storage: ok" in admin(bindir, ctl, "health")

    # play goes on; bob can start a game again
    for _ in range(6):
        assert answered(a, "?")
    b.send("q")
    b.wait_for("Your choice")
    b.random_character("bob")

    # SIGKILL: the resumed game equals its replay
    last = stored_hook(d, a, "alice")
    assert last["seq"] == held["seq"] + 6
    d.kill(signal.SIGKILL)
    restart(d)
    d.wait_log(r"recovery done: 2 games resumed, 0 broken")
    assert resumed_as_replayed(bindir, tmp_path, d, clients, "alice", game, seed)[1] == last


@FULL
def test_shutdown_while_paused_keeps_the_journal_whole(bindir, tmp_path, start_daemon, clients,
                                                       ctl_dir):
    ctl = f"{ctl_dir}/w.ctl"
    d, a, b, game, seed, before, held = paused_game(start_daemon, clients, tmp_path, ctl)
    t0 = time.time()
    d.stop_clean()  # SIGTERM: a few retries, then a clean exit
    assert time.time() - t0 < 10
    assert re.search(rf"shutdown: game={game} user=alice: 1 keys could not be stored", d.log())
    assert [s for s, _ in journal(d, game)] == list(range(1, held["seq"]))

    restart(d)
    _, got = resumed_as_replayed(bindir, tmp_path, d, clients, "alice", game, seed)
    assert got["seq"] == held["seq"] - 1


def test_journal_gap_restores_the_part_before_it(bindir, tmp_path, daemon, clients):
    d = daemon
    t = clients(d.port).connected()
    t.register("gus")
    t.random_character("gus")
    game, seed = map(int, re.search(r"game start user=gus game=(\d+) seed=(\d+)",
                                    d.log()).groups())
    t.play_keys("hjklhj..")
    n = stored_hook(d, t, "gus")["seq"]
    assert n == 9
    d.kill(signal.SIGKILL)
    gap = n - 3  # rows after it: gap + 1 .. n
    d.db_write(("DELETE FROM journal WHERE game = ? AND seq = ?", (game, gap)))
    whole = journal_keys(d, game)

    d.start()
    d.wait_log(rf"journal gap at seq {gap + 1} game={game} user=gus: restored to seq {gap - 1}; "
               rf"3 rows after the gap kept aside, not played")
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")
    eventually(lambda: [s for s, _ in journal(d, game)] == list(range(1, gap)))
    assert d.db_rows("SELECT after_seq, seq FROM journal_aside WHERE game = ? ORDER BY seq",
                     game) == [(gap - 1, s) for s in range(gap + 1, n + 1)]
    assert d.db_rows("SELECT state FROM games WHERE id = ?", game) == [("live",)]

    assert journal_keys(d, game) == whole[:gap - 1]
    t2, got = resumed_as_replayed(bindir, tmp_path, d, clients, "gus", game, seed)
    assert got["seq"] == gap - 1

    # the journal goes on from there, and a crash later restores it whole
    t2.play_keys("lk")
    last = stored_hook(d, t2, "gus")
    assert last["seq"] == gap + 1
    d.kill(signal.SIGKILL)
    d.start()
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")
    assert resumed_as_replayed(bindir, tmp_path, d, clients, "gus", game, seed)[1] == last


def test_unrestorable_game_is_kept_and_its_player_told(bindir, tmp_path, start_daemon, clients,
                                                       ctl_dir):
    ctl = f"{ctl_dir}/w.ctl"
    d = start_daemon(extra=["--control", ctl])
    games = {}
    for name in ("uma", "vic"):
        t = clients(d.port).connected()
        t.register(name)
        t.random_character(name)
        t.play_keys("hjkl")
        assert stored_hook(d, t, name)["seq"] == 5
        games[name] = int(re.search(rf"game start user={name} game=(\d+)", d.log()).group(1))
        t.close()
    d.kill(signal.SIGKILL)
    # uma's first row and her snapshot are gone: nothing to go on from
    d.db_write(("DELETE FROM journal WHERE game = ? AND seq = 1", (games["uma"],)),
               ("DELETE FROM snapshots WHERE game = ?", (games["uma"],)))

    d.start()
    why = "journal gap at seq 2 with no row before it"
    d.wait_log(rf"game cannot be restored game={games['uma']} user=uma: {why} \(kept as broken\)")
    d.wait_log(r"recovery done: 1 games resumed, 1 broken")
    health = admin(bindir, ctl, "health")
    assert f"broken game {games['uma']} user=uma: {why}" in health, health

    # told at login, before any new game; then 'p' starts one
    t = clients(d.port).connected()
    t.login("uma")
    t.wait_for("Your last game could not be restored")
    d.wait_log(rf"told user=uma game={games['uma']} could not be restored")
    assert f"broken game {games['uma']} user=uma (told): {why}" in admin(bindir, ctl, "health")
    t.send("p")
    t.wait_for("Choose a race.")
    d.wait_log(r"game start user=uma ")
    assert d.db_rows("SELECT state, broken_reason FROM games WHERE id = ?",
                     games["uma"]) == [("broken", why)]
    assert d.db_rows("SELECT count(*) FROM journal WHERE game = ?", games["uma"]) == [(4,)]

    # vic's game stops loading while the daemon runs (another content
    # version, and no snapshot to go on from: its seed's game was another):
    # 'p' tells him and returns to the menu; the next 'p' is new. A snapshot
    # recovery may still be writing of his game lands first.
    newest = "SELECT (SELECT max(seq) FROM snapshots WHERE game = ?) = " \
             "(SELECT max(seq) FROM journal WHERE game = ?)"
    deadline = time.monotonic() + 20
    while d.db_rows(newest, games["vic"], games["vic"]) != [(1,)]:
        assert time.monotonic() < deadline, "recovery's snapshot of vic's game never landed"
        time.sleep(0.1)
    d.db_write(("UPDATE games SET content_version = 'older' WHERE id = ?", (games["vic"],)),
               ("DELETE FROM snapshots WHERE game = ?", (games["vic"],)))
    v = clients(d.port).connected()
    v.login("vic")
    v.send("p")
    v.wait_for("Your last game could not be restored")
    assert "Your choice" in v.text()
    d.wait_log(rf"game cannot be restored game={games['vic']} user=vic: content version older, "
               rf"this server has \S+: no snapshot to go on from \(kept as broken\)")
    v.send("p")
    v.wait_for("Choose a race.")
    assert d.db_rows("SELECT state FROM games WHERE id = ?", games["vic"]) == [("broken",)]


def test_a_game_that_fails_to_restore_lets_its_lease_go(start_daemon, clients):
    """A returning player's game that cannot be restored is kept as broken
    and its lease (PostgreSQL: the row naming the node that runs it) is
    let go, not renewed by this node for ever. On SQLite leases are off and
    the row never exists; the rest holds on both."""
    d = start_daemon()
    t = clients(d.port).connected()
    t.register("wes")
    t.random_character("wes")
    t.play_keys("hjkl")
    assert stored_hook(d, t, "wes")["seq"] == 5
    game = int(re.search(r"game start user=wes game=(\d+)", d.log()).group(1))
    t.close()
    d.kill(signal.SIGKILL)  # so the game is read from the database again
    d.start()
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")
    newest = "SELECT (SELECT max(seq) FROM snapshots WHERE game = ?) = " \
             "(SELECT max(seq) FROM journal WHERE game = ?)"
    eventually(lambda: d.db_rows(newest, game, game) == [(1,)], timeout=20)
    eventually(lambda: d.db_rows("SELECT count(*) FROM leases WHERE game = ?", game) == [(0,)])
    d.db_write(("UPDATE games SET content_version = 'older' WHERE id = ?", (game,)),
               ("DELETE FROM snapshots WHERE game = ?", (game,)))
    v = clients(d.port).connected()
    v.login("wes")
    v.send("p")
    v.wait_for("Your last game could not be restored")
    d.wait_log(rf"game cannot be restored game={game} user=wes: .*\(kept as broken\)")
    eventually(lambda: d.db_rows("SELECT state FROM games WHERE id = ?", game) == [("broken",)])
    leased = "SELECT count(*) FROM leases WHERE game = ?"
    eventually(lambda: d.db_rows(leased, game) == [(0,)], timeout=5)
    v.send("p")  # a new game, under a lease of its own
    v.wait_for("Choose a race.")


@LOCK
def test_game_creation_while_unwritable_returns_to_the_menu(daemon, clients):
    """No game is paused, but the database cannot be written (another
    process holds its write lock): the new game's row fails, the player is
    told and stays in the menu; once the lock goes, 'p' starts the game."""
    d = daemon
    t = clients(d.port).connected()
    t.register("wes")
    con = sqlite3.connect(str(d.db), isolation_level=None, timeout=10)
    try:
        con.execute("BEGIN IMMEDIATE")  # the write lock, held
        t.send("p")
        t.wait_for("The server cannot save a new game right now", timeout=30)
        assert "Your choice" in t.text()
        assert "Choose a race." not in t.text()
        d.wait_log(r"game create failed user=wes game=\d+: database is locked")
        assert d.db_rows("SELECT count(*) FROM games") == [(0,)]
    finally:
        con.execute("ROLLBACK")
        con.close()
    t.random_character("wes")
    d.wait_log(r"game start user=wes game=\d+")
    assert d.db_rows("SELECT count(*) FROM games WHERE state = 'live'") == [(1,)]


# ---- the database watched -----------------------------------------------------------------

def admin_any(bindir, ctl, *args):
    """warren-admin's (exit status, stdout, stderr), whatever the status."""
    tool = program(bindir, "asan/warren-admin", "warren-admin")
    r = subprocess.run([str(tool), "--control", ctl, *args], capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def refused(d, timeout=60):
    """Starts d, which must refuse to start: exit status 1, never ready, no
    sanitizer report. Returns what it logged."""
    pos = len(d.log())
    with open(d.logpath, "ab") as log:
        d.proc = subprocess.Popen(d.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                  cwd=d.dir, env=d.env, **d.popen)
    end = time.time() + timeout
    while d.proc.poll() is None:
        assert " ready" not in d.log()[pos:], "started instead of refusing:\n" + d.log()[pos:]
        assert time.time() < end, "neither started nor refused:\n" + d.log()[pos:]
        time.sleep(0.05)
    out = d.log()[pos:]
    assert d.proc.returncode == 1, out
    assert " ready" not in out and not any(w in out for w in SANITIZER_WORDS), out
    d.logpos = len(d.log())
    return out


def beside(db, suffix):
    """The file beside the database: warren.db-wal, warren.db.id, ..."""
    return db.with_name(db.name + suffix)


def kept_id(db):
    """The id in warren.db.id (its first line)."""
    return beside(db, ".id").read_text().split("\n")[0]


def db_id(path):
    """The id stored in the database itself."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("SELECT value FROM meta WHERE key = 'id'").fetchone()[0]
    finally:
        con.close()


def watched_game(start_daemon, clients, ctl, *flags):
    """alice plays (her keys stored), bob (registered) watches her.
    Returns (daemon, alice, bob)."""
    d = start_daemon(extra=["--control", ctl, *flags])
    a = clients(d.port).connected()
    a.register("alice")
    a.random_character("alice")
    a.play_keys("hj")
    stored_hook(d, a, "alice")
    b = clients(d.port).connected()
    b.register("bob")
    b.send("w")
    b.wait_for("alice")
    b.send("a")
    d.wait_log(r"watch conn=\d+ user=alice")
    b.pump()
    return d, a, b


@FILE
def test_deleted_database_stops_answering_and_is_never_made_anew(bindir, tmp_path, start_daemon,
                                                                 clients, ctl_dir):
    ctl = f"{ctl_dir}/w.ctl"
    d, a, b = watched_game(start_daemon, clients, ctl)
    backup = tmp_path / "backup.db"  # the operator's backup, taken while it runs
    src, dst = sqlite3.connect(str(d.db)), sqlite3.connect(str(backup))
    src.backup(dst)
    src.close()
    dst.close()
    before = stored_hook(d, a, "alice")

    os.unlink(d.db)
    d.wait_log(r"storage lost: the database file \S+warren\.db was deleted\. No key is "
               r"acknowledged from now on.*restore the database and restart warrend")
    # told at once, player and watcher, without a key
    a.wait_for(LOST)
    b.wait_for(LOST)
    assert "restored and restarted" in a.text()
    # the next keys get no answer: dropped, never applied
    a.play_keys("hjkl")
    assert hook(d, a, "alice")["seq"] == before["seq"]
    assert LOST in a.text()
    assert d.log().count("storage lost") == 1

    code, out, _ = admin_any(bindir, ctl, "health")
    assert re.search(r"storage: lost since \S+ \S+ UTC: the database file \S+warren\.db was "
                     r"deleted; nothing is acknowledged until it is restored", out), out

    # a registration and a new game are refused with a message
    c = clients(d.port).connected()
    c.menu("r", ("Name:", "carol"), ("Password:", PW), ("Password again:", PW))
    c.wait_for("The server cannot save a new account right now", timeout=30)
    b.send("q")
    b.wait_for("Your choice")
    b.send("p")
    b.wait_for("The server cannot save a new game right now", timeout=30)
    d.wait_log(r"game create failed user=bob game=\d+: the database file \S+ was deleted")

    # it never goes on by itself: still lost a while later
    time.sleep(1.5)
    a.play_keys("h")
    assert hook(d, a, "alice")["seq"] == before["seq"] and LOST in a.text()

    d.stop_clean()
    assert not d.db.exists()
    assert not beside(d.db, "-wal").exists()  # moved aside, never read by a restore
    assert kept_id(d.db) == db_id(backup)

    # restarted: refused, and no empty database made in its place
    out = refused(d)
    assert re.search(r"cannot start: database \S+warren\.db is missing, but \S+warren\.db\.id "
                     rf"says database {kept_id(d.db)} belongs here: warrend will not start a "
                     r"new, empty one", out), out
    assert "delete " in out and not d.db.exists()

    # the backup put back: it starts, and alice's game goes on from it
    shutil.copy(backup, d.db)
    d.start()
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")
    t = login_play(d, clients, "alice")
    assert hook(d, t, "alice")["seq"] == before["seq"]
    assert answered(t, "?")


@FILE
def test_other_database_is_refused_until_its_id_file_goes(start_daemon, clients):
    first = start_daemon()
    clients(first.port).connected().register("ann")
    other = start_daemon()
    clients(other.port).connected().register("ben")
    first.stop_clean()
    other.stop_clean()
    shutil.copy(first.db, first.dir / "mine.db")
    shutil.copy(other.db, first.db)  # the wrong file put in place

    out = refused(first)
    mine, theirs = db_id(first.dir / "mine.db"), db_id(first.db)
    assert mine != theirs
    assert (f"database {first.db} is database {theirs}, but {first.db}.id says database "
            f"{mine} belongs here: the file was replaced") in out, out
    # deleting the id file adopts the database there, on purpose
    beside(first.db, ".id").unlink()
    first.start()
    assert first.log().count(f"database id kept in {first.db}.id") == 2  # made, then adopted
    assert first.db_rows("SELECT name FROM users") == [("ben",)]
    assert kept_id(first.db) == theirs


def add_filler(db, rows=150000):
    """Tables warrend never reads: rows random 200-byte rows (about 33 MB:
    its quick check takes some 30 ms), and an index whose definition no
    longer matches its entries, which only the full check sees."""
    con = sqlite3.connect(str(db), isolation_level=None)
    try:
        con.execute("CREATE TABLE filler(x BLOB NOT NULL)")
        con.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
                    "INSERT INTO filler SELECT randomblob(200) FROM n", (rows,))
        con.execute("CREATE TABLE mismatch(a INTEGER, b INTEGER)")
        con.execute("CREATE INDEX mismatch_a ON mismatch(a)")
        con.executemany("INSERT INTO mismatch VALUES (?, ?)", [(i, -i) for i in range(1, 50)])
        con.execute("PRAGMA writable_schema = ON")
        con.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX mismatch_a ON mismatch(b)' "
                    "WHERE name = 'mismatch_a'")
        con.execute("PRAGMA writable_schema = OFF")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()


@FILE
def test_damaged_database_is_refused_and_check_db_finds_it(bindir, tmp_path, start_daemon,
                                                           clients, ctl_dir):
    ctl = f"{ctl_dir}/w.ctl"
    d = start_daemon(extra=["--control", ctl])
    clients(d.port).connected().register("dee")
    d.stop_clean()
    add_filler(d.db)
    good = tmp_path / "good.db"
    shutil.copy(d.db, good)

    # pages in the middle overwritten: refused, with what to do
    pages = d.db.stat().st_size // 4096
    rnd = random.Random(25)
    with open(d.db, "r+b") as f:
        for p in range(pages // 2, pages // 2 + 4):
            f.seek(p * 4096)
            f.write(bytes(rnd.randrange(256) for _ in range(4096)))
    out = refused(d)
    assert re.search(rf"cannot start: database {re.escape(str(d.db))} is damaged \(.+\): warrend "
                     r"will not start on it\. Restore it from a backup", out), out
    assert ".recover" in out
    assert re.search(r"database quick check ok \(\d+ ms\)", d.log())  # the first start

    # a budget too short for the quick check: it starts and says so; the
    # full check on request finds what no quick check sees
    shutil.copy(good, d.db)
    pos = len(d.log())
    restart(d, "--db-check-ms", 1)
    assert re.search(r"database quick check cut short after \d+ ms \(db-check-ms\): the rest of "
                     r"the file is unchecked; warren-admin check-db checks it all",
                     d.log()[pos:]), d.log()[pos:]
    code, out, err = admin_any(bindir, ctl, "check-db")
    assert code == 1 and "missing from index mismatch_a" in out, (out, err)
    assert re.search(r"integrity: damaged \(\d+ ms\)", out), out
    assert "the database is damaged: restore it from a backup" in err
    d.wait_log(r"admin: check-db: the database is damaged \(\d+ problems, the first: row \d+ "
               r"missing from index mismatch_a")


@LOCK
def test_stalled_writes_show_the_notice_and_are_logged(bindir, start_daemon, clients, ctl_dir):
    """Another program holds the database's write lock (a real SQLite
    connection, BEGIN IMMEDIATE) while the daemon's busy timeout is long:
    its writer waits inside SQLite, as on a frozen disk."""
    ctl = f"{ctl_dir}/w.ctl"
    d, a, b = watched_game(start_daemon, clients, ctl, "--db-busy-ms", 60000)
    before = stored_hook(d, a, "alice")
    lock = sqlite3.connect(str(d.db), isolation_level=None, timeout=10)
    try:
        lock.execute("BEGIN IMMEDIATE")
        t0 = time.time()
        a.send("?", settle=False)  # applied, its row waits for the lock
        d.wait_log(r"storage stalled: a database write has not finished in 3\.\d s; games show "
                   r"a notice", timeout=20)
        assert time.time() - t0 >= 3
        a.wait_for(STALLED)
        b.wait_for(STALLED)
        code, out, _ = admin_any(bindir, ctl, "health")  # at once: its reads would wait
        assert code == 0 and re.search(r"storage: stalled since \S+ \S+ UTC \(\d+ s\): a database "
                                     r"write has not finished", out), out
        a.play_keys("hj")  # dropped while the notice is up
        got = hook(d, a, "alice")
        assert got["seq"] == before["seq"] + 1
        time.sleep(1)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    m = d.wait_log(r"storage stall over after (\d+\.\d) s: games go on", timeout=20)
    assert float(m.group(1)) >= 3
    wait_gone(a, STALLED)
    wait_gone(b, STALLED)
    assert stored_hook(d, a, "alice")["seq"] == before["seq"] + 1
    assert "storage: ok" in admin(bindir, ctl, "health")
    assert answered(a, "?")


@FILE
def test_files_are_private_whatever_the_umask(start_daemon, clients, ctl_dir):
    ctl = f"{ctl_dir}/w.ctl"
    d = start_daemon(extra=["--control", ctl], popen={"umask": 0})
    clients(d.port).connected().register("una")  # the WAL has frames
    files = [d.db, beside(d.db, "-wal"), beside(d.db, "-shm"), beside(d.db, ".id"), ctl]

    def modes():
        return {str(f): oct(stat.S_IMODE(os.stat(f).st_mode)) if os.path.exists(f) else None
                for f in files}
    assert set(modes().values()) == {"0o600"}, modes()
    d.kill(signal.SIGKILL)  # its -wal and -shm stay
    for f in files[:4]:
        os.chmod(f, 0o644)
    pos = len(d.log())
    d.start()
    for f in files[:4]:
        assert f"file {f} had mode 0644 (open to other users): now 0600" in d.log()[pos:]
    assert set(modes().values()) == {"0o600"}, modes()
