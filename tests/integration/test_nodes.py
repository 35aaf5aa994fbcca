"""Nodes: two warrend daemons on one PostgreSQL schema, each live game run
by the node that holds its lease (WARREN_DB=pg only: on SQLite one machine
runs every game and there are no leases).

- a node killed with SIGKILL: its player, at the other node, is told the
  game runs elsewhere while the dead node's lease lasts, then gets the game
  back there with every key that was answered;
- start order: a node starting beside a running one leaves that node's
  live games to it (its recovery restores none of them), and their players
  play on undisturbed;
- a dead node's games are restored by a running one once their leases
  lapse, before their players come back; a player loading the game while
  that restore runs, or while its session kept here is freed at its grace
  period's end, keeps its lease (no release under the load);
- bans, kicks, locks and mail notices made at one node reach the other,
  and a ban, kick, lock or delete made while a node's listener is down
  holds there too (the event log), a kick applied once; a bare event
  of a node of an older build (no row in the log) is not applied (anyone
  may NOTIFY: only the log's rows are);
- the administrator's end of a game the other node runs is carried out
  there, and says so;
- takeover: a player who logs in at one node while the other runs the game
  gets it there at once: the other is asked (LISTEN/NOTIFY), saves it, lets
  its lease go and tells its player, whose connection it closes;
- moving: a player who leaves a game on one node gets it on the other at
  once (the lease is let go at the detach), plays there, and coming back
  to the first node gets the game as the other left it, not the copy the
  first one kept; a kept game whose journal cannot be read when its player
  comes back (its SELECT revoked) is let go again, its player told, and
  the other node takes it at once, every stored key kept; one whose lease
  cannot be taken again (UPDATE revoked) stays kept, not dropped as stale;
- fencing: a node paused (SIGSTOP) past its lease loses the game to the
  other; resumed (SIGCONT), its rows of that game are refused by the
  database, its player is told and disconnected (one who types nothing
  too, found out by the node's check of its leases), and the journal holds
  exactly the keys the new node answered after the old one's."""
import contextlib
import re
import signal
import socket
import time

import pytest

import harness
from harness import CTRL_X, ON_PG, PW, Daemon, admin, admin_rc, hook, replay, stored_hook
from nodeset import on_database

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")

TTL_MS = 3000  # short leases, so a dead node's games come back within seconds
RENEW_MS = 500


@pytest.fixture
def nodes(bindir, tmp_path):
    """nodes(name, share=None, extra=()) starts a daemon called name, on
    share's schema when given (else a new one), extra flags last; every one
    is stopped cleanly after."""
    made = []

    def start(name, share=None, extra=()):
        d = Daemon(bindir, tmp_path / name,
                   extra=["--node", name, "--lease-ttl-ms", TTL_MS, "--lease-renew-ms", RENEW_MS,
                          *extra])
        if share is not None:  # the same database as share
            on_database(d, share.db_url)
        made.append(d)
        return d.start()
    yield start
    for d in made:
        if d.alive():
            d.proc.send_signal(signal.SIGCONT)  # a paused one must be able to stop
    for d in made:
        if d.alive():  # not one a test killed
            d.stop_clean()


def journal_keys(d, game):
    rows = d.db_rows("SELECT seq, keys FROM journal WHERE game = ? ORDER BY seq", game)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), rows
    return b"".join(bytes(r[1]) for r in rows)


def holder(d, game):
    rows = d.db_rows("SELECT node FROM leases WHERE game = ?", game)
    return rows[0][0] if rows else None


def ban_loopback(bindir, a):
    """Bans 127.0.0.0/8 at node a (nobody there connected from it)."""
    out = admin(bindir, a, "ban", "127.0.0.0/8", "1h")
    assert "banned 127.0.0.0/8 (0 connections closed)" in out, out


def banned_at(b, idle):
    """Node b heard of the ban: its idle connection is closed, told, and
    its door refuses the address."""
    idle.wait_for("Connections from your address are refused.", timeout=5)
    idle.wait_exit(timeout=5)
    b.wait_log(r"bans read again after another node's change: 1")
    assert b"Connections from your address are refused." in door_says(b)


def play_on(d, t, name, deadline_s=30):
    """Presses p on d until the game is there (its lease free): the 'told'
    lines seen meanwhile. Each press is answered (the game, or where it
    runs once d gave up asking for it) before the next: a p typed while d
    asks would reach the game as a key."""
    told = []
    end = time.time() + deadline_s
    while time.time() < end:
        t.send("p")
        m = d.wait_log(rf"(attach|game elsewhere) user={name} ")
        if m.group(1) == "attach":
            return told
        t.wait_for("running on another server")
        told.append(t.text())
        time.sleep(0.3)
    raise AssertionError(f"no game on {d.argv}:\n{t.text()}\n{d.log()[-2000:]}")


