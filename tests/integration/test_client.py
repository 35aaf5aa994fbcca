"""bin/warren, the terminal client, against the real warrend in a pty:
menus, play, live resize, the daemon going away, and the terminal put back
exactly as it was (stty -a before and after, in the same pty) however the
client ends."""
import os
import pathlib
import re
import signal
import subprocess
import time

import pytest

from harness import program, unique_name

pytestmark = pytest.mark.daemon(unix=True)


def need_client(bindir):
    return program(bindir, "warren")


def test_help_and_version(bindir):
    exe = need_client(bindir)
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0
    for word in ("--socket", "--ssh", "HOST:PORT", "--version"):
        assert word in out.stdout
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0 and out.stdout.startswith("warren ")
    out = subprocess.run([str(exe), "--bogus"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 2 and "--bogus" in out.stderr


def test_no_daemon_clear_message(bindir, tmp_path):
    exe = need_client(bindir)
    out = subprocess.run([str(exe), "--socket", str(tmp_path / "none.sock")],
                         capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    assert out.returncode == 1
    assert "cannot connect to %s" % (tmp_path / "none.sock") in out.stderr
    assert "is warrend running?" in out.stderr
    out = subprocess.run([str(exe), "127.0.0.1:1"], capture_output=True, text=True, timeout=10,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 1 and "cannot connect to 127.0.0.1:1" in out.stderr


def _status_row(t):
    """Row of the game's status line (name, HP, depth, turn)."""
    rows = [i for i, line in enumerate(t.screen.display) if re.search(r"HP \d+/\d+", line)]
    return rows[-1] if rows else -1


def _wait_status_row(t, row, timeout=10):
    end = time.time() + timeout
    while _status_row(t) != row and time.time() < end:
        t.pump(quiet=0.2, limit=0.2)
    assert _status_row(t) == row, "status line not on row %d:\n%s" % (row, t.text())


def _lowest_text_row(t):
    rows = [i for i, line in enumerate(t.screen.display) if line.strip()]
    return max(rows) if rows else -1


def test_play_and_resize(bindir, daemon, clients):
    exe = need_client(bindir)
    t = clients.spawn([exe, "--socket", daemon.sock], cols=80, rows=24)
    name = unique_name("rz")
    t.register(name)
    # Smaller than 80x24 at the menu: the daemon asks to enlarge and says
    # the size it got through NAWS after SIGWINCH.
    t.resize(cols=60, rows=20)
    t.wait_for("(now 60x20)")
    t.resize(cols=80, rows=24)
    t.wait_for("Your choice")
    t.play()
    for key in "hjkl":
        t.send(key, settle=False)
        t.pump(quiet=0.2, limit=5)
    _wait_status_row(t, 22)  # the status sits above the help line
    # Bigger: the game re-lays out to the new size, and back again.
    t.resize(cols=120, rows=40)
    _wait_status_row(t, 38)
    assert _lowest_text_row(t) == 39
    t.resize(cols=100, rows=30)
    _wait_status_row(t, 28)
    t.send("l", settle=False)
    t.pump(quiet=0.3, limit=5)
    _wait_status_row(t, 28)
    t.close()
    assert "login conn=" in daemon.log() and name in daemon.log()


def test_tcp_address_and_quit(bindir, daemon, clients):
    exe = need_client(bindir)
    t = clients.spawn([exe, "127.0.0.1:%d" % daemon.port]).connected()
    t.send("q")
    status, sig = t.wait_exit()
    assert status == 0, t.raw[-300:]
    assert b"Goodbye." in t.raw
    assert b"the server closed the connection" in t.raw


def _shell_run(clients, tmp, exe, sock):
    """sh in a pty records stty -a, runs warren, records stty -a again."""
    script = ('tty > {d}/tty; stty -a > {d}/before; echo $$ > {d}/shpid; '
              '"{exe}" --socket "{sock}"; echo "status=$?"; stty -a > {d}/after; '
              'echo DONE; sleep 30').format(d=tmp, exe=exe, sock=sock)
    return clients.spawn(["/bin/sh", "-c", script])


def _client_pid(tmp):
    shpid = int((tmp / "shpid").read_text())
    end = time.time() + 10
    while time.time() < end:
        kids = pathlib.Path("/proc/%d/task/%d/children" % (shpid, shpid)).read_text().split()
        if kids:
            return int(kids[0])
        time.sleep(0.05)
    raise AssertionError("warren did not start")


def _tty_settings(tmp):
    tty = (tmp / "tty").read_text().strip()
    return subprocess.run(["stty", "-a", "-F", tty], capture_output=True, text=True).stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM])
def test_signal_restores_terminal(bindir, daemon, clients, tmp_path, sig):
    exe = need_client(bindir)
    t = _shell_run(clients, tmp_path, exe, daemon.sock)
    t.wait_for("Your choice")
    pid = _client_pid(tmp_path)
    during = _tty_settings(tmp_path)
    # Raw mode really is on while playing, so the restore is observable.
    assert "-icanon" in during and "-echo " in during and "-isig" in during, during
    os.kill(pid, sig)
    t.wait_raw(rb"DONE")
    assert ("status=%d" % (128 + sig)).encode() in t.raw
    assert ("stopped by").encode() in t.raw
    before = (tmp_path / "before").read_text()
    after = (tmp_path / "after").read_text()
    assert "icanon" in before and "-icanon" not in before
    assert before == after


def test_daemon_goes_away(bindir, daemon, clients, tmp_path):
    exe = need_client(bindir)
    t = _shell_run(clients, tmp_path, exe, daemon.sock)
    t.wait_for("Your choice")
    # SIGTERM, as systemd stops it (KillSignal=SIGTERM): a clean exit 0
    assert daemon.stop() == 0, daemon.log()
    t.wait_raw(rb"DONE", timeout=30)
    assert b"the server closed the connection" in t.raw
    assert b"status=0" in t.raw
    assert (tmp_path / "before").read_text() == (tmp_path / "after").read_text()


@pytest.mark.parametrize("addr,code,msg", [
    ("localhost:0", 2, "bad address"),
    ("localhost:70000", 2, "bad address"),
    ("::1:2323", 2, "write IPv6 addresses as [addr]:port"),
    ("[::1]:1", 1, "cannot connect to [::1]:1"),
    ("no-such-host.invalid:2323", 1, "cannot resolve no-such-host.invalid:2323"),
])
def test_addresses(bindir, addr, code, msg):
    exe = need_client(bindir)
    r = subprocess.run([str(exe), addr], capture_output=True, text=True, timeout=20,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == code and msg in r.stderr, (r.returncode, r.stderr)
