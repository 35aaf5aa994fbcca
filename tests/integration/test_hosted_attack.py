"""A hosted program as an attacker, with the real daemon and real clients
(tests/tools/ptytoy): the xlogfile row it writes puts no control byte,
bidirectional override or byte that is not UTF-8 on a page or a terminal;
it reaches no network, not even warrend's own ports on 127.0.0.1, nor
another game's abstract unix socket (it may make no Unix socket); it
cannot trace another game's program (of the same user) nor read its
environment; it cannot signal another game's processes, not even with
kill -9 -1, nor by the pid the machine gives them; a stray signal to its
box never kills it unsaved; a row it writes about another player, in
the xlogfile it can reach (its own), never ends that player's game, and
a link at a player's own xlogfile's place is not followed; it can write
neither NetHack's shared data nor another player's top ten."""
import errno
import os
import pathlib
import re
import signal
import time

from harness import Daemon, Web, unique_name
from test_hosted import (OWN_XLOG, SHARED, TOYS, for_games, games_ids, new_player, open_to_games,
                         own_playground, playground, playground_keys, program_of, program_pid,
                         quit_nethack, settle, start_hosted, to_map, toy_copy)

# what the row's death holds that must reach nobody: C1 CSI raw and in
# UTF-8, bytes that are not UTF-8, a right-to-left override
FORBIDDEN = re.compile(rb"\x9b|\xc2[\x80-\x9f]|\xff|\xfe|\xe2\x80\xae")


def play_victim(d, clients, shown):
    """A new player in the first game (the victim), once it shows shown:
    (the client, the player's name, the pid the log gives the game)."""
    v, name = new_player(d, clients, "vi", "1")
    v.wait_for(shown)
    pid = program_pid(d, name, "victim")
    return v, name, pid


def test_an_xlog_row_of_control_bytes_reaches_no_page_nor_terminal(bindir, tmp_path, clients):
    """The program writes its own end row; the player's end line, the
    front page's feed and the game's score page show it as text."""
    toy = toy_copy(bindir, tmp_path)
    xlog = tmp_path / "xlogfile"
    xlog.write_text("")
    for_games(xlog)
    d = start_hosted(bindir, tmp_path,
                     f"[game xl]\ncommand = {toy} xlog {xlog} %u\nxlogfile = {xlog}\n", http=True)
    try:
        t, name = new_player(d, clients, "xl", "1")
        t.wait_for("4242 points after 7", timeout=15)
        end = t.raw[t.raw.rfind(b"xl is over"):]
        assert b"killed by ?31mred?0m, ?2J, ?? and ?drow?." in end, end
        assert not FORBIDDEN.search(end), end
        web = Web(d.http)
        for path in ("/", "/scores/xl"):
            r = web.get(path)
            assert r.status == 200 and b"killed by ?31mred" in r.body, (path, r.status)
            assert not FORBIDDEN.search(r.body), (path, FORBIDDEN.search(r.body))
            r.body.decode("utf-8")  # the whole page is UTF-8
    finally:
        d.stop_clean()


def test_a_program_reaches_no_network_unless_its_section_says_host(bindir, tmp_path, clients):
    """Not even warrend's own telnet port on 127.0.0.1 (where it could pass
    for nginx or a node, trust-proxy and peers being 127.0.0.1): the
    program is in a network namespace whose loopback is down, its files its
    user's. network = host gives it the machine's network."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, "")
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game cut]\ncommand = {toy} connect {d.port}\n"
                    f"[game open]\ncommand = {toy} connect {d.port}\nnetwork = host\n"
                    f"[game files]\ncommand = {toy} report\n")
    d.stop()
    d.start()
    try:
        t, name = new_player(d, clients, "nt", "1")
        t.wait_for("connect: Network is unreachable")
        t.send("q")
        t.wait_for("has ended")
        t.send(" ")
        t.wait_for("Your choice")
        t.send("2")
        t.wait_for("connect: ok")
        t.send("q")
        t.wait_for("has ended")
        t.send(" ")
        t.wait_for("Your choice")
        t.send("3")  # its ids are its user's, as before
        t.wait_for("has ended")
        uid, gid = games_ids()
        assert f"uid {uid} gid {gid} ".encode() in t.raw, t.raw[-2000:]
        # the operator is told at start what the unboxed section can reach
        assert ("[game open]: network = host runs as the user of boxed games ([game cut])"
                in d.log()), d.log()[-2000:]
    finally:
        d.stop_clean()


def test_a_host_section_with_a_user_of_its_own_is_not_warned_of(bindir, tmp_path):
    """The warning names only a section that shares its user with a boxed
    one."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, "")
    conf = tmp_path / "warren.conf"
    conf.write_text(f"[game cut]\ncommand = {toy} report\n"
                    f"[game open]\ncommand = {toy} report\nnetwork = host\nuser = nobody\n")
    d.stop()
    d.start()
    try:
        assert "network = host runs as" not in d.log(), d.log()[-2000:]
    finally:
        d.stop_clean()


