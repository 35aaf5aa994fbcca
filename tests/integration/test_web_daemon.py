"""The web side of the real warrend (server/webgw.c): accounts through the
HTML forms and the session cookie, websockets for play, watch and the lobby,
JSON frames, spectator chat, abuse of HTTP and websockets, and Debian's
Chromium (tests/web/daemon.mjs) playing, reloading, watching and trading the
game with the real telnet program."""
import hashlib
import json
import re
import subprocess
import time

import pytest

from harness import (ARTIFACTS, ROOT, WS, Web, colour_params, options_menu, play_socket,
                     png_pixels, raw, stays_open)

PW = "correct horse"
pytestmark = pytest.mark.daemon(http=True)


def serving(d):
    Web(d.http).assert_serving()
    assert d.alive()


def register(d, name, pw=PW):
    r = Web(d.http).register(name, pw, next="/play")
    assert r.status == 303, r.head
    m = re.search(r"set-cookie: warren_session=([A-Za-z0-9_-]+);([^\r\n]*)", r.head, re.I)
    assert m, r.head
    return m.group(1), m.group(2), r.head


# ---- accounts ----------------------------------------------------------------------

def test_register_login_logout_with_forms(daemon):
    d = daemon
    web = Web(d.http)
    status, h, body = web.get("/login?next=/play")
    assert status == 200 and b'<form method="post" action="/login">' in body
    assert b'name="next" value="/play"' in body
    tok, flags, head = register(d, "Alice")
    assert re.search(r"location: /play", head, re.I)
    assert "HttpOnly" in flags and "SameSite=Strict" in flags and "Max-Age=2592000" in flags
    assert len(tok) == 22  # 128 bits, base64url
    # the database holds the token's hash, never the token
    rows = d.db_rows("SELECT token_hash, expires FROM sessions")
    assert rows and all(tok not in str(r) for r in rows)
    assert rows[0][0] == hashlib.blake2b(tok.encode(), digest_size=32).hexdigest()
    assert rows[0][1] > time.time() + 29 * 86400
    # the same name in another case is taken, as on telnet
    status, _, body = web.post("/register", f"name=alice&password={PW}&password2={PW}".encode())
    assert status == 409 and b"taken" in body.lower()
    # wrong password and unknown name: one message, no cookie
    r1 = web.post("/login", b"name=Alice&password=wrongwrong")
    r2 = web.post("/login", b"name=Nobody&password=wrongwrong")
    assert r1.status == r2.status == 403 and "set-cookie" not in (r1.head + r2.head).lower()
    msg = lambda b: re.search(rb'<p class="msg" id="msg">([^<]*)</p>', b).group(1)
    assert msg(r1.body) == msg(r2.body)
    # a right login gives a second working session
    r = web.post("/login", f"name=alice&password={PW}&next=//evil.example".encode())
    assert r.status == 303 and re.search(r"location: /\r\n", r.head, re.I)  # no open redirect
    tok2 = r.session
    lobby = WS(d.http, "/ws/lobby", session=tok2)
    assert lobby.json_until(lambda m: m["t"] == "hello")["user"] == "Alice"
    lobby.close()
    # logout forgets the token: the websocket no longer knows us
    r = Web(d.http, session=tok2).post("/logout", b"")
    assert r.status == 303 and re.search(r"warren_session=; [^\r\n]*Max-Age=0", r.head, re.I)
    lobby = WS(d.http, "/ws/lobby", session=tok2)
    assert lobby.json_until(lambda m: m["t"] == "hello")["user"] is None
    lobby.close()
    serving(d)


def test_logout_closes_the_websockets_of_that_login_only(daemon):
    """A game left open in one tab is logged out with the login it came
    from (a shared computer): its sockets close, those of the account's
    other logins stay."""
    d = daemon
    tok, _, _ = register(d, "Lena")
    other = Web(d.http).post("/login", f"name=Lena&password={PW}".encode()).session
    mine, kept = WS(d.http, "/ws/lobby", session=tok), WS(d.http, "/ws/lobby", session=other)
    for ws in (mine, kept):
        assert ws.json_until(lambda m: m["t"] == "hello")["user"] == "Lena"
    assert Web(d.http, session=tok).post("/logout", b"").status == 303
    assert mine.close_code() == 1008
    stays_open(kept, quiet=1)
    serving(d)


