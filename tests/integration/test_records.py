"""Score pages, the JSON API, replays, verification and the asciicast
export, against the real daemon: a game is played and ended over Debian's
telnet, then every page is read over HTTP and checked against the SQLite
file and against an independent replay of the same keys
(bin/tools/server_replay). The browser replay runs in Debian's Chromium
(tests/web/replay.mjs)."""
import gzip
import html
import json
import re
import socket
import subprocess
import time

import pyte
import pytest

from harness import (ARTIFACTS, Telnet, Web, browser_script, new_game, png_pixels, raw, read_all,
                     replay, status_of)

# waits and moves: enough turns for several replay keyframes (every 50 turns)
KEYS = ("." * 30 + "hjkl" + "." * 30 + "yubn" + "." * 30 + "lkjh")
pytestmark = pytest.mark.daemon(http=True)


def play_game(daemon, name, keys=KEYS, seen=None, pauses=None):
    """Registers name over telnet, plays keys, quits the game. Returns
    (game id, seed, end kind). When the game is quit, seen (a dict) gets
    "before_y": the telnet player's screen just before the last key, and
    "sent": every key typed (a --More-- left by the keys is paged first).
    pauses: {key index: seconds to wait before sending that key}; seen then
    gets "at": {key index: time.monotonic() when it was sent}."""
    pauses = pauses or {}
    starts = sorted(set(range(0, len(keys), 8)) | set(pauses))
    t = Telnet(daemon.port)
    try:
        gid, seed = new_game(daemon, t.connected(), name, turns=True)  # as replays draw
        at = {}
        for i, j in zip(starts, starts[1:] + [len(keys)]):
            time.sleep(pauses.get(i, 0))
            at[i] = time.monotonic()
            t.send(keys[i:j], settle=False)
            t.pump(quiet=0.05, limit=2)
            if f"game end user={name}" in daemon.unread():
                break
        sent = keys
        if f"game end user={name}" not in daemon.unread():
            for _ in range(10):  # Q only pages a waiting --More--
                if "--More--" not in t.text():
                    break
                t.send(" ")
                sent += " "
            sent += "Qy"
            t.send("Q")
            t.pump(quiet=0.3)
            if seen is not None:
                seen["before_y"] = t.lines()
            t.send("y")
        if seen is not None:
            seen["sent"] = sent
            seen["at"] = at
        m = daemon.wait_log(rf"game end user={name} game={gid} kind=(\w+)")
        t.wait_for("Game over")
        return gid, seed, m.group(1)
    finally:
        t.close()


def journal_bytes(daemon, gid):
    rows = daemon.db_rows("SELECT seq, keys FROM journal WHERE game = ? ORDER BY seq", gid)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    return b"".join(r[1] for r in rows)


def feed_screen(chunks, w=80, h=24):
    s = pyte.Screen(w, h)
    st = pyte.ByteStream(s)
    for c in chunks:
        st.feed(c.encode("utf-8"))
    return [ln.rstrip() for ln in s.display]


def game_row(daemon, gid):
    cols = ("turns", "depth", "max_depth", "xl", "score", "cause", "end_kind", "verified",
            "race", "class", "seed")
    r = daemon.db_rows(f"SELECT {', '.join(cols)} FROM games WHERE id = ?", gid)[0]
    return dict(zip(cols, r))


def play_long_game(daemon, name, seen=None, pauses=None, need=20, keys=KEYS):
    """play_game, but a character killed within its first need keys (about
    one seed in fifty lets a monster kill a character that only waits) is
    played again on a fresh database, so the pages show exactly one long
    game."""
    seen = {} if seen is None else seen
    for _ in range(5):
        seen.clear()
        gid, seed, kind = play_game(daemon, name, keys, seen=seen, pauses=pauses)
        daemon.wait_log(rf"verify game={gid} ok")
        if len(journal_bytes(daemon, gid)) > need:
            return gid, seed, kind
        with daemon.stopped():
            daemon.db_remove()  # anew on purpose
    raise AssertionError(f"every character died within {need} keys")


