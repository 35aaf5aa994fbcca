#!/usr/bin/python3
"""A thousand hosted NetHack games: the release warrend hosting Debian's
NetHack under its ptys, warren-load (--hosted) as the players over telnet.

  tests/load/bench_hosted1k.py BINDIR [--n N] [--watchers M] [--seconds S]
                               [--inflight K] [--one-session]

Each player registers, starts NetHack from the menu, takes a random
character, gets past its intro and then moves once a second (a move onto
something beside its @; Esc for a --More--); a key is timed from its send
to the first byte of the frame that answers it, and a key that drew
nothing before the player's next one (a wall) is counted, not timed. M
watchers (10) watch the first M games. Players start K at a time (16).

Debian's NetHack allows MAXPLAYERS games at once (/etc/nethack/sysconf:
10, at most 25 by lock letters); the daemon runs in a mount namespace of
its own where a copy of that file says 0 (one lock per player instead),
so the machine's file is not touched. The caps of the bench's config
(hosted-max, hosted-per-ip, max-per-ip) are raised to N; the defaults
stay as they are.

  BENCH hosted.nN.p50.ms / .p99.ms   key to the first byte of its frame
  BENCH hosted.nN.answered           keys answered / keys sent
  BENCH hosted.nN.watch.delay.p99.ms a watcher's frame after its player's
  BENCH hosted.nN.spawn.per_s        games brought to NetHack's map per
                                     second of the ramp-up
  BENCH pty.daemon.memory.per_game.bytes.nN  warrend's RSS growth / N
  BENCH nethack.rss.per_process.bytes.nN     the NetHack processes' PSS
        (/proc/PID/smaps_rollup: shared pages divided among them) / N
  BENCH hosted.box.pss.per_game.bytes.nN     the same of each game's holder
        and pid namespace reaper (forks of the spawner) / N
  BENCH server.cpu_per_key.us.nN     warrend's CPU (all its threads) in the
                                     window per key answered
  BENCH hosted.start.probe.max.ms / .p99.ms  one more player, in a program
        that prints each key (ptytoy keys), sends a key every 20 ms while
        the N games start: its longest and 99th-percentile wait for the
        answer (a loop held up by a start shows here first)
  BENCH hosted.start.spawner_wait.ms / .max.ms   the loop thread sampled
        every millisecond (/proc/PID/task/PID/syscall) while the games
        start: the time it sat in poll(2), where a start used to wait for
        the spawner's answer (libuv waits in epoll_wait), in all and the
        longest stretch; the machine's other work does not move it
  BENCH hosted.start.loop_stall.max.ms       the longest turn of warrend's
        loop while the N games started (its stall probe logs a turn of 50 ms
        or more: 0 means none did); .count: how many were logged
  BENCH machine.memory.per_player.bytes.nN   MemAvailable's drop / N
        (the daemon, the NetHacks, the kernel's ptys and sockets, the
        load tool; other programs on the machine move it too)

Exits 1 when a session failed or no key was answered."""
import argparse
import itertools
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))
from harness import Daemon, Telnet, unique_name  # noqa: E402
from test_hosted import playground, toy_key  # noqa: E402

SYSCONF = pathlib.Path("/etc/nethack/sysconf")


