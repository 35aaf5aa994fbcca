#!/usr/bin/python3
"""recover_bench — warrend after a SIGKILL with many live games.

Usage: recover_bench.py BINDIR [N]   (N players, 10000 by default)

N telnet players (bin/warren-load) start games and key once a second; a
few seconds into their keys the daemon is killed with SIGKILL, so every
game has a journal tail after its newest snapshot (or none). The daemon is
started again on the same database (unpinned: the players are elsewhere
now), and two of the players come back: the one whose game the background
restores last, as soon as the listener answers, and the one half way, a
second after the start. This measures:

  BENCH server.recover.listen.ms.nN       start to the first menu a new
                                          connection gets
  BENCH server.recover.first_frame.ms     a returning player's 'p' to its
                                          game's frame (the slower of the
                                          two; each also on its own line)
  BENCH server.recover.first_frame.from_start.ms.nN   start to the first
                                          player's frame
  BENCH server.recover.ms.nN              start to "recovery done": every
                                          game restored in the background
                                          and snapshotted (a player's own
                                          return restores it at once)
  BENCH server.recover.games.nN           games recovery resumed
  BENCH server.recover.loop.stall.ms.nN   the daemon's longest loop turn
                                          from the start to then (its log's
                                          "loop stalled", 50 ms or more)

WARREN_RECOVER_KEEP=PATH keeps a copy of the killed database there.
Exits 1 when a figure could not be taken (a daemon that did not start, a
player that got no game back)."""
import os
import re
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import rate_off  # noqa: E402

PASSWORD = b"load-pass-1"  # tests/load/sess.c's


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def pinned(core):
    """taskset -c CORE with two cores or more, as tests/load/bench-server.sh."""
    if os.cpu_count() >= 2 and subprocess.run(["sh", "-c", "command -v taskset"],
                                              capture_output=True).returncode == 0:
        return ["taskset", "-c", str(core)]
    return []


def start(bindir, db, log, port, pin=True):
    args = (pinned(0) if pin else []) + [
        f"{bindir}/warrend", "--telnet", f"127.0.0.1:{port}", "--http", "", "--db", db,
        "--test-hooks", "--register-per-hour", "0", "--max-connections", "20000",
        "--max-per-ip", "20000", "--grace", "600", *rate_off(f"{bindir}/warrend")]
    return subprocess.Popen(args, stderr=open(log, "ab"))


def log_text(log):
    with open(log, "rb") as f:
        return f.read().decode("utf-8", "replace")


def wait_log(log, pattern, timeout, since=0):
    end = time.time() + timeout
    while time.time() < end:
        m = re.search(pattern, log_text(log)[since:])
        if m:
            return m
        time.sleep(0.05)
    return None


class Telnet:
    """A bare telnet client: refuses every option, reads terminal bytes."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def read_until(self, needle, timeout):
        end = time.time() + timeout
        while needle not in self.text():
            left = end - time.time()
            if left <= 0:
                return False
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return False
            if not data:
                return False
            self.buf += data
        return True

    def text(self):
        return re.sub(rb"\xff[\xfb-\xfe].|\xff\xfa.*?\xff\xf0|\x1b\[[0-9;?]*[A-Za-z]", b"",
                      self.buf, flags=re.S)

    def send(self, data):
        self.buf = b""
        self.sock.sendall(data)


def first_menu(port, t0, timeout):
    """Connects until the menu answers; returns (client, ms from t0)."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            t = Telnet(port)
        except OSError:
            time.sleep(0.005)
            continue
        if t.read_until(b"Your choice", 10):
            return t, (time.monotonic() - t0) * 1000
        t.sock.close()
    return None, None


