"""An account deleted at one node while it plays at another: two warrend
daemons on one PostgreSQL schema (WARREN_DB=pg only). Node a marks the
account as being deleted at every node (a "deleting" event), has the
node holding its game's lease save and close it (a "close" event,
answered), and only then deletes its rows: the player at b is told the
account was deleted, nothing of it is written after its rows go, and a
player at b's menu meanwhile is refused with the delete's words
(server/admin/control_mod.c, server/core/nodeend.c)."""
import signal
import threading
import time

import pytest

from harness import ON_PG, admin, admin_rc, new_game, unique_name
from nodeset import Nodes
from test_db_conflict import conflicts
from test_hosted import open_to_games, playground, settle, start_nethack, toy_copy
from test_watch_nodes import pair, pair_of  # noqa: F401

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
CLOSED = "The administrator saved and closed your game."
DELETING = "This account is being deleted."
DELETED = "This account has been deleted."


def rows_of(d, name, gid):
    """The account's rows left: users, games, journal, snapshots."""
    return [d.db_rows(sql, arg)[0][0] for sql, arg in (
        ("SELECT count(*) FROM users WHERE name = ?", name),
        ("SELECT count(*) FROM games WHERE id = ?", gid),
        ("SELECT count(*) FROM journal WHERE game = ?", gid),
        ("SELECT count(*) FROM snapshots WHERE game = ?", gid))]


def test_a_delete_closes_the_game_another_node_runs_before_its_rows_go(pair, clients, bindir):
    """A game running at b, its account deleted at a: b saves and closes
    it when a asks (its lease's holder), then a deletes the rows; b's
    player is told the account was deleted, never that the game runs on
    another server, and neither node logs an error, stopping included."""
    a, b = pair
    t = clients(b.port).connected()
    gid, _ = new_game(b, t, "Dee")
    t.play_keys("lll")
    out = admin(bindir, a, "delete", "dee", "--yes")
    assert "deleted Dee" in out, out
    t.wait_for(DELETED)
    t.wait_exit()
    assert b"another server" not in t.raw, t.raw[-500:]
    assert rows_of(a, "Dee", gid) == [0, 0, 0, 0]
    b.stop_clean()
    a.stop_clean()
    for d in (a, b):
        assert " ERROR " not in d.log(), d.log()[-3000:]
    assert f"admin: close game={gid} asked of node b" in a.log()
    assert f"close of game={gid} asked by node a: ended" in b.log()


def held_delete(bindir, a, name, ms):
    """name's delete asked at a (started with --test-delete-hold ms) in a
    thread, returned once a holds its rows; the call returned gives its
    (code, out, err) once it ends."""
    done = {}
    deleting = threading.Thread(target=lambda: done.update(
        r=admin_rc(bindir, a, "delete", name.lower(), "--yes")))
    deleting.start()
    a.wait_log(rf"delete user={name}: its rows held {ms} ms", timeout=20)

    def finish():
        deleting.join(30)
        return done["r"]
    return finish


def test_a_player_at_another_nodes_menu_is_refused_while_the_account_is_deleted(
        pair_of, clients, bindir):
    """An account at b's menu (its game saved there) is deleted at a, its
    rows' delete held three seconds: p at b meanwhile is refused with the
    delete's words, no game of it starts there, and once the rows are gone
    b sends it off."""
    a, b = pair_of(a_extra=["--test-delete-hold", "3000"])
    t = clients(b.port).connected()
    gid, _ = new_game(b, t, "Fay")
    t.play_keys("ll")
    deleted = held_delete(bindir, a, "Fay", 3000)
    t.wait_for(CLOSED)
    t.send(" ")
    t.wait_for("Logged in as Fay")
    t.send("p")
    t.wait_for(DELETING)
    code, out, err = deleted()
    assert code == 0 and "deleted Fay" in out, (out, err)
    t.wait_for(DELETED)
    t.wait_exit()
    assert b.log().count("game resume user=Fay") == 0, b.log()[-3000:]
    assert rows_of(a, "Fay", gid) == [0, 0, 0, 0]
    b.stop_clean()
    assert " ERROR " not in b.log(), b.log()[-3000:]


