"""One warrend on PostgreSQL against one on SQLite: N players (1,000 by
default) keying once a second through bin/warren-load, the daemon pinned to
core 0 and the load to core 1 as in bench-server.sh, each backend ROUNDS
times in turn (alternating, so a busy machine weighs on both alike). The
PostgreSQL server is a private cluster (tests/integration/pgcluster.py) on
the same machine, unpinned, with fsync on.

    /usr/bin/python3 tests/load/bench_pg.py BINDIR [N] [ROUNDS] [--async-commit]
        [--pg-base DIR] [--sqlite-full DIR]

--async-commit sets synchronous_commit = off on the PostgreSQL database:
its commits return before their WAL is on disk, the durability SQLite's
synchronous = NORMAL gives (a daemon's crash loses nothing acknowledged,
the machine's may), to see how much of the difference is the fsync.

--pg-base DIR adds a PostgreSQL run of the build in DIR each round (tag
pgbase: an older build against this one, in the same sitting);
--sqlite-full DIR an SQLite run of the build in DIR (tag sqlitefull), one
built with `PRAGMA synchronous = FULL` in db/db.c for the purpose: SQLite
flushing every commit, as PostgreSQL does.

Prints each run's BENCH lines with .sqlite, .pg (and .pgbase,
.sqlitefull) added, then the medians' ratios: BENCH
server.latency.p99.us.pg_over_sqlite.nN and
server.keys_per_s.pg_over_sqlite.nN (the issue's goal: p99 within 2x), and
the same for the other tags."""
import os
import pathlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import rate_off  # noqa: E402
from pgcluster import PgCluster  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin(core):
    return ["taskset", "-c", str(core)] if os.cpu_count() >= 2 and shutil.which("taskset") else []


def run(bindir, db, n, tmp, tag):
    port = free_port()
    log = open(tmp / f"{tag}.log", "wb")
    d = subprocess.Popen([*pin(0), str(bindir / "warrend"), "--telnet", f"127.0.0.1:{port}",
                          "--http", "", "--db", str(db), "--control", str(tmp / f"{tag}.ctl"),
                          "--test-hooks", "--register-per-hour", "0", "--max-connections",
                          "20000", "--max-per-ip", "20000", "--grace", "600",
                          *rate_off(bindir / "warrend")],
                         stdout=log, stderr=log, cwd=tmp)
    try:
        for _ in range(200):
            if b"recovery done" in (tmp / f"{tag}.log").read_bytes():
                break
            time.sleep(0.1)
        out = subprocess.run([*pin(1), str(bindir / "warren-load"), "--port", str(port),
                              "--n", str(n), "--seconds", "10", "--tag", f".n{n}.{tag}",
                              "--pid", str(d.pid)], capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise SystemExit(f"bench_pg: the {tag} run failed:\n{out.stdout}{out.stderr}")
        return {m.group(1): float(m.group(2))
                for m in re.finditer(r"^BENCH (\S+) ([-\d.]+)", out.stdout, re.M)}
    finally:
        d.terminate()
        d.wait(timeout=60)


def options(argv):
    """The arguments left, and each leg's tag: (build, whether PostgreSQL)."""
    legs, rest, i = {}, [], 1
    extra = {"--pg-base": ("pgbase", True), "--sqlite-full": ("sqlitefull", False)}
    while i < len(argv):
        if argv[i] in extra and i + 1 < len(argv):
            tag, pg = extra[argv[i]]
            legs[tag] = (pathlib.Path(argv[i + 1]).resolve(), pg)
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    bindir = pathlib.Path(rest[0] if rest else "bin").resolve()
    return rest, {"sqlite": (bindir, False), "pg": (bindir, True), **legs}


def main():
    lazy = "--async-commit" in sys.argv
    argv, legs = options([a for a in sys.argv if a != "--async-commit"])
    n = int(argv[1]) if len(argv) > 1 else 1000
    rounds = int(argv[2]) if len(argv) > 2 else 2
    top = pathlib.Path(tempfile.mkdtemp(prefix="bench-pg-"))
    results = {tag: [] for tag in legs}
    try:
        with PgCluster(top / "pg") as pg:
            for r in range(rounds):
                for tag, (bindir, on_pg) in legs.items():
                    db = pg.create_db(f"{tag}{r}") if on_pg else top / f"{tag}{r}.db"
                    if on_pg and lazy:
                        pg.psql(f"ALTER DATABASE {tag}{r} SET synchronous_commit = off")
                    got = run(bindir, db, n, top, f"{tag}{r}")
                    got = {k.replace(f".{tag}{r}", ""): v for k, v in got.items()}
                    for name, v in sorted(got.items()):
                        print(f"BENCH {name}.{tag} {v:g}", flush=True)
                    results[tag].append(got)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    for what in ("latency.p99.us", "keys_per_s"):
        name = f"server.{what}.n{n}"
        med = {tag: statistics.median(r[name] for r in runs) for tag, runs in results.items()}
        for tag in med:
            if tag != "sqlite":
                print(f"BENCH server.{what}.{tag}_over_sqlite.n{n} {med[tag] / med['sqlite']:.2f}")


if __name__ == "__main__":
    main()
