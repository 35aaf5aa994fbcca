"""Events between nodes when the database fails them (WARREN_DB=pg only):

- an event whose row the sending node cannot write (its role refused
  INSERT on node_events) is kept in the node's outbox, said in its log,
  and written once the database takes it again: the other node applies
  it then, once;
- a database whose event numbering went back (as a backup restored
  would have it: the log's newest rows gone, its ids given again) still
  brings new events to the running nodes: an id given again is another
  event, applied, and said once in the log."""
import os
import re
import time
import types

import pytest

import harness
from harness import ON_PG, PW, admin
from test_nodes import nodes, playing  # noqa: F401 (nodes: a fixture)

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
