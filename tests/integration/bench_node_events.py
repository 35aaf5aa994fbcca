"""How soon an event reaches another node (WARREN_DB=pg): a kick said at
node b of a player at node a (from warren-admin's start to the player's
telnet showing it), and a chat line a watcher at b says of a game played
at a (from its Enter to the browser at a getting it). Prints a BENCH line
for each with the median, the quartiles and the slowest of ROUNDS. Run
it against two builds in turn, in one sitting:

    WARREN_DB=pg WARREN_BIN=$PWD/bin /usr/bin/python3 -m pytest -q -s \\
        -p no:cacheprovider tests/integration/bench_node_events.py

And a chat line said and seen at one node: from a telnet watcher's Enter
to a browser watching, and from a browser's line to the player's telnet.

And how many node events 1,000 web logins write (kind logins), by how
many times each account logs in.

A line is timed from just before its keys are written to the telnet
client's terminal to when the reader first holds it: nothing else is
read in between (reading the sender's echo until it is quiet first would
add that quiet wait, 150 ms, to every line), and pexpect's 50 ms sleep
before each send is turned off for the sender.
"""
import json
import os
import socket
import statistics
import time

import pexpect
import pytest

from harness import ON_PG, PW, WS, Web, admin
from test_watch_nodes import pair, pair_of, play_and_watch, played_and_watched  # noqa: F401

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
ROUNDS = int(os.environ.get("ROUNDS", "20"))
KICKED = "You were disconnected by the administrator."


def said(name, ms):
    ms = sorted(ms)
    q = statistics.quantiles(ms, n=4)
    print(f"BENCH {name}: n={len(ms)} median={statistics.median(ms):.1f} ms "
          f"q1={q[0]:.1f} q3={q[2]:.1f} max={ms[-1]:.1f}")


def test_kick_from_another_node(pair, clients, bindir):
    a, b = pair
    t = clients(a.port).connected()
    t.register("kim")
    t.random_character("kim")
    time.sleep(2)
    took = []
    for i in range(ROUNDS):
        if i:
            t = clients(a.port).connected()
            t.login("kim", PW)
            time.sleep(0.5)
        start = time.monotonic()
        admin(bindir, b, "kick", "kim")
        t.wait_for(KICKED, timeout=10)
        took.append((time.monotonic() - start) * 1000)
        t.wait_exit(timeout=5)
    said("kick at b, player at a", took)


def chat_at(ws, text, timeout=10):
    """When browser socket ws gets the chat line text."""
    ws.s.settimeout(timeout)
    while True:
        op, p = ws.recv()
        if op == 1:
            m = json.loads(p)
            if m["t"] == "chat" and m["text"] == text:
                return time.monotonic()


def shown_at(t, text, timeout=10):
    """When telnet client t's screen first shows text (read as it comes,
    a few ms at a time, never waiting for the output to be quiet)."""
    end = time.monotonic() + timeout
    while text not in t.text():
        assert time.monotonic() < end, f"{text!r} never shown:\n{t.text()}"
        try:
            data = t.child.read_nonblocking(65536, timeout=0.005)
        except pexpect.TIMEOUT:
            continue
        t.raw += data
        t.stream.feed(data)
    return time.monotonic()


def say_at_telnet(w, text):
    """Watcher w's chat key and text; returns the time just before its
    keys go out (pexpect's 50 ms sleep before each send turned off, not
    waiting for the echo)."""
    w.child.delaybeforesend = None
    w.send(":")
    w.wait_for("Say:")
    start = time.monotonic()
    w.send(f"{text}\r", settle=False)
    return start


def test_chat_line_from_another_node(pair, clients):
    a, b, p, w = played_and_watched(pair, clients, "gina", "hugo")
    web_a = WS(a.http, "/ws/watch/gina/warren")
    a.wait_log(r"watch conn=\d+ user=gina game=\d+ watchers=1")
    time.sleep(2)
    took = []
    for i in range(ROUNDS):
        start = say_at_telnet(w, f"line {i}")
        try:
            took.append((chat_at(web_a, f"line {i}") - start) * 1000)
        except socket.timeout:
            pytest.fail(f"line {i} never reached a")
        w.pump(quiet=0.05)
        time.sleep(1.1)  # under the chat rate limit
    said("chat at b, browser at a", took)


def test_chat_line_on_one_node(pair, clients):
    a, _ = pair
    p, w = play_and_watch(clients, a, "ivy", a, "jon")
    tok = Web(a.http).register("kit", PW, next="/").session
    web = WS(a.http, "/ws/watch/ivy/warren", session=tok)
    a.wait_log(r"watch conn=\d+ user=ivy game=\d+ watchers=2")
    time.sleep(2)
    to_web, to_telnet = [], []
    for i in range(ROUNDS):
        text = f"here {i}"
        start = say_at_telnet(w, text)
        to_web.append((chat_at(web, text) - start) * 1000)
        w.pump(quiet=0.05)
        p.pump(quiet=0.05)
        text = f"web {i}"
        start = time.monotonic()
        web.text(json.dumps({"t": "chat", "text": text}))
        to_telnet.append((shown_at(p, f"kit: {text}") - start) * 1000)
        time.sleep(1.1)  # under the chat rate limit
    said("chat at a's telnet, browser at a", to_web)
    said("chat at a's browser, player's telnet at a", to_telnet)


def test_logins_events_per_thousand(pair):
    """Node events (kind logins) written for 1,000 web logins, taken in
    turn at a and b by accounts that each log in PER times (after their
    registration, which is a login too): the cap is 20 sessions an
    account, so only accounts past it end logins that other nodes must
    close. Prints a BENCH line for each PER."""
    a, b = pair
    for per in (10, 20, 100):
        names = [f"L{per}x{i}" for i in range(1000 // per)]
        for name in names:
            Web(a.http).register(name, PW)
        before = a.db_rows("SELECT count(*) FROM node_events WHERE payload LIKE 'logins %'")[0][0]
        start = time.monotonic()
        for i in range(1000):
            d = (a, b)[i % 2]
            assert Web(d.http).post("/login", {"name": names[i % len(names)],
                                               "password": PW}).session
        took = time.monotonic() - start
        time.sleep(1)  # the last login's event written
        rows = a.db_rows("SELECT count(*) FROM node_events WHERE payload LIKE 'logins %'")[0][0]
        print(f"BENCH node_events.logins.per{per}: rows={rows - before} per 1000 logins "
              f"({len(names)} accounts, {per} logins each; {took:.1f} s)")
