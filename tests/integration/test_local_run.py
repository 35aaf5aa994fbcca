"""Trying Warren on one's own machine, through the project's own Makefile:
`make -j` installs the packages before it compiles anything, `make run`
passes ARGS to warrend, and `make run-hosted` builds a private NetHack
playground, starts warrend with it (dropping root), serves NetHack over
telnet and stops on Ctrl-C with the game saved."""
import os
import pathlib
import pwd
import signal
import socket
import subprocess
import time

import pytest

from harness import ROOT, WEB_DIST, Web, free_port, unique_name
from test_hosted import answer_until

DEPS_SHIM = """#!/bin/sh
# dpkg-query as tools/deps.sh calls it, a little slower, noting when
sleep 0.1
date +%s.%N >> {log}
exec /usr/bin/dpkg-query "$@"
"""


def build_dir(bindir):
    """make's B= for the build under test (the default build dir is B=.)."""
    b = pathlib.Path(bindir).resolve().parent
    return [] if b == ROOT.resolve() else [f"B={b}"]


def shell_env(**more):
    """The environment of someone typing make in a shell: none of the make
    that may be running these tests (its jobserver, its level)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(more)
    return env


def make(bindir, *args, env=None, **kw):
    return subprocess.Popen(["make", "--no-print-directory", "-C", str(ROOT), *build_dir(bindir),
                             *args], stdin=subprocess.DEVNULL, start_new_session=True,
                            env=env or shell_env(), **kw)


def wait_port(port, proc, log, timeout=300):
    end = time.time() + timeout
    while time.time() < end:
        assert proc.poll() is None, f"make ended ({proc.returncode}): {log.read_text()[-3000:]}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"nothing listens on {port}: {log.read_text()[-3000:]}")


def stop(proc, sig=signal.SIGINT, timeout=60):
    """Ctrl-C as a terminal sends it: to make and everything it started."""
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise


def test_parallel_make_installs_packages_before_it_compiles(tmp_path):
    """Two objects with -j2: deps runs (its dpkg-query calls are logged) and
    is done before either compile starts, as on a fresh clone where the
    headers come from it."""
    shim = tmp_path / "shim"
    shim.mkdir()
    log = tmp_path / "dpkg-query.log"
    (shim / "dpkg-query").write_text(DEPS_SHIM.format(log=log))
    (shim / "dpkg-query").chmod(0o755)
    b = tmp_path / "b"
    objs = [b / "build" / "rel" / "protocol" / f"{n}.o" for n in ("screen", "ansi")]
    r = subprocess.run(["make", "-C", str(ROOT), "-j2", f"B={b}", *map(str, objs)],
                       env=shell_env(PATH=f"{shim}:{os.environ['PATH']}"),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert log.exists(), "make compiled without running deps first"
    last = max(float(x) for x in log.read_text().split())
    for o in objs:
        # an object is written when its compile ends; a compile that
        # started before deps ended would have ended before it as well
        started = o.stat().st_mtime
        assert started >= last, (o, started, last)


def test_make_run_passes_args_to_warrend(bindir, tmp_path):
    port = free_port()
    out = tmp_path / "make.log"
    db = tmp_path / "warren.db"
    with open(out, "wb") as f:
        p = make(bindir, "run", f"ARGS=--telnet 127.0.0.1:{port} --http= --db {db}",
                 stdout=f, stderr=subprocess.STDOUT)
    try:
        wait_port(port, p, out)
        assert db.exists()
        # the port opens a little before the ready line is logged
        deadline = time.time() + 10
        while "ready" not in out.read_text() and time.time() < deadline and p.poll() is None:
            time.sleep(0.05)
    finally:
        stop(p, signal.SIGTERM)
    assert "ready" in out.read_text()


def processes_with(word):
    """(pid, uid) of every process whose command line holds word."""
    found = []
    for d in pathlib.Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if word in (d / "cmdline").read_bytes().decode(errors="replace"):
                found.append((int(d.name), d.stat().st_uid))
        except OSError:
            continue
    return found


def test_make_run_hosted_serves_nethack_over_telnet(bindir, tmp_path, clients):
    run = tmp_path / "run"
    port, http = free_port(), free_port()
    while http == port:
        http = free_port()
    out = tmp_path / "make.log"
    env = shell_env()
    if "WARREN_WEB_ROOT" not in env and (WEB_DIST / "index.html").exists():
        env["WARREN_WEB_ROOT"] = str(WEB_DIST)  # a build dir outside the tree has none beside it
    with open(out, "wb") as f:
        p = make(bindir, "run-hosted", f"RUN_DIR={run}",
                 f"ARGS=--telnet 127.0.0.1:{port} --http 127.0.0.1:{http}",
                 stdout=f, stderr=subprocess.STDOUT, env=env)
    try:
        wait_port(port, p, out)
        conf = (run / "warren.conf").read_text()
        assert "[game nethack]" in conf and f"-d {run / 'nethack'}" in conf
        assert ("[game crawl]" in conf) == os.access("/usr/games/crawl", os.X_OK)
        assert Web(http).get("/")[0] == 200
        t = clients(port)
        name = unique_name("rh")
        t.register(name)
        assert "1) Play NetHack 3.6.6" in t.wait_for("Your choice")
        t.send("1")
        t.wait_for("Shall I pick", timeout=30)
        answer_until(t, "Dlvl:1")
        games = processes_with(f"{run}/nethack")
        assert games, "no NetHack process"
        if os.geteuid() == 0:  # root drops: warrend and its games never run as root
            assert "running as warren-local" in out.read_text()
            assert {uid for _, uid in games} == {pwd.getpwnam("warren-games").pw_uid}
            assert (run / "warren.db").stat().st_uid == pwd.getpwnam("warren-local").pw_uid
    finally:
        stop(p)
    # stopped: nothing listens, NetHack was hung up and saved the game
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    assert not processes_with(f"{run}/nethack")
    assert list((run / "games" / "nethack" / name / "playground" / "save").iterdir()), \
        "NetHack did not save in the player's own playground"
