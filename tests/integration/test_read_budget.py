"""A loop turn's share of input (server/core/readturn.h): keys past it wait
for the next turns, each connection's in its order, none lost, while the
connection's reading is paused. Several telnet players type a burst at
once; each game must be the one its keys, played one by one without
interruption, make (bin/tools/server_replay)."""
import fcntl
import json
import os
import re
import socket
import struct
import termios
import time

import pytest

from harness import F12, PW, Web, admin, new_game, play_socket, raw_read, replay, stored_hook

BURST = "hjklyubn.." * 3  # moves in every direction and waits: their order shows


def playing(daemon, clients, name):
    """A new account on its own telnet client, in a new game past the race
    choice ('l'); returns (client, seed)."""
    t = clients(daemon.port).connected()
    _, seed = new_game(daemon, t, name)
    t.wait_for("Choose a race.")
    t.send("l")
    t.wait_for(f"Welcome, {name} the ")
    return t, seed


def burst_answered(daemon, clients, bindir, tmp_path, names):
    """Each of names types BURST at once, all within a moment; each game
    has every key, played in order."""
    players = [(name, *playing(daemon, clients, name)) for name in names]
    for _, t, _ in players:
        t.type_now(BURST)
    for name, t, seed in players:
        got = stored_hook(daemon, t, name)
        assert got["seq"] == 1 + len(BURST), (name, got)
        _, want = replay(bindir, tmp_path, seed, name, ("l" + BURST).encode())
        assert got["hash"] == want, (name, got, want)


def kept(bindir, daemon):
    """warren-admin health's input line: (keys kept, turns that ended with keys kept)."""
    out = admin(bindir, daemon, "health")
    m = re.search(r"^input: (\d+) keys kept past a turn's share, (\d+) turns ended with keys kept$",
                  out, re.M)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def held(bindir, daemon):
    """warren-admin health's bytes held for keys kept now."""
    out = admin(bindir, daemon, "health")
    m = re.search(r"^input held: (\d+) bytes for keys kept now$", out, re.M)
    assert m, out
    return int(m.group(1))


@pytest.mark.daemon(extra=["--test-read-budget", "1"])
def test_one_key_a_turn_spreads_a_burst_in_order(daemon, clients, bindir, tmp_path):
    """One key a turn: four players' bursts are kept and played over at
    least as many turns as keys were kept, and each game still gets its
    keys in the order typed; once played, no conn holds bytes for them
    (a kept key's ring goes with its last key, not with its conn)."""
    names = [f"turn{i}" for i in range(4)]
    burst_answered(daemon, clients, bindir, tmp_path, names)
    keys, turns = kept(bindir, daemon)
    # the first key of each read goes at once when its turn has room; the
    # rest of a burst waits
    assert keys >= len(names) * len(BURST) // 2, (keys, turns)
    # one kept key a turn: every turn but the last one's ended with keys kept
    assert turns >= keys - 1, (keys, turns)
    assert held(bindir, daemon) == 0


def test_bursts_of_many_players_are_answered_in_order(daemon, clients, bindir, tmp_path):
    """The default share (8 ms a turn): six players' bursts at once, each
    answered whole and in order, whether or not a turn ran out."""
    burst_answered(daemon, clients, bindir, tmp_path, [f"many{i}" for i in range(6)])
    keys, turns = kept(bindir, daemon)
    assert turns <= keys, (keys, turns)  # a turn ends with keys kept only after one was


def ws_stored_hook(daemon, ws, name):
    """stored_hook for a browser's /ws/play."""
    for _ in range(100):
        ws.binary(F12.encode())
        m = daemon.wait_log(rf"hook user={name} game=\d+ hash=([0-9a-f]+) seed=(\d+) turn=\d+ "
                            rf"seq=(\d+) stored=(\d+)")
        if m.group(3) == m.group(4):
            return {"hash": m.group(1), "seed": int(m.group(2)), "seq": int(m.group(3))}
    raise AssertionError("keys never stored")


