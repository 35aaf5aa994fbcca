"""A node dies under play: three warrend nodes share the cluster's
PostgreSQL behind HAProxy; players (Debian's telnet through HAProxy, each
on a thread of its own) key steadily, each counting the keys it saw
answered (the turn counter went up). One node is SIGKILLed; its players'
connections close, they connect again through HAProxy (which has marked
the node down or sends them elsewhere: option redispatch), log in and
press 'p', and the node they reach restores their game from its snapshot
and journal.

Figures: cluster.node_kill.acked_lost (goal 0: every answered key is in
the journal), cluster.node_kill.resume.p99.ms (from the 'p' of a player
who came back to their game's frame on the new node; goal 2,000).

Games are owned through leases (`node`, `lease-ttl-ms`): the new node
takes a dead node's game when its lease has lapsed (a player who comes
back sooner is told where it runs and presses p again), a drained node
lets its games go at once, and two nodes never run one game: every
journal row of a game is written by the node holding its lease."""
import os
import re
import signal
import subprocess
import threading
import time

from conftest import bench
from cluster import TELNET_PORT
from harness import PW, Term  # tests/integration, on the path through cluster.py

NODES = 3
PLAYERS = int(os.environ.get("WARREN_CLUSTER_KILL_PLAYERS", "6"))
PLAY_S = float(os.environ.get("WARREN_CLUSTER_KILL_SECONDS", "20"))
TURN = re.compile(r"  Turn (\d+)")
ELSEWHERE = b"running on another server"
# a lease lapses 1.5 s after its node's last renewal: the time a dead
# node's players wait at most (goal for the resume: 2,000 ms)
LEASES = ["--lease-ttl-ms", "1500", "--lease-renew-ms", "400"]


class Player:
    """One player through HAProxy; run() keys until stop is set."""

    def __init__(self, c, name):
        self.c, self.name = c, name
        self.t = None
        self.acked = 0         # keys answered, over all its games
        self.resumes = []      # ms from 'p' to the game's frame, after a reconnect
        self.reconnects = 0
        self.told = 0          # 'p' answered "running on another server"
        self.acked_at_move = 0
        self.error = None

    def connect(self):
        self.t = Term(["nsenter", f"--net=/run/netns/{self.c.client_ns}", "telnet",
                       self.c.proxy_ip, str(TELNET_PORT)])
        self.t.connected()

    def turn(self):
        m = TURN.search(self.t.text())
        return int(m.group(1)) if m else None

    def start(self):
        self.connect()
        self.t.register(self.name, PW)
        self.t.options().send("n")
        self.t.wait_for("Turn counter: on")
        self.t.send("q")
        self.t.wait_for(f"Logged in as {self.name}")
        self.t.random_character(self.name)
        self.t.wait_for(TURN)

    def come_back(self):
        """Connects again and gets the game back; times the 'p'."""
        self.acked_at_move = self.acked
        self.t.close()
        self.connect()
        self.t.login(self.name, PW)
        t0 = time.monotonic()
        while True:
            start = len(self.t.raw)
            self.t.send("p", settle=False)
            while not TURN.search(self.t.text()) and ELSEWHERE not in self.t.raw[start:]:
                assert not self.t.eof and time.monotonic() - t0 < 60, self.t.text()
                self.t.pump(quiet=0.05, limit=0.2)
            if TURN.search(self.t.text()):
                break
            # the dead node's lease has not lapsed yet: told where the
            # game runs; pressing p again is what a player does
            self.told += 1
            time.sleep(0.25)
        self.resumes.append((time.monotonic() - t0) * 1000)
        self.reconnects += 1

    def key(self):
        """A wait ('.'), a whole turn: answered when the turn count moves on."""
        before = self.turn()
        self.t.send(".", settle=False)
        end = time.monotonic() + 5
        while time.monotonic() < end and not self.t.eof:
            self.t.pump(quiet=0.02, limit=0.1)
            now = self.turn()
            if before is not None and now is not None and now > before:
                self.acked += 1
                return
            if "choose a gift" in self.t.text():
                self.t.send("a", settle=False)
            if "You are dead." in self.t.text():
                self.t.send(" ", settle=False)
                self.t.random_character(self.name)
                return

    def run(self, stop):
        try:
            while not stop.is_set():
                if self.t.eof:
                    self.come_back()
                self.key()
                time.sleep(0.1)
        except Exception as e:  # reported by the test
            self.error = e


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * 0.99))] if xs else float("nan")


