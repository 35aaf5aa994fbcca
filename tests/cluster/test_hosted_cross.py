"""Hosted games across the cluster: three warrend nodes behind HAProxy on
the cluster's PostgreSQL, each with the section [game keys]
(tests/tools/ptytoy's keys mode: one line "got N: HEX" for each read of its
input) and a node-to-node stream. A player (Debian's telnet) starts the
game through HAProxy; the two other nodes list it (telnet watch list, and
the lobby's JSON on each of them and through HAProxy's HTTP side), and a
watcher on one of them (telnet to that node) sees each key the player
types, through the stream.

Figure: cluster.watch.cross_node.hosted.delay.p99.us, from a key the
player's telnet sends through HAProxy to its line on the watcher's screen
at another node (both through Debian's telnet under a pty, one key at a
time; WARREN_CLUSTER_HOSTED_KEYS keys, 40 by default, 400 in make
test-cluster); .own.* to the player's own screen, .stream.* what the
watcher's copy adds to that.

Then the game's node is SIGKILLed. A hosted game takes no lease; its
player's files are copied into the database as they change (hostcopy.h):
the watcher is sent back to its menu, told; the player's connection
closes, and through HAProxy they reach another node at once, log in and
choose the game: while the dead node's heartbeat still names it (its
lists name it too: lease-ttl-ms, 10 s) they are told it runs there, and
once it lapsed the game starts on the node reached, from the files the
database holds (logged: "hosted files restored"), and each node's lists
name the player's game there alone. Nothing crashes or hangs."""
import base64
import json
import os
import re
import signal
import socket
import statistics
import time

from conftest import bench
from cluster import HTTP_PORT, TELNET_PORT, run_in_ns
from harness import PW, Term, unique_name  # tests/integration, on the path through cluster.py
from test_hosted import open_to_games, toy_copy

NODES = 3
KEYS = int(os.environ.get("WARREN_CLUSTER_HOSTED_KEYS", "40"))
LAPSE_S = 10  # lease-ttl-ms's default: a node's heartbeat lapses after it
GAP = 0.02  # s between keys
LETTERS = "abcdefghijklmnoprstuvwxyz"  # q ends ptytoy's keys mode
GONE = "The server running that game went away."


def telnet(c, ip, cols=80, rows=24):
    """Debian's telnet in the clients' namespace, at ip's telnet port."""
    return Term(["nsenter", f"--net=/run/netns/{c.client_ns}", "telnet", ip, str(TELNET_PORT)],
                cols=cols, rows=rows).connected()


