"""The one harness of the integration suites (and of tests/web/fanout.py):

- Daemon: warrend on free ports in its own directory with a private
  database, its log read with wait_log;
- Term: any program (telnet, bin/warren, ssh, a shell) in a pty whose output
  is read through a terminal emulator (pyte), with the menu flows; Telnet is
  Debian's telnet on a daemon's port;
- Web and WS: HTTP and websocket clients for the web listener;
- the helpers the suites share: the test-hook key, the reference replay,
  finding built programs, unique names, browser scripts, PNG pixels."""
import atexit
import base64
import collections
import contextlib
import http.client
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import tempfile
import time
import urllib.parse
import zlib

import pexpect
import pyte
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
WEB_DIST = ROOT / "client-web" / "dist"
PW = "correct-horse"
F12 = "\x1b[24~"      # the test-hook key (only with --test-hooks)
CTRL_X = "\x18"       # leave Warren's game, back to the menu
PREFIX = "\x1c"       # ^\: Warren's keys in a hosted game follow it
LEAVE = PREFIX + "x"  # leave a hosted game, back to the menu
# leaks fail the run (exit status 23) instead of hiding behind a clean exit
ASAN_OPTIONS = "detect_leaks=1:abort_on_error=0:exitcode=23"
SANITIZER_WORDS = ("AddressSanitizer", "runtime error")


def raw_read(sock, seconds, needle=None):
    """What a raw client is sent in the next seconds, or until needle shows."""
    sock.settimeout(0.05)
    data, end = b"", time.time() + seconds
    while (needle is None or needle not in data) and time.time() < end:
        try:
            chunk = sock.recv(1 << 20)
        except socket.timeout:
            continue
        if not chunk:
            break
        data += chunk
    return data


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def program(bindir, *names):
    """The first of names (paths below bindir) that was built."""
    for name in names:
        path = pathlib.Path(bindir) / name
        if path.exists():
            return path
    raise AssertionError(f"none of {', '.join(names)} is built in {bindir}: run make")



def admin_rc(bindir, d, *args):
    """warren-admin's exit code, output and errors from daemon d's control
    socket."""
    tool = program(bindir, "asan/warren-admin", "warren-admin")
    r = subprocess.run([str(tool), "--control", f"{d.db}.ctl", *args], capture_output=True,
                       text=True, timeout=60, cwd=d.dir)
    return r.returncode, r.stdout, r.stderr


def admin(bindir, d, *args):
    """warren-admin's answer from daemon d's control socket (it succeeded)."""
    rc, out, err = admin_rc(bindir, d, *args)
    assert rc == 0, (out, err)
    return out


def daemon_exe(bindir):
    """warrend, the sanitizer build when there is one."""
    return program(bindir, "asan/warrend", "warrend")


_OPTIONS = {}


def rate_off(exe):
    """--request-rate 0 when warrend exe has that setting (an older build a
    benchmark compares against may not): no limit on how fast one address
    connects, for tests and load tools that connect from 127.0.0.1 far
    faster than a person."""
    exe = str(exe)
    if exe not in _OPTIONS:
        out = subprocess.run([exe, "--help"], capture_output=True, text=True,
                             env=dict(os.environ, ASAN_OPTIONS=ASAN_OPTIONS))
        _OPTIONS[exe] = "--request-rate" in out.stdout + out.stderr
    return ["--request-rate", "0"] if _OPTIONS[exe] else []


def sbin(name):
    """A system daemon's program (sshd, nginx), on PATH or in /usr/sbin."""
    return shutil.which(name) or "/usr/sbin/" + name


def unique_name(prefix="p"):
    return "%s%x" % (prefix, int(time.time() * 1000) % 0xffffffff ^ os.getpid())


# ---- the database: the SQLite file, or PostgreSQL with WARREN_DB=pg ---------------------

# WARREN_DB=pg: every daemon started with the default flags stores in a
# schema of its own on one private PostgreSQL cluster this process shares
# (pgcluster.py, started on first use and stopped when the process ends:
# each pytest-xdist worker has its own, in its own directory and socket).
ON_PG = os.environ.get("WARREN_DB") == "pg"
_PG = {"cluster": None, "made": 0}


def sqlite_only(reason):
    """Marks a test about the SQLite file itself: skipped with WARREN_DB=pg."""
    return pytest.mark.skipif(ON_PG, reason=f"SQLite only: {reason}")