@pytest.mark.daemon(http=True, extra=["--test-read-budget", "1"])
def test_one_key_a_turn_keeps_a_websocket_message_in_order(daemon, bindir, tmp_path):
    """One key a turn: each browser's message of many keys waits, its
    websocket paused, and is played in order."""
    players = []
    for name in ("webone", "webtwo"):
        r = Web(daemon.http).register(name, PW)
        assert r.status == 303 and r.session, r.head
        players.append((name, play_socket(daemon.http, r.session)))
    before = kept(bindir, daemon)[0]
    for _, ws in players:
        ws.binary(BURST.encode())
    for name, ws in players:
        got = ws_stored_hook(daemon, ws, name)
        # a new game's race is chosen by the first key unless it had none to choose
        first = b"*" if got["seq"] == 1 + len(BURST) else b""
        assert got["seq"] == len(first) + len(BURST), (name, got)
        _, want = replay(bindir, tmp_path, got["seed"], name, first + BURST.encode(),
                         size="100x30")
        assert got["hash"] == want, (name, got, want)
        ws.close()
    assert kept(bindir, daemon)[0] - before >= len(BURST), before


@pytest.mark.daemon(extra=["--test-read-budget", "1", "--input-rate", "100000"])
def test_a_paste_past_the_cap_is_played_whole_in_order(daemon, clients, bindir, tmp_path):
    """One key a turn and a paste of more keys than a conn keeps
    (READTURN_KEPT_MAX, 1024): past the cap its kept keys and the rest are
    played at once, in order, none lost."""
    paste = BURST * 50  # 1,500 keys
    t, seed = playing(daemon, clients, "paster")
    t.type_now(paste)
    got = stored_hook(daemon, t, "paster")
    assert got["seq"] == 1 + len(paste), got
    _, want = replay(bindir, tmp_path, seed, "paster", ("l" + paste).encode())
    assert got["hash"] == want, (got, want)
    assert kept(bindir, daemon)[0] >= 1024


@pytest.mark.daemon(extra=["--test-read-budget", "1", "--input-rate", "100000"])
def test_a_stop_plays_the_kept_keys_and_frees_them(daemon, clients):
    """One key a turn, a long paste, and the daemon stopped a moment
    after, its keys still being played a turn at a time (about half of
    them stored, here): the journal is the paste's first keys, in order,
    and the daemon ends cleanly (status 0, no sanitizer report: nothing
    kept leaks)."""
    paste = BURST * 33  # 990 keys: under the cap, kept a key a turn
    t, _ = playing(daemon, clients, "stopper")
    gid = int(daemon.db_rows("SELECT id FROM games ORDER BY id DESC LIMIT 1")[0][0])
    t.type_now(paste)
    time.sleep(0.05)
    daemon.stop_clean()
    rows = daemon.db_rows("SELECT seq, keys FROM journal WHERE game = ? ORDER BY seq", gid)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), rows
    stored = b"".join(bytes(r[1]) for r in rows)
    want = ("l" + paste).encode()
    assert len(stored) > 2 and want.startswith(stored), stored


def sent_through(sock, timeout=10):
    """Waits until the peer has every byte sock sent (none unacknowledged:
    on loopback, in the daemon's socket, to be read whole)."""
    end = time.time() + timeout
    while struct.unpack("i", fcntl.ioctl(sock, termios.TIOCOUTQ, b"\0" * 4))[0]:
        assert time.time() < end, "bytes never taken"
        time.sleep(0.001)


