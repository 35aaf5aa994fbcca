"""`warren-admin drain` on the real daemon: a node taken out of service for a
rolling upgrade. /health answers 503 "draining" at once (a balancer stops
sending players), players on telnet and in the browser are told the
message, no login or game starts any more, and the daemon then saves every
game, says goodbye with the message and exits 0 through the clean stop; a
restart resumes every game with every acknowledged key."""
import re
import socket
import time

import pytest

from harness import F12, PW, WS, Web, admin_rc, hook, new_game, play_socket, raw, unique_name

MSG = "Moving you to another node: reconnect in a moment."



def web_player(d, name):
    """A browser player in a new game who typed a few keys; returns
    (socket, session token, the game's hash as the hook key logs it)."""
    tok = Web(d.http).register(name, PW).session
    ws = play_socket(d.http, tok)
    ws.binary(b"jjl")
    time.sleep(0.3)
    ws.binary(F12.encode())
    m = d.wait_log(rf"hook user={name} game=\d+ hash=([0-9a-f]+) seed=(\d+) turn=(\d+) seq=(\d+)")
    return ws, tok, m.group(1)


def health(d):
    r = Web(d.http).get("/health")
    return r.status, r.body


def test_drain_tells_saves_and_stops(start_daemon, clients, bindir):
    d = start_daemon(http=True)
    tel_name, web_name = unique_name("dt"), unique_name("dw")
    t1 = clients(d.port).connected()
    new_game(d, t1, tel_name)
    t1.play_keys("llkk")
    h1 = hook(d, t1, tel_name)
    ws, tok, web_hash = web_player(d, web_name)
    idle = clients(d.port).connected()  # in the menu, not logged in
    assert health(d) == (200, b"ok\n")

    code, out, err = admin_rc(bindir, d, "drain", "--message", MSG, "--deadline", "8")
    assert code == 0 and "draining: /health answers 503" in out, (out, err)
    assert "2 players in games told" in out, out
    status, body = health(d)
    assert status == 503 and b"draining" in body, (status, body)
    code, out, _ = admin_rc(bindir, d, "drain", "--status")
    assert code == 0 and "draining: since" in out and "players in games: 2" in out, out
    code, _, err = admin_rc(bindir, d, "drain")
    assert code == 1 and "under way already" in err

    # everyone there is told; nobody new gets in
    t1.wait_for(MSG[:40])
    ws.until(lambda op, p: op == 2 and MSG[:30].encode() in p)
    idle.wait_for(MSG[:40])
    idle.send("l")
    idle.pump(quiet=0.3, limit=2)
    assert "Name:" not in idle.text()
    got = raw(d.port, b"")
    assert MSG.encode() in got, got
    d.wait_log(r"refused telnet ip=127\.0\.0\.1 reason=draining")
    r = Web(d.http).post("/login", {"name": web_name, "password": PW})
    assert r.status == 503 and r.body == (MSG + "\n").encode(), r
    assert r.session is None
    again = WS(d.http, "/ws/play", session=tok)
    left = again.json_until(lambda m: m.get("t") == "left")
    assert left["text"] == MSG
    again.close()

    # the deadline: every game saved, goodbye said, exit 0 through the clean stop
    assert d.proc.wait(timeout=40) == 0, d.log()[-3000:]
    log = d.log()
    assert "drain: the deadline came; stopping cleanly" in log
    assert re.search(r"signal 15: shutting down", log)
    assert "AddressSanitizer" not in log and "runtime error" not in log
    t1.pump(quiet=0.3, limit=3)
    assert MSG[:40] in t1.text()
    bye = ws.json_until(lambda m: m.get("t") == "left")
    assert bye["text"] == MSG

    # another node (here: this one again) resumes both games, nothing lost
    d.start()
    d.wait_log(r"recovery done: 2 games resumed, 0 broken")
    t = clients(d.port).connected()
    t.login(tel_name, PW)
    t.send("p")
    d.wait_log(rf"game resume user={tel_name}")
    assert hook(d, t, tel_name) == h1
    t = clients(d.port).connected()
    t.login(web_name, PW)
    t.send("p")
    d.wait_log(rf"game resume user={web_name}")
    assert hook(d, t, web_name)["hash"] == web_hash
    assert health(d) == (200, b"ok\n")


def test_drain_stops_early_once_no_one_plays(start_daemon, clients, bindir):
    d = start_daemon(http=True)
    t = clients(d.port).connected()
    started = time.time()
    code, out, err = admin_rc(bindir, d, "drain", "--deadline", "300")
    assert code == 0, err
    assert d.proc.wait(timeout=30) == 0
    assert time.time() - started < 20  # not the 300 s deadline
    assert "drain: no player is in a game; stopping cleanly" in d.log()
    t.pump(quiet=0.3, limit=3)
    assert "This server is restarting. Your game is saved: reconnect to go on." in t.text()
    d.start()  # the fixture stops it cleanly


@pytest.mark.daemon(http=True)
def test_drain_bad_requests(daemon, bindir):
    for secs in ("0", "x", "100000", "5.0", "-5", " 5"):
        code, out, err = admin_rc(bindir, daemon, "drain", "--deadline", secs)
        # said in the tool's own terms, not the control line's usage
        assert code != 0 and out == "", (secs, out)
        assert err == ("warren-admin: drain: --deadline takes whole seconds, from 1 to 86400 "
                       f'(not "{secs}")\n'), (secs, err)
    for args in (["--frob"], ["--message"]):
        code, out, err = admin_rc(bindir, daemon, "drain", *args)
        assert code != 0 and "usage" in err, (args, err)
    code, out, _ = admin_rc(bindir, daemon, "drain", "--status")
    assert code == 0 and out == "draining: no\n"
    assert health(daemon) == (200, b"ok\n")
    # the control socket's own check of the line
    s = socket.socket(socket.AF_UNIX)
    s.connect(f"{daemon.db}.ctl")
    s.sendall(b"drain 5x hello\n")
    assert s.recv(4096).startswith(b"error: usage: drain SECONDS")
    s.close()
    assert health(daemon)[0] == 200  # the daemon goes on