def test_logins_past_the_cap_close_the_websockets_of_the_logins_deleted(daemon):
    """An account keeps its newest 20 logins: a game left open with the
    oldest is told and closed once 20 newer ones deleted its session; one
    open with a newer login stays."""
    d = daemon
    tok, _, _ = register(d, "Gus")
    time.sleep(1.1)  # a second older than the rest (sessions are ordered by the second)
    login = lambda: Web(d.http).post("/login", f"name=Gus&password={PW}".encode()).session
    newer = login()
    old, kept = WS(d.http, "/ws/lobby", session=tok), WS(d.http, "/ws/lobby", session=newer)
    for ws in (old, kept):
        assert ws.json_until(lambda m: m["t"] == "hello")["user"] == "Gus"
    for _ in range(19):
        assert login()
    left = old.json_until(lambda m: m["t"] == "left")
    assert left["text"] == "This login has ended: log in again."
    assert old.close_code() == 1008
    stays_open(kept, quiet=1)
    serving(d)


def test_form_errors_and_markup_in_names_are_inert(daemon):
    d = daemon
    web = Web(d.http)
    evil = "<script>alert(1)</script>"
    status, _, body = web.post("/register",
                               f"name={evil}&password={PW}&password2={PW}".encode())
    assert status == 400 and b"<script>alert" not in body
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in body
    status, _, body = web.post("/register", f"name=bob&password={PW}&password2=other".encode())
    assert status == 400 and b"differ" in body
    status, _, body = web.post("/register", b"name=bob&password=short&password2=short")
    assert status == 400
    status, _, body = web.post("/login", b"password=x")
    assert status == 400
    status, _, body = web.get('/login?next="><script>x</script>')
    assert status == 200 and b"<script>x" not in body
    serving(d)


def test_login_throttle_is_shared_with_telnet(daemon, clients):
    d = daemon
    register(d, "carol")
    codes = [Web(d.http).post("/login", b"name=carol&password=wrongwrong")[0] for _ in range(12)]
    assert codes[0] == 403 and 429 in codes, codes
    # telnet from the same address is throttled by the same accounts
    t = clients(d.port).connected()
    t.try_login("carol", PW)
    t.wait_for(re.compile(r"(?i)too many|wait|try again"))
    serving(d)


def test_expired_sessions_and_old_read_mail_are_deleted(daemon):
    """Retention (server/core/retention.c), soon after start: an expired web
    login's row and mail read more than 30 days ago leave the database
    file; a live login and unread or recent mail stay."""
    d = daemon
    tok, _, _ = register(d, "Keeper")
    uid = d.db_rows("SELECT id FROM users WHERE name = 'Keeper'")[0][0]
    now = int(time.time())
    mail = "INSERT INTO mail(recipient, sender, sent, text, seen) VALUES (?, ?, ?, ?, ?)"
    with d.stopped():
        d.db_write(("INSERT INTO sessions(token_hash, user, expires) VALUES (?, ?, ?)",
                    ("e" * 64, uid, now - 60)),
                   (mail, (uid, uid, now - 31 * 86400, "old and read", 1)),
                   (mail, (uid, uid, now - 31 * 86400, "old, never read", 0)),
                   (mail, (uid, uid, now - 86400, "read yesterday", 1)))
    d.wait_log(r"retention: 1 expired web sessions deleted")
    d.wait_log(r"retention: 1 read mails deleted")
    assert d.db_rows("SELECT count(*) FROM sessions WHERE token_hash = ?", "e" * 64) == [(0,)]
    live = hashlib.blake2b(tok.encode(), digest_size=32).hexdigest()
    assert d.db_rows("SELECT count(*) FROM sessions WHERE token_hash = ?", live) == [(1,)]
    kept = sorted(t for (t,) in d.db_rows("SELECT text FROM mail"))
    assert kept == ["old, never read", "read yesterday"]
    lobby = WS(d.http, "/ws/lobby", session=tok)
    assert lobby.json_until(lambda m: m["t"] == "hello")["user"] == "Keeper"
    lobby.close()


