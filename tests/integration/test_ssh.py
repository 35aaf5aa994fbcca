"""ssh access through Debian's OpenSSH: a real sshd on 127.0.0.1 configured
from deploy/sshd/, a game account made for the test (empty password, its
only command `warren --ssh`), and the real ssh client in a pty. The player
registers, plays, detaches by dropping the connection, reconnects and
resumes; the daemon's log shows the address from SSH_CONNECTION."""
import os
import pathlib
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from harness import ROOT, Daemon, free_port, program, sbin, unique_name

SNIPPET = ROOT / "deploy" / "sshd" / "warren.conf"
# ssh binds this loopback source address, so the daemon's log can only show
# it if it came through SSH_CONNECTION -> NEW-ENVIRON (other clients are 127.0.0.1).
SSH_SOURCE = "127.0.0.5"


def make_snippet(user, client, sock):
    text = SNIPPET.read_text()
    assert re.search(r"^Match User warren$", text, re.M), "snippet must match the warren account"
    text, n = re.subn(r"^Match User warren$", "Match User " + user, text, flags=re.M)
    text, m = re.subn(r"ForceCommand /usr/local/bin/warren --ssh --socket /run/warren/warren.sock",
                      "ForceCommand %s --ssh --socket %s" % (client, sock), text)
    assert n == 1 and m == 1, "deploy/sshd/warren.conf changed shape: update this test"
    return text


