"""What a telnet player types and reads, against the real daemon with
Debian's telnet (screens through pyte) and the web listener: UTF-8 in every
line editor the same as on the web (names refused with the rule, mail,
chat and passwords kept whole, the rc editor's cursor by characters), the
game's help saying what its keys do, a terminal shrunk below 80x24 in a
game, what a watcher's bottom line says (also when the player leaves), and
an announcement that leaves a hosted game's rows after a few seconds."""
import json
import os
import re
import subprocess
import time

import pytest

from harness import (CTRL_X, LEAVE, PW, ROOT, WS, Daemon, Web, play_socket,
                     program, unique_name)
from players import started, watch, web_account
from test_hosted import open_to_games

pytestmark = pytest.mark.daemon(http=True)
MARK = "\u2713 \u00fcn\u00efcode"  # ✓ ünïcode: three, two and one-byte characters
CTRL_E = "\x05"


def bottom(t):
    return t.screen.display[-1]


# ---- UTF-8 in the line editors --------------------------------------------------------

def test_mail_keeps_utf8_between_telnet_and_the_web(daemon, clients):
    d = daemon
    a = clients(d.port).connected()
    a.register("ana", PW)
    web = web_account(d, "bo")
    a.menu("m", ("To:", "bo"), ("Message:", MARK))
    a.wait_for("Message left for bo.")
    assert d.db_rows("SELECT text FROM mail") == [(MARK,)]  # stored whole, not " ncode"
    status, _, body = web.get("/mail")
    assert status == 200 and MARK.encode() in body
    # and back: the web's UTF-8 reaches the telnet player waiting at the menu
    r = web.post("/mail", {"to": "ana", "text": "\u00e7a va \u2713"})
    assert r.status == 200, r.body
    assert "ça va ✓" in a.wait_for("Mail from bo, ")
    # at most 200 characters, as both doors say, however many bytes each takes
    r = web.post("/mail", {"to": "ana", "text": "\u00e9" * 200})
    assert r.status == 200 and b"Message left for ana." in r.body, r.body
    r = web.post("/mail", {"to": "ana", "text": "\u00e9" * 201})
    assert r.status == 400 and b"at most 200 characters" in r.body


def test_chat_keeps_utf8_between_telnet_and_the_web(daemon, clients):
    d = daemon
    p = clients(d.port).connected()
    started(d, p, "quinn")
    w = clients(d.port).connected()
    w.register("rosa", PW)
    watch(d, w, "quinn")
    r = Web(d.http).register("sam", PW, next="/")
    tok = re.search(r"warren_session=([A-Za-z0-9_-]+)", r.head).group(1)
    web = WS(d.http, "/ws/watch/quinn", session=tok)
    d.wait_log(r"watch conn=\d+ user=quinn game=\d+ watchers=2")
    w.send(":")
    w.wait_for("Say:")
    w.send(MARK)
    assert "Say: " + MARK in w.text()  # shown as typed, a cell each
    w.send("\r")
    p.wait_for("rosa: " + MARK)
    m = web.json_until(lambda m: m["t"] == "chat")
    assert m["text"] == MARK
    # the player's own line (Ctrl-E), and the web's into telnet
    p.send(CTRL_E)
    p.send("\u00e9t\u00e9\r")
    assert web.json_until(lambda m: m["t"] == "chat" and m["player"])["text"] == "été"
    web.text(json.dumps({"t": "chat", "text": "\u00e7a \u2713"}))
    w.wait_for("sam: ça ✓")


def test_a_name_with_letters_not_allowed_is_refused_not_cut(daemon, clients):
    """Names are ASCII letters, digits, _ and - on both doors: telnet says
    so for "jörg✓" as the web does, and makes no "jrg"."""
    d = daemon
    t = clients(d.port).connected()
    t.send("r")
    t.wait_for("Name:")
    t.send("j\u00f6rg\u2713")
    assert "Name: jörg✓" in t.text()  # typed whole, not dropped
    t.send("\r")
    t.wait_for("Names use only letters, digits, _ and -.")
    assert d.db_rows("SELECT name FROM users") == []
    r = Web(d.http).post("/register", {"name": "j\u00f6rg", "password": PW, "password2": PW})
    assert b"Names use only letters, digits, _ and -." in r.body
    assert d.db_rows("SELECT name FROM users") == []


