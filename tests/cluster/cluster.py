"""A Warren cluster on this one machine, made of network namespaces the
harness creates and removes itself: a PostgreSQL primary and a streaming
standby, HAProxy, N warrend nodes and a namespace for the clients. Needs
root (ip netns, and PostgreSQL then runs as the system user warren-pg from
tools/deps.sh).

Every namespace sits on one bridge that lives in a namespace of its own,
so nothing is added to the machine's own network: the addresses
(10.77.0.0/24) exist only inside the cluster's namespaces. Names carry the
pid of the run (wcl<PID>-ROLE); a run cleans up what it made when it ends,
however it ends (exception, Ctrl-C, SIGTERM), and removes at its start
what a run that died left behind (a name whose pid is no longer running).

    with Cluster(tmp_path, bindir, nodes=1) as c:
        c.start_pg()                  # primary + synchronous standby (remote_write)
        c.start_nodes()               # warrend on each node
        c.start_haproxy()             # telnet :2323, web :8080 on c.proxy_ip
        c.client(["warren-load", "--host", c.proxy_ip, ...])

Roles and addresses:
    pg1 10.77.0.1   PostgreSQL primary (the standby after a failover)
    pg2 10.77.0.2   PostgreSQL standby, promoted by promote()
    lb  10.77.0.10  HAProxy
    nK  10.77.0.2K  warrend node K (1..9)
    cl  10.77.0.100 clients (and 10.77.0.101 on, client_addresses())
"""
import os
import pathlib
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "integration"))
from harness import Process, rate_off  # noqa: E402
from pgcluster import PG_USER, pg_bindir  # noqa: E402

PREFIX = "wcl"
NET = "10.77.0"
PG_PORT = 5432
TELNET_PORT = 2323
HTTP_PORT = 8080
REPL_USER = "replicator"
DB_USER = "warren"
DB_NAME = "warren"
ROLE_IP = {"pg1": f"{NET}.1", "pg2": f"{NET}.2", "lb": f"{NET}.10", "cl": f"{NET}.100"}
MAX_NODES = 9
# What a commit waits for on the standby (Pg.wait_for): remote_write, or
# on (its disk too) with WARREN_CLUSTER_SYNC_COMMIT=on.
SYNC_COMMIT = os.environ.get("WARREN_CLUSTER_SYNC_COMMIT", "remote_write")
PEER_PORT = 7300
CLIENT_FIRST = 101  # client_addresses() from NET.101
CLIENT_MAX = 150


def node_ip(k):
    return f"{NET}.{20 + k}"


def peer_args(k, nodes):
    """Node k's node-to-node stream (watching across nodes): its own
    address, and the other nodes by name."""
    others = ",".join(f"n{j}={node_ip(j)}:{PEER_PORT}" for j in range(1, nodes + 1) if j != k)
    return ["--peer-listen", f"{node_ip(k)}:{PEER_PORT}", "--peers", others]


def sh(*argv, check=True, timeout=60, **kw):
    r = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                       **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, argv))} failed ({r.returncode}):\n"
                             f"{r.stdout}{r.stderr}")
    return r.stdout


def netns_list():
    return [ln.split()[0] for ln in sh("ip", "netns", "list").splitlines() if ln.strip()]


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def netns_remove(ns):
    """Kills what still runs in ns (only processes the harness started run
    there) and deletes it; its veth ends go with it."""
    for _ in range(50):
        pids = [int(p) for p in sh("ip", "netns", "pids", ns, check=False).split()]
        if not pids:
            break
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    sh("ip", "netns", "del", ns, check=False)


def clean_leftovers():
    """Namespaces of earlier runs that died without cleaning up."""
    for ns in netns_list():
        m = re.fullmatch(rf"{PREFIX}(\d+)-\w+", ns)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            netns_remove(ns)


