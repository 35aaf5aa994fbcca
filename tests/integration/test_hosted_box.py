"""Hosted programs stay in their box, with the real daemon as root, real
links, Debian's NetHack: a game (or anything escaped from one) that plants
links in its player's directory gets nothing outside read, written or
chowned through /options/ID or the telnet editor; games run as the games'
user (never root), so NetHack's debug mode stays shut; what a program
leaves behind (a setsid grandchild) ends with its game and with warrend; a
root warrend with run-as drops to that user while games still start; the
xlogfile is read without following a link or waiting on a FIFO."""
import os
import pathlib
import pwd
import re
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time

import pytest

from harness import PW, Daemon, Web, daemon_exe, unique_name
from test_hosted import (NETHACK, RC, answer_until, for_games, games_ids, new_player,
                         open_to_games, playground, program_pid, settle, start_hosted, toy_copy)

if os.geteuid() != 0:  # these tests are about what a root daemon gives away
    raise RuntimeError("the hosted box tests run as root (as CI does)")
if not NETHACK.exists():
    raise RuntimeError(f"{NETHACK} missing: run make deps (it installs nethack-console)")

SECRET = "SECRET: only root may read this\n"


def owner_mode(path):
    st = os.lstat(path)
    return st.st_uid, stat.S_IMODE(st.st_mode)


def proc_ids(pid):
    """(real, effective, saved, fs) uids and the effective capabilities of pid."""
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    uids = [int(x) for x in re.search(r"^Uid:\s+(.*)$", status, re.M).group(1).split()]
    caps = int(re.search(r"^CapEff:\s+([0-9a-f]+)$", status, re.M).group(1), 16)
    return uids, caps


def machine_pid_of(holder, boxed):
    """The machine's pid of the process of holder's game that its box
    numbers boxed (the program's /proc is its box's: it knows only that),
    by the last pid of NSpid among the holder's descendants."""
    def children(pid):
        kids = pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text()
        return [int(k) for k in kids.split()]

    todo = children(holder)
    while todo:
        pid = todo.pop()
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
        if int(re.search(r"^NSpid:.*\s(\d+)$", status, re.M).group(1)) == boxed:
            return pid
        todo += children(pid)
    raise AssertionError(f"no process {boxed} in the box of {holder}")