def test_utf8_password_counts_characters_on_both_doors(daemon, clients):
    d = daemon
    t = clients(d.port).connected()
    t.send("r")
    t.wait_for("Name:")
    t.send("uma\r")
    t.wait_for("8-128 characters.")
    t.send("\u00e9" * 5 + "\r")  # 5 characters, 10 bytes: too short
    t.wait_for("Passwords are 8 to 128 characters long.")
    pw = "p\u00e4ssw\u00f6rd\u2713"
    t.send(pw + "\r")
    t.wait_for("Password again:")
    t.send(pw + "\r")
    t.wait_for("Logged in as uma", timeout=30)
    r = Web(d.http).post("/login", {"name": "uma", "password": pw})
    assert r.status == 303 and r.session  # the same bytes from the web
    status, _, body = Web(d.http).get("/register")
    assert b"Passwords are 8-128 characters." in body


# ---- the rc editor -------------------------------------------------------------------

@pytest.fixture
def hosted_cat(bindir, tmp_path):
    """/bin/cat as a hosted game whose rc file starts from the NetHack
    default Warren ships."""
    open_to_games(tmp_path)
    cat = tmp_path / "cat.sh"  # cat with something on its bottom row first
    cat.write_text("#!/bin/sh\nprintf '\\033[24;1Hlast row of cat\\033[1;1H'\nexec /bin/cat\n")
    os.chmod(cat, 0o755)
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game cat]\nname = Cat\ncommand = {cat}\nhangup-timeout = 1\n"
                    "rcfile = %d/catrc\n"
                    f"rc-default = {ROOT / 'deploy' / 'games' / 'nethackrc'}\n")
    ctl = tmp_path / "warrend.ctl"
    d = Daemon(bindir, tmp_path / "daemon", http=True,
               extra=["--config", conf, "--control", ctl])
    d.ctl = ctl
    d.start()
    yield d
    d.stop()
    d.stop_clean()


def test_rc_editor_edits_utf8_by_character(hosted_cat, clients):
    d = hosted_cat
    t = clients(d.port).connected()
    name = unique_name("rc")
    t.register(name)
    t.send("e")
    t.wait_for("Your rc file of Cat")
    shown = [ln[5:].rstrip() for ln in t.lines()[2:8] if ln[5:].strip()]
    # the player's own file: only the game's options, no note from the server
    assert shown and all(ln.startswith("OPTIONS=") for ln in shown), shown
    t.send("i")  # a new line below the first
    t.send("a\u00e9\u2713b")
    row = t.screen.cursor.y
    assert t.lines()[row][5:] == "aé✓b" and t.screen.cursor.x == 5 + 4  # a cell each
    t.send("\x1b[D\x1b[D")  # Left twice: before the ✓
    assert t.screen.cursor.x == 5 + 2
    t.send("\x7f")  # Backspace: é goes whole
    t.send("\x1b[3~")  # Delete: ✓ goes whole
    t.send("\u00fc\r")
    t.send("s")
    t.wait_for("Saved your rc file of Cat")
    rc = (d.db.parent / "games" / "cat" / name / "catrc").read_text(encoding="utf-8")
    assert rc.splitlines()[1] == "aüb", rc


# ---- the game's help -----------------------------------------------------------------

