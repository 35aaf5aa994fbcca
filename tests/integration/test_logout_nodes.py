"""Web logins ended at one node end at the others too: two warrend
daemons on one PostgreSQL schema (WARREN_DB=pg only). A logout at node a
closes the websockets opened at node b with that login, a password
changed at a those of the account's other logins at b, and logins past
the account's cap (its newest 20) those of the logins deleted; the
node events log carries each (server/core/notify.c); a login that ends
none of the account's others (under the cap) writes no event. Other
logins, and other accounts, stay. A node that listens again after a gap
looks up the login of each of its websockets again, all in one query:
one whose session row went while it heard nothing closes, one whose
account was locked meanwhile is told so."""
import hashlib
import re
import time

import pytest

import harness
from harness import ON_PG, WS, Web, stays_open
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


def logins_events(d):
    return d.db_rows("SELECT count(*) FROM node_events WHERE payload LIKE 'logins %'")[0][0]


def test_only_a_login_past_the_cap_tells_the_other_nodes(pair):
    """Logins of an account under its cap (20 sessions), at either node,
    end no other login: no event is written for them. The next one ends
    the oldest: one event, and that login's websocket at b closes. Six
    more at once end the next six: their websockets at b all close, told
    in fewer events than logins (an account's a second are one)."""
    a, b = pair
    first = web_session(a.http, "Quin", PW)
    oldest = lobby(b, first, "Quin")
    time.sleep(1.1)  # a second older than the rest (sessions are ordered by the second)
    older = [login(a, "Quin") for _ in range(6)]
    time.sleep(1.1)
    for i in range(13):  # 20 sessions in all
        login(a if i % 2 else b, "Quin")
    older_socks = [lobby(b, tok, "Quin") for tok in older]
    time.sleep(1)  # what a login would write is written by now
    assert logins_events(a) == 0
    login(a, "Quin")
    told_and_closed(oldest, "This login has ended: log in again.")
    assert logins_events(a) == 1
    for _ in range(6):
        login(a, "Quin")
    for ws in older_socks:
        told_and_closed(ws, "This login has ended: log in again.")
    assert 2 <= logins_events(a) < 1 + 6, logins_events(a)


def statements_logged(cluster, pattern, during):
    """The statements matching pattern the server ran during during()
    (log_statement on meanwhile): their log lines."""
    pos = len(cluster.log())
    cluster.psql("ALTER SYSTEM SET log_statement = 'all'")
    cluster.psql("SELECT pg_reload_conf()")
    try:
        during()
    finally:
        cluster.psql("ALTER SYSTEM RESET log_statement")
        cluster.psql("SELECT pg_reload_conf()")
    return [ln for ln in cluster.log()[pos:].splitlines()
            if re.search(r"LOG:\s+(execute|statement)", ln) and re.search(pattern, ln)]


def test_logins_looked_up_again_after_a_gap_in_one_query(pair):
    """b's listener is cut while two of its six websockets' sessions are
    deleted and another account is locked, with no event: once b listens
    again it looks up every websocket's login in one query, closes the two
    ("login ended") and the locked account's (told it is locked), and
    leaves the rest open."""
    a, b = pair
    web_session(a.http, "Rhea", PW)
    web_session(a.http, "Seth", PW)
    toks = [login(b, "Rhea") for _ in range(6)]
    socks = [lobby(b, t, "Rhea") for t in toks]
    seth = lobby(b, login(b, "Seth"), "Seth")
    for tok in toks[:2]:
        digest = hashlib.blake2b(tok.encode(), digest_size=32).hexdigest()
        a.db_write(("DELETE FROM sessions WHERE token_hash = ?", (digest,)))
    a.db_write(("UPDATE users SET locked = 1 WHERE name = 'Seth'", ()))

    def gap():
        with listeners_down(b):
            pass
        for ws in socks[:2]:
            told_and_closed(ws, "This login has ended: log in again.")

    lookups = statements_logged(harness._PG["cluster"], r"\bFROM sessions s\b", gap)
    assert len(lookups) == 1, lookups
    told_and_closed(seth, "This account has been locked.")
    stays_open(*socks[2:])
