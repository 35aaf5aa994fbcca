"""Hosted games' recordings with the real daemon: NetHack's output is
recorded as it is played, kept across a SIGKILL of warrend, served as an
asciicast and as the browser player's frames, linked from the score and
player pages; a flood past record-max is cut and marked truncated. The
cast draws what the terminal showed, so a program's own sequences (its
titles, clipboard writes, device strings, 8-bit controls, mode switches,
report requests) never reach whoever plays it in a real terminal."""
import json
import os
import re
import time
import zlib

import pyte

from harness import LEAVE, Screen, Web, unique_name
from test_hosted import (NETHACK, answer_until, kill_and_come_back,  # noqa: F401 (fixture)
                         nethack, new_player, start_hosted, start_nethack, toy_copy, toy_key)

if not NETHACK.exists():  # a missing game fails the run: these tests are never skipped
    raise RuntimeError(f"{NETHACK} missing: run make deps (it installs nethack-console)")

NOTE = ("Recorded, not verified by replay: this game ran as its own program, outside Warren's "
        "engine.")


def recordings(d, name):
    return d.db_rows("SELECT h.id, h.game, h.end_time, h.width, h.height, h.bytes, h.truncated, "
                     "h.score FROM hosted_games h JOIN users u ON u.id = h.user "
                     "WHERE u.name = ? ORDER BY h.id", name)


def wait_chunks(d, rid, at_least=1, timeout=10):
    end = time.time() + timeout
    while True:
        seqs = [r[0] for r in d.db_rows("SELECT seq FROM hosted_chunks WHERE game = ? "
                                        "ORDER BY seq", rid)]
        if len(seqs) >= at_least or time.time() > end:
            return seqs
        time.sleep(0.1)


def cast_of(web, rid):
    """The asciicast: (header, events), each line checked as JSON."""
    r = web.get(f"/hosted/{rid}.cast")
    assert r.status == 200 and r.headers["Content-Type"] == "application/x-asciicast", r.status
    lines = r.body.decode("utf-8").splitlines()
    header, events = json.loads(lines[0]), [json.loads(ln) for ln in lines[1:]]
    times = [e[0] for e in events]
    assert times == sorted(times) and all(e[1] in ("o", "r") for e in events)
    return header, events


# What the encoder writes, and nothing else: CSI with digits and ';' ending
# in a cursor move, erase, insert/delete, REP, SGR or scrolling region; the
# cursor shown or hidden; synchronized output; the charsets; IND and RI.
ENCODER_SEQ = re.compile(r"\x1b(\[[0-9;]*[@ABCDGHJKPbmr]|\[\?(25|2026)[hl]|\([B0]|[DM])")
CLEARED = "\x1b(B\x1b[m\x1b[H\x1b[2J"  # a keyframe's start: the screen cleared


def check_drawn(events):
    """Every "o" event is the encoder's drawing (text, SGR, cursor and
    erase sequences; BS, CR and LF), the first from a cleared screen."""
    outs = [e[2] for e in events if e[1] == "o"]
    assert outs and outs[0].startswith(CLEARED), outs[:1]
    for o in outs:
        rest = ENCODER_SEQ.sub("", o)
        bad = [c for c in rest if (ord(c) < 0x20 and c not in "\b\r\n") or 0x7F <= ord(c) < 0xA0]
        assert not bad, (bad, o)


def cast_screens(header, events):
    """The cast played in a terminal as asciinema plays it: the screen's
    rows after each "o" event (a resize on each "r")."""
    screen = Screen(header["width"], header["height"])
    stream, seen = pyte.Stream(screen), []
    for _, kind, data in events:
        if kind == "r":
            w, h = (int(n) for n in data.split("x"))
            screen.resize(h, w)
        else:
            stream.feed(data)
            seen.append(list(screen.display))
    return seen


def first_showing(screens, *texts):
    """The first of screens that shows one of texts."""
    return next(i for i, rows in enumerate(screens) if any(t in r for t in texts for r in rows))


