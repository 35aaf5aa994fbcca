"""Every failure in one run, one after another, while the load plays on:
three warrend nodes with game leases and node-to-node streams behind
HAProxy, on a PostgreSQL primary with a synchronous standby (remote_write:
WARREN_CLUSTER_SYNC_COMMIT=on for the stricter setting). Players
(bin/warren-load --reconnect, through HAProxy, from many client
addresses) key steadily; a first group of them plays on node 1 and each
of those games has a watcher on node 3, who watches it through the
stream. Then, WARREN_CLUSTER_STEP_SECONDS apart:

  watch      the players play: the watchers' delay across nodes;
  node_kill  node 1 is SIGKILLed: its players connect again through
             HAProxy, log in and press p; another node resumes each game
             from its snapshot and journal once node 1's lease lapsed;
  drain      node 2 is drained (warren-admin drain): its players are told,
             their games saved and let go, and they come back to node 3;
  db_failover the primary's machine is killed and the standby promoted:
             node 3 finds the new primary, its paused games go on.

After each step (a mark: warren-load's SIGUSR1) the hard goals are
asserted: no key any player saw answered is missing from the journal,
every player is back in its game and keying (the journal grew for each),
and every watcher watches its player's game again (told by its node when
the game went, it picked it again from the watch list). The daily game's
secret is the database's: made there once, by the first node, and the
promoted standby holds it. BENCH lines:
cluster.watch.cross_node.delay.p99.us, the steady state's (and its parts:
the player's own key, node 1's journal appends, the WAL disk's flush),
cluster.watch.cross_node.ramp.* (the watched players' keys while the
other players still connected, registered and started their games, before
the watch step), cluster.node_kill.acked_lost,
cluster.node_kill.resume.p99.ms (a returning player's new connection to
its game's frame), cluster.drain.*, cluster.db_failover.acked_lost, and
each failure step's watch_delay.p99.us (the watchers' delay from the key
in that step, while they watch) and watch_return.p99.ms (a watcher whose
game went: from being told to its game's screen again).

WARREN_CLUSTER_COMBINED_PLAYERS (40 in all), WARREN_CLUSTER_COMBINED_WATCHERS
(6) and WARREN_CLUSTER_STEP_SECONDS (10) size it: make test-cluster-short
runs these (about 50 s), make test-cluster 300 players, 30 watchers and
20 s a step. The separate scenarios (test_node_kill, test_db_failover,
test_watch_cross) do each step alone, with their own variants."""
import itertools
import os
import pathlib
import re
import signal
import subprocess
import threading
import time

from conftest import bench
from cluster import CLIENT_MAX, SYNC_COMMIT, TELNET_PORT, node_ip, sh
from test_db_failover import journal_by_user, journal_rows, wait_until
from test_node_kill import LEASES, drain

PLAYERS = int(os.environ.get("WARREN_CLUSTER_COMBINED_PLAYERS", "40"))
WATCHERS = int(os.environ.get("WARREN_CLUSTER_COMBINED_WATCHERS", "6"))
STEP_S = float(os.environ.get("WARREN_CLUSTER_STEP_SECONDS", "10"))
INTERVAL = 0.5  # seconds between one player's keys
NODES = 3
MARK = re.compile(r"# mark (\d+): (playing=.*)")


