"""A hosted game's disk caps with the real daemon, real telnet and real
files (tests/tools/ptytoy fill): a program that fills its player's
directory past `disk` (bytes) or `disk-files` (entries) is hung up
(SIGHUP, long before its hangup-timeout) and its player told why; one
that ignores the hangup and holds twice the cap is killed at once; the
player's next start is refused while the directory is over, nothing
spawned, and starts again once it is under. Debian's NetHack, under the
default caps, plays, saves and comes back as before. A player's directory
that hangs (a FUSE mount that never answers) costs that player's start
alone."""
import ctypes
import datetime
import errno
import os
import pathlib
import re
import select
import struct
import time

import pytest

from harness import Daemon, unique_name
from test_hosted import (answer_until, new_player, own_saves, playground, program_pid, settle,
                         start_hosted as start, to_map, toy_copy)

STOPPED = "was stopped: your files for it went over its cap."
REFUSED = "cannot start: your files for it are over its cap."
HELP = "It can start again once they fit: an admin can help."


def fill_sections(toy):
    """Three fillers, hangup-timeout a minute: an exit within seconds is
    the cap's doing, not the timeout's."""
    return (f"[game bytes]\ncommand = {toy} fill bytes 12\ndisk = 8\nhangup-timeout = 60\n"
            f"[game files]\ncommand = {toy} fill files 150\ndisk-files = 100\n"
            "hangup-timeout = 60\n"
            f"[game hard]\ncommand = {toy} fill bytes 40 nohup\ndisk = 8\nhangup-timeout = 60\n"
            f"[game late]\ncommand = {toy} fill bytes 12 late\ndisk = 8\nhangup-timeout = 60\n")


def player_dir(d, game, name):
    return d.db.parent / "games" / game / name


def told(t, first, over):
    """The message screen: first, then by how much, then the help; any
    key back to the menu."""
    t.wait_for(HELP)
    lines = [ln.strip() for ln in t.lines()]
    at = lines.index(first)
    assert lines[at + 1:at + 3] == [over + ".", HELP], lines
    t.send(" ")
    t.wait_for("Your choice")


def stopped_then_refused(d, t, name, game, key, status, over):
    """name's game (menu key) went over: stopped with status (told),
    refused while over, started once the operator made room."""
    pid = program_pid(d, name, game)
    d.wait_logged(rf"spawner: disk over game={game} dir={name} pid={pid} ")
    d.wait_log(rf"hosted stopped user={name} game={game}: over its disk cap: {re.escape(over)}")
    d.wait_log(rf"program exited user={name} game={game} pid={pid} status={status}\b", timeout=10)
    told(t, f"{game} {STOPPED}", over)
    t.send(key)  # over still: refused, nothing started
    told(t, f"{game} {REFUSED}", over)
    d.wait_log(rf"spawner: disk over game={game} dir={name} bytes=\d+ entries=\d+: start refused")
    assert len(re.findall(rf"hosted start user={name} game={game} ", d.log())) == 1
    pdir = player_dir(d, game, name)
    for f in sorted(pdir.glob("fill-*"))[4:]:  # the operator makes room
        f.unlink()
    t.send(key)
    d.wait_log(rf"hosted start user={name} game={game} pid=\d+")


def test_a_program_over_its_cap_is_stopped_told_and_refused_until_under(bindir, tmp_path,
                                                                        clients):
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, fill_sections(toy))
    try:
        t, name = new_player(d, clients, "by", "1")
        stopped_then_refused(d, t, name, "bytes", "1", 1, "They take 12.0 MB, over the 8 MB allowed")
        f, other = new_player(d, clients, "fi", "2")
        stopped_then_refused(d, f, other, "files", "2",
                             1, "They are 150 files and directories, over the 100 allowed")
        assert (player_dir(d, "bytes", other).exists() is False)  # each player's own
    finally:
        d.stop_clean()


