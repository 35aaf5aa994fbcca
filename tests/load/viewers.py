#!/usr/bin/python3
"""Viewers beside the players of a bench run: K anonymous telnet clients
that open the watch list (redrawn for each of them every second) and, with
an HTTP port, L browser lobbies (/ws/lobby: the list and previews twice a
second; L is 1 unless given). They read everything and answer nothing;
they stop after SECONDS, on SIGTERM or when the daemon goes, and print
what they received.

  tests/load/viewers.py TELNET_PORT HTTP_PORT|- K SECONDS [L]"""
import os
import selectors
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import WS  # noqa: E402


def main():
    port, http, k, secs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    sel = selectors.DefaultSelector()
    for _ in range(k):
        s = socket.create_connection(("127.0.0.1", port))
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, "telnet")
    lobbies = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    for _ in range(lobbies if http != "-" else 0):
        lobby = WS(int(http), "/ws/lobby")
        lobby.s.setblocking(False)
        sel.register(lobby.s, selectors.EVENT_READ, "lobby")
    time.sleep(1.0)  # the menu first
    for key in list(sel.get_map().values()):
        if key.data == "telnet":
            key.fileobj.send(b"w")
    got = {"telnet": 0, "lobby": 0}
    end = [time.time() + secs]
    signal.signal(signal.SIGTERM, lambda *_: end.__setitem__(0, 0))  # the run is over
    while time.time() < end[0] and sel.get_map():
        for key, _ in sel.select(0.5):
            try:
                d = key.fileobj.recv(1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                d = b""
            if not d:
                sel.unregister(key.fileobj)
            got[key.data] += len(d)
    print(f"# viewers: {k} watch lists got {got['telnet']} bytes, "
          f"{lobbies if http != '-' else 0} lobbies {got['lobby']} bytes")


if __name__ == "__main__":
    main()
