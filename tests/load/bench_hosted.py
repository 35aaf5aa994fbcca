#!/usr/bin/python3
"""A hosted program that floods its output, against the other players:
the real warrend (release build) with the real ptytoy, every client over
telnet (a socket speaking telnet: window size and terminal type).

  tests/load/bench_hosted.py BINDIR [--base OTHER_BINDIR] [--seconds S] [--rounds N]

Two victims alternate keys, each waiting for its answer (the first byte
of its frame), 10 ms apart: one plays Warren's own game (Ctrl-P: the
message history opened, and shut again by the next one; a frame each and
no game time), one a hosted program that prints each key it reads
(ptytoy keys). Phases (S seconds, default 30):

  before    S/3 seconds before any flood
  flood     another account plays `ptytoy flood` (coloured lines as fast
            as it can write) and a fourth one watches it; both read all
            they are sent, from another process
  detached  the flooding player has left its game (it runs on for the
            grace period); the watcher stays
  quiet     within flood and detached: blocks of two seconds with the
            flooding program running and stopped (SIGSTOP) in turn, so
            that quiet and flood figures come from the same minutes of
            the same machine; the first half second of each block is not
            measured (the last block's queues drain, a burst passes)

For each phase and victim: p50, p90 and p99 of the key-to-frame latency, and
the ratio of each flood phase's p99 to the quiet blocks' (p99_ratio: the
goal is at most 2) and to the time before (p99_ratio_before: what the
flood leaves behind counts against it); the flooding program's output
read by the daemon while it ran (its bytes_out as logged at the detach,
per second running) and the daemon's longest loop turn (its "loop
stalled" lines). With --base, the same against another build (a worktree
of an older commit built with make B=DIR build), the same ptytoy; with
--rounds N, each build N times in turn, their keys pooled, so that both
see the machine's good and bad minutes alike:

  BENCH server.hosted_flood[.base].<victim>.<phase>.p50.ms / .p90.ms / .p99.ms
  BENCH server.hosted_flood[.base].<victim>.<phase>.p99_ratio[_before]
  BENCH server.hosted_flood[.base].flood_bytes_per_s
  BENCH server.hosted_flood[.base].loop_stall.ms

The daemon runs on core 0 (with its programs: a child inherits the
affinity), the clients on core 1, as in the other server benchmarks.
Exits 1 when a victim's key is never answered.
"""
import argparse
import multiprocessing
import os
import pathlib
import re
import select
import shutil
import signal
import socket
import sys
import tempfile
import time

import pyte

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import Daemon, program  # noqa: E402

PW = "bench-password"
IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
TTYPE, NAWS = 24, 31
CTRL_P, CTRL_X, PREFIX = b"\x10", b"\x18", b"\x1c"
PAUSE = 0.01  # between two keys of a victim
BLOCK = 2.0   # seconds the flood runs, then stops, then runs...
SETTLE = 0.5  # of each, not measured: queues drain, the rate's burst passes


def pinned(core):
    ok = (os.cpu_count() or 1) >= 2 and shutil.which("taskset")
    return ["taskset", "-c", str(core)] if ok else []


def pin_self(core, nice=0):
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {core})
    if nice:
        os.nice(nice)


