"""Events between nodes when the database fails them (WARREN_DB=pg only):

- an event whose row the sending node cannot write (its role refused
  INSERT on node_events) is kept in the node's outbox, said in its log,
  and written once the database takes it again: the other node applies
  it then, once;
- a database whose event numbering went back (as a backup restored
  would have it: the log's newest rows gone, its ids given again) still
  brings new events to the running nodes: an id given again is another
  event, applied, and said once in the log;
- an event whose commit reached the database but whose answer did not
  (the connection cut between them, by a proxy in the test that reads
  PostgreSQL's messages) is written again under its key and applied by
  the other node once: a chat line shown once to its watchers there;
- an event kept past its kind's age limit while its writes fail (a chat
  line, 15 s) is dropped, said in the log, and never shown; one said
  after it is."""
import contextlib
import os
import re
import socket
import threading
import time
import types

import pytest

import harness
from harness import ON_PG, PW, admin
from nodeset import Nodes
from test_nodes import nodes, playing  # noqa: F401 (nodes: a fixture)
from test_watch_nodes import chats, watched_across

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")

KICKED = "You were disconnected by the administrator."
ROLE = "warren_node"


def own_role_schema():
    """A new schema owned by a role that is no superuser (whose rights a
    REVOKE takes away); the URL warrend takes for it, as that role."""
    harness.pg_database()  # the run's cluster started
    cluster = harness._PG["cluster"]
    cluster.psql(f"DO $$BEGIN CREATE ROLE {ROLE} LOGIN; "
                 "EXCEPTION WHEN duplicate_object THEN NULL; END$$", db="warren")
    schema = f"ev{os.getpid()}_{int(time.time() * 1000) % 10**9}"
    cluster.psql(f"CREATE SCHEMA {schema} AUTHORIZATION {ROLE}", db="warren")
    url = cluster.url("warren").replace(f"user={cluster.role}", f"user={ROLE}")
    return cluster, schema, url + f"&options=-csearch_path%3D{schema}"


def kicked_at(d, name):
    return re.findall(rf"closed conn=\d+ user={name} \(kicked at another node\)", d.log())


def still_on(t):
    t.pump(quiet=0.5)
    assert not t.eof and KICKED not in t.text(), t.text()


def test_a_kick_not_written_is_kept_and_reaches_the_other_node_once(nodes, clients, bindir):
    """kim plays at b; a's role may not write node_events: a kick at a
    closes nothing at b (for seconds: b reads the log twice meanwhile)
    and a's log says it kept the event. INSERT granted again, a writes it
    within a second or two: b sends kim off, once, and the log holds the
    kick once."""
    cluster, schema, url = own_role_schema()
    a = nodes("a", share=types.SimpleNamespace(db_url=url))
    b = nodes("b", share=a)
    t, _ = playing(b, clients, "kim")
    cluster.psql(f"REVOKE INSERT ON {schema}.node_events FROM {ROLE}", db="warren")
    try:
        assert "closed 0 connections of kim" in admin(bindir, a, "kick", "kim")
        a.wait_log(r"node events: kick not written \([^)]*permission denied[^)]*\): kept, 1 in all")
        time.sleep(4.5)
        still_on(t)
        assert not kicked_at(b, "kim")
    finally:
        cluster.psql(f"GRANT INSERT ON {schema}.node_events TO {ROLE}", db="warren")
    t.wait_for(KICKED, timeout=5)
    t.wait_exit(timeout=5)
    a.wait_log(r"node events: written again; the 0 kept after it sent now")
    again = clients(b.port).connected()
    again.login("kim", PW)
    time.sleep(4.5)  # b hears and reads the log again: the kick is not applied twice
    still_on(again)
    assert len(kicked_at(b, "kim")) == 1, b.log()[-3000:]
    assert a.db_rows("SELECT count(*) FROM node_events WHERE payload LIKE 'kick %'") == [(1,)]


