#!/usr/bin/python3
"""Limits under load, against the real warrend (release build, real argon2).

  tests/load/bench_limits.py BINDIR [SECONDS]

1. Login storm: 40 addresses (127.0.1.1-40, each its own source address on
   loopback) post wrong passwords to /login as fast as they are answered,
   two at a time each, for SECONDS (default 10). Meanwhile another player,
   in a game over /ws/play, presses a key and waits for its frame, again
   and again; and once, halfway, a real login from a fresh address is
   timed.
     server.storm.player.p50.ms / .p99.ms   the other player's key latency
     server.storm.quiet.p50.ms / .p99.ms    the same before the storm
     server.storm.login.ms                  the real login during the storm (503
                                            "busy" means: try again a second later)
     server.storm.answers_per_s             storm requests answered
2. Key flood: one websocket sends {"t":"i",...} key messages as fast as it
   can for SECONDS against the default --input-rate (2000 a second).
     server.flood.sent_per_s                key messages sent
     server.flood.keys_per_s                keys journalled (SQLite rows)
     server.flood.player.p50.ms / .p99.ms   another player's key latency
The daemon runs on core 0, the clients on core 1 (taskset, as the other
server benchmarks); the storm and the flood run in processes of their own.
"""
import http.client
import multiprocessing
import os
import pathlib
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import WS, Daemon, Web, play_socket, program  # noqa: E402

PW = "bench-password"
CTRL_P, ESC = b"\x10", b"\x1b"  # message history open and shut: a frame each, no game time


def pinned(core):
    ok = (os.cpu_count() or 1) >= 2 and shutil.which("taskset")
    return ["taskset", "-c", str(core)] if ok else []


def pin_self(core, nice=0):
    """This process on core (with two cores or more); nice: the load
    generators yield to the measuring client on the same core, so the
    figures are the daemon's latency, not this machine's scheduling."""
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {core})
    if nice:
        os.nice(nice)


def register(port, name):
    r = Web(port).register(name, PW)
    assert r.status == 303 and r.session, r.head
    return r.session


def latencies(ws, stop_at, out):
    """Presses keys until stop_at; each key's time to its frame, in ms."""
    keys = (CTRL_P, ESC)
    i = 0
    while time.time() < stop_at:
        t0 = time.perf_counter()
        ws.binary(keys[i % 2])
        ws.until(lambda op, p: op == 2, timeout=30)
        out.append((time.perf_counter() - t0) * 1000)
        i += 1
        time.sleep(0.02)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else float("nan")


