"""The telnet watch list's letters keep their games while a viewer looks
at the list (server/screens/wlist.h, wl_view_t): a game that starts takes
a free letter below the others, one that ends keeps its letter marked, so
the letter typed watches the game the viewer saw under it even when the
list changed between the screen it read and its key. Each test types its
letter right after such a change, before the next screen could reach it."""
import re
import time

import pytest

from harness import PW
from players import load_players, quit_game, started

ROW = re.compile(r"^\s+([a-pr-z])\) (\S+)(.*)$")


def rows(t):
    """(letter, name, live) of each row of the watch list t shows."""
    return [(m.group(1), m.group(2), "(game over)" not in m.group(3))
            for ln in t.lines() if (m := ROW.match(ln))]


def wait_rows(t, want, timeout=15):
    """Until t's watch list shows exactly the rows want (see rows)."""
    end = time.time() + timeout
    while rows(t) != want:
        assert time.time() < end, f"watch list {rows(t)} != {want}:\n{t.text()}"
        t.pump(quiet=0.1, limit=0.5)


def watched(d):
    """The player whose game a viewer watches next (the daemon's log)."""
    return d.wait_log(r"watch conn=\d+ user=(\w+) ").group(1)


def nobody_watched(d, t):
    """t's key watched no game: a second later t is still on the list."""
    t.pump(quiet=1, limit=2)
    assert "Live games" in t.text(), t.text()
    assert "watch conn=" not in d.unread(), d.unread()


def test_a_game_started_above_leaves_every_letter_to_its_game(daemon, clients):
    d = daemon
    started(d, clients(d.port).connected(), "carl")
    w = clients(d.port).connected()
    w.send("w")
    wait_rows(w, [("a", "carl", True)])
    started(d, clients(d.port).connected(), "abe")  # before carl by name
    w.type_now("a")  # the letter w saw carl under
    assert watched(d) == "carl"
    w.send("q")
    w.wait_for("Your choice")
    # opened anew: in the list's order; a game that starts now comes last
    w.send("w")
    wait_rows(w, [("a", "abe", True), ("b", "carl", True)])
    started(d, clients(d.port).connected(), "aaron")
    wait_rows(w, [("a", "abe", True), ("b", "carl", True), ("c", "aaron", True)])
    w.type_now("c")
    assert watched(d) == "aaron"


def test_an_ended_game_keeps_its_letter_then_gives_it_up(daemon, clients):
    d = daemon
    players = {}
    for name in ("abe", "bob", "cid"):
        players[name] = clients(d.port).connected()
        started(d, players[name], name)
    w = clients(d.port).connected()
    w.send("w")
    wait_rows(w, [("a", "abe", True), ("b", "bob", True), ("c", "cid", True)])
    quit_game(players["bob"])
    d.wait_log(r"game end user=bob")
    w.type_now("b")  # bob's letter, not cid's
    nobody_watched(d, w)
    wait_rows(w, [("a", "abe", True), ("b", "bob", False), ("c", "cid", True)])
    # a while later (wlist.h's WL_GONE_KEEP_MS) a new game may take it
    time.sleep(10)
    players["dan"] = clients(d.port).connected()
    started(d, players["dan"], "dan")
    wait_rows(w, [("a", "abe", True), ("b", "dan", True), ("c", "cid", True)])
    w.type_now("b")
    assert watched(d) == "dan"
    w.send("q")
    w.wait_for("Your choice")
    w.send("w")
    wait_rows(w, [("a", "abe", True), ("b", "cid", True), ("c", "dan", True)])
    # the last letter's game ends: marked, then the letter is freed
    quit_game(players["dan"])
    wait_rows(w, [("a", "abe", True), ("b", "cid", True), ("c", "dan", False)])
    wait_rows(w, [("a", "abe", True), ("b", "cid", True)], timeout=20)


def test_letters_of_a_later_page_keep_their_games(daemon, clients, bindir):
    d = daemon
    load_players(bindir, d, 16)  # their names sort before a lower case one past "ld"
    w = clients(d.port).connected()
    w.send("w")
    w.wait_for("16 games, sorted by player, page 1/2")
    assert len(rows(w)) == 15, w.text()
    w.send(">")
    w.wait_for("page 2/2")
    ((letter, last, live),) = rows(w)
    assert (letter, live) == ("a", True), w.text()
    started(d, clients(d.port).connected(), "abe")  # first by name: page 1
    w.type_now("a")
    assert watched(d) == last
    w.send("q")
    w.wait_for("Your choice")
    # page 2 laid anew (the page w was on): now the last two by name
    w.send("w")
    w.wait_for("17 games, sorted by player, page 1/2")
    assert rows(w)[0][1] == "abe", w.text()
    w.send(">")
    w.wait_for("page 2/2")
    assert [r[1] for r in rows(w)][-1] == last, w.text()
    w.send("<")
    w.wait_for("page 1/2")
    assert len(rows(w)) == 15 and rows(w)[0][1] == "abe", w.text()


@pytest.mark.daemon(extra=["--test-lists", "--test-change-log", "0"])
def test_games_new_to_a_rebuilt_list_take_letters_in_the_order_they_started(daemon, clients):
    """Every change log lost (--test-change-log 0), so each sync rebuilds
    the list from the games: those that started since the last one take
    the free letters in the order they started, as the changes would have
    placed them, not in the order the rebuild met them (newest first)."""
    d = daemon
    w = clients(d.port).connected()
    w.send("w")
    w.wait_for("Nobody is playing right now.")
    names = ["dora", "cleo", "bert", "ann"]  # by name: the other way round
    ts = [clients(d.port).connected() for _ in names]
    for t, n in zip(ts, names):
        t.register(n, PW)
    for t, n in zip(ts, names):  # one after another, quickly
        t.send("p")
        d.wait_log(rf"game start user={n} game=")
    wait_rows(w, [(chr(ord("a") + i), n, True) for i, n in enumerate(names)])
