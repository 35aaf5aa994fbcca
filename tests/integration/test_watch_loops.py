"""A telnet watcher moving between games on two loops (loops = 2, a
game's loop its account id modulo 2: quin's, account 1, on loop 1;
rhea's, account 2, on home's). The keys typed after < or > in the same
write go with it to the next game's loop and are played there in order,
as a player's keys after p are (conn.h's CONN_HELD_KEYS); one that moves
it on takes the rest along again. And the line saying whom it watches is
drawn after every move, below the game or on its bottom row."""
import re
import time

import pytest

from players import started, watch

pytestmark = pytest.mark.daemon(extra=["--loops", "2"])
HELP = "this help (any key closes it)"


def two_loops(d, clients):
    """quin playing on loop 1, rhea on loop 0."""
    a = clients(d.port).connected()
    started(d, a, "quin")
    b = clients(d.port).connected()
    started(d, b, "rhea")
    d.wait_logged(r"attach user=quin game=\d+ conn=\d+ turn-seq=\d+ loop=1")
    d.wait_logged(r"attach user=rhea game=\d+ conn=\d+ turn-seq=\d+ loop=0")
    return a, b


def moves(d):
    return re.findall(r"watch conn=\d+ user=(\w+)", d.log())


def footer(w, name):
    """Waits until the row below the game (24 rows of it) or the bottom
    row says w watches name; returns the screen."""
    row = min(24, w.rows - 1)
    end = time.time() + 10
    while True:
        w.pump(quiet=0.2)
        lines = w.lines()
        if lines[row].startswith(f"Watching {name}, game "):
            return lines
        assert time.time() < end, f"no footer for {name} on row {row}:\n" + "\n".join(lines)


@pytest.mark.parametrize("rows", [24, 26])
@pytest.mark.parametrize("start,other", [("quin", "rhea"), ("rhea", "quin")])
def test_keys_typed_after_a_move_reach_the_next_game(daemon, clients, rows, start, other):
    """> and ? in one write: the watcher goes to the other loop's game
    and the help opens there (from home the ? came on the way; from loop
    1, where home picks the next game, while it was picking), over that
    game; x closes it, the footer back."""
    d = daemon
    two_loops(d, clients)
    w = clients(d.port, rows=rows).connected()
    watch(d, w, start)
    footer(w, start)
    before = len(moves(d))
    w.type_now(">?")
    screen = w.wait_for(HELP)
    assert f"Watching {other}, game " in screen
    assert moves(d)[before:] == [other]
    w.send("x")
    assert HELP not in "\n".join(footer(w, other))


def test_keys_go_on_with_each_move_in_order(daemon, clients):
    """>, >, ? in one write from quin's game: to rhea's loop, back to
    quin's with the ? it carried, the help opened there; then every move
    of a burst redraws the footer."""
    d = daemon
    two_loops(d, clients)
    w = clients(d.port).connected()
    watch(d, w, "quin")
    footer(w, "quin")
    before = len(moves(d))
    w.type_now(">>?")
    screen = w.wait_for(HELP)
    assert "Watching quin, game " in screen
    assert moves(d)[before:] == ["rhea", "quin"]
    w.send("x")
    footer(w, "quin")
    for name in ["rhea", "quin", "rhea"]:
        time.sleep(0.3)  # under the pace (4 a second)
        w.type_now(">")
        footer(w, name)
