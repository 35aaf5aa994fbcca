"""Hosted games with the real daemon and Debian's NetHack (nethack-console):
chosen from the telnet menu, played, watched, resized, brought back after
warrend is SIGKILLed, and ended with its xlogfile row."""
import contextlib
import ctypes
import json
import os
import pathlib
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import pyte
import pytest

from harness import (ARTIFACTS, LEAVE, PREFIX, WS, Daemon, Screen, Web, browser_script,
                     program, unique_name)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
from nethack_walk import waits  # noqa: E402 (what NetHack's screen waits at)

NETHACK = pathlib.Path("/usr/games/nethack")
if not NETHACK.exists():  # a missing game fails the run: these tests are never skipped
    raise RuntimeError(f"{NETHACK} missing: run make deps (it installs nethack-console)")

RC = ("OPTIONS=windowtype:tty,color,!legacy,!tombstone,!toptenwin,!news,!autopickup\n"
      "OPTIONS=disclose:-i -a -v -g -c -o\n")


TOYS = ("winsize", "exit 0", "flood", "nohup", "noread", "keys")  # keys 2.. after NetHack's 1
GAMES_USER = "warren-games"  # games-user's default; make deps creates it
SPAWNER_TIMEOUT_S = 10  # spawner.h's SPAWNER_TIMEOUT_MS: warrend's wait for an answer, at most


