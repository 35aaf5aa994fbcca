#!/usr/bin/python3
"""calibrated — measures the machine with fixed reference workloads, then
runs a benchmark command and prints each of its scale figures also as a
ratio to the reference, so figures from different machines compare.

  calibrated.py BINDIR [--runs R] [--nethack-runs NR] -- COMMAND [ARGS...]

The references, each the median of R runs (default 5; NetHack's of NR,
default 9), with their spread (largest minus smallest over the median):
  BENCH calib.render_diff.us    the reference: CPU per key of the seeded
        200-key walk rendered and diffed at 80x24 (BINDIR/warren-engine
        bench walk: walk.render_diff.ns, thread CPU over 40 walks)
  BENCH calib.nethack.cpu_per_key.us  Debian's NetHack's own CPU per key on
        tests/load/pty_watch.py's seeded walk (nethack_walk.py; skipped
        when /usr/games/nethack is missing), and its memory per process:
        calib.nethack.rss.bytes, calib.nethack.private.bytes. As root
        NetHack itself is seeded (nethack_walk.py --seeded), so every run
        plays the same game; otherwise each run is another dungeon. A
        comment line gives the runs' min/median/max.
The render walk is the reference because it is the steadier on a shared
machine (BENCHMARKS.md, "Calibration"): NetHack's CPU per key wakes for
each key after 30 ms asleep, and what else the machine runs moves it by
tens of per cent even for the same game. It is Warren's own code, so two
builds compared side by side take the same build's walk
(tests/bench/compare.py).

After each BENCH line of COMMAND's output whose name says a time (a .us,
.ms or .ns part) or a rate (per_s) comes its ratio:
  BENCH NAME.calib R   a time over the reference's time; a rate times it
        (keys a second in units of the reference's keys a second)
a memory figure (rss, memory) gets NAME.per_nethack, over NetHack's
private memory per process, and the daemon's CPU per answered key
(server.cpu_per_key.us.TAG) gets NAME.per_nethack over NetHack's CPU per
key: the goal line (at most 0.3 at 10,000 players). Exits with COMMAND's
status."""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import nethack_walk  # noqa: E402

BENCH = re.compile(r"^BENCH (\S+) ([-0-9.e+]+)")
TIME_US = {"us": 1.0, "ms": 1000.0, "ns": 0.001}


def spread(xs):
    m = statistics.median(xs)
    return (max(xs) - min(xs)) / m if m else 0.0


def render_runs(bindir, runs):
    """walk.render_diff.ns of R runs of warren-engine bench walk, in us."""
    out = []
    for _ in range(runs):
        r = subprocess.run([os.path.join(bindir, "warren-engine"), "bench", "walk"],
                           capture_output=True, text=True, timeout=120)
        m = re.search(r"^BENCH walk\.render_diff\.ns ([0-9.]+)", r.stdout, re.M)
        if m:
            out.append(float(m.group(1)) / 1000)
    return out


def measure(bindir, runs, keys=200, log=sys.stdout, nethack_runs=None):
    """{name: value} of the references; prints their runs as comments to log.
    NetHack plays nethack_runs games (default runs), seeded where it can be
    (nethack_walk.can_seed: the same game every run)."""
    ref = {}
    rd = render_runs(bindir, runs)
    if rd:
        print("# calib render_diff us, runs: " + " ".join(f"{x:.2f}" for x in rd) +
              f" (spread {spread(rd) * 100:.0f} %)", file=log)
        ref["calib.render_diff.us"] = statistics.median(rd)
    try:
        seeded = os.path.exists(nethack_walk.NETHACK) and nethack_walk.can_seed()
        nh = nethack_walk.runs(nethack_runs or runs, keys, seeded=seeded) \
            if os.path.exists(nethack_walk.NETHACK) else []
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:  # the reference is still there
        print(f"# calib nethack failed: {e}", file=log)
        nh = []
    if nh:
        per_key = [r["cpu_ns"] / r["keys"] / 1000 for r in nh]
        print("# calib nethack cpu per key us, runs: " + " ".join(f"{x:.1f}" for x in per_key) +
              f" (spread {spread(per_key) * 100:.0f} %)", file=log)
        same = (f"seeded, {len(set(r['digest'] for r in nh))} different walk(s) in {len(nh)} runs"
                if seeded else "not seeded (it needs root): each run another game")
        print(f"# calib nethack cpu per key us, min/median/max: {min(per_key):.1f} / "
              f"{statistics.median(per_key):.1f} / {max(per_key):.1f}; {same}", file=log)
        ref["calib.nethack.cpu_per_key.us"] = statistics.median(per_key)
        ref["calib.nethack.bytes_per_key"] = statistics.median(r["bytes"] / r["keys"] for r in nh)
        ref["calib.nethack.rss.bytes"] = statistics.median(r["rss"] for r in nh)
        ref["calib.nethack.private.bytes"] = statistics.median(r["private"] for r in nh)
    return ref


def ratios(name, value, ref):
    """[(name, ratio)] for one figure against the references."""
    parts = name.split(".")
    out = []
    base = ref.get("calib.render_diff.us")
    unit = next((TIME_US[p] for p in parts if p in TIME_US), None)
    if name.startswith("calib."):
        return out
    if base and unit is not None:
        out.append((name + ".calib", value * unit / base))
    elif base and any(q == "per_s" or q.endswith("_per_s") for q in parts):
        out.append((name + ".calib", value * base / 1e6))
    nh_cpu = ref.get("calib.nethack.cpu_per_key.us")
    if nh_cpu and name.startswith("server.cpu_per_key.us"):
        out.append((name + ".per_nethack", value / nh_cpu))
    nh_mem = ref.get("calib.nethack.private.bytes")
    if nh_mem and ("rss" in parts or "memory" in parts) and "bytes" in parts \
            and "nethack" not in parts:  # NetHack's own figures
        out.append((name + ".per_nethack", value / nh_mem))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bindir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--nethack-runs", type=int, default=9)
    argv, cmd = sys.argv[1:], []
    if "--" in argv:
        argv, cmd = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    a = ap.parse_args(argv)
    ref = measure(a.bindir, a.runs, nethack_runs=a.nethack_runs)
    for k, v in ref.items():
        print(f"BENCH {k} {v:.3f}" if v < 1000 else f"BENCH {k} {v:.0f}", flush=True)
    if not cmd:
        return 0
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    for line in p.stdout:
        sys.stdout.write(line)
        m = BENCH.match(line)
        try:
            value = float(m.group(2)) if m else None
        except ValueError:  # a figure a run could not measure ("-")
            value = None
        if value is not None:
            for n, r in ratios(m.group(1), value, ref):
                sys.stdout.write(f"BENCH {n} {r:.4g}\n")
        sys.stdout.flush()
    return p.wait()


if __name__ == "__main__":
    sys.exit(main())
