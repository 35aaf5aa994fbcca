"""A hosted program as an attacker, with the real daemon and real clients
(tests/tools/ptytoy): the xlogfile row it writes puts no control byte,
bidirectional override or byte that is not UTF-8 on a page or a terminal;
it reaches no network, not even warrend's own ports on 127.0.0.1."""
import re

from harness import Daemon, Web, unique_name
from test_hosted import for_games, open_to_games, toy_copy

# what the row's death holds that must reach nobody: C1 CSI raw and in
# UTF-8, bytes that are not UTF-8, a right-to-left override
FORBIDDEN = re.compile(rb"\x9b|\xc2[\x80-\x9f]|\xff|\xfe|\xe2\x80\xae")


def start(bindir, tmp_path, sections, **kw):
    open_to_games(tmp_path)  # the games' user makes and enters the players' directories
    conf = tmp_path / "warren.conf"
    conf.write_text(sections)
    return Daemon(bindir, tmp_path / "daemon", extra=["--config", conf], **kw).start()


def test_an_xlog_row_of_control_bytes_reaches_no_page_nor_terminal(bindir, tmp_path, clients):
    """The program writes its own end row; the player's end line, the
    front page's feed and the game's score page show it as text."""
    toy = toy_copy(bindir, tmp_path)
    xlog = tmp_path / "xlogfile"
    xlog.write_text("")
    for_games(xlog)
    d = start(bindir, tmp_path, f"[game xl]\ncommand = {toy} xlog {xlog} %u\nxlogfile = {xlog}\n",
              http=True)
    try:
        t = clients(d.port)
        name = unique_name("xl")
        t.register(name)
        t.send("1")
        t.wait_for("4242 points after 7", timeout=15)
        end = t.raw[t.raw.rfind(b"xl is over"):]
        assert b"killed by ?31mred?0m, ?2J, ?? and ?drow?." in end, end
        assert not FORBIDDEN.search(end), end
        web = Web(d.http)
        for path in ("/", "/scores/xl"):
            r = web.get(path)
            assert r.status == 200 and b"killed by ?31mred" in r.body, (path, r.status)
            assert not FORBIDDEN.search(r.body), (path, FORBIDDEN.search(r.body))
            r.body.decode("utf-8")  # the whole page is UTF-8
    finally:
        d.stop_clean()
