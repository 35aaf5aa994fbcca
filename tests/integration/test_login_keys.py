"""Keys typed while a login is checked (the password, Enter and p at once,
as players used to type-ahead do) reach the menu the login reaches, in
order; a wrong password drops them, and a notice shown after the login is
never dismissed by them. Over Debian's telnet and a raw socket."""
import pytest

from harness import CTRL_X, PW, login_then, raw_hook, raw_read
from players import left_to_its_grace


def logging_in(t, name):
    """From t's main menu up to the password prompt of a login."""
    t.menu("l", ("Name:", name))
    t.wait_for("Password:")


def test_p_typed_with_the_password_starts_the_game(daemon, clients):
    a = clients(daemon.port).connected()
    a.register("frodo")
    a.close()
    t = clients(daemon.port).connected()
    logging_in(t, "frodo")
    t.send(PW + "\rp", settle=False)  # Enter and p at once
    daemon.wait_log(r"login conn=\d+ ip=\S+ user=frodo\n")  # not the registration's
    daemon.wait_log(r"game start user=frodo game=\d+")
    t.wait_for("Choose a race.")


@pytest.mark.daemon(extra=["--grace", "1"])
def test_keys_in_the_packet_of_the_password_resume_the_game(daemon, clients):
    """p and a wait in the packet of the password: p resumes the saved
    game (loaded from the database), the wait is played in it."""
    before = left_to_its_grace(daemon, clients(daemon.port).connected(), "sam")
    with login_then(daemon.port, "sam", b"p.") as s:  # p and a wait with the password
        daemon.wait_log(r"login conn=\d+ ip=\S+ user=sam\n")  # not the registration's
        daemon.wait_log(r"game resume user=sam")
        daemon.wait_log(r"attach user=sam")
        after = raw_hook(daemon, s, "sam")
    assert after["seq"] == before["seq"] + 1, (before, after)


def test_a_wrong_password_drops_the_keys_typed_after_it(daemon, clients):
    """Keys typed for a logged-in menu do nothing after a failed login:
    l would open the login prompt again, p would ask for a login."""
    a = clients(daemon.port).connected()
    a.register("pippin")
    a.close()
    t = clients(daemon.port).connected()
    logging_in(t, "pippin")
    t.send("not-" + PW + "\rl", settle=False)
    daemon.wait_log(r"login failed conn=\d+")
    t.wait_for("wrong password")
    t.pump(quiet=0.5)
    assert "Name:" not in t.text() and "Your choice" in t.text(), t.text()
    with login_then(daemon.port, "pippin", b"pl", pw="not-" + PW) as s:  # one packet
        seen = raw_read(s, 10, b"wrong password")
        seen += raw_read(s, 0.8)
    assert b"wrong password" in seen and b"Name:" not in seen, seen
    assert "game start user=pippin" not in daemon.log()


def test_mail_shown_after_the_login_is_not_dismissed_by_its_keys(daemon, clients):
    """Unseen mail shows once the held keys are played: a key typed with the
    password never dismisses it unread."""
    a = clients(daemon.port).connected()
    a.register("rosie")
    b = clients(daemon.port).connected()
    b.register("merry")
    b.close()
    a.menu("m", ("To:", "merry"), ("Message:", "second breakfast at noon"))
    a.wait_for("Message left for merry.")
    t = clients(daemon.port).connected()
    logging_in(t, "merry")
    t.send(PW + "\rz", settle=False)  # z: no choice of the menu
    daemon.wait_log(r"login conn=\d+ ip=\S+ user=merry\n")  # not the registration's
    t.wait_for("second breakfast at noon")
    t.pump(quiet=0.5)
    assert "Press any key." in t.text(), t.text()


def test_mail_waits_for_the_menu_when_the_keys_start_the_game(daemon, clients):
    """p typed with the password goes straight into the game, unhindered by
    the mail; the mail shows when the player is back at the menu."""
    a = clients(daemon.port).connected()
    a.register("gaffer")
    b = clients(daemon.port).connected()
    b.register("daisy")
    b.close()
    a.menu("m", ("To:", "daisy"), ("Message:", "the taters are in"))
    a.wait_for("Message left for daisy.")
    t = clients(daemon.port).connected()
    logging_in(t, "daisy")
    t.send(PW + "\rp", settle=False)
    daemon.wait_log(r"game start user=daisy game=\d+")
    t.wait_for("Choose a race.")
    t.send("l", settle=False)
    t.wait_for("Welcome, daisy the ")
    assert "the taters are in" not in t.text(), t.text()
    t.send(CTRL_X, settle=False)  # back to the menu
    t.wait_for("the taters are in")
    t.wait_for("Press any key.")
    t.send("x", settle=False)  # dismissed: the menu, the mail seen
    t.wait_for("Your choice")
    t.close()
    t = clients(daemon.port).connected()
    t.login("daisy")
    t.pump(quiet=0.8)
    assert "the taters are in" not in t.text(), t.text()


