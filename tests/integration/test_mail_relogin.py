"""Unseen mail looked up for one account is not shown to the next one
logged in on the same terminal (WARREN_DB=pg: the lookup is held back by
a lock on the mail table while the account changes)."""
import re
import time
from datetime import datetime, timezone

import psycopg2
import pytest

from harness import ON_PG, PW, admin
from players import web_account

pytestmark = pytest.mark.skipif(not ON_PG, reason="holds a PostgreSQL lock: WARREN_DB=pg")


def first_purge_over(d, timeout=30):
    """Waits until the first deletion of read mail, a tick after the
    daemon's start, is over: it deleted the old row just written (and said
    so), or it ran before that row came (on a slow start), which its tick,
    seconds past with the row still there, shows."""
    ready = re.search(r"^(\S+)Z INFO warrend \S+ ready$", d.log(), re.M)
    start = datetime.fromisoformat(ready.group(1)).replace(tzinfo=timezone.utc).timestamp()
    end = time.time() + timeout
    while "retention: 1 read mails deleted" not in d.log():
        if time.time() > start + 5 and d.db_rows("SELECT count(*) FROM mail WHERE text = 'old'"
                                                  ) == [(1,)]:
            return
        assert time.time() < end, "the first deletion of read mail never ran"
        time.sleep(0.1)


@pytest.mark.daemon(http=True)
def test_mail_looked_up_before_a_logout_is_not_shown_to_the_next_account(daemon, clients, bindir):
    d = daemon
    carl = web_account(d, "carl")
    web_account(d, "bob")
    web_account(d, "ada")
    r = carl.post("/mail", {"to": "ada", "text": "for ada only"})
    assert r.status in (200, 303), r
    # the first deletion of read mail (a write the lock would hold up, and
    # every read after it) is over before the lock is taken
    d.db_write(("INSERT INTO mail (recipient, sender, sent, text, seen) SELECT u.id, u.id, 1, "
                "'old', 1 FROM users u WHERE u.name = 'bob'", ()))
    first_purge_over(d)
    hold = psycopg2.connect(d.db_url)
    try:
        hold.cursor().execute("LOCK TABLE mail IN ACCESS EXCLUSIVE MODE")
        t = clients(d.port).connected()
        t.login("ada")  # her unseen mail is looked up, and waits for the lock
        admin(bindir, d, "lock", "ada")
        t.wait_for("This account has been locked.")
        t.login("bob")
    finally:
        hold.rollback()  # the lookup for ada answers now, bob logged in
        hold.close()
    t.pump(quiet=1.5)
    assert "for ada only" not in t.text() and b"for ada only" not in t.raw
    assert "Logged in as bob" in t.text()
    assert d.db_rows("SELECT count(*) FROM mail WHERE seen = 0") == [(1,)]
    # ada, unlocked, still gets it
    admin(bindir, d, "unlock", "ada")
    a = clients(d.port).connected()
    a.login("ada", PW)
    assert "for ada only" in a.wait_for("Mail from carl, ")