def playing(d, clients, name, keys=""):
    """name registered at node d, in a new game, keys sent: its telnet and
    its game's stored state after them."""
    t = clients(d.port).connected()
    t.register(name)
    t.random_character(name)
    if keys:
        t.send(keys)
    return t, stored_hook(d, t, name)


def plays_on_as(d, t, name, was):
    """name's game attached at d is the game as was (its hook: hash and
    seq), and a key more is stored."""
    d.wait_log(rf"attach user={name} ")
    t.pump()
    got = hook(d, t, name)
    assert (got["hash"], got["seq"]) == (was["hash"], was["seq"])
    t.send("h")
    assert stored_hook(d, t, name)["seq"] == was["seq"] + 1


def test_killed_node_game_resumes_on_the_other(nodes, clients, bindir, tmp_path):
    a = nodes("a")
    b = nodes("b", share=a)
    t = clients(a.port).connected()
    t.register("alice")
    t.random_character("alice")
    for key in "hjklyubn" * 3:
        t.send(key)
    before = stored_hook(a, t, "alice")
    assert holder(a, before["game"]) == "a"

    a.kill(signal.SIGKILL)
    t2 = clients(b.port).connected()
    t2.login("alice", PW)
    told = play_on(b, t2, "alice")
    # while a's lease lasted, b said where the game runs
    assert told and "Your game is running on another server (a)" in told[0], told
    assert holder(b, before["game"]) == "b"
    t2.pump()
    after = hook(b, t2, "alice")
    assert (after["hash"], after["seq"]) == (before["hash"], before["seq"])
    lines, h = replay(bindir, tmp_path, before["seed"], "alice",
                      journal_keys(b, before["game"]))
    assert h == after["hash"]
    # b goes on with it
    t2.send("l")
    assert stored_hook(b, t2, "alice")["seq"] == before["seq"] + 1


def test_a_starting_node_leaves_live_games_to_their_node(nodes, clients, bindir):
    a = nodes("a")
    t, first = playing(a, clients, "bob", "hjkl")
    b = nodes("b", share=a)
    # b lists the game and leaves it to a: nothing of it restored or written
    b.wait_log(rf"recovery: game={first['game']} runs on node a: left to it")
    b.wait_log(r"recovery done: 0 games resumed, 0 broken")
    assert holder(b, first["game"]) == "a"
    # each node's admin names it, and the games and leases it holds
    games = admin(bindir, a, "games")
    assert re.search(r"^bob\s+warren\s+%d\s" % first["game"], games, re.M), games
    assert games.endswith("node: a\n"), games
    # b lists it too, as a's (its count and watch list show every node's games);
    # its size is "-" until a's heartbeat says the game's, then 80x24
    end = time.time() + 10
    row = re.compile(r"^bob\s+warren\s+%d\s.*\sa\s+(-|80x24)$" % first["game"], re.M)
    while not row.search(games_b := admin(bindir, b, "games")):
        assert time.time() < end, games_b
        time.sleep(0.3)
    time.sleep(RENEW_MS * 3 / 1000)  # a heartbeat of each
    assert re.search(r"^node: a, 1 game leases, renewed every 500 ms, lasting 3000 ms$",
                     admin(bindir, a, "health"), re.M)
    assert re.search(r"^node: b, 0 game leases", admin(bindir, b, "health"), re.M)
    # a's player plays on, every key stored there
    t.send("yubn")
    now = stored_hook(a, t, "bob")
    assert now["seq"] == first["seq"] + 4
    assert "lease lost" not in a.log()
    # a clean stop of a lets its games go at once: b has them with no wait
    a.stop_clean()
    assert holder(b, first["game"]) is None
    t2 = clients(b.port).connected()
    t2.login("bob", PW)
    t2.send("p")
    b.wait_log(r"attach user=bob ")
    assert "running on another server" not in t2.text()
    assert hook(b, t2, "bob")["hash"] == now["hash"]