def test_events_after_the_numbering_went_back_are_applied(nodes, clients, bindir):
    """Kicks at a reach kim at b, each with an id of the log; then the
    rows from the first kick on are deleted and the ids given again from
    it, as a backup taken before the kicks and restored would have them.
    A kick at a after that, numbered with an id b applied already, still
    sends kim off at b, once, and b's log says the numbering went back."""
    a = nodes("a")
    b = nodes("b", share=a)
    t = clients(b.port).connected()
    t.register("kim")
    for i in range(3):
        if i:
            t = clients(b.port).connected()
            t.login("kim", PW)
        assert "closed 0 connections of kim" in admin(bindir, a, "kick", "kim")
        t.wait_for(KICKED, timeout=5)
        t.wait_exit(timeout=5)
    assert len(kicked_at(b, "kim")) == 3
    first = a.db_rows("SELECT min(id) FROM node_events WHERE payload LIKE 'kick %'")[0][0]
    a.db_write(("DELETE FROM node_events WHERE id >= ?", (first,)),
               (f"ALTER TABLE node_events ALTER COLUMN id RESTART WITH {first}", ()))
    t = clients(b.port).connected()
    t.login("kim", PW)
    assert "closed 0 connections of kim" in admin(bindir, a, "kick", "kim")
    t.wait_for(KICKED, timeout=5)
    t.wait_exit(timeout=5)
    assert a.db_rows("SELECT id FROM node_events WHERE payload LIKE 'kick %'") == [(first,)]
    b.wait_log(r"node events: id \d+ after \d+: the database's numbering went back")
    again = clients(b.port).connected()
    again.login("kim", PW)
    time.sleep(4.5)
    still_on(again)
    assert len(kicked_at(b, "kim")) == 4, b.log()[-3000:]
    assert len(re.findall("numbering went back", b.log())) == 1, b.log()[-3000:]


# ---- a commit whose answer is lost; an event kept too long -------------------------------

CTRL_E = "\x05"


def closed(*socks):
    """Each socket shut both ways (the other thread's recv returns) and closed."""
    for s in socks:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()


class CommitCutProxy:
    """A TCP proxy on 127.0.0.1 to the cluster's Unix socket. Once armed
    with a marker, the first connection whose client sends the marker (a
    statement's parameters) has its server's answers read message by
    message (PostgreSQL's: a type byte, a length); the answer to the
    COMMIT after the marker (CommandComplete "COMMIT": the transaction is
    committed) is not passed on: both sides are closed there, so the
    client never learns that it committed. Every other connection, and
    every one after the cut, is passed through as it is."""

    def __init__(self, sockdir):
        self.upstream = os.path.join(str(sockdir), ".s.PGSQL.5432")
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.marker = None
        self.cut = threading.Event()
        self.open = []
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, direct):
        """direct's URL (a Unix socket's host) through the proxy: TCP, and
        no SSL or GSS request, so every answer is a typed message."""
        return re.sub(r"host=[^&]*", f"host=127.0.0.1&port={self.port}&sslmode=disable"
                      "&gssencmode=disable", direct)

    def close(self):
        self.listener.close()
        for s in self.open:
            s.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.upstream)
            self.open += [client, server]
            conn = types.SimpleNamespace(armed=False)
            threading.Thread(target=self._up, args=(client, server, conn), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, conn), daemon=True).start()

    def _up(self, client, server, conn):
        tail = b""
        try:
            while data := client.recv(65536):
                if self.marker and not self.cut.is_set() and self.marker in tail + data:
                    conn.armed = True  # before the statement reaches the server
                tail = data[-len(self.marker or b""):]
                server.sendall(data)
        except OSError:
            pass
        closed(client, server)

    def _down(self, server, client, conn):
        buf = b""
        try:
            while data := server.recv(65536):
                buf += data
                while len(buf) >= 5 and len(buf) >= 1 + int.from_bytes(buf[1:5], "big"):
                    n = 1 + int.from_bytes(buf[1:5], "big")
                    msg, buf = buf[:n], buf[n:]
                    if conn.armed and msg[:1] == b"C" and msg[5:11] == b"COMMIT":
                        self.cut.set()  # committed: the client never hears it
                        raise OSError("cut")
                    client.sendall(msg)
        except OSError:
            pass
        closed(client, server)