def games_ids():
    """(uid, gid) hosted games run as: warren-games under a root daemon."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    pw = pwd.getpwnam(GAMES_USER)  # KeyError: run make deps (it creates the user)
    return pw.pw_uid, pw.pw_gid


def open_to_games(path):
    """Lets the games' user pass through path and the directories above it
    (pytest's are 0700): each gets o+x, up to one that has it already."""
    for p in [pathlib.Path(path).resolve(), *pathlib.Path(path).resolve().parents]:
        mode = p.stat().st_mode
        if mode & 0o001:
            break
        os.chmod(p, (mode & 0o7777) | 0o011)


def for_games(*paths):
    """What a game writes belongs to its user."""
    uid, gid = games_ids()
    for p in paths:
        os.chown(p, uid, gid)


def toy_copy(bindir, root):
    """ptytoy where the games' user may run it (the build may lie where it
    cannot go)."""
    toy = pathlib.Path(root) / "ptytoy"
    if not toy.exists():
        shutil.copy(bindir / "tools" / "ptytoy", toy)
        os.chmod(toy, 0o755)
    return toy


def toy_sections(bindir, root):
    """ptytoy's misbehaving modes as games of their own."""
    toy = toy_copy(bindir, root)
    return "".join(f"[game {m.split()[0]}]\ncommand = {toy} {m}\nhangup-timeout = 1\n"
                   for m in TOYS)


def toy_key(mode):
    return str(2 + [m.split()[0] for m in TOYS].index(mode))


def start_hosted(bindir, root, sections, extra=(), **kw):
    """warrend in root/daemon with root/warren.conf holding sections, root
    opened to the games' user (who makes and enters the players'
    directories); kw as Daemon's."""
    open_to_games(root)
    conf = pathlib.Path(root) / "warren.conf"
    conf.write_text(sections)
    return Daemon(bindir, pathlib.Path(root) / "daemon", extra=["--config", conf, *extra],
                  **kw).start()


def new_player(d, clients, prefix, key=None, **send):
    """A player registered (a name from prefix) on a telnet client of d,
    who presses key at the menu if given (send's settle and the like in
    send): (the client, the name)."""
    t = clients(d.port)
    name = unique_name(prefix)
    t.register(name)
    if key is not None:
        t.send(key, **send)
    return t, name


def program_pid(d, name, game, timeout=10):
    """The pid the log gives name's start of game."""
    return int(d.wait_log(rf"hosted start user={name} game={game} pid=(\d+)", timeout).group(1))


def playground(root, bindir):
    """NetHack's data linked (its score and lock files are each player's
    own, made by the spawner): no setgid games needed. The games' user
    owns the playground and can reach root."""
    open_to_games(root)
    pg = root / "nethack"
    (pg / "save").mkdir(parents=True)
    for f in SHARED.split():
        os.symlink(f"/usr/lib/games/nethack/{f}", pg / f)
    for_games(pg, pg / "save")
    (root / "nethackrc").write_text(RC)
    conf = root / "warren.conf"
    conf.write_text("grace = 600\n"
                    "[game nethack]\n"
                    "name = NetHack 3.6.6\n"
                    f"command = /usr/games/nethack -d {pg} -u %u\n"
                    "env = NETHACKOPTIONS=@%r\n"
                    "rcfile = %d/nethackrc\n"
                    f"rc-default = {root / 'nethackrc'}\n"
                    f"xlogfile = {OWN_XLOG}\n"
                    + playground_keys(pg) + toy_sections(bindir, root))
    return pg, conf


# the xlogfile each player's own (what warrend reads a game's end from:
# no other game can write a row there), NetHack's top ten and lock file
# too (OWN: made in the player's playground), its data shared read-only
SHARED = "nhdat symbols license"
OWN = "record logfile perm"
OWN_XLOG = "%d/playground/xlogfile"


def playground_keys(pg):
    """A section's lines that make pg each player's own, the data shared
    read-only, the score and lock files each player's own."""
    return f"playground = {pg}\nplayground-shared = {SHARED}\nplayground-files = {OWN}\n"


def own_playground(pg, name):
    """The playground of name's own (games-dir/nethack/NAME/playground),
    which NetHack sees as the playground (playground)."""
    return pg.parent / "daemon" / "games" / "nethack" / name / "playground"


def own_saves(pg, name):
    """The save directory of name's own, NetHack's playground save/."""
    return own_playground(pg, name) / "save"


def xlog_rows(pg, name):
    """The rows of name's own xlogfile, as dicts."""
    path = own_playground(pg, name) / "xlogfile"
    return [dict(f.split("=", 1) for f in r.split("\t")) for r in path.read_text().splitlines()]


def save_files(pg):
    """Every NetHack save file: the players' own, and any in the shared
    save/ (where none should be)."""
    return [*own_playground(pg, "*").parent.parent.glob("*/playground/save/*"),
            *(pg / "save").iterdir()]


@pytest.fixture
def nethack(bindir, tmp_path):
    pg, conf = playground(tmp_path, bindir)
    d = Daemon(bindir, tmp_path / "daemon", http=True, extra=["--config", conf, "--grace", "2"])
    d.start()
    yield d, pg
    d.stop()
    d.stop_clean()


def nethack_waits(t):
    """What NetHack on t's screen waits at, from its cursor
    (nethack_walk.waits): "more", "window", "question" or None, a command
    at its map."""
    c = t.screen.cursor
    return waits(t.screen.display, c.x, c.y)


def answer_until(t, goal, timeout=20):
    """Answers NetHack's questions (a random character, --More--) until the
    screen shows goal. A goal on the status line (Dlvl:) is reached once
    NetHack waits for a command at its map: past whatever else its random
    start shows below a status line already drawn (the welcome spilled
    over two rows, "Things that are here" on the start square, a pet's
    noise), a window or a question left with Esc; a later key would be
    swallowed by it."""
    end = time.time() + timeout
    at_map = goal.startswith("Dlvl:")
    while goal not in t.text() or (at_map and nethack_waits(t)):
        assert time.time() < end, f"never {goal!r}{' at the map' if at_map else ''}:\n{t.text()}"
        text = t.text()
        if "Shall I pick" in text or "Is this ok?" in text:
            t.send("y")
        elif "--More--" in text or nethack_waits(t) == "more":
            t.send("\r")
        elif goal in text:
            t.send("\x1b")
        t.pump(quiet=0.1, limit=0.5)
    t.pump(quiet=0.3)
    return t.text()


def settle(t):
    """Past any --More-- NetHack still shows (it ignores other keys there),
    and any window or question it waits at (Esc): at its map."""
    for _ in range(10):
        t.pump(quiet=0.3)
        kind = nethack_waits(t)
        if "--More--" in t.text() or kind == "more":
            t.send("\r")
        elif kind:
            t.send("\x1b")
        else:
            return
    raise AssertionError(t.text())


def to_map(t):
    """From NetHack's first question to the map of level 1."""
    t.wait_for("Shall I pick", timeout=20)
    return answer_until(t, "Dlvl:1")


def start_nethack(t, name):
    t.register(name)
    assert "1) Play NetHack 3.6.6" in t.wait_for("Your choice")
    t.send("1")
    return to_map(t)


def test_menu_play_watch(nethack, clients, bindir):
    d, _ = nethack
    t = clients(d.port)
    name = unique_name("nh")
    start_nethack(t, name)
    t.play_keys("s" * 3)  # search: turns pass, the map stays
    w, _ = new_player(d, clients, "w", "w")
    assert "NetHack 3.6.6" in w.wait_for(name)
    w.send("a")
    w.wait_for(" St:")  # NetHack's first status line (its second is under the watch line)
    t.play_keys("s")
    w.pump(quiet=0.3)
    assert w.lines()[:23] == t.lines()[:23]
    # its bottom row, NetHack's second status line for the player, says
    # whom it watches and how to stop for a few seconds ...
    assert re.match(rf"Watching {name} play NetHack 3\.6\.6, 1 watching\. +q stops · \? help$",
                    w.lines()[23]), w.lines()[23]
    # ... then shows the player's: hit points, depth and turn are watched too
    w.wait_for("Dlvl:1", timeout=15)
    t.play_keys("s")
    w.pump(quiet=0.3)
    assert w.lines() == t.lines() and "HP:" in w.lines()[23], w.text()
    w.send("?")  # the help says again whom it watches
    assert f"Watching {name} play NetHack 3.6.6" in w.wait_for("stop watching")
    assert d.wait_log(rf"hosted start user={name} game=nethack pid=\d+")
    status, lobby = Web(d.http).html("/")  # the lobby's row says which game
    row = next(r for r in lobby.split("<tr>") if f"<td>{name}</td>" in r)
    assert status == 200 and "<td>NetHack 3.6.6</td>" in row, row
    admin = program(bindir, "asan/warren-admin", "warren-admin")  # lists hosted games too
    r = subprocess.run([str(admin), "--control", str(d.db) + ".ctl", "games"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and name in r.stdout, (r.stdout, r.stderr)


def test_resize_goes_to_the_program(nethack, clients):
    d, _ = nethack
    t, _ = new_player(d, clients, "rs", toy_key("winsize"))
    t.wait_for("size 80x24")
    t.resize(100, 30)
    t.wait_for("size 100x30")
    t.send("q")
    t.wait_for("has ended")



IAC, SB, SE, WILL = 255, 250, 240, 251


def naws(w, h):
    return bytes([IAC, SB, 31, w >> 8, w & 255, h >> 8, h & 255, IAC, SE])


class RawTelnet:
    """A telnet peer that writes its bytes as the test gives them (a key
    and a window size in one segment), its screen a pyte one of 120x40."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.screen = Screen(120, 40)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""
        self.sock.sendall(bytes([IAC, WILL, 31]) + naws(80, 24))

    def wait_for(self, text, timeout=15):
        end = time.time() + timeout
        while text not in "\n".join(self.screen.display) and text.encode() not in self.raw:
            assert time.time() < end, (text, "\n".join(self.screen.display))
            self.sock.settimeout(max(0.05, end - time.time()))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            assert data, (text, "closed")
            data = data.replace(bytes([IAC, IAC]), b"")  # no 0xff in Warren's output
            self.raw += data
            self.stream.feed(data)

    def send(self, data):
        self.sock.sendall(data)


def test_a_program_never_gets_a_size_below_80x24(nethack):
    """A terminal made smaller than 80x24 (in one segment with the key that
    starts the game, while its games-per-hour are counted): the program
    starts at 80x24 all the same, the player told to enlarge the terminal,
    and gets the size once it is 80x24 or more."""
    d, _ = nethack
    name = unique_name("sm")
    assert Web(d.http).register(name, "correct horse").status == 303
    t = RawTelnet(d.port)
    t.wait_for("Your choice")
    t.send(b"l")
    t.wait_for("Name:")
    t.send(name.encode() + b"\r")
    t.wait_for("Password:")
    t.send(b"correct horse\r")
    t.wait_for(name)
    t.wait_for("Your choice")
    t.send(toy_key("winsize").encode() + naws(70, 20))
    t.wait_for("enlarge your terminal")
    d.wait_log(rf"hosted start user={name} game=winsize", 10)
    time.sleep(0.5)  # what it printed at its start is drawn once the terminal fits
    t.send(naws(100, 30))
    t.wait_for("size 100x30")
    text = "\n".join(t.screen.display)
    assert "size 80x24" in text and "size 70x20" not in text, text
    t.sock.close()


def test_a_browser_made_smaller_keeps_the_program_at_80x24(nethack):
    """A browser window made smaller than 80x24 while the program runs:
    the player is told to enlarge it, the program keeps its size, and gets
    the next one that fits."""
    d, _ = nethack
    r = Web(d.http).register(unique_name("bs"), "correct horse")
    ws, shows, seen = winsize_at_100x40(d, r.session)
    ws.text(json.dumps({"t": "resize", "w": 60, "h": 20}))
    ws.until(shows(b"enlarge"), timeout=10)
    time.sleep(0.5)
    ws.text(json.dumps({"t": "resize", "w": 110, "h": 35}))
    ws.until(shows(b"size 110x35"), timeout=10)
    text = b"".join(seen)
    assert b"size 60x" not in text and b"size 80x24" not in text, text[-600:]
    ws.binary(b"q")
    ws.close()

def test_misbehaving_programs_hurt_no_one(nethack, clients):
    d, _ = nethack
    other, _ = new_player(d, clients, "ok")
    t, _ = new_player(d, clients, "bad", toy_key("exit"))  # exits at once: back to the menu, told
    assert "0 playing now" in t.wait_for("has ended"), t.text()  # the game counted out
    t.send(" ")
    t.wait_for("Your choice")
    t.send(toy_key("flood"), settle=False)  # never quiet: no settling
    t.wait_for("flood")
    other.send("w")  # the daemon answers others while the program floods
    other.wait_for("Live games", timeout=5)
    other.send("q")
    other.wait_for("Your choice", timeout=5)
    t.send(LEAVE)
    t.wait_for("Your choice", timeout=10)
    t.send(toy_key("noread"))
    t.wait_for("noread ready")
    t.send("x" * 2000, settle=False)  # never read: queued, then dropped
    t.send(LEAVE)
    t.wait_for("Your choice", timeout=10)
    t.send(toy_key("nohup"))
    t.wait_for("nohup ready")
    t.send(LEAVE)
    t.wait_for("Your choice")
    # grace (2 s) over: SIGHUP, ignored; SIGKILL after hangup-timeout (1 s)
    d.wait_log(r"hangup user=bad\S* game=nohup", timeout=15)
    d.wait_log(r"program exited user=bad\S* game=nohup pid=\d+ status=9", timeout=15)
    other.send("w")
    other.wait_for("Live games", timeout=5)


def test_leaving_and_coming_back_at_will_costs_the_log_a_few_lines(nethack, clients):
    """A player who leaves a hosted game and picks it again, a hundred
    times in a burst of keys, wrote a line each time it left; now a few
    a window, the rest counted, and the program is the same one."""
    d, _ = nethack
    t, name = new_player(d, clients, "lv", toy_key("winsize"))
    t.wait_for("size 80x24")
    start = len(d.log())
    t.send((LEAVE + toy_key("winsize")) * 100, settle=False)
    t.pump(quiet=1.0, limit=15)
    t.send(LEAVE)
    t.wait_for("Your choice")
    log = d.log()[start:]
    left = log.count(f"hosted detach user={name} ")
    assert 1 <= left <= 10, left
    assert len(re.findall(rf"hosted start user={name} ", d.log())) == 1  # reattached each time


def spawner_of(d):
    return int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))


@contextlib.contextmanager
def spawner_stopped(d, clients, prefix):
    """A player of d (registered as prefix...) starting the toy "keys"
    while the spawner is stopped (SIGSTOP), as slow as a busy machine makes
    it; the spawner goes on when the block ends. Yields the player."""
    spawner = spawner_of(d)
    t = clients(d.port)
    t.register(unique_name(prefix))
    os.kill(spawner, signal.SIGSTOP)
    try:
        t.send(toy_key("keys"), settle=False)
        t.wait_for("Starting keys", timeout=5)
        yield t
    finally:
        os.kill(spawner, signal.SIGCONT)


def test_a_slow_spawner_holds_up_no_other_player(nethack, clients):
    """A game starting while the spawner cannot answer (stopped: as slow as
    a busy machine makes it) holds up no one else on the loop; its player
    sees it start, and gets the program with the keys typed meanwhile once
    the spawner goes on."""
    d, _ = nethack
    a, _ = new_player(d, clients, "on", toy_key("keys"))
    a.wait_for("keys ready")
    with spawner_stopped(d, clients, "slow") as b:
        b.send("z", settle=False)  # waits for the program, not dropped
        a.send("x", settle=False)  # the other player's key is answered meanwhile
        a.wait_for("got 1: 78", timeout=3)
    b.wait_for("keys ready")
    b.wait_for("got 1: 7a")
    d.wait_log(r"hosted start user=slow\S* game=keys pid=\d+")


def test_starting_games_have_their_own_ids_in_every_list(nethack, clients):
    """Two games starting at once (the spawner stopped holds them) are
    listed each as itself, not both as game 0: picking either from the
    telnet watch list watches that player's game, and the lobby's JSON
    lists each once; once they run they keep those ids (the watcher stays
    on its game)."""
    d, _ = nethack
    spawner = spawner_of(d)
    names = [unique_name("sa"), unique_name("sb")]  # the watch list's order, by name
    players = []
    for n in names:
        t = clients(d.port)
        t.register(n)
        players.append(t)
    w, _ = new_player(d, clients, "wa")
    os.kill(spawner, signal.SIGSTOP)
    try:
        for t in players:
            t.send(toy_key("keys"), settle=False)
            t.wait_for("Starting keys", timeout=5)
        for letter, n in (("a", names[0]), ("b", names[1])):
            w.send("w")
            w.wait_for(names[1])
            w.send(letter)
            w.wait_for(f"Watching {n} play keys", timeout=5)
            if letter == "a":
                w.send("q")
                w.wait_for("Your choice")
        ws = WS(d.http, "/ws/lobby")
        lobby = ws.json_until(lambda m: m["t"] == "lobby")
        ws.close()
        listed = [g["name"] for g in lobby["games"]]
        assert sorted(x for x in listed if x in names) == names, lobby
    finally:
        os.kill(spawner, signal.SIGCONT)
    for t in players:
        t.wait_for("keys ready")
    players[1].send("z")
    players[1].wait_for("got 1: 7a")
    w.wait_for("got 1: 7a")  # still the game it picked while it started
    w.send("?")  # the help says whom it watches
    assert f"Watching {names[1]} play keys" in w.wait_for("stop watching")


def test_a_start_with_no_answer_fails_soft(nethack, clients):
    """A spawner that never answers in time: the player is told and back
    in the menu; the program that starts late is killed, not left behind."""
    d, _ = nethack
    with spawner_stopped(d, clients, "late") as t:
        text = t.wait_for("The game cannot start now", timeout=2 * SPAWNER_TIMEOUT_S)
        assert "Your choice" in text, text
    assert d.wait_log(r"cannot start game=keys user=late\S*: the spawner did not answer in time")
    t.send(toy_key("keys"))  # the spawner answers again
    t.wait_for("keys ready")


PTRACE_CONT, PTRACE_DETACH, PTRACE_GETEVENTMSG, PTRACE_SEIZE = 7, 17, 0x4201, 0x4206
PTRACE_O_TRACEFORK, PTRACE_EVENT_FORK, WALL = 2, 1, 0x40000000


def ptrace(request, pid, data=0):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    if libc.ptrace(request, pid, None, ctypes.c_void_p(data)) == -1:
        raise OSError(ctypes.get_errno(), f"ptrace {request:#x} {pid}")


def hold_next_child(spawner, start):
    """The spawner's next child, held stopped before it can exec (as a box
    whose mount hangs on a dead file system): the spawner traced over its
    fork (start() sends the request), the child let go stopped."""
    ptrace(PTRACE_SEIZE, spawner, PTRACE_O_TRACEFORK)
    start()
    child = 0
    while not child:
        _, st = os.waitpid(spawner, WALL)
        if st >> 8 == signal.SIGTRAP | PTRACE_EVENT_FORK << 8:
            msg = ctypes.c_ulong()
            ptrace(PTRACE_GETEVENTMSG, spawner, ctypes.addressof(msg))
            child = msg.value
        else:  # another stop: on with its signal
            ptrace(PTRACE_CONT, spawner, os.WSTOPSIG(st) if os.WIFSTOPPED(st) else 0)
    os.waitpid(child, WALL)  # its first stop, traced
    os.kill(child, signal.SIGSTOP)  # stops it again once let go
    ptrace(PTRACE_DETACH, child)
    ptrace(PTRACE_DETACH, spawner)
    return child


def test_a_start_that_never_execs_is_told_late_and_frees_its_slot(bindir, tmp_path, clients):
    """A start whose box never gets to the program's exec (held stopped)
    is killed at its section's start-timeout: the player is back in the
    menu, told the game did not start in time, the log says so, and the
    next start of the same game runs."""
    _, conf = playground(tmp_path, bindir)
    toy = toy_copy(bindir, tmp_path)
    conf.write_text(conf.read_text() + f"[game late]\ncommand = {toy} keys\nstart-timeout = 1\n")
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        late = str(2 + len(TOYS))
        # a first start: what the spawner makes once is made
        t, name = new_player(d, clients, "la", late)
        t.wait_for("keys ready")
        t.send("q")
        t.wait_for("has ended")
        t.send(" ")
        t.wait_for(f"{late}) Play late")
        began = time.time()
        held = hold_next_child(spawner_of(d), lambda: t.send(late, settle=False))
        try:
            text = t.wait_for("The game did not start in time", timeout=9)
        finally:
            with contextlib.suppress(ProcessLookupError):  # killed, as it should be
                os.kill(held, signal.SIGCONT)  # nothing stays stopped, whatever came
        assert f"{late}) Play late" in text and time.time() - began >= 0.9, text
        d.wait_log(rf"spawner: game=late pid={held} did not reach its exec in 1 s: killed")
        d.wait_log(rf"cannot start game=late user={name}: the game did not start in time")
        assert not pathlib.Path(f"/proc/{held}").exists()
        t.send(late)
        t.wait_for("keys ready")
        t.send("q")
        t.wait_for("has ended")
    finally:
        d.stop_clean()


def test_a_start_in_flight_at_shutdown_ends_with_the_daemon(nethack, clients):
    """warrend stopped while a game starts: the program, started late, is
    hung up as every other game is, and the daemon ends, cleanly."""
    d, _ = nethack
    with spawner_stopped(d, clients, "sd"):
        d.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
    assert d.proc.wait(timeout=20) == 0, d.log()[-2000:]
    assert re.search(r"program exited user=sd\S* game=keys pid=\d+", d.log()), d.log()[-2000:]


def test_players_of_hosted_games_at_shutdown_close_with_the_daemon(bindir, tmp_path, clients):
    """SIGTERM while browsers, a terminal and a watcher are in hosted games,
    the browsers closing as it comes: each program is hung up and exits,
    maybe before its connections are closed, and those conns let go of the
    freed game: the daemon ends well (status 0, no sanitizer report). The
    order is the machine's: eight stops, to meet it more often."""
    toy = toy_copy(bindir, tmp_path)
    open_to_games(tmp_path)  # before its rounds' directories, which pass already
    for round_ in range(8):
        root = tmp_path / f"r{round_}"
        root.mkdir()
        d = start_hosted(bindir, root, f"[game toy]\ncommand = {toy} winsize\n", http=True)
        socks = []
        for i in range(2):
            r = Web(d.http).register(unique_name(f"sb{i}"), "correct horse")
            seen = []
            ws = WS(d.http, "/ws/play/toy?w=80&h=24", session=r.session, timeout=10)
            ws.until(shown_in(seen)(b"size 80x24"), timeout=10)
            socks.append(ws)
        t, name = new_player(d, clients, "st", "1")
        t.wait_for("size 80x24")
        w = clients(d.port)
        w.register(unique_name("sw"))
        w.send("w")
        w.wait_for(name)
        w.send("a")
        w.wait_for("size 80x24")
        d.proc.send_signal(signal.SIGTERM)
        time.sleep(0.003 * round_)  # the program's exit, before or after the closes
        for ws in socks:
            with contextlib.suppress(OSError):
                ws.close()
        code = d.proc.wait(timeout=30)
        log = d.log()
        assert code == 0, f"warrend exit status {code}:\n{log[-3000:]}"
        assert "ERROR: AddressSanitizer" not in log, log[-3000:]
        assert len(re.findall(r"program exited user=s[bt]", log)) == 3, log[-3000:]


RATE, BURST = 128 * 1024, 64 * 1024  # hosted-output-rate's default, its burst
PTY_BUFFER = 64 * 1024  # what a program may write ahead of the reads: the kernel's buffers


def program_of(pid):
    """The program a game's logged pid started: the process at the end of
    its line of only children (in a game's pid namespace it is two down:
    the holder, the namespace's reaper, the program)."""
    while True:
        kids = pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if len(kids) != 1:
            return pid
        pid = int(kids[0])


def written(pid):
    """Bytes the process has written so far (/proc/PID/io: wchar)."""
    io = pathlib.Path(f"/proc/{pid}/io").read_text()
    return int(re.search(r"^wchar: (\d+)", io, re.M).group(1))


def test_keys_over_the_input_rate_are_told_over_the_frame_not_the_pty(bindir, tmp_path, clients):
    """A hosted game's player whose keys go over --input-rate is told over
    the bottom row of the frames for a few seconds; the line comes down by
    itself and was never the program's: when the program's own screen
    scrolls after, no row of it carries the line."""
    _, conf = playground(tmp_path, bindir)
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf, "--input-rate", "30"])
    d.start()
    try:
        t, _ = new_player(d, clients, "fast", toy_key("keys"))
        t.wait_for("keys ready")
        t.send("x" * 400)
        note = "Keys typed faster than 30 a second were dropped."
        t.wait_for(note, timeout=5)
        assert t.lines()[-1].strip() == note, t.text()
        end = time.time() + 10
        while note in t.text():  # down by itself, no key needed
            assert time.time() < end, t.text()
            t.pump(quiet=0.1, limit=0.5)
        time.sleep(1.5)  # the bucket refills: the next key passes
        t.send("y")
        t.wait_for("got 1: 79", timeout=5)
        assert note not in t.text(), t.text()  # the program's screen never held it
    finally:
        d.stop()
        d.stop_clean()


