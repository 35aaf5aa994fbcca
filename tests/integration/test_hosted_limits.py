"""Hosted games under caps that fail soft, with the real daemon: hosted-max
and hosted-per-ip refuse a start with a message on telnet and the web
(a game in its grace period still counts), and a daemon whose user runs
out of processes refuses games but keeps serving: a player's detach no
longer makes libuv start its thread pool late and abort() (exit 134); a
daemon with no descriptor left for a game's terminal refuses it at once."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from harness import (ASAN_OPTIONS, CTRL_X, LEAVE, Daemon, WS, Web, daemon_exe, free_port,
                     unique_name)
from test_hosted import SPAWNER_TIMEOUT_S, new_player, open_to_games

PW = "correct horse"


def cat_conf(path, extra=""):
    path.write_text(extra + "[game cat]\nname = Cat\ncommand = /bin/cat\nhangup-timeout = 1\n")
    return path


def start_cat(d, clients, source, name=None):
    """A telnet player from source who registers and starts cat; returns
    (the client, the screen after pressing 1)."""
    t = clients(d.port, source=source)
    name = name or unique_name("cat")
    t.register(name)
    t.send("1")
    t.pump(quiet=0.3)
    return t, name


def web_start(d, source):
    """A browser player from source whose /ws/play/cat gets either the
    game or a refusal: returns ("started", ws) or ("refused", text)."""
    web = Web(d.http, source=source)
    name = unique_name("wc")
    r = web.register(name, PW)
    assert r.status == 303, r
    ws = WS(d.http, "/ws/play/cat", session=r.session, source=source)
    assert ws.status == 101
    op, p = ws.until(lambda op, p: op == 1 and b'"left"' in p or op == 2, timeout=10)
    if op == 1:
        return "refused", json.loads(p)["text"]
    d.wait_log(rf"hosted start user={name} game=cat")
    return "started", ws


def test_per_address_and_total_caps(bindir, tmp_path, clients):
    open_to_games(tmp_path)  # the games' user makes and enters the players' directories
    conf = cat_conf(tmp_path / "warren.conf", "hosted-max = 3\nhosted-per-ip = 2\n")
    d = Daemon(bindir, tmp_path / "daemon", http=True, extra=["--config", conf])
    d.start()
    try:
        assert "hosted games: at most 3, 2 per address" in d.log()
        a1, n1 = start_cat(d, clients, "127.0.0.2")
        d.wait_log(rf"hosted start user={n1} game=cat")
        a2, n2 = start_cat(d, clients, "127.0.0.2")
        d.wait_log(rf"hosted start user={n2} game=cat")
        a2.send(LEAVE)  # detached, in its grace period: still counts
        a2.wait_for("Your choice")
        a2.close()
        a3, n3 = start_cat(d, clients, "127.0.0.2")
        a3.wait_for("Your address already runs 2 hosted games: end one to start another.")
        assert "Your choice" in a3.text()  # back at the menu, nothing started
        d.wait_log(r"hosted game refused ip=127\.0\.0\.2: hosted-per-ip reached")
        assert f"hosted start user={n3}" not in d.log()
        state, ws = web_start(d, "127.0.0.3")  # another address: room for one more
        assert state == "started"
        state, text = web_start(d, "127.0.0.4")  # the total is reached
        assert (state, text) == ("refused", "The server runs all the hosted games it may (3): "
                                            "try again later.")
        b, _ = start_cat(d, clients, "127.0.0.4")
        b.wait_for("The server runs all the hosted games it may (3)")
        a1.send("\x04")  # Ctrl-D: cat ends, its slot is free again
        a1.wait_for("Cat has ended")
        a3.send("1")
        a3.pump(quiet=0.3)
        d.wait_log(rf"hosted start user={n3} game=cat")
        ws.close()
    finally:
        d.stop()
        d.stop_clean()


# ---- out of processes -------------------------------------------------------------------

def threads(pid):
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("Threads:")))


def as_user(uid):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]


def set_nproc(uid, pid, n):
    """The soft process limit of pid (the one the kernel applies), set as
    its own user: no privilege needed, wherever the tests run."""
    subprocess.run([*as_user(uid), "prlimit", "--pid", str(pid), f"--nproc={n}:"], check=True)


@pytest.fixture
def nobody_dir():
    """A directory owned by a user id no process has (RLIMIT_NPROC counts
    every task of the real user, and root is not held to it)."""
    uid = 3000000 + os.getpid() % 100000
    d = pathlib.Path(tempfile.mkdtemp(prefix="warren-nproc-"))
    os.chmod(d, 0o755)
    os.chown(d, uid, uid)
    yield uid, d
    shutil.rmtree(d, ignore_errors=True)


def test_out_of_processes_refuses_games_and_stays_up(bindir, nobody_dir, clients):
    uid, root = nobody_dir
    conf = cat_conf(root / "warren.conf", "hosted-per-ip = 1000\n")
    home = root / "daemon"
    home.mkdir()
    os.chown(home, uid, uid)
    d = Daemon(bindir, home, extra=["--config", conf], wrap=as_user(uid))
    d.start()
    try:
        pid = d.proc.pid
        assert os.stat(f"/proc/{pid}").st_uid == uid
        spawner = int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))
        games = 4
        room = threads(pid) + 1 + games  # warrend's threads, the spawner, this many programs
        for p in (pid, spawner):  # the spawner forks the programs, warrend makes threads
            set_nproc(uid, p, room)
        held = []
        for _ in range(games + 8):  # until a start is refused
            t, name = start_cat(d, clients, "127.0.0.1")
            if "cannot start" in t.text():
                break
            d.wait_log(rf"hosted start user={name} game=cat")
            t.send(LEAVE)  # detached: it runs on through its grace period
            t.wait_for("Your choice")
            t.close()
            held.append(name)
        else:
            raise AssertionError("every start went through: no process limit met")
        assert len(held) >= 1, d.log()[-2000:]
        assert "The game cannot start now" in t.text() and "Your choice" in t.text()
        d.wait_log(r"cannot start game=cat user=\S+: fork: Resource temporarily unavailable")
        p = clients(d.port)  # a Warren player plays and leaves: a snapshot on the pool
        w = unique_name("w")
        p.register(w)
        p.random_character(w)
        p.play_keys("sss")
        p.send(CTRL_X)
        p.wait_for("Your choice")
        d.wait_log(rf"detach user={w} ", timeout=10)
        p.send("p")  # the game was saved by that snapshot and goes on
        p.pump(quiet=0.5)
        assert d.alive(), f"warrend died ({d.proc.returncode}) as a player left:\n{d.log()[-2000:]}"
        p.wait_for(f"{w} the ")
        again = clients(d.port)  # new logins are served; further games refused
        t2, _ = start_cat(d, clients, "127.0.0.1")
        assert "The game cannot start now" in t2.text()
        again.login(held[0])  # a program ends: room again
        again.send("1")
        again.pump(quiet=0.3)
        again.send("\x04")
        again.wait_for("Cat has ended")
        t2.send(" ")
        t2.wait_for("Your choice")
        t2.send("1")
        t2.pump(quiet=0.3)
        assert "cannot start" not in t2.text()
        assert d.alive()
    finally:
        if d.alive():
            set_nproc(uid, d.proc.pid, 4096)  # the sanitizer's leak check makes a thread at exit
        d.stop()
        d.stop_clean()


def test_no_threads_at_start_is_a_message_not_an_abort(bindir, nobody_dir):
    """Whichever thread cannot be made at start (libuv's pool, the
    database's, a loop's), warrend says so and exits 1; it never aborts."""
    uid, root = nobody_dir
    outcomes = set()
    for n in (3, 6, 9, 11, 12, 13, 14, 16, 64):
        home = root / f"d{n}"
        home.mkdir()
        os.chown(home, uid, uid)
        log = home / "warrend.log"
        argv = ["prlimit", f"--nproc={n}:", *as_user(uid), str(daemon_exe(bindir)),
                "--db", str(home / "warren.db"), "--telnet", f"127.0.0.1:{free_port()}",
                "--http", "", "--loops", "8"]
        with open(log, "wb") as out:
            p = subprocess.Popen(argv, stdout=out, stderr=out, cwd=home,
                                 env=dict(os.environ, ASAN_OPTIONS=ASAN_OPTIONS))
        end = time.time() + 30
        while p.poll() is None and "ready" not in log.read_text() and time.time() < end:
            time.sleep(0.05)
        if p.poll() is None:
            p.terminate()
        code = p.wait(timeout=30)
        text = log.read_text()
        assert "Sanitizer" not in text and "runtime error" not in text, text
        if "ready" in text:
            assert code == 0, text
            outcomes.add("ran")
        else:
            assert code == 1, f"exit {code} under {n} processes:\n{text[-1500:]}"
            assert "ERROR" in text and "cannot" in text, text
            outcomes.add("refused")
    assert outcomes == {"ran", "refused"}


# ---- out of descriptors -----------------------------------------------------------------

def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def children(ppid, comm):
    """Processes named comm whose parent is ppid."""
    found = []
    for p in pathlib.Path("/proc").iterdir():
        try:
            stat = (p / "stat").read_text()
        except (OSError, ValueError):
            continue
        name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        if name == comm and int(rest[1]) == ppid:
            found.append(int(p.name))
    return found


@pytest.mark.alone  # times itself
def test_out_of_descriptors_refuses_a_game_at_once(bindir, tmp_path, clients):
    """warrend with no descriptor left for a game's terminal: the spawner's
    answer comes without its pty (the kernel drops it), and the start is
    refused at once with a message, the program it started killed, the
    loop never waiting for an answer that cannot come."""
    open_to_games(tmp_path)
    conf = cat_conf(tmp_path / "warren.conf", "hosted-per-ip = 100\n")
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf])
    d.start()
    pid = d.proc.pid
    try:
        spawner = int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))
        t, name = new_player(d, clients, "fd")
        time.sleep(0.3)
        full = open_fds(pid)  # every descriptor in use: the pty cannot come in
        subprocess.run(["prlimit", "--pid", str(pid), f"--nofile={full}:"], check=True)
        t0 = time.monotonic()  # the start's wait at warrend begins after this
        t.send("1")
        t.wait_for("The game cannot start now", timeout=2 * SPAWNER_TIMEOUT_S)
        took = time.monotonic() - t0
        # an answer that cannot come is given up SPAWNER_TIMEOUT_S after
        # the request left, never sooner: refused before, it was not waited for
        assert took < SPAWNER_TIMEOUT_S, f"the loop waited {took:.1f} s for the spawner"
        d.wait_log(rf"cannot start game=cat user={name}: no descriptor left for its terminal")
        assert f"hosted start user={name}" not in d.log()
        end = time.time() + 5
        while children(spawner, "cat") and time.time() < end:
            time.sleep(0.1)
        assert children(spawner, "cat") == [], "the program started for it still runs"
        subprocess.run(["prlimit", "--pid", str(pid), "--nofile=4096:"], check=True)
        t.send(" ")
        t.wait_for("Your choice")
        t.send("1")  # room again: it starts
        d.wait_log(rf"hosted start user={name} game=cat")
        assert d.alive()
    finally:
        if d.alive():
            subprocess.run(["prlimit", "--pid", str(pid), "--nofile=4096:"])
        d.stop()
        d.stop_clean()
