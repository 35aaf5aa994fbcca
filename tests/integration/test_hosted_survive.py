"""A hosted game outlives its node: two warrend daemons on one PostgreSQL
schema (WARREN_DB=pg only). A player's files of a hosted game (here
tests/tools/ptytoy's saver mode, a game that keeps its state in
save/state of the player's directory) are copied into the database as the
game runs; node a is SIGKILLed and its games-dir deleted (the machine is
gone); while a's heartbeat still names the game, node b tells the player it
runs on a; once it lapses, the player logs in on b, chooses the game and
goes on with the same one (its saved state restored). A hostile game's
directory: a link and a FIFO are never copied (logged), files over
copy-max are not copied at all (logged, the set marked), and the player who
comes back on another node is told instead of starting a new game."""
import contextlib
import ctypes
import os
import platform
import pwd
import re
import shutil
import signal
import struct
import time

import pytest

from harness import ON_PG, SANITIZER_WORDS, admin, unique_name
from nodeset import Nodes
from test_hosted import (PTRACE_CONT, PTRACE_DETACH, PTRACE_EVENT_FORK, PTRACE_GETEVENTMSG,
                         PTRACE_O_TRACEFORK, PTRACE_SEIZE, WALL, for_games, hold_next_child,
                         open_to_games, playground, ptrace, settle, spawner_of, start_nethack,
                         toy_copy)

pytestmark = pytest.mark.skipif(not ON_PG, reason="nodes share one PostgreSQL: WARREN_DB=pg")
TTL_MS = 3000  # a dead node's heartbeat lapses within seconds
RENEW_MS = 500


@pytest.fixture
def pair(bindir, tmp_path):
    """Nodes a and b on one schema, both with the section [game saver]
    (copy-max 1 MB)."""
    with Nodes(bindir, tmp_path) as nodes:
        yield start_pair(nodes, tmp_path)


def start_pair(nodes, tmp_path, more=(), mode="saver", more_b=(), section=""):
    open_to_games(tmp_path)
    toy = toy_copy(nodes.bindir, tmp_path)
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game saver]\nname = Saver\ncommand = {toy} {mode}\nhangup-timeout = 1\n"
                    f"copy-max = 1\n{section}")
    return two_nodes(nodes, conf, more, more_b)


def two_nodes(nodes, conf, more=(), more_b=()):
    """Nodes a and b with the config file conf, leases short, more flags
    last (and b more_b)."""
    return [nodes.start(name, "--config", conf, "--lease-ttl-ms", TTL_MS, "--lease-renew-ms",
                        RENEW_MS, *more, *(more_b if name == "b" else ())) for name in ("a", "b")]


def play(clients, d, name, register=False):
    p = clients(d.port, cols=100, rows=30)
    if register:
        p.register(name)
    else:
        p.login(name)
    p.send("1")
    return p


