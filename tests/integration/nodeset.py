"""Daemons as nodes of one Warren (WARREN_DB=pg): started on one
PostgreSQL schema, each named with --node, peers each listening for the
node-to-node stream on a port of its own and naming the others'; every
one still running stopped cleanly at the end. A suite's fixture:

    @pytest.fixture
    def pair(bindir, tmp_path):
        with Nodes(bindir, tmp_path) as nodes:
            yield nodes.peers(("a", "b"), http=True)
"""
from harness import Daemon, free_port

SECRET = "peer-secret-1"


def on_database(d, url):
    """Daemon d, not started yet, on the database url instead of its own,
    its control socket where the file's would be (as Daemon does with
    WARREN_DB=pg), so warren-admin reaches it either way."""
    d.db_url = url
    d.argv[d.argv.index("--db") + 1] = url
    if "--control" not in d.argv:
        d.argv += ["--control", f"{d.db}.ctl"]
    return d


class Nodes(list):
    """The nodes started so far (in dir/NAME each), on url's schema when
    given, else on the first one's."""

    def __init__(self, bindir, dir, url=None):
        super().__init__()
        self.bindir, self.dir, self.url = bindir, dir, url

    def start(self, name, *flags, db=None, **options):
        """Node name with flags (Daemon's options too), connecting to the
        schema by db when given (the same schema another way, as through a
        proxy): its db_url stays the schema's, for the test's own reads."""
        d = Daemon(self.bindir, self.dir / name, extra=["--node", name, *flags], **options)
        url = self.url or (self[0].db_url if self else None)
        if url:
            on_database(d, url)
        if db:
            d.argv[d.argv.index("--db") + 1] = db
        self.append(d.start())
        return d

    def peers(self, names, *flags, more=None, db=None, secret=SECRET, **options):
        """Nodes names, started in turn, each listening for the stream on a
        port of its own and naming the others' (--peers), with flags and
        then more[name] (db[name]: as start's db); returns them."""
        ports = {n: free_port() for n in names}
        for name in names:
            others = ",".join(f"{o}=127.0.0.1:{ports[o]}" for o in names if o != name)
            self.start(name, "--peer-listen", f"127.0.0.1:{ports[name]}", "--peers", others,
                       "--peer-secret", secret, *flags, *(more or {}).get(name, ()),
                       db=(db or {}).get(name), **options)
        return self[-len(names):]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for d in self:
            if d.alive():  # not one a test killed
                d.stop_clean()
