"""Per-address limits count an IPv6 client by its network (`ipv6-prefix`,
64 bits by default): whoever holds 2001:db8::/64 holds 2^64 addresses, and
each must not get a budget of its own. Tests listen on 127.0.0.1 only, so
IPv6 clients come through a balancer's PROXY header (v2 and v1, from
127.0.0.2 in proxy-from) and a trusted proxy's X-Forwarded-For (127.0.0.1
in trust-proxy), on the real daemon over real sockets: two addresses of
one /64 share one connection budget, one request rate, one registration
allowance and one login throttle, while 2001:db8:0:1::1, the next /64, has
its own. The log still names each full address, and bans still match the
address, not its /64."""
import ipaddress
import re
import socket
import struct
import subprocess
import time

import pytest

from harness import PW, Web, admin, program, raw, raw_read

PROXY = "127.0.0.2"  # the balancer: listed in proxy-from
SIG = b"\r\n\r\n\x00\r\nQUIT\n"
ONE, TWO, THREE = "2001:db8::1", "2001:db8::2", "2001:db8::3"  # one /64
NEXT = "2001:db8:0:1::1"  # the next /64
TOO_MANY = b"Too many connections from your address."
GET = b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
BALANCED = ["--proxy-from", PROXY, "--max-per-ip", "2"]
FORWARDED = ["--trust-proxy", "127.0.0.1"]


def v2(client, port=40000):
    """A PROXY v2 header over TCP naming client:port."""
    src = ipaddress.ip_address(client)
    fam, dst = (0x11, "10.0.0.2") if src.version == 4 else (0x21, "::1")
    body = src.packed + ipaddress.ip_address(dst).packed + struct.pack(">HH", port, 23)
    return SIG + bytes([0x21, fam]) + struct.pack(">H", len(body)) + body


def v1(client, port=40000):
    """A PROXY v1 line naming client:port."""
    if ipaddress.ip_address(client).version == 4:
        return f"PROXY TCP4 {client} 10.0.0.2 {port} 23\r\n".encode()
    return f"PROXY TCP6 {client} ::1 {port} 23\r\n".encode()


def balanced(port, client, header=v2, then=b""):
    """A connection from the balancer naming client; left open."""
    s = socket.create_connection(("127.0.0.1", port), source_address=(PROXY, 0), timeout=10)
    s.sendall(header(client) + then)
    return s


def telnet_let_in(port, client, header=v2):
    """A telnet connection through the balancer: (socket, whether it was let in)."""
    s = balanced(port, client, header)
    got = raw_read(s, 1.0, TOO_MANY)
    return s, TOO_MANY not in got and b"\xff" in got


def xff(client):
    return {"X-Forwarded-For": client}


@pytest.mark.daemon(extra=BALANCED)
def test_telnet_budget_is_shared_by_one_64(daemon):
    d = daemon
    held = []
    try:
        for client, header in ((ONE, v2), (TWO, v1)):
            s, ok = telnet_let_in(d.port, client, header)
            held.append(s)
            assert ok, client
        # a third address of that /64, by either header: over max-per-ip
        for header in (v2, v1):
            got = raw(d.port, header(THREE), source=PROXY)
            assert got.startswith(TOO_MANY), got
        d.wait_log(r"refused telnet ip=2001:db8::3 reason=per-address limit")
        # the next /64 is another client
        s, ok = telnet_let_in(d.port, NEXT)
        held.append(s)
        assert ok
        # the log names the full addresses
        for client in (ONE, TWO, NEXT):
            assert re.search(rf"connect conn=\d+ ip={re.escape(client)} via=tcp", d.log()), client
        # one of the two leaves: a third address of the /64 gets its place
        held.pop(0).close()
        for _ in range(50):
            s, ok = telnet_let_in(d.port, THREE)
            held.append(s)
            if ok:
                break
        assert ok
    finally:
        for s in held:
            s.close()


def ssh_client(clients, bindir, sock, addr):
    """bin/warren --ssh as sshd would start it for a user from addr."""
    env = {"SSH_CONNECTION": f"{addr} 40022 ::1 22"}
    return clients.spawn([program(bindir, "warren"), "--ssh", sock], env=env)


def test_ssh_sessions_of_one_64_share_the_budget(bindir, start_daemon, clients):
    """`warren --ssh` names the address (REMOTE_ADDR) once connected: the
    budget then counts its /64."""
    d = start_daemon(unix=True, extra=["--max-per-ip", "2"])
    sock = str(d.sock)
    for client in (ONE, TWO):
        ssh_client(clients, bindir, sock, client).connected()
        d.wait_log(rf"remote-addr conn=\d+ ip={re.escape(client)}\s")
    c = ssh_client(clients, bindir, sock, THREE)
    c.wait_for("Too many connections from your address")
    d.wait_log(r"disconnect conn=\d+ ip=2001:db8::3 user=- reason=limit")
    ssh_client(clients, bindir, sock, NEXT).connected()
    d.wait_log(r"remote-addr conn=\d+ ip=2001:db8:0:1::1\s")
    time.sleep(0.3)
    assert "ip=2001:db8:0:1::1 user=- reason=limit" not in d.log()