def copied(d, name, path, want, timeout=15):
    """Waits until the database holds want as name's file path of the
    saver game; returns the set's (gen, node, bytes)."""
    end = time.time() + timeout
    while True:
        rows = d.db_rows("SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                         "WHERE u.name = ? AND f.game = 'saver' AND f.path = ?", name, path)
        if rows and bytes(rows[0][0]) == want:
            break
        assert time.time() < end, rows
        time.sleep(0.2)
    return file_set(d, name)


def saved(clients, d, prefix, keys):
    """A new player (a unique name from prefix) starts the saver game at
    d and types keys, each shown in its state; once d copied that state:
    (the name, the player's telnet, the set's (gen, node, bytes))."""
    name = unique_name(prefix)
    p = play(clients, d, name, register=True)
    p.wait_for("nothing saved")
    for i, ch in enumerate(keys):
        p.send(ch)
        p.wait_for(f"state: [{keys[:i + 1]}]")
    return name, p, copied(d, name, "save/state", keys.encode())


def file_set(d, name):
    rows = d.db_rows("SELECT s.gen, s.node, s.bytes FROM hosted_file_sets s JOIN users u "
                     "ON u.id = s.user WHERE u.name = ? AND s.game = 'saver'", name)
    return rows[0] if rows else None


def player_dir(d):
    """The one player's directory of the saver game at d."""
    (only,) = list((d.dir / "games" / "saver").iterdir())
    return only


def shown(q, *needles, timeout=10):
    """Waits until q's screen shows one of needles (its lines joined, runs
    of spaces as one: a message may wrap); returns that text."""
    end = time.time() + timeout
    while True:
        text = " ".join(q.text().split())
        if any(n in text for n in needles):
            return text
        assert not q.eof and time.time() < end, text
        q.pump(quiet=0.05, limit=0.2)


SAID = ("restored: ", "nothing saved", "still runs", "too large")


def machine_gone(a):
    """a is SIGKILLed and its disk lost: its games-dir deleted once its
    spawner hung its games up."""
    a.kill()
    time.sleep(1.5)  # the spawner hangs its programs up (hangup-timeout 1) and ends
    shutil.rmtree(a.dir / "games")


def back_on(clients, b, name, until, said=SAID, timeout=15):
    """name chooses the game on b until the screen shows until (a message
    while a's heartbeat still names the game, then the game); the last
    client and its text."""
    end = time.time() + timeout
    while True:
        q = play(clients, b, name)
        text = shown(q, *said, timeout=20)
        if "still runs" not in text and until in text:
            return q, text
        assert "still runs on server a" in text, text
        assert time.time() < end, text
        q.close()
        time.sleep(0.5)


def test_a_hosted_game_goes_on_at_another_node_once_its_node_is_gone(pair, clients):
    a, b = pair
    name, p, (gen, node, size) = saved(clients, a, "hs", "abc")
    assert node == "a" and gen >= 1 and size > 0, (gen, node, size)
    machine_gone(a)
    # while a's heartbeat names the game, b says where it is (never a new game)
    q = play(clients, b, name)
    text = shown(q, *SAID)
    assert "nothing saved" not in text, text
    q.close()
    # once it lapsed: the same game, its state restored from the database
    q, text = back_on(clients, b, name, "restored: [abc]")
    b.wait_log(rf"hosted files restored user={name} game=saver gen={gen} from=a")
    assert (player_dir(b) / "save" / "state").read_bytes() == b"abc"
    q.send("d")
    q.wait_for("state: [abcd]")
    _, node, _ = copied(b, name, "save/state", b"abcd")
    assert node == "b"
    q.send("q")


def test_links_and_files_over_copy_max_are_never_copied(pair, clients, tmp_path):
    a, b = pair
    secret = tmp_path / "secret"
    secret.write_bytes(b"SECRET OF THE DAEMON")
    name, p, _ = saved(clients, a, "hk", "x")
    # what a hostile game plants in its own directory
    mine = player_dir(a)
    os.symlink(secret, mine / "steal")
    os.mkfifo(mine / "pipe")
    for_games(mine / "pipe")
    p.send("y")
    p.wait_for("state: [xy]")
    copied(a, name, "save/state", b"xy")
    a.wait_log(rf"hosted files of user={name} game=saver: \S+: (a link|not a regular file): "
               "not copied")
    paths = {r[0] for r in a.db_rows("SELECT f.path FROM hosted_files f JOIN users u ON "
                                     "u.id = f.user WHERE u.name = ?", name)}
    assert paths == {"save/state"}, paths
    # over copy-max (1 MB): not copied, logged, the set marked
    (mine / "huge").write_bytes(b"h" * (2 << 20))
    for_games(mine / "huge")
    p.send("z")
    p.wait_for("state: [xyz]")
    a.wait_log(rf"hosted files over copy-max user={name} game=saver \(1 MB\): .*larger than")
    end = time.time() + 10
    while file_set(a, name)[2] != -1:
        assert time.time() < end, file_set(a, name)
        time.sleep(0.2)
    machine_gone(a)
    q, text = back_on(clients, b, name, "too large")
    assert "Your Saver game is on server a" in text, text
    assert not (b.dir / "games" / "saver").exists() or not list(
        (b.dir / "games" / "saver").iterdir()), "nothing started"


def test_a_name_not_copied_starts_no_line_of_the_log(pair, clients):
    """A file name is the hosted program's: one with a newline, said as not
    copied, writes no line of its own into warrend's log."""
    a, _ = pair
    name = unique_name("hn")
    p = play(clients, a, name, register=True)
    p.wait_for("nothing saved")
    forged = "2026-01-01T00:00:00.000Z ERROR forged by the game"
    (player_dir(a) / f"x\n{forged}\x1b[2J").write_bytes(b"x")
    p.send("x")
    p.wait_for("state: [x]")
    copied(a, name, "save/state", b"x")
    a.wait_log(rf"hosted files of user={name} game=saver: x\?{re.escape(forged)}\?\[2J: "
               "a name not allowed: not copied")
    assert not re.search(r"(?m)^2026-01-01T", a.log()), "a line of the game's own"
    assert "\x1b" not in a.log()
    p.send("q")


def test_nethack_goes_on_at_another_node(bindir, tmp_path, clients):
    """Debian's NetHack, each player's own playground: a game played and
    saved on a (S) is copied once NetHack ended; a dies with its disk; on
    b the same game is restored from its save."""
    pg, conf = playground(tmp_path, bindir)
    with Nodes(bindir, tmp_path) as nodes:
        a, b = two_nodes(nodes, conf)
        name = unique_name("nh")
        t = clients(a.port)
        start_nethack(t, name)
        settle(t)
        t.play_keys("s" * 5)
        settle(t)
        t.send("S")
        t.wait_for("Really save?")
        t.send("y")
        shown(t, "was saved", timeout=20)
        end = time.time() + 15
        while True:
            rows = a.db_rows("SELECT f.path FROM hosted_files f JOIN users u ON u.id = f.user "
                             "WHERE u.name = ? AND f.game = 'nethack'", name)
            paths = sorted(r[0] for r in rows)
            if any(p.startswith("playground/save/") for p in paths):
                break
            assert time.time() < end, paths
            time.sleep(0.3)
        machine_gone(a)
        q, text = back_on(clients, b, name, "", said=("still runs", "Shall I pick", "Restoring",
                                                      "welcome back"))
        assert "Shall I pick" not in text, text
        b.wait_log(rf"hosted files restored user={name} game=nethack gen=\d+ from=a")


def test_a_node_that_no_longer_holds_the_files_stores_none(pair, clients):
    """Once another node claimed a player's set (it started the game there:
    this node was cut off, say), this node's copies change nothing: the
    newer files there are never overwritten by older ones from here."""
    a, _ = pair
    name, p, (gen, _, _) = saved(clients, a, "hc", "a")
    a.db_write(("UPDATE hosted_file_sets SET node = 'b' WHERE user = (SELECT id FROM users "
                "WHERE name = ?)", (name,)))
    time.sleep(2.2)  # past the last copy's interval
    p.send("b")
    p.wait_for("state: [ab]")
    a.wait_log(rf"hosted files of user={name} game=saver not stored: another node holds them")
    assert file_set(a, name) == (gen, "b", file_set(a, name)[2])
    rows = a.db_rows("SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                     "WHERE u.name = ? AND f.path = 'save/state'", name)
    assert [bytes(r[0]) for r in rows] == [b"a"]
    p.send("q")


def copy_counts(bindir, d, throttled=False):
    """warren-admin health's hosted copies at d: (reads asked, answered
    unchanged, stored), and held back by copy-rate when throttled."""
    out = admin(bindir, d, "health")
    m = re.search(r"hosted copies: (\d+) reads asked, (\d+) unchanged \(nothing read\), "
                  r"(\d+) stored, (\d+) held back by copy-rate", out)
    assert m, out
    return tuple(int(x) for x in m.groups()[:4 if throttled else 3])


def test_a_chatty_game_whose_files_do_not_change_is_not_read(pair, clients, bindir):
    """A game that writes to its terminal but not to its files costs no
    read of them (no child of the spawner's): its copies are answered
    unchanged at once; a change is still copied."""
    a, _ = pair
    name, p, _ = saved(clients, a, "hq", "a")
    for _ in range(2):  # its first measurements' watches settle
        p.send("1")
        time.sleep(2.5)
    asked, same, stored = copy_counts(bindir, a)
    for i in range(14):  # 7 s of output, no file written: 3 copies at least
        p.send("1")
        p.wait_for("state: [a]")
        time.sleep(0.5)
    asked2, same2, stored2 = copy_counts(bindir, a)
    assert asked2 - asked >= 3, (asked, asked2)
    assert asked2 - same2 == asked - same, "a read of files that did not change"
    assert stored2 == stored
    p.send("b")
    p.wait_for("state: [ab]")
    copied(a, name, "save/state", b"ab")
    asked3, same3, stored3 = copy_counts(bindir, a)
    assert asked3 - same3 > asked2 - same2 and stored3 > stored2
    p.send("q")


def spawner_cpu(d):
    """The spawner's CPU seconds, its reaped children's included (its
    copies' reads): /proc's utime, stime, cutime and cstime."""
    kids = [p for p in os.listdir("/proc") if p.isdigit()]
    for p in kids:
        try:
            stat = open(f"/proc/{p}/stat").read()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()
        if int(rest[1]) == d.proc.pid and "spawn" in stat[stat.index("(") + 1:stat.rindex(")")]:
            return sum(int(x) for x in rest[11:15]) / os.sysconf("SC_CLK_TCK")
    return float("nan")


@pytest.mark.skipif(not os.environ.get("WARREN_COPY_BENCH"), reason="a benchmark: "
                    "WARREN_COPY_BENCH=N games")
def test_copies_of_busy_games_bench(clients, bindir, tmp_path):
    """N saver games each writing to its terminal (a key every 0.5 s, no
    file written) for 20 s: the copies' reads a second (each a child of
    the spawner's) and the spawner's CPU (BENCH lines)."""
    n, secs = int(os.environ["WARREN_COPY_BENCH"]), 20
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, ["--hosted-per-ip", n + 1])
        bench_copies(a, clients, bindir, n, secs)


def bench_copies(a, clients, bindir, n, secs):
    players = []
    for i in range(n):
        p = play(clients, a, unique_name("hb"), register=True)
        p.wait_for("nothing saved")
        p.send("a")
        p.wait_for("state: [a]")
        players.append(p)
    time.sleep(5)
    asked, same, _ = copy_counts(bindir, a)
    cpu, t0 = spawner_cpu(a), time.time()
    while time.time() - t0 < secs:
        for p in players:
            p.type_now("1")
        for p in players:
            p.pump(quiet=0.002, limit=0.01)
        time.sleep(max(0.0, 0.5 - (time.time() - t0) % 0.5))
    took = time.time() - t0
    asked2, same2, _ = copy_counts(bindir, a)
    cpu2 = spawner_cpu(a)
    print(f"BENCH hosted.copies.{n}.asked_per_s {(asked2 - asked) / took:.1f}")
    print(f"BENCH hosted.copies.{n}.reads_per_s {(asked2 - same2 - asked + same) / took:.1f}")
    print(f"BENCH hosted.copies.{n}.spawner_cpu_pct {100 * (cpu2 - cpu) / took:.1f}")
    for p in players:
        p.type_now("q")


def test_a_save_written_only_through_a_mapping_is_copied_as_the_game_runs(bindir, tmp_path,
                                                                         clients):
    """A game that writes its save only through a shared mapping (ptytoy
    mapsaver: msync, never write(2)) tells no inotify watch; the spawner's
    periodic measurement sees the file's mtime change, so the copies while
    it runs (as its terminal output asks for them) still take it."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, mode="mapsaver")
        name = unique_name("hm")
        p = play(clients, a, name, register=True)
        p.wait_for("mapped: []")
        for i, ch in enumerate("abc"):
            time.sleep(1)  # a change after the copies' first measurements
            p.send(ch)
            p.wait_for(f"state: [{'abc'[:i + 1]}]")
        want = b"abc".ljust(64, b"\0")
        end = time.time() + 15
        while True:
            rows = a.db_rows("SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                             "WHERE u.name = ? AND f.game = 'saver' AND f.path = 'save/state'",
                             name)
            if rows and bytes(rows[0][0]) == want:
                break
            assert time.time() < end, rows  # the game still runs: not its last copy
            p.send("1")  # output, and so copies asked for, as a game draws
            p.wait_for("state: [abc]")
            time.sleep(0.5)
        p.send("q")


def test_files_copied_as_other_ids_are_not_restored(bindir, tmp_path, clients):
    """The set keeps the ids its files were read as (the games user of the
    node that copied them). A node whose games run as other ids (its
    games user has another uid: NetHack names its save by uid) refuses to
    restore them: a line in its log, a plain message to the player, and
    nothing starts there."""
    if os.geteuid() != 0:
        pytest.skip("games run as a user of their own only when warrend is root")
    with Nodes(bindir, tmp_path) as nodes:
        a, b = start_pair(nodes, tmp_path, more_b=["--games-user", "nobody"])
        name, p, (gen, _, _) = saved(clients, a, "hu", "u")
        games = pwd.getpwnam("warren-games")
        ids = a.db_rows("SELECT s.uid, s.gid FROM hosted_file_sets s JOIN users u ON "
                        "u.id = s.user WHERE u.name = ?", name)
        assert ids == [(games.pw_uid, games.pw_gid)], ids
        machine_gone(a)
        nobody = pwd.getpwnam("nobody")
        q, text = back_on(clients, b, name, "another system user",
                          said=SAID + ("another system user",))
        assert "Your Saver game from server a cannot be put in place here" in text, text
        b.wait_log(rf"hosted files not restored user={name} game=saver gen={gen} from=a: they "
                   rf"were copied as uid={games.pw_uid} gid={games.pw_gid}, games here run as "
                   rf"uid={nobody.pw_uid} gid={nobody.pw_gid}")
        assert not (b.dir / "games" / "saver").exists() or not list(
            (b.dir / "games" / "saver").iterdir()), "nothing started"
        assert file_set(b, name)[1] == "a", "b did not take the set"


def test_a_game_rewriting_big_files_keeps_to_its_copy_rate(bindir, tmp_path, clients):
    """A hostile game rewrites 512 KB of files every 0.1 s for a second,
    then lets them be for 2.5 s, over and over (ptytoy churn quiet: a
    copy is only of files still for 2 s), writing to its terminal every
    0.1 s. With copy-rate 64 (KB/s) each copy of its set waits 8 s after
    the last (512 KB / 64 KB/s), not 2: at most 2 copies stored in 14 s
    (4 without the budget, one each time its files are still), the
    copies held back counted in warren-admin health and said once in the
    log; the copy at its end is not held back and takes its last state."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, mode="churn 512 quiet",
                          section="copy-rate = 64\n")
        name = unique_name("hr")
        p = play(clients, a, name, register=True)
        p.wait_for(re.compile(r"churn \d+"))
        end = time.time() + 15
        while not file_set(a, name):  # its first copy
            assert time.time() < end
            time.sleep(0.2)
        _, _, stored, held = copy_counts(bindir, a, throttled=True)
        t0 = time.time()
        while time.time() - t0 < 14:
            p.pump(quiet=0.5, limit=1)
        _, _, stored2, held2 = copy_counts(bindir, a, throttled=True)
        assert stored2 - stored <= 2, (stored, stored2)
        assert stored2 - stored >= 1, "a copy within the budget still happens"
        assert held2 - held >= 1, (held, held2)
        a.wait_log(rf"hosted copies of user={name} game=saver held back by copy-rate "
                   r"\(64 KB/s\): the next in [1-8] s")
        said = a.log().count(f"hosted copies of user={name} game=saver held back")
        assert said == 1, "said once a game"
        p.send("q")
        ended = time.time()
        rows = []
        while time.time() - ended < 5:  # well within the 8 s it would wait
            rows = a.db_rows("SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                             "WHERE u.name = ? AND f.game = 'saver' AND f.path = 'save/state'",
                             name)
            if rows and bytes(rows[0][0]).startswith(b"end "):
                break
            time.sleep(0.2)
        assert rows and bytes(rows[0][0]).startswith(b"end "), rows
        last = int(bytes(rows[0][0])[4:])
        big = a.db_rows("SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                        "WHERE u.name = ? AND f.game = 'saver' AND f.path = 'save/big'", name)
        assert bytes(big[0][0]).startswith(str(last).encode() + b"\0"), "its last files"


def test_a_save_being_written_is_not_copied_half_written(bindir, tmp_path, clients):
    """A game that writes its save in place and slowly (ptytoy slowsaver:
    half, a second's sleep, the rest) while it draws: no copy taken while
    it runs is ever of half a save (the set must have been still for a
    while before the read, and stay so through it). Its whole save is
    still copied while it runs, once it is still, and at its end."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, mode="slowsaver")
        name = unique_name("hw")
        p = play(clients, a, name, register=True)
        p.wait_for("nothing saved")
        seen = set()

        def stored():
            rows = a.db_rows("SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                             "WHERE u.name = ? AND f.game = 'saver' AND f.path = 'save/state'",
                             name)
            if rows:
                seen.add(bytes(rows[0][0]))
            return bytes(rows[0][0]) if rows else None

        text = ""
        for ch in "abc":
            text += ch
            p.send(ch)
            p.wait_for("half")
            end = time.time() + 2.5  # its half lies on disk a second; copies are asked meanwhile
            while time.time() < end:
                stored()
                time.sleep(0.05)
            p.wait_for(f"state: [{text}]")
        whole = (b"[abc]".ljust(4092, b".") + b"end\n")
        end = time.time() + 15
        while stored() != whole:  # the game still runs: not its last copy
            assert time.time() < end, seen
            p.send("1")  # output, and so copies asked for, as a game draws
            p.wait_for("state: [abc]")
            time.sleep(0.3)
        half = [s[:40] for s in seen if len(s) != 4096 or not s.endswith(b"end\n")]
        assert not half, f"half a save copied: {half}"
        assert re.search(rf"hosted files of user={name} game=saver put off: .+ changed within "
                         r"2000 ms of the read: copied once still", a.log())
        p.send("q")


def end_at_once(clients, a, prefix, n=3):
    """n players of a's ptytoy churn (which rewrites its files every 0.1 s,
    so no copy is taken while it runs: the last is each player's only
    one), their games ended at once: killed while the spawner is stopped
    (a busy machine's, reaping them together). Returns their names."""
    names = [unique_name(f"{prefix}{i}x") for i in range(n)]
    players = [play(clients, a, name, register=True) for name in names]
    for p in players:
        p.wait_for(re.compile(r"churn [1-9]\d*"))
    pids = [int(re.search(rf"hosted start user={n} game=saver pid=(\d+)", a.log()).group(1))
            for n in names]
    spawner = spawner_of(a)
    os.kill(spawner, signal.SIGSTOP)
    try:
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)  # all ended, none reaped yet
    finally:
        os.kill(spawner, signal.SIGCONT)
    for name in names:
        a.wait_log(rf"program exited user={name} game=saver")
    return names