def render(w, h, data):
    screen = pyte.Screen(w, h)
    pyte.Stream(screen).feed(data)
    return screen.display


def check_frames(fr):
    """Seeking agrees with playing: the last keyframe with the diffs after
    it draws what every diff from frame 0 draws. Returns that screen."""
    frames = fr["frames"]
    assert frames and len(frames[0]) == 4 and len(frames[-1]) == 4  # keyframes at both ends
    assert [f[0] for f in frames] == list(range(len(frames)))
    ms = [f[1] for f in frames]
    assert ms == sorted(ms) and all(b - a <= fr["idle_ms"] for a, b in zip(ms, ms[1:]))
    k = max(i for i, f in enumerate(frames) if len(f) == 4)
    played = render(fr["w"], fr["h"], "".join(f[2] for f in frames))
    seeked = render(fr["w"], fr["h"], frames[k][3] + "".join(f[2] for f in frames[k + 1:]))
    assert played == seeked
    return played


def test_recorded_game_pages(nethack, clients):
    """A game played and quit: its recording's page, cast and frames, linked
    from its score row on /scores/ID and the player's page."""
    d, _ = nethack
    t = clients(d.port)
    name = unique_name("rec")
    start_nethack(t, name)
    t.play_keys("s" * 3)
    web = Web(d.http)
    [(rid, game, end, w, h, _, trunc, score)] = recordings(d, name)
    assert (game, end, w, h, trunc, score) == ("nethack", 0, 80, 24, 0, None)
    # while it is played, the frames already show it (chunks every 2 s)
    assert wait_chunks(d, rid) == [1]
    status, fr = web.json(f"/api/hosted/{rid}/replay")
    assert status == 200 and (fr["w"], fr["h"]) == (80, 24)
    assert any("Dlvl:1" in ln for ln in check_frames(fr))
    assert any("Dlvl:1" in ln for ln in render(80, 24, fr["frames"][-1][3]))  # the last keyframe
    t.play_keys("\x1b#quit\r")
    t.wait_for("Really quit?")
    t.send("y")
    answer_until(t, "is over")
    d.wait_log(rf"game end user={name} game=nethack kind=xlog")
    end = time.time() + 10
    while not recordings(d, name)[0][7] and time.time() < end:
        time.sleep(0.1)
    [(_, _, end_time, _, _, nbytes, trunc, score)] = recordings(d, name)
    assert end_time > 0 and score and trunc == 0 and nbytes > 1000
    assert d.db_rows("SELECT u.name FROM hosted_scores s JOIN users u ON u.id = s.user "
                     "WHERE s.id = ?", score) == [(name,)]

    header, events = cast_of(web, rid)
    assert header["version"] == 2 and (header["width"], header["height"]) == (80, 24)
    assert header["idle_time_limit"] == 2.0 and "not verified" in header["title"]
    assert events[0][1:] == ["r", "80x24"]
    check_drawn(events)
    screens = cast_screens(header, events)  # the game in order: its start, the map, the end
    assert (first_showing(screens, "Shall I pick") < first_showing(screens, "Dlvl:1")
            < first_showing(screens, "Really quit?"))

    status, fr = web.json(f"/api/hosted/{rid}/replay")
    assert status == 200 and fr["bytes"] == nbytes and fr["idle_ms"] == 2000
    assert check_frames(fr) == screens[-1]  # the cast ends on the browser player's screen
    screen = pyte.Screen(80, 24)
    stream, seen = pyte.Stream(screen), []
    for f in fr["frames"]:  # played frame by frame: the map, then the question
        stream.feed(f[2])
        seen.append("\n".join(screen.display))
    first = next(i for i, s in enumerate(seen) if "Dlvl:1" in s)
    assert any("Really quit?" in s for s in seen[first:])

    status, page = web.html(f"/hosted/{rid}")
    assert status == 200 and NOTE.replace("'", "&#39;") in page or NOTE in page
    assert f'href="/hosted/{rid}/replay"' in page and f'href="/hosted/{rid}.cast"' in page
    assert f'href="/player/{name}"' in page and "NetHack 3.6.6" in page and "truncated" not in page
    status, j = web.json(f"/api/hosted/{rid}")
    assert status == 200 and j["note"] == NOTE and j["recording"]["verified"] is False
    assert j["recording"]["player"] == name and j["recording"]["bytes"] == nbytes
    assert j["score"]["name"] == name and j["score"]["recording"] == rid
    assert j["links"]["cast"] == f"/hosted/{rid}.cast"
    status, page = web.html(f"/hosted/{rid}/replay")
    assert status == 200 and f'data-frames="/api/hosted/{rid}/replay"' in page
    assert f'href="/hosted/{rid}.cast"' in page
    for path in (f"/player/{name}", "/scores/nethack"):
        status, page = web.html(path)
        assert status == 200 and f'href="/hosted/{rid}"' in page, path
    status, j = web.json(f"/api/player/{name}")
    assert [r["recording"] for r in j["hosted"]] == [rid]