def pg_database():
    """A new empty schema on the run's cluster; the URL warrend takes for it."""
    if _PG["cluster"] is None:
        from pgcluster import PgCluster
        top = tempfile.mkdtemp(prefix="warren-pg-")
        cluster = PgCluster(pathlib.Path(top) / "pg").start()
        cluster.create_db("warren")
        atexit.register(lambda: (cluster.stop(), shutil.rmtree(top, ignore_errors=True)))
        _PG["cluster"] = cluster
    _PG["made"] += 1
    name = f"d{os.getpid()}_{_PG['made']}"
    _PG["cluster"].psql(f"CREATE SCHEMA {name}", db="warren")
    return _PG["cluster"].url("warren") + f"&options=-csearch_path%3D{name}"


def pg_sql(sql):
    """A query in SQLite's words for psycopg2: ?s as %s, % doubled, user
    quoted, rowid as id (every table with a rowid has an id there, the
    milestones' own counting their order)."""
    parts = re.split(r"""('(?:[^']|'')*'|"[^"]*")""", sql.replace("%", "%%"))
    for i in range(0, len(parts), 2):  # outside quotes
        p = re.sub(r"\?\d*", "%s", parts[i])
        parts[i] = re.sub(r"\browid\b", "id", re.sub(r"\buser\b", '"user"', p))
    return "".join(parts)


def pg_run(url, stmts, fetch):
    """Runs (sql, args) statements in one transaction; the last one's rows if fetch."""
    import psycopg2
    con = psycopg2.connect(url)
    try:
        with con, con.cursor() as cur:
            for sql, args in stmts:
                cur.execute(pg_sql(sql), tuple(args))
            rows = cur.fetchall() if fetch else None
        return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r)
                for r in rows or []]
    finally:
        con.close()


# ---- the daemon -----------------------------------------------------------------------

class Process:
    """A started warrend (self.proc, a Popen, or None before it starts)
    logging to self.logpath: here and on the cluster's nodes
    (tests/cluster/cluster.py)."""

    proc = None

    def log(self):
        """Its log file (self.logpath) as text."""
        try:
            return self.logpath.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self, sig=signal.SIGKILL):
        """Sends sig and waits; returns the exit status (None if never started)."""
        if self.alive():
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=30) if self.proc else None

    def stop(self):
        """SIGTERM and wait; returns the exit status (None if never started)."""
        if not self.proc:
            return None
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