def test_a_paused_node_is_fenced_off_its_game(nodes, clients, bindir, tmp_path):
    a = nodes("a")
    b = nodes("b", share=a)
    t, before = playing(a, clients, "carol", "hjkl")
    game = before["game"]
    idle = clients(a.port).connected()  # a second player, who types nothing at a
    idle.register("frank")
    idle.random_character("frank")
    frank = stored_hook(a, idle, "frank")["game"]

    a.proc.send_signal(signal.SIGSTOP)
    t2 = clients(b.port).connected()
    t2.login("carol", PW)
    play_on(b, t2, "carol")  # once a's lease ran out
    assert holder(b, game) == "b"
    t2.pump()
    assert hook(b, t2, "carol")["hash"] == before["hash"]
    t2.send("yubn")
    on_b = stored_hook(b, t2, "carol")
    assert on_b["seq"] == before["seq"] + 4
    f2 = clients(b.port).connected()
    f2.login("frank", PW)
    play_on(b, f2, "frank")

    a.proc.send_signal(signal.SIGCONT)
    t.send("h")  # a's key: refused by the database, or never applied (a found out first)
    m = a.wait_log(rf"lease lost user=carol game={game} seq=(\d+) "
                   rf"\((a journal row refused|its lease is no longer this node's)\)")
    assert int(m.group(1)) in (before["seq"], before["seq"] + 1)
    t.wait_for("This game is now run by another server")
    t.wait_exit()
    # the idle one is found out by a's check of its leases, not by a key
    idle.wait_for("This game is now run by another server")
    assert re.search(rf"lease lost user=frank game={frank} seq=\d+ \(its lease is no longer this "
                     rf"node's\)", a.log())
    # the journal is b's: every row after the takeover is one b answered
    keys = journal_keys(b, game)
    assert len(keys) == on_b["seq"]
    lines, h = replay(bindir, tmp_path, before["seed"], "carol", keys)
    assert h == on_b["hash"]
    assert holder(b, game) == "b" and holder(b, frank) == "b"
    # b's players are not disturbed
    t2.send("h")
    assert stored_hook(b, t2, "carol")["seq"] == on_b["seq"] + 1
    f2.send("h")
    stored_hook(b, f2, "frank")


def test_a_player_moves_between_nodes(nodes, clients):
    a = nodes("a")
    b = nodes("b", share=a)
    t, on_a = playing(a, clients, "dave", "hjkl")
    t.send(CTRL_X)
    t.wait_for("Your game is saved")
    # at b at once: no wait for a's grace period
    t2 = clients(b.port).connected()
    t2.login("dave", PW)
    t2.send("p")
    b.wait_log(r"attach user=dave ")
    assert "running on another server" not in t2.text()
    t2.pump()
    assert hook(b, t2, "dave")["hash"] == on_a["hash"]
    t2.send("yubn")
    on_b = stored_hook(b, t2, "dave")
    t2.send(CTRL_X)
    t2.wait_for("Your game is saved")
    # back at a, whose copy is four keys behind: the game as b left it
    t.send("p")
    a.wait_log(rf"game played elsewhere user=dave game={on_a['game']}: 4 rows after seq "
               rf"{on_a['seq']}")
    plays_on_as(a, t, "dave", on_b)
    assert "lease lost" not in a.log() + b.log()
    # and a game kept at a that nobody played elsewhere is taken up as it is
    t.send(CTRL_X)
    t.wait_for("Your game is saved")
    pos = len(a.log())
    t.send("p")
    a.wait_log(r"attach user=dave ")
    assert "game played elsewhere" not in a.log()[pos:]


def test_a_player_logging_in_elsewhere_takes_the_game_over(nodes, clients):
    """Takeover: the same account plays at a, then logs in at b: b asks a
    (LISTEN/NOTIFY), a saves the game, lets its lease go and sends its
    player off, and b shows the game at once, as a left it."""
    a = nodes("a")
    b = nodes("b", share=a)
    t, on_a = playing(a, clients, "erin", "hjklyubn")
    assert holder(a, on_a["game"]) == "a"

    t2 = clients(b.port).connected()
    t2.login("erin", PW)
    t2.send("p")  # answered with the game: b asks a, which gives it up
    b.wait_log(rf"game taken over user=erin game={on_a['game']}: lease ours \d+ ms after asking")
    b.wait_log(r"attach user=erin ")
    assert "running on another server" not in t2.text()
    a.wait_log(rf"game wanted by another node user=erin game={on_a['game']}")
    t.wait_for("Your game moved to another connection")
    t.wait_exit()
    assert holder(b, on_a["game"]) == "b"
    t2.pump()
    on_b = hook(b, t2, "erin")
    assert (on_b["hash"], on_b["seq"]) == (on_a["hash"], on_a["seq"])
    t2.send("h")
    assert stored_hook(b, t2, "erin")["seq"] == on_a["seq"] + 1
    assert "lease lost" not in a.log() + b.log()