def test_recording_survives_sigkill(nethack, clients):
    """warrend SIGKILLed mid-game: NetHack hangup-saves; back after the
    restart, the same row goes on and holds both runs in order."""
    d, pg = nethack
    t = clients(d.port)
    name = unique_name("rk")
    start_nethack(t, name)
    t.play_keys("s" * 3)
    [(rid, *_)] = recordings(d, name)
    assert wait_chunks(d, rid) == [1]
    t = kill_and_come_back(d, pg, clients, name)
    t.send(LEAVE)  # a save point: the recording is written
    t.wait_for("Your choice")
    d.wait_log(rf"recording {rid} user=\d+ game=nethack goes on")
    assert [r[0] for r in recordings(d, name)] == [rid]
    seqs = wait_chunks(d, rid, 2)
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= 2
    ms = [r[0] for r in d.db_rows("SELECT ms FROM hosted_chunks WHERE game = ? ORDER BY seq", rid)]
    assert ms == sorted(ms)
    header, events = cast_of(Web(d.http), rid)
    check_drawn(events)
    screens = cast_screens(header, events)
    again = first_showing(screens, "welcome back", "Restoring")
    assert first_showing(screens, "Shall I pick") < again
    assert [e[2] for e in events if e[1] == "r"] == ["80x24", "80x24"]  # each run's size