def post_login(port, source, name, pw):
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        body = urllib.parse.urlencode({"name": name, "password": pw})
        con.request("POST", "/login", body=body,
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
        r = con.getresponse()
        r.read()
        return r.status
    except OSError:
        return 0
    finally:
        con.close()


def storm(port, seconds, counts):
    """40 addresses, two requests in flight each; counts[status] += 1."""
    pin_self(1, nice=19)
    stop_at = time.time() + seconds

    def one(addr, k):
        n = 0
        while time.time() < stop_at:
            st = post_login(port, addr, "victim%d" % ((k + n) % 7), "not-the-password")
            counts[st] = counts.get(st, 0) + 1
            n += 1
    threads = [threading.Thread(target=one, args=(f"127.0.1.{a}", a * 2 + k))
               for a in range(1, 41) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def flood(port, session, seconds, sent):
    pin_self(1, nice=19)
    ws = play_socket(port, session)
    stop_at = time.time() + seconds
    n = 0
    while time.time() < stop_at:
        for _ in range(100):
            ws.text(b'{"t":"i","data":"i"}')
        n += 100
    sent.value = n
    ws.close()


def journal_rows(db, name):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute("SELECT count(*) FROM journal j JOIN games g ON g.id = j.game "
                           "JOIN users u ON u.id = g.user WHERE u.name = ?", (name,)).fetchone()[0]
    finally:
        con.close()


def bench_storm(d, seconds):
    port = d.http
    register(port, "owner")
    player = play_socket(port, register(port, "player"))
    quiet = []
    latencies(player, time.time() + 3, quiet)
    counts = multiprocessing.Manager().dict()
    proc = multiprocessing.Process(target=storm, args=(port, seconds, counts))
    proc.start()
    time.sleep(1.0)  # the storm is on
    busy, login = [], {}

    def real_login():
        """Halfway through, a person logs in from a fresh address; told
        "busy, try again in a moment" (503), they try again a second later."""
        time.sleep(seconds / 2)
        t0 = time.perf_counter()
        login["tries"] = 0
        while True:
            login["tries"] += 1
            login["status"] = post_login(port, "127.0.2.1", "owner", PW)
            if login["status"] != 503 or time.perf_counter() - t0 > seconds:
                break
            time.sleep(1.0)
        login["ms"] = (time.perf_counter() - t0) * 1000
    t = threading.Thread(target=real_login)
    t.start()
    latencies(player, time.time() + seconds - 1.5, busy)
    t.join()
    proc.join()
    answered = sum(v for k, v in counts.items() if k)
    print(f"# login storm: 40 addresses x 2 in flight, {seconds} s; answers by status "
          f"{dict(sorted(counts.items()))}; the real login: {login.get('status')} after "
          f"{login.get('tries')} tries")
    print(f"BENCH server.storm.quiet.p50.ms {pct(quiet, 0.5):.2f}")
    print(f"BENCH server.storm.quiet.p99.ms {pct(quiet, 0.99):.2f}")
    print(f"BENCH server.storm.player.p50.ms {pct(busy, 0.5):.2f}")
    print(f"BENCH server.storm.player.p99.ms {pct(busy, 0.99):.2f}")
    print(f"BENCH server.storm.login.ms {login.get('ms', float('nan')):.0f}")
    print(f"BENCH server.storm.answers_per_s {answered / seconds:.0f}")


def bench_flood(d, seconds):
    port = d.http
    tok = register(port, "flooder")
    player = play_socket(port, register(port, "player2"))
    before = journal_rows(d.db, "flooder")
    sent = multiprocessing.Value("l", 0)
    proc = multiprocessing.Process(target=flood, args=(port, tok, seconds, sent))
    proc.start()
    time.sleep(1.0)
    busy = []
    half = time.time() + seconds / 2 - 1.0
    latencies(player, half, busy)
    mid, t_mid = journal_rows(d.db, "flooder"), time.time()
    latencies(player, half + seconds / 2 - 0.5, busy)
    end, t_end = journal_rows(d.db, "flooder"), time.time()
    proc.join()
    time.sleep(1.0)  # the last rows are committed
    keys = journal_rows(d.db, "flooder") - before
    print(f"# key flood: one websocket, {seconds} s, --input-rate 2000 (bursts of 8000); "
          f"{keys} keys journalled in all")
    print(f"BENCH server.flood.sent_per_s {sent.value / seconds:.0f}")
    print(f"BENCH server.flood.keys_per_s {keys / seconds:.0f}")
    print(f"BENCH server.flood.keys_per_s.steady {(end - mid) / (t_end - t_mid):.0f}")
    print(f"BENCH server.flood.player.p50.ms {pct(busy, 0.5):.2f}")
    print(f"BENCH server.flood.player.p99.ms {pct(busy, 0.99):.2f}")


def main():
    bindir = pathlib.Path(sys.argv[1]).resolve()
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    pin_self(1)
    for run in (bench_storm, bench_flood):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-limits-"))
        # real argon2 (no --test-hooks): what a login storm really costs
        d = Daemon(bindir, tmp, http=True, exe=program(bindir, "warrend"), wrap=pinned(0),
                   test_flags=False, extra=["--register-per-hour", "0", "--grace", "600"])
        try:
            d.start()
            run(d, seconds)
        finally:
            d.stop()
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
