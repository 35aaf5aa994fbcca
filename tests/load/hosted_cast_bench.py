#!/usr/bin/python3
"""What a hosted NetHack game's asciicast costs the daemon that builds it,
against another build's (e.g. main's, which wrote the recorded bytes):

  tests/load/hosted_cast_bench.py BINDIR BEFORE_BINDIR [--keys K] [--rounds R]
                                  [--keep DIR]

A real game of Debian's NetHack is played through BINDIR's warrend (telnet,
80x24) and recorded as every hosted game is: the map of level 1, then K
keys of tests/bench/nethack_walk.py's kinds of play in turn (the walk,
exploring, travel, menus, messages, fights: K/6 seeded keys of each, a key
once NetHack has answered the last), then the player leaves and the daemon
stops (the recording is written). Then the two release builds take turns (before, after, before,
...: R rounds each), each started afresh on that database (its body cache
empty) and asked /hosted/ID.cast once with gzip; measured per build, the
median of its rounds:

  hosted_cast.TAG.bytes       the cast's body (the log's "replay built")
  hosted_cast.TAG.gz_bytes    the same gzipped, as cached and sent
  hosted_cast.TAG.build_ms    the build's time in that log line (reading
                              the chunks and playing them)
  hosted_cast.TAG.cpu_ms      the daemon's CPU time over the request, every
                              thread (/proc/PID/task/*/schedstat)

TAG is before or after. The recording's own size is printed first
(hosted_cast.recording.bytes: the output recorded; .keys). With --keep the
game is played into DIR once and later runs with the same DIR measure that
recording again. Run as root (the games' user runs NetHack); a run takes a
few minutes."""
import argparse
import gzip
import pathlib
import re
import statistics
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
from harness import LEAVE, Daemon, Telnet, Web, program, unique_name  # noqa: E402
from nethack_walk import KINDS, keys_of  # noqa: E402
from test_hosted import playground, start_nethack  # noqa: E402


def cpu_ns(pid):
    total = 0
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except OSError:
            pass  # a thread that ended
    return total


def record(bindir, root, keys):
    """Plays and records the game; returns (the daemon's directory, the
    recording's id, its bytes)."""
    _, conf = playground(root, bindir)
    d = Daemon(bindir, root / "daemon", http=True, exe=program(bindir, "warrend"),
               extra=["--config", conf, "--grace", "2"])
    d.start()
    t = Telnet(d.port)
    try:
        name = unique_name("cb")
        start_nethack(t, name)
        walk = [k for kind in KINDS for k in keys_of(kind, keys // len(KINDS), 16)]
        for i, k in enumerate(walk):
            if i % 50 == 0 and "Your choice" in t.text():
                break  # the game ended on its own (the character died)
            t.play_keys(k)
        t.send(LEAVE)
        t.wait_for("Your choice", timeout=10)
    finally:
        t.close()
    assert d.stop() == 0
    [(rid, nbytes)] = d.db_rows("SELECT h.id, h.bytes FROM hosted_games h JOIN users u "
                                "ON u.id = h.user WHERE u.name = ?", name)
    return d.dir, rid, nbytes


def one_build(bindir, ddir, rid):
    """bindir's warrend on the recording: (bytes, gzipped, build ms, CPU ms)."""
    d = Daemon(bindir, ddir, http=True, exe=program(bindir, "warrend"))
    d.start()
    try:
        before = cpu_ns(d.proc.pid)
        r = Web(d.http).get(f"/hosted/{rid}.cast", headers={"Accept-Encoding": "gzip"})
        m = d.wait_log(rf"replay built: hosted cast {rid}, (\d+) bytes, (\d+) gzipped, (\d+) ms")
        cpu = (cpu_ns(d.proc.pid) - before) / 1e6
        assert r.status == 200 and r.headers["x-warren-cache"] == "miss"
        body = gzip.decompress(r.body)
        assert len(body) == int(m.group(1)) and re.match(rb'\{"version": 2', body)
        return int(m.group(1)), int(m.group(2)), int(m.group(3)), cpu
    finally:
        d.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bindir", type=lambda p: pathlib.Path(p).resolve())
    ap.add_argument("before", type=lambda p: pathlib.Path(p).resolve())
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--keep", type=pathlib.Path)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hosted-cast-") as tmp:
        root = a.keep or pathlib.Path(tmp)
        db = root / "daemon" / "warren.db"
        if db.exists():
            ddir = db.parent
            [(rid, nbytes)] = Daemon(a.bindir, ddir).db_rows("SELECT id, bytes FROM hosted_games")
        else:
            root.mkdir(parents=True, exist_ok=True)
            ddir, rid, nbytes = record(a.bindir, root, a.keys)
        print(f"BENCH hosted_cast.recording.bytes {nbytes}")
        print(f"BENCH hosted_cast.recording.keys {a.keys}")
        got = {"before": [], "after": []}
        for _ in range(a.rounds):
            for tag, bindir in (("before", a.before), ("after", a.bindir)):
                got[tag].append(one_build(bindir, ddir, rid))
                print(f"# {tag}: bytes, gzipped, build ms, CPU ms {got[tag][-1]}", flush=True)
        for tag, runs in got.items():
            for i, what in enumerate(("bytes", "gz_bytes", "build_ms", "cpu_ms")):
                xs = [r[i] for r in runs]
                print(f"BENCH hosted_cast.{tag}.{what} {statistics.median(xs):g} "
                      f"(min {min(xs):g}, max {max(xs):g})")


if __name__ == "__main__":
    main()