def test_a_flood_is_read_at_the_output_rate(nethack, clients):
    """A program that writes as fast as it can is read at hosted-output-rate
    (default 128 KB a second; a full bucket to begin with), so its writes
    block: over a few seconds it writes no faster, and it goes on writing
    (its reading resumes after every pause), while another player's every
    key is answered."""
    d, _ = nethack
    # never quiet: no settling
    t, name = new_player(d, clients, "fl", toy_key("flood"), settle=False)
    t.wait_for("flood 0")
    pid = program_of(program_pid(d, name, "flood"))
    v, _ = new_player(d, clients, "vk", toy_key("keys"))
    v.wait_for("keys ready")
    first, t1 = written(pid), time.monotonic()
    for ch in "abcdefghijklmnop":
        v.send(ch, settle=False)
        v.wait_for(f"got 1: {ord(ch):02x}", timeout=5)
    while time.monotonic() < t1 + 3:
        t.pump(quiet=0.05, limit=0.2)  # the player reads its frames
    last, t2 = written(pid), time.monotonic()
    most = BURST + RATE * (t2 - t1) + PTY_BUFFER
    assert last - first <= most, f"{last - first} bytes in {t2 - t1:.1f} s: over {most:.0f}"
    assert last - first > RATE * (t2 - t1) / 4, f"only {last - first} bytes in {t2 - t1:.1f} s"
    t.send(LEAVE)
    t.wait_for("Your choice", timeout=10)