def drain(node, bindir, deadline_s):
    """warren-admin drain on the node's control socket; the node then
    saves every game, tells its players and exits by itself."""
    r = subprocess.run([str(bindir / "warren-admin"), "--control", str(node.dir / "warrend.ctl"),
                        "drain", "--deadline", str(int(deadline_s))],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def players_move(c, bindir, how):
    """Players over three nodes; the busiest node killed (how="kill") or
    drained (how="drain") half way; (figures, victim, moved players)."""
    c.start_pg()
    c.start_nodes()
    c.start_haproxy()
    players = [Player(c, f"kp{i}") for i in range(PLAYERS)]
    stop = threading.Event()
    threads = []
    try:
        starting = [threading.Thread(target=p.start) for p in players]
        for th in starting:
            th.start()
        for th in starting:
            th.join(timeout=120)
        threads = [threading.Thread(target=p.run, args=(stop,)) for p in players]
        for th in threads:
            th.start()
        time.sleep(PLAY_S / 2)
        on = {n.k: sum(f"attach user={p.name} " in n.log() or
                       f"game start user={p.name} " in n.log() for p in players)
              for n in c.nodes}
        victim = c.nodes[max(on, key=on.get) - 1]
        assert on[victim.k] > 0, on
        if how == "kill":
            victim.kill(signal.SIGKILL)
        else:
            drain(victim, bindir, PLAY_S / 4)
        time.sleep(PLAY_S / 2)
    finally:
        stop.set()
        for th in threads:
            th.join(timeout=60)
    errors = [(p.name, p.error) for p in players if p.error]
    assert not errors, errors
    moved = [p for p in players if p.reconnects]
    assert len(moved) == on[victim.k], [(p.name, p.reconnects) for p in players]
    rows = dict(ln.split("|") for ln in c.sql(
        'SELECT u.name, count(j.seq) FROM users u JOIN games g ON g."user" = u.id '
        'JOIN journal j ON j.game = g.id GROUP BY u.name').splitlines())
    lost = {p.name: (p.acked, int(rows.get(p.name, 0))) for p in players
            if int(rows.get(p.name, 0)) < p.acked}
    resumes = [ms for p in players for ms in p.resumes]
    figures = {"acked_lost": sum(a - r for a, r in lost.values()),
               "resume.p99.ms": round(p99(resumes)), "players_moved": len(moved),
               "told_elsewhere": sum(p.told for p in moved)}
    assert not lost, lost
    # every moved player's game was restored on a node still up, and went on there
    for p in moved:
        assert any(f"game resume user={p.name} " in n.log() for n in c.nodes if n is not victim)
        assert p.acked > p.acked_at_move, (p.name, p.acked, p.acked_at_move)
    for n in c.nodes:
        if n is not victim:
            assert n.alive(), n.log()[-3000:]
    return figures, victim


def test_node_kill_players_resume_elsewhere(make_cluster, bindir):
    c = make_cluster(nodes=NODES, node_extra=LEASES)
    figures, _ = players_move(c, bindir, "kill")
    for name, v in figures.items():
        bench(f"cluster.node_kill.{name}", v)


def test_drained_node_hands_its_players_on(make_cluster, bindir):
    """warren-admin drain: /health answers 503 so HAProxy sends nobody new,
    the node saves every game, says goodbye and exits 0; its players come
    back through HAProxy to another node with nothing lost."""
    c = make_cluster(nodes=NODES, node_extra=LEASES)
    figures, victim = players_move(c, bindir, "drain")
    for name, v in figures.items():
        bench(f"cluster.drain.{name}", v)
    assert victim.proc.wait(timeout=60) == 0, victim.log()[-3000:]
    # a drained node let its games' leases go as it stopped: nobody waited
    assert figures["told_elsewhere"] == 0, figures
    assert c.lb.servers_up() == NODES - 1, c.lb.server_states()
