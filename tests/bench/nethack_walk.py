#!/usr/bin/python3
"""nethack_walk — Debian's NetHack (nethack-console) on a pty of its own,
played by a seeded walk of keys; what it cost NetHack itself.

  nethack_walk.py [--keys K] [--seed S] [--runs R] [--kind KIND] [--cells]

Each run starts a new game in a fresh playground (a Valkyrie; NetHack
cannot be seeded, so its own randomness moves the figures; take
the median of several runs), answers its first questions until the map of
level 1, then sends the walk's keys one at a time, each once NetHack has
gone quiet after the last. Measured over the walk only:
  cpu_ns   NetHack's CPU time (/proc/PID/schedstat, nanoseconds)
  bytes    what it wrote to its terminal
  cells    with --cells: the cells each key changed on its screen (pyte)
  rss      its resident memory at the end (VmRSS); private the part of
           it it wrote itself (Private_Dirty: what one more NetHack costs,
           its program's pages being shared by all of them)
Prints BENCH lines: nethack.KIND.cpu_per_key.us, .bytes_per_key (with
--cells .cells_per_key and .bytes_per_cell), nethack.rss.bytes and
nethack.private.bytes (medians of the runs).

Kinds (--kind): "walk" and those of STEPS below; "walk" is the seeded walk of
tests/load/pty_watch.py (random.Random(16) over "hjklyubns" and Esc).
The process runs as whoever runs this (root on CI); nothing it writes
outlives the run."""
import argparse
import contextlib
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

# Each kind draws whole steps (a key or a few) from its list, as
# game/tool/bench_kinds.c does for Warren's game with Warren's keys for the
# same things (inventory i, equipment *, attributes ^X, discoveries \\,
# help ?; previous message ^P, look ;. and :, search s). "walk" is
# tests/load/pty_watch.py's walk, key by key; "fight" has no Warren
# counterpart (F and a direction: a blow at air or at a foe).
DIRS = list("hjklyubn")
STEPS = {
    "explore": DIRS + [".", ESC],
    "travel": ["_<.", "_>.", "H", "J", "K", "L", "Y", "U", "B", "N"],
    "menus": ["i" + ESC, "*" + ESC, "\x18" + ESC, "\\" + ESC, "?" + ESC],
    "messages": ["\x10" + ESC, ";." + ESC, ":" + ESC, ".", "s"],
    "fight": ["F" + d for d in DIRS] + DIRS,
}
KINDS = ["walk", *STEPS]


def keys_of(kind, n, seed):
    """n single keys of kind from a Random(seed)."""
    rng, out = random.Random(seed), []
    while len(out) < n:
        if kind == "walk":
            out.append(rng.choice("hjklyubns" + ESC))
        else:
            out.extend(rng.choice(STEPS[kind]))
    return out[:n]


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
    the status line shows level 1. Returns all it read."""
    seen, end = b"", time.monotonic() + timeout
    while b"Dlvl:1" not in seen[-4000:]:
        if time.monotonic() > end:
            raise RuntimeError("NetHack never reached its map: " + repr(seen[-300:]))
        got = drain(fd, 0.1)
        seen += got
        if b"Shall I pick" in got or b"Is this ok?" in got:
            os.write(fd, b"y")
        elif b"--More--" in got:
            os.write(fd, b"\r")
    seen += drain(fd, 0.2)
    os.write(fd, ESC.encode())  # a --More-- left from the welcome
    return seen + drain(fd, 0.2)


class Screen:
    """NetHack's terminal as pyte sees it: how many cells each piece of
    output changed (the raw screen changes beside its bytes)."""

    def __init__(self):
        import pyte  # only for --cells: the harness's terminal emulator
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.last = self.cells()

    def cells(self):
        b = self.screen.buffer
        return [(c.data, c.fg, c.bg, c.bold, c.reverse) for y in range(24)
                for c in (b[y][x] for x in range(80))]

    def changed(self, data):
        self.stream.feed(data)
        now = self.cells()
        n = sum(a != b for a, b in zip(now, self.last))
        self.last = now
        return n


@contextlib.contextmanager
def game(prefix="nh-walk-"):
    """A fresh NetHack in a playground of its own: yields (pid, fd), its
    process and terminal; killed and removed at the end."""
    root = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    pid = fd = None
    try:
        pid, fd = spawn(root, playground(root))
        yield pid, fd
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


def walk(keys=200, seed=16, kind="walk", cells=False):
    """One game; returns {cpu_ns, keys, bytes, cells, rss, private} (cells:
    0 unless asked for)."""
    with game() as (pid, fd):
        screen = Screen() if cells else None
        if screen:
            screen.changed(to_map(fd))
        else:
            to_map(fd)
        c0, nbytes, cells = cpu_ns(pid), 0, 0
        for k in keys_of(kind, keys, seed):
            os.write(fd, k.encode())
            out = drain(fd)
            nbytes += len(out)
            if screen:
                cells += screen.changed(out)
        c1 = cpu_ns(pid)
        rss, private = memory(pid)
        return {"cpu_ns": c1 - c0, "keys": keys, "bytes": nbytes, "cells": cells, "rss": rss,
                "private": private}


def runs(n, keys=200, seed=16, kind="walk", cells=False):
    return [walk(keys, seed, kind, cells) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--kind", default="walk", choices=KINDS)
    ap.add_argument("--cells", action="store_true",
                    help="count the cells each key changed (pyte): nethack.KIND.bytes_per_cell")
    a = ap.parse_args()
    rs = runs(a.runs, a.keys, a.seed, a.kind, a.cells)
    per_key = [r["cpu_ns"] / r["keys"] / 1000 for r in rs]
    bpk = [r["bytes"] / r["keys"] for r in rs]
    print("# runs: cpu per key us " + " ".join(f"{x:.1f}" for x in per_key))
    print(f"BENCH nethack.{a.kind}.cpu_per_key.us {statistics.median(per_key):.1f} us")
    print(f"BENCH nethack.{a.kind}.bytes_per_key {statistics.median(bpk):.1f} bytes")
    if a.cells:
        cells = [r["cells"] / r["keys"] for r in rs]
        print(f"BENCH nethack.{a.kind}.cells_per_key {statistics.median(cells):.1f} cells")
        print(f"BENCH nethack.{a.kind}.bytes_per_cell "
              f"{statistics.median(r['bytes'] / max(1, r['cells']) for r in rs):.2f} bytes")
    print(f"BENCH nethack.rss.bytes {statistics.median(r['rss'] for r in rs):.0f} bytes")
    print(f"BENCH nethack.private.bytes {statistics.median(r['private'] for r in rs):.0f} bytes")


if __name__ == "__main__":
    sys.exit(main())