@pytest.fixture
def watch_pair(bindir, tmp_path):
    """watch_pair(url, a_url=None): nodes a and b on url's schema, each
    naming the other's peer address, a connecting by a_url when given
    (the same schema through a proxy)."""
    with contextlib.ExitStack() as stack:
        yield lambda url, a_url=None: stack.enter_context(Nodes(bindir, tmp_path, url)).peers(
            ("a", "b"), db={"a": a_url}, http=True)


def olga_watched(a, b, clients):
    """olga plays at a, pete watches at b (telnet) and a browser too: the
    player's telnet and the browser's socket."""
    _, _, p, _, web_b = watched_across((a, b), clients, "olga", "pete")
    return p, web_b


def player_says(p, line):
    p.send(CTRL_E)
    p.wait_for("Say (Enter sends, Esc cancels):")
    p.send(line + "\r")


def test_a_commit_whose_answer_is_lost_is_applied_once(watch_pair, clients):
    """a's database connection goes through a proxy that lets the chat
    line's row and its COMMIT reach PostgreSQL, which commits them (and
    notifies b), then closes the connection before a hears so: a keeps
    the line, connects again and writes it again under its key, which
    the database takes as done. b's browser gets the line once, and the
    log holds one row of it."""
    harness.pg_database()  # the run's cluster started
    cluster = harness._PG["cluster"]
    url = harness.pg_database()
    proxy = CommitCutProxy(cluster.sockdir)
    try:
        a, b = watch_pair(url, proxy.url(url))
        p, web_b = olga_watched(a, b, clients)
        proxy.marker = b"said-exactly-once"
        player_says(p, "said-exactly-once")
        assert proxy.cut.wait(10), a.log()[-2000:]
        a.wait_log(r"node events: chat not written \([^)]*\): kept, 1 in all")
        a.wait_log(r"node events: written again; the 0 kept after it sent now")
        assert chats(web_b, quiet=4) == [("olga", "said-exactly-once", True)]
        assert a.db_rows("SELECT count(*) FROM node_events WHERE payload LIKE "
                         "'chat %said-exactly-once'") == [(1,)]
        player_says(p, "and-then-another")  # a writes on, on its new connection
        assert chats(web_b) == [("olga", "and-then-another", True)]
    finally:
        proxy.close()


def test_a_chat_line_kept_past_its_age_limit_is_dropped(watch_pair, clients):
    """a may not write node_events for longer than a chat line is kept
    (15 s): the line said at the start of it is dropped, a's log says so
    once with the count, and b's browser never gets it; a line said after
    that, kept too, reaches b once a may write again."""
    cluster, schema, url = own_role_schema()
    a, b = watch_pair(url)
    p, web_b = olga_watched(a, b, clients)
    cluster.psql(f"REVOKE INSERT ON {schema}.node_events FROM {ROLE}", db="warren")
    try:
        player_says(p, "stale-by-now")
        a.wait_log(r"node events: chat not written \([^)]*permission denied[^)]*\): kept")
        a.wait_log(r"node events: 1 dropped unwritten, kept past their kind's age limit "
                   r"\(chat 1 \(15 s\)\): too late to mean anything; 0 kept", timeout=25)
        player_says(p, "fresh-enough")
        time.sleep(1.5)
    finally:
        cluster.psql(f"GRANT INSERT ON {schema}.node_events TO {ROLE}", db="warren")
    a.wait_log(r"node events: written again; the 0 kept after it sent now")
    assert chats(web_b, quiet=4) == [("olga", "fresh-enough", True)]
    assert len(re.findall("dropped unwritten", a.log())) == 1, a.log()[-3000:]
