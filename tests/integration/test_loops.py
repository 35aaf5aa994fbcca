"""`loops = 2` against the real daemon: Warren's games spread over two
loops (an account's game on loop user_id % 2: the first account registered
is on loop 1, the second on loop 0), played, watched, chatted to and taken
over from terminals that all stay on loop 0, then recovered loop by loop
after a SIGKILL. `WARREN_LOOPS=2 make test-loops` runs every other suite
the same way."""
import json
import re
import time

import pytest

from harness import PW, WS, hook, new_game, play_socket
from test_community import watch
from test_web_daemon import register

pytestmark = pytest.mark.daemon(http=True, extra=["--loops", "2"])
CTRL_X = "\x18"


def begin(d, t, name):
    """Registers name on t, starts a character; returns the loop its game is on."""
    new_game(d, t, name)
    t.wait_for("Choose a race.")
    t.send("l")
    t.wait_for(f"Welcome, {name} the ")
    m = re.findall(rf"attach user={name} game=\d+ conn=\d+ turn-seq=\d+ loop=(\d+)", d.log())
    return int(m[-1])


def map_rows(t):
    return t.screen.display[1:21]


def converge(a, b, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        a.pump(quiet=0.05, limit=0.5)
        b.pump(quiet=0.05, limit=0.5)
        if map_rows(a) == map_rows(b):
            return True
    return False


def test_games_on_both_loops_watched_taken_over_and_recovered(daemon, clients):
    d = daemon
    assert "loops: 2" in d.log()
    a = clients(d.port).connected()
    assert begin(d, a, "ann") == 1
    b = clients(d.port).connected()
    assert begin(d, b, "ben") == 0
    a.play_keys("lljj")
    b.play_keys("hhkk")
    # ben leaves his game and watches ann's, on the other loop
    b.send(CTRL_X)
    b.wait_for("Your choice")
    b.send("w")
    listed = b.wait_for("ann")
    assert "ben" in listed  # both loops' games are on the list
    b.send("q")
    watch(d, b, "ann")
    b.wait_for("[1 watching]")
    a.play_keys("lk")
    assert converge(a, b), f"{a.text()}\n---\n{b.text()}"
    # a chat line from the watcher reaches the player's screen
    b.send(":")
    b.send("hello from loop zero\r")
    a.wait_for("hello from loop zero")
    b.send("q")
    b.wait_for("Your choice")
    # a third account moves between the two loops' games with > (by name)
    e = clients(d.port).connected()
    e.register("dee", PW)
    watch(d, e, "ann")
    n = len(re.findall(r"watch conn=\d+ user=ben ", d.log()))
    e.send(">")
    d.wait_log(rf"watch conn=\d+ user=ben ")
    e.wait_for("ben the ")
    e.send(">")  # around the end: back to ann, on loop 1
    end = time.time() + 10
    while len(re.findall(r"watch conn=\d+ user=ann ", d.log())) < 3 and time.time() < end:
        time.sleep(0.05)
    assert len(re.findall(r"watch conn=\d+ user=ann ", d.log())) == 3
    assert len(re.findall(r"watch conn=\d+ user=ben ", d.log())) == n + 1
    e.send("q")
    e.wait_for("Your choice")
    # ann's game is taken over from a new terminal: same state, old one told
    before = hook(d, a, "ann")
    c = clients(d.port).connected()
    c.login("ann", PW)
    c.send("p")
    a.wait_for("taken over")
    assert hook(d, c, "ann") == before
    c.play_keys("hh")
    kept = hook(d, c, "ann")
    b.send("p")
    b.wait_for("ben the ")
    kept_ben = hook(d, b, "ben")
    # SIGKILL: each loop recovers its own game from the journal
    d.kill()
    d.start()
    d.wait_log(r"recovery done: 2 games resumed, 0 broken")
    for name, h in (("ann", kept), ("ben", kept_ben)):
        t = clients(d.port).connected()
        t.login(name, PW)
        t.send("p")
        d.wait_log(rf"game resume user={name}")
        assert hook(d, t, name) == h


def test_browser_watches_and_chats_with_a_game_on_another_loop(daemon, clients):
    d = daemon
    t = clients(d.port).connected()
    assert begin(d, t, "cat") == 1
    # dan's browser: registered second, its own games would be on loop 0
    web = clients(d.port).connected()
    web.register("dan", PW)
    tok, _, _ = register(d, "eli")
    w = WS(d.http, "/ws/watch/cat", session=tok)
    w.text(json.dumps({"t": "frames", "format": "json"}))
    key = w.json_until(lambda m: m["t"] == "f" and m["key"])
    assert "@" in "".join(run[2] for run in key["runs"])
    t.play_keys("l")
    f = w.json_until(lambda m: m["t"] == "f" and not m["key"])
    assert f["seq"] > key["seq"]
    w.text(json.dumps({"t": "chat", "text": "hi cat"}))
    t.wait_for("hi cat")
    # the player turns chat off (Ctrl-T hides it, again turns it off): the
    # browser hears it from home, which reads the game on loop 1, and is refused
    t.send("\x14")
    t.wait_for("Chat hidden")
    t.send("\x14")
    t.wait_for("Chat off")
    status = w.json_until(lambda m: m["t"] == "watchers" and m["chat"] is False)
    assert status["n"] == 1
    w.text(json.dumps({"t": "chat", "text": "still?"}))
    assert "off" in w.json_until(lambda m: m["t"] == "chat_error")["text"]
    # the lobby lists the game on loop 1 with its preview
    lobby = WS(d.http, "/ws/lobby")
    games = lobby.json_until(lambda m: m["t"] == "lobby")["games"]
    assert [g for g in games if g["name"] == "cat"][0]["watchers"] == 1
    assert lobby.json_until(lambda m: m["t"] == "preview")["name"] == "cat"
    # eli's own game is played from the browser on loop 1 (user 3)
    play = play_socket(d.http, tok)
    play.text(json.dumps({"t": "frames", "format": "json"}))
    assert play.json_until(lambda m: m["t"] == "f" and m["key"])
    assert re.search(r"attach user=eli game=\d+ conn=\d+ turn-seq=\d+ loop=1", d.log())
    for ws in (w, lobby, play):
        ws.close()
