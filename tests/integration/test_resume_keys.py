"""Keys typed while a game loads reach it: a key in the same packet as
the menu's p, or typed before the resumed game's first frame, is played
once the game is there, never dropped. Over Debian's telnet and a raw
socket, after S and after a dropped connection."""
import time

import pytest

from harness import hook, login_then, raw_hook
from players import left_to_its_grace, started


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
    before = left_to_its_grace(daemon, clients(daemon.port).connected(), "merry")
    with login_then(daemon.port, "merry") as s:
        daemon.wait_log(r"login conn=\d+ ip=\S+ user=merry\n")  # not the registration's
        time.sleep(0.3)
        s.sendall(b"p...")  # the choice and three waits in one packet
        daemon.wait_log(r"game resume user=merry")
        daemon.wait_log(r"attach user=merry")
        after = raw_hook(daemon, s, "merry")
    assert after["seq"] == before["seq"] + 3, (before, after)
