"""warrend at scale: the listen backlog it asks the kernel for."""
import pathlib
import subprocess


def listen_backlog(port):
    """The backlog of the listening socket on port, as the kernel holds it
    (ss's Send-Q column for a listener)."""
    out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out and out[0] == "LISTEN", out
    return int(out[2])


def somaxconn():
    return int(pathlib.Path("/proc/sys/net/core/somaxconn").read_text())


def test_listen_backlog_is_the_setting_clamped_by_somaxconn(start_daemon):
    d = start_daemon()
    assert listen_backlog(d.port) == min(4096, somaxconn())
    small = start_daemon(extra=["--listen-backlog", "100"])
    assert listen_backlog(small.port) == 100
    big = start_daemon(extra=["--listen-backlog", "1000000"])
    assert listen_backlog(big.port) == somaxconn()
    assert f"listen-backlog 1000000 is over net.core.somaxconn: {somaxconn()}" in big.log()
