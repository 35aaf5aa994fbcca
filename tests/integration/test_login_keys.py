"""Keys typed while a login is checked (the password, Enter and p at once,
as players used to type-ahead do) reach the menu the login reaches, in
order; a wrong password drops them, and a notice shown after the login is
never dismissed by them. Over Debian's telnet and a raw socket."""
import socket
import time

import pytest

from harness import PW, hook, raw_read
from players import started


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
    daemon.wait_log(r"login conn=\d+ ip=\S+ user=frodo")
    daemon.wait_log(r"game start user=frodo game=\d+")
    t.wait_for("Choose a race.")


@pytest.mark.daemon(extra=["--grace", "1"])
def test_keys_in_the_packet_of_the_password_resume_the_game(daemon, clients):
    """p and a wait in the packet of the password: p resumes the saved
    game (loaded from the database), the wait is played in it."""
    t = clients(daemon.port).connected()
    started(daemon, t, "sam")
    t.play_keys("..")
    before = hook(daemon, t, "sam")
    t.close()
    daemon.wait_log(r"grace over user=sam game=\d+: saved and freed", timeout=15)
    with socket.create_connection(("127.0.0.1", daemon.port)) as s:
        s.settimeout(10)
        time.sleep(0.3)
        s.sendall(b"l")
        time.sleep(0.2)
        s.sendall(b"sam\r")
        time.sleep(0.2)
        s.sendall(PW.encode() + b"\rp.")  # one packet
        daemon.wait_log(r"login conn=\d+ ip=\S+ user=sam")
        daemon.wait_log(r"game resume user=sam")
        daemon.wait_log(r"attach user=sam")
        time.sleep(0.5)
        s.sendall(b"\x1b[24~")  # F12: the test hook
        m = daemon.wait_log(r"hook user=sam game=\d+ hash=[0-9a-f]+ seed=\d+ turn=(\d+) seq=(\d+)")
    assert int(m.group(2)) == before["seq"] + 1, (before, m.group(0))


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
    with socket.create_connection(("127.0.0.1", daemon.port)) as s:
        raw_read(s, 0.3)
        s.sendall(b"l")
        raw_read(s, 0.2)
        s.sendall(b"pippin\r")
        raw_read(s, 0.2, b"Password:")
        s.sendall(b"not-" + PW.encode() + b"\rpl")  # one packet
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
    daemon.wait_log(r"login conn=\d+ ip=\S+ user=merry")
    t.wait_for("second breakfast at noon")
    t.pump(quiet=0.5)
    assert "Press any key." in t.text(), t.text()
