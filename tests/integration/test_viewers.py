"""The lists viewers read, kept up to date from what changed rather than
rebuilt from every game (server/screens/wlist.h): a telnet terminal left
on the watch list and a browser on /ws/lobby follow games that start,
move, end and are renamed, against the real daemon (--test-lists checks
the watch list against a rebuild from the sessions every second and logs
any difference), and a websocket spectator that stops reading is kept to
a bounded queue and caught up with a keyframe once it reads again."""
import os
import pathlib
import re
import shutil
import socket
import signal
import subprocess
import tempfile
import time

import pyte
import pytest

from harness import PW, WS, Daemon, admin, new_game, program, play_socket, Web

ROW = re.compile(r"^\s+[a-pr-z]\) (\S+)")


def list_names(t):
    """The player names of the live games on the watch list's page, in
    its order (an ended game's row, kept a while, is not one)."""
    return [m.group(1) for ln in t.lines() if (m := ROW.match(ln)) and "(game over)" not in ln]


def wait_list(d, t, want, timeout=15, any_order=False):
    """Until the watch list shows exactly want (in that order, unless
    any_order); the list is redrawn every second. Then no check against a
    rebuild found a difference (it would have mended it: the screen alone
    cannot tell)."""
    end = time.time() + timeout
    count = f"{len(want)} game{'' if len(want) == 1 else 's'}, sorted"  # the list's header
    key = sorted if any_order else list
    while not (key(list_names(t)) == key(want) and count in t.text()):
        if time.time() > end:
            raise AssertionError(f"watch list {list_names(t)} != {want}:\n{t.text()}")
        t.pump(quiet=0.1, limit=0.5)
    after = time.time() + 1.2  # a tick later: the check ran after the change
    while time.time() < after:
        t.pump(quiet=0.1, limit=after - time.time())
    bad = [ln for ln in d.log().splitlines() if "watch list differs" in ln]
    assert not bad, bad


def wait_lobby(lobby, want, timeout=15):
    """Until a lobby message lists exactly the games of want (any order)."""
    return lobby.json_until(lambda m: m.get("t") == "lobby" and
                            sorted(g["name"] for g in m["games"]) == sorted(want), timeout)


@pytest.fixture
def viewed(bindir, clients):
    top = tempfile.mkdtemp(prefix="warren-viewers-")
    ctl = os.path.join(top, "warrend.ctl")
    d = Daemon(bindir, pathlib.Path(top) / "d", http=True,
               extra=["--control", ctl, "--test-lists"])
    try:
        d.start()

        def admin(*args):
            r = subprocess.run([str(program(bindir, "asan/warren-admin", "warren-admin")),
                                "--control", ctl, *args], capture_output=True, text=True,
                               timeout=60)
            assert r.returncode == 0, r.stderr
            return r.stdout
        yield d, admin, lambda: clients(d.port).connected()
        d.stop_clean()
    finally:
        d.stop()
        shutil.rmtree(top, ignore_errors=True)


