"""What one hostile client's size flood costs the daemon: a telnet player
sending NAWS that alternates 400x200 / 80x24, and a browser player sending
websocket resizes that alternate 400x200 / 399x200, each for SECONDS while
it reads what it is sent. Prints the daemon's CPU seconds and the bytes
the client got, per flood.

    /usr/bin/python3 tests/load/size_flood.py BINDIR [SECONDS]

BINDIR's release warrend (not the sanitizer build) runs in a temporary
directory on free ports."""
import json
import os
import pathlib
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import Daemon, WS, Web, PW  # noqa: E402
from test_hostile import naws, read_for, telnet_player  # noqa: E402
from test_limits import cpu_seconds  # noqa: E402


def flood(d, send, recv, seconds):
    got, stop = [0], threading.Event()

    def reader():
        while not stop.is_set():
            try:
                b = recv()
            except (socket.timeout, TimeoutError):
                continue
            if not b:
                break
            got[0] += len(b)
    th = threading.Thread(target=reader)
    th.start()
    c0, t0 = cpu_seconds(d.proc.pid), time.time()
    i = 0
    while time.time() - t0 < seconds:
        send(i)
        i += 1
        time.sleep(0.001)
    cpu = cpu_seconds(d.proc.pid) - c0
    stop.set()
    th.join()
    return cpu, got[0], i


def main():
    bindir = pathlib.Path(sys.argv[1]).resolve()
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    with tempfile.TemporaryDirectory() as tmp:
        d = Daemon(bindir, tmp, http=True, exe=bindir / "warrend").start()
        try:
            s = telnet_player(d.port, "nawsflood")
            s.settimeout(0.2)
            cpu, got, n = flood(d, lambda i: s.sendall(naws(*((400, 200), (80, 24))[i % 2])),
                                lambda: s.recv(1 << 20), seconds)
            print(f"telnet NAWS flood: {n} sizes sent, daemon CPU {cpu:.2f} s in {seconds:.0f} s, "
                  f"{got} bytes out")
            session = Web(d.http).register("wsflood", PW).session
            ws = WS(d.http, "/ws/play", session=session)
            ws.text(json.dumps({"t": "resize", "w": 400, "h": 200}))
            read_for(ws.s, 1.0)
            ws.binary(b"l")  # a random character
            read_for(ws.s, 2.0)
            ws.s.settimeout(0.2)
            msgs = [json.dumps({"t": "resize", "w": w, "h": 200}) for w in (400, 399)]

            def send(i):
                for k in range(20):
                    ws.text(msgs[k % 2])
            cpu, got, n = flood(d, send, lambda: ws.s.recv(1 << 20), seconds)
            print(f"websocket resize flood: {n * 20} sizes sent, daemon CPU {cpu:.2f} s in "
                  f"{seconds:.0f} s, {got} bytes out")
        finally:
            d.stop()


if __name__ == "__main__":
    main()
