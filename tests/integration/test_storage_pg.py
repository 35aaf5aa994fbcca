"""PostgreSQL storage: `db = postgresql://...` instead of the SQLite file.
A private cluster (pgcluster.py: initdb and pg_ctl in the test's own
directory, a Unix socket there and no TCP port) for each test.

- the db unit suites db_pg (every statement prepared on the server and
  checked against its row, group commit with a failing op undone alone,
  the rows whose dialects differ), db_store_pg (db_store's tests that
  are not about the SQLite file), db_game_names_pg (game names, from a
  registration and from migration 8 over older rows) and db_hosted_pg
  (recordings) run against it;
- warrend on PostgreSQL: a player registers and plays, the daemon is
  SIGKILLed, and after a restart the game resumes exactly where its
  stored journal says, equal to the same keys replayed without a break;
  no SQLite file is made; warren-admin health counts what is stored there
  and check-db says why it does not apply;
- a new game's row commits without waiting for a synchronous standby
  (its first key's row does, and takes the game's along)."""
import os
import pathlib
import re
import signal
import subprocess
import time

import pytest

from harness import PW, hook, program, replay, stored_hook
from pgcluster import PgCluster


@pytest.fixture
def pg(tmp_path):
    with PgCluster(tmp_path / "pg") as cluster:
        yield cluster


@pytest.mark.parametrize("suite,least",
                         [("db_pg", 8), ("db_store_pg", 12), ("db_game_names_pg", 3),
                          ("db_hosted_pg", 1)])
def test_db_unit_suite_runs_on_postgresql(bindir, pg, suite, least):
    url = pg.create_db("unit")
    unit = program(bindir, "asan/unit")
    r = subprocess.run([str(unit)], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, CK_RUN_SUITE=suite, CK_FORK="yes",
                                WARREN_PG_URL=url))
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    m = re.search(r"(\d+)%: Checks: (\d+), Failures: (\d+), Errors: (\d+)", out)
    assert m, out
    assert m.group(1) == "100" and int(m.group(2)) >= least, out


def admin(bindir, d, *args):
    """warren-admin on d's control socket (./warren.ctl by default with PostgreSQL,
    unless the harness named one: WARREN_DB=pg)."""
    tool = program(bindir, "asan/warren-admin", "warren-admin")
    ctl = f"{d.db}.ctl" if d.db_url else "./warren.ctl"
    return subprocess.run([str(tool), "--control", ctl, *args], capture_output=True,
                          text=True, timeout=60, cwd=d.dir)


def test_game_on_postgresql_resumes_after_sigkill(pg, bindir, tmp_path, start_daemon, clients):
    url = pg.create_db("warren")
    d = start_daemon(extra=["--db", url])
    db_id = re.search(r"database postgresql:\S+, id ([0-9a-f]{32})\n", d.log()).group(1)
    t = clients(d.port).connected()
    t.register("alice")
    t.random_character("alice")
    for key in "hjklyubn" * 3:
        t.send(key)
    before = stored_hook(d, t, "alice")
    assert before["seq"] > 0
    game = before["game"]
    # what was acknowledged is in PostgreSQL, not in a file
    rows = pg.psql(f"SELECT count(*), max(seq) FROM journal WHERE game = {game}", db="warren")
    assert rows.strip() == f"{before['seq']}|{before['seq']}"
    assert not (d.dir / "warren.db").exists()

    d.kill(signal.SIGKILL)
    d.start()
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")
    assert d.log().count(f", id {db_id}\n") == 2  # the same database on both starts
    t2 = clients(d.port).connected()
    t2.login("alice", PW)
    t2.send("p")
    d.wait_log(r"attach user=alice ")
    t2.pump()
    after = hook(d, t2, "alice")
    assert (after["hash"], after["seq"]) == (before["hash"], before["seq"])
    keys = bytes.fromhex(pg.psql(
        f"SELECT string_agg(encode(keys, 'hex'), '' ORDER BY seq) FROM journal "
        f"WHERE game = {game}", db="warren").strip())
    lines, h = replay(bindir, tmp_path, before["seed"], "alice", keys)
    assert after["hash"] == h
    assert t2.lines() == lines

    health = admin(bindir, d, "health")
    assert health.returncode == 0, health.stderr
    assert "users: 1 (0 locked)" in health.stdout, health.stdout
    assert "games: 1 unfinished, 0 finished, 0 broken" in health.stdout, health.stdout
    assert f"journal: {before['seq']} rows" in health.stdout, health.stdout
    assert re.search(r"schema: version [1-9]", health.stdout), health.stdout
    check = admin(bindir, d, "check-db")
    assert check.returncode != 0
    assert "PostgreSQL checks its own storage" in check.stdout + check.stderr