def test_lists_follow_start_move_end_rename(viewed):
    d, admin, client = viewed
    w = client()  # a visitor on the watch list from before the first game
    w.send("w")
    w.wait_for("Nobody is playing right now.")
    lobby = WS(d.http, "/ws/lobby", timeout=15)
    assert lobby.status == 101
    # start: three games, each below the others (no letter moves while
    # the list is shown: test_watch_letters.py)
    players = {}
    for name in ["mira", "bert", "kurt"]:
        players[name] = client()
        new_game(d, players[name], name)
    wait_list(d, w, ["mira", "bert", "kurt"])
    wait_lobby(lobby, ["bert", "kurt", "mira"])
    # move: the games play on and stay where they are
    for name, t in players.items():
        t.play_keys("lhs")
    wait_list(d, w, ["mira", "bert", "kurt"])
    # every order lists the same games
    for order in ["depth", "turn", "idle", "watchers", "player"]:
        w.send(".")
        w.wait_for(f"sorted by {order}")
        end = time.time() + 5
        while sorted(list_names(w)) != ["bert", "kurt", "mira"] and time.time() < end:
            w.pump(quiet=0.3, limit=1)
        assert sorted(list_names(w)) == ["bert", "kurt", "mira"], w.text()
    wait_list(d, w, ["bert", "kurt", "mira"])  # sorted anew: by player
    # end: kurt's game is ended by the administrator
    assert "ended game" in admin("end", "kurt")
    wait_list(d, w, ["bert", "mira"], any_order=True)
    wait_lobby(lobby, ["bert", "mira"])
    # rename: bert's game closes with his session; it comes back as Abel's
    assert "renamed bert to Abel" in admin("rename", "bert", "Abel")
    players["bert"].wait_for("Your account was renamed to Abel: log in again under that name.")
    wait_list(d, w, ["mira"], any_order=True)
    wait_lobby(lobby, ["mira"])
    a = client()
    a.login("Abel", PW)
    a.send("p")
    d.wait_log(r"game resume user=Abel")
    wait_list(d, w, ["Abel", "mira"], any_order=True)
    wait_lobby(lobby, ["Abel", "mira"])
    # a new game after the list was read many times: listed
    new_game(d, client(), "cleo")
    wait_list(d, w, ["Abel", "cleo", "mira"], any_order=True)
    wait_lobby(lobby, ["Abel", "cleo", "mira"])
    # end by the game itself: mira quits, her game is over
    players["mira"].send("Q")
    players["mira"].wait_for("Really quit")
    players["mira"].send("y")
    d.wait_log(r"game end user=mira")
    wait_list(d, w, ["Abel", "cleo"], any_order=True)
    wait_lobby(lobby, ["Abel", "cleo"])
    # a newcomer to the list sees the same, by player
    w2 = client()
    w2.send("w")
    wait_list(d, w2, ["Abel", "cleo"])


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:"))


def read_frames(ws, quiet=1.0, limit=30.0):
    """Every binary message until none came for quiet seconds."""
    frames, end = [], time.time() + limit
    ws.s.settimeout(quiet)
    while time.time() < end:
        try:
            op, p = ws.recv()
        except (socket.timeout, TimeoutError):
            break
        if op == 2:
            frames.append(p)
    return frames


def screen_of(frames, w, h):
    screen = pyte.Screen(w, h)
    stream = pyte.ByteStream(screen)
    for f in frames:
        stream.feed(f)
    return screen.display


def test_slow_spectator_bounded_then_keyframe(bindir, tmp_path):
    """A browser watching a game stops reading while its player plays on:
    the daemon keeps at most --output-queue bytes for it (its memory does
    not grow with the frames it could not send), and once it reads again
    a keyframe brings it to the game's screen, the same as a newcomer's."""
    d = Daemon(bindir, tmp_path / "d", http=True, exe=program(bindir, "warrend"),
               extra=["--output-queue", "16384", "--input-rate", "1000000"])
    d.start()  # its player's keys come faster than a person's: no input cap
    try:
        tok = Web(d.http).register("star", PW).session
        w, h = 200, 60
        player = play_socket(d.http, tok, w, h)
        slow = WS(d.http, "/ws/watch/star", rcvbuf=4096, timeout=10)
        slow.until(lambda op, p: op == 2, timeout=10)  # its first keyframe, then nothing
        before = rss_kb(d.proc.pid)
        sent = keys = 0
        # far more than the sockets' buffers hold, and an even count: the map shut
        while (sent < 8_000_000 or keys % 2) and keys < 14000:
            player.binary(b"M")  # the world map on and off (the whole screen)
            # a generous wait: a loaded machine may hold a commit for seconds
            sent += len(player.until(lambda op, p: op == 2, timeout=30)[1])
            keys += 1
        grew = rss_kb(d.proc.pid) - before
        assert sent > 8_000_000, sent  # (4 MB)
        assert grew < 2048, f"the daemon grew by {grew} KB while {sent} bytes went out"
        frames = read_frames(slow)
        keyframes = [i for i, f in enumerate(frames) if b"\x1b[H\x1b[2J" in f]
        assert keyframes, "no keyframe caught the slow watcher up"
        assert len(frames) < keys / 2, (len(frames), keys)  # frames were dropped, not queued
        fresh = WS(d.http, "/ws/watch/star", timeout=10)
        want = screen_of(read_frames(fresh), w, h)
        got = screen_of(frames[keyframes[-1]:], w, h)
        # the same screen but for the count of watchers, which the newcomer changed
        differ = [(a, b) for a, b in zip(got, want) if a != b]
        assert len(differ) <= 1 and all("watching" in a for a, b in differ), differ
        assert any("HP" in row for row in want), want
    finally:
        d.stop()


