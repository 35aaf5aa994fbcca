"""A hosted game's end in every order its viewers can meet it, with the
real daemon (the sanitizer build when there is one), real websockets and
telnet, and tests/tools/ptytoy as the program: the player hangs up, the
grace period ends, the program exits, then its watchers leave; a browser
playing when the program exits on its own; a browser that closes while
the program exits (and while its xlogfile is read after); watchers on a
game whose player comes back, from another connection, and on the game
started after; two attaches of one account at once, while the game
starts and while the last one is being hung up. Each test ends with the
daemon still answering (telnet and web) and stopping clean: no sanitizer
report (a use after free would end it at once)."""
import json
import os
import re
import signal
import socket
import threading
import time

from harness import WS, Web, unique_name
from test_hosted import spawner_of, start_hosted, toy_copy

PW = "correct horse"
LEAVE = "\x1cx"
# xkeys writes no xlogfile row: it was saved, as far as the daemon knows
ENDED = {"keys": "keys has ended.", "xkeys": "xkeys was saved: choose it again to go on."}


def sections(toy):
    """keys (exits on q, or SIGHUP); nohup (ignores SIGHUP: killed 2 s
    after it); xkeys, whose xlogfile is each player's own (read by the
    spawner after the program exits, the session alive meanwhile)."""
    return (f"[game keys]\ncommand = {toy} keys\nhangup-timeout = 2\n"
            f"[game nohup]\ncommand = {toy} nohup\nhangup-timeout = 2\n"
            f"[game xkeys]\ncommand = {toy} keys\nxlogfile = %d/xlogfile\nhangup-timeout = 2\n")


def start(bindir, tmp_path):
    """The daemon with the web listener, a grace period of 1 s."""
    return start_hosted(bindir, tmp_path, sections(toy_copy(bindir, tmp_path)),
                        extra=["--grace", "1"], http=True)


def account(d, prefix):
    """A new web account: (its name, its session cookie)."""
    name = unique_name(prefix)
    return name, Web(d.http).register(name, PW).session


def play(d, session, game, ready):
    """A browser playing game, once its screen shows ready."""
    ws = WS(d.http, f"/ws/play/{game}", session=session, timeout=15)
    assert ws.status == 101
    ws.until(lambda op, p: op == 2 and ready in p, timeout=15)
    return ws


def watch(d, name, game):
    """A browser watching name's game, its first frame out."""
    ws = WS(d.http, f"/ws/watch/{name}/{game}", timeout=15)
    assert ws.status == 101
    ws.json_until(lambda m: m.get("t") == "watchers")
    return ws


def left(ws, timeout=15):
    """What the daemon told a browser as it left it."""
    return ws.json_until(lambda m: m.get("t") == "left", timeout=timeout)["text"]


def outcome(ws, ready):
    """What a browser of two that raced for one game got: "left" (sent
    away), or "ready" (its screen shows ready)."""
    op, p = ws.until(lambda op, p: (op == 1 and json.loads(p).get("t") == "left")
                     or (op == 2 and ready in p), timeout=15)
    return "left" if op == 1 else "ready"


def serving(d, clients):
    """The daemon answers: the web's front page, and a telnet player
    registering and reaching the menu."""
    assert d.alive(), d.log()[-3000:]
    Web(d.http).assert_serving()
    t = clients(d.port)
    t.register(unique_name("ok"))
    t.wait_for("Your choice")


def close_now(ws):
    """The browser's tab closed: the socket reset, no close frame."""
    ws.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    ws.close()


def pid_of(d, name, game):
    return int(d.wait_log(rf"hosted start user={name} game={game} pid=(\d+)", 15).group(1))


def test_watchers_leave_after_the_player_hung_up_and_the_program_exited(bindir, tmp_path,
                                                                        clients):
    """The browser player closes; the grace period ends (the watchers told
    and sent away, the program hung up: it ignores SIGHUP, killed 2 s
    later); meanwhile no one can watch the game, and the watchers' sockets
    close before, during and after the program's end."""
    d = start(bindir, tmp_path)
    try:
        name, session = account(d, "hu")
        p = play(d, session, "nohup", b"nohup ready")
        pid = pid_of(d, name, "nohup")
        ws = [watch(d, name, "nohup") for _ in range(4)]
        d.wait_log(rf"watch conn=\d+ user={name} game=-\d+ watchers=4")
        close_now(p)
        d.wait_log(rf"grace over user={name} game=-\d+", timeout=10)
        d.wait_log(rf"hangup user={name} game=nohup pid={pid}")
        assert left(ws[0]) == "The player left; the game is saved."
        ws[0].close()  # before the program's end
        late = WS(d.http, f"/ws/watch/{name}/nohup")  # hung up: no longer anyone's game
        assert left(late) == f"{name} is not playing nohup now."
        late.close()
        d.wait_log(rf"program exited user={name} game=nohup pid={pid} status=9", timeout=10)
        close_now(ws[1])  # just after it, unread
        time.sleep(0.3)
        for w in ws[2:]:  # long after
            assert left(w) == "The player left; the game is saved."
            w.close()
        p = play(d, session, "nohup", b"nohup ready")  # a new one
        assert pid_of(d, name, "nohup") != pid
        close_now(p)
        serving(d, clients)
    finally:
        d.stop_clean()