def test_game_pages_api_dump_cast_and_verification(daemon, bindir, tmp_path):
    seen = {}
    gid, seed, kind = play_long_game(daemon, "rita", seen)
    web = Web(daemon.http)
    row = game_row(daemon, gid)
    assert row["verified"] == 1 and row["end_kind"] == kind
    # the character is made after the game row: its race and class still land
    assert row["race"] in ("human", "dwarf", "elf", "halfling"), row
    assert row["class"] in ("fighter", "rogue", "wizard", "cleric"), row
    keys = journal_bytes(daemon, gid)
    assert seen["sent"].encode().startswith(keys) and len(keys) > 20
    final, final_hash = replay(bindir, tmp_path, seed, "rita", keys, turns=True)

    # ---- the game: JSON against the database
    st, g = web.json(f"/api/game/{gid}")
    assert st == 200
    game = g["game"]
    for k in ("turns", "depth", "max_depth", "xl", "score", "cause", "end_kind", "race"):
        assert game[k] == row[k], k
    assert game["class"] == row["class"] and game["seed"] == str(seed)
    assert game["player"] == "rita" and game["state"] == "finished"
    assert game["verified"] == "verified"
    ms = daemon.db_rows("SELECT turn, depth, kind, text FROM milestones WHERE game = ? ORDER BY rowid", gid)
    assert ms and [(m["turn"], m["depth"], m["kind"], m["text"]) for m in g["milestones"]] == ms
    dump = daemon.db_rows("SELECT text FROM dumps WHERE game = ?", gid)[0][0]
    assert g["dump"] == dump and "rita" in dump
    assert g["links"]["cast"] == f"/game/{gid}.cast"

    # ---- the game page (HTML) shows the same
    st, page = web.html(f"/game/{gid}")
    assert st == 200
    assert f'<td class="score">{row["score"]}</td>' in page
    assert f'<td class="turns">{row["turns"]}</td>' in page
    assert 'class="verified"' in page and f'href="/game/{gid}/replay"' in page
    assert "<pre class=\"dump\">" in page and dump.splitlines()[0].replace("&", "&amp;") in page
    assert all(m[3].replace("&", "&amp;").replace("<", "&lt;") in page for m in ms)
    # the surface world of the game's seed: what warren-engine world prints
    world = subprocess.run([f"{bindir}/warren-engine", "world", "--seed", str(seed)], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    assert re.fullmatch(r"world seed \d+ territories \d+ rivers \d+ towns \d+", world[-1])
    shown = re.search(r'<h3>The world</h3>\n<pre class="world">(.*?)</pre>', page, re.S)
    assert shown and html.unescape(shown.group(1)) == "\n".join(world[:-1]) + "\n"
    assert "@" in shown.group(1) and "Your town: Burrowmouth" in shown.group(1)

    # ---- the dump as text
    st, headers, body = web.get(f"/game/{gid}/dump")
    assert st == 200 and headers["content-type"].startswith("text/plain")
    assert body.decode("utf-8") == dump

    # ---- scores and player pages
    st, s = web.json("/api/scores")
    assert st == 200 and s["filter"] == {"race": "", "class": "", "period": "all"}
    assert s["scores"][0]["rank"] == 1 and s["scores"][0]["game"]["id"] == gid
    assert s["scores"][0]["game"]["score"] == row["score"]
    st, s = web.json(f"/api/scores?race={row['race'].upper()}&class={row['class']}&period=day")
    assert st == 200 and [e["game"]["id"] for e in s["scores"]] == [gid]
    st, s = web.json("/api/scores?race=zzz")
    assert st == 200 and s["scores"] == []
    st, page = web.html("/scores?period=week")
    assert st == 200 and 'href="/player/rita"' in page and f'href="/game/{gid}"' in page
    assert f'<td class="score">{row["score"]}</td>' in page and "<option selected>week</option>" in page
    st, p = web.json("/api/player/RITA")
    assert st == 200 and p["name"] == "rita"
    t = p["totals"]
    assert (t["games"], t["finished"], t["live"], t["verified"], t["mismatched"]) == (1, 1, 0, 1, 0)
    assert t["best_game"] == gid and t["best_score"] == row["score"] and t["turns"] == row["turns"]
    assert [x["id"] for x in p["games"]] == [gid]
    st, page = web.html("/player/rita")
    assert st == 200 and '<h2 class="name">rita</h2>' in page and f'href="/game/{gid}"' in page

    # ---- asciicast v2: the events drawn by a terminal emulator end on the game's last screen
    st, headers, body = web.get(f"/game/{gid}.cast")
    assert st == 200 and headers["content-type"] == "application/x-asciicast"
    lines = body.decode("utf-8").splitlines()
    head = json.loads(lines[0])
    assert head["version"] == 2 and (head["width"], head["height"]) == (80, 24)
    events = [json.loads(ln) for ln in lines[1:]]
    assert len(events) > 10 and all(e[1] == "o" for e in events)
    times = [e[0] for e in events]
    assert times == sorted(times) and times[0] == 0
    assert feed_screen(e[2] for e in events) == final
    (ARTIFACTS).mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "records-game.cast").write_bytes(body)

    # ---- the browser player's frames: one per key, keyframes to seek with
    st, fr = web.json(f"/api/game/{gid}/replay")
    assert st == 200 and (fr["w"], fr["h"]) == (80, 24)
    frames = fr["frames"]
    assert len(frames) == len(keys) + 1 and fr["keys"] == len(keys)
    assert fr["hash"] == final_hash and fr["turns"] == row["turns"]
    assert feed_screen(f[2] for f in frames) == final
    times = [f[1] for f in frames]  # playback times: from 0, never back, gaps capped
    assert times[0] == 0 and all(0 <= b - a <= fr["idle_ms"] for a, b in zip(times, times[1:]))
    if "before_y" in seen:  # what the real telnet player saw before the last key
        assert keys.endswith(b"Qy")
        assert feed_screen(f[2] for f in frames[:-1]) == seen["before_y"]
    kfs = [i for i, f in enumerate(frames) if len(f) == 4]
    assert kfs[0] == 0, kfs
    k = 0
    for i, f in enumerate(frames):  # a keyframe at least every 50 turns (or 100 keys)
        if len(f) == 4:
            k = i
        else:
            assert f[0] < frames[k][0] + fr["keyframe_turns"] and i < k + 100, (i, k)
    k = kfs[-1]
    target = min(k + 5, len(frames) - 1)
    seeked = feed_screen([frames[k][3]] + [f[2] for f in frames[k + 1:target + 1]])
    assert seeked == replay(bindir, tmp_path, seed, "rita", keys[:target], turns=True)[0]

    # ---- gzip: asked for, the same bytes come compressed; else plain
    sizes = {}
    for path in (f"/api/game/{gid}/replay", f"/game/{gid}.cast", f"/game/{gid}/dump", f"/game/{gid}",
                 f"/api/game/{gid}", "/scores", "/api/scores", "/player/rita", "/game/999999"):
        st, hp, plain = web.get(path)
        st2, hz, zipped = web.get(path, headers={"Accept-Encoding": "br, gzip;q=0.8"})
        st3, hn, refused = web.get(path, headers={"Accept-Encoding": "gzip;q=0, br"})
        assert st == st2 == st3 and (st == 200 or path == "/game/999999"), (path, st, st2)
        for h in (hp, hz, hn):
            assert h["vary"].lower() == "accept-encoding", (path, h)
            assert h["content-type"] == hp["content-type"]
        assert hp["content-encoding"] is None and hn["content-encoding"] is None and refused == plain
        if len(plain) >= 1024:  # smaller bodies are not worth it
            assert hz["content-encoding"] == "gzip", (path, hz)
            assert int(hz["content-length"]) == len(zipped) and gzip.decompress(zipped) == plain
        else:
            assert hz["content-encoding"] is None and zipped == plain, path
        sizes[path] = (len(plain), len(zipped))
    print("gzip sizes", sizes)
    frames_plain, frames_zipped = sizes[f"/api/game/{gid}/replay"]
    # sizes vary with the seed: about 4.9 to 8 times smaller seen
    assert frames_plain > 5000 and frames_zipped * 4 < frames_plain, sizes
    cast_plain, cast_zipped = sizes[f"/game/{gid}.cast"]
    assert cast_zipped * 3 < cast_plain, sizes