# ---- websockets ----------------------------------------------------------------------

def test_play_needs_a_valid_cookie(daemon):
    d = daemon
    for c in (None, "A" * 22, "not-a-real-token"):
        ws = WS(d.http, "/ws/play", session=c)
        assert ws.status == 101
        assert ws.json_until(lambda m: m["t"] == "login")
        assert ws.close_code() == 1008
    ws = WS(d.http, "/ws/watch/nobody_here")
    m = ws.json_until(lambda m: m["t"] == "left")
    assert "not playing" in m["text"] and ws.close_code() == 1008
    serving(d)


def test_play_watch_json_frames_lobby_and_chat(daemon):
    d = daemon
    tok, _, _ = register(d, "dora")
    wtok, _, _ = register(d, "eve")
    play = play_socket(d.http, tok)
    # a watcher asking for JSON frames gets a keyframe at the player's size
    watch = WS(d.http, "/ws/watch/DORA", session=wtok)
    watch.text(json.dumps({"t": "frames", "format": "json"}))
    # the watchers' count comes with the next tick: maybe before a frame
    seen = []

    def frame(key):
        return lambda m: seen.append(m) or (m["t"] == "f" and m["key"] == key)

    key = watch.json_until(frame(True))
    assert key["w"] == 100 and key["h"] == 30
    grid = {}
    for y, x, txt, *_ in key["runs"]:
        for i, ch in enumerate(txt):
            grid[(x + i, y)] = ch
    assert "@" in grid.values()
    play.binary(b".")
    f = watch.json_until(frame(False))
    assert f["seq"] > key["seq"] and f["runs"]
    counts = [m for m in seen if m["t"] == "watchers"]
    status = counts[-1] if counts else watch.json_until(lambda m: m["t"] == "watchers")
    assert status["n"] == 1 and status["chat"] is True
    # the lobby lists the game and sends a preview keyframe
    lobby = WS(d.http, "/ws/lobby")
    games = lobby.json_until(lambda m: m["t"] == "lobby")["games"]
    g = [g for g in games if g["name"] == "dora"][0]
    assert g["watchers"] == 1 and g["w"] == 100 and g["h"] == 30 and g["depth"] == 0  # the town
    assert set(g) >= {"race", "class", "turn", "idle"}
    pv = lobby.json_until(lambda m: m["t"] == "preview")
    assert pv["name"] == "dora" and pv["frame"]["key"] is True
    # chat: logged-in watcher to everyone; text is passed as text
    watch.text(json.dumps({"t": "chat", "text": "<b>hi</b>\u0007"}))
    m = play.json_until(lambda m: m["t"] == "chat")
    assert m == {"t": "chat", "from": "eve", "player": False, "text": "<b>hi</b> "}
    watch.text(json.dumps({"t": "chat", "text": "x" * 201}))
    assert "200" in watch.json_until(lambda m: m["t"] == "chat_error")["text"]
    for i in range(5):
        watch.text(json.dumps({"t": "chat", "text": f"spam {i}"}))
    assert "fast" in watch.json_until(lambda m: m["t"] == "chat_error")["text"].lower()
    # an anonymous watcher cannot chat
    anon = WS(d.http, "/ws/watch/dora")
    anon.text(json.dumps({"t": "chat", "text": "hello"}))
    assert "Log in" in anon.json_until(lambda m: m["t"] == "chat_error")["text"]
    # the player turns chat off: watchers are refused, everyone is told
    play.text(json.dumps({"t": "chat_off", "off": True}))
    assert watch.json_until(lambda m: m["t"] == "chat_state")["on"] is False
    watch.text(json.dumps({"t": "chat", "text": "still there?"}))
    assert "off" in watch.json_until(lambda m: m["t"] == "chat_error")["text"]
    # keys from watchers do nothing; JSON keys from the player work
    anon.binary(b"q")
    play.text(json.dumps({"t": "i", "data": "."}))
    watch.json_until(lambda m: m["t"] == "f" and not m["key"])
    for ws in (play, watch, lobby, anon):
        ws.close()
    serving(d)


