#!/usr/bin/python3
"""nethack_walk — Debian's NetHack (nethack-console) on a pty of its own,
played by a seeded walk of keys; what it cost NetHack itself.

  nethack_walk.py [--keys K] [--seed S] [--runs R] [--kind KIND]

Each run starts a new game in a fresh playground (a Valkyrie; NetHack
cannot be seeded, so its own randomness moves the figures; take
the median of several runs), answers its first questions until the map of
level 1, then sends the walk's keys one at a time, each once NetHack has
gone quiet after the last. Measured over the walk only:
  cpu_ns   NetHack's CPU time (/proc/PID/schedstat, nanoseconds)
  bytes    what it wrote to its terminal
  rss      its resident memory at the end (VmRSS); private the part of
           it it wrote itself (Private_Dirty: what one more NetHack costs,
           its program's pages being shared by all of them)
Prints BENCH lines: nethack.walk.<kind>.cpu_per_key.us, .bytes_per_key,
nethack.rss.bytes and nethack.private.bytes (medians of the runs).

Kinds (--kind): see KINDS below; "walk" is the seeded walk of
tests/load/pty_watch.py (random.Random(16) over "hjklyubns" and Esc).
The process runs as whoever runs this (root on CI); nothing it writes
outlives the run."""
import argparse
import fcntl
import os
import pathlib
import pty
import random
import select
import shutil
import statistics
import struct
import sys
import tempfile
import termios
import time

NETHACK = "/usr/games/nethack"
LIB = "/usr/lib/games/nethack"
# the same character every run (a Valkyrie) takes one source of spread away
RC = ("OPTIONS=windowtype:tty,color,!legacy,!tombstone,!toptenwin,!news,!autopickup\n"
      "OPTIONS=disclose:-i -a -v -g -c -o\n"
      "OPTIONS=role:Valkyrie,race:human,gender:female,align:neutral\n")
ESC = "\x1b"

# Each kind: a function of a seeded Random giving the next key. They
# stand for kinds of play a player does, as far as a blind walk can.
DIRS = "hjklyubn"


def _explore(rng):
    return rng.choice(DIRS + "s" + ESC)


def _travel(rng):  # shift-run: long moves that redraw as they go
    return rng.choice("HJKLYUBN" + ESC)


def _menus(rng):  # inventory and the other lists, closed again
    return rng.choice(["i", ESC, "\\", ESC, "+", ESC, "$", "^x", ESC, "O", ESC])


def _messages(rng):  # look, search, previous messages, what is here
    return rng.choice([":", "s", "\x10", ESC, ";.", ESC, "x", ESC])


def _fight(rng):  # fight in every direction (F + dir): hits air or a foe
    return "F" + rng.choice(DIRS) if rng.random() < 0.6 else rng.choice(DIRS + ESC)


KINDS = {
    "walk": lambda rng: rng.choice("hjklyubns" + ESC),
    "explore": _explore,
    "travel": _travel,
    "menus": _menus,
    "messages": _messages,
    "fight": _fight,
}


def cpu_ns(pid):
    return int(pathlib.Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def memory(pid):
    """(VmRSS, private dirty bytes) of pid."""
    rss = private = 0
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
    try:
        for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Private_Dirty:"):
                private += int(line.split()[1]) * 1024
    except OSError:
        pass
    return rss, private


def playground(root):
    pg = root / "nethack"
    (pg / "save").mkdir(parents=True)
    for f in ("nhdat", "symbols", "license"):
        os.symlink(f"{LIB}/{f}", pg / f)
    for f in ("record", "logfile", "xlogfile", "perm"):
        (pg / f).write_text("")
    (root / "nethackrc").write_text(RC)
    return pg


def spawn(root, pg):
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {"HOME": str(root), "TERM": "xterm-256color", "USER": "bench",
               "NETHACKOPTIONS": f"@{root / 'nethackrc'}", "PATH": "/usr/bin:/bin"}
        os.execve(NETHACK, [NETHACK, "-d", str(pg), "-u", "bench"], env)
    return pid, fd


def drain(fd, quiet=0.03, limit=2.0):
    """Everything the game writes until it is quiet for `quiet` seconds."""
    out, end = bytearray(), time.monotonic() + limit
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], quiet)
        if not r:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    return bytes(out)


def to_map(fd, timeout=20):
    """Answers the first questions (a random character, --More--) until
    the status line shows level 1."""
    seen, end = b"", time.monotonic() + timeout
    while b"Dlvl:1" not in seen:
        if time.monotonic() > end:
            raise RuntimeError("NetHack never reached its map: " + repr(seen[-300:]))
        got = drain(fd, 0.1)
        seen = (seen + got)[-4000:]
        if b"Shall I pick" in got or b"Is this ok?" in got:
            os.write(fd, b"y")
        elif b"--More--" in got:
            os.write(fd, b"\r")
    drain(fd, 0.2)
    os.write(fd, ESC.encode())  # a --More-- left from the welcome
    drain(fd, 0.2)


def walk(keys=200, seed=16, kind="walk"):
    """One game; returns {cpu_ns, keys, bytes, rss, private}."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="nh-walk-"))
    pid = fd = None
    try:
        pid, fd = spawn(root, playground(root))
        to_map(fd)
        rng, nextkey = random.Random(seed), KINDS[kind]
        c0, nbytes = cpu_ns(pid), 0
        for _ in range(keys):
            k = nextkey(rng)
            os.write(fd, (k.replace("^x", "\x18")).encode())
            nbytes += len(drain(fd))
        c1 = cpu_ns(pid)
        rss, private = memory(pid)
        return {"cpu_ns": c1 - c0, "keys": keys, "bytes": nbytes, "rss": rss, "private": private}
    finally:
        if pid:
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except OSError:
                pass
        if fd is not None:
            os.close(fd)
        shutil.rmtree(root, ignore_errors=True)


def runs(n, keys=200, seed=16, kind="walk"):
    return [walk(keys, seed, kind) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--kind", default="walk", choices=sorted(KINDS))
    a = ap.parse_args()
    rs = runs(a.runs, a.keys, a.seed, a.kind)
    per_key = [r["cpu_ns"] / r["keys"] / 1000 for r in rs]
    bpk = [r["bytes"] / r["keys"] for r in rs]
    print("# runs: cpu per key us " + " ".join(f"{x:.1f}" for x in per_key))
    print(f"BENCH nethack.{a.kind}.cpu_per_key.us {statistics.median(per_key):.1f} us")
    print(f"BENCH nethack.{a.kind}.bytes_per_key {statistics.median(bpk):.1f} bytes")
    print(f"BENCH nethack.rss.bytes {statistics.median(r['rss'] for r in rs):.0f} bytes")
    print(f"BENCH nethack.private.bytes {statistics.median(r['private'] for r in rs):.0f} bytes")


if __name__ == "__main__":
    sys.exit(main())
