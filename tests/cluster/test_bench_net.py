"""The benchmarks' network mode (tests/load/netpair.py, bench_net.py): a
short run as two machines gets its frames back over the veth pair from a
daemon that listens on the server's address only, each side's receive
queue steered to its own core; the two namespaces are gone when the run
ends, well or by SIGTERM in the middle, and a dead run's are removed by
the next."""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from cluster import ROOT, netns_list, sh

LOAD = ROOT / "tests" / "load"
sys.path.insert(0, str(LOAD))
from netpair import PREFIX, NetPair, can_make_netns  # noqa: E402


def need_netns():
    why = can_make_netns()
    if why:
        pytest.fail(f"the network mode needs network namespaces: {why}")


def own(pid):
    """The namespaces of the run whose pid is pid."""
    return [n for n in netns_list() if re.fullmatch(rf"{PREFIX}{pid}x\d+-\w+", n)]


def running(pid):
    """True while pid runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def bench_net(bindir, n, secs):
    return subprocess.Popen(["/usr/bin/python3", LOAD / "bench_net.py", bindir, str(n), str(secs)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_short_run_gets_frames_back_and_leaves_nothing(bindir):
    need_netns()
    p = bench_net(bindir, 20, 3)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out
    b = {m[1]: float(m[2]) for m in re.finditer(r"^BENCH (\S+) (\S+)$", out, re.M)}
    assert b["server.sessions.failed.n20.net"] == 0, out
    sent, answered = map(int, re.search(r"^# window .*keys sent (\d+), answered (\d+)", out,
                                        re.M).groups())
    assert answered > 0 and answered == sent, out
    assert 0 < b["server.latency.p50.us.n20.net"] <= b["server.latency.p99.us.n20.net"], out
    assert "server.cpu_per_key.us.n20.net" in b, out
    assert re.search(r"^# net: warrend listens on 10\.213\.0\.1:2323 in ", out, re.M), out
    if (os.cpu_count() or 1) >= 2:  # the daemon's side on core 0, the clients' on core 1
        assert re.search(r"rps_cpus server 0*1, clients 0*2$", out, re.M), out
    assert own(p.pid) == [], netns_list()


def test_sigterm_mid_run_removes_namespaces_and_their_processes(bindir):
    need_netns()
    p = bench_net(bindir, 20, 60)
    deadline = time.time() + 30
    pids = []
    while time.time() < deadline and len(pids) < 2:  # warrend, then warren-load
        pids = [int(x) for ns in own(p.pid) for x in sh("ip", "netns", "pids", ns,
                                                       check=False).split()]
        time.sleep(0.2)
    assert len(pids) >= 2, (own(p.pid), p.poll())
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=120)
    assert own(p.pid) == [], out
    assert not [pid for pid in pids if running(pid)], out


def test_a_dead_runs_namespaces_are_removed_by_the_next():
    need_netns()
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = f"{PREFIX}{dead.pid}x1-srv"
    sh("ip", "netns", "add", stale)
    try:
        with NetPair() as pair:
            assert stale not in netns_list()
            assert sh("ip", "-n", pair.client, "-4", "-o", "addr", "show",
                      "eth0").count("10.213.0.2/30") == 1
    finally:
        sh("ip", "netns", "del", stale, check=False)
    assert own(os.getpid()) == []