def test_a_program_that_ignores_the_hangup_at_twice_its_cap_is_killed_at_once(bindir, tmp_path,
                                                                               clients):
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, fill_sections(toy))
    try:
        t, name = new_player(d, clients, "hd", "3")
        pid = program_pid(d, name, "hard")
        m = d.wait_logged(rf"spawner: disk over game=hard dir={name} pid={pid} bytes=(\d+) "
                          r"entries=\d+: killed")
        assert int(m.group(1)) > 16 << 20
        # SIGKILL (9), not the SIGHUP it ignores, well before hangup-timeout (60 s)
        d.wait_log(rf"program exited user={name} game=hard pid={pid} status=9\b", timeout=5)
        t.wait_for(HELP)
        assert re.search(rf"hard {re.escape(STOPPED)}\s+They take at least \d+\.\d MB, over the 8 MB "
                         r"allowed\.", t.text()), t.text()
        t.send(" ")
        t.wait_for("Your choice")
        t.send("3")
        t.wait_for(HELP)
        assert f"hard {REFUSED}" in t.text()
        assert len(re.findall(rf"hosted start user={name} game=hard ", d.log())) == 1
    finally:
        d.stop_clean()


def stamp(line):
    """A log line's time, in seconds."""
    return datetime.datetime.fromisoformat(line.split()[0].replace("Z", "+00:00")).timestamp()


def descendants(pid):
    """pid and the processes under it, as far down as they go."""
    children = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (ValueError, OSError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += children.get(found[-1], [])
    return found


def started_at(pid, word, timeout=5):
    """When the process under pid (the spawner's child: a holder, a
    reaper, then the program) whose command line has word was made, in
    seconds of the wall clock: its start in the kernel's count (clock
    ticks since boot), however late anyone logged it."""
    end = time.time() + timeout
    while True:
        for p in descendants(pid):
            try:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    if word.encode() not in f.read().split(b"\0"):
                        continue
                with open(f"/proc/{p}/stat") as f:
                    ticks = int(f.read().rsplit(")", 1)[1].split()[19])
            except OSError:
                continue
            ago = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
            return time.time() - ago
        assert time.time() < end, f"no process with {word!r} under {pid}"
        time.sleep(0.02)


def test_a_program_that_writes_is_measured_as_it_writes(bindir, tmp_path, clients):
    """The program writes 3 s after it starts: the measurements every 2 s
    (0.25 s after the start, then 2.25 s, 4.25 s...) would see it past
    4 s; the spawner watches the directory (inotify) and measures it as
    soon as it writes."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, fill_sections(toy))
    try:
        t, name = new_player(d, clients, "la", "4")
        pid = program_pid(d, name, "late")
        began = started_at(pid, "late")
        over = d.wait_logged(rf".* WARN spawner: disk over game=late dir={name} .*: hung up",
                             timeout=10).group(0)
        took = stamp(over) - began
        # timed from the program's own start (the kernel's, not warrend's
        # line of it, which a busy loop logs late), to the spawner's line
        # (its own stamp): it writes 3 s after its start, so no measurement
        # sees it over sooner; the spawner measures it from its exec on
        # (after it was made), periodically 0.25 s after that, then every
        # 2 s, on 0.25 s ticks, a busy machine only later: no sooner than
        # 4.25 s after its start
        assert 3.0 <= took < 4.25, took
        t.wait_for(HELP)
    finally:
        d.stop_clean()


def inotify_watches(pid):
    """The inotify watches process pid holds, all its inotify descriptors'."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify":
                info = pathlib.Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
                n += sum(1 for ln in info.splitlines() if ln.startswith("inotify wd:"))
        except FileNotFoundError:
            pass
    return n


def test_a_program_cannot_spend_the_machines_inotify_watches(bindir, tmp_path, clients):
    """The kernel's inotify watches are root's, shared with every program
    of root's: a program that makes a thousand directories gets at most
    64 of them watched, and is measured every 0.25 s instead, so writing
    in the others is still seen soon."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, f"[game dirs]\ncommand = {toy} fill dirs 1000\n"
              "disk-files = 5000\n")
    try:
        spawner = int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))
        t, name = new_player(d, clients, "wd", "1")
        t.wait_for("filled 1000", timeout=30)
        time.sleep(2.5)  # a periodic measurement has walked them all
        assert 1 <= inotify_watches(spawner) <= 64, inotify_watches(spawner)
        # a write past the watched ones: seen within a measurement or two
        deep = sorted(player_dir(d, "dirs", name).glob("fill-*"))[-1]
        big = deep / "big"
        with open(big, "wb") as f:
            f.truncate(0)
            f.write(b"x" * (80 << 20))
        os.chown(big, *(os.stat(deep).st_uid, os.stat(deep).st_gid))
        d.wait_log(rf"spawner: disk over game=dirs dir={name} .*: hung up", timeout=2)
        t.wait_for(HELP)
    finally:
        d.stop_clean()


def test_a_tree_past_the_walks_ceiling_is_hung_up_not_killed(bindir, tmp_path, clients):
    """With no file cap (disk-files = 0) a walk still stops at 100,000
    entries and counts that as over: the game is hung up as over any cap
    (NetHack would save), and killed only after its hangup-timeout, not at
    once as at twice a cap."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, f"[game huge]\ncommand = {toy} fill files 100050 nohup\n"
              "disk-files = 0\nhangup-timeout = 3\n")
    try:
        t, name = new_player(d, clients, "hg", "1")
        pid = program_pid(d, name, "huge")
        d.wait_logged(rf"spawner: disk over game=huge dir={name} pid={pid} .*: hung up", timeout=60)
        d.wait_log(rf"program exited user={name} game=huge pid={pid} status=9\b", timeout=15)
        assert not re.search(rf"disk over game=huge dir={name} pid={pid} .*: killed", d.log())
        assert "more than 100000 files and directories" in d.log()
    finally:
        d.stop_clean()


