"""A running warrend tried by a hostile client with real sockets: sizes
sent in a flood (telnet NAWS and TTYPE, websocket resizes and format
changes) are drawn at most once every 100 ms, the latest winning, so a
few bytes no longer buy a whole redraw of the game each; the Unix socket
for local clients has its mode whatever the umask; a request head that
libwebsockets would drop without a word is answered at the door; a flood
of bad requests or connections costs the log a few lines, the rest
counted (server/core/logcap.h)."""
import concurrent.futures
import json
import os
import re
import socket
import stat
import time

import pyte
import pytest

from harness import PW, WS, Web, play_socket, raw, raw_read, status_of
from players import web_session as register

IAC, SB, SE = 255, 250, 240
NAWS, TTYPE = 31, 24
KEYFRAME = b"\x1b(B\x1b[m\x1b[H\x1b[2J"  # a screen drawn whole (protocol/ansi.c)
FLOOD = 600  # size changes sent at once: within the input rate given below


def naws(w, h):
    return bytes([IAC, SB, NAWS, w >> 8, w & 255, h >> 8, h & 255, IAC, SE])


def ttype_is(name):
    return bytes([IAC, SB, TTYPE, 0]) + name.encode() + bytes([IAC, SE])


def read_until(s, needle, timeout=15):
    """A raw client's bytes read until needle shows."""
    data, end = b"", time.time() + timeout
    s.settimeout(0.2)
    while needle not in data:
        assert time.time() < end, f"no {needle!r} in {data[-400:]!r}"
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        assert chunk, f"closed before {needle!r}: {data[-400:]!r}"
        data += chunk
    return data


def telnet_player(port, name):
    """A raw telnet client registered as name, in a new game at 100x30."""
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(naws(100, 30))
    read_until(s, b"Your choice")
    for key, prompt in ((b"r", b"Name:"), (name.encode() + b"\r", b"Password:"),
                        (PW.encode() + b"\r", b"again:"), (PW.encode() + b"\r", b"Logged in as"),
                        (b"p", b"Choose a race"), (b"l", b"Welcome")):
        s.sendall(key)
        read_until(s, prompt)
    raw_read(s, 0.5)
    return s


def shows_status_at(drawn, w, h):
    """drawn, played on a w x h terminal, ends with the game's status line
    (its HP) on one of the bottom rows."""
    screen = pyte.Screen(w, h)
    pyte.ByteStream(screen).feed(drawn[drawn.rfind(KEYFRAME):])
    return any("HP " in row for row in screen.display[-3:]), "\n".join(screen.display)


@pytest.mark.daemon(extra=["--input-rate", "20000"])
def test_a_telnet_size_flood_is_drawn_at_most_every_100_ms(daemon):
    d = daemon
    s = telnet_player(d.port, "wobbler")
    # NAWS that never stops changing, then the size the terminal settles at
    flood = b"".join(naws(100 + i % 2, 30) for i in range(FLOOD)) + naws(120, 40)
    t0 = time.time()
    s.sendall(flood)
    drawn = raw_read(s, 1.0)
    frames = drawn.count(KEYFRAME)
    # one at once, then the latest held for 100 ms: not one a size
    assert 1 <= frames <= 2 + int((time.time() - t0) / 0.1), frames
    ok, screen = shows_status_at(drawn, 120, 40)
    assert ok, screen
    # a new terminal type draws the game whole again: paced the same
    s.sendall(b"".join(ttype_is(f"xterm-{i % 2}") for i in range(FLOOD)))
    frames = raw_read(s, 1.0).count(KEYFRAME)
    assert 1 <= frames <= 12, frames
    # the game goes on at the size it was last told
    s.sendall(naws(100, 30))
    ok, screen = shows_status_at(raw_read(s, 0.5), 100, 30)
    assert ok, screen
    s.close()


