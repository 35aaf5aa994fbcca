"""What players meet around a game, over telnet against the real daemon
(screens read through the pyte terminal emulator): a taken name refused
before any password, the final screen of a game (score, cause, place on the
high scores, the address of its page), watching with a header of who, what
and how many, moving between live games from the watch view."""
import json
import re
import subprocess
import time

import pytest

from harness import PW, WS, Web, new_game, program
from players import quit_game, started, watch, web_account

pytestmark = pytest.mark.daemon(http=True, extra=["--public-url", "https://warren.example/"])
CTRL_E, CTRL_T, CTRL_W = "\x05", "\x14", "\x17"


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


def test_final_screen_of_one_who_left_the_town(daemon, clients):
    """One who walked out into the wilds and quit there did leave the
    town: the line says the Warren was never entered, not the town never
    left."""
    t = clients(daemon.port).connected()
    new_game(daemon, t, "wren")
    t.wait_for("Choose a race.")
    t.send("l")
    t.wait_for("Welcome, wren the ")
    t.send("<")  # the game starts on the west gate: out into the wilds
    t.wait_for("You leave ")
    quit_game(t)
    screen = t.wait_for("Your game is over.")
    assert "Game over: quit in the wilds" in screen
    assert "never left the town" not in screen
    assert re.search(r"wren the \w+ \w+: score \d+ after \d+ turns\.", screen)
    assert "Never went down into the Warren." in screen


def test_final_screen_has_score_place_and_page(daemon, clients):
    t = clients(daemon.port).connected()
    gid, _ = new_game(daemon, t, "jade")
    t.wait_for("Choose a race.")
    t.send("l")
    t.wait_for("Welcome, jade the ")
    quit_game(t)
    # the page's line is the screen's last: waiting for it reads the whole
    # screen, not a part that came in one segment before the rest
    screen = t.wait_for(f"Its page: https://warren.example/game/{gid}")
    assert "Place on the high scores: #1." in screen
    assert "Your game is over." in screen
    assert "Game over: quit in the town." in screen  # a game begins there
    assert re.search(r"jade the \w+ \w+: score \d+ after \d+ turns\.", screen)
    assert "Never went down into the Warren." in screen
    t.send(" ")
    t.wait_for("Your choice")
    # a second, lower game ranks below: the place comes from the scores
    u = clients(daemon.port).connected()
    kid, _ = new_game(daemon, u, "kim")
    u.wait_for("Choose a race.")
    u.send("l")
    u.wait_for("Welcome, kim the ")
    quit_game(u)
    screen = u.wait_for(f"Its page: https://warren.example/game/{kid}")
    place = int(re.search(r"high scores: #(\d+)\.", screen).group(1))
    rows = daemon.db_rows("SELECT id FROM games WHERE state = 'finished' "
                          "ORDER BY score DESC, end_time, id")
    assert len(rows) == 2 and place == [r[0] for r in rows].index(kid) + 1


def test_watch_footer_help_and_other_games(daemon, clients):
    d = daemon
    a = clients(d.port).connected()
    ga = started(d, a, "olga")
    b = clients(d.port).connected()
    gb = started(d, b, "pete")
    w = clients(d.port, cols=100, rows=30).connected()
    watch(d, w, "olga")
    w.wait_for(f"Watching olga, game {ga}, depth 0, 1 watching.")
    assert w.text().splitlines()[24].endswith("q stops \u00b7 ? help")  # below the game
    w.send("?")
    screen = w.wait_for("the previous / next live game")
    assert "stop watching" in screen and "say something to the player" in screen
    w.send(" ")  # any key closes the help
    w.pump(quiet=0.3)
    assert "stop watching" not in w.text()
    w.send(">")
    d.wait_log(r"watch conn=\d+ user=pete ")
    w.wait_for(f"Watching pete, game {gb}, depth 0, 1 watching.")
    a.pump(quiet=0.3)
    assert "[1 watching]" not in a.text()  # it left olga's game
    w.send("<")
    d.wait_log(r"watch conn=\d+ user=olga ")
    w.wait_for("Watching olga")
    # same size as the player: the same screen but its bottom row, which
    # says whom it watches and how to stop; help over it on demand
    s = clients(d.port).connected()
    watch(d, s, "pete")
    s.pump(quiet=0.3)
    b.pump(quiet=0.3)
    assert s.text().splitlines()[:-1] == b.text().splitlines()[:-1]
    bottom = s.text().splitlines()[-1]
    assert bottom.startswith(f"Watching pete, game {gb}, depth 0, 1 watching.")
    assert bottom.endswith("q stops \u00b7 ? help") and len(bottom) == 80
    s.send("?")
    s.wait_for(f"Watching pete, game {gb}, depth 0, 1 watching.")
    s.send("q")  # q leaves even from the help
    s.wait_for("Your choice")


