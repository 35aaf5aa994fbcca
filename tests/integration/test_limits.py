"""Limits of the real warrend, tried as an attacker would, with real
sockets from several loopback addresses (any 127.x.y.z is this machine):
one connection budget for telnet and the web (503, websocket close 1013),
the request rate per address (429 with Retry-After, 1013, a line on
telnet), the input rate for websocket JSON keys (journal rows in
SQLite), running out of file descriptors under prlimit, X-Forwarded-For
and -Proto from trusted and untrusted peers, login throttles a stranger
cannot turn against the owner, foreign form posts (login CSRF), a
password change ending the other web sessions, and what the door does
with odd HTTP."""
import json
import os
import re
import socket
import subprocess
import time

import pytest

from harness import PW, WS, Daemon, Web, admin, play_socket, program, raw, raw_read, status_of
from players import web_session as register

A, B, C = "127.0.0.2", "127.0.0.3", "127.0.0.4"


def hello_user(port, session, **kw):
    """Who the lobby socket says the session belongs to (None: nobody)."""
    ws = WS(port, "/ws/lobby", session=session, **kw)
    assert ws.status == 101
    m = ws.json_until(lambda m: m["t"] == "hello")
    ws.close()
    return m["user"]


def eventually(pred, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def cpu_seconds(pid):
    """User and system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def round_trip(t):
    """Seconds for the menu to answer a telnet player twice (w, then q)."""
    t0 = time.time()
    t.send("w", settle=False)
    t.wait_for("Live games", timeout=5)
    t.send("q", settle=False)
    t.wait_for("Your choice", timeout=5)
    return time.time() - t0


# ---- one budget ------------------------------------------------------------------------

@pytest.mark.daemon(http=True, extra=["--max-per-ip", "3"])
def test_one_budget_for_telnet_and_web(daemon, clients):
    d = daemon
    t1 = clients(d.port).connected()
    clients(d.port).connected()
    lobby = WS(d.http, "/ws/lobby")
    assert lobby.status == 101
    lobby.json_until(lambda m: m["t"] == "hello")
    # the fourth connection from this address, whichever door it takes
    ws = WS(d.http, "/ws/lobby")
    assert ws.status == 101 and ws.close_code() == 1013
    r = Web(d.http).get("/")
    assert r.status == 503 and b"try again" in r.body, r
    clients(d.port).wait_for("Too many connections from your address")
    # another address has its own budget
    assert hello_user(d.http, None, source=A) is None
    Web(d.http, source=A).assert_serving()
    # a telnet player leaves: a page fits again
    t1.send("q")
    assert eventually(lambda: Web(d.http).get("/").status == 200)
    lobby.close()
    assert re.search(r"refused http ip=127\.0\.0\.1 reason=per-address limit", d.log())
    assert re.search(r"refused telnet ip=127\.0\.0\.1 reason=per-address limit", d.log())


# ---- input rate --------------------------------------------------------------------------

def journal_rows(d, name):
    return d.db_rows("SELECT count(*) FROM journal j JOIN games g ON g.id = j.game "
                     "JOIN users u ON u.id = g.user WHERE u.name = ?", name)[0][0]


@pytest.mark.daemon(http=True, extra=["--input-rate", "50"])
@pytest.mark.alone  # times itself
def test_websocket_key_flood_obeys_the_input_rate(daemon):
    d = daemon
    play = play_socket(d.http, register(d.http, "flooder"))
    time.sleep(1.0)  # the bucket refills to its burst (4 x 50 keys)
    before = journal_rows(d, "flooder")
    msg = b'{"t":"i","data":"i"}'  # the inventory, open and shut: no game time passes
    sent, t0 = 0, time.time()
    while time.time() - t0 < 2.0:
        for _ in range(200):
            play.text(msg)
        sent += 200
    elapsed = time.time() - t0
    time.sleep(1.0)  # the journal's last rows are committed
    added = journal_rows(d, "flooder") - before
    cap = 4 * 50 + 50 * (elapsed + 1.0) + 5
    assert sent > 10 * cap, sent
    assert 150 <= added <= cap, (added, cap, sent)
    # the drop is logged, once for this 2 s flood (at most once in 10 s)
    drops = re.findall(r"input over the cap conn=\d+ user=flooder dropped=(\d+) bytes", d.log())
    assert len(drops) == 1 and int(drops[0]) > 0, drops
    # and the player is told as often, in the page's status line (outside the terminal)
    told = play.json_until(lambda m: m.get("t") == "status")
    assert told["text"] == "Keys typed faster than 50 a second were dropped.", told
    play.close()
    Web(d.http).assert_serving()


@pytest.mark.daemon(extra=["--input-rate", "30"])  # its burst holds a registration
def test_a_terminal_player_over_the_input_rate_is_told_over_the_bottom_row(daemon, clients):
    """Keys typed over the cap are dropped, logged, and the player is told
    over the game's bottom row for a few seconds (the game itself untold:
    its other rows as they were); then the game's own row is back."""
    d = daemon
    t = clients(d.port).connected()
    t.register("typist")
    t.random_character("typist")
    rows = t.lines()[1:]  # the top row is the game's messages: the keys clear it
    t.send("i\x1b" * 400)  # the inventory, open and shut: no game time passes
    t.wait_for("Keys typed faster than 30 a second were dropped.", timeout=5)
    assert t.lines()[-1].strip() == "Keys typed faster than 30 a second were dropped.", t.text()
    d.wait_log(r"input over the cap conn=\d+ user=typist dropped=\d+ bytes")
    end = time.time() + 10
    while t.lines()[1:] != rows:  # the note comes down by itself, no key needed
        assert time.time() < end, "\n".join(rows) + "\n----\n" + t.text()
        t.pump(quiet=0.1, limit=0.5)


