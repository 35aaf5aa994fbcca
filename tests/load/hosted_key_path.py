"""hosted_key_path — a key's way to the player's own screen in a hosted
game on one warrend (no cluster): `ptytoy keys` (one line "got 1: HH" for
each key it reads), timed from the key's send to its line, KEYS keys 20 ms
apart. Usage: hosted_key_path.py BINDIR [KEYS]

  BENCH hosted.key.raw.p50.us / .p99.us     a raw socket: key to the bytes
  BENCH hosted.key.telnet.p50.us / .p99.us  Debian's telnet under a pty,
        the key written to its pty (Term.type_now), read with select
  BENCH hosted.key.pexpect.p50.us / .p99.us the same telnet, the key typed
        with Term.send (pexpect's send sleeps delaybeforesend, 50 ms, before
        it writes) and the screen polled as tests/cluster/test_hosted_cross.py
        did before it used type_now
The last two take turns key by key on the same game."""
import os
import pathlib
import select
import socket
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))
from harness import PW, Daemon, Telnet, raw_read, unique_name  # noqa: E402
from test_hosted import open_to_games, toy_copy  # noqa: E402

GAP = 0.02
LETTERS = "abcdefghijklmnoprstuvwxyz"  # q ends ptytoy's keys mode


def want(i):
    return f"got 1: {ord(LETTERS[i % len(LETTERS)]):02x}"


def read_until(fd, recv, needle, seen=b""):
    while needle not in seen:
        select.select([fd], [], [], 1)
        seen += recv()
    return seen


def raw_player(port):
    s = socket.create_connection(("127.0.0.1", port))
    raw_read(s, 10, b"Your choice")
    name = unique_name("k")
    for send, answer in ((b"r", b"Name:"), (name.encode() + b"\r", b"Password:"),
                         (PW.encode() + b"\r", b"again"), (PW.encode() + b"\r", b"Logged in"),
                         (b"1", b"keys ready")):
        s.sendall(send)
        assert answer in raw_read(s, 10, answer), answer
    raw_read(s, 0.5)
    s.setblocking(False)
    return s


def raw_keys(s, keys):
    took = []
    for i in range(keys):
        t0 = time.perf_counter()
        s.send(LETTERS[i % len(LETTERS)].encode())
        read_until(s, lambda: s.recv(65536), want(i).encode())
        took.append((time.perf_counter() - t0) * 1e6)
        time.sleep(GAP)
    return took


def telnet_key(t, i):
    """Written to telnet's pty at once; its line's bytes read with select."""
    fd = t.child.child_fd
    t0 = time.perf_counter()
    t.type_now(LETTERS[i % len(LETTERS)])
    t.stream.feed(read_until(fd, lambda: os.read(fd, 65536), want(i).encode()))
    return (time.perf_counter() - t0) * 1e6


def pexpect_key(t, i):
    """Typed with Term.send and the screen polled every 1 ms."""
    t0 = time.perf_counter()
    t.send(LETTERS[i % len(LETTERS)], settle=False)
    while [ln for ln in t.lines() if ln][-1:] != [want(i)]:
        t.pump(quiet=0.001, limit=0.001)
    return (time.perf_counter() - t0) * 1e6


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))]


def main(bindir, keys):
    bindir = pathlib.Path(bindir).resolve()
    root = pathlib.Path(tempfile.mkdtemp(prefix="hosted-key-"))
    open_to_games(root)
    conf = root / "warren.conf"
    conf.write_text(f"[game keys]\nname = Key Toy\ncommand = {toy_copy(bindir, root)} keys\n"
                    "hangup-timeout = 1\n")
    d = Daemon(bindir, root / "daemon", exe=bindir / "warrend", extra=["--config", conf]).start()
    try:
        s = raw_player(d.port)
        figures = {"raw": raw_keys(s, keys), "telnet": [], "pexpect": []}
        t = Telnet(d.port).connected()
        t.register(unique_name("k"))
        t.send("1", settle=False)
        t.wait_for("keys ready")
        t.pump(quiet=0.3)
        for i in range(2 * keys):
            way = "telnet" if i % 2 else "pexpect"
            figures[way].append((telnet_key if i % 2 else pexpect_key)(t, i))
            time.sleep(GAP)
        for way, took in figures.items():
            print(f"BENCH hosted.key.{way}.p50.us {statistics.median(took):.0f}")
            print(f"BENCH hosted.key.{way}.p99.us {pct(took, 0.99):.0f}")
        t.close()
        s.close()
    finally:
        d.stop()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bin", int(sys.argv[2]) if len(sys.argv) > 2 else 200)