def can_make_netns():
    """True when this process may make network namespaces (root, and a
    kernel and container that allow it)."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        return False
    name = f"{PREFIX}{os.getpid()}-probe"
    ok = subprocess.run(["ip", "netns", "add", name], capture_output=True).returncode == 0
    if ok:
        sh("ip", "netns", "del", name, check=False)
    return ok


class Net:
    """The namespaces and the bridge. add(role, ip) makes a namespace with
    lo up and eth0 on the bridge at ip/24."""

    def __init__(self):
        self.run = f"{PREFIX}{os.getpid()}"
        self.made = []
        self.br = None

    def ns(self, role):
        return f"{self.run}-{role}"

    def up(self):
        clean_leftovers()
        self.br = self.ns("br")
        self._add_ns(self.br)
        sh("ip", "-n", self.br, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.br, "link", "set", "br0", "up")
        return self

    def _add_ns(self, name):
        sh("ip", "netns", "add", name)
        self.made.append(name)
        sh("ip", "-n", name, "link", "set", "lo", "up")

    def add(self, role, ip):
        name = self.ns(role)
        self._add_ns(name)
        port = f"v-{role}"
        sh("ip", "-n", self.br, "link", "add", port, "type", "veth", "peer", "name", "eth0",
           "netns", name)
        sh("ip", "-n", self.br, "link", "set", port, "master", "br0", "up")
        sh("ip", "-n", name, "addr", "add", f"{ip}/24", "dev", "eth0")
        sh("ip", "-n", name, "link", "set", "eth0", "up")
        return name

    def cut(self, role):
        """The machine's cable pulled: its end on the bridge goes down."""
        sh("ip", "-n", self.br, "link", "set", f"v-{role}", "down")

    def mend(self, role):
        """The cable back in."""
        sh("ip", "-n", self.br, "link", "set", f"v-{role}", "up")

    def kill_all(self, role, sig=signal.SIGKILL):
        """Every process of the role's namespace (a machine's death)."""
        for p in sh("ip", "netns", "pids", self.ns(role), check=False).split():
            try:
                os.kill(int(p), sig)
            except ProcessLookupError:
                pass

    def down(self):
        # the roles first, the bridge last
        for name in reversed(self.made):
            netns_remove(name)
        self.made = []


def in_ns(ns, argv, user=None):
    """argv run in the namespace ns (as user, a pwd entry, if given)."""
    pre = ["nsenter", f"--net=/run/netns/{ns}"]
    if user:
        pre += [f"--setuid={user.pw_uid}", f"--setgid={user.pw_gid}"]
    return pre + [str(a) for a in argv]


class Pg:
    """One PostgreSQL server of the cluster in its own namespace, its data
    under dir, owned by warren-pg when run as root."""

    def __init__(self, net, role, dir):
        self.net, self.role, self.ip = net, role, ROLE_IP[role]
        self.dir = pathlib.Path(dir)
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self.logpath = self.dir / "postgres.log"
        self.bin = pg_bindir()
        if self.bin is None:
            raise AssertionError("no PostgreSQL server in /usr/lib/postgresql: run make deps")
        self.user = pwd.getpwnam(PG_USER) if os.geteuid() == 0 else None
        self.ns = None

    def run(self, *argv, check=True, timeout=120):
        env = dict(os.environ, LC_ALL="C.UTF-8", PGHOST=str(self.sock))
        return sh(*in_ns(self.ns, argv, self.user), check=check, timeout=timeout, env=env,
                  cwd="/")

    def prepare(self):
        self.ns = self.net.add(self.role, self.ip)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.sock.mkdir(exist_ok=True)
        if self.user:
            for p in [self.dir, *self.dir.parents]:
                if str(p) in ("/", "/tmp"):
                    break
                os.chmod(p, os.stat(p).st_mode | 0o011)
            for p in (self.dir, self.sock):
                os.chown(p, self.user.pw_uid, self.user.pw_gid)

    def options(self, extra=""):
        # Streaming replication, and only the cluster's own address and socket.
        # A standby that lost its primary waits wal_retrieve_retry_interval
        # (5 s by default) before it looks again, and a promotion asked for
        # meanwhile may wait it out: 500 ms.
        return (f"-c listen_addresses='{self.ip}' -c port={PG_PORT} "
                f"-c unix_socket_directories='{self.sock}' -c fsync=on -c wal_level=replica "
                f"-c max_wal_senders=5 -c hot_standby=on -c wal_keep_size=64MB "
                f"-c wal_retrieve_retry_interval=500ms {extra}")

    def start(self, extra=""):
        self.run(self.bin / "pg_ctl", "-D", self.data, "-l", self.logpath, "-o",
                 self.options(extra), "-w", "-t", "60", "start")

    def psql(self, sql, db="postgres", check=True):
        return self.run(self.bin / "psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h",
                        self.sock, "-U", self.owner(), "-d", db, "-c", sql, check=check)

    def owner(self):
        return self.user.pw_name if self.user else pwd.getpwuid(os.geteuid()).pw_name

    def init_primary(self):
        """initdb, the users, trust from the cluster's network only."""
        self.run(self.bin / "initdb", "-D", self.data, "-U", self.owner(), "-A", "trust", "-E",
                 "UTF8", "--no-instructions")
        with open(self.data / "pg_hba.conf", "a") as f:
            f.write(f"host replication {REPL_USER} {NET}.0/24 trust\n"
                    f"host all {DB_USER} {NET}.0/24 trust\n")
        self.start()
        self.psql(f"CREATE ROLE {REPL_USER} WITH REPLICATION LOGIN")
        self.psql(f"CREATE ROLE {DB_USER} WITH LOGIN")
        self.psql(f"CREATE DATABASE {DB_NAME} OWNER {DB_USER}")

    def wait_for(self, standby_name, commit=SYNC_COMMIT):
        """From now on a commit returns only once it is on the primary's
        disk and the standby named standby_name has written it
        (synchronous_standby_names, synchronous_commit = commit): a key
        acknowledged to a player survives the death of either machine.
        remote_write (the default, as deploy/RUNNING.md advises) waits for
        the standby's write to its operating system, on for its disk too.
        Set once the standby streams, or every commit until then would
        wait. In postgresql.auto.conf of the primary only: a promoted
        standby waits for nobody."""
        self.psql(f"ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 ({standby_name})'")
        self.psql(f"ALTER SYSTEM SET synchronous_commit = '{commit}'")
        self.psql("SELECT pg_reload_conf()")

    def init_standby(self, primary, name):
        """A base backup of primary with -R: it streams from primary as name."""
        self.run(self.bin / "pg_basebackup", "-D", self.data, "-X", "stream", "-R", "-c", "fast",
                 "-d", f"host={primary.ip} port={PG_PORT} user={REPL_USER} "
                 f"application_name={name}", timeout=300)
        self.start()

    def promote(self):
        self.run(self.bin / "pg_ctl", "-D", self.data, "promote", "-w", "-t", "60")

    def stop(self):
        if self.data.exists():
            self.run(self.bin / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "-t", "30",
                     "stop", check=False)

    def log(self):
        try:
            return self.logpath.read_text(errors="replace")
        except (FileNotFoundError, PermissionError):
            return ""