def test_nethack_gets_ctrl_x_warren_keys_follow_the_prefix(nethack, clients):
    r"""In a hosted game Ctrl-X is the program's: NetHack shows its
    attributes and the player stays; ^\ then a key that is none of
    Warren's shows their help line; ^\ x leaves, back to the menu, whose
    line for the game says how."""
    d, _ = nethack
    t, name = new_player(d, clients, "px", "1")
    to_map(t)  # at the map: no --More-- left from a long welcome
    t.send("\x18")  # ^X: NetHack's attributes
    t.wait_for("Current Characteristics:")
    assert "'s attributes:" in t.text()
    assert f"detach user={name}" not in d.log()
    t.send("\x1b")
    t.pump(quiet=0.3)
    t.send(PREFIX + "?")
    t.wait_for("^\\ then: x leave, e say, w who, t chat, ^\\ sends ^\\")
    t.send(LEAVE)
    assert r"1) Play NetHack 3.6.6  (^\ x: back here, ^\ ?: keys)" in t.wait_for("Your choice")
    d.wait_log(rf"detach user={name} ")
    t.send("1")  # the same program, still running
    t.wait_for("Dlvl:1")


def test_prefix_twice_sends_it_other_keys_reach_the_program(nethack, clients):
    r"""ptytoy keys prints each read: ^\ ^\ is one ^\ to the program, Ctrl-T
    and Ctrl-E are the program's, ^\ w and ^\ t are Warren's (a notice,
    nothing read), Ctrl-\ x leaves as ^\ x does."""
    d, _ = nethack
    t, _ = new_player(d, clients, "pk", toy_key("keys"))
    t.wait_for("keys ready")
    t.send(PREFIX + PREFIX)
    t.wait_for("got 1: 1c")
    t.pump(quiet=0.3)
    assert t.text().count("1c") == 1, t.text()
    t.send("\x14")
    t.wait_for("got 1: 14")
    t.send("\x05")
    t.wait_for("got 1: 05")
    t.send(PREFIX + "w")
    t.wait_for("Nobody is watching.")
    t.send(PREFIX + "t")
    t.wait_for(r"^\ t turns it off")
    t.send("z")
    t.wait_for("got 1: 7a")
    got = re.findall(r"got \d+:(?: [0-9a-f]{2})+", t.text())
    assert got == ["got 1: 1c", "got 1: 14", "got 1: 05", "got 1: 7a"], got
    t.send(PREFIX + "\x18")  # the prefix then Ctrl-X: as x
    t.wait_for("Your choice")


def test_prefix_in_the_browser(nethack):
    r"""/play/ID's keys are the same: ^\ ^\ sends one ^\, ^\ x leaves."""
    d, _ = nethack
    web = Web(d.http)
    r = web.register(unique_name("pb"), "correct horse")
    ws = WS(d.http, "/ws/play/keys", session=r.session)
    assert ws.status == 101
    ws.until(lambda op, p: op == 2 and b"keys ready" in p, timeout=10)
    ws.binary(b"\x1c\x1c")
    ws.until(lambda op, p: op == 2 and b"got 1: 1c" in p)
    ws.binary(b"\x18")
    ws.until(lambda op, p: op == 2 and b"got 1: 18" in p)
    ws.binary(b"\x1cx")
    left = ws.json_until(lambda m: m.get("t") == "left")["text"]
    assert left == "keys runs on without you for a while; choose it again to go on.", left
    ws.close()



def shown_in(seen):
    """A predicate maker for WS.until: shows(size) waits until the binary
    frames read so far (kept in seen, whatever each wait read) hold size."""
    def shows(size):
        def pred(op, p):
            seen.append(p)
            return op == 2 and size in b"".join(seen)
        return pred
    return shows


def winsize_at_100x40(d, session):
    """A browser playing ptytoy winsize at 100x40 since a while (the next
    size goes to the program at once): its websocket, shows() and the
    frames read so far."""
    seen = []
    shows = shown_in(seen)
    ws = WS(d.http, "/ws/play/winsize?w=100&h=40", session=session, timeout=10)
    ws.until(shows(b"size 100x40"), timeout=10)
    time.sleep(0.4)  # the start's size is a while old: the next goes at once
    return ws, shows, seen


def test_browser_size_from_the_address(nethack):
    """/ws/play/ID?w=COLS&h=ROWS (the page's size, as term.js asks): the
    program starts at it and is brought back at it, never at 80x24 for a
    moment first (Crawl aborts on a shrink and a grow that close together);
    a size that is no size is 80x24."""
    d, _ = nethack
    r = Web(d.http).register(unique_name("sz"), "correct horse")
    seen = []
    shows = shown_in(seen)
    ws = WS(d.http, "/ws/play/winsize?w=100&h=40", session=r.session, timeout=10)
    assert ws.status == 101
    ws.until(shows(b"size 100x40"), timeout=10)
    ws.binary(b"\x1cx")  # ^\ x: leave; it runs on
    ws.json_until(lambda m: m.get("t") == "left")
    ws.close()
    back = WS(d.http, "/ws/play/winsize?w=90&h=30", session=r.session, timeout=10)
    back.until(shows(b"size 90x30"), timeout=10)
    assert b"size 80x24" not in b"".join(seen)
    back.binary(b"\x1cx")
    back.json_until(lambda m: m.get("t") == "left")
    back.close()
    odd = WS(d.http, "/ws/play/winsize?w=5000&h=x", session=r.session, timeout=10)
    assert odd.status == 101
    odd.until(shows(b"size 80x24"), timeout=10)
    odd.close()


