#!/usr/bin/python3
"""Players' keys while many others log in and start their games, on one
daemon: PLAYING players (30) key every 0.2 s through bin/warren-load;
once all are in play, STARTERS more (270) connect, register and start
their games at once (--inflight 64; then key every 0.5 s). The playing players' key-to-frame
latency over the starters' ramp-up (from the start of their load until
all of them play) is the figure, beside the same before the ramp-up and
the daemon's journal appends of the last 10 s at its end (`warren-admin
health`: submit to callback, and the p99 of its queue, commit and way
back). Builds alternate round by round, on SQLite and on PostgreSQL (a
private cluster, tests/integration/pgcluster.py), the daemon pinned to
core 0 and the loads to core 1.

    /usr/bin/python3 tests/load/bench_startburst.py OLD_BINDIR NEW_BINDIR
        [--rounds R] [--playing N] [--starters M] [--backends sqlite,pg]

Prints a BENCH line per run (startburst.FIGURE.BUILD.BACKEND VALUE, its
round in a comment) and at the end each figure's median per build and
backend with the ratio new / old. The load tool is NEW_BINDIR's for
both builds."""
import argparse
import os
import pathlib
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import rate_off  # noqa: E402
from pgcluster import PgCluster  # noqa: E402

MARK = re.compile(r"# mark (\d+): (playing=.*)")
APPENDS = re.compile(r"journal appends, last \d+ s: (\d+), submit to callback p50 (\d+) "
                     r"p99 (\d+) max (\d+) us; p99 of queue (\d+) commit (\d+) back (\d+) us")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin(core):
    return ["taskset", "-c", str(core)] if os.cpu_count() >= 2 and shutil.which("taskset") else []


def wait_for(path, what, timeout, proc=None):
    end = time.time() + timeout
    while time.time() < end:
        text = path.read_text(errors="replace") if path.exists() else ""
        if what in text:
            return text
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.05)
    raise SystemExit(f"bench_startburst: no '{what}' in {path}:\n{text[-3000:]}")


def mark(proc, out, n):
    proc.send_signal(signal.SIGUSR1)
    end = time.time() + 30
    while time.time() < end:
        found = [m for m in MARK.finditer(out.read_text()) if int(m.group(1)) == n]
        if found:
            return {k: float(v) for k, v in (kv.split("=") for kv in found[0].group(2).split())}
        time.sleep(0.05)
    raise SystemExit(f"bench_startburst: no mark {n} in {out}")


def load(loadtool, port, n, out, interval, extra=()):
    return subprocess.Popen([*pin(1), str(loadtool), "--port", str(port), "--n", str(n),
                             "--seconds", "3600", "--warmup", "0", "--interval", str(interval),
                             "--key-timeout", "60", "--ramp-timeout", "120", *extra],
                            stdout=open(out, "w"), stderr=subprocess.STDOUT)


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(bindir, loadtool, db, tmp, tag, playing, starters):
    """One daemon, the two loads: {figure: value}."""
    port = free_port()
    ctl = tmp / f"{tag}.ctl"
    logpath = tmp / f"{tag}.log"
    d = subprocess.Popen([*pin(0), str(bindir / "warrend"), "--telnet", f"127.0.0.1:{port}",
                          "--http", "", "--db", str(db), "--control", str(ctl), "--test-hooks",
                          "--register-per-hour", "0", "--max-connections", "20000",
                          "--max-per-ip", "20000", "--grace", "600",
                          *rate_off(bindir / "warrend")],
                         stdout=open(logpath, "wb"), stderr=subprocess.STDOUT, cwd=tmp)
    procs = [d]
    try:
        wait_for(logpath, "recovery done", 30, d)
        a_out, b_out = tmp / f"{tag}.a.out", tmp / f"{tag}.b.out"
        a = load(loadtool, port, playing, a_out, 0.2)
        procs.append(a)
        wait_for(a_out, "# ramp-up:", 120, a)
        time.sleep(3)
        before = mark(a, a_out, 1)
        t0 = time.monotonic()
        b = load(loadtool, port, starters, b_out, 0.5, ["--inflight", "64"])
        procs.append(b)
        ramp = wait_for(b_out, "# ramp-up:", 180, b)
        ramp_s = time.monotonic() - t0
        during = mark(a, a_out, 2)
        health = subprocess.run([str(bindir / "warren-admin"), "--control", str(ctl), "health"],
                                capture_output=True, text=True, timeout=60).stdout
        m = re.search(r"# ramp-up: (\d+) of (\d+) sessions in play", ramp)
        if not m or m.group(1) != m.group(2):
            raise SystemExit(f"bench_startburst: {tag}: not every starter played:\n{ramp[-2000:]}")
        got = {"ramp.s": round(ramp_s, 2),
               "before.key.p50.us": before["key.p50.us"], "before.key.p99.us": before["key.p99.us"],
               "during.key.p50.us": during["key.p50.us"], "during.key.p99.us": during["key.p99.us"],
               "during.keys": during["keys"]}
        h = APPENDS.search(health)
        if h:
            for k, v in zip(("n", "p50", "p99", "max", "queue.p99", "commit.p99", "back.p99"),
                            map(int, h.groups())):
                got[f"append.{k}" + ("" if k == "n" else ".us")] = v
        return got
    finally:
        for p in reversed(procs):
            stop(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--playing", type=int, default=30)
    ap.add_argument("--starters", type=int, default=270)
    ap.add_argument("--backends", default="sqlite,pg")
    o = ap.parse_args()
    builds = {"old": pathlib.Path(o.old).resolve(), "new": pathlib.Path(o.new).resolve()}
    loadtool = builds["new"] / "warren-load"
    backends = o.backends.split(",")
    top = pathlib.Path(tempfile.mkdtemp(prefix="bench-startburst-"))
    results = {}
    try:
        with PgCluster(top / "pg") as pg:
            for r in range(o.rounds):
                order = list(builds.items())
                if r % 2:
                    order.reverse()
                for backend in backends:
                    for name, bindir in order:
                        tag = f"{name}{backend}{r}"
                        db = pg.create_db(tag) if backend == "pg" else top / f"{tag}.db"
                        got = run(bindir, loadtool, db, top, tag, o.playing, o.starters)
                        load1 = os.getloadavg()[0]
                        for k, v in got.items():
                            print(f"BENCH startburst.{k}.{name}.{backend} {v:g}  # round {r} "
                                  f"{time.strftime('%H:%M:%S', time.gmtime())} load {load1:.1f}",
                                  flush=True)
                            results.setdefault((backend, k), {}).setdefault(name, []).append(v)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    for (backend, k), by in sorted(results.items()):
        if "old" in by and "new" in by:
            old, new = statistics.median(by["old"]), statistics.median(by["new"])
            ratio = new / old if old else float("nan")
            print(f"MEDIAN startburst.{k}.{backend} old {old:g} new {new:g} new/old {ratio:.2f}")


if __name__ == "__main__":
    main()
