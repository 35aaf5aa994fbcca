"""The harness's own promise: what it makes goes away. A namespace left by
a run that died (its pid no longer running) is removed at the next start;
a run removes its own namespaces, and what runs in them, when it ends;
and a namespace of another live run is left alone."""
import os
import subprocess

import pytest

from cluster import PREFIX, Net, can_make_netns, netns_list, sh


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_leftovers_removed_and_own_namespaces_cleaned():
    if not can_make_netns():
        pytest.fail("the cluster tests need network namespaces: run them as root")
    stale = f"{PREFIX}{dead_pid()}-pg1"
    live = f"{PREFIX}1-pg1"  # pid 1 always runs: another run's, kept
    sh("ip", "netns", "add", stale)
    sh("ip", "netns", "add", live)
    net = Net()
    try:
        net.up()
        assert stale not in netns_list()
        assert live in netns_list()
        ns = net.add("n1", "10.77.0.21")
        sleeper = subprocess.Popen(["nsenter", f"--net=/run/netns/{ns}", "sleep", "600"])
        assert sh("ip", "-n", ns, "-4", "-o", "addr", "show", "eth0").count("10.77.0.21/24") == 1
    finally:
        net.down()
        sh("ip", "netns", "del", live, check=False)
    assert sleeper.wait(timeout=10) != 0  # killed with its namespace
    assert not [n for n in netns_list() if n.startswith(f"{PREFIX}{os.getpid()}-")]