def players(db):
    """The players of the unfinished games with the highest and the middle
    id: the background restores them last and half way."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT u.name FROM games g JOIN users u ON u.id = g.user "
                           "WHERE g.state = 'live' ORDER BY g.id DESC").fetchall()
        return rows[0][0].encode(), rows[len(rows) // 2][0].encode()
    finally:
        con.close()


def comes_back(port, name, t0, at_ms):
    """name connects at_ms after t0 (or once the listener answers), logs in
    and presses 'p'. Returns (ms from t0 to the menu, ms from 'p' to the
    game's frame, ms from t0 to it), or None with the reason printed."""
    while (time.monotonic() - t0) * 1000 < at_ms:
        time.sleep(0.005)
    t, listen_ms = first_menu(port, t0, 30)
    if not t:
        print("recover_bench: no menu after the restart", file=sys.stderr)
        return None
    t.send(b"l")
    t.read_until(b"Name:", 10)
    t.send(name + b"\r")
    t.read_until(b"Password:", 10)
    t.send(PASSWORD + b"\r")
    if not t.read_until(b"Logged in as", 30):
        print(f"recover_bench: {name!r} could not log in", file=sys.stderr)
        return None
    tp = time.monotonic()
    t.send(b"p")
    if not t.read_until(b" HP ", 120):
        print(f"recover_bench: {name!r} got no game back: {t.text()[-300:]!r}", file=sys.stderr)
        return None
    tf = time.monotonic()
    t.sock.close()
    return listen_ms, (tf - tp) * 1000, (tf - t0) * 1000


def play_under_load(bindir, n, port, log, tmp):
    """N players start games and key; SIGKILL once all play for 5 s."""
    load = subprocess.Popen(pinned(1) + [f"{bindir}/warren-load", "--port", str(port), "--n",
                                         str(n), "--seconds", "600", "--warmup", "0"],
                            stdout=open(f"{tmp}/load.out", "wb"), stderr=subprocess.STDOUT)
    end = time.time() + 60 + n / 100
    while time.time() < end and log_text(log).count(" game start user=") < n:
        time.sleep(0.5)
    started = log_text(log).count(" game start user=")
    time.sleep(5)
    return load, started


def main():
    bindir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bin")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    need = n + 200
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20000), hard))
    tmp = tempfile.mkdtemp(prefix="recover-bench-")
    db, log = f"{tmp}/r.db", f"{tmp}/r.log"
    port = free_port()
    d = start(bindir, db, log, port)
    if not wait_log(log, r"recovery done", 20):
        print("recover_bench: warrend did not start", file=sys.stderr)
        return 1
    load, started = play_under_load(bindir, n, port, log, tmp)
    d.send_signal(signal.SIGKILL)
    d.wait()
    load.terminate()
    load.wait()
    print(f"# {started} games live at the SIGKILL")
    keep = os.environ.get("WARREN_RECOVER_KEEP")  # a copy of the killed database, to study
    if keep:
        for part in ("", "-wal", "-shm", ".id"):
            if os.path.exists(db + part):
                subprocess.run(["cp", db + part, keep + part])
    last, middle = players(db)
    since = len(log_text(log))
    t0 = time.monotonic()
    d = start(bindir, db, log, port, pin=False)
    try:
        first = comes_back(port, last, t0, 0)
        mid = comes_back(port, middle, t0, 1000)
        if not first or not mid:
            return 1
        m = wait_log(log, r"recovery done: (\d+) games resumed, (\d+) broken", 600, since)
        if not m:
            print("recover_bench: recovery never ended", file=sys.stderr)
            return 1
        done_ms = (time.monotonic() - t0) * 1000
        tag = f".n{n}"
        print(f"BENCH server.recover.listen.ms{tag} {first[0]:.0f}")
        print(f"BENCH server.recover.first_frame.ms {max(first[1], mid[1]):.0f}")
        print(f"BENCH server.recover.first_frame.at_once.ms{tag} {first[1]:.0f}")
        print(f"BENCH server.recover.first_frame.at_1s.ms{tag} {mid[1]:.0f}")
        print(f"BENCH server.recover.first_frame.from_start.ms{tag} {first[2]:.0f}")
        print(f"BENCH server.recover.ms{tag} {done_ms:.0f}")
        print(f"BENCH server.recover.games{tag} {m.group(1)}")
        # the loop's longest turn meanwhile: every connection waited that long
        stalls = [int(x) for x in re.findall(r"loop stalled (\d+) ms", log_text(log)[since:])]
        print(f"BENCH server.recover.loop.stall.ms{tag} {max(stalls, default=0)}")
        return 0 if m.group(2) == "0" else 1
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
