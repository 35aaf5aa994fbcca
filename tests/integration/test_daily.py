"""The daily game against the real daemon: accounts play today's daily
game over Debian's telnet and over the web's websocket, each meets the
same first screen (one seed, one character), gets one attempt (a second
is refused, a dropped connection resumes the same one), and the board
(/daily, /daily/DATE, /api/daily/DATE) ranks the verified games; a past
day's board links each game's replay, dump and milestones; bad dates are
refused. The secret the seed is hashed under is kept in the database,
made there once (no file), or taken from an older server's file so its
days keep their seeds (once: the file is then renamed and no longer
read); a daily-secret file other than the database's secret is warned
of, at start and in health. The same day is played once more on PostgreSQL (a
private cluster), and by two nodes started in different directories on
one PostgreSQL: one seed, unless only one is given daily-secret (it
warns)."""
import datetime
import hashlib
import json
import re

import pytest

from harness import ARTIFACTS, ON_PG, WS, Telnet, Web, admin, browser_script, unique_name
from nodeset import Nodes
from pgcluster import PgCluster

pytestmark = pytest.mark.daemon(http=True)


def today():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def name_of(prefix):
    """Names of one length, so two players' screens line up."""
    return (prefix + unique_name("x"))[:12].ljust(12, "0")


def masked(text, name):
    return text.replace(name, "N" * len(name))


def start_daily(daemon, t, name, new=True):
    """From a fresh connection: registers (or logs in) name, presses d and
    waits for the game's map; returns (game id, the screen)."""
    t.connected()
    (t.register if new else t.login)(name)
    assert "d) Daily game" in t.text()  # the menu's entry
    t.send("d")
    m = daemon.wait_log(rf"attach user={name} game=(\d+)")
    t.wait_for("HP ")
    t.pump(quiet=0.5)
    return int(m.group(1)), t.text()


def quit_game(daemon, t, name, gid):
    t.send("Q")
    t.pump(quiet=0.3)
    t.send("y")
    daemon.wait_log(rf"game end user={name} game={gid} ")
    t.wait_for("Game over")
    daemon.wait_log(rf"verify game={gid} ok", timeout=30)


def play_and_quit(d, name):
    """name's daily game over telnet, started and quit at once: its id."""
    t = Telnet(d.port)
    try:
        gid, _ = start_daily(d, t, name)
        quit_game(d, t, name, gid)
    finally:
        t.close()
    return gid


def refused_again(t):
    """Back at the menu after the end: d again is refused, clearly."""
    t.send("\r")
    t.wait_for("Your choice")
    t.send("d")
    return t.wait_for("You have played today's daily game")


