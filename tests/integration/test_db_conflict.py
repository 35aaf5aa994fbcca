"""Admin commands that meet another transaction's locks on PostgreSQL (a
deadlock the server ends by aborting the daemon's side, SQLSTATE 40P01):
the writer runs such a transaction again, whole, a few times (db/db_retry.c);
a conflict left after its tries is told in words, nothing changed
(server/admin/control.c's ctl_fail). WARREN_DB=pg only.

The deadlock is a real one between two sessions: a trigger makes the
daemon's UPDATE of users.locked lock table lock_a, wait a moment, then
lock_b; the test's session holds lock_b and, once the daemon holds
lock_a, asks for lock_a (its deadlock_timeout long, so the daemon's side
is the one PostgreSQL ends: its writer's lock_timeout, DB_LOCK_WAIT_MS,
ends the wait as 55P03 before its deadlock_timeout would look).

Each conflict is logged in one line, capped (server/core/storage.c's
on_conflict: STORAGE_CONFLICT_LINES a window from one SQLSTATE, the rest
counted and said)."""
import re
import threading
import time

import pytest

from harness import ON_PG, admin, admin_rc

pytestmark = pytest.mark.skipif(not ON_PG, reason="deadlocks of PostgreSQL: WARREN_DB=pg")

SETUP = """
CREATE TABLE lock_a (x int);
CREATE TABLE lock_b (x int);
CREATE FUNCTION lock_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE lock_a IN EXCLUSIVE MODE;
    PERFORM pg_sleep(0.4);
    LOCK TABLE lock_b IN EXCLUSIVE MODE;
    RETURN NEW;
END $$;
CREATE TRIGGER lock_in_order BEFORE UPDATE OF locked ON users
    FOR EACH ROW EXECUTE FUNCTION lock_in_order();
"""

HOLDS_A = ("SELECT count(*) FROM pg_locks WHERE relation = 'lock_a'::regclass "
           "AND granted AND pid <> pg_backend_pid()")


class Deadlocks(threading.Thread):
    """Makes the daemon's next `times` tries of the lock deadlock with a
    session of its own (until stopped): count, how many it made."""

    def __init__(self, url, times):
        import psycopg2
        super().__init__(daemon=True)
        self.con = psycopg2.connect(url)
        cur = self.con.cursor()
        cur.execute(SETUP)
        cur.execute("SET deadlock_timeout = '20s'")  # the daemon's side finds it
        self.con.commit()
        self.times, self.count, self.stop = times, 0, threading.Event()

    def daemon_holds_a(self, cur):
        while not self.stop.is_set():
            cur.execute(HOLDS_A)
            if cur.fetchone()[0]:
                return True
            time.sleep(0.01)
        return False

    def run(self):
        cur = self.con.cursor()
        while self.count < self.times and not self.stop.is_set():
            cur.execute("LOCK TABLE lock_b IN EXCLUSIVE MODE")
            if self.daemon_holds_a(cur):
                cur.execute("LOCK TABLE lock_a IN EXCLUSIVE MODE")  # waits: the daemon is ended
                self.count += 1
            self.con.rollback()

    def end(self):
        self.stop.set()
        self.join(30)
        self.con.close()


def conflicts(bindir, d):
    """warren-admin health's counts: transactions run again, writes failed
    (once the batch that waited on the locks no longer counts as a stall)."""
    deadline = time.monotonic() + 15
    while True:
        out = admin(bindir, d, "health")
        m = re.search(r"conflicts: (\d+) transactions run again .*, (\d+) writes failed", out)
        if m or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def locked_of(d, name):
    return bool(d.db_rows("SELECT locked FROM users WHERE name = ?", name)[0][0])


def test_a_lock_that_meets_a_deadlock_twice_is_done_by_a_try_again(daemon, clients, bindir):
    """The lock's transaction is ended by a deadlock twice (its batch at
    once, then op by op): the writer runs it again and the account is
    locked; the admin sees no database error, and health counts the try."""
    clients(daemon.port).connected().register("Ada")
    d = Deadlocks(daemon.db_url, 2)
    d.start()
    try:
        code, out, err = admin_rc(bindir, daemon, "lock", "ada")
    finally:
        d.end()
    assert code == 0 and "Ada locked" in out, (code, out, err)
    assert "deadlock" not in (out + err).lower(), (out, err)
    assert d.count == 2
    assert locked_of(daemon, "Ada")
    again, failed = conflicts(bindir, daemon)
    assert again >= 1 and failed == 0, (again, failed)