def cast_events(web, gid):
    st, headers, body = web.get(f"/game/{gid}.cast")
    assert st == 200 and headers["content-type"] == "application/x-asciicast"
    lines = body.decode("utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(ln) for ln in lines[1:]]


@pytest.mark.alone  # times itself
def test_key_times_reach_journal_cast_and_frames(daemon, bindir, tmp_path):
    """Keys typed with pauses of 0.5, 1.5 and 4 s: the journal keeps the
    gaps, the frames and the cast play them with the 4 s one capped at 2 s;
    rows without times (as written before they were kept) still replay
    evenly and verify."""
    seen = {}
    pauses = {1: 0.5, 2: 1.5, 3: 4.0}
    gid, seed, kind = play_long_game(daemon, "kit", seen, pauses, need=5, keys="....")
    assert kind == "quit"
    rows = daemon.db_rows("SELECT seq, ms FROM journal WHERE game = ? ORDER BY seq", gid)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)) and len(rows) >= 6
    ms = [r[1] for r in rows]
    assert all(m >= 0 for m in ms), ms
    at = seen["at"]
    for i in (1, 2, 3):  # the gap the daemon recorded is the gap the client left
        sent_gap = (at[i] - at[i - 1]) * 1000
        assert sent_gap >= pauses[i] * 1000
        assert abs(ms[i] - sent_gap) < 250, (i, ms[i], sent_gap)

    web = Web(daemon.http)
    st, fr = web.json(f"/api/game/{gid}/replay")
    assert st == 200 and fr["idle_ms"] == 2000 and len(fr["frames"]) == len(rows) + 1
    t = [f[1] for f in fr["frames"]]
    assert t[0] == 0 and t[1] == min(ms[0], 2000)
    # a slow machine can stretch the short pauses too: those are capped alike
    assert ms[3] > 2000 and t[4] - t[3] == 2000  # 4 s capped
    assert (t[2] - t[1], t[3] - t[2]) == (min(ms[1], 2000), min(ms[2], 2000))
    assert all(b - a == min(m, 2000) for a, b, m in zip(t, t[1:], ms))
    head, events = cast_events(web, gid)
    assert head["idle_time_limit"] == 2
    # one event per frame that draws something, at that frame's time
    assert [e[0] for e in events] == [f[1] / 1000 for f in fr["frames"] if f[2]]
    assert [e[0] for e in events][:5] == [x / 1000 for x in t[:5]]
    final, _ = replay(bindir, tmp_path, seed, "kit", journal_bytes(daemon, gid), turns=True)
    assert feed_screen(e[2] for e in events) == final

    # rows written before times were kept: even spacing, still verified
    with daemon.stopped():
        daemon.db_write(("UPDATE journal SET ms = -1 WHERE game = ?", (gid,)),
                        ("UPDATE games SET verified = 0 WHERE id = ?", (gid,)))
    daemon.wait_log(rf"verify game={gid} ok", 60)
    assert game_row(daemon, gid)["verified"] == 1
    st, fr2 = web.json(f"/api/game/{gid}/replay")
    assert st == 200 and [f[1] for f in fr2["frames"]] == [100 * i for i in range(len(rows) + 1)]
    assert [f[2:] for f in fr2["frames"]] == [f[2:] for f in fr["frames"]]  # the same screens
    head, events = cast_events(web, gid)
    assert [e[0] for e in events] == [round(0.2 * i, 3) for i, f in enumerate(fr2["frames"]) if f[2]]


