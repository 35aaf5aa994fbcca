"""Watching across nodes: two warrend daemons on one PostgreSQL schema
(WARREN_DB=pg only), each with a node-to-node stream (--peer-listen,
--peers). A watcher on node b sees, in b's watch list, the game a player
plays on node a, watches it through the stream (the rows a's player sees,
each change as it comes), and is sent back to b's menu, told, when the
game ends on a, or when its player takes the game over at b; b keeps
serving. Spectator chat crosses too: a line said at either node reaches
the game's viewers at both, once each, in the order said, a line said
while a node's listener is down included (read from the event log); and
the player's chat-off holds at the other node too, one turned while the
other was cut off longer than the event log keeps included. A game of a
whose mirror at b is placed past the bounded walk (more players at b
keyed since) is listed once, in its place by idle, on every page."""
import json
import re
import signal
import socket
import struct
import time

import pytest

from harness import ON_PG, WS, Daemon, Web, admin, free_port, pg_run
from nodeset import SECRET, Nodes
from players import load_players, quit_game
from test_nodes import listeners_down

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
CTRL_E = "\x05"


@pytest.fixture
def pair_of(bindir, tmp_path):
    """pair_of(a_extra=(), b_extra=()): nodes a and b on one schema, each
    naming the other's peer address (each started with its extra too)."""
    with Nodes(bindir, tmp_path) as nodes:
        yield lambda a_extra=(), b_extra=(): nodes.peers(
            ("a", "b"), more={"a": a_extra, "b": b_extra}, http=True)


@pytest.fixture
def pair(pair_of):
    return pair_of()


def game_rows(t):
    """The rows of the game map and messages (the last two rows are the
    status and, for a watcher, the line naming whom it watches)."""
    return [ln.rstrip() for ln in t.screen.display[:-2]]


def watch_from_list(t, name, timeout=15):
    """t, logged in at b's menu, opens the watch list until name's game is
    listed and picks it."""
    end = time.time() + timeout
    while True:
        t.send("w")
        text = t.wait_for("Live games")
        m = re.search(rf"^\s*([a-z])\) {name}\b", text, re.M)
        if m:
            t.send(m.group(1))
            return
        assert time.time() < end, f"{name} never listed:\n{text}"
        t.send("q")
        time.sleep(0.5)


def read_quiet(s, quiet):
    """What socket s sends until it closes or is quiet for quiet seconds."""
    s.settimeout(quiet)
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
    except socket.timeout:
        pass
    return got


def same_rows(player, watcher, timeout=10):
    """Waits until the watcher's game rows are the player's."""
    end = time.time() + timeout
    while game_rows(watcher) != game_rows(player):
        assert time.time() < end, ("rows differ:\n" + "\n".join(game_rows(player)) + "\n----\n"
                                   + "\n".join(game_rows(watcher)))
        watcher.pump(quiet=0.05, limit=0.3)
        player.pump(quiet=0.05, limit=0.3)


def test_watcher_on_b_sees_a_game_played_on_a(pair, clients):
    a, b = pair
    p = clients(a.port).connected()
    p.register("alice")
    p.random_character("alice")
    p.play_keys("hjkl")
    # b's lobby page lists the game, with its watch page
    end = time.time() + 10
    while "<td>alice</td>" not in (home := Web(b.http).request("GET", "/").body.decode()):
        assert time.time() < end, home
        time.sleep(0.3)
    assert 'href="/watch/alice/warren"' in home, home  # the same link as on a
    # a browser watching there gets the game's frames (binary: ANSI) through b
    ws = WS(b.http, "/ws/watch/alice/warren")
    ws.until(lambda op, p: op == 2 and b"alice" in p, timeout=10)
    ws.close()
    w = clients(b.port).connected()
    w.register("wanda")
    watch_from_list(w, "alice")
    b.wait_log(r"watch conn=\d+ user=alice game=\d+ watchers=1")
    a.wait_log(r"peer feed game=\d+ to=b nodes=1")
    same_rows(p, w)
    assert "alice" in w.text()
    # each key answered on a shows on b
    for key in "lhjk":
        before = game_rows(w)
        p.send(key)
        same_rows(p, w)
        if game_rows(w) != before:
            break
    else:
        raise AssertionError("no key changed the screen")
    # the game ends on a: the watcher on b is told and goes back to its menu
    quit_game(p)
    a.wait_log(r"game end user=alice")
    w.wait_for("That game is over", timeout=15)
    w.send(" ")
    w.wait_for("Your choice")
    # b serves on: its watch list soon no longer shows the game (its next
    # read of the other nodes' games)
    end = time.time() + 5
    while True:
        w.send("w")
        if "alice" not in w.wait_for("Live games"):
            break
        assert time.time() < end, w.text()
        w.send("q")
        time.sleep(0.3)
    # a new game on a, watched from b; alice logging in at b takes it over:
    # a's player is let go, b's watcher of the copy is told to pick it again
    w.send("q")
    p.pump(quiet=0.3)
    while "Your choice" not in p.text():  # the end's screens passed
        p.send(" ")
    p.random_character("alice")
    watch_from_list(w, "alice")
    a.wait_log(r"peer feed game=\d+ to=b nodes=1")
    left = game_rows(p)
    p2 = clients(b.port).connected()
    p2.login("alice")
    p2.send("p")
    p.wait_for("Your game moved to another connection")
    p2.wait_for("alice the ")
    end = time.time() + 10
    while game_rows(p2) != left:  # the game as a left it
        assert time.time() < end, "\n".join(left) + "\n----\n" + "\n".join(game_rows(p2))
        p2.pump(quiet=0.05, limit=0.3)
    w.wait_for("now runs on this server")
    b.wait_log(r"attach user=alice")
    assert b.alive() and a.alive()