def door_says(d):
    """What d's telnet door says first to a new connection."""
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    got = b""
    try:
        while b"refused" not in got and len(got) < 4096:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    finally:
        s.close()
    return got


def test_a_ban_or_kick_at_one_node_holds_at_the_other(nodes, clients, bindir):
    """A kick at a closes the account's connection at b; a ban stored at a
    closes b's connections from the address and b's door refuses it; an
    unban at a opens b's door again. Each within a second or two: b is
    told (NOTIFY), reads the stored bans and sweeps its connections."""
    a = nodes("a")
    b = nodes("b", share=a)
    t, before = playing(b, clients, "kim")
    assert "closed 0 connections of kim" in admin(bindir, a, "kick", "kim")
    t.wait_for("You were disconnected by the administrator.", timeout=5)
    t.wait_exit(timeout=5)
    b.wait_log(r"closed conn=\d+ user=kim \(kicked at another node\)")
    b.wait_log(r"detach user=kim ")  # the game kept, its lease let go (kept, marked away)
    end = time.time() + 5
    while (row := b.db_rows("SELECT node, away FROM leases WHERE game = ?", before["game"])) != [
            ("b", 1)]:
        assert time.time() < end, row
        time.sleep(0.1)

    idle = clients(b.port).connected()
    idle.register("lou")
    ban_loopback(bindir, a)
    banned_at(b, idle)
    assert "lifted the ban" in admin(bindir, a, "unban", "127.0.0.0/8")
    b.wait_log(r"bans read again after another node's change: 0")
    clients(b.port).connected().login("lou", PW)


def test_mail_left_at_one_node_shows_at_the_other(nodes, clients):
    a = nodes("a")
    b = nodes("b", share=a)
    walt = clients(b.port).connected()
    walt.register("walt")  # waits at b's menu
    vera = clients(a.port).connected()
    vera.register("vera")
    vera.menu("m", ("To:", "walt"), ("Message:", "meet me at depth 5"))
    vera.wait_for("Message left for walt.")
    screen = walt.wait_for("Mail from vera, ", timeout=5)
    assert "meet me at depth 5" in screen


def test_a_dead_nodes_games_are_restored_before_their_players_return(nodes, clients):
    """a is killed with a game live; once its lease lapses b restores the
    game in the background (a fresh snapshot at the last stored key) and
    lets the lease go, with no player asking: its player, coming back
    later, gets it at once, at any node."""
    a = nodes("a")
    b = nodes("b", share=a)
    t, before = playing(a, clients, "nell", "hjklyubnhjkl")
    game = before["game"]
    a.kill(signal.SIGKILL)
    b.wait_log(r"lapsed leases: 1 games of a stopped node restored here, 0 broken", timeout=15)
    end = time.time() + 10  # the let-go is queued with the restore's snapshot, logged before
    while holder(b, game) is not None and time.time() < end:
        time.sleep(0.05)
    assert holder(b, game) is None
    snaps = b.db_rows("SELECT seq FROM snapshots WHERE game = ?", game)
    assert [r[0] for r in snaps] == [before["seq"]], snaps
    t2 = clients(b.port).connected()
    t2.login("nell", PW)
    t2.send("p")
    b.wait_log(r"attach user=nell ")
    assert "running on another server" not in t2.text()
    t2.pump()
    assert hook(b, t2, "nell")["hash"] == before["hash"]


def test_events_are_heard_again_after_the_listener_is_cut(nodes, clients, bindir):
    """The listener's connection dropped (a restart, a failover: here the
    server ends it) is made again within seconds, and events are heard
    again: a kick at a reaches b's player."""
    a = nodes("a")
    b = nodes("b", share=a)
    t = clients(b.port).connected()
    t.register("olga")
    cut = b.db_rows("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM "
                    "pg_stat_activity WHERE application_name = 'warrend listener') x")
    assert cut[0][0] == 2, cut  # a's and b's
    b.wait_log(r"node events: connection for other nodes' events lost")
    b.wait_log(r"node events: listening again", timeout=10)
    a.wait_log(r"node events: listening again", timeout=10)
    assert "closed 0 connections of olga" in admin(bindir, a, "kick", "olga")
    t.wait_for("You were disconnected by the administrator.", timeout=5)
    t.wait_exit(timeout=5)