def test_a_burst_of_resizes_reaches_the_program_as_its_last(nethack):
    """Sizes sent close together (a browser window dragged) reach the
    program at most once every PTYPROC_WINCH_MS (250 ms), the newest of
    them: the size after the first waits its turn, and the ones between
    never reach it (Crawl aborts on a shrink and a grow close together)."""
    d, _ = nethack
    r = Web(d.http).register(unique_name("wb"), "correct horse")
    ws, shows, seen = winsize_at_100x40(d, r.session)
    began = time.time()
    for w, h in ((90, 30), (120, 45), (85, 26), (110, 35)):
        ws.text(json.dumps({"t": "resize", "w": w, "h": h}))
    ws.until(shows(b"size 90x30"), timeout=10)
    ws.until(shows(b"size 110x35"), timeout=10)
    assert time.time() - began >= 0.2, time.time() - began  # the last waited its turn
    text = b"".join(seen)
    assert b"size 120x45" not in text and b"size 85x26" not in text, text[-400:]
    ws.binary(b"q")
    ws.close()


def kill_and_come_back(d, pg, clients, name):
    """SIGKILLs warrend mid-game, starts it again and brings name back to
    NetHack (restored from its hangup save); returns the new client."""
    d.kill()
    end = time.time() + 20  # the pty closed: NetHack hangup-saves
    while not any(own_saves(pg, name).glob("*")):
        assert time.time() < end, "no save file after the daemon died"
        time.sleep(0.1)
    assert not any((pg / "save").iterdir())  # the player's own, not the playground's
    d.start()
    t = clients(d.port)
    t.login(name)
    t.send("1")
    answer_until(t, "Dlvl:1")
    return t


def test_sigkill_daemon_then_same_game(nethack, clients):
    d, pg = nethack
    t = clients(d.port)
    name = unique_name("nh")
    start_nethack(t, name)
    t.play_keys("s" * 5)
    t = kill_and_come_back(d, pg, clients, name)
    assert re.search(r"welcome back|Restoring", t.raw.decode("utf-8", "replace"))


def test_each_player_sees_only_its_own_saves(bindir, tmp_path, clients):
    """One playground, one record for every score, but each player's saves
    in its own playground (games-dir/nethack/NAME/playground), mounted over
    the playground in its game's box: another player's game finds its
    save/ empty and the player's directory not there; the player's NetHack
    restores."""
    pg, conf = playground(tmp_path, bindir)
    toy = toy_copy(bindir, tmp_path)
    conf.write_text(conf.read_text() + f"[game snoop]\ncommand = {toy} snoop {pg / 'save'}\n"
                    + playground_keys(pg))
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        # the menu is too long for "Your choice": straight to NetHack
        t, name = new_player(d, clients, "nh", "1")
        to_map(t)
        settle(t)
        t.play_keys("S")
        t.wait_for("Really save?")
        t.send("y")
        t.wait_for("was saved", timeout=30)
        t.send(" ")
        t.wait_for("8) Play snoop")
        assert [p.name for p in own_saves(pg, name).iterdir()] == [f"{games_ids()[0]}{name}.gz"]
        assert not any((pg / "save").iterdir())
        s, _ = new_player(d, clients, "sn")
        s.send(str(2 + len(TOYS)))
        s.wait_for("snoop ready")
        s.send(f"{own_saves(pg, name).parent}\r")
        text = s.wait_for(re.compile(r"open file: .+"))
        assert re.search(r"^ls 1: *$", text, re.M), text  # its own save/, empty
        assert "open dir: No such file or directory" in text, text
        s.send("q")
        s.wait_for("has ended")
        t.send("1")
        answer_until(t, "Dlvl:")
        assert "welcome back" in t.raw.decode("utf-8", "replace")
    finally:
        d.stop_clean()


def level_files(*dirs):
    """NetHack's files of games in progress in dirs: a file a level,
    NAME.0 (the lock), NAME.1, ..."""
    return sorted(p.name for d in dirs for p in d.glob("*.[0-9]*"))


def quit_nethack(t):
    t.play_keys("\x1b#quit\r")
    t.wait_for("Really quit?")
    t.send("y")
    answer_until(t, "is over")


def test_a_game_cannot_reach_another_players_level_files(bindir, tmp_path, clients):
    """NetHack keeps a game in progress as level files in its playground:
    each player's are in its own playground, so a hostile game of the same
    playground neither lists them nor opens one by name (to read or
    corrupt it), while the shared files are there; NetHack's top ten
    (logfile) and each player's xlogfile row land in the player's own."""
    pg, conf = playground(tmp_path, bindir)
    toy = toy_copy(bindir, tmp_path)
    conf.write_text(conf.read_text() + f"[game grab]\ncommand = {toy} grab {pg}\n"
                    + playground_keys(pg))
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        v, o = clients(d.port), clients(d.port)
        victim, other = unique_name("nv"), unique_name("no")
        for t, name in ((v, victim), (o, other)):
            t.register(name)  # the menu is too long for "Your choice": straight to NetHack
            t.send("1")
            to_map(t)
        levels = level_files(pg, own_playground(pg, victim))
        assert levels and levels == level_files(own_playground(pg, victim)), levels
        assert not level_files(pg)
        s, _ = new_player(d, clients, "gr")
        s.send(str(2 + len(TOYS)))
        s.wait_for("grab ready")
        s.send(f"{levels[0]}\r")
        text = s.wait_for(re.compile(r"grab \S+: .+"))
        assert f"grab {levels[0]}: No such file or directory" in text, text
        listed = re.search(r"^ls:(.*)$", text, re.M).group(1).split()
        assert set(listed) == {*SHARED.split(), *OWN.split(), "save"}, text
        s.send("q")
        s.wait_for("has ended")
        for t in (v, o):
            settle(t)
            quit_nethack(t)
        for name in (victim, other):
            assert [r["name"] for r in xlog_rows(pg, name)] == [name]
        assert not (pg / "xlogfile").exists() and not (pg / "logfile").exists()
        for name in (victim, other):  # NetHack's log of ended games: each player's own
            lines = (own_playground(pg, name) / "logfile").read_text().splitlines()
            assert len(lines) == 1 and f" {name},quit" in lines[0], lines
        assert not level_files(own_playground(pg, victim), own_playground(pg, other))
    finally:
        d.stop_clean()


def record_line(name, points):
    """A row of NetHack 3.6's record (its top ten), as it writes them."""
    return (f"3.6.6 {points} 0 1 1 12 12 0 20260101 20260101 {games_ids()[0]} Val Hum Fem Neu "
            f"{name},killed by a test\n")


def top_ten(t):
    """The rows of the top ten NetHack prints as its game ends."""
    raw = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", " ", t.raw.decode("utf-8", "replace"))
    return raw[raw.rindex("No  Points"):]


def test_nethacks_top_ten_is_each_players_own(bindir, tmp_path, clients):
    """NetHack's top ten (record, logfile) and lock (perm) are each
    player's own, made by the spawner in the player's playground: a game
    played to its end (#quit) writes its logfile and xlogfile rows there,
    the top ten it shows lists the player's own record and nothing of the
    real playground's, and the score still lands on Warren's score page,
    one for everyone."""
    pg, conf = playground(tmp_path, bindir)
    (pg / "record").write_text(record_line("sharedguy", 900))  # what no game sees now
    d = Daemon(bindir, tmp_path / "daemon", http=True, extra=["--config", conf]).start()
    try:
        names = unique_name("ta"), unique_name("tb")
        for name in names:
            t = clients(d.port)
            start_nethack(t, name)
            own = own_playground(pg, name)
            assert sorted(p.name for p in own.iterdir() if p.name in OWN.split()) == \
                sorted(OWN.split())
            (own / "record").write_text(record_line(f"own{name[:6]}", 400))
            settle(t)
            quit_nethack(t)
            listed = top_ten(t)
            assert f"own{name[:6]}" in listed and "sharedguy" not in listed, listed
            lines = (own / "logfile").read_text().splitlines()
            assert len(lines) == 1 and f" {name},quit" in lines[0], lines
            assert [r["name"] for r in xlog_rows(pg, name)] == [name]
        assert not (pg / "logfile").exists() and "sharedguy" in (pg / "record").read_text()
        status, j = Web(d.http).json("/api/scores/nethack")  # Warren's: everyone's
        assert status == 200 and {r["name"] for r in j["scores"]} >= set(names), j
    finally:
        d.stop_clean()


