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
game starts."""
import re
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time

import pytest

from harness import CTRL_X, F12, PW, hook, program, replay

NOTICE = "The server cannot save right now"
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
    # version): 'p' tells him and returns to the menu; the next 'p' is new
    d.db_write(("UPDATE games SET content_version = 'older' WHERE id = ?", (games["vic"],)))
    v = clients(d.port).connected()
    v.login("vic")
    v.send("p")
    v.wait_for("Your last game could not be restored")
    assert "Your choice" in v.text()
    d.wait_log(rf"game cannot be restored game={games['vic']} user=vic: content version older")
    v.send("p")
    v.wait_for("Choose a race.")
    assert d.db_rows("SELECT state FROM games WHERE id = ?", games["vic"]) == [("broken",)]


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