def test_nethack_under_the_default_caps_plays_saves_and_comes_back(bindir, tmp_path, clients):
    pg, conf = playground(tmp_path, bindir)
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        t, name = new_player(d, clients, "nh", "1")
        to_map(t)
        settle(t)
        t.play_keys("s" * 5)
        settle(t)  # past a --More-- the searches may have brought
        t.play_keys("S")
        t.wait_for("Really save?")
        t.send("y")
        t.wait_for("was saved", timeout=30)
        assert len(list(own_saves(pg, name).iterdir())) == 1
        t.send(" ")
        t.wait_for("Your choice")
        t.send("1")
        answer_until(t, "Dlvl:")
        assert "welcome back" in t.raw.decode("utf-8", "replace")
        assert "disk over" not in d.log() and "hosted stopped" not in d.log()
    finally:
        d.stop_clean()


LATE = "The game did not start in time"
MNT_DETACH = 2


class HangingMount:
    """A FUSE file system mounted at path whose server never answers (not
    even the kernel's first request): anything that enters it waits, as on
    a dead network mount, until killed or until close(), which aborts the
    connection (the waiters get an error) before the mount is detached."""

    def __init__(self, path):
        self.path = str(path).encode()
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
        opts = f"fd={self.fd},rootmode=40000,user_id=0,group_id=0,allow_other".encode()
        if self.libc.mount(b"warren-hang", self.path, b"fuse", 0, opts) != 0:
            e = ctypes.get_errno()
            os.close(self.fd)
            raise OSError(e, f"mount fuse: {os.strerror(e)}")

    def close(self):
        os.close(self.fd)
        self.libc.umount2(self.path, MNT_DETACH)


def can_mount_fuse():
    return os.geteuid() == 0 and os.path.exists("/dev/fuse")


