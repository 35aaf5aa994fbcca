"""warrend at scale: the listen backlog it asks the kernel for; many
players leaving at once; many connections ending in the same moment."""
import pathlib
import re
import socket
import subprocess
import time

from harness import hook, new_game, program, replay


def listen_backlog(port):
    """The backlog of the listening socket on port, as the kernel holds it
    (ss's Send-Q column for a listener)."""
    out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out and out[0] == "LISTEN", out
    return int(out[2])


def somaxconn():
    return int(pathlib.Path("/proc/sys/net/core/somaxconn").read_text())


def test_listen_backlog_is_the_setting_clamped_by_somaxconn(start_daemon):
    d = start_daemon()
    assert listen_backlog(d.port) == min(4096, somaxconn())
    small = start_daemon(extra=["--listen-backlog", "100"])
    assert listen_backlog(small.port) == 100
    big = start_daemon(extra=["--listen-backlog", "1000000"])
    assert listen_backlog(big.port) == somaxconn()
    assert f"listen-backlog 1000000 is over net.core.somaxconn: {somaxconn()}" in big.log()


def journal_bytes(d, gid):
    rows = d.db_rows("SELECT seq, keys FROM journal WHERE game = ? ORDER BY seq", gid)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    return b"".join(r[1] for r in rows)


def snapshot_hash(bindir, tmp, blob):
    tool = program(bindir, "tools/server_replay", "asan/tools/server_replay")
    f = tmp / "snap.bin"
    f.write_bytes(blob)
    out = subprocess.run([str(tool), "--snapshot", str(f)], capture_output=True, check=True,
                         timeout=60).stdout.decode()
    return out.split()[-1]


def newest_snapshot(d, gid, seq, timeout=30):
    """The game's newest snapshot once it covers the journal up to seq (the
    detach snapshots are packed on the thread pool and written a moment
    after the log says detach)."""
    end = time.time() + timeout
    while time.time() < end:
        rows = d.db_rows("SELECT seq, blob FROM snapshots WHERE game = ? ORDER BY seq DESC", gid)
        if rows and rows[0][0] >= seq:
            return rows[0][0], bytes(rows[0][1])
        time.sleep(0.05)
    raise AssertionError(f"game {gid}: no snapshot at seq {seq}")


def test_players_leaving_at_once_leave_every_game_saved(daemon, clients, bindir, tmp_path):
    """Every player drops in the same moment: each game's snapshot still
    lands, at the journal's end, and holds the very game the journal replays
    to (and the live game had)."""
    d = daemon
    players = []
    for i in range(16):
        name = f"drop{i}"
        t = clients(d.port).connected()
        gid, seed = new_game(d, t, name)
        t.play_keys("hjklyubn."[i % 9:] + "l" * (i % 5))
        players.append((t, name, gid, seed, hook(d, t, name)))
    for t, *_ in players:
        t.close()
    for _, name, gid, seed, live in players:
        d.wait_log(rf"detach user={name} game={gid} seq={live['seq']}")
    for _, name, gid, seed, live in players:
        seq, blob = newest_snapshot(d, gid, live["seq"])
        assert seq == live["seq"], (name, seq, live)
        keys = journal_bytes(d, gid)
        assert snapshot_hash(bindir, tmp_path, blob) == live["hash"], name
        assert replay(bindir, tmp_path, seed, name, keys)[1] == live["hash"], name


def test_connections_ending_at_once_are_all_closed(start_daemon, clients):
    """Two hundred connections end in the same moment (their ends are closed
    a few per loop turn): every one is closed, the budget gets every slot
    back, and the player meanwhile keeps getting answers."""
    d = start_daemon(extra=["--max-connections", "202", "--max-per-ip", "500"])
    player = clients(d.port).connected()
    gid, _ = new_game(d, player, "stays")

    def stored():
        return d.db_rows("SELECT count(*) FROM journal WHERE game = ?", gid)[0][0]

    socks = [socket.create_connection(("127.0.0.1", d.port)) for _ in range(200)]
    for s in socks:
        assert s.recv(1), "not greeted"
    before = stored()
    for s in socks:
        s.close()
    player.play_keys("hjklhjkl")
    gone = r"disconnect conn=\d+ ip=127\.0\.0\.1 user=- reason=(?:closed|connection reset) by peer"

    def closed():  # lines said, and those the log's cap held back and counted
        log = d.log()
        held = re.findall(gone + r" \((\d+) such lines held back\)", log)
        held += re.findall(r'held back: (\d+) lines of "disconnect"', log)
        return len(re.findall(gone, log)) + sum(map(int, held))
    end = time.time() + 30
    while closed() < 200 and time.time() < end:
        time.sleep(0.1)
    assert closed() == 200
    end = time.time() + 10
    while stored() <= before and time.time() < end:
        time.sleep(0.1)
    assert stored() > before, "the player's keys were not stored"
    again = [socket.create_connection(("127.0.0.1", d.port)) for _ in range(200)]
    for s in again:
        assert b"refused" not in s.recv(200), "a slot was not given back"
        s.close()