def test_an_account_deleted_at_one_node_is_sent_off_the_other(nodes, clients, bindir):
    a = nodes("a")
    b = nodes("b", share=a)
    t = clients(b.port).connected()
    t.register("pia")
    out = admin(bindir, a, "delete", "pia", "--yes")
    assert "deleted pia" in out, out
    t.wait_for("This account has been deleted.", timeout=5)
    t.wait_exit(timeout=5)
    b.wait_log(r"closed conn=\d+ user=pia \(deleted at another node\)")


def test_an_admin_end_at_one_node_ends_the_game_at_the_other(nodes, clients, bindir):
    """warren-admin end at a, of a game b runs: b ends it as abandoned (its
    player told), and a's answer names b; then, and for an account with
    no live game, the answer is that there is none."""
    a = nodes("a")
    b = nodes("b", share=a)
    t, before = playing(b, clients, "quin", "hjkl")
    game = before["game"]
    out = admin(bindir, a, "end", "quin")
    assert f"ended game {game} of quin on node b as abandoned" in out, out
    t.wait_for("The game was ended by the administrator.", timeout=5)
    b.wait_log(rf"end of game={game} asked by node a: ended")
    assert a.db_rows("SELECT state FROM games WHERE id = ?", game) == [("broken",)]
    assert holder(a, game) is None
    rc, out, err = admin_rc(bindir, a, "end", "quin")
    assert rc != 0 and "no live game" in err, (rc, out, err)
    rc, out, err = admin_rc(bindir, a, "end", "nobody")
    assert rc != 0 and "no such account" in err, (rc, out, err)
    # a node that does not answer (paused) is named, and the game with it
    t2, other = playing(b, clients, "rolf")
    b.proc.send_signal(signal.SIGSTOP)
    try:
        rc, out, err = admin_rc(bindir, a, "end", "rolf")
    finally:
        b.proc.send_signal(signal.SIGCONT)
    assert rc != 0 and f"node b did not answer; game {other['game']} may still run there" in err, \
        (rc, out, err)


LISTENING = r"node events: listening again(?! in)"


@contextlib.contextmanager
def listeners_down(b):
    """Every node's listener cut, and kept from connecting again (the
    database takes no new connections) for the block; b has noticed."""
    cluster = harness._PG["cluster"]
    cluster.psql("ALTER DATABASE warren ALLOW_CONNECTIONS false")
    try:
        cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE application_name = 'warrend listener'")
        b.wait_log(r"node events: connection for other nodes' events lost")
        pos = len(b.log())
        yield
        time.sleep(2.5)  # b tried to listen again, and could not
        assert not re.search(LISTENING, b.log()[pos:]), b.log()[pos:]
    finally:
        cluster.psql("ALTER DATABASE warren ALLOW_CONNECTIONS true")
    b.wait_log(LISTENING, timeout=10)


def test_a_ban_made_while_a_listener_is_down_holds_once_it_is_back(nodes, clients, bindir):
    """b's listener is cut and cannot connect again for a while; a ban
    made at a meanwhile is heard by nobody at b. Once b listens again it
    reads the bans anew: its connection from the address is closed and
    its door refuses it."""
    a = nodes("a")
    b = nodes("b", share=a)
    idle = clients(b.port).connected()
    idle.register("rita")
    with listeners_down(b):
        ban_loopback(bindir, a)
    banned_at(b, idle)


def test_an_account_locked_or_deleted_unheard_is_sent_off_once_heard(nodes, clients, bindir):
    """A lock at a reaches b's connection of the account, told it was
    locked; one locked, and one deleted, while b's listener is down are
    sent off there too (the event log), each told which; and an account
    locked with no event at all (a gap longer than the log keeps) is sent
    off once b listens again, told it is locked: b reads the accounts of
    its connections again, in one query."""
    a = nodes("a")
    b = nodes("b", share=a)
    t = clients(b.port).connected()
    t.register("sam")
    assert "sam locked" in admin(bindir, a, "lock", "sam")
    t.wait_for("This account has been locked.", timeout=5)
    t.wait_exit(timeout=5)
    locked, deleted, kept = (clients(b.port).connected() for _ in range(3))
    locked.register("tom")
    deleted.register("uma")
    kept.register("val")
    with listeners_down(b):
        assert "tom locked" in admin(bindir, a, "lock", "tom")
        assert "deleted uma" in admin(bindir, a, "delete", "uma", "--yes")
    for gone, words in ((locked, "locked"), (deleted, "deleted")):
        gone.wait_for(f"This account has been {words}.", timeout=5)
        gone.wait_exit(timeout=5)
        assert "disconnected by the administrator" not in gone.text()
    for name, why in (("tom", "locked"), ("uma", "deleted")):
        assert re.search(rf"closed conn=\d+ user={name} \({why} at another node\)",
                         b.log()), b.log()[-2000:]
    kept.pump(quiet=0.5)
    assert not kept.eof and "disconnected" not in kept.text()
    quiet = clients(b.port).connected()
    quiet.register("wyn")
    a.db_write(("UPDATE users SET locked = 1 WHERE name = 'wyn'", ()))
    with listeners_down(b):
        pass
    quiet.wait_for("This account has been locked.", timeout=5)
    assert re.search(r"closed conn=\d+ user=wyn \(account locked at another node\)",
                     b.log()), b.log()[-2000:]
    kept.pump(quiet=0.5)
    assert not kept.eof and "disconnected" not in kept.text()


