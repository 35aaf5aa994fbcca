"""bin/warren-load against the real daemon: every session gets to play, the
keys it counts as answered are keys the daemon journalled, failures are
counted, and its command line behaves."""
import re
import subprocess
import time

from harness import Daemon, admin


def load_path(bindir):
    asan = bindir / "asan" / "warren-load"
    return asan if asan.exists() else bindir / "warren-load"


def run_load(bindir, daemon, *args):
    cmd = [str(load_path(bindir)), "--port", str(daemon.port), "--tag", ".t", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def bench(out):
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^BENCH (\S+) (\S+)$", out, re.M)}


def window(out):
    m = re.search(r"^# window .*: keys sent (\d+), answered (\d+), late (\d+), unanswered (\d+)",
                  out, re.M)
    assert m, out
    return [int(g) for g in m.groups()]


def journal_rows(d):
    return d.db_rows("select count(*), count(distinct game) from journal")[0]


def test_players_and_watchers_play(bindir, tmp_path):
    d = Daemon(bindir, tmp_path).start()
    try:
        r = run_load(bindir, d, "--n", "6", "--m", "2", "--seconds", "2", "--warmup", "0",
                     "--interval", "0.2", "--pid", str(d.proc.pid))
    finally:
        d.stop()
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert re.search(r"^# ramp-up: 8 of 8 sessions in play", r.stdout, re.M), out
    b = bench(r.stdout)
    assert b["server.sessions.failed.t"] == 0
    assert b["server.rampup.ms.t"] > 0
    sent, answered, _late, unanswered = window(r.stdout)
    assert answered > 0 and answered == sent and unanswered == 0, out
    assert b["server.keys_per_s.t"] == answered / 2
    assert 0 < b["server.latency.p50.us.t"] <= b["server.latency.p99.us.t"]
    assert "server.keys.late.t" in b and "server.rss.per_session.bytes.t" in b
    # the daemon's CPU over the window per answered key (the benchmark's goal line)
    assert b["server.cpu_per_key.us.t"] >= 0
    assert "server.watch.delay.p99.us" in b
    assert re.search(r"^# watcher delay .*\((\d+) frames\)", r.stdout, re.M).group(1) != "0", out
    # With no warm-up every key is in the window: the journal holds one
    # character key per game and exactly the keys the tool saw answered
    # (a menu's echo would be an answer without a row).
    rows, games = journal_rows(d)
    assert games >= 6
    assert rows == answered + games


def test_saturate_reports_max_keys_per_second(bindir, tmp_path):
    d = Daemon(bindir, tmp_path, extra=["--input-rate", "1000000"]).start()
    try:
        r = run_load(bindir, d, "--n", "3", "--seconds", "1", "--warmup", "0", "--saturate")
    finally:
        d.stop()
    assert r.returncode == 0, r.stdout + r.stderr
    b = bench(r.stdout)
    sent, answered, _late, unanswered = window(r.stdout)
    assert answered > 3 and unanswered == 0
    assert b["server.keys_per_s.max.t"] == answered
    assert b["server.latency.saturated.p99.us.t"] > 0
    rows, games = journal_rows(d)  # games end and start again when saturated
    assert rows == answered + games


def test_sessions_that_cannot_play_fail_the_run(bindir, tmp_path):
    d = Daemon(bindir, tmp_path, extra=["--max-per-ip", "3"]).start()
    try:
        r = run_load(bindir, d, "--n", "5", "--seconds", "0.5", "--warmup", "0")
    finally:
        d.stop()
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"^# ramp-up: 3 of 5 sessions in play", r.stdout, re.M), r.stdout
    assert bench(r.stdout)["server.sessions.failed.t"] == 2
    assert "Too many connections" in r.stderr