def test_a_delete_is_refused_when_the_node_running_its_game_does_not_answer(
        pair, clients, bindir):
    """b runs the account's game but does not answer (paused): a's delete
    is refused, naming b and the game, and deletes nothing; b, going on,
    keeps the game (a close asked too long ago is not applied), and the
    delete asked again, b answering, is done."""
    a, b = pair
    t = clients(b.port).connected()
    gid, _ = new_game(b, t, "Wes")
    t.play_keys("ll")
    b.proc.send_signal(signal.SIGSTOP)
    try:
        rc, out, err = admin_rc(bindir, a, "delete", "wes", "--yes")
    finally:
        b.proc.send_signal(signal.SIGCONT)
    assert rc != 0 and f"node b did not answer the close of game {gid} of Wes; nothing deleted" \
        in err, (rc, out, err)
    assert rows_of(a, "Wes", gid)[:2] == [1, 1]
    t.pump(quiet=1.5)
    assert CLOSED not in t.text() and DELETED not in t.text(), t.text()
    out = admin(bindir, a, "delete", "wes", "--yes")
    assert "deleted Wes" in out, out
    t.wait_for(DELETED)
    assert rows_of(a, "Wes", gid) == [0, 0, 0, 0]


def hosted_rows_of(d, uid):
    """The account's rows left of hosted games: files, their sets,
    recordings, scores."""
    return [d.db_rows(f"SELECT count(*) FROM {table} t WHERE t.user = ?", uid)[0][0]
            for table in ("hosted_files", "hosted_file_sets", "hosted_games", "hosted_scores")]


def test_a_delete_closes_a_hosted_game_another_node_runs_before_its_rows_go(
        bindir, clients, tmp_path):
    """Debian's NetHack running at b (no lease row names it), its account
    deleted at a: a asks every live node to close the account's games;
    b hangs NetHack up (it saves), stores the last copy of the player's
    files, and answers; only then do the rows go. b's player is told the
    game was closed, then that the account was deleted; no hosted file,
    set or recording of it is left, and neither node logs an error (none
    of b's writes after the rows went)."""
    pg, conf = playground(tmp_path, bindir)
    with Nodes(bindir, tmp_path) as nodes:
        a, b = (nodes.start(n, "--config", conf) for n in ("a", "b"))
        name = unique_name("hd")
        t = clients(b.port)
        start_nethack(t, name)
        settle(t)
        t.play_keys("s" * 3)
        settle(t)
        (uid,), = a.db_rows("SELECT id FROM users WHERE name = ?", name)
        out = admin(bindir, a, "delete", name, "--yes")
        assert f"deleted {name}" in out, out
        t.wait_for(DELETED)
        assert CLOSED.encode() in t.raw, t.raw[-800:]
        b.wait_log(rf"close of account {uid}'s games asked by node a: closed, copies stored")
        assert f"admin: close of account {uid}'s games asked of node b" in a.log()
        assert f"hosted files of user={name} game=nethack: last copy stored" in b.log()
        assert rows_of(a, name, 0)[0] == 0
        assert hosted_rows_of(a, uid) == [0, 0, 0, 0]
        b.stop_clean()
        a.stop_clean()
        assert hosted_rows_of(a, uid) == [0, 0, 0, 0]
        for d in (a, b):
            assert " ERROR " not in d.log(), d.log()[-3000:]


def test_a_delete_is_refused_when_another_node_took_a_game_of_it_meanwhile(
        pair_of, clients, bindir):
    """b takes the lease of the account's game in the moment before it
    heard of the delete (made here: b's lease row written while a's
    rows' delete is held): a's delete, checked in its own transaction,
    is refused in words and deletes nothing; with the lease gone again,
    the delete asked again is done."""
    a, b = pair_of(a_extra=["--test-delete-hold", "3000"])
    t = clients(b.port).connected()
    gid, _ = new_game(b, t, "Gil")
    t.play_keys("ll")
    deleted = held_delete(bindir, a, "Gil", 3000)
    a.db_write(("INSERT INTO leases(game, node) VALUES (?, 'b') ON CONFLICT (game) DO UPDATE "
                "SET node = 'b', away = 0", (gid,)))
    code, out, err = deleted()
    assert code != 0 and "another node took a game of Gil meanwhile; nothing deleted" in err, \
        (code, out, err)
    assert rows_of(a, "Gil", gid)[:2] == [1, 1]
    a.db_write(("DELETE FROM leases WHERE game = ?", (gid,)))
    out = admin(bindir, a, "delete", "gil", "--yes")
    assert "deleted Gil" in out, out
    assert rows_of(a, "Gil", gid) == [0, 0, 0, 0]