def test_a_kick_made_while_a_listener_is_down_reaches_it_once(nodes, clients, bindir):
    """A kick leaves no row of its own but the event's, in node_events: b,
    its listener down, reads it there (within seconds, and at once when
    listening again) and sends the account off; the account, back at b
    meanwhile, is not sent off again when the notifications and the log
    both bring the kick once b listens again."""
    a = nodes("a")
    b = nodes("b", share=a)
    t = clients(b.port).connected()
    t.register("wes")
    with listeners_down(b):
        assert "closed 0 connections of wes" in admin(bindir, a, "kick", "wes")
        t.wait_for("You were disconnected by the administrator.", timeout=8)
        t.wait_exit(timeout=5)
        again = clients(b.port).connected()
        again.login("wes", PW)
    time.sleep(5)  # the log read at once, and twice more
    again.pump(quiet=0.5)
    assert not again.eof and "disconnected" not in again.text(), again.text()
    kicked = re.findall(r"closed conn=\d+ user=wes \(kicked at another node\)", b.log())
    assert len(kicked) == 1, b.log()[-3000:]
    assert a.db_rows("SELECT count(*) FROM node_events WHERE payload LIKE 'kick %'") == [(1,)]


def test_a_bare_event_of_an_older_build_is_not_applied(nodes, clients):
    """A node of a build before the event log sends its events bare ("kick
    * NODE ID 0"), with no row in node_events. Anyone who can connect to
    the database can send the same, so a node of this build applies only
    the log's rows: kim stays connected, and the log says the event was
    not understood."""
    b = nodes("b")
    t = clients(b.port).connected()
    t.register("kim")
    uid = b.db_rows("SELECT id FROM users WHERE name = 'kim'")[0][0]
    time.sleep(1.5)  # the listener up
    b.db_write(("SELECT pg_notify('warren', ?)", (f"kick * old-node {uid} 0",)))
    b.wait_log(rf"node event not understood: kick \* old-node {uid} 0$")
    time.sleep(2.5)  # a read of the log on the timer too
    t.pump(quiet=0.5)
    assert not t.eof and "disconnected by the administrator" not in t.text(), t.text()
    assert not re.search(r"user=kim \(kicked at another node\)", b.log())
    assert b.db_rows("SELECT count(*) FROM node_events") == [(0,)]


def test_stopped_nodes_rows_go_once_they_hold_nothing(nodes):
    """A node's start prunes the heartbeat rows of nodes that lapsed long
    ago and hold no lease; the row of a long-lapsed node still holding a
    lease, of one that lapsed a moment ago, and the live nodes' stay."""
    a = nodes("a")
    now = "CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)"
    harness.pg_run(a.db_url, [
        ("INSERT INTO users(name, name_key, pwhash, created) VALUES ('old1', 'old1', 'x', 0)", ()),
        ("INSERT INTO games(id, user, seed, content_version, start_time, state) "
         "SELECT 900000001, id, 1, 'x', 0, 'finished' FROM users WHERE name = 'old1'", ()),
        ("INSERT INTO nodes(node, expires) VALUES ('gone', 0), ('holding', 0), "
         f"('recent', {now} - 60000)", ()),
        ("INSERT INTO leases(game, node) VALUES (900000001, 'holding')", ()),
    ], fetch=False)
    b = nodes("b", share=a)
    # a's own pruning at its start may still be queued behind its start and
    # run after the rows above: either node's prune counts, once
    line = r"nodes pruned: 1 stopped a day ago or more, holding no lease"
    deadline = time.monotonic() + 10
    while not (re.search(line, a.log()) or re.search(line, b.log())):
        assert time.monotonic() < deadline, b.log()[-3000:]
        time.sleep(0.05)
    # b's own row comes with its first renewal, maybe after a's prune
    while (left := sorted(r[0] for r in b.db_rows("SELECT node FROM nodes"))) != [
            "a", "b", "holding", "recent"]:
        assert time.monotonic() < deadline and "gone" not in left, left
        time.sleep(0.05)



