"""Hosted games across nodes: two warrend daemons on one PostgreSQL schema
(WARREN_DB=pg only), each with a node-to-node stream. A hosted game
(tests/tools/ptytoy's keys mode under a pty) a player starts on node a is
listed on node b's telnet watch list and lobby (HTML and JSON) with its
name and player; a telnet watcher on b whose terminal is below the
section's min-size is told the size the game needs, as on a; at that size
it watches the game through the stream, each key the player types on a
showing on b; and when the game ends on a, b's watcher is told and b's
lists drop it. Hosted games' ids come from the database, so the two nodes'
never clash."""
import re
import time

import pytest

from harness import ON_PG, WS, Web, unique_name
from nodeset import Nodes
from test_hosted import open_to_games, toy_copy
from test_watch_nodes import watch_from_list, wl_row

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
TOLD = "This game needs a terminal of at least 90x26; yours is 80x24."


@pytest.fixture
def pair(bindir, tmp_path):
    """Nodes a and b on one schema, naming each other's peer address, both
    with the section [game keys] (min-size 90x26)."""
    open_to_games(tmp_path)
    toy = toy_copy(bindir, tmp_path)
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game keys]\nname = Key Toy\ncommand = {toy} keys\nmin-size = 90x26\n"
                    "hangup-timeout = 1\n")
    with Nodes(bindir, tmp_path) as nodes:
        yield nodes.peers(("a", "b"), "--config", conf, http=True)


def lobby_game(d, name, timeout=15):
    """The lobby's JSON entry of name's game at d, once it is listed."""
    end = time.time() + timeout
    while True:
        ws = WS(d.http, "/ws/lobby")
        lobby = ws.json_until(lambda m: m["t"] == "lobby")
        ws.close()
        game = next((g for g in lobby["games"] if g["name"] == name), None)
        if game:
            return game
        assert time.time() < end, lobby
        time.sleep(0.3)


def start_keys(clients, d, name):
    """name plays the keys game on d, in a terminal of its min-size or more."""
    p = clients(d.port, cols=100, rows=30)
    p.register(name)
    p.send("1")
    p.wait_for("keys ready")
    return p


def test_a_hosted_game_on_a_is_listed_and_watched_on_b(pair, clients):
    a, b = pair
    name = unique_name("hx")
    p = start_keys(clients, a, name)
    # b's lobby: JSON and HTML
    g = lobby_game(b, name)
    assert g["game"] == "keys", g
    _, page = Web(b.http).html("/")
    row = next(r for r in re.findall(r"<tr><td>(.*?)</tr>", page, re.S) if r.startswith(name))
    assert "Key Toy" in row and f'href="/watch/{name}/keys"' in row, row
    # b's telnet watch list names it, by its section's name
    w = clients(b.port)
    w.register(unique_name("hw"))
    assert " ".join(wl_row(w, name)[2:4]) == "Key Toy", wl_row(w, name)
    watch_from_list(w, name)
    # below the section's min-size: told, as on the game's own node
    w.wait_for(TOLD)
    w.resize(100, 30)
    w.wait_for("keys ready")
    a.wait_log(r"peer feed game=-\d+ to=b nodes=1")
    # each key typed on a shows on b, through the stream
    for key, hexed in (("x", "78"), ("y", "79")):
        p.send(key)
        p.wait_for(f"got 1: {hexed}")
        w.wait_for(f"got 1: {hexed}")
    # the game ends on a: b's watcher is told, and b's lists drop it
    p.send("q")
    w.wait_for("over", timeout=15)
    end = time.time() + 15
    while True:
        ws = WS(b.http, "/ws/lobby")
        lobby = ws.json_until(lambda m: m["t"] == "lobby")
        ws.close()
        if all(x["name"] != name for x in lobby["games"]):
            break
        assert time.time() < end, lobby
        time.sleep(0.3)
    assert a.alive() and b.alive()


def test_hosted_games_on_two_nodes_have_ids_of_their_own(pair, clients):
    """A hosted game on each node at once: each listed on the other node as
    its own player's, each watched from the other node as its own game
    (ids from the database: a per-node count would give both -1)."""
    a, b = pair
    na, nb = unique_name("ha"), unique_name("hb")
    pa = start_keys(clients, a, na)
    pb = start_keys(clients, b, nb)
    for d, other, p in ((a, nb, pb), (b, na, pa)):
        assert lobby_game(d, other)["game"] == "keys"
        w = clients(d.port, cols=100, rows=30)
        w.register(unique_name("hv"))
        watch_from_list(w, other)
        w.wait_for("keys ready")
        p.send("z")
        p.wait_for("got 1: 7a")
        w.wait_for("got 1: 7a")
        w.send("?")  # the help says whom it watches
        assert other in w.wait_for("stop watching"), w.text()
