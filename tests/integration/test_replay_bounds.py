"""Replays and asciicasts are bounded, against the real daemon over real
HTTP: a body is cut at replay-max and says so, built once and then served
from the cache (the same bytes, gzipped or not), a live recording's body
follows its growth; past the build queue requests get 503 with
Retry-After while the daemon's memory stays small; requests whose clients
have gone cost nothing, so a small replay and a login are answered while
40 of them wait. Recordings are written into the SQLite file in the
recorder's own chunk format (recordings.py): a big one in a second."""
import gzip
import json
import re
import socket
import threading
import time

import pytest

import recordings
from harness import (ARTIFACTS, PW, Daemon, Web, browser_script, program, read_all,
                     unique_name)
from test_hosted_records import cast_of, render
from test_records import play_game

MIB = 1 << 20


def recorder(d, name=None):
    """A registered account (over the web) and its user id."""
    name = name or unique_name("rb")
    assert Web(d.http).register(name, PW).status == 303
    return name, d.db_rows("SELECT id FROM users WHERE name = ?", name)[0][0]


def flood(nbytes, **kw):
    """A recording's chunks: nbytes of flood output, a read every 25 ms
    (each its own frame in the browser player)."""
    return recordings.chunks(recordings.flood_output(nbytes), read=1024, ms_per_read=25, **kw)


def peak_rss_mb(d):
    status = open(f"/proc/{d.proc.pid}/status").read()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) // 1024


@pytest.fixture
def release(bindir, tmp_path):
    """starts(*flags): warrend's release build (memory is measured, and
    builds take their real time), stopped cleanly after the test."""
    made = []

    def start(*flags):
        d = Daemon(bindir, tmp_path / f"rel{len(made)}", http=True,
                   exe=program(bindir, "warrend"), extra=flags)
        made.append(d)
        return d.start()
    yield start
    for d in made:
        d.stop_clean()