def test_slow_spectators_share_one_copy_of_each_frame(bindir, tmp_path):
    """Sixty browsers watching one game stop reading while its player
    plays on: each may have up to --output-queue bytes waiting, but the
    frames waiting are the same bytes for all of them, kept once (a copy
    per socket would grow the daemon by 60 queues), and each still ends
    on the player's screen once it reads again."""
    n, queue = 60, 262144
    d = Daemon(bindir, tmp_path / "d", http=True, exe=program(bindir, "warrend"),
               extra=["--output-queue", str(queue), "--max-per-ip", "200"])
    d.start()
    try:
        tok = Web(d.http).register("stan", PW).session
        w, h = 200, 60
        player = play_socket(d.http, tok, w, h)
        slow = [WS(d.http, "/ws/watch/stan", rcvbuf=4096, timeout=10) for _ in range(n)]
        for s in slow:
            s.until(lambda op, p: op == 2, timeout=10)  # its first keyframe, then nothing
        before = rss_kb(d.proc.pid)
        sent = 0
        while sent < 7_000_000:  # past what the sockets' buffers hold (4 MB)
            player.binary(b"M")  # the world map on and off (the whole screen)
            # a generous wait: a loaded machine may hold a commit for seconds
            sent += len(player.until(lambda op, p: op == 2, timeout=30)[1])
        grew = rss_kb(d.proc.pid) - before
        assert grew < n * queue // 1024 // 4, f"the daemon grew by {grew} KB"
        fresh = WS(d.http, "/ws/watch/stan", timeout=10)
        want = screen_of(read_frames(fresh), w, h)
        for s in slow[:3]:
            got = screen_of(read_frames(s), w, h)
            differ = [(a, b) for a, b in zip(got, want) if a != b]
            assert len(differ) <= 1 and all("watching" in a for a, b in differ), differ
    finally:
        d.stop()


def test_watchers_get_the_same_bytes_and_a_full_socket_its_frames_whole(bindir, tmp_path):
    """A game at 400x200 whose world map's frames are longer than 125
    bytes (a websocket header with a 2-byte length, made once for all its
    watchers): two watchers that read all the while get the same messages,
    byte for byte, and one whose socket takes 4 KB at a time (frames
    written in pieces, the rest through lws) still ends on the same screen
    as a newcomer."""
    d = Daemon(bindir, tmp_path / "d", http=True, exe=program(bindir, "warrend"),
               extra=["--output-queue", "4194304", "--input-rate", "1000000"])
    d.start()
    try:
        tok = Web(d.http).register("wide", PW).session
        w, h = 400, 200
        player = play_socket(d.http, tok, w, h)
        fast = [WS(d.http, "/ws/watch/wide", timeout=10) for _ in range(2)]
        slow = WS(d.http, "/ws/watch/wide", rcvbuf=4096, timeout=10)
        slow.until(lambda op, p: op == 2, timeout=10)  # its first keyframe, then nothing
        for s in fast:
            read_frames(s, quiet=0.5)  # keyframes, the count of watchers going up
        for _ in range(6):  # the world map on and off
            player.binary(b"M")
            player.until(lambda op, p: op == 2, timeout=30)
        got = [read_frames(s) for s in fast]
        assert got[0] == got[1] and len(got[0]) >= 2, [len(f) for f in got[0]]
        assert max(len(f) for f in got[0]) > 125, [len(f) for f in got[0]]
        frames = read_frames(slow)
        want = screen_of(read_frames(WS(d.http, "/ws/watch/wide", timeout=10)), w, h)
        have = screen_of(frames, w, h)
        differ = [(a, b) for a, b in zip(have, want) if a != b]
        assert len(differ) <= 1 and all("watching" in a for a, b in differ), differ
        assert any("HP" in row for row in want), want
    finally:
        d.stop()


def drain_all(socks, quiet=1.0, limit=60.0):
    """Every binary message each socket has, read round after round until
    none came on any for quiet seconds."""
    got = [[] for _ in socks]
    end, last = time.time() + limit, time.time()
    while time.time() - last < quiet and time.time() < end:
        for i, s in enumerate(socks):
            s.s.settimeout(0.01)
            try:
                while True:
                    op, p = s.recv()
                    last = time.time()
                    if op == 2:
                        got[i].append(p)
            except (socket.timeout, TimeoutError):
                pass
    return got


