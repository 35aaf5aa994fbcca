"""Hosted games shown right, with Debian's NetHack: the section's status
pattern reads depth and turn off the program's screen for the watch list,
the lobby (HTML and JSON) and warren-admin games, which shows the game's
recording id; a saved game says so; an ended one links its page; a player
live in two games has a lobby row and a /watch/NAME/GAME for each; a
watcher's chat line shaped like a status line is not read as one."""
import json
import re
import subprocess

import pytest

from harness import PW, WS, Daemon, Web, daemon_exe, play_socket, program, unique_name
from test_hosted import (RC, answer_until, for_games, playground, settle, shown_in, start_hosted,
                         to_map, toy_copy)

STATUS = r"Dlvl:(?<depth>\d+).*T:(?<turn>\d+)"


@pytest.fixture
def nh(bindir, tmp_path):
    pg, conf = playground(tmp_path, bindir)
    (tmp_path / "nethackrc").write_text(RC + "OPTIONS=time\n")  # T: on the status line
    conf.write_text(conf.read_text().replace("[game nethack]\n",
                                             f"[game nethack]\nstatus = {STATUS}\n", 1))
    d = Daemon(bindir, tmp_path / "daemon", http=True, extra=["--config", conf])
    d.start()
    yield d, pg
    d.stop()
    d.stop_clean()


def screen_turn(t):
    m = re.search(r"Dlvl:(\d+).*T:(\d+)", t.text())
    assert m, t.text()
    return int(m.group(1)), int(m.group(2))


