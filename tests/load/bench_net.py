#!/usr/bin/python3
"""N players keying once a second, the daemon and the load tool as two
machines (tests/load/netpair.py): warrend in the server's namespace on
core 0, listening on 10.213.0.1 only, bin/warren-load in the clients'
namespace on core 1, each side's receive work on its own core.

  tests/load/bench_net.py BINDIR [N] [SECONDS] [--loopback]

Prints warren-load's BENCH lines tagged .nN.net (server.latency.p50.us,
.p99.us, server.cpu_per_key.us: the daemon's CPU per answered key, ...),
and as comments the NET_RX softirqs each CPU ran during the run (where
the receive work went). --loopback: the same run over 127.0.0.1 without
namespaces (tag .nN), to compare in one sitting. Without root it prints
why it was skipped and exits 0. Exits 1 when warren-load fails.
"""
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from netpair import NetPair, can_make_netns, net_rx, pin

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import rate_off  # noqa: E402

TELNET = 2323


def wait_ready(proc, log, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        if "recovery done" in text:
            return
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit(f"bench_net: warrend did not start:\n{log.read_text(errors='replace')[-3000:]}")


def daemon_argv(bindir, tmp, addr):
    return [bindir / "warrend", "--telnet", f"{addr}:{TELNET}", "--http", "", "--db",
            tmp / "net.db", "--test-hooks", "--register-per-hour", "0", "--max-connections",
            "20000", "--max-per-ip", "20000", "--grace", "600", *rate_off(bindir / "warrend")]


def load_argv(bindir, addr, n, secs, tag, pid):
    return [bindir / "warren-load", "--host", addr, "--port", TELNET, "--n", n, "--m", "0",
            "--tag", tag, "--seconds", secs, "--pid", pid]


def run(bindir, tmp, n, secs, pair):
    """One daemon, one warren-load run; returns warren-load's status."""
    addr = pair.server_ip if pair else "127.0.0.1"
    srv = pair.server_cmd if pair else (lambda a: pin(0) + [str(x) for x in a])
    cli = pair.client_cmd if pair else (lambda a: pin(1) + [str(x) for x in a])
    tag = f".n{n}.net" if pair else f".n{n}"
    log = tmp / "warrend.log"
    with open(log, "ab") as f:
        d = subprocess.Popen(srv(daemon_argv(bindir, tmp, addr)), stdin=subprocess.DEVNULL,
                             stdout=f, stderr=f, cwd=tmp)
    try:
        wait_ready(d, log)
        if pair:
            listen = re.findall(r"listening telnet (\S+)", log.read_text(errors="replace"))
            print(f"# net: warrend listens on {', '.join(listen)} in {pair.server}; "
                  f"rps_cpus server {pair.rps(pair.server)}, clients {pair.rps(pair.client)}")
        rx0 = net_rx()
        r = subprocess.run(cli(load_argv(bindir, addr, n, secs, tag, d.pid)),
                           capture_output=True, text=True, timeout=900)
        rx = [b - a for a, b in zip(rx0, net_rx())]
        print("# NET_RX softirqs during the run: " +
              ", ".join(f"cpu{i} {x}" for i, x in enumerate(rx)))
        if r.returncode != 0:
            sys.stdout.write(r.stdout + r.stderr)
        else:
            sys.stdout.write("".join(ln + "\n" for ln in r.stdout.splitlines()
                                     if ln.startswith("BENCH") or ln.startswith("# window")))
        return r.returncode
    finally:
        if d.poll() is None:
            d.terminate()
            try:
                d.wait(timeout=120)
            except subprocess.TimeoutExpired:
                d.kill()
                d.wait()


def main():
    args = [a for a in sys.argv[1:] if a != "--loopback"]
    loopback = len(args) != len(sys.argv) - 1
    if not args:
        raise SystemExit(__doc__)
    bindir = pathlib.Path(args[0]).resolve()
    n = int(args[1]) if len(args) > 1 else 10000
    secs = args[2] if len(args) > 2 else "10"
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    want = 20000 if hard == resource.RLIM_INFINITY else min(20000, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < n + 200:
        print(f"# bench_net skipped: {want} descriptors, {n + 200} needed")
        return
    why = None if loopback else can_make_netns()
    if why:
        print(f"# bench_net skipped: {why}")
        return
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-net-"))
    try:
        if loopback:
            rc = run(bindir, tmp, n, secs, None)
        else:
            with NetPair() as pair:
                rc = run(bindir, tmp, n, secs, pair)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if rc else 0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM: the pair is removed by now
        sys.exit(f"bench_net: stopped ({e})")
