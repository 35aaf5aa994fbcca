#!/usr/bin/python3
"""Browser spectators in bulk against the real warrend (bin/warren-spectate).

  tests/web/spectators.py BINDIR [N] [GAMES] [ONE]

Starts warrend with the web gateway, registers GAMES players (100) and
runs warren-spectate twice, each in a daemon of its own:
  n{N}      N websocket watchers (10,000) spread over the GAMES games;
  one{ONE}  ONE watchers (5,000) all on one game (a tournament stream);
each player pressing a key a second, first without watchers, then with
them. Every watcher's frames are decoded; 10 of them read nothing during
the window and must be caught up by a keyframe. N or ONE 0: that run is
left out. Prints warren-spectate's BENCH lines (web.spectators.TAG.p99.ms:
a key to a watcher's copy of its frame reaching its socket; .read.p99.ms:
read by the tool; .player_ratio: the players' p99 with the watchers over
without; .cpu_us_per_frame: the daemon's CPU a watcher frame), then
health's journal appends of the last 10 s (the window with watchers:
where a player's key waited for its commit).
WARREN_SPECTATE_ARGS: more arguments for warren-spectate (--wake: the
tool sleeps in epoll_wait during the windows, as it did before).
WARREN_SPECTATE_DAEMON_CORES: the daemon's cores for taskset ("0,1").
With two cores the daemon runs on core 0 and the tool on core 1.
WARREN_LOOPS=N: the daemon with N loops (the harness passes --loops);
give it the cores too (WARREN_SPECTATE_DAEMON_CORES=0,1), or every loop
shares core 0. Each
side holds N + GAMES sockets: ulimit -n is raised to 20,000.
WARREN_SPECTATE_CORETIME=SECONDS: for SECONDS of the window with watchers
(at most 10.5), trace the daemon's core (pinned to core 0: no
WARREN_SPECTATE_DAEMON_CORES) and print, for each big fan-out, its wall
time against the loop's own time on the core and other tasks', then the
bare loopback send's cost (tests/web/coretime.py: .fanout.*, .send_cost.us).
The trace slows every send: take the delays from untraced runs.
WARREN_BENCH_NET=1: network mode (tests/load/netpair.py, root): the daemon
in a namespace of its own listening on 10.213.0.1 only, the players'
registrations and warren-spectate in the clients' namespace, joined by a
veth pair whose receive work runs on the receiving side's core, as when
the browsers are other machines (over loopback each watcher's receive is
done in the daemon's send, on its core). Its figures are named with .net
after the tag (web.spectators.one5000.net.p99.ms).
"""
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import Daemon, Web, admin_rc, program, rate_off  # noqa: E402
from fanout import pinned  # noqa: E402
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "load"))
from netpair import NetPair, can_make_netns, run_in_ns  # noqa: E402
import coretime  # noqa: E402

HTTP_PORT = 8080  # in network mode: the server namespace's own ports are all free


def net_daemon(bindir, tmp, pair, extra):
    """warrend in pair's server namespace on its address only, pinned."""
    ip = pair.server_ip
    args = ["--db", tmp / "warren.db", "--telnet", f"{ip}:2323", "--http", f"{ip}:{HTTP_PORT}",
            "--grace", "600", "--test-hooks", "--register-per-hour", "0",
            *rate_off(program(bindir, "warrend")), *extra]
    return Daemon(bindir, tmp, exe=program(bindir, "warrend"), args=args,
                  wrap=pair.server_cmd([]))


def register_all(d, games, path, host="127.0.0.1"):
    """GAMES players registered through the web form, "NAME COOKIE" lines in path."""
    with open(path, "w") as f:
        for i in range(games):
            r = Web(d.http, host=host).register(f"spec{i}", "benchpass1")
            assert r.status == 303 and r.session, r.head
            f.write(f"spec{i} {r.session}\n")


