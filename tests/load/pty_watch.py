"""pty_watch — a hosted NetHack watched through the real warrend (release
build) and Debian's telnet on both sides. Usage: pty_watch.py BINDIR

  BENCH pty.watch.delay.p50.us / .p99.us  the watcher's frame after the
        player's frame for the same key (both clients read with select)
  BENCH pty.key.frame.p99.us              a key sent to the player's frame
  BENCH pty.watch.bytes_per_key           bytes the watcher got per key over
        a seeded 200-key walk
  BENCH pty.raw.bytes_per_key             bytes NetHack wrote for those keys
  BENCH pty.daemon.memory.per_game.bytes  warrend's RSS growth per hosted game
        (8 games after a first one; NetHack's own processes not counted)
  BENCH pty.nethack.rss.bytes / .private.bytes  one of those NetHack
        processes (the median): resident, and what it wrote itself
        (Private_Dirty; its program's pages are shared by all of them)
  BENCH hosted.record.ratio               bytes the walk's recording stored (zlib
        chunks) per raw byte NetHack wrote for it"""
import os
import pathlib
import random
import re
import select
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))
from harness import LEAVE, Daemon, Telnet, unique_name  # noqa: E402
from test_hosted import playground, start_nethack  # noqa: E402

sys.path.insert(0, str(HERE.parent / "bench"))
from nethack_walk import memory  # noqa: E402

GAMES = int(os.environ.get("PTY_WATCH_GAMES", "8"))
HOSTREC_FLUSH_S = 2.5  # a recording's first chunk is written (and its buffers freed) by then
WALK = 200


def rss(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def first_bytes(fds, timeout=2.0):
    """Reads every fd until each has sent something (or timeout); returns
    {fd: (arrival time, bytes)} and keeps reading until quiet."""
    got, end = {}, time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select(fds, [], [], 0.05 if len(got) == len(fds) else end - time.monotonic())
        if not r:
            if len(got) == len(fds):
                break
            continue
        now = time.monotonic()
        for fd in r:
            data = os.read(fd, 65536)
            t, n = got.get(fd, (now, 0))
            got[fd] = (t, n + len(data))
    return got


def bytes_out(d, why, user):
    m = d.wait_log(rf"hosted {why} user={user} game=nethack bytes_out=(\d+)")
    return int(m.group(1))


def stored(d, name, raw, timeout=10):
    """The recording's stored chunk bytes once it holds raw output bytes."""
    end = time.time() + timeout
    while True:
        [(nbytes, kept)] = d.db_rows("SELECT h.bytes, (SELECT coalesce(sum(length(data)), 0) "
                                     "FROM hosted_chunks c WHERE c.game = h.id) FROM hosted_games h "
                                     "JOIN users u ON u.id = h.user WHERE u.name = ?", name)
        if nbytes >= raw or time.time() > end:
            return kept
        time.sleep(0.1)


def main(bindir):
    bindir = pathlib.Path(bindir).resolve()
    root = pathlib.Path(tempfile.mkdtemp(prefix="pty-watch-"))
    _, conf = playground(root, bindir)
    # every game starts from 127.0.0.1: room for them all under hosted-per-ip
    conf.write_text(f"hosted-per-ip = {GAMES + 2}\n" + conf.read_text())
    d = Daemon(bindir, root / "daemon", exe=bindir / "warrend", extra=["--config", conf])
    d.start()
    clients = []
    try:
        # one game first: what the first costs once (the threads its start
        # wakes and their heaps) is not any game's own
        warm = Telnet(d.port)
        start_nethack(warm, unique_name("b"))
        clients.append(warm)
        time.sleep(HOSTREC_FLUSH_S)
        base = rss(d.proc.pid)
        names = []
        for _ in range(GAMES):
            t = Telnet(d.port)
            clients.append(t)
            names.append(unique_name("b"))
            start_nethack(t, names[-1])
        time.sleep(1)
        per_game = (rss(d.proc.pid) - base) // GAMES
        pids = [int(p) for p in re.findall(r"hosted start user=\S+ game=nethack pid=(\d+)", d.log())]
        nh_mem = sorted(memory(p) for p in pids)[len(pids) // 2]
        p = clients[1]
        name = names[0]
        p.send(LEAVE)
        p.wait_for("Your choice")
        before = bytes_out(d, "detach", name)
        kept_before = stored(d, name, before)
        p.send("1")
        p.wait_for("Dlvl:1")
        w = Telnet(d.port)
        clients.append(w)
        w.register(unique_name("w"))
        w.send("w")
        letter = re.search(rf"(\w)\) {name} ", w.wait_for(name)).group(1)
        w.send(letter)
        w.wait_for(" St:")  # its second status line is under the watch line
        w.pump(quiet=0.5)
        p.send("\x1b")  # a --More-- left from the welcome
        w.pump(quiet=0.3)
        pf, wf = p.child.child_fd, w.child.child_fd
        rng = random.Random(16)
        delays, key_frame, wbytes = [], [], 0
        for _ in range(WALK):
            key = rng.choice("hjklyubns\x1b")  # Esc: out of any question
            t0 = time.monotonic()
            os.write(pf, key.encode())
            got = first_bytes([pf, wf], 0.5)  # a move into a wall draws nothing
            if pf in got and wf in got:
                delays.append(max(0.0, got[wf][0] - got[pf][0]))
                key_frame.append(got[pf][0] - t0)
            wbytes += got.get(wf, (0, 0))[1]
        p.send(LEAVE)
        after = bytes_out(d, "detach", name)
        kept = stored(d, name, after) - kept_before
        delays.sort()
        key_frame.sort()

        def pct(xs, q):
            return xs[min(len(xs) - 1, int(len(xs) * q))] * 1e6 if xs else -1

        print(f"BENCH pty.watch.delay.p50.us {pct(delays, 0.50):.0f}")
        print(f"BENCH pty.watch.delay.p99.us {pct(delays, 0.99):.0f}")
        print(f"BENCH pty.key.frame.p99.us {pct(key_frame, 0.99):.0f}")
        print(f"BENCH pty.watch.frames {len(delays)} of {WALK} keys")
        print(f"BENCH pty.watch.bytes_per_key {wbytes / WALK:.1f}")
        print(f"BENCH pty.raw.bytes_per_key {(after - before) / WALK:.1f}")
        print(f"BENCH pty.daemon.memory.per_game.bytes {per_game}")
        print(f"BENCH pty.nethack.rss.bytes {nh_mem[0]}")
        print(f"BENCH pty.nethack.private.bytes {nh_mem[1]}")
        print(f"BENCH hosted.record.ratio {kept / max(1, after - before):.3f}")
    finally:
        for c in clients:
            c.close()
        d.stop()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bin")
