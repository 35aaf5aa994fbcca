"""Keys typed while a game loads reach it: a key in the same packet as
the menu's p, or typed before the resumed game's first frame, is played
once the game is there, never dropped. Over Debian's telnet and a raw
socket, after S and after a dropped connection."""
import socket
import time

import pytest

from harness import PW, hook
from players import started


@pytest.mark.daemon(extra=["--grace", "1"])
def test_a_key_typed_with_p_reaches_the_saved_game(daemon, clients):
    """S saves; once its grace is over p loads the game from the database,
    and the key typed with p is played in it."""
    t = clients(daemon.port).connected()
    started(daemon, t, "pippin")
    t.play_keys("..")
    before = hook(daemon, t, "pippin")
    t.send("S")
    t.wait_for("Your game is saved. Press p to continue it.")
    daemon.wait_log(r"detach user=pippin")
    daemon.wait_log(r"grace over user=pippin game=\d+: saved and freed", timeout=15)
    t.send("p.", settle=False)  # p and a wait, typed at once
    daemon.wait_log(r"game resume user=pippin")
    daemon.wait_log(r"attach user=pippin")
    t.pump(quiet=0.5)
    after = hook(daemon, t, "pippin")
    assert after["seq"] == before["seq"] + 2, (before, after)  # S and the wait
    assert after["turn"] > before["turn"], (before, after)


@pytest.mark.daemon(extra=["--grace", "1"])
def test_keys_in_the_packet_of_p_reach_the_game_loaded_again(daemon, clients):
    """The dropped game's grace ends, so p loads it from the database: the
    keys sent with p arrive while it loads."""
    t = clients(daemon.port).connected()
    started(daemon, t, "merry")
    t.play_keys("..")
    before = hook(daemon, t, "merry")
    t.close()
    daemon.wait_log(r"detach user=merry")
    daemon.wait_log(r"grace over user=merry game=\d+: saved and freed", timeout=15)
    with socket.create_connection(("127.0.0.1", daemon.port)) as s:
        s.settimeout(10)
        time.sleep(0.3)
        s.sendall(b"l")
        time.sleep(0.2)
        s.sendall(b"merry\r")
        time.sleep(0.2)
        s.sendall(PW.encode() + b"\r")
        daemon.wait_log(r"login conn=\d+ ip=\S+ user=merry")
        time.sleep(0.3)
        s.sendall(b"p...")  # the choice and three waits in one packet
        daemon.wait_log(r"game resume user=merry")
        daemon.wait_log(r"attach user=merry")
        time.sleep(0.5)
        s.sendall(b"\x1b[24~")  # F12: the test hook
        m = daemon.wait_log(r"hook user=merry game=\d+ hash=[0-9a-f]+ seed=\d+ turn=(\d+) seq=(\d+)")
    assert int(m.group(2)) == before["seq"] + 3, (before, m.group(0))
