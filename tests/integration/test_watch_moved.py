"""A watched game that moves to a third node is listed again at once:
nodes a, b and c on one PostgreSQL schema (WARREN_DB=pg only), each
streaming to the others. A player plays at a, a watcher at b watches the
game through a's stream; then a dies and c resumes the game when its
player comes back there. b's copy of a's game goes and its watcher is
told; b reads the other nodes' games every 0.2 s (not once a second)
until a while past a's leases' lapse, and lists the game again, now
c's, at the first read that names c, not three reads after its copy
went (the pause a copy dropped by its own node waits out); the watcher
watches it through c's stream. A game a lets go to c alive
(its player logged in at c) is not dropped at b at all: b asks c for it
and its watchers watch on."""
import re
import signal
import time

import pytest

from harness import ON_PG, admin
from nodeset import Nodes
from test_watch_nodes import played_and_watched, same_rows, watch_from_list

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
NAMES = ("a", "b", "c")
# b reads the others' games every 0.2 s after a node went away: the
# game is listed within a read or two after c holds it (once a second,
# up to 1 s; three reads after its copy went, 2 s at least), timed to
# the opening of the list that shows it (until_listed)
LISTED_WITHIN_S = 0.9


@pytest.fixture
def trio(bindir, tmp_path):
    """Nodes a, b and c on one schema, each naming the others' peer
    addresses; leases lapse 1.5 s after a node's last renewal."""
    with Nodes(bindir, tmp_path) as nodes:
        yield nodes.peers(NAMES, "--lease-ttl-ms", "1500", "--lease-renew-ms", "400", http=True)


def until_listed(w, name, timeout=15):
    """w, at b's menu, opens the watch list until name's game is listed
    (left at the list); the seconds from the call to the opening that
    listed it. Each key is typed at once (not after pexpect's delay nor
    read out to a quiet screen) and the list's way to the screen is not
    counted: the time is b's, not the watcher's."""
    t0 = time.monotonic()
    while True:
        asked = time.monotonic()
        w.type_now("w")
        text = w.wait_for("Live games")
        if re.search(rf"^\s*[a-z]\) {name}\b", text, re.M):
            return asked - t0
        assert time.monotonic() - t0 < timeout, f"{name} never listed again:\n{text}"
        w.type_now("q")
        w.wait_for("Your choice")


def watched_at_b(trio, clients, player, watcher):
    _, _, p, w = played_and_watched(trio[:2], clients, player, watcher)
    same_rows(p, w)
    return p, w


def watch_again(trio, p2, w, player, told):
    """The watcher, told (text on its screen), finds the game listed at b
    soon after c holds it, picks it and sees c's rows."""
    _, b, c = trio
    w.wait_for(told)
    w.send(" ")
    w.wait_for("Your choice")
    c.wait_log(rf"attach user={player} ")
    took = until_listed(w, player)
    assert took < LISTED_WITHIN_S, f"listed at b {took:.2f} s after c held it"
    w.send("q")
    w.wait_for("Your choice")
    watch_from_list(w, player)
    c.wait_log(r"peer feed game=\d+ to=b nodes=1")
    p2.send("s")
    same_rows(p2, w)
    assert b.alive() and c.alive()


def test_a_game_taken_over_at_a_third_node_stays_watched(trio, clients):
    """a lets the game go to c, alive: b's watcher is not sent away, b asks
    c for the game and the watcher sees c's rows, key by key."""
    a, b, c = trio
    p, w = watched_at_b(trio, clients, "tove", "walt")
    p2 = clients(c.port).connected()
    p2.login("tove")
    p2.send("p")  # c asks a for the game, a lets it go
    p.wait_for("Your game moved to another connection")
    c.wait_log(r"attach user=tove ")
    b.wait_log(r"peer watch game=\d+ moved to c")
    c.wait_log(r"peer feed game=\d+ to=b nodes=1")
    for key in "ss":
        p2.send(key)
        same_rows(p2, w)
    assert "Watching tove" in w.text()
    assert a.alive() and b.alive() and c.alive()


def list_reads(bindir, d):
    """How many times d read the other nodes' games so far (its health)."""
    m = re.search(r"^other nodes: \d+ games \(\d+ listed here\); (\d+) list reads",
                  admin(bindir, d, "health"), re.M)
    assert m, admin(bindir, d, "health")
    return int(m.group(1))


def test_a_game_resumed_at_a_third_node_after_a_died_is_listed_again(trio, clients, bindir):
    """a dies under a watched game: b reads the list every 0.2 s until
    past a's leases' lapse (not once a second), so the game is listed
    again soon after c resumed it."""
    a, b, c = trio
    _, w = watched_at_b(trio, clients, "ulla", "vera")
    reads = list_reads(bindir, b)
    a.kill(signal.SIGKILL)
    w.wait_for("went away")
    t0 = time.monotonic()
    p2 = clients(c.port).connected()
    p2.login("ulla")
    end = time.time() + 15
    p2.send("p")
    while "ulla the " not in p2.text():  # a's lease lapses first
        assert time.time() < end, p2.text()
        p2.pump(quiet=0.3, limit=0.5)
        if "another server" in p2.text():
            p2.send(" ")
            p2.wait_for("Your choice")
            p2.send("p")
    # the reads since a went: more than one a second (0.2 s apart)
    took = time.monotonic() - t0
    more = list_reads(bindir, b) - reads
    assert more >= 2 * took, f"{more} list reads in {took:.1f} s after a went"
    watch_again(trio, p2, w, "ulla", "went away")


@pytest.fixture
def trio_held(bindir, tmp_path):
    """trio, c's resume of a game held 2 s once its lease is taken: b
    asks c for the game before c runs it."""
    with Nodes(bindir, tmp_path) as nodes:
        yield nodes.peers(NAMES, "--lease-ttl-ms", "1500", "--lease-renew-ms", "400",
                          more={"c": ("--test-resume-hold", "2000")}, http=True)


def test_a_game_asked_for_while_its_resume_is_held_stays_watched(trio_held, clients):
    """b asks c for the game while c, its lease taken, still reads it:
    c holds the ask and answers once the game runs there (not a refusal
    that sends b's watcher away), and the watcher sees c's rows."""
    a, b, c = trio_held
    p, w = watched_at_b(trio_held, clients, "tove", "walt")
    p2 = clients(c.port).connected()
    p2.login("tove")
    p2.send("p")
    p.wait_for("Your game moved to another connection")
    c.wait_log(r"game resume user=tove game=\d+: its read held")
    b.wait_log(r"peer watch game=\d+ moved to c")
    c.wait_logged(r"peer link b \(127\.0\.0\.1\) ready")
    assert not re.search(r"game resume user=tove game=\d+ seq=", c.log()), "resumed before b asked"
    c.wait_log(r"peer feed game=\d+ to=b nodes=1 ")
    c.wait_log(r"game resume user=tove game=\d+ seq=")
    c.wait_log(r"attach user=tove ")
    for key in "ss":
        p2.send(key)
        same_rows(p2, w)
    assert "Watching tove" in w.text()
    assert re.search(r"peer feed game=\d+ to=b nodes=1 .*held", c.log())
    assert a.alive() and b.alive() and c.alive()