class Daemon(Process):
    """warrend on 127.0.0.1 in the directory dir: database warren.db, telnet
    on a free port, stdout and stderr appended to warrend.log. http=True adds
    the web listener on another free port (self.http), unix=True the Unix
    socket warren.sock (self.sock). test_flags adds --grace 600 (a dropped
    game stays live), --test-hooks (F12 logs the game's hash, cheap
    password hashes), --register-per-hour 0 and --request-rate 0 (tests
    connect from 127.0.0.1 far faster than a person: rate_off). args
    replaces all of these flags (a config file then says where it
    listens); extra comes after them. With WARREN_DB=pg the database is a
    PostgreSQL schema of its own (db_url) unless args are given or
    sqlite=True (a test that needs the file). exe: another warrend than the build's (sanitizer
    first); wrap: a command prefix (taskset); popen: more Popen arguments."""

    def __init__(self, bindir, dir, *, http=False, unix=False, extra=(), args=None,
                 test_flags=True, exe=None, env=None, wrap=(), popen=None, sqlite=False):
        self.dir = pathlib.Path(dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.http = None
        while http and self.http in (None, self.port):  # the kernel may give the same one twice
            self.http = free_port()
        self.sock = self.dir / "warren.sock" if unix else None
        self.db = self.dir / "warren.db"
        self.logpath = self.dir / "warrend.log"
        # WARREN_DB=pg: the control socket and players' directories where the file's would be
        self.db_url = pg_database() if ON_PG and args is None and not sqlite else None
        if args is None:
            args = ["--db", self.db_url or self.db, "--telnet", f"127.0.0.1:{self.port}",
                    "--http", f"127.0.0.1:{self.http}" if http else ""]
            args += ["--control", f"{self.db}.ctl", "--games-dir", self.dir / "games"] \
                if self.db_url else []
            args += ["--socket", self.sock] if unix else []
            # tests register many names and open many connections from 127.0.0.1
            args += ["--grace", "600", "--test-hooks", "--register-per-hour", "0",
                     *rate_off(exe or daemon_exe(bindir))] if test_flags else []
            # WARREN_LOOPS=N: the whole suite with Warren's games over N loops
            args += ["--loops", os.environ["WARREN_LOOPS"]] if os.environ.get("WARREN_LOOPS") else []
            args += list(extra)
        self.argv = [*wrap, str(exe or daemon_exe(bindir)), *map(str, args)]
        self.env = dict(os.environ, ASAN_OPTIONS=ASAN_OPTIONS)
        # a build directory outside the tree has no client-web/dist beside its bin/
        if "WARREN_WEB_ROOT" not in self.env and (WEB_DIST / "index.html").exists():
            self.env["WARREN_WEB_ROOT"] = str(WEB_DIST)
        self.env.update(env or {})
        self.popen = popen or {}
        self.proc = None
        self.logpos = 0

    def start(self, timeout=20):
        """Starts (or restarts) the daemon and waits until it is ready."""
        self.logpos = len(self.log())
        with open(self.logpath, "ab") as log:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=log, cwd=self.dir, env=self.env, **self.popen)
        self.wait_log(r"warrend \S+ ready", timeout)
        if self.http:
            assert f"listening http 127.0.0.1:{self.http}" in self.log(), self.log()[-2000:]
        return self

    def unread(self):
        """The log after the last line wait_log matched."""
        return self.log()[self.logpos:]

    def wait_log(self, pattern, timeout=10):
        """Waits for a log line matching pattern after the last match; returns the match."""
        deadline = time.time() + timeout
        rx = re.compile(pattern)
        while time.time() < deadline:
            text = self.log()
            m = rx.search(text, self.logpos)
            if m:
                self.logpos = m.end()
                return m
            if self.proc and self.proc.poll() is not None:
                raise AssertionError(f"warrend exited ({self.proc.returncode}):\n{text[-3000:]}")
            time.sleep(0.02)
        raise AssertionError(f"no log line /{pattern}/ in {timeout}s:\n{self.log()[-3000:]}")

    def wait_logged(self, pattern, timeout=10):
        """Waits for a log line matching pattern anywhere in the log, for a
        line of an event that another one (another connection, loop or
        process) may log before or after the last wait_log's; returns the
        match. wait_log goes on after whichever of the two came later."""
        deadline = time.time() + timeout
        rx = re.compile(pattern)
        while time.time() < deadline:
            text = self.log()
            m = rx.search(text)
            if m:
                self.logpos = max(self.logpos, m.end())
                return m
            if self.proc and self.proc.poll() is not None:
                raise AssertionError(f"warrend exited ({self.proc.returncode}):\n{text[-3000:]}")
            time.sleep(0.02)
        raise AssertionError(f"no log line /{pattern}/ in {timeout}s:\n{self.log()[-3000:]}")

    def stop_clean(self):
        """Stops the daemon and asserts it ended well: status 0, no sanitizer report."""
        code = self.stop()
        log = self.log()
        assert code == 0, f"warrend exit status {code}:\n{log[-3000:]}"
        assert not any(w in log for w in SANITIZER_WORDS), log[-3000:]

    @contextlib.contextmanager
    def stopped(self):
        """Stops the daemon cleanly for the block (to change its files), then starts it again."""
        self.stop_clean()
        yield self
        self.start()

    def db_rows(self, sql, *args):
        """A query on the database, opened read-only (SQLite's words on both)."""
        if self.db_url:
            return pg_run(self.db_url, [(sql, args)], fetch=True)
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        try:
            return con.execute(sql, args).fetchall()
        finally:
            con.close()

    def db_remove(self):
        """Deletes the database (the daemon stopped), so the next start makes
        it anew: the file and what lies beside it, or the PostgreSQL schema's
        tables."""
        if self.db_url:
            schema = re.search(r"search_path%3D(\w+)", self.db_url).group(1)
            _PG["cluster"].psql(f"DROP SCHEMA {schema} CASCADE; CREATE SCHEMA {schema}",
                                db="warren")
            return
        for suffix in ("", "-wal", "-shm", ".id"):
            pathlib.Path(f"{self.db}{suffix}").unlink(missing_ok=True)

    def db_write(self, *stmts):
        """Runs (sql, args) statements in one transaction."""
        if self.db_url:
            pg_run(self.db_url, stmts, fetch=False)
            return
        con = sqlite3.connect(str(self.db), timeout=10)
        try:
            for sql, args in stmts:
                con.execute(sql, args)
            con.commit()
        finally:
            con.close()