def gone(pid, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def box(bindir, tmp_path):
    """A root directory the games' user can pass, ptytoy in it, a secret
    only root may read, and a place elsewhere."""
    open_to_games(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    os.chmod(secret, 0o600)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "nethackrc").write_text("ELSEWHERE\n")
    os.chmod(elsewhere / "nethackrc", 0o600)
    (tmp_path / "rcdefault").write_text("OPTIONS=color\n")
    return {"root": tmp_path, "toy": toy_copy(bindir, tmp_path), "secret": secret,
            "victim": tmp_path / "victim", "elsewhere": elsewhere}


def test_planted_links_read_write_and_chown_nothing(bindir, box, clients):
    """A hosted program links its rc file to a root-only file and rc.new to
    another path; the player's directory is replaced by a link. The telnet
    editor and /options/ID read none of it, write nowhere else, chown
    nothing, and say why."""
    toy, secret, victim = box["toy"], box["secret"], box["victim"]
    d = start_hosted(bindir, box["root"],
                     "[game plant]\n"
                     f"command = {toy} plant nethackrc {secret} {victim}\n"
                     "rcfile = %d/nethackrc\n"
                     f"rc-default = {box['root'] / 'rcdefault'}\n"
                     "[game plantu]\n"
                     f"command = {toy} winsize\n"
                     "rcfile = %d/nethackrc\n"
                     "user = nobody\n", http=True)
    try:
        t, name = new_player(d, clients, "pl", "1")
        t.wait_for("planted")  # the program, in its own directory, planted both links
        t.send("q")
        t.wait_for("has ended")
        t.send(" ")
        t.wait_for("Your choice")
        pdir = d.db.parent / "games" / "plant" / name
        assert os.readlink(pdir / "nethackrc") == str(secret)
        t.send("e")  # the telnet editor: not opened on the secret
        t.wait_for("Edit a game's rc file")
        t.send("1")
        t.wait_for("The rc file cannot be edited: your rc file is a link: not read.")
        assert "SECRET" not in t.text()
        web = Web(d.http, session=_login(d, name))
        status, page = web.html("/options/plant")
        assert status == 500 and "your rc file is a link: not read" in page and "SECRET" not in page
        r = web.post("/options/plant", {"rc": "OPTIONS=time\r\n"})  # replaces the link itself
        assert r.status == 200 and b"Saved." in r.body, r.body
        assert not victim.exists() and not os.path.islink(victim)
        assert secret.read_text() == SECRET and owner_mode(secret) == (0, 0o600)
        rc = pdir / "nethackrc"
        assert not rc.is_symlink() and rc.read_text() == "OPTIONS=time\n"
        assert owner_mode(rc) == (games_ids()[0], 0o600)
        assert not (pdir / "nethackrc.new").exists()
        t.send("e")  # now the editor opens the player's own file
        t.wait_for("Edit a game's rc file")
        t.send("1")
        t.wait_for("OPTIONS=time")
        t.send("q")
        # the player's directory itself a link elsewhere: refused, not followed
        other = unique_name("dl")
        web2 = Web(d.http, session=_register(d, other))
        status, _ = web2.html("/options/plant")  # makes the directory
        assert status == 200
        odir = d.db.parent / "games" / "plant" / other
        for f in odir.iterdir():
            f.unlink()
        odir.rmdir()
        os.symlink(box["elsewhere"], odir)
        status, page = web2.html("/options/plant")
        assert status == 500 and "ELSEWHERE" not in page
        assert "your directory for this game is a link or not a directory: not used" in page
        r = web2.post("/options/plant", {"rc": "OPTIONS=evil\r\n"})
        assert r.status == 400 and b"is a link or not a directory" in r.body
        assert (box["elsewhere"] / "nethackrc").read_text() == "ELSEWHERE\n"
        assert owner_mode(box["elsewhere"]) == (0, 0o755)
        assert owner_mode(box["elsewhere"] / "nethackrc") == (0, 0o600)
        # a section with user: the rc file linked to the secret is not given to that user
        status, _ = web2.html("/options/plantu")
        udir = d.db.parent / "games" / "plantu" / other
        assert status == 200 and owner_mode(udir) == (pwd.getpwnam("nobody").pw_uid, 0o700)
        (udir / "nethackrc").unlink(missing_ok=True)
        os.symlink(secret, udir / "nethackrc")
        status, page = web2.html("/options/plantu")
        assert status == 500 and "your rc file is a link: not read" in page and "SECRET" not in page
        assert owner_mode(secret) == (0, 0o600) and secret.read_text() == SECRET
        t2 = clients(d.port)
        t2.login(other)
        t2.send("1")  # the game cannot start there either
        t2.wait_for("The game cannot start now")
        assert "cannot start game=plant user=%s: your directory for this game is a link" % other \
            in d.log()
    finally:
        d.stop_clean()


def _register(d, name):
    return Web(d.http).register(name, PW).session


def _login(d, name):
    """A browser session of an account registered over telnet."""
    r = Web(d.http).post("/login", {"name": name, "password": PW})
    assert r.status == 303, r.status
    return r.session


def test_games_run_as_the_games_user_never_root(bindir, box, clients):
    """A section without user runs as games-user (warren-games); one with
    user = nobody runs as nobody (its directory made for it); the player's
    directory belongs to that user, 0700, games-dir/ID to warrend's, 0711."""
    toy = box["toy"]
    d = start_hosted(bindir, box["root"],
                     f"[game plain]\ncommand = {toy} winsize\n"
                     f"[game asnobody]\ncommand = {toy} winsize\nuser = nobody\n")
    try:
        games_uid = games_ids()[0]
        for key, game, uid in (("1", "plain", games_uid),
                               ("2", "asnobody", pwd.getpwnam("nobody").pw_uid)):
            t, name = new_player(d, clients, "u", key)
            t.wait_for("size 80x24")
            pid = program_pid(d, name, game)
            uids, caps = proc_ids(pid)
            assert uids == [uid] * 4 and caps == 0, (game, uids, caps)
            pdir = d.db.parent / "games" / game / name
            assert owner_mode(pdir) == (uid, 0o700)
            assert owner_mode(pdir.parent) == (0, 0o711)
            t.send("q")
            t.wait_for("has ended")
    finally:
        d.stop_clean()


def test_root_and_missing_users(bindir, box, clients):
    """user = root and a games-user of uid 0 are refused at start; a missing
    games user leaves its games unavailable: logged at start, told to the
    player who picks one."""
    toy, root = box["toy"], box["root"]
    for text, why in ((f"[game g]\ncommand = {toy} winsize\nuser = root\n",
                       "user: hosted games never run as root"),
                      (f"games-user = root\n[game g]\ncommand = {toy} winsize\n",
                       "games-user: hosted games never run as root")):
        (root / "bad.conf").write_text(text)
        r = subprocess.run([str(daemon_exe(bindir)), "--config", str(root / "bad.conf"),
                            "--db", str(root / "bad.db")], capture_output=True, text=True,
                           timeout=30)
        assert r.returncode == 2 and why in r.stderr, r.stderr
    d = start_hosted(bindir, root,
                     f"games-user = no-such-games-user\n[game g]\ncommand = {toy} winsize\n")
    try:
        assert ("hosted game g: g is not available: its user no-such-games-user does not exist "
                "(make deps or deploy/RUNNING.md creates it)") in d.log()
        t, _ = new_player(d, clients, "mu", "1")
        t.wait_for("g is not available: its user no-such-games-user does not exist.")
        assert "hosted start" not in d.log()
    finally:
        d.stop_clean()


def test_a_setsid_grandchild_ends_with_its_game_and_with_warrend(bindir, box, clients):
    """ptytoy setsid leaves a grandchild in a session of its own, its parent
    gone. It is gone when the game ends, and when warrend is SIGKILLed."""
    d = start_hosted(bindir, box["root"], f"[game setsid]\ncommand = {box['toy']} setsid\n"
                                          "hangup-timeout = 2\n")
    try:
        name = unique_name("gc")
        t = clients(d.port)
        t.register(name)
        for way in ("quit", "sigkill"):
            t.send("1")
            text = t.wait_for(re.compile(r"grandchild \d+"))
            leader = program_pid(d, name, "setsid")
            g = machine_pid_of(leader, int(re.search(r"grandchild (\d+)", text).group(1)))
            assert g != leader and not gone(g, 0.2)
            assert os.getsid(g) != leader  # out of its game's session
            if way == "quit":
                t.send("q")
                t.wait_for("has ended")
                assert gone(g, 5), "the grandchild outlived its game"
                t.send(" ")
                t.wait_for("Your choice")
            else:
                d.kill()
                assert gone(leader, 10) and gone(g, 10), "left running after warrend died"
        d.start()
    finally:
        d.stop_clean()


def test_nethack_debug_mode_is_unreachable(bindir, tmp_path, clients):
    """OPTIONS=playmode:debug in the player's rc file: NetHack runs as
    warren-games, not in Debian's WIZARDS (root games), so it refuses."""
    pg, conf = playground(tmp_path, bindir)
    (tmp_path / "nethackrc").write_text(RC + "OPTIONS=playmode:debug\n")
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        t, name = new_player(d, clients, "wz", "1")
        t.wait_for("Shall I pick", timeout=20)
        text = answer_until(t, "may access debug (wizard) mode.")  # after its welcome
        assert re.search(r"Only users? .* may access debug \(wizard\) mode\.", text), text
        answer_until(t, "Dlvl:1")
        uids, _ = proc_ids(program_pid(d, name, "nethack"))
        assert uids[0] == games_ids()[0]
        for _ in range(8):  # a --More-- of the game's own (a noise, a pet) takes a key
            t.send("\x06")  # ^F maps the level in debug mode only
            text = t.wait_for(re.compile(r"You can't do that!|--More--"))
            if "You can't do that!" in text:
                break
            t.send("\r")
            t.pump(quiet=0.3, limit=2)
        else:
            pytest.fail(f"^F never answered:\n{text}")
    finally:
        d.stop_clean()


def low_free_port():
    """A port below 1024 nobody listens on, for the capability check."""
    for port in range(900, 1000):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    pytest.fail("no free port below 1024")


def test_run_as_drops_root_while_games_start(bindir, box, clients):
    """warrend started as root with run-as nobody: the daemon becomes nobody
    (real, effective, saved and fs ids) with no capability but binding its
    port below 1024; its files are nobody's; its spawner stays root; hosted
    games still start as warren-games."""
    root = box["root"]
    ddir = root / "daemon"
    ddir.mkdir()
    os.chown(ddir, pwd.getpwnam("nobody").pw_uid, pwd.getpwnam("nobody").pw_gid)
    http = low_free_port()
    conf = root / "warren.conf"
    conf.write_text(f"run-as = nobody\n[game plain]\ncommand = {box['toy']} winsize\n")
    d = Daemon(bindir, ddir, extra=["--config", conf, "--http", f"127.0.0.1:{http}"])
    d.start()
    try:
        nobody = pwd.getpwnam("nobody").pw_uid
        uids, caps = proc_ids(d.proc.pid)
        assert uids == [nobody] * 4, uids
        assert caps == 1 << 10, hex(caps)  # CAP_NET_BIND_SERVICE alone
        assert "running as nobody" in d.log()
        assert Web(http).get("/").status == 200
        if not d.db_url:  # a PostgreSQL server keeps its own files
            assert os.stat(d.db).st_uid == nobody
        spawner = int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))
        suids, scaps = proc_ids(spawner)
        assert suids[0] == 0 and scaps and not scaps & (1 << 21)  # root, without CAP_SYS_ADMIN
        t, name = new_player(d, clients, "ra", "1")
        t.wait_for("size 80x24")
        assert proc_ids(program_pid(d, name, "plain"))[0] == [games_ids()[0]] * 4
        assert owner_mode(ddir / "games") == (nobody, 0o711)
    finally:
        d.stop_clean()


