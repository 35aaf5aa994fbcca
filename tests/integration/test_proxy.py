"""The PROXY protocol from a balancer (`proxy-from`), on the real daemon
over real sockets: a proxy written here accepts Debian's telnet (or an HTTP
client) and connects to warrend from 127.0.0.2 (a proxy-from address),
sending a real PROXY v2 header (or v1 text) that names a client first. The
daemon then knows the client by the header's address: its log, its login
lines, its per-address limits and its bans. A header from any other
address is refused, never believed; broken, short, oversized and late
headers close the connection with a log line and the daemon goes on; a
header that comes a byte at a time works."""
import ipaddress
import socket
import struct
import subprocess
import threading
import time

import pytest

from harness import PW, Web, admin, program, raw, unique_name

PROXY = "127.0.0.2"  # the balancer: listed in proxy-from
STRANGER = "127.0.0.3"  # any other address on this machine
SIG = b"\r\n\r\n\x00\r\nQUIT\n"

pytestmark = pytest.mark.daemon(http=True, extra=["--proxy-from", f"{PROXY}, 10.0.0.0/8"])


def v2(client, port=40000, dst="10.0.0.2", dport=23, command=0x21, tlvs=b""):
    """A PROXY v2 header over TCP naming client:port (IPv4 or IPv6)."""
    src, dst = ipaddress.ip_address(client), ipaddress.ip_address(dst)
    if src.version == 4:
        fam, body = 0x11, src.packed + dst.packed
    else:
        fam, body = 0x21, src.packed + ipaddress.IPv6Address("::1").packed
    body += struct.pack(">HH", port, dport) + tlvs
    return SIG + bytes([command, fam]) + struct.pack(">H", len(body)) + body


def v1(client, port=40000):
    return f"PROXY TCP4 {client} 10.0.0.2 {port} 23\r\n".encode()