def test_help_is_a_menu_of_topics_over_the_map_and_esc_restores_it(daemon, clients):
    """? opens a short menu of topics in a box over the map's right side, a
    letter its topic's page (each command with what it does, the title
    saying how to go back), ? or Esc the menu again, and Esc from the menu
    the game: the screen is the one before help, to the cell, and the
    game's keys work again."""
    d = daemon
    t = clients(d.port).connected()
    started(d, t, "hana")
    t.send("\x1b")  # the welcome read: the top line clears, as after any key
    t.pump(quiet=0.3)
    before, cells = t.lines(), list(t.screen.display)
    t.send("?")
    menu = t.wait_for("Help: which topic? (Esc returns)")
    rows = list(t.screen.display)
    at = rows[0].index("Help: which topic?")
    assert at > 40, rows[0]  # a small box at the right: the map's left half stays
    assert rows[1][at:].rstrip() == "a - Moving and looking" and "h - Saving and quitting" in menu
    assert [r[:at - 1] for r in rows] == [r[:at - 1] for r in cells]  # left of the box
    assert rows[11:] == cells[11:]  # below it: the map, the status and help lines
    t.send("c")
    items = t.wait_for("Items (Esc: topics, q returns)")
    for what in ("g  pick up what lies here", "E  eat", "q  quaff a potion"):
        assert what in items, items
    t.send("?")  # ? too goes back to the topics
    t.wait_for("Help: which topic?")
    t.send("a")
    moving = t.wait_for("Moving and looking (Esc: topics, q returns)")
    assert moving.count("look at something") == 1  # x is on ;'s row
    assert "look at something (also x)" in moving
    t.send("\x1b")  # back one level: the topics, not the game
    t.wait_for("Help: which topic? (Esc returns)")
    t.send("\x1b")
    deadline = time.time() + 10
    while t.lines() != before and time.time() < deadline:
        t.pump(quiet=0.1, limit=1)
    assert t.lines() == before, "\n".join(t.lines())
    t.send("x")  # still looks
    t.wait_for(re.compile(r"Look|look|That is you"))


# ---- a terminal shrunk in a game -----------------------------------------------------

def test_shrinking_in_a_game_says_so_and_growing_resumes(daemon, clients):
    d = daemon
    t = clients(d.port).connected()
    started(d, t, "ines")
    t.play_keys("l")
    seq = d.db_rows("SELECT count(*) FROM journal")[0][0]
    t.resize(70, 20)
    t.wait_for("This game needs a terminal")
    t.pump(quiet=0.3)
    words = " ".join(" ".join(t.lines()).split())
    assert ("This game needs a terminal of at least 80x24; yours is 70x20. Please enlarge "
            "your terminal. Keys are ignored until then.") in words, t.text()
    t.send("h")  # not played, and it says so on the screen above
    t.pump(quiet=0.5)
    assert d.db_rows("SELECT count(*) FROM journal")[0][0] == seq
    t.resize(80, 24)
    t.wait_for("ines the ")
    assert "enlarge" not in t.text()
    t.play_keys("h")
    assert d.db_rows("SELECT count(*) FROM journal")[0][0] == seq + 1


# ---- what a watcher is told ----------------------------------------------------------

def test_watcher_bottom_line_at_80x24_and_below_the_game_when_taller(daemon, clients):
    d = daemon
    p = clients(d.port).connected()
    started(d, p, "olga")
    small = clients(d.port).connected()
    watch(d, small, "olga")
    big = clients(d.port, cols=100, rows=30).connected()
    watch(d, big, "olga")
    small.wait_for(re.compile(r"Watching olga, game \d+, depth 0, 2 watching\."))
    line = bottom(small)
    assert line.startswith("Watching olga, game ") and line.endswith("q stops \u00b7 ? help")
    p.pump(quiet=0.3)
    assert small.screen.display[:-1] == p.screen.display[:-1]  # the rest is the game
    big.wait_for(re.compile(r"Watching olga, game \d+, depth 0, 2 watching\."))
    assert big.screen.display[24].startswith("Watching olga")
    assert big.screen.display[24].rstrip().endswith("q stops \u00b7 ? help")
    p.play_keys("l")  # the line stays through the game's frames
    small.pump(quiet=0.3)
    assert bottom(small).endswith("q stops \u00b7 ? help")
    # the player leaves: both are told, and stay
    p.send(CTRL_X)
    p.wait_for("Your choice")
    small.wait_for("Watching olga, who has left: the game waits.")
    big.wait_for("Watching olga, who has left: the game waits.")
    assert bottom(small).endswith("q stops \u00b7 ? help")
    # and comes back, in a terminal as big as the taller watcher's: no row is
    # left below the game, so its line goes on its bottom row too (and on
    # the smaller one's, cut to its size)
    p.resize(100, 30)
    p.send("p")
    small.wait_for(re.compile(r"Watching olga, game \d+"))
    big.wait_for(re.compile(r"Watching olga, game \d+"))
    big.pump(quiet=0.3)
    assert big.screen.display[29].startswith("Watching olga, game ")
    assert big.screen.display[29].endswith("q stops \u00b7 ? help")
    assert bottom(small).endswith("q stops \u00b7 ? help")


