"""`loops = 2` against the real daemon: Warren's games spread over two
loops (an account's game on loop user_id % 2: the first account registered
is on loop 1, the second on loop 0), played, watched, chatted to and taken
over from terminals handed to their game's loop and back home for the
menu (a browser stays home, relayed), counted on the telnet banner as they
start and end, kicked, locked, banned and shut down there, then recovered
loop by loop after a SIGKILL. `WARREN_LOOPS=2 make
test-loops` runs every other suite the same way."""
import contextlib
import json
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from harness import PW, WS, hook, new_game, play_socket
from players import quit_game, watch
from test_admin import admin_path
from test_viewers import wait_list
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


def handed(d, name, loop, times=1):
    """Waits until a terminal of name's was handed to loop `times` times in
    all (the log says so); returns how many times."""
    pat = rf"handed conn=\d+ user={name} loop={loop}\n"
    end = time.time() + 10
    while len(re.findall(pat, d.log())) < times and time.time() < end:
        time.sleep(0.05)
    return len(re.findall(pat, d.log()))


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
    assert handed(d, "ann", 1) == 1  # ann's terminal is on loop 1 now
    b = clients(d.port).connected()
    assert begin(d, b, "ben") == 0
    assert "user=ben loop" not in d.log()  # ben's game is home's: no move
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
    assert handed(d, "ben", 1) == 1
    a.play_keys("lk")
    assert converge(a, b), f"{a.text()}\n---\n{b.text()}"
    # a chat line from the watcher reaches the player's screen
    b.send(":")
    b.send("hello from loop zero\r")
    a.wait_for("hello from loop zero")
    b.send("q")
    b.wait_for("Your choice")
    assert handed(d, "ben", 0) == 1  # home for the menu
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
    # on loop 1, to ben's on loop 0, back to loop 1: asked home each time
    assert handed(d, "dee", 1, 2) == 2 and handed(d, "dee", 0) == 1
    e.send("q")
    e.wait_for("Your choice")
    assert handed(d, "dee", 0, 2) == 2
    # ann's game is taken over from a new terminal: same state, old one told
    before = hook(d, a, "ann")
    c = clients(d.port).connected()
    c.login("ann", PW)
    c.send("p")
    a.wait_for("taken over")
    assert hook(d, c, "ann") == before
    assert handed(d, "ann", 1, 2) == 2 and handed(d, "ann", 0) == 1
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


def playing_now(t, want, timeout=10):
    """The count on t's banner once it says want (or the last one read):
    t, at the menu, opens the watch list and comes back to redraw it."""
    end = time.time() + timeout
    while True:
        t.send("w")
        t.wait_for("Live games")
        t.send("q")
        n = int(re.search(r"(\d+) playing now", t.wait_for("Your choice")).group(1))
        if n == want or time.time() > end:
            return n


def test_banner_counts_the_games_of_both_loops(daemon, clients):
    """The telnet banner's "N playing now" counts the games of every loop
    as they start and as they end, wherever the game is."""
    d = daemon
    t = clients(d.port).connected()
    assert "0 playing now" in t.text()
    a = clients(d.port).connected()
    assert begin(d, a, "cal") == 1
    assert playing_now(t, 1) == 1
    b = clients(d.port).connected()
    assert begin(d, b, "dot") == 0
    assert playing_now(t, 2) == 2
    quit_game(a)  # ends on loop 1
    d.wait_log(r"game end user=cal")
    assert playing_now(t, 1) == 1
    c = clients(d.port).connected()
    assert begin(d, c, "eve") == 1
    assert playing_now(t, 2) == 2
    quit_game(b)  # ends on loop 0
    quit_game(c)
    # two loops end them at once: either may be logged first
    d.wait_logged(r"game end user=dot")
    d.wait_logged(r"game end user=eve")
    assert playing_now(t, 0) == 0


