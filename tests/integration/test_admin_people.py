"""warren-admin's commands on people, against the real daemon: kick,
ban/unban (refused at the door, kept over a restart), end (the game
abandoned, its record kept), delete (needs --yes; gone from every table),
rename, mute; passwd saying what it did; every action logged; --help
listing every command."""
import json
import socket
import subprocess
import threading
import time

import pytest
from harness import (ON_PG, PW, WS, Daemon, Web, admin, admin_rc, hook, new_game, program,
                     stays_open)
from players import web_login_refused, web_session
from test_admin import admin_path, world  # noqa: F401 (the fixture)

COMMANDS = ["users", "games", "lock", "unlock", "passwd", "announce", "health", "kick", "ban",
            "unban", "bans", "end", "delete", "rename", "mute", "unmute", "check-db", "drain"]


def test_help_lists_every_command(bindir):
    r = subprocess.run([str(admin_path(bindir)), "--help"], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0
    listed = {ln.split()[0] for ln in r.stdout.splitlines() if ln.startswith("  ")}
    assert set(COMMANDS) <= listed, listed


def test_passwd_says_what_it_did(world):
    d, admin = world["d"], world["admin"]
    world["client"]().register("gail", PW)
    code, out, err = admin("passwd", "gail", stdin="another passphrase\n")
    assert code == 0, err
    assert "password of gail changed" in out
    d.wait_log(r"admin: passwd user=gail")


def test_kick_closes_without_locking(world):
    d, admin = world["d"], world["admin"]
    a = world["client"]()
    new_game(d, a, "hank")
    a.play_keys("ll")
    before = hook(d, a, "hank")
    code, out, err = admin("kick", "hank")
    assert code == 0, err
    assert "closed 1 connection of hank" in out
    a.wait_for("You were disconnected by the administrator.")
    a.wait_exit()
    d.wait_log(r"admin: kick user=hank connections=1")
    code, out, _ = admin("games")
    assert "hank" in out  # the game waits for its player
    b = world["client"]()
    b.login("hank", PW)  # not locked
    b.send("p")
    d.wait_log(r"attach user=hank")
    assert hook(d, b, "hank") == before
    code, out, err = admin("kick", "nobody")
    assert code == 1 and "no such account" in err


def test_end_abandons_and_keeps_the_record(world):
    d, admin = world["d"], world["admin"]
    a = world["client"]()
    gid, _ = new_game(d, a, "iris")
    a.play_keys("lljj")
    w = world["client"]()
    w.send("w")
    w.wait_for("iris")
    w.send("a")
    d.wait_log(r"watch conn=\d+ user=iris")
    code, out, err = admin("end", "iris")
    assert code == 0, err
    assert f"ended game {gid} of iris as abandoned" in out
    a.wait_for("The game was ended by the administrator.")
    w.wait_for("The game was ended by the administrator.")
    d.wait_log(rf"admin: end user=iris game={gid}")
    time.sleep(0.5)
    state, reason = d.db_rows("SELECT state, broken_reason FROM games WHERE id = ?", gid)[0]
    assert state == "broken" and reason.startswith("abandoned")
    assert d.db_rows("SELECT count(*) FROM journal WHERE game = ?", gid)[0][0] >= 4
    code, out, _ = admin("games")
    assert "iris" not in out
    code, out, err = admin("end", "iris")
    assert code == 1 and "no live game" in err
    # the player starts afresh
    a.send(" ")
    a.wait_for("Your choice")
    a.send("p")
    m = d.wait_log(r"game start user=iris game=(\d+)")
    assert int(m.group(1)) != gid


def test_delete_needs_yes_and_removes_everything(world):
    d, admin = world["d"], world["admin"]
    a = world["client"]()
    gid, _ = new_game(d, a, "jack")
    a.play_keys("ll")
    code, out, err = admin("delete", "jack")
    assert code == 2 and "--yes" in err
    s = socket.socket(socket.AF_UNIX)
    s.connect(world["ctl"])
    s.sendall(b"delete jack\n")
    assert s.recv(4096).startswith(b"error: usage: delete NAME --yes")
    s.close()
    assert d.db_rows("SELECT count(*) FROM users WHERE name = 'jack'")[0][0] == 1
    code, out, err = admin("delete", "jack", "--yes")
    assert code == 0, err
    assert "deleted jack" in out
    a.wait_for("This account has been deleted.")
    d.wait_log(r"admin: delete user=jack")
    for table, col in (("games", "id"), ("journal", "game"), ("snapshots", "game")):
        assert d.db_rows(f"SELECT count(*) FROM {table} WHERE {col} = ?", gid)[0][0] == 0
    assert d.db_rows("SELECT count(*) FROM users WHERE name_key = 'jack'")[0][0] == 0
    b = world["client"]()
    b.try_login("jack", PW)
    b.wait_for("Unknown name or wrong password.")


def test_rename(world):
    d, admin = world["d"], world["admin"]
    a = world["client"]()
    gid, _ = new_game(d, a, "kate")
    world["client"]().register("liam", PW)
    code, out, err = admin("rename", "kate", "liam")
    assert code == 1 and "taken" in err
    code, out, err = admin("rename", "kate", "bad name!")
    assert code != 0
    code, out, err = admin("rename", "kate", "Katrin")
    assert code == 0, err
    assert "renamed kate to Katrin" in out
    a.wait_for("Your account was renamed to Katrin: log in again under that name.")
    d.wait_log(r"admin: rename user=kate to=Katrin")
    assert d.db_rows("SELECT u.name FROM games g JOIN users u ON u.id = g.user WHERE g.id = ?",
                     gid)[0][0] == "Katrin"
    b = world["client"]()
    b.login("Katrin", PW)
    b.send("p")
    d.wait_log(r"game resume user=Katrin")


def test_a_renamed_accounts_terminal_and_browser_here_are_told_the_new_name(
        bindir, clients, tmp_path):
    """One node: a renamed account's terminal is logged out to the menu,
    told the new name and to log in under it, and does so there (the old
    name refused); its websocket is told the same words and closed, and a
    browser logs in under the new name. Another account's stay."""
    d = Daemon(bindir, tmp_path / "d", http=True).start()
    try:
        web_session(d.http, "Vera", PW)
        web_session(d.http, "Walt", PW)
        t, other = clients(d.port).connected(), clients(d.port).connected()
        t.login("Vera", PW)
        other.login("Walt", PW)
        vera, walt = lobby(d, "Vera"), lobby(d, "Walt")
        assert "renamed Vera to Vesna" in admin(bindir, d, "rename", "vera", "Vesna")
        words = "Your account was renamed to Vesna: log in again under that name."
        t.wait_for(words)
        assert "Logged in as" not in t.text() and not t.eof
        vera_left = vera.json_until(lambda m: m["t"] == "left", timeout=15)
        assert vera_left["text"] == words and vera.close_code() == 1008
        d.wait_log(r"admin: rename user=Vera to=Vesna")
        t.try_login("Vera", PW)
        t.wait_for("Unknown name or wrong password.")
        t.login("Vesna", PW)
        lobby(d, "Vesna")
        other.pump(quiet=0.5)
        assert not other.eof and "renamed" not in other.text(), other.text()
        stays_open(walt)
        d.stop_clean()
    finally:
        d.stop()


# The database refuses a change of an account's name (a trigger), in each
# backend's words: what a store failing at the last moment looks like.
REFUSE_RENAME = {
    "sqlite": [("CREATE TRIGGER no_rename BEFORE UPDATE OF name ON users "
                "BEGIN SELECT RAISE(ABORT, 'renames refused'); END", ())],
    "pg": [("CREATE FUNCTION no_rename() RETURNS trigger LANGUAGE plpgsql AS "
            "'BEGIN RAISE EXCEPTION ''renames refused''; END'", ()),
           ("CREATE TRIGGER no_rename BEFORE UPDATE OF name ON users "
            "FOR EACH ROW EXECUTE FUNCTION no_rename()", ())],
}


def test_a_rename_the_database_refuses_sends_nobody_off(bindir, clients, tmp_path):
    """A rename whose store fails is the administrator's error; the
    account's terminal and browser here are not told a name it does not
    hold, nor logged out, and it goes on under its name."""
    d = Daemon(bindir, tmp_path / "d", http=True).start()
    try:
        web_session(d.http, "Rhea", PW)
        t = clients(d.port).connected()
        t.login("Rhea", PW)
        ws = lobby(d, "Rhea")
        d.db_write(*REFUSE_RENAME["pg" if d.db_url else "sqlite"])
        code, out, err = admin_rc(bindir, d, "rename", "rhea", "Rhiannon")
        assert code != 0 and "renames refused" in err, (out, err)
        t.pump(quiet=1.0)
        assert "renamed" not in t.text() and "Logged in as" in t.text() and not t.eof, t.text()
        stays_open(ws)
        assert d.db_rows("SELECT name FROM users WHERE name_key = 'rhea'") == [("Rhea",)]
        t.send("p")
        d.wait_log(r"user=Rhea")
        d.stop_clean()
    finally:
        d.stop()


# The database refuses to delete an account (a trigger), in each backend's
# words; or takes its time over it (PostgreSQL: the delete's transaction
# sleeps before its last row goes).
REFUSE_DELETE = {
    "sqlite": [("CREATE TRIGGER no_delete BEFORE DELETE ON users "
                "BEGIN SELECT RAISE(ABORT, 'deletes refused'); END", ())],
    "pg": [("CREATE FUNCTION no_delete() RETURNS trigger LANGUAGE plpgsql AS "
            "'BEGIN RAISE EXCEPTION ''deletes refused''; END'", ()),
           ("CREATE TRIGGER no_delete BEFORE DELETE ON users "
            "FOR EACH ROW EXECUTE FUNCTION no_delete()", ())],
}
SLOW_DELETE = [("CREATE FUNCTION slow_delete() RETURNS trigger LANGUAGE plpgsql AS "
                "'BEGIN PERFORM pg_sleep(5); RETURN OLD; END'", ()),
               ("CREATE TRIGGER slow_delete BEFORE DELETE ON users "
                "FOR EACH ROW EXECUTE FUNCTION slow_delete()", ())]


def test_a_delete_the_database_refuses_sends_nobody_off(bindir, clients, tmp_path):
    """A delete whose store fails is the administrator's error: the
    account's terminal and browser here are not told it is deleted nor
    closed; its game, saved and closed before the store, resumes where it
    was, its rows all kept."""
    d = Daemon(bindir, tmp_path / "d", http=True).start()
    try:
        t = clients(d.port).connected()
        gid, _ = new_game(d, t, "Dora")
        t.play_keys("ll")
        before = hook(d, t, "Dora")
        ws = lobby(d, "Dora")
        d.db_write(*REFUSE_DELETE["pg" if d.db_url else "sqlite"])
        code, out, err = admin_rc(bindir, d, "delete", "dora", "--yes")
        assert code != 0 and "deletes refused" in err, (out, err)
        t.wait_for("The administrator saved and closed your game.")
        t.pump(quiet=1.0)
        assert "deleted" not in t.text() and not t.eof, t.text()
        stays_open(ws)
        assert d.db_rows("SELECT name FROM users WHERE name_key = 'dora'") == [("Dora",)]
        assert d.db_rows("SELECT count(*) FROM games WHERE id = ?", gid)[0][0] == 1
        assert "admin: delete user=Dora" not in d.log()
        t.send(" ")  # the message read
        t.wait_for("Logged in as Dora")
        t.send("p")
        assert hook(d, t, "Dora") == before
        d.stop_clean()
    finally:
        d.stop()


def test_no_game_of_an_account_starts_between_its_close_and_its_delete(bindir, clients,
                                                                      tmp_path):
    """A delete saves and closes the account's game, then deletes its rows
    (held here three seconds, the moment widened): its player, left at the
    menu meanwhile, is refused Warren's game (p), the daily game (d) and a
    browser's play with the delete's words, so nothing of it is written
    after its rows go; once the delete is stored they are sent off, and
    not a row of the account's is left."""
    d = Daemon(bindir, tmp_path / "d", http=True, extra=["--test-delete-hold", 3000]).start()
    try:
        t = clients(d.port).connected()
        gid, _ = new_game(d, t, "Ida")
        t.play_keys("ll")
        session = Web(d.http).post("/login", {"name": "Ida", "password": PW}).session
        done = {}
        deleting = threading.Thread(target=lambda: done.update(
            r=admin_rc(bindir, d, "delete", "ida", "--yes")))
        deleting.start()
        d.wait_log(r"delete user=Ida: its rows held 3000 ms", timeout=20)
        t.wait_for("The administrator saved and closed your game.")
        t.send(" ")  # the message read
        t.wait_for("Logged in as Ida")
        for key in ("p", "d"):
            t.send(key)
            t.wait_for("This account is being deleted.")
            t.send(" ")
            t.wait_for("Logged in as Ida")
        ws = WS(d.http, "/ws/play", session=session, timeout=10)
        ws.text(json.dumps({"t": "resize", "w": 80, "h": 24}))
        said = ws.json_until(lambda m: m.get("t") in ("left", "menu", "notice"), timeout=10)
        assert "This account is being deleted." in json.dumps(said), said
        deleting.join(30)
        code, out, err = done["r"]
        assert code == 0 and "deleted Ida" in out, (out, err)
        t.wait_for("This account has been deleted.")
        t.wait_exit()
        after = d.log().split("its rows held")[1]
        assert "game resume user=Ida" not in after and "game start" not in after, after
        assert " ERROR " not in after, after  # a game closed after its rows went: not stored
        for table, col in (("games", "id"), ("journal", "game"), ("snapshots", "game")):
            assert d.db_rows(f"SELECT count(*) FROM {table} WHERE {col} = ?", gid)[0][0] == 0
        assert d.db_rows("SELECT count(*) FROM games g WHERE NOT EXISTS "
                         "(SELECT 1 FROM users u WHERE u.id = g.user)")[0][0] == 0
        d.stop_clean()
    finally:
        d.stop()


@pytest.mark.skipif(not ON_PG, reason="a transaction that sleeps: WARREN_DB=pg")
def test_a_login_answered_while_a_delete_is_stored_is_sent_off(bindir, clients, tmp_path):
    """A login whose account was read just before a delete began, answered
    while the delete was being stored (its answer held, the transaction
    made slow: the moment widened), is sent off with the delete's words
    once it is stored: nobody stays logged in as an account that is gone."""
    d = Daemon(bindir, tmp_path / "d", extra=["--test-login-delay", 2500]).start()
    try:
        t = clients(d.port).connected()
        t.register("Nell", PW)
        t.close()
        d.db_write(*SLOW_DELETE)
        t = clients(d.port).connected()
        t.try_login("Nell", PW)
        d.wait_log(r"login user=Nell: its answer held", timeout=20)
        assert "deleted Nell" in admin(bindir, d, "delete", "nell", "--yes")
        t.wait_for("This account has been deleted.")
        t.pump(quiet=0.5)
        assert t.eof, t.text()
        d.stop_clean()
    finally:
        d.stop()


def test_a_login_in_flight_when_its_account_is_locked_is_refused(bindir, clients, tmp_path):
    """A lock committed while the password check of a login runs (three
    seconds here, a real hash's cost on a busy machine) refuses that login
    with the lock's words, at a terminal and at the web's /login."""
    d = Daemon(bindir, tmp_path / "d", http=True, extra=["--test-login-delay", 3000]).start()
    try:
        web_session(d.http, "Lena", PW)
        t = clients(d.port).connected()
        t.try_login("Lena", PW)
        web = {}
        browser = threading.Thread(target=lambda: web.update(
            r=Web(d.http).post("/login", {"name": "Lena", "password": PW})))
        browser.start()
        assert "Lena locked" in admin(bindir, d, "lock", "lena")
        t.wait_for("This account is locked.")
        assert "Logged in as" not in t.text(), t.text()
        browser.join(30)
        assert not web["r"].session and b"This account is locked." in web["r"].body, web["r"]
        d.stop_clean()
    finally:
        d.stop()


def test_a_login_read_again_before_a_lock_and_answered_after_is_refused(bindir, clients,
                                                                        tmp_path):
    """A login whose account was read again (unlocked) just before a lock
    was stored, and whose answer comes after the lock sent the account's
    connections off (held here, the moment widened), is refused with the
    lock's words too, at a terminal and at the web's /login: the send-off
    found nobody logged in to close."""
    d = Daemon(bindir, tmp_path / "d", http=True, extra=["--test-login-delay", 2500]).start()
    try:
        web_session(d.http, "Lena", PW)
        web_session(d.http, "Lina", PW)
        t = clients(d.port).connected()
        t.try_login("Lena", PW)
        d.wait_log(r"login user=Lena: its answer held", timeout=20)
        assert "Lena locked" in admin(bindir, d, "lock", "lena")
        t.wait_for("This account is locked.")
        assert "Logged in as" not in t.text(), t.text()
        assert "Lina locked" in web_login_refused(d, "Lina", PW,
                                                  lambda: admin(bindir, d, "lock", "lina"),
                                                  b"This account is locked.")
        d.stop_clean()
    finally:
        d.stop()


def test_a_login_under_the_old_name_answered_after_a_rename_is_refused(bindir, clients,
                                                                        tmp_path):
    """A login under a name read again just before a rename of it was
    stored, answered after the rename sent the account's connections off
    (the moment widened as above), is refused as the old name now is; the
    new name logs in."""
    d = Daemon(bindir, tmp_path / "d", extra=["--test-login-delay", 2500]).start()
    try:
        t = clients(d.port).connected()
        t.register("Lora", PW)
        t.close()
        t = clients(d.port).connected()
        t.try_login("Lora", PW)
        d.wait_log(r"login user=Lora: its answer held", timeout=20)
        assert "renamed Lora to Lorna" in admin(bindir, d, "rename", "lora", "Lorna")
        t.wait_for("Unknown name or wrong password.")
        assert "Logged in as" not in t.text(), t.text()
        t2 = clients(d.port).connected()
        t2.login("Lorna", PW)
        d.stop_clean()
    finally:
        d.stop()


def test_a_login_checked_against_a_password_reset_meanwhile_is_refused(bindir, clients,
                                                                        tmp_path):
    """A login whose password was checked against the old hash while an
    administrator's reset stored a new one (and ended the account's web
    sessions) is refused, at a terminal and at the web's /login (no web
    session made after the reset); so is one whose account was read again
    just before a reset and answered after it (the moment widened); the
    new password logs in."""
    d = Daemon(bindir, tmp_path / "d", http=True, extra=["--test-login-delay", 2000]).start()
    tool = program(bindir, "asan/warren-admin", "warren-admin")

    def passwd(name, pw):
        r = subprocess.run([str(tool), "--control", f"{d.db}.ctl", "passwd", name],
                           input=pw + "\n", capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and "password of Mara changed" in r.stdout, r

    try:
        web_session(d.http, "Mara", PW)
        t = clients(d.port).connected()
        t.try_login("Mara", PW)
        passwd("mara", "a new passphrase")
        t.wait_for("Unknown name or wrong password.")
        assert "Logged in as" not in t.text(), t.text()
        web = {}
        browser = threading.Thread(target=lambda: web.update(
            r=Web(d.http).post("/login", {"name": "Mara", "password": "a new passphrase"})))
        browser.start()
        passwd("mara", PW)
        browser.join(30)
        assert not web["r"].session and b"Unknown name or wrong password." in web["r"].body, \
            web["r"]
        t.try_login("Mara", PW)  # read again before the reset, answered after it
        d.wait_log(r"login user=Mara: its answer held", timeout=20)
        passwd("mara", "a third passphrase")
        t.wait_for("Unknown name or wrong password.")
        assert "Logged in as" not in t.text(), t.text()
        t.login("Mara", "a third passphrase")
        d.stop_clean()
    finally:
        d.stop()


def lobby(d, name):
    """A websocket of the lobby, logged in at d as name."""
    tok = Web(d.http).post("/login", {"name": name, "password": PW}).session
    assert tok
    ws = WS(d.http, "/ws/lobby", session=tok)
    assert ws.json_until(lambda m: m["t"] == "hello")["user"] == name
    return ws


def test_ban_refuses_at_the_door_until_lifted(world):
    d, admin = world["d"], world["admin"]
    a = world["client"]()
    a.register("mona", PW)
    code, out, err = admin("ban", "127.0.0.0/8", "1h")
    assert code == 0, err
    assert "banned 127.0.0.0/8 (1 connection closed) until " in out and "UTC" in out
    a.wait_for("Connections from your address are refused.")
    d.wait_log(r"admin: ban net=127.0.0.0/8")
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    got = b""
    while b"refused" not in got:
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
    s.close()
    assert b"Connections from your address are refused." in got
    code, out, _ = admin("bans")
    assert "127.0.0.0/8" in out
    assert d.db_rows("SELECT net FROM bans") == [("127.0.0.0/8",)]
    # kept over a restart
    d.stop_clean()
    d.start()
    time.sleep(0.3)
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    assert b"refused" in s.recv(4096)
    s.close()
    code, out, err = admin("unban", "127.0.0.1/8")  # the same network, written another way
    assert code == 0, err
    assert "lifted the ban on 127.0.0.0/8" in out
    world["client"]().login("mona", PW)
    code, out, err = admin("unban", "127.0.0.0/8")
    assert code == 1 and "no such ban" in err
    code, out, err = admin("ban", "::1/64")
    assert code == 0 and "banned ::/64" in out, err
    code, out, err = admin("ban", "300.1.1.1")
    assert code == 1
    code, out, err = admin("ban", "10.0.0.1", "soon")
    assert code == 1 and "bad duration" in err


def test_ban_with_duration_expires(world):
    d, admin = world["d"], world["admin"]
    code, out, err = admin("ban", "127.0.0.1", "2s")
    assert code == 0, err
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    assert b"refused" in s.recv(4096)
    s.close()
    time.sleep(2.5)
    world["client"]()  # connected() waits for the menu


def test_mute_is_listed_and_lifted(world):
    d, admin = world["d"], world["admin"]
    world["client"]().register("nina", PW)
    code, out, err = admin("mute", "nina", "30m")
    assert code == 0, err
    assert "nina may not chat until" in out
    d.wait_log(r"admin: mute user=nina")
    code, out, _ = admin("bans")
    assert [ln for ln in out.splitlines() if ln.startswith("mute") and "nina" in ln]
    code, out, err = admin("unmute", "nina")
    assert code == 0 and "nina may chat again" in out, err
    code, out, _ = admin("bans")
    assert "nina" not in out