class Node(Process):
    """warrend on cluster node k: telnet and web on its address, a
    directory of its own, the cluster's database."""

    def __init__(self, net, k, dir, bindir, db_url, extra=()):
        self.net, self.k, self.ip = net, k, node_ip(k)
        self.role = f"n{k}"
        self.dir = pathlib.Path(dir)
        self.bindir = pathlib.Path(bindir)
        self.db_url = db_url
        self.extra = list(extra)
        self.proc = None
        self.ns = None
        self.logpath = self.dir / "warrend.log"
        self.logpos = 0

    def prepare(self):
        self.ns = self.net.add(self.role, self.ip)
        self.dir.mkdir(parents=True, exist_ok=True)

    def argv(self):
        exe = self.bindir / "warrend"
        return [exe, "--db", self.db_url, "--telnet", f"{self.ip}:{TELNET_PORT}",
                "--http", f"{self.ip}:{HTTP_PORT}", "--control", self.dir / "warrend.ctl",
                "--games-dir", self.dir / "games",
                "--grace", "600", "--test-hooks", "--register-per-hour", "0",
                "--max-per-ip", "100000", *rate_off(exe), *self.node_name(), *self.proxy_from(),
                *self.extra]

    def proxy_from(self):
        """The balancer's PROXY protocol header trusted."""
        return ["--proxy-from", ROLE_IP["lb"]]

    def node_name(self):
        """The node's name in its game leases."""
        return ["--node", self.role]

    def start(self, timeout=30):
        self.logpos = len(self.log())
        with open(self.logpath, "ab") as log:
            self.proc = subprocess.Popen(in_ns(self.ns, self.argv()), stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, cwd=self.dir)
        self.wait_log(r"warrend \S+ ready", timeout)
        return self

    def wait_log(self, pattern, timeout=10):
        deadline = time.time() + timeout
        rx = re.compile(pattern)
        while time.time() < deadline:
            m = rx.search(self.log(), self.logpos)
            if m:
                self.logpos = m.end()
                return m
            if self.proc and self.proc.poll() is not None:
                raise AssertionError(f"warrend n{self.k} exited ({self.proc.returncode}):\n"
                                     f"{self.log()[-3000:]}")
            time.sleep(0.05)
        raise AssertionError(f"no log line /{pattern}/ in {timeout}s on n{self.k}:\n"
                             f"{self.log()[-3000:]}")

    def has_health(self):
        """True when the node answers GET /health with 200 (the web
        listener's health check for balancers)."""
        def get():
            try:
                with socket.create_connection((self.ip, HTTP_PORT), timeout=5) as s:
                    s.sendall(b"GET /health HTTP/1.0\r\n\r\n")
                    return s.recv(64)
            except OSError:
                return b""
        return run_in_ns(self.ns, get).startswith((b"HTTP/1.0 200", b"HTTP/1.1 200"))


