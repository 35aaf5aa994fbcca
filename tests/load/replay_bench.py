#!/usr/bin/python3
"""What a hosted game's big recording costs the daemon when its replay and
asciicast are asked for, against the real warrend (release build):

  tests/load/replay_bench.py BINDIR [BEFORE_BINDIR]

BEFORE_BINDIR: another build's bin/ (e.g. main before replays were
bounded) measured the same way in the same run, its lines tagged .before
(this build's .after). A recording of 32 MiB (record-max's default) of
coloured lines, a read of 1 KB every 25 ms, is written into the database
in the recorder's own format (tests/integration/recordings.py); then:

  replay.TAG.frames.first.status / .ms / .cpu_ms / .rss_mb / .body_bytes
      /api/hosted/ID/replay asked once (the browser player's frames, sent
      gzipped): the answer's status (0: cut off), wall time, the daemon's
      CPU time and its peak RSS over what it held before (VmHWM, reset
      first) until it is idle again, the body as received
  replay.TAG.frames.again.*                  the same asked again
  replay.TAG.frames.plain.*                  again, by a client without gzip
  replay.TAG.cast.*                          the same for /hosted/ID.cast
  replay.TAG.parallel16.same.*               16 clients at once (without
      gzip) for the frames of one recording not asked before: .ms until the last is
      answered, .ok answers (200), .refused_503, .work_ms until the daemon
      is idle again (work a gone client left goes on), .cpu_ms, .rss_mb
      peak RSS growth, .loop_stall_ms the daemon's longest loop turn
      meanwhile (its "loop stalled N ms" lines; 0: none reached 50 ms)
  replay.TAG.parallel16.distinct.*           16 clients at once, each for the
      asciicast of a recording of its own
  replay.TAG.idle.loop_stall_ms              the longest loop turn in 10 s
      of nothing asked (what the machine alone does to the loop)

The clients run on core 1; the daemon is not pinned (its loop and the
thread pool's builds share both cores, as on a server). A run takes a
minute or two per build.
"""
import os
import pathlib
import re
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
import recordings  # noqa: E402
from harness import PW, Daemon, Web, program, unique_name  # noqa: E402

MIB = 1 << 20
SIZE = 32 * MIB


def proc_status(pid, key):
    status = open(f"/proc/{pid}/status").read()
    return int(re.search(rf"{key}:\s+(\d+) kB", status).group(1)) // 1024


def cpu_ms(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 // os.sysconf("SC_CLK_TCK")


def reset_peak(pid):
    """VmHWM back to VmRSS (Linux: clear_refs 5), so a phase's peak is its own."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def quiet(pid, limit=600):
    """Waits until the daemon uses (almost) no CPU for half a second."""
    end = time.time() + limit
    while time.time() < end:
        c = cpu_ms(pid)
        time.sleep(0.5)
        if cpu_ms(pid) - c < 30:
            return


def stall_max(log):
    return max((int(m) for m in re.findall(r"loop stalled (\d+) ms", log)), default=0)


class Bench:
    def __init__(self, bindir, tag, made):
        self.tag = tag
        self.dir = tempfile.mkdtemp(prefix="replay-bench-")
        self.d = Daemon(bindir, self.dir, http=True, exe=program(bindir, "warrend"))
        self.d.start()
        self.pid = self.d.proc.pid
        name = unique_name("rb")
        assert Web(self.d.http).register(name, PW).status == 303
        uid = self.d.db_rows("SELECT id FROM users WHERE name = ?", name)[0][0]
        self.ids = recordings.insert(self.d.db, uid, made, SIZE, copies=19)
        self.web = Web(self.d.http, timeout=600)

    def line(self, name, value):
        print(f"BENCH replay.{self.tag}.{name} {value}", flush=True)

    def one(self, name, path, gz=True):
        """One request, timed: its wall time, the daemon's CPU and memory."""
        quiet(self.pid)
        reset_peak(self.pid)
        rss, cpu, t0 = proc_status(self.pid, "VmRSS"), cpu_ms(self.pid), time.perf_counter()
        r = self.web.get(path, headers={"Accept-Encoding": "gzip"} if gz else None)
        ms = (time.perf_counter() - t0) * 1000
        quiet(self.pid)  # a build its client no longer waits for still counts
        self.line(f"{name}.status", r.status)  # 0: the connection was cut
        self.line(f"{name}.ms", f"{ms:.0f}")
        self.line(f"{name}.cpu_ms", cpu_ms(self.pid) - cpu)
        self.line(f"{name}.rss_mb", proc_status(self.pid, "VmHWM") - rss)
        self.line(f"{name}.body_bytes", len(r.body))

    def parallel(self, name, paths):
        quiet(self.pid)
        reset_peak(self.pid)
        log0, rss, cpu = len(self.d.log()), proc_status(self.pid, "VmRSS"), cpu_ms(self.pid)
        t0 = time.perf_counter()
        got = []

        def get(p):
            r = self.web.get(p)  # no gzip: the whole body goes out, as a script would ask
            got.append(r.status)
        threads = [threading.Thread(target=get, args=(p,)) for p in paths]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ms = (time.perf_counter() - t0) * 1000
        quiet(self.pid)
        work = (time.perf_counter() - t0) * 1000 - 500  # quiet's last look
        self.line(f"parallel16.{name}.ms", f"{ms:.0f}")
        self.line(f"parallel16.{name}.ok", got.count(200))
        self.line(f"parallel16.{name}.refused_503", got.count(503))
        self.line(f"parallel16.{name}.work_ms", f"{work:.0f}")
        self.line(f"parallel16.{name}.cpu_ms", cpu_ms(self.pid) - cpu)
        self.line(f"parallel16.{name}.rss_mb", proc_status(self.pid, "VmHWM") - rss)
        self.line(f"parallel16.{name}.loop_stall_ms", stall_max(self.d.log()[log0:]))

    def idle(self):
        quiet(self.pid)
        log0 = len(self.d.log())
        time.sleep(10)
        self.line("idle.loop_stall_ms", stall_max(self.d.log()[log0:]))

    def run(self):
        a, b, same = self.ids[0], self.ids[1], self.ids[2]
        self.idle()
        self.one("frames.first", f"/api/hosted/{a}/replay")
        self.one("frames.again", f"/api/hosted/{a}/replay")
        self.one("frames.plain", f"/api/hosted/{a}/replay", gz=False)
        self.one("cast.first", f"/hosted/{b}.cast")
        self.one("cast.again", f"/hosted/{b}.cast")
        self.one("cast.plain", f"/hosted/{b}.cast", gz=False)
        self.parallel("same", [f"/api/hosted/{same}/replay"] * 16)
        self.parallel("distinct", [f"/hosted/{i}.cast" for i in self.ids[3:19]])
        self.d.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {1})
    made = recordings.chunks(recordings.flood_output(SIZE), read=1024, ms_per_read=25)
    print(f"# a {SIZE >> 20} MiB recording: {len(made)} chunks, "
          f"{sum(len(d) for _, d in made)} bytes stored", flush=True)
    runs = [(sys.argv[1], "after")] + ([(sys.argv[2], "before")] if len(sys.argv) > 2 else [])
    for bindir, tag in runs:
        Bench(pathlib.Path(bindir).resolve(), tag, made).run()


if __name__ == "__main__":
    main()
