"""Shared helpers for the client, ssh and deploy suites (this file has no
tests): a warrend on 127.0.0.1 in a temporary directory, a program in a pty
read through a terminal emulator (pyte), and the menu flows."""
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import time

import pexpect
import pyte
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PASSWORD = "correct horse 42"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def need_daemon(bindir):
    path = pathlib.Path(bindir) / "warrend"
    if not path.exists():
        pytest.fail("%s is missing: build it (make) first" % path)
    return path


def need_client(bindir):
    path = pathlib.Path(bindir) / "warren"
    assert path.exists(), "%s is missing: make did not build the client" % path
    return path


class Daemon:
    """warrend with its own database, telnet port and Unix socket."""

    def __init__(self, bindir, workdir, exe=None, extra=(), env=None, popen=None):
        self.popen = popen or {}
        self.env = dict(os.environ)
        # a build directory outside the tree has no web/dist beside its bin/
        if "WARREN_WEB_ROOT" not in self.env and (ROOT / "web" / "dist" / "index.html").exists():
            self.env["WARREN_WEB_ROOT"] = str(ROOT / "web" / "dist")
        self.env.update(env or {})
        self.dir = pathlib.Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.exe = str(exe or pathlib.Path(bindir) / "warrend")
        self.sock = self.dir / "warren.sock"
        self.port = free_port()
        self.http = free_port()
        self.logpath = self.dir / "warrend.log"
        self.args = [self.exe, "--db", str(self.dir / "warren.db"),
                     "--telnet", "127.0.0.1:%d" % self.port,
                     "--http", "127.0.0.1:%d" % self.http,
                     "--socket", str(self.sock), *extra]
        self.proc = None

    def start(self, timeout=15):
        logf = open(self.logpath, "ab")
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=logf,
                                     stderr=logf, cwd=str(self.dir), env=self.env,
                                     **self.popen)
        logf.close()
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise AssertionError("warrend exited with %s:\n%s" % (self.proc.returncode, self.log()))
            if self.sock.exists() and self._tcp_up():
                return self
            time.sleep(0.05)
        raise AssertionError("warrend did not start listening:\n" + self.log())

    def _tcp_up(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            return True
        except OSError:
            return False

    def log(self):
        try:
            return self.logpath.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode if self.proc else None


class Term:
    """A program in a pty, its output fed to a pyte screen of the same size."""

    def __init__(self, argv, rows=24, cols=80, env=None, cwd=None):
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""
        self.eof = False
        e = dict(os.environ)
        e["TERM"] = "xterm-256color"
        e.update(env or {})
        self.child = pexpect.spawn(argv[0], list(argv[1:]), dimensions=(rows, cols), env=e,
                                   cwd=cwd)

    def pump(self, seconds=0.1):
        end = time.time() + seconds
        while not self.eof:
            left = end - time.time()
            try:
                data = self.child.read_nonblocking(65536, timeout=max(left, 0))
            except pexpect.TIMEOUT:
                break
            except pexpect.EOF:
                self.eof = True
                break
            self.raw += data
            self.stream.feed(data)
            if left <= 0:
                break

    def text(self):
        return "\n".join(self.screen.display)

    def wait(self, pattern, timeout=15):
        end = time.time() + timeout
        while True:
            if re.search(pattern, self.text()):
                return self.text()
            if self.eof or time.time() > end:
                raise AssertionError("waited for %r; screen:\n%s\n(eof=%s, last bytes %r)"
                                     % (pattern, self.text(), self.eof, self.raw[-300:]))
            self.pump(0.1)

    def wait_raw(self, pattern, timeout=15):
        end = time.time() + timeout
        while not re.search(pattern, self.raw):
            if self.eof or time.time() > end:
                raise AssertionError("waited for %r in output; got %r" % (pattern, self.raw[-500:]))
            self.pump(0.1)

    def settle(self, quiet=0.3, timeout=5):
        """Read until the output has been quiet for `quiet` seconds."""
        end = time.time() + timeout
        while time.time() < end:
            before = len(self.raw)
            self.pump(quiet)
            if len(self.raw) == before:
                return

    def send(self, s):
        self.child.send(s)

    def resize(self, rows, cols):
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def wait_exit(self, timeout=15):
        end = time.time() + timeout
        while not self.eof and time.time() < end:
            self.pump(0.2)
        self.child.close()
        return self.child.exitstatus, self.child.signalstatus

    def close(self):
        if self.child.isalive():
            self.child.terminate(force=True)


def unique_name(prefix="p"):
    return "%s%x" % (prefix, int(time.time() * 1000) % 0xffffffff ^ os.getpid())


def register(term, name, password=PASSWORD):
    term.wait("Your choice")
    term.send("r")
    term.wait("Name: ")
    term.send(name + "\r")
    term.wait("Password: ")
    term.send(password + "\r")
    term.wait("Password again: ")
    term.send(password + "\r")
    term.wait("Logged in as " + name, timeout=30)


def login(term, name, password=PASSWORD):
    term.wait("Your choice")
    term.send("l")
    term.wait("Name: ")
    term.send(name + "\r")
    term.wait("Password: ")
    term.send(password + "\r")
    return term.wait("Logged in as " + name, timeout=30)


def start_game(term):
    """From the logged-in menu to the game screen; returns its text."""
    term.send("p")
    end = time.time() + 20
    while time.time() < end:
        term.pump(0.2)
        t = term.text()
        if "Your choice" not in t and "One moment" not in t and t.strip():
            term.settle()
            return term.text()
    raise AssertionError("the game did not start:\n" + term.text())


def lowest_text_row(term):
    rows = [i for i, line in enumerate(term.screen.display) if line.strip()]
    return max(rows) if rows else -1


def tool(name):
    return shutil.which(name) or "/usr/sbin/" + name