def admin_games(bindir, d):
    exe = program(bindir, "asan/warren-admin", "warren-admin")
    r = subprocess.run([str(exe), "--control", str(d.db) + ".ctl", "games"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def start(t, name):
    t.register(name)
    t.send("1")
    to_map(t)
    settle(t)  # a --More-- left by the welcome would swallow the searches
    t.play_keys("s" * 4)  # turns pass
    settle(t)
    return screen_turn(t)


def test_depth_and_turn_in_every_list_admin_id_and_saved(nh, clients, bindir):
    d, _ = nh
    t = clients(d.port)
    name = unique_name("st")
    depth, turn = start(t, name)
    assert depth == 1 and turn > 1, t.text()
    # the lobby's row (HTML) and its JSON
    _, page = Web(d.http).html("/")
    row = next(r for r in re.findall(r"<tr><td>(.*?)</tr>", page, re.S) if r.startswith(name))
    cells = re.findall(r"<td>(.*?)</td>", "<td>" + row)
    assert cells[1] == "NetHack 3.6.6" and cells[3:5] == [str(depth), str(turn)], cells
    ws = WS(d.http, "/ws/lobby")
    lobby = ws.json_until(lambda m: m["t"] == "lobby")
    g = next(x for x in lobby["games"] if x["name"] == name)
    assert (g["game"], g["depth"], g["turn"]) == ("nethack", depth, turn), g
    ws.close()
    # the telnet watch list, sorted by depth so it reads them
    w = clients(d.port).connected()
    w.send("w")
    w.wait_for(name)
    w.send(".")  # by depth
    w.pump(quiet=0.3)
    line = next(ln for ln in w.lines() if name in ln)
    assert re.search(rf"NetHack 3\.6\.6\s+{depth}\s+{turn}\s", line), line
    # warren-admin games: the recording's id, not a process id
    (rec,) = d.db_rows("SELECT h.id FROM hosted_games h JOIN users u ON u.id = h.user "
                       "WHERE u.name = ?", name)[0]
    line = next(ln for ln in admin_games(bindir, d).splitlines() if ln.startswith(name))
    assert line.split()[1:5] == ["nethack", str(rec), str(depth), str(turn)], line
    # S saves: the menu says so, not that the game ended
    t.play_keys("S")
    t.wait_for("Really save?")
    t.send("y")
    screen = t.wait_for("was saved", timeout=30)
    assert "NetHack 3.6.6 was saved: choose it again to go on." in screen
    assert "has ended" not in screen


def test_the_end_links_its_page_and_the_feed_has_it(nh, clients):
    d, _ = nh
    t = clients(d.port)
    name = unique_name("en")
    start(t, name)
    t.play_keys("\x1b#quit\r")
    t.wait_for("Really quit?")
    t.send("y")
    answer_until(t, "Its page")
    (rec,) = d.db_rows("SELECT h.id FROM hosted_games h JOIN users u ON u.id = h.user "
                       "WHERE u.name = ?", name)[0]
    url = f"http://127.0.0.1:{d.http}/hosted/{rec}"
    assert f"Its page: {url}" in t.text(), t.text()
    assert Web(d.http).get(f"/hosted/{rec}").status == 200
    for _ in range(50):  # the feed is read again every few seconds
        _, page = Web(d.http).html("/")
        feed = page.split('<section id="feed">')[1].split("</section>")[0]
        if f">{name}</a>" in feed:
            break
        t.pump(quiet=0.2, limit=0.2)
    item = next(li for li in re.findall(r"<li.*?</li>", feed, re.S) if f">{name}</a>" in li)
    assert "(NetHack 3.6.6): quit" in item and f'href="/hosted/{rec}"' in item, item


def test_a_player_in_two_games_has_a_row_and_a_watch_page_each(nh, clients):
    d, _ = nh
    name = unique_name("tw")
    t = clients(d.port)
    start(t, name)  # NetHack on telnet
    tok = Web(d.http).post("/login", {"name": name, "password": PW}).session
    assert tok
    web = play_socket(d.http, tok, 80, 24)  # and Warren's own game in the browser
    _, page = Web(d.http).html("/")
    rows = [r for r in re.findall(r"<tr><td>(.*?)</tr>", page, re.S) if r.startswith(f"{name}<")]
    links = sorted(re.search(r'href="(/watch/[^"]+)"', r).group(1) for r in rows)
    assert links == [f"/watch/{name}/nethack", f"/watch/{name}/warren"], rows
    for game, want, other in (("nethack", b"Dlvl:", b"HP "), ("warren", b"HP ", b"Dlvl:")):
        assert Web(d.http).get(f"/watch/{name}/{game}").status == 200
        w = WS(d.http, f"/ws/watch/{name}/{game}")
        _, frame = w.until(lambda op, p: op == 2 and want in p, timeout=10)
        assert other not in frame, (game, frame[-400:])
        w.close()
    w = WS(d.http, f"/ws/watch/{name}/crawl")  # no such game of theirs
    m = w.json_until(lambda m: m["t"] == "left")
    assert m["text"] == f"{name} is not playing crawl now."
    web.close()


def lobby_turn(d, name):
    """The turn the lobby's live list shows of name's game."""
    ws = WS(d.http, "/ws/lobby")
    lobby = ws.json_until(lambda m: m["t"] == "lobby")
    ws.close()
    return next(x for x in lobby["games"] if x["name"] == name)["turn"]


def test_a_watchers_chat_is_not_read_as_the_games_status(bindir, tmp_path):
    """The status pattern reads the program's own screen, not the frame
    sent, which has the chat strip over it: a watcher who says a line
    shaped like the status line, above the program's own, changes no
    depth or turn any list shows of another player's game."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path,
                     f"[game keys]\ncommand = {toy} keys\nstatus = got (?<turn>\\d+): 7a\n",
                     http=True)
    try:
        name = unique_name("vi")
        play = WS(d.http, "/ws/play/keys", session=Web(d.http).register(name, PW).session,
                  timeout=10)
        seen = []
        shows = shown_in(seen)
        play.until(shows(b"keys ready"), timeout=10)
        for key in b"abcdz":  # a line each: "got 1: 7a" on row 5, under the strip's
            play.binary(bytes([key]))
            play.until(shows(f"got 1: {key:02x}".encode()), timeout=10)
        assert lobby_turn(d, name) == 1
        tok = Web(d.http).register(unique_name("wa"), PW).session
        watcher = WS(d.http, f"/ws/watch/{name}", session=tok, timeout=10)
        watcher.json_until(lambda m: m["t"] == "watchers")
        watcher.text(json.dumps({"t": "chat", "text": "got 4242: 7a"}))
        play.until(shows(b"got 4242: 7a"), timeout=10)  # on the player's screen
        assert lobby_turn(d, name) == 1
        watcher.close()
        play.close()
    finally:
        d.stop_clean()


def test_a_watchers_chat_does_not_begin_a_game(bindir, tmp_path):
    """A watcher who says a status line while the program's own first
    screens are up does not make the game begun: the player who leaves
    then is told it ended before a game began, not that it was saved."""
    toy = toy_copy(bindir, tmp_path)
    xlog = tmp_path / "xlogfile"
    xlog.write_text("")
    for_games(xlog)
    d = start_hosted(bindir, tmp_path,
                     f"[game keys]\ncommand = {toy} keys\nxlogfile = {xlog}\n"
                     "status = got (?<turn>\\d+): 7a\n", http=True)
    try:
        name = unique_name("vb")
        play = WS(d.http, "/ws/play/keys", session=Web(d.http).register(name, PW).session,
                  timeout=10)
        seen = []
        shows = shown_in(seen)
        play.until(shows(b"keys ready"), timeout=10)
        tok = Web(d.http).register(unique_name("wb"), PW).session
        watcher = WS(d.http, f"/ws/watch/{name}", session=tok, timeout=10)
        watcher.json_until(lambda m: m["t"] == "watchers")
        watcher.text(json.dumps({"t": "chat", "text": "got 1: 7a"}))
        play.until(shows(b"got 1: 7a"), timeout=10)  # on the player's screen
        play.binary(b"a")  # the program writes: its screen is read
        play.until(shows(b"got 1: 61"), timeout=10)
        play.binary(b"q")
        left = play.json_until(lambda m: m.get("t") == "left")["text"]
        assert left == "keys ended before a game began.", left
        watcher.close()
        play.close()
    finally:
        d.stop_clean()


@pytest.mark.parametrize("pattern, why", [
    (r"Dlvl:(?<depth>\d+", "missing closing parenthesis"),
    (r"Dlvl:\d+", "names no group (?<depth>...) or (?<turn>...)"),
])
def test_a_bad_pattern_is_refused_with_why(bindir, tmp_path, pattern, why):
    conf = tmp_path / "bad.conf"
    conf.write_text(f"[game nethack]\ncommand = /usr/games/nethack\nstatus = {pattern}\n")
    r = subprocess.run([str(daemon_exe(bindir)), "--config", str(conf), "--db",
                        str(tmp_path / "x.db")], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0, r.stderr
    assert f'line 3: status: bad pattern "{pattern}"' in r.stderr and why in r.stderr, r.stderr