def haproxy_cfg(nodes, ip, *, proxy_v2, http_health, stats_sock):
    """The balancer's configuration: telnet in TCP mode, the web in HTTP
    mode (websockets pass: HAProxy switches to tunnel mode on an upgrade),
    health from each node's /health when it has one, else a TCP connect.
    deploy/haproxy.cfg is the same for a real server."""
    send = " send-proxy-v2 check-send-proxy" if proxy_v2 else ""
    check = f" check port {HTTP_PORT} inter 500 fall 2 rise 1" if http_health else \
        " check inter 500 fall 2 rise 1"
    chk = ("    option httpchk GET /health\n    http-check expect status 200\n"
           if http_health else "")
    tel = "".join(f"    server n{n.k} {n.ip}:{TELNET_PORT}{send}{check}\n" for n in nodes)
    web = "".join(f"    server n{n.k} {n.ip}:{HTTP_PORT}{send}{check}\n" for n in nodes)
    return f"""global
    maxconn 4000
    stats socket {stats_sock} mode 600 level admin

defaults
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    timeout http-request 10s
    retries 3
    option redispatch

frontend telnet
    mode tcp
    bind {ip}:{TELNET_PORT}
    default_backend telnet_nodes

backend telnet_nodes
    mode tcp
    balance leastconn
{chk}{tel}
frontend web
    mode http
    bind {ip}:{HTTP_PORT}
    default_backend web_nodes

backend web_nodes
    mode http
    balance leastconn
{chk}{web}"""


