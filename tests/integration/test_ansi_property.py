"""Property test: a real terminal emulator shows exactly the grid we encoded.

bin/tools/ansi_prop generates seeded random chains of grids and the bytes
keyframe(G0) + diff(G0,G1) + ... ; these tests feed the bytes into pyte
(Debian's python3-pyte) and compare the screen with the expected last grid:
characters, colours, bold/underline/reverse, cursor position and visibility,
and that every frame leaves the default pen and the ASCII charset (the state
contract in protocol/ansi.h). Some chains slide rows sideways (a map moving
beside a panel), so the diffs that delete and insert characters are played
too. The final diff is also replayed after a
different path (a keyframe of the grid before it) to show a diff only
depends on the grid the terminal shows.

pyte 0.8.0 does not model dim (SGR 2) or blink (SGR 5), and it treats the
bright colours 90-97/100-107 as aixterm "colour + bold"; xterm, VTE and tmux
treat them as palette colours 8-15, so the adapter below does the same. The
tmux test at the end checks a smaller sample in tmux's emulator, where dim,
blink and the raw bright-colour codes are visible too.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import pyte
import pyte.graphics as g
import pytest

from harness import program

NAMES = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]
BOLD, DIM, UNDERLINE, REVERSE, BLINK = 1, 2, 4, 8, 16
DEFAULT_PEN = pyte.screens.Char(" ")

# (profile, seed, cases): a few thousand pairs in all
PROFILES = [("256", 11, 1500), ("16", 12, 600), ("dec", 13, 400),
            ("ascii", 14, 300), ("256sync", 15, 200), ("mono", 16, 300),
            ("256rep", 17, 600)]


class XtermColours(pyte.Screen):
    """pyte with 90-97 / 100-107 meaning palette colours 8-15 and CSI r
    resetting the margins (as xterm)."""

    def select_graphic_rendition(self, *attrs):
        out, i = [], 0
        while i < len(attrs):
            a = attrs[i]
            if a in (38, 48) and i + 2 < len(attrs) and attrs[i + 1] == 5:
                out += attrs[i:i + 3]
                i += 3
                continue
            if 90 <= a <= 97:
                out += [38, 5, a - 90 + 8]
            elif 100 <= a <= 107:
                out += [48, 5, a - 100 + 8]
            else:
                out.append(a)
            i += 1
        super().select_graphic_rendition(*out)

    def set_margins(self, top=None, bottom=None):
        """CSI r resets the scrolling region to the whole screen (pyte 0.8
        reads it as a top of 0 and keeps the old bottom)."""
        if not top and bottom is None:
            top = None
        super().set_margins(top, bottom)


def pyte_colour(index):
    if index < 0:
        return "default"
    if index < 8:
        return NAMES[index]
    return g.FG_BG_256[index]


def cases(bindir, profile, seed, count):
    tool = program(bindir, "tools/ansi_prop")
    out = subprocess.run([str(tool), str(seed), str(count), profile],
                         check=True, capture_output=True, timeout=60).stdout
    return [json.loads(line) for line in out.splitlines()]


def run_pyte(case, stream_hex, utf8=True):
    screen = XtermColours(case["w"], case["h"])
    stream = pyte.ByteStream(screen)
    # pyte, like the Linux console, ignores charset designation (ESC ( 0)
    # in UTF-8 mode; the ASCII profiles are for terminals not in that mode
    stream.use_utf8 = utf8
    stream.feed(bytes.fromhex(stream_hex))
    return screen


def mismatches(case, screen):
    """Yields a description of every way the screen differs from the case."""
    w, cells = case["w"], case["cells"]
    for i in range(0, len(cells), 4):
        ch, fg, bg, attr = cells[i:i + 4]
        x, y = (i // 4) % w, (i // 4) // w
        got = screen.buffer[y][x]
        want = (chr(ch), pyte_colour(fg), pyte_colour(bg), bool(attr & BOLD),
                bool(attr & UNDERLINE), bool(attr & REVERSE), False, False)
        have = (got.data, got.fg, got.bg, got.bold, got.underscore, got.reverse,
                got.italics, got.strikethrough)
        if want != have:
            yield f"cell ({x},{y}) want {want} got {have}"
    cx, cy, vis = case["cur"]
    if screen.cursor.hidden != (not vis):
        yield f"cursor hidden={screen.cursor.hidden} want visible={vis}"
    if vis and (screen.cursor.x, screen.cursor.y) != (cx, cy):
        yield f"cursor at {(screen.cursor.x, screen.cursor.y)} want {(cx, cy)}"
    if screen.cursor.attrs != DEFAULT_PEN:
        yield f"frame left pen {screen.cursor.attrs}"
    if screen.g0_charset != pyte.charsets.LAT1_MAP or screen.charset != 0:
        yield "frame left a graphics charset selected"


# a character deleted or inserted (DCH, ICH): a row's cells moved sideways
SHIFT = re.compile(rb"\x1b\[[0-9]*[P@]")
# the character printed last repeated (REP): a run of one glyph
REPEAT = re.compile(rb"\x1b\[[0-9]*b")


@pytest.mark.parametrize("profile,seed,count", PROFILES)
def test_pyte_shows_the_encoded_grid(bindir, profile, seed, count):
    failures, shifted, repeated = [], 0, 0
    for n, case in enumerate(cases(bindir, profile, seed, count)):
        shifted += bool(SHIFT.search(bytes.fromhex(case["bytes"])))
        repeated += bool(REPEAT.search(bytes.fromhex(case["bytes"])))
        for name in ("bytes", "last"):
            screen = run_pyte(case, case[name], profile not in ("dec", "ascii"))
            bad = list(mismatches(case, screen))
            if bad:
                failures.append(f"case {n} ({name}, {case['w']}x{case['h']}, "
                                f"{case['steps']} steps): " + "; ".join(bad[:3]))
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:10])
    # runs of a glyph are repeated (REP) where the profile has it, only there
    if profile == "256rep":
        assert repeated >= count // 2, f"only {repeated} of {count} cases repeated a glyph"
    else:
        assert repeated == 0
    # the sideways moves are played too; terminals of the ASCII-only and
    # VT100 profiles may lack ICH and DCH and never get them
    if profile in ("dec", "ascii"):
        assert shifted == 0
    else:
        assert shifted >= count // 20, f"only {shifted} of {count} cases moved cells sideways"


# ---- tmux: a second emulator, for what pyte cannot see ----------------------

DEC_GRAPHICS = {"`": "\u25c6", "a": "\u2592", "f": "\u00b0", "g": "\u00b1",
                "j": "\u2518", "k": "\u2510", "l": "\u250c", "m": "\u2514",
                "n": "\u253c", "q": "\u2500", "t": "\u251c", "u": "\u2524",
                "v": "\u2534", "w": "\u252c", "x": "\u2502", "y": "\u2264",
                "z": "\u2265", "{": "\u03c0", "|": "\u2260", "}": "\u00a3",
                "~": "\u00b7"}
SGR_ON = {1: BOLD, 2: DIM, 4: UNDERLINE, 5: BLINK, 7: REVERSE}
SGR_OFF = {22: BOLD | DIM, 24: UNDERLINE, 25: BLINK, 27: REVERSE}


def apply_sgr(pen, params):
    fg, bg, attr = pen
    i = 0
    while i < len(params):
        a = params[i]
        if a == 0:
            fg, bg, attr = -1, -1, 0
        elif a in SGR_ON:
            attr |= SGR_ON[a]
        elif a in SGR_OFF:
            attr &= ~SGR_OFF[a]
        elif 30 <= a <= 37 or 90 <= a <= 97:
            fg = a - 30 if a < 90 else a - 90 + 8
        elif 40 <= a <= 47 or 100 <= a <= 107:
            bg = a - 40 if a < 100 else a - 100 + 8
        elif a in (39, 49):
            fg, bg = (-1, bg) if a == 39 else (fg, -1)
        elif a in (38, 48) and i + 2 < len(params) and params[i + 1] == 5:
            fg, bg = (params[i + 2], bg) if a == 38 else (fg, params[i + 2])
            i += 2
        i += 1
    return fg, bg, attr


def parse_capture(text, w, h):
    """Cells from `tmux capture-pane -e`: SGR runs and SO/SI charset shifts;
    cells tmux leaves out are blank."""
    cells = [[(ord(" "), -1, -1, 0)] * w for _ in range(h)]
    pen, acs = (-1, -1, 0), False
    for y, line in enumerate(text.split("\n")[:h]):
        x, i = 0, 0
        while i < len(line):
            c = line[i]
            if c == "\x1b" and line[i + 1:i + 2] == "[":
                j = line.index("m", i)
                pen = apply_sgr(pen, [int(p or 0) for p in line[i + 2:j].split(";")])
                i = j + 1
                continue
            if c in "\x0e\x0f":
                acs = c == "\x0e"
            else:
                if x < w:
                    shown = DEC_GRAPHICS.get(c, c) if acs else c
                    cells[y][x] = (ord(shown),) + pen
                x += 1
            i += 1
    return cells


class Tmux:
    def __init__(self, tmp):
        self.tmp = tmp
        self.sock = os.path.join(tmp, "sock")
        conf = os.path.join(tmp, "conf")
        with open(conf, "w") as f:
            f.write("set -g status off\nset -g history-limit 0\n")
        self.run("-f", conf, "new-session", "-d", "-s", "keep", "sleep 600")

    def run(self, *args):
        return subprocess.run(["tmux", "-S", self.sock, *args], check=True,
                              capture_output=True, text=True, timeout=20).stdout

    def show(self, n, w, h, data):
        """Runs `cat` of data in a w x h pane; returns capture and cursor."""
        path, done = (os.path.join(self.tmp, f"{n}.{s}") for s in ("bin", "done"))
        with open(path, "wb") as f:
            f.write(data)
        name = f"c{n}"
        self.run("new-session", "-d", "-s", name, "-x", str(w), "-y", str(h),
                 f"stty raw -echo; cat {path}; touch {done}; exec sleep 600")
        deadline = time.time() + 10
        while not os.path.exists(done) and time.time() < deadline:
            time.sleep(0.005)
        prev = None
        while time.time() < deadline:  # wait until tmux has drawn it all
            time.sleep(0.02)
            cap = self.run("capture-pane", "-p", "-e", "-N", "-t", name)
            cur = self.run("display", "-p", "-t", name,
                           "#{cursor_x} #{cursor_y} #{cursor_flag}")
            if (cap, cur) == prev:
                break
            prev = (cap, cur)
        self.run("kill-session", "-t", name)
        return cap, [int(v) for v in cur.split()]

    def close(self):
        subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True)


@pytest.fixture(scope="module")
def tmux():
    if not shutil.which("tmux"):
        pytest.fail("tmux is missing: make deps installs it")
    tmp = tempfile.mkdtemp(prefix="ansi-tmux-")
    t = Tmux(tmp)
    yield t
    t.close()
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("profile,seed,count", [("256", 21, 40), ("16", 22, 40),
                                                ("dec", 23, 20)])
def test_tmux_shows_the_encoded_grid(bindir, tmux, profile, seed, count):
    """All attributes (dim and blink too) and the raw bright-colour codes."""
    failures = []
    for n, case in enumerate(cases(bindir, profile, seed, count)):
        w, h = case["w"], case["h"]
        cap, (cx, cy, vis) = tmux.show(f"{profile}-{n}", w, h, bytes.fromhex(case["bytes"]))
        got = parse_capture(cap, w, h)
        bad = []
        for i in range(w * h):
            want = tuple(case["cells"][4 * i:4 * i + 4])
            if got[i // w][i % w] != want:
                bad.append(f"cell ({i % w},{i // w}) want {want} got {got[i // w][i % w]}")
        ex, ey, evis = case["cur"]
        if vis != evis or (evis and (cx, cy) != (ex, ey)):
            bad.append(f"cursor {(cx, cy, vis)} want {(ex, ey, evis)}")
        if bad:
            failures.append(f"case {n} ({w}x{h}): " + "; ".join(bad[:3]))
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:10])


# ---- a real game in tmux ----------------------------------------------------


def test_tmux_shows_a_game_whose_view_slides(daemon, clients, tmux):
    """Walking and travelling across the town (wider than 80 columns) moves
    the 80x24 view sideways, which the player's terminal gets as deleted and
    inserted cells; tmux, fed every byte the player's telnet wrote, shows
    the screen a keyframe of the same game shows (a second login taking the
    game over gets one)."""
    for i in range(6):
        name = f"slide{i}"
        a = clients(daemon.port, cols=80, rows=24).connected()
        a.register(name)
        a.random_character(name)
        a.play_keys("l" * 70)  # east along the road: the view moves at once
        a.play_keys("_<.")  # back to the west gate: and again
        end = time.time() + 15  # a loaded machine answers the travel late
        while "where?" in a.text() and time.time() < end:
            a.pump(quiet=0.3, limit=1)
        a.pump(quiet=0.5)
        if SHIFT.search(a.raw):
            break
        a.close()
    else:
        pytest.fail("no game of 6 moved its view sideways")
    raw = a.raw
    b = clients(daemon.port, cols=80, rows=24).connected()
    b.login(name)
    b.send("p")
    daemon.wait_log(rf"takeover user={name}")
    b.pump()
    cap, _ = tmux.show("game", 80, 24, raw)
    shown = ["".join(chr(c[0]) for c in row).rstrip() for row in parse_capture(cap, 80, 24)]
    assert shown == b.lines(), "\n".join(shown) + "\n---\n" + "\n".join(b.lines())