# ---- terminals --------------------------------------------------------------------------

def _teach_pyte_rep():
    """REP (CSI n b: the character printed last, n times more), which xterm
    has and pyte 0.8 lacks: the encoder sends it to terminals named xterm
    or xterm-256color, the name the tests' terminals give. Every pyte screen
    of the run (this module is imported before any test) learns it."""
    if "b" in pyte.Stream.csi:
        return
    draw = pyte.Screen.draw

    def draw_keeping_last(self, data):
        draw(self, data)
        if data:
            self.rep_last = data[-1]

    def repeat_last(self, count=1, *args, **kwargs):
        if getattr(self, "rep_last", None):
            draw_keeping_last(self, self.rep_last * max(count or 1, 1))

    pyte.Screen.draw = draw_keeping_last
    pyte.Screen.repeat_last = repeat_last
    pyte.Stream.csi = dict(pyte.Stream.csi, b="repeat_last")
    pyte.Stream.events = pyte.Stream.events | {"repeat_last"}


_teach_pyte_rep()


class Screen(pyte.Screen):
    """pyte's screen with CSI r resetting the scrolling region to the whole
    screen, as xterm does (pyte 0.8 reads it as a top of 0 and keeps the
    old bottom, so rows past it would no longer scroll)."""

    def set_margins(self, top=None, bottom=None):
        if not top and bottom is None:
            top = None
        super().set_margins(top, bottom)