@pytest.mark.skipif(not can_mount_fuse(), reason="needs root and /dev/fuse (a FUSE mount)")
@pytest.mark.parametrize("where,key", [("dir", "1"), ("inside", "1"), ("rc", "e")])
def test_a_directory_that_hangs_costs_only_its_own_players_request(bindir, tmp_path, clients,
                                                                   where, key):
    """One player's directory hangs (where: it is, or a directory in it
    is, a mount that never answers): the spawner's work on it (opening
    it, measuring it against the caps before a start, reading its rc
    file for the editor, key e) must not hold the spawner, so another
    player's start goes on at once; the first is killed at start-timeout
    and its player told."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path,
              f"[game hang]\ncommand = {toy} keys\nrcfile = %d/toyrc\nstart-timeout = 9\n")
    stuck, other = unique_name("hs"), unique_name("ok")
    pdir = player_dir(d, "hang", stuck)
    (pdir / "deep" if where == "inside" else pdir).mkdir(parents=True)
    mount = HangingMount(pdir / "deep" if where == "inside" else pdir)
    try:
        a, b = clients(d.port), clients(d.port)
        a.register(stuck)
        b.register(other)
        a.send(key)
        time.sleep(1)  # its request is under way (and, before, held the spawner)
        b.send("1")
        d.wait_log(rf"hosted start user={other} game=hang pid=\d+", timeout=5)
        b.wait_for("keys ready", timeout=5)
        if key == "1":
            d.wait_log(r"spawner: game=hang pid=\d+ did not reach its exec in 9 s: killed",
                       timeout=15)
            a.wait_for(LATE)
        else:
            d.wait_log(rf"spawner: rc-load game=hang dir={stuck} pid=\d+ did not end in time: "
                       "killed", timeout=15)
            a.wait_for("your files for this game did not answer in time")
        assert f"hosted start user={stuck} " not in d.log()
    finally:
        mount.close()
        d.stop_clean()


@pytest.mark.skipif(not can_mount_fuse(), reason="needs root and /dev/fuse (a FUSE mount)")
def test_a_running_games_directory_that_hangs_holds_up_no_other_start(bindir, tmp_path, clients):
    """A running game's directory comes to hang (a mount in it that never
    answers): its measurements (every 2 s) must not hold the spawner, so
    another player's start goes on; the directory is said to hang, and
    the measurer it held is killed and another started."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, f"[game hang]\ncommand = {toy} keys\n")
    stuck, other = unique_name("hr"), unique_name("ok")
    mount = None
    try:
        a, b = clients(d.port), clients(d.port)
        a.register(stuck)
        b.register(other)
        a.send("1")
        a.wait_for("keys ready")
        deep = player_dir(d, "hang", stuck) / "deep"
        deep.mkdir()
        mount = HangingMount(deep)
        time.sleep(2.5)  # a periodic measurement has come to it (the old spawner hung there)
        b.send("1")
        d.wait_log(rf"hosted start user={other} game=hang pid=\d+", timeout=5)
        b.wait_for("keys ready", timeout=5)
        assert re.search(rf"WARN spawner: disk of game=hang dir={stuck}: no answer in 1000 ms",
                         d.log()), d.log()[-2000:]
        # the measurer it held was killed, and a new one measures the others
        # (on a busy machine the kill may be logged before the other start)
        d.wait_logged(r"WARN spawner: disk measurer pid=\d+ gave no answer in 1000 ms: killed: a "
                      "new one takes over")
        end = time.time() + 5
        while len(measurers(d)) < 2 and time.time() < end:
            time.sleep(0.1)
        hung = re.findall(r"disk measurer pid=(\d+) gave no answer in 1000 ms", d.log())
        assert measurers(d)[0] == int(hung[0]) and len(measurers(d)) >= 2, d.log()[-2000:]
    finally:
        if mount:
            mount.close()
        d.stop_clean()


# what a holding program shows once it ran: its first line, or (hung up
# before that was drawn, on a busy machine) the reason
RAN = re.compile(f"hold ready|{re.escape(STOPPED)}")


def test_files_a_program_holds_open_with_no_name_count_against_its_cap(bindir, tmp_path, clients):
    """Files removed while open, files made with O_TMPFILE, and removed
    files held by a shared mapping alone (their descriptors closed,
    written through the mapping) are in no directory a walk passes, yet
    take the disk: the spawner counts those the game's processes hold
    (boxed, and network = host with an orphan of the program's, its parent
    gone, or a child, holding them), so a game past its cap that way is
    hung up and its player told how much of it was held open; once it
    ended they are gone, and the next start is not refused."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path,
              f"[game removed]\ncommand = {toy} hold removed 12\ndisk = 8\nhangup-timeout = 60\n"
              f"[game tmpfile]\ncommand = {toy} hold tmpfile 12 orphan\ndisk = 8\n"
              "network = host\nhangup-timeout = 60\n"
              f"[game mapped]\ncommand = {toy} hold mapped 12\ndisk = 8\nhangup-timeout = 60\n"
              f"[game hostmap]\ncommand = {toy} hold mapped 12 child\ndisk = 8\n"
              "network = host\nhangup-timeout = 60\n")
    try:
        for key, game in (("1", "removed"), ("2", "tmpfile"), ("3", "mapped"), ("4", "hostmap")):
            t = clients(d.port)
            name = unique_name(game[:2])
            t.register(name)
            t.send(key)
            t.wait_for(RAN)
            pid = d.wait_log(rf"hosted start user={name} game={game} pid=(\d+)").group(1)
            m = d.wait_logged(rf"spawner: disk over game={game} dir={name} pid={pid} bytes=(\d+) "
                              r"entries=\d+ held=(\d+): hung up", timeout=10)
            # measured once past its cap: all 12 MB held, or (a slow machine) some
            assert int(m.group(2)) > 8 << 20 and int(m.group(1)) >= int(m.group(2)), m.group(0)
            d.wait_log(rf"program exited user={name} game={game} pid={pid} ", timeout=10)
            t.wait_for(HELP)
            told = re.search(rf"{game} {re.escape(STOPPED)}\s+They take (\d+\.\d) MB \((\d+\.\d) "
                             r"MB deleted but open\), over the 8 MB allowed\.", t.text())
            assert told and 8 < float(told.group(2)) <= float(told.group(1)) <= 12, t.text()
            assert list(player_dir(d, game, name).iterdir()) == []  # nothing with a name
            t.send(" ")
            t.wait_for("Your choice")
            t.send(key)  # what it held went with it: not refused
            t.wait_for(RAN)
            assert len(re.findall(rf"hosted start user={name} game={game} ", d.log())) == 2
    finally:
        d.stop_clean()


@pytest.mark.parametrize("network", ["", "network = host\n"])
def test_a_program_cannot_hide_removed_files_in_a_sockets_queue(bindir, tmp_path, clients,
                                                                 network):
    """A file removed while open, its descriptor sent (SCM_RIGHTS) into a
    Unix socket's queue and closed, is held by no process: the measurer
    would not see it. The box's filter refuses Unix sockets (socketpair
    and socket alike, EPERM), so the program keeps its 12 MB open and is
    hung up over its 8 MB cap, its player told."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, f"[game hide]\ncommand = {toy} hold removed 12 inflight\n"
              f"disk = 8\nhangup-timeout = 60\n{network}")
    try:
        t = clients(d.port)
        name = unique_name("if")
        t.register(name)
        t.send("1")
        pid = d.wait_log(rf"hosted start user={name} game=hide pid=(\d+)").group(1)
        d.wait_logged(rf"spawner: disk over game=hide dir={name} pid={pid} bytes=\d+ entries=\d+ "
                      r"held=\d+: hung up", timeout=10)
        t.wait_for(HELP)
        shown, eperm = t.raw.decode(errors="replace"), os.strerror(errno.EPERM)
        assert f"inflight: socketpair: {eperm}" in shown, shown[-2000:]
        assert f"inflight: socket: {eperm}" in shown, shown[-2000:]
        assert re.search(rf"hide {re.escape(STOPPED)}\s+They take \d+\.\d MB \(\d+\.\d MB "
                         r"deleted but open\), over the 8 MB allowed\.", t.text()), t.text()
    finally:
        d.stop_clean()


