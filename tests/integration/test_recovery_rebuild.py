"""A game whose snapshot was written by an older snapshot format is rebuilt
from its seed and its whole journal, not marked broken: a game played over
telnet with the real daemon, the daemon stopped (killed, or a clean SIGTERM),
the newest snapshot's format version rewritten to an older one in the SQLite
file (its CRC fixed, since the CRC covers the version), the daemon started
again. The player must get the very same game back (state hash, turn, seq
and screen via the F12 test hook), the log must say it was rebuilt, the game
must stay live, and the snapshot written after the rebuild must be of the
current format again."""
import signal
import struct
import time
import zlib

import pytest

from harness import CTRL_X, hook

# game/snapshot.c's blob header: "WRNS", u16 format version, u16 flags,
# u64 content id, u32 raw length, u32 CRC-32 of every byte but the CRC's own.
HEADER = 24
CRC_AT = 20


def blob_version(blob):
    assert blob[:4] == b"WRNS"
    return struct.unpack_from("<H", blob, 4)[0]


def with_version(blob, version):
    b = bytearray(blob)
    struct.pack_into("<H", b, 4, version)
    crc = zlib.crc32(bytes(b[:CRC_AT]) + bytes(b[HEADER:])) & 0xFFFFFFFF
    struct.pack_into("<I", b, CRC_AT, crc)
    return bytes(b)


def make_snapshots_stale(d, game):
    """Rewrites every snapshot of game to the format version before this
    build's; returns (the build's version, snapshots rewritten)."""
    rows = d.db_rows("SELECT seq, blob FROM snapshots WHERE game = ?", game)
    assert rows, "the game has no snapshot to make stale"
    current = blob_version(rows[0][1])
    assert current > 1
    updates = []
    for seq, blob in rows:
        stale = with_version(blob, current - 1)
        assert blob_version(stale) == current - 1 and len(stale) == len(blob)
        updates.append(("UPDATE snapshots SET blob = ? WHERE game = ? AND seq = ?",
                        (stale, game, seq)))
    d.db_write(*updates)
    return current, len(rows)


def game_state(d, game):
    return d.db_rows("SELECT state FROM games WHERE id = ?", game)[0][0]


def wait_fresh_snapshot(d, game, version, timeout=10):
    """The rebuild writes a snapshot of the current format (on the writer
    thread, so it may land a moment after the log line)."""
    end = time.time() + timeout
    while time.time() < end:
        rows = d.db_rows("SELECT blob FROM snapshots WHERE game = ? ORDER BY seq DESC", game)
        if rows and blob_version(bytes(rows[0][0])) == version:
            return
        time.sleep(0.05)
    raise AssertionError(f"no snapshot of format version {version} for game {game}")


@pytest.mark.parametrize("stop", ["kill", "term"])
def test_stale_snapshot_is_rebuilt(daemon, clients, stop):
    d = daemon
    t = clients(d.port).connected()
    t.register("rita")
    t.send("p")
    game = int(d.wait_log(r"game start user=rita game=(\d+)").group(1))
    t.play_keys("llhhjjkk")
    t.send(CTRL_X)  # detaching writes a snapshot
    t.wait_for("Your game is saved")
    t.send("p")
    d.wait_log(r"attach user=rita")
    t.play_keys("lkyu..")  # a journal tail after that snapshot
    before = hook(d, t, "rita")
    screen = [ln.rstrip() for ln in t.screen.display]
    assert before["seq"] == 14
    if stop == "kill":
        d.kill(signal.SIGKILL)
    else:
        assert d.stop() == 0
    current, n = make_snapshots_stale(d, game)
    assert n >= 1

    d.start()
    d.wait_log(rf"game rebuilt game={game} user=rita seq=14: snapshot format version "
               rf"{current - 1}, this build reads {current}")
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")
    assert "cannot be restored" not in d.log()
    assert game_state(d, game) == "live"
    wait_fresh_snapshot(d, game, current)

    t2 = clients(d.port).connected()
    t2.login("rita")
    t2.send("p")
    d.wait_log(r"game resume user=rita")
    t2.pump()
    assert hook(d, t2, "rita") == before
    assert [ln.rstrip() for ln in t2.screen.display] == screen
