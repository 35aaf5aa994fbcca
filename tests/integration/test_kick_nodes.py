"""Sanctions at one node reach the browsers at the others: two warrend
daemons on one PostgreSQL schema (WARREN_DB=pg only). A kick at node a
closes the account's websockets at node b, told the kick's message, and
leaves another account's open; a ban at a closes b's websockets from the
banned address (and a's own). The node events log carries each
(server/core/notify.c, the kicked_elsewhere hook into server/web)."""
import pytest

from harness import ON_PG, admin
from players import web_session
from test_logout_nodes import PW, lobby, login, stays_open, told_and_closed
from test_watch_nodes import pair, pair_of  # noqa: F401

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
KICKED = "You were disconnected by the administrator."
BANNED = "Connections from your address are refused."


def test_a_kick_at_one_node_closes_the_accounts_websockets_at_the_other(pair, bindir):
    a, b = pair
    web_session(a.http, "Kai", PW)
    web_session(a.http, "Lou", PW)
    his, other = lobby(b, login(b, "Kai"), "Kai"), lobby(b, login(b, "Kai"), "Kai")
    hers = lobby(b, login(b, "Lou"), "Lou")
    out = admin(bindir, a, "kick", "kai")
    assert "closed 0 connections of Kai" in out, out
    told_and_closed(his, KICKED)
    told_and_closed(other, KICKED)
    b.wait_log(r"closed 2 websockets \(kicked at another node\)")
    stays_open(hers)
    assert a.alive() and b.alive()


def test_a_ban_at_one_node_closes_the_addresss_websockets_at_both(pair, bindir):
    a, b = pair
    web_session(a.http, "Mona", PW)
    here, there = lobby(a, login(a, "Mona"), "Mona"), lobby(b, login(b, "Mona"), "Mona")
    out = admin(bindir, a, "ban", "127.0.0.0/8", "1h")
    assert "banned 127.0.0.0/8 (1 connection closed)" in out, out
    told_and_closed(here, BANNED)
    told_and_closed(there, BANNED)
    b.wait_log(r"closed 1 websocket \(banned at another node\)")
    assert "lifted the ban" in admin(bindir, a, "unban", "127.0.0.0/8")
    b.wait_log(r"bans read again after another node's change: 0")
    stays_open(lobby(b, login(b, "Mona"), "Mona"))


def test_a_lock_or_delete_at_one_node_tells_the_other_nodes_browsers_so(pair, bindir):
    """An account locked at a: its websockets at b are told it is locked,
    not the kick's words; one deleted at a: told it is deleted. Another
    account's stay open."""
    a, b = pair
    for name in ("Ned", "Ora", "Pam"):
        web_session(a.http, name, PW)
    ned = lobby(b, login(b, "Ned"), "Ned")
    ora = lobby(b, login(b, "Ora"), "Ora")
    pam = lobby(b, login(b, "Pam"), "Pam")
    assert "Ned locked" in admin(bindir, a, "lock", "ned")
    told_and_closed(ned, "This account has been locked.")
    b.wait_log(r"closed 1 websocket \(locked at another node\)")
    assert "deleted Ora" in admin(bindir, a, "delete", "ora", "--yes")
    told_and_closed(ora, "This account has been deleted.")
    b.wait_log(r"closed 1 websocket \(deleted at another node\)")
    stays_open(pam)


def test_a_lock_closes_the_accounts_browsers_at_its_own_node_too(pair, bindir):
    """The node the lock is made at tells its own browsers of the account
    the same words, and closes them."""
    a, b = pair
    web_session(a.http, "Quy", PW)
    here = lobby(a, login(a, "Quy"), "Quy")
    assert "Quy locked" in admin(bindir, a, "lock", "quy")
    told_and_closed(here, "This account has been locked.")