def test_a_program_that_hides_what_it_holds_open_is_hung_up(bindir, tmp_path, clients):
    """A program that makes itself undumpable closes its /proc to its own
    user, so what it holds open cannot be looked at: that counts as over,
    as a directory that cannot be listed does, though it holds 1 MB of an
    8 MB cap."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, f"[game hide]\ncommand = {toy} hold removed 1 undumpable\n"
              "disk = 8\nhangup-timeout = 60\n")
    try:
        t = clients(d.port)
        name = unique_name("hi")
        t.register(name)
        t.send("1")
        pid = d.wait_log(rf"hosted start user={name} game=hide pid=(\d+)").group(1)
        d.wait_logged(rf"spawner: disk over game=hide dir={name} pid={pid} bytes=\d+ entries=\d+ "
                      r"\(open files not all seen\): hung up", timeout=10)
        t.wait_for(HELP)
        assert re.search(rf"hide {re.escape(STOPPED)}\s+The game holds open files that could not "
                         r"all be counted\.", t.text()), t.text()
    finally:
        d.stop_clean()


MEASURER = r"spawner: disk measurer pid=(\d+) started"
CAP_CHOWN, CAP_FOWNER, CAP_KILL = 0, 3, 5


def proc_status(pid):
    text = pathlib.Path(f"/proc/{pid}/status").read_text()
    return dict(ln.split(":", 1) for ln in text.splitlines() if ":" in ln)


def measurers(d):
    return [int(p) for p in re.findall(MEASURER, d.log())]


def idle_sections(toy):
    """fill_sections' four (menu keys 1-4), then an idle game under caps (5)."""
    return fill_sections(toy) + f"[game idle]\ncommand = {toy} keys\ndisk = 8\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="the spawner switches users as root")
