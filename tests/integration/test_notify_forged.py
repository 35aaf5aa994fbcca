"""Node events forged by NOTIFY (WARREN_DB=pg only). PostgreSQL asks no
privilege for NOTIFY: whoever can connect to the database can send one on
the nodes' channel. A node takes a notification only as a call to read
the event log (node_events, which needs INSERT), so:

- kicks and chat lines forged by another connection, bare (as a build
  before the log sent them) or in the log's form with ids no row has,
  send nobody off and show no line anywhere, while real kicks and chat
  lines still cross;
- a flood of 3,000 notifications costs a node a handful of reads of the
  log, not 3,000 (warren-admin health counts both), and a kick after it
  still arrives."""
import re
import time

import pytest

from harness import ON_PG, WS, admin
from test_peer_attack import notify
from test_watch_nodes import chats, pair, pair_of, played_and_watched, say  # noqa: F401

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")

KICKED = "You were disconnected by the administrator."
KEY = "0123456789abcdef0123456789abcdef"


def ids_of(d, name):
    """name's account id and live game id."""
    return d.db_rows("SELECT u.id, g.id FROM games g JOIN users u ON u.id = g.user "
                     "WHERE u.name = ? AND g.state = 'live'", name)[0]


def counts(bindir, d):
    """(notifications heard, reads of the log) as d's health says them."""
    m = re.search(r"node events: (\d+) notifications heard, (\d+) reads of the log",
                  admin(bindir, d, "health"))
    assert m, "health names no node events"
    return int(m.group(1)), int(m.group(2))


@pytest.fixture
def kim(pair, clients):
    """kim plays at a, both nodes' listeners up: (a, b, kim's terminal,
    kim's account id)."""
    a, b = pair
    t = clients(a.port).connected()
    t.register("kim")
    t.random_character("kim")
    uid, _ = ids_of(a, "kim")
    time.sleep(1.5)  # both listeners up
    return a, b, t, uid


def test_forged_kicks_send_nobody_off(kim, bindir):
    """kim plays at a. Another connection NOTIFYs kicks of kim, bare and
    in the log's form (keyed or not, ids no row has): for seconds (both
    nodes read the log twice), kim stays on. Then a real kick at b sends
    kim off at a."""
    a, b, t, uid = kim
    notify(a, f"kick * zz {uid} 0", f"987654 987654 {KEY} kick * zz {uid} 0",
           f"987655 987655 kick * zz {uid} 0", f"kick a zz {uid} 0")
    time.sleep(4.5)
    t.pump(quiet=0.5)
    assert not t.eof and KICKED not in t.text(), t.text()
    assert not re.search(r"user=kim \(kicked", a.log() + b.log())
    assert "closed 0 connections of kim" in admin(bindir, b, "kick", "kim")
    t.wait_for(KICKED, timeout=5)
    t.wait_exit(timeout=5)


def test_forged_chat_lines_are_shown_nowhere(pair, clients):
    """gina plays at a, hugo watches at b, with a browser at each node.
    Another connection NOTIFYs chat lines of gina's game, bare and in the
    log's form: for seconds, no viewer sees one. Then a real line of
    hugo's reaches gina and a's browser, once."""
    a, b, p, w = played_and_watched(pair, clients, "gina", "hugo")
    web_a = WS(a.http, "/ws/watch/gina/warren")
    web_b = WS(b.http, "/ws/watch/gina/warren")
    b.wait_log(r"watch conn=\d+ user=gina game=\d+ watchers=2")
    _, game = ids_of(a, "gina")
    time.sleep(1.5)
    notify(a, f"chat * zz {game} 1 mallory forged%20bare",
           f"987655 987655 {KEY} chat * zz {game} 2 mallory forged%20logged",
           f"987656 987656 chat * zz {game} 3 mallory forged%20unkeyed")
    time.sleep(4.5)
    assert chats(web_a) == [] and chats(web_b) == []
    p.pump(quiet=0.5)
    w.pump(quiet=0.5)
    assert "forged" not in p.text() and "forged" not in w.text()
    say(w, "a real line")
    p.wait_for("hugo: a real line")
    assert chats(web_a) == [("hugo", "a real line", False)]


def test_a_flood_of_notifications_costs_a_few_reads(kim, bindir):
    """3,000 notifications in one transaction (junk, bare kicks and
    well-formed ones naming no row; each other, as PostgreSQL folds equal
    ones of a transaction into one): a reads the log a few times for them
    (one read at a time, one more waiting), not 3,000; says the junk in at
    most a line a second; and a real kick at b after the flood still sends
    kim off at a."""
    a, b, t, uid = kim
    heard, reads = counts(bindir, a)
    forged = [f"{i + 1} {i + 1} {KEY} kick * zz {uid} 0" for i in range(1000)]
    forged += [f"kick * zz {uid} {i}" for i in range(1000)] + [f"junk {i}" for i in range(1000)]
    notify(a, *forged)
    end = time.time() + 15
    while (now := counts(bindir, a))[0] < heard + 3000:
        assert time.time() < end, f"heard {now[0] - heard} of 3000"
        time.sleep(0.2)
    # the flood's reads, and the timer's every 2 s meanwhile: far from 3,000
    print("reads for the flood:", now[1] - reads)
    assert now[1] - reads <= 100, now[1] - reads
    t.pump(quiet=0.5)
    assert not t.eof and KICKED not in t.text(), t.text()
    assert len(re.findall("not understood", a.log())) <= 5, a.log()[-3000:]
    assert "closed 0 connections of kim" in admin(bindir, b, "kick", "kim")
    t.wait_for(KICKED, timeout=5)
    t.wait_exit(timeout=5)