def test_a_final_screen_from_loop_1_comes_home_whole(daemon, clients):
    """A game ended on loop 1 sends its terminal home with the final screen
    to show there: the whole of it, however long (past 200 bytes with a
    long name, a race and a class), down to its last line, the page's
    address with the game's id."""
    d = daemon
    name = "Bartholomew_Quillon"
    t = clients(d.port).connected()
    assert begin(d, t, name) == 1
    gid = int(re.findall(rf"game start user={name} game=(\d+) ", d.log())[-1])
    quit_game(t)
    screen = t.wait_for(re.compile(rf"Its page: http://\S+/game/{gid} *$", re.M))
    assert handed(d, name, 0) == 1  # drawn at home
    lines = [ln.strip() for ln in screen.splitlines()]
    at = lines.index("Your game is over.")
    shown = "\n".join(lines[at:at + 6])
    assert len(shown) > 200 and shown.endswith(f"/game/{gid}"), shown
    assert re.search(rf"{name} the \w+ \w+: score \d+ after \d+ turns\.", shown), shown
    assert lines[at + 7] == "Press any key.", lines


def lobby_games(ws, want):
    """The names the web lobby lists, once they are `want` (it sends a new
    list whenever one changes)."""
    m = ws.json_until(lambda m: m["t"] == "lobby" and sorted(g["name"] for g in m["games"]) == want)
    return sorted(g["name"] for g in m["games"])


def test_lobby_counts_the_games_of_both_loops(daemon, clients):
    """The web lobby lists the games of every loop, also while the only
    game is on the other loop and once the last one is gone (it skips the
    walk of the loops when their counters say none is live)."""
    d = daemon
    ws = WS(d.http, "/ws/lobby")
    assert lobby_games(ws, []) == []
    a = clients(d.port).connected()
    assert begin(d, a, "cal") == 1
    assert lobby_games(ws, ["cal"]) == ["cal"]  # loop 1's game alone
    b = clients(d.port).connected()
    assert begin(d, b, "dot") == 0
    assert lobby_games(ws, ["cal", "dot"]) == ["cal", "dot"]
    quit_game(b)
    d.wait_log(r"game end user=dot")
    assert lobby_games(ws, ["cal"]) == ["cal"]
    quit_game(a)
    d.wait_log(r"game end user=cal")
    assert lobby_games(ws, []) == []


@pytest.mark.daemon(extra=["--loops", "2", "--test-lists"])
def test_watch_list_places_new_games_in_the_order_they_started(daemon, clients):
    """Games that start on both loops within a second, while a visitor
    has the watch list open, take their letters below the others in the
    order they started, as on one loop: not loop 0's first, then loop
    1's (the list reads every loop's changes once a tick)."""
    d = daemon
    w = clients(d.port).connected()
    w.send("w")
    w.wait_for("Nobody is playing right now.")
    names = ["otto", "nell", "mave", "lars", "kite", "jude"]  # by name: the other way round
    ts = [clients(d.port).connected() for _ in names]
    for t, n in zip(ts, names):  # accounts 1 to 6: loops 1, 0, 1, 0, 1, 0
        t.register(n, PW)
    for t, n in zip(ts, names):  # one after another, quickly
        t.send("p")
        d.wait_log(rf"game start user={n} game=")
    wait_list(d, w, names)
    assert [handed(d, n, 1) for n in names] == [1, 0, 1, 0, 1, 0]  # on both loops


@pytest.mark.daemon(extra=["--loops", "2", "--test-lists", "--test-change-log", "0"])
def test_watch_list_rebuilt_places_new_games_in_the_order_they_started(daemon, clients):
    """The same when every change log is lost (--test-change-log 0: each
    change drops its loop's log) and the list is rebuilt from the games at
    every sync: the games new since the last one take their letters in
    the order they started, not loop by loop, newest first."""
    d = daemon
    w = clients(d.port).connected()
    w.send("w")
    w.wait_for("Nobody is playing right now.")
    names = ["otto", "nell", "mave", "lars", "kite", "jude"]
    ts = [clients(d.port).connected() for _ in names]
    for t, n in zip(ts, names):
        t.register(n, PW)
    for t, n in zip(ts, names):
        t.send("p")
        d.wait_log(rf"game start user={n} game=")
    wait_list(d, w, names)
    assert [handed(d, n, 1) for n in names] == [1, 0, 1, 0, 1, 0]


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