def test_verification_flags_tampering_and_runs_after_restart(daemon, bindir, tmp_path):
    honest, _, _ = play_game(daemon, "sam")
    daemon.wait_log(rf"verify game={honest} ok")
    cheat, _, kind = play_game(daemon, "tom")
    daemon.wait_log(rf"verify game={cheat} ok")
    padded, _, _ = play_game(daemon, "uma")
    daemon.wait_log(rf"verify game={padded} ok")
    with daemon.stopped():
        # tom's journal is cut in the file: without the key that ended it (the
        # daemon journals nothing after the end) the replay does not end
        last = daemon.db_rows("SELECT max(seq) FROM journal WHERE game = ?", cheat)[0][0]
        # uma's score is raised in the file; sam's check is only forgotten
        daemon.db_write(
            ("DELETE FROM journal WHERE game = ? AND seq = ?", (cheat, last)),
            ("UPDATE games SET score = score + 1000 WHERE id = ?", (padded,)),
            ("UPDATE games SET verified = 0 WHERE id IN (?, ?, ?)", (honest, cheat, padded)))
    daemon.wait_log(r"verify backlog: 3 finished games to check")
    seen = {}
    for _ in range(3):
        m = daemon.wait_log(r"verify game=(\d+) (ok|mismatch)", 60)
        seen[int(m.group(1))] = m.group(2)
    assert seen == {honest: "ok", cheat: "mismatch", padded: "mismatch"}, daemon.log()[-2000:]
    assert re.search(rf"verify game={padded} mismatch: score \d+, replay \d+", daemon.log())
    assert f"verify game={cheat} mismatch: the replay does not end" in daemon.log()
    web = Web(daemon.http)
    assert web.json(f"/api/game/{honest}")[1]["game"]["verified"] == "verified"
    for gid in (cheat, padded):
        assert game_row(daemon, gid)["verified"] == -1
        assert web.json(f"/api/game/{gid}")[1]["game"]["verified"] == "mismatch"
        st, page = web.html(f"/game/{gid}")
        assert st == 200 and '<span class="mismatch"' in page
    st, page = web.html("/scores")
    assert page.count('<span class="mismatch"') == 2 and page.count('<span class="verified"') == 1
    assert web.json("/api/player/tom")[1]["totals"]["mismatched"] == 1


