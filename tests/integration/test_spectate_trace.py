"""The one-game benchmark's core trace (tests/web/coretime.py) reads a
trace as it should, and bin/tools/send_cost measures and refuses bad
arguments."""
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "web"))
import coretime  # noqa: E402

LOOP = 4242


def sends(t0, n, us):
    """n send times from t0 (s), us apart."""
    return [t0 + i * us / 1e6 for i in range(n)]


def test_a_fanout_held_up_by_another_task_stays_one():
    # 2,000 sends at 10 us, 30 ms of another task in the middle, 2,000 more
    # (as a link on the daemon's core does to a frame); then a frame
    # later, a small one (the players' own frames) that is no fan-out.
    first = sends(10.0, 2000, 10)
    second = sends(10.05, 2000, 10)
    small = sends(11.0, 30, 10)
    got = coretime.fanouts(first + second + small, watchers=4000)
    assert len(got) == 1, got
    t0, t1, n = got[0]
    assert n == 4000 and t0 == first[0] and t1 == second[-1]


def test_the_core_is_shared_out_by_task_switches():
    # The loop runs 10.000-10.020, "ld" 10.020-10.050, idle 10.050-10.055,
    # the loop again to 10.070.
    switches = [(9.0, f"warrend:{LOOP}"), (10.020, "ld:7"), (10.050, "swapper/0:0"),
                (10.055, f"warrend:{LOOP}")]
    held = coretime.occupancy(switches, 10.0, 10.070)
    assert abs(held[f"warrend:{LOOP}"] - 0.035) < 1e-9
    assert abs(held["ld:7"] - 0.030) < 1e-9
    assert abs(held["swapper/0:0"] - 0.005) < 1e-9


def send_cost(bindir, *args):
    tool = bindir / "tools" / "send_cost"
    return subprocess.run([str(tool), *args], capture_output=True, text=True, timeout=120)


def test_send_cost_measures_and_refuses_bad_arguments(bindir):
    for extra in ([], ["--reader", "0"], ["--senders", "2"], ["--senders", "2", "--reader", "1"]):
        r = send_cost(bindir, "--sockets", "50", "--rounds", "3", "--gap-ms", "0", *extra)
        assert r.returncode == 0, r.stderr
        tag = r"\.senders2" if "--senders" in extra else ""
        m = re.fullmatch(rf"BENCH web\.send_cost{tag}(\.reader)?\.us (\d+\.\d\d)\n"
                         rf"BENCH web\.send_cost{tag}\.fanout\.ms (\d+\.\d\d)\n"
                         rf"BENCH web\.send_cost{tag}\.fanout\.max\.ms (\d+\.\d\d)\n", r.stdout)
        assert m and bool(m.group(1)) == ("--reader" in extra), r.stdout
        us, wall, worst = (float(m.group(i)) for i in (2, 3, 4))
        assert us > 0 and 0 <= wall <= worst, r.stdout
    for bad in (["--sockets", "0"], ["--sockets", "100000"], ["--rounds", "2"],
                ["--bytes", "0"], ["--gap-ms", "-1"], ["--nonsense", "1"], ["--sockets"],
                ["--senders", "0"], ["--senders", "9"], ["--sockets", "2", "--senders", "3"]):
        r = send_cost(bindir, *bad)
        assert r.returncode == 2 and r.stdout == "" and "usage: send_cost" in r.stderr, (bad, r)