def meminfo(key="MemAvailable"):
    for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def rss(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def pss(pid):
    try:
        text = pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None  # gone
    m = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
    return int(m.group(1)) * 1024 if m else None


def game_pids(d):
    """The pids the log names: each game's holder (the spawner's child)."""
    return [int(p) for p in re.findall(r"hosted start user=\S+ game=nethack pid=(\d+)", d.log())]


def children(pid):
    try:
        return [int(c) for c in pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def game_box(holder):
    """(the program's pid, the box's own pids): a game in a pid namespace
    is its holder, the namespace's reaper and the program under it; a game
    without one (network = host) is the program alone."""
    reapers = children(holder)
    programs = [p for r in reapers for p in children(r)]
    if not programs:
        return holder, []
    return programs[0], [holder] + reapers


def sysconf_copy(root):
    """Debian's sysconf with MAXPLAYERS=0: no cap on games at once."""
    text = SYSCONF.read_text()
    text = re.sub(r"^MAXPLAYERS=.*$", "MAXPLAYERS=0", text, flags=re.M)
    path = root / "sysconf"
    path.write_text(text)
    path.chmod(0o644)
    return path


def namespaced(sysconf):
    """A command prefix: the rest runs where sysconf is NetHack's."""
    script = f'mount --bind "{sysconf}" {SYSCONF} && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]


def config(conf, n, m):
    caps = (f"hosted-max = {n + 10}\nhosted-per-ip = {n + 10}\n"
            f"max-per-ip = {n + m + 20}\nmax-connections = {n + m + 100}\n"
            "game-idle = 0\n")
    conf.write_text(caps + conf.read_text())


def memory(d, n, mem0, rss0):
    """The memory figures once every game is on its map."""
    pids = game_pids(d)
    boxes = [game_box(p) for p in pids]
    sizes = [x for x in (pss(prog) for prog, _ in boxes) if x is not None]
    box = [x for _, own in boxes for x in map(pss, own) if x is not None]
    print(f"# memory: {len(sizes)} NetHack processes of {len(pids)} started, "
          f"{len(box)} processes of their boxes; warrend RSS {rss(d.proc.pid)}", flush=True)
    tag = f".n{n}"
    print(f"BENCH pty.daemon.memory.per_game.bytes{tag} {(rss(d.proc.pid) - rss0) // n}")
    print(f"BENCH nethack.rss.per_process.bytes{tag} {sum(sizes) // max(1, len(sizes))}")
    print(f"BENCH hosted.box.pss.per_game.bytes{tag} {sum(box) // max(1, len(sizes))}")
    print(f"BENCH machine.memory.per_player.bytes{tag} {(mem0 - meminfo()) // n}", flush=True)


class Probe:
    """A player in ptytoy keys whose keys are timed from a thread until
    stop(): each from its send to the first byte of its answer."""

    def __init__(self, port):
        self.t = Telnet(port)
        self.t.register(unique_name("probe"))
        self.t.send(toy_key("keys"))
        self.t.wait_for("keys ready")
        self.waits, self.done = [], threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        child = self.t.child
        keys = "abcdefghijklmnoprstuvwxyz0123456789"  # not q (it ends the program)
        for i in itertools.count():
            if self.done.is_set():
                break
            t0 = time.monotonic()
            child.send(keys[i % len(keys)])  # lines that differ: each answer is a change
            while True:
                try:
                    child.read_nonblocking(65536, timeout=5)
                    break
                except Exception:  # pexpect.TIMEOUT: counted as 5 s (none expected)
                    break
            self.waits.append(time.monotonic() - t0)
            time.sleep(0.02)

    def stop(self):
        self.done.set()
        self.thread.join()
        w = sorted(self.waits) or [0]
        print(f"# probe: {len(self.waits)} keys while the games started")
        print(f"BENCH hosted.start.probe.max.ms {w[-1] * 1000:.2f}")
        print(f"BENCH hosted.start.probe.p99.ms {w[int(len(w) * 0.99)] * 1000:.2f}", flush=True)
        self.t.close()


class Sampler:
    """What warrend's loop thread is in, every millisecond, until stop()."""
    POLL = ("7", "271")  # poll, ppoll on x86-64: the old synchronous wait for the spawner

    def __init__(self, pid):
        self.path = f"/proc/{pid}/task/{pid}/syscall"
        self.samples, self.in_poll, self.run, self.longest = 0, 0, 0, 0
        self.t0 = time.monotonic()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.done.is_set():
            try:
                nr = pathlib.Path(self.path).read_text().split(" ", 1)[0]
            except OSError:
                break
            self.samples += 1
            polling = nr in self.POLL
            self.run = self.run + 1 if polling else 0
            self.in_poll += polling
            self.longest = max(self.longest, self.run)
            time.sleep(0.001)

    def stop(self):
        self.done.set()
        self.thread.join()
        per = (time.monotonic() - self.t0) * 1000 / max(1, self.samples)  # ms a sample
        print(f"# sampler: {self.samples} samples, {per:.2f} ms apart")
        print(f"BENCH hosted.start.spawner_wait.ms {self.in_poll * per:.1f}")
        print(f"BENCH hosted.start.spawner_wait.max.ms {self.longest * per:.1f}", flush=True)


def start_stalls(d):
    """The loop stalls logged so far (the ramp-up: every game starting)."""
    stalls = [int(x) for x in re.findall(r"loop stalled (\d+) ms", d.log())]
    print(f"BENCH hosted.start.loop_stall.max.ms {max(stalls or [0])}")
    print(f"BENCH hosted.start.loop_stall.count {len(stalls)}", flush=True)


def drive(load, d, n, mem0, rss0, probe, sampler):
    """Relays warren-load's lines; at the end of its ramp-up, the probe's
    waits, the loop's stalls and the memory. Returns its exit status."""
    for line in load.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        m = re.match(r"# ramp-up: (\d+) of \d+ sessions in play after (\d+) ms", line)
        if m:
            sampler.stop()
            probe.stop()
            start_stalls(d)
            print(f"BENCH hosted.n{n}.spawn.per_s {int(m.group(1)) * 1000 / max(1, int(m.group(2))):.1f}")
            time.sleep(2)  # the last games' recordings flush their first chunk
            memory(d, n, mem0, rss0)
    return load.wait()


def stop_games(d):
    """The daemon stopped, its games hung up by the spawner; any NetHack
    still there after a while is killed by its pid."""
    pids = game_pids(d)
    d.stop()
    end = time.time() + 30
    while time.time() < end and any(os.path.exists(f"/proc/{p}") for p in pids):
        time.sleep(0.5)
    for p in pids:
        for target in (-p, p):  # the holder's group: it and its reaper
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def run(a):
    if os.geteuid() != 0:
        print("bench_hosted1k: needs root (a mount namespace where NetHack's MAXPLAYERS is 0)",
              file=sys.stderr)
        return 2
    bindir = pathlib.Path(a.bindir).resolve()
    root = pathlib.Path(tempfile.mkdtemp(prefix="warren-h1k-"))
    _, conf = playground(root, bindir)
    config(conf, a.n, a.watchers)
    mem0 = meminfo()
    # the daemon and the load tool each in a session (so a scheduling
    # autogroup) of its own, as a service runs apart from its clients
    d = Daemon(bindir, root / "daemon", exe=bindir / "warrend",
               wrap=namespaced(sysconf_copy(root)), extra=["--config", conf],
               popen={"start_new_session": not a.one_session})
    d.start()
    try:
        rss0 = rss(d.proc.pid)
        probe = Probe(d.port)
        sampler = Sampler(d.proc.pid)
        cmd = [bindir / "warren-load", "--port", d.port, "--hosted", "1", "--n", a.n,
               "--m", a.watchers, "--watched", max(1, a.watchers), "--inflight", a.inflight,
               "--seconds", a.seconds, "--warmup", 5, "--key-timeout", 0.9,
               "--ramp-timeout", 120, "--tag", f".n{a.n}", "--pid", d.proc.pid]
        load = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, text=True,
                                start_new_session=not a.one_session)
        print(f"# load average at start: {os.getloadavg()[0]:.2f}", flush=True)
        status = drive(load, d, a.n, mem0, rss0, probe, sampler)
        print(f"# load average at the end: {os.getloadavg()[0]:.2f} (the machine's, others' too)")
        stalls = [int(x) for x in re.findall(r"loop stalled (\d+) ms", d.log())]
        print(f"# warrend: longest loop stall {max(stalls or [0])} ms, {len(stalls)} logged")
        warns = [ln for ln in d.log().splitlines() if re.search(r" (WARN|ERROR) ", ln)]
        for line in warns[:5]:
            print("# warrend: " + line)
        print(f"# warrend: {len(warns)} warnings and errors logged")
        return status
    finally:
        stop_games(d)
        if os.environ.get("WARREN_BENCH_KEEP"):
            print(f"# kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bindir")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--watchers", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--inflight", type=int, default=16)
    ap.add_argument("--one-session", action="store_true",
                    help="the daemon and the load tool in this script's session (a comparison)")
    sys.exit(run(ap.parse_args()))


if __name__ == "__main__":
    main()