def test_a_top_ten_shared_writable_when_the_section_says_so(bindir, tmp_path, clients):
    """An operator who wants NetHack's one top ten for every game says so
    (playground-shared-rw): both players' games end in the real
    playground's logfile, and each top ten lists the real record."""
    pg, conf = playground(tmp_path, bindir)
    for f in OWN.split():
        (pg / f).write_text("")
    (pg / "record").write_text(record_line("sharedguy", 900))
    for_games(*(pg / f for f in OWN.split()))
    conf.write_text(conf.read_text().replace(
        f"playground-files = {OWN}\n", f"playground-shared-rw = {OWN}\n", 1))
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        names = unique_name("sa"), unique_name("sb")
        for name in names:
            t = clients(d.port)
            start_nethack(t, name)
            settle(t)
            quit_nethack(t)
            assert "sharedguy" in top_ten(t), top_ten(t)
        lines = (pg / "logfile").read_text().splitlines()
        assert [ln.split()[-1].split(",")[0] for ln in lines] == list(names), lines
    finally:
        d.stop_clean()


def test_detach_keeps_running_then_quit_ends_with_xlog_row(nethack, clients):
    d, pg = nethack
    t = clients(d.port)
    name = unique_name("nh")
    start_nethack(t, name)
    t.send(LEAVE)
    t.wait_for("Your choice")
    t.send("1")  # the same program, still running
    t.wait_for("Dlvl:1")
    assert d.log().count(f"hosted start user={name}") == 1
    t.play_keys("\x1b#quit\r")
    t.wait_for("Really quit?")
    t.send("y")
    answer_until(t, "is over")
    assert re.search(r"NetHack 3\.6\.6 is over: quit\. \d+ points after \d+ turns", t.text())
    rows = xlog_rows(pg, name)  # the player's own xlogfile
    assert rows and rows[-1]["name"] == name
    xl = rows[-1]
    got = d.db_rows("SELECT h.game, h.name, role, race, gender, align, max_depth, death, points, "
                    "turns, realtime FROM hosted_scores h JOIN users u ON u.id = h.user "
                    "WHERE u.name = ?", name)
    assert got == [("nethack", name, xl["role"], xl["race"], xl["gender"], xl["align"],
                    int(xl["maxlvl"]), xl["death"], int(xl["points"]), int(xl["turns"]),
                    int(xl["realtime"]))]
    web = Web(d.http)  # the row on the game's score page and the player's page
    status, j = web.json("/api/scores/nethack")
    assert status == 200 and j["name"] == "NetHack 3.6.6"
    mine = [r for r in j["scores"] if r["name"] == name]
    assert len(mine) == 1 and mine[0]["role"] == xl["role"] and mine[0]["death"] == xl["death"]
    assert mine[0]["points"] == int(xl["points"]) and mine[0]["realtime"] == int(xl["realtime"])
    status, page = web.html("/scores/nethack")
    assert status == 200 and f'href="/player/{name}"' in page and xl["role"] in page
    status, page = web.html(f"/player/{name}")
    assert status == 200 and "Hosted games" in page and 'href="/scores/nethack"' in page, page
    assert xl["death"] in page


def test_play_in_chromium(nethack):
    d, _ = nethack
    r, out = browser_script("hosted.mjs", f"http://127.0.0.1:{d.http}", ARTIFACTS,
                            unique_name("web"), "correct horse")
    assert not out["errors"], out["errors"]
    assert out["link"] == {"text": "Play NetHack 3.6.6", "href": "/play/nethack"}
    assert any("Dlvl:1" in ln for ln in out["lines"]), out["lines"]
    assert any("@" in ln for ln in out["lines"]), out["lines"]
    assert out["attributes"] and out["left"]  # ^X reached NetHack, ^\ x left the game


def test_idle_games_are_hung_up(bindir, tmp_path, clients):
    """game-idle is the default, a section's idle overrides it; a key
    restarts the clock. The awake game starts first and sits without a key
    while the sleepy one is hung up: idle = 0 is never."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, "game-idle = 2\n"
                     f"[game sleepy]\ncommand = {toy} nohup\nhangup-timeout = 1\n"
                     f"[game awake]\ncommand = {toy} winsize\nidle = 0\n")
    try:
        a, _ = new_player(d, clients, "awake", "2")
        a.wait_for("size 80x24")
        t, name = new_player(d, clients, "idle", "1")
        t.wait_for("nohup ready")
        for _ in range(4):  # 4 s of keys a second apart: never idle for 2 s
            time.sleep(1)
            t.send("x", settle=False)
        assert "idle over" not in d.log()
        t.wait_for("idle too long", timeout=10)
        assert "Your choice" in t.text()
        d.wait_log(rf"idle over user={name} game=sleepy idle_s=[23]: hung up", timeout=5)
        # nohup ignores SIGHUP: SIGKILL after hangup-timeout, as on detach
        d.wait_log(rf"program exited user={name} game=sleepy pid=\d+ status=9", timeout=10)
        a.resize(90, 30)
        a.wait_for("size 90x30")  # still running after 7 s without a key: idle = 0 is never
        assert f"game=awake" not in "".join(re.findall(r"idle over.*", d.log()))
    finally:
        d.stop()
        d.stop_clean()


def test_hosted_score_pages(nethack):
    """/scores/ID ranks a hosted game's rows by points with the xlogfile's
    columns, escaped; the scores pages link every game; player pages list
    hosted rows beside Warren's games."""
    d, _ = nethack
    web = Web(d.http)
    a, b = unique_name("sa"), unique_name("sb")
    for n in (a, b):
        assert web.register(n, "correct horse").status == 303
    ids = dict(d.db_rows("SELECT name, id FROM users WHERE name IN (?, ?)", a, b))
    cols = ("user, game, name, role, race, gender, align, max_depth, death, points, turns, "
            "realtime, start_time, end_time")
    rows = [(ids[a], "nethack", a, "Val", "Hum", "Fem", "Neu", 7, "killed by a <jackal>", 900,
             5000, 3661, 100, 200),
            (ids[b], "nethack", b, "Wiz", "Elf", "Mal", "Cha", 12, "ascended", 90000, 40000,
             86399, 300, 400),
            (ids[a], "nethack", a, "Sam", "Hum", "Mal", "Law", 1, "quit", 5, 10, 59, 500, 600),
            (ids[a], "other", a, "X", "X", "X", "X", 1, "elsewhere", 99999, 1, 1, 1, 2)]
    d.db_write(*[(f"INSERT INTO hosted_scores ({cols}) VALUES ({', '.join('?' * 14)})", r)
                 for r in rows])
    status, j = web.json("/api/scores/nethack")
    assert status == 200 and j["game"] == "nethack"
    assert [(r["name"], r["points"]) for r in j["scores"]] == [(b, 90000), (a, 900), (a, 5)]
    assert j["scores"][1] == {"game": "nethack", "name": a, "player": a, "role": "Val",
                              "race": "Hum",
                              "gender": "Fem", "align": "Neu", "max_depth": 7,
                              "death": "killed by a <jackal>", "points": 900, "turns": 5000,
                              "realtime": 3661, "start_time": 100, "end_time": 200,
                              "recording": None}
    status, page = web.html("/scores/nethack")
    assert status == 200 and "High scores: NetHack 3.6.6" in page
    for th in ("Name", "Role", "Race", "Gender", "Alignment", "Deepest level", "Death", "Points",
               "Turns", "Real time"):
        assert f"<th>{th}</th>" in page, th
    assert "killed by a &lt;jackal&gt;" in page and "<jackal>" not in page
    assert "1:01:01" in page and "23:59:59" in page and "elsewhere" not in page
    assert page.index(b) < page.index("killed by a")  # by points
    assert 'href="/scores">Warren</a>' in page
    status, page = web.html("/scores")
    assert status == 200 and 'href="/scores/nethack">NetHack 3.6.6</a>' in page
    assert 'href="/scores/flood">flood</a>' in page  # every configured game
    status, j = web.json(f"/api/player/{a}")
    assert status == 200 and [r["points"] for r in j["hosted"]] == [99999, 5, 900]  # newest first
    status, page = web.html(f"/player/{a}")
    assert "Hosted games" in page and "killed by a &lt;jackal&gt;" in page and b not in page
    # a row names what the game called the player; the link goes to the account
    d.db_write(("UPDATE hosted_scores SET name = 'x_y' WHERE points = 5", ()))
    status, page = web.html(f"/player/{a}")
    assert f'href="/player/{a}">{a}</a>' in page and 'href="/player/x_y"' not in page
    assert web.json(f"/api/player/{a}")[1]["hosted"][1]["name"] == "x_y"
    assert web.get("/scores/nosuch").status == 404
    assert web.json("/api/scores/nosuch")[0] == 404