def test_a_browser_playing_when_the_program_exits_on_its_own(bindir, tmp_path, clients):
    """q ends the program while a browser plays it and two watch: each is
    told and closes after; with a per-player xlogfile the session lives on
    while the spawner reads it, and a browser that closes then, or a
    watcher that comes then, costs nothing."""
    d = start(bindir, tmp_path)
    try:
        for game in ("keys", "xkeys"):
            name, session = account(d, "ex")
            p = play(d, session, game, b"keys ready")
            w = [watch(d, name, game) for _ in range(2)]
            p.binary(b"q")
            assert left(p) == ENDED[game]
            for x in w:
                assert left(x) == "The game you watched has ended."
                x.close()
            p.close()
            d.wait_log(rf"game end user={name} game={game}: the program exited")
            # at once again, the browser closing as the program exits
            p = play(d, session, game, b"keys ready")
            w = watch(d, name, game)
            p.binary(b"q")
            close_now(p)  # the reset may take the q with it: then the grace period ends it
            assert left(w) in ("The game you watched has ended.",
                               "The player left; the game is saved.")
            w.close()
            d.wait_log(rf"program exited user={name} game={game} ", timeout=10)
        serving(d, clients)
    finally:
        d.stop_clean()


def test_browsers_closing_while_the_program_exits(bindir, tmp_path, clients):
    """The program's end and the sockets' closes in every near order: q
    and the player's close in one write, or a little apart; watchers that
    close with it, before the daemon tells them, or never read."""
    d = start(bindir, tmp_path)
    try:
        name, session = account(d, "cl")
        ends = 0
        for i, game in enumerate(["keys", "xkeys"] * 6):
            p = play(d, session, game, b"keys ready")
            w = [watch(d, name, game) for _ in range(3)]
            gap = (0, 0.001, 0.005, 0.02, 0.05, 0.1)[i % 6]
            p.binary(b"q")
            w[0].binary(b"q")  # a watcher's q: it leaves as the game ends
            if gap:
                time.sleep(gap)
            close_now(p if i % 2 else w[1])
            close_now(w[2])
            (w[1] if i % 2 else p).close()
            w[0].close()
            ends += 1
            exited = rf"program exited user={name} "  # a reset may take the q: the grace period
            for _ in range(100):  # each program ended before the next starts
                if len(re.findall(exited, d.log())) == ends:
                    break
                time.sleep(0.1)
            assert len(re.findall(exited, d.log())) == ends, d.log()[-3000:]
        serving(d, clients)
    finally:
        d.stop_clean()


def test_a_watcher_stays_while_the_player_comes_back_from_elsewhere(bindir, tmp_path, clients):
    """A browser watches a telnet player's game while the player leaves
    and comes back (the same program), a browser takes it over, another
    browser takes it over from that one and telnet takes it back; the
    watcher sees every key, and is told when the grace period ends it.
    Then the player starts again and the watcher comes to the new game."""
    d = start(bindir, tmp_path)
    try:
        name, session = account(d, "ra")
        t = clients(d.port)
        t.login(name, PW)
        t.wait_for("Your choice")
        t.send("1")
        t.wait_for("keys ready")
        pid = pid_of(d, name, "keys")
        w = watch(d, name, "keys")
        t.send(LEAVE)
        t.wait_for("Your choice")
        t.send("1")  # back to the same program
        t.wait_for("keys ready")
        t.send("a")
        w.until(lambda op, p: op == 2 and b"got 1: 61" in p)
        b1 = WS(d.http, "/ws/play/keys", session=session)  # takes it over
        t.wait_for("taken over")
        b1.binary(b"b")
        w.until(lambda op, p: op == 2 and b"got 1: 62" in p)
        b2 = WS(d.http, "/ws/play/keys", session=session)
        assert "taken over" in left(b1)
        b1.close()
        b2.binary(b"c")
        w.until(lambda op, p: op == 2 and b"got 1: 63" in p)
        t.send("\r")
        t.wait_for("Your choice")
        t.send("1")  # and back to telnet
        assert "taken over" in left(b2)
        close_now(b2)
        t.send("d")
        w.until(lambda op, p: op == 2 and b"got 1: 64" in p)
        assert len(re.findall(rf"hosted start user={name} game=keys ", d.log())) == 1
        t.close()  # the grace period ends it: the watcher is told
        assert left(w) == "The player left; the game is saved."
        w.close()
        d.wait_log(rf"program exited user={name} game=keys pid={pid} ", timeout=10)
        p = play(d, session, "keys", b"keys ready")  # started again
        assert pid_of(d, name, "keys") != pid
        w = watch(d, name, "keys")
        p.binary(b"e")
        w.until(lambda op, p: op == 2 and b"got 1: 65" in p)
        p.binary(b"q")
        assert left(w) == "The game you watched has ended."
        close_now(w)
        close_now(p)
        serving(d, clients)
    finally:
        d.stop_clean()


