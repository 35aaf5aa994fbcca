"""warrend's ways in, with real clients: the Unix socket with `warren --ssh`
passing REMOTE_ADDR (trusted there, and counted by the per-address limit),
the same variable ignored on TCP, and the change-password screen through
Debian's telnet."""
import re
import socket
import time

import pyte

from harness import PW, program

SSH_ADDR = "203.0.113.7"
OTHER_ADDR = "198.51.100.4"
IAC, SB, SE, WILL = 255, 250, 240, 251
NEW_ENVIRON, IS, VAR, VALUE, USERVAR = 39, 0, 0, 1, 3
TTYPE = 24


def ssh_client(clients, bindir, target, addr):
    """bin/warren --ssh as sshd would start it for a user from addr."""
    env = {"SSH_CONNECTION": f"{addr} 40022 127.0.0.1 22"}
    return clients.spawn([program(bindir, "warren"), "--ssh", target], env=env)


def conn_id(daemon, via):
    return daemon.wait_log(rf"connect conn=(\d+) ip=\S+ via={via}").group(1)


def test_unix_socket_trusts_remote_addr_and_limits_it(bindir, start_daemon, clients):
    d = start_daemon(unix=True, extra=["--max-per-ip", "2"])
    sock = str(d.sock)
    a = ssh_client(clients, bindir, sock, SSH_ADDR)
    cid = conn_id(d, "unix")
    d.wait_log(rf"remote-addr conn={cid} ip={SSH_ADDR}")
    a.register("sshuser")
    d.wait_log(rf"login conn={cid} ip={SSH_ADDR} user=sshuser")
    # a second session from that address is fine, a third is over the limit
    ssh_client(clients, bindir, sock, SSH_ADDR).connected()
    c = ssh_client(clients, bindir, sock, SSH_ADDR)
    c.wait_for("Too many connections from your address")
    assert c.wait_exit()[0] is not None
    d.wait_log(rf"disconnect conn=\d+ ip={SSH_ADDR} user=- reason=limit")
    # other addresses, on the socket or by telnet, are not affected
    ssh_client(clients, bindir, sock, OTHER_ADDR).connected()
    clients(d.port).connected().close()
    # a local client that names no address stays "local"
    clients.spawn([program(bindir, "warren"), "--socket", sock]).connected()
    time.sleep(0.3)
    pid = re.findall(r"connect conn=(\d+) ip=local via=unix", d.log())[-1]
    assert f"remote-addr conn={pid} " not in d.log()


def test_unix_socket_connections_count_against_the_rate_once_named(bindir, start_daemon,
                                                                   clients):
    """`warren --ssh` sessions from one address started at once: past the
    request rate's burst they are told so and closed once REMOTE_ADDR
    names the address; another address is not affected."""
    d = start_daemon(unix=True, extra=["--request-rate", "1", "--request-burst", "1"])
    many = [ssh_client(clients, bindir, str(d.sock), SSH_ADDR) for _ in range(4)]
    told, end = [], time.time() + 15
    while len(told) < len(many) and time.time() < end:
        for c in many:
            c.pump(quiet=0.05, limit=0.2)
        told = [c.text() for c in many if "Your choice" in c.text() or "short time" in c.text()]
    refused = [t for t in told if "Too many connections from your address in a short time" in t]
    assert len(told) == 4 and 2 <= len(refused) <= 3, told
    d.wait_log(rf"disconnect conn=\d+ ip={SSH_ADDR} user=- reason=rate")
    ssh_client(clients, bindir, str(d.sock), OTHER_ADDR).connected()


def test_keys_before_the_address_wait_for_it(start_daemon):
    """On the Unix socket, keys that come before the client names its
    address (typed ahead into ssh) are held until it does: the login they
    make is counted against that address, never against "local" (whose
    throttle would then hold back every local player)."""
    d = start_daemon(unix=True)
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(d.sock))
    cid = conn_id(d, "unix")
    for keys in (b"l", b"ghost\r", b"wrong password\r"):
        s.sendall(keys)
        time.sleep(0.3)
    time.sleep(1)
    assert "login failed" not in d.log()
    s.sendall(environ_is(SSH_ADDR))
    d.wait_log(rf"login failed conn={cid} ip={re.escape(SSH_ADDR)} status=")
    assert f"login failed conn={cid} ip=local" not in d.log()
    s.close()


def test_only_the_first_address_counts(start_daemon):
    """The Unix socket's client names its address once: a second REMOTE_ADDR
    (after it, in the same packet or later) changes nothing, and so does
    one from a client that said it has none (a terminal type without
    offering NEW-ENVIRON). Keys typed between are never counted against
    another address than the one they came from."""
    d = start_daemon(unix=True)
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(d.sock))
    cid = conn_id(d, "unix")
    s.sendall(environ_is(SSH_ADDR) + b"l" + environ_is(OTHER_ADDR))
    time.sleep(0.3)
    s.sendall(b"ghost\r" + environ_is(OTHER_ADDR) + b"wrong password\r")
    d.wait_log(rf"login failed conn={cid} ip={re.escape(SSH_ADDR)} status=")
    assert OTHER_ADDR not in d.log()
    s.close()
    # no address: a terminal type, NEW-ENVIRON not offered; a later one is ignored
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(d.sock))
    cid = conn_id(d, "unix")
    s.sendall(bytes([IAC, WILL, TTYPE, IAC, SB, TTYPE, IS]) + b"xterm" + bytes([IAC, SE]) + b"l")
    time.sleep(0.3)
    s.sendall(environ_is(OTHER_ADDR) + b"ghost\rwrong password\r")
    d.wait_log(rf"login failed conn={cid} ip=local status=")
    assert OTHER_ADDR not in d.log()
    s.close()