def test_mail_that_comes_during_the_game_shows_back_at_the_menu(daemon, clients):
    """Mail left while the player is in a game shows once they are back at
    the menu in the same visit, and not again at their next login."""
    t = clients(daemon.port).connected()
    t.register("ted")  # the first account: with loops = 2 its game is on loop 1
    a = clients(daemon.port).connected()
    a.register("hobson")
    t.send("p", settle=False)
    t.wait_for("Choose a race.")
    t.send("l", settle=False)
    t.wait_for("Welcome, ted the ")
    a.menu("m", ("To:", "ted"), ("Message:", "rope for the road"))
    a.wait_for("Message left for ted.")
    daemon.wait_log(r"mail from=\d+ to=ted")
    t.pump(quiet=0.5)
    assert "rope for the road" not in t.text(), t.text()  # the game goes on
    t.send(CTRL_X, settle=False)  # back to the menu
    t.wait_for("rope for the road")
    t.wait_for("Press any key.")
    t.send("x", settle=False)
    t.wait_for("Your choice")
    t.close()
    t = clients(daemon.port).connected()
    t.login("ted")
    t.pump(quiet=0.8)
    assert "Your choice" in t.text() and "rope for the road" not in t.text(), t.text()


def test_a_flood_held_by_an_account_check_is_logged_as_held_for_it(daemon, clients):
    """Past the 32 keys held while an account is checked, the log says what
    the keys wait for: the login, the name check, the password change."""
    a = clients(daemon.port).connected()
    a.register("lotho")
    a.close()
    with login_then(daemon.port, "lotho", b"z" * 40) as s:  # one packet with the password
        daemon.wait_log(r"login conn=\d+ ip=\S+ user=lotho\n")  # not the registration's
        raw_read(s, 0.5)
    # logged as the keys came, before the login line
    daemon.wait_logged(r"key dropped conn=\d+: 32 keys already wait for the login")
    t = clients(daemon.port).connected()
    t.wait_for("Your choice")
    t.send("r", settle=False)
    t.wait_for("Name:")
    t.send("odo\r" + "z" * 40, settle=False)
    daemon.wait_log(r"key dropped conn=\d+: 32 keys already wait for the name check")
    t.close()
    t = clients(daemon.port).connected()
    t.register("otho")
    new = "battery-staple-9"
    t.menu("c", ("Old password:", PW), ("New password:", new))
    t.wait_for("New password again:")
    t.send(new + "\r" + "z" * 40, settle=False)
    daemon.wait_log(r"key dropped conn=\d+: 32 keys already wait for the password change")
    daemon.wait_log(r"password changed user=otho")
    assert "wait for the game" not in daemon.log()


def test_keys_typed_with_a_new_password_reach_the_menu(daemon, clients):
    """Enter and o typed with the new password's second entry: the change is
    checked, then o opens the options; a refused change drops them."""
    t = clients(daemon.port).connected()
    t.register("lobelia")
    new = "battery-staple-9"
    t.menu("c", ("Old password:", "not-" + PW), ("New password:", new))
    t.wait_for("New password again:")
    t.send(new + "\ro", settle=False)
    t.wait_for("Unknown name or wrong password.")
    t.pump(quiet=0.5)
    assert "Keys: vi keys" not in t.text() and "Your choice" in t.text(), t.text()
    t.menu("c", ("Old password:", PW), ("New password:", new))
    t.wait_for("New password again:")
    t.send(new + "\ro", settle=False)  # Enter and o at once
    daemon.wait_log(r"password changed user=lobelia")
    t.wait_for("Keys: vi keys")  # the options screen


def test_keys_typed_with_a_free_name_fill_the_password_prompts(daemon, clients):
    """Name, password twice and p typed at once: the name is looked up,
    then the rest is played in the prompts after it, the account made and
    its game started."""
    t = clients(daemon.port).connected()
    t.wait_for("Your choice")
    t.send("r", settle=False)
    t.wait_for("Name:")
    t.send("hamfast\r" + PW + "\r" + PW + "\rp", settle=False)
    daemon.wait_log(r"login conn=\d+ ip=\S+ user=hamfast \(registered\)")
    daemon.wait_log(r"game start user=hamfast game=\d+")
    t.wait_for("Choose a race.")


def test_keys_typed_with_a_taken_name_are_dropped(daemon, clients):
    """A taken name is asked again, empty: what was typed after it was
    meant for the password prompt and is never shown as a name."""
    a = clients(daemon.port).connected()
    a.register("bilbo")
    a.close()
    t = clients(daemon.port).connected()
    t.send("r", settle=False)
    t.wait_for("Name:")
    t.send("bilbo\rsecretive", settle=False)
    t.wait_for("That name is taken.")
    t.pump(quiet=0.5)
    assert "secretive" not in t.text(), t.text()
    assert b"secretive" not in t.raw


def test_a_flood_typed_while_a_login_is_checked_is_one_line(daemon):
    """No account: a login's password, Enter and 1,500 more keys in one
    packet. Past the 32 held, the drop is logged once and the rest
    counted, said in one line when the wait ends: never a line a key."""
    with login_then(daemon.port, "nosuchone", b"z" * 1500) as s:
        daemon.wait_log(r"key dropped conn=\d+: 32 keys already wait for the login")
        m = daemon.wait_log(r"keys dropped conn=\d+: (\d+) in all while they waited for the login")
        raw_read(s, 0.3)
    assert int(m.group(1)) >= 1000, m.group(0)
    assert daemon.log().count("key dropped conn=") == 1, daemon.log().count("key dropped conn=")
