"""warren-admin against the real daemon: the control socket (mode 0600,
refused to other users), listing users and live games, locking and
unlocking an account (its player is told and its game saved exactly),
resetting a password, announcements on menus and in games, database and
journal health, and bad input on the control socket."""
import os
import pathlib
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import threading
import time

import pytest

from harness import ASAN_OPTIONS, CTRL_X, ON_PG, PW, Daemon, hook, new_game, program, read_all


def admin_path(bindir):
    return program(bindir, "asan/warren-admin", "warren-admin")


@pytest.fixture
def world(bindir, clients):
    # a directory others may enter, so only the socket's own mode keeps them out
    top = tempfile.mkdtemp(prefix="warren-admin-")
    os.chmod(top, 0o755)
    ctl = os.path.join(top, "warrend.ctl")
    d = Daemon(bindir, pathlib.Path(top) / "d", extra=["--control", ctl])
    try:
        d.start()

        def admin(*args, stdin="", user=None):
            r = subprocess.run([str(admin_path(bindir)), "--control", ctl, *args], input=stdin,
                               capture_output=True, text=True, timeout=60, user=user)
            return r.returncode, r.stdout, r.stderr
        yield {"d": d, "ctl": ctl, "client": lambda **kw: clients(d.port, **kw).connected(),
               "admin": admin}
        d.stop_clean()
    finally:
        d.stop()
        shutil.rmtree(top, ignore_errors=True)