def test_watchers_of_the_games_size_share_its_frames_and_help_leaves_one_alone(daemon, clients):
    """Three 80x24 watchers of an 80x24 game share one frame (the game with
    the line on its bottom row): each still sees the player's screen above
    its line as the game moves, one with help up sees help and the others
    not, and once it closes help it sees the game again with the rest."""
    d = daemon
    p = clients(d.port).connected()
    started(d, p, "pia")
    ws = []
    for _ in range(3):
        w = clients(d.port).connected()
        watch(d, w, "pia")
        ws.append(w)
    for w in ws:
        w.wait_for(re.compile(r"Watching pia, game \d+, depth 0, 3 watching\."))

    def same_as_player():
        p.pump(quiet=0.3)
        for w in ws:
            w.pump(quiet=0.2)
            assert w.screen.display[:-1] == p.screen.display[:-1]
            assert bottom(w).startswith("Watching pia, game ")
            assert bottom(w).endswith("q stops \u00b7 ? help")

    for key in "lkhj":
        p.play_keys(key)
        same_as_player()
    ws[1].send("?")
    ws[1].wait_for("stop watching")
    p.play_keys("l")
    same_as_player_but = [w for i, w in enumerate(ws) if i != 1]
    for w in same_as_player_but:
        w.pump(quiet=0.2)
        assert "stop watching" not in w.text()
        assert w.screen.display[:-1] == p.screen.display[:-1]
    ws[1].send("x")  # any key closes help
    p.play_keys("h")
    same_as_player()


# ---- announcements over a hosted game ------------------------------------------------

def test_announcement_leaves_a_hosted_games_rows_after_seconds(hosted_cat, clients, bindir):
    d = hosted_cat
    p = clients(d.port).connected()
    name = unique_name("an")
    p.register(name)
    p.send("1")
    d.wait_log(rf"hosted start user={name} game=cat")
    p.wait_for("last row of cat")
    assert bottom(p).startswith("last row of cat")
    m = clients(d.port).connected()
    admin = program(bindir, "asan/warren-admin", "warren-admin")
    out = subprocess.run([str(admin), "--control", str(d.ctl), "announce", "Restart", "at",
                          "noon"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    shown = time.time()
    p.wait_for("Announcement: Restart at noon")
    assert "last row of cat" not in p.text()  # over the game's bottom row, for now
    p.wait_for("last row of cat", timeout=15)  # back without a key
    assert time.time() - shown < 12
    assert "Announcement" not in p.text()
    m.pump(quiet=0.3)
    assert "Announcement: Restart at noon" in m.text()  # the menu keeps it
    p.send(LEAVE)


# ---- keys a browser keeps -------------------------------------------------------------

def test_alt_keys_stand_for_the_ctrl_keys_a_browser_keeps(daemon, clients):
    """Ctrl-W and Ctrl-T close and open a browser's tabs: Alt-W and Alt-T
    (Esc w, Esc t: what xterm.js sends) do what they do, on both doors."""
    d = daemon
    r = Web(d.http).register("vic", PW, next="/")
    tok = re.search(r"warren_session=([A-Za-z0-9_-]+)", r.head).group(1)
    ws = play_socket(d.http, tok)
    ws.binary(b"\x1bw")
    ws.until(lambda op, p: op == 2 and b"Nobody is watching." in p)
    ws.binary(b"\x1bt")
    ws.until(lambda op, p: op == 2 and b"Chat hidden" in p)
    ws.close()
    t = clients(d.port).connected()
    started(d, t, "wes")
    t.send("\x1bw")
    t.wait_for("Nobody is watching.")