@pytest.mark.daemon(http=True, extra=BALANCED)
def test_web_door_budget_is_shared_by_one_64(daemon):
    """Sockets from the balancer whose head has not come yet hold their
    place at the door, charged to the header's /64."""
    d = daemon
    held = [balanced(d.http, ONE), balanced(d.http, TWO, v1)]
    try:
        got = raw(d.http, v2(THREE) + GET, source=PROXY)
        assert got.startswith(b"HTTP/1.1 503"), got[:200]
        d.wait_log(r"refused http ip=2001:db8::3 reason=per-address limit")
        got = raw(d.http, v1(NEXT) + GET, source=PROXY)
        assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"ok\n"), got
        held.pop().close()
        for _ in range(50):
            got = raw(d.http, v2(THREE) + GET, source=PROXY)
            if got.startswith(b"HTTP/1.1 200"):
                break
        assert got.startswith(b"HTTP/1.1 200"), got[:200]
    finally:
        for s in held:
            s.close()


@pytest.mark.daemon(http=True, extra=BALANCED + ["--ipv6-prefix", "128"])
def test_ipv6_prefix_128_counts_each_address(daemon):
    d = daemon
    assert re.search(r"per-address limits count IPv6 addresses by their first 128 bits",
                     d.log()), d.log()
    held = []
    try:
        for client in (ONE, TWO, THREE):
            s, ok = telnet_let_in(d.port, client)
            held.append(s)
            assert ok, client
    finally:
        for s in held:
            s.close()


@pytest.mark.daemon(extra=["--proxy-from", PROXY, "--max-per-ip", "1", "--ipv6-prefix", "48"])
def test_ipv6_prefix_48_counts_a_site(daemon):
    s, ok = telnet_let_in(daemon.port, ONE)
    try:
        assert ok
        got = raw(daemon.port, v2("2001:db8:0:ffff::9"), source=PROXY)
        assert got.startswith(TOO_MANY), got
        s2, ok = telnet_let_in(daemon.port, "2001:db8:1::1")
        s2.close()
        assert ok
    finally:
        s.close()


@pytest.mark.daemon(http=True, extra=FORWARDED + ["--request-rate", "2", "--request-burst", "5"])
def test_request_rate_is_shared_by_one_64(daemon):
    d = daemon
    web = Web(d.http)
    codes = [web.get("/", headers=xff((ONE, TWO)[i % 2])).status for i in range(20)]
    assert codes[:5] == [200] * 5 and codes.count(429) >= 10, codes
    assert web.get("/", headers=xff(THREE)).status == 429
    assert [web.get("/", headers=xff(NEXT)).status for _ in range(5)] == [200] * 5
    # the refusals' log lines name the address; the log's cap counts the /64:
    # one line in its window, however many addresses of it knock
    lines = re.findall(r"refused http ip=(\S+) reason=request rate", d.log())
    assert len(lines) == 1 and lines[0] in (ONE, TWO), lines


@pytest.mark.daemon(http=True, extra=FORWARDED + ["--register-per-hour", "2"])
def test_registrations_are_shared_by_one_64(daemon):
    d = daemon
    web = Web(d.http)

    def register(name, client):
        return web.post("/register", {"name": name, "password": PW, "password2": PW},
                        headers=xff(client)).status

    assert register("sixa", ONE) == 303
    assert register("sixb", TWO) == 303
    assert register("sixc", THREE) == 429
    assert register("sixd", NEXT) == 303
    # an IPv4 client and its IPv4-mapped form are one address
    assert register("foura", "198.51.100.7") == 303
    assert register("fourb", "::ffff:198.51.100.7") == 303
    assert register("fourc", "198.51.100.7") == 429
    # the log names each address
    for line in ("web register user=sixb ip=2001:db8::2",
                 "web register refused ip=2001:db8::3 status=-4",
                 "web register user=fourb ip=198.51.100.7"):
        assert line in d.log(), line


@pytest.mark.daemon(http=True, extra=FORWARDED)
def test_failed_logins_are_counted_by_the_64(daemon):
    """Past the free allowance of failures from one address, each address
    of the /64 is held back; the next /64 is not."""
    d = daemon
    web = Web(d.http)
    codes = [web.post("/login", {"name": "nobody%d" % i, "password": "wrongwrong"},
                      headers=xff(f"2001:db8::{i + 1:x}")).status for i in range(14)]
    assert codes[0] == 403 and codes[-1] == 429, codes
    r = web.post("/login", {"name": "nobody", "password": "wrongwrong"}, headers=xff(NEXT))
    assert r.status == 403
    d.wait_log(r"web login failed ip=2001:db8::1 status=")


@pytest.mark.daemon(http=True, extra=BALANCED)
def test_a_ban_matches_the_address_not_its_64(daemon, bindir):
    d = daemon
    assert "banned 2001:db8::66/128" in admin(bindir, d, "ban", "2001:db8::66")
    got = raw(d.port, v2("2001:db8::66"), source=PROXY)
    assert b"Connections from your address are refused." in got, got
    s, ok = telnet_let_in(d.port, "2001:db8::67")
    s.close()
    assert ok
    got = raw(d.http, v1("2001:db8::66") + GET, source=PROXY)
    assert got.startswith(b"HTTP/1.1 503"), got[:200]
    d.wait_log(r"refused http ip=2001:db8::66 reason=banned")
    # a ban on the /64 takes all of it
    assert "banned 2001:db8:0:1::/64" in admin(bindir, d, "ban", "2001:db8:0:1::/64")
    got = raw(d.port, v2(NEXT), source=PROXY)
    assert b"Connections from your address are refused." in got, got


def test_ipv6_prefix_is_checked(bindir, tmp_path):
    exe = program(bindir, "asan/warrend", "warrend")
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert "--ipv6-prefix" in out.stdout + out.stderr
    for bad in ("31", "129", "x", "-64"):
        r = subprocess.run([str(exe), "--db", str(tmp_path / "x.db"), "--ipv6-prefix", bad],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "ipv6-prefix" in r.stderr, (bad, r.stderr)
