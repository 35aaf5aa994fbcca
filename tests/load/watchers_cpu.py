#!/usr/bin/python3
"""The daemon's CPU per key of one browser player with N telnet watchers
of one size: the release warrend of BINDIR (its asan build is never
taken), the player on /ws/play at 80x24 typing 400 moves, each watcher a
socket speaking telnet (its window size, then w and a) read to the end.
A watcher of the game's size draws its own frames (its bottom row says
whom it watches); a taller one shares the player's.

  tests/load/watchers_cpu.py BINDIR N COLS ROWS"""
import json
import os
import pathlib
import re
import selectors
import shutil
import socket
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import PW, Daemon, Web, play_socket  # noqa: E402

KEYS = 400


def watchers(port, n, cols, rows):
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"\xff\xfb\x1f\xff\xfa\x1f" + struct.pack(">HH", cols, rows) + b"\xff\xf0")
        socks.append(s)
    for key in (b"w", b"a"):  # the watch list, its first game
        time.sleep(1.5)
        for s in socks:
            s.sendall(key)
    time.sleep(1.5)
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    return sel


def drain(sel, seconds):
    end = time.time() + seconds
    while time.time() < end:
        for key, _ in sel.select(0.05):
            try:
                key.fileobj.recv(1 << 16)
            except BlockingIOError:
                pass


def main():
    bindir, n, cols, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    top = pathlib.Path(tempfile.mkdtemp(prefix="watchers-"))
    (top / "bin").mkdir()
    shutil.copy(pathlib.Path(bindir) / "warrend", top / "bin" / "warrend")
    d = Daemon(top / "bin", top / "d", http=True)
    d.start()
    try:
        r = Web(d.http).register("pia", PW, next="/")
        tok = re.search(r"warren_session=([A-Za-z0-9_-]+)", r.head).group(1)
        ws = play_socket(d.http, tok, w=80, h=24)
        sel = watchers(d.port, n, cols, rows)
        drain(sel, 1.0)
        stat = f"/proc/{d.proc.pid}/stat"

        def cpu():
            f = open(stat).read().split()
            return (int(f[13]) + int(f[14])) / os.sysconf("SC_CLK_TCK")
        c0 = cpu()
        for i in range(KEYS):
            ws.binary(b"hjkl"[i % 4:i % 4 + 1])
            drain(sel, 0.005)
        drain(sel, 1.0)
        ms = (cpu() - c0) * 1000 / KEYS
        print(json.dumps({"watchers": n, "size": f"{cols}x{rows}", "cpu_ms_per_key": round(ms, 3)}))
    finally:
        d.stop()
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