def test_a_delete_is_refused_when_a_node_running_a_hosted_game_of_it_does_not_answer(
        bindir, clients, tmp_path):
    """A hosted game of the account runs at b, which does not answer
    (paused): a's delete is refused, naming b, and deletes nothing; b,
    going on, keeps the game (a close asked too long ago is not applied);
    asked again, b answering, the game is closed and the delete done."""
    open_to_games(tmp_path)
    toy = toy_copy(bindir, tmp_path)
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game keys]\nname = Key Toy\ncommand = {toy} keys\nhangup-timeout = 1\n")
    with Nodes(bindir, tmp_path) as nodes:
        a, b = (nodes.start(n, "--config", conf) for n in ("a", "b"))
        name = unique_name("hs")
        t = clients(b.port)
        t.register(name)
        t.send("1")
        t.wait_for("keys ready")
        b.proc.send_signal(signal.SIGSTOP)
        try:
            rc, out, err = admin_rc(bindir, a, "delete", name, "--yes")
        finally:
            b.proc.send_signal(signal.SIGCONT)
        assert rc != 0 and (f"node b did not answer the close of the hosted games of {name}; "
                            "nothing deleted") in err, (rc, out, err)
        assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(1,)]
        t.pump(quiet=1.5)
        assert CLOSED not in t.text() and DELETED not in t.text(), t.text()
        t.send("x")
        t.wait_for("got 1: 78")  # the game still takes keys
        out = admin(bindir, a, "delete", name, "--yes")
        assert f"deleted {name}" in out, out
        t.wait_for(DELETED)
        assert CLOSED.encode() in t.raw, t.raw[-800:]
        assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(0,)]


def test_a_delete_refused_over_the_nodes_it_can_ask_says_so(pair, clients, bindir):
    """More live nodes than a delete asks at once to close an account's
    hosted games (here 40 heartbeats written beside b's): the delete is
    refused in words an admin can act on (how many, and to try again
    once fewer run, not a bare "could not be asked"), logged, and deletes
    nothing; with those nodes gone, the delete asked again is done."""
    a, b = pair
    name = unique_name("mn")
    clients(a.port).connected().register(name)
    far = 4102444800000  # 2100: live for the test's length
    a.db_write(*[("INSERT INTO nodes(node, expires) VALUES (?, ?)", (f"x{i}", far))
                 for i in range(40)])
    try:
        rc, out, err = admin_rc(bindir, a, "delete", name, "--yes")
    finally:
        a.db_write(("DELETE FROM nodes WHERE node LIKE ?", ("x%",)))
    assert rc != 0 and (f"the other nodes are too many to ask to close the hosted games of "
                        f"{name}; nothing deleted (over 32 live") in err, (rc, out, err)
    assert "try again once fewer run" in err, err
    assert "not asked (over 32 live nodes" in a.log()
    assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(1,)]
    out = admin(bindir, a, "delete", name, "--yes")
    assert f"deleted {name}" in out, out
    assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(0,)]


def nohup_game(bindir, tmp_path):
    """A config whose one game ignores its hangup: killed only 10 s later."""
    open_to_games(tmp_path)
    toy = toy_copy(bindir, tmp_path)
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game nohup]\nname = No Hangup\ncommand = {toy} nohup\n"
                    "hangup-timeout = 10\n")
    return conf


def test_a_delete_names_the_node_whose_hosted_game_would_not_end_in_time(
        bindir, clients, tmp_path):
    """A hosted game of the account runs at b and ignores its hangup (its
    program killed only 10 s later): b closes it, waits its 5 s and
    answers that it is not done; a, waiting longer than b does, hears
    that answer and refuses in its words (not "did not answer", which
    would send the admin after a node that answered); once the program
    is gone the delete asked again is done."""
    conf = nohup_game(bindir, tmp_path)
    with Nodes(bindir, tmp_path) as nodes:
        a, b = (nodes.start(n, "--config", conf) for n in ("a", "b"))
        name = unique_name("nh")
        t = clients(b.port)
        t.register(name)
        t.send("1")
        t.wait_for("nohup ready")
        (uid,), = a.db_rows("SELECT id FROM users WHERE name = ?", name)
        rc, out, err = admin_rc(bindir, a, "delete", name, "--yes")
        assert rc != 0 and (f"node b could not end in time (a program still exiting, or a last "
                            f"copy not stored) the hosted games of {name}; nothing deleted") \
            in err, (rc, out, err)
        b.wait_log(rf"close of account {uid}'s games asked by node a: not done in time")
        assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(1,)]
        b.wait_log(rf"program exited user={name} game=nohup pid=\d+ status=9", timeout=20)
        out = admin(bindir, a, "delete", name, "--yes")
        assert f"deleted {name}" in out, out
        assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(0,)]


