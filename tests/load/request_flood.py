#!/usr/bin/python3
"""One address flooding the web listener with page requests, against the
real warrend (release build, its default settings: no test flags).

  tests/load/request_flood.py BINDIR [SECONDS] [CLIENTS] [PATH]

CLIENTS processes (default 4) on 127.0.0.3 each request PATH (default /,
the lobby page, rendered each time) one connection a request, as fast as
they are answered, for SECONDS (default 10); meanwhile 127.0.0.2 requests
the same page every 50 ms and times it.
  BENCH web.flood.ok_per_s          answered 200 a second (the flood's)
  BENCH web.flood.refused_per_s     answered 429 a second
  BENCH web.flood.daemon_cpu        the daemon's CPU seconds a second
  BENCH web.flood.us_per_answer     the daemon's CPU per answer (200 or 429)
  BENCH web.flood.other.p50.ms / .p99.ms   the other address's page time
The daemon runs on core 0, the clients on core 1 (taskset), as the other
server benchmarks."""
import multiprocessing
import os
import pathlib
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import Daemon, program  # noqa: E402

FLOOD, OTHER = "127.0.0.3", "127.0.0.2"


def pinned(core):
    ok = (os.cpu_count() or 1) >= 2 and shutil.which("taskset")
    return ["taskset", "-c", str(core)] if ok else []


def pin_self(core):
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {core})


def get(port, source, path):
    """One request on a connection of its own; its status (0: none)."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    except OSError:
        return 0
    with s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        got = b""
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
        except OSError:
            pass
    return int(got[9:12]) if got[:5] == b"HTTP/" else 0


def flooder(port, path, stop_at, out):
    pin_self(1)
    counts = {}
    while time.time() < stop_at:
        st = get(port, FLOOD, path)
        counts[st] = counts.get(st, 0) + 1
    out.put(counts)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else float("nan")


def main():
    bindir = pathlib.Path(sys.argv[1]).resolve()
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    path = sys.argv[4] if len(sys.argv) > 4 else "/"
    pin_self(1)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-flood-"))
    d = Daemon(bindir, tmp, http=True, exe=program(bindir, "warrend"), wrap=pinned(0),
               test_flags=False)
    try:
        d.start()
        time.sleep(0.5)
        out = multiprocessing.Queue()
        stop_at = time.time() + seconds
        cpu0 = cpu_seconds(d.proc.pid)
        procs = [multiprocessing.Process(target=flooder, args=(d.http, path, stop_at, out))
                 for _ in range(clients)]
        for p in procs:
            p.start()
        times = []
        while time.time() < stop_at:
            t0 = time.perf_counter()
            st = get(d.http, OTHER, path)
            times.append((time.perf_counter() - t0) * 1000)
            assert st == 200, st
            time.sleep(0.05)
        counts = {}
        for _ in procs:
            for k, v in out.get().items():
                counts[k] = counts.get(k, 0) + v
        for p in procs:
            p.join()
        cpu = cpu_seconds(d.proc.pid) - cpu0
        print(f"# {path} from {FLOOD}, {clients} clients, {seconds:.0f} s: {counts}")
        print(f"BENCH web.flood.ok_per_s {counts.get(200, 0) / seconds:.0f}")
        print(f"BENCH web.flood.refused_per_s {counts.get(429, 0) / seconds:.0f}")
        print(f"BENCH web.flood.daemon_cpu {cpu / seconds:.2f}")
        print(f"BENCH web.flood.us_per_answer {cpu * 1e6 / max(1, sum(counts.values())):.0f}")
        print(f"BENCH web.flood.other.p50.ms {pct(times, 0.5):.2f}")
        print(f"BENCH web.flood.other.p99.ms {pct(times, 0.99):.2f}")
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