class Tel:
    """A telnet client on a socket: says it is an 80x24 xterm-256color,
    feeds what it reads (telnet commands taken out) to a pyte screen."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.pend = b""

    def _answer(self, cmd, opt):
        if cmd == DO:
            self.sock.sendall(bytes([IAC, WILL if opt in (TTYPE, NAWS) else WONT, opt]))
            if opt == NAWS:
                self.sock.sendall(bytes([IAC, SB, NAWS, 0, 80, 0, 24, IAC, SE]))
        elif cmd == WILL:
            self.sock.sendall(bytes([IAC, DO if opt in (1, 3) else DONT, opt]))

    def _filter(self, data):
        """The bytes without telnet commands (answered on the way)."""
        data, out, i = self.pend + data, bytearray(), 0
        self.pend = b""
        while i < len(data):
            if data[i] != IAC:
                j = data.find(bytes([IAC]), i)
                j = len(data) if j < 0 else j
                out += data[i:j]
                i = j
                continue
            if i + 1 >= len(data):
                break
            c = data[i + 1]
            if c == IAC:
                out.append(IAC)
                i += 2
            elif c in (DO, DONT, WILL, WONT):
                if i + 2 >= len(data):
                    break
                self._answer(c, data[i + 2])
                i += 3
            elif c == SB:
                end = data.find(bytes([IAC, SE]), i)
                if end < 0:
                    break
                if data[i + 2] == TTYPE:
                    self.sock.sendall(bytes([IAC, SB, TTYPE, 0]) + b"xterm-256color" +
                                      bytes([IAC, SE]))
                i = end + 2
            else:
                i += 2
        self.pend = data[i:]
        return bytes(out)

    def pump(self, wait=0.05):
        r, _, _ = select.select([self.sock], [], [], wait)
        if not r:
            return False
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the daemon closed the connection")
        self.stream.feed(self._filter(data))
        return True

    def text(self):
        return "\n".join(self.screen.display)

    def wait_for(self, needle, timeout=20):
        end = time.time() + timeout
        while needle not in self.text():
            if time.time() > end:
                raise AssertionError(f"never showed {needle!r}:\n{self.text()}")
            self.pump()
        return self.text()

    def send(self, b):
        self.sock.sendall(b if isinstance(b, bytes) else b.encode())

    def settle(self, quiet=0.2):
        while self.pump(quiet):
            pass

    def register(self, name):
        self.wait_for("Your choice")
        for key, prompt in (("r", "Name:"), (name + "\r", "Password:"), (PW + "\r", "again:")):
            self.send(key)
            self.wait_for(prompt)
        self.send(PW + "\r")
        self.wait_for(f"Logged in as {name}")

    def key_latency(self, key):
        """Sends key; the time in ms until the first byte comes back (None
        after 10 s), then reads the rest of the frame."""
        t0 = time.perf_counter()
        self.send(key)
        r, _, _ = select.select([self.sock], [], [], 10)
        if not r:
            return None
        ms = (time.perf_counter() - t0) * 1000
        self.pump(0)
        return ms


def read_all(socks, stop):
    """Reads and drops what the flooding game sends its player and watcher."""
    pin_self(1, nice=19)
    while not stop.is_set():
        r, _, _ = select.select(socks, [], [], 0.1)
        for s in r:
            try:
                if not s.recv(1 << 16):
                    socks.remove(s)
            except OSError:
                socks.remove(s)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else float("nan")


def keys_for(victims, seconds, lat, missed):
    """Each victim's latencies for seconds into lat[victim], keys alternating."""
    end, i = time.time() + seconds, 0
    while time.time() < end:
        for name, (t, keys) in victims.items():
            ms = t.key_latency(keys[i % 2])
            if ms is None:
                missed.append(name)
            else:
                lat.setdefault(name, []).append(ms)
            time.sleep(PAUSE)
            t.settle(0)
        i += 1


def measure(victims, seconds, missed, flood_pid, phase, res):
    """Blocks of BLOCK seconds with the flooding program running (phase)
    and stopped (SIGSTOP: quiet) in turn, so both see the same machine.
    Returns the seconds it ran."""
    end, block, ran = time.time() + seconds, 0, 0.0
    while time.time() < end:
        block ^= 1
        t0 = time.time()
        os.kill(flood_pid, signal.SIGCONT if block else signal.SIGSTOP)
        time.sleep(SETTLE)
        keys_for(victims, BLOCK - SETTLE, res.setdefault(phase if block else "quiet", {}), missed)
        ran += (time.time() - t0) if block else 0
    os.kill(flood_pid, signal.SIGCONT)
    return ran


def game_row_letter(t, name):
    m = re.search(r"([a-z])\) " + re.escape(name), t.text())
    assert m, t.text()
    return m.group(1).encode()


def leave_flood(d, t, name):
    """The flooding player leaves: the prefix and x, or Ctrl-X on a build
    without the prefix."""
    t.send(PREFIX + b"x")
    try:
        d.wait_log(rf"detach user={name} ", timeout=2)
    except AssertionError:
        t.send(CTRL_X)
        d.wait_log(rf"detach user={name} ", timeout=5)


def flood_bytes(log, name):
    m = re.search(rf"hosted detach user={name} game=flood bytes_out=(\d+)", log)
    return int(m.group(1)) if m else 0


def loop_stall(log):
    return max([int(x) for x in re.findall(r"loop stalled (\d+) ms", log)] or [0])


