"""The database machine dies under play: players on a warrend node behind
HAProxy (telnet, TCP mode) key steadily through bin/warren-load; the
PostgreSQL primary's machine is killed (SIGKILL of every process in its
namespace) and the standby promoted, as an operator or a failover manager
would. The node's connection string names both servers with
target_session_attrs=read-write, so its writer finds the new primary by
itself; games paused meanwhile (the storage notice) go on with nothing
lost.

Commits wait for the standby (synchronous_standby_names): without that, a
key could be answered on the primary's word alone and die with it. The
check: every key a player saw answered is in the promoted database's
journal (cluster.db_failover.acked_lost, goal 0), and every player keyed on
after the promotion. A key that was out when its game paused is neither
answered nor lost (warren-load counts it apart): the daemon either stores
it on a retry or drops it, and the player saw the notice, not its frame.

WARREN_CLUSTER_PLAYERS (8) and WARREN_CLUSTER_SECONDS (40) size the run;
make test-cluster runs a larger one. test_combined.py's last step is this
failover with a node and its players beside it; the variants here (the
standby behind, the primary vanished) are this file's only."""
import os
import subprocess
import time

from conftest import bench
from cluster import TELNET_PORT

PLAYERS = int(os.environ.get("WARREN_CLUSTER_PLAYERS", "8"))
SECONDS = float(os.environ.get("WARREN_CLUSTER_SECONDS", "40"))
INTERVAL = 0.2  # seconds between one player's keys


def start_players(c, bindir, tmp_path):
    acked = tmp_path / "acked"
    out = open(tmp_path / "load.out", "w")
    load = c.client([bindir / "warren-load", "--host", c.proxy_ip, "--port", TELNET_PORT,
                     "--n", PLAYERS, "--seconds", SECONDS, "--warmup", "0", "--interval",
                     INTERVAL, "--inflight", PLAYERS, "--acked", acked, "--key-timeout", "60",
                     "--ramp-timeout", "60"], stdout=out, stderr=subprocess.STDOUT)
    return load, acked, tmp_path / "load.out"