def lease_waits(d):
    """Waits until a statement of d on the leases waits for a lock."""
    end = time.time() + 10
    while not d.db_rows("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND query LIKE '%leases%'"):
        assert time.time() < end, "no take of the lease waits"
        time.sleep(0.05)


def test_a_game_restored_in_the_background_while_its_player_loads_it(nodes, clients):
    """a restarts while its game's lease is held by a stand-in node z,
    which then stops renewing: a restores the game in the background (as
    at recovery), its take of the lease waiting on the row locked here;
    two logins of the player press p meanwhile, the first leaves, the lock
    goes. The second plays the game: no journal row of it refused, the
    lease a's, every stored key kept, and a new key stored."""
    import psycopg2
    from harness import pg_sql
    a = nodes("a")
    t, before = playing(a, clients, "tina", "hjklyubn")
    game = before["game"]
    t.send(CTRL_X)  # saved: its newest snapshot holds every key
    t.wait_for("Your game is saved")
    end = time.time() + 10
    while a.db_rows("SELECT max(seq) FROM snapshots WHERE game = ?", game) != [(before["seq"],)]:
        assert time.time() < end, "no snapshot of the saved game"
        time.sleep(0.05)
    a.kill(signal.SIGKILL)
    t.close()
    z_alive = int(time.time() * 1000) + 3600_000
    a.db_write(("INSERT INTO nodes(node, expires) VALUES ('z', ?)", (z_alive,)),
               ("UPDATE leases SET node = 'z', away = 0 WHERE game = ?", (game,)))
    a.start()
    a.wait_log(rf"recovery: game={game} runs on node z: left to it")
    first = clients(a.port).connected()
    first.login("tina", PW)
    second = clients(a.port).connected()
    second.login("tina", PW)
    lock = psycopg2.connect(a.db_url)
    try:
        lock.cursor().execute(pg_sql("SELECT game FROM leases WHERE game = ? FOR UPDATE"), (game,))
        a.db_write(("UPDATE nodes SET expires = 0 WHERE node = 'z'", ()))  # z stopped
        lease_waits(a)  # a's background restore takes the lease
        first.send("p", settle=False)
        second.send("p", settle=False)
        time.sleep(0.3)  # their takes queued after it
        first.close()
        a.wait_log(r"disconnect conn=\d+ ip=\S+ user=tina ")
    finally:
        lock.commit()
        lock.close()
    plays_on_as(a, second, "tina", before)
    assert "lease lost" not in a.log()
    assert holder(a, game) == "a"


def test_a_game_freed_at_its_grace_end_while_its_player_loads_it(nodes, clients):
    """tina leaves her game at a (kept detached, its lease let go) and, at
    another connection, presses p: the load takes the lease back, its take
    waiting on the row locked here until the game's grace period is over
    and its session freed. The freed session leaves the lease to the load:
    the game is resumed under a's lease, every stored key kept, a new key
    stored, no row refused. The grace (3 s) outlasts the steps up to the
    load's wait (about 0.5 s, 0.7 s on a busy machine): the lease seen let
    go, the row locked, p pressed."""
    import psycopg2
    from harness import pg_sql
    a = nodes("a", extra=["--grace", "3", "--lease-ttl-ms", "10000",  # no lapse while locked
                          "--db-lock-wait-ms", "2000"])  # the take outwaits the grace
    t, before = playing(a, clients, "tina", "hjklyubn")
    game = before["game"]
    again = clients(a.port).connected()
    again.login("tina", PW)
    t.send(CTRL_X)  # saved and left: the session kept, its lease let go
    t.wait_for("Your game is saved")
    until_let_go(a, game, "the lease not let go")
    lock = psycopg2.connect(a.db_url)
    try:
        lock.cursor().execute(pg_sql("SELECT game FROM leases WHERE game = ? FOR UPDATE"), (game,))
        pos = len(a.log())
        again.send("p", settle=False)
        lease_waits(a)  # the load's take of the lease
        assert "grace over user=tina" not in a.log()  # it comes while the take waits
        a.wait_log(rf"grace over user=tina game={game}")
        assert "attach user=tina" not in a.log()[pos:]
    finally:
        lock.commit()
        lock.close()
    plays_on_as(a, again, "tina", before)
    assert "lease lost" not in a.log()
    assert a.db_rows("SELECT node, away FROM leases WHERE game = ?", game) == [("a", 0)]


