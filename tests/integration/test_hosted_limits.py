"""Hosted games under caps that fail soft, with the real daemon: hosted-max
and hosted-per-ip refuse a start with a message on telnet and the web (a
game in its grace period still counts)."""
import json

from harness import CTRL_X, Daemon, WS, Web, unique_name

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
    conf = cat_conf(tmp_path / "warren.conf", "hosted-max = 3\nhosted-per-ip = 2\n")
    d = Daemon(bindir, tmp_path / "daemon", http=True, extra=["--config", conf])
    d.start()
    try:
        assert "hosted games: at most 3, 2 per address" in d.log()
        a1, n1 = start_cat(d, clients, "127.0.0.2")
        d.wait_log(rf"hosted start user={n1} game=cat")
        a2, n2 = start_cat(d, clients, "127.0.0.2")
        d.wait_log(rf"hosted start user={n2} game=cat")
        a2.send(CTRL_X)  # detached, in its grace period: still counts
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