@pytest.mark.daemon(http=True, extra=["--public-url", "https://warren.example/",
                                      "--chat-show", "4"])
def test_chat_both_ways_on_telnet_and_web(daemon, clients):
    d = daemon
    p = clients(d.port).connected()
    started(d, p, "quinn")
    w = clients(d.port).connected()
    w.register("rosa", PW)
    watch(d, w, "quinn")
    anon = clients(d.port).connected()
    watch(d, anon, "quinn")
    # a browser watcher on the same game: one stream
    r = Web(d.http).register("sam", PW, next="/")
    tok = re.search(r"warren_session=([A-Za-z0-9_-]+)", r.head).group(1)
    web = WS(d.http, "/ws/watch/quinn", session=tok)
    d.wait_log(r"watch conn=\d+ user=quinn game=\d+ watchers=3")

    w.send(":")
    w.wait_for("Say:")
    w.send("hello <there>\r")
    p.wait_for("rosa: hello <there>")
    w.wait_for("rosa: hello <there>")
    m = web.json_until(lambda m: m["t"] == "chat")
    assert m == {"t": "chat", "from": "rosa", "player": False, "text": "hello <there>"}
    web.text(json.dumps({"t": "chat", "text": "from the web"}))
    p.wait_for("sam: from the web")
    anon.wait_for("sam: from the web")
    anon.send(":")
    anon.wait_for("Log in to chat")
    # the player lists the watchers
    p.send(CTRL_W)
    p.wait_for("Watching (3): ")
    line = [ln for ln in p.lines() if "Watching (3)" in ln][0]
    assert "rosa" in line and "sam" in line and "+1 not logged in" in line
    # Ctrl-T hides the strip: watchers still talk, the player's screen stays clean
    p.send(CTRL_T)
    p.wait_for("Chat hidden")
    w.send(":")
    w.send("second line\r")
    assert web.json_until(lambda m: m["t"] == "chat" and m["text"] == "second line")
    p.pump(quiet=0.5)
    assert "second line" not in p.text()
    # ... and again turns chat off: watchers are refused on both doors
    p.send(CTRL_T)
    p.wait_for("Chat off")
    assert web.json_until(lambda m: m["t"] == "watchers")["chat"] is False
    w.send(":")
    w.send("anyone?\r")
    w.wait_for("The player turned chat off.")
    p.send(CTRL_T)
    p.wait_for("Chat on")
    # the player answers from the terminal
    p.send(CTRL_E)
    p.wait_for("Say (Enter sends, Esc cancels):")
    p.send("thanks, all\r")
    w.wait_for("quinn: thanks, all")
    m = web.json_until(lambda m: m["t"] == "chat" and m["from"] == "quinn")
    assert m["player"] is True and m["text"] == "thanks, all"
    p.send(CTRL_E)
    p.send("never mind\x1b")
    p.pump(quiet=0.5)
    assert "Say (" not in p.text() and "never mind" not in p.text()
    # the player's chat keys are not game keys: nothing journalled
    assert d.db_rows("SELECT count(*) FROM journal j JOIN games g ON g.id = j.game "
                     "JOIN users u ON u.id = g.user WHERE u.name = 'quinn'")[0][0] == 1
    # lines leave the strip after chat-show seconds
    end = time.time() + 20
    while time.time() < end and "from the web" in p.text():
        p.pump(quiet=0.5, limit=1)
    assert "from the web" not in p.text()