@pytest.mark.daemon(extra=["--test-read-budget", "1", "--input-rate", "100000"])
def test_a_conn_cut_short_goes_first_the_next_turn(daemon):
    """One key a turn: a long paste is cut short every turn, and a short
    burst another player types once the paste is in the daemon waits
    behind all of it (the conn kept first stays first, a turn after turn;
    taking turns, the burst's 31 keys would be played long before the
    paste's 901): the paste's hook (F12 after its last key) comes before
    the burst's. Raw sockets, each message in one write: a telnet client
    may pass a paste on in parts, or after the other's burst when the
    machine is busy."""
    paste = BURST * 30  # 900 keys: under the cap, about 0.1 s of turns
    a, _, _ = raw_playing(daemon, "pasting")
    # a game's loop is its account's id modulo the loops (WARREN_LOOPS): the
    # accounts between put both on one loop, the one whose turns they share
    between = [raw_playing(daemon, f"between{i}")[0]
               for i in range(int(os.environ.get("WARREN_LOOPS") or 1) - 1)]
    b, _, _ = raw_playing(daemon, "bursting")
    loops = {re.findall(rf"attach user={n} game=\d+ conn=\d+ turn-seq=\d+ loop=(\d+)",
                        daemon.log())[-1] for n in ("pasting", "bursting")}
    assert len(loops) == 1, loops
    a.sendall((paste + F12).encode())
    sent_through(a)  # its read is first, its keys kept, most still to play
    b.sendall((BURST + F12).encode())
    hooks = [daemon.wait_log(r"hook user=(pasting|bursting) game=\d+ hash=[0-9a-f]+ seed=\d+ "
                             r"turn=\d+ seq=(\d+) ", timeout=30) for _ in range(2)]
    got = [(m.group(1), int(m.group(2))) for m in hooks]
    assert got == [("pasting", 1 + len(paste)), ("bursting", 1 + len(BURST))], got
    for s in (a, b, *between):
        s.close()


# ---- input that is not a key keeps its place behind kept keys ------------------------

IAC, SB, SE, WILL, NAWS, TTYPE = 255, 250, 240, 251, 31, 24
KEYFRAME = b"\x1b[H\x1b[2J"  # how every keyframe starts (protocol/ansi.c)
BEFORE = "hjhj@@@@"  # moves, and toggles that say so whatever the walls
AFTER = "lulu"


def naws(w, h):
    return bytes([IAC, SB, NAWS, w >> 8, w & 255, h >> 8, h & 255, IAC, SE])


def ttype_is(name):
    return bytes([IAC, SB, TTYPE, 0]) + name + bytes([IAC, SE])


def terminal_bytes(data):
    """What a terminal shows of a telnet stream: its commands taken out."""
    data = re.sub(rb"\xff\xfa.*?\xff\xf0", b"", data, flags=re.S)
    data = re.sub(rb"\xff[\xfb-\xfe].", b"", data, flags=re.S)
    return data.replace(b"\xff\xff", b"\xff")


def quiet_read(sock, quiet=1.0):
    """Everything sock is sent until it goes quiet for quiet seconds."""
    sock.settimeout(quiet)
    data = b""
    while True:
        try:
            chunk = sock.recv(1 << 20)
        except (socket.timeout, TimeoutError):
            return data
        if not chunk:
            return data
        data += chunk


