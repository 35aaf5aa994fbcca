#!/usr/bin/python3
"""Browser spectators in bulk against the real warrend (bin/warren-spectate).

  tests/web/spectators.py BINDIR [N] [GAMES] [ONE]

Starts warrend with the web gateway, registers GAMES players (100) and
runs warren-spectate twice, each in a daemon of its own:
  n{N}      N websocket watchers (10,000) spread over the GAMES games;
  one{ONE}  ONE watchers (5,000) all on one game (a tournament stream);
each player pressing a key a second, first without watchers, then with
them. Every watcher's frames are decoded; 10 of them read nothing during
the window and must be caught up by a keyframe. N or ONE 0: that run is
left out. Prints warren-spectate's BENCH lines (web.spectators.TAG.p99.ms:
a key to a watcher's copy of its frame reaching its socket; .read.p99.ms:
read by the tool; .player_ratio: the players' p99 with the watchers over
without; .cpu_us_per_frame: the daemon's CPU a watcher frame).
WARREN_SPECTATE_ARGS: more arguments for warren-spectate (--wake: the
tool sleeps in epoll_wait during the windows, as it did before).
WARREN_SPECTATE_DAEMON_CORES: the daemon's cores for taskset ("0,1").
With two cores the daemon runs on core 0 and the tool on core 1. Each
side holds N + GAMES sockets: ulimit -n is raised to 20,000.
"""
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import Daemon, Web, program  # noqa: E402
from fanout import pinned  # noqa: E402


def run(bindir, tag, watchers, games, one):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-spectate-"))
    cores = os.environ.get("WARREN_SPECTATE_DAEMON_CORES")  # e.g. "0,1": not only core 0
    wrap = ["taskset", "-c", cores] if cores else pinned(0)
    d = Daemon(bindir, tmp, http=True, exe=program(bindir, "warrend"), wrap=wrap,
               extra=["--max-per-ip", "20000", "--max-connections", "20000"])
    try:
        d.start()
        with open(tmp / "cookies", "w") as f:
            for i in range(games):
                r = Web(d.http).register(f"spec{i}", "benchpass1")
                assert r.status == 303 and r.session, r.head
                f.write(f"spec{i} {r.session}\n")
        argv = [str(bindir / "warren-spectate"), "--port", str(d.http), "--cookies",
                str(tmp / "cookies"), "--games", str(games), "--watchers", str(watchers),
                "--seconds", "10", "--slow", "10", "--tag", tag] + (["--one"] if one else [])
        argv += ["--daemon-pid", str(d.proc.pid)]
        argv += os.environ.get("WARREN_SPECTATE_ARGS", "").split()  # e.g. --wake
        r = subprocess.run(pinned(1) + argv, capture_output=True, text=True, timeout=900)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.stderr.write(r.stderr + d.log()[-2000:])
            return False
        return True
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    bindir = pathlib.Path(sys.argv[1]).resolve()
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    games = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    one = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    want = 20000 if hard == resource.RLIM_INFINITY else min(20000, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < n + games + 100:
        print(f"# spectators skipped: {want} descriptors, {n + games + 100} needed")
        return
    ok = run(bindir, f"n{n}", n, games, False) if n else True
    ok = (run(bindir, f"one{one}", one, games, True) if one else True) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