def run(bindir, toy, seconds):
    """One daemon of bindir through the phases: what phases() returns."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-hflood-"))
    tmp.chmod(0o711)  # the games' user passes through to the players' directories
    conf = tmp / "warren.conf"
    conf.write_text(f"[game flood]\ncommand = {toy} flood\n[game keys]\ncommand = {toy} keys\n")
    d = Daemon(bindir, tmp / "d", exe=program(bindir, "warrend"), wrap=pinned(0),
               extra=["--config", conf])
    try:
        d.start()
        return phases(d, seconds)
    finally:
        d.stop()
        if os.environ.get("WARREN_BENCH_KEEP"):
            print(f"# kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def start_victims(d):
    w, h = Tel(d.port), Tel(d.port)
    w.register("vwarren")
    w.send("p")
    w.wait_for("Choose a race.")
    w.send("l")
    w.wait_for("Welcome, vwarren the ")
    h.register("vhosted")
    h.send("2")
    h.wait_for("keys ready")
    for t in (w, h):
        t.settle()
    return {"warren": (w, (CTRL_P, CTRL_P)), "hosted": (h, (b"a", b"b"))}


def start_flood(d):
    f, x = Tel(d.port), Tel(d.port)
    f.register("flooder")
    f.send("1")
    f.wait_for("flood")
    x.register("fwatcher")
    x.send("w")
    x.wait_for("flooder")
    x.send(game_row_letter(x, "flooder"))
    x.wait_for("flood 0")
    return f, x


def phases(d, seconds):
    """Latencies by phase and victim, keys never answered, the flood's
    bytes read and seconds running while attached, the longest loop turn."""
    victims = start_victims(d)
    missed, res = [], {}
    keys_for(victims, seconds / 3, res.setdefault("before", {}), missed)
    f, x = start_flood(d)
    pid = int(d.wait_log(r"hosted start user=flooder game=flood pid=(\d+)").group(1))
    stop = multiprocessing.Event()
    reader = multiprocessing.Process(target=read_all, args=([f.sock, x.sock], stop))
    reader.start()
    time.sleep(1)
    ran = 1 + measure(victims, seconds, missed, pid, "flood", res)
    leave_flood(d, f, "flooder")
    time.sleep(1)
    measure(victims, seconds, missed, pid, "detached", res)
    stop.set()
    reader.join()
    log = d.log()
    return {"res": res, "missed": missed, "bytes": flood_bytes(log, "flooder"), "ran": ran,
            "stall": loop_stall(log)}


def report(runs, tag):
    """The BENCH lines of one build's runs (latencies of all rounds pooled)."""
    res = {}
    for r in runs:
        for ph, by in r["res"].items():
            for v, xs in by.items():
                res.setdefault(ph, {}).setdefault(v, []).extend(xs)
    pre = f"BENCH server.hosted_flood{tag}"
    for v in res["quiet"]:
        for ph in res:
            for name, p in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
                print(f"{pre}.{v}.{ph}.{name}.ms {pct(res[ph][v], p):.2f}")
        for ph in ("flood", "detached"):
            p99 = pct(res[ph][v], 0.99)
            print(f"{pre}.{v}.{ph}.p99_ratio {p99 / pct(res['quiet'][v], 0.99):.2f}")
            print(f"{pre}.{v}.{ph}.p99_ratio_before {p99 / pct(res['before'][v], 0.99):.2f}")
    rate = sum(r["bytes"] for r in runs) / sum(r["ran"] for r in runs)
    print(f"{pre}.flood_bytes_per_s {rate:.0f}")
    print(f"{pre}.loop_stall.ms {max(r['stall'] for r in runs)}")
    missed = [m for r in runs for m in r["missed"]]
    print(f"# {tag or 'this build'}: {len(runs)} rounds, keys per victim and phase "
          f"{ {ph: len(res[ph]['warren']) for ph in res} }, unanswered {missed}")
    return not missed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bindir")
    ap.add_argument("--base", help="another build's bin directory, run in turn with this one")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--rounds", type=int, default=1, help="runs of each build, in turn")
    a = ap.parse_args()
    pin_self(1)
    bindir = pathlib.Path(a.bindir).resolve()
    toy = program(bindir, "tools/ptytoy")
    builds = [("", bindir)] + ([(".base", pathlib.Path(a.base).resolve())] if a.base else [])
    runs = {tag: [] for tag, _ in builds}
    for _ in range(a.rounds):
        for tag, b in builds:
            runs[tag].append(run(b, toy, a.seconds))
    ok = all([report(runs[tag], tag) for tag, _ in builds])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