class RoleSchema:
    """A new schema owned by a role of its own, not a superuser (whose
    rights a REVOKE cannot take): db_url connects as that role. Given as
    a node's share, the node runs on it."""

    def __init__(self):
        url = harness.pg_database()
        cluster = harness._PG["cluster"]
        self.schema = re.search(r"search_path%3D(\w+)", url).group(1)
        self.role = f"r_{self.schema}"
        cluster.psql(f"CREATE ROLE {self.role} LOGIN", db="warren")
        cluster.psql(f"ALTER SCHEMA {self.schema} OWNER TO {self.role}", db="warren")
        self.db_url = url.replace(f"user={cluster.role}", f"user={self.role}")
        self.cluster = cluster

    def sql(self, sql):
        self.cluster.psql(sql, db="warren")


def until_let_go(a, game, why):
    """Waits (10 s at most) for a's lease of game to be let go (kept, away)."""
    end = time.time() + 10
    while a.db_rows("SELECT node, away FROM leases WHERE game = ?", game) != [("a", 1)]:
        assert time.time() < end, why
        time.sleep(0.05)


def test_a_kept_game_whose_journal_read_fails_is_let_go_again(nodes, clients):
    """tina leaves her game at a (kept, its lease let go) and presses p
    there while a cannot read the journal (its role's SELECT on it
    revoked): a takes the lease back for the read, the read fails, she is
    told to try again, and the lease is let go again, not held by the
    failed load. Once a may read again, b takes the game at once and it
    goes on from its last stored key; a stays up throughout."""
    rs = RoleSchema()
    a = nodes("a", share=rs)
    b = nodes("b", share=rs)
    t, before = playing(a, clients, "tina", "hjklyubn")
    game = before["game"]
    t.send(CTRL_X)  # saved and left: the session kept, its lease let go
    t.wait_for("Your game is saved")
    until_let_go(a, game, "the lease not let go")
    rs.sql(f"REVOKE SELECT ON {rs.schema}.journal FROM {rs.role}")
    try:
        t.send("p")
        a.wait_log(rf"journal read failed user=tina game={game}: ")
        t.wait_for("Your game could not be loaded. Please try again.")
        until_let_go(a, game, "the lease held by a failed load")
    finally:
        rs.sql(f"GRANT SELECT ON {rs.schema}.journal TO {rs.role}")
    assert "attach user=tina" not in a.log()[a.logpos:]
    t2 = clients(b.port).connected()
    t2.login("tina", PW)
    t2.send("p")
    plays_on_as(b, t2, "tina", before)
    assert "game elsewhere user=tina" not in b.log()
    assert "lease lost" not in a.log() + b.log()
    assert a.alive()


def test_a_kept_game_whose_lease_cannot_be_taken_again_stays_kept(nodes, clients):
    """tina leaves her game at a (kept, its lease let go) and presses p
    there while a cannot take the lease (its role's UPDATE on leases
    revoked): she is told to try again, and the game kept at a is kept,
    not dropped as if another node ran it. Once a may take leases again,
    her p gets that kept game (no restore from the database), as it was."""
    rs = RoleSchema()
    a = nodes("a", share=rs)
    t, before = playing(a, clients, "tina", "hjklyubn")
    game = before["game"]
    t.send(CTRL_X)
    t.wait_for("Your game is saved")
    until_let_go(a, game, "the lease not let go")
    rs.sql(f"REVOKE UPDATE ON {rs.schema}.leases FROM {rs.role}")
    try:
        t.send("p")
        a.wait_log(rf"lease of game={game} not taken: ")
        t.wait_for("Your game could not be loaded. Please try again.")
    finally:
        rs.sql(f"GRANT UPDATE ON {rs.schema}.leases TO {rs.role}")
    assert a.db_rows("SELECT node, away FROM leases WHERE game = ?", game) == [("a", 1)]
    pos = len(a.log())
    t.send("p")
    plays_on_as(a, t, "tina", before)
    assert "game resume user=tina" not in a.log()[pos:]
    assert f"game kept user=tina game={game}: its lease not taken again" in a.log()
    assert "lease lost" not in a.log()