def wl_row(t, name, want=lambda row: True, timeout=15):
    """The words of the watch list's row of name's game at t's menu, once
    it is listed and want(row) holds."""
    end = time.time() + timeout
    while True:
        t.send("w")
        text = t.wait_for("Live games")
        m = re.search(rf"^\s*[a-z]\) {name}\b.*$", text, re.M)
        t.send("q")
        t.wait_for("Your choice")
        if m and want(m.group(0).split()):
            return m.group(0).split()
        assert time.time() < end, f"{name}'s row never as wanted:\n{text}"
        time.sleep(0.3)


def admin_row(bindir, d, name):
    """The words of d's admin games row of name's game (NODE, TERM last)."""
    games = admin(bindir, d, "games")
    m = re.search(rf"^{name}\s.*$", games, re.M)
    assert m, games
    return m.group(0).split()


def test_a_detached_game_is_listed_on_other_nodes_as_on_its_own(pair, clients, bindir):
    """A player leaves a game at a, which keeps it for their return: b's
    watch list and admin list it as a's do, detached (it was taken off
    b's lists), and b watches it; played, b never calls it detached; the
    player back at a, b lists it played again."""
    a, b = pair
    p = clients(a.port).connected()
    p.register("dora")
    p.random_character("dora")
    va = clients(a.port).connected()
    va.register("vera")
    vb = clients(b.port).connected()
    vb.register("walt")
    assert wl_row(va, "dora")[-1] == "80x24"
    assert wl_row(vb, "dora")[-1] != "detached"
    left = game_rows(p)
    p.close()
    a.wait_log(r"detach user=dora ")
    wl_row(va, "dora", lambda r: r[-1] == "detached")
    wl_row(vb, "dora", lambda r: r[-1] == "detached")
    assert admin_row(bindir, a, "dora")[-2:] == ["a", "detached"]
    assert admin_row(bindir, b, "dora")[-2:] == ["a", "detached"]
    # watched from b, it shows the screen its player left
    watch_from_list(vb, "dora")
    a.wait_log(r"peer feed game=\d+ to=b nodes=1")
    end = time.time() + 10
    while game_rows(vb) != left:
        assert time.time() < end, "\n".join(left) + "\n----\n" + "\n".join(game_rows(vb))
        vb.pump(quiet=0.05, limit=0.3)
    assert vb.lines()[-1].startswith("Watching dora, who has left: the game waits."), vb.text()
    vb.send("q")
    vb.wait_for("Your choice")
    # back at a: played again on both
    p = clients(a.port).connected()
    p.login("dora")
    p.send("p")
    p.wait_for("dora the ")
    a.wait_log(r"attach user=dora")
    assert wl_row(vb, "dora", lambda r: r[-1] != "detached")[-1] == "80x24"
    assert wl_row(va, "dora")[-1] == "80x24"
    # b's watcher's bottom row says she plays (her node's heartbeat says so)
    watch_from_list(vb, "dora")
    vb.wait_for(re.compile(r"Watching dora, game \d+, depth \d+, 1 watching\."))
    assert a.alive() and b.alive()


# what a game's lobby entry says the same at every node at once (idle,
# turn, depth, race and class follow its node's heartbeat, so they may lag
# a moment elsewhere: SHOWN below waits for them; watchers count each
# node's own)
LOBBY_SAME = ("name", "game", "w", "h", "chat", "detached")


def lobby_game(d, name, want=lambda g: True, timeout=15):
    """name's entry in d's lobby JSON (a new /ws/lobby each try: a newcomer
    gets the list as it is), once it is listed and want(entry) holds."""
    end = time.time() + timeout
    while True:
        ws = WS(d.http, "/ws/lobby")
        try:
            lobby = ws.json_until(lambda m: m.get("t") == "lobby")
        finally:
            ws.close()
        g = next((g for g in lobby["games"] if g["name"] == name), None)
        if g and want(g):
            return {k: g.get(k) for k in LOBBY_SAME}
        assert time.time() < end, f"{name}'s entry never as wanted: {lobby}"
        time.sleep(0.3)


def lobby_row(d, name, timeout=15):
    """The cells of name's row in d's lobby page (the home page's table; the size
    next to last)."""
    end = time.time() + timeout
    while True:
        home = Web(d.http).request("GET", "/").body.decode()
        m = re.search(rf"<tr><td>{name}</td>.*?</tr>", home)
        if m:
            return re.findall(r"<td>(.*?)</td>", m.group(0))
        assert time.time() < end, home
        time.sleep(0.3)


def test_the_lobby_lists_another_nodes_game_as_its_own_node_does(pair, clients):
    """b's lobby (JSON and page) says of a game played on a what a's says:
    the player's terminal size once its frames reach b (a watcher there),
    not detached; its player gone, detached and no size, on both."""
    a, b, p, w = played_and_watched(pair, clients, "lena", "walt")
    same_rows(p, w)
    own = lobby_game(a, "lena")
    assert own["w"] == 80 and own["h"] == 24 and own["detached"] is False, own
    assert lobby_game(b, "lena", lambda g: g.get("w")) == own
    assert lobby_row(a, "lena")[-2] == lobby_row(b, "lena")[-2] == "80x24"
    p.close()
    a.wait_log(r"detach user=lena ")
    own = lobby_game(a, "lena", lambda g: g.get("detached"))
    assert own["w"] == own["h"] == 0, own
    assert lobby_game(b, "lena", lambda g: g.get("detached")) == own
    assert lobby_row(a, "lena")[-2] == lobby_row(b, "lena")[-2] == "detached"
    assert a.alive() and b.alive()


