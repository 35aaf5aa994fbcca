"""A loop turn's share of input (readturn.h) and a conn on its way to
another loop (loops = 2): the keys that come in the same read after the
key that sends it (the menu's p to its game's loop, Ctrl-X home) are held
and go with it, never kept on the loop it leaves, whose later turns would
play them into a conn the other loop's thread has (the daemon aborted in
libuv). One key a turn, so every key after the first of a read is past
the turn's share."""
import json
import socket
import time

import pytest

from harness import CTRL_X, F12, PW, Web, login_then, new_game, play_socket, raw_read
from test_read_budget import ws_frames, ws_one_write

MOVES = ["--test-read-budget", "1", "--input-rate", "100000", "--loops", "2"]


@pytest.mark.daemon(extra=MOVES)
def test_keys_typed_with_the_play_key_go_with_the_conn(daemon, clients):
    """p and 900 keys in one packet: the conn goes to loop 1 (account 1's)
    with the first 32 held for its game (conn.h's CONN_HELD_KEYS), the
    rest dropped; the game gets those 32, and the daemon stops cleanly."""
    t = clients(daemon.port).connected()
    t.register("mover", PW)
    with login_then(daemon.port, "mover") as s:
        raw_read(s, 5, b"Logged in as mover")
        s.sendall(b"p" + b"l" + b"." * 900)  # one read: p moves it, the rest follow
        daemon.wait_log(r"attach user=mover game=\d+ conn=\d+ turn-seq=\d+ loop=1")
        time.sleep(0.5)
        s.sendall(F12.encode())
        m = daemon.wait_log(r"hook user=mover game=\d+ hash=[0-9a-f]+ seed=\d+ turn=\d+ seq=(\d+)")
        assert int(m.group(1)) == 32, m.group(0)
    daemon.stop_clean()


@pytest.mark.daemon(extra=MOVES)
def test_keys_typed_with_the_leave_key_go_with_the_conn(daemon, clients):
    """Ctrl-X and 600 keys in one packet on loop 1: the conn goes home,
    the keys after Ctrl-X none of the game's (it detaches at the race
    choice's key), and the daemon stops cleanly."""
    t = clients(daemon.port).connected()
    new_game(daemon, t, "leaver")  # account 1: its game on loop 1
    t.wait_for("Choose a race.")
    t.send("l")
    t.wait_for("Welcome, leaver the ")
    t.type_now(CTRL_X + "." * 600)
    m = daemon.wait_log(r"detach user=leaver game=\d+ seq=(\d+)")
    assert m.group(1) == "1", m.group(0)
    daemon.wait_log(r"handed conn=\d+ user=leaver loop=0")
    time.sleep(0.5)
    t.send("x", settle=False)
    t.wait_for("Your choice")
    daemon.stop_clean()


BURST = b"hjklyubn.." * 6


def drain(s, seconds=10):
    """Reads s until the daemon closes it (so closing it sends no reset,
    which would drop unread keys in the daemon's kernel)."""
    s.settimeout(seconds)
    end = time.time() + seconds
    while time.time() < end:
        try:
            if not s.recv(1 << 20):
                return
        except socket.timeout:
            return


@pytest.mark.daemon(extra=MOVES)
def test_keys_kept_on_the_games_loop_are_played_before_it_leaves(daemon, clients):
    """Account 1's game runs on loop 1 behind a telnet conn of loop 0: 60
    keys and an end in one packet. Loop 1 keeps all but one of them for
    later turns; the player's leaving, posted after, waits behind them, so
    the game gets every key (it threw the kept ones away)."""
    t = clients(daemon.port).connected()
    t.register("stayer", PW)
    t.close()
    with login_then(daemon.port, "stayer") as s:
        raw_read(s, 5, b"Logged in as stayer")
        s.sendall(b"p")
        daemon.wait_log(r"attach user=stayer game=\d+ conn=\d+ turn-seq=\d+ loop=1")
        raw_read(s, 5, b"Choose a race.")
        s.sendall(b"l")
        raw_read(s, 5, b"Welcome, stayer the ")
        s.sendall(BURST)
        s.shutdown(socket.SHUT_WR)
        drain(s)
    m = daemon.wait_log(r"detach user=stayer game=\d+ seq=(\d+)")
    assert int(m.group(1)) == 1 + len(BURST), m.group(0)
    daemon.stop_clean()


@pytest.mark.daemon(extra=MOVES, http=True)
def test_a_browsers_keys_kept_on_the_games_loop_are_played_before_it_leaves(daemon):
    """The same through a websocket: a 61-key message, then the end."""
    r = Web(daemon.http).register("webstayer", PW)
    ws = play_socket(daemon.http, r.session)  # its first key: the character
    daemon.wait_log(r"attach user=webstayer game=\d+ conn=\d+ turn-seq=\d+ loop=1")
    time.sleep(0.5)
    ws.binary(b"*" + BURST)
    ws.s.shutdown(socket.SHUT_WR)
    drain(ws.s)
    m = daemon.wait_log(r"detach user=webstayer game=\d+ seq=(\d+)")
    assert int(m.group(1)) == 2 + len(BURST), m.group(0)
    daemon.stop_clean()




@pytest.mark.daemon(extra=MOVES, http=True)
def test_a_browsers_chat_toggle_after_kept_keys_comes_after_them(daemon):
    """A browser plays on another loop than its own (account 1's game on
    loop 1, the page's socket on loop 0: a relay): 30 rests, the test
    hook's key and chat turned off, in one write. Loop 1 keeps all but
    the first rest for later turns; turning chat off, posted after them,
    waits behind them: it is logged after the hook's line, which names
    every key (made at once, it came first)."""
    r = Web(daemon.http).register("chatter", PW)
    ws = play_socket(daemon.http, r.session)
    daemon.wait_log(r"attach user=chatter game=\d+ conn=\d+ turn-seq=\d+ loop=1")
    ws_frames(ws, 0.5)
    rests = b"." * 30
    ws_one_write(ws, (2, rests + F12.encode()),
                 (1, json.dumps({"t": "chat_off", "off": True}).encode()))
    off = daemon.wait_log(r"chat user=chatter game=\d+ off")
    hook = daemon.wait_logged(r"hook user=chatter game=\d+ hash=[0-9a-f]+ seed=\d+ turn=\d+ "
                              r"seq=(\d+)")
    assert int(hook.group(1)) >= len(rests), hook.group(0)
    log = daemon.log()
    assert log.index(hook.group(0)) < log.index(off.group(0)), log[-3000:]
    ws.close()
    daemon.stop_clean()