def test_html_injection_in_names_and_content_is_inert(daemon, bindir, tmp_path):
    gid, _, _ = play_game(daemon, "vic")
    daemon.wait_log(rf"verify game={gid}")
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>&amp;\'"'
    with daemon.stopped():
        daemon.db_write(
            ("UPDATE users SET name = ? WHERE name_key = 'vic'", (evil,)),
            ("UPDATE games SET cause = ?, race = 'el<b>f' WHERE id = ?", (evil, gid)),
            ("UPDATE milestones SET text = ? WHERE game = ?", (evil, gid)),
            ("UPDATE dumps SET text = ? WHERE game = ?", ("dump " + evil + "\x1b[31m\x07", gid)))
    web = Web(daemon.http)
    escaped = ("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
               "&amp;amp;&#39;&quot;")
    for path in (f"/game/{gid}", "/scores", f"/game/{gid}/replay"):
        st, page = web.html(path)
        assert st == 200, path
        assert "<script>alert" not in page and "<img src=x" not in page and "<b>f" not in page, path
        assert escaped in page, path
        assert "\x1b" not in page and "\x07" not in page
    # JSON carries the text exactly, as data
    st, g = web.json(f"/api/game/{gid}")
    # the daemon keeps names to 31 bytes (db.h DB_NAME_MAX)
    assert g["game"]["cause"] == evil and g["game"]["player"] == evil[:31]
    assert g["dump"] == "dump " + evil + "\x1b[31m\x07"
    assert all(m["text"] == evil for m in g["milestones"])
    st, s = web.json("/api/scores")
    assert s["scores"][0]["game"]["player"] == evil[:31]
    st, headers, body = web.get(f"/game/{gid}/dump")
    assert headers["content-type"].startswith("text/plain")
    assert headers.get("x-content-type-options") == "nosniff"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "records-injection.html").write_text(web.html(f"/game/{gid}")[1])