KEYFRAME = b"\x1b[H\x1b[2J"


def test_a_crowd_that_comes_and_goes_follows_its_player(start_daemon):
    """Sixty browsers watch one game while its player plays on and, between
    keys, watchers leave and others join (frames.c keeps a game's watchers
    as an array, made again after the list changed). Every key of the
    player is answered; every watcher still there, the late ones too, ends
    on the player's screen; and three that read nothing meanwhile, whose
    queues grow past what a socket queues without an allocation and wrap
    around (web.c), get every frame in order: no keyframe after their
    first."""
    d = start_daemon(http=True, extra=["--output-queue", "4194304", "--max-per-ip", "400",
                                       "--input-rate", "1000000"])
    tok = Web(d.http).register("crowd", PW).session
    w, h = 200, 60
    player = play_socket(d.http, tok, w, h)

    def watcher(**kw):
        s = WS(d.http, "/ws/watch/crowd", timeout=10, **kw)
        return s, [s.until(lambda op, p: op == 2, timeout=10)[1]]  # its first keyframe

    crowd = [watcher() for _ in range(60)]
    slow = [watcher(rcvbuf=4096) for _ in range(3)]
    for i in range(45):
        player.binary(b"?")  # the help page on and off (a box over the whole map)
        player.until(lambda op, p: op == 2, timeout=30)
        if i % 3 == 0:  # one leaves, one comes
            crowd.pop(0)[0].s.close()
            crowd.append(watcher())
    player.binary(b"s")  # a last change every watcher must get
    player.until(lambda op, p: op == 2, timeout=30)
    everyone = crowd + slow
    for (s, frames), more in zip(everyone, drain_all([s for s, _ in everyone])):
        frames += more
    fresh = WS(d.http, "/ws/watch/crowd", timeout=10)
    want = screen_of(read_frames(fresh), w, h)
    assert any("HP" in row for row in want), want
    for n, (s, frames) in enumerate(everyone):
        keys = [i for i, f in enumerate(frames) if KEYFRAME in f]
        got = screen_of(frames[keys[-1]:], w, h)
        # the same screen but for the count of watchers, which the newcomer changed
        differ = [(a, b) for a, b in zip(got, want) if a != b]
        assert len(differ) <= 1 and all("watching" in a for a, b in differ), (n, differ)
    for s, frames in slow:
        assert [i for i, f in enumerate(frames) if KEYFRAME in f] == [0], "a slow one was cut"


IAC_SEQ = re.compile(rb"\xff(?:[\xfb-\xfe].|\xfa.*?\xff\xf0|[^\xff])", re.S)