def test_a_delete_says_its_own_nodes_hosted_game_would_not_end_in_time(
        bindir, clients, tmp_path):
    """The same at the deleting node itself: its hosted game ignores its
    hangup, so after 5 s the delete is refused saying the game could not
    end in time (not only that a copy was not stored), and deletes
    nothing; once the program is gone the delete is done."""
    conf = nohup_game(bindir, tmp_path)
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = (nodes.start(n, "--config", conf) for n in ("a", "b"))
        name = unique_name("nh")
        t = clients(a.port)
        t.register(name)
        t.send("1")
        t.wait_for("nohup ready")
        rc, out, err = admin_rc(bindir, a, "delete", name, "--yes")
        assert rc != 0 and ("its hosted games here could not end in time (a program still "
                            "exiting, or a last copy not stored); nothing deleted") in err, \
            (rc, out, err)
        assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(1,)]
        a.wait_log(rf"program exited user={name} game=nohup pid=\d+ status=9", timeout=20)
        out = admin(bindir, a, "delete", name, "--yes")
        assert f"deleted {name}" in out, out
        assert a.db_rows("SELECT count(*) FROM users WHERE name = ?", name) == [(0,)]


def test_two_deletes_of_one_account_at_two_nodes_at_once_end_in_words(
        pair_of, clients, bindir):
    """The same account deleted at a and at b at once (both rows'
    deletes held, so they meet in the database): one is done, the other
    done or refused in words; neither admin sees a raw database error, and
    the account's rows are gone."""
    a, b = pair_of(a_extra=["--test-delete-hold", "1500"],
                   b_extra=["--test-delete-hold", "1500"])
    t = clients(a.port).connected()
    gid, _ = new_game(a, t, "Kit")
    t.play_keys("ll")
    done = {}

    def delete_at(i, d):
        done[i] = admin_rc(bindir, d, "delete", "kit", "--yes")

    runs = [threading.Thread(target=delete_at, args=(i, d)) for i, d in enumerate((a, b))]
    for r in runs:
        r.start()
    for r in runs:
        r.join(60)
    outs = [done[i] for i in range(2)]
    assert any(code == 0 and "deleted Kit" in out for code, out, _ in outs), outs
    for code, out, err in outs:
        assert code == 0 or "deleted" in err or "try again" in err \
            or "no such" in err.lower() or "being deleted" in err, outs
        assert "ERROR" not in err and "deadlock" not in err.lower(), outs
    assert rows_of(a, "Kit", gid) == [0, 0, 0, 0]


def test_a_delete_ended_by_a_deadlock_is_done_by_a_try_again(pair_of, clients, bindir):
    """The delete meets another transaction holding its game's row and
    then asking for its lease's (a deadlock PostgreSQL ends by aborting
    the delete): the writer runs the delete's transaction again once the
    other is gone (db/db_retry.c), so it is done, no database error seen,
    and a's health counts the try."""
    import psycopg2
    a, b = pair_of(a_extra=["--test-delete-hold", "1500"])
    t = clients(a.port).connected()
    gid, _ = new_game(a, t, "Lou")
    t.play_keys("ll")
    con = psycopg2.connect(a.db_url)
    cur = con.cursor()
    cur.execute("SET deadlock_timeout = '20s'")  # the delete's side finds it
    deleted = held_delete(bindir, a, "Lou", 1500)
    a.db_write(("INSERT INTO leases(game, node) VALUES (?, 'c') ON CONFLICT (game) DO NOTHING",
                (gid,)))  # a lease row (no live node's) for the delete to lock first
    cur.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (gid,))
    time.sleep(1.7)  # the hold just over: the delete waits on the game row, its lease locked
    cur.execute("SELECT game FROM leases WHERE game = %s FOR UPDATE", (gid,))
    con.rollback()
    con.close()
    code, out, err = deleted()
    assert code == 0 and "deleted Lou" in out, (code, out, err)
    assert "deadlock" not in (out + err).lower(), (out, err)
    assert rows_of(a, "Lou", gid) == [0, 0, 0, 0]
    assert conflicts(bindir, a)[0] >= 1