def ws_lobby(ip, timeout=10):
    """The lobby's first JSON message from ip's /ws/lobby (a node, or
    HAProxy's HTTP side): a raw websocket, its frames read until a whole
    text message."""
    with socket.create_connection((ip, HTTP_PORT), timeout=timeout) as s:
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall((f"GET /ws/lobby HTTP/1.1\r\nHost: {ip}:{HTTP_PORT}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
        buf = b""

        def need(n):
            nonlocal buf
            while len(buf) < n:
                chunk = s.recv(65536)
                if not chunk:
                    raise AssertionError(f"{ip}: lobby closed early: {buf[:300]!r}")
                buf += chunk
        while b"\r\n\r\n" not in buf:
            need(len(buf) + 1)
        head, _, buf = buf.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        msg = b""
        while True:
            need(2)
            fin, op, n, at = buf[0] & 0x80, buf[0] & 0x0F, buf[1] & 0x7F, 2
            if n == 126:
                need(4)
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                need(10)
                n, at = int.from_bytes(buf[2:10], "big"), 10
            need(at + n)
            body, buf = buf[at:at + n], buf[at + n:]
            if op in (0, 1):
                msg += body
                if fin:
                    m = json.loads(msg)
                    if m.get("t") == "lobby":
                        return m
                    msg = b""


def lobby_entry(c, ip, name, timeout=15):
    """name's entry in ip's lobby, once it is there."""
    end = time.monotonic() + timeout
    while True:
        lobby = run_in_ns(c.client_ns, ws_lobby, ip)
        g = next((g for g in lobby["games"] if g["name"] == name), None)
        if g is not None:
            return g
        assert time.monotonic() < end, f"{ip}: {name} never listed: {lobby}"
        time.sleep(0.3)


def watch_list(t):
    """The watch list's screen at t's logged-in menu (left again)."""
    t.send("w")
    text = t.wait_for("Live games")
    t.send("q")
    t.wait_for("Your choice")
    return text


def watch_list_open(t):
    """Opens t's watch list and returns its screen (left open)."""
    t.send("w")
    return t.wait_for("Live games")


def listed(t, name, want=True, timeout=15):
    """Waits until t's watch list has (want) or no longer has name's row;
    returns the row."""
    end = time.monotonic() + timeout
    while True:
        text = watch_list(t)
        m = re.search(rf"^\s*([a-z])\) {name}\b.*$", text, re.M)
        if bool(m) == want:
            return m.group(0) if m else None
        assert time.monotonic() < end, text
        time.sleep(0.3)


def home_of(nodes, name, timeout=15):
    """Which of nodes says in its log that name started the keys game."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for n in nodes:
            if re.search(rf"hosted start user={name} game=\S+ pid=\d+", n.log()):
                return n
        time.sleep(0.1)
    raise AssertionError(f"no node started {name}'s game")


def last_line(lines):
    """The last of lines that is not blank."""
    rows = [ln for ln in lines if ln]
    return rows[-1] if rows else ""


def key_delays(player, watcher, count):
    """Each key typed by the player, one at a time: microseconds from its
    send to its line at the bottom of the player's own screen and of the
    watcher's (the keys cycle through LETTERS, so each line differs from
    the one before). Returns (the player's, the watcher's)."""
    own, watched = [], []
    for i in range(count):
        k = LETTERS[i % len(LETTERS)]
        want = f"got 1: {ord(k):02x}"
        t0 = time.perf_counter()
        player.type_now(k)  # not send: pexpect sleeps 50 ms before it writes
        end = time.monotonic() + 10
        seen = {}
        while len(seen) < 2:
            assert time.monotonic() < end and not watcher.eof and not player.eof, \
                f"key {k!r} never reached both:\n{player.text()}\n{watcher.text()}"
            # the watcher's bottom row is its own status line
            for who, t, below in (("own", player, 0), ("watched", watcher, 1)):
                if who not in seen:
                    t.pump(quiet=0.001, limit=0.001)
                    if last_line(t.lines()[:len(t.lines()) - below]) == want:
                        seen[who] = (time.perf_counter() - t0) * 1e6
        own.append(seen["own"])
        watched.append(seen["watched"])
        time.sleep(GAP)
    return own, watched


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * 0.99))]


def test_hosted_game_listed_watched_and_its_node_killed(make_cluster, bindir, tmp_path):
    open_to_games(tmp_path)
    toy = toy_copy(bindir, tmp_path)
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game keys]\nname = Key Toy\ncommand = {toy} keys\nhangup-timeout = 1\n")
    c = make_cluster(nodes=NODES, node_extra=["--config", conf])
    c.start_pg()
    c.start_nodes(peers=True)
    c.start_haproxy()
    # the player starts the game through HAProxy
    name = unique_name("hx")
    player = telnet(c, c.proxy_ip)
    player.register(name, PW)
    player.send("1")
    player.wait_for("keys ready")
    home = home_of(c.nodes, name)
    others = [n for n in c.nodes if n is not home]
    watchers = [listed_elsewhere(c, n, name) for n in others]
    for _ in range(3):  # whichever node HAProxy's HTTP side reaches
        assert lobby_entry(c, c.proxy_ip, name)["game"] == "keys"
    watch_and_time(player, watchers[0], home, others[0], name)
    node_killed(c, home, others, player, watchers, name)
    for t in watchers:
        t.close()


def listed_elsewhere(c, n, name):
    """name's game in n's lobby (its JSON) and on its telnet watch list; a
    telnet client logged in at n, at its menu."""
    g = lobby_entry(c, n.ip, name)
    assert g["game"] == "keys", g
    w = telnet(c, n.ip)
    w.register(unique_name("hw"), PW)
    assert "Key Toy" in listed(w, name)
    return w


def watch_and_time(player, w, home, at, name):
    """w, at node at, watches name's game from its list: the keys' lines
    arrive through the stream, timed (the BENCH lines)."""
    m = re.search(rf"^\s*([a-z])\) {name}\b", watch_list_open(w), re.M)
    w.send(m.group(1))
    w.wait_for("keys ready")
    home.wait_log(rf"peer feed game=-\d+ to={at.role} nodes=1")
    own, delays = key_delays(player, w, KEYS)
    # the player plays on at their node: the watcher's help says so
    w.send("?")
    assert f"Watching {name} play Key Toy, 1 watching." in w.wait_for("stop watching"), w.text()
    w.send(" ")
    bench("cluster.watch.cross_node.hosted.delay.p99.us", round(p99(delays)))
    bench("cluster.watch.cross_node.hosted.delay.p50.us", round(statistics.median(delays)))
    bench("cluster.watch.cross_node.hosted.stream.p99.us",
          round(p99([d - o for d, o in zip(delays, own)])))
    bench("cluster.watch.cross_node.hosted.own.p99.us", round(p99(own)))
    bench("cluster.watch.cross_node.hosted.own.p50.us", round(statistics.median(own)))


def node_killed(c, home, others, player, watchers, name):
    """home SIGKILLed: its watcher elsewhere is told and back at its menu,
    the player's connection closes; the player comes back through HAProxy
    at once and is told the game still runs on home while home's heartbeat
    names it; once it lapsed the game starts on the node reached, its files
    restored from the database, and each node's lists name it alone."""
    w = watchers[0]
    home.kill(signal.SIGKILL)
    killed = time.monotonic()
    w.wait_for(GONE, timeout=15)
    w.wait_for("Press any key.")
    w.send(" ")
    w.wait_for("Your choice")
    player.wait_exit(timeout=15)
    assert player.eof
    back = telnet(c, c.proxy_ip)
    back.login(name, PW)
    back.send("1")
    back.wait_for(re.compile(r"keys ready|still runs on server"))
    while "keys ready" not in back.text():  # told where it runs, until home's heartbeat lapsed
        assert "still runs on server " + home.role in " ".join(back.text().split())
        assert time.monotonic() - killed < LAPSE_S + 15, back.text()
        time.sleep(0.5)
        back.send("1")
        back.pump(quiet=0.3, limit=2)
    again = home_of(others, name)
    again.wait_log(rf"hosted files restored user={name} game=keys gen=\d+ from={home.role}")
    back.send("z")
    back.wait_for("got 1: 7a")
    for n in others:
        rows_once(c, n, name, timeout=LAPSE_S + 10)
    listed(watchers[1], name)
    assert again.alive() and all(n.alive() for n in others)
    for n in others:
        assert "AddressSanitizer" not in n.log() and "runtime error" not in n.log()
    back.close()


def rows_once(c, n, name, timeout=30):
    """Waits until n's lobby names name's game exactly once."""
    end = time.monotonic() + timeout
    while True:
        lobby = run_in_ns(c.client_ns, ws_lobby, n.ip)
        count = sum(g["name"] == name for g in lobby["games"])
        if count == 1:
            return
        assert time.monotonic() < end, f"{n.role}: {name} listed {count} times: {lobby}"
        time.sleep(0.3)