def test_two_accounts_same_game_one_attempt_each(daemon):
    a, b = name_of("da"), name_of("db")
    day = today()
    ta = Telnet(daemon.port)
    tb = Telnet(daemon.port)
    try:
        ga, screen_a = start_daily(daemon, ta, a)
        assert f"daily start user={a} game={ga} day={day}" in daemon.log()
        gb, screen_b = start_daily(daemon, tb, b)
        assert ga != gb
        # one seed and one character: the same first screen but for the name
        assert masked(screen_a, a) == masked(screen_b, b), (screen_a, screen_b)
        rows = daemon.db_rows("SELECT g.seed, d.day FROM daily d JOIN games g ON g.id = d.game "
                              "WHERE d.game IN (?, ?)", ga, gb)
        assert len(rows) == 2 and rows[0] == rows[1] and rows[0][1] == day, rows
        # a dropped connection resumes the same attempt, not a new one
        tb.close()
        tb = Telnet(daemon.port)
        gb2, again_b = start_daily(daemon, tb, b, new=False)
        assert gb2 == gb
        assert daemon.log().count(f"daily start user={b} ") == 1
        quit_game(daemon, ta, a, ga)
        quit_game(daemon, tb, b, gb)
        assert "The next starts at 00:00 UTC" in refused_again(ta)
        refused_again(tb)
        assert daemon.db_rows("SELECT count(*) FROM daily WHERE user IN "
                              "(SELECT id FROM users WHERE name IN (?, ?))", a, b)[0][0] == 2
        assert daemon.db_rows("SELECT count(*) FROM games WHERE user IN "
                              "(SELECT id FROM users WHERE name IN (?, ?))", a, b)[0][0] == 2
    finally:
        ta.close()
        tb.close()
    # the board: both verified, ranked by score; today's shows no seed nor replays
    status, board = Web(daemon.http).json(f"/api/daily/{day}")
    assert status == 200 and board["day"] == day and board["today"] is True
    assert board["seed"] is None
    got = {r["player"]: r for r in board["ranked"]}
    assert set(got) >= {a, b}, board
    assert [r["rank"] for r in board["ranked"]] == list(range(1, len(board["ranked"]) + 1))
    scores = [r["score"] for r in board["ranked"]]
    assert scores == sorted(scores, reverse=True)
    assert all(r["verified"] == "verified" and r["links"] == {} for r in board["ranked"])
    assert got[a]["race"] == got[b]["race"] and got[a]["class"] == got[b]["class"]
    status, page = Web(daemon.http).html("/daily")
    assert status == 200 and f"Daily game: {day}" in page and a in page and b in page
    assert 'href="/play/daily"' in page and "/replay" not in page
    assert 'href="/daily">Daily</a>' in page  # in every page's navigation


def test_other_game_in_progress_is_finished_first(daemon):
    c = name_of("dc")
    t = Telnet(daemon.port)
    try:
        t.connected()
        t.register(c)
        t.random_character(c)  # an ordinary game, left running
        t.send("\x18")  # Ctrl-X: back to the menu, the game goes on
        t.wait_for("Your choice")
        t.send("d")
        t.wait_for("Finish the game you are playing first")
        assert daemon.db_rows("SELECT count(*) FROM daily WHERE user = "
                              "(SELECT id FROM users WHERE name = ?)", c)[0][0] == 0
    finally:
        t.close()


def web_session(daemon, name):
    r = Web(daemon.http).register(name, "correct horse battery")
    assert r.status == 303 and r.session, r
    return r.session


def test_web_plays_the_daily_game_once(daemon):
    w = name_of("dw")
    session = web_session(daemon, w)
    ws = WS(daemon.http, "/ws/play/daily", session=session, timeout=10)
    assert ws.status == 101
    ws.text(json.dumps({"t": "resize", "w": 80, "h": 24}))
    ws.until(lambda op, p: op == 2 and b"HP " in p, timeout=15)
    m = daemon.wait_log(rf"daily start user={w} game=(\d+) day={today()}")
    gid = int(m.group(1))
    seeds = daemon.db_rows("SELECT DISTINCT g.seed FROM daily d JOIN games g ON g.id = d.game "
                           "WHERE d.day = ?", today())
    assert len(seeds) == 1, seeds  # the same seed as every other account's today
    ws.binary(b"Q")
    ws.binary(b"y")
    daemon.wait_log(rf"game end user={w} game={gid} ")
    ws.close()
    again = WS(daemon.http, "/ws/play/daily", session=session, timeout=10)
    msg = again.json_until(lambda m: m.get("t") in ("left", "menu", "notice"), timeout=10)
    assert "played today's daily game" in json.dumps(msg), msg
    again.close()
    assert daemon.log().count(f"daily start user={w} ") == 1


def test_play_button_in_chromium(daemon):
    """Lobby → the navigation's Daily → the board's Play button → the game."""
    name = name_of("dc")
    r, out = browser_script("daily.mjs", f"http://127.0.0.1:{daemon.http}", ARTIFACTS, name,
                            "correct horse battery")
    assert not out["errors"], out["errors"]
    assert out["heading"] == f"Daily game: {today()}"
    assert out["button"] == "Play today's daily game"
    assert any("HP " in ln for ln in out["lines"]), out["lines"]
    daemon.wait_log(rf"daily start user={name} game=\d+ day={today()}")