def test_xlogfile_is_read_safely(bindir, box, clients):
    """The xlogfile lies where games write: a FIFO there never blocks the
    loop, a link is not followed, a long file is read from its tail."""
    toy, root = box["toy"], box["root"]
    xlog = root / "xlog"
    d = start_hosted(bindir, root, f"[game ex]\ncommand = {toy} exit 0\nxlogfile = {xlog}\n")
    try:
        other, _ = new_player(d, clients, "ok")
        name = unique_name("xl")
        row = (f"version=3.6.6\tname={name}\tdeath=quit\tpoints=777\tturns=5\t"
               f"endtime={int(time.time()) + 5}\n")
        t = clients(d.port)
        t.register(name)
        os.mkfifo(xlog)  # no writer: a blocking open would wait for ever
        t.send("1")
        t.wait_for("ex has ended", timeout=10)
        assert f"xlogfile {xlog} is not a regular file: not read" in d.log()
        other.send("w")
        other.wait_for("Live games", timeout=5)  # the loop is free
        other.send("q")
        xlog.unlink()
        secret = root / "xsecret"  # a root-only file with the player's row
        secret.write_text(row)
        os.chmod(secret, 0o600)
        os.symlink(secret, xlog)
        t.send(" ")
        t.wait_for("Your choice")
        t.send("1")
        t.wait_for("ex has ended", timeout=10)
        assert "777 points" not in t.text() and f"xlogfile {xlog}: a link: not read" in d.log()
        xlog.unlink()  # 4 MB of others' rows, the player's last: found in the tail
        filler = "version=3.6.6\tname=someone\tdeath=quit\tpoints=1\tturns=1\tendtime=1\n"
        xlog.write_text(filler * (4 * 1024 * 1024 // len(filler)) + row)
        t.send(" ")
        t.wait_for("Your choice")
        t.send("1")
        t.wait_for("ex is over: quit. 777 points after 5 turns.", timeout=10)
    finally:
        d.stop_clean()


def unit_syscalls():
    """The system calls deploy/warrend.service's SystemCallFilter allows,
    its groups expanded by systemd-analyze (a call outside it kills the
    process that makes it: the unit sets no SystemCallErrorNumber)."""
    unit = (pathlib.Path(__file__).resolve().parents[2] / "deploy" / "warrend.service").read_text()
    assert not re.search(r"^SystemCallErrorNumber=", unit, re.M)
    names = " ".join(re.findall(r"^SystemCallFilter=(.*)$", unit, re.M)).split()
    allowed, seen = set(), set()
    while names:
        n = names.pop()
        if n in seen:
            continue
        seen.add(n)
        if not n.startswith("@"):
            allowed.add(n)
            continue
        r = subprocess.run(["systemd-analyze", "syscall-filter", n], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        names += [w for w in (ln.strip() for ln in r.stdout.splitlines()[1:])
                  if w and not w.startswith("#")]
    return allowed


def traced(bindir, root, conf_text, trace, play):
    """The system calls (names) warrend and everything it starts made, traced
    with strace -f while play(daemon) ran: the build installed, not the
    sanitizer's."""
    d = start_hosted(bindir, root, conf_text, exe=pathlib.Path(bindir) / "warrend",
                     wrap=("strace", "-f", "-qq", "-o", str(trace)))
    try:
        play(d)
    finally:  # warrend itself told to end (strace holds on to a SIGTERM), strace with it
        tracer = d.proc.pid
        child = pathlib.Path(f"/proc/{tracer}/task/{tracer}/children").read_text().split()
        os.kill(int(child[0]), signal.SIGTERM)
        d.stop_clean()
    made = set(re.findall(r"^\d+ +(?:<\.\.\. )?([a-z_0-9]+)[( ]", trace.read_text(), re.M))
    return made - {"exit", "exit_group", "rt_sigreturn", "resumed"}


def test_a_hosted_start_makes_only_calls_the_unit_allows(bindir, box, clients, tmp_path):
    """warrend, its spawner and a game's box (holder, reaper, the program's
    side before and after its exec) make no system call the shipped unit's
    filter refuses: one would kill the spawner, or every start, in
    production. Traced over a start, a game and an end."""
    def play(d):
        t, _ = new_player(d, clients, "sc", "1")
        t.wait_for("keys ready", timeout=30)
        t.send("ab")
        t.wait_for("got ", timeout=30)
        t.send("q")
        t.wait_for("has ended", timeout=30)

    made = traced(bindir, box["root"], f"[game toy]\ncommand = {box['toy']} keys\n",
                  tmp_path / "trace", play)
    assert "unshare" in made or "setns" in made, sorted(made)  # the box was traced
    assert not made - unit_syscalls(), sorted(made - unit_syscalls())


def test_nethack_makes_only_calls_the_unit_allows(bindir, tmp_path, clients):
    """Debian's NetHack in its box under the unit's filter: a new game, a
    few moves, a save and a restore make no call it refuses (one would
    kill every NetHack game with SIGSYS)."""
    _, conf = playground(tmp_path, bindir)

    def play(d):
        t, _ = new_player(d, clients, "nh", "1")
        answer_until(t, "Dlvl:1", timeout=60)
        settle(t)  # past a long welcome's --More--
        t.send("s" * 3)
        settle(t)
        t.send("S")
        t.wait_for("Really save?", timeout=30)
        t.send("y")
        t.wait_for("was saved", timeout=30)
        t.send(" ")
        t.wait_for("Your choice", timeout=30)
        t.send("1")
        answer_until(t, "Dlvl:1", timeout=60)

    made = traced(bindir, tmp_path, conf.read_text(), tmp_path / "trace", play)
    assert {"mount", "execve"} <= made, sorted(made)
    assert not made - unit_syscalls(), sorted(made - unit_syscalls())


def test_a_program_writes_nowhere_its_disk_cap_does_not_count(bindir, box, clients):
    """The machine's scratch directories (/tmp, /dev/shm, /run/lock and
    the others anyone may write to: a file there outlives the game and
    counts against no player's cap, and /dev/shm is memory) are empty and
    read-only in the box, but for one that holds
    games-dir (here /var/tmp: the box would hide it); and a program cannot
    make namespaces of its own to mount a tmpfs (memory no limit counts).
    Nothing is left in the machine's."""
    scratch = [p for p in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue",
                           "/var/crash") if os.path.isdir(p)]
    assert "/var/tmp" in scratch
    place = pathlib.Path(tempfile.mkdtemp(prefix="warren-box-", dir="/var/tmp"))
    try:
        os.chmod(place, 0o711)
        toy = toy_copy(bindir, place)
        d = start_hosted(bindir, box["root"], f"games-dir = {place / 'gd'}\n"
                         f"[game toy]\ncommand = {toy} spill {' '.join(scratch)}\n")
        try:
            t, _ = new_player(d, clients, "sp", "1")
            text = t.wait_for("spill done", timeout=30)
            for p in scratch:
                said = "ok" if p == "/var/tmp" else "Read-only file system"
                assert f"spill {p}: {said}" in text, text
            # the filter refuses unshare (beneath it the box's user
            # namespace allows none inside: ENOSPC)
            assert "nested namespaces: Operation not permitted" in text, text
            assert "nested tmpfs" not in text, text
            t.send("q")
        finally:
            d.stop_clean()
    finally:
        shutil.rmtree(place)
    for p in scratch:
        assert not [n for n in os.listdir(p) if n.startswith("ptytoy-spill-")], p


def shm_segments(uid):
    """The ids of the machine's System V shared memory segments uid owns."""
    ids = []
    for ln in pathlib.Path("/proc/sysvipc/shm").read_text().splitlines()[1:]:
        f = ln.split()
        if int(f[7]) == uid:  # key shmid perms size cpid lpid nattch uid ...
            ids.append(int(f[1]))
    return ids


def test_a_programs_system_v_memory_ends_with_its_game(bindir, box, clients):
    """A System V shared memory segment a program makes and leaves is
    memory no limit of its counts, and the machine's would keep it past
    the game (and warrend): the box has an IPC namespace of its own,
    whose segments go with it."""
    uid = games_ids()[0]
    before = set(shm_segments(uid))
    d = start_hosted(bindir, box["root"], f"[game toy]\ncommand = {box['toy']} sysv\n")
    try:
        t, name = new_player(d, clients, "sv", "1")
        t.wait_for("sysv shm ")
        t.send("q")
        d.wait_log(rf"program exited user={name} game=toy ")
        t.wait_for("toy has ended")
    finally:
        d.stop_clean()
    left = set(shm_segments(uid)) - before
    for shmid in left:  # the machine's own: removed, as an admin would
        subprocess.run(["ipcrm", "-m", str(shmid)], check=False)
    assert not left, left


def test_a_program_cannot_undo_its_box(bindir, box, clients):
    """A program that would make a user and mount namespace of its own,
    where it would have every right, is refused (the box's user namespace
    allows none inside it; were one made, the box's mounts came from the
    box's namespace, and the kernel keeps them locked together): games-dir's
    cover and /proc cannot be taken away nor a proc of the machine mounted,
    and it still sees only its own game's directory and its own two
    processes."""
    toy, gd = box["toy"], box["root"] / "gd"
    d = start_hosted(bindir, box["root"],
                     f"games-dir = {gd}\n[game victim]\ncommand = {toy} winsize\n"
                     f"[game toy]\ncommand = {toy} unmount {gd}\n")
    try:
        v, _ = new_player(d, clients, "vi", "1")
        v.wait_for("size 80x24")  # games-dir/victim/NAME exists, the game live
        t, _ = new_player(d, clients, "un", "2")
        text = t.wait_for("unmount done", timeout=30)
        assert "namespaces: Operation not permitted" in text, text  # the filter's unshare
        assert re.search(r"umount dir: (?!ok)", text), text
        assert re.search(r"umount proc: (?!ok)", text), text
        assert re.search(r"mount proc: (?!ok)", text), text
        assert re.search(r"ls: toy\s*\n", text), text
        assert re.search(r"pids: 1 2\s*\n", text), text
        t.send("q")
        v.send("q")
    finally:
        d.stop_clean()
