"""Helpers for the warrend suites: a daemon on free ports with a temporary
database, and clients driven through Debian's real `telnet` program in a pty
whose screen is read with pyte."""
import os
import re
import signal
import socket
import subprocess
import time

import pexpect
import pyte

F12 = "\x1b[24~"      # the test-hook key (only with --test-hooks)
CTRL_X = "\x18"       # leave the game, back to the menu


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def daemon_path(bindir):
    asan = bindir / "asan" / "warrend"
    return asan if asan.exists() else bindir / "warrend"


class Daemon:
    """warrend on 127.0.0.1 with a private database; stderr goes to a file."""

    def __init__(self, bindir, tmp, extra=(), grace=600):
        self.bindir = bindir
        self.tmp = tmp
        self.port = free_port()
        self.db = tmp / "warren.db"
        self.logpath = tmp / "warrend.log"
        self.extra = list(extra)
        self.grace = grace
        self.proc = None
        self.logpos = 0

    def start(self):
        self.port = self.port or free_port()
        args = [str(daemon_path(self.bindir)), "--telnet", f"127.0.0.1:{self.port}",
                "--http", "", "--db", str(self.db), "--grace", str(self.grace),
                "--test-hooks"] + self.extra
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:exitcode=23"
        self.logpos = len(self.text()) if self.logpath.exists() else 0
        self.log = open(self.logpath, "ab")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, env=env)
        self.wait_log(r"warrend \S+ ready", 20)
        return self

    def text(self):
        with open(self.logpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_log(self, pattern, timeout=10):
        """Waits for a log line matching pattern after the last match; returns the match."""
        deadline = time.time() + timeout
        rx = re.compile(pattern)
        while time.time() < deadline:
            t = self.text()
            m = rx.search(t, self.logpos)
            if m:
                self.logpos = m.end()
                return m
            if self.proc and self.proc.poll() is not None:
                raise AssertionError(f"warrend exited ({self.proc.returncode}):\n{t[-3000:]}")
            time.sleep(0.02)
        raise AssertionError(f"no log line /{pattern}/ in {timeout}s:\n{self.text()[-3000:]}")

    def alive(self):
        return self.proc and self.proc.poll() is None

    def kill(self, sig=signal.SIGKILL):
        if self.alive():
            self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=30)
        self.log.close()
        return rc

    def stop(self):
        """SIGTERM and wait; returns the exit status."""
        if not self.proc:
            return 0
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.log.close()
        return rc


class Telnet:
    """Debian's telnet in a pty; output fed to a pyte screen."""

    def __init__(self, port, cols=80, rows=24, term="xterm-256color"):
        env = dict(os.environ, TERM=term)
        self.cols, self.rows = cols, rows
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn("telnet", ["127.0.0.1", str(port)], env=env,
                                   dimensions=(rows, cols), timeout=10)
        self.raw = b""

    def pump(self, quiet=0.15, limit=10.0):
        """Reads until no output for `quiet` seconds (or limit)."""
        end = time.time() + limit
        while time.time() < end:
            try:
                data = self.child.read_nonblocking(65536, timeout=quiet)
            except pexpect.TIMEOUT:
                return
            except pexpect.EOF:
                return
            self.raw += data
            self.stream.feed(data)

    def text(self):
        return "\n".join(self.screen.display)

    def wait_for(self, needle, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            if (needle.search(self.text()) if hasattr(needle, "search") else needle in self.text()):
                return
            self.pump(quiet=0.05, limit=0.2)
        raise AssertionError(f"screen never showed {needle!r}:\n{self.text()}")

    def send(self, s, settle=True):
        self.child.send(s)
        if settle:
            self.pump()

    def resize(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)
        self.pump()

    def close(self):
        if self.child.isalive():
            self.child.terminate(force=True)

    # ---- menu flows --------------------------------------------------------------
    def connected(self):
        self.wait_for("Your choice")
        return self

    def register(self, name, pw):
        self.send("r")
        self.wait_for("Name:")
        self.send(name + "\r")
        self.wait_for("Password:")
        self.send(pw + "\r")
        self.wait_for("Password again:")
        self.send(pw + "\r")
        self.wait_for(f"Logged in as {name}")

    def login(self, name, pw):
        self.send("l")
        self.wait_for("Name:")
        self.send(name + "\r")
        self.wait_for("Password:")
        self.send(pw + "\r")
        self.wait_for(f"Logged in as {name}")


def hook(daemon, client, user):
    """Presses the hash key; returns dict(hash, seed, turn, seq)."""
    client.send(F12, settle=False)
    m = daemon.wait_log(rf"hook user={user} game=\d+ hash=([0-9a-f]+) seed=(\d+) turn=(\d+) seq=(\d+)")
    return {"hash": m.group(1), "seed": int(m.group(2)), "turn": int(m.group(3)),
            "seq": int(m.group(4))}


def replay(bindir, tmp, seed, name, keys, size="80x24"):
    """Runs the uninterrupted reference; returns (screen lines, hash)."""
    tool = bindir / "tools" / "server_replay"
    if not tool.exists():
        tool = bindir / "asan" / "tools" / "server_replay"
    kf = tmp / "keys.bin"
    kf.write_bytes(keys)
    out = subprocess.run([str(tool), "--seed", str(seed), "--name", name, "--keys", str(kf),
                          "--size", size], capture_output=True, check=True, timeout=60).stdout
    lines = out.decode("utf-8").split("\n")
    h = [ln for ln in lines if ln.startswith("hash ")][-1].split()[1]
    return lines[:int(size.split("x")[1])], h


def rstrip_lines(lines):
    return [ln.rstrip() for ln in lines]