def last_copies_stored(a, names):
    """Waits until each of names' last copy is stored."""
    end = time.time() + 15
    for name in names:
        while not (rows := a.db_rows(
                "SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                "WHERE u.name = ? AND f.game = 'saver' AND f.path = 'save/state'", name)):
            assert time.time() < end, (name, a.log()[-3000:])
            time.sleep(0.2)
        assert bytes(rows[0][0]).isdigit(), rows


def test_last_copies_of_games_ending_at_once_wait_for_a_place(bindir, tmp_path, clients):
    """Games that end at once, with more last copies than the spawner
    reads at once (--test-copies 1 here, 32 in service): each last copy
    waits for a place and is stored, none is dropped."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, more=("--test-copies", 1), mode="churn 1")
        last_copies_stored(a, end_at_once(clients, a, "lc"))


def test_last_copies_the_spawners_jobs_have_no_place_for_are_asked_again(
        bindir, tmp_path, clients):
    """Games that end at once, with more last copies than the spawner has
    jobs for (--test-jobs 1 here, 64 in service, shared with rc files,
    xlogfiles and restores): the spawner's refusal is asked again, said
    once a game and counted in health; each last copy is stored."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, more=("--test-jobs", 1), mode="churn 1")
        names = end_at_once(clients, a, "lj", n=4)
        last_copies_stored(a, names)
        log = a.log()
        told = re.findall(r"hosted files of user=(\S+) game=saver: .*: its last copy asked "
                          r"again", log)
        assert told and len(told) == len(set(told)), log[-3000:]
        out = admin(bindir, a, "health")
        m = re.search(r"(\d+) last copies asked again for a place", out)
        assert m and int(m.group(1)) >= len(told), out


def test_last_copies_waiting_for_a_place_are_stored_in_the_order_games_ended(
        bindir, tmp_path, clients):
    """The spawner's one files read (--test-copies 1) held (its child
    stopped) while games end one after another: their last copies wait in
    a queue, first in first out; once the held read is let go, each is
    stored in the order its game ended, none given up, and a running
    game's reads take no place before them."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, mode="churn 1", more=("--test-copies", 1))
        holder = unique_name("qh")
        h = clients(a.port, cols=100, rows=30)
        h.register(holder)
        h.send("1", settle=False)
        a.wait_log(rf"hosted files of user={holder} game=saver put off")  # it runs, is read
        names = [unique_name(f"q{i}x") for i in range(3)]  # (4 games an address)
        players = [clients(a.port, cols=100, rows=30) for _ in names]
        for p, name in zip(players, names):
            p.register(name)  # at the menu: the holder's is the one game read
        measurer_started(a)
        child = hold_next_child(spawner_of(a), lambda: None)  # the holder's next read
        try:
            for p in players:  # started with the one place held (the read's 8 s)
                p.send("1", settle=False)
            for p in players:
                p.wait_for(re.compile(r"churn [1-9]\d*"))
            for i, name in enumerate(names):
                os.kill(program_of(a, name), signal.SIGKILL)
                a.wait_log(rf"user={name} game=saver: .*: its last copy asked again")
                time.sleep(0.13 * (i + 1))  # each waiting at its own phase of 0.5 s
        finally:
            os.kill(child, signal.SIGCONT)
        last_copies_stored(a, names)
        log = a.log()
        ended = re.findall(r"program exited user=(q\dx\w*) game=saver", log)
        stored = re.findall(r"hosted files of user=(q\dx\w*) game=saver: last copy stored", log)
        assert ended == names and stored == names, (ended, stored, log[-4000:])
        assert "last copy given up" not in log, log[-3000:]
        assert copy_fates(bindir, a)[1] == 0


def program_of(a, name):
    """The pid of name's newest saver program on a."""
    return int(re.findall(rf"hosted start user={name} game=saver pid=(\d+)", a.log())[-1])


def copy_fates(bindir, a):
    """health's last copies asked again, given up, and reads refused."""
    out = admin(bindir, a, "health")
    m = re.search(r"(\d+) last copies asked again for a place, (\d+) last copies given up, "
                  r"(\d+) reads refused while games ran", out)
    assert m, out
    return tuple(int(x) for x in m.groups())


def measurer_started(a):
    """Waits until a's spawner has forked its disk measurer (which lives
    on), so that a child held next is not it."""
    end = time.time() + 10
    while not re.search(r"spawner: disk measurer pid=\d+ started", a.log()):
        assert time.time() < end, a.log()[-3000:]
        time.sleep(0.05)


def test_a_last_copy_that_never_finds_a_place_is_given_up(bindir, tmp_path, clients):
    """The spawner's one files read (--test-copies 1) held by a read whose
    child never ends (held stopped, as on a hung disk): a running game's
    reads are refused, said once and counted; its last copy is asked
    again --test-copy-retries times, then given up: said once, naming the
    player, counted in health, nothing asked after. Once the spawner has
    room, the same player's next game's last copy is stored."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, mode="churn 1",
                          more=("--test-copies", 1, "--test-copy-retries", 2))
        holder, name = unique_name("gh"), unique_name("gu")
        h, p = clients(a.port, cols=100, rows=30), clients(a.port, cols=100, rows=30)
        h.register(holder)
        p.register(name)
        h.send("1", settle=False)  # (its screen is never still: the log says when it runs)
        a.wait_log(rf"hosted files of user={holder} game=saver put off")  # it runs, is read
        measurer_started(a)
        child = hold_next_child(spawner_of(a), lambda: None)  # the holder's next read
        try:
            p.send("1", settle=False)
            a.wait_log(rf"user={name} game=saver not read while it runs: many")
            time.sleep(2.2)  # its reads refused meanwhile, one every 2 s
            os.kill(program_of(a, name), signal.SIGKILL)
            a.wait_log(rf"hosted files of user={name} game=saver: last copy given up after 2 "
                       r"tries in 1 s \(.*\): its files stay on this node's disk")
            before = copy_fates(bindir, a)
            time.sleep(1.5)
            assert copy_fates(bindir, a)[:2] == before[:2]  # nothing asked after
        finally:
            with contextlib.suppress(ProcessLookupError):  # killed at its deadline
                os.kill(child, signal.SIGCONT)
        log = a.log()
        assert len(re.findall(rf"user={name} game=saver: last copy given up", log)) == 1, log
        assert len(re.findall(rf"user={name} game=saver not read", log)) == 1, log[-3000:]
        assert re.search(rf"user={name} game=saver: [2-9] reads refused while it ran", log), log
        asked, given_up, refused = before
        assert asked >= 2 and given_up == 1 and refused >= 2, before
        p = clients(a.port, cols=100, rows=30)
        p.login(name)
        p.send("1", settle=False)
        a.wait_log(rf"hosted start user={name} game=saver")
        time.sleep(0.5)  # save/state written
        os.kill(program_of(a, name), signal.SIGKILL)
        last_copies_stored(a, [name])
        assert copy_fates(bindir, a)[1] == 1


def test_a_shutdown_gives_up_a_last_copy_that_finds_no_place(bindir, tmp_path, clients):
    """warrend stopping while the spawner's one files read (--test-copies
    1) is held, its child stopped: the other game's last copy is given up
    at --test-copy-retries (said once), the held read is waited for, and
    the daemon ends well (status 0, no sanitizer report: nothing leaks)."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, mode="churn 1",
                          more=("--test-copies", 1, "--test-copy-retries", 2))
        names = [unique_name("sh"), unique_name("su")]
        players = [clients(a.port, cols=100, rows=30) for _ in names]
        for p, name in zip(players, names):
            p.register(name)
            p.send("1", settle=False)
            a.wait_log(rf"hosted start user={name} game=saver")
        measurer_started(a)
        child = hold_next_child(spawner_of(a), lambda: None)  # a running game's read
        try:
            a.proc.send_signal(signal.SIGTERM)
            a.wait_log(r"user=(sh|su)\w+ game=saver: last copy given up after 2 tries in 1 s")
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGCONT)
        code, log = a.proc.wait(timeout=30), a.log()  # (a second SIGTERM would kill it)
        assert code == 0 and "warrend stopped" in log, (code, log[-3000:])
        assert not any(w in log for w in SANITIZER_WORDS), log[-3000:]
        assert len(re.findall(r"last copy given up", log)) == 1, log[-3000:]


