"""The node-to-node stream and node events under hostile input, against
real daemons on one PostgreSQL (WARREN_DB=pg only): a node called that
never answers its HELLO, strangers and malformed links, and frames and
payloads at their limits. Every case ends with the node serving on and
saying what it refused."""
import contextlib
import re
import socket
import struct
import threading
import time

import pytest

from harness import ON_PG, Daemon, free_port
from nodeset import SECRET, on_database
from test_watch_nodes import play_and_watch, read_quiet

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")


def node(bindir, dir, name, peers, port=None, db_of=None, extra=()):
    """Node name listening for links on port, calling peers (NAME=ADDR)."""
    port = port or free_port()
    d = Daemon(bindir, dir, extra=["--node", name, "--peer-listen", f"127.0.0.1:{port}",
                                   "--peers", peers, "--peer-secret", SECRET, *extra])
    if db_of:
        on_database(d, db_of.db_url)
    d.peer_port = port
    return d.start()


@contextlib.contextmanager
def watched_through(bindir, tmp_path, clients, stand_in):
    """bert plays at node b and anna, at node a, picks his game from the
    list, a calling stand_in (a listener in b's place) for its stream:
    yields (a, b, anna's telnet); stand_in closed and both nodes stopped
    cleanly after."""
    started = []
    try:
        b = node(bindir, tmp_path / "b", "b", "a=127.0.0.1:1")
        started.append(b)
        a = node(bindir, tmp_path / "a", "a", f"b=127.0.0.1:{stand_in.port}", db_of=b)
        started.append(a)
        _, w = play_and_watch(clients, b, "bert", a, "anna")
        yield a, b, w
    finally:
        stand_in.close()
        for d in reversed(started):
            d.stop_clean()


def shown_a_frame(w, timeout=10):
    """Waits until watcher w's screen shows the stand-in's frame (#)."""
    end = time.time() + timeout
    while "#" not in w.text():
        assert time.time() < end, w.text()
        w.pump(quiet=0.2, limit=1)


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
            self.accepted(c)

    def accepted(self, c):
        """What is done with c, a connection just accepted: nothing."""

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
    with watched_through(bindir, tmp_path, clients, silent) as (a, b, w):
        a.wait_log(r"WARN peer link b \(127\.0\.0\.1\): called, no HELLO back in 5 s", timeout=15)
        a.wait_log(r"peer link b \(127\.0\.0\.1\) closed: no HELLO in time from the node called")
        w.wait_for("went away")
        assert silent.conns, "a never called"
        assert a.alive() and b.alive()


def framed(body):
    return struct.pack(">I", len(body)) + body


def hello(secret=SECRET.encode(), name=b"x"):
    return framed(bytes([1, len(secret)]) + secret + bytes([len(name)]) + name)


def call(d, data=b"", src=None):
    """A connection to d's peer port (from address src when given) that
    has sent data."""
    s = socket.create_connection(("127.0.0.1", d.peer_port),
                                 source_address=(src, 0) if src else None)
    s.sendall(data)
    return s


def stranger(d, data=b"", quiet=1.0, src="127.0.0.2"):
    """data to d's peer port from src (an address --peers does not name):
    what d answers before the link closes or goes quiet."""
    s = call(d, data, src)
    got = read_quiet(s, quiet)
    s.close()
    return got


@pytest.fixture
def lone(bindir, tmp_path):
    d = node(bindir, tmp_path / "a", "a", "b=127.0.0.1:1")
    yield d
    d.stop_clean()


def test_hellos_of_wrong_sizes_are_refused_unanswered(lone):
    """A first message of no length, longer than a HELLO (up to 4 GiB
    announced), or a HELLO whose texts overrun it or are too long: closed,
    unanswered, each said; a good HELLO is answered after them."""
    a = lone
    cases = [(b"\0\0\0\0", "a message length out of range"),
             (struct.pack(">I", 194) + b"\1" * 8, "a first message longer than a HELLO"),
             (b"\xff\xff\xff\xff", "a first message longer than a HELLO"),
             (framed(bytes([1, 60]) + b"s" * 10), "a message of the wrong length"),
             (framed(bytes([1, 64]) + b"s" * 64 + b"\1x"), "a message of the wrong length"),
             (framed(bytes([1, 3]) + b"s\ns" + b"\1x"), "a message of the wrong length"),
             (hello(name=b"a"), "a bad node name"),
             (framed(b"\2" + struct.pack(">q", 1)), "a message before HELLO")]
    for i, (data, said) in enumerate(cases):  # an address each: the log says a kind once in 10 s
        src = f"127.0.1.{i + 1}"
        assert stranger(a, data, src=src) == b"", data
        a.wait_log(rf"peer link \? \({re.escape(src)}\): " + re.escape(said))
    assert stranger(a, hello())[4:5] == b"\1"
    assert a.alive()


def test_many_silent_links_and_a_slow_hello_lock_no_node_out(lone):
    """40 links that say nothing: the oldest waiting goes as each new one
    comes, and a node with the secret is still answered at once; a HELLO
    sent a byte at a time past 5 s is closed, unanswered."""
    a = lone
    socks = [socket.create_connection(("127.0.0.1", a.peer_port), source_address=("127.0.0.3", 0))
             for _ in range(40)]
    a.wait_log(r"peer link \? \(127\.0\.0\.3\): too many links waiting for a HELLO")
    assert stranger(a, hello())[4:5] == b"\1"
    slow = socket.create_connection(("127.0.0.1", a.peer_port), source_address=("127.0.0.4", 0))
    closed = False
    for byte in hello()[:-1]:
        try:
            slow.sendall(bytes([byte]))
        except OSError:
            closed = True
            break
        time.sleep(0.1)
    got = read_quiet(slow, 2)
    assert closed or got == b""
    a.wait_log(r"peer link \? \(127\.0\.0\.4\): no HELLO in time")
    for s in socks + [slow]:
        s.close()
    assert a.alive()