class Load:
    """One warren-load in the clients' namespace, for the whole run: its
    players keep playing until stop(); mark() asks for its figures since
    the last mark and its --acked file."""

    def __init__(self, c, bindir, dir, name, n, first_addr, addrs, extra=()):
        self.name, self.n = name, n
        self.out = dir / f"{name}.out"
        self.acked = dir / f"{name}.acked"
        self.marks = 0
        self.last = {}  # the counts at the last mark (the load counts from its start)
        self.proc = c.client([bindir / "warren-load", "--host", c.proxy_ip, "--port",
                              TELNET_PORT, "--n", n, "--seconds", 3600, "--warmup", 0,
                              "--interval", INTERVAL, "--inflight", 32, "--key-timeout", 60,
                              "--ramp-timeout", 60, "--reconnect", "--acked", self.acked,
                              "--bind", first_addr, "--bind-count", addrs, *extra],
                             stdout=open(self.out, "w"), stderr=subprocess.STDOUT)

    def text(self):
        return self.out.read_text()

    def wait_ramp(self, timeout=180):
        wait_until(lambda: "# ramp-up:" in self.text() or self.proc.poll() is not None, timeout,
                   f"{self.name}: every session in play")
        m = re.search(r"# ramp-up: (\d+) of (\d+) sessions in play.*, (\d+) failed", self.text())
        assert m and m.group(1) == m.group(2) and self.proc.poll() is None, self.text()[-3000:]

    def mark(self):
        """{figure: value} since the last mark; the acked file rewritten."""
        self.marks += 1
        self.proc.send_signal(signal.SIGUSR1)
        found = wait_until(lambda: [m for m in MARK.finditer(self.text())
                                    if int(m.group(1)) == self.marks], 30, f"{self.name} mark")
        got = {k: float(v) for k, v in (kv.split("=") for kv in found[0].group(2).split())}
        for k in ("told", "watch_ends"):
            got[k], self.last[k] = got[k] - self.last.get(k, 0), got[k]
        return got

    def acked_now(self):
        return {name: int(n) for name, n in
                (ln.split() for ln in self.acked.read_text().splitlines())}

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def check_step(c, loads, step, rows_before):
    """The hard goals after a step: the marks' figures, what is lost (every
    answered key in the journal), every player on again (its journal grew
    since rows_before, the counts taken at the step) and every watcher
    following its player. Returns the figures, summed over the loads."""
    marks = [ld.mark() for ld in loads]
    for ld in loads:  # the marks as the load printed them, for the record
        print(f"# {step} {ld.name}:", [m.group(2) for m in MARK.finditer(ld.text())][-1])
    acked = {}
    for ld in loads:
        acked.update(ld.acked_now())
    rows = journal_by_user(c)  # after the acked files: rows only grow
    lost = {name: (n, rows.get(name, (0, 0, 0))[1]) for name, n in acked.items()
            if rows.get(name, (0, 0, 0))[1] < n}
    stalled = [name for name in acked if rows.get(name, (0, 0, 0))[2] <=
               rows_before.get(name, (0, 0, 0))[2]]
    total = {k: sum(m[k] for m in marks) for k in ("playing", "players", "following",
                                                   "watchers", "failed", "rejoining",
                                                   "resumes", "told", "new_games",
                                                   "watch_ends", "watch_nudges")}
    figures = {"acked_lost": sum(n - have for n, have in lost.values()),
               "keys_acked": sum(acked.values()),
               "players_moved": int(total["resumes"]),
               # the larger of the two loads' p99s: at least the p99 of all
               "resume.p99.ms": round(max(m["resume.p99.ms"] for m in marks)),
               "told_elsewhere": int(total["told"]),
               "watchers_told": int(total["watch_ends"]),
               # the watchers' delay from the key in the step (the watch
               # step's is cluster.watch.cross_node.delay), of frames
               # watched: a watcher's first frame back on a game that
               # moved is timed apart (watch_return), not from the key
               "watch_delay.p99.us": round(max(m["wkey.p99.us"] for m in marks)),
               "watch_delay.n": int(sum(m["wkey.n"] for m in marks)),
               # apart from it: how long a watcher whose game went was
               # without it, from being told to its game's screen again
               "watch_return.p99.ms": round(max(m["wback.p99.ms"] for m in marks)),
               "watch_return.n": int(sum(m["wback.n"] for m in marks))}
    outs = "\n".join(ld.text()[-2000:] for ld in loads)
    assert not lost, f"{step}: acknowledged keys missing: {lost}\n{outs}"
    assert total["failed"] == 0 and total["new_games"] == 0, f"{step}: {marks}\n{outs}"
    assert total["playing"] == total["players"] and total["rejoining"] == 0, \
        f"{step}: players not back in their games: {marks}\n{outs}"
    assert not stalled, f"{step}: players who did not key on: {stalled}\n{outs}"
    assert total["following"] == total["watchers"], f"{step}: watchers lost: {marks}\n{outs}"
    # a watcher's key lost on its way (warren-load nudges it after 2 s):
    # none should be, as the daemon drops only input over its cap
    assert total["watch_nudges"] == 0, f"{step}: watchers nudged: {marks}\n{outs}"
    return figures, marks


APPENDS = re.compile(r"journal appends, last \d+ s: (\d+), submit to callback p50 (\d+) "
                     r"p99 (\d+) max (\d+) us; p99 of queue (\d+) commit (\d+) back (\d+) us; "
                     r"slowest 1%: queue (\d+) commit (\d+) back (\d+) us")