def test_help_and_bad_options(bindir):
    r = subprocess.run([str(load_path(bindir)), "--help"], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 0
    for opt in ("--n", "--m", "--interval", "--saturate", "--inflight", "--seconds", "--pid"):
        assert opt in r.stdout
    r = subprocess.run([str(load_path(bindir)), "--bogus"], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 2 and "unknown option --bogus" in r.stderr and "usage:" in r.stderr
    r = subprocess.run([str(load_path(bindir)), "--n", "zero"], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 2 and "--n" in r.stderr


def test_hosted_nethack_players_and_watchers(bindir, tmp_path):
    """--hosted: players of Debian's NetHack get past its questions and
    move; only moves are timed; --watched spreads the watchers over the
    first games (here one each)."""
    from test_hosted import playground
    _, conf = playground(tmp_path, bindir)
    conf.write_text("hosted-per-ip = 20\n" + conf.read_text())
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        r = run_load(bindir, d, "--hosted", "1", "--n", "3", "--m", "2", "--watched", "2",
                     "--seconds", "3", "--warmup", "0.5", "--interval", "0.3",
                     "--key-timeout", "0.25")
        log = d.log()
    finally:
        d.stop()
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert re.search(r"^# ramp-up: 5 of 5 sessions in play", r.stdout, re.M), out
    assert len(re.findall(r"hosted start user=\S+ game=nethack pid=\d+", log)) == 3, log[-2000:]
    b = bench(r.stdout)
    assert b["server.sessions.failed.t"] == 0
    m = re.search(r"^# hosted: keys answered (\d+) of (\d+) sent", r.stdout, re.M)
    answered, sent = int(m.group(1)), int(m.group(2))
    assert sent > 0 and answered >= sent // 2, out
    assert b["hosted.t.answered"] == round(answered / sent, 3)
    assert 0 < b["hosted.t.p50.ms"] <= b["hosted.t.p99.ms"]
    assert "hosted.t.watch.delay.p99.ms" in b
    # each watcher on its own game: players 0 and 1, the first two started
    watched = {m.group(1) for m in re.finditer(r"watch conn=\d+ user=(\S+) game=", log)}
    assert len(watched) == 2, log[-3000:]


def test_watcher_back_on_its_game_is_timed_apart(bindir, tmp_path):
    """A watcher whose game goes from under it (here the administrator
    ends it) picks its player's next game; the time it was without it is
    its own figure, and the watcher's delay counts only frames it watched."""
    d = Daemon(bindir, tmp_path).start()
    try:
        cmd = [str(load_path(bindir)), "--port", str(d.port), "--tag", ".t", "--n", "1", "--m",
               "1", "--seconds", "4", "--warmup", "0", "--interval", "0.2"]
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) as p:
            name = d.wait_log(r"watch conn=\d+ user=(\S+) game=", timeout=60).group(1)
            time.sleep(1)
            admin(bindir, d, "end", name)
            out, _ = p.communicate(timeout=120)
    finally:
        d.stop()
    assert p.returncode == 0, out
    back = re.search(r"^# watchers back on their game ms: p50 (\S+) p99 (\S+) max (\S+) "
                     r"\((\d+) returns\)", out, re.M)
    assert back and int(back.group(4)) == 1 and float(back.group(3)) > 0, out
    # the watcher followed the player's new game to the end of the run
    assert len(re.findall(r"watch conn=\d+ user=\S+ game=", d.log())) == 2, d.log()[-3000:]
    frames = re.search(r"^# watcher delay us: .*\((\d+) frames\)", out, re.M)
    assert int(frames.group(1)) > 0, out


def typed(d):
    """Each game's journalled keys in order, as text."""
    return [r[0] for r in d.db_rows(
        "select group_concat(cast(keys as text), '') from"
        " (select game, keys from journal order by game, seq) group by game")]


def test_players_key_out_of_step(bindir, tmp_path):
    """In step, every player makes the same move in the same second: all
    games start alike, so at 10,000 players the first step that scrolls
    the view (a dear frame) came 10,000 at once, and the p99 measured that
    herd. Out of step, the players' patterns start apart; --in-step keeps
    the herd for a benchmark that wants it. Each second of the window is
    reported on its own line, with the load tool's own longest pause."""
    def run(mode, *args):
        d = Daemon(bindir, tmp_path / mode).start()
        try:
            r = run_load(bindir, d, "--n", "8", "--seconds", "3", "--warmup", "0", *args)
        finally:
            d.stop()
        assert r.returncode == 0, r.stdout + r.stderr
        return typed(d), r.stdout

    apart, out = run("apart")
    assert len(apart) == 8
    assert len(set(apart)) >= 3, apart  # four phases of the pattern
    seconds = re.findall(r"^# second (\d+): keys (\d+), >=5 ms \d+, >=50 ms \d+, "
                         r"slowest [0-9.]+ ms, load tool's longest tick gap [0-9.]+ ms$", out, re.M)
    assert [int(s) for s, _ in seconds][:3] == [0, 1, 2], out
    assert sum(int(k) for _, k in seconds) == window(out)[1], out
    b = bench(out)
    assert b["server.latency.seconds_over_50ms.t"] >= 0
    assert b["server.load.tick_gap.max.ms.t"] > 0
    same, _ = run("in-step", "--in-step")
    assert len(same) == 8 and len(set(same)) == 1, same  # the herd: one sequence for all