def test_game_end_and_detach_send_the_browser_home(daemon):
    d = daemon
    tok, _, _ = register(d, "fred")
    play = play_socket(d.http, tok)
    play.binary(b"\x18")  # Ctrl-X: leave, the game stays saved
    m = play.json_until(lambda m: m["t"] == "left")
    # the lobby it goes back to has no p key: it says the Play link instead
    assert m["text"] == "Your game is saved: Play continues it.", m["text"]
    assert play.close_code() == 1000
    # a new socket resumes the same game
    play = play_socket(d.http, tok)
    play.close()
    serving(d)


def test_the_accounts_options_reach_the_browser(daemon, clients):
    """Options chosen over telnet (colours off, plain ASCII glyphs, the turn
    counter) apply to the same account's game in the browser too."""
    d = daemon
    tok, _, _ = register(d, "opal")
    t = options_menu(clients(d.port), "opal", pw=PW, new=False)
    t.send("cc")
    t.wait_for("Colours: off")
    for _ in range(4):
        t.send("g")
    t.wait_for("Map glyphs: plain ASCII")
    t.send("n")
    t.wait_for("Turn counter: on")
    t.close()
    ws = WS(d.http, "/ws/play", session=tok)
    assert ws.status == 101
    ws.text(json.dumps({"t": "resize", "w": 100, "h": 30}))
    drawn = b""
    ws.s.settimeout(10)
    end = time.time() + 10
    while b"Turn" not in drawn and time.time() < end:
        op, p = ws.recv()
        if op == 2:
            drawn += p
            if b"who are you" in p:
                ws.binary(b"*")
    assert b"Turn" in drawn, drawn[-400:]
    ws.binary(b".")
    drawn += ws.until(lambda op, p: op == 2, timeout=10)[1]
    assert colour_params(drawn) == [], colour_params(drawn)[:10]
    assert all(b < 0x80 for b in drawn) and b"\x1b(0" not in drawn
    ws.close()
    serving(d)


# ---- abuse ------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    b"HELLO\r\n\r\n",
    b"\x00\xff\xfe\x16\x03\x01\x02\x00" * 64,
    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 200000 + b"\r\n\r\n",
    b"GET /login HTTP/1.1\r\nHost: x\r\nCookie: warren_session=" + b"c" * 9000 + b"\r\n\r\n",
    b"GET /../../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 99999\r\n\r\nname=a",
    b"POST /register HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n" + b"n" * 20000,
    b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n%zz%00&&&===",
    b"GET /ws/play HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n",
], ids=lambda v: repr(v[:28]))
def test_http_abuse_gets_clean_errors(daemon, data):
    resp = raw(daemon.http, data)
    assert b"root:" not in resp
    if resp:
        assert re.match(rb"HTTP/1\.[01] [2-5]\d\d ", resp), resp[:120]
        assert not (resp.startswith(b"HTTP/1.1 200") and b"root:" in resp)
    serving(daemon)


@pytest.mark.parametrize("payload,code", [
    (b"not json", 1007),
    (b"[1]", 1007),
    (b'{"t":5}', 1007),
    (b'{"t":"resize","w":"x","h":1}', 1007),
    (b"[" * 5000, 1007),
])
def test_bad_websocket_messages_close_cleanly(daemon, payload, code):
    d = daemon
    tok, _, _ = register(d, "gina")
    play = play_socket(d.http, tok)
    play.text(payload)
    assert play.close_code() == code
    serving(d)