def lobby_entry(d, name):
    """name's entry in d's lobby JSON as it is now (a new /ws/lobby), or None."""
    ws = WS(d.http, "/ws/lobby")
    try:
        lobby = ws.json_until(lambda m: m.get("t") == "lobby")
    finally:
        ws.close()
    return next((g for g in lobby["games"] if g["name"] == name), None)


# what a game's lobby entry says of it alike at every node once its node's
# heartbeat said it (idle alike within a second: read at other moments)
SHOWN = ("race", "class", "depth", "turn", "w", "h", "detached")


def shown_alike(a, b, name, timeout=10):
    """Waits until b's lobby JSON says of name's game what a's says (SHOWN,
    and idle within a second); returns a's entry."""
    end = time.time() + timeout
    while True:
        own, there = lobby_entry(a, name), lobby_entry(b, name)
        if own and there and all(own[k] == there[k] for k in SHOWN) and \
                abs(own["idle"] - there["idle"]) <= 1:
            return own
        assert time.time() < end, f"at a: {own}\nat b: {there}"
        time.sleep(0.3)


def test_another_nodes_game_shows_what_its_node_shows_unwatched(pair, clients, bindir):
    """A game played at a, nobody watching it at b: b's lobby (JSON and
    page), watch list and admin games say its race, class, depth, turn,
    its player's terminal size and idle as a's do within a few seconds of
    each change (a's heartbeat says them), though a writes the game's row
    only at saves (every 200 turns, a new level, a detach) and sends b no
    frame of it."""
    a, b = pair
    p = clients(a.port, cols=100, rows=30).connected()
    p.register("tess")
    p.random_character("tess")
    v = clients(b.port).connected()
    v.register("vic")
    lobby_game(b, "tess")
    time.sleep(3)  # listed at b a while before the keys: its idle there is its own
    p.play_keys("s" * 6)  # turns pass; nothing is saved
    own = shown_alike(a, b, "tess")
    assert own["turn"] >= 6 and (own["w"], own["h"]) == (100, 30), own
    assert own["race"] and own["class"] and own["detached"] is False, own
    cells_a, cells_b = lobby_row(a, "tess"), lobby_row(b, "tess")
    # name, race, class, depth, turn, idle, watchers, size
    assert cells_b[1:5] == cells_a[1:5] and cells_b[7] == cells_a[7] == "100x30", (cells_a, cells_b)
    row_a = wl_row(v, "tess")  # b's watch list: letter, name, race, class, depth, turn, idle
    assert row_a[2:6] == [own["race"], own["class"], str(own["depth"]), str(own["turn"])], row_a
    assert row_a[-1] == "100x30", row_a
    adm_a, adm_b = admin_row(bindir, a, "tess"), admin_row(bindir, b, "tess")
    assert adm_b[3:5] == adm_a[3:5] and adm_b[-2:] == ["a", "100x30"], (adm_a, adm_b)
    assert abs(int(adm_a[5].rstrip("s")) - int(adm_b[5].rstrip("s"))) <= 1, (adm_a, adm_b)
    # the player's page at either node: the live game's turns as it is now
    for d in (a, b):
        st, page = Web(d.http).json("/api/player/tess")
        live = [g for g in page["games"] if g["state"] == "live"]
        assert st == 200 and len(live) == 1, page
        assert (live[0]["turns"], live[0]["depth"]) == (own["turn"], own["depth"]), (d.http, live)
        assert page["totals"]["turns"] == own["turn"], (d.http, page["totals"])
    # its player's terminal and turns change again: b follows, still unwatched
    p.resize(90, 28)
    p.play_keys("." * 4)
    own2 = shown_alike(a, b, "tess")
    assert own2["turn"] > own["turn"] and (own2["w"], own2["h"]) == (90, 28), own2
    assert wl_row(v, "tess", lambda r: r[-1] == "90x28")[2:6] == \
        [own2["race"], own2["class"], str(own2["depth"]), str(own2["turn"])]
    assert "peer feed" not in a.log()  # no frame of it went to b
    # its player waits: a's heartbeats say nothing new (b reads nothing)
    said = a.db_rows("SELECT games_at FROM nodes WHERE node = 'a'")
    assert said[0][0] > 0, said
    time.sleep(7)  # two heartbeats and more
    assert a.db_rows("SELECT games_at FROM nodes WHERE node = 'a'") == said
    assert a.alive() and b.alive()


