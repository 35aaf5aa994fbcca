"""The harness itself, against a real program in a pty: wait_for returns
a whole screen, not the part of it that held the needle when the output
was still coming. And against a real daemon: wait_logged finds a line
logged before the last line wait_log matched, which wait_log never does."""
import sys
import time

import pytest

from harness import Term

# The needle, then a count every 5 ms for 0.4 s (never quiet for wait_for's
# 50 ms, so its pump stops at its 0.2 s limit in the middle), then the
# screen's last line and a long quiet.
SCREEN = r"""
import os, sys, time
os.write(1, b"Place on the high scores: #1.\r\n")
for i in range(80):
    time.sleep(0.005)
    os.write(1, b"\r%05d" % i)
os.write(1, b"\r\nIts page: here\r\n")
time.sleep(30)
"""

FLOOD = r"""
import os, time
os.write(1, b"ready\r\n")
for i in range(10 ** 9):
    os.write(1, b"\r%09d" % i)
    time.sleep(0.001)
"""


def test_a_match_is_returned_with_the_rest_of_its_screen(clients):
    t = clients.spawn([sys.executable, "-c", SCREEN])
    screen = t.wait_for("Place on the high scores")
    assert "Its page: here" in screen, screen
    assert t.quiet, "returned while the screen still came"


def test_a_program_that_never_goes_quiet_still_matches(clients):
    """Reading on past a match is bounded: a flood is matched within
    Term.READ_ON of the needle."""
    t = clients.spawn([sys.executable, "-c", FLOOD])
    t0 = time.monotonic()
    t.wait_for("ready")
    assert time.monotonic() - t0 < Term.READ_ON + 2
    assert not t.quiet


def test_wait_logged_finds_a_line_before_the_last_match(daemon):
    """start waited for "ready"; the telnet listener was logged before it
    (as one loop's line may come before another's the test waited for)."""
    port = rf"listening telnet 127\.0\.0\.1:{daemon.port}\b"
    with pytest.raises(AssertionError, match="no log line"):
        daemon.wait_log(port, timeout=0.5)
    ready = daemon.logpos
    assert daemon.wait_logged(port).group(0) == f"listening telnet 127.0.0.1:{daemon.port}"
    assert daemon.logpos == ready  # wait_log goes on after the later of the two
    with pytest.raises(AssertionError, match="no log line"):
        daemon.wait_logged(r"never logged", timeout=0.3)
