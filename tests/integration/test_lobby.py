"""What a newcomer meets first, over real telnet and HTTP: the telnet
banner (server name, message of the day, the site's address, how many
play), the web lobby's welcome (how to connect with the real host and
port, a Play button per game), its feed of recent ends and milestones,
one row per live game linking /watch/NAME/GAME, and registration that
says it worked on both sides."""
import html
import json
import re

import pytest

import subprocess

from harness import ROOT, Web, daemon_exe, new_game, unique_name
from players import quit_game, started

PW = "correct horse"
NAME = "Hollow Hill"
MOTD = "Welcome, diggers \u2713 the daily game starts at 00:00 UTC"


def site_conf(tmp_path):
    conf = tmp_path / "site.conf"
    conf.write_text(f"server-name = {NAME}\nmotd = {MOTD}\n"
                    "public-url = https://warren.example.org/\n"
                    "ssh-login = warren@warren.example.org:2222\n"
                    "[game cat]\nname = Cat Game\ncommand = /bin/cat\n")
    return conf


@pytest.fixture
def site(start_daemon, tmp_path):
    return start_daemon(http=True, extra=["--config", site_conf(tmp_path)])


def test_banner_names_the_server_and_says_who_plays(site, clients):
    d = site
    t = clients(d.port).connected()
    screen = t.text()
    assert f"{NAME} - a roguelike host" in screen, screen
    assert MOTD in screen, screen
    assert "Not logged in." in screen and "0 playing now · https://warren.example.org" in screen
    p = clients(d.port).connected()
    new_game(d, p, unique_name("pl"))
    t.send("w")  # any screen change redraws the banner
    t.wait_for("Live games")
    t.send("q")
    assert "1 playing now · https://warren.example.org" in t.wait_for("Your choice"), t.text()


def banner_count(t):
    """The banner's "N playing now" on t (at the menu), redrawn by a trip to
    the watch list."""
    t.send("w")
    t.wait_for("Live games")
    t.send("q")
    return int(re.search(r"(\d+) playing now", t.wait_for("Your choice")).group(1))


def test_banner_leaves_out_a_game_its_player_left(site, clients):
    """A game saved and left stays live for its grace period (listed as
    left, resumed at once), but nobody plays it: the banner counts it again
    only when its player is back, and the lobby still lists it."""
    d = site
    t = clients(d.port).connected()
    p = clients(d.port).connected()
    name = unique_name("gone")
    new_game(d, p, name)
    assert banner_count(t) == 1, t.text()
    p.send("\x18")  # Ctrl-X: saved, back at the menu
    p.wait_for("Your game is saved")
    d.wait_log(rf"detach user={name}")
    assert banner_count(t) == 0, t.text()
    assert "0 playing now" in p.text(), p.text()
    t.send("w")
    # still on the list of live games, as one not played (the list's rows
    # follow a detach at the next tick: wait for the row, not the name)
    listed = t.wait_for(re.compile(rf"{name} .*detached"))
    assert re.search(rf"1 game, sorted by .*{name} .*detached", listed, re.S), listed
    t.send("q")
    t.wait_for("Your choice")
    p.send("p")
    d.wait_log(rf"attach user={name}")
    assert banner_count(t) == 1, t.text()


def test_telnet_registration_confirms_and_p_names_the_game(site, clients):
    d = site
    t = clients(d.port).connected()
    name = unique_name("rg")
    t.register(name)
    screen = t.wait_for("your account is made")
    assert f"Welcome, {name}: your account is made. Press p to play." in screen
    assert "p) Play Warren (new game or resume)" in screen
    assert "1) Play Cat Game" in screen


def test_web_registration_confirms(site):
    d = site
    name = unique_name("wr")
    r = Web(d.http).register(name, PW, next="/scores")
    assert r.status == 303 and r.headers["location"] == "/scores?welcome=1", r.head
    r = Web(d.http).register(unique_name("wr"), PW)
    assert r.headers["location"] == "/?welcome=1", r.head
    status, page = Web(d.http, session=r.session).html("/?welcome=1")
    assert status == 200 and 'id="registered"' in page and "your account is made" in page
    _, page = Web(d.http, session=r.session).html("/")  # said once, on the page it lands on
    assert 'id="registered"' not in page
    _, page = Web(d.http).html("/?welcome=1")  # a visitor is told nothing
    assert 'id="registered"' not in page


