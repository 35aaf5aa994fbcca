"""Debian's Crawl hosted as deploy/games/crawl.conf says, in its box and
under its system call filter, over real telnet: a new character reaches
the dungeon, ^S saves it, it comes back from its save, a game hung up by
warrend (its player gone past grace) saves on SIGHUP and comes back where
it was, the lobby shows its depth and turn, and a quit ends it with the
row of Crawl's logfile: the end message, the score row, the scores page."""
import os
import pathlib
import re
import shutil
import time

import pytest

from harness import Web, unique_name
from test_hosted import start_hosted

CRAWL = pathlib.Path("/usr/games/crawl")
SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "deploy" / "games"

if os.geteuid() != 0:  # the box needs a root spawner, as in production
    raise RuntimeError("the hosted Crawl tests run as root (as CI does)")
if not CRAWL.exists():
    raise RuntimeError(f"{CRAWL} missing: run make deps (it installs crawl)")


def sample_section(root):
    """The shipped section, its rc-default pointed at the shipped crawlrc."""
    rc = root / "crawlrc"
    shutil.copy(SAMPLES / "crawlrc", rc)
    os.chmod(rc, 0o644)
    text = (SAMPLES / "crawl.conf").read_text()
    text, n = re.subn(r"^rc-default = .*$", f"rc-default = {rc}", text, flags=re.M)
    assert n == 1, "the sample lost its rc-default line"
    return text


@pytest.fixture
def crawl(bindir, tmp_path):
    d = start_hosted(bindir, tmp_path, sample_section(tmp_path), extra=["--grace", "1"], http=True)
    yield d
    d.stop()
    d.stop_clean()


EXITED = r"program exited user={name} game=crawl pid=\d+ status=0\b"


def save_file(d, name):
    return d.dir / "games" / "crawl" / name / ".crawl" / "saves" / f"{name}.cs"


def game_time(text):
    m = re.search(r"Time:\s+(\d+\.\d)", text)
    assert m, text
    return float(m.group(1))


def saved(t):
    """Back at warrend's menu after the program saved and exited."""
    t.wait_for("Dungeon Crawl Stone Soup was saved: choose it again to go on.", timeout=30)
    t.send(" ")
    t.wait_for("Your choice")


def quit_game(t):
    """^Q, yes, then past Crawl's last screens to warrend's end line."""
    t.send("\x11")
    t.wait_for("abandon this character and quit the game?")
    t.send("yes\r")
    end = time.time() + 30
    while "is over" not in t.text():
        assert time.time() < end, t.text()
        t.send("\x1b")
        t.pump(quiet=0.5, limit=2)
    return t.text()


def test_crawl_starts_saves_and_comes_back(crawl, clients):
    d = crawl
    t = clients(d.port)
    name = unique_name("cr")
    t.register(name)
    assert "1) Play Dungeon Crawl Stone Soup" in t.wait_for("Your choice")
    t.send("1")
    # the first start compiles the level cache into the player's directory
    t.wait_for("Please select your species", timeout=90)
    t.send("a")  # Hill Orc
    t.wait_for("Please select your background")
    t.send("a")  # Fighter
    t.wait_for("You have a choice of weapons")
    t.send("c")  # war axe
    assert game_time(t.wait_for("Place: Dungeon:1", timeout=30)) == 0.0

    t.send("\x13")  # ^S: save and exit
    saved(t)
    d.wait_log(EXITED.format(name=name))
    assert save_file(d, name).stat().st_size > 0

    t.send("1")
    t.wait_for(f"Welcome back, {name}", timeout=30)
    t.send("sss")  # three turns waited
    t.wait_for("Time: 3.0")
    t.pump(quiet=0.5)
    before = save_file(d, name).stat().st_mtime_ns
    played = game_time(t.text())
    # the lobby's row has the depth and turn the sample's status reads
    _, page = Web(d.http).html("/")
    row = next(r for r in re.findall(r"<tr><td>(.*?)</tr>", page, re.S) if r.startswith(name))
    cells = re.findall(r"<td>(.*?)</td>", "<td>" + row)
    assert cells[1:5] == ["Dungeon Crawl Stone Soup", cells[2], "1", str(int(played))], cells

    t.send("\x1cx")  # back to warrend's menu; grace (1 s) hangs the game up
    t.wait_for("Your choice")
    d.wait_log(EXITED.format(name=name), timeout=30)
    assert save_file(d, name).stat().st_mtime_ns > before

    t.send("1")
    text = t.wait_for(f"Welcome back, {name}", timeout=30)
    assert game_time(t.wait_for("Place: Dungeon:1")) == played == 3.0, text

    text = quit_game(t)
    assert re.search(r"Dungeon Crawl Stone Soup is over: quit the game\. 0 points after "
                     r"[1-9]\d* turns\.", text), text
    got = d.db_rows("SELECT h.game, h.name, role, race, death, points FROM hosted_scores h "
                    "JOIN users u ON u.id = h.user WHERE u.name = ?", name)
    assert got == [("crawl", name, "Fighter", "Hill Orc", "quit the game", 0)]
    status, j = Web(d.http).json("/api/scores/crawl")
    assert status == 200 and [r["death"] for r in j["scores"] if r["name"] == name] == \
        ["quit the game"]