def test_record_max_truncates(bindir, tmp_path, clients):
    """A flood past record-max: the row is marked truncated, the page says
    so, and the daemon and its other players carry on."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, "record-max = 4K\n"
                     f"[game flood]\ncommand = {toy} flood\nhangup-timeout = 1\n", http=True)
    try:
        other, _ = new_player(d, clients, "ok")
        # a flood is never quiet: no settling
        t, name = new_player(d, clients, "fl", "1", settle=False)
        t.wait_for("flood")
        d.wait_log(rf"recording user=\d+ game=flood: record-max reached at \d+ bytes")
        other.send("w")
        other.wait_for("Live games", timeout=5)
        other.send("q")
        other.wait_for("Your choice", timeout=5)
        t.send(LEAVE)
        t.wait_for("Your choice", timeout=10)
        end = time.time() + 10
        while not recordings(d, name)[0][6] and time.time() < end:
            time.sleep(0.1)
        [(rid, _, _, _, _, nbytes, trunc, _)] = recordings(d, name)
        assert trunc == 1 and nbytes == 4096  # filled up to the cap
        web = Web(d.http)
        status, page = web.html(f"/hosted/{rid}")
        assert status == 200 and "truncated" in page and f"{nbytes} bytes" in page
        assert web.json(f"/api/hosted/{rid}")[1]["recording"]["truncated"] is True
        header, events = cast_of(web, rid)
        check_drawn(events)
        screens = cast_screens(header, events)
        assert any(r.startswith("flood 0000000000") for r in screens[-1])  # its last lines
        status, fr = web.json(f"/api/hosted/{rid}/replay")
        assert status == 200 and fr["bytes"] == nbytes
        assert check_frames(fr) == screens[-1]
        chunks = wait_chunks(d, rid)
        d.kill()  # the same game after a restart goes on in the row: still cut
        d.start()
        t = clients(d.port)
        t.login(name)
        t.send("1", settle=False)
        t.wait_for("flood")
        d.wait_log(rf"recording {rid} user=\d+ game=flood goes on")
        t.send(LEAVE)
        t.wait_for("Your choice", timeout=10)
        assert recordings(d, name)[0][5:7] == (nbytes, 1) and wait_chunks(d, rid) == chunks
    finally:
        d.stop_clean()


# A program as hostile as a hosted game or its rc file can make one: text
# between a window title and name, a clipboard write (OSC 52), device
# strings (DCS, APC, PM), 8-bit controls raw and in UTF-8 (CSI, OSC, DCS),
# the alternate screen, a report request, mouse tracking and the bell.
HOSTILE = r"""#!/bin/sh
printf '\033[?1049h\033]52;c;aGVsbG8=\007\033]0;a title\007\033]2;a name\007'
printf 'visible one\r\n'
printf '\033P1$qm\033\\\033_apc\033\\\033^pm\033\\'
printf '\233''2J\235''0;t\007\302\233''2J\302\235''0;u\007\302\220''q\033\\'
printf '\033[21t\033[?1000h\033[?1006h\007'
printf '\033[5;3H\033[1;32mvisible two\033[0m\r\n'
printf 'press Enter\r\n'
read line
"""
NEVER = ("\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x9b", "\x9d", "\x90", "\x07", "?1049", "21t",
         "?1000")


def test_cast_keeps_none_of_the_programs_sequences(bindir, tmp_path, clients):
    """A program that writes visible text among hostile sequences: its
    cast parses as asciicast v2, played in a terminal shows the text where
    the program put it, as the browser player's last frame does, and holds
    none of the sequences, only the encoder's drawing."""
    prog = tmp_path / "hostile.sh"
    prog.write_text(HOSTILE)
    os.chmod(prog, 0o755)
    d = start_hosted(bindir, tmp_path,
                     f"[game hostile]\nname = Hostile\ncommand = {prog}\nhangup-timeout = 1\n",
                     http=True)
    try:
        t, name = new_player(d, clients, "ho", "1")
        t.wait_for("press Enter")
        t.send("\r")
        t.wait_for("Hostile has ended")
        end = time.time() + 10
        while not recordings(d, name)[0][2] and time.time() < end:
            time.sleep(0.1)
        [(rid, game, end_time, w, h, nbytes, _, _)] = recordings(d, name)
        assert (game, w, h) == ("hostile", 80, 24) and end_time > 0
        web = Web(d.http)
        r = web.get(f"/hosted/{rid}.cast")
        for raw in (b"\xc2\x9b", b"\xc2\x9d", b"\xc2\x90"):  # C1 controls in UTF-8
            assert raw not in r.body, raw
        header, events = cast_of(web, rid)
        assert (header["version"], header["width"], header["height"]) == (2, 80, 24)
        assert events[0][1:] == ["r", "80x24"]
        for e in events:
            assert not any(n in e[2] for n in NEVER), e
        check_drawn(events)
        screens = cast_screens(header, events)
        last = screens[-1]
        assert last[0].startswith("visible one") and last[4][2:13] == "visible two", last
        assert first_showing(screens, "visible one") <= first_showing(screens, "visible two")
        status, fr = web.json(f"/api/hosted/{rid}/replay")
        assert status == 200 and fr["bytes"] == nbytes
        assert check_frames(fr) == last  # what the browser player ends on
    finally:
        d.stop_clean()


