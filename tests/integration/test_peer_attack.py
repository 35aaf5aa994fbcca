"""The node-to-node stream and node events under hostile input, against
real daemons on one PostgreSQL (WARREN_DB=pg only): a node called that
never answers its HELLO, strangers and malformed links, and frames and
payloads at their limits. Every case ends with the node serving on and
saying what it refused."""
import re
import socket
import struct
import threading
import time

import pytest

from harness import ON_PG, Daemon, free_port
from test_watch_nodes import SECRET, read_quiet, watch_from_list

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")


def node(bindir, dir, name, peers, port=None, db_of=None, extra=()):
    """Node name listening for links on port, calling peers (NAME=ADDR)."""
    port = port or free_port()
    d = Daemon(bindir, dir, extra=["--node", name, "--peer-listen", f"127.0.0.1:{port}",
                                   "--peers", peers, "--peer-secret", SECRET, *extra])
    if db_of:
        d.db_url = db_of.db_url
        d.argv[d.argv.index("--db") + 1] = db_of.db_url
    d.peer_port = port
    return d.start()


class Silent:
    """A TCP listener that accepts and never says a word (a hung node, or
    --peers pointing at a service that waits for its client to speak)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns, self.done = [], False
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while not self.done:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)

    def close(self):
        self.done = True
        for c in self.conns:
            c.close()
        self.sock.close()


def test_a_called_node_that_never_says_hello_is_given_up(bindir, tmp_path, clients):
    """a's --peers points b at a port that accepts and stays silent: a
    watcher at a picking b's game is sent back to the menu, told, once the
    HELLO is late (logged), instead of waiting on a blank screen for ever;
    a serves on."""
    silent = Silent()
    b = node(bindir, tmp_path / "b", "b", "a=127.0.0.1:1")
    a = node(bindir, tmp_path / "a", "a", f"b=127.0.0.1:{silent.port}", db_of=b)
    try:
        p = clients(b.port).connected()
        p.register("bert")
        p.random_character("bert")
        w = clients(a.port).connected()
        w.register("anna")
        watch_from_list(w, "bert")
        a.wait_log(r"WARN peer link b \(127\.0\.0\.1\): called, no HELLO back in 5 s", timeout=15)
        a.wait_log(r"peer link b \(127\.0\.0\.1\) closed: no HELLO in time from the node called")
        w.wait_for("went away")
        assert silent.conns, "a never called"
        assert a.alive() and b.alive()
    finally:
        silent.close()
        a.stop_clean()
        b.stop_clean()
