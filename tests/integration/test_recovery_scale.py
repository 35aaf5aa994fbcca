"""warrend killed with many live games and started again: the listener
answers while the games are still being restored in the background, a
player who comes back at once gets their game ahead of that (before the
background is done), and every game comes back with every key its player
saw answered (bin/warren-load --acked counts them on the client side)."""
import re
import signal
import socket
import subprocess
import time

import pytest

from harness import hook

N = 200
# no snapshot but the first: restoring a game replays all of its keys
pytestmark = pytest.mark.daemon(extra=["--max-per-ip", str(N + 10), "--snapshot-every", "1000000"])
LOAD_PW = "load-pass-1"  # tests/load/sess.c's


def load_path(bindir):
    asan = bindir / "asan" / "warren-load"
    return asan if asan.exists() else bindir / "warren-load"


class Player:
    """A player at a bare socket who answers each prompt the moment it
    shows (Debian's telnet, driven through a pty, waits for quiet between
    keys: too slow to come back while 200 games are restored). The daemon
    asks for the window size and the terminal type; unanswered, it goes on
    with 80x24."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.seen = b""

    def wait_for(self, needle, timeout=30):
        end = time.time() + timeout
        while needle not in re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", self.seen):
            assert time.time() < end, (needle, self.seen[-500:])
            data = self.sock.recv(65536)
            assert data, (needle, self.seen[-500:])
            self.seen += data

    def type(self, keys, then):
        self.seen = b""
        self.sock.sendall(keys)
        self.wait_for(then)

    def login_and_play(self, name, pw):
        self.wait_for(b"Your choice")
        self.type(b"l", b"Name:")
        self.type(name.encode() + b"\r", b"Password:")
        self.type(pw.encode() + b"\r", b"Logged in as")
        self.type(b"p", b" HP ")


def live_games(d):
    """{player name: game id} of every live game."""
    rows = d.db_rows("SELECT u.name, g.id FROM games g JOIN users u ON u.id = g.user "
                     "WHERE g.state = 'live'")
    return dict(rows)


def play_then_kill(d, bindir, tmp_path):
    """N players key 50 times a second; SIGKILL once they all have for 4 s.
    Returns {name: keys of its current game it saw answered}."""
    acked = tmp_path / "acked"
    load = subprocess.Popen([str(load_path(bindir)), "--port", str(d.port), "--n", str(N),
                             "--seconds", "600", "--warmup", "0", "--interval", "0.02",
                             "--inflight", "16", "--acked", str(acked)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # (its report is short: the pipe never fills)
    end = time.time() + 120
    while d.log().count(" game start user=") < N and time.time() < end and load.poll() is None:
        time.sleep(0.2)
    assert d.log().count(" game start user=") >= N, d.log()[-2000:]
    time.sleep(4)
    d.kill(signal.SIGKILL)
    out, _ = load.communicate(timeout=60)
    got = dict(line.split() for line in acked.read_text().splitlines())
    assert len(got) == N, out
    return {name: int(n) for name, n in got.items()}


def test_many_games_back_after_sigkill(daemon, clients, bindir, tmp_path):
    d = daemon
    acked = play_then_kill(d, bindir, tmp_path)
    assert sum(acked.values()) > N, acked  # keys were answered before the kill
    games = live_games(d)
    assert len(games) == N, games
    last = max(games, key=games.get)  # the background restores its game last
    d.start()
    # the listener answers, and the player who comes back at once gets
    # their game before the background has restored the others
    p = Player(d.port)
    p.login_and_play(last, LOAD_PW)
    d.wait_log(rf"attach user={last} ")
    log = d.log()
    since = [m.end() for m in re.finditer(r"warrend \S+ ready", log)][-1]
    assert "recovery done" not in log[since:], log[since:][-3000:]
    p.sock.close()
    m = d.wait_log(r"recovery done: (\d+) games resumed, (\d+) broken", timeout=120)
    assert int(m.group(2)) == 0 and int(m.group(1)) >= N - 1, m.group(0)
    # every other game was restored in the background with every stored
    # key (its fresh snapshot is at the journal's end), so with every key
    # its player saw answered
    deadline = time.time() + 30
    while True:
        rows = d.db_rows(
            "SELECT u.name, (SELECT max(seq) FROM journal j WHERE j.game = g.id), "
            "(SELECT max(seq) FROM snapshots s WHERE s.game = g.id) "
            "FROM games g JOIN users u ON u.id = g.user WHERE g.state = 'live'")
        behind = [r for r in rows if r[0] != last and (r[2] or 0) < (r[1] or 0)]
        if not behind or time.time() > deadline:
            break
        time.sleep(0.2)
    assert len(rows) == N and not behind, behind[:5]
    lost = [(name, journal, acked[name]) for name, journal, _ in rows if journal < acked[name]]
    assert not lost, lost[:5]
    # and players who come back after the background is done get theirs
    # whole (the first through Debian's telnet)
    first = min(games, key=games.get)
    for name in (first, last):
        t = clients(d.port).connected()
        t.login(name, LOAD_PW)
        t.send("p")
        d.wait_log(rf"attach user={name} ")
        back = hook(d, t, name)
        journal = dict((r[0], r[1]) for r in rows)[name]
        assert back["seq"] == journal and back["seq"] >= acked[name], (name, back, journal)
        t.close()