def race(fns):
    """Runs fns at once, each in a thread of its own; their results."""
    out = [None] * len(fns)
    go = threading.Barrier(len(fns))

    def run(i):
        go.wait()
        out[i] = fns[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(fns))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    return out


def test_two_attaches_of_one_account_at_once(bindir, tmp_path, clients):
    """Two browsers of one account open the same game at once (while it
    starts, while it runs, while the spawner is stopped so the start
    waits, and while its last program is still being hung up); one plays,
    the other is told, and the closes that follow cost nothing."""
    d = start(bindir, tmp_path)
    try:
        name, session = account(d, "tw")
        two = race([lambda: WS(d.http, "/ws/play/keys", session=session, timeout=15)] * 2)
        d.wait_log(rf"hosted start user={name} game=keys pid=\d+", timeout=15)
        for ws in two:
            assert ws.status == 101
        two[0].s.settimeout(1)
        assert len(re.findall(rf"hosted start user={name} game=keys ", d.log())) == 1
        again = race([lambda: WS(d.http, "/ws/play/keys", session=session, timeout=15)] * 2)
        for ws in two:
            assert "taken over" in left(ws)
            ws.close()
        winner = None
        for ws in again:
            ws.binary(b"z")
        got = []
        for ws in again:
            try:
                ws.s.settimeout(3)
                got.append(left(ws, timeout=3))
            except (AssertionError, OSError, EOFError):
                winner = ws
        assert winner is not None and len(got) == 1 and "taken over" in got[0], got
        winner.binary(b"q")
        assert left(winner) == "keys has ended."
        winner.close()

        # while the spawner cannot answer: both wait for a start and close,
        # the grace period ends it (its start in flight: hung up once it
        # runs), two more come for a new one meanwhile
        spawner = spawner_of(d)
        os.kill(spawner, signal.SIGSTOP)
        try:
            two = race([lambda: WS(d.http, "/ws/play/keys", session=session, timeout=15)] * 2)
            time.sleep(0.3)
            close_now(two[0])
            close_now(two[1])
            d.wait_log(rf"grace over user={name} game=-2:", timeout=10)
            two = race([lambda: WS(d.http, "/ws/play/keys", session=session, timeout=15)] * 2)
            d.wait_log(rf"takeover user={name} game=-3 ", timeout=10)
        finally:
            os.kill(spawner, signal.SIGCONT)
        got = [outcome(ws, b"keys ready") for ws in two]
        assert sorted(got) == ["left", "ready"], got
        p = two[got.index("ready")]
        p.binary(b"q")
        assert left(p) == "keys has ended."
        p.close()
        # the start for no one was hung up as it ran: one start told of since
        assert len(re.findall(rf"hosted start user={name} game=keys ", d.log())) == 2

        # while the last one is being hung up (it ignores SIGHUP for 2 s)
        p = play(d, session, "nohup", b"nohup ready")
        pid = pid_of(d, name, "nohup")
        close_now(p)
        d.wait_log(rf"hangup user={name} game=nohup pid={pid}", timeout=10)
        two = race([lambda: WS(d.http, "/ws/play/nohup", session=session, timeout=15)] * 2)
        d.wait_log(rf"hosted start user={name} game=nohup pid=(?!{pid}\b)\d+", timeout=15)
        # killed 2 s after its hangup: on a busy machine before the new start
        d.wait_logged(rf"program exited user={name} game=nohup pid={pid} status=9", timeout=10)
        for ws in two:
            close_now(ws)
        time.sleep(0.3)
        serving(d, clients)
    finally:
        d.stop_clean()