class RawViewer:
    """An anonymous telnet terminal (no NAWS: 80x24) left on the watch
    list, read into a screen; many of them cost one process."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setblocking(False)
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""

    def pump(self):
        try:
            while d := self.s.recv(1 << 16):
                self.raw += d
        except BlockingIOError:
            pass
        # telnet's negotiation taken out; a sequence split by a read waits
        cut = self.raw.rfind(b"\xff")
        keep = self.raw[cut:] if cut >= 0 and len(self.raw) - cut < 3 else b""
        self.stream.feed(IAC_SEQ.sub(b"", self.raw[:len(self.raw) - len(keep)]))
        self.raw = keep

    def text(self):
        return "\n".join(self.screen.display)


def health_counts(bindir, d):
    """The most menu redraws, lobby games and previews the daemon did in
    one loop turn (warren-admin health's "loop turns" line)."""
    out = admin(bindir, d, "health")
    m = re.search(r"most in one turn: (\d+) menu redraws, (\d+) lobby games, (\d+) previews", out)
    assert m, out
    return tuple(int(x) for x in m.groups())


def lobby_beside_menu(bindir, d):
    """The turns that held both a lobby round and watch-list redraws
    (warren-admin health's "lobby rounds beside menu redraws")."""
    out = admin(bindir, d, "health")
    m = re.search(r"lobby rounds beside menu redraws: (\d+);", out)
    assert m, out
    return int(m.group(1))


def loop_turns(bindir, d):
    """The home loop's turns in all and those its meter measured (since
    the first health switched it on), from warren-admin health."""
    out = admin(bindir, d, "health")
    m = re.search(r"loop turns: (\d+); since the meter went on at [^(]*\((\d+) s ago\): (\d+),", out)
    assert m, out
    return int(m.group(1)), int(m.group(3))


def test_viewers_work_a_slice_a_turn(bindir, tmp_path, clients):
    """Forty terminals on the watch list and a lobby beside seven games:
    the watch lists' one-second redraws and the lobby's previews are done
    a few a loop turn (at most 8 terminals and 4 previews: what the daemon
    counts per turn and health reports), not all in one turn that holds
    every player's key behind them; the lobby's rounds never fall in a
    turn of redraws; and every viewer still sees every change within a
    second or two."""
    d = Daemon(bindir, tmp_path / "d", http=True, extra=["--control", f"{tmp_path}/d/warren.db.ctl"])
    d.start()
    try:
        lobby = WS(d.http, "/ws/lobby", timeout=15)
        names = [f"slice{c}" for c in "abcdef"]
        players = {}
        for name in names:
            players[name] = clients(d.port)
            new_game(d, players[name], name)
        # the meter reads a clock a turn: off until the first health asks
        total, measured = loop_turns(bindir, d)
        assert measured < total / 2, (total, measured)
        viewers = [RawViewer(d.port) for _ in range(40)]
        time.sleep(1.0)  # the menu first
        for v in viewers:
            v.pump()
            v.s.send(b"w")
        for t in players.values():  # every game's frame changes: every preview is due
            t.play_keys("lh")
        seen = set()
        lobby.json_until(lambda m: m.get("t") == "preview" and seen.add(m["name"]) is None and
                         seen >= set(names), timeout=15)
        late = clients(d.port)
        new_game(d, late, "slicez")
        end = time.time() + 10
        while True:
            for v in viewers:
                v.pump()
            behind = [v for v in viewers if "slicez" not in v.text() or "7 games," not in v.text()]
            if not behind:
                break
            assert time.time() < end, f"{len(behind)} watch lists behind:\n{behind[0].text()}"
            time.sleep(0.2)
        lobby.json_until(lambda m: m.get("t") == "lobby" and
                         "slicez" in [g["name"] for g in m["games"]], timeout=10)
        redraws, games, previews = health_counts(bindir, d)
        assert 0 < redraws <= 8, f"{redraws} watch lists redrawn in one loop turn"
        assert 0 < previews <= 4, f"{previews} lobby previews encoded in one loop turn"
        assert games == 7, games
        # between rounds the loop sleeps: no idle handle of a finished
        # round left running (it would turn the loop without waiting)
        before, _ = loop_turns(bindir, d)
        time.sleep(2)
        after, _ = loop_turns(bindir, d)
        assert after - before < 1000, f"{after - before} loop turns in 2 s, the viewers idle"
        # the lobby's round (list and watcher counts every 500 ms) and the
        # tick's first slice of redraws never share a turn: the round runs
        # at its phase of the tick, not in step with it, also after a
        # stall of the loop that left both due at once
        d.proc.send_signal(signal.SIGSTOP)
        time.sleep(1.5)
        d.proc.send_signal(signal.SIGCONT)
        time.sleep(3)
        for v in viewers:
            v.pump()
        assert lobby_beside_menu(bindir, d) == 0, "a lobby round in a turn of watch-list redraws"
        for v in viewers:
            v.s.close()
        lobby.close()
        d.stop_clean()
    finally:
        d.stop()


def test_turn_log_meters_from_the_start(bindir, tmp_path):
    """With WARREN_TURN_LOG_US set the meter is on from the start (not
    only from the first health): slow turns are logged with what ran, and
    health's figures cover every turn."""
    d = Daemon(bindir, tmp_path / "d", extra=["--control", f"{tmp_path}/d/warren.db.ctl"],
               env={"WARREN_TURN_LOG_US": "1"})
    d.start()
    try:
        d.wait_log(r"turn \d+ us cpu \d+ us: \S+, redraws \d+ games \d+ previews \d+, viewers")
        total, measured = loop_turns(bindir, d)
        assert total - measured <= 2, (total, measured)
        d.stop_clean()
    finally:
        d.stop()