def still_runs_on_a(clients, b, name):
    """Through 1.8 lease times (past a lapsed heartbeat's time, within a
    held read's deadline) b tells name's player the game still runs on
    server a: b never starts it from the copy before."""
    end = time.time() + 1.8 * TTL_MS / 1000
    while time.time() < end:
        q = play(clients, b, name)
        text = shown(q, *SAID, timeout=20)
        assert "still runs on server a" in text, text
        q.close()
        time.sleep(0.5)


def test_a_stopping_node_keeps_its_games_until_their_last_copies_are_stored(
        bindir, tmp_path, clients):
    """warrend stopping while a hosted game's newest files are not copied
    yet (the read of them held, its child stopped, as on a slow disk): its
    heartbeat goes on until that last copy is stored, so another node never
    starts the game from the copy before (the player's last moves lost);
    once stored, the node lets its leases go and ends, and the other node
    restores the newest copy."""
    with Nodes(bindir, tmp_path) as nodes:
        a, b = start_pair(nodes, tmp_path, section="start-timeout = 9\n")  # the held read's
        name, p, (gen, _, _) = saved(clients, a, "hk", "abc")
        measurer_started(a)
        child = hold_next_child(spawner_of(a), lambda: p.send("d"))  # the read of abcd
        try:
            p.wait_for("state: [abcd]")
            a.proc.send_signal(signal.SIGTERM)
            a.wait_log(rf"program exited user={name} game=saver")
            still_runs_on_a(clients, b, name)
            log = a.log()
            assert ("node a: heartbeat and leases kept until 1 hosted games' last copies are "
                    "stored or given up") in log, log[-3000:]
            assert "game leases released" not in log, log[-3000:]
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGCONT)
        code, log = a.proc.wait(timeout=30), a.log()
        assert code == 0 and "warrend stopped" in log, (code, log[-3000:])
        assert not any(w in log for w in SANITIZER_WORDS), log[-3000:]
        q, text = back_on(clients, b, name, "restored: [abcd]")
        b.wait_log(rf"hosted files restored user={name} game=saver gen={gen + 1} from=a")
        assert "not stored" not in log, log[-3000:]
        q.send("q")