def test_past_board_links_replays(daemon):
    gid = play_and_quit(daemon, name_of("dp"))
    past = "2026-01-15" if today() != "2026-01-15" else "2026-01-14"
    daemon.db_write(("UPDATE daily SET day = ? WHERE game = ?", (past, gid)))
    web = Web(daemon.http)
    status, board = web.json(f"/api/daily/{past}")
    assert status == 200 and board["today"] is False and board["seed"] is not None
    (row,) = [r for r in board["ranked"] if r["id"] == gid]
    assert row["links"]["replay"] == f"/game/{gid}/replay"
    assert row["links"]["dump"] == f"/game/{gid}/dump"
    assert row["links"]["milestones"] == f"/game/{gid}#milestones"
    status, page = web.html(f"/daily/{past}")
    assert status == 200 and f'href="/game/{gid}/replay"' in page
    assert f'href="/game/{gid}/dump"' in page and f'href="/game/{gid}#milestones"' in page
    assert web.get(f"/game/{gid}/dump").status == 200
    status, game_page = web.html(f"/game/{gid}")
    assert status == 200 and 'id="milestones"' in game_page


@pytest.mark.parametrize("path,status", [
    ("/daily/2026-02-30", 400), ("/daily/2023-02-29", 400), ("/daily/abc", 400),
    ("/daily/2026-1-01", 400), ("/daily/2026-11-28/x", 400), ("/daily/%00", 400),
    ("/api/daily/2026-13-01", 400), ("/api/daily/1999-12-31", 400),
    ("/daily/9999-12-31", 404), ("/api/daily/9999-12-31", 404),
])
def test_bad_dates_refused(daemon, path, status):
    web = Web(daemon.http)
    r = web.get(path)
    assert r.status == status, (path, r)
    if path.startswith("/api/"):
        body = json.loads(r.body)
        assert body["status"] == status and body["error"]
    elif "%00" in path:  # refused at the door, before any page (web_parse.h)
        assert r.body == b"Bad request.\n", r
    else:
        assert b"date" in r.body or b"not started" in r.body
    assert web.get("/daily").status == 200  # and the daemon goes on
    assert daemon.alive()


def default_file(d):
    """Where an older server kept the secret (daily.h): beside the database
    file, or ./warren.daily with PostgreSQL (the daemon runs in its directory)."""
    return d.dir / ("warren.daily" if d.db_url else "warren.db.daily")


def held_secret(d):
    rows = d.db_rows("SELECT value FROM meta WHERE key = 'daily_secret'")
    assert len(rows) == 1, rows
    return rows[0][0]


def seed_of(key, day):
    """daily.c's daily_seed: BLAKE2b-64 of the day under the key, below 2^63."""
    msg = f"warren daily {day}".encode()
    out = hashlib.blake2b(msg, key=key, digest_size=8).digest()
    return int.from_bytes(out, "little") & 0x7FFFFFFFFFFFFFFF


def daily_seeds(d):
    return {r[0] for r in d.db_rows("SELECT g.seed FROM daily x JOIN games g ON g.id = x.game "
                                    "WHERE x.day = ?", today())}


def test_secret_kept_in_the_database(daemon):
    """Made once in the database (32 random bytes): no file, never logged,
    and today's seed is the one hashed under it."""
    secret = held_secret(daemon)
    assert re.fullmatch(r"[0-9a-f]{64}", secret), secret
    assert not default_file(daemon).exists()
    play_and_quit(daemon, name_of("ks"))
    assert daily_seeds(daemon) == {seed_of(bytes.fromhex(secret), today())}
    assert secret not in daemon.log()
    assert secret.encode() not in Web(daemon.http).get("/daily").body


