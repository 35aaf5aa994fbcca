"""Watching across nodes under load: three warrend nodes behind HAProxy on
the cluster's PostgreSQL, each with a node-to-node stream on its own
address (--peer-listen, --peers naming the other two). Players key through
HAProxy (bin/warren-load) while a second warren-load runs players on node
1 and their watchers on node 2: every watcher watches a game another node
runs, from node 2's watch list, through the stream.

Figure: cluster.watch.cross_node.delay.p99.us, from a key sent to node 1
to its frame seen by a watcher on node 2 (goal 5,000), and
cluster.watch.cross_node.stream.p99.us, from the player's own frame to
the watcher's (what the stream adds).

WARREN_CLUSTER_WATCH_PLAYERS (20) players through HAProxy and
WARREN_CLUSTER_WATCHERS (5) watched players with one watcher each, for
WARREN_CLUSTER_WATCH_SECONDS (8); make test-cluster runs 270 + 30 players
(300) and 30 watchers. test_combined.py's first step measures the same
(its watched players through HAProxy, on node 1, their watchers on node 3),
then goes on to the failures."""
import os
import re
import subprocess

from conftest import bench
from cluster import TELNET_PORT, node_ip

PLAYERS = int(os.environ.get("WARREN_CLUSTER_WATCH_PLAYERS", "20"))
WATCHERS = int(os.environ.get("WARREN_CLUSTER_WATCHERS", "5"))
SECONDS = float(os.environ.get("WARREN_CLUSTER_WATCH_SECONDS", "8"))
NODES = 3


def load(c, bindir, out, host, n, extra=()):
    return c.client([bindir / "warren-load", "--host", host, "--port", TELNET_PORT, "--n", n,
                     "--seconds", SECONDS, "--warmup", "2", "--interval", "0.5", "--inflight", "32",
                     "--key-timeout", "30", "--ramp-timeout", "60", *extra],
                    stdout=open(out, "w"), stderr=subprocess.STDOUT)


def test_watchers_on_other_nodes_see_frames_within_goal(make_cluster, bindir, tmp_path):
    c = make_cluster(nodes=NODES)
    c.start_pg()
    c.start_nodes(peers=True)
    c.start_haproxy()
    bg = load(c, bindir, tmp_path / "players.out", c.proxy_ip, PLAYERS)
    watched = load(c, bindir, tmp_path / "watched.out", node_ip(1), WATCHERS,
                   ["--m", WATCHERS, "--watched", WATCHERS, "--watch-host", node_ip(2)])
    try:
        rc = watched.wait(timeout=SECONDS * 4 + 180)
        bg_rc = bg.wait(timeout=SECONDS * 4 + 180)
    finally:
        for p in (bg, watched):
            if p.poll() is None:
                p.kill()
                p.wait()
    out = (tmp_path / "watched.out").read_text()
    bg_out = (tmp_path / "players.out").read_text()
    m = re.search(r"# watcher delay from the key us: p50 ([\d.]+) p99 ([\d.]+) max ([\d.]+) "
                  r"\((\d+) frames\)", out)
    s = re.search(r"# watcher delay us: p50 ([\d.]+) p99 ([\d.]+)", out)
    assert m and s, out
    bench("cluster.watch.cross_node.delay.p99.us", m.group(2))
    bench("cluster.watch.cross_node.delay.p50.us", m.group(1))
    bench("cluster.watch.cross_node.stream.p99.us", s.group(2))
    assert rc == 0, out
    assert bg_rc == 0, bg_out
    assert int(m.group(4)) >= WATCHERS, out
    n1, n2 = c.nodes[0].log(), c.nodes[1].log()
    # node 1 streamed each watched game once, to node 2
    fed = set(re.findall(r"peer feed game=(\d+) to=n2 nodes=1", n1))
    assert len(fed) >= WATCHERS, n1[-3000:]
    assert len(re.findall(r"watch conn=\d+ user=\S+ game=\d+ watchers=1", n2)) >= WATCHERS
    assert all(n.alive() for n in c.nodes)