def test_a_client_that_never_names_its_address_is_closed(start_daemon):
    """A Unix socket client that offers NEW-ENVIRON (WILL) and never sends
    its IS does not keep its keys held until it hangs up: after a short
    wait it is told why and closed, and the keys it typed are never taken
    as "local"'s."""
    d = start_daemon(unix=True)
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(d.sock))
    cid = conn_id(d, "unix")
    s.sendall(bytes([IAC, WILL, NEW_ENVIRON]) + b"l")
    time.sleep(0.3)
    s.sendall(b"ghost\rwrong password\r")
    s.settimeout(15)
    got, start = b"", time.time()
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    assert time.time() - start < 14
    assert b"did not say where it connects from" in got, got[-300:]
    d.wait_log(rf"disconnect conn={cid} ip=local user=- reason=no address")
    assert "login failed" not in d.log()
    s.close()


def environ_is(addr):
    """An unsolicited NEW-ENVIRON IS naming REMOTE_ADDR, as a forger would send."""
    return (bytes([IAC, WILL, NEW_ENVIRON, IAC, SB, NEW_ENVIRON, IS, USERVAR]) + b"REMOTE_ADDR"
            + bytes([VALUE]) + addr.encode() + bytes([IAC, SE]))


class RawClient:
    """A plain TCP socket (no telnet program), its output read through pyte."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)

    def send(self, data):
        self.s.sendall(data)

    def wait(self, needle, timeout=10):
        end = time.time() + timeout
        self.s.settimeout(0.2)
        while needle not in "\n".join(self.screen.display) and time.time() < end:
            try:
                chunk = self.s.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                break
            self.stream.feed(chunk.replace(b"\xff\xfd'", b""))
        assert needle in "\n".join(self.screen.display), "\n".join(self.screen.display)


def test_tcp_ignores_remote_addr(bindir, daemon, clients):
    d = daemon
    # the real client with --ssh over TCP: the daemon never asks for it
    term = ssh_client(clients, bindir, f"127.0.0.1:{d.port}", SSH_ADDR)
    cid = conn_id(d, "tcp")
    term.register("tcpuser")
    d.wait_log(rf"login conn={cid} ip=127\.0\.0\.1 user=tcpuser")
    # a forged, unsolicited REMOTE_ADDR on TCP changes nothing either
    s = RawClient(d.port)
    fid = conn_id(d, "tcp")
    s.send(environ_is("192.0.2.99"))
    s.wait("Your choice")
    s.send(b"l")
    s.wait("Name: ")
    s.send(b"tcpuser\r")
    s.wait("Password: ")
    s.send(PW.encode() + b"\r")
    s.wait("Logged in as tcpuser")
    d.wait_log(rf"login conn={fid} ip=127\.0\.0\.1 user=tcpuser")
    s.s.close()
    assert SSH_ADDR not in d.log() and "192.0.2.99" not in d.log()
    assert "remote-addr" not in d.log()


def chpw(t, old, new, again):
    t.menu("c", ("Old password:", old), ("New password:", new))
    if len(new) < 8:
        return
    t.wait_for("New password again:")
    t.send(again + "\r")


def test_change_password_screen(daemon, clients):
    d = daemon
    t = clients(d.port).connected()
    t.register("pwuser", PW)
    new = "battery-staple-9"
    # wrong old password: refused with the login message, nothing changed
    chpw(t, "not-the-password", new, new)
    t.wait_for("Unknown name or wrong password.")
    # the two new passwords differ
    chpw(t, PW, new, new + "x")
    t.wait_for("The passwords did not match.")
    # too short: told the rule, asked again
    chpw(t, PW, "short", "")
    t.wait_for("Passwords are 8 to 128 characters long.")
    t.wait_for("New password:")
    t.send("\x1b")  # Esc cancels
    t.wait_for("Your choice")
    # the real change
    chpw(t, PW, new, new)
    t.wait_for("Password changed.")
    d.wait_log(r"password changed user=pwuser")
    for secret in (PW, new, "not-the-password"):
        assert secret.encode() not in t.raw  # never echoed
        assert secret not in d.log()        # never logged
    t.send("q")
    t.close()
    # the old password no longer works, the new one does
    t2 = clients(d.port).connected()
    t2.try_login("pwuser", PW)
    t2.wait_for("Unknown name or wrong password.")
    t2.login("pwuser", new)
