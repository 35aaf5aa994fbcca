"""What a player's key costs on a node, by the primary's synchronous_commit,
in one sitting: the combined run's cluster and load (test_combined.py:
three nodes with leases and peer streams behind HAProxy, PostgreSQL
primary and synchronous standby, players through HAProxy keying every
0.5 s, a first group on node 1 each watched from node 3), then the
settings in turn, each for SECONDS, ROUNDS times, switched on the live
primary (ALTER SYSTEM, reload: every backend takes it at its next
transaction). Prints a BENCH line for each window and, at the end, the
medians per setting with their ratio to the first setting's.

    sudo WARREN_BIN=$PWD/bin /usr/bin/python3 tests/cluster/bench_sync_commit.py \\
        [--players 300] [--watchers 30] [--seconds 15] [--rounds 3] \\
        [--settings on,remote_write,local] [--waits]

Per window: the watchers' delay from the key (p50, p99), the watched
players' own key p99 (node 1, through HAProxy), every player's key p99,
node 1's writer (commits and writes: the writes a commit carries), the
primary's commits, WAL flushes, WAL bytes and the standby's lags
(pg_stat_replication, as the window ends); each role's CPU and its
threads' mean wait for a CPU (schedstat), the machine's stall shares
(/proc/pressure); with --waits, what the nodes' writer backends waited on
(pg_stat_activity sampled every 2 ms: SyncRep is the standby, WALSync and
WALWrite the primary's own WAL flush, ClientRead waiting for warrend)."""
import argparse
import pathlib
import re
import statistics
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cluster import CLIENT_MAX, ROOT, Cluster, can_make_netns, node_ip, sh  # noqa: E402

sys.path.insert(0, str(HERE))  # this directory's conftest, not tests/integration's
from test_combined import Load  # noqa: E402
from test_db_failover import wait_until  # noqa: E402
from test_node_kill import LEASES  # noqa: E402

NODES = 3