def test_a_lock_that_meets_a_deadlock_on_every_try_says_try_again(daemon, clients, bindir):
    """The lock's transaction deadlocks on every try: after its three
    tries the admin is told in words that the account's rows were busy
    and nothing changed, never the server's error; nothing is locked, and health counts both tries again and the write
    failed. Asked again once the other session is gone, it is done."""
    clients(daemon.port).connected().register("Bo")
    d = Deadlocks(daemon.db_url, 1000)
    d.start()
    try:
        code, out, err = admin_rc(bindir, daemon, "lock", "bo")
    finally:
        d.end()
    assert code != 0, (code, out, err)
    assert ("the database was busy with the rows of Bo at the same moment (another transaction "
            "held them on each of 3 tries); nothing changed (try again)") in err, (out, err)
    assert "deadlock" not in (out + err).lower() and "ERROR" not in err, (out, err)
    assert not locked_of(daemon, "Bo")
    assert conflicts(bindir, daemon) == (2, 1)
    out = admin(bindir, daemon, "lock", "bo")
    assert "Bo locked" in out, out
    assert locked_of(daemon, "Bo")


def refuse(d, table, event, code):
    """A trigger that makes every `event` of `table` fail as PostgreSQL
    ends a transaction for another's (code: deadlock_detected,
    serialization_failure)."""
    import psycopg2
    con = psycopg2.connect(d.db_url)
    con.cursor().execute(f"""
        CREATE FUNCTION refuse_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = '{code}'; END $$;
        CREATE TRIGGER refuse_{table} BEFORE {event} ON {table}
            FOR EACH ROW EXECUTE FUNCTION refuse_{table}();""")
    con.commit()
    con.close()


def test_a_mute_that_meets_a_serialization_failure_every_time_says_it_is_not_stored(
        daemon, clients, bindir):
    """The mute's row fails with a serialization failure on every try: the
    admin is told the account's rows were busy and the mute, which holds
    at this node already, is not stored; no server error shown, no row."""
    clients(daemon.port).connected().register("Cal")
    refuse(daemon, "mutes", "INSERT OR UPDATE", "serialization_failure")
    code, out, err = admin_rc(bindir, daemon, "mute", "cal")
    assert code != 0, (code, out, err)
    assert ("the database was busy with the rows of Cal at the same moment (another "
            "transaction held them on each of 3 tries); not stored: it holds at this node "
            "only, until it restarts (try again)") in err, (out, err)
    assert "serializ" not in (out + err).lower() and "refused" not in err, (out, err)
    assert daemon.db_rows("SELECT count(*) FROM mutes") == [(0,)]
    assert conflicts(bindir, daemon) == (2, 1)


def test_a_delete_that_meets_a_deadlock_every_time_deletes_nothing(daemon, clients, bindir):
    """The account's delete deadlocks on every try: the admin is told the
    database was busy with its games and nothing was deleted; the account
    logs in again."""
    clients(daemon.port).connected().register("Dot")
    refuse(daemon, "users", "DELETE", "deadlock_detected")
    code, out, err = admin_rc(bindir, daemon, "delete", "dot", "--yes")
    assert code != 0 and ("the database was busy with Dot's games at the same moment; nothing "
                          "deleted (try again)") in err, (code, out, err)
    assert daemon.db_rows("SELECT count(*) FROM users WHERE name = ?", "Dot") == [(1,)]
    clients(daemon.port).connected().login("Dot")


LOCK_WAIT_S = 0.5  # db.h's DB_LOCK_WAIT_MS
CONFLICT_LINES = 5  # storage.h's STORAGE_CONFLICT_LINES, from one SQLSTATE a window
WINDOW_S = 10  # logcap.h's LOGCAP_WINDOW_MS


def conflict_line(state, op, tried, how):
    words = {"55P03": r"a lock waited for over 0\.5 s", "40001": "a serialization failure"}[state]
    return (rf"WARN database: a write transaction met {words} \(SQLSTATE {state}\) in {op}, "
            rf"a batch of \d+ ops \(([^)]*)\); try {tried} of 3, {how}")


def test_a_conflict_run_again_is_logged_in_one_line(daemon, clients, bindir):
    """The lock's UPDATE meets the other session's lock once (Deadlocks):
    the log says so in one line, what met it (the SQLSTATE in words), the
    op, the batch's kinds and the try, and that it is run again; the
    second try does it, with no line of its own."""
    clients(daemon.port).connected().register("Eli")
    d = Deadlocks(daemon.db_url, 1)
    d.start()
    try:
        code, out, err = admin_rc(bindir, daemon, "lock", "eli")
    finally:
        d.end()
    assert code == 0 and "Eli locked" in out, (code, out, err)
    m = daemon.wait_log(conflict_line("55P03", "USER_SET_LOCKED", 1, "run again"))
    assert "USER_SET_LOCKED" in m.group(1).split(", "), m.group(0)
    assert "try 2 of 3" not in daemon.log() and "its op fails" not in daemon.log()
    assert locked_of(daemon, "Eli")