# ---- descriptors ---------------------------------------------------------------------------

def open_sockets(port, n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        socks.append(s)
    return socks


def set_nofile(pid, soft, hard):
    subprocess.run(["prlimit", "--pid", str(pid), f"--nofile={soft}:{hard}"], check=True)


@pytest.mark.alone  # times itself
def test_out_of_descriptors(start_daemon, clients):
    """Under prlimit the budget stays below the descriptor limit: a flood of
    web sockets is turned away and a player from another address is served.
    With the limit lowered under the running daemon, accept fails (EMFILE):
    it pauses, says so rarely, spins not, and serves the open connections."""
    nofile = 400
    d = start_daemon(http=True, wrap=["prlimit", f"--nofile={nofile}"],
                     extra=["--max-per-ip", "1000"])
    pid = d.proc.pid
    # cut below max-connections: a warning that says why and what to raise
    assert re.search(rf"WARN connections: at most {nofile - 256}, .* cut to the descriptor limit "
                     rf"{nofile} less 256 .*LimitNOFILE", d.log()), d.log()[:2000]
    t = clients(d.port, source=A).connected()
    t.register("keeper")
    lines = len(d.log().splitlines())

    flood = open_sockets(d.http, 450)
    time.sleep(0.5)
    cpu0 = cpu_seconds(pid)
    time.sleep(2.0)
    assert cpu_seconds(pid) - cpu0 < 0.5, "the daemon spins"
    assert round_trip(t) < 1.0
    # the budget ran out before the descriptors did
    assert re.search(r"refused http ip=127\.0\.0\.1 reason=server full", d.log())
    for s in flood:
        s.close()
    assert eventually(lambda: Web(d.http).get("/").status == 200)
    clients(d.port, source=B).connected()

    # descriptors run out under the daemon: accept fails
    open_now = len(os.listdir(f"/proc/{pid}/fd"))
    set_nofile(pid, open_now, nofile)
    flood = open_sockets(d.http, 20) + open_sockets(d.port, 20)
    time.sleep(0.5)
    cpu0 = cpu_seconds(pid)
    time.sleep(2.0)
    assert cpu_seconds(pid) - cpu0 < 0.5, "the daemon spins at EMFILE"
    assert round_trip(t) < 1.0
    pauses = re.findall(r"WARN (telnet|http) \S+: cannot accept \(Too many open files\); pausing",
                        d.log())
    assert 1 <= len(pauses) <= 4, pauses
    set_nofile(pid, nofile, nofile)
    for s in flood:
        s.close()
    clients(d.port, source=C).connected()
    assert eventually(lambda: Web(d.http).get("/").status == 200)
    grown = len(d.log().splitlines()) - lines
    assert grown < 60, d.log()[-4000:]  # the log stays small: no line per refusal


# ---- request rate --------------------------------------------------------------------------

def flood(port, n, source):
    """n page requests from source, one connection each, as fast as they are
    answered; the answers."""
    web = Web(port, source=source)
    return [web.get("/") for _ in range(n)]


def rate_lines(d, ip, door="http", why="request rate"):
    return re.findall(rf"refused {door} ip={re.escape(ip)} reason={why}.*", d.log())


def telnet_knock(port, source):
    """What a telnet connection from source is sent first (a line will do)."""
    s = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    try:
        return raw_read(s, 2, b"\n")
    finally:
        s.close()


def closed_over_the_rate(port, source, tries=3):
    """Whether a websocket upgrade from source, its rate spent just before
    (a page answered 429), opens and is closed with 1013. A try whose
    bucket got its next token in between is tried again."""
    for _ in range(tries):
        assert any(Web(port, source=source).get("/").status == 429 for _ in range(50))
        ws = WS(port, "/ws/lobby", source=source)
        try:
            if ws.status == 101 and ws.close_code(timeout=2) == 1013:
                return True
        except socket.timeout:
            pass
        finally:
            ws.close()
    return False


@pytest.mark.daemon(http=True, extra=["--request-rate", "2", "--request-burst", "20"])
def test_a_request_flood_from_one_address_gets_429(daemon):
    """One address opening connection after connection gets its burst, then
    429 with Retry-After (nothing rendered) while another address is served
    all along; after the wait it is served again; a websocket upgrade over
    the rate opens and closes with 1013; the log says the flood a few times."""
    d = daemon
    assert re.search(r"requests: 2 a second per address, bursts of 20 \(4096 addresses "
                     r"remembered\)", d.log())
    other = Web(d.http, source=A)
    answers, beside = [], []
    t0 = time.time()
    for i in range(100):
        answers += flood(d.http, 1, B)
        if i % 10 == 0:
            beside.append(other.get("/").status)
    took = time.time() - t0
    codes = [r.status for r in answers]
    assert codes[:20] == [200] * 20, codes
    assert set(codes) == {200, 429}, codes
    assert codes.count(200) <= 20 + 2 * took + 1, (codes.count(200), took)
    assert codes.count(429) >= 50, codes
    assert beside == [200] * 10, beside  # the other address is answered meanwhile
    over = next(r for r in answers if r.status == 429)
    assert over.headers["retry-after"] == "1", over.head
    assert over.headers["content-type"].startswith("text/plain"), over.head
    assert over.body == b"Too many requests from your address. Please try again in a moment.\n"
    # a websocket upgrade over the rate: opened, then closed with 1013 "try again later"
    assert closed_over_the_rate(d.http, B)
    # after the wait it says, served again: a page and the lobby's socket
    time.sleep(int(over.headers["retry-after"]) + 0.1)
    assert Web(d.http, source=B).get("/").status == 200
    lobby = WS(d.http, "/ws/lobby", source=B)
    assert lobby.status == 101
    lobby.json_until(lambda m: m["t"] == "hello")
    lobby.close()
    # the log: a line for the flood (the log's cap: once in 10 s an address)
    said = rate_lines(d, B)
    assert 1 <= len(said) <= 2, said
    assert not rate_lines(d, A)


@pytest.mark.daemon(http=True, extra=["--request-rate", "1", "--request-burst", "1"])
def test_over_the_rate_a_head_and_a_post_are_answered_whole(daemon):
    """A request over the rate is answered at the door, before
    libwebsockets: a HEAD gets the headers only, a POST whose body comes
    with its head gets the whole answer (the body read away, never a
    reset), and another address is served meanwhile."""
    d = daemon
    assert Web(d.http, source=B).get("/").status == 200
    got = raw(d.http, b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", source=B)
    head = got.lower()
    assert status_of(got) == 429 and head.endswith(b"\r\n\r\n"), got
    assert b"\r\nretry-after: 1\r\n" in head and b"content-type: text/plain" in head, got
    body = b"name=someone&password=" + b"y" * 60000
    got = raw(d.http, b"POST /login HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
              b"Content-Type: application/x-www-form-urlencoded\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body, source=B)
    assert status_of(got) == 429, got[:200]
    assert got.endswith(b"\r\n\r\nToo many requests from your address. Please try again in a "
                        b"moment.\n"), got
    assert Web(d.http, source=A).get("/").status == 200
    assert len(rate_lines(d, B)) == 1


@pytest.mark.daemon(http=True, extra=["--trust-proxy", "127.0.0.1", "--request-rate", "1",
                                      "--request-burst", "3"])
def test_a_proxied_flood_is_answered_at_the_door(daemon):
    """Behind a trusted proxy, a request over its client's rate is answered
    at the door as a direct one is (a POST whose body came with its head
    gets the whole answer, never a reset), charged to the client the
    proxy names (the last of its X-Forwarded-For fields)."""
    d = daemon
    web, xb = Web(d.http), {"X-Forwarded-For": "198.51.100.9"}
    codes = [web.get("/", headers=xb).status for _ in range(10)]
    assert codes[:3] == [200] * 3 and codes.count(429) >= 6, codes
    body = b"name=someone&password=" + b"y" * 60000
    got = raw(d.http, b"POST /login HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
              b"X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-For: 198.51.100.9\r\n"
              b"Content-Type: application/x-www-form-urlencoded\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert status_of(got) == 429, got[:200]
    assert got.endswith(b"Please try again in a moment.\n"), got[-200:]
    assert Web(d.http).get("/", headers={"X-Forwarded-For": "198.51.100.10"}).status == 200
    assert rate_lines(d, "198.51.100.9") and not rate_lines(d, "127.0.0.1")


@pytest.mark.daemon(http=True, extra=["--trust-proxy", "127.0.0.1", "--request-rate", "2",
                                      "--request-burst", "5"])
def test_the_request_rate_counts_the_client_a_trusted_proxy_names(daemon):
    """Behind a trusted proxy each forwarded client has its own rate, as it
    has its own budget: one flooding does not hold back the others."""
    d = daemon
    xa, xb = {"X-Forwarded-For": "198.51.100.1"}, {"X-Forwarded-For": "198.51.100.2"}
    web = Web(d.http)
    codes = [web.get("/", headers=xa).status for _ in range(30)]
    assert codes[:5] == [200] * 5 and codes.count(429) >= 15, codes
    assert [web.get("/", headers=xb).status for _ in range(5)] == [200] * 5
    assert web.get("/").status == 200  # the proxy's own
    assert rate_lines(d, "198.51.100.1") and not rate_lines(d, "198.51.100.2")
    assert not rate_lines(d, "127.0.0.1")


@pytest.mark.daemon(extra=["--request-rate", "2", "--request-burst", "5"])
def test_a_telnet_connection_flood_is_held_to_the_rate(daemon, clients):
    """Telnet connections count against the same rate: past the burst a
    connection is told so and closed, before a menu is drawn; another
    address connects meanwhile; after a wait the first connects again."""
    d = daemon
    told = [telnet_knock(d.port, B) for _ in range(30)]
    refused = [t for t in told if b"in a short time" in t]
    assert len(refused) >= 15, told[-1]
    assert refused[0] == (b"Too many connections from your address in a short time. "
                          b"Please try again in a moment.\r\n"), refused[0]
    clients(d.port, source=A).connected()
    time.sleep(1.5)
    clients(d.port, source=B).connected()
    said = rate_lines(d, B, "telnet", "connection rate")
    assert 1 <= len(said) <= 2, said


@pytest.mark.daemon(http=True, extra=["--request-rate", "0", "--request-burst", "1"])
def test_request_rate_0_is_no_limit(daemon):
    d = daemon
    assert re.search(r"requests: no limit a second per address \(request-rate 0\)", d.log())
    codes = [r.status for r in flood(d.http, 300, B)]
    assert codes == [200] * 300, set(codes)
    assert not rate_lines(d, B)


def test_the_default_rate_lets_a_crowd_in_and_holds_a_flood(start_daemon):
    """By default (no flags: 20 a second, bursts of 200) 200 pages at once
    from one address are all served, as a school behind one NAT opening the
    site together would be; a flood past them is held to 20 a second."""
    d = start_daemon(http=True, test_flags=False)
    assert re.search(r"requests: 20 a second per address, bursts of 200 ", d.log())
    t0 = time.time()
    codes = [r.status for r in flood(d.http, 400, B)]
    took = time.time() - t0
    assert codes[:200] == [200] * 200, codes
    assert 429 in codes and codes.count(200) <= 200 + 20 * took + 1, (codes.count(200), took)


# ---- trusted proxies -------------------------------------------------------------------------

@pytest.mark.daemon(http=True, extra=["--trust-proxy", "127.0.0.1", "--max-per-ip", "2"])
def test_forwarded_for_from_a_trusted_proxy(daemon):
    d = daemon
    web = Web(d.http)
    r = web.post("/login", {"name": "nobody", "password": "wrongwrong"},
                 headers={"X-Forwarded-For": "6.6.6.6, 203.0.113.5"})
    assert r.status == 403
    d.wait_log(r"web login failed ip=203\.0\.113\.5 ")
    # the budget counts the forwarded client, not the proxy
    xa, xb = {"X-Forwarded-For": "198.51.100.1"}, {"X-Forwarded-For": "198.51.100.2"}
    held = [WS(d.http, "/ws/lobby", headers=xa) for _ in range(2)]
    for ws in held:
        ws.json_until(lambda m: m["t"] == "hello")
    third = WS(d.http, "/ws/lobby", headers=xa)
    assert third.status == 101 and third.close_code() == 1013
    assert web.get("/", headers=xa).status == 503
    assert hello_user(d.http, None, headers=xb) is None
    assert web.get("/").status == 200  # the proxy itself is not limited by them
    # https at the proxy: the cookie is Secure
    r = web.register("secure1", PW)
    assert r.status == 303 and "Secure" not in r.headers["set-cookie"]
    r = web.post("/register", {"name": "secure2", "password": PW, "password2": PW},
                 headers={"X-Forwarded-Proto": "https"})
    assert r.status == 303 and "; Secure" in r.headers["set-cookie"], r.head
    for ws in held:
        ws.close()


@pytest.mark.daemon(http=True, extra=["--trust-proxy", A])
def test_forwarded_for_from_an_untrusted_peer_is_ignored(daemon):
    d = daemon
    forged = {"X-Forwarded-For": "203.0.113.77", "X-Forwarded-Proto": "https"}
    r = Web(d.http).post("/login", {"name": "nobody", "password": "wrongwrong"}, headers=forged)
    assert r.status == 403
    d.wait_log(r"web login failed ip=127\.0\.0\.1 ")
    r = Web(d.http).post("/register", {"name": "plain", "password": PW, "password2": PW},
                         headers=forged)
    assert r.status == 303 and "Secure" not in r.headers["set-cookie"]
    # the trusted one is believed
    r = Web(d.http, source=A).post("/login", {"name": "nobody", "password": "wrongwrong"},
                                   headers=forged)
    d.wait_log(r"web login failed ip=203\.0\.113\.77 ")
    assert "203.0.113.77" not in d.log().split("web login failed ip=203.0.113.77")[0]


# ---- throttles ---------------------------------------------------------------------------------

@pytest.mark.daemon(http=True)
def test_a_stranger_cannot_lock_the_owner_out(daemon, clients):
    d = daemon
    register(d.http, "owner", source=C)
    # the stranger's telnet waits at the password prompt: the first back-off
    # lasts two seconds, shorter than starting telnet on a slow machine
    t = clients(d.port, source=A).connected()
    t.menu("l", ("Name:", "owner"))
    t.wait_for("Password:")
    stranger = Web(d.http, source=A)
    codes = [stranger.post("/login", {"name": "owner", "password": "guess-%d" % i}).status
             for i in range(20)]
    assert codes[0] == 403 and codes[-1] == 429, codes
    assert stranger.post("/login", {"name": "owner", "password": PW}).status == 429
    # over telnet too, while the back-off lasts
    t.send(PW + "\r")
    t.wait_for("Too many attempts")
    # the owner, from another address: over the web and over telnet
    r = Web(d.http, source=B).post("/login", {"name": "owner", "password": PW})
    assert r.status == 303 and r.session
    clients(d.port, source=B).connected().login("owner")


# ---- forms from other sites ---------------------------------------------------------------------

@pytest.mark.daemon(http=True)
def test_forms_posted_from_another_site_are_refused(daemon):
    d = daemon
    register(d.http, "victim")
    form = {"name": "victim", "password": PW}
    here = f"http://127.0.0.1:{d.http}"
    for h in ({"Origin": "http://evil.example"}, {"Origin": "null"},
              {"Referer": "http://evil.example/page"},
              {"Origin": f"http://127.0.0.1:{d.http}.evil.example"}):
        r = Web(d.http).post("/login", form, headers=h)
        assert r.status == 403 and r.session is None, (h, r.status)
    assert Web(d.http).post("/register", {"name": "x1", "password": PW, "password2": PW},
                            headers={"Origin": "http://evil.example"}).status == 403
    assert Web(d.http).post("/logout", {}, headers={"Origin": "http://evil.example"}).status == 403
    for h in ({"Origin": here}, {"Referer": here + "/login?next=/play"}, {}):
        r = Web(d.http).post("/login", form, headers=h)
        assert r.status == 303 and r.session, (h, r.status)


# ---- password change -----------------------------------------------------------------------------

@pytest.mark.daemon(http=True)
def test_password_change_logs_out_the_other_sessions(daemon, clients):
    d = daemon
    a = register(d.http, "pat")
    b = Web(d.http).post("/login", {"name": "pat", "password": PW}).session
    assert hello_user(d.http, a) == hello_user(d.http, b) == "pat"
    open_b = WS(d.http, "/ws/lobby", session=b)
    open_b.json_until(lambda m: m["t"] == "hello")
    new = "a-new-password"
    here = {"Origin": f"http://127.0.0.1:{d.http}"}
    r = Web(d.http, session=a).post("/password", {"old": "wrong-one", "password": new,
                                                  "password2": new}, headers=here)
    assert r.status == 403
    r = Web(d.http, session=a).post("/password", {"old": PW, "password": new, "password2": new},
                                    headers=here)
    assert r.status == 200 and b"Password changed" in r.body
    m = open_b.json_until(lambda m: m["t"] == "left")
    assert "password" in m["text"] and open_b.close_code() == 1008
    assert hello_user(d.http, b) is None
    assert hello_user(d.http, a) == "pat"
    assert Web(d.http).post("/login", {"name": "pat", "password": PW}).status == 403
    # by telnet: every web session ends
    t = clients(d.port).connected()
    t.login("pat", new)
    t.menu("c", ("Old password:", new), ("New password:", PW), ("New password again:", PW))
    t.wait_for("Password changed.")
    assert eventually(lambda: hello_user(d.http, a) is None)


# ---- HTTP at the door ------------------------------------------------------------------------------

@pytest.mark.daemon(http=True)
def test_odd_http_gets_its_status(daemon):
    d = daemon
    big = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 100000 + b"\r\n\r\n"
    many = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 2000 + b"\r\n"
    some = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 150 + b"\r\n"
    for req in (big, many, some):
        resp = raw(d.http, req)
        assert status_of(resp) == 431, resp[:200]
    t0 = time.time()
    resp = raw(d.http, b"GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n folded\r\n\r\n")
    assert status_of(resp) == 400 and time.time() - t0 < 2, resp[:200]
    # HEAD is GET without the body, on every route
    for path in ("/", "/login", "/scores", "/api/scores", "/api/player/nobody", "/game/1",
                 "/api/game/1/replay", "/nowhere"):
        get = raw(d.http, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        head = raw(d.http, f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert status_of(head) == status_of(get) != 0, (path, head[:100], get[:100])
        assert head.endswith(b"\r\n\r\n"), (path, head[-100:])  # no body
        if status_of(get) == 200:
            length = re.search(rb"(?i)content-length: *(\d+)", head)
            body = get.split(b"\r\n\r\n", 1)[1]
            assert length and int(length.group(1)) == len(body), (path, head)
    Web(d.http).assert_serving()
    assert json.loads(Web(d.http).get("/api/scores").body)["scores"] == []


@pytest.mark.daemon(extra=["--games-per-hour", "3"])
def test_games_per_hour_keeps_a_script_from_growing_the_database(daemon, clients):
    """Every game is a row kept for ever (its record, its dump of a few
    KB): an account starting and quitting games over and over is held to
    games-per-hour, told when it may start again, nothing made meanwhile;
    its live game is never held back, and another account has its own."""
    d = daemon
    t = clients(d.port)
    t.register("Quitter")

    def start(c):
        c.send("p")
        c.wait_for("Any other key")
        c.send("z")
        c.wait_for("Welcome")

    def quit(c):
        c.send("Q")
        c.wait_for("Really quit?")
        c.send("y")
        c.wait_for("Game over")
        c.send(" ")
        c.wait_for("Your choice")

    for _ in range(2):
        start(t)
        quit(t)
    start(t)  # the third, saved and left: the one live game
    t.send("S")
    t.wait_for("Your choice")
    games = "SELECT count(*) FROM games g JOIN users u ON u.id = g.user WHERE u.name = ?"
    assert d.db_rows(games, "Quitter") == [(3,)]
    t.send("p")  # at the cap, the live game goes on
    d.wait_log(r"attach user=Quitter game=\d+ ")
    t.wait_for("♣")
    quit(t)
    t.send("p")
    text = t.wait_for("games in the last hour")
    assert re.search(r"You have started 3 games in the last hour: a new one can start in "
                     r"(60|59) minutes\.", text), text
    assert d.db_rows(games, "Quitter") == [(3,)]
    d.wait_log(r"game start refused user=Quitter: 3 games in the last hour")
    o = clients(d.port)  # another account starts its own
    o.register("Keeper")
    start(o)
    # an hour later the account may start again
    d.db_write(("UPDATE games SET start_time = start_time - 3600 WHERE user = "
                "(SELECT id FROM users WHERE name = ?)", ["Quitter"]))
    start(t)
    quit(t)
    assert d.db_rows(games, "Quitter") == [(4,)]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:"))


@pytest.mark.daemon(http=True)
def test_a_lobby_socket_keeps_no_screen_of_the_size_its_address_asks(daemon):
    """/ws/lobby?w=400&h=200, which anyone may open without an account and
    keep open: a lobby draws no screen, so its socket holds two of 80x24,
    not two of 400x200 (1.3 MB a socket for as long as it stayed open: the
    50 sockets an address may have were 64 MB, 5,000 in all 6 GB)."""
    def lobby(path):
        ws = WS(daemon.http, path)
        assert ws.status == 101
        ws.json_until(lambda m: m["t"] == "hello")
        return ws
    warm = [lobby("/ws/lobby") for _ in range(5)]  # what the first sockets cost once
    before = rss_kb(daemon.proc.pid)
    big = [lobby("/ws/lobby?w=400&h=200") for _ in range(40)]
    grew = rss_kb(daemon.proc.pid) - before
    assert grew < 40 * 300, f"{grew} KB for 40 lobby sockets"  # was 40 x 1,300 KB
    for ws in warm + big:
        ws.close()
    Web(daemon.http).assert_serving()


BIG = 400 * 200 - 80 * 24  # the cells a terminal of the largest size has past 80x24


def naws(w, h):
    return bytes([255, 250, 31, w >> 8, w & 255, h >> 8, h & 255, 255, 240])


def screen_cells(bindir, daemon):
    """warren-admin health's cells past 80x24 of every connection's size."""
    m = re.search(r"^screens: (\d+) cells past 80x24 \(screen-cells \d+\)$",
                  admin(bindir, daemon, "health"), re.M)
    assert m
    return int(m.group(1))


@pytest.mark.daemon(http=True, extra=["--screen-cells", str(3 * BIG)])
def test_terminals_past_the_screen_cells_cap_are_drawn_at_80x24(daemon, bindir):
    """A stranger, no account needed, says its terminal is 400x200 on each
    of the 50 connections an address may have: each held two screens of
    that size, 1.3 MB for as long as it stayed open (64 MB an address, 6 GB
    at max-connections). The cells past 80x24 of every terminal count
    against screen-cells: past it a terminal is drawn at 80x24 (the daemon
    grows by little), a browser's page too, and what a connection held is
    given back when it ends, so a terminal that says its size after that
    gets it."""
    before = rss_kb(daemon.proc.pid)
    socks = []
    for _ in range(30):
        s = socket.create_connection(("127.0.0.1", daemon.port))
        raw_read(s, 5, b"Your choice")
        s.sendall(bytes([255, 251, 31]) + naws(400, 200))
        socks.append(s)
    deadline = time.time() + 10
    while screen_cells(bindir, daemon) != 3 * BIG and time.time() < deadline:
        time.sleep(0.1)
    assert screen_cells(bindir, daemon) == 3 * BIG
    daemon.wait_log(r"screen cells at their cap conn=\d+ ip=127\.0\.0\.1: 400x200 drawn at 80x24")
    grew = rss_kb(daemon.proc.pid) - before
    assert grew < 30 * 400, f"{grew} KB for 30 terminals of 400x200"  # was 30 x 1,300 KB
    # a browser's page, at the size its address asks or a resize says: the same
    ws = play_socket(daemon.http, register(daemon.http, "bigpage"), w=400, h=200)
    ws.text(json.dumps({"t": "resize", "w": 300, "h": 150}))
    _, frame = ws.until(lambda op, p: op == 2 and b"HP " in p)
    rows = [int(r) for r in re.findall(rb"\x1b\[(\d+);\d+H", frame)]
    assert rows and max(rows) <= 24, rows  # the status line on row 24, not 150
    assert screen_cells(bindir, daemon) == 3 * BIG
    ws.close()
    for s in socks:
        s.close()
    deadline = time.time() + 10
    while screen_cells(bindir, daemon) and time.time() < deadline:
        time.sleep(0.1)
    assert screen_cells(bindir, daemon) == 0
    s = socket.create_connection(("127.0.0.1", daemon.port))
    raw_read(s, 5, b"Your choice")
    s.sendall(bytes([255, 251, 31]) + naws(120, 40))
    deadline = time.time() + 10
    while screen_cells(bindir, daemon) != 120 * 40 - 80 * 24 and time.time() < deadline:
        time.sleep(0.1)
    assert screen_cells(bindir, daemon) == 120 * 40 - 80 * 24
    s.close()


def test_a_large_message_leaves_no_buffer_behind(bindir, tmp_path):
    """A lobby socket, which anyone may open and keep, sends one message
    of nearly the largest size (64 KB, answered "unknown message"): the
    buffer it was read into went on being the socket's (128 KB, for as
    long as it stayed open). Measured on the build without sanitizers,
    whose freed memory goes back at once."""
    d = Daemon(bindir, tmp_path / "d", http=True, exe=program(bindir, "warrend"),
               extra=["--max-per-ip", "200"])
    d.start()
    try:
        socks = []
        for _ in range(5):  # what the first sockets cost once
            ws = WS(d.http, "/ws/lobby")
            ws.json_until(lambda m: m["t"] == "hello")
            socks.append(ws)
        before = rss_kb(d.proc.pid)
        pad = json.dumps({"t": "pad", "text": "x" * 65000})
        for _ in range(60):
            ws = WS(d.http, "/ws/lobby")
            ws.json_until(lambda m: m["t"] == "hello")
            ws.text(pad)
            assert ws.json_until(lambda m: m["t"] == "error")["text"] == "unknown message"
            socks.append(ws)
        grew = rss_kb(d.proc.pid) - before
        # a lobby socket holds about 40 KB (two 80x24 screens, lws's own); with
        # the message's buffer kept it was over 100 KB
        assert grew < 60 * 70, f"{grew} KB for 60 lobby sockets after a 64 KB message each"
        for ws in socks:
            ws.close()
    finally:
        d.stop_clean()


def feed_reads(bindir, daemon):
    m = re.search(r"^lobby feed: (\d+) reads of the database$", admin(bindir, daemon, "health"),
                  re.M)
    assert m
    return int(m.group(1))


@pytest.mark.daemon(http=True)
def test_a_burst_of_lobby_requests_reads_the_feed_once(daemon, bindir):
    """40 requests for /api/feed at once (one address may send 200 in a
    burst): the feed is read from the database once and every request is
    answered from that read. Each was a query of its own, every time the
    feed was older than its 3 s."""
    socks = [socket.create_connection(("127.0.0.1", daemon.http)) for _ in range(40)]
    req = f"GET /api/feed HTTP/1.1\r\nHost: 127.0.0.1:{daemon.http}\r\n\r\n".encode()
    start = time.time()
    for s in socks:  # all within a moment, each on a connection of its own
        s.sendall(req)
    for s in socks:
        got = raw_read(s, 10, b'"html"')
        assert got.startswith(b"HTTP/1.1 200") and b'"html"' in got, got[:200]
        s.close()
    took = time.time() - start
    # one read, or one a 3 s the burst took on a slow machine
    assert feed_reads(bindir, daemon) <= 1 + int(took / 3), took
