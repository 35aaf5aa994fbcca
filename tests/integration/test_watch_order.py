"""A watcher's < and > go to the previous / next live game by player name
(strcmp's order, around the ends) on one loop and on two, where each loop
keeps its games in an index by name (server/core/byname.h): a game that
ends, one closed by a rename and one that comes back under the new name,
and one that starts are each seen at the next press; the watcher's own
game (left live, in its grace) is always passed over.

On two loops a game's loop is its account id modulo 2: kit (1), amy (3)
and bob (5) on loop 1; zed (2), max (4) and abe (6) on home's."""
import re
import time

import pytest

from harness import admin
from players import quit_game, started, watch


def moves(d):
    return re.findall(r"watch conn=\d+ user=(\w+)", d.log())


def press(d, w, key, name):
    """key moves w to name's game, and to no other."""
    before = len(moves(d))
    time.sleep(0.3)  # under the pace (4 a second)
    w.send(key)
    end = time.time() + 10
    while len(moves(d)) == before:
        assert time.time() < end, f"{key} moved nowhere: {w.text()}"
        time.sleep(0.05)
    w.pump(quiet=0.2)
    assert moves(d)[before:] == [name], (key, moves(d)[before:])


def players(d, clients, names):
    """Each of names playing a new game, in this order (their account ids)."""
    got = {}
    for name in names:
        got[name] = clients(d.port).connected()
        started(d, got[name], name)
    return got


@pytest.mark.parametrize("loops", [1, 2])
def test_moves_follow_games_that_start_end_and_go(bindir, start_daemon, clients, loops):
    d = start_daemon(extra=["--loops", str(loops)])
    w = clients(d.port).connected()
    started(d, w, "kit")  # the watcher's own game, left live
    w.send("S")
    w.wait_for("Your game is saved. Press p to continue it.")
    d.wait_log(r"detach user=kit")
    p = players(d, clients, ["zed", "amy", "max", "bob"])
    watch(d, w, "amy")
    press(d, w, ">", "bob")
    press(d, w, ">", "max")  # kit's is the watcher's own
    press(d, w, ">", "zed")
    press(d, w, ">", "amy")  # around the end
    press(d, w, "<", "zed")  # and back
    quit_game(p["max"])  # over: off the index
    d.wait_log(r"game end user=max ")
    press(d, w, "<", "bob")
    assert "renamed amy to ray" in admin(bindir, d, "rename", "amy", "ray")
    d.wait_log(r"admin: rename user=amy to=ray")
    press(d, w, "<", "zed")  # amy's game closed: bob is the first
    abe = clients(d.port).connected()
    started(d, abe, "abe")
    press(d, w, ">", "abe")
    p["amy"].login("ray")
    p["amy"].send("p")
    d.wait_log(r"game resume user=ray")
    press(d, w, "<", "zed")
    press(d, w, "<", "ray")  # the same game under its new name
    press(d, w, "<", "bob")