def start_sshd(top, config):
    """sshd on 127.0.0.1 with a new host key in top, config after its own
    lines (checked by sshd -t first), its log in top/sshd.log: (the
    process, its port) once it takes connections, or it stopped and the
    log said."""
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation dir
    hostkey = top / "ssh_host_ed25519_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(hostkey)], check=True)
    port = free_port()
    conf = top / "sshd_config"
    # UsePAM yes as in Debian's sshd_config: the empty password passes
    # through pam_unix (nullok) exactly as on a real server.
    conf.write_text(f"Port {port}\nListenAddress 127.0.0.1\nHostKey {hostkey}\n"
                    f"PidFile {top}/sshd.pid\nUsePAM yes\n" + config)
    check = subprocess.run([sbin("sshd"), "-t", "-f", str(conf)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    with open(top / "sshd.log", "wb") as sshlog:
        sshd = subprocess.Popen([sbin("sshd"), "-D", "-e", "-f", str(conf)], stdout=sshlog,
                                stderr=sshlog)
    end = time.time() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return sshd, port
        except OSError:
            if time.time() >= end or sshd.poll() is not None:
                sshd.terminate()
                sshd.wait(10)
                raise AssertionError((top / "sshd.log").read_text())
            time.sleep(0.05)


@pytest.fixture
def world(bindir):
    client = program(bindir, "warren")
    # Not under pytest's 0700 tmp: the game account must reach the socket.
    top = pathlib.Path(tempfile.mkdtemp(prefix="warren-ssh-", dir="/tmp"))
    os.chmod(top, 0o755)
    user = unique_name("wt")[:30]
    home = top / "home"
    subprocess.run(["useradd", "-m", "-d", str(home), "-s", "/bin/sh", user], check=True)
    subprocess.run(["passwd", "-d", user], check=True, capture_output=True)
    daemon = sshd = None
    try:
        # As deploy/warrend.service runs it: group shared with the ssh account
        # and UMask=0007, so the socket is srwxrwx--- and nobody else gets in.
        daemon = Daemon(bindir, top / "d", unix=True, popen={"group": user, "umask": 0o007})
        daemon.start()
        os.chmod(top / "d", 0o755)
        assert (os.stat(daemon.sock).st_mode & 0o777) == 0o770
        (top / "warren.conf").write_text(make_snippet(user, client, daemon.sock))
        sshd, port = start_sshd(top, f"LogLevel VERBOSE\nInclude {top}/warren.conf\n")
        yield {"user": user, "port": port, "daemon": daemon, "top": top, "client": client}
        daemon.stop_clean()
    finally:
        if sshd:
            sshd.terminate()
            sshd.wait(10)
        if daemon:
            daemon.stop()
        subprocess.run(["userdel", "-r", user], capture_output=True)
        shutil.rmtree(top, ignore_errors=True)


def ssh_term(clients, w):
    return clients.spawn(["/usr/bin/ssh", "-F", "/dev/null", "-p", str(w["port"]),
                          "-b", SSH_SOURCE,
                          "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                          "-o", "PubkeyAuthentication=no", "-o", "LogLevel=ERROR",
                          "%s@127.0.0.1" % w["user"]], cols=80, rows=24)


def map_rows(t):
    # the top part of the game screen: the map, not the status lines
    return t.screen.display[1:18]


def test_ssh_play_detach_resume(world, clients):
    name = unique_name("ssh")
    daemon = world["daemon"]
    t = ssh_term(clients, world)
    t.register(name)
    # The address ssh saw, passed through SSH_CONNECTION and NEW-ENVIRON,
    # is the one the daemon logs and limits by.
    log = daemon.log()
    assert re.search(r"remote-addr conn=\d+ ip=%s" % re.escape(SSH_SOURCE), log), log
    assert re.search(r"login conn=\d+ ip=%s user=%s" % (re.escape(SSH_SOURCE), name), log), log
    t.play()
    for key in "lljjhk":
        t.send(key, settle=False)
        t.pump(quiet=0.2, limit=5)
    t.pump(quiet=0.3, limit=5)
    before = map_rows(t)
    assert any(r.strip() for r in before)
    t.close()  # detach: the line drops mid-game
    end = time.time() + 10
    while "disconnect" not in daemon.log().split("login conn=")[-1] and time.time() < end:
        time.sleep(0.1)

    t = ssh_term(clients, world)
    text = t.login(name)
    assert "waiting" in text  # "Your game is waiting: press p to continue it."
    t.play()
    t.pump(quiet=0.3, limit=5)
    assert map_rows(t) == before, "resumed screen differs:\n%s\n---\n%s" % (
        "\n".join(before), "\n".join(map_rows(t)))
    t.close()

    log = daemon.log()
    assert re.search(r"remote-addr conn=\d+ ip=%s" % re.escape(SSH_SOURCE), log), log
    assert re.search(r"login conn=\d+ ip=%s user=%s" % (re.escape(SSH_SOURCE), name), log), log


def test_socket_closed_to_other_users(world):
    """The address sent on the socket is trusted, so only the ssh account
    (and the daemon) may open it."""
    r = subprocess.run([str(world["client"]), "--ssh", "--socket", str(world["daemon"].sock)],
                       user="nobody", stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=20, env={"SSH_CONNECTION": "192.0.2.9 1 127.0.0.1 22"})
    assert r.returncode == 1 and "permission denied" in r.stderr, r.stderr
    assert "192.0.2.9" not in world["daemon"].log()


def test_client_environment_never_reaches_the_forced_command(bindir):
    """An operator's global `AcceptEnv *` (below the snippet's Include, as
    Debian's AcceptEnv LANG LC_* is) passes nothing the client sends with
    SetEnv to the game account's forced command: not LD_PRELOAD, not
    WARREN_SOCKET. The forced command here prints its environment."""
    top = pathlib.Path(tempfile.mkdtemp(prefix="warren-sshenv-", dir="/tmp"))
    os.chmod(top, 0o755)
    user = unique_name("we")[:30]
    subprocess.run(["useradd", "-m", "-d", str(top / "home"), "-s", "/bin/sh", user], check=True)
    subprocess.run(["passwd", "-d", user], check=True, capture_output=True)
    sshd = None
    try:
        text = make_snippet(user, "/usr/bin/env", "x")
        text = text.replace("ForceCommand /usr/bin/env --ssh --socket x", "ForceCommand /usr/bin/env")
        (top / "warren.conf").write_text(text)
        sshd, port = start_sshd(
            top, f"Include {top}/warren.conf\nAcceptEnv *\nPermitUserEnvironment yes\n")
        r = subprocess.run(
            ["/usr/bin/ssh", "-F", "/dev/null", "-p", str(port), "-T",
             "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
             "-o", "PubkeyAuthentication=no", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
             "-o", "SetEnv=LD_PRELOAD=/nonexistent/evil.so WARREN_SOCKET=/tmp/evil.sock "
                   "WARREN_PROBE=1",
             "%s@127.0.0.1" % user], stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=30)
        # the forced command ran (its environment printed) ...
        assert r.returncode == 0 and "SSH_CONNECTION=" in r.stdout, (r.stdout, r.stderr,
                                                                    (top / "sshd.log").read_text())
        # ... with none of the client's variables
        for name in ("LD_PRELOAD", "WARREN_SOCKET", "WARREN_PROBE"):
            assert name not in r.stdout, r.stdout
    finally:
        if sshd:
            sshd.terminate()
            sshd.wait(10)
        subprocess.run(["userdel", "-r", user], capture_output=True)
        shutil.rmtree(top, ignore_errors=True)
