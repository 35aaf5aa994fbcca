"""One identity per account for hosted games, with the real daemon and
Debian's NetHack: what NetHack sees is the account's game name (%u), never
a name another account can also reach. A name with '-' (NetHack cuts
there), one of NetHack's generic names (it asks who you are), a rename, a
delete and an upgrade from a database without game names each keep every
save with its own account."""
import re
import threading
import time

from harness import Daemon, admin, admin_rc, sqlite_only, unique_name
from test_hosted import (answer_until, nethack, playground, save_files,  # noqa: F401 (a fixture)
                         settle)


def start(t):
    """From the menu into NetHack: 'new' for a new character, 'restored'
    for a save of this account's, 'asked' when NetHack asks who you are."""
    mark = len(t.raw)
    t.send("1")
    end = time.time() + 30
    while time.time() < end:
        seen = t.raw[mark:].decode("utf-8", "replace")
        if "Who are you?" in seen:
            return "asked"
        if "welcome back" in seen or "Restoring save file" in seen:
            answer_until(t, "Dlvl:")
            return "restored"
        if "Shall I pick" in seen:
            answer_until(t, "Dlvl:1")
            return "new"
        t.pump(quiet=0.1, limit=0.5)
    raise AssertionError(t.text())


def save(t):
    """NetHack's S: the game is saved, the program ends, the menu is back."""
    settle(t)
    t.play_keys("S")
    t.wait_for("Really save?")
    t.send("y")
    t.wait_for("was saved", timeout=30)
    t.send(" ")
    t.wait_for("Your choice")


def saves(pg):
    """NetHack's save files by player name (each is UID + name + .gz)."""
    return sorted(re.sub(r"^\d+", "", p.name) for p in save_files(pg))


def status_name(t):
    """The name on NetHack's status line (its first word)."""
    line = next((ln for ln in t.lines() if "St:" in ln), None)
    assert line, t.text()
    return line.split()[0]



def test_a_dash_or_a_generic_name_reaches_no_other_save(nethack, clients):
    d, pg = nethack
    base = unique_name("c")
    carol = clients(d.port)
    carol.register(base)
    assert start(carol) == "new"
    save(carol)
    assert saves(pg) == [f"{base}.gz"]
    x = clients(d.port)
    x.register(base + "-x")  # NetHack took "carol-x" as carol
    assert start(x) == "new"
    assert status_name(x).lower() == f"{base}_x"
    save(x)
    assert saves(pg) == sorted([f"{base}.gz", f"{base}_x.gz"])
    carol.send("1")  # carol's own game is still hers
    answer_until(carol, "Dlvl:")
    assert "welcome back" in carol.raw.decode("utf-8", "replace")
    generic = clients(d.port)
    generic.register("Player")  # NetHack asks a "player" who they are
    assert start(generic) == "new"
    assert status_name(generic) == "Player2"


def test_bob_and_bob_val_keep_separate_saves(nethack, clients):
    d, pg = nethack
    bob = unique_name("b")
    t = clients(d.port)
    t.register(bob)
    assert start(t) == "new"
    t.play_keys("s" * 3)
    save(t)
    v = clients(d.port)
    v.register(bob + "-val")
    assert start(v) == "new"  # not bob's game
    save(v)
    assert saves(pg) == sorted([f"{bob}.gz", f"{bob}_val.gz"])  # one each, none lost
    for who in (t, v):
        assert start(who) == "restored"
    assert status_name(t).lower() == bob and status_name(v).lower() == f"{bob}_val"
    rows = dict(d.db_rows("SELECT u.name, g.name FROM users u JOIN game_names g ON g.user = u.id "
                          "WHERE u.name IN (?, ?)", bob, bob + "-val"))
    assert rows == {bob: bob, bob + "-val": bob + "_val"}
    # each account's directory is its game name's
    assert (d.db.parent / "games" / "nethack" / f"{bob}_val" / "nethackrc").exists()
    settle(v)  # bob-val's end is matched to bob-val by its xlogfile name
    v.play_keys("\x1b#quit\r")
    v.wait_for("Really quit?")
    v.send("y")
    answer_until(v, "is over")
    assert d.db_rows("SELECT u.name, h.name FROM hosted_scores h JOIN users u ON u.id = h.user") \
        == [(bob + "-val", bob + "_val")]


def test_rename_keeps_the_save_and_the_old_name_starts_fresh(nethack, clients, bindir):
    d, pg = nethack
    old, new = unique_name("o"), unique_name("n")
    t = clients(d.port)
    t.register(old)
    assert start(t) == "new"
    save(t)
    out = admin(bindir, d, "rename", old, new)
    t.wait_for("log in again")
    t = clients(d.port)
    t.login(new)
    assert start(t) == "restored"  # the account keeps its game
    assert status_name(t).lower() == old
    save(t)
    s = clients(d.port)
    s.register(old)  # a stranger takes the old name
    assert start(s) == "new"
    assert status_name(s).lower() == f"{old}2"
    assert f"hosted games still know it as {old}" in out
    rows = {ln.split()[0]: ln.split()[-1] for ln in admin(bindir, d, "users").splitlines()[1:]}
    assert rows[new] == old and rows[old] == f"{old}2"  # each account's game name