@pytest.mark.daemon(http=True)
def test_a_websocket_size_flood_is_drawn_at_most_every_100_ms(daemon):
    d = daemon
    play = play_socket(d.http, register(d.http, "stretcher"))
    sizes = [json.dumps({"t": "resize", "w": 100 + i % 2, "h": 30}) for i in range(FLOOD)]
    t0 = time.time()
    for m in sizes + [json.dumps({"t": "resize", "w": 120, "h": 40})]:
        play.text(m)
    frames, drawn, end = 0, b"", time.time() + 1.0
    play.s.settimeout(0.1)
    while time.time() < end:
        try:
            op, p = play.recv()
        except socket.timeout:
            continue
        if op == 2 and KEYFRAME in p:
            frames += 1
            drawn = p
    assert 1 <= frames <= 2 + int((time.time() - t0) / 0.1), frames
    ok, screen = shows_status_at(drawn, 120, 40)
    assert ok, screen
    # a format asked for again and again: a keyframe each time before
    for _ in range(FLOOD // 2):
        play.text(json.dumps({"t": "frames", "format": "ansi"}))
    frames, end = 0, time.time() + 1.0
    while time.time() < end:
        try:
            op, p = play.recv()
        except socket.timeout:
            continue
        frames += op == 2 and KEYFRAME in p
    assert 1 <= frames <= 12, frames
    play.close()


@pytest.mark.daemon(unix=True, popen={"preexec_fn": lambda: os.umask(0)})
def test_the_local_socket_is_0770_whatever_the_umask(daemon):
    mode = os.stat(daemon.sock).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o770, oct(mode)


@pytest.mark.daemon(http=True)
def test_what_libwebsockets_would_drop_is_answered_at_the_door(daemon):
    """A target with %00 or a '%' without two hex digits, or a head whose
    fields and query parameters together pass what libwebsockets holds:
    each was dropped without an answer (or answered by lws's own 403);
    now 400 or 431 from the door, and the listener goes on serving."""
    d = daemon

    def get(target, fields=()):
        head = f"GET {target} HTTP/1.1\r\nHost: x\r\n" + "".join(f"{f}\r\n" for f in fields)
        return status_of(raw(d.http, (head + "\r\n").encode(), timeout=3))

    for target in ("/health?x=%00", "/health%00", "/health?%00=1", "/health?x=%zz",
                   "/he%zzalth", "/health?x=%", "/health?x=%0"):
        assert get(target) == 400, target
    params = "&".join(f"p{i}=1" for i in range(95))
    assert get("/api/scores?" + params) == 431
    assert get("/health", [f"Accept-Language: x{i}" for i in range(92)]) == 431
    assert get("/health?" + "&".join(f"p{i}=1" for i in range(60))) == 200
    assert get("/health?x=%c3%a9&y=a%20b") == 200
    Web(d.http).assert_serving()


@pytest.mark.daemon(http=True)
def test_a_body_libwebsockets_would_drop_is_answered_at_the_door(daemon):
    """A POST whose body is chunked, or whose Content-Length is too large, no
    number or given twice differently, was dropped without a word; now 411,
    413 or 400 from the door, and a proper one still goes through."""
    d = daemon

    def post(fields, body=b""):
        head = ("POST /login HTTP/1.1\r\nHost: x\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                + "".join(f"{f}\r\n" for f in fields) + "\r\n")
        return raw(d.http, head.encode() + body, timeout=3)

    chunked = post(["Transfer-Encoding: chunked"], b"5\r\nname=\r\n0\r\n\r\n")
    assert status_of(chunked) == 411 and b"Content-Length" in chunked, chunked
    assert status_of(post(["Content-Length: 99999999999"])) == 413
    assert status_of(post(["Content-Length: 16385"])) == 413
    assert status_of(post(["Content-Length: -1"])) == 400
    assert status_of(post(["Content-Length: 5", "Content-Length: 50"], b"name=")) == 400
    assert status_of(post(["Content-Length: 5", "Transfer-Encoding: chunked"], b"name=")) == 411
    assert status_of(post(["Content-Length: 11"], b"name=x&pw=y")) in (200, 400, 403)  # the form
    Web(d.http).assert_serving()


@pytest.mark.daemon(http=True)
def test_a_body_sent_a_byte_at_a_time_does_not_hold_the_connection(daemon):
    """A POST whose body trickles in (a byte every few seconds, each within
    libwebsockets' wait for the next) is answered 408 and closed once its
    body has taken 30 s, not held for as long as the client likes."""
    d = daemon
    s = socket.create_connection(("127.0.0.1", d.http), timeout=5)
    s.sendall(b"POST /login HTTP/1.1\r\nHost: x\r\n"
              b"Content-Type: application/x-www-form-urlencoded\r\n"
              b"Content-Length: 10000\r\n\r\n")
    start, got = time.time(), b""
    s.settimeout(0.5)
    while time.time() - start < 60 and not got:
        try:
            s.sendall(b"a")
            got = s.recv(4096)
            if not got:
                break
        except socket.timeout:
            time.sleep(4)
        except (BrokenPipeError, ConnectionResetError):
            break
    took = time.time() - start
    got += raw_read(s, 3) if got else b""  # the rest of the answer, until it closes
    s.close()
    assert status_of(got) == 408 and b"too slowly" in got, (took, got[:200])
    assert 29 < took < 40, took
    Web(d.http).assert_serving()


# ---- the log's cap on lines others can make it write (server/core/logcap.h) ----

WINDOW = 10  # s: LOGCAP_WINDOW_MS, a kind said once per address in it
HELD = re.compile(r"\((\d+) such lines held back\)")


def accounted(log, line, kind):
    """(lines, events) of one kind: the log's lines matching line, and the
    events they stand for: the lines, the counts held back they say, and
    the counts the tick says of a kind quiet for a window."""
    lines = [ln for ln in log.splitlines() if re.search(line, ln)]
    held = sum(int(m.group(1)) for ln in lines for m in HELD.finditer(ln))
    flushed = sum(map(int, re.findall(rf'held back: (\d+) lines of "{re.escape(kind)}"', log)))
    return len(lines), len(lines) + held + flushed


def wait_accounted(d, line, kind, want, timeout=WINDOW + 8):
    """accounted, once it stands for want events (or time is up)."""
    end = time.time() + timeout
    while True:
        got = accounted(d.log(), line, kind)
        if got[1] >= want or time.time() > end:
            return got
        time.sleep(0.2)


def bad_registration(port, source=None):
    """A registration whose password is too short: refused, a log line."""
    body = b"name=flooder&password=short&password2=short"
    head = ("POST /register HTTP/1.1\r\nHost: x\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    return status_of(raw(port, head + body, timeout=10, source=source))


def new_lines(d, since):
    """The log's lines since line since, but the loop's own stall
    warnings: they say how busy the machine is, not what the flood
    made the log say."""
    return [line for line in d.log().splitlines()[since:] if "WARN loop stalled" not in line]


@pytest.mark.daemon(http=True)
def test_a_flood_of_bad_requests_costs_the_log_a_few_lines(daemon):
    """2,000 bad registrations from one address in a few seconds, a line
    each before: the first is said, the rest held back and counted; a
    second address's line is said at once and says the count; what is
    still held is said once the kind has been quiet for a window; the
    daemon answers all along."""
    d = daemon
    n, start = 2000, len(d.log().splitlines())
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: bad_registration(d.http), range(n)))
    took = time.time() - t0
    assert len(set(statuses)) == 1 and statuses[0] >= 400, set(statuses)
    Web(d.http).assert_serving()  # answered all along
    grown = new_lines(d, start)
    assert len(grown) <= 4 + 2 * int(took // WINDOW), "\n".join(grown[:40])
    # another address: said at once, with what the flood's were held back
    assert bad_registration(d.http, source="127.0.0.2") == statuses[0]
    m = d.wait_log(r"web register failed ip=127\.0\.0\.2 status=-1( \((\d+) such lines)?", 5)
    if took < WINDOW - 1:  # the flood's own window still runs: all but its first held
        assert m.group(2) and int(m.group(2)) == n - 1, m.group(0)
    # more from the flood's address, held; said by the tick after a window
    for _ in range(50):
        bad_registration(d.http)
    lines, events = wait_accounted(d, r"web register failed ip=", "web register failed", n + 51)
    assert events == n + 51, d.log()[-3000:]
    assert lines <= 3 + 2 * int((time.time() - t0) // WINDOW), d.log()[-3000:]
    assert re.search(r'held back: \d+ lines of "web register failed" in \d+ s '
                     r"\(the last from 127\.0\.0\.1\)", d.log()), d.log()[-3000:]


UNTRUSTED_PROXY = b"PROXY TCP4 203.0.113.9 10.0.0.2 40000 23\r\n"


@pytest.mark.daemon()
def test_a_flood_of_strangers_on_telnet_costs_the_log_a_few_lines(daemon):
    """300 connections from one address, each with a PROXY header it may
    not send: three lines each before (connect, refused, disconnect); now a
    few of each kind, the rest counted; another address's refusal is said
    at once, and a player still gets the menu."""
    d = daemon
    n, start = 300, len(d.log().splitlines())
    t0 = time.time()
    for _ in range(n):
        assert b"only from a proxy-from address" in raw(d.port, UNTRUSTED_PROXY, timeout=5)
    took = time.time() - t0
    got = raw(d.port, UNTRUSTED_PROXY, source="127.0.0.2")
    assert b"only from a proxy-from address" in got
    d.wait_log(r"PROXY header from ip=127\.0\.0\.2, not a proxy-from address", 5)
    s = socket.create_connection(("127.0.0.1", d.port))
    assert b"Your choice" in raw_read(s, 5, b"Your choice")  # the daemon answers
    s.close()
    time.sleep(0.3)
    grown = new_lines(d, start)
    # connect and disconnect a few times from an address, the refusal once
    assert len(grown) <= (2 + 2 * int(took // WINDOW)) * 11 + 3, "\n".join(grown[:60])
    for line, kind, want in ((r"PROXY header from ip=\S+, not a proxy-from", PROXY_KIND, n + 1),
                             (r"INFO connect conn=\d+ ip=127\.", "connect", n + 2),
                             (r"INFO disconnect conn=\d+ ip=127\.", "disconnect", n + 2)):
        lines, events = wait_accounted(d, line, kind, want)
        assert events == want, (kind, lines, events, d.log()[-3000:])
        assert lines < 20, (kind, lines)


PROXY_KIND = "telnet PROXY header from an untrusted address"


# ---- chat from many connections of one account (server/screens/chat.c) ----

def chats(ws, seconds):
    """The chat lines a websocket hears in the next seconds, as (from, text)."""
    got, end = [], time.time() + seconds
    ws.s.settimeout(0.1)
    while time.time() < end:
        try:
            op, p = ws.recv()
        except socket.timeout:
            continue
        if op == 1 and json.loads(p)["t"] == "chat":
            m = json.loads(p)
            got.append((m["from"], m["text"]))
    return got


@pytest.mark.daemon(http=True)
def test_one_account_chats_at_one_rate_however_many_sockets_it_opens(daemon):
    """Chat is paced by the speaker, not by the socket: ten watch sockets
    of one account, each sending its socket's burst of three lines at
    once, put 30 lines on the player's game and screens before; now the
    account's burst passes and the rest are told "Too fast". Another
    watcher says its line meanwhile."""
    d = daemon
    play = play_socket(d.http, register(d.http, "chatted"))
    spam = register(d.http, "spammer")
    socks = [WS(d.http, "/ws/watch/chatted", session=spam) for _ in range(10)]
    friend = WS(d.http, "/ws/watch/chatted", session=register(d.http, "friend"))
    for w in socks + [friend]:
        assert w.status == 101
        w.json_until(lambda m: m["t"] == "watchers")  # watching: its first frame is out
    for i, w in enumerate(socks):
        for j in range(3):
            w.text(json.dumps({"t": "chat", "text": f"spam {i}.{j}"}))
    friend.text(json.dumps({"t": "chat", "text": "hello"}))
    heard = chats(play, 1.5)
    spammed = [t for f, t in heard if f == "spammer"]
    assert len(spammed) <= 4, spammed  # the account's burst of 3, one more at 1 a second
    assert ("friend", "hello") in heard, heard
    refused = 0
    for w in socks:
        try:
            w.json_until(lambda m: m["t"] == "chat_error" and "Too fast" in m["text"], 0.5)
            refused += 1
        except (AssertionError, socket.timeout):
            pass
    assert refused >= 7, refused
    # a second later the account may speak again
    time.sleep(1.2)
    socks[0].text(json.dumps({"t": "chat", "text": "later"}))
    assert ("spammer", "later") in chats(play, 1.0)
    for w in socks + [friend, play]:
        w.close()


# ---- a player coming and going at will (server/core/session.c) ----

@pytest.mark.daemon(http=True)
def test_a_player_coming_and_going_costs_the_log_a_few_lines(daemon):
    """One account opens its game's socket again and again, each taking
    the game over from the one before, then closing: three lines each
    before (attach, takeover, detach), thousands in seconds; now each kind
    a few times a window from one address and account, the rest counted.
    The game goes on, and another player's lines are said meanwhile."""
    d = daemon
    tok = register(d.http, "comer")
    play_socket(d.http, tok).close()
    start = len(d.log().splitlines())
    t0, n = time.time(), 300
    socks = []
    for i in range(n):
        ws = WS(d.http, "/ws/play", session=tok)
        assert ws.status == 101
        ws.text(json.dumps({"t": "resize", "w": 100, "h": 30}))
        # its game's frame: attached (a socket closed before never is)
        ws.until(lambda op, p: op == 2 and b"HP " in p, timeout=10)
        socks.append(ws)
        if len(socks) > 2:  # a takeover each, and a detach now and then
            socks.pop(0).close()
    for ws in socks:
        ws.close()
    took = time.time() - t0
    other = play_socket(d.http, register(d.http, "bystander", source="127.0.0.2"))
    d.wait_log(r"attach user=bystander game=\d+ conn=\d+")
    grown = new_lines(d, start)
    for kind in ("attach", "takeover", "detach"):
        said = [ln for ln in grown if f" {kind} user=comer " in ln]
        assert len(said) <= 10 * (1 + int(took // WINDOW)), (kind, len(said), took)
    assert sum(f" attach user=comer " in ln for ln in grown) >= 1
    # what was held back is said: on the next line of its kind, or by the tick
    lines, events = wait_accounted(d, r" attach user=", "attach", n)
    assert events >= n, (lines, events)
    play_socket(d.http, tok).close()  # the game goes on
    other.close()


@pytest.mark.daemon()
def test_the_chat_key_pressed_at_will_costs_the_log_a_few_lines(daemon):
    """A player holding down the chat key (Ctrl-T: shown, hidden, off)
    turned chat off and on 1,500 times in a second, each time a log line
    and, with several nodes, a database write telling the others; now the
    key works 4 times a second, bursts of 8 (more are told "Too fast"),
    and its lines are under the log's cap."""
    d = daemon
    s = telnet_player(d.port, "toggler")
    start = len(d.log().splitlines())
    t0 = time.time()
    s.sendall(b"\x14" * 1500)  # within the input rate's burst
    drawn = raw_read(s, 1.5)
    assert b"Too fast" in drawn, drawn[-300:]
    said = [ln for ln in new_lines(d, start) if " chat user=toggler " in ln]
    assert 1 <= len(said) <= 10, len(said)
    lines, events = wait_accounted(d, r" chat user=toggler ", "chat on, hidden or off", 1500,
                                   timeout=WINDOW + 3)
    assert 8 <= events <= 8 + 4 * (time.time() - t0), (lines, events)
    s.close()


@pytest.mark.daemon(http=True)
def test_a_browser_turning_chat_off_and_on_at_will_is_paced(daemon):
    """A player's browser sending chat off, on, off... 2,000 times at once
    sent each change to every browser watching (and, with several nodes,
    wrote each to the database for the others); now the chat key's pace,
    4 a second, bursts of 8, and the player's browser is told the state."""
    d = daemon
    play = play_socket(d.http, register(d.http, "switcher"))
    watcher = WS(d.http, "/ws/watch/switcher", session=register(d.http, "looker"))
    watcher.json_until(lambda m: m["t"] == "watchers")
    t0 = time.time()
    for i in range(2000):
        play.text(json.dumps({"t": "chat_off", "off": i % 2 == 0}))
    states, end = 0, time.time() + 1.5
    watcher.s.settimeout(0.1)
    while time.time() < end:
        try:
            op, p = watcher.recv()
        except socket.timeout:
            continue
        states += op == 1 and json.loads(p)["t"] == "chat_state"
    assert 1 <= states <= 8 + 4 * (time.time() - t0), states
    assert play.json_until(lambda m: m["t"] == "chat_state")  # the player's browser hears
    watcher.close()
    play.close()