@contextlib.contextmanager
def daemon_with_control(start_daemon, bindir):
    """A two-loop daemon with a control socket, and admin(*args, want=0):
    runs warren-admin, checks its exit status, returns its output."""
    top = tempfile.mkdtemp(prefix="wl-")
    ctl = f"{top}/w.ctl"
    try:
        d = start_daemon(extra=["--loops", "2", "--control", ctl])

        def admin(*args, want=0):
            r = subprocess.run([str(admin_path(bindir)), "--control", ctl, *args],
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == want, r.stderr
            return r.stdout + r.stderr
        yield d, admin
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_terminals_on_another_loop_kicked_locked_banned_and_shut_down(start_daemon, clients,
                                                                     bindir):
    with daemon_with_control(start_daemon, bindir) as (d, admin):
        admin_on_loops(d, clients, admin)


def admin_on_loops(d, clients, admin):
    p = clients(d.port).connected()
    assert begin(d, p, "fay") == 1
    w = clients(d.port).connected()
    w.register("gus", PW)  # user 2: its own game would be on loop 0
    watch(d, w, "fay")
    assert handed(d, "fay", 1) == 1 and handed(d, "gus", 1) == 1
    p.play_keys("lj")
    assert converge(p, w)
    assert "live: 1 sessions, 2 connections" in admin("health")
    # an announcement: loop 1 redraws its game with its own copy, and takes it down
    assert "shown to 2 connections" in admin("announce", "Loop", "one", "hears")
    for t in (p, w):
        t.wait_for("Announcement: Loop one hears")
    admin("announce")
    p.play_keys("h")
    assert "Announcement" not in p.text()
    # kick: told and closed by loop 1, counted by home
    assert "closed 1 connection of gus" in admin("kick", "gus")
    w.wait_for("You were disconnected by the administrator.")
    w.pump(quiet=0.3)
    assert w.eof
    # lock: the player on loop 1 is saved, sent home and logged out
    h = hook(d, p, "fay")
    conn = re.search(r"handed conn=(\d+) user=fay loop=1\n", d.log()).group(1)
    assert "its live game was saved and detached" in admin("lock", "fay")
    p.wait_for("This account has been locked.")
    d.wait_log(rf"handed conn={conn} user=(fay|-) loop=0\n")  # logged out on the way, or at home
    p.wait_for("l) Log in")
    admin("unlock", "fay")
    p.login("fay", PW)
    p.send("p")
    assert hook(d, p, "fay") == h and handed(d, "fay", 1, 2) == 2
    # ban: closed where it is
    v = clients(d.port).connected()
    v.register("hal", PW)
    watch(d, v, "fay")
    assert handed(d, "hal", 1) == 1
    assert "banned 127.0.0.0/8 (2 connections closed)" in admin("ban", "127.0.0.0/8")
    for t in (p, v):
        t.wait_for("Connections from your address are refused.")
    admin("unban", "127.0.0.0/8")
    # shutdown: loop 1 tells its terminal, stores the game; it resumes the same
    p = clients(d.port).connected()
    p.login("fay", PW)
    p.send("p")
    p.play_keys("k")
    h = hook(d, p, "fay")
    assert d.stop() == 0
    p.wait_for("The server is shutting down. Your game is saved.")
    d.start()
    p = clients(d.port).connected()
    p.login("fay", PW)
    p.send("p")
    assert hook(d, p, "fay") == h


def test_terminals_go_back_and_forth_and_drop_on_the_way(daemon, clients):
    """Six players (three games on each loop) leave for the menu and come
    back together, four times: every game keeps its state hash, every
    terminal of a loop-1 game is handed there and home each time. Then half
    of them press p and hang up at once, mid-way; their games wait, whole,
    for a new terminal. The daemon ends clean (no sanitizer report)."""
    d = daemon
    names = [f"p{i}" for i in range(6)]
    ts = [clients(d.port).connected() for _ in names]
    loops = [begin(d, t, n) for t, n in zip(ts, names)]
    assert loops == [1, 0, 1, 0, 1, 0]
    for t in ts:
        t.play_keys("l")
    hashes = [hook(d, t, n) for t, n in zip(ts, names)]
    for rnd in range(1, 5):
        for t in ts:
            t.send(CTRL_X, settle=False)
        for t in ts:
            t.wait_for("Your choice")
        for t in ts:
            t.send("p", settle=False)
        assert [hook(d, t, n) for t, n in zip(ts, names)] == hashes
        for n, k in zip(names, loops):
            there, back = (rnd + 1, rnd) if k else (0, 0)
            assert handed(d, n, 1, there) == there and handed(d, n, 0, back) == back
    for t in ts:
        t.send(CTRL_X, settle=False)
    for t in ts:
        t.wait_for("Your choice")
    for t in ts[:3]:
        t.send("p", settle=False)
        t.close()
    for i, n in enumerate(names[:3]):
        t = clients(d.port).connected()
        t.login(n, PW)
        t.send("p")
        assert hook(d, t, n) == hashes[i]


def test_games_on_another_loop_ended_renamed_and_deleted(start_daemon, clients, bindir):
    """The administrator's commands on an account whose game is on loop 1
    act there, on loop 1's thread: `end` tells its player and its watcher
    and keeps the record; `rename` saves the game and logs the terminal
    out on its way home, and the game resumes under the new name; `delete`
    tells the player and the watcher's own account is untouched; the rows
    are gone after the game's last save (queued before the delete)."""
    with daemon_with_control(start_daemon, bindir) as (d, admin):
        p = clients(d.port).connected()
        assert begin(d, p, "ivy") == 1
        w = clients(d.port).connected()
        w.register("jay", PW)
        watch(d, w, "ivy")
        assert handed(d, "ivy", 1) == 1 and handed(d, "jay", 1) == 1
        p.play_keys("l")
        gid = int(re.findall(r"attach user=ivy game=(\d+)", d.log())[-1])
        out = admin("end", "ivy")
        assert f"ended game {gid} of ivy as abandoned" in out
        for t in (p, w):
            t.wait_for("The game was ended by the administrator.")
        assert handed(d, "ivy", 0) == 1 and handed(d, "jay", 0) == 1
        w.send(" ")  # the message read
        w.wait_for("Your choice")
        assert d.db_rows("SELECT count(*) FROM games WHERE id = ?", gid)[0][0] == 1
        assert "no live game" in admin("end", "ivy", want=1)
        # a new game on loop 1, renamed: saved there, resumed under the new name
        p.send("p")
        p.wait_for("Choose a race.")
        p.send("l")
        p.wait_for("Welcome, ivy the ")
        p.play_keys("j")
        h = hook(d, p, "ivy")
        assert "renamed ivy to Ivo" in admin("rename", "ivy", "Ivo")
        p.wait_for("Your account was renamed to Ivo: log in again under that name.")
        p.wait_for("l) Log in")
        p.login("Ivo", PW)
        p.send("p")
        assert hook(d, p, "Ivo") == h
        gid = int(re.findall(r"attach user=Ivo game=(\d+)", d.log())[-1])
        watch(d, w, "Ivo")
        # deleted while played and watched on loop 1
        assert "deleted Ivo and every game of it" in admin("delete", "Ivo", "--yes")
        p.wait_for("This account has been deleted.")
        w.wait_for("The player left; the game is saved.")
        p.pump(quiet=0.3)
        assert p.eof and not w.eof
        for table, col in (("games", "id"), ("journal", "game"), ("snapshots", "game")):
            assert d.db_rows(f"SELECT count(*) FROM {table} WHERE {col} = ?", gid)[0][0] == 0
        assert d.db_rows("SELECT count(*) FROM users WHERE name_key = 'jay'")[0][0] == 1