def test_a_node_past_hello_sending_bad_frames_is_closed(lone):
    """Past HELLO: a length past the largest message, a SCREEN of a bad
    size, one for a game not asked of it (ignored), a WATCH of no such game
    (answered GONE): the bad ones close the link, said; a serves on."""
    a = lone
    big = struct.pack(">I", 64 * 1024 * 1024) + b"\4"
    assert stranger(a, hello(name=b"x1") + big)[4:5] == b"\1"
    a.wait_log(r"peer link x1 \(127\.0\.0\.2\): a message length out of range")
    screen = b"\4" + struct.pack(">qHHHHBH", 7, 0, 24, 0, 0, 1, 0)
    stranger(a, hello(name=b"x2") + framed(screen))
    a.wait_log(r"peer link x2 \(127\.0\.0\.2\): a screen of a bad size")
    row = struct.pack(">H", 0) + struct.pack(">IHH", ord("A"), 0, 0) * 2
    unasked = b"\4" + struct.pack(">qHHHHBH", 7, 2, 1, 0, 0, 1, 1) + row
    watch = framed(b"\2" + struct.pack(">q", 999999))
    got = stranger(a, hello(name=b"x3") + framed(unasked) + watch)
    assert b"\5" + struct.pack(">q", 999999) in got, got  # GONE: the link lived on
    assert not re.search(r"peer link x3 .*: a ", a.log())
    assert a.alive()


def notify(d, *payloads):
    """Each payload NOTIFYed on the nodes' channel, in one transaction."""
    import psycopg2
    con = psycopg2.connect(d.db_url)
    try:
        with con, con.cursor() as cur:
            for p in payloads:
                cur.execute("SELECT pg_notify('warren', %s)", (p,))
    finally:
        con.close()


def test_odd_node_events_are_said_in_one_clean_line(lone):
    """Payloads no node sends (one at PostgreSQL's limit, one carrying a
    newline and escape bytes that would forge a log line, a flood of bad
    ones): each refused, said in one line of printable text, at most a
    line a second (the rest counted in the next), the node serving on."""
    a = lone
    time.sleep(1.5)  # its listener connects (off the loop)
    notify(a, "chat * b 1 1 x " + "A" * 7900)
    a.wait_log(r"node event not understood: chat \* b 1 1 x A{65}\.\.\.$")
    time.sleep(1.1)
    notify(a, "kick\n2026-01-01T00:00:00.000Z INFO login conn=9 ip=1.2.3.4 user=forged\x1b[2J")
    a.wait_log(r"node event not understood: kick\\x0a2026-01-01T.*user=forged\\x1b\[2J$")
    assert not re.search(r"^2026-01-01T", a.log(), re.M) and "\x1b" not in a.log()
    time.sleep(1.1)
    notify(a, *[f"nonsense {i}" for i in range(3000)])
    a.wait_log(r"node event not understood: nonsense 0$")
    time.sleep(1.1)
    notify(a, "nonsense last")
    a.wait_log(r"node event not understood: nonsense last \(and 2999 more not said", timeout=5)
    assert len(re.findall("not understood", a.log())) == 4
    assert a.alive()


class FakeNode(Silent):
    """Node b as a's --peers names it, speaking the stream: answers a's
    HELLO, and each WATCH with the frames frames_for(game) gives. old: as
    a build before versions, it hangs up on a HELLO with any byte past
    its texts (each HELLO's body is kept in hellos)."""

    def __init__(self, frames_for, old=False):
        self.frames_for, self.watched, self.old, self.hellos = frames_for, [], old, []
        super().__init__()

    def accepted(self, c):
        threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        buf = b""
        try:
            while chunk := c.recv(65536):
                buf += chunk
                while len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">I", buf[:4])[0]:
                    n = struct.unpack(">I", buf[:4])[0]
                    body, buf = buf[4:4 + n], buf[4 + n:]
                    if body[0] == 1:
                        self.hellos.append(body)
                        if self.old and len(body) != 3 + body[1] + body[2 + body[1]]:
                            c.close()
                            return
                        c.sendall(hello(name=b"b"))
                    elif body[0] == 2:
                        game = struct.unpack(">q", body[1:9])[0]
                        self.watched.append(game)
                        for f in self.frames_for(game):
                            c.sendall(f)
        except OSError:
            pass


def keyframe(game, w, h, ch="#"):
    row = lambda y: struct.pack(">H", y) + struct.pack(">IHH", ord(ch), 7, 0) * w
    return framed(b"\4" + struct.pack(">qHHHHBH", game, w, h, 0, 0, 1, h)
                  + b"".join(row(y) for y in range(h)))


@pytest.mark.parametrize("size", [(1, 1), (512, 256), (80, 1)])
def test_frames_of_odd_sizes_from_a_node_are_shown_safely(bindir, tmp_path, clients, size):
    """b (a stand-in speaking the stream) sends a's watcher of its game a
    whole screen of 1 x 1, of the largest size, or of one row: the
    watcher at a is shown it (cut or padded to its terminal), and a
    serves on."""
    w_, h_ = size
    fake = FakeNode(lambda game: [keyframe(game, w_, h_)])
    with watched_through(bindir, tmp_path, clients, fake) as (a, b, w):
        shown_a_frame(w)
        assert fake.watched
        w.send("q")
        w.wait_for("Your choice")
        assert a.alive() and b.alive()