def test_a_game_left_while_it_loads_is_listed_detached_on_other_nodes(pair, clients):
    """A player leaves their kept game at a, comes back and leaves again
    while a still takes its lease (held by a lock here): a keeps the game
    detached, its lease marked away as at any detach, so b lists it as
    detached (watch list and lobby), not as played."""
    import psycopg2
    from harness import pg_sql
    a, b = pair
    p = clients(a.port).connected()
    p.register("nell")
    p.random_character("nell")
    game = a.db_rows("SELECT g.id FROM games g JOIN users u ON u.id = g.user "
                     "WHERE u.name = 'nell' AND g.state = 'live'")[0][0]
    p.close()
    a.wait_log(r"detach user=nell ")
    vb = clients(b.port).connected()
    vb.register("vic")
    wl_row(vb, "nell", lambda r: r[-1] == "detached")
    lock = psycopg2.connect(a.db_url)  # a's take of the lease waits on this
    try:
        lock.cursor().execute(pg_sql("SELECT game FROM leases WHERE game = ? FOR UPDATE"), (game,))
        p = clients(a.port).connected()
        p.login("nell")
        p.send("p", settle=False)
        end = time.time() + 10
        while not a.db_rows("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            "AND query LIKE '%leases%'"):  # a's take waits
            assert time.time() < end, "a never took the lease"
            time.sleep(0.05)
        p.close()
        a.wait_log(r"disconnect conn=\d+ ip=\S+ user=nell ")
    finally:
        lock.commit()
        lock.close()
    end = time.time() + 10
    while (row := a.db_rows("SELECT node, away FROM leases WHERE game = ?", game)) != [("a", 1)]:
        assert time.time() < end, row
        time.sleep(0.1)
    assert wl_row(vb, "nell", lambda r: r[-1] == "detached")[-1] == "detached"
    assert lobby_game(b, "nell", lambda g: g.get("detached"))["detached"] is True
    # back again, with nothing held: played at a, and listed so at b
    p = clients(a.port).connected()
    p.login("nell")
    p.send("p")
    p.wait_for("nell the ")
    assert wl_row(vb, "nell", lambda r: r[-1] != "detached")[-1] != "detached"
    assert a.alive() and b.alive()


def test_watcher_leaving_stops_the_stream_and_a_lost_node_is_told(pair, clients):
    """The last watcher on b leaves: a stops sending the game (UNWATCH).
    Watched again, then a dies (SIGKILL): the watcher on b is told and
    back at b's menu, and b serves on."""
    a, b, p, w = played_and_watched(pair, clients, "bert", "willa")
    same_rows(p, w)
    w.send("q")
    w.wait_for("Your choice")
    a.wait_log(r"peer unfeed game=\d+ to=b")
    watch_from_list(w, "bert")
    a.wait_log(r"peer feed game=\d+ to=b nodes=1")
    p.send("s")
    same_rows(p, w)
    a.kill(signal.SIGKILL)
    w.wait_for("went away", timeout=15)
    w.send(" ")
    w.wait_for("Your choice")
    b.wait_log(r"peer link a \(127\.0\.0\.1\) closed")
    assert b.alive()


def chats(ws, quiet=1.5):
    """The chat messages (from, text, player) browser socket ws gets until
    it is quiet for quiet seconds."""
    got = []
    ws.s.settimeout(quiet)
    try:
        while True:
            op, p = ws.recv()
            if op == 1 and (m := json.loads(p))["t"] == "chat":
                got.append((m["from"], m["text"], m["player"]))
    except socket.timeout:
        return got


def say(t, line):
    """Telnet watcher t says line (':' opens the line)."""
    t.send(":")
    t.wait_for("Say:")
    t.send(line + "\r")


def test_chat_crosses_nodes_once_and_in_order(pair, clients, bindir):
    """Lines a watcher at b says of a game played at a reach the player
    at a and the browsers watching at a and at b, each once, in the order
    said; the player's answer reaches b's watchers; a watcher muted (at a:
    b hears of it) is refused at b and nothing of it reaches a."""
    a, b, p, w = played_and_watched(pair, clients, "gina", "hugo")
    web_a = WS(a.http, "/ws/watch/gina/warren")
    web_b = WS(b.http, "/ws/watch/gina/warren")
    a.wait_log(r"watch conn=\d+ user=gina game=\d+ watchers=1")
    b.wait_log(r"watch conn=\d+ user=gina game=\d+ watchers=2")
    for line in ("one", "two", "three"):
        say(w, line)
    p.wait_for("hugo: three")
    said = [("hugo", x, False) for x in ("one", "two", "three")]
    assert chats(web_a) == said  # at the game's node: once each, in order
    assert chats(web_b) == said  # at the node it was said: not again from a
    # the player answers: b's watchers read it, marked as the player's
    p.send(CTRL_E)
    p.wait_for("Say (Enter sends, Esc cancels):")
    p.send("hi hugo \u2713 100%\r")
    w.wait_for("gina: hi hugo \u2713 100%")
    assert chats(web_b) == [("gina", "hi hugo \u2713 100%", True)]
    assert chats(web_a) == [("gina", "hi hugo \u2713 100%", True)]
    # muted at a: b reads the mutes again and refuses hugo's line there
    assert "hugo may not chat" in admin(bindir, a, "mute", "hugo", "1h")
    b.wait_log(r"mutes read again after another node's change: 1")
    say(w, "let me talk")
    w.wait_for("muted by the administrator")
    assert chats(web_a) == [] and chats(web_b) == []
    assert "let me talk" not in p.text()


CTRL_T = "\x14"


def play_and_watch(clients, at, player, watch_at, watcher):
    """player, new, plays a new character at node at, and watcher, new,
    picks the game from node watch_at's watch list (both telnet): (the
    player's telnet, the watcher's)."""
    p = clients(at.port).connected()
    p.register(player)
    p.random_character(player)
    w = clients(watch_at.port).connected()
    w.register(watcher)
    watch_from_list(w, player)
    return p, w


def played_and_watched(pair, clients, player, watcher):
    """player plays at a, watcher watches at b (telnet), fed by a:
    (a, b, the player's telnet, the watcher's)."""
    a, b = pair
    p, w = play_and_watch(clients, a, player, b, watcher)
    a.wait_log(r"peer feed game=\d+ to=b nodes=1")
    return a, b, p, w


def watched_across(pair, clients, player, watcher):
    """played_and_watched, and a browser at b too: (a, b, the player's
    telnet, the watcher's, the browser)."""
    a, b, p, w = played_and_watched(pair, clients, player, watcher)
    web_b = WS(b.http, f"/ws/watch/{player}/warren")
    b.wait_log(rf"watch conn=\d+ user={player} game=\d+ watchers=2")
    return a, b, p, w, web_b


def test_a_chat_line_said_while_a_listener_is_down_reaches_it_once(pair, clients):
    """The player at a answers while b's listener is cut and cannot
    connect again: b reads the line from the event log, and its viewers
    get it once, even after b listens again and reads the log at once."""
    a, b, p, w, web_b = watched_across(pair, clients, "ines", "jack")
    with listeners_down(b):
        p.send(CTRL_E)
        p.wait_for("Say (Enter sends, Esc cancels):")
        p.send("said in the gap\r")
        got = web_b.json_until(lambda m: m["t"] == "chat", timeout=8)
        assert (got["from"], got["text"], got["player"]) == ("ines", "said in the gap", True)
    time.sleep(4)  # listening again: the log read at once, and again
    assert chats(web_b) == []  # not twice


def test_chat_off_at_the_players_node_holds_at_the_other(pair, clients):
    """The player at a turns chat off: b's copy of the game follows, so a
    watcher at b is refused there, as at a, and b's browsers get nothing;
    turned on again, b's watcher talks again."""
    a, b, p, w, web_b = watched_across(pair, clients, "kara", "liam")
    p.send(CTRL_T)
    p.wait_for("Chat hidden")
    p.send(CTRL_T)
    p.wait_for("Chat off")
    assert web_b.json_until(lambda m: m["t"] == "watchers" and m["chat"] is False)
    say(w, "anyone?")
    w.wait_for("The player turned chat off.")
    assert chats(web_b) == []
    p.pump(quiet=0.5)
    assert "anyone?" not in p.text()
    p.send(CTRL_T)
    p.wait_for("Chat on")
    assert web_b.json_until(lambda m: m["t"] == "watchers" and m["chat"] is True)
    say(w, "hello now")
    p.wait_for("liam: hello now")


def chat_turned_in_a_long_gap(a, b, p, turns):
    """b cut off (its listener down, then b stopped) while the player at a
    presses Ctrl-T until turns is shown, and the event log's rows go, as
    after two minutes: b can neither hear nor read what a said. (The rows
    are read and deleted on a connection made before the database takes
    no more.)"""
    import psycopg2
    db = psycopg2.connect(a.db_url)
    db.autocommit = True
    cur = db.cursor()
    try:
        cur.execute("DELETE FROM node_events")
        with listeners_down(b):
            b.proc.send_signal(signal.SIGSTOP)
            try:
                for shown in turns:
                    p.send(CTRL_T)
                    p.wait_for(shown)
                end = time.time() + 10  # the player's turn logged (not an answer to b)
                while not (cur.execute("SELECT count(*) FROM node_events WHERE payload LIKE "
                                       "'chatoff * %'") or cur.fetchone()[0]):
                    assert time.time() < end, "no chat-off logged"
                    time.sleep(0.05)
                cur.execute("DELETE FROM node_events")
            finally:
                b.proc.send_signal(signal.SIGCONT)
    finally:
        db.close()


def test_chat_off_turned_in_a_gap_longer_than_the_log_holds_at_the_other(pair, clients):
    """The player at a turns chat off while b is cut off longer than the
    event log keeps it: once b listens again it asks, a says again which of
    its games have chat off, and b's watcher is refused as at a; turned on
    in such a gap, b takes its copy's chat as on again, and the watcher
    talks."""
    a, b, p, w, web_b = watched_across(pair, clients, "mona", "nils")
    chat_turned_in_a_long_gap(a, b, p, ["Chat hidden", "Chat off"])
    assert web_b.json_until(lambda m: m["t"] == "watchers" and m["chat"] is False)
    say(w, "anyone?")
    w.wait_for("The player turned chat off.")
    assert chats(web_b) == []
    chat_turned_in_a_long_gap(a, b, p, ["Chat on"])
    assert web_b.json_until(lambda m: m["t"] == "watchers" and m["chat"] is True)
    say(w, "hello now")
    p.wait_for("nils: hello now")


def hello_from_stranger(a, secret, then=b""):
    """A HELLO (and then's bytes) to a's peer address from 127.0.0.2 (this
    machine too, but no address --peers names): what a answers."""
    port = int(re.search(r"peer stream listening on 127\.0\.0\.1:(\d+)", a.log()).group(1))
    s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
    body = bytes([1, len(secret)]) + secret + bytes([1]) + b"x"
    s.sendall(struct.pack(">I", len(body)) + body + then)
    got = read_quiet(s, 5)
    s.close()
    return got


def test_stranger_is_trusted_only_with_the_secret(pair):
    """From an address --peers does not name, a HELLO without the secret
    is closed unanswered; with it, a answers HELLO; a bad message after it
    closes the link (one of a type a does not know is skipped:
    test_peer_versions.py); a serves on."""
    a, _ = pair
    assert hello_from_stranger(a, b"wrong") == b""
    a.wait_log(r"peer link \? \(127\.0\.0\.2\).*neither a configured peer address")
    got = hello_from_stranger(a, SECRET.encode(), then=b"\0\0\0\0")
    assert got[4:5] == b"\x01" and b"a" in got, got  # HELLO naming node a
    a.wait_log(r"peer link x \(127\.0\.0\.2\): a message length out of range")
    assert a.alive()


def read_messages(data):
    """The stream's messages in data: (type, game, flags) each, SCREEN's
    flags else 0."""
    out, at = [], 0
    while at + 4 <= len(data):
        n = struct.unpack(">I", data[at:at + 4])[0]
        if at + 4 + n > len(data):
            break
        body = data[at + 4:at + 4 + n]
        game = struct.unpack(">q", body[1:9])[0] if body[0] != 1 else 0
        out.append((body[0], game, body[21 - 4] if body[0] == 4 else 0))
        at += 4 + n
    return out


def test_a_slow_node_gets_a_keyframe_later(bindir, tmp_path, clients):
    """A node that does not read: past --peer-queue bytes the game's
    changes to it stop (logged), memory stays bounded, and once it reads
    again it gets a whole screen (a keyframe) and the changes after it."""
    d = Daemon(bindir, tmp_path / "a", extra=["--node", "a", "--peer-listen", f"127.0.0.1:{free_port()}",
                                              "--peer-secret", SECRET, "--peer-queue", "65536"])
    d.start()
    try:
        p = clients(d.port).connected()
        p.register("cleo")
        p.random_character("cleo")
        game = int(re.search(r"game start user=cleo game=(\d+)", d.log()).group(1))
        port = int(re.search(r"peer stream listening on 127\.0\.0\.1:(\d+)", d.log()).group(1))
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: it fills
        s.connect(("127.0.0.1", port))
        hello = bytes([1, len(SECRET)]) + SECRET.encode() + bytes([4]) + b"slow"
        watch = bytes([2]) + struct.pack(">q", game)
        s.sendall(b"".join(struct.pack(">I", len(m)) + m for m in (hello, watch)))
        d.wait_log(rf"peer feed game={game} to=slow nodes=1")
        for _ in range(60):  # frames pile up while nobody reads
            p.play_keys("?\x1b")
            if re.search(rf"peer link slow: \d+ bytes queued, game={game} waits", d.unread()):
                break
        else:
            raise AssertionError("the queue never filled:\n" + d.log()[-2000:])
        p.play_keys("hl")
        got = read_quiet(s, 2)
        msgs = [m for m in read_messages(got) if m[0] == 4]
        assert msgs and msgs[0][2] & 1, msgs[:3]  # the first frame is a keyframe
        later_keys = [i for i, m in enumerate(msgs) if i and m[2] & 1]
        assert later_keys, "no keyframe after the queue drained"
        s.close()
        assert d.alive()
    finally:
        d.stop_clean()


def test_games_on_every_loop_are_watched_from_another_node(pair_of, clients):
    """a runs its games over two loops (an account's game on loop id % 2):
    from b, a game on either loop is watched, each change as it comes."""
    a, b = pair_of(a_extra=["--loops", "2"])
    players = []
    for name in ("ann", "abe", "amy"):  # consecutive ids: games on both loops
        p = clients(a.port).connected()
        p.register(name)
        p.random_character(name)
        players.append((name, p))
    w = clients(b.port).connected()
    w.register("wes")
    loops = {}
    for name, p in players:
        watch_from_list(w, name)
        same_rows(p, w)
        loops[a.wait_log(r"peer feed game=\d+ to=b nodes=1 loop=(\d)").group(1)] = (name, p)
        p.send("s")  # a turn passes: its change streams too
        p.pump(quiet=0.3)
        same_rows(p, w)
        assert "cannot be watched" not in w.text()
        w.send("q")
        w.wait_for("Your choice")
    assert set(loops) == {"0", "1"}, loops
    # the game on the second loop ends while watched: its watcher on b is told
    name, p = loops["1"]
    watch_from_list(w, name)
    same_rows(p, w)
    quit_game(p)
    a.wait_log(rf"game end user={name}")
    w.wait_for("That game is over", timeout=15)
    assert a.alive() and b.alive()



def idle_games_of(d, node, n):
    """n live games of accounts z1..zn whose leases node holds, its
    heartbeat good for an hour, written straight into d's database: a node
    that runs them and no key comes (nothing of them changes)."""
    now = "CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)"
    pg_run(d.db_url, [
        ("INSERT INTO users(name, name_key, pwhash, created) "
         "SELECT 'z' || i, 'z' || i, 'x', 0 FROM generate_series(1, ?) i", (n,)),
        ("INSERT INTO games(id, user, seed, content_version, start_time) "
         "SELECT 900000000 + id, id, 1, 'x', 0 FROM users WHERE name LIKE 'z%'", ()),
        (f"INSERT INTO nodes(node, expires) VALUES (?, {now} + 3600000)", (node,)),
        ("INSERT INTO leases(game, node) SELECT id, ? FROM games WHERE id >= 900000000", (node,)),
    ], fetch=False)


def list_stats(bindir, d):
    """(other nodes' games, listed here, list reads, rows read) from d's health."""
    m = re.search(r"^other nodes: (\d+) games \((\d+) listed here\); (\d+) list reads, (\d+) rows",
                  admin(bindir, d, "health"), re.M)
    assert m, admin(bindir, d, "health")
    return tuple(int(v) for v in m.groups())


def until_listed(bindir, d, n, timeout=20):
    end = time.time() + timeout
    while (st := list_stats(bindir, d))[0] != n:
        assert time.time() < end, st
        time.sleep(0.3)
    return st


def test_other_nodes_games_count_everywhere(pair_of, clients, bindir):
    """b mirrors at most 10 of other nodes' games (--peer-max-games): the
    1,000 node z runs and the one a runs all count in b's "playing now"
    (menu), its lobby's "more" (page and JSON); b's admin lists the games
    it mirrors, each marked with the node that runs it, and counts the rest;
    a counts b's too. A game its player left is not counted as played."""
    a, b = pair_of(b_extra=["--peer-max-games", "10"])
    p = clients(a.port).connected()
    p.register("gil")
    p.random_character("gil")
    idle_games_of(a, "z", 1000)
    w = clients(b.port).connected()
    end = time.time() + 20
    while "1001 playing now" not in w.text():
        assert time.time() < end, w.text()
        w.send("w")  # the menu drawn again after the watch list
        w.wait_for("Live games")
        w.send("q")
        w.wait_for("Your choice")
    until_listed(bindir, b, 1001)
    home = Web(b.http).request("GET", "/").body.decode()
    shown = home.count('href="/watch/')
    assert shown == 10 and f"and {1001 - shown} more games" in home, home
    ws = WS(b.http, "/ws/lobby")
    lobby = ws.json_until(lambda m: m.get("t") == "lobby")
    assert len(lobby["games"]) + lobby["more"] == 1001, lobby
    ws.close()
    games = admin(bindir, b, "games")
    rows = [ln.split() for ln in games.splitlines()[1:] if re.match(r"(z\d+|gil)\s", ln)]
    assert len(rows) == 10, games
    # z's games have no heartbeat of a node behind them: no size; gil's has
    # a's, whose heartbeat gives it (at once or within a beat)
    assert all(r[-2] == "z" and r[-1] == "-" for r in rows if r[0] != "gil"), games
    end = time.time() + 10
    while not re.search(r"^gil\s.*\sa\s+80x24$", games, re.M):
        assert time.time() < end, games
        time.sleep(0.3)
        games = admin(bindir, b, "games")
    assert "and 991 more on other nodes" in games, games
    # a counts z's games too, and lists gil's as its own
    until_listed(bindir, a, 1000)
    assert re.search(r"^gil\s.*\sa\s+80x24$", admin(bindir, a, "games"), re.M)
    # gil leaves his game (kept live for its grace period): nobody plays it,
    # so b's "playing now" leaves it out, and counts it again on his return
    for keys, want in (("\x18", "1000 playing now"), ("p", "1001 playing now")):
        p.send(keys)
        end = time.time() + 20
        while want not in w.text():
            assert time.time() < end, w.text()
            w.send("w")
            w.wait_for("Live games")
            w.send("q")
            w.wait_for("Your choice")


def test_idle_games_of_another_node_are_not_read_again(pair, bindir):
    """Node z holds 1,000 idle games: once b listed them, its list reads
    return only what changed (nothing) and one row checking that z still
    renews its leases, not every game each second. A game of z's that ends
    (its lease row goes) leaves b's list at the next read."""
    _, b = pair
    idle_games_of(b, "z", 1000)
    until_listed(bindir, b, 1000)
    _, _, reads0, rows0 = list_stats(bindir, b)
    time.sleep(5)
    _, _, reads1, rows1 = list_stats(bindir, b)
    reads, rows = reads1 - reads0, rows1 - rows0
    print(f"BENCH peer.list.idle_1000.rows_per_read {rows / max(reads, 1):.2f} "
          f"({rows} rows in {reads} reads)")
    assert reads >= 3 and rows <= 2 * reads, (reads, rows)
    gid = b.db_rows("SELECT min(game) FROM leases WHERE node = 'z'")[0][0]
    pg_run(b.db_url, [("UPDATE games SET state = 'finished' WHERE id = ?", (gid,)),
                      ("DELETE FROM leases WHERE game = ?", (gid,))], fetch=False)
    until_listed(bindir, b, 999, timeout=5)
    # z stops renewing: its heartbeat lapses and its games leave the list
    pg_run(b.db_url, [("UPDATE nodes SET expires = 0 WHERE node = 'z'", ())], fetch=False)
    until_listed(bindir, b, 0, timeout=5)
    b.wait_log(r"peer list: node z stopped renewing its leases")


LATE_N = 300  # players keying at b after a's game: more than peer.c's RECENCY_WALK


def idle_pages(t):
    """Every row of t's watch list (open at page 1, sorted by idle), page
    by page: the names in the order shown."""
    names = []
    while True:
        text = t.text()
        m = re.search(r"sorted by idle, page (\d+)/(\d+)", text)
        names += re.findall(r"^\s*[a-z]\) (\S+)", text, re.M)
        if m.group(1) == m.group(2):
            return names
        t.send(">", settle=False)
        t.wait_for(f"sorted by idle, page {int(m.group(1)) + 1}/", timeout=5)


def test_a_mirror_placed_past_the_walk_is_listed_once_in_its_place(pair_of, clients, bindir):
    """b (one loop, one mirror at most) mirrors bob's game of a. alice
    keys at a; then LATE_N players key at b and leave. bob's game ends, so
    alice's game gets b's mirror only now: placed among the latest keyed
    past the bounded walk. b's watch list by idle, paged through, lists
    every game once, alice's last (every other keyed after it), the pages
    answered at once."""
    a, b = pair_of(b_extra=["--loops", "1", "--peer-max-games", "1",
                            "--max-per-ip", str(LATE_N + 20), "--test-lists"])
    bob = clients(a.port).connected()
    bob.register("bob")
    bob.random_character("bob")
    bob.play_keys("hj")
    viewer = clients(b.port).connected()
    viewer.register("vera")
    wl_row(viewer, "bob")
    alice = clients(a.port).connected()
    alice.register("alice")
    alice.random_character("alice")
    alice.play_keys("hjkl")
    time.sleep(1)  # the players at b key later than alice's last key, by far
    load_players(bindir, b, LATE_N)
    quit_game(bob)
    wl_row(viewer, "alice", timeout=30)  # bob's mirror gone, alice's made
    viewer.send("w")
    viewer.wait_for("sorted by player")
    for order in ("depth", "turn", "idle"):
        viewer.send(".", settle=False)
        viewer.wait_for(f"sorted by {order}, page 1/", timeout=5)
    names = idle_pages(viewer)
    twice = sorted({n for n in names if names.count(n) > 1})
    assert len(names) == LATE_N + 1 and not twice, (len(names), twice, names[-20:])
    assert names[-1] == "alice", names[-20:]
    assert "watch list differs" not in b.log()
    assert b.alive() and a.alive()


def peer_port(d):
    return int(re.search(r"peer stream listening on 127\.0\.0\.1:(\d+)", d.log()).group(1))


def rss_kb(d):
    with open(f"/proc/{d.proc.pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def stranger(port, length, body, source="127.0.0.1"):
    """A connection to a peer port announcing a message of length and
    sending body (all or what goes before the node closes it)."""
    s = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    s.settimeout(3)
    try:
        s.sendall(struct.pack(">I", length) + body)
    except OSError:
        pass
    return s


def is_open(s):
    s.settimeout(0)
    try:
        return s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def closes(s, timeout):
    """Whether the node closes s within timeout seconds, sending nothing."""
    s.settimeout(timeout)
    try:
        return s.recv(4096) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
    finally:
        s.close()


def test_strangers_before_hello_cost_little_and_lock_no_node_out(pair, clients):
    """Strangers (here even from an address --peers names) holding many
    links before a HELLO: one announcing a message bigger than a HELLO is
    closed at once, unread, so the node's memory stays small; those
    waiting have a few places of their own (the oldest goes for a new
    one) and are closed after the HELLO deadline; a real node links and
    streams a watched game while they are connected."""
    a, b = pair
    p = clients(a.port).connected()
    p.register("alice")
    p.random_character("alice")
    w = clients(b.port).connected()
    w.register("wanda")
    end = time.time() + 10
    while "<td>alice</td>" not in Web(b.http).request("GET", "/").body.decode():
        assert time.time() < end
        time.sleep(0.3)
    port, base = peer_port(a), rss_kb(a)
    big = [stranger(port, 1049000, b"\0" * 600_000) for _ in range(64)]
    t0 = time.time()
    slow = [stranger(port, 100, b"\1" * 50) for _ in range(64)]
    time.sleep(0.5)
    grown = rss_kb(a) - base
    assert grown < 8_000, f"{grown} kB more for strangers"
    assert not any(is_open(s) for s in big)
    a.wait_log(r"peer link \? \(127\.0\.0\.1\): a first message longer than a HELLO")
    watch_from_list(w, "alice")
    a.wait_log(r"peer link b \(127\.0\.0\.1\) ready")
    waiting = sum(is_open(s) for s in slow)
    assert 0 < waiting <= 16, (waiting, time.time() - t0)  # still there as b linked
    same_rows(p, w)
    for s in slow:  # all closed after the deadline
        assert closes(s, max(0.1, t0 + 12 - time.time()))
    log = a.log()
    assert "(127.0.0.1): no HELLO in time" in log
    assert "(127.0.0.1): too many links waiting for a HELLO: the oldest goes" in log
    # a flood of strangers costs the log a line of each kind, not one each
    assert log.count("a first message longer than a HELLO") == 1, log
    for s in big:
        s.close()
    p.send("l")
    same_rows(p, w)  # the stream goes on
    assert a.alive() and b.alive()


def test_without_a_secret_only_peers_addresses_are_accepted(bindir, tmp_path):
    """With peers named by address and no --peer-secret, a link from
    another address is closed as it is accepted, and one from a named
    address that announces more than a HELLO is closed at once."""
    d = Daemon(bindir, tmp_path / "a", extra=["--node", "a", "--peer-listen", f"127.0.0.1:{free_port()}",
                                              "--peers", f"b=127.0.0.1:{free_port()}"])
    d.start()
    try:
        s = stranger(peer_port(d), 10, b"", source="127.0.0.2")
        assert closes(s, 5)
        d.wait_log(r"peer link \? \(127\.0\.0\.2\): refused: not an address peers names")
        s = stranger(peer_port(d), 1049000, b"\0" * 1000)
        assert closes(s, 5)
        d.wait_log(r"peer link \? \(127\.0\.0\.1\): a first message longer than a HELLO")
        assert d.alive()
    finally:
        d.stop_clean()