def imported(path):
    """Where an imported default file is kept (daily.h's DAILY_IMPORTED)."""
    return path.with_name(path.name + ".imported")


def restart(d):
    """d stopped and started again: what the new start logged."""
    d.stop_clean()
    since = len(d.log())
    d.start()
    return d.log()[since:]


def test_upgrade_keeps_the_file_secret(start_daemon, tmp_path):
    """An older server's file is the secret stored when the database holds
    none, once: the file is renamed .imported (kept, 0600) and that said in
    one log line; later starts neither read it nor say so, and today's seed
    stays the file's."""
    text = "0123456789abcdef" * 4 + "\n"
    path = tmp_path / "daemon" / ("warren.daily" if ON_PG else "warren.db.daily")
    path.parent.mkdir()  # the directory start_daemon's first daemon runs in
    path.write_text(text)
    path.chmod(0o640)
    d = start_daemon(http=True)
    assert default_file(d) == path
    key = hashlib.blake2b(text.strip().encode(), digest_size=32).digest()
    assert held_secret(d) == key.hex()
    assert not path.exists() and imported(path).read_text() == text
    assert imported(path).stat().st_mode & 0o777 == 0o600
    name = re.escape(path.name)
    said = re.compile(rf"daily: the secret of \S*{name} is now kept in the database; the file, "
                      rf"no longer read, is kept as \S*{name}\.imported")
    assert len(said.findall(d.log())) == 1, d.log()
    play_and_quit(d, name_of("ua"))
    assert daily_seeds(d) == {seed_of(key, today())}
    again = restart(d)
    assert len(said.findall(d.log())) == 1
    assert "daily: the secret is the database's" in again
    assert path.name not in again and not path.exists()  # the later start read no file
    play_and_quit(d, name_of("ub"))
    assert daily_seeds(d) == {seed_of(key, today())}


def test_default_file_other_than_the_database_is_set_aside(start_daemon):
    """A default file whose secret the database does not hold (made after
    the database kept its own): the database's is used, the file renamed
    and that said once as a warning; today's seed stays the database's."""
    d = start_daemon(http=True)
    secret = held_secret(d)
    path = default_file(d)
    with d.stopped():
        path.write_text("a secret made by hand, after the database's\n")
        path.chmod(0o600)
    name = re.escape(path.name)
    said = re.compile(rf"daily: \S*{name} differs from the secret the database holds, which is "
                      rf"used; the file, no longer read, is kept as \S*{name}\.imported")
    assert len(said.findall(d.log())) == 1, d.log()
    assert not path.exists() and imported(path).exists()
    assert held_secret(d) == secret
    restart(d)
    assert len(said.findall(d.log())) == 1
    play_and_quit(d, name_of("uo"))
    assert daily_seeds(d) == {seed_of(bytes.fromhex(secret), today())}


def test_set_file_other_than_the_database_warns(start_daemon, bindir, tmp_path):
    """daily-secret's file wins on its node; when the database holds another
    secret, the start warns (the node, what players elsewhere get, the
    advice) and warren-admin health says so; not when they are the same."""
    d = start_daemon()
    assert "daily secret: the database's\n" in admin(bindir, d, "health")
    text = "a secret given to this node alone\n"
    given = tmp_path / "node.secret"
    given.write_text(text)
    given.chmod(0o600)
    with d.stopped():
        d.argv += ["--daily-secret", str(given)]
    node = re.search(r"^node: ([\w.-]+)", admin(bindir, d, "health"), re.M).group(1)
    warned = (f"daily: node {node}: the secret is the file {given} (daily-secret), NOT the "
              "database's: players on nodes without daily-secret get another daily game; set "
              "it on every node or on none (deploy/RUNNING.md)")
    assert d.log().count(warned) == 1, d.log()
    assert f"daily secret: the file {given} (daily-secret), NOT the database's" in \
        admin(bindir, d, "health")
    d.stop_clean()
    key = hashlib.blake2b(text.strip().encode(), digest_size=32).digest()
    d.db_write(("UPDATE meta SET value = ? WHERE key = 'daily_secret'", (key.hex(),)))
    since = len(d.log())
    d.start()
    assert d.log().count(warned) == 1  # the same secret: no warning
    assert f"the secret is the file {given} (daily-secret), the same as the database's" in \
        d.log()[since:]
    assert f"daily secret: the file {given} (daily-secret), the same as the database's\n" in \
        admin(bindir, d, "health")


