"""Where the daemon's core went during each big fan-out (perf sched trace).

Used by tests/web/spectators.py when WARREN_SPECTATE_CORETIME=SECONDS: for
SECONDS of the watched window, `perf record` takes every task switch and
every sendto() on the daemon's core. A fan-out is a run of 1 ms bins in
which the daemon's loop thread made 20 sends or more (gaps of at most
100 ms joined: a fan-out held up by other tasks stays one) holding at
least 90 % of the watchers' sends. For each one:
  wall    its first send to its last
  loop    the loop thread's time on the core in it (what the daemon spent)
  others  other tasks' time on the core in it (the machine's doing: other
          processes, the daemon's own database writer, kernel threads)
  idle    the core idle in it
BENCH lines (medians over the fan-outs): web.spectators.TAG.fanout.wall.ms,
.fanout.loop.ms, .fanout.others.ms, .fanout.loop_us_per_send; the
slowest one's .fanout.wall.max.ms (a run's p99 is its worst frames'), and
.fanout.frames (how many were seen). Then, with the daemon gone,
bin/tools/send_cost on the same core, its sockets read from the other
core as warren-spectate reads its watchers and under the same trace,
gives the kernel's floor for one such send (.send_cost.us), and
.fanout.over_send_cost is the loop's time a send over it: what the daemon
adds to the bare send (its own code, its loop's turns, the other games'
keys it serves meanwhile). The trace's own cost (a record per
send, about 1.3 us on the 2-core VM of BENCHMARKS.md) is in every figure
here and in the delays of the same run: read those from an untraced run.
Needs perf with tracepoints (root or kernel.perf_event_paranoid <= -1).
"""
import collections
import re
import shutil
import statistics
import subprocess

LINE = re.compile(r"\s*(.*?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)")
NEXT = re.compile(r"next_comm=(.*?) next_pid=(\d+)")
MIN_BIN, GAP_MS, SHARE = 20, 100, 0.9


def usable():
    """None when perf can trace the core here, else why not."""
    if not shutil.which("perf"):
        return "no perf"
    r = subprocess.run(["perf", "record", "-q", "-e", "sched:sched_switch", "-C", "0", "-o",
                        "/dev/null", "--", "true"], capture_output=True, text=True)
    return None if r.returncode == 0 else "perf cannot trace tracepoints: " + r.stderr[-200:]


def record(core, seconds, out, after=0.0):
    """Starts the trace of core for seconds, after seconds from now, into
    out; returns the Popen."""
    argv = ["perf", "record", "-q", "-D", str(int(after * 1000)), "-e", "sched:sched_switch",
            "-e", "syscalls:sys_enter_sendto", "-C", str(core), "-o", str(out), "--", "sleep",
            str(after + seconds)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def events(data):
    """(time, event name, pid, text) of the trace in data."""
    r = subprocess.run(["perf", "script", "-i", str(data)], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        m = LINE.match(line)
        if m:
            yield float(m.group(4)), m.group(5), int(m.group(2)), m.group(6)


def fanouts(sends, watchers):
    """(first, last, count) of each fan-out in the loop's send times."""
    bins = collections.Counter(int(t * 1000) for t in sends)
    runs, start, prev = [], None, None
    for b in sorted(b for b, c in bins.items() if c >= MIN_BIN):
        if start is not None and b - prev > GAP_MS:
            runs.append((start, prev))
            start = None
        start = b if start is None else start
        prev = b
    if start is not None:
        runs.append((start, prev))
    out = []
    for a, b in runs:
        inside = [t for t in sends if a / 1000 <= t < (b + 1) / 1000]
        if len(inside) >= SHARE * watchers:
            out.append((inside[0], inside[-1], len(inside)))
    return out


def occupancy(switches, t0, t1):
    """Seconds each task ("comm:pid") held the core in [t0, t1]."""
    held = collections.Counter()
    cur, last = "?", t0
    for t, who in switches:
        if t < t0:
            cur = who
            continue
        if t > t1:
            break
        held[cur] += t - last
        cur, last = who, t
    held[cur] += t1 - last
    return held


def report(data, loop_tid, watchers, bench, comment):
    """Prints the figures of the trace in data through bench(name, value)."""
    sends, switches = [], []
    for t, name, pid, text in events(data):
        if name.endswith("sys_enter_sendto") and pid == loop_tid:
            sends.append(t)
        elif name.endswith("sched_switch"):
            m = NEXT.search(text)
            if m:
                switches.append((t, f"{m.group(1)}:{m.group(2)}"))
    rows = []
    for t0, t1, n in fanouts(sends, watchers):
        held = occupancy(switches, t0, t1)
        loop = sum(v for k, v in held.items() if k.endswith(f":{loop_tid}"))
        idle = sum(v for k, v in held.items() if k.startswith("swapper"))
        wall = t1 - t0
        others = wall - loop - idle
        top = ", ".join(f"{k.split(':')[0]} {v * 1e3:.1f}" for k, v in held.most_common(4)
                        if not k.endswith(f":{loop_tid}") and not k.startswith("swapper") and v)
        rows.append((wall * 1e3, loop * 1e3, others * 1e3, loop * 1e6 / n))
        comment(f"fan-out: {n} sends, wall {wall * 1e3:.1f} ms, loop {loop * 1e3:.1f} ms, "
                f"({loop * 1e6 / n:.2f} us a send), others {others * 1e3:.1f} ms ({top or 'none'}), idle {idle * 1e3:.1f} ms")
    bench("fanout.frames", len(rows))
    if not rows:
        return None
    names = ("wall.ms", "loop.ms", "others.ms", "loop_us_per_send")
    medians = {name: statistics.median(r[i] for r in rows) for i, name in enumerate(names)}
    for name, v in medians.items():
        bench("fanout." + name, v)
    bench("fanout.wall.max.ms", max(r[0] for r in rows))
    return medians


def send_cost(bindir, core, sockets, reader_core, scratch):
    """bin/tools/send_cost's figure (us a loopback send, read as the tool
    reads) on core, under the same trace as the daemon was; or None."""
    tool = bindir / "tools" / "send_cost"
    if not tool.exists():
        return None
    argv = ["taskset", "-c", str(core), str(tool), "--sockets", str(sockets)]
    if reader_core is not None:
        argv += ["--reader", str(reader_core)]
    trace = ["perf", "record", "-q", "-e", "sched:sched_switch", "-e", "syscalls:sys_enter_sendto",
             "-C", str(core), "-o", str(scratch), "--"]
    r = subprocess.run(trace + argv, capture_output=True, text=True, timeout=300)
    m = re.search(r"web\.send_cost[.a-z]*\.us ([\d.]+)", r.stdout)
    return float(m.group(1)) if m else None
