"""Sanctions at one node reach the browsers at the others: two warrend
daemons on one PostgreSQL schema (WARREN_DB=pg only). A kick at node a
closes the account's websockets at node b, told the kick's message, and
leaves another account's open; a ban at a closes b's websockets from the
banned address (and a's own); a lock, a delete and a rename each travel
as an event of its own kind and are told in their own words, a rename
with the new name, to terminals and browsers alike; a lock or delete a
node of the build before those kinds wrote as a kick with a reason is
still told as one. The node events log carries each
(server/core/notify.c, the kicked_elsewhere hook into server/web)."""
import time

import pytest

from harness import ON_PG, admin
from players import web_login_refused, web_session
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
    kinds = a.db_rows("SELECT payload FROM node_events ORDER BY id")
    assert [p.split()[0] for (p,) in kinds if p.split()[0] in ("kick", "lock", "delete")] == [
        "lock", "delete"], kinds


def test_a_login_at_another_node_answered_after_a_lock_there_is_refused(pair_of, bindir):
    """A login at b whose account was read again before a lock at a was
    stored, and whose answer comes after b heard the lock (held there,
    the moment widened), is refused with the lock's words: b's send-off
    found nobody logged in to close."""
    a, b = pair_of(b_extra=["--test-login-delay", "3000"])
    web_session(a.http, "Quin", PW)
    assert "Quin locked" in web_login_refused(b, "Quin", PW,
                                              lambda: admin(bindir, a, "lock", "quin"),
                                              b"This account is locked.")


def uid_of(d, name):
    return d.db_rows("SELECT id FROM users WHERE name = ?", name)[0][0]


def test_a_rename_at_one_node_tells_the_other_nodes_terminal_and_browser_so(
        pair, clients, bindir):
    """An account renamed at a: its terminal and its websocket at b are
    told it was renamed, to what, and to log in again under that name (not
    the kick's words), and closed; the new name logs in at b. The event
    carries the new name. Another account's terminal and websocket stay."""
    a, b = pair
    web_session(a.http, "Ivy", PW)
    web_session(a.http, "Jon", PW)
    uid = uid_of(a, "Ivy")
    t, other = clients(b.port).connected(), clients(b.port).connected()
    t.login("Ivy", PW)
    other.login("Jon", PW)
    ivy, jon = lobby(b, login(b, "Ivy"), "Ivy"), lobby(b, login(b, "Jon"), "Jon")
    assert "renamed Ivy to Ivo" in admin(bindir, a, "rename", "ivy", "Ivo")
    words = "Your account was renamed to Ivo: log in again under that name."
    t.wait_for(words, timeout=5)
    t.wait_exit(timeout=5)
    assert "disconnected by the administrator" not in t.text()
    told_and_closed(ivy, words)
    # the terminal's loop (another, with --loops) and the websockets' each say theirs
    b.wait_logged(r"closed conn=\d+ user=Ivy \(renamed at another node\)")
    b.wait_logged(r"closed 1 websocket \(renamed at another node\)")
    stays_open(jon)
    other.pump(quiet=0.5)
    assert not other.eof and "renamed" not in other.text(), other.text()
    assert a.db_rows("SELECT payload FROM node_events WHERE payload LIKE 'rename %'") == [
        (f"rename * a {uid} 0 Ivo",)]
    clients(b.port).connected().login("Ivo", PW)
    lobby(b, login(b, "Ivo"), "Ivo")


def test_a_lock_or_delete_of_the_previous_build_is_told_as_one(pair, clients):
    """A node of the build before lock and delete were kinds of their own
    wrote them as a kick, b 1 for a lock and 2 for a delete (and a rename
    as a plain kick); its rows, still in the log during a rolling upgrade,
    are told at b as that node meant them: locked, deleted, a kick."""
    a, b = pair
    terms = {}
    for name in ("Kit", "Lev", "Max", "Ned"):
        web_session(a.http, name, PW)
        terms[name] = clients(b.port).connected()
        terms[name].login(name, PW)
    time.sleep(1.5)  # b's listener up, its first read of the log made
    for name, why in (("Kit", 1), ("Lev", 2), ("Max", 0)):
        a.db_write(("INSERT INTO node_events(xid, origin, at, payload) VALUES "
                    "(pg_current_xact_id()::text::bigint, 'old', "
                    "CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT), ?)",
                    (f"kick * old {uid_of(a, name)} {why}",)))
    for name, words, word in (("Kit", "This account has been locked.", "locked"),
                              ("Lev", "This account has been deleted.", "deleted"),
                              ("Max", KICKED, "kicked")):
        terms[name].wait_for(words, timeout=8)
        terms[name].wait_exit(timeout=5)
        b.wait_log(rf"closed conn=\d+ user={name} \({word} at another node\)")
    terms["Ned"].pump(quiet=0.5)
    assert not terms["Ned"].eof and "disconnected" not in terms["Ned"].text()


def test_a_rename_heard_late_leaves_who_logged_in_under_the_new_name(pair, clients):
    """A rename's event read late (after a gap of b's listener the log's
    rows come in long after): a terminal and a browser at b logged in
    under the new name meanwhile are not sent off; one still under the old
    name is, told the new name."""
    a, b = pair
    for name in ("Oda", "Pia"):
        web_session(a.http, name, PW)
    t_new, t_old = clients(b.port).connected(), clients(b.port).connected()
    t_new.login("Oda", PW)
    t_old.login("Pia", PW)
    ws_new, ws_old = lobby(b, login(b, "Oda"), "Oda"), lobby(b, login(b, "Pia"), "Pia")
    time.sleep(1.5)  # b's listener up, its first read of the log made
    for name, new in (("Oda", "Oda"), ("Pia", "Pim")):
        a.db_write(("INSERT INTO node_events(xid, origin, at, payload) VALUES "
                    "(pg_current_xact_id()::text::bigint, 'c', "
                    "CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT), ?)",
                    (f"rename * c {uid_of(a, name)} 0 {new}",)))
    words = "Your account was renamed to Pim: log in again under that name."
    t_old.wait_for(words, timeout=8)
    t_old.wait_exit(timeout=5)
    told_and_closed(ws_old, words)
    b.wait_log(r"closed conn=\d+ user=Pia \(renamed at another node\)")
    stays_open(ws_new)
    t_new.pump(quiet=0.5)
    assert not t_new.eof and "renamed" not in t_new.text(), t_new.text()


def test_a_lock_closes_the_accounts_browsers_at_its_own_node_too(pair, bindir):
    """The node the lock is made at tells its own browsers of the account
    the same words, and closes them."""
    a, b = pair
    web_session(a.http, "Quy", PW)
    here = lobby(a, login(a, "Quy"), "Quy")
    assert "Quy locked" in admin(bindir, a, "lock", "quy")
    told_and_closed(here, "This account has been locked.")