def wait_until(pred, timeout, what, step=0.05, soft=False):
    """pred() once true; soft: None after timeout (the test goes on to
    count what was lost), else an AssertionError."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    if soft:
        return None
    raise AssertionError(f"{what}: not within {timeout} s")


def journal_by_user(c):
    """{player: (newest game, its journal rows, rows of all its games)}."""
    rows = c.sql('SELECT u.name, max(g.id), '
                 '(SELECT count(*) FROM journal j WHERE j.game = max(g.id)), '
                 '(SELECT count(*) FROM journal j JOIN games h ON h.id = j.game '
                 ' WHERE h."user" = u.id) '
                 'FROM games g JOIN users u ON u.id = g."user" GROUP BY u.id, u.name')
    got = {}
    for ln in rows.splitlines():
        name, game, rows_now, total = ln.split("|")
        got[name] = (int(game), int(rows_now), int(total))
    return got


def journal_rows(c):
    try:
        return int(c.sql("SELECT count(*) FROM journal").strip())
    except AssertionError:
        return -1  # no primary yet


def failover(c, bindir, tmp_path, cut_standby_s=0, vanish=False):
    """Players through HAProxy; the primary killed, the standby promoted.
    cut_standby_s: the standby's network cut that long before the kill
    (it falls behind), and mended at the kill. vanish: the primary's
    cable cut instead (no process dies, no connection is reset). Returns
    the figures and what was lost."""
    c.start_pg()
    c.start_nodes()
    c.start_haproxy()
    node = c.nodes[0]
    load, acked_path, out_path = start_players(c, bindir, tmp_path)
    try:
        wait_until(lambda: node.log().count(" game start user=") >= PLAYERS, 90,
                   "every player in a game")
        time.sleep(SECONDS / 4)
        assert journal_rows(c) > PLAYERS, "keys are stored before the kill"
        if cut_standby_s:
            c.net.cut("pg2")
            time.sleep(cut_standby_s)
        t_kill = time.monotonic()
        if vanish:
            c.net.cut("pg1")
        else:
            c.kill_primary()
        if cut_standby_s:
            c.net.mend("pg2")
        c.pg2.promote()
        t_promoted = time.monotonic()
        at_promotion = journal_rows(c)
        # the node's first commit on the new primary, then every paused game going on
        wrote = wait_until(lambda: journal_rows(c) > at_promotion, 40, "", soft=True)
        t_first = time.monotonic() if wrote else None
        paused = node.log().count(" game paused user=")
        recovered = wrote and (not paused or wait_until(
            lambda: "storage recovered after" in node.log(), 30, "", soft=True))
        t_recovered = time.monotonic() if recovered else None
        after_recovery = journal_by_user(c)
        load.wait(timeout=SECONDS * 3 + 120)
    finally:
        if load.poll() is None:
            load.kill()
            load.wait()
    out = out_path.read_text()
    acked = {name: int(n) for name, n in
             (ln.split() for ln in acked_path.read_text().splitlines())}
    assert len(acked) == PLAYERS, out
    final = journal_by_user(c)
    lost = {name: (n, final[name][1] if name in final else 0) for name, n in acked.items()
            if name not in final or final[name][1] < n}
    figures = {"acked_lost": sum(n - have for n, have in lost.values()),
               "promote.ms": round((t_promoted - t_kill) * 1000),
               "first_write.ms": round((t_first - t_kill) * 1000) if t_first else "never",
               "recover.ms": round((t_recovered - t_kill) * 1000) if t_recovered else "never",
               "keys_acked": sum(acked.values()), "games_paused": paused}
    # every player played on after the promotion, through the same connection
    stalled = [name for name in acked
               if final[name][2] <= after_recovery.get(name, (0, 0, 0))[2]]
    return figures, lost, stalled, out


def test_db_failover_loses_no_acknowledged_key(make_cluster, bindir, tmp_path):
    c = make_cluster(nodes=1)
    figures, lost, stalled, out = failover(c, bindir, tmp_path)
    for name, v in figures.items():
        bench(f"cluster.db_failover.{name}", v)
    assert not lost, f"acknowledged keys missing after the failover: {lost}\n{out}"
    assert not stalled, f"players who could not key on after the failover: {stalled}\n{out}"
    assert figures["recover.ms"] != "never", c.nodes[0].log()[-3000:]
    assert "sessions lost after they had played" not in out, out
    assert c.nodes[0].alive(), c.nodes[0].log()[-3000:]


def test_db_failover_after_the_standby_fell_behind(make_cluster, bindir, tmp_path):
    """The standby's network is cut for 3 s before the primary dies: with
    synchronous commits nothing is answered meanwhile (the games pause),
    so the promoted standby, behind as it is, still has every answered
    key. (With asynchronous replication this run loses the keys answered
    during the cut: Cluster(sync=False).)"""
    c = make_cluster(nodes=1)
    figures, lost, stalled, out = failover(c, bindir, tmp_path, cut_standby_s=3)
    bench("cluster.db_failover.behind.acked_lost", figures["acked_lost"])
    bench("cluster.db_failover.behind.recover.ms", figures["recover.ms"])
    assert figures["games_paused"] > 0 or "storage stalled" in c.nodes[0].log()
    assert not lost, f"acknowledged keys missing after the failover: {lost}\n{out}"
    assert not stalled, f"players who could not key on after the failover: {stalled}\n{out}"


def test_db_failover_when_the_primary_vanishes(make_cluster, bindir, tmp_path):
    """The primary's cable cut: its connections hang rather than fail, and
    the node must give them up by itself (the URL's tcp_user_timeout and
    keepalives) before it can reach the promoted standby. The old primary
    lives on, cut off: it can commit nothing, since no standby confirms."""
    c = make_cluster(nodes=1)
    figures, lost, stalled, out = failover(c, bindir, tmp_path, vanish=True)
    bench("cluster.db_failover.vanish.acked_lost", figures["acked_lost"])
    bench("cluster.db_failover.vanish.recover.ms", figures["recover.ms"])
    assert not lost, f"acknowledged keys missing after the failover: {lost}\n{out}"
    assert not stalled, f"players who could not key on after the failover: {stalled}\n{out}"
    assert figures["recover.ms"] != "never", c.nodes[0].log()[-3000:]