class Term:
    """A program in a pty of cols x rows, its output fed to a pyte screen of
    the same size; raw keeps every byte it wrote, eof says it ended."""

    READ_ON = 1.0  # wait_for's reading past a match while bytes still come

    def __init__(self, argv, cols=80, rows=24, term="xterm-256color", env=None, cwd=None):
        self.cols, self.rows = cols, rows
        self.screen = Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""
        self.eof = False
        self.quiet = True  # the last pump ended with the program quiet, not at its limit
        e = dict(os.environ, TERM=term)
        e.update(env or {})
        self.child = pexpect.spawn(str(argv[0]), [str(a) for a in argv[1:]], env=e,
                                   dimensions=(rows, cols), cwd=cwd)

    def pump(self, quiet=0.15, limit=10.0):
        """Reads until the program has said nothing for `quiet` seconds, has
        ended, or `limit` seconds have passed; self.quiet says it was not
        the limit."""
        end = time.time() + limit
        self.quiet = False
        while not self.eof and time.time() < end:
            try:
                data = self.child.read_nonblocking(65536, timeout=quiet)
            except pexpect.TIMEOUT:
                self.quiet = True
                return
            except pexpect.EOF:
                self.eof = True
                return
            self.raw += data
            self.stream.feed(data)
        self.quiet = self.eof

    def text(self):
        return "\n".join(self.screen.display)

    def lines(self):
        """The screen's rows without trailing blanks."""
        return [ln.rstrip() for ln in self.screen.display]

    def wait_for(self, needle, timeout=15):
        """Waits until the screen shows needle (a string, or a compiled
        regular expression to search); returns the screen's text. A match
        in bytes read up to the pump's limit, still coming, is the start of
        a screen: the rest is read first, while it comes (up to READ_ON
        more seconds, for a program that never goes quiet)."""
        end = time.time() + timeout
        read_on = None
        while True:
            text = self.text()
            if needle.search(text) if hasattr(needle, "search") else needle in text:
                if self.quiet or self.eof:
                    return text
                read_on = read_on or time.time() + self.READ_ON
                if time.time() > read_on:
                    return text
            elif self.eof or time.time() > end:
                raise AssertionError(f"screen never showed {needle!r} (eof={self.eof}):\n{text}\n"
                                     f"last bytes {self.raw[-300:]!r}")
            self.pump(quiet=0.05, limit=0.2)

    def wait_raw(self, pattern, timeout=15):
        """Waits until the bytes written match pattern (a bytes regular expression)."""
        end = time.time() + timeout
        while not re.search(pattern, self.raw):
            if self.eof or time.time() > end:
                raise AssertionError(f"waited for {pattern!r} in output; got {self.raw[-500:]!r}")
            self.pump(quiet=0.05, limit=0.2)

    def send(self, keys, settle=True):
        """Types keys (str or bytes); with settle, reads until the output is quiet."""
        self.child.send(keys)
        if settle:
            self.pump()

    def type_now(self, keys):
        """Types keys (str or bytes) at once: pexpect's send sleeps its
        delaybeforesend (50 ms) before it writes, which a key timed from its
        send would count as the daemon's."""
        os.write(self.child.child_fd, keys.encode() if isinstance(keys, str) else keys)

    def play_keys(self, keys):
        """Types keys one at a time, each given a moment to be answered."""
        for k in keys:
            self.send(k, settle=False)
            self.pump(quiet=0.03, limit=1)
        self.pump()

    def resize(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)
        self.pump()

    def wait_exit(self, timeout=15):
        """Waits for the program to end; returns (exit status, signal)."""
        end = time.time() + timeout
        while not self.eof and time.time() < end:
            self.pump(quiet=0.2, limit=0.2)
        self.child.close()
        return self.child.exitstatus, self.child.signalstatus

    def close(self):
        if self.child.isalive():
            self.child.terminate(force=True)

    # ---- menu flows (the daemon's main menu) -----------------------------------------
    def connected(self):
        self.wait_for("Your choice")
        return self

    def menu(self, key, *answers):
        """From the main menu: presses key, then types each (prompt, text)
        of answers, with Enter, once its prompt shows."""
        self.wait_for("Your choice")
        self.send(key, settle=False)  # each step waits for its prompt instead
        for prompt, text in answers:
            self.wait_for(prompt)
            self.send(text + "\r", settle=False)

    def try_login(self, name, pw=PW):
        """From the main menu: types a login; the caller waits for the answer."""
        self.menu("l", ("Name:", name), ("Password:", pw))

    def login(self, name, pw=PW):
        """From the main menu: logs in; returns the screen."""
        self.try_login(name, pw)
        return self.wait_for(f"Logged in as {name}", timeout=30)

    def register(self, name, pw=PW):
        """From the main menu: registers an account, which logs it in."""
        self.menu("r", ("Name:", name), ("Password:", pw), ("Password again:", pw))
        self.wait_for(f"Logged in as {name}", timeout=30)

    def play(self):
        """From the logged-in menu to the first screen of the game (the
        character screen of a new one); returns its text."""
        self.send("p")
        end = time.time() + 20
        while time.time() < end:
            self.pump(quiet=0.2, limit=0.2)
            t = self.text()
            if "Your choice" not in t and "One moment" not in t and t.strip():
                self.pump(quiet=0.3, limit=5)
                return self.text()
        raise AssertionError("the game did not start:\n" + self.text())

    def random_character(self, name):
        """From the logged-in menu: a new game whose race and class are left
        to chance ('l' is no choice); returns once the map is drawn."""
        self.send("p", settle=False)
        self.wait_for("Choose a race.")
        self.send("l", settle=False)
        self.wait_for(f"Welcome, {name} the ")
        self.pump(quiet=0.3)

    def options(self):
        """From the logged-in menu to the options menu."""
        self.send("o")
        self.wait_for("Options")
        return self


class Telnet(Term):
    """Debian's telnet connected to a daemon's telnet port; source: the local
    address to connect from (any 127.x.y.z is this machine on Linux). Run as
    a player runs it: ^] is its escape key, so Warren's prefix is Ctrl-backslash."""

    def __init__(self, port, cols=80, rows=24, term="xterm-256color", source=None):
        bind = ["-b", source] if source else []
        super().__init__(["telnet", *bind, "127.0.0.1", str(port)], cols=cols, rows=rows,
                         term=term)


def new_game(daemon, t, name, pw=PW, turns=False):
    """Registers name on t (at the main menu) and starts its game; returns
    (game id, seed) from the daemon's log. turns: the turn counter on first
    (an account option, off by default; replays always show it)."""
    t.register(name, pw)
    if turns:
        t.options().send("n")
        t.wait_for("Turn counter: on")
        t.send("q")
        t.wait_for(f"Logged in as {name}")
    t.send("p")
    m = daemon.wait_log(rf"game start user={name} game=(\d+) seed=(\d+)")
    return int(m.group(1)), int(m.group(2))


