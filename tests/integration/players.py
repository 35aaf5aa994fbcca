"""Steps the suites share to bring a player in: a new account playing a new
character over telnet, watching a game from the menu, quitting one, and a
web account (its session, or a Web client holding it); many players
at once (bin/warren-load)."""
import re
import subprocess
import threading

from harness import PW, Web, hook, new_game


def started(d, t, name):
    """A new account on t playing a new character of Warren's game; returns
    the game id."""
    gid, _ = new_game(d, t, name)
    t.wait_for("Choose a race.")
    t.send("l")
    t.wait_for(f"Welcome, {name} the ")
    return gid


def left_to_its_grace(d, t, name):
    """A new account on t playing a new character two waits in, then the
    connection dropped and the game's grace (--grace 1) over: the game is
    saved and freed, so p loads it from the database. Returns its hook
    (harness.hook) before the drop."""
    started(d, t, name)
    t.play_keys("..")
    before = hook(d, t, name)
    t.close()
    d.wait_log(rf"detach user={name}")
    d.wait_log(rf"grace over user={name} game=\d+: saved and freed", timeout=15)
    return before


def watch(d, t, name):
    """From t's menu: watches name's game."""
    t.send("w")
    t.wait_for(name)
    row = [ln for ln in t.lines() if re.search(rf"\) {name} ", ln)][0]
    t.send(row.strip()[0])
    d.wait_log(rf"watch conn=\d+ user={name} ")


def quit_game(t):
    """Quits t's game for good (the game ends, its row is kept)."""
    t.send("Q")
    t.wait_for("Really quit?")
    t.send("y")


def web_session(port, name, pw=PW, source=None):
    """Registers name through the web form on port; returns its session."""
    r = Web(port, source=source).register(name, pw)
    assert r.status == 303 and r.session, (r.status, r.head)
    return r.session


def web_login_refused(d, name, pw, act, words):
    """A web login of name at d, its answer held there (test-login-delay)
    while act() runs: refused with words, no session made. act's result."""
    got = {}
    browser = threading.Thread(target=lambda: got.update(
        r=Web(d.http).post("/login", {"name": name, "password": pw})))
    browser.start()
    d.wait_log(rf"login user={name}: its answer held", timeout=20)
    out = act()
    browser.join(30)
    assert not got["r"].session and words in got["r"].body, got["r"]
    return out


def web_account(d, name, pw=PW):
    """Registers name through the web form; a Web client logged in as it."""
    r = Web(d.http).register(name, pw, next="/")
    assert r.status == 303, r.head
    return Web(d.http, session=r.session)


def load_players(bindir, d, n):
    """n players (bin/warren-load) key at d for a second and leave: their
    games are kept there, detached, each keyed later than any before."""
    exe = bindir / "asan" / "warren-load"
    r = subprocess.run([str(exe if exe.exists() else bindir / "warren-load"), "--port",
                        str(d.port), "--n", str(n), "--seconds", "1", "--warmup", "0",
                        "--interval", "0.5", "--ramp-timeout", "240"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and f"{n} of {n} sessions in play" in r.stdout, \
        r.stdout + r.stderr