def writer_counts(bindir, node):
    """(commits, writes) of the node's writer, from warren-admin health."""
    out = sh(bindir / "warren-admin", "--control", node.dir / "warrend.ctl", "health",
             check=False)
    m = re.search(r"writer: (\d+) commits, (\d+) writes", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def pg_counts(c):
    """(commits of the warren database, WAL syncs, WAL bytes, WAL files) on
    the primary."""
    row = c.pg1.psql("SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = 'warren'),"
                     " wal_sync, wal_bytes, (SELECT count(*) FROM pg_ls_waldir()) "
                     "FROM pg_stat_wal").strip().split("|")
    return tuple(int(x) for x in row)


ROLES = ("pg1", "pg2", "lb", "n1", "n3", "cl")


def sched(c):
    """{role: [ns on a CPU, ns waiting for one, times run]} summed over the
    threads of the role's namespace (/proc/PID/task/TID/schedstat)."""
    out = {}
    for role in ROLES:
        tot = [0, 0, 0]
        for pid in sh("ip", "netns", "pids", c.net.ns(role), check=False).split():
            try:  # a process may end meanwhile
                tasks = list(pathlib.Path(f"/proc/{pid}/task").iterdir())
            except OSError:
                continue
            for task in tasks:
                try:
                    v = [int(x) for x in (task / "schedstat").read_text().split()]
                except (OSError, ValueError):
                    continue
                tot = [a + b for a, b in zip(tot, v)]
        out[role] = tot
    return out


def pressure():
    """The machine's stall totals (us) from /proc/pressure: time some task
    waited for a CPU, for I/O, and all tasks for I/O at once."""
    def total(res, kind):
        for ln in pathlib.Path(f"/proc/pressure/{res}").read_text().splitlines():
            if ln.startswith(kind):
                return int(ln.rsplit("total=", 1)[1])
        return 0
    try:
        return total("cpu", "some"), total("io", "some"), total("io", "full")
    except OSError:
        return 0, 0, 0


def set_commit(c, setting):
    c.pg1.psql(f"ALTER SYSTEM SET synchronous_commit = '{setting}'")
    c.pg1.psql("SELECT pg_reload_conf()")
    wait_until(lambda: c.pg1.psql("SHOW synchronous_commit").strip() == setting, 10,
               f"synchronous_commit {setting}")


WAITS_SQL = """
CREATE TEMP TABLE w (ev text, n int DEFAULT 0, PRIMARY KEY (ev));
DO $$
DECLARE t timestamptz := clock_timestamp() + interval '%d ms';
BEGIN
  WHILE clock_timestamp() < t LOOP
    INSERT INTO w (ev, n)
      SELECT coalesce(wait_event, CASE WHEN state = 'active' THEN 'on a CPU' ELSE state END),
             count(*)
      FROM pg_stat_activity WHERE application_name = 'warrend writer' GROUP BY 1
      ON CONFLICT (ev) DO UPDATE SET n = w.n + excluded.n;
    PERFORM pg_stat_clear_snapshot();  -- else the transaction sees one snapshot
    PERFORM pg_sleep(0.002);
  END LOOP;
END $$;
SELECT ev, n FROM w ORDER BY n DESC;
"""


def writer_waits(c, ms, out):
    """What the nodes' writer backends wait on (pg_stat_activity sampled
    every 2 ms for ms): {wait event, or "on a CPU", or "idle": share}."""
    got = c.pg1.psql(WAITS_SQL % ms, db="warren")
    rows = [ln.split("|") for ln in got.splitlines() if "|" in ln]
    total = sum(int(n) for _, n in rows) or 1
    out.update({ev: round(int(n) / total, 3) for ev, n in rows})


def window(c, bindir, loads, seconds, waits=False):
    """The figures of the next seconds of play."""
    for ld in loads:  # what came before (the switch) is not counted
        ld.mark()
    waited = {}
    th = None
    if waits:
        th = threading.Thread(target=writer_waits, args=(c, int(seconds * 1000) - 500, waited))
        th.start()
    w0, p0, s0, t0 = writer_counts(bindir, c.nodes[0]), pg_counts(c), sched(c), time.monotonic()
    q0 = pressure()
    time.sleep(seconds)
    marks = [ld.mark() for ld in loads]
    if th:
        th.join()
    w1, p1, s1, t1 = writer_counts(bindir, c.nodes[0]), pg_counts(c), sched(c), time.monotonic()
    q1 = pressure()
    cpu = {}
    for role in ROLES:  # the CPU it used, and how long a thread woken waited for one
        run, wait, n = (b - a for a, b in zip(s0[role], s1[role]))
        cpu[f"{role}.cpu_ms_per_s"] = round(run / 1e6 / (t1 - t0), 1)
        cpu[f"{role}.runq_wait_us"] = round(wait / 1e3 / max(1, n))
    # the share of the window the machine stalled (other work as much as this)
    for name, a, b in zip(("cpu_some", "io_some", "io_full"), q0, q1):
        cpu[f"machine.{name}.pct"] = round((b - a) / 1e4 / (t1 - t0), 1)
    lag = c.pg1.psql("SELECT coalesce(extract(epoch FROM write_lag) * 1e6, 0)::int, "
                     "coalesce(extract(epoch FROM flush_lag) * 1e6, 0)::int "
                     "FROM pg_stat_replication").strip().split("|")
    wm = marks[0]
    commits = max(1, w1[0] - w0[0])
    return {"wkey.p99.us": wm["wkey.p99.us"], "wkey.p50.us": wm["wkey.p50.us"],
            "wdel.p99.us": wm["wdel.p99.us"], "watched.key.p99.us": wm["key.p99.us"],
            "all.key.p99.us": max(m["key.p99.us"] for m in marks),
            "keys_per_s": round(sum(m["keys"] for m in marks) / (t1 - t0)),
            "n1.commits_per_s": round(commits / (t1 - t0)),
            "n1.writes_per_commit": round((w1[1] - w0[1]) / commits, 2),
            "pg.commits_per_s": round((p1[0] - p0[0]) / (t1 - t0)),
            "pg.wal_syncs_per_s": round((p1[1] - p0[1]) / (t1 - t0)),
            "pg.wal_kb_per_s": round((p1[2] - p0[2]) / 1024 / (t1 - t0)),
            "pg.wal_files_made": p1[3] - p0[3],
            "standby.write_lag.us": int(lag[0] or 0), "standby.flush_lag.us": int(lag[1] or 0),
            **cpu, **{f"writer.{k.replace(' ', '_')}": v for k, v in waited.items()},
            **direct_figures(loads, marks)}


def direct_figures(loads, marks):
    """The watched players that reach node 1 without HAProxy (--direct),
    beside those through it: what the balancer's two hops add."""
    return {f"direct.{k}": m[k] for ld, m in zip(loads, marks) if ld.name == "direct"
            for k in ("wkey.p50.us", "wkey.p99.us", "key.p50.us", "key.p99.us")}


def start(c, bindir, dir, players, watchers, direct=0):
    c.start_pg()
    c.start_nodes(peers=True)
    c.start_haproxy()
    addrs = min(CLIENT_MAX, (players + watchers + 1) // 2)
    first = c.client_addresses(addrs)
    for k in (2, 3):  # the watched games on node 1, as in test_combined
        c.lb.command(f"set server telnet_nodes/n{k} state maint")
    watched = Load(c, bindir, dir, "watched", watchers, first, addrs,
                   ["--m", watchers, "--watched", watchers, "--watch-host", node_ip(3)])
    watched.wait_ramp()
    for k in (2, 3):
        c.lb.command(f"set server telnet_nodes/n{k} state ready")
    wait_until(lambda: c.lb.servers_up() == NODES, 10, "the balancer's nodes back")
    rest = Load(c, bindir, dir, "players", players - watchers, first, addrs)
    rest.wait_ramp()
    loads = [watched, rest]
    if direct:  # straight to node 1 (no PROXY header: a client of its own)
        loads.append(Load(c, bindir, dir, "direct", direct, first, addrs,
                          ["--m", direct, "--watched", direct, "--watch-host", node_ip(3),
                           "--host", node_ip(1)]))
        loads[-1].wait_ramp()
    return loads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=300)
    ap.add_argument("--watchers", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--settings", default="on,remote_write,local")
    ap.add_argument("--direct", type=int, default=0,
                    help="this many more watched players on node 1 without HAProxy")
    ap.add_argument("--waits", action="store_true",
                    help="sample what the writers' backends wait on (costs the primary CPU)")
    a = ap.parse_args()
    if not can_make_netns():
        sys.exit("bench_sync_commit: needs root and network namespaces")
    bindir = pathlib.Path(__import__("os").environ.get("WARREN_BIN", ROOT / "bin"))
    settings = a.settings.split(",")
    got = {s: [] for s in settings}
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as tmp, \
            Cluster(pathlib.Path(tmp) / "cluster", bindir, nodes=NODES,
                    node_extra=LEASES) as c:
        loads = start(c, bindir, pathlib.Path(tmp), a.players, a.watchers, a.direct)
        try:
            time.sleep(a.seconds)  # settle: every game started, the caches warm
            for r in range(a.rounds):
                for s in settings:
                    set_commit(c, s)
                    f = window(c, bindir, loads, a.seconds, a.waits)
                    got[s].append(f)
                    print(f"BENCH cluster.sync_commit.{s}.round{r + 1} " +
                          " ".join(f"{k}={v}" for k, v in f.items()), flush=True)
        finally:
            for ld in loads:
                ld.stop()
    base = settings[0]
    for s in settings:
        for k in sorted(set().union(*got[s]) & set().union(*got[base])):
            med = statistics.median(f.get(k, 0) for f in got[s])
            ref = statistics.median(f.get(k, 0) for f in got[base])
            ratio = f" ({med / ref:.2f}x {base})" if ref else ""
            print(f"BENCH cluster.sync_commit.{s}.{k} {med:g}{ratio}", flush=True)


if __name__ == "__main__":
    main()