def rc_path(d, name):
    return d.db.parent / "games" / "nethack" / name / "nethackrc"


def test_rc_editor_over_telnet(nethack, clients):
    """e in the menu edits the player's NetHack rc file: made from the
    default on first use; change, insert, delete; q drops, s saves."""
    d, _ = nethack
    t, name = new_player(d, clients, "rc")
    t.wait_for("Your choice")
    assert "e) Edit a game's rc file" in t.text()
    t.send("e")  # one game has an rc file: straight to it
    t.wait_for("Your rc file of NetHack 3.6.6")
    lines = RC.splitlines()
    assert lines[0][:74] in t.text() and lines[1] in t.text()  # long lines show their start
    assert rc_path(d, name).read_text() == RC  # copied from rc-default
    t.send("d")  # the first line goes
    t.pump(quiet=0.3)
    assert lines[0][:74] not in t.text()
    t.send("q")
    t.wait_for("not saved")
    assert rc_path(d, name).read_text() == RC
    t.send("e")
    t.wait_for("Your rc file of NetHack 3.6.6")
    t.send("\x1b[B")  # Down: line 2
    t.send("c")
    t.send("\x15OPTIONS=number_pad:1\r")  # Ctrl-U, the new text, Enter
    t.send("i")
    t.send("OPTIONS=time\r")  # inserted below line 2
    t.send("\x1b[A")  # Up
    t.send("\x1b[A")
    t.send("i")
    t.send("# dropped\x1b")  # Esc: the inserted line goes again
    t.pump(quiet=0.3)
    assert "# dropped" not in t.text()
    t.send("d")  # line 1
    t.send("s")
    t.wait_for("Saved your rc file of NetHack 3.6.6")
    assert rc_path(d, name).read_text() == "OPTIONS=number_pad:1\nOPTIONS=time\n"
    assert d.wait_log(rf"rc file saved user={name} game=nethack bytes=34")


@contextlib.contextmanager
def stopped(pid):
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_rc_editor_waits_for_no_slow_spawner(nethack, clients):
    """The editor's rc file is read and saved by the spawner without the
    loop waiting: while the spawner cannot answer (stopped), its player
    sees "Loading..." or "Saving..." and another player's keys are
    answered. A read not answered in time sends the player back to the
    menu, told; a save not answered in time keeps the editor and its text,
    told it was not saved, and the spawner refuses it when it comes to it
    late, so the file is not changed behind the player's back. Once the
    spawner goes on, both work."""
    d, _ = nethack
    spawner = spawner_of(d)
    a, _ = new_player(d, clients, "on", toy_key("keys"))
    a.wait_for("keys ready")
    t, name = new_player(d, clients, "rcs")
    t.wait_for("Your choice")
    web = Web(d.http)
    web.session = web.register(unique_name("rcw"), "correct horse").session
    page = {}
    with stopped(spawner):
        t.send("e", settle=False)
        t.wait_for("Loading your rc file of NetHack 3.6.6", timeout=5)
        # the browser's page waits for the spawner too, holding up no one
        th = threading.Thread(target=lambda: page.update(r=web.html("/options/nethack")))
        th.start()
        a.send("x", settle=False)  # the other player's key is answered meanwhile
        a.wait_for("got 1: 78", timeout=3)
        text = t.wait_for("did not answer in time", timeout=2 * SPAWNER_TIMEOUT_S)
        assert "The rc file cannot be edited: the spawner did not" in text, text
        assert "Your choice" in text, text
        th.join(timeout=20)
    status, body = page["r"]
    assert status == 500 and "the spawner did not answer in time" in body, (status, body)
    t.send("e")
    t.wait_for("Your rc file of NetHack 3.6.6")
    assert rc_path(d, name).read_text() == RC
    t.send("d")  # the first line goes
    with stopped(spawner):
        t.send("s", settle=False)
        t.wait_for("Saving...", timeout=5)
        a.send("y", settle=False)
        a.wait_for("got 1: 79", timeout=3)
        text = t.wait_for("Not saved: the spawner did not answer in time", timeout=20)
        assert RC.splitlines()[1] in text, text  # still in the editor, the text kept
    d.wait_log(r"an rc file save came after its deadline: not made")
    assert rc_path(d, name).read_text() == RC
    t.send("s")  # again, answered now
    t.wait_for("Saved your rc file of NetHack 3.6.6")
    assert rc_path(d, name).read_text() == RC.splitlines(keepends=True)[1]


@pytest.mark.alone  # times itself
def test_a_save_in_flight_at_shutdown_is_not_waited_for_nor_made(nethack, clients):
    """warrend stopped while the spawner (stopped) holds an rc save: it ends
    at once, not after the save's 10 s; its player is told it was not
    saved, and the spawner, going on after, does not make it."""
    d, _ = nethack
    spawner = spawner_of(d)
    t, name = new_player(d, clients, "rcd")
    t.wait_for("Your choice")
    t.send("e")
    t.wait_for("Your rc file of NetHack 3.6.6")
    t.send("d")  # the first line goes
    with stopped(spawner):
        sent = time.monotonic()  # the save's wait at warrend begins after this
        t.send("s", settle=False)
        t.wait_for("Saving...", timeout=5)
        d.proc.send_signal(signal.SIGTERM)
        assert d.proc.wait(timeout=30) == 0, d.log()[-2000:]
        took = time.monotonic() - sent
        t.pump(quiet=0.3)
        assert "Not saved: the server is shutting down." in str(t.raw), t.raw[-500:]
    # the save's answer, waited for, would hold the stop until its
    # deadline, SPAWNER_TIMEOUT_S after the request left: never sooner
    assert took < SPAWNER_TIMEOUT_S, f"stopped {took:.1f} s after the save was sent"
    end = time.time() + 5  # the spawner, going on, comes to the save and ends
    while spawner_alive(spawner):
        assert time.time() < end
        time.sleep(0.1)
    assert rc_path(d, name).read_text() == RC


def spawner_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_rc_page_in_the_browser(nethack):
    """/options/nethack: the same file as a form; a visitor is sent to log
    in, a foreign post is refused, a file over 8192 bytes is not saved."""
    d, _ = nethack
    web = Web(d.http)
    assert web.get("/options/nethack").status == 303
    name = unique_name("rw")
    r = web.register(name, "correct horse")
    web.session = r.session
    status, page = web.html("/options/nethack")
    assert status == 200 and "Your rc file of NetHack 3.6.6" in page
    assert "OPTIONS=windowtype:tty,color,!legacy" in page and 'name="rc"' in page
    status, page = web.html("/options")
    assert 'href="/options/nethack">NetHack 3.6.6</a>' in page
    r = web.post("/options/nethack", {"rc": "OPTIONS=<b>\r\nOPTIONS=time\r\n"})
    assert r.status == 200 and b"Saved." in r.body and b"OPTIONS=&lt;b&gt;" in r.body
    assert rc_path(d, name).read_text() == "OPTIONS=<b>\nOPTIONS=time\n"
    r = web.post("/options/nethack", {"rc": "a" * 8193})
    assert r.status == 413 and b"at most 8192 bytes; this one has 8193" in r.body
    assert rc_path(d, name).read_text() == "OPTIONS=<b>\nOPTIONS=time\n"
    r = web.post("/options/nethack", {"rc": "OPTIONS=a\x00b\r\n"})
    assert r.status == 400 and b"Not saved: the file holds a NUL byte" in r.body
    assert rc_path(d, name).read_text() == "OPTIONS=<b>\nOPTIONS=time\n"
    # what telnet's editor could not open is not saved either
    for text, line in (("OPTIONS=time\r\n" + "#" * 201, 2), ("\n" * 1001, 1001)):
        r = web.post("/options/nethack", {"rc": text})
        assert r.status == 400, r.body[-500:]
        assert f"Not saved: line {line}: the file may have lines of at most 200 bytes and at " \
            "most 1000 lines.".encode() in r.body, r.body[-500:]
    r = web.post("/options/nethack", {"rc": "#" * 200 + "\r\n" + "\n" * 999})
    assert r.status == 200 and b"Saved." in r.body
    r = web.post("/options/nethack", {"rc": "OPTIONS=<b>\r\nOPTIONS=time\r\n"})
    assert r.status == 200 and b"Saved." in r.body
    assert rc_path(d, name).read_text() == "OPTIONS=<b>\nOPTIONS=time\n"
    r = web.post("/options/nethack", {"rc": "x"}, {"Origin": "http://evil.example"})
    assert r.status == 403 and rc_path(d, name).read_text() == "OPTIONS=<b>\nOPTIONS=time\n"
    assert web.get("/options/flood").status == 404  # no rc file
    assert web.get("/options/nosuch").status == 404
    t = Web(d.http)
    assert t.post("/options/nethack", {"rc": "x"}).status == 403  # no session


