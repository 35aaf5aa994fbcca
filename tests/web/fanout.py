#!/usr/bin/python3
"""Web fan-out figures against bin/tools/web_harness: N websocket watchers
of one game; the player sends keys and every frame goes to every watcher.

  tests/web/fanout.py BINDIR [N]

Prints BENCH lines:
  web.fanout.frames_per_s   frames delivered to all watchers per second
                            (keys sent in a burst, until every watcher has
                            the last one); the client side is one Python
                            process, so this is a lower bound
  web.fanout.player.p99.us  key -> the player's own frame, one key at a
                            time, with the N watchers attached and reading
"""
import base64
import os
import pathlib
import re
import selectors
import socket
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def ws_open(port, path):
    s = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    return s


def ws_binary(s, payload):
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    s.sendall(bytes([0x82, 0x80 | len(payload)]) + mask + masked)


def main():
    bindir = pathlib.Path(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    proc = subprocess.Popen([str(bindir / "tools" / "web_harness"), "--listen", "127.0.0.1:0",
                             "--root", str(ROOT / "web" / "dist")], stdout=subprocess.PIPE, text=True)
    port = int(re.match(r"listening (\d+)", proc.stdout.readline()).group(1))
    try:
        player = ws_open(port, "/ws/play")
        watchers = [ws_open(port, f"/ws/watch/w{i}") for i in range(n)]
        sel = selectors.DefaultSelector()
        tails = {}
        for w in watchers:
            w.setblocking(False)
            sel.register(w, selectors.EVENT_READ)
            tails[w] = b""
        player.settimeout(10)

        def drain_until(marker, deadline):
            """Reads every watcher until each has seen marker."""
            waiting = set(watchers)
            while waiting and time.time() < deadline:
                for key, _ in sel.select(timeout=0.5):
                    s = key.fileobj
                    try:
                        b = s.recv(1 << 20)
                    except BlockingIOError:
                        continue
                    t = tails[s] + b
                    if marker in t:
                        waiting.discard(s)
                    tails[s] = t[-64:]
            return not waiting

        # warm-up: everyone has the first frame
        ws_binary(player, b"l")
        assert drain_until(b"moves 1\r\n", time.time() + 30), "watchers missed frames"
        keys = 200
        t0 = time.time()
        for _ in range(keys):
            ws_binary(player, b"l")
        ok = drain_until(b"moves %d\r\n" % (keys + 1), time.time() + 60)
        dt = time.time() - t0
        assert ok, "not every watcher got the last frame"
        print(f"BENCH web.fanout.frames_per_s {keys * n / dt:.0f}")
        print(f"BENCH web.fanout.watchers {n}")

        # player latency, one key at a time, watchers read between keys
        lat = []
        pbuf = b""
        moves = keys + 1
        for _ in range(200):
            moves += 1
            marker = b"moves %d\r\n" % moves
            t = time.perf_counter()
            ws_binary(player, b"h")
            while marker not in pbuf:
                pbuf = pbuf[-64:] + player.recv(1 << 16)
            lat.append((time.perf_counter() - t) * 1e6)
            drain_until(marker, time.time() + 10)
        lat.sort()
        print(f"BENCH web.fanout.player.p50.us {lat[len(lat) // 2]:.0f}")
        print(f"BENCH web.fanout.player.p99.us {lat[int(len(lat) * 0.99)]:.0f}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
