"""What a visitor meets on warrend's web site, over real HTTP and in
Debian's Chromium (tests/web/surface.mjs): the lobby's list without
JavaScript, one navigation on every page, logging in back to the page
that sent you (never to another site), /options (the telnet options menu's
choices) and the password page, times in UTC, score headers, player totals
that count a live game, terminals that fill the window and readable lobby
previews."""
import base64
import http.client
import json
import os
import re
import subprocess
import time

import pytest

from harness import (ARTIFACTS, WS, Web, browser_script, colour_params, new_game, options_menu,
                     play_socket, png_pixels)
from players import web_session

PW = "correct horse"
pytestmark = pytest.mark.daemon(http=True)


def here(d):
    return {"Origin": f"http://127.0.0.1:{d.http}"}


def nav(body):
    m = re.search(rb'<nav class="site">(.*?)</nav>', body, re.S)
    assert m, body[:400]
    return m.group(1).decode()


def hello_user(d, session):
    ws = WS(d.http, "/ws/lobby", session=session)
    user = ws.json_until(lambda m: m["t"] == "hello")["user"]
    ws.close()
    return user


def test_lobby_lists_live_games_without_javascript(daemon):
    d = daemon
    web = Web(d.http)
    status, h, body = web.get("/")
    assert status == 200 and b"No games right now." in body
    tok = web_session(d.http, "Lena", PW)
    play = play_socket(d.http, tok, 90, 28)
    status, h, body = web.get("/")
    assert status == 200 and h["content-type"].startswith("text/html")
    rows = re.findall(rb"<tr><td>(.*?)</tr>", body, re.S)
    assert len(rows) == 1 and rows[0].startswith(b"Lena</td>"), rows
    cells = re.findall(rb"<td>(.*?)</td>", b"<td>" + rows[0])
    assert cells[7] == b"90x28" and cells[3] == b"0", cells  # depth 0: the town
    assert b'<a href="/watch/Lena/warren">watch</a>' in rows[0]
    # without scripts the page reloads itself now and then
    assert b'<noscript><meta http-equiv="refresh" content="30"></noscript>' in body
    # gzip when asked, with the same rows
    status, h, zbody = web.get("/", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and h.get("vary") == "Accept-Encoding"
    play.close()


def test_lobby_lists_the_first_hundred_and_counts_the_rest(start_daemon, clients, bindir):
    """With 104 live games the home page and the lobby list 100, the most
    watched and then the most recently keyed first (each once), and say
    how many more there are; previews go to the first games of that list
    only."""
    d = start_daemon(http=True, extra=["--max-per-ip", "300"])
    load = bindir / "asan" / "warren-load"
    r = subprocess.run([str(load if load.exists() else bindir / "warren-load"), "--port",
                        str(d.port), "--n", "103", "--seconds", "1", "--warmup", "0",
                        "--tag", ".t"], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    # the load's last keys can still be answered after it is gone, moving
    # their games up the list: wait until a tick leaves the order as it was
    rows, end = None, time.time() + 30
    while time.time() < end:
        now = re.findall(rb"<tr><td>(.*?)</td>", Web(d.http).get("/")[2])
        if now == rows:
            break
        rows = now
        time.sleep(1.2)
    w = clients(d.port).connected()
    w.send("w")
    w.wait_for("Live games")
    w.send("a")  # the first by name: a load player, now the only one watched
    watched = d.wait_log(r"watch conn=\d+ user=(\S+) ").group(1)
    p = clients(d.port).connected()
    new_game(d, p, "zed")  # the most recent keys: next
    status, h, body = Web(d.http).get("/")
    assert status == 200
    rows = re.findall(rb"<tr><td>(.*?)</tr>", body, re.S)
    assert len(rows) == 100 and rows[0].startswith(watched.encode() + b"</td>"), rows[:3]
    assert rows[1].startswith(b"zed</td>"), rows[:3]
    assert b'<tr class="more"><td colspan="9">and 4 more games</td></tr>' in body
    lobby = WS(d.http, "/ws/lobby")
    m = lobby.json_until(lambda m: m["t"] == "lobby")
    assert len(m["games"]) == 100 and m["more"] == 4, (len(m["games"]), m["more"])
    assert [g["name"] for g in m["games"][:2]] == [watched, "zed"]
    assert len({g["name"] for g in m["games"]}) == 100
    shown = [g["name"] for g in m["games"]]
    previews = set()
    end = time.time() + 3
    while time.time() < end and len(previews) < 24:
        previews.add(lobby.json_until(lambda m: m["t"] == "preview")["name"])
    assert len(previews) == 24 and previews == set(shown[:24]), (previews, shown[:24])
    # the page's script draws the same list, its "more" row last
    _, out = browser_script("lobby_more.mjs", f"http://127.0.0.1:{d.http}")
    assert not out["errors"], out
    assert out["rows"] == 101 and out["last"] == "and 4 more games", out
    assert out["lastClass"] == "more", out


def test_one_navigation_on_every_page(daemon):
    d = daemon
    tok = web_session(d.http, "Nico", PW)
    play_socket(d.http, tok).close()
    gid = d.db_rows("SELECT id FROM games")[0][0]
    pages = ["/", "/play", "/watch/Nico", "/scores", "/player/Nico", f"/game/{gid}", "/options",
             "/password", "/login", "/logout"]
    for who, session in (("visitor", None), ("Nico", tok)):
        web = Web(d.http, session=session)
        for path in pages:
            status, _, body = web.get(path)
            if who == "visitor" and path in ("/options", "/password"):
                assert status == 303, path  # off to log in first
                continue
            assert status == 200, (who, path, status)
            n = nav(body)
            for link in ('href="/">Lobby', 'href="/play">Play', 'href="/scores">Scores'):
                assert link in n, (who, path, n)
            if who == "Nico" and path not in ("/login", "/logout"):
                assert 'href="/player/Nico">Nico</a>' in n and 'href="/options">Options' in n
                assert '<form method="post" action="/logout"><button type="submit">Log out' in n
            elif who == "visitor":
                assert ">Log in</a>" in n and ">Register</a>" in n and "Log out" not in n



def test_an_address_with_no_page_is_404_in_the_site_layout(daemon):
    """An address no page has: 404 still, with the viewport meta a phone
    needs, the site's header and navigation (the viewer's own) and a link
    back to the lobby; HEAD the same status with no body."""
    d = daemon
    tok = web_session(d.http, "Ines", PW)
    for session in (None, tok):
        web = Web(d.http, session=session)
        for path in ("/no/such/page", "/nothing", "/assets-x/a.js?q=1"):
            status, h, body = web.get(path)
            assert status == 404 and h["content-type"].startswith("text/html"), (path, status)
            text = body.decode()
            assert '<meta name="viewport" content="width=device-width' in text, text[:300]
            assert '<header><h1><a href="/">Warren</a></h1>' in text, text[:600]
            assert '<a href="/">Back to the lobby</a>' in text
            assert ('href="/player/Ines">Ines</a>' in nav(body)) == (session is not None)
    status, _, body = Web(d.http).request("HEAD", "/no/such/page")
    assert status == 404 and body == b""
    status, _, _ = Web(d.http).post("/no/such/page", b"a=1", headers=here(d))
    assert status == 404
    # the API's own addresses answer as the API does: JSON, not a page
    for path in ("/api/nothing", "/api/no/such/thing?x=1"):
        status, h, body = Web(d.http).get(path)
        assert status == 404 and h["content-type"].startswith("application/json"), (path, h)
        assert "error" in json.loads(body), body

def upgrade(port, path, extra=None):
    """A websocket upgrade by http.client: (status, body)."""
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Upgrade": "websocket", "Connection": "Upgrade",
               "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
               "Sec-WebSocket-Version": "13"}
    headers.update(extra or {})
    try:
        con.request("GET", path, headers=headers)
        r = con.getresponse()
        return r.status, r.read() if r.status != 101 else b""
    finally:
        con.close()


def test_a_websocket_to_no_such_address_is_answered_with_a_status(daemon):
    """An upgrade that cannot open is answered as any other request is, with
    an HTTP status and a line saying why, not dropped without a word: 404
    for an address of nothing (or a game the server does not have), 400
    for one that is malformed or overlong; a good one still opens."""
    d = daemon
    cases = [("/ws/nothing", 404), ("/ws/play/nosuchgame", 404), ("/ws/watch/a/b/c", 404),
             ("/ws/", 400), ("/ws/%01%02garbage", 400), ("/ws/play/bad*id", 400),
             ("/ws/watch/" + "a" * 300, 400), ("/ws/lobby/../../etc/passwd", 404)]
    for path, code in cases:
        status, body = upgrade(d.http, path)
        assert status == code, (path, status, body[:200])
        assert b"websocket" in body, body
    status, body = upgrade(d.http, "/ws/play", {"Origin": "http://evil.example"})
    assert status == 403 and b"another site" in body
    assert upgrade(d.http, "/ws/lobby")[0] == 101
    assert upgrade(d.http, "/ws/play/daily")[0] == 101
    assert Web(d.http).get("/")[0] == 200


def test_login_returns_to_the_page_that_sent_you(daemon):
    d = daemon
    web_session(d.http, "Olga", PW)
    web = Web(d.http)
    # the navigation's link carries the page it is on
    _, _, body = web.get("/player/Olga")
    assert 'href="/login?next=%2Fplayer%2FOlga">Log in' in nav(body)
    # a link without next=: the Referer of a page of this site decides
    origin = f"http://127.0.0.1:{d.http}"
    cases = [({"Referer": f"{origin}/watch/Olga"}, "/watch/Olga"),
             ({"Referer": f"{origin}/scores?race=elf&period=week"}, "/scores?race=elf&amp;period=week"),
             ({"Referer": "http://evil.example/watch/Olga"}, "/"),
             ({"Referer": f"{origin}/login?next=/play"}, "/"),
             ({}, "/")]
    for headers, want in cases:
        status, _, body = web.get("/login", headers=headers)
        assert status == 200
        got = re.search(rb'name="next" value="([^"]*)"', body).group(1).decode()
        assert got == want, (headers, got)
    # the form posts it back and the login goes there; anything but a local path goes home
    for nxt, loc in (("/watch/Olga", "/watch/Olga"), ("/game/5", "/game/5"),
                     ("//evil.example/x", "/"), ("https://evil.example/", "/"),
                     ("/\\evil.example", "/"), ("/a\r\nSet-Cookie: x=1", "/")):
        r = web.post("/login", {"name": "Olga", "password": PW, "next": nxt}, headers=here(d))
        assert r.status == 303 and r.headers["location"] == loc, (nxt, r.head)
        assert "x=1" not in r.head


def test_options_page_offers_and_keeps_the_telnet_options(daemon, clients):
    d = daemon
    # a visitor is sent to log in first, and comes back here
    r = Web(d.http).get("/options")
    assert r.status == 303 and r.headers["location"] == "/login?next=/options"
    tok = web_session(d.http, "Pia", PW)
    web = Web(d.http, session=tok)
    status, _, body = web.get("/options")
    assert status == 200 and b'<form method="post" action="/options">' in body
    radios = re.findall(rb'<input type="radio" name="(\w+)" value="([\w-]+)"( checked)?>', body)
    by = {}
    for field, value, checked in radios:
        by.setdefault(field.decode(), []).append((value.decode(), bool(checked)))
    assert [v for v, _ in by["two_cell"]] == ["0", "1"]
    assert [v for v, _ in by["colors"]] == ["auto", "16", "off"]
    assert [v for v, _ in by["glyphs"]] == ["auto", "unicode", "lines", "dec", "ascii"]
    assert [v for v, _ in by["turns"]] == ["0", "1"]
    assert all(c == (v in ("0", "auto")) for opts in by.values() for v, c in opts)
    # a game open in the browser takes the change at once
    play = play_socket(d.http, tok)
    form = {"two_cell": "0", "colors": "off", "glyphs": "ascii", "turns": "1"}
    assert web.post("/options", form, headers={"Origin": "http://evil.example"}).status == 403
    assert web.post("/options", {**form, "colors": "mauve"}, headers=here(d)).status == 400
    assert web.post("/options", {"colors": "off"}, headers=here(d)).status == 400
    assert Web(d.http).post("/options", form, headers=here(d)).status == 403  # not logged in
    r = web.post("/options", form, headers=here(d))
    assert r.status == 200 and b'<p class="ok" id="msg">Saved.</p>' in r.body
    assert b'name="colors" value="off" checked' in r.body
    assert d.db_rows("SELECT options FROM users WHERE name = 'Pia'")[0][0] == \
        "two_cell=0\ncolors=off\nglyphs=ascii\nturns=1\n"
    drawn = play.until(lambda op, p: op == 2 and b"Turn" in p, timeout=10)[1]  # the counter on
    play.binary(b".")
    drawn += play.until(lambda op, p: op == 2, timeout=10)[1]
    assert colour_params(drawn) == [] and all(b < 0x80 for b in drawn), drawn[-300:]
    play.close()
    # telnet's options menu shows what the web saved
    t = options_menu(clients(d.port), "Pia", pw=PW, new=False)
    t.wait_for("Colours: off")
    t.wait_for("Map glyphs: plain ASCII")
    t.wait_for("Turn counter: on")
    t.close()


def test_password_page_changes_it_and_logs_out_elsewhere(daemon):
    d = daemon
    r = Web(d.http).get("/password")
    assert r.status == 303 and r.headers["location"] == "/login?next=/password"
    a = web_session(d.http, "Quin", PW)
    b = Web(d.http).post("/login", {"name": "Quin", "password": PW}).session
    status, _, body = Web(d.http, session=a).get("/password")
    assert status == 200 and b'action="/password"' in body and 'href="/player/Quin"' in nav(body)
    # the options page links to it
    assert b'<a href="/password">Change your password</a>' in Web(d.http, session=a).get("/options").body
    new = {"old": PW, "password": "another one", "password2": "another one"}
    assert Web(d.http, session=a).post("/password", new,
                                       headers={"Origin": "http://evil.example"}).status == 403
    r = Web(d.http, session=a).post("/password", new, headers=here(d))
    assert r.status == 200 and b"your other sessions are logged out" in r.body
    assert hello_user(d, b) is None and hello_user(d, a) == "Quin"
    assert Web(d.http).post("/login", {"name": "Quin", "password": "another one"}).status == 303


def test_logins_by_the_hundred_keep_the_newest_sessions_only(daemon):
    """Each login is a session row for 30 days: an account logging in over
    and over (a script, a leaked password) keeps its newest 20 and cannot
    grow the database; the oldest are logged out, the newest works."""
    d = daemon
    first = web_session(d.http, "Tess", PW)
    other = web_session(d.http, "Ugo", PW)
    time.sleep(1.1)  # a second older than the rest (sessions are ordered by the second)
    toks = [Web(d.http).post("/login", {"name": "Tess", "password": PW}).session
            for _ in range(59)]
    assert all(toks) and len(set(toks)) == 59
    user = d.db_rows("SELECT id FROM users WHERE name = 'Tess'")[0][0]
    assert d.db_rows("SELECT count(*) FROM sessions WHERE user = ?", user) == [(20,)]
    assert hello_user(d, first) is None and hello_user(d, toks[-1]) == "Tess"
    assert sum(hello_user(d, t) == "Tess" for t in toks) == 20
    # another account's sessions are its own: Tess's logins took none of them
    assert hello_user(d, other) == "Ugo"


def test_times_say_utc_scores_say_what_they_show_and_totals_count_live_games(daemon):
    d = daemon
    tok = web_session(d.http, "Rhea", PW)
    play = play_socket(d.http, tok)
    for _ in range(12):
        play.binary(b".")
        play.until(lambda op, p: op == 2, timeout=10)
    time.sleep(0.3)
    web = Web(d.http)
    # the live game at its turn now, not at its last snapshot
    status, api = web.json("/api/player/Rhea")
    live = [g for g in api["games"] if g["state"] == "live"]
    assert len(live) == 1 and live[0]["turns"] >= 12, live
    assert api["totals"]["turns"] == live[0]["turns"] and api["totals"]["live"] == 1
    status, body = web.html("/player/Rhea")
    assert f"<tr><th>Turns played</th><td>{live[0]['turns']}</td></tr>" in body
    # end it: every time on the game page says UTC, in one format
    play.binary(b"Q")
    play.binary(b"y")
    d.wait_log(r"game end user=Rhea")
    gid = live[0]["id"]
    status, body = web.html(f"/game/{gid}")
    times = re.findall(r"<tr><th>(Started|Ended)</th><td>([^<]*)</td>", body)
    assert [k for k, _ in times] == ["Started", "Ended"]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", v) for _, v in times), times
    # the replay page carries the navigation too
    status, _, body = Web(d.http, session=tok).get(f"/game/{gid}/replay")
    assert status == 200 and 'href="/player/Rhea">Rhea</a>' in nav(body)
    status, body = web.html("/player/Rhea")
    dates = re.findall(r"<td>(\d{4}-\d\d-\d\d \d\d:\d\d[^<]*)</td>", body)
    assert dates and all(v.endswith(" UTC") for v in dates), dates
    # the score page's header says what it lists
    status, body = web.html("/scores?race=&class=&period=week")
    assert re.search(r"<h2 class=\"scores\">High scores: every race and class, the last 7 days</h2>",
                     body), body[:2000]
    assert "1 finished game, best first" in body and "times are UTC" in body
    status, body = web.html("/scores?race=elf&class=rogue")
    assert "High scores: elf rogue, all time" in body


def test_terminals_fill_the_window_and_previews_are_readable(daemon):
    d = daemon
    web_session(d.http, "Sam", PW)
    watched = web_session(d.http, "Tess", PW)
    play = play_socket(d.http, watched, 80, 24)  # as a telnet player would
    proc, out = browser_script("surface.mjs", f"http://127.0.0.1:{d.http}", ARTIFACTS, "Sam", PW,
                               "Tess")
    play.close()
    assert proc.returncode == 0 and not out["errors"], (out["errors"], proc.stderr[-2000:])
    # logging in from the scores page lands back on it
    assert out["loginUrl"] == "/login?next=%2Fscores" and out["loginLanded"] == "/scores"
    for path, n in out["navs"].items():
        assert n, path
        texts = [t for t, _ in n["links"]]
        assert texts[:4] == ["Lobby", "Play", "Daily", "Scores"], (path, texts)
        if path == "/watch":  # another browser, not logged in
            assert ["Log in", "/login?next=%2Fwatch%2FTess"] in n["links"] and not n["logout"]
            continue
        assert "Sam" in texts and "Options" in texts and n["logout"], (path, n)

    def fills(g):
        """The drawn cells cover the terminal's box but for less than a cell."""
        bw, bh = g["box"][2], g["box"][3]
        sw, sh = g["screen"][2], g["screen"][3]
        cw, ch = sw / g["cols"], sh / g["rows"]
        return 0 <= bw - sw < cw + 1 and 0 <= bh - sh < ch + 1

    for g in (out["playDesktop"], out["playPhone"]):
        assert fills(g), g
        assert g["cols"] >= 80 and g["rows"] >= 24, g
    assert out["playDesktop"]["cols"] > out["playPhone"]["cols"] == 80
    assert out["playPhone"]["font"] < out["playDesktop"]["font"]

    # the watcher shows the 80x24 game scaled to fill one side, centred
    for g in (out["watchWide"], out["watchPhone"]):
        assert (g["cols"], g["rows"]) == (80, 24), g
        bx, by, bw, bh = g["box"]
        sx, sy, sw, sh = g["screen"]
        assert sw <= bw + 1 and sh <= bh + 1, g
        assert sw >= 0.93 * bw or sh >= 0.93 * bh, g
        assert abs((sx - bx) - (bx + bw - sx - sw)) <= 2, g  # centred across
    assert out["watchWide"]["font"] >= 20 and out["watchPhone"]["font"] < 10
    # and in the picture: text reaches the box's right and bottom edges
    px = png_pixels(ARTIFACTS / "surface-watch-wide.png")
    h, w = len(px), len(px[0])
    lit = [(x, y) for y, row in enumerate(px) for x, p in enumerate(row) if sum(p[:3]) > 250]
    assert lit, "the watch screenshot is blank"
    assert max(x for x, _ in lit) > 0.85 * w and max(y for _, y in lit) > 0.85 * h, (w, h)
    px = png_pixels(ARTIFACTS / "surface-play-desktop.png")
    assert sum(1 for row in px for p in row if sum(p[:3]) > 250) > 500

    # previews: the game's real text, small but readable
    pv = [p for p in out["previews"] if p["name"] == "Tess"]
    assert pv and "Tess the" in pv[0]["text"] and "HP " in pv[0]["text"], out["previews"]
    assert 7 <= pv[0]["font"] <= 10 and pv[0]["width"] > 300, pv

    # without JavaScript the lobby still lists the games, with watch links
    assert any(r.startswith("Tess") for r in out["noJsRows"]), out["noJsRows"]
    assert "/watch/Tess/warren" in out["noJsWatch"] and "/watch/Sam/warren" in out["noJsWatch"]