def test_lobby_welcome_connect_and_play_buttons(site):
    d = site
    status, page = Web(d.http).html("/")
    assert status == 200
    welcome = re.search(r'<section id="welcome">(.*?)</section>', page, re.S).group(1)
    assert f"<h2>{NAME}</h2>" in welcome
    assert f'<p id="motd">{MOTD}</p>' in welcome
    lines = [html.unescape(v) for v in re.findall(r'<input class="copy" readonly[^>]*value="([^"]*)"',
                                                  welcome)]
    # the host players reach (public-url's), the telnet listener's port
    assert lines == [f"telnet warren.example.org {d.port}",
                     "ssh warren@warren.example.org -p 2222"], lines
    buttons = re.findall(r'<a class="button" href="([^"]+)">([^<]+)</a>', welcome)
    assert buttons == [("/play", "Play Warren"), ("/play/cat", "Play Cat Game")], buttons


@pytest.mark.daemon(http=True)
def test_lobby_defaults_without_a_config(daemon):
    d = daemon
    _, page = Web(d.http).html("/")
    welcome = re.search(r'<section id="welcome">(.*?)</section>', page, re.S).group(1)
    assert "<h2>Warren</h2>" in welcome and 'id="motd"' not in welcome
    lines = re.findall(r'value="([^"]*)"', welcome)
    assert lines == [f"telnet 127.0.0.1 {d.port}"], lines  # no ssh-login: no ssh line


@pytest.mark.daemon(http=True)
def test_lobby_feed_and_one_row_per_game_with_its_watch_link(daemon, clients):
    d = daemon
    _, page = Web(d.http).html("/")
    assert "no game has ended here" in page
    name = unique_name("fd")
    t = clients(d.port).connected()
    gid, _ = new_game(d, t, name)
    t.wait_for("Choose a race.")
    t.send("l")  # no choice: a random race and class
    t.wait_for(f"Welcome, {name} the ")
    _, page = Web(d.http).html("/")
    rows = re.findall(r"<tr><td>(.*?)</tr>", page, re.S)
    mine = [r for r in rows if r.startswith(f"{name}</td>")]
    assert len(mine) == 1 and f'<a href="/watch/{name}/warren">watch</a>' in mine[0], rows
    # the watch page of that link shows that game
    assert Web(d.http).get(f"/watch/{name}/warren").status == 200
    t.send("Q")
    t.pump(quiet=0.3)
    t.send("y")
    d.wait_log(rf"game end user={name} game={gid} kind=quit")
    t.wait_for("Game over")
    for _ in range(50):  # read again every few seconds
        _, page = Web(d.http).html("/")
        if name in page.split('<section id="feed">')[1]:
            break
        t.pump(quiet=0.2, limit=0.2)
    feed = page.split('<section id="feed">')[1].split("</section>")[0]
    item = next(li for li in re.findall(r"<li.*?</li>", feed, re.S) if f">{name}</a>" in li)
    assert 'class="quit"' in item and "</a> quit in the town, score" in item, item
    assert f'href="/game/{gid}"' in item, item
    assert re.search(r"<time>\d{4}-\d\d-\d\d \d\d:\d\d UTC</time>", item), item


@pytest.mark.daemon(http=True)
def test_lobby_feed_shows_a_new_end_without_a_reload(daemon, clients):
    """Chromium on the lobby: a game that ends after the page loaded shows
    in its feed once the page's script reads the feed again (its clock run
    15 s ahead), with no reload."""
    d = daemon
    name = unique_name("lf")
    t = clients(d.port).connected()
    gid = started(d, t, name)
    node = subprocess.Popen(["node", str(ROOT / "tests" / "web" / "lobby_feed.mjs"),
                             f"http://127.0.0.1:{d.http}", name],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        loaded = json.loads(node.stdout.readline())
        assert loaded["loaded"] and name not in loaded["feed"], loaded
        quit_game(t)
        d.wait_log(rf"game end user={name} game={gid} kind=quit")
        node.stdin.write("ended\n")
        node.stdin.flush()
        out, _ = node.communicate(timeout=120)
    finally:
        if node.poll() is None:
            node.kill()
    res = json.loads(out.strip().splitlines()[-1])
    assert not res["errors"] and res["found"], res
    assert f"{name} quit in the town" in res["feed"] and not res["reloaded"], res


def test_bad_site_text_is_refused(bindir, tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_bytes(b"motd = a\x1b[2Jb\n")
    r = subprocess.run([str(daemon_exe(bindir)), "--config", str(conf), "--db",
                        str(tmp_path / "x.db")], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "motd: control characters" in r.stderr, r.stderr
