#!/usr/bin/python3
"""Web fan-out figures against the real warrend.

  tests/web/fanout.py BINDIR [N] [KEYS]

Starts warrend with the web gateway, registers two players, and
1. runs bin/tools/web_fanout: one game played over /ws/play and watched by
   N websocket clients (ANSI frames, as the watch page takes them); the
   player sends a key, waits for its own frame, sends the next. Prints
     web.fanout.frames_per_s    frames delivered to all watchers per second
     web.fanout.watchers        N
     web.fanout.player.p50.us   key -> the player's own frame, meanwhile
     web.fanout.player.p99.us
   and fails unless every watcher got every frame or a resync keyframe;
2. plays 200 bot keys (moves and rests) in a second game with one JSON
   watcher and prints the median frame per key in each format:
     web.frame.ansi.bytes       web.frame.json.bytes
With two cores or more, the daemon runs on one and the load tool on another
(see pinned).
"""
import base64
import json
import os
import pathlib
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time



def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ws_open(port, path, cookie=None):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    key = base64.b64encode(os.urandom(16)).decode()
    req = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
    if cookie:
        req += f"Cookie: {cookie}\r\n"
    s.sendall((req + "\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            raise RuntimeError("websocket refused")
        head += b
    assert b" 101 " in head.split(b"\r\n")[0], head
    return s


def ws_send(s, payload, opcode=2):
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    n = len(payload)
    hdr = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else
                                    bytes([0x80 | 126]) + struct.pack(">H", n))
    s.sendall(hdr + mask + masked)


class Reader:
    """Splits a server's (unmasked) websocket stream into messages."""

    def __init__(self, sock):
        self.s = sock
        self.buf = b""
        self.queue = []

    def _split(self):
        while len(self.buf) >= 2:
            op, n, off = self.buf[0] & 0x0F, self.buf[1] & 0x7F, 2
            if n == 126:
                if len(self.buf) < 4:
                    return
                n, off = struct.unpack(">H", self.buf[2:4])[0], 4
            elif n == 127:
                if len(self.buf) < 10:
                    return
                n, off = struct.unpack(">Q", self.buf[2:10])[0], 10
            if len(self.buf) < off + n:
                return
            self.queue.append((op, self.buf[off:off + n]))
            self.buf = self.buf[off + n:]

    def next(self, timeout=10):
        self.s.settimeout(timeout)
        while not self.queue:
            b = self.s.recv(1 << 16)
            if not b:
                raise EOFError
            self.buf += b
            self._split()
        return self.queue.pop(0)


def pinned(core):
    """taskset prefix: with two cores or more the daemon (loop and database
    writer) runs on core 0 and the load tool on core 1, as on a real server
    whose watchers are other machines; otherwise the two would take turns on
    the same core, and the scheduler's wake-up delay (about a millisecond)
    would be counted as the daemon's latency."""
    return ["taskset", "-c", str(core)] if (os.cpu_count() or 1) >= 2 and shutil.which("taskset") else []


def start_daemon(bindir, tmp):
    tp, hp = free_port(), free_port()
    log = open(tmp / "warrend.log", "wb")
    proc = subprocess.Popen(pinned(0) + [str(bindir / "warrend"), "--telnet", f"127.0.0.1:{tp}",
                             "--http", f"127.0.0.1:{hp}", "--db", str(tmp / "w.db"),
                             "--test-hooks", "--input-rate", "1000000", "--grace", "600"],
                            stdout=log, stderr=log)
    for _ in range(200):
        if b"ready" in (tmp / "warrend.log").read_bytes():
            return proc, hp
        time.sleep(0.05)
    raise RuntimeError("warrend did not start")


def register(port, name):
    body = f"name={name}&password=benchpass1&password2=benchpass1".encode()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall((f"POST /register HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
               f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}"
               f"\r\n\r\n").encode() + body)
    resp = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        resp += b
    s.close()
    return "warren_session=" + re.search(rb"warren_session=([A-Za-z0-9_-]+)", resp).group(1).decode()


def frame_sizes(port, keys):
    """Bytes per key: the player's ANSI frame and a JSON watcher's."""
    cookie = register(port, "bot")
    player = ws_open(port, "/ws/play", cookie)
    pr = Reader(player)
    ws_send(player, json.dumps({"t": "resize", "w": 80, "h": 24}).encode(), 1)
    while True:  # the game's first frame (not the "One moment" screen)
        op, p = pr.next()
        if op == 2 and b"who are you" in p:  # a new game: '*' picks a random character
            ws_send(player, b"*")
        if op == 2 and b"Turn" in p:
            break
    jw = ws_open(port, "/ws/watch/bot")
    jr = Reader(jw)
    ws_send(jw, b'{"t":"frames","format":"json"}', 1)
    while True:
        op, p = jr.next()
        if op == 1 and b'"key":true' in p:
            break
    ansi, js = [], []
    moves = b"hjklyubn."
    for i in range(keys):
        ws_send(player, moves[(i * 7) % len(moves):][:1])
        while True:
            op, p = pr.next()
            if op == 2:
                ansi.append(len(p))
                break
            if op == 1 and b'"left"' in p:  # the bot's game ended: enough
                return ansi, js
        while True:
            op, p = jr.next()
            if op == 1 and p.startswith(b'{"t":"f"'):
                js.append(len(p))
                break
    return ansi, js


def main():
    bindir = pathlib.Path(sys.argv[1]).resolve()
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    keys = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-fanout-"))
    proc, port = start_daemon(bindir, tmp)
    try:
        cookie = register(port, "fan")
        r = subprocess.run(pinned(1) + [str(bindir / "tools" / "web_fanout"), "--port", str(port),
                            "--cookie", cookie, "--name", "fan", "--watchers", str(n),
                            "--keys", str(keys)], capture_output=True, text=True, timeout=600)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            sys.exit(1)
        ansi, js = frame_sizes(port, 200)
        ansi.sort()
        js.sort()
        print(f"# frame sizes over {len(ansi)} bot keys")
        print(f"BENCH web.frame.ansi.bytes {ansi[len(ansi) // 2]}")
        print(f"BENCH web.frame.json.bytes {js[len(js) // 2]}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        print(open(tmp / "warrend.log").read()[-300:]) if os.environ.get("DBG") else None
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