def said_of(text, state):
    """The conflict lines of state in the log, and the lines they say
    were held back (on a line, or in the tick's held-back line)."""
    lines = re.findall(rf"WARN database: a write transaction met .* \(SQLSTATE {state}\) .*", text)
    held = sum(int(n) for n in re.findall(r"\((\d+) such lines held back\)", "\n".join(lines)))
    held += sum(int(n) for n in re.findall(
        r'held back: (\d+) lines of "database: a write transaction met a conflict" in \d+ s '
        rf"\(the last from SQLSTATE {state}\)", text))
    return len(lines), held


def test_a_storm_of_conflicts_logs_a_few_lines_and_counts_the_rest(daemon, bindir):
    """Every ban's row fails with a serialization failure: each of many
    bans meets it on its three tries (two run again, then its op fails),
    but the log says a few lines of it a window and then how many it held
    back; every conflict is in a line or that count."""
    refuse(daemon, "bans", "INSERT OR UPDATE", "serialization_failure")
    bans = 8
    start = time.monotonic()
    for i in range(bans):
        code, out, err = admin_rc(bindir, daemon, "ban", f"10.9.0.{i + 1}")
        assert code != 0 and "not stored" in err, (code, out, err)
    took = time.monotonic() - start
    daemon.wait_log(conflict_line("40001", "BAN_PUT", 1, "run again"))
    daemon.wait_log(r'held back: \d+ lines of "database: a write transaction met a conflict"',
                    timeout=WINDOW_S + 10)
    lines, held = said_of(daemon.log(), "40001")
    assert lines + held == 3 * bans, (lines, held)
    assert lines <= CONFLICT_LINES * (1 + int(took // WINDOW_S)), (lines, took)
    assert held > 0


def writer_waits_for_lock(url):
    """Whether a daemon's writer waits for a lock now."""
    import psycopg2
    con = psycopg2.connect(url)
    try:
        cur = con.cursor()
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                    "'warrend writer' AND wait_event_type = 'Lock'")
        return cur.fetchone()[0] > 0
    finally:
        con.close()


def test_a_row_held_by_another_session_fails_the_write_soft_within_the_bound(
        daemon, clients, bindir):
    """Another session holds Flo's users row (FOR UPDATE, its transaction
    left open): the lock's UPDATE waits DB_LOCK_WAIT_MS at most each time
    (the writers' lock_timeout, 55P03), so after its three tries the admin
    is told in words that the rows were busy and nothing changed, within
    a few seconds, not once the other session lets go; meanwhile the
    daemon serves others (a new player gets the menu), and the log says
    the last try's op fails."""
    import psycopg2
    clients(daemon.port).connected().register("Flo")
    con = psycopg2.connect(daemon.db_url)
    con.cursor().execute("SELECT id FROM users WHERE name = 'Flo' FOR UPDATE")
    got = {}

    def lock():
        t0 = time.monotonic()
        got["rc"] = admin_rc(bindir, daemon, "lock", "flo")
        got["s"] = time.monotonic() - t0

    t = threading.Thread(target=lock, daemon=True)
    t.start()
    deadline = time.monotonic() + 10
    while not writer_waits_for_lock(daemon.db_url) and time.monotonic() < deadline:
        time.sleep(0.02)
    clients(daemon.port).connected()  # served while the writer waits
    t.join(20)
    waited = t.is_alive()
    con.rollback()  # the other session lets go only now
    con.close()
    t.join(30)
    assert not waited, "the write waited for the other session"
    code, out, err = got["rc"]
    assert code != 0, (code, out, err)
    assert ("the database was busy with the rows of Flo at the same moment (another transaction "
            "held them on each of 3 tries); nothing changed (try again)") in err, (out, err)
    # two tries of one wait each, the last two (its batch at once, then op by op), and pauses
    assert got["s"] < 4 * LOCK_WAIT_S + 4, got["s"]
    assert not locked_of(daemon, "Flo")
    daemon.wait_log(conflict_line("55P03", "USER_SET_LOCKED", 3,
                                  r"its op fails \(told to its caller\), the rest stored"))
    assert conflicts(bindir, daemon) == (2, 1)
