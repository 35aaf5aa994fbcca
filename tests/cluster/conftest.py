"""Fixtures of the cluster scenarios (cluster.py builds the cluster): the
binaries, and a cluster that is always taken down after the test. The
scenarios need network namespaces, so root: they fail with a clear message
(never skip) where namespaces cannot be made."""
import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cluster import ROOT, Cluster, can_make_netns  # noqa: E402


def pytest_configure(config):
    # the mark of tests/integration's suites, whose helpers some scenarios use
    config.addinivalue_line("markers", "alone: times itself (tests/integration)")


@pytest.fixture(scope="session")
def bindir():
    return pathlib.Path(os.environ.get("WARREN_BIN", ROOT / "bin"))


@pytest.fixture
def make_cluster(bindir, tmp_path):
    """make_cluster(nodes=N, ...) enters a Cluster under tmp_path; it is
    taken down after the test whatever happened."""
    if not can_make_netns():
        pytest.fail("the cluster tests need network namespaces: run them as root "
                    "(ip netns add failed here)")
    made = []

    def make(**kw):
        c = Cluster(tmp_path / f"cluster{len(made) or ''}", bindir, **kw)
        made.append(c)
        return c.__enter__()
    yield make
    for c in made:
        c.close()


def bench(name, value):
    """A BENCH line on the terminal (pytest -s), as make bench prints them."""
    print(f"BENCH {name} {value}", flush=True)