def test_delete_retires_the_game_name(nethack, clients, bindir):
    d, pg = nethack
    name = unique_name("d")
    t = clients(d.port)
    t.register(name)
    assert start(t) == "new"
    save(t)
    out = admin(bindir, d, "delete", name, "--yes")
    s = clients(d.port)
    s.register(name)  # whoever registers the name next
    assert start(s) == "new"
    assert status_name(s).lower() == f"{name}2"
    assert d.db_rows("SELECT user FROM game_names WHERE key = ?", name) == [(None,)]
    assert f"its game name {name} is retired" in out


def test_no_hosted_game_starts_while_its_account_is_deleted(bindir, clients, tmp_path):
    """An account's running NetHack is closed by its delete (its program
    hung up) before its rows go (held here, the moment widened); its
    player, at the menu meanwhile, is refused NetHack with the delete's
    words: no program of it starts to write its files and rows after."""
    pg, conf = playground(tmp_path, bindir)
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf, "--test-delete-hold", 3000])
    d.start()
    try:
        name = unique_name("z")
        t = clients(d.port)
        t.register(name)
        assert start(t) == "new"
        done = {}
        deleting = threading.Thread(target=lambda: done.update(
            r=admin_rc(bindir, d, "delete", name, "--yes")))
        deleting.start()
        d.wait_log(rf"delete user={name}: its rows held 3000 ms", timeout=20)
        t.wait_for("The administrator saved and closed your game.")
        t.send(" ")
        t.wait_for(f"Logged in as {name}")
        t.send("1")
        t.wait_for("This account is being deleted.")
        deleting.join(30)
        code, out, err = done["r"]
        assert code == 0 and f"deleted {name}" in out, (out, err)
        t.wait_for("This account has been deleted.")
        assert d.log().count(f"hosted start user={name} ") == 1, d.log()[-3000:]
        d.stop_clean()
    finally:
        d.stop()


@sqlite_only("rewinds the file to schema 7 (db_game_names_pg runs migration 8 on PostgreSQL)")
def test_upgrade_keeps_an_existing_accounts_save(bindir, tmp_path, clients):
    """A save made as the shipped sample did before (-u %n) under a database
    of schema 7 (before game names) is restored after the
    upgrade to -u %u, and the account's directory is the same."""
    pg, conf = playground(tmp_path, bindir)
    text = conf.read_text()
    conf.write_text(text.replace("-u %u", "-u %n"))
    d = Daemon(bindir, tmp_path / "daemon", extra=["--config", conf])
    d.start()
    name = unique_name("up")
    t = clients(d.port)
    t.register(name)
    assert start(t) == "new"
    save(t)
    rc = d.db.parent / "games" / "nethack" / name / "nethackrc"
    rc.write_text(rc.read_text() + "OPTIONS=time\n")
    d.stop_clean()
    d.db_write(("DROP INDEX games_by_race", ()), ("DROP INDEX games_by_class", ()),
               ("DROP INDEX games_by_end", ()), ("DROP INDEX hosted_scores_by_end", ()),
               ("DROP INDEX hosted_scores_by_user_end", ()),
               ("DROP TABLE leases", ()), ("DROP TABLE lease_chg", ()),
               ("DROP TABLE lease_gone", ()), ("DROP TABLE nodes", ()),
               ("DROP TABLE node_events", ()), ("DROP INDEX sessions_by_user", ()),
               ("DROP TABLE game_ids", ()), ("DROP TABLE daily", ()),
               ("DROP TRIGGER users_game_name", ()),
               ("DROP TABLE game_names", ()), ("DROP TABLE hosted_files", ()),
               ("DROP TABLE hosted_file_sets", ()), ("PRAGMA user_version = 7", ()))
    assert d.db_rows("PRAGMA user_version") == [(7,)]
    conf.write_text(text)  # the sample as shipped now: -u %u
    d.start()
    try:
        t = clients(d.port)
        t.login(name)
        t.send("e")  # the rc file of the same directory, as edited before
        t.wait_for("OPTIONS=time")
        t.send("q")
        t.wait_for("Your choice")
        assert start(t) == "restored"
        assert d.db_rows("SELECT g.name FROM game_names g JOIN users u ON u.id = g.user "
                         "WHERE u.name = ?", name) == [(name,)]
    finally:
        d.stop()
        d.stop_clean()