def test_one_game_cannot_reach_anothers_abstract_unix_socket(bindir, tmp_path, clients):
    """An abstract unix socket belongs to a network namespace, which games
    without network may share: no game has one at all (the box's filter
    refuses Unix sockets, which could carry descriptors out of the disk
    cap's sight), so neither listens nor reaches; the kernel would scope
    each game's to it besides."""
    toy = toy_copy(bindir, tmp_path)
    sock = unique_name("sk")
    d = start_hosted(bindir, tmp_path, f"[game victim]\ncommand = {toy} unix listen {sock}\n"
                                       f"[game reach]\ncommand = {toy} unix connect {sock}\n")
    try:
        v, _, pid = play_victim(d, clients, f"unix listen: {os.strerror(errno.EPERM)}")
        t, _ = new_player(d, clients, "rc", "2")
        t.wait_for(f"unix connect: {os.strerror(errno.EPERM)}")
        t.send("q")
        t.wait_for("has ended")
        v.send("q")
        v.wait_for("has ended")
    finally:
        d.stop_clean()


def test_one_game_neither_traces_nor_reads_another(bindir, tmp_path, clients):
    """Both run as the games' user; each in a user namespace of its own, so
    the kernel refuses ptrace and /proc/PID/environ across them."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game victim]\ncommand = {toy} winsize\n"
                                       f"[game peek]\ncommand = {toy} peek\n")
    try:
        v, _, pid = play_victim(d, clients, "size 80x24")
        t, _ = new_player(d, clients, "pk", "2")
        t.wait_for("peek ready")
        t.send(f"{pid}\r")
        t.wait_for("environ: no ptrace: no")
        v.send("q")
        v.wait_for("has ended")
        t.send("q")
        t.wait_for("has ended")
    finally:
        d.stop_clean()


def test_one_game_cannot_kill_another(bindir, tmp_path, clients):
    """Both run as the games' user: kill -9 -1 in one game ends no other
    (each game is a pid namespace of its own), nor does a kill of the
    other's program by its pid on the machine; the attacker's own game
    ends as any game does."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game victim]\ncommand = {toy} keys\n"
                                       f"[game killer]\ncommand = {toy} kill\n")
    try:
        v, name, logged = play_victim(d, clients, "keys ready")
        victim = program_of(logged)
        assert pathlib.Path(f"/proc/{victim}/cmdline").read_bytes().split(b"\0")[1] == b"keys"
        for key, target, refused in (("a", "", "kill -1: No such process"),
                                     ("b", victim, f"kill {victim}: No such process"),
                                     ("c", logged, f"kill {logged}: No such process")):
            t, _ = new_player(d, clients, "kl", "2")
            t.wait_for("kill ready")
            t.send(f"{target}\r")
            t.wait_for(refused)
            t.send("q")
            t.wait_for("has ended")
            v.send(key)  # the victim's game goes on: its player gets frames
            v.wait_for(f"got 1: {ord(key):02x}")
        assert pathlib.Path(f"/proc/{victim}").exists()
        v.send("q")
        v.wait_for("has ended")
        d.wait_log(rf"program exited user={name} game=victim pid={logged} status=0")
    finally:
        d.stop_clean()