def test_a_killed_measurer_is_started_again_and_the_caps_still_hold(bindir, tmp_path, clients):
    """The running games' directories are measured by one long-lived
    child of the spawner's, the measurer: root's real and saved ids (no
    game's user may trace or signal it) and fewer capabilities than the
    spawner (none to signal, chown or own others' files). Killed, it is
    said in the log, a new one takes over, and a game that goes over its
    cap is still hung up."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, idle_sections(toy))
    try:
        spawner = int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))
        t, _ = new_player(d, clients, "ki", "5")
        t.wait_for("keys ready")
        first = int(d.wait_log(MEASURER, timeout=5).group(1))
        st = proc_status(first)
        assert st["Name"].strip() == "warren-measurer" and int(st["PPid"]) == spawner, st
        for _ in range(50):  # its effective ids are a game's while it measures one
            st = proc_status(first)
            real, _, saved, _ = st["Uid"].split()
            assert real == saved == "0" == st["Gid"].split()[0] == st["Gid"].split()[2], st
            time.sleep(0.02)
        mine, its = int(st["CapPrm"], 16), int(proc_status(spawner)["CapPrm"], 16)
        assert mine & ~its == 0, (hex(mine), hex(its))  # nothing the spawner lacks
        for cap in (CAP_CHOWN, CAP_FOWNER, CAP_KILL):
            assert its >> cap & 1 and not mine >> cap & 1, (cap, hex(mine), hex(its))
        os.kill(first, 9)
        d.wait_log(rf"WARN spawner: disk measurer pid={first} ended: a new one takes over")
        end = time.time() + 5
        while len(measurers(d)) < 2 and time.time() < end:
            time.sleep(0.1)
        assert len(measurers(d)) == 2 and measurers(d)[1] != first, d.log()[-2000:]
        assert proc_status(measurers(d)[1])["Name"].strip() == "warren-measurer"
        b, name = new_player(d, clients, "kb", "1")
        pid = program_pid(d, name, "bytes")
        d.wait_logged(rf"spawner: disk over game=bytes dir={name} pid={pid} bytes=\d+ entries=\d+: "
                      "hung up", timeout=10)
        b.wait_for(HELP)
    finally:
        d.stop_clean()


class Forks:
    """The processes a process forks from now on, as the kernel tells
    them (the proc connector, netlink: root only)."""
    NETLINK_CONNECTOR, CN_IDX_PROC, PROC_EVENT_FORK = 11, 1, 1

    def __init__(self):
        import socket
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, self.NETLINK_CONNECTOR)
        self.sock.bind((0, self.CN_IDX_PROC))
        op = struct.pack("=I", 1)  # PROC_CN_MCAST_LISTEN
        cn = struct.pack("=IIIIHH", self.CN_IDX_PROC, 1, 0, 0, len(op), 0) + op
        self.sock.send(struct.pack("=IHHII", 16 + len(cn), 3, 0, 0, 0) + cn)  # NLMSG_DONE

    def children(self, parent, seconds):
        """The children parent (a tgid) forked within seconds."""
        out, end = [], time.time() + seconds
        while (left := end - time.time()) > 0:
            if not select.select([self.sock], [], [], left)[0]:
                continue
            data = self.sock.recv(65536)
            if struct.unpack_from("=I", data, 36)[0] == self.PROC_EVENT_FORK:
                _, ptgid, _, child = struct.unpack_from("=IIII", data, 52)
                if ptgid == parent:
                    out.append(child)
        return out

    def close(self):
        self.sock.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel tells root alone of forks")
def test_measurements_fork_nothing(bindir, tmp_path, clients):
    """Four running games under caps (an address's most) are measured
    every 2 s (one of them as it writes, and hung up past its cap) by the
    measurer that is already there: over 4.5 s the spawner forks nothing
    but that game's start (it forked a child for each batch of
    measurements). With WARREN_DB=pg the players' files are copied to the
    database as the games write (hostcopy.h), each copy a child of the
    spawner's as an rc request is: copy-max 0 turns that off here."""
    toy = toy_copy(bindir, tmp_path)
    d = start(bindir, tmp_path, re.sub(r"(\[game [a-z]+\]\n)", r"\1copy-max = 0\n",
                                       idle_sections(toy)))
    forks = None
    try:
        spawner = int(re.search(r"spawner pid=(\d+) started", d.log()).group(1))
        for _ in range(3):
            t, _ = new_player(d, clients, "fk", "5")
            t.wait_for("keys ready")
        time.sleep(2.5)  # all measured once (by the measurer, started for the first)
        late, name = new_player(d, clients, "fl")
        forks = Forks()
        late.send("4")  # it writes 3 s after its start
        seen = forks.children(spawner, 4.5)
        pid = program_pid(d, name, "late")
        assert seen == [pid], (seen, pid)  # its start's alone
        d.wait_logged(rf"spawner: disk over game=late dir={name} pid={pid} .*: hung up", timeout=2)
        assert len(measurers(d)) == 1
    finally:
        if forks:
            forks.close()
        d.stop_clean()
