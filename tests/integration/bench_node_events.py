"""How soon an event reaches another node (WARREN_DB=pg): a kick said at
node b of a player at node a (from warren-admin's start to the player's
telnet showing it), and a chat line a watcher at b says of a game played
at a (from its Enter to the browser at a getting it). Prints a BENCH line
for each with the median, the quartiles and the slowest of ROUNDS. Run
it against two builds in turn, in one sitting:

    WARREN_DB=pg WARREN_BIN=$PWD/bin /usr/bin/python3 -m pytest -q -s \\
        -p no:cacheprovider tests/integration/bench_node_events.py
"""
import json
import os
import socket
import statistics
import time

import pytest

from harness import ON_PG, PW, WS, admin
from test_watch_nodes import pair, pair_of, played_and_watched  # noqa: F401

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


def chat_at(ws, timeout=10):
    """When browser socket ws next gets a chat message."""
    ws.s.settimeout(timeout)
    while True:
        op, p = ws.recv()
        if op == 1 and json.loads(p)["t"] == "chat":
            return time.monotonic()


def test_chat_line_from_another_node(pair, clients):
    a, b, p, w = played_and_watched(pair, clients, "gina", "hugo")
    web_a = WS(a.http, "/ws/watch/gina/warren")
    a.wait_log(r"watch conn=\d+ user=gina game=\d+ watchers=1")
    time.sleep(2)
    took = []
    for i in range(ROUNDS):
        w.send(":")
        w.wait_for("Say:")
        start = time.monotonic()
        w.send(f"line {i}\r")
        try:
            took.append((chat_at(web_a) - start) * 1000)
        except socket.timeout:
            pytest.fail(f"line {i} never reached a")
        time.sleep(1.1)  # under the chat rate limit
    said("chat at b, browser at a", took)