def test_a_stray_signal_to_a_games_box_saves_and_never_kills(bindir, tmp_path, clients):
    """The box's processes (the holder and the pid namespace's reaper) are
    forks of warrend with its command line, so `pkill -f warrend` and the
    like reach them: a stray signal to the holder leaves the game going
    (its end would end the game unsaved), and a SIGTERM to the box
    reaches the program as a hangup, on which a game saves (NetHack dies
    unsaved of a SIGTERM), never as itself."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game victim]\ncommand = {toy} keys\n")
    try:
        v, name, holder = play_victim(d, clients, "keys ready")
        for sig in (signal.SIGUSR1, signal.SIGQUIT, signal.SIGINT, signal.SIGALRM):
            os.kill(holder, sig)
        v.send("a")  # the game goes on
        v.wait_for("got 1: 61")
        assert pathlib.Path(f"/proc/{holder}").exists()
        os.killpg(holder, signal.SIGTERM)  # the holder's group: it and the reaper
        # ptytoy keys keeps SIGHUP's default: the raw wait status says which came
        d.wait_log(rf"program exited user={name} game=victim pid={holder} status={signal.SIGHUP}")
    finally:
        d.stop_clean()


def test_a_game_sees_only_its_own_processes_and_player(bindir, tmp_path, clients):
    """Both run as the games' user, so files alone keep nothing apart: each
    game has a mount namespace of its own, where /proc is its pid
    namespace's (its reaper and itself, no other player's command line)
    and games-dir holds only its player's directory, so another player's
    directory and files are not there to open."""
    toy = toy_copy(bindir, tmp_path)
    games = (tmp_path / "daemon" / "games").resolve()
    d = start_hosted(bindir, tmp_path,
                     f"[game victim]\ncommand = {toy} keys %u\n"
                     f"[game snoop]\ncommand = {toy} snoop {games} {games}/victim\n")
    try:
        v, name, _ = play_victim(d, clients, "keys ready")
        own = games / "victim" / name
        (own / "secret").write_text("the victim's rc file\n")
        for_games(own / "secret")
        t, spy = new_player(d, clients, "sn", "2")
        t.wait_for("snoop ready")
        t.send(f"{own}\r")
        text = t.wait_for(re.compile(r"open file: .+"))
        pids = re.search(r"pids (\d+):((?: \d+)*)", text)
        assert pids and pids.group(1) == "2" and pids.group(2).split() == ["1", "2"], text
        assert "named: no" in text, text
        assert re.search(r"^ls 1: snoop *$", text, re.M), text  # games-dir: its own game alone
        assert re.search(r"^ls 2:No such file or directory", text, re.M), text  # games-dir/victim
        assert "open dir: No such file or directory" in text, text
        assert "open file: No such file or directory" in text, text
        assert (games / "snoop" / spy).is_dir()  # its own directory is where it was
        t.send("q")
        t.wait_for("has ended")
        v.send("q")
        v.wait_for("has ended")
    finally:
        d.stop_clean()


def test_a_box_that_cannot_be_made_refuses_the_start(bindir, tmp_path, clients):
    """A mount the box needs fails (the playground is not there, a shared
    file is not in it): the player is told the game cannot start, the log
    names the step, and the program never runs half-boxed."""
    toy = toy_copy(bindir, tmp_path)
    pg = tmp_path / "pg"
    pg.mkdir()
    (pg / "record").write_text("")
    open_to_games(pg)
    d = start_hosted(bindir, tmp_path, f"[game nopg]\ncommand = {toy} keys\n"
                                       f"playground = {tmp_path / 'missing'}\n"
                                       f"[game noshared]\ncommand = {toy} keys\n"
                                       f"playground = {pg}\nplayground-shared = record logfile\n")
    try:
        for key, game, step in (("1", "nopg", "playground mount"),
                                ("2", "noshared", "playground shared")):
            t, name = new_player(d, clients, "ns", key)
            t.wait_for("The game cannot start now")
            d.wait_log(rf"cannot start game={game} user={name}: {step}: "
                       "No such file or directory")
            assert f"hosted start user={name}" not in d.log()
    finally:
        d.stop_clean()


def test_a_forged_row_about_another_player_never_ends_their_game(bindir, tmp_path, clients):
    """A boxed game writes a row naming a victim who is playing NetHack
    into the playground's xlogfile, the one it can reach: its own. The
    victim saves and exits: the game was saved, not over, and no score
    is the victim's."""
    pg, conf = playground(tmp_path, bindir)
    toy = toy_copy(bindir, tmp_path)
    victim, forger = unique_name("vi"), unique_name("fo")
    conf.write_text(conf.read_text() + f"[game forge]\ncommand = {toy} xlog {pg / 'xlogfile'} "
                    f"{victim}\nxlogfile = {OWN_XLOG}\n" + playground_keys(pg))
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        v = clients(d.port)
        v.register(victim)  # the menu is too long for "Your choice": straight to NetHack
        v.send("1")
        to_map(v)
        f = clients(d.port)
        f.register(forger)
        f.send(str(2 + len(TOYS)))
        f.wait_for("forge was saved", timeout=15)  # no row of its own player's
        written = (tmp_path / "daemon" / "games" / "forge" / forger / "playground" / "xlogfile")
        assert f"\tname={victim}\t".encode() in written.read_bytes()  # where it could write
        settle(v)
        v.play_keys("S")
        v.wait_for("Really save?")
        v.send("y")
        v.wait_for("NetHack 3.6.6 was saved", timeout=30)
        assert "is over" not in v.text() and "4242" not in v.text()
        assert d.db_rows("SELECT count(*) FROM hosted_scores") == [(0,)]
        assert not re.search(rf"game end user=({victim}|{forger}) game=\w+ kind=xlog", d.log())
    finally:
        d.stop_clean()