def test_control_socket_is_private(world, bindir):
    st = os.stat(world["ctl"])
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert st.st_uid == os.getuid()
    code, out, err = world["admin"]("users", user="nobody")
    assert code == 1 and "Permission denied" in err, err
    assert "admin:" not in world["d"].log()
    # no daemon on a socket: a clear message
    r = subprocess.run([str(admin_path(bindir)), "--control", "/nonexistent/x.ctl", "games"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "is warrend running" in r.stderr
    r = subprocess.run([str(admin_path(bindir)), "frobnicate"], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 2 and "unknown command" in r.stderr


def test_users_games_lock_unlock(world):
    d, admin = world["d"], world["admin"]
    a = world["client"]()
    new_game(d, a, "alice")
    a.play_keys("llkkjh")
    before = hook(d, a, "alice")
    b = world["client"]()
    b.register("bob", PW)

    code, out, err = admin("users")
    assert code == 0, err
    rows = {ln.split()[0]: ln.split() for ln in out.splitlines()[1:]}
    assert set(rows) == {"alice", "bob"}
    assert rows["alice"][2] == "no" and rows["alice"][3] == "1" and rows["alice"][4] != "0"
    assert rows["bob"][3] == "0" and rows["bob"][4] == "0"
    code, out, err = admin("games")
    assert code == 0, err
    line = [ln for ln in out.splitlines() if ln.startswith("alice")]
    assert line and line[0].split()[-1] == "80x24", out
    assert str(before["turn"]) in line[0].split()

    code, out, err = admin("lock", "alice")
    assert code == 0, err
    assert out == "alice locked: its live game was saved and detached\n", out
    a.wait_for("This account has been locked.")
    a.wait_for("Not logged in.")
    d.wait_log(r"admin: lock user=alice")
    d.wait_log(r"game closed user=alice")
    code, out, _ = admin("games")
    assert "alice" not in out
    code, out, _ = admin("users")
    assert [ln for ln in out.splitlines() if ln.startswith("alice")][0].split()[2] == "yes"
    # a locked account cannot log in and is told so
    a.try_login("alice", PW)
    a.wait_for("This account is locked.")

    code, out, err = admin("unlock", "alice")
    assert code == 0, err
    assert out == "alice unlocked: it may log in again\n", out  # it says what it did
    a.login("alice", PW)
    a.send("p")
    d.wait_log(r"game resume user=alice")
    assert hook(d, a, "alice") == before  # saved exactly where it was

    code, out, err = admin("lock", "nosuchuser")
    assert code == 1 and "no such account" in err
    code, out, err = admin("lock")
    assert code == 2


def test_passwd_reset(world):
    d, admin = world["d"], world["admin"]
    t = world["client"]()
    t.register("carol", PW)
    t.send("q")
    new = "a new passphrase"
    code, out, err = admin("passwd", "carol", stdin=new + "\n")
    assert code == 0, err
    code, out, err = admin("passwd", "carol", stdin="short\n")
    assert code == 1 and "8 to 128" in err
    code, out, err = admin("passwd", "nobodyhere", stdin="long enough pw\n")
    assert code == 1 and "No such account." in err
    assert new not in d.log() and "long enough pw" not in d.log()
    t2 = world["client"]()
    t2.try_login("carol", PW)
    t2.wait_for("Unknown name or wrong password.")
    t2.login("carol", new)


def test_announce_everywhere(world):
    d, admin = world["d"], world["admin"]
    p = world["client"]()
    new_game(d, p, "dave")
    p.play_keys("ll")
    w = world["client"]()
    w.send("w")
    w.wait_for("dave")
    w.send("a")
    d.wait_log(r"watch conn=\d+ user=dave")
    m = world["client"]()
    text = "Server restarts at noon"
    code, out, err = admin("announce", *text.split())
    assert code == 0, err
    assert "shown to 3 connections" in out
    for t in (p, w, m):
        t.wait_for("Announcement: " + text)
    assert p.screen.display[-1].startswith(" Announcement: " + text)
    assert "Your choice" in m.text()
    # the game goes on under it, and the watcher still sees what the player sees
    p.play_keys("h")
    p.wait_for("Announcement: " + text)
    code, _, err = admin("announce")
    assert code == 0, err
    m.pump(quiet=0.3)
    assert "Announcement" not in m.text()
    p.play_keys("l")
    assert "Announcement" not in p.text()
    w.pump(quiet=0.3)
    assert "Announcement" not in w.text()


def test_health(world):
    d, admin = world["d"], world["admin"]
    t = world["client"]()
    new_game(d, t, "erin")
    t.play_keys("jjkkl")
    seq = hook(d, t, "erin")["seq"]
    t.send(CTRL_X)
    t.wait_for("Your game is saved")
    code, out, err = admin("health")
    assert code == 0, err
    lines = dict(ln.split(": ", 1) for ln in out.splitlines())
    # PostgreSQL checks its own storage: health says so rather than "ok"
    assert lines["integrity"] == ("not checked here (PostgreSQL checks its own)" if ON_PG else "ok")
    assert lines["games"].startswith("1 unfinished, 0 finished, 0 broken")
    assert lines["journal"].startswith(f"{seq} rows")
    assert lines["users"].startswith("1 ")
    assert int(lines["snapshots"].split(",")[0]) >= 1
    assert int(lines["database"].split()[0]) > 0
    # the keys' journal rows, just stored, timed in their parts
    appends = lines["journal appends, last 10 s"]
    assert int(appends.split(",")[0]) >= 5, appends
    assert "p99 of queue" in appends and "slowest 1%: queue" in appends, appends


def test_bad_control_input(world):
    d, admin = world["d"], world["admin"]

    def raw(data):
        s = socket.socket(socket.AF_UNIX)
        s.connect(world["ctl"])
        s.sendall(data)
        s.settimeout(10)
        return read_all(s).decode("utf-8", "replace")
    assert raw(b"x" * 5000).endswith("error: command line too long\n")
    assert raw(bytes(range(1, 10)) + b"\xff\xfe\n").startswith("error: unknown command")
    assert raw(b"lock\n").startswith("error: this command needs an argument")
    assert raw(b"announce " + b"y" * 300 + b"\n").startswith("error: announcement too long")
    # a client that ends its side right after the command still gets the answer
    s = socket.socket(socket.AF_UNIX)
    s.connect(world["ctl"])
    s.sendall(b"health\n")
    s.shutdown(socket.SHUT_WR)
    s.settimeout(30)
    got = read_all(s)
    assert got.startswith(b"integrity: not checked" if ON_PG else b"integrity: ok\n"), got
    assert got.endswith(b"ok\n"), got
    # a client that connects and says nothing does not hold anything up
    idle = socket.socket(socket.AF_UNIX)
    idle.connect(world["ctl"])
    code, out, err = admin("games")
    assert code == 0, err
    idle.close()
    assert d.alive()


def test_control_path_taken_is_left_alone(world, bindir, tmp_path):
    """A --control path that names a file other than a socket (the
    database, given by mistake) or the socket a running daemon listens on
    is not removed: the second daemon says why and does not start, and the
    file, the first daemon's socket and its answers stay."""
    other = tmp_path / "notes.txt"
    other.write_text("keep me\n")
    for path, why in ((other, "a file that is not a socket is there"),
                      (world["ctl"], "another daemon is listening there")):
        d2 = Daemon(bindir, tmp_path / f"d2-{len(why)}", extra=["--control", path])
        try:
            with pytest.raises(AssertionError, match="warrend exited"):
                d2.start()
        finally:
            if d2.proc.poll() is None:  # it started after all: stopped, not left behind
                d2.stop()
        assert why in d2.log(), d2.log()[-2000:]
        assert d2.proc.returncode != 0
    assert other.read_text() == "keep me\n"
    assert stat.S_ISSOCK(os.lstat(world["ctl"]).st_mode)
    code, out, err = world["admin"]("games")
    assert code == 0, err


def test_control_connections_are_capped_and_idle_ones_closed(world):
    """32 control connections may be open; the 33rd is told busy at once.
    One that sends no command line in 10 seconds is told so and closed,
    so idle ones cannot keep warren-admin out for long."""
    d, admin = world["d"], world["admin"]

    def conn():
        s = socket.socket(socket.AF_UNIX)
        s.connect(world["ctl"])
        s.settimeout(30)
        return s
    t0 = time.time()  # before they connect: each one's 10 s runs from its accept
    idle = [conn() for _ in range(32)]
    time.sleep(0.3)
    extra = conn()
    extra.sendall(b"games\n")
    assert read_all(extra) == b"error: busy: 32 control connections are open; try again\n"
    code, out, err = admin("games")
    assert code != 0 and "busy" in out + err, (code, out, err)
    for s in idle:
        assert read_all(s) == b"error: no command line in 10 seconds\n"
    assert 9 <= time.time() - t0 < 15
    code, out, err = admin("games")
    assert code == 0, err
    assert d.alive()


def strace_child(proc):
    """The pid strace (proc) runs, once it has started it."""
    deadline = time.time() + 10
    while time.time() < deadline:
        kids = pathlib.Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        if kids:
            return int(kids[0])
        time.sleep(0.01)
    raise AssertionError("strace started nothing")


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
def test_control_socket_mode_is_not_set_through_a_link(bindir, tmp_path):
    """The socket's mode is set without a path: a link put where the socket
    was, right after bind (strace holds the daemon 0.3 s there), is not
    followed, so the file it names keeps its mode; no chmod names the
    path; the daemon's socket is 0600 all the same."""
    ctl, victim = tmp_path / "warrend.ctl", tmp_path / "victim"
    victim.write_text("not the daemon's\n")
    victim.chmod(0o644)
    trace = tmp_path / "strace.log"
    d = Daemon(bindir, tmp_path / "d", extra=["--control", ctl],
               env={"ASAN_OPTIONS": ASAN_OPTIONS + ":detect_leaks=0"},  # LSan: not under ptrace
               wrap=["strace", "-f", "-qq", "-o", trace, "-e", "trace=bind,/chmod",
                     "-e", "inject=bind:delay_exit=300000"])
    started = threading.Thread(target=lambda: d.start(timeout=60))
    started.start()
    try:
        deadline = time.time() + 60
        while not (ctl.is_socket() or time.time() > deadline):
            time.sleep(0.001)
        st = os.lstat(ctl)
        link = tmp_path / "link"
        link.symlink_to(victim)
        os.rename(link, ctl)  # at once: where the socket was, a link
        started.join()
        assert f"listening control {ctl}" in d.log()
        assert stat.S_IMODE(victim.stat().st_mode) == 0o644
        chmods = [ln for ln in trace.read_text().splitlines() if "chmod" in ln]
        assert not any(str(ctl) in ln for ln in chmods), chmods
        # 0600 from bind on: no moment another user could connect
        assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode)
    finally:
        started.join()
        if d.proc.poll() is None:
            os.kill(strace_child(d.proc), signal.SIGTERM)
        d.proc.wait(timeout=30)
    assert d.proc.returncode == 0, d.log()[-2000:]