@pytest.mark.parametrize("path,status", [
    ("/game/abc", 400), ("/game/0", 400), ("/game/-1", 400), ("/game/01", 400),
    ("/game/1x", 400), ("/game/1234567890123456", 400), ("/game/999999", 404),
    ("/game/999999.cast", 404), ("/game/999999/replay", 404), ("/game/999999/dump", 404),
    ("/game/1/nope", 404), ("/game/1.txt", 404), ("/api/game/999999", 404),
    ("/api/game/999999/replay", 404), ("/api/game/x", 400),
    ("/player/x", 400), ("/player/a%3Cb%3E", 400), ("/player/" + "a" * 21, 400),
    ("/player/nobody", 404), ("/api/player/nobody", 404), ("/api/player/a.b", 400),
    ("/scores?period=forever", 400), ("/scores?race=%3Cb%3E", 400),
    ("/scores?class=" + "a" * 16, 400), ("/api/scores?race=elf%2F", 400),
    ("/scores?period=day&period=x", 400),
])
def test_bad_ids_names_and_filters_get_clean_errors(daemon, path, status):
    web = Web(daemon.http)
    st, headers, body = web.get(path)
    assert st == status, (path, st, body[:200])
    if path.startswith("/api/"):
        assert json.loads(body)["status"] == status
    else:
        assert headers["content-type"].startswith("text/html") and b"<h2>" in body
    assert web.get("/api/scores")[0] == 200


