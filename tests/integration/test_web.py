"""The web gateway (server/web.c) through bin/tools/web_harness, which runs it
on a libuv loop with a tiny fake game: static files and headers, websockets
(raw, from a minimal client here), abuse of both, clean shutdown, and a real
browser (Debian's Chromium via playwright-core, tests/web/browser.mjs)."""
import gzip
import json
import re
import signal
import socket
import subprocess
import time

import pytest

from harness import ARTIFACTS, WEB_DIST as DIST, WS, Web, browser_script, png_pixels, program, raw


class Harness:
    def __init__(self, bindir, *extra):
        exe = program(bindir, "tools/web_harness")
        assert (DIST / "index.html").exists(), "client-web/dist missing: run make (client-web target)"
        self.proc = subprocess.Popen(
            [str(exe), "--listen", "127.0.0.1:0", "--root", str(DIST), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"listening (\d+)", line)
        assert m, f"harness did not start: {line!r} {self.proc.stderr.read()}"
        self.port = int(m.group(1))
        self.web = Web(self.port)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        return code


@pytest.fixture
def harness(bindir):
    h = Harness(bindir)
    yield h
    code = h.stop()
    err = h.proc.stderr.read()
    assert code == 0, f"harness exit {code}: {err}"
    assert "runtime error" not in err and "AddressSanitizer" not in err, err


# ---- plain HTTP over raw sockets ------------------------------------------------

def test_static_pages_types_and_security_headers(harness):
    web = harness.web
    status, h, body = web.get("/")
    assert status == 200
    assert h["content-type"] == "text/html; charset=utf-8"
    assert h["cache-control"] == "no-cache"
    csp = h["content-security-policy"]
    assert "script-src 'self'" in csp and "style-src 'self' 'unsafe-inline'" in csp
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert h["x-content-type-options"] == "nosniff"
    assert h["x-frame-options"] == "DENY"
    for page in ("/play", "/watch/some_one-2"):
        status, h, body = web.get(page)
        assert status == 200 and b"<div id=\"term\">" in body
    # every asset the pages name is served with its type and a long cache
    html = b"".join(web.get(x)[2] for x in ("/", "/play", "/watch/x"))
    assets = sorted(set(re.findall(rb'(/assets/[A-Za-z0-9._-]+)"', html)))
    assert any(a.endswith(b".js") for a in assets) and any(a.endswith(b".css") for a in assets)
    for a in assets:
        status, h, body = web.get(a.decode())
        assert status == 200 and len(body) > 100
        want = "text/javascript" if a.endswith(b".js") else "text/css"
        assert h["content-type"].startswith(want)
        assert "immutable" in h["cache-control"] and "max-age=31536000" in h["cache-control"]


def test_gzip_when_accepted(harness):
    web = harness.web
    _, _, plain = web.get("/play")
    status, h, body = web.get("/play", headers={"Accept-Encoding": "gzip, deflate"})
    assert status == 200 and h.get("content-encoding") == "gzip"
    assert "accept-encoding" in h["vary"]
    assert gzip.decompress(body) == plain
    status, h, _ = web.get("/play")
    assert "content-encoding" not in h


@pytest.mark.parametrize("path", [
    "/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/assets/../../../../etc/passwd",
    "/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/assets/..%2f..%2f..%2fetc/passwd",
    "//etc/passwd", "/etc/passwd", "/assets//etc/passwd", "/assets/%2fetc%2fpasswd",
    "/assets/.gitignore", "/.gitignore", "/assets/", "/watch/../../etc/passwd",
    "/watch/a%00b", "/package.json", "/dist/index.html", "/index.html.gz",
    "/assets/..", "/%00", "/assets/%c0%ae%c0%ae/etc/passwd",
])
def test_path_traversal_is_refused(harness, path):
    req = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    resp = raw(harness.port, req)
    assert b"root:" not in resp and b"\"name\": \"warren-web\"" not in resp
    status = int(resp.split()[1]) if resp.startswith(b"HTTP/") else 0
    # lws folds "x/.." before routing, so a path may land on one of our pages
    assert status in (0, 400, 403, 404) or (status == 200 and b"<title>Warren" in resp), resp[:200]
    harness.web.assert_serving()


@pytest.mark.parametrize("data", [
    b"HELLO\r\n\r\n",
    b"GET\r\n\r\n",
    b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\x00\xff\xfe\x16\x03\x01\x02\x00" * 64,
    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 200000 + b"\r\n\r\n",
    b"GET / HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(3000)) + b"\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
    b"GET /ws/play HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n",
], ids=lambda d: repr(d[:24]))
def test_malformed_requests_get_clean_errors(harness, data):
    resp = raw(harness.port, data)
    if resp:
        assert resp.startswith(b"HTTP/1.1 4") or resp.startswith(b"HTTP/1.1 5") or \
            resp.startswith(b"HTTP/1.0 4"), resp[:120]
        assert not resp.startswith(b"HTTP/1.1 200")
    harness.web.assert_serving()


@pytest.mark.parametrize("data", [
    b"GET / HTTP/9.9\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET / HTTP/1.1\r\nHost: \x00\xff\r\nCookie: " + b";" * 1000 + b"\r\n\r\n",
], ids=lambda d: repr(d[:24]))
def test_odd_but_parseable_requests_are_answered(harness, data):
    # lws is lenient about these GETs (it ignores the body framing); what
    # matters is a well-formed answer and a server that keeps serving
    resp = raw(harness.port, data)
    assert resp == b"" or re.match(rb"HTTP/1\.[01] [2-5]\d\d ", resp), resp[:80]
    harness.web.assert_serving()


def test_methods_other_than_get_are_refused(harness):
    for m in ("POST", "PUT", "DELETE", "OPTIONS"):
        resp = raw(harness.port, f"{m} / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
        assert resp.startswith(b"HTTP/1.1 4"), (m, resp[:80])
    harness.web.assert_serving()


def test_slow_and_half_requests_do_not_block_others(harness):
    idle = [socket.create_connection(("127.0.0.1", harness.port)) for _ in range(20)]
    for s in idle:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
    try:
        harness.web.assert_serving()
    finally:
        for s in idle:
            s.close()


# ---- dynamic requests (on_http / web_reply) ---------------------------------------------

def test_dynamic_get_post_and_cookie(harness):
    web = harness.web
    status, h, body = web.get("/api/echo?a=1&b=x%20y",
                              headers={"Cookie": "other=1; warren_session=tok_123-x"})
    assert status == 200 and h["content-type"] == "text/plain; charset=utf-8"
    assert h["cache-control"] == "no-store" and "content-security-policy" in h
    lines = body.decode().splitlines()
    assert "method=GET" in lines and "cookie=tok_123-x" in lines
    assert "arg=a=1" in lines and "arg=b=x y" in lines
    # a cookie with odd characters is not passed on
    _, _, body = web.get("/api/echo", headers={"Cookie": "warren_session=a\"b<c>"})
    assert "cookie=\n" in body.decode()
    status, _, body = web.post("/api/echo", "name=J%C3%B6rg+x&z=1".encode())
    assert status == 200 and "name=Jörg x" in body.decode() and "method=POST" in body.decode()
    status, h, _ = web.get("/api/cookie")
    assert status == 303
    assert h["set-cookie"] == "warren_session=abc; HttpOnly; SameSite=Strict; Path=/"
    status, h, body = web.get("/api/big")
    assert status == 200 and len(body) == 300000 and set(body) == {ord("z")}
    assert web.get("/no/such/page")[0] == 404


def test_dynamic_async_reply_and_client_leaving(harness):
    web = harness.web
    p = harness.port
    t = time.time()
    status, _, body = web.get("/api/slow")
    assert status == 200 and body == b"slow done" and time.time() - t >= 0.09
    # a client that leaves before the answer: the late web_reply is refused quietly
    for _ in range(5):
        s = socket.create_connection(("127.0.0.1", p))
        s.sendall(b"GET /api/slow HTTP/1.1\r\nHost: x\r\n\r\n")
        s.close()
    time.sleep(0.3)
    harness.web.assert_serving()


def test_post_body_limit(harness):
    web = harness.web
    status, _, _ = web.post("/api/echo", b"name=" + b"a" * 20000)
    assert status in (0, 413)
    status, _, body = web.post("/api/echo", b"name=" + b"a" * 100)
    assert status == 200 and b"body=105" in body
    harness.web.assert_serving()


# ---- websockets ---------------------------------------------------------------------

def screen_has(text):
    return lambda op, p: op == 2 and text.encode() in p


def test_play_keys_resize_and_watch(harness):
    p = harness.port
    play = WS(p, "/ws/play")
    assert play.status == 101
    play.until(screen_has("Warren harness"))
    play.text(json.dumps({"t": "resize", "w": 100, "h": 40}))
    play.until(screen_has("size 100x40"))
    watch = WS(p, "/ws/watch/alice")
    assert watch.status == 101
    watch.until(screen_has("size 100x40"))
    play.binary(b"ll\x1b[B")
    play.until(screen_has("moves 3"))
    watch.until(screen_has("moves 3"))
    watch.binary(b"hhhh")  # watchers' keys do not move the game
    play.text(json.dumps({"t": "chat", "text": "hi"}))
    op, msg = play.until(lambda op, p: op == 1)
    assert json.loads(msg) == {"t": "status", "text": "message 27 bytes"}
    play.binary(b"j")
    play.until(screen_has("moves 4"))
    play.close()
    watch.close()


def test_refusals(harness):
    p = harness.port
    # answered with an HTTP error, as any request: none a page could open
    assert WS(p, "/ws/nope").status == 404
    assert WS(p, "/ws/watch/bad%20name").status == 400
    assert WS(p, "/ws/watch/" + "a" * 40).status == 400
    assert WS(p, "/ws/play", origin="http://evil.example").status == 403
    ok = WS(p, "/ws/play", origin=f"http://127.0.0.1:{p}")
    assert ok.status == 101
    ok.close()
    nobody = WS(p, "/ws/watch/nobody")  # the hook says no
    assert nobody.status == 101
    assert nobody.close_code() == 1008
    harness.web.assert_serving()


@pytest.mark.parametrize("payload,code", [
    (b"not json", 1007),
    (b"{\"t\":", 1007),
    (b"[1,2,3]", 1007),
    (b"{\"x\":1}", 1007),
    (b"{\"t\":5}", 1007),
    (b"{\"t\":\"resize\",\"w\":0,\"h\":10}", 1007),
    (b"{\"t\":\"resize\",\"w\":\"80\",\"h\":24}", 1007),
    (b"{\"t\":\"resize\",\"w\":99999999999999,\"h\":24}", 1007),
    (b"{\"t\":\"x\"} trailing", 1007),
    (b"{\"t\":\"\xff\xfe\"}", 1007),
    (b"[" * 5000 + b"]" * 5000, 1007),
    (b"{\"t\":\"x\",\"a\":" + b"[" * 100 + b"]" * 100 + b"}", 1007),
], ids=lambda v: repr(v[:20]) if isinstance(v, bytes) else str(v))
def test_bad_json_closes_with_invalid_payload(harness, payload, code):
    ws = WS(harness.port, "/ws/play")
    ws.until(screen_has("Warren harness"))
    ws.text(payload)
    assert ws.close_code() == code
    harness.web.assert_serving()


def test_oversized_messages_close_with_too_large(harness):
    p = harness.port
    ws = WS(p, "/ws/play")
    ws.until(screen_has("Warren harness"))
    ws.binary(b"x" * 200000)  # one frame
    assert ws.close_code() == 1009
    ws = WS(p, "/ws/play")
    ws.until(screen_has("Warren harness"))
    for i in range(40):  # many fragments of one message
        ws.send_frame(2 if i == 0 else 0, b"y" * 4000, fin=False)
    assert ws.close_code() == 1009
    ws = WS(p, "/ws/play")  # just under the limit is fine
    ws.until(screen_has("Warren harness"))
    ws.binary(b"." * 65000)
    ws.binary(b"l")
    ws.until(screen_has("moves 1"))
    ws.close()
    harness.web.assert_serving()


def test_send_queue_is_bounded_then_drains(harness):
    ws = WS(harness.port, "/ws/play")
    ws.until(screen_has("Warren harness"))
    # 2000 x 16 KiB in one go: the socket buffers take what they can (the
    # direct path), then the queue takes up to 256 KiB, then sends are refused
    ws.text(json.dumps({"t": "flood", "n": 2000}))
    got = 0
    refused = None
    drained = False
    while not drained:
        op, p = ws.recv()
        if op == 2 and len(p) == 16384:
            got += 1
        elif op == 1:
            m = json.loads(p)
            refused = m.get("refused", refused)
            drained = m.get("t") == "drained"
    assert refused is not None and refused > 0 and got == 2000 - refused
    assert got * 16384 <= 262144 + 16384 + (16 << 20)  # queue + one message + loopback buffers
    ws.close()


def test_queued_messages_leave_in_the_order_sent(bindir):
    """Messages that wait in a connection's queue (a ring of them, grown
    when full) leave in the order they were sent: numbered frames flooded
    at a client that reads slowly, a second flood once some of the first
    were read (the ring has moved on and wraps as it grows), come back
    0, 1, 2, ... with none missing."""
    h = Harness(bindir, "--outq", str(64 << 20))
    try:
        ws = WS(h.port, "/ws/play", rcvbuf=4096, timeout=10)
        ws.until(screen_has("Warren harness"))
        seen = []

        def read(n):
            while n:
                op, p = ws.recv()
                if op == 2 and len(p) == 16384:
                    seen.append(int(p[:8]))
                    n -= 1

        ws.text(json.dumps({"t": "flood", "n": 40}))
        read(7)
        ws.text(json.dumps({"t": "flood", "n": 300}))
        read(5)
        ws.text(json.dumps({"t": "flood", "n": 60}))
        read(400 - 12)
        assert seen == list(range(400)), [(i, n) for i, n in enumerate(seen) if n != i][:5]
        ws.close()
    finally:
        assert h.stop() == 0


def test_sigterm_closes_websockets_with_going_away(bindir):
    h = Harness(bindir)
    ws = WS(h.port, "/ws/play")
    ws.until(screen_has("Warren harness"))
    h.proc.send_signal(signal.SIGTERM)
    assert ws.close_code() == 1001
    ws.close()
    assert h.proc.wait(timeout=10) == 0
    assert "loop closed status=0" in h.proc.stderr.read()


def test_busy_port_is_an_error(bindir, harness):
    exe = program(bindir, "tools/web_harness")
    r = subprocess.run([str(exe), "--listen", f"127.0.0.1:{harness.port}", "--root", str(DIST)],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 1 and "cannot listen" in r.stderr
    r = subprocess.run([str(exe), "--listen", "127.0.0.1:0", "--root", "/nonexistent"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 1 and "no built client" in r.stderr


def test_listens_on_the_given_address_only(harness):
    # bound to 127.0.0.1 alone: other loopback addresses and IPv6 are refused
    # (lws with IPv6 on would quietly listen on every interface)
    harness.web.assert_serving()
    for family, addr in ((socket.AF_INET, "127.0.0.2"), (socket.AF_INET6, "::1")):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(2)
        try:
            with pytest.raises(OSError):
                s.connect((addr, harness.port))
        finally:
            s.close()


# ---- a real browser -------------------------------------------------------------------

def test_browser_play_watch_reconnect_phone_lobby(harness):
    r, out = browser_script("browser.mjs", f"http://127.0.0.1:{harness.port}", ARTIFACTS)
    assert r.returncode == 0 and not out["errors"], out["errors"]
    # keys moved the '@' two right and one down; the game saw the page's size
    assert out["after"] == [out["before"][0] + 2, out["before"][1] + 1]
    assert out["typed"] == "typed: llj"
    assert f"size {out['size'][0]}x{out['size'][1]}" in out["sizeLine"]
    # a smaller window: fewer rows, and never under the game's 80x24 (the font shrinks)
    assert out["resized"][1] < out["size"][1]
    assert out["resized"][0] >= 80 and out["resized"][1] >= 24
    assert out["watchSame"] and out["watchWho"] == "bob"
    assert out["reconnected"]
    assert out["keyRowVisible"] and out["phoneTyped"].endswith("<Esc>l")
    # markup in a lobby name is shown as text, never run
    assert out["lobbyName"] == "<img src=x onerror=alert(1)>"
    assert out["lobbyImgs"] == 0 and out["dialogs"] == 0
    assert out["lobbyHref"].startswith("/watch/%3Cimg")
    # the terminal really painted: the CSP must allow xterm's inline styles,
    # or the buffer reads right while the screen stays black
    px = png_pixels(ARTIFACTS / "web-play-term.png")
    green = sum(1 for row in px for (r_, g, b) in row if g > 150 and r_ < 140 and b < 140)
    yellow = sum(1 for row in px for (r_, g, b) in row if r_ > 180 and g > 180 and b < 120)
    grey = sum(1 for row in px for (r_, g, b) in row if r_ > 150 and g > 150 and b > 150)
    assert green > 20, "no green '@' on the screenshot"
    assert yellow > 100, "no yellow title on the screenshot"
    assert grey > 200, "no text on the screenshot"


def test_ipv6_address_binds_only_itself(bindir):
    probe = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    try:
        probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    finally:
        probe.close()
    exe = program(bindir, "tools/web_harness")
    proc = subprocess.Popen([str(exe), "--listen", "[::1]:0", "--root", str(DIST)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(re.match(r"listening (\d+)", proc.stdout.readline()).group(1))
        s = socket.create_connection(("::1", port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert s.recv(100).startswith(b"HTTP/1.1 200")
        s.close()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