def test_a_game_whose_player_quit_runs_on_its_node_until_its_last_copy_is_stored(
        bindir, tmp_path, clients):
    """The player quits a hosted game on node a while its newest files are
    not copied yet (the read of them held, its child stopped, as on a slow
    disk): a's heartbeat goes on naming the game, so node b tells the
    player it still runs on a instead of starting it from the copy before
    (the player's last moves lost); once the last copy is stored, b
    restores the newest state."""
    with Nodes(bindir, tmp_path) as nodes:
        a, b = start_pair(nodes, tmp_path, section="start-timeout = 9\n")  # the held read's
        name, p, (gen, _, _) = saved(clients, a, "hq", "abc")
        measurer_started(a)
        child = hold_next_child(spawner_of(a), lambda: p.send("dq"))  # a read of abcd
        try:
            a.wait_log(rf"program exited user={name} game=saver")
            still_runs_on_a(clients, b, name)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGCONT)
        q, text = back_on(clients, b, name, "restored: [abcd]")
        b.wait_log(rf"hosted files restored user={name} game=saver gen={gen + 1} from=a")
        log = a.log()
        assert "not stored" not in log and "given up" not in log, log[-3000:]
        q.send("q")


def test_a_directory_of_too_many_entries_is_over_copy_max_and_not_walked_whole(
        bindir, tmp_path, clients):
    """A hostile game makes 20,000 empty directories in its player's
    directory (ptytoy fill dirs; no disk caps, so no measurement stops
    it, and no file cap counts directories) and draws on: each copy's
    walk stops at HOSTFILES_WALK_MAX (4096) entries and the set is over
    copy-max (logged, the set marked), and the spawner serves another
    player's start meanwhile. BENCH: the spawner's CPU (its copies'
    reads included) while it draws for 10 s."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, mode="fill dirs 20000 echo",
                          section="disk = 0\ndisk-files = 0\n")
        name = unique_name("hd")
        p = play(clients, a, name, register=True)
        p.wait_for("filled 20000", timeout=60)
        time.sleep(3)  # still: its copies read
        cpu, t0 = spawner_cpu(a), time.time()
        for i in range(40):
            p.send("k")
            p.wait_for(f"key {i + 1}")
            time.sleep(0.25)
        took = time.time() - t0
        print(f"BENCH hosted.copies.dirs20000.spawner_cpu_pct "
              f"{100 * (spawner_cpu(a) - cpu) / took:.1f}")
        a.wait_log(rf"hosted files over copy-max user={name} game=saver \(1 MB\): more than "
                   r"4096 files and directories to look through: not copied", timeout=20)
        assert file_set(a, name)[2] == -1, "the set marked over"
        other = unique_name("ho")
        t = time.time()
        q = play(clients, a, other, register=True)
        q.wait_for("filled 20000", timeout=60)
        assert time.time() - t < 30
        q.send("q")
        p.send("q")


PTRACE_SYSCALL, PTRACE_SETOPTIONS, PTRACE_GET_SYSCALL_INFO = 24, 0x4200, 0x420e
PTRACE_O_TRACESYSGOOD, SYSCALL_ENTRY = 1, 1
SENDTO = {"x86_64": 44, "aarch64": 206}.get(platform.machine())


def at_sendto(pid):
    """pid stopped at a syscall: the first byte it is about to send
    (sendto's entry), else None."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    info = ctypes.create_string_buffer(88)
    if libc.ptrace(PTRACE_GET_SYSCALL_INFO, pid, ctypes.c_void_p(88), info) < 24 + 8 * 3:
        return None
    nr, _, buf = struct.unpack_from("<3Q", info.raw, 24)
    if info.raw[0] != SYSCALL_ENTRY or nr != SENDTO:
        return None
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(buf)
        return mem.read(1)[0]


def held_at_report(child):
    """child (traced, at its first stop) run on to the report it sends
    its spawner: held there when it is a read's that worked (its first
    byte 1: files read, not yet answered), True; else let go, False."""
    ptrace(PTRACE_SETOPTIONS, child, PTRACE_O_TRACESYSGOOD)
    sig = 0
    while True:
        ptrace(PTRACE_SYSCALL, child, sig)
        _, st = os.waitpid(child, WALL)
        if not os.WIFSTOPPED(st):
            return False
        stop = os.WSTOPSIG(st)
        sig = 0 if stop in (signal.SIGTRAP, signal.SIGTRAP | 0x80, signal.SIGSTOP) else stop
        first = at_sendto(child) if stop == signal.SIGTRAP | 0x80 else None
        if first is not None:
            if first != 1:
                ptrace(PTRACE_DETACH, child)
            return first == 1


def hold_next_copy(spawner, start):
    """The spawner's next child whose read of a player's files worked,
    held stopped once it read them, before it reports (its copy answered
    late, as a slow disk's); the children before it go on. start() makes
    the request. Returns the child, traced: PTRACE_DETACH lets it go."""
    assert SENDTO, platform.machine()
    ptrace(PTRACE_SEIZE, spawner, PTRACE_O_TRACEFORK)
    start()
    while True:
        _, st = os.waitpid(spawner, WALL)
        if st >> 8 != signal.SIGTRAP | PTRACE_EVENT_FORK << 8:
            ptrace(PTRACE_CONT, spawner, os.WSTOPSIG(st) if os.WIFSTOPPED(st) else 0)
            continue
        msg = ctypes.c_ulong()
        ptrace(PTRACE_GETEVENTMSG, spawner, ctypes.addressof(msg))
        os.waitpid(msg.value, WALL)  # its first stop, traced
        if held_at_report(msg.value):
            ptrace(PTRACE_DETACH, spawner)
            return msg.value
        ptrace(PTRACE_CONT, spawner, 0)


def stored_state(d, name):
    rows = d.db_rows("SELECT f.data FROM hosted_files f JOIN users u ON u.id = f.user "
                     "WHERE u.name = ? AND f.game = 'saver' AND f.path = 'save/state'", name)
    return bytes(rows[0][0]) if rows else None


def test_a_copy_of_the_run_before_never_lands_on_the_new_runs(bindir, tmp_path, clients):
    """The player quits and starts the same game again at once while the
    last copy of the run before has read its files but is not stored yet
    (its read held before it reports, as on a slow disk). The new run
    plays, its copies are stored; the older copy, answered after them, is
    not stored over them (logged): the database ends with the newest
    run's files, never goes back to older ones."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, section="start-timeout = 9\n")  # the held read's
        name, p, _ = saved(clients, a, "hn", "abc")
        measurer_started(a)
        child = hold_next_copy(spawner_of(a), lambda: p.send("dq"))  # the last copy: abcd
        try:
            a.wait_log(rf"program exited user={name} game=saver")
            q = play(clients, a, name)  # at once
            q.wait_for("restored: [abcd]")
            q.send("e")
            q.wait_for("state: [abcde]")
            q.send("q")
            a.wait_log(rf"hosted files of user={name} game=saver: last copy stored")
            assert stored_state(a, name) == b"abcde"
        finally:
            with contextlib.suppress(ProcessLookupError):
                ptrace(PTRACE_DETACH, child)
        # the older copy answered: stored (the database back to abcd) or not
        a.wait_log(rf"hosted files of user={name} game=saver: (last copy stored|a copy not "
                   "stored)")
        time.sleep(0.5)  # (the writer's queue)
        assert stored_state(a, name) == b"abcde", "the run before's copy over the newest"
        log = a.log()
        assert re.search(rf"hosted files of user={name} game=saver: a copy not stored: its next "
                         "run's, read after it, is stored already", log), log[-3000:]
        assert "given up" not in log, log[-3000:]

def test_a_place_freed_by_other_spawner_work_is_taken_by_a_waiting_last_copy(
        bindir, tmp_path, clients):
    """The spawner's one job (--test-jobs 1) held by a player's xlogfile
    read (its child stopped) while another game ends: that game's last
    copy waits for a place; the held read let go, its answer frees the
    place and the waiting last copy is asked again at once and stored,
    not at the queue's fallback timer (--test-copy-retries 1: the first
    tick of that timer would give it up)."""
    with Nodes(bindir, tmp_path) as nodes:
        a, _ = start_pair(nodes, tmp_path, more=("--test-jobs", 1, "--test-copy-retries", 1),
                          section="xlogfile = %d/xlog\nstart-timeout = 9\n")
        holder, _, _ = saved(clients, a, "px", "h")
        name, p, _ = saved(clients, a, "pw", "b")
        measurer_started(a)
        child = hold_next_child(spawner_of(a),
                                lambda: os.kill(program_of(a, holder), signal.SIGKILL))
        try:  # the holder's xlogfile read holds the one job
            p.send("z")  # written; its reads refused meanwhile (no job)
            p.wait_for("state: [bz]")
            os.kill(program_of(a, name), signal.SIGKILL)
            a.wait_log(rf"hosted files of user={name} game=saver: .*: its last copy asked again")
        finally:
            os.kill(child, signal.SIGCONT)
        a.wait_log(rf"hosted files of user={name} game=saver: last copy stored")
        copied(a, name, "save/state", b"bz")  # (the writer's queue)
        log = a.log()
        assert f"user={name} game=saver: last copy given up" not in log, log[-3000:]