def test_bad_recording_ids(nethack):
    d, _ = nethack
    web = Web(d.http)
    for path in ("/hosted/999999", "/hosted/999999.cast", "/hosted/999999/replay"):
        r = web.get(path)
        assert r.status == 404 and b"no such recording" in r.body, path
    for path in ("/api/hosted/999999", "/api/hosted/999999/replay"):
        assert web.json(path) == (404, {"error": "no such recording", "status": 404}), path
    assert web.get("/hosted/abc").status == 400
    assert web.json("/api/hosted/-1")[0] == 400
    assert web.get("/hosted/1/nothing").status == 404


def test_shutdown_writes_the_recording(nethack, clients):
    """SIGTERM before the 2-second flush: what the program wrote is stored,
    and the program's own goodbye after the hangup too."""
    d, _ = nethack
    t, name = new_player(d, clients, "st", toy_key("winsize"))
    t.wait_for("size 80x24")
    t.resize(100, 30)
    t.wait_for("size 100x30")
    assert d.stop() == 0
    [(rid, game, end, *_)] = recordings(d, name)
    assert (game, end) == ("winsize", 0)
    raw = b"".join(zlib.decompress(r[0]) for r in
                   d.db_rows("SELECT data FROM hosted_chunks WHERE game = ? ORDER BY seq", rid))
    assert b"size 80x24" in raw and raw.index(b"size 80x24") < raw.index(b"size 100x30")
    assert b"r\x00\x50\x18" in raw[:8]  # the run's size first: 80x24
    assert re.search(rb"r[\x80-\xff]*[\x00-\x7f]\x64\x1e", raw)  # the resize to 100x30
    d.start()


def test_record_per_day_caps_an_account_playing_game_after_game(bindir, tmp_path, clients):
    """Each hosted game is a recording of its own, record-max each: an
    account playing game after game (a script, a program that ends at
    once) is kept to record-per-day in all over 24 hours. The game that
    crosses it is cut at the byte and marked truncated (its page says
    why); past it games go on unrecorded, no row made; another account
    keeps its own day."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, "record-max = 32M\nrecord-per-day = 2K\n"
                     f"[game report]\ncommand = {toy} report\n", http=True)
    try:
        t, name = new_player(d, clients, "rp")
        for run in range(8):
            t.send("1")
            t.wait_for("has ended")
            t.send(" ")
            t.wait_for("Your choice")
            end = time.time() + 10  # each row's bytes are written once it ends
            while not all(r[2] for r in recordings(d, name)) and time.time() < end:
                time.sleep(0.1)
        d.wait_log(rf"recording user=\d+ game=report: record-per-day reached, not recorded")
        rows = recordings(d, name)
        sizes = [r[5] for r in rows]
        assert all(r[2] for r in rows), rows
        # whole ones while they fit, then the one that crosses the day's cap
        # cut at the byte (the program writes before its row is known: that
        # is cut too), then none
        whole, rest = divmod(2048, sizes[0])
        assert 0 < whole < 7, sizes
        assert sizes == [sizes[0]] * whole + ([rest] if rest else []), sizes
        assert [r[6] for r in rows] == [0] * whole + ([1] if rest else []), rows
        if rest:
            assert re.search(rf"recording user=\d+ game=report: record-per-day reached at {rest} "
                             "bytes, truncated", d.log())
            status, page = Web(d.http).html(f"/hosted/{rows[-1][0]}")
            assert status == 200 and "truncated" in page and "record-per-day" in page
        # another account has its own day
        o, other = new_player(d, clients, "ro", "1")
        o.wait_for("has ended")
        end = time.time() + 10
        while not (recordings(d, other) and recordings(d, other)[0][2]) and time.time() < end:
            time.sleep(0.1)
        [row] = recordings(d, other)
        assert row[5] == sizes[0] and not row[6], (row, sizes)
    finally:
        d.stop_clean()