def test_oversized_and_odd_websocket_messages(daemon):
    d = daemon
    tok, _, _ = register(d, "hank")
    play = play_socket(d.http, tok)
    play.binary(b"x" * 200000)
    assert play.close_code() == 1009
    play = play_socket(d.http, tok)
    for msg in ({"t": "i", "data": 5}, {"t": "k", "key": "Nope", "extra": 1}, {"t": "frames", "format": "x"},
                {"t": "chat_off", "off": "yes"}, {"t": "whatever"}):
        play.text(json.dumps(msg))
    errs = [play.json_until(lambda m: m["t"] == "error") for _ in range(4)]
    assert all(e["text"] for e in errs)
    play.binary(b".")  # still playing
    play.until(lambda op, p: op == 2)
    play.close()
    serving(d)


# ---- the browser -------------------------------------------------------------------------

def test_browser_register_play_reload_watch_and_telnet_takeover(daemon, clients):
    d = daemon
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = "Wendy"
    proc = subprocess.Popen(["node", str(ROOT / "tests" / "web" / "daemon.mjs"),
                             f"http://127.0.0.1:{d.http}", str(ARTIFACTS), name, PW],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, bufsize=1)
    tel = None
    out = None
    seen = {}
    try:
        for line in proc.stdout:
            if line.startswith("STEP telnet-take"):
                tel = clients(d.port, cols=100, rows=30).connected()
                tel.login(name, PW)
                tel.send("p")
                tel.wait_for(f"{name} the")
                seen["telnet_turn"] = int(re.search(r"Turn (\d+)", tel.text()).group(1))
                proc.stdin.write("ok\n")
                proc.stdin.flush()
            elif line.startswith("STEP browser-took"):
                tel.wait_for("taken over")
                seen["telnet_menu"] = tel.text()
                proc.stdin.write("ok\n")
                proc.stdin.flush()
            elif line.startswith("{"):
                out = json.loads(line)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out, proc.stderr.read()
    assert proc.returncode == 0 and not out["errors"], out["errors"]
    # the cookie: HttpOnly (scripts cannot read it), SameSite=Strict
    assert out["cookieFlags"] == [{"httpOnly": True, "sameSite": "Strict"}]
    assert "warren_session" not in out["cookieFromScript"]
    # keys moved the '@' and passed turns; a reload resumed the same turn
    assert out["before"] and out["after"] and out["after"] != out["before"]
    assert out["turnAfter"] >= out["turnBefore"] + 3
    assert out["sizeReloaded"] == out["size"]
    assert out["turnReloaded"] == out["turnAfter"] and out["atReloaded"] == out["after"]
    # a dropped connection came back by itself
    assert out["blipReconnects"] >= 1
    # the watcher saw the player's screen and the count
    assert out["watchSame"] and out["watchersText"] == "1 watching"
    # the end of the game: its last words in the lobby, the page a link
    assert "Your game is over." in out["endNotice"], out["endNotice"]
    assert "Game over: quit" in out["endNotice"], out["endNotice"]
    assert re.fullmatch(rf"http://127\.0\.0\.1:{d.http}/game/\d+", out["endLink"]), out["endLink"]
    # chat: the anonymous watcher may not write; markup arrived as text
    assert out["watcherChatDisabled"]
    assert out["chatSeen"] == f"{name} (player): <img src=x onerror=alert(1)> hello"
    assert out["chatImgs"] == 0 and out["dialogs"] == 0
    # chat turned off: the player is told what that means (and may still
    # write), the watcher who turned it off
    assert out["chatOffNotes"] == {"play": "Chat is off: watchers cannot write here.",
                                   "watch": "The player turned chat off.",
                                   "playInput": False}, out["chatOffNotes"]
    # the lobby row and a lit preview
    assert name in out["lobbyRow"]
    # the preview is the game's screen as text at a small but real font size
    pv = out["preview"]
    assert f"{name} the" in pv["text"] and f"Turn {out['turnAfter'] + 1}" in pv["text"], pv["text"]
    assert 7 <= pv["font"] <= 10 and pv["rows"] == out["size"][1], pv
    assert pv["href"] == f"/watch/{name}/warren"  # the game too: a player may play two
    # the page's terminal drew what the game's screen holds (the preview is
    # that screen as text; the page's is the frames' ANSI as xterm.js read
    # it, REP's repeated glyphs and scrolled rows included)
    shown = [l.rstrip() for l in out["playLines"][: out["size"][1]]]
    held = [l.rstrip() for l in pv["text"].split("\n")[: out["size"][1]]]
    # (but the chat line, said after the page's screen was read)
    differ = [(i, a, b) for i, (a, b) in enumerate(zip(shown, held)) if a != b and "hello" not in b]
    assert len(held) == len(shown) and not differ, differ
    assert any(re.search(r"([!-~])\1{5}", l) for l in shown), shown  # runs REP draws
    px = png_pixels(ARTIFACTS / "daemon-preview.png")
    lit = sum(1 for row in px for (r_, g, b, *_) in row if r_ + g + b > 200)
    assert lit > 300, "the preview screenshot is blank"
    # telnet took the game at the browser's turn; the browser was told and sent home
    assert seen["telnet_turn"] == out["turnAfter"] + 1
    assert "taken over" in out["takenNotice"]
    assert out["takenBackTurn"] == seen["telnet_turn"]
    assert "taken over" in seen["telnet_menu"] and "Press any key" in seen["telnet_menu"]
    # the terminal really painted (not only its buffer)
    px = png_pixels(ARTIFACTS / "daemon-play-term.png")
    lit = sum(1 for row in px for (r_, g, b) in row if r_ + g + b > 200)
    assert lit > 500, "the play screenshot is blank"
    serving(d)


