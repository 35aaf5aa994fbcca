"""A hosted section's sizes, with the real daemon, a real program under
the pty (tests/tools/ptytoy winsize, which prints the size its terminal
has, as `stty size` would) and real telnet and Chromium: min-size is the
smallest terminal the program gets, however small the player's; a
phone's browser gives the program the section's phone-size (the page
learns it from the server), the terminal as wide as the screen in
portrait."""
import json
import re
import time

from harness import LEAVE, WS, Web, browser_script, unique_name
from test_hosted import new_player, shown_in, start_hosted, toy_copy

PW = "correct horse"
TOLD = "This game needs a terminal of at least 100x30; yours is 90x26."


def test_a_sections_min_size_holds_for_a_small_terminal(bindir, tmp_path, clients):
    """An 80x24 telnet terminal in a game of min-size 100x30: the program
    starts at 100x30; a terminal that grows past it in one way gets that
    way, never below the minimum in the other (the player told meanwhile
    the size the game needs, and shown it all once the terminal has it);
    the default section keeps 80x24."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game tall]\ncommand = {toy} winsize\n"
                                       "min-size = 100x30\n"
                                       f"[game plain]\ncommand = {toy} winsize\n")
    try:
        t, _ = new_player(d, clients, "ms", "1")
        t.wait_for("at least 100x30; yours is 80x24.")
        t.resize(120, 26)
        t.wait_for("at least 100x30; yours is 120x26.")
        time.sleep(0.3)  # past CONN_RESIZE_MS: the next size is not held behind it
        t.resize(90, 40)
        t.wait_for("at least 100x30; yours is 90x40.")
        time.sleep(0.3)
        t.resize(130, 45)
        t.wait_for("size 130x45")
        sizes = re.findall(r"size (\d+x\d+)", t.text())
        assert sizes == ["100x30", "120x30", "100x40", "130x45"], t.text()
        t.send("q")
        t.wait_for("has ended")
        p, _ = new_player(d, clients, "mp", "2")
        p.wait_for("size 80x24")
        p.send("q")
        p.wait_for("has ended")
    finally:
        d.stop_clean()


def tall_game(bindir, tmp_path, **kw):
    toy = toy_copy(bindir, tmp_path)
    return start_hosted(bindir, tmp_path, f"[game tall]\ncommand = {toy} winsize\n"
                                          "min-size = 100x30\n", **kw)


def test_a_terminal_below_a_sections_min_size_is_told(bindir, tmp_path, clients):
    """A 90x26 telnet terminal (80x24 or more, the menu's least) in a game
    of min-size 100x30: told the size the game needs instead of shown the
    top left of it; keys go nowhere meanwhile but Warren's own, which take
    it back to the menu, drawn at 90x26; in the game again and made
    100x30, it sees the game."""
    d = tall_game(bindir, tmp_path)
    try:
        t = clients(d.port, cols=90, rows=26)
        t.register(unique_name("mt"))
        t.send("1")
        t.wait_for(TOLD)
        assert "size 100x30" not in t.text(), t.text()
        t.send("q")  # the program's key to end: ignored
        t.send(LEAVE)
        t.wait_for("Your choice")
        assert "needs a terminal" not in t.text(), t.text()
        t.send("1")  # the same program, still running
        t.wait_for(TOLD)
        t.resize(100, 30)
        t.wait_for("size 100x30")
        assert "needs a terminal" not in t.text(), t.text()
        t.resize(90, 26)  # smaller both ways: told again, the program keeps its size
        t.wait_for(TOLD)
        t.resize(100, 30)
        t.wait_for("size 100x30")
        assert "size 100x26" not in t.text() and "size 90x" not in t.text(), t.text()
        t.send("q")
        t.wait_for("has ended")
    finally:
        d.stop_clean()


def test_a_watcher_below_a_sections_min_size_is_told(bindir, tmp_path, clients):
    """A 90x26 telnet terminal watching a 100x30 player of a game of
    min-size 100x30 is told the size the game needs; made 100x30, it sees
    the game; the player sees it all along."""
    d = tall_game(bindir, tmp_path)
    try:
        p, name = new_player(d, clients, "mp")
        p.resize(100, 30)
        p.send("1")
        p.wait_for("size 100x30")
        w = clients(d.port, cols=90, rows=26)
        w.register(unique_name("mw"))
        w.send("w")
        w.wait_for(name)
        w.send("a")
        w.wait_for(TOLD)
        assert "size 100x30" not in w.text(), w.text()
        w.resize(100, 30)
        w.wait_for("size 100x30")
        assert "needs a terminal" not in w.text(), w.text()
        assert "needs a terminal" not in p.text(), p.text()
    finally:
        d.stop_clean()


def test_a_browser_below_a_sections_min_size_is_told(bindir, tmp_path):
    """A desktop browser's 90x26 terminal in a game of min-size 100x30 is
    told the size the game needs (its words apart, as drawn), then made
    100x30 sees the game."""
    d = tall_game(bindir, tmp_path, http=True)
    try:
        r = Web(d.http).register(unique_name("mb"), PW)
        seen = []
        shows = shown_in(seen)
        ws = WS(d.http, "/ws/play/tall?w=90&h=26", session=r.session, timeout=10)
        ws.until(shows(b"least\x1b[C100x30;\x1b[Cyours\x1b[Cis\x1b[C90x26."), timeout=10)
        assert b"size 100x30" not in b"".join(seen)
        time.sleep(0.3)  # past CONN_RESIZE_MS
        ws.text(json.dumps({"t": "resize", "w": 100, "h": 30}))
        ws.until(shows(b"size 100x30"), timeout=10)
        ws.binary(b"q")
        ws.close()
    finally:
        d.stop_clean()


def test_a_phone_gives_the_program_the_sections_phone_size(bindir, tmp_path):
    """/play/tall on a phone: the page's terminal is the section's
    phone-size, 80x34, and the program under the pty has that size; in
    portrait the terminal is as wide as the screen. A section without one
    gets 80x24 as before."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game tall]\ncommand = {toy} winsize\n"
                                       "phone-size = 80x34\n"
                                       f"[game plain]\ncommand = {toy} winsize\n", http=True)
    try:
        art = tmp_path / "screens"
        for game, want in (("tall", "80x34"), ("plain", "80x24")):
            r, out = browser_script("phone_size.mjs", f"http://127.0.0.1:{d.http}", art,
                                    unique_name("ps"), PW, game, timeout=120)
            assert r.returncode == 0 and not out["errors"], (out["errors"], r.stderr[-2000:])
            for size, g in out["sizes"].items():
                assert f"{g['cols']}x{g['rows']}" == want, (game, size, g)
                assert g["said"] and g["said"][-1] == want, (game, size, g)
            portrait = out["sizes"]["390x844"]
            assert portrait["width"] > 0.9 * portrait["view"][0], portrait
            assert portrait["width"] <= portrait["view"][0] + 0.5, portrait
    finally:
        d.stop_clean()