def options_menu(t, name, pw=PW, new=True):
    """From a new connection t to the options menu of name's account:
    registered first when new, else logged in."""
    t.connected()
    (t.register if new else t.login)(name, pw)
    return t.options()


def hook(daemon, client, user):
    """Presses the hash key; returns dict(hash, seed, turn, seq)."""
    client.send(F12, settle=False)
    m = daemon.wait_log(rf"hook user={user} game=\d+ hash=([0-9a-f]+) seed=(\d+) turn=(\d+) seq=(\d+)")
    return {"hash": m.group(1), "seed": int(m.group(2)), "turn": int(m.group(3)),
            "seq": int(m.group(4))}


def login_then(port, name, then=b"", pw=PW):
    """A raw socket (each send one packet, as telnet's line-at-a-time never
    is) that logs in as name from the main menu: l, the name, then pw,
    Enter and then in one packet, so then is typed while the login is
    checked. Returns the socket (the caller closes it); waits for no answer."""
    s = socket.create_connection(("127.0.0.1", port))
    raw_read(s, 10, b"Your choice")
    s.sendall(b"l")
    raw_read(s, 10, b"Name:")
    s.sendall(name.encode() + b"\r")
    raw_read(s, 10, b"Password:")
    s.sendall(pw.encode() + b"\r" + then)
    s.settimeout(10)
    return s


def raw_hook(daemon, sock, user):
    """login_then's hook: presses the hash key on a raw socket once the keys
    before it had a moment; returns the game's dict(hash, seed, turn, seq)."""
    time.sleep(0.5)
    sock.sendall(F12.encode())
    m = daemon.wait_log(rf"hook user={user} game=\d+ hash=([0-9a-f]+) seed=(\d+) turn=(\d+) seq=(\d+)")
    return {"hash": m.group(1), "seed": int(m.group(2)), "turn": int(m.group(3)),
            "seq": int(m.group(4))}


def stored_hook(daemon, client, user, tries=100):
    """The game's hook once every key typed is stored: dict(game, hash,
    seed, seq)."""
    for _ in range(tries):
        client.send(F12, settle=False)
        m = daemon.wait_log(rf"hook user={user} game=(\d+) hash=([0-9a-f]+) seed=(\d+) turn=(\d+) "
                            rf"seq=(\d+) stored=(\d+)")
        if m.group(5) == m.group(6):
            return {"game": int(m.group(1)), "hash": m.group(2), "seed": int(m.group(3)),
                    "seq": int(m.group(5))}
    raise AssertionError("keys never stored")


def replay(bindir, tmp, seed, name, keys, size="80x24", turns=False):
    """The same keys played without interruption (bin/tools/server_replay):
    returns (screen rows without trailing blanks, hash). turns: the turn
    counter shown, as replays draw."""
    tool = program(bindir, "tools/server_replay", "asan/tools/server_replay")
    kf = tmp / "keys.bin"
    kf.write_bytes(keys)
    out = subprocess.run([str(tool), "--seed", str(seed), "--name", name, "--keys", str(kf),
                          "--size", size, "--turns", str(int(turns))], capture_output=True, check=True, timeout=60).stdout
    lines = out.decode("utf-8").split("\n")
    h = [ln for ln in lines if ln.startswith("hash ")][-1].split()[1]
    return [ln.rstrip() for ln in lines[:int(size.split("x")[1])]], h


def colour_params(drawn):
    """The colour parameters of every SGR sequence in drawn (39 and 49, the
    default colours, left out)."""
    found = []
    for m in re.finditer(rb"\x1b\[([0-9;]*)m", drawn):
        ps = [int(p) for p in m.group(1).split(b";") if p]
        while ps:
            p = ps.pop(0)
            if p in (38, 48):
                found.append(tuple([p] + ps[:2]))
                del ps[:2]
            elif 30 <= p <= 37 or 40 <= p <= 47 or 90 <= p <= 97 or 100 <= p <= 107:
                found.append(p)
    return found


# ---- HTTP -------------------------------------------------------------------------------