def run(bindir, tag, watchers, games, one, pair=None):
    """One daemon, one warren-spectate run; pair: network mode (a NetPair)."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-spectate-"))
    extra = ["--max-per-ip", "20000", "--max-connections", "20000"]
    if pair:
        d = net_daemon(bindir, tmp, pair, extra)
    else:
        cores = os.environ.get("WARREN_SPECTATE_DAEMON_CORES")  # e.g. "0,1": not only core 0
        wrap = ["taskset", "-c", cores] if cores else pinned(0)
        d = Daemon(bindir, tmp, http=True, exe=program(bindir, "warrend"), wrap=wrap, extra=extra)
    try:
        d.start()
        if pair:  # on the server's address only; the registrations come from the clients' machine
            assert f"listening http {pair.server_ip}:{HTTP_PORT}" in d.log(), d.log()[-2000:]
            d.http = HTTP_PORT
            run_in_ns(pair.client, register_all, d, games, tmp / "cookies", pair.server_ip)
        else:
            register_all(d, games, tmp / "cookies")
        argv = [str(bindir / "warren-spectate"), "--port", str(d.http), "--cookies",
                str(tmp / "cookies"), "--games", str(games), "--watchers", str(watchers),
                "--seconds", "10", "--slow", "10", "--tag", tag] + (["--one"] if one else [])
        argv += ["--daemon-pid", str(d.proc.pid)]
        argv += os.environ.get("WARREN_SPECTATE_ARGS", "").split()  # e.g. --wake
        if pair:
            argv = pair.client_cmd(argv + ["--host", pair.server_ip])
        else:
            argv = pinned(1) + argv
        traced = None if pair else coretime_seconds()
        out, err, rc = spectate(argv, traced, tmp / "coretime.data")
        sys.stdout.write(out)
        if not pair:
            journal_times(bindir, d)
        if rc != 0:
            sys.stderr.write(err + d.log()[-2000:])
            return False
        if traced:
            d.stop()
            trace_report(bindir, tag, tmp / "coretime.data", d.proc.pid, watchers)
        return True
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def journal_times(bindir, d):
    """The daemon's journal appends of its last 10 s (the window with
    watchers), from health: what a player's key waited for before its
    frame, the queue (until the writer took it), commit and back parts."""
    rc, out, _ = admin_rc(bindir, d, "health")
    for line in out.splitlines() if rc == 0 else []:
        if line.startswith("journal appends"):
            print("# " + line)


def coretime_seconds():
    """WARREN_SPECTATE_CORETIME's seconds when the trace can be made, else None."""
    secs = float(os.environ.get("WARREN_SPECTATE_CORETIME", "0") or 0)
    if secs <= 0:
        return None
    why = "the daemon is not pinned to core 0" if os.environ.get(
        "WARREN_SPECTATE_DAEMON_CORES") or not pinned(0) else coretime.usable()
    if why:
        print(f"# the core's trace skipped: {why}")
        return None
    return min(secs, 10.5)


def trace_report(bindir, tag, data, loop_tid, watchers):
    """The core's trace's figures (coretime.py), then the bare send's cost."""
    def say(name, v):
        print(f"BENCH web.spectators.{tag}.{name} {v:.{2 if v < 100 else 0}f}")
    got = coretime.report(data, loop_tid, watchers, say, lambda text: print("# " + text))
    cost = coretime.send_cost(bindir, 0, watchers, 1 if pinned(1) else None,
                              data.with_name("send_cost.data"))
    if cost:
        say("send_cost.us", cost)
        if got:
            say("fanout.over_send_cost", got["loop_us_per_send"] / cost)


def spectate(argv, traced, data):
    """Runs warren-spectate; with traced (seconds), traces core 0 from the
    start of its window with watchers (3 s after they connected) into data.
    Returns (stdout, stderr, rc)."""
    if not traced:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        return r.stdout, r.stderr, r.returncode
    with tempfile.TemporaryFile("w+") as errf:
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errf, text=True)
        out, trace = [], None
        for line in p.stdout:
            out.append(line)
            if " watchers connected in " in line:  # then 3 s to settle, then the window
                trace = coretime.record(0, traced, data, after=2.5)
        p.wait(timeout=900)
        if trace:
            trace.wait(timeout=60)
        errf.seek(0)
        return "".join(out), errf.read(), p.returncode


def run_mode(bindir, tag, watchers, games, one):
    """run() over loopback, or with WARREN_BENCH_NET=1 in a NetPair of its own."""
    if os.environ.get("WARREN_BENCH_NET", "0") in ("", "0"):
        return run(bindir, tag, watchers, games, one)
    with NetPair() as pair:
        return run(bindir, tag + ".net", watchers, games, one, pair)


def main():
    bindir = pathlib.Path(sys.argv[1]).resolve()
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    games = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    one = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    want = 20000 if hard == resource.RLIM_INFINITY else min(20000, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < n + games + 100:
        print(f"# spectators skipped: {want} descriptors, {n + games + 100} needed")
        return
    if os.environ.get("WARREN_BENCH_NET", "0") not in ("", "0") and (why := can_make_netns()):
        print(f"# spectators' network mode skipped: {why}")
        return
    ok = run_mode(bindir, f"n{n}", n, games, False) if n else True
    ok = (run_mode(bindir, f"one{one}", one, games, True) if one else True) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
