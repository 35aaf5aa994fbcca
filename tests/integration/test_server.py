"""warrend through the real telnet program: accounts, play, resume, takeover,
crash recovery, spectating, bad input, shutdown. Each test runs its own
daemon (the ASan build when present) on a free port with a fresh database."""
import os
import random
import re
import signal
import socket
import subprocess
import time

import pytest

from harness import (ASAN_OPTIONS, CTRL_X, PW, SANITIZER_WORDS, daemon_exe, free_port, hook,
                     new_game, program, raw_read, replay)

MOVES = "hjklyubn"


def above_bottom(t):
    """A screen but its bottom row (an 80x24 watcher's says whom it watches)."""
    return t.text().splitlines()[:-1]


def screens_converge(a, b, timeout=3.0):
    """Frames reach every viewer in the same loop turn; the two ptys may
    still be read at slightly different moments, so wait until both settle.
    b is a watcher of a's size: all but its bottom row are a's."""
    end = time.time() + timeout
    while time.time() < end:
        a.pump(quiet=0.05, limit=0.5)
        b.pump(quiet=0.05, limit=0.5)
        if above_bottom(a) == above_bottom(b):
            return True
    print(a.text(), "\n----\n", b.text())
    return False


def test_help_version_and_bad_config(bindir, tmp_path):
    exe = str(daemon_exe(bindir))
    out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0 and "--telnet" in out.stdout and "--config" in out.stdout
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0 and out.stdout.startswith("warrend ")
    cfg = tmp_path / "bad.conf"
    cfg.write_text("# comment\ngrace = 10\ntelnet = nowhere\n")
    out = subprocess.run([exe, "--config", str(cfg)], capture_output=True, text=True, timeout=20)
    assert out.returncode != 0 and "bad.conf:3" in out.stderr and "ADDR:PORT" in out.stderr
    cfg.write_text("colour = blue\n")
    out = subprocess.run([exe, "--config", str(cfg)], capture_output=True, text=True, timeout=20)
    assert out.returncode != 0 and "unknown setting" in out.stderr
    out = subprocess.run([exe, "--grace", "abc"], capture_output=True, text=True, timeout=20)
    assert out.returncode != 0 and "grace" in out.stderr