def test_abuse_keeps_the_daemon_serving(daemon):
    gid, _, _ = play_game(daemon, "wes")
    web = Web(daemon.http)
    # a live game has no replay, cast or dump yet
    t = Telnet(daemon.port)
    try:
        live, _ = new_game(daemon, t.connected(), "xia")
        for path in (f"/game/{live}/replay", f"/game/{live}.cast", f"/api/game/{live}/replay",
                     f"/game/{live}/dump"):
            assert web.get(path)[0] == 404, path
        st, g = web.json(f"/api/game/{live}")
        assert st == 200 and g["game"]["state"] == "live" and g["dump"] is None
    finally:
        t.close()
    odd = [
        b"GET /scores?" + b"race=a&" * 3000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /scores?" + b"%" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /scores?race=%ff%fe&class=%00 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /game/" + b"9" * 4000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /player/%2e%2e%2f%2e%2e%2fetc HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /game/1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /scores HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\na=b",
        b"GET /api/scores?" + b"&".join(b"k%d=v" % i for i in range(200)) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    ]
    for req in odd:
        st = status_of(raw(daemon.http, req, timeout=10))
        # 0: libwebsockets dropped the connection (it does for NUL bytes in a URL)
        assert st in (0, 400, 403, 404, 405, 414, 431), (req[:60], st)
        assert web.get(f"/api/game/{gid}")[0] == 200
    # many requests for the replay work at once: answered or refused, never stuck
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(8) as ex:
        got = list(ex.map(lambda _: web.get(f"/api/game/{gid}/replay")[0], range(16)))
    assert set(got) <= {200, 503} and 200 in got
    # a burst past the waiting limit (replay-queue; one build serves them all): every
    # request gets an answer, 200 or a clean 503
    socks = []
    for _ in range(150):
        s = socket.create_connection(("127.0.0.1", daemon.http), timeout=60)
        s.sendall(f"GET /game/{gid}.cast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        socks.append(s)
    codes = [int(read_all(s)[9:12]) for s in socks]
    assert set(codes) <= {200, 503} and codes.count(200) >= 2, codes
    st, s = web.json("/api/scores")
    assert st == 200 and s["scores"][0]["game"]["id"] == gid
    t = Telnet(daemon.port)
    try:
        t.connected()  # telnet still answers too
    finally:
        t.close()


def test_browser_replay_plays_to_the_last_screen_and_seeks(daemon, bindir, tmp_path):
    gid, seed, _ = play_long_game(daemon, "yan", pauses={40: 1.5}, need=41)
    keys = journal_bytes(daemon, gid)
    # the frame of key 40 comes 1.5 s (and a little) after the one before
    fr = Web(daemon.http).json(f"/api/game/{gid}/replay")[1]["frames"]
    gap = fr[41][1] - fr[40][1]
    assert 1500 <= gap <= 2000, gap
    final, _ = replay(bindir, tmp_path, seed, "yan", keys, turns=True)
    first, _ = replay(bindir, tmp_path, seed, "yan", b"", turns=True)
    seek = max(1, len(keys) // 2)
    at_seek, _ = replay(bindir, tmp_path, seed, "yan", keys[:seek], turns=True)
    # markup in the stored cause must reach the browser as text
    evil = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    with daemon.stopped():
        daemon.db_write(("UPDATE games SET cause = ? WHERE id = ?", (evil, gid)))
    r, out = browser_script("replay.mjs", f"http://127.0.0.1:{daemon.http}", gid, seek, ARTIFACTS,
                            "41", timeout=240)
    assert r.returncode == 0 and not out["errors"], (out["errors"], out.get("stuck"))
    assert out["loadError"] is None and out["size"] == [80, 24]
    assert out["frames"] == len(keys) + 1
    assert [ln.rstrip() for ln in out["first"]] == first
    assert out["pauseHeld"]
    # at 1x the player waits out the recorded gap before frame 41 (and not much more)
    assert out["gapPos"] == 40 and out["gapMs"] >= gap * 0.9 and out["gapMs"] < gap + 1500, (out, gap)
    # the replay's last frame is the game's last screen
    assert out["endPos"] == len(keys) and out["status"] == "end of game"
    assert [ln.rstrip() for ln in out["last"]] == final
    assert out["seekPos"] == seek and out["posText"].startswith(f"frame {seek} /")
    assert [ln.rstrip() for ln in out["seek"]] == at_seek
    assert [ln.rstrip() for ln in out["back"]] == first
    assert out["gameScripts"] == 0 and out["gameCause"] == evil and out["gameName"] == "yan"
    # the terminal really painted (not only its buffer)
    px = png_pixels(ARTIFACTS / "replay-end-term.png")
    lit = sum(1 for row in px for (r_, g, b) in row if max(r_, g, b) > 120)
    assert lit > 500, "the replay screenshot is blank"


def test_phone_pages_fit_the_screen(daemon):
    """On a phone (390 px wide) the pages with wide tables scroll the table,
    not the page, and a replay's 80x24 screen is drawn whole inside the
    window (not at a desktop font, cut off on both sides)."""
    gid, _, _ = play_game(daemon, "pia", keys="." * 20)
    r, out = browser_script("narrow.mjs", f"http://127.0.0.1:{daemon.http}", gid, "pia", ARTIFACTS)
    assert r.returncode == 0 and not out["errors"], out["errors"]
    assert all(w <= 390 for w in out["widths"].values()), out["widths"]
    box = out["replayBox"]
    assert box["left"] >= 0 and box["right"] <= box["width"] + 0.5, box
    assert box["top"] >= 0 and box["bottom"] <= box["height"] + 0.5, box
    assert box["right"] - box["left"] > 300, box  # still fills the width, not a speck
