#!/usr/bin/python3
"""Two builds side by side in one run: the ratios of their benchmark figures.

  tests/bench/compare.py OLD_BINDIR NEW_BINDIR [--rounds R] [--n N] [--seconds S]
                         [--load-args "ARGS"]

Runs, alternately for each build and R rounds: bench-protocol, warren-engine
bench, and NEW_BINDIR's warren-load against that build's warrend (N players,
one key a second, S seconds measured; the load tool is the same for both, so
only the daemon differs). Prints every figure's median per build and the
ratio new / old, then the daemon's CPU per key of every round. Alternating
rounds spread the machine's noise over both builds; compare ratios, not
absolute figures across runs. --load-args adds
options to every warren-load run (e.g. "--detach-all 3").

Each round first measures the machine (calibrated.py: OLD_BINDIR's
render walk, the same workload for both builds, and NetHack's CPU per key,
the median of 3 runs, seeded as root: the same game every round)
and adds every figure's ratio to it (NAME.calib, NAME.per_nethack), so a
table from one machine reads against another's.
"""
import argparse
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrated  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import rate_off  # noqa: E402

BENCH = re.compile(r"^BENCH (\S+) ([-0-9.e+]+)")


def bench_lines(text):
    return {m.group(1): float(m.group(2)) for m in map(BENCH.match, text.splitlines()) if m}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(core):
    if os.cpu_count() and os.cpu_count() >= 2 and os.path.exists("/usr/bin/taskset"):
        return ["taskset", "-c", str(core)]
    return []


def server_figures(bindir, loadtool, n, seconds, tmp, extra=()):
    port = free_port()
    log = open(os.path.join(tmp, "warrend.log"), "wb")
    db = os.path.join(tmp, f"w{time.time_ns()}.db")
    d = subprocess.Popen(pinned(0) + [os.path.join(bindir, "warrend"), "--telnet",
                                      f"127.0.0.1:{port}", "--http", "", "--db", db,
                                      "--test-hooks", "--register-per-hour", "0",
                                      "--grace", "600", "--max-connections",
                                      str(n + 100), "--max-per-ip", str(n + 100),
                                      *rate_off(os.path.join(bindir, "warrend"))],
                         stdout=log, stderr=log)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        r = subprocess.run(pinned(1) + [loadtool, "--port", str(port), "--n", str(n), "--seconds",
                                        str(seconds), "--tag", f".n{n}", "--pid", str(d.pid),
                                        *extra],
                           capture_output=True, text=True, timeout=600)
        return bench_lines(r.stdout)
    finally:
        d.terminate()
        d.wait(120)  # 10,000 games saved on a busy machine can take over 30 s


def one_round(bindir, loadtool, args, tmp):
    ref = calibrated.measure(args.old, 1, log=sys.stderr, nethack_runs=3)
    figs = bench_lines(subprocess.run([os.path.join(bindir, "bench-protocol")],
                                      capture_output=True, text=True).stdout)
    figs.update(bench_lines(subprocess.run([os.path.join(bindir, "warren-engine"), "bench"],
                                           capture_output=True, text=True).stdout))
    figs.update(server_figures(bindir, loadtool, args.n, args.seconds, tmp,
                               args.load_args.split()))
    for name, value in list(figs.items()):
        figs.update(calibrated.ratios(name, value, ref))
    figs.update(ref)
    return figs


def num(v):
    """A figure in 12 columns: ratios below 10 keep their digits."""
    return f"{v:12.1f}" if abs(v) >= 10 else f"{v:12.4g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--load-args", default="", help="more warren-load options")
    args = ap.parse_args()
    # each side holds a socket per session (as bench-server.sh's ulimit -n)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, args.n + 1000)) if hard != resource.RLIM_INFINITY else args.n + 1000
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    loadtool = os.path.join(args.new, "warren-load")
    runs = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for which in (("old", "new") if r % 2 == 0 else ("new", "old")):
                runs[which].append(one_round(getattr(args, which), loadtool, args, tmp))
                print(f"# round {r + 1} {which} done", file=sys.stderr, flush=True)
    names = sorted(set().union(*runs["old"]) & set().union(*runs["new"]))
    print(f"{'figure':44} {'old':>12} {'new':>12} {'new/old':>8}")
    for name in names:
        old = statistics.median(f[name] for f in runs["old"] if name in f)
        new = statistics.median(f[name] for f in runs["new"] if name in f)
        ratio = f"{new / old:8.2f}" if old else "     n/a"
        print(f"{name:44} {num(old)} {num(new)} {ratio}")
    # the CPU per key round by round: how far the machine moved it
    for name in (n for n in names if "cpu_per_key" in n and not n.endswith((".calib", "_nethack"))):
        for which in ("old", "new"):
            each = " ".join(num(f[name]).strip() for f in runs[which] if name in f)
            print(f"# {name} {which}, each round: {each}")


if __name__ == "__main__":
    main()
