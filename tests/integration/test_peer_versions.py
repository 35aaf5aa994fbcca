"""The node-to-node stream across builds, against real daemons on one
PostgreSQL (WARREN_DB=pg only): a node answers a HELLO in the caller's
kind (with its version only to a caller that sent one), skips a message
of a type it does not know and fields past those it knows, and calls a
node of a build before versions (which hangs up on a HELLO with one)
again at once without, its watcher shown the game."""
import struct

import pytest

from harness import ON_PG
from nodeset import SECRET
from test_peer_attack import (FakeNode, call, framed, hello, keyframe, lone,  # noqa: F401
                              shown_a_frame, watched_through)

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
VERSION = 2


def messages(s, want, timeout=5):
    """The first want messages s reads: (type, body after it) each."""
    s.settimeout(timeout)
    buf, got = b"", []
    while len(got) < want:
        chunk = s.recv(65536)
        assert chunk, f"closed after {got}"
        buf += chunk
        while len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">I", buf[:4])[0]:
            n = struct.unpack(">I", buf[:4])[0]
            got.append((buf[4], buf[5:4 + n]))
            buf = buf[4 + n:]
    return got


def test_a_hello_is_answered_in_the_callers_kind(lone):
    a = lone
    plain = SECRET.encode()
    texts = bytes([len(plain)]) + plain + b"\1a"
    # a caller of a build before versions: a HELLO with nothing past its texts
    s = call(a, hello(name=b"x"))
    ((kind, body),) = messages(s, 1)
    assert (kind, body) == (1, texts), body
    s.close()
    # one with a version, and a field of a later build after it: answered
    # with this build's version
    s = call(a, framed(b"\1" + bytes([len(plain)]) + plain + b"\1y" + struct.pack(">H", 9)
                       + b"later"))
    ((kind, body),) = messages(s, 1)
    assert (kind, body) == (1, texts + struct.pack(">H", VERSION)), body
    a.wait_log(r"peer link y \(127\.0\.0\.1\) ready, version 9")
    # a message of an unknown type is skipped, the link kept: the WATCH
    # after it (with a field of a later build) is answered
    s.sendall(framed(b"\x4d" + b"\0" * 300) + framed(b"\2" + struct.pack(">q", 123456) + b"xx"))
    ((kind, body),) = messages(s, 1)
    assert kind == 5 and struct.unpack(">q", body[:8])[0] == 123456, body
    assert b"cannot be watched" in body, body
    s.close()
    assert a.alive()


def test_a_node_of_an_older_build_is_called_again_without_a_version(bindir, tmp_path, clients):
    """b stands in for a node of a build before versions: it hangs up on
    a's HELLO with a version; a calls it again at once without one, and
    a's watcher of b's game is shown the game, not sent back to the menu."""
    fake = FakeNode(lambda game: [keyframe(game, 80, 24)], old=True)
    with watched_through(bindir, tmp_path, clients, fake) as (a, b, w):
        a.wait_log(r"peer link b \(127\.0\.0\.1\): hung up on a HELLO with a version: called "
                   r"again without it")
        a.wait_log(r"peer link b \(127\.0\.0\.1\) ready, version 1")
        shown_a_frame(w)
        assert fake.watched and len(fake.hellos) == 2, fake.hellos
        assert fake.hellos[0][-2:] == struct.pack(">H", VERSION), fake.hellos
        assert "went away" not in w.text()
        assert a.alive() and b.alive()