def test_a_password_in_the_arguments_is_out_of_ps(pg, bindir, start_daemon):
    """`--db postgresql://...password=...` on the command line: every local
    user reads a process's arguments, so warrend (and the spawner it forks)
    show the password starred once read, and the log says where it belongs."""
    url = pg.create_db("warren") + "&password=s3cret-pw"  # trust auth: not checked
    d = start_daemon(extra=["--db", url])
    pids = [d.proc.pid] + [int(p) for p in pathlib.Path(
        f"/proc/{d.proc.pid}/task/{d.proc.pid}/children").read_text().split()]
    assert len(pids) >= 2  # the spawner too
    for pid in pids:
        args = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
        assert b"password=*********" in args and b"s3cret" not in args, (pid, args)
    assert "the database password was given as an argument" in d.log()
    assert "s3cret" not in d.log()


def test_a_role_with_more_rights_than_a_node_needs_is_warned_of(pg, start_daemon):
    """A node needs only to own its database (deploy/RUNNING.md: createuser,
    createdb -O): as a superuser its SQL would reach the server's files and
    programs. warrend runs either way and says so when the role can more."""
    pg.psql('CREATE ROLE "node" LOGIN')  # createuser: no SUPERUSER, CREATEDB, CREATEROLE
    pg.psql('CREATE DATABASE "owned" OWNER "node"')
    pg.psql('REVOKE CONNECT ON DATABASE "owned" FROM PUBLIC')
    plain = pg.url("owned").replace(f"user={pg.role}", "user=node")
    d = start_daemon(extra=["--db", plain])
    assert "database role may do more" not in d.log()
    d.stop_clean()
    pg.psql('ALTER ROLE "node" SUPERUSER CREATEROLE')
    d.start()  # the same log: the line is the second start's
    assert re.findall(r"WARN the database role may do more than warrend needs "
                      r"\(SUPERUSER, CREATEROLE\): give the nodes a role", d.log()), d.log()


def standby_names(pg, names):
    """synchronous_standby_names set (RESET: None) and taken up: every
    backend reads it at its next command, the checkpointer tells them
    whether commits wait."""
    pg.psql(f"ALTER SYSTEM SET synchronous_standby_names = '{names}'" if names
            else "ALTER SYSTEM RESET synchronous_standby_names")
    pg.psql("SELECT pg_reload_conf()")
    time.sleep(0.5)


def test_a_game_starts_while_no_standby_answers_its_first_key_waits(pg, start_daemon, clients):
    """A new game's row (and its lease) commits without waiting for the
    WAL's flush or a synchronous standby: the player has answered nothing
    in it yet, and the commit of their first key, which waits for both,
    puts the game's row on the standby with it (the WAL is one sequence).
    With a standby named that never answers, the game's first screen
    comes; its first key's frame does not until commits no longer wait."""
    url = pg.create_db("warren")
    d = start_daemon(extra=["--db", url])
    t = clients(d.port).connected()
    t.register("alice")
    standby_names(pg, "FIRST 1 (nobody)")
    try:
        t.send("p", settle=False)
        t.wait_for("Choose a race.", timeout=10)
        t.send("l", settle=False)  # a key of the game: its row waits for the standby
        t.pump(quiet=2, limit=2)
        assert "Welcome, alice the" not in t.text(), t.text()
        assert pg.psql("SELECT count(*) FROM journal", db="warren").strip() == "0"
    finally:
        standby_names(pg, None)
    t.wait_for("Welcome, alice the", timeout=10)
    assert pg.psql("SELECT count(*) FROM games", db="warren").strip() == "1"