def raw_playing(daemon, name):
    """A raw telnet socket at 80x24 (one NAWS) that registers name and is
    in its new game past the race choice ('l'); returns (socket, seed,
    everything it was sent)."""
    s = socket.create_connection(("127.0.0.1", daemon.port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    got = raw_read(s, 10, b"Your choice")
    s.sendall(bytes([IAC, WILL, NAWS]) + naws(80, 24))
    for send, wait in ((b"r", b"Name:"), (name.encode() + b"\r", b"Password:"),
                       (PW.encode() + b"\r", b"again:"), (PW.encode() + b"\r", b"Logged in as"),
                       (b"p", b"Choose a race."), (b"l", f"Welcome, {name} the ".encode())):
        s.sendall(send)
        got += raw_read(s, 10, wait)
        assert wait in got, wait
    seed = int(daemon.wait_log(rf"game start user={name} game=\d+ seed=(\d+)").group(1))
    return s, seed, got + quiet_read(s, 0.5)


def raw_stored_hook(daemon, s, name):
    """stored_hook for a raw telnet socket."""
    for _ in range(100):
        s.sendall(F12.encode())
        m = daemon.wait_log(rf"hook user={name} game=\d+ hash=([0-9a-f]+) seed=\d+ turn=\d+ "
                            rf"seq=(\d+) stored=(\d+)")
        if m.group(2) == m.group(3):
            return {"hash": m.group(1), "seq": int(m.group(2))}
    raise AssertionError("keys never stored")


def top_row(drawn):
    """The top row (the game's message line) of the first keyframe in drawn."""
    row = drawn[drawn.index(KEYFRAME) + len(KEYFRAME):]
    return row[:row.index(b"\x1b")].decode().rstrip()


def resize_ordered(bindir, tmp_path, seed, name, first, drawn, size):
    """The keyframe a resize drew (the first in drawn) shows the game after
    every key sent before the resize, not after the first only (the one a
    turn plays at once)."""
    want, _ = replay(bindir, tmp_path, seed, name, first + BEFORE.encode(), size=size)
    one, _ = replay(bindir, tmp_path, seed, name, first + BEFORE[:1].encode(), size=size)
    assert want[0] != one[0], want[0]  # the keys after the first one show
    assert top_row(drawn) == want[0], (top_row(drawn), want[0])


@pytest.mark.parametrize("said", [naws(120, 40), ttype_is(b"vt100")], ids=["naws", "ttype"])
@pytest.mark.daemon(extra=["--test-read-budget", "1"])
def test_a_resize_after_kept_keys_is_drawn_after_them(daemon, bindir, tmp_path, said):
    """One key a turn: keys, a window size (NAWS) or a terminal type, and
    more keys in one packet. The keys before it are kept and it waits
    behind them: its keyframe shows the game after all of them (applied at
    once it was drawn after the first, the rest drawn at the new size or
    in the new type), and the game has every key, in order."""
    s, seed, _ = raw_playing(daemon, "sizer")
    s.sendall(BEFORE.encode() + said + AFTER.encode())
    resize_ordered(bindir, tmp_path, seed, "sizer", b"l", terminal_bytes(quiet_read(s)), "80x24")
    got = raw_stored_hook(daemon, s, "sizer")
    assert got["seq"] == 1 + len(BEFORE + AFTER), got
    _, h = replay(bindir, tmp_path, seed, "sizer", ("l" + BEFORE + AFTER).encode())
    assert got["hash"] == h
    s.close()


@pytest.mark.daemon(extra=["--test-read-budget", "1"])
def test_sizes_past_the_cap_of_marks_are_played_at_once_in_order(daemon, bindir, tmp_path):
    """One key a turn: keys, more sizes than a conn keeps behind its keys
    (READTURN_MARKS_MAX, 16) and keys. Past the cap what is kept is played
    at once, in order: the game has every key in order. Then keys and
    sizes kept when the daemon stops: played and freed, the daemon ends
    cleanly (no sanitizer report)."""
    s, seed, _ = raw_playing(daemon, "manysizes")
    sizes = b"".join(naws(100 + i, 30) for i in range(20))
    s.sendall(BEFORE.encode() + sizes + AFTER.encode())
    got = raw_stored_hook(daemon, s, "manysizes")
    assert got["seq"] == 1 + len(BEFORE + AFTER), got
    _, h = replay(bindir, tmp_path, seed, "manysizes", ("l" + BEFORE + AFTER).encode())
    assert got["hash"] == h
    s.sendall((BURST * 10).encode() + sizes[:len(sizes) // 2] + BURST.encode())
    daemon.stop_clean()


def ws_one_write(ws, *msgs):
    """Sends websocket messages (opcode, payload) in one write."""
    real, out = ws.s, []

    class Collect:
        def sendall(self, b):
            out.append(b)

    ws.s = Collect()
    try:
        for op, payload in msgs:
            ws.send_frame(op, payload)
    finally:
        ws.s = real
    real.sendall(b"".join(out))


def ws_frames(ws, quiet=1.0):
    """The binary messages (frames) ws is sent until it goes quiet."""
    frames = []
    ws.s.settimeout(quiet)
    while True:
        try:
            op, p = ws.recv()
        except (socket.timeout, TimeoutError, EOFError):
            return frames
        if op == 2:
            frames.append(p)


@pytest.mark.daemon(http=True, extra=["--test-read-budget", "1"])
def test_a_browsers_resize_after_kept_keys_is_drawn_after_them(daemon, bindir, tmp_path):
    """One key a turn: a browser's message of keys, a resize message and
    more keys in one packet. The resize waits behind the kept keys (the
    websocket's paused reading holds the rest of the packet; a resize
    handed on while keys are kept is a mark): its keyframe shows the game
    after all of them, and the game has every key, in order."""
    # a game's loop is its account's id modulo the loops (WARREN_LOOPS): the
    # account before puts this one's on home, the browser's own loop (on
    # another, a relay's resize redraws at once the frame home last had)
    for i in range(int(os.environ.get("WARREN_LOOPS") or 1) - 1):
        Web(daemon.http).register(f"webpad{i}", PW)
    r = Web(daemon.http).register("websizer", PW)
    ws = play_socket(daemon.http, r.session)
    assert daemon.wait_log(r"attach user=websizer game=\d+ conn=\d+ turn-seq=\d+ loop=(\d+)"
                           ).group(1) == "0"
    ws_frames(ws, 0.5)
    ws_one_write(ws, (2, BEFORE.encode()),
                 (1, json.dumps({"t": "resize", "w": 120, "h": 40}).encode()), (2, AFTER.encode()))
    drawn = b"".join(ws_frames(ws))
    got = ws_stored_hook(daemon, ws, "websizer")
    first = b"*" if got["seq"] == 1 + len(BEFORE + AFTER) else b""
    assert got["seq"] == len(first) + len(BEFORE + AFTER), got
    resize_ordered(bindir, tmp_path, got["seed"], "websizer", first, drawn, "100x30")
    _, h = replay(bindir, tmp_path, got["seed"], "websizer", first + (BEFORE + AFTER).encode(),
                  size="100x30")
    assert got["hash"] == h
    ws.close()


# ---- a peer that ends while its keys are kept -----------------------------------------

LONG = BURST * 10  # 300 keys: kept, played a key a turn, while the peer ends


def reset(sock):
    """Closes sock with a reset (RST), not an end (FIN)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def web_ends(daemon, name, how):
    """A browser in its game sends a message of LONG and, once the first
    key's frame shows the daemon has read it (the rest kept), ends (how:
    a reset, or a close frame); returns the keys the game had before. Its
    game is on home, the browser's own loop (the accounts before it, as in
    the resize test above: a relay's keys are not what this is about)."""
    for i in range(int(os.environ.get("WARREN_LOOPS") or 1) - 1):
        Web(daemon.http).register(f"{name}pad{i}", PW)
    r = Web(daemon.http).register(name, PW)
    ws = play_socket(daemon.http, r.session)
    assert daemon.wait_log(rf"attach user={name} game=\d+ conn=\d+ turn-seq=\d+ loop=(\d+)"
                           ).group(1) == "0"
    before = ws_stored_hook(daemon, ws, name)["seq"]
    ws_frames(ws, 0.3)
    ws.binary(LONG.encode())
    ws.until(lambda op, p: op == 2)
    if how == "reset":
        reset(ws.s)
        return before
    ws.send_frame(8, struct.pack(">H", 1000))
    assert ws.close_code(10) == 1000  # answered once the keys before it are played
    ws.close()
    return before


def telnet_ends(daemon, name, how):
    """web_ends for a raw telnet player (a reset)."""
    s, _, _ = raw_playing(daemon, name)
    before = raw_stored_hook(daemon, s, name)["seq"]
    quiet_read(s, 0.3)
    s.sendall(LONG.encode())
    s.settimeout(5)
    assert s.recv(1 << 16)
    reset(s)
    return before


@pytest.mark.parametrize("how,ends,tries", [("reset", web_ends, 8), ("close", web_ends, 4),
                                            ("reset", telnet_ends, 4)],
                         ids=["web-reset", "web-close-frame", "telnet-reset"])
@pytest.mark.daemon(http=True, extra=["--test-read-budget", "1", "--input-rate", "100000"])
def test_a_peer_gone_with_keys_kept_is_detached_at_once(daemon, how, ends, tries):
    """One key a turn: a player sends many keys and, while most are kept,
    ends its connection (a reset, or a close frame). Its game has every
    key, then is detached within moments (its grace starts, its watchers
    see it left), each time. A browser's reset made the next frame's
    write fail while its reading was paused: lws asks no WRITEABLE of a
    socket a write found dead and nothing read from it, so it stayed in
    its game until the 310 s hang-up sweep."""
    for i in range(tries):
        name = f"gone{how}{ends.__name__[0]}{i}"
        before = ends(daemon, name, how)
        m = daemon.wait_log(rf"detach user={name} game=\d+ seq=(\d+)", timeout=5)
        assert int(m.group(1)) == before + len(LONG), (name, m.group(1), before)
