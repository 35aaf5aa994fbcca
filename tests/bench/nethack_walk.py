#!/usr/bin/python3
"""nethack_walk — Debian's NetHack (nethack-console) on a pty of its own,
played by a seeded walk of keys; what it cost NetHack itself.

  nethack_walk.py [--keys K] [--seed S] [--runs R] [--kind KIND] [--cells]
                  [--seeded]

Each run starts a new game in a fresh playground (a Valkyrie; its own
randomness moves the figures, each run being another dungeon: take the
median of several runs), answers its first questions until the map of
level 1, then sends the walk's keys one at a time, each once NetHack has
gone quiet after the last. In the kinds of STEPS a --More-- of the
message line is answered with Enter, and after a step's last key a
question or a window NetHack still waits at is left with Esc, their
bytes counted with the key that brought them (else it swallows every
later key of the walk, which then costs nothing: read_on); the walk of
pty_watch.py (kind "walk", calibrated.py's reference: Esc is among its
keys) is played as it always was. With --seeded (root only) NetHack
draws its random numbers from a fixed file bound over /dev/urandom in a
mount namespace of its own, so every run plays the same game and the
walk's output is the same byte for byte (a comment line counts the
different walks); only the machine moves its CPU figure. Measured over
the walk only:
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
import hashlib
import os
import pathlib
import pty
import random
import re
import select
import shutil
import statistics
import subprocess
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
# NetHack 3.6 seeds its random numbers from /dev/urandom: with this file
# bound over it (a mount namespace of the game's own, private to it) every
# new game is the same game: the same level, monsters and messages. This
# seed's walk sits at the middle of new games' (BENCHMARKS.md, "The same
# NetHack game every run"): 41.9 bytes a key against their median 40.0.
UNSHARE = "/usr/bin/unshare"
SEED = hashlib.shake_256(b"nethack 5").digest(1024)
BIND_SEED = 'mount --bind "$0" /dev/urandom'

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


def steps_of(kind, n, seed):
    """The steps (each a list of keys) of kind's n single keys from a
    Random(seed), the last one cut to make n."""
    rng, out, count = random.Random(seed), [], 0
    while count < n:
        step = list(rng.choice("hjklyubns" + ESC) if kind == "walk" else rng.choice(STEPS[kind]))
        out.append(step[:n - count])
        count += len(out[-1])
    return out


def keys_of(kind, n, seed):
    """n single keys of kind from a Random(seed)."""
    return [k for step in steps_of(kind, n, seed) for k in step]


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


def ended(pid):
    """Whether the process pid (a child, not yet waited for) has ended."""
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2] == "Z"


def playground(root):
    pg = root / "nethack"
    (pg / "save").mkdir(parents=True)
    for f in ("nhdat", "symbols", "license"):
        os.symlink(f"{LIB}/{f}", pg / f)
    for f in ("record", "logfile", "xlogfile", "perm"):
        (pg / f).write_text("")
    (root / "nethackrc").write_text(RC)
    return pg


def can_seed():
    """Whether NetHack can be seeded here: a mount namespace of its own
    (root, util-linux's unshare) with a file bound over /dev/urandom."""
    if os.geteuid() != 0 or not os.path.exists(UNSHARE):
        return False
    with tempfile.NamedTemporaryFile() as f:
        r = subprocess.run([UNSHARE, "-m", "/bin/sh", "-c", BIND_SEED + " && exec true", f.name],
                           capture_output=True, timeout=10)
    return r.returncode == 0


def spawn(root, pg, seeded=False):
    """NetHack on a pty of its own; seeded: its random numbers drawn from
    SEED (NetHack 3.6 seeds from /dev/urandom), so every game it starts is
    the same one. The pid is NetHack's (unshare and sh exec it)."""
    argv = [NETHACK, "-d", str(pg), "-u", "bench"]
    if seeded:
        f = os.open(root / "seed", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(f, "wb") as out:
            out.write(SEED)
        argv = [UNSHARE, "-m", "/bin/sh", "-c", BIND_SEED + ' && exec "$@"', str(root / "seed"),
                *argv]
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {"HOME": str(root), "TERM": "xterm-256color", "USER": "bench",
               "NETHACKOPTIONS": f"@{root / 'nethackrc'}", "PATH": "/usr/bin:/bin"}
        os.execve(argv[0], argv, env)
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


# What each thing NetHack can wait at, other than a command at its map,
# is answered with (waits): a --More-- of the message line read on as a
# player does; a question (y/n, what to use, a direction, a name to call
# something) or a window or menu (its --More--, its page's end) left with
# Esc, as a player who wants none of it does.
ANSWERS = {"more": "\r", "question": ESC, "window": ESC}
MORE = "--More--"
PAGE_END = re.compile(r"\((end|\d+ of \d+)\)$")


def waits(rows, x, y):
    """What NetHack's screen (rows of text, the cursor at column x, row y)
    waits at: "more" (the cursor just after the message line's --More--,
    right after its message, or on the row below at its start when a long
    message spilled over), "window" (a window's --More--, at the window's
    left edge, blanks before it; a menu's page, "(end)" or "(1 of 2)"),
    "question" (the cursor on the message line, or past it on the row
    below with no hero under it: a prompt), or None: a command at the map
    (the cursor on the hero, or on the square a travel picks)."""
    before = rows[y][:x].rstrip()
    if before.endswith(MORE):
        start = len(before) - len(MORE)
        return "more" if y <= 1 and (start == 0 or before[start - 1] != " ") else "window"
    if PAGE_END.search(before):
        return "window"
    if y == 0 or (y == 1 and rows[y][x:x + 1] != "@"):
        return "question"
    return None


def read_on(fd, screen, out, kinds=("more",)):
    """out and what NetHack writes as each thing it waits at of kinds (a
    --More-- by default: else it swallows every later key of the walk,
    which then costs nothing) is answered (ANSWERS), at most 50; returns
    (all of it, cells it changed, the --More-- answered, the rest
    answered: what each showed on the cursor's row). An answer NetHack
    writes nothing for ends it: the screen was read wrong."""
    cells, enters, others = screen.changed(out), 0, []
    for _ in range(50):
        kind = screen.waits()
        if kind not in kinds:
            break
        os.write(fd, ANSWERS[kind].encode())
        if kind == "more":
            enters += 1
        else:
            others.append(screen.cursor_row())
        got = drain(fd)
        out += got
        cells += screen.changed(got)
        if not got:
            break
    return out, cells, enters, others


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
        import pyte  # the harness's terminal emulator (--cells, read_on)
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.last = self.cells()

    def cells(self):
        b = self.screen.buffer
        return [(c.data, c.fg, c.bg, c.bold, c.reverse) for y in range(24)
                for c in (b[y][x] for x in range(80))]

    def waits(self):
        """What NetHack waits at (waits): "more", "window", "question" or None."""
        return waits(self.screen.display, self.screen.cursor.x, self.screen.cursor.y)

    def cursor_row(self):
        return self.screen.display[self.screen.cursor.y].rstrip()

    def text(self):
        return "\n".join(row.rstrip() for row in self.screen.display)

    def changed(self, data):
        self.stream.feed(data)
        now = self.cells()
        n = sum(a != b for a, b in zip(now, self.last))
        self.last = now
        return n


@contextlib.contextmanager
def game(prefix="nh-walk-", seeded=False):
    """A new NetHack in a playground of its own: yields (pid, fd), its
    process and terminal; killed and removed at the end. Seeded (spawn):
    the same game as every other seeded run's."""
    root = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    pid = fd = None
    try:
        pid, fd = spawn(root, playground(root), seeded)
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


def play(fd, steps, screen, reads_on, digest):
    """Sends steps' keys one at a time, each once NetHack went quiet after
    the last; reading on (reads_on) past each --More--, and after a step's
    last key past whatever else NetHack waits at (a question, a window:
    the walk's next keys would not answer it, read_on). Returns (bytes,
    cells, --More-- answered, the rest answered)."""
    nbytes = ncells = enters = 0
    others = []
    for step in steps:
        for i, k in enumerate(step):
            os.write(fd, k.encode())
            out, n, e, o = drain(fd), 0, 0, []
            if reads_on:
                kinds = tuple(ANSWERS) if i == len(step) - 1 else ("more",)
                out, n, e, o = read_on(fd, screen, out, kinds)
            elif screen:
                n = screen.changed(out)
            nbytes, ncells, enters = nbytes + len(out), ncells + n, enters + e
            others += o
            digest.update(out)
    return nbytes, ncells, enters, others


def walk(keys=200, seed=16, kind="walk", cells=False, seeded=False):
    """One game (see game); returns {cpu_ns, keys, bytes, cells, rss,
    private, digest, enters, escaped, ends_at, ended, screen} (cells: 0
    unless asked for or kind reads on; digest: a hash of all the walk's
    output, the same in every seeded run; enters: the --More-- answered,
    escaped: the cursor's row of each question or window left with Esc,
    play; ends_at: what NetHack waits at after the walk, waits, when read;
    ended: whether NetHack ended before the walk did, its hero dead;
    screen: the last one, when read). The game's start is not measured:
    the walk only."""
    with game(seeded=seeded) as (pid, fd):
        reads_on = kind in STEPS
        screen = Screen() if cells or reads_on else None
        start = to_map(fd)
        if screen:
            screen.changed(start)
        c0, digest = cpu_ns(pid), hashlib.sha1()
        nbytes, ncells, enters, escaped = play(fd, steps_of(kind, keys, seed), screen, reads_on,
                                               digest)
        if reads_on:  # what the last key still brings, as a slow machine writes it
            out, n, e, o = read_on(fd, screen, drain(fd, 0.3), tuple(ANSWERS))
            nbytes, ncells, enters, escaped = nbytes + len(out), ncells + n, enters + e, escaped + o
            digest.update(out)
        c1 = cpu_ns(pid)
        rss, private = memory(pid)
        return {"cpu_ns": c1 - c0, "keys": keys, "bytes": nbytes, "cells": ncells, "rss": rss,
                "private": private, "digest": digest.hexdigest()[:12], "enters": enters,
                "escaped": escaped, "ends_at": screen.waits() if screen else None,
                "ended": ended(pid),
                "screen": screen.text() if screen else ""}


def runs(n, keys=200, seed=16, kind="walk", cells=False, seeded=False):
    return [walk(keys, seed, kind, cells, seeded) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--kind", default="walk", choices=KINDS)
    ap.add_argument("--seeded", action="store_true",
                    help="NetHack seeded (root only): every run the same game")
    ap.add_argument("--cells", action="store_true",
                    help="count the cells each key changed (pyte): nethack.KIND.bytes_per_cell")
    a = ap.parse_args()
    seeded = a.seeded and can_seed()
    if a.seeded and not seeded:
        print("# NetHack not seeded: it needs root and a mount namespace (unshare)")
    rs = runs(a.runs, a.keys, a.seed, a.kind, a.cells, seeded)
    per_key = [r["cpu_ns"] / r["keys"] / 1000 for r in rs]
    bpk = [r["bytes"] / r["keys"] for r in rs]
    print("# runs: cpu per key us " + " ".join(f"{x:.1f}" for x in per_key))
    print("# runs: bytes per key " + " ".join(f"{x:.1f}" for x in bpk) +
          "; --More-- answered " + " ".join(str(r["enters"]) for r in rs) +
          "; questions or windows left " + " ".join(str(len(r["escaped"])) for r in rs))
    if seeded:
        print(f"# seeded: {len(set(r['digest'] for r in rs))} different walk(s) in {len(rs)} runs")
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
