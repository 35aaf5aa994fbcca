"""New accounts from many addresses: `register-per-hour` holds one address
back, and `register-all-per-hour` (default 100) holds them all together, so
whoever has many addresses (a botnet, an IPv6 /48: 65,536 /64s) cannot
make accounts (each a row, each a password hash, each allowed its games)
without bound. The real daemon over real sockets, from addresses of
127.0.0.0/8 and through a trusted proxy's X-Forwarded-For; past the cap
the web answers 429 and telnet says why, the log says so once a window,
and `warren-admin health` counts what was made and refused."""
import re

import pytest

from harness import PW, Telnet, Web, admin

FORWARDED = ["--trust-proxy", "127.0.0.1"]


def xff(client):
    return {"X-Forwarded-For": client}


def register(web, name, client):
    r = web.post("/register", {"name": name, "password": PW, "password2": PW},
                 headers=xff(client))
    return r.status, r.body.decode("utf-8", "replace")


@pytest.mark.daemon(http=True, extra=["--register-per-hour", "5"])
def test_many_addresses_share_the_default_cap(daemon, bindir):
    """With only the per-address limit set, 21 addresses of 127.0.0.0/8
    make 100 accounts, five each, and no more: the 101st is refused."""
    d = daemon
    codes = []
    for i in range(101):
        web = Web(d.http, source=f"127.0.1.{i // 5 + 1}")
        codes.append(web.register(f"flood{i}", PW).status)
    assert codes[:100] == [303] * 100, codes
    assert codes[100] == 429, codes
    d.wait_log(r"registrations: register-all-per-hour 100 reached; new accounts refused for")
    health = admin(bindir, d, "health")
    assert ("registrations: 100 made this hour of register-all-per-hour 100, 0 being made, "
            "1 refused by it") in health, health


@pytest.mark.daemon(http=True,
                    extra=FORWARDED + ["--register-per-hour", "2", "--register-all-per-hour", "3"])
def test_the_cap_counts_accounts_made_and_tells_why(daemon, bindir):
    d = daemon
    web = Web(d.http)
    assert register(web, "capa", "198.51.100.1")[0] == 303
    # a name taken makes nothing: it does not use the cap up
    for i in range(4):
        assert register(web, "capa", f"198.51.100.{10 + i}")[0] == 409
    assert register(web, "capb", "198.51.100.2")[0] == 303
    assert register(web, "capc", "198.51.100.3")[0] == 303
    for i in range(3):
        status, body = register(web, f"capd{i}", f"203.0.113.{i + 1}")
        assert status == 429, (status, body)
        assert "The server takes no more new accounts for now. Try again in 60 minutes." in body
    # telnet is held by the same cap
    t = Telnet(d.port)
    t.menu("r", ("Name:", "cape"), ("Password:", PW), ("Password again:", PW))
    t.wait_for("no more new accounts", timeout=30)
    t.close()
    # logging in is not registering
    assert Web(d.http).post("/login", {"name": "capb", "password": PW}).status == 303
    health = admin(bindir, d, "health")
    assert ("registrations: 3 made this hour of register-all-per-hour 3, 0 being made, "
            "4 refused by it") in health, health
    # said once in the window, however many were refused
    assert len(re.findall(r"register-all-per-hour 3 reached", d.log())) == 1, d.log()
