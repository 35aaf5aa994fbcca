"""What players meet around a game, over telnet against the real daemon
(screens read through the pyte terminal emulator): a taken name refused
before any password, the final screen of a game (score, cause, place on the
high scores, the address of its page), watching with a header of who, what
and how many, moving between live games from the watch view."""
import re

import pytest

from harness import PW, new_game

pytestmark = pytest.mark.daemon(extra=["--public-url", "https://warren.example/"])


def quit_game(t):
    t.send("Q")
    t.wait_for("Really quit?")
    t.send("y")


def test_taken_name_refused_before_password(daemon, clients):
    a = clients(daemon.port).connected()
    a.register("Holly", PW)
    b = clients(daemon.port).connected()
    b.send("r")
    b.wait_for("Name:")
    b.send("holly\r")
    screen = b.wait_for("That name is taken.")
    assert "Password" not in screen
    assert "Name:" in screen  # asked again, not sent back to the menu
    b.send("ivy\r")
    b.wait_for("Password:")


def test_final_screen_has_score_place_and_page(daemon, clients):
    t = clients(daemon.port).connected()
    gid, _ = new_game(daemon, t, "jade")
    t.wait_for("Choose a race.")
    t.send("l")
    t.wait_for("Welcome, jade the ")
    quit_game(t)
    screen = t.wait_for("Place on the high scores: #1.")
    assert "Your game is over." in screen
    assert "Game over: quit on level 1." in screen
    assert re.search(r"jade the \w+ \w+: score \d+ after \d+ turns, deepest level 1\.", screen)
    assert f"Its page: https://warren.example/game/{gid}" in screen
    t.send(" ")
    t.wait_for("Your choice")
    # a second, lower game ranks below: the place comes from the scores
    u = clients(daemon.port).connected()
    kid, _ = new_game(daemon, u, "kim")
    u.wait_for("Choose a race.")
    u.send("l")
    u.wait_for("Welcome, kim the ")
    quit_game(u)
    screen = u.wait_for("Place on the high scores: #")
    place = int(re.search(r"high scores: #(\d+)\.", screen).group(1))
    rows = daemon.db_rows("SELECT id FROM games WHERE state = 'finished' "
                          "ORDER BY score DESC, end_time, id")
    assert len(rows) == 2 and place == [r[0] for r in rows].index(kid) + 1
