#!/usr/bin/python3
"""What the disk caps of hosted games cost the spawner: the release
warrend with N idle boxed games (ptytoy fill files 15: fifteen files in
each player's directory, about what NetHack keeps there, then nothing),
each player over telnet (a socket: bench_hosted.Tel), the spawner's CPU
time (utime + stime, its reaped children's, and its measurer's while it
lives: /proc) over S idle seconds, once with the section's
default caps (64 MB, 2000 entries: each directory measured every
SPAWNDISK_EVERY_MS, spawndisk.h) and once with `disk = 0` and `disk-files
= 0` (no measurement), in one run of one build.

  tests/load/bench_diskcap.py BINDIR [--n N] [--seconds S] [--overrun R]

  BENCH hosted.disk.nN.spawner.cpu.ms_per_s    the spawner's CPU a second, capped
  BENCH hosted.disk.nN.spawner.cpu.own.ms_per_s  of it, the spawner process's own
  BENCH hosted.disk.nN.spawner.cpu.off.ms_per_s  the same without caps
  BENCH hosted.disk.nN.measure.us              (capped - off) per measurement
                                               (N games / SPAWNDISK_EVERY_MS)
With --overrun R, instead: how far past its cap a hostile program gets.
A game that ignores SIGHUP, waits a second and writes one file with dd
(1 MB blocks, as fast as the disk takes them) under the default caps
(64 MB), R times; the spawner's log says what it measured when it hung
the program up and when it killed it, and what was left is measured
after (dd's own rate, to a file beside, says how fast this machine
writes):

  BENCH hosted.disk.overrun.hangup.max_mb   past 64 MB at the hangup, the most
  BENCH hosted.disk.overrun.kill.max_mb     in all when killed (twice the cap and more)
  BENCH hosted.disk.overrun.left.max_mb     on disk after, the most
  BENCH hosted.disk.dd.mb_per_s             dd alone, 2 GB to the same file system
Needs root (boxed games switch users)."""
import argparse
import os
import pathlib
import re
import shutil
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))
sys.path.insert(0, str(HERE))
from bench_hosted import PW, Tel  # noqa: E402
from harness import Daemon, program  # noqa: E402

EVERY_MS = 2000  # SPAWNDISK_EVERY_MS