def test_muted_chatter_is_refused(daemon, clients, bindir):
    d = daemon
    p = clients(d.port).connected()
    started(d, p, "tara")
    w = clients(d.port).connected()
    w.register("ugo", PW)
    admin = program(bindir, "asan/warren-admin", "warren-admin")
    r = subprocess.run([str(admin), "--control", f"{d.db}.ctl", "mute", "ugo", "1h"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    watch(d, w, "tara")
    w.send(":")
    w.send("let me talk\r")
    w.wait_for("muted by the administrator")
    p.pump(quiet=0.3)
    assert "let me talk" not in p.text()


def test_mail_of_control_bytes_only_is_empty_and_not_sent(daemon):
    """Control bytes become spaces, so a message of nothing else (or of
    NULs) is empty: refused, no row, nothing counted against the hour."""
    d = daemon
    x = web_account(d, "yuri")
    web_account(d, "zora")
    for text in ("\x01\x02\x1b", "\x00\x00", " \x07\t\r\n ", "\x7f"):
        r = x.post("/mail", {"to": "zora", "text": text})
        assert r.status == 400 and b"An empty message is not sent." in r.body, (text, r.body)
    assert d.db_rows("SELECT count(*) FROM mail")[0][0] == 0
    r = x.post("/mail", {"to": "zora", "text": "\x01hi"})
    assert r.status == 200 and b"Message left for zora." in r.body, r.body
    assert d.db_rows("SELECT text FROM mail") == [(" hi",)]


def test_mail_from_telnet_and_the_web(daemon, clients):
    d = daemon
    a = clients(d.port).connected()
    a.register("vera", PW)
    b = clients(d.port).connected()
    b.register("walt", PW)
    # telnet to telnet: the recipient waiting at the menu sees it at once
    a.menu("m", ("To:", "walt"), ("Message:", "meet me at <depth 5> & bring food"))
    a.wait_for("Message left for walt.")
    screen = b.wait_for("Mail from vera, ")
    assert "meet me at <depth 5> & bring food" in screen and "UTC:" in screen
    b.send(" ")
    b.wait_for("Your choice")
    b.send("q")  # walt is away: he reads at his next login
    a.menu("m", ("To:", "nobody_here"), ("Message:", "hello?"))
    a.wait_for("No such player.")
    # the web page: escaped both ways
    x = web_account(d, "xena")
    status, _, body = x.get("/mail")
    assert status == 200 and b"No new messages." in body
    r = x.post("/mail", {"to": "vera", "text": "<script>alert(1)</script>\x07ok"})
    assert r.status == 200 and b"Message left for vera." in r.body, r.body
    assert d.db_rows("SELECT text FROM mail WHERE text LIKE '<script>%'") == \
        [("<script>alert(1)</script> ok",)]
    a.wait_for("Mail from xena, ")  # vera waits at the menu
    assert "<script>alert(1)</script> ok" in a.text()
    a.send(" ")
    a.wait_for("Your choice")
    a.menu("m", ("To:", "XENA"), ("Message:", "<b>bold</b> & co"))
    a.wait_for("Message left for xena.")
    status, _, body = x.get("/mail")
    assert status == 200 and b"&lt;b&gt;bold&lt;/b&gt; &amp; co" in body and b"<b>bold" not in body
    assert b"From <b>vera</b>" in body
    status, _, body = x.get("/mail")
    assert b"No new messages." in body  # shown once, then marked seen
    # limits: length, then so many an hour
    r = x.post("/mail", {"to": "walt", "text": "y" * 201})
    assert r.status == 400 and b"at most 200" in r.body
    for i in range(9):
        r = x.post("/mail", {"to": "walt", "text": f"note {i}"})
        assert r.status == 200 and b"Message left" in r.body, (i, r.body)
    r = x.post("/mail", {"to": "walt", "text": "one too many"})
    assert r.status == 400 and b"Not sent" in r.body
    assert d.db_rows("SELECT count(*) FROM mail m JOIN users u ON u.id = m.sender "
                     "WHERE u.name = 'xena'")[0][0] == 10
    # walt logs in: the oldest that fit on the screen, the rest next time
    c = clients(d.port).connected()
    c.login("walt")
    screen = c.wait_for("Mail from xena, ")
    assert "note 0" in screen and "one too many" not in screen
    seen = d.db_rows("SELECT count(*) FROM mail m JOIN users u ON u.id = m.recipient "
                     "WHERE u.name = 'walt' AND seen = 1")[0][0]
    assert 1 < seen < 11
    c.send(" ")
    c.wait_for("Your choice")
    # not logged in, or from another site
    status, _, body = Web(d.http).get("/mail")
    assert status == 403 and b"Log in first" in body
    r = x.post("/mail", {"to": "walt", "text": "forged"}, headers={"Origin": "http://evil.example"})
    assert r.status == 403
    assert not d.db_rows("SELECT 1 FROM mail WHERE text = 'forged'")


def test_moving_between_games_is_paced(daemon, clients):
    """Each < or > looks through every live game of every loop and redraws
    the next whole: a watcher holding the key down (30 presses in one
    write) moves 8 times, is told to slow down, and moves again once it
    has. On two loops (WARREN_LOOPS=2) the presses typed behind a move to
    another loop go with it, and the pace is the connection's, kept
    across loops."""
    d = daemon
    a = clients(d.port).connected()
    started(d, a, "quin")
    b = clients(d.port).connected()
    started(d, b, "rhea")
    w = clients(d.port).connected()
    watch(d, w, "quin")
    w.wait_for("Watching quin")
    before = len(re.findall(r"watch conn=\d+ user=", d.log()))
    w.send(">" * 30)
    w.wait_for("Too fast: wait a moment.")
    w.pump(quiet=1.0)
    seen = re.findall(r"watch conn=\d+ user=(\w+)", d.log())[before:]
    assert seen == ["rhea", "quin"] * 4, seen
    time.sleep(0.5)  # two more presses' worth
    w.send(">")
    end = time.time() + 10
    while len(re.findall(r"watch conn=\d+ user=", d.log())) == before + 8:
        assert time.time() < end, "no move after a pause"
        time.sleep(0.1)
    assert re.findall(r"watch conn=\d+ user=(\w+)", d.log())[before + 8:] == ["rhea"]