def test_a_desktop_browser_shrinks_its_font_to_a_sections_min_size(bindir, tmp_path):
    """/play/tall (min-size 100x30) in a 1000x700 desktop window, where 100
    columns do not fit at the starting font: the page learns the min-size
    from the server and takes a smaller font, so the program has at least
    100x30 and the player is not told the game needs a larger terminal;
    a watcher in such a window sees it too. A section without one keeps
    the starting font and 80x24's fit."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game tall]\ncommand = {toy} winsize\n"
                                       "min-size = 100x30\n"
                                       f"[game plain]\ncommand = {toy} winsize\n", http=True)
    try:
        art = tmp_path / "screens"
        got = {}
        for game in ("tall", "plain"):
            r, out = browser_script("desktop_size.mjs", f"http://127.0.0.1:{d.http}", art,
                                    unique_name("ds"), unique_name("dw"), PW, game, "1000x700",
                                    timeout=120)
            assert r.returncode == 0 and not out["errors"], (out["errors"], r.stderr[-2000:])
            got[game] = out["pages"]
        play = got["tall"]["play"]
        assert play["meta"] == "100x30", play
        assert play["cols"] >= 100 and play["rows"] >= 30 and not play["told"], play
        w, h = map(int, play["said"][-1].split("x"))
        assert w >= 100 and h >= 30, play
        assert 10 <= play["font"] < 15, play
        watch = got["tall"]["watch"]
        assert not watch["told"] and watch["said"] and watch["said"][-1] == play["said"][-1], watch
        plain = got["plain"]["play"]
        assert plain["meta"] == "80x24" and plain["font"] == 15 and not plain["told"], plain
        assert plain["said"][-1] == f"{plain['cols']}x{plain['rows']}", plain
    finally:
        d.stop_clean()