FORM = "application/x-www-form-urlencoded"


class Response(collections.namedtuple("Response", "status headers body")):
    """An HTTP answer: status (0 when the server closed without one), headers
    (case-insensitive, None when missing) and the body as sent."""
    __slots__ = ()

    @property
    def head(self):
        """The header lines as sent, for matching with regular expressions."""
        return "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())

    @property
    def session(self):
        """The session token a Set-Cookie gives, or None."""
        m = re.search(r"warren_session=([A-Za-z0-9_-]+)", self.headers.get("set-cookie") or "")
        return m.group(1) if m else None


class Web:
    """An HTTP client for host:port (127.0.0.1), one connection a request, no
    redirects followed; session: a login token sent as the cookie; source:
    the local address to connect from."""

    def __init__(self, port, session=None, timeout=30, source=None, host="127.0.0.1"):
        self.host = host
        self.port = port
        self.session = session
        self.timeout = timeout
        self.source = (source, 0) if source else None

    def request(self, method, path, body=None, headers=None):
        """body: bytes, or a dict sent as a form."""
        h = {"Connection": "close"}
        if self.session:
            h["Cookie"] = f"warren_session={self.session}"
        if isinstance(body, dict):
            body = urllib.parse.urlencode(body).encode()
            h["Content-Type"] = FORM
        h.update(headers or {})
        con = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout,
                                         source_address=self.source)
        try:
            con.request(method, path, body=body, headers=h)
            r = con.getresponse()
            return Response(r.status, r.msg, r.read())
        except (ConnectionError, http.client.HTTPException, socket.timeout):
            return Response(0, http.client.HTTPMessage(), b"")
        finally:
            con.close()

    def get(self, path, headers=None):
        return self.request("GET", path, headers=headers)

    def post(self, path, body, headers=None):
        return self.request("POST", path, body, {"Content-Type": FORM, **(headers or {})})

    def json(self, path):
        """GET path, which must answer JSON; returns (status, the value)."""
        status, headers, body = self.get(path)
        assert headers["content-type"].startswith("application/json"), (path, headers)
        return status, json.loads(body)

    def html(self, path):
        """GET path, which must answer HTML; returns (status, the text)."""
        status, headers, body = self.get(path)
        assert headers["content-type"].startswith("text/html"), (path, headers)
        return status, body.decode("utf-8")

    def register(self, name, pw, next=None):
        """The registration form; a 303 carries the new session's cookie."""
        form = {"name": name, "password": pw, "password2": pw}
        if next:
            form["next"] = next
        return self.post("/register", form)

    def assert_serving(self):
        status, _, body = self.get("/")
        assert status == 200 and b"<title>Warren</title>" in body, (status, body[:200])