def test_a_link_at_the_own_xlogfiles_place_is_not_followed(bindir, tmp_path, clients):
    """The player's directory is the game's: a link planted where its own
    xlogfile goes, to a file with a row for the player, is not read (a log
    line says so) and the game ends unscored; warrend goes on."""
    pg, conf = playground(tmp_path, bindir)
    toy = toy_copy(bindir, tmp_path)
    conf.write_text(conf.read_text() + f"[game lnk]\ncommand = {toy} keys\n"
                    f"xlogfile = {OWN_XLOG}\n" + playground_keys(pg))
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        t, name = new_player(d, clients, "ln")
        t.send(str(2 + len(TOYS)))
        t.wait_for("keys ready")
        forged = tmp_path / "forged"
        forged.write_text(f"version=3.6.6\tname={name}\tdeath=quit\tpoints=777\tturns=3\t"
                          f"endtime={int(time.time()) + 60}\n")
        os.chmod(forged, 0o644)
        own = tmp_path / "daemon" / "games" / "lnk" / name / "playground"
        (own / "xlogfile").unlink()  # the empty one made at the start
        os.symlink(forged, own / "xlogfile")
        t.send("q")
        t.wait_for("lnk has ended", timeout=15)  # nothing read: nothing says saved or over
        assert "777" not in t.text()
        d.wait_log(rf"xlogfile of user={name} game=lnk: playground/xlogfile: a link: not read")
        assert d.db_rows("SELECT count(*) FROM hosted_scores") == [(0,)]
        t.send("\r")
        t.send(str(2 + len(TOYS)))  # the daemon goes on: the game starts again
        t.wait_for("keys ready")
    finally:
        d.stop_clean()


def grab(d, clients, key, name):
    """A new player's grab game (menu key key) opens name in the
    playground to write: what it says."""
    s, _ = new_player(d, clients, "gr", key)
    s.wait_for("grab ready")
    s.send(f"{name}\r")
    text = s.wait_for(re.compile(rf"grab {name}: .+"))
    s.send("q")
    s.wait_for("has ended")
    return re.search(rf"grab {name}: (.+?)\s*$", text, re.M).group(1)


def test_a_game_writes_neither_shared_data_nor_another_players_top_ten(bindir, tmp_path,
                                                                       clients):
    """The shared names are bound read-only: a hostile game of the
    playground cannot open one to write ("Read-only file system"), even
    one the games' user owns and may write. NetHack's top ten is each
    player's own: the record the hostile game opens and scribbles on is
    its own player's, never another player's nor the real playground's.
    A name the section shares writable (playground-shared-rw) is
    written."""
    pg, conf = playground(tmp_path, bindir)
    toy = toy_copy(bindir, tmp_path)
    (pg / "data").write_text("the game's data\n")
    os.chmod(pg / "data", 0o666)
    for_games(pg / "data")
    conf.write_text(conf.read_text()
                    + f"[game grab]\ncommand = {toy} grab {pg}\n{playground_keys(pg)}"
                    .replace(f"playground-shared = {SHARED}", f"playground-shared = {SHARED} data")
                    + f"[game grabrw]\ncommand = {toy} grab {pg}\n{playground_keys(pg)}"
                    + "playground-shared-rw = data\n")
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf]).start()
    try:
        # the menu is too long for "Your choice": straight to NetHack
        v, victim = new_player(d, clients, "nv", "1")
        to_map(v)
        key = str(2 + len(TOYS))
        # the data the games' user may write is read-only in the box (the
        # kernel asks the file's mode first: Debian's own are root's)
        assert grab(d, clients, key, "data") == "Read-only file system"
        for name in ("nhdat", "license"):
            assert grab(d, clients, key, name) in ("Read-only file system", "Permission denied")
        assert grab(d, clients, key, "record") == "ok"  # its own
        settle(v)
        quit_nethack(v)
        assert (pg / "data").read_text() == "the game's data\n"
        mine = own_playground(pg, victim)
        assert "grabbed" not in (mine / "record").read_text() + (mine / "logfile").read_text()
        assert not (pg / "record").exists()
        games = tmp_path / "daemon" / "games"
        grabbed = [p for p in games.glob("*/*/playground/record") if "grabbed" in p.read_text()]
        assert len(grabbed) == 1 and grabbed[0].parent.parent.parent.name == "grab", grabbed
        assert grab(d, clients, str(3 + len(TOYS)), "data") == "ok"  # shared writable
        assert (pg / "data").read_text() == "the game's data\ngrabbed\n"
    finally:
        d.stop_clean()
