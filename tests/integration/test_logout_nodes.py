"""Web logins ended at one node end at the others too: two warrend
daemons on one PostgreSQL schema (WARREN_DB=pg only). A logout at node a
closes the websockets opened at node b with that login, a password
changed at a those of the account's other logins at b, and logins past
the account's cap (its newest 20) those of the logins deleted; the
node events log carries each (server/core/notify.c). Other logins, and
other accounts, stay. A node that listens again after a gap looks up the
login of each of its websockets again: one whose session row went while
it heard nothing closes."""
import hashlib
import time

import pytest

from harness import ON_PG, WS, Web
from players import web_session
from test_nodes import listeners_down
from test_watch_nodes import pair, pair_of  # noqa: F401

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
PW = "correct horse"


def login(d, name):
    tok = Web(d.http).post("/login", {"name": name, "password": PW}).session
    assert tok
    return tok


def lobby(d, tok, name):
    ws = WS(d.http, "/ws/lobby", session=tok)
    assert ws.json_until(lambda m: m["t"] == "hello")["user"] == name
    return ws


def told_and_closed(ws, text):
    left = ws.json_until(lambda m: m["t"] == "left", timeout=15)
    assert left["text"] == text
    assert ws.close_code() == 1008


def stays_open(*socks, quiet=1.5):
    """None of socks is sent a close frame for quiet seconds."""
    end = time.time() + quiet
    for ws in socks:
        ws.s.settimeout(0.1)
    while time.time() < end:
        for ws in socks:
            try:
                assert ws.recv()[0] != 8
            except TimeoutError:
                pass
    for ws in socks:
        ws.close()


def test_a_logout_at_one_node_closes_that_login_at_the_other(pair):
    a, b = pair
    tok = web_session(a.http, "Lena", PW)
    other = login(b, "Lena")
    web_session(a.http, "Mick", PW)
    mick = login(b, "Mick")
    mine, kept, his = lobby(b, tok, "Lena"), lobby(b, other, "Lena"), lobby(b, mick, "Mick")
    assert Web(a.http, session=tok).post("/logout", b"").status == 303
    told_and_closed(mine, "You logged out.")
    stays_open(kept, his)
    assert a.alive() and b.alive()


def test_a_password_changed_at_one_node_closes_the_other_logins_at_the_other(pair):
    a, b = pair
    tok = web_session(a.http, "Nina", PW)
    other = login(b, "Nina")
    web_session(a.http, "Otto", PW)
    otto = login(b, "Otto")
    gone, kept, his = lobby(b, other, "Nina"), lobby(b, tok, "Nina"), lobby(b, otto, "Otto")
    new = {"old": PW, "password": "another one", "password2": "another one"}
    r = Web(a.http, session=tok).post("/password", new,
                                      headers={"Origin": f"http://127.0.0.1:{a.http}"})
    assert r.status == 200 and b"your other sessions are logged out" in r.body
    told_and_closed(gone, "Your password was changed: log in again.")
    stays_open(kept, his)


def test_logins_past_the_cap_at_one_node_close_the_oldest_at_the_other(pair):
    a, b = pair
    first = web_session(a.http, "Pia", PW)
    web_session(a.http, "Rolf", PW)
    rolf = login(b, "Rolf")
    time.sleep(1.1)  # a second older than the rest (sessions are ordered by the second)
    second = login(a, "Pia")
    oldest, newer, his = lobby(b, first, "Pia"), lobby(b, second, "Pia"), lobby(b, rolf, "Rolf")
    for _ in range(19):  # with second: 20 newer than first
        login(a, "Pia")
    told_and_closed(oldest, "This login has ended: log in again.")
    stays_open(newer, his)


def test_a_login_gone_while_a_node_was_not_listening_closes_there(pair):
    """A session row deleted with no event b heard (past what the log
    keeps): once b listens again, its websocket of that login closes; one
    of a login still stored stays."""
    a, b = pair
    tok = web_session(a.http, "Sven", PW)
    other = login(b, "Sven")
    gone, kept = lobby(b, tok, "Sven"), lobby(b, other, "Sven")
    digest = hashlib.blake2b(tok.encode(), digest_size=32).hexdigest()
    assert a.db_rows("SELECT count(*) FROM sessions WHERE token_hash = ?", digest) == [(1,)]
    a.db_write(("DELETE FROM sessions WHERE token_hash = ?", (digest,)))
    assert a.db_rows("SELECT count(*) FROM sessions WHERE token_hash = ?", digest) == [(0,)]
    with listeners_down(b):
        pass
    told_and_closed(gone, "This login has ended: log in again.")
    stays_open(kept)