def stat_ms(pid, upto):
    """utime + stime (upto 13), and cutime + cstime (upto 15), of pid."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:upto]) * 1000 / os.sysconf("SC_CLK_TCK")


def cpu_ms(pid):
    """(utime + stime: the spawner's own, all: with cutime + cstime, the
    children it reaped (a build that measured in a child a batch: those),
    and those of its living children that measure: the measurer,
    spawndisk.h)."""
    own = stat_ms(pid, 13)
    ms = stat_ms(pid, 15)
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        for kid in (task / "children").read_text().split():
            try:
                if pathlib.Path(f"/proc/{kid}/comm").read_text().strip() == "warren-measurer":
                    ms += stat_ms(kid, 13)
            except FileNotFoundError:
                pass
    return own, ms


def register(t, name):
    """Tel.register, again while the password queue says it is busy."""
    for _ in range(100):
        t.wait_for("Your choice")
        for key, prompt in (("r", "Name:"), (name + "\r", "Password:"), (PW + "\r", "again:")):
            t.send(key)
            t.wait_for(prompt)
        t.send(PW + "\r")
        end = time.time() + 30
        while time.time() < end and "busy" not in t.text() and f"as {name}" not in t.text():
            t.pump()
        if f"as {name}" in t.text():
            return
        time.sleep(0.2)
        t.send("x")  # a key the menu ignores: the busy line goes with the next screen
    raise AssertionError(f"{name}: the server stayed busy")


def start_players(d, n):
    """n players, each in the idle game; returns their clients (kept open:
    a closed connection would detach the game)."""
    clients, errors = [None] * n, []

    def one(i):
        try:
            t = Tel(d.port)
            register(t, f"dc{i}")
            t.send("1")
            t.wait_for("filled 15", timeout=60)
            clients[i] = t
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(repr(e))

    for at in range(0, n, 4):  # four at a time: the password queue stays short
        threads = [threading.Thread(target=one, args=(i,)) for i in range(at, min(n, at + 4))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    if errors:
        raise AssertionError(f"{len(errors)} players failed: {errors[:3]}")
    return clients


def idle_cpu(bindir, toy, n, seconds, caps):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-diskcap-"))
    tmp.chmod(0o711)  # the games' user passes through to the players' directories
    conf = tmp / "warren.conf"
    conf.write_text(f"hosted-max = {n + 10}\nhosted-per-ip = {n + 10}\nmax-per-ip = {n + 20}\n"
                    f"max-connections = {n + 100}\nregister-per-hour = 0\ngame-idle = 0\n"
                    f"[game idle]\ncommand = {toy} fill files 15\n"
                    + ("" if caps else "disk = 0\ndisk-files = 0\n"))
    d = Daemon(bindir, tmp / "d", exe=program(bindir, "warrend"), extra=["--config", conf])
    try:
        d.start()
        spawner = int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))
        clients = start_players(d, n)
        time.sleep(EVERY_MS / 1000 + 1)  # every directory measured once since its start
        c0, t0 = cpu_ms(spawner), time.monotonic()
        time.sleep(seconds)
        c1, took = cpu_ms(spawner), time.monotonic() - t0
        for t in clients:
            t.sock.close()
        return (c1[1] - c0[1]) / took, (c1[0] - c0[0]) / took
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def overrun_once(bindir, tmp, i):
    """One writer: (MB at the hangup, MB when killed, MB left)."""
    root = tmp / f"r{i}"
    root.mkdir()
    root.chmod(0o711)
    script = root / "writer.sh"
    script.write_text("#!/bin/sh\ntrap '' HUP\nsleep 1\n"
                      "exec dd if=/dev/zero of=big bs=1M count=4000 status=none\n")
    script.chmod(0o755)
    conf = root / "warren.conf"
    conf.write_text(f"[game writer]\ncommand = {script}\nhangup-timeout = 60\n")
    d = Daemon(bindir, root / "d", exe=program(bindir, "warrend"), extra=["--config", conf])
    try:
        d.start()
        t = Tel(d.port)
        register(t, f"w{i}")
        t.send("1")
        d.wait_log(r"program exited user=\S+ game=writer pid=\d+ status=9", timeout=60)
        mb = [int(x) / 2**20 for x in re.findall(r"disk over game=writer \S+ pid=\d+ bytes=(\d+)",
                                                  d.log())]
        big = root / "d" / "games" / "writer" / f"w{i}" / "big"
        return mb[0], mb[-1], big.stat().st_blocks * 512 / 2**20
    finally:
        d.stop()


def overrun(bindir, rounds):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-diskcap-over-"))
    tmp.chmod(0o711)
    try:
        runs = [overrun_once(bindir, tmp, i) for i in range(rounds)]
        for hung, killed, left in runs:
            print(f"# hung up at {hung:.1f} MB, killed at {killed:.1f} MB, {left:.1f} MB left")
        t0 = time.monotonic()
        os.system(f"dd if=/dev/zero of={tmp}/rate bs=1M count=2000 status=none")
        rate = 2000 / (time.monotonic() - t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"BENCH hosted.disk.overrun.hangup.max_mb {max(r[0] for r in runs) - 64:.1f}")
    print(f"BENCH hosted.disk.overrun.kill.max_mb {max(r[1] for r in runs):.1f}")
    print(f"BENCH hosted.disk.overrun.left.max_mb {max(r[2] for r in runs):.1f}")
    print(f"BENCH hosted.disk.dd.mb_per_s {rate:.0f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bindir")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--overrun", type=int, default=0, metavar="R")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("bench_diskcap: needs root (boxed games)", file=sys.stderr)
        sys.exit(2)
    bindir = pathlib.Path(a.bindir).resolve()
    if a.overrun:
        return overrun(bindir, a.overrun)
    toydir = pathlib.Path(tempfile.mkdtemp(prefix="warren-diskcap-toy-"))
    toydir.chmod(0o755)
    toy = toydir / "ptytoy"
    shutil.copy(bindir / "tools" / "ptytoy", toy)
    toy.chmod(0o755)
    try:
        on, own = idle_cpu(bindir, toy, a.n, a.seconds, True)
        off, _ = idle_cpu(bindir, toy, a.n, a.seconds, False)
    finally:
        shutil.rmtree(toydir, ignore_errors=True)
    per_s = a.n * 1000 / EVERY_MS  # measurements a second
    print(f"BENCH hosted.disk.n{a.n}.spawner.cpu.ms_per_s {on:.2f}")
    print(f"BENCH hosted.disk.n{a.n}.spawner.cpu.own.ms_per_s {own:.2f}")
    print(f"BENCH hosted.disk.n{a.n}.spawner.cpu.off.ms_per_s {off:.2f}")
    print(f"BENCH hosted.disk.n{a.n}.measure.us {(on - off) * 1000 / per_s:.1f}")


if __name__ == "__main__":
    main()