def append_times(bindir, node):
    """Where node's journal appends of the last 10 s spent their time
    (warren-admin health): {part: us}, {} when it printed none."""
    out = sh(bindir / "warren-admin", "--control", node.dir / "warrend.ctl", "health",
             check=False)
    m = APPENDS.search(out)
    keys = ("n", "p50", "p99", "max", "queue.p99", "commit.p99", "back.p99",
            "slowest.queue", "slowest.commit", "slowest.back")
    return dict(zip(keys, map(int, m.groups()))) if m else {}


class DiskProbe:
    """What one flush of the disk under the primary's WAL takes meanwhile:
    an 8 KiB write into a file of its own beside the primary's data, then
    fdatasync, every 50 ms (a commit's own flush, at a fifth of the
    cluster's commit rate) until stop(); (p50, p99, max) in us."""

    def __init__(self, dir):
        self.path, self.times = pathlib.Path(dir) / "disk.probe", []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, bytes(1 << 20))  # written once: the probes overwrite
            os.fsync(fd)
            for i in itertools.count():
                if self.done.wait(0.05):
                    break
                os.pwrite(fd, os.urandom(8192), i % 128 * 8192)
                t = time.perf_counter()
                os.fdatasync(fd)
                self.times.append((time.perf_counter() - t) * 1e6)
        finally:
            os.close(fd)
            self.path.unlink()

    def stop(self):
        self.done.set()
        self.thread.join()
        v = sorted(self.times) or [0]
        return v[len(v) // 2], v[min(len(v) - 1, int(0.99 * len(v)))], v[-1]


def on_node(node, names):
    """The players whose game the node started or resumed."""
    log = node.log()
    return {n for n in names if re.search(rf"game (start|resume) user={n} ", log)}


DAILY_SECRET = "SELECT value FROM meta WHERE key = 'daily_secret'"


def daily_secret(c):
    """The daily game's one secret, in the database: made there by the
    first node started, read from there by the others, no file made."""
    secret = c.sql(DAILY_SECRET).strip()
    assert re.fullmatch(r"[0-9a-f]{64}", secret), "no daily secret in meta"
    first, *others = c.nodes
    assert "daily: made a new secret, kept in the database" in first.log()
    for n in others:
        assert "daily: the secret is the database's" in n.log(), n.role
    made = [*c.dir.glob("*daily*"), *(p for n in c.nodes for p in n.dir.rglob("*daily*"))]
    assert not made, made
    return secret


def test_one_run_kill_drain_failover_under_load(make_cluster, bindir, tmp_path):
    c = make_cluster(nodes=NODES, node_extra=LEASES)
    c.start_pg()
    # the commit setting in force, printed with the figures it gave
    assert c.pg1.psql("SHOW synchronous_commit").strip() == SYNC_COMMIT
    bench("cluster.combined.synchronous_commit", SYNC_COMMIT)
    c.start_nodes(peers=True)
    c.start_haproxy()
    n1, n2, n3 = c.nodes
    secret = daily_secret(c)
    addrs = min(CLIENT_MAX, (PLAYERS + WATCHERS + 1) // 2)  # two sessions an address
    first = c.client_addresses(addrs)
    loads = []
    try:
        # the watched players on node 1 (the balancer sends there only
        # while they start), their watchers on node 3
        for k in (2, 3):
            c.lb.command(f"set server telnet_nodes/n{k} state maint")
        watched = Load(c, bindir, tmp_path, "watched", WATCHERS, first, addrs,
                       ["--m", WATCHERS, "--watched", WATCHERS, "--watch-host", node_ip(3)])
        loads.append(watched)
        watched.wait_ramp()
        for k in (2, 3):
            c.lb.command(f"set server telnet_nodes/n{k} state ready")
        wait_until(lambda: c.lb.servers_up() == NODES, 10, "the balancer's nodes back")
        players = Load(c, bindir, tmp_path, "players", PLAYERS - WATCHERS, first, addrs)
        loads.append(players)
        players.wait_ramp()
        # the watched players' keys so far came while the other players
        # connected, registered and started their games: a figure of its
        # own, so that the watch step's is the steady state's
        ramp_times = append_times(bindir, n1)  # its last 10 s: the ramp-ups and a little more
        ramp = watched.mark()
        print("# ramp watched:", [m.group(2) for m in MARK.finditer(watched.text())][-1])
        bench("cluster.watch.cross_node.ramp.delay.p99.us", ramp["wkey.p99.us"])
        bench("cluster.watch.cross_node.ramp.delay.p50.us", ramp["wkey.p50.us"])
        bench("cluster.watch.cross_node.ramp.delay.n", int(ramp["wkey.n"]))
        bench("cluster.watch.cross_node.ramp.player_key.p99.us", ramp["key.p99.us"])
        for k, v in ramp_times.items():
            bench(f"cluster.watch.cross_node.ramp.n1_append.{k}" + ("" if k == "n" else ".us"), v)

        # watch: every watched game streamed from node 1 to node 3
        rows = journal_by_user(c)
        probe = DiskProbe(c.pg1.dir)
        time.sleep(STEP_S)
        disk = probe.stop()
        times = append_times(bindir, n1)  # the last 10 s of the step, before the marks
        figures, marks = check_step(c, loads, "watch", rows)
        wm = marks[0]
        bench("cluster.watch.cross_node.delay.p99.us", wm["wkey.p99.us"])
        bench("cluster.watch.cross_node.delay.p50.us", wm["wkey.p50.us"])
        bench("cluster.watch.cross_node.stream.p99.us", wm["wdel.p99.us"])
        bench("cluster.combined.key.p99.us", max(m["key.p99.us"] for m in marks))
        assert times.get("n", 0) > 0, "node 1's health printed no journal appends"
        # where the delay goes: the watched players' own key to its frame,
        # and of that node 1's journal append, from its submit to its
        # callback (the frame goes out in it), in parts
        bench("cluster.watch.cross_node.player_key.p99.us", wm["key.p99.us"])
        for k, v in times.items():
            bench(f"cluster.watch.cross_node.n1_append.{k}" + ("" if k == "n" else ".us"), v)
        # and what the disk under the primary's WAL gave a flush meanwhile
        for k, v in zip(("p50", "p99", "max"), disk):
            bench(f"cluster.watch.disk_flush.{k}.us", round(v))
        assert wm["wkey.n"] >= WATCHERS, wm
        fed = set(re.findall(r"peer feed game=(\d+) to=n3 nodes=1", n1.log()))
        assert len(fed) >= WATCHERS, n1.log()[-3000:]
        names = set(watched.acked_now()) | set(players.acked_now())
        assert len(names) == PLAYERS

        # node_kill: node 1 dies under its players and the watched games
        victims = on_node(n1, names)
        assert len(victims) >= WATCHERS, len(victims)
        rows = journal_by_user(c)
        n1.kill(signal.SIGKILL)
        time.sleep(STEP_S)
        figures, _ = check_step(c, loads, "node_kill", rows)
        for k, v in figures.items():
            bench(f"cluster.node_kill.{k}", v)
        assert figures["players_moved"] == len(victims), (figures, len(victims))
        assert figures["watchers_told"] >= WATCHERS, figures  # each game went from under it
        assert figures["watch_return.n"] >= WATCHERS, figures  # and each came back to it
        for n in (n2, n3):
            assert n.alive(), n.log()[-3000:]

        # drain: node 2's players are handed on to node 3
        victims = on_node(n2, names)
        rows = journal_by_user(c)
        drain(n2, bindir, STEP_S / 4)
        time.sleep(STEP_S)
        figures, _ = check_step(c, loads, "drain", rows)
        for k, v in figures.items():
            bench(f"cluster.drain.{k}", v)
        assert n2.proc.wait(timeout=60) == 0, n2.log()[-3000:]
        assert figures["players_moved"] == len(victims) > 0, (figures, len(victims))
        assert figures["told_elsewhere"] == 0, figures  # a drained node let its leases go

        # db_failover: the primary's machine dies, the standby is promoted
        rows = journal_by_user(c)
        t_kill = time.monotonic()
        c.kill_primary()
        c.pg2.promote()
        bench("cluster.db_failover.promote.ms", round((time.monotonic() - t_kill) * 1000))
        at = journal_rows(c)  # the node's first commit on the new primary
        wrote = wait_until(lambda: journal_rows(c) > at, STEP_S, "", soft=True)
        bench("cluster.db_failover.first_write.ms",
              round((time.monotonic() - t_kill) * 1000) if wrote else "never")
        time.sleep(STEP_S)
        figures, _ = check_step(c, loads, "db_failover", rows)
        bench("cluster.db_failover.acked_lost", figures["acked_lost"])
        bench("cluster.db_failover.keys_acked", figures["keys_acked"])
        for k in ("watch_delay.p99.us", "watch_delay.n"):
            bench(f"cluster.db_failover.{k}", figures[k])
        bench("cluster.db_failover.games_paused", n3.log().count(" game paused user="))
        assert n3.alive(), n3.log()[-3000:]
        assert c.sql(DAILY_SECRET).strip() == secret  # the standby had it
    finally:
        for ld in loads:
            ld.stop()
