"""A private PostgreSQL cluster for the tests of the PostgreSQL backend:
initdb and pg_ctl from Debian's /usr/lib/postgresql/VERSION/bin in a
temporary directory, listening only on a Unix socket in that directory
(no TCP port at all). PostgreSQL refuses to run as root, so when the
tests do, the cluster runs as the system user warren-pg (made by
tools/deps.sh) and its directory belongs to that user.

    with PgCluster(tmp_path / "pg") as pg:
        url = pg.create_db("warren")   # postgresql:///warren?host=DIR&user=...
        ...

The URL is what warrend's `db =` takes. stop() (or leaving the with
block) stops the server with pg_ctl's fast mode and waits for it."""
import glob
import os
import pathlib
import pwd
import subprocess

PG_USER = "warren-pg"


def pg_bindir():
    """The newest installed server's bin directory, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return pathlib.Path(found[-1]).parent if found else None


class PgCluster:
    def __init__(self, dir):
        self.dir = pathlib.Path(dir)
        self.bin = pg_bindir()
        if self.bin is None:
            raise AssertionError("no PostgreSQL server in /usr/lib/postgresql: run make deps")
        self.data = self.dir / "data"
        self.sockdir = self.dir / "sock"
        self.logpath = self.dir / "postgres.log"
        self.user = None
        self.started = False
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam(PG_USER)
            except KeyError:
                raise AssertionError(f"no system user {PG_USER}: run make deps") from None
        self.role = self.user.pw_name if self.user else pwd.getpwuid(os.geteuid()).pw_name

    def _run(self, *argv, check=True, input=None):
        """A PostgreSQL program as the cluster's owner; its output."""
        kw = {}
        if self.user:
            kw = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        env = dict(os.environ, LC_ALL="C.UTF-8", PGHOST=str(self.sockdir))
        r = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env,
                           cwd="/", input=input, timeout=120, **kw)
        if check and r.returncode != 0:
            raise AssertionError(f"{argv[0]} failed ({r.returncode}):\n{r.stdout}{r.stderr}\n"
                                 f"{self.log()[-2000:]}")
        return r.stdout

    def log(self):
        try:
            return self.logpath.read_text(errors="replace")
        except (FileNotFoundError, PermissionError):
            return ""

    def start(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        self.sockdir.mkdir(exist_ok=True)
        if self.user:
            # the owner must reach its directory through the temporary ones above it
            for p in [self.dir, *self.dir.parents]:
                if str(p) in ("/", "/tmp"):
                    break
                os.chmod(p, os.stat(p).st_mode | 0o011)
            for p in (self.dir, self.sockdir):
                os.chown(p, self.user.pw_uid, self.user.pw_gid)
        self._run(self.bin / "initdb", "-D", self.data, "-U", self.role, "-A", "trust",
                  "-E", "UTF8", "--no-instructions")
        # a Unix socket in our directory only: no TCP listener, no shared /run
        opts = f"-c listen_addresses='' -c unix_socket_directories='{self.sockdir}' -c fsync=on"
        self._run(self.bin / "pg_ctl", "-D", self.data, "-l", self.logpath, "-o", opts,
                  "-w", "-t", "60", "start")
        self.started = True
        return self

    def psql(self, sql, db="postgres"):
        """Runs sql with psql (unaligned, no headers); its output."""
        return self._run(self.bin / "psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                         "-h", self.sockdir, "-U", self.role, "-d", db, "-c", sql)

    def url(self, db):
        return f"postgresql:///{db}?host={self.sockdir}&user={self.role}"

    def create_db(self, name):
        """A new, empty database; its URL."""
        self.psql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self):
        if not self.started:
            return
        self._run(self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop",
                  check=False)
        self.started = False

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

