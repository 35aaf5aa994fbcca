"""A NetHack game cut off (the program SIGKILLed, as by the OOM killer,
and warrend with it: no hangup save) is recovered before the next start:
the section's recover (Debian's) turns the checkpoint NetHack wrote at its
last level change back into a save, in the game's box, and the player goes
on with the same character, on the level reached. Without recover NetHack
finds a game in progress."""
import os
import re
import signal
import time

import pytest

from harness import Daemon, unique_name
from test_hosted import RC, answer_until, playground, settle

RECOVER = "/usr/lib/games/nethack/recover"
# a dwarvish Archeologist (no question asked), who starts with a pick-axe
# to dig down with: the level change writes NetHack's checkpoint
ARC = "OPTIONS=checkpoint,role:Archeologist,race:dwarf,gender:male,align:lawful\n"


def start_recovering(bindir, tmp_path, recover=None):
    """NetHack's section with recover (Debian's when None)."""
    if not os.path.exists(RECOVER):
        pytest.skip("Debian's nethack-common (recover) is not installed")
    pg, conf = playground(tmp_path, bindir)
    (tmp_path / "nethackrc").write_text(RC + ARC)
    recover = recover or f"{RECOVER} -d {pg}"
    conf.write_text(conf.read_text().replace(
        "[game nethack]\n", f"[game nethack]\nrecover = {recover}\n", 1))
    return Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()


@pytest.fixture
def recovering(bindir, tmp_path):
    d = start_recovering(bindir, tmp_path)
    yield d
    d.stop()
    d.stop_clean()


def pick_axe(t):
    """The pick-axe's letter, from the apply prompt's list."""
    t.send("a")
    t.wait_for("apply?")
    t.send("?")
    m = re.search(r"(\w) - (?:an? )?(?:[+-]\d+ )?pick-axe", t.wait_for("pick-axe"))
    assert m, t.text()
    t.send("\x1b")
    settle(t)
    return m.group(1)


def dig_down(t):
    """Off the stairs, then digs through the floor to level 2."""
    axe = pick_axe(t)
    for step in "hjklyubn" * 3:
        t.play_keys(step)
        settle(t)
        t.send("a")
        t.wait_for("apply?")
        t.send(axe)
        until(t, "direction")
        t.send(">")
        end = time.time() + 20
        while time.time() < end and "Dlvl:2" not in t.text():
            t.pump(quiet=0.3, limit=1)
            if "--More--" in t.text():
                t.send("\r")
            elif "too hard to" in t.text() or "cannot" in t.text() or "interrupt" in t.text():
                break
        if "Dlvl:2" in t.text():
            settle(t)
            return
    raise AssertionError(t.text())


def until(t, goal, timeout=10):
    """Past NetHack's --More-- until the screen shows goal."""
    end = time.time() + timeout
    while goal not in t.text():
        assert time.time() < end, t.text()
        if "--More--" in t.text():
            t.send("\r")
        t.pump(quiet=0.2, limit=1)


def procs(*words):
    """Pids (outside the box) of the processes whose argv holds words."""
    pids = []
    for p in os.listdir("/proc"):
        try:
            argv = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if all(w in argv for w in words):
            pids.append(int(p))
    return pids


def nethack_pids(name):
    """Pids of the NetHack program playing as name."""
    return [p for p in procs(b"-u", name.encode())
            if b"nethack" in open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")[0]]


def test_a_game_cut_off_is_recovered_at_the_next_start(recovering, clients):
    d = recovering
    t = clients(d.port)
    name = unique_name("nr")
    t.register(name)
    assert "1) Play NetHack 3.6.6" in t.wait_for("Your choice")
    t.send("1")
    answer_until(t, "Dlvl:1")
    settle(t)
    dig_down(t)
    pids = nethack_pids(name)
    assert pids, "NetHack runs"
    for p in pids:
        os.kill(p, signal.SIGKILL)
    d.kill()
    d.start()
    q = clients(d.port)
    q.login(name)
    q.wait_for("Your choice")
    q.send("1")
    end = time.time() + 20
    while "welcome back" not in q.text():
        assert "in progress" not in q.text() and "Destroy" not in q.text(), q.text()
        assert time.time() < end, q.text()
        if "--More--" in q.text():
            q.send("\r")
        q.pump(quiet=0.3, limit=1)
    answer_until(q, "Dlvl:2")
    assert f"{name.capitalize()} the Digger" in q.text(), q.text()  # the same character


def cut_off_and_chosen_again(t, prefix):
    """A new player on t starts NetHack, which is SIGKILLed (its lock file
    left); the player chooses it again and it starts. Returns the name."""
    name = unique_name(prefix)
    t.register(name)
    t.wait_for("Your choice")
    t.send("1")
    answer_until(t, "Dlvl:1")
    for p in nethack_pids(name):
        os.kill(p, signal.SIGKILL)
    t.wait_for("Press any key")
    t.send(" ")
    t.wait_for("Your choice")
    t.send("1")
    t.wait_for("Dlvl:1", timeout=15)
    return name


def test_a_recover_that_hangs_is_killed_and_the_game_starts(bindir, tmp_path, clients):
    """A lock file left (NetHack killed) and a recover that never ends: it
    is killed in time (within start-timeout) and NetHack starts all the
    same."""
    # tail -f on the lock file: never ends
    d = start_recovering(bindir, tmp_path, "/usr/bin/tail ---disable-inotify -f")
    try:
        name = cut_off_and_chosen_again(clients(d.port), "nh")
        # recover killed after 3 s: NetHack starts all the same
        assert not procs(b"---disable-inotify"), "recover killed"
        d.wait_log(rf"hosted recover failed game=nethack player={name} status=9: recover on "
                   r"\S+\.0 ran past 3000 ms: killed: the game starts all the same")
    finally:
        d.stop()
        d.stop_clean()


def test_a_recover_that_fails_is_logged_and_the_game_starts(bindir, tmp_path, clients):
    """A lock file left (NetHack killed) and a recover that exits 1:
    warrend's log says which game, which player and how it ended, and
    NetHack starts all the same."""
    d = start_recovering(bindir, tmp_path, "/usr/bin/false")
    try:
        name = cut_off_and_chosen_again(clients(d.port), "nf")
        d.wait_log(rf"hosted recover failed game=nethack player={name} status=256: recover on "
                   r"\S+\.0 exited with status 1: the game starts all the same")
    finally:
        d.stop()
        d.stop_clean()