def test_hosted_replay_cut_at_replay_max_then_cached(start_daemon):
    d = start_daemon(http=True, extra=["--replay-max", "256K"])
    _, uid = recorder(d)
    big, small = (recordings.insert(d, uid, flood(n), n)[0] for n in (2 * MIB, 20000))
    web = Web(d.http)

    r = web.get(f"/api/hosted/{big}/replay")
    assert r.status == 200 and r.headers["x-warren-cache"] == "miss"
    assert 256 * 1024 <= len(r.body) < 320 * 1024, len(r.body)  # cut after one frame
    fr = json.loads(r.body)
    assert fr["truncated"] is True and fr["bytes"] < 2 * MIB
    frames = fr["frames"]  # still whole: numbered, on time, a keyframe at the end
    assert [f[0] for f in frames] == list(range(len(frames))) and len(frames[-1]) == 4
    assert [f[1] for f in frames] == sorted(f[1] for f in frames)
    # ... that shows what the recorded bytes drew up to the cut
    drawn = recordings.flood_output(fr["bytes"]).decode()
    assert render(80, 24, frames[-1][3]) == render(80, 24, drawn)
    again = web.get(f"/api/hosted/{big}/replay")
    assert again.headers["x-warren-cache"] == "hit" and again.body == r.body
    zipped = web.get(f"/api/hosted/{big}/replay", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.headers["x-warren-cache"] == "hit"
    assert gzip.decompress(zipped.body) == r.body and len(zipped.body) < len(r.body) / 4

    header, events = cast_of(web, big)
    assert header["version"] == 2
    last = events[-1]
    assert last[1] == "o" and "truncated" in last[2] and "replay-max" in last[2]
    cast = web.get(f"/hosted/{big}.cast")
    assert 256 * 1024 <= len(cast.body) < 300 * 1024 and cast.headers["x-warren-cache"] == "hit"
    assert web.request("HEAD", f"/hosted/{big}.cast").status == 200

    fr = web.json(f"/api/hosted/{small}/replay")[1]
    assert fr["truncated"] is False and fr["bytes"] == 20000
    _, events = cast_of(web, small)
    assert not any("truncated" in e[2] for e in events)
    # a live recording grows: its next size is a body of its own
    more = flood(5000, start_ms=60000)[0]
    recordings.add_chunk(d, small, more, 5000)
    r = web.get(f"/api/hosted/{small}/replay")
    assert r.headers["x-warren-cache"] == "miss" and json.loads(r.body)["bytes"] == 25000
    assert web.get(f"/api/hosted/{small}/replay").headers["x-warren-cache"] == "hit"
    d.wait_log(rf"replay built: hosted frames {big}, \d+ bytes \(cut at replay-max\)")
    # the browser player says where it stops, showing the last frame's screen
    r, out = browser_script("replay_end.mjs", f"http://127.0.0.1:{d.http}/hosted/{big}/replay",
                            ARTIFACTS)
    assert r.returncode == 0 and out["loadError"] is None, out
    assert out["frames"] == len(frames) and "truncated" in out["status"], out["status"]
    assert [ln.rstrip() for ln in out["last"]] == [ln.rstrip() for ln in render(80, 24, drawn)]


def test_warren_replay_cut_at_replay_max_then_cached(start_daemon):
    d = start_daemon(http=True, extra=["--replay-max", "4K"])
    gid, _, _ = play_game(d, unique_name("wr"), keys="." * 60)
    web = Web(d.http)
    r = web.get(f"/api/game/{gid}/replay")
    assert r.status == 200 and r.headers["x-warren-cache"] == "miss"
    fr = json.loads(r.body)
    keys = len(b"".join(k for (k,) in d.db_rows("SELECT keys FROM journal WHERE game = ?", gid)))
    assert fr["truncated"] is True and len(fr["frames"]) < keys  # cut before the end
    assert 4096 <= len(r.body) < 4096 + 8192
    assert web.get(f"/api/game/{gid}/replay").body == r.body
    cast = web.get(f"/game/{gid}.cast", headers={"Accept-Encoding": "gzip"})
    assert cast.status == 200 and cast.headers["x-warren-cache"] == "miss"
    lines = gzip.decompress(cast.body).decode().splitlines()
    last = json.loads(lines[-1])
    assert last[1] == "o" and "truncated" in last[2]
    assert web.get(f"/game/{gid}.cast").headers["x-warren-cache"] == "hit"


def test_busy_builds_get_503_with_retry_after_and_memory_stays_small(release):
    """24 requests for 12 big recordings at once: one build at a time for
    hosted games, two waiting, the rest 503 with Retry-After; the daemon
    never holds a whole body (each about 10 MB). Each request comes from an
    address of its own (through a trusted proxy): one address alone may
    start only 2 builds."""
    d = release("--replay-builds", "2", "--replay-queue", "2", "--trust-proxy", "127.0.0.1")
    _, uid = recorder(d)
    ids = recordings.insert(d, uid, flood(8 * MIB), 8 * MIB, copies=12)
    before = peak_rss_mb(d)
    web = Web(d.http, timeout=120)
    got = {}

    def get(path, n):
        got[path] = web.get(path, headers={"X-Forwarded-For": f"10.0.0.{n}"})
    paths = [p for i in ids for p in (f"/api/hosted/{i}/replay", f"/hosted/{i}.cast")]
    threads = [threading.Thread(target=get, args=(p, n)) for n, p in enumerate(paths)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = [got[p].status for p in paths]
    assert set(codes) == {200, 503} and codes.count(200) >= 3, codes
    for p in paths:
        r = got[p]
        if r.status == 503:
            assert r.headers["retry-after"] == "5", r.headers
        else:
            assert len(r.body) > 10 * 10 ** 6, (p, len(r.body))  # whole: about 10 MB each
    assert peak_rss_mb(d) - before < 40, (before, peak_rss_mb(d))
    refused = [p for p in paths if got[p].status == 503][:2]
    for p in refused:  # asked again later: answered
        assert web.get(p).status == 200


def test_abandoned_requests_cost_nothing(release):
    """40 requests for 40 big recordings, each client gone at once: a small
    replay and a login asked right after are answered, and none of the 40
    is built (each would take a second of CPU)."""
    d = release()
    name, uid = recorder(d)
    ids = recordings.insert(d, uid, flood(8 * MIB), 8 * MIB, copies=40)
    [small] = recordings.insert(d, uid, flood(20000), 20000)
    for i in ids:
        s = socket.create_connection(("127.0.0.1", d.http))
        s.sendall(f"GET /api/hosted/{i}/replay HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        s.close()
    web = Web(d.http)
    r = web.get(f"/api/hosted/{small}/replay")
    assert r.status == 200 and json.loads(r.body)["bytes"] == 20000
    login = web.post("/login", {"name": name, "password": PW})
    assert login.status == 303 and login.session
    time.sleep(1)  # a build the 40 started would have logged by now
    built = re.findall(r"replay built: hosted frames (\d+)", d.log())
    assert built == [str(small)], built


def test_slow_readers_cannot_hold_bodies_past_the_cache(start_daemon):
    """A body the cache does not keep lives while its client reads it: a
    client that reads nothing holds it. Past replay-cache bytes so held,
    another recording's replay is not built but answered 503 with
    Retry-After; one in the cache is still served; once the slow client
    goes, replays are built again."""
    d = start_daemon(http=True, extra=["--replay-cache", "64K", "--replay-max", "16M"])
    _, uid = recorder(d)
    slow_id, other, cached = (recordings.insert(d, uid, flood(n), n)[0]
                              for n in (4 * MIB, 30000, 20000))
    web = Web(d.http)
    assert web.get(f"/api/hosted/{cached}/replay").headers["x-warren-cache"] == "miss"
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", d.http))
    slow.sendall(f"GET /api/hosted/{slow_id}/replay HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    slow.settimeout(60)
    assert slow.recv(64).startswith(b"HTTP/1.1 200")  # built; the client reads no more
    r = web.get(f"/api/hosted/{other}/replay")
    assert r.status == 503 and r.headers["retry-after"] == "5", (r.status, r.body[:200])
    assert b"sending many replays" in r.body
    assert web.get(f"/api/hosted/{cached}/replay").headers["x-warren-cache"] == "hit"
    assert "new builds answered 503" in d.log()
    slow.close()
    deadline = time.time() + 10
    while (r := web.get(f"/api/hosted/{other}/replay")).status == 503 and time.time() < deadline:
        time.sleep(0.2)
    assert r.status == 200 and json.loads(r.body)["bytes"] == 30000


def slow_reader(d, path, headers=""):
    """A client that asks for path, reads the status line and no more."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", d.http))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
    s.settimeout(60)
    return s, s.recv(12)


def test_one_address_is_sent_a_few_bodies_at_once(start_daemon):
    """One address is sent at most 16 replay bodies at once, however
    slowly it reads them: the 17th gets 503 with Retry-After, another
    address (through a trusted proxy) is served meanwhile, and once one of
    the 16 is closed the first address is served again."""
    d = start_daemon(http=True, extra=["--trust-proxy", "127.0.0.1"])
    _, uid = recorder(d)
    [big] = recordings.insert(d, uid, flood(4 * MIB), 4 * MIB)
    [small] = recordings.insert(d, uid, flood(20000), 20000)
    path = f"/api/hosted/{big}/replay"
    held = [slow_reader(d, path) for _ in range(16)]
    assert all(got == b"HTTP/1.1 200" for _, got in held), [got for _, got in held]
    web = Web(d.http)
    r = web.get(f"/api/hosted/{small}/replay")
    assert r.status == 503 and r.headers["retry-after"] == "5", (r.status, r.body[:200])
    assert b"being sent 16 replays already" in r.body
    other = web.get(f"/api/hosted/{small}/replay", headers={"X-Forwarded-For": "10.9.8.7"})
    assert other.status == 200 and json.loads(other.body)["bytes"] == 20000
    held.pop()[0].close()
    deadline = time.time() + 10
    while (r := web.get(f"/api/hosted/{small}/replay")).status == 503 and time.time() < deadline:
        time.sleep(0.2)
    assert r.status == 200 and json.loads(r.body)["bytes"] == 20000
    for s, _ in held:
        s.close()


def test_one_address_starts_a_few_builds_at_once(release):
    """A live recording asked for again and again, each new size a build
    of its own: one address has at most 2 builds running or waiting; the
    third gets 503 with Retry-After and says why, another address (through
    a trusted proxy) is served meanwhile, and once one of the two is done
    the first address is served again."""
    d = release("--trust-proxy", "127.0.0.1")
    _, uid = recorder(d)
    [live] = recordings.insert(d, uid, flood(8 * MIB), 8 * MIB, ended=False)
    [small] = recordings.insert(d, uid, flood(20000), 20000)
    # others' builds first, a second or so each: the first address's wait behind them
    others = []
    for n, i in enumerate(recordings.insert(d, uid, flood(8 * MIB), 8 * MIB, copies=3)):
        s = socket.create_connection(("127.0.0.1", d.http))
        s.sendall(f"GET /api/hosted/{i}/replay HTTP/1.1\r\nHost: x\r\n"
                  f"X-Forwarded-For: 10.1.0.{n}\r\n\r\n".encode())
        others.append(s)
    path = f"/api/hosted/{live}/replay"
    asked = []
    for i in range(2):  # each asked at a new size (a build takes about a second)
        s = socket.create_connection(("127.0.0.1", d.http))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        asked.append(s)
        time.sleep(0.3)
        recordings.add_chunk(d, live, flood(1000, start_ms=300000 + i * 1000)[0], 1000)
    web = Web(d.http, timeout=120)
    r = web.get(path)
    assert r.status == 503 and r.headers["retry-after"] == "5", (r.status, r.body[:200])
    assert b"has 2 replays being built already" in r.body
    other = web.get(f"/api/hosted/{small}/replay", headers={"X-Forwarded-For": "10.9.8.7"})
    assert other.status == 200 and json.loads(other.body)["bytes"] == 20000
    for s in asked:  # both built, each its own size
        s.settimeout(120)
        assert read_all(s).startswith(b"HTTP/1.1 200")
    r = web.get(path)
    assert r.status == 200 and json.loads(r.body)["bytes"] == 8 * MIB + 2000
    built = re.findall(rf"replay built: hosted frames {live}, ", d.log())
    assert len(built) == 3, d.log()[-2000:]
    for s in others:
        s.close()