class FakeProxy:
    """A TCP balancer in front of warrend: each connection it accepts goes
    on from `source` to the daemon's port, its first bytes a PROXY header
    naming `client` (header(client) makes it), then both ways as they come."""

    def __init__(self, port, client, header=v2, source=PROXY):
        self.port, self.client, self.header, self.source = port, client, header, source
        self.lsock = socket.socket()
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(8)
        self.listen_port = self.lsock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            s = socket.create_connection(("127.0.0.1", self.port), source_address=(self.source, 0))
            s.sendall(self.header(self.client))
            for a, b in ((c, s), (s, c)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.lsock.close()



def send_slowly(port, data, source, gap=0.02):
    """data a byte at a time from source; returns the open socket."""
    s = socket.create_connection(("127.0.0.1", port), source_address=(source, 0), timeout=10)
    for i in range(len(data)):
        s.sendall(data[i:i + 1])
        time.sleep(gap)
    return s


def closed_without_answer(s, timeout=10):
    """The daemon closes s having sent nothing (a PROXY failure says nothing)."""
    s.settimeout(timeout)
    got = b""
    try:
        while chunk := s.recv(4096):
            got += chunk
    except ConnectionResetError:
        pass
    s.close()
    return got == b""


def test_telnet_player_is_known_by_the_header_address(daemon, clients):
    proxy = FakeProxy(daemon.port, "203.0.113.9")
    try:
        t = clients(proxy.listen_port).connected()
        daemon.wait_log(r"telnet: PROXY header from ip=127\.0\.0\.2: client ip=203\.0\.113\.9 "
                        r"port=40000")
        daemon.wait_log(r"connect conn=\d+ ip=203\.0\.113\.9 via=tcp")
        name = unique_name("px")
        t.register(name, PW)
        daemon.wait_log(rf"login conn=\d+ ip=203\.0\.113\.9 user={name} \(registered\)")
        assert "ip=127.0.0.2" not in daemon.log().split("PROXY header from ip=127.0.0.2")[-1]
    finally:
        proxy.close()
    # v1 text works as well, from the same balancer
    proxy = FakeProxy(daemon.port, "198.51.100.4", header=v1)
    try:
        clients(proxy.listen_port).connected()
        daemon.wait_log(r"connect conn=\d+ ip=198\.51\.100\.4 via=tcp")
    finally:
        proxy.close()


def test_header_from_an_untrusted_address_is_refused(daemon):
    for header in (v2("203.0.113.9"), v1("203.0.113.9")):
        got = raw(daemon.port, header, source=STRANGER)
        assert b"A PROXY header is taken only from a proxy-from address: refused." in got, got
    # said once: the second from that address in 10 s is held back, counted (logcap.h)
    daemon.wait_log(r"telnet: PROXY header from ip=127\.0\.0\.3, not a proxy-from address")
    assert daemon.log().count("not a proxy-from address") == 1, daemon.log()
    assert "ip=203.0.113.9" not in daemon.log()
    # on the web listener it is only a bad request
    got = raw(daemon.http, v2("203.0.113.9") + b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
              source=STRANGER)
    assert got.startswith(b"HTTP/1.1 400"), got[:200]


@pytest.mark.parametrize("what,data,log", [
    ("no header", b"\xff\xfd\x18hello\r\n", r"no PROXY header from a proxy-from address"),
    ("version 1 in binary", v2("203.0.113.9", command=0x11), r"unknown version"),
    ("a third command", v2("203.0.113.9", command=0x22), r"unknown command or family"),
    ("65 KB announced", SIG + b"\x21\x11\xff\xf0" + b"\0" * 12, r"too long"),
    ("addresses cut short", SIG + b"\x21\x11\x00\x04" + b"\1\2\3\4", r"address block too short"),
    ("v1 with a bad port", b"PROXY TCP4 1.2.3.4 5.6.7.8 99999 23\r\n", r"bad address or port"),
    ("v1 without an end", b"PROXY TCP4 " + b"1" * 120, r"no end of line"),
], ids=lambda v: v if isinstance(v, str) and " " in v else "")
def test_broken_headers_close_the_connection(daemon, what, data, log):
    s = socket.create_connection(("127.0.0.1", daemon.port), source_address=(PROXY, 0))
    s.sendall(data)
    assert closed_without_answer(s), what
    daemon.wait_log(r"telnet: PROXY header from ip=127\.0\.0\.2: (PROXY v\d header: )?" + log +
                    "; connection closed")
    assert not daemon.unread().count("connect conn=")  # no player was made of it


def test_slow_short_and_missing_headers(daemon):
    # a byte at a time: the header still counts
    s = send_slowly(daemon.port, v2("192.0.2.55", port=1234), PROXY)
    daemon.wait_log(r"connect conn=\d+ ip=192\.0\.2\.55 via=tcp")
    s.settimeout(10)
    assert s.recv(4096)  # the telnet negotiation and the menu
    s.close()
    # cut short: the balancer went away mid-header
    s = send_slowly(daemon.port, v2("192.0.2.56")[:20], PROXY, gap=0)
    s.close()
    daemon.wait_log(r"PROXY header from ip=127\.0\.0\.2: closed before its header ended")
    # nothing at all, or half a header: closed after PROXYWAIT_MS
    quiet = socket.create_connection(("127.0.0.1", daemon.port), source_address=(PROXY, 0))
    half = send_slowly(daemon.port, v2("192.0.2.57")[:10], PROXY, gap=0)
    assert closed_without_answer(quiet) and closed_without_answer(half)
    daemon.wait_log(r"PROXY header from ip=127\.0\.0\.2: (none|incomplete) when time ran out")
    assert "192.0.2.56" not in daemon.log() and "192.0.2.57" not in daemon.log()
    # the balancer's own check (LOCAL): its own address stands
    s = socket.create_connection(("127.0.0.1", daemon.port), source_address=(PROXY, 0))
    s.sendall(v2("192.0.2.58", command=0x20))
    daemon.wait_log(r"client ip=127\.0\.0\.2 port=0 \(local: the balancer itself\)")
    s.close()


def test_ban_by_the_proxied_address(daemon, bindir):
    assert "banned 203.0.113.66/32" in admin(bindir, daemon, "ban", "203.0.113.66")
    got = raw(daemon.port, v2("203.0.113.66"), source=PROXY)
    assert b"Connections from your address are refused." in got, got
    daemon.wait_log(r"refused telnet ip=203\.0\.113\.66 reason=banned")
    # the balancer itself, and its other clients, are not banned by it
    s = socket.create_connection(("127.0.0.1", daemon.port), source_address=(PROXY, 0))
    s.sendall(v2("203.0.113.67"))
    daemon.wait_log(r"connect conn=\d+ ip=203\.0\.113\.67 via=tcp")
    s.close()
    # the web listener: the same ban by the header's address
    req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    got = raw(daemon.http, v2("203.0.113.66") + req, source=PROXY)
    assert got.startswith(b"HTTP/1.1 503"), got[:200]
    daemon.wait_log(r"refused http ip=203\.0\.113\.66 reason=banned")
    got = raw(daemon.http, v2("203.0.113.68") + req, source=PROXY)
    assert got.startswith(b"HTTP/1.1 200"), got[:200]


def test_web_requests_through_the_proxy(daemon):
    proxy = FakeProxy(daemon.http, "198.51.100.23")
    try:
        web = Web(proxy.listen_port)
        status, _, body = web.get("/health")
        assert (status, body) == (200, b"ok\n")
        daemon.wait_log(r"http: PROXY header from ip=127\.0\.0\.2: client ip=198\.51\.100\.23")
        # a new account's address is the header's: its per-address register
        # throttle counts it (the daemon's log names it on a web login)
        name = unique_name("pw")
        assert web.register(name, PW).status == 303
        web.assert_serving()
    finally:
        proxy.close()
    # the balancer's X-Forwarded-For is not believed unless trust-proxy says so
    got = raw(daemon.http, v2("198.51.100.24") + b"GET /health HTTP/1.1\r\nHost: x\r\n"
              b"X-Forwarded-For: 192.0.2.1\r\nConnection: close\r\n\r\n", source=PROXY)
    assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"ok\n"), got


def test_proxy_from_is_checked(bindir, tmp_path):
    exe = program(bindir, "asan/warrend", "warrend")
    for bad in ("10.0.0.0/33", "example.org", "1.2.3.4,", "::ffff:1.2.3.4/8"):
        r = subprocess.run([str(exe), "--db", str(tmp_path / "x.db"), "--proxy-from", bad],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "proxy-from:" in r.stderr, (bad, r.stderr)