class HAProxy:
    def __init__(self, net, dir):
        self.net, self.ip = net, ROLE_IP["lb"]
        self.dir = pathlib.Path(dir)
        self.cfg = self.dir / "haproxy.cfg"
        self.stats = self.dir / "haproxy.sock"
        self.logpath = self.dir / "haproxy.log"
        self.proc = None
        self.ns = None

    def start(self, nodes, *, proxy_v2, http_health):
        exe = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not os.path.exists(exe):
            raise AssertionError("no haproxy: run make deps")
        self.ns = self.net.add("lb", self.ip)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.cfg.write_text(haproxy_cfg(nodes, self.ip, proxy_v2=proxy_v2,
                                        http_health=http_health, stats_sock=self.stats))
        sh(exe, "-c", "-f", self.cfg)
        with open(self.logpath, "ab") as log:
            self.proc = subprocess.Popen(in_ns(self.ns, [exe, "-db", "-f", self.cfg]),
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"haproxy exited:\n{self.logpath.read_text()}")
            if self.servers_up() == len(nodes):
                return self
            time.sleep(0.1)
        raise AssertionError(f"haproxy: nodes never up: {self.server_states()}")

    def server_states(self):
        """{(backend, server): status} from the stats socket."""
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(str(self.stats))
                s.sendall(b"show stat\n")
                data = b""
                while chunk := s.recv(65536):
                    data += chunk
        except OSError:
            return {}
        rows = [ln.split(",") for ln in data.decode().splitlines() if ln and ln[0] != "#"]
        return {(r[0], r[1]): r[17] for r in rows if len(r) > 17 and r[1] not in
                ("FRONTEND", "BACKEND")}

    def command(self, line):
        """A command on the stats socket (level admin), e.g. "set server
        telnet_nodes/n2 state maint"; its answer."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(self.stats))
            s.sendall(line.encode() + b"\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        return data.decode()

    def servers_up(self, backend="telnet_nodes"):
        return sum(1 for (b, _), st in self.server_states().items()
                   if b == backend and st.startswith("UP"))

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Cluster:
    """The whole cluster under dir; see the module's comment."""

    def __init__(self, dir, bindir, nodes=1, node_extra=(), sync=True):
        self.dir = pathlib.Path(dir)
        self.bindir = pathlib.Path(bindir)
        self.net = Net()
        self.nnodes = nodes
        self.sync = sync  # False: asynchronous replication, to show what it loses
        self.node_extra = list(node_extra)
        self.pg1 = Pg(self.net, "pg1", self.dir / "pg1")
        self.pg2 = Pg(self.net, "pg2", self.dir / "pg2")
        self.nodes = []
        self.lb = HAProxy(self.net, self.dir / "lb")
        self.proxy_ip = self.lb.ip
        self.client_ns = None
        self.proxy_v2 = True
        self.http_health = False
        self._old_term = None

    # Both servers in the URL: libpq tries them in turn and keeps the one
    # that takes writes, so after a promotion the node finds the new primary.
    # A primary that vanishes (no reset: a machine gone) is given up on by
    # warrend's own timeouts (db_pg.c), which the URL leaves as they are.
    def db_url(self):
        hosts = ",".join(f"{ROLE_IP[r]}:{PG_PORT}" for r in ("pg1", "pg2"))
        return f"postgresql://{DB_USER}@{hosts}/{DB_NAME}?target_session_attrs=read-write"

    def __enter__(self):
        self._old_term = signal.signal(signal.SIGTERM, self._on_term)
        try:
            self.net.up()
            self.client_ns = self.net.add("cl", ROLE_IP["cl"])
        except BaseException:
            self.close()
            raise
        return self

    def _on_term(self, signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for n in self.nodes:
            n.stop()
        self.lb.stop()
        for pg in (self.pg1, self.pg2):
            if pg.ns:
                pg.stop()
        self.net.down()
        if self._old_term is not None:
            signal.signal(signal.SIGTERM, self._old_term)
            self._old_term = None

    def start_pg(self):
        """The primary, then the standby it waits for on every commit."""
        self.pg1.prepare()
        self.pg2.prepare()
        self.pg1.init_primary()
        self.pg2.init_standby(self.pg1, "standby1")
        if self.sync:
            self.pg1.wait_for("standby1")
        want = "sync" if self.sync else "async"
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.pg1.psql("SELECT sync_state FROM pg_stat_replication").strip() == want:
                return
            time.sleep(0.1)
        raise AssertionError(f"standby never {want}:\n" + self.pg2.log()[-2000:])

    def start_nodes(self, peers=False):
        """peers: each node with its node-to-node stream (peer_args)."""
        for k in range(1, self.nnodes + 1):
            extra = self.node_extra + (peer_args(k, self.nnodes) if peers else [])
            n = Node(self.net, k, self.dir / f"n{k}", self.bindir, self.db_url(), extra)
            n.prepare()
            self.nodes.append(n)
        # one at a time: the first migrates the schema
        for n in self.nodes:
            n.start()
        sick = [n.role for n in self.nodes if not n.has_health()]
        assert not sick, f"GET /health did not answer 200 on {sick}"
        self.http_health = True

    def start_haproxy(self):
        self.lb.start(self.nodes, proxy_v2=self.proxy_v2, http_health=self.http_health)

    def client_addresses(self, count):
        """count more addresses for the clients' namespace (at most
        CLIENT_MAX), so that players come from many, as in life: a
        server's per-address limits then see a few players each. The
        first of them (warren-load --bind ADDR --bind-count count)."""
        assert 0 < count <= CLIENT_MAX, count
        cmds = "".join(f"addr add {NET}.{CLIENT_FIRST + i}/24 dev eth0\n" for i in range(count))
        sh("ip", "-n", self.client_ns, "-batch", "-", input=cmds)
        return f"{NET}.{CLIENT_FIRST}"

    def client(self, argv, **kw):
        """A program in the clients' namespace (Popen)."""
        return subprocess.Popen(in_ns(self.client_ns, argv), **kw)

    def kill_primary(self):
        """SIGKILL every process of the primary's machine."""
        self.net.kill_all("pg1")

    def sql(self, sql):
        """A query on whichever server is the primary now (its socket)."""
        for pg in (self.pg2, self.pg1):
            if pg.ns and pg.psql("SELECT pg_is_in_recovery()", check=False).strip() == "f":
                return pg.psql(sql, db=DB_NAME)
        raise AssertionError("no primary answers")


def run_in_ns(ns, fn, *args):
    """fn(*args) on a thread that joined the network namespace ns (setns
    acts on the calling thread only); its result, or its exception raised."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    out = {}

    def body():
        try:
            with open(f"/run/netns/{ns}") as f:
                if libc.setns(f.fileno(), 0x40000000) != 0:  # CLONE_NEWNET
                    raise OSError(ctypes.get_errno(), "setns")
            out["r"] = fn(*args)
        except BaseException as e:  # handed to the caller
            out["e"] = e
    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "e" in out:
        raise out["e"]
    return out.get("r")
