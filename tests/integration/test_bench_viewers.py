"""tests/load/bench-server.sh with WARREN_BENCH_ONLY=viewers: rounds of a
plain run and a run with viewers in alternating order, each round's p99s,
and the medians under the names one pair gives, their ratios, the spread
and the home loop's turn CPU."""
import os
import pathlib
import re
import statistics
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
ROUND = re.compile(r"^# round (\d+) \((plain|viewers) first\): p99 us plain ([0-9.]+) "
                   r"viewers ([0-9.]+) ratio ([0-9.]+); cpu_per_key us plain ([0-9.]+) "
                   r"viewers ([0-9.]+) ratio ([0-9.]+); turn_cpu p99 us plain ([0-9.]+) "
                   r"viewers ([0-9.]+)$", re.M)


def test_viewers_rounds_report_medians(bindir):
    n, rounds = 40, 3
    env = dict(os.environ, WARREN_BENCH_ONLY="viewers", WARREN_BENCH_N=str(n),
               WARREN_BENCH_ROUNDS=str(rounds), WARREN_BENCH_SECONDS="2")
    r = subprocess.run([str(ROOT / "tests/load/bench-server.sh"), str(bindir)], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.stdout, r.stderr)
    out = r.stdout
    got = ROUND.findall(out)
    assert [(int(g[0]), g[1]) for g in got] == [(1, "plain"), (2, "viewers"), (3, "plain")], out
    b = {m.group(1): float(m.group(2)) for m in re.finditer(r"^BENCH (\S+) ([-0-9.e+]+)$", out, re.M)}
    tag = f"n{n}"
    plain = [float(g[2]) for g in got]
    viewed = [float(g[3]) for g in got]
    # every player played and answered in every run
    assert b[f"server.sessions.failed.{tag}"] == 0 and b[f"server.sessions.failed.{tag}.viewers"] == 0
    # the medians over the rounds under the names of one pair, and their ratios
    assert b[f"server.latency.p99.us.{tag}"] == statistics.median(plain), out
    assert b[f"server.latency.p99.us.{tag}.viewers"] == statistics.median(viewed), out
    assert b[f"server.latency.p99.{tag}.viewers_over_plain.ratio"] == \
        round(statistics.median(viewed) / statistics.median(plain), 2), out
    cpu = statistics.median(float(g[6]) for g in got) / statistics.median(float(g[5]) for g in got)
    assert abs(b[f"server.cpu_per_key.{tag}.viewers_over_plain.ratio"] - cpu) <= 0.011, out
    spread = (max(plain) - min(plain)) / statistics.median(plain)
    assert abs(b[f"server.latency.p99.{tag}.spread"] - spread) <= 0.006, out
    assert f"server.latency.p99.{tag}.viewers.spread" in b, out
    # the daemon's own turns in each window: measured, and their ratio given
    assert b[f"server.loop.turns.{tag}"] > 0 and b[f"server.loop.turns.{tag}.viewers"] > 0, out
    assert b[f"server.loop.turn_cpu.p99.us.{tag}"] > 0, out
    assert f"server.loop.turn_cpu.p99.{tag}.viewers_over_plain.ratio" in b, out
