"""Admin commands that meet another transaction's locks on PostgreSQL (a
deadlock the server ends by aborting the daemon's side, SQLSTATE 40P01):
the writer runs such a transaction again, whole, a few times (db/db_retry.c);
a conflict left after its tries is told in words, nothing changed
(server/admin/control.c's ctl_fail). WARREN_DB=pg only.

The deadlock is a real one between two sessions: a trigger makes the
daemon's UPDATE of users.locked lock table lock_a, wait a moment, then
lock_b; the test's session holds lock_b and, once the daemon holds
lock_a, asks for lock_a (its deadlock_timeout long, so the daemon's side
is the one PostgreSQL ends)."""
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
