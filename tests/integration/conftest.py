"""Fixtures every suite shares: where the binaries are, a started warrend
that is stopped and checked after the test, and terminal sessions closed
after it. Options for the daemon fixture come from a marker, e.g.
`pytestmark = pytest.mark.daemon(http=True)` (see harness.Daemon).

Under pytest-xdist (`-n 2`, as make test runs them) every worker is a
process of its own: its tmp_path under its own basetemp, its daemons on
ports the kernel hands it, its PostgreSQL cluster (harness.pg_database)
in a directory and schemas of its own. A test marked `alone` times itself
against the clock: it waits until the other workers' tests have ended and
runs with none beside it."""
import fcntl
import os
import pathlib

import pytest

from harness import ROOT, Daemon, Telnet, Term


def pytest_configure(config):
    config.addinivalue_line("markers", "daemon(**options): how the daemon fixture starts warrend")
    config.addinivalue_line("markers", "alone: times itself; no other worker runs a test meanwhile")


@pytest.fixture(autouse=True)
def neighbours(request, tmp_path_factory):
    """With workers (pytest-xdist), each test holds the run's lock shared,
    an `alone` one holds it exclusive. A turnstile taken first keeps a
    worker's next tests from overtaking an `alone` test that waits."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    run = tmp_path_factory.getbasetemp().parent  # the controller's, shared by its workers
    alone = request.node.get_closest_marker("alone") is not None
    with open(run / "turnstile.lock", "a") as turn, open(run / "alone.lock", "a") as lock:
        fcntl.flock(turn, fcntl.LOCK_EX)
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        fcntl.flock(turn, fcntl.LOCK_UN)
        yield


@pytest.fixture(scope="session")
def bindir():
    return pathlib.Path(os.environ.get("WARREN_BIN", ROOT / "bin"))


@pytest.fixture
def start_daemon(bindir, tmp_path):
    """start_daemon(**options) starts a Daemon in a directory of its own under
    tmp_path; each one must end cleanly (status 0, no sanitizer report)."""
    made = []

    def start(**options):
        d = Daemon(bindir, tmp_path / f"daemon{len(made) or ''}", **options)
        made.append(d)
        return d.start()
    yield start
    for d in made:
        d.stop()
    for d in made:
        d.stop_clean()


@pytest.fixture
def daemon(request, start_daemon):
    marker = request.node.get_closest_marker("daemon")
    return start_daemon(**(marker.kwargs if marker else {}))


@pytest.fixture
def clients():
    """clients(port, **kw) is a Telnet, clients.spawn(argv, **kw) any program
    in a pty; every one is closed after the test."""
    made = []

    class Clients:
        def __call__(self, port, **kw):
            return self.add(Telnet(port, **kw))

        def spawn(self, argv, **kw):
            return self.add(Term(argv, **kw))

        @staticmethod
        def add(t):
            made.append(t)
            return t
    yield Clients()
    for t in made:
        t.close()