def raw(port, data, timeout=5.0, source=None):
    """Sends bytes as they are; returns everything the server sends until it
    closes, goes quiet or has sent a whole response with a length."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                 source_address=(source, 0) if source else None)
    try:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before it was all sent: what came back is still read
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not b:
                break
            chunks.append(b)
            if b"\r\n\r\n" in b"".join(chunks):
                head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
                m = re.search(rb"content-length: *(\d+)", head, re.I)
                if m and len(body) >= int(m.group(1)):
                    break
        return b"".join(chunks)
    finally:
        s.close()


def read_all(sock):
    """Everything a socket receives until the peer closes; closes it."""
    got = b""
    with sock:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return got
            got += chunk


def status_of(resp):
    """The status code of raw response bytes, 0 when there is none."""
    m = re.match(rb"HTTP/1\.[01] (\d{3})", resp)
    return int(m.group(1)) if m else 0


class WS:
    """A minimal RFC 6455 client: enough to send odd frames on purpose.
    session: a login token sent as the cookie; rcvbuf: a receive buffer
    size set before connecting (a watcher that falls behind); source: the
    local address to connect from; headers: more request header lines."""

    def __init__(self, port, path, origin=None, session=None, rcvbuf=None, timeout=5,
                 source=None, headers=None):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if source:
            self.s.bind((source, 0))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # keys go out at once
        self.s.settimeout(timeout)
        self.s.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        req = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
        if origin:
            req += f"Origin: {origin}\r\n"
        if session:
            req += f"Cookie: warren_session={session}\r\n"
        for name, value in (headers or {}).items():
            req += f"{name}: {value}\r\n"
        self.s.sendall((req + "\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            b = self.s.recv(1)
            if not b:
                break
            head += b
        self.status = int(head.split()[1]) if head.startswith(b"HTTP/") else 0
        self.buf = b""

    def send_frame(self, opcode, payload, fin=True):
        mask = os.urandom(4)
        hdr = bytes([(0x80 if fin else 0) | opcode])
        n = len(payload)
        if n < 126:
            hdr += bytes([0x80 | n])
        elif n < 65536:
            hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        try:
            self.s.sendall(hdr + mask + masked)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def text(self, s):
        self.send_frame(1, s.encode() if isinstance(s, str) else s)

    def binary(self, b):
        self.send_frame(2, b)

    def _need(self, n):
        while len(self.buf) < n:
            b = self.s.recv(65536)
            if not b:
                raise EOFError
            self.buf += b

    def recv(self):
        """Returns (opcode, payload); raises EOFError when the socket ends."""
        self._need(2)
        op, n = self.buf[0] & 0x0F, self.buf[1] & 0x7F
        off = 2
        if n == 126:
            self._need(4)
            n = struct.unpack(">H", self.buf[2:4])[0]
            off = 4
        elif n == 127:
            self._need(10)
            n = struct.unpack(">Q", self.buf[2:10])[0]
            off = 10
        self._need(off + n)
        payload = self.buf[off:off + n]
        self.buf = self.buf[off + n:]
        return op, payload

    def until(self, pred, timeout=5.0):
        """Reads until pred(opcode, payload); returns that message."""
        end = time.time() + timeout
        while time.time() < end:
            op, p = self.recv()
            if pred(op, p):
                return op, p
        raise AssertionError("timed out waiting for a frame")

    def json_until(self, pred, timeout=10.0):
        """Reads until a text message satisfies pred(its JSON value); returns the value."""
        end = time.time() + timeout
        self.s.settimeout(timeout)
        while time.time() < end:
            op, p = self.recv()
            if op == 1:
                m = json.loads(p)
                if pred(m):
                    return m
        raise AssertionError("no such message")

    def close_code(self, timeout=5.0):
        """Reads until the server's close frame; returns its code."""
        self.s.settimeout(timeout)
        try:
            while True:
                op, p = self.recv()
                if op == 8:
                    return struct.unpack(">H", p[:2])[0] if len(p) >= 2 else 1005
        except (EOFError, ConnectionResetError):
            return None

    def close(self):
        self.s.close()


def stays_open(*socks, quiet=1.5):
    """None of websockets socks is sent a close frame for quiet seconds
    (whatever else comes is read); each closed then."""
    end = time.time() + quiet
    for ws in socks:
        ws.s.settimeout(0.1)
    while time.time() < end:
        for ws in socks:
            try:
                assert ws.recv()[0] != 8
            except TimeoutError:
                pass
    for ws in socks:
        ws.close()


def play_socket(port, session, w=100, h=30, timeout=10):
    """/ws/play of a logged-in account at w x h, once its game shows its
    status line (a new game gets a random character: any key but a-d)."""
    ws = WS(port, "/ws/play", session=session, timeout=timeout)
    assert ws.status == 101
    ws.text(json.dumps({"t": "resize", "w": w, "h": h}))
    op, p = ws.until(lambda op, p: op == 2 and (b"HP " in p or b"who are you" in p), timeout=10)
    if b"HP " not in p:
        ws.binary(b"*")
        ws.until(lambda op, p: op == 2 and b"HP " in p, timeout=10)
    return ws


# ---- browsers and screenshots ---------------------------------------------------------

def browser_script(script, *args, timeout=180):
    """Runs tests/web/SCRIPT (Debian's Chromium through playwright-core);
    returns (the finished process, the JSON object it printed last)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["node", str(ROOT / "tests" / "web" / script), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout)
    got = [x for x in r.stdout.splitlines() if x.startswith("{")]
    assert got, f"no result: {r.stdout} {r.stderr}"
    return r, json.loads(got[-1])


def png_pixels(path):
    """Decodes an 8-bit RGB/RGBA PNG (what Chromium writes) into rows of tuples."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw_rows = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw_rows[y * (stride + 1)]
        line = bytearray(raw_rows[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return rows