def test_a_watcher_that_falls_behind_gets_a_keyframe_and_the_same_screen(start_daemon):
    import pyte
    import socket as so
    d = start_daemon(http=True, extra=["--output-queue", "4096", "--input-rate", "1000000"])
    tok, _, _ = register(d, "ivy")
    play = play_socket(d.http, tok, 80, 24)
    # a watcher with a tiny receive window that does not read for a while
    watch = WS(d.http, "/ws/watch/ivy", rcvbuf=2048)
    time.sleep(0.3)
    # big frames: every resize is a keyframe for everyone
    for i in range(60):
        w, h = (200, 60) if i % 2 else (120, 40)
        play.text(json.dumps({"t": "resize", "w": w, "h": h}))
    # the watcher's own size: the message history sits over the map, so
    # the two screens agree only at one size
    play.text(json.dumps({"t": "resize", "w": 80, "h": 24}))
    play.binary(b"\x10")
    time.sleep(1.0)
    # the player's final screen: a fresh socket resumes with a keyframe
    play.close()
    fresh = WS(d.http, "/ws/play", session=tok)
    fresh.text(json.dumps({"t": "resize", "w": 80, "h": 24}))
    pscr = pyte.Screen(80, 24)
    pst = pyte.ByteStream(pscr)
    end = time.time() + 3
    fresh.s.settimeout(0.5)
    while time.time() < end:
        try:
            op, p = fresh.recv()
        except (TimeoutError, so.timeout):
            break
        if op == 2:
            pst.feed(p)
    # the watcher now reads everything it was sent
    wscr = pyte.Screen(80, 24)
    wst = pyte.ByteStream(wscr)
    keyframes = 0
    watch.s.settimeout(1.0)
    while True:
        try:
            op, p = watch.recv()
        except (TimeoutError, so.timeout):
            break
        if op == 2:
            keyframes += b"\x1b[H\x1b[2J" in p
            wst.feed(p)
    assert keyframes >= 2, keyframes
    # what it sees at the end is the player's screen (its status line
    # counts one watcher less: the fresh player socket is not watching)
    assert wscr.display[:22] == pscr.display[:22]
    log = d.log()
    assert "runtime error" not in log and "AddressSanitizer" not in log
    serving(d)