def test_games_per_hour_holds_hosted_ends_too(bindir, tmp_path, clients):
    """Every hosted game's end is an xlogfile row kept for ever: an account
    starting and quitting hosted games over and over is held to
    games-per-hour ends in the hour, told when it may start again, nothing
    spawned nor stored meanwhile; its running game is never held back, and
    another account has its own."""
    toy = toy_copy(bindir, tmp_path)
    xlog = tmp_path / "xlogfile"
    xlog.write_text("")
    for_games(xlog)
    d = start_hosted(bindir, tmp_path,
                     f"[game xl]\ncommand = {toy} xlog {xlog} %u\nxlogfile = {xlog}\n"
                     f"[game keep]\ncommand = {toy} keys\nhangup-timeout = 1\n",
                     extra=["--games-per-hour", "2"])
    rows = ("SELECT count(*) FROM hosted_scores h JOIN users u ON u.id = h.user "
            "WHERE u.name = ?")

    def ended(c, name, n):
        """name's nth end stored, its player back in the menu."""
        c.wait_for("Press any key")
        end = time.time() + 15
        while d.db_rows(rows, name) != [(n,)]:
            assert time.time() < end, d.db_rows(rows, name)
            time.sleep(0.1)
        time.sleep(1.1)  # the next row's end time another second (one row a second at most)
        c.send(" ")
        c.wait_for("Your choice")

    try:
        t, name = new_player(d, clients, "gh", "2")  # a game left running: back to it at will
        t.wait_for("keys ready")
        t.send(LEAVE)
        t.wait_for("Your choice")
        for n in (1, 2):
            t.send("1")
            ended(t, name, n)
        t.send("1")
        text = t.wait_for("hosted games in the last hour")
        assert re.search(r"You ended 2 hosted games in the last hour: a new one can start in "
                         r"(59|60|61) minutes\.", text), text
        d.wait_log(rf"hosted start refused user={name}: 2 hosted games in the last hour")
        time.sleep(0.5)
        assert d.db_rows(rows, name) == [(2,)]
        assert d.log().count(f"hosted start user={name} game=xl ") == 2
        t.send("2")  # at the cap, the running game goes on
        t.wait_for("keys ready")
        assert d.log().count(f"hosted start user={name} game=keep ") == 1
        o, other = new_player(d, clients, "gk", "1")  # another account starts its own
        ended(o, other, 1)
        # an hour later the account may start again
        d.db_write(("UPDATE hosted_scores SET end_time = end_time - 3600 WHERE user = "
                    "(SELECT id FROM users WHERE name = ?)", [name]))
        t.send(LEAVE)
        t.wait_for("Your choice")
        t.send("1")
        ended(t, name, 3)
        assert d.log().count(f"hosted start user={name} game=xl ") == 3
    finally:
        d.stop_clean()


def test_a_program_slow_to_draw_shows_it_starts_until_it_draws(bindir, tmp_path, clients):
    """A program that writes nothing for its first seconds (Crawl loading
    its data on a busy machine) leaves its player on "Starting ..." once
    it runs, not on a blank screen; its first output replaces that line."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game slow]\ncommand = {toy} slow 3\n")
    try:
        t, name = new_player(d, clients, "sl", "1")
        d.wait_log(rf"hosted start user={name} game=slow pid=\d+")
        t.pump(quiet=0.3, limit=0.6)
        assert "Starting slow..." in t.text(), t.text()
        text = t.wait_for("keys ready", timeout=10)
        assert "Starting" not in text, text
        t.send("q")
        t.wait_for("has ended")
    finally:
        d.stop_clean()


def test_a_long_notice_in_the_menu_wraps_whole(bindir, tmp_path, clients):
    r"""A notice longer than the screen's width (leaving a game with a long
    name by ^\ x at 80 columns) wraps at a space onto the next row, whole,
    and the menu's prompt moves down under it."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game slow]\nname = Dungeon Crawl Stone Soup\n"
                                       f"command = {toy} keys\n")
    try:
        t, _ = new_player(d, clients, "wr", "1")
        t.wait_for("keys ready")
        t.send(PREFIX + "x")
        t.wait_for("Your choice")
        lines = t.lines()
        at = next(i for i, ln in enumerate(lines) if "runs on without you" in ln)
        assert lines[at] == ("  Dungeon Crawl Stone Soup runs on without you for a while; choose"
                             " it again to"), lines
        assert lines[at + 1] == "  go on.", lines
        assert lines[at + 3].startswith("  Your choice:"), lines
    finally:
        d.stop_clean()


def test_a_long_notice_under_a_long_menu_leaves_the_prompt_on_screen(bindir, tmp_path, clients):
    r"""The main menu with nine games fits 80x24: rows to spare (daily game,
    password, options, mail) are left out while their keys still work, and
    a notice that would wrap past the screen's last row (a long game's name)
    is cut at the rows left, so that "Your choice" and its cursor stay on
    the screen, under the notice, never over it."""
    toy = toy_copy(bindir, tmp_path)
    long_name = "The Very Long Dungeon Crawl of the Forgotten Stone Soup Kitchen"
    sections = f"[game slow]\nname = {long_name}\ncommand = {toy} keys\n"
    sections += "".join(f"[game g{i}]\ncommand = {toy} keys\n" for i in range(8))
    d = start_hosted(bindir, tmp_path, sections)
    try:
        t, _ = new_player(d, clients, "wl", "1")
        t.wait_for("keys ready")
        t.send(PREFIX + "x")
        t.wait_for("Your choice")
        t.pump(quiet=0.3, limit=1)
        lines = t.lines()
        assert len(lines) <= 24, lines
        at = next(i for i, ln in enumerate(lines) if "runs on without you" in ln or
                  long_name[:30] in ln and "Play" not in ln)
        prompt = next(i for i, ln in enumerate(lines) if ln.startswith("  Your choice:"))
        assert prompt > at, lines
        assert t.screen.cursor.y == prompt, (t.screen.cursor.y, lines)
        assert "9) Play g7" in t.text() and "o) Options" not in t.text(), lines
        t.send("o")
        t.wait_for("Options")
    finally:
        d.stop_clean()


def test_a_game_left_before_it_began_is_not_called_saved(bindir, tmp_path, clients):
    """A program with an xlogfile that exits without a row there was saved,
    the player is told (choose it again), but not one that exits while its
    own first screens are up, before its status line (the section's status
    pattern) ever showed: NetHack quit at "Shall I pick", Crawl at its
    species. That one never began."""
    toy = toy_copy(bindir, tmp_path)
    xlog = tmp_path / "xlogfile"
    xlog.write_text("")
    for_games(xlog)
    d = start_hosted(bindir, tmp_path,
                     f"[game keys]\ncommand = {toy} keys\nxlogfile = {xlog}\n"
                     f"status = got (?<turn>\\d+): 7a\n")
    try:
        t, _ = new_player(d, clients, "bg", "1")
        t.wait_for("keys ready")
        t.send("q")
        text = t.wait_for("Press any key")
        assert "keys ended before a game began." in text, text
        assert "saved" not in text, text
        t.send(" ")
        t.wait_for("Your choice")
        t.send("1")
        t.wait_for("keys ready")
        t.send("z")  # "got 1: 7a": the status pattern matches, the game is on
        t.wait_for("got 1: 7a")
        t.send("q")
        text = t.wait_for("Press any key")
        assert "keys was saved: choose it again to go on." in text, text
    finally:
        d.stop_clean()