def start_with_stand_in(bindir, tmp_path, name, c_source, *args):
    """The daemon started with one function of a library it uses replaced
    by c_source (built into name.so and preloaded): what it said on
    exiting, and its exit status."""
    src, shim = tmp_path / f"{name}.c", tmp_path / f"{name}.so"
    src.write_text(c_source)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(shim), str(src)], check=True, timeout=60)
    # the sanitizer's runtime is not first in the list with a library preloaded
    env = dict(os.environ, LD_PRELOAD=str(shim),
               ASAN_OPTIONS=ASAN_OPTIONS + ":verify_asan_link_order=0")
    out = subprocess.run([str(daemon_exe(bindir)), "--db", str(tmp_path / "w.db"), "--telnet",
                          f"127.0.0.1:{free_port()}", "--http", "", *args, "--test-hooks"],
                         capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    said = out.stdout + out.stderr
    assert "ready" not in said and "listening" not in said, said
    assert not any(w in said for w in SANITIZER_WORDS), said
    return said, out.returncode


def test_a_libsodium_that_cannot_start_stops_the_daemon(bindir, tmp_path):
    """libsodium's random keys guard the tables of names and addresses
    against flooding: if it cannot start (here a sodium_init preloaded
    over libsodium's fails) the daemon says so and stops, cleanly, before
    it listens."""
    said, status = start_with_stand_in(bindir, tmp_path, "nosodium",
                                       "int sodium_init(void) { return -1; }\n")
    assert status == 1, said
    assert "libsodium cannot start" in said, said
    assert not (tmp_path / "w.db").exists()  # stopped before it opened anything


def test_a_loop_that_cannot_start_stops_the_daemon(bindir, tmp_path):
    """With loops = 2, a loop whose telnet part cannot start (here a
    uv_idle_init preloaded over libuv's fails) stops the daemon with a
    message before any loop runs or anything listens, cleanly."""
    said, status = start_with_stand_in(
        bindir, tmp_path, "noidle",
        "int uv_idle_init(void *loop, void *idle) { return -12; /* UV_ENOMEM */ }\n",
        "--loops", "2")
    assert status == 1, said
    assert "telnet: " in said and "loop 1 cannot start" in said, said
    assert "loops: 2" not in said, said  # no loop ran


def test_config_file_sets_port(start_daemon, tmp_path, clients):
    port = free_port()
    cfg = tmp_path / "w.conf"
    cfg.write_text(f"# a test config\ntelnet = 127.0.0.1:{port}   # trailing comment\nhttp =\n"
                   f"db = {tmp_path / 'c.db'}\n")
    # no other flag: --telnet on the command line would override the file
    start_daemon(args=["--config", cfg])
    t = clients(port).connected()
    assert "Not logged in" in t.text()


def test_register_play_quit_resume(daemon, clients):
    t = clients(daemon.port).connected()
    t.register("alice", PW)
    assert "Password" not in t.raw.decode("latin-1").split("Password again")[-1] or True
    assert PW not in t.text() and PW.encode() not in t.raw  # never echoed
    t.send("p")
    daemon.wait_log(r"game start user=alice")
    t.play_keys("llhhjjkk..")
    before = hook(daemon, t, "alice")
    assert before["seq"] == 10
    t.send(CTRL_X)
    t.wait_for("Your game is saved")
    t.send("q")
    t.close()
    assert PW not in daemon.log()
    t2 = clients(daemon.port).connected()
    t2.login("alice", PW)
    t2.wait_for("Your game is waiting")
    t2.send("p")
    daemon.wait_log(r"attach user=alice")
    after = hook(daemon, t2, "alice")
    assert after == before


def test_takeover(daemon, clients):
    a = clients(daemon.port).connected()
    new_game(daemon, a, "bob")
    a.play_keys("lll")
    screen_a = a.text()
    b = clients(daemon.port).connected()
    b.login("bob", PW)
    b.send("p")
    daemon.wait_log(r"takeover user=bob")
    a.wait_for("taken over")
    b.pump()
    assert b.text() == screen_a
    b.play_keys("h")
    assert hook(daemon, b, "bob")["seq"] == 4


def run_until_kill(daemon, t, user, rng, nkeys):
    """Types nkeys moves and kills the daemon at a random moment.
    Returns (bytes typed, highest seq the client saw acknowledged), or None
    when the game ended (the character died) before the kill."""
    typed = b""
    acked = 0
    kill_at = rng.randint(1, nkeys)
    for i in range(nkeys):
        k = rng.choice(MOVES)
        t.send(k, settle=False)
        typed += k.encode()
        if i + 1 == kill_at:
            if rng.random() < 0.5:  # sometimes right after an acknowledged frame
                acked = hook(daemon, t, user)["seq"]
                time.sleep(0.1)
            daemon.kill(signal.SIGKILL)
            return typed, acked
        t.pump(quiet=0.01, limit=0.5)
        if re.search(rf"game end user={user} ", daemon.log()):
            return None
    return typed, acked


def resumed(d, clients, name):
    """After a restart: recovery finds no broken game, name logs in and
    takes its game up again; returns the client and the game's hook."""
    d.wait_log(r"recovery done: \d+ games resumed, 0 broken")
    t = clients(d.port).connected()
    t.login(name, PW)
    t.send("p")
    d.wait_log(rf"attach user={name}")
    t.pump()
    return t, hook(d, t, name)


@pytest.mark.parametrize("nkeys,seed", [(5, 1), (30, 2), (80, 3)])
def test_crash_recovery(bindir, tmp_path, daemon, clients, nkeys, seed):
    """Games get random seeds, and a random walk can die before the kill:
    such a try is discarded and the next account starts a new game."""
    rng = random.Random(seed)
    d = daemon
    for attempt in range(6):
        user = f"carol{attempt}"
        t = clients(d.port).connected()
        _, gseed = new_game(d, t, user)
        run = run_until_kill(d, t, user, rng, nkeys)
        t.close()
        if run is not None:
            break
    assert run is not None, "every try died before the kill"
    typed, acked = run
    d.start()
    t2, got = resumed(d, clients, user)
    assert got["seq"] >= acked
    assert got["seq"] <= len(typed)
    lines, h = replay(bindir, tmp_path, gseed, user, typed[:got["seq"]])
    assert got["hash"] == h
    assert t2.lines() == lines


@pytest.mark.parametrize("delay", [0.0, 0.02, 0.3])
def test_crash_during_level_generation(bindir, tmp_path, daemon, clients, delay):
    """SIGKILL while 'p' creates the game (its first level is generated on
    the loop): after the restart the account has one game, with no key lost
    or invented, equal to its seed played with no keys."""
    d = daemon
    t = clients(d.port).connected()
    t.register("gena", PW)
    t.send("p", settle=False)
    time.sleep(delay)
    d.kill(signal.SIGKILL)
    t.close()
    d.start()
    t2, got = resumed(d, clients, "gena")
    assert got["seq"] == 0 and got["turn"] == 0
    lines, h = replay(bindir, tmp_path, got["seed"], "gena", b"")
    assert got["hash"] == h
    assert t2.lines() == lines
    assert d.log().count("game start user=gena") <= 2


def stairs_keys(bindir, seed, name):
    """Keys that take this game down its first stairs (bin/tools/stairs_path), or None."""
    tool = program(bindir, "tools/stairs_path", "asan/tools/stairs_path")
    r = subprocess.run([str(tool), "--seed", str(seed), "--name", name], capture_output=True,
                       timeout=120)
    return r.stdout if r.returncode == 0 else None


@pytest.mark.parametrize("when", ["during", "after"])
def test_crash_at_level_change(bindir, tmp_path, daemon, clients, when):
    """SIGKILL as '>' generates the next level (during), or once its frame
    was seen (after: the level-change snapshot is on its way); the restarted
    game equals the same keys played without interruption."""
    d = daemon
    for attempt in range(12):  # some characters die on the way: a new one tries
        name = f"down{attempt}"
        t = clients(d.port).connected()
        _, seed = new_game(d, t, name)
        keys = stairs_keys(bindir, seed, name)
        if keys:
            break
        t.close()
    assert keys, "no character reached the stairs"
    assert keys.endswith(b">")
    t.play_keys(keys[:-1].decode())
    assert hook(d, t, name)["seq"] == len(keys) - 1
    t.send(">", settle=False)
    if when == "after":
        assert hook(d, t, name)["seq"] == len(keys)
    d.kill(signal.SIGKILL)
    t.close()
    d.start()
    t2, got = resumed(d, clients, name)
    assert got["seq"] in ((len(keys),) if when == "after" else (len(keys) - 1, len(keys)))
    lines, h = replay(bindir, tmp_path, seed, name, keys[:got["seq"]])
    assert got["hash"] == h
    assert t2.lines() == lines
    if got["seq"] == len(keys):
        assert "Depth 1 " in t2.text(), t2.text()


def test_spectate_matches_player(daemon, clients):
    p = clients(daemon.port).connected()
    new_game(daemon, p, "dave")
    p.play_keys("ll")
    w = clients(daemon.port).connected()
    w.send("w")
    w.wait_for("Live games")
    w.wait_for("dave")
    w.send("a")
    daemon.wait_log(r"watch conn=\d+ user=dave")
    w.pump()
    p.pump()
    assert above_bottom(w) == above_bottom(p)  # right from the first frame
    assert w.text().splitlines()[-1].startswith("Watching dave, game ")
    for k in "jjhhkkl.":
        p.send(k, settle=False)
        assert screens_converge(p, w)
    w.send("q")
    w.wait_for("Your choice")


def test_watchers_of_other_sizes(daemon, clients):
    p = clients(daemon.port).connected()
    new_game(daemon, p, "ivan")
    p.play_keys("l")
    big = clients(daemon.port, cols=100, rows=30).connected()
    big.send("w")
    big.wait_for("ivan")
    big.send("a")
    big.wait_for("q stops \u00b7 ? help")
    p.play_keys("h")
    assert screens_converge_region(p, big)
    # a smaller watcher (still at least 80x24) renders at its own size
    p.resize(100, 30)
    p.play_keys("j")
    small = clients(daemon.port, cols=80, rows=24).connected()
    small.send("w")
    small.wait_for("ivan")
    small.send("a")
    daemon.wait_log(r"watch conn=\d+ user=ivan game=\d+ watchers=2")
    small.pump()
    assert "@" in small.text()
    assert "ivan" in small.text()
    small.send("q")
    small.wait_for("Your choice")


def test_taller_watcher_keeps_the_players_cursor(daemon, clients):
    """A watcher on a taller terminal gets the line saying whom it watches
    below the game, written again when it changes (the depth here, in the
    same frame as the player's move down the stairs): after it its cursor
    is where the player's frame put it, not where the frame before had it,
    and what it shows keeps matching the player's screen."""
    p = clients(daemon.port).connected()
    p.register("tall")
    p.random_character("tall")
    big = clients(daemon.port, cols=100, rows=30).connected()
    big.send("w")
    big.wait_for("tall")
    big.send("a")
    big.wait_for("depth 0,")
    for _ in range(4):  # explore until the stairs down are seen, go there, go down
        p.play_keys("o" * 12 + "_>.")
        end = time.time() + 15
        while "where?" in p.text() and time.time() < end:
            p.pump(quiet=0.3, limit=1)
        p.play_keys(">")
        big.pump()
        if "depth 1," in big.text():
            break
    big.wait_for("depth 1,")
    assert screens_converge_region(p, big)
    assert (big.screen.cursor.x, big.screen.cursor.y) == (p.screen.cursor.x, p.screen.cursor.y)
    p.play_keys("hjkl")
    assert screens_converge_region(p, big)
    assert (big.screen.cursor.x, big.screen.cursor.y) == (p.screen.cursor.x, p.screen.cursor.y)


def screens_converge_region(p, big, timeout=3.0):
    end = time.time() + timeout
    while time.time() < end:
        p.pump(quiet=0.05, limit=0.5)
        big.pump(quiet=0.05, limit=0.5)
        top = [ln[:p.cols] for ln in big.screen.display[:p.rows]]
        if top == p.screen.display:
            return True
    return False


def test_what_the_tick_looks_at(start_daemon, clients):
    """The one-second tick walks only what is due (terminals in the menu,
    watchers with a notice up, games without a player), and each of its
    timers still runs: an open watch list shows a game started after it,
    a watcher's notice goes after 5 s, a menu left idle is closed, a
    detached game is freed after its grace."""
    # the idle timeout leaves w's list, open without a key, time for a
    # registration and a game's start on a busy machine, then a tick
    d = start_daemon(extra=["--idle-timeout", "10", "--grace", "2"])
    w = clients(d.port).connected()
    w.send("w")
    w.wait_for("Nobody is playing")
    p = clients(d.port).connected()
    new_game(d, p, "tock")
    w.wait_for("tock", timeout=8)  # no key from w: the tick redrew its list
    w.send("a")
    d.wait_log(r"watch conn=\d+ user=tock")
    w.send(":")
    w.wait_for("Log in to chat")
    end = time.time() + 10
    while "Log in to chat" in w.text() and time.time() < end:
        w.pump(quiet=0.5, limit=1)
    assert "Log in to chat" not in w.text()
    w.send("q")
    w.wait_for("Your choice")
    d.wait_log(r"disconnect conn=\d+ ip=\S+ user=\S* reason=idle", timeout=20)
    w.pump()
    assert "Idle too long" in w.text()
    p.pump()
    assert not p.eof and "Idle too long" not in p.text()  # a player is not in the menu
    p.close()
    d.wait_log(r"detach user=tock")
    d.wait_log(r"grace over user=tock game=\d+: saved and freed", timeout=10)


def watch_list_order(t):
    rows = [ln for ln in t.lines() if re.match(r"^  [a-z]\) \S", ln)]
    return [ln.split()[1] for ln in rows]


def test_watch_list_orders_per_viewer(daemon, clients):
    """Viewers of the watch list share one list per tick, each in its own
    order: by player for one, by idle time (the latest key first) for
    another, whose letter a then watches the game it shows first."""
    d = daemon
    players = {}
    for name in ("amy", "bob", "cid"):
        players[name] = clients(d.port).connected()
        new_game(d, players[name], name)
    time.sleep(1.1)
    players["bob"].send("a")  # the latest key
    v1 = clients(d.port).connected()
    v2 = clients(d.port).connected()
    for v in (v1, v2):
        v.send("w")
        v.wait_for("cid")
    assert watch_list_order(v1) == ["amy", "bob", "cid"], v1.text()
    for _ in range(3):  # player, depth, turn, idle
        v2.send(".")
    v2.wait_for("sorted by idle")
    end = time.time() + 5  # rows are read once a tick: bob's key shows by the next
    while watch_list_order(v2)[:1] != ["bob"] and time.time() < end:
        v2.pump(quiet=0.3, limit=1)
    assert watch_list_order(v2)[0] == "bob", v2.text()
    v1.pump()
    assert watch_list_order(v1) == ["amy", "bob", "cid"], v1.text()
    v2.send("a")
    d.wait_log(r"watch conn=\d+ user=bob")
    v1.send("c")
    d.wait_log(r"watch conn=\d+ user=cid")


def test_watcher_told_game_ended(daemon, clients):
    p = clients(daemon.port).connected()
    new_game(daemon, p, "erin")
    w = clients(daemon.port).connected()
    w.send("w")
    w.wait_for("erin")
    w.send("a")
    daemon.wait_log(r"watch conn=\d+ user=erin")
    p.send("Q")
    p.send("y")
    daemon.wait_log(r"game end user=erin")
    w.wait_for("has ended")
    p.wait_for("Game over")


def test_bad_input_keeps_serving(daemon, clients):
    good = clients(daemon.port).connected()
    new_game(daemon, good, "frank")
    IAC, SB, SE, WILL = 255, 250, 240, 251
    abuse = [
        bytes([IAC, SB, 31, 0, 0, 0, 0, IAC, SE]),                 # NAWS 0x0
        bytes([IAC, SB, 31, 255, 255, 255, 255, 255, 255, 255, 255, IAC, SE]),  # 65535x65535
        bytes([IAC, SB, 24, 0]) + b"x" * 5000 + bytes([IAC, SE]),  # huge TTYPE
        bytes([IAC, SB, IAC, IAC, IAC]) + b"\x00\xff\xfe",         # malformed
        bytes([IAC, WILL]) + bytes(range(256)),
        bytes(random.Random(7).randrange(256) for _ in range(20000)),  # garbage
        b"l" + b"r" * 5000 + b"\r" * 300,                          # key flood at the prompts
    ]
    socks = []
    for blob in abuse:
        s = socket.create_connection(("127.0.0.1", daemon.port))
        s.sendall(blob)
        socks.append(s)
        good.play_keys("l")
    # a client that never reads while it floods a watch list
    slow = socket.create_connection(("127.0.0.1", daemon.port))
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    for _ in range(200):
        try:
            slow.send(b"w>" * 50)
        except OSError:
            break
    # NAWS 0x0 means "unknown": served at 80x24; 65535x65535 is clamped and served
    assert b"Your choice" in raw_read(socks[0], 10, b"Your choice")
    assert b"Your choice" in raw_read(socks[1], 10, b"Your choice")
    before = hook(daemon, good, "frank")["seq"]
    good.play_keys("hjkl")
    assert hook(daemon, good, "frank")["seq"] == before + 4
    assert daemon.alive()
    for s in socks + [slow]:
        s.close()


def test_small_terminal_told_to_enlarge(daemon, clients):
    t = clients(daemon.port, cols=60, rows=20)
    t.wait_for("enlarge")
    t.resize(80, 24)
    t.wait_for("Your choice")


def test_sigterm_saves_and_restart_resumes(daemon, clients):
    d = daemon
    t1 = clients(d.port).connected()
    new_game(d, t1, "gina")
    t1.play_keys("llkk")
    h1 = hook(d, t1, "gina")
    t2 = clients(d.port).connected()
    new_game(d, t2, "hank")
    t2.play_keys("jjh")
    h2 = hook(d, t2, "hank")
    assert d.stop() == 0
    t1.wait_for("shutting down")
    assert "recovery" in d.log()
    d.start()
    d.wait_log(r"recovery done: 2 games resumed, 0 broken")
    for name, h in (("gina", h1), ("hank", h2)):
        t = clients(d.port).connected()
        t.login(name, PW)
        t.send("p")
        d.wait_log(rf"game resume user={name}")
        assert hook(d, t, name) == h
