"""The bytes bin/warren puts on the wire, seen by a scripted telnet peer on a
Unix socket: the negotiation answers, NAWS at start and after SIGWINCH,
TTYPE from $TERM, NEW-ENVIRON with the ssh address (both the RFC 1572 form
of SEND and the one libtelnet 0.21 produces without the SEND byte), CR
handling with and without BINARY. The daemon shows none of these bytes, so
a peer that records them is the only way to check them."""
import socket
import threading
import time

import pytest

from harness import program

IAC, SB, SE, WILL, WONT, DO, DONT = 255, 250, 240, 251, 252, 253, 254
BINARY, ECHO, SGA, TTYPE, NAWS, NEW_ENVIRON = 0, 1, 3, 24, 31, 39


class Peer:
    """Accepts one connection, sends `script` (a list of bytes / float pauses),
    records everything the client sends."""

    def __init__(self, path, script):
        self.srv = socket.socket(socket.AF_UNIX)
        self.srv.bind(path)
        self.srv.listen(1)
        self.got = b""
        self.conn = None
        self.script = script
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        self.conn, _ = self.srv.accept()
        for step in self.script:
            if isinstance(step, float):
                time.sleep(step)
            else:
                self.conn.sendall(step)
        self.conn.settimeout(0.1)
        end = time.time() + 20
        while time.time() < end:
            try:
                d = self.conn.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                break
            if not d:
                break
            self.got += d

    def wait_for(self, needle, timeout=10):
        end = time.time() + timeout
        while needle not in self.got:
            assert time.time() < end, "client never sent %r; got %r" % (needle, self.got)
            time.sleep(0.05)

    def send(self, data):
        self.conn.sendall(data)

    def close(self):
        if self.conn:
            self.conn.close()
        self.srv.close()


def naws(cols, rows):
    return bytes([IAC, SB, NAWS, cols >> 8, cols & 255, rows >> 8, rows & 255, IAC, SE])


OPEN = bytes([IAC, DO, NAWS, IAC, DO, TTYPE, IAC, WILL, ECHO, IAC, WILL, SGA,
              IAC, DO, NEW_ENVIRON])
TTYPE_SEND = bytes([IAC, SB, TTYPE, 1, IAC, SE])
ENV_SEND = bytes([IAC, SB, NEW_ENVIRON, 1, 3]) + b"REMOTE_ADDR" + bytes([IAC, SE])
ENV_SEND_NO_CMD = bytes([IAC, SB, NEW_ENVIRON, 3]) + b"REMOTE_ADDR" + bytes([IAC, SE])


def env_is(addr):
    return (bytes([IAC, SB, NEW_ENVIRON, 0, 3]) + b"REMOTE_ADDR" + bytes([1]) + addr.encode()
            + bytes([IAC, SE]))


@pytest.fixture
def sockpath(tmp_path):
    return str(tmp_path / "peer.sock")


@pytest.mark.parametrize("request_bytes", [ENV_SEND, ENV_SEND_NO_CMD], ids=["rfc", "no-send-byte"])
def test_ssh_negotiation(bindir, clients, sockpath, request_bytes):
    exe = program(bindir, "warren")
    peer = Peer(sockpath, [OPEN, 0.2, TTYPE_SEND, request_bytes, b"ready\r\n"])
    t = clients.spawn([exe, "--ssh", "--socket", sockpath], cols=100, rows=30,
                      env={"TERM": "xterm-256color",
                           "SSH_CONNECTION": "198.51.100.7 40000 10.0.0.1 22"})
    try:
        t.wait_for("ready")
        for want in (bytes([IAC, WILL, NAWS]), naws(100, 30), bytes([IAC, WILL, TTYPE]),
                     bytes([IAC, DO, ECHO]), bytes([IAC, DO, SGA]),
                     bytes([IAC, WILL, NEW_ENVIRON]),
                     bytes([IAC, SB, TTYPE, 0]) + b"xterm-256color" + bytes([IAC, SE]),
                     env_is("198.51.100.7")):
            peer.wait_for(want)
        # SIGWINCH -> a new NAWS
        t.resize(cols=132, rows=40)
        peer.wait_for(naws(132, 40))
        # Not in BINARY mode: Enter goes out as CR NUL, IAC doubled
        t.send(b"a\r\xffb")
        peer.wait_for(b"a\r\x00\xff\xffb")
    finally:
        peer.close()


def test_plain_client_refuses_environ_and_sends_bare_cr_in_binary(bindir, clients, sockpath):
    exe = program(bindir, "warren")
    peer = Peer(sockpath, [OPEN, bytes([IAC, DO, BINARY, IAC, WILL, BINARY]), 0.2, ENV_SEND,
                           b"ready\r\n"])
    t = clients.spawn([exe, "--socket", sockpath],
                      env={"SSH_CONNECTION": "198.51.100.7 40000 10.0.0.1 22"})
    try:
        t.wait_for("ready")
        peer.wait_for(bytes([IAC, WONT, NEW_ENVIRON]))
        peer.wait_for(bytes([IAC, WILL, BINARY]))
        peer.wait_for(bytes([IAC, DO, BINARY]))
        t.send(b"x\ry")
        peer.wait_for(b"x\ry")
        assert b"x\r\x00y" not in peer.got
        # never the address without --ssh
        assert b"198.51.100.7" not in peer.got and b"REMOTE_ADDR" not in peer.got
    finally:
        peer.close()


def test_bogus_ssh_connection_is_not_sent(bindir, clients, sockpath):
    exe = program(bindir, "warren")
    peer = Peer(sockpath, [OPEN, 0.2, ENV_SEND, b"ready\r\n"])
    t = clients.spawn([exe, "--ssh", "--socket", sockpath],
                      env={"SSH_CONNECTION": "not-an-address 1 2 3"})
    try:
        t.wait_for("ready")
        peer.wait_for(bytes([IAC, SB, NEW_ENVIRON, 0, IAC, SE]))  # an empty IS
        assert b"not-an-address" not in peer.got
    finally:
        peer.close()
