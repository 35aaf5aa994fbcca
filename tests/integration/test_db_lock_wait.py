"""A row another PostgreSQL session holds (an operator's psql left in a
transaction): how long the daemon's writers wait for it, and whom that
wait holds up. WARREN_DB=pg only.

- db-lock-wait-ms sets the writers' lock_timeout (500 ms by default): a
  lock of an account whose users row is held is given up on after four
  such waits (db.h's DB_LOCK_WAIT_MS: one a try, two on the last), so
  the admin's answer takes about four times the setting, and the log's
  conflict line says the wait; a value out of its bounds, or no number,
  is refused at start with the setting's name and bounds.
- only the writes that need the held row wait: an account's writes go in
  batches of their own (db.c's take), which say their rows, so the other
  writers go on storing other players' keys beside them; a player's key
  is answered within a bound far below the lock wait while the lock
  waits."""
import contextlib
import statistics
import subprocess
import threading
import time

import pytest

from harness import ON_PG, admin_rc, daemon_exe, new_game
from test_db_conflict import writer_waits_for_lock

pytestmark = pytest.mark.skipif(not ON_PG, reason="PostgreSQL's row locks: WARREN_DB=pg")

TRIES_WAITS = 4  # a batch of one held-up write: a wait a try, two on the last


@contextlib.contextmanager
def held_row(d, name):
    """Another session holding name's users row (FOR UPDATE, its
    transaction left open) until the block ends."""
    import psycopg2
    con = psycopg2.connect(d.db_url)
    try:
        con.cursor().execute("SELECT id FROM users WHERE name = %s FOR UPDATE", (name,))
        yield con
    finally:
        con.rollback()
        con.close()


class Lock(threading.Thread):
    """warren-admin lock NAME in a thread: rc (code, out, err), s its time."""

    def __init__(self, bindir, d, name):
        super().__init__(daemon=True)
        self.args, self.rc, self.s, self.t0 = (bindir, d, "lock", name), None, None, None

    def run(self):
        self.t0 = time.monotonic()
        self.rc = admin_rc(*self.args)
        self.s = time.monotonic() - self.t0

    def assert_refused(self):
        """It ended and failed as busy, the account unchanged."""
        code, out, err = self.rc
        assert code != 0 and "nothing changed (try again)" in err, (code, out, err)


def wait_for_the_writer(d):
    deadline = time.monotonic() + 10
    while not writer_waits_for_lock(d.db_url):
        assert time.monotonic() < deadline, "the lock's write never waited for the row"
        time.sleep(0.01)


@pytest.mark.daemon(extra=("--db-lock-wait-ms", "1000"))
def test_the_lock_wait_is_the_setting(daemon, clients, bindir):
    """db-lock-wait-ms 1000: a lock of a held account waits four times a
    second, not four times 500 ms, then fails as busy; the log says a
    lock waited for over 1 s."""
    clients(daemon.port).connected().register("Flo")
    lock = Lock(bindir, daemon, "flo")
    with held_row(daemon, "Flo"):
        lock.start()
        lock.join(30)
    lock.assert_refused()
    assert TRIES_WAITS * 1.0 - 0.1 <= lock.s < TRIES_WAITS * 1.0 + 4, lock.s
    daemon.wait_logged(r"WARN database: a write transaction met a lock waited for over 1 s "
                       r"\(SQLSTATE 55P03\) in USER_SET_LOCKED")


@pytest.mark.parametrize("value,words", [
    ("0", "expected a number from 10 to 60000, got \"0\""),
    ("60001", "expected a number from 10 to 60000, got \"60001\""),
    ("half", "expected a number from 10 to 60000, got \"half\""),
])
def test_a_lock_wait_out_of_bounds_is_refused(bindir, tmp_path, value, words):
    """A bad db-lock-wait-ms, as a flag or in the config file, is refused
    at start with the setting's name and bounds."""
    conf = tmp_path / "warren.conf"
    conf.write_text(f"db-lock-wait-ms = {value}\n")
    for args in (["--db-lock-wait-ms", value], ["--config", str(conf)]):
        r = subprocess.run([str(daemon_exe(bindir)), "--db", str(tmp_path / "w.db"), *args],
                           capture_output=True, text=True, timeout=30, cwd=tmp_path)
        assert r.returncode != 0, (args, r.stdout, r.stderr)
        assert f"db-lock-wait-ms: {words}" in r.stdout + r.stderr, (args, r.stdout, r.stderr)
    help = subprocess.run([str(daemon_exe(bindir)), "--help"], capture_output=True, text=True)
    assert "--db-lock-wait-ms" in help.stdout, help.stdout


def key_ms(t, key="s", timeout=15):
    """Types key (a turn: the turn counter changes); the ms until its
    frame changed the screen."""
    t.pump(quiet=0.02, limit=0.2)
    before = t.text()
    t0 = time.monotonic()
    t.type_now(key)
    while t.text() == before:
        assert time.monotonic() - t0 < timeout, "the key was never answered"
        t.pump(quiet=0.005, limit=0.05)
    return (time.monotonic() - t0) * 1000


LOCK_WAIT_MS = 500  # the default db-lock-wait-ms


def test_a_held_account_row_holds_up_no_other_players_keys(daemon, clients, bindir):
    """Flo's users row held by another session: while the admin's lock of
    Flo waits for it (four waits of 500 ms), Gus's keys are still stored
    and answered, each well under the lock wait."""
    clients(daemon.port).connected().register("Flo")
    gus = clients(daemon.port).connected()
    new_game(daemon, gus, "Gus", turns=True)
    gus.send("l", settle=False)  # no choice: a random race and class
    gus.wait_for("Welcome, Gus the ")
    gus.wait_for("Turn 0")
    for _ in range(3):  # the game's first rows and keys stored
        key_ms(gus)
    lock = Lock(bindir, daemon, "flo")
    times = []
    with held_row(daemon, "Flo"):
        lock.start()
        wait_for_the_writer(daemon)
        while lock.is_alive():
            sent = time.monotonic()
            ms = key_ms(gus)
            if lock.is_alive() or sent < lock.t0 + (lock.s or 0):
                times.append(ms)
            time.sleep(0.02)
        lock.join(30)
    lock.assert_refused()
    print("ms of keys answered while the lock waited:", [round(t) for t in times])
    assert max(times) < LOCK_WAIT_MS / 2, times
    assert len(times) >= 5, times
    assert statistics.median(times) < LOCK_WAIT_MS / 5, times
