"""Two machines on one: the benchmarks' network mode. Over loopback the
kernel runs the receiving socket's TCP work (tcp_v4_rcv, the socket's
lookup, waking its reader) inside the sender's send(), on the sender's
core, so every frame the daemon sends costs it its client's receive too.
A NetPair is a server namespace and a clients' namespace joined by a veth
pair (10.213.0.1 and 10.213.0.2/30, which exist only inside the two
namespaces), each end's receive queue steered by RPS to its own side's
core (rps_cpus): what a client receives is processed on the clients'
core, what the daemon receives on the daemon's, as when the clients are
other machines. Needs root (ip netns).

    with NetPair() as p:
        Popen(p.server_cmd(["warrend", "--telnet", f"{p.server_ip}:2323", ...]))
        run(p.client_cmd(["warren-load", "--host", p.server_ip, ...]))

server_cmd and client_cmd also pin the program to its side's core
(taskset) when the machine has two cores or more. Names carry the pid of
the run (wnp<PID>x<K>-srv, -cl); the pair is removed, and what runs in
it killed, however the block ends (exception, Ctrl-C, SIGTERM), and a
start removes what a run that died left behind. The namespace commands
are tests/cluster/cluster.py's.
"""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "cluster"))
# run_in_ns is for the callers (a function run on a thread in a namespace)
from cluster import in_ns, netns_list, netns_remove, pid_alive, run_in_ns, sh  # noqa: E402,F401

PREFIX = "wnp"
SERVER_IP = "10.213.0.1"
CLIENT_IP = "10.213.0.2"
DEV = "eth0"  # the veth end's name in each namespace


def can_make_netns():
    """Why the network mode cannot run here, or None when it can."""
    if os.geteuid() != 0:
        return "network mode needs root (ip netns)"
    if not shutil.which("ip") or not shutil.which("nsenter"):
        return "network mode needs ip and nsenter"
    name = f"{PREFIX}{os.getpid()}x0-probe"
    r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if r.returncode != 0:
        return f"ip netns add failed: {r.stderr.strip()}"
    sh("ip", "netns", "del", name, check=False)
    return None


def clean_leftovers():
    """Pairs of earlier runs that died without removing them."""
    for ns in netns_list():
        m = re.fullmatch(rf"{PREFIX}(\d+)x\d+-\w+", ns)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            netns_remove(ns)


def pin(core):
    """taskset prefix for core, when the machine has more than one."""
    if (os.cpu_count() or 1) < 2 or not shutil.which("taskset"):
        return []
    return ["taskset", "-c", str(core)]


def net_rx():
    """NET_RX softirqs run so far on each CPU (/proc/softirqs)."""
    with open("/proc/softirqs") as f:
        for line in f:
            if line.split(":")[0].strip() == "NET_RX":
                return [int(x) for x in line.split(":")[1].split()]
    return []


class NetPair:
    """The two namespaces; see the module's comment. server_core and
    client_core: each side's core (its programs' and its receive queue's)."""
    _runs = 0

    def __init__(self, server_core=0, client_core=1):
        NetPair._runs += 1
        run = f"{PREFIX}{os.getpid()}x{NetPair._runs}"
        self.server, self.client = f"{run}-srv", f"{run}-cl"
        self.server_ip, self.client_ip = SERVER_IP, CLIENT_IP
        self.cores = {self.server: server_core, self.client: client_core}
        self.made = []
        self._old_term = None

    def __enter__(self):
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            self._old_term = signal.signal(signal.SIGTERM, self._on_term)
        try:
            self.up()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _on_term(self, signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    def up(self):
        clean_leftovers()
        for ns in (self.server, self.client):
            sh("ip", "netns", "add", ns)
            self.made.append(ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", self.server, "link", "add", DEV, "type", "veth", "peer", "name", DEV,
           "netns", self.client)
        for ns, ip in ((self.server, self.server_ip), (self.client, self.client_ip)):
            sh("ip", "-n", ns, "addr", "add", f"{ip}/30", "dev", DEV)
            sh("ip", "-n", ns, "link", "set", DEV, "up")
            self.steer(ns)
        return self

    def steer(self, ns):
        """The namespace's receive queue processed on its own core (RPS).
        WARREN_NET_RPS=clients steers the clients' side only: what the
        daemon receives (the clients' keys and ACKs) is then processed in
        the clients' send, on their core, as over loopback; none: neither."""
        core = self.cores[ns]
        which = os.environ.get("WARREN_NET_RPS", "both")
        if which not in ("both", "clients", "none"):
            raise SystemExit(f"WARREN_NET_RPS={which}: both, clients or none")
        if (os.cpu_count() or 1) < 2 or core is None or which == "none" or \
                (which == "clients" and ns == self.server):
            return
        path = f"/sys/class/net/{DEV}/queues/rx-0/rps_cpus"
        mask = format(1 << core, "x")
        # ip netns exec mounts the namespace's own /sys for the command
        sh("ip", "netns", "exec", ns, "sh", "-c", f"echo {mask} > {path}")
        got = sh("ip", "netns", "exec", ns, "cat", path).strip().replace(",", "")
        if int(got, 16) != 1 << core:
            raise AssertionError(f"{ns}: rps_cpus is {got}, not {mask}")

    def rps(self, ns):
        """The namespace's rps_cpus as the kernel reads it back."""
        return sh("ip", "netns", "exec", ns, "cat",
                  f"/sys/class/net/{DEV}/queues/rx-0/rps_cpus").strip()

    def server_cmd(self, argv):
        """argv run on the server: its namespace, its core."""
        return in_ns(self.server, pin(self.cores[self.server]) + [str(a) for a in argv])

    def client_cmd(self, argv):
        """argv run on the clients' machine: its namespace, its core."""
        return in_ns(self.client, pin(self.cores[self.client]) + [str(a) for a in argv])

    def close(self):
        for ns in reversed(self.made):
            netns_remove(ns)
        self.made = []
        if self._old_term is not None:
            signal.signal(signal.SIGTERM, self._old_term)
            self._old_term = None