def play_two(da, a, db, b, then=None):
    """a on da and b on db start today's game, each over telnet: the same
    first screen but for the name; both quit, then then(a's connection)."""
    ta, tb = Telnet(da.port), Telnet(db.port)
    try:
        ga, screen_a = start_daily(da, ta, a)
        gb, screen_b = start_daily(db, tb, b)
        assert masked(screen_a, a) == masked(screen_b, b)
        quit_game(da, ta, a, ga)
        quit_game(db, tb, b, gb)
        if then:
            then(ta)
    finally:
        ta.close()
        tb.close()


@pytest.fixture
def pg(tmp_path):
    with PgCluster(tmp_path / "pg") as cluster:
        yield cluster


def test_daily_game_on_postgresql(pg, start_daemon):
    """The daily table, its one transaction and the board's statements in
    PostgreSQL's dialect: two accounts, one seed, one attempt each."""
    d = start_daemon(http=True, extra=["--db", pg.create_db("warren")])
    a, b = name_of("qa"), name_of("qb")
    play_two(d, a, d, b, then=refused_again)
    rows = pg.psql("SELECT count(DISTINCT g.seed), count(*) FROM daily x JOIN games g "
                   "ON g.id = x.game", db="warren")
    assert rows.strip() == "1|2", rows
    assert not (d.dir / "warren.daily").exists()  # in the database, not beside the daemon
    status, board = Web(d.http).json("/api/daily")
    assert status == 200 and {r["player"] for r in board["ranked"]} == {a, b}, board


def test_nodes_in_other_directories_share_the_day(pg, bindir, tmp_path):
    """Two nodes on one PostgreSQL, each started in a directory of its own
    (where an older node made a secret file of its own): one secret, so
    one seed and the same first screen for a player on either."""
    with Nodes(bindir, tmp_path, url=pg.create_db("nodes")) as nodes:
        a = nodes.start("a")
        b = nodes.start("b")
        assert a.dir != b.dir
        play_two(a, name_of("na"), b, name_of("nb"))
        assert len(daily_seeds(a)) == 1, daily_seeds(a)
        assert held_secret(a) == held_secret(b)


def test_daily_secret_on_one_node_warns(pg, bindir, tmp_path):
    """daily-secret set on node b only: b warns at start and in health (its
    name, what players on the others get), a does not; a player on each
    gets another daily game, as the warning says."""
    text = "a secret only node b is given\n"
    given = tmp_path / "b.secret"
    given.write_text(text)
    given.chmod(0o600)
    with Nodes(bindir, tmp_path, url=pg.create_db("split")) as nodes:
        a = nodes.start("a")
        b = nodes.start("b", "--daily-secret", str(given))
        assert (f"daily: node b: the secret is the file {given} (daily-secret), NOT the "
                "database's: players on nodes without daily-secret get another daily game"
                in b.log()), b.log()
        assert "NOT the database's" not in a.log()
        assert "daily secret: the database's\n" in admin(bindir, a, "health")
        assert f"daily secret: the file {given} (daily-secret), NOT the database's" in \
            admin(bindir, b, "health")
        play_and_quit(a, name_of("sa"))
        play_and_quit(b, name_of("sb"))
        key_b = hashlib.blake2b(text.strip().encode(), digest_size=32).digest()
        assert daily_seeds(a) == {seed_of(bytes.fromhex(held_secret(a)), today()),
                                  seed_of(key_b, today())}
