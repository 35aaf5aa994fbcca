"""The browser on a phone, in Debian's Chromium with mobile emulation
(tests/web/phone.mjs) against the real daemon and Debian's NetHack:
/play/nethack, /play and /watch at 360x640 and 390x844, portrait and
landscape, show every row of the game inside what the phone shows (the
message line on top, the status lines at the bottom), NetHack at the 80x24
it lays out for with the key row below it taking the rest, and the on-screen
Esc, Ctrl and arrow keys reach NetHack and Warren's own game. The
screenshots stay in the test's directory."""

from harness import browser_script, unique_name
from test_hosted import nethack, start_nethack  # noqa: F401 (nethack: a fixture)

PW = "correct horse"
SIZES = ("390x844", "360x640", "844x390", "640x360")
ARROWS = {"\u2190": (-1, 0), "\u2192": (1, 0), "\u2191": (0, -1), "\u2193": (0, 1)}


def hidden(g):
    """The rows of a geometry that are not wholly on the phone's screen."""
    return [(r["i"], r["top"], r["bottom"], r["text"]) for r in g["rowList"] if not r["visible"]]


def row_with(g, text):
    return next((r for r in g["rowList"] if text in r["text"]), None)


def sign(n):
    return (n > 0) - (n < 0)


def moved_as_asked(moves):
    """Each arrow left the '@' (where the cursor is) still or moved it its
    way (a wall or a pet may stop it), and never opened a menu or a prompt
    that took the cursor away; at least one step taken."""
    steps = 0
    for key, tries in moves.items():
        for m in tries:
            b, a = m["before"], m["after"]
            assert b and a, (key, m)
            assert (sign(a[0] - b[0]), sign(a[1] - b[1])) in ((0, 0), ARROWS[key]), (key, m)
            steps += a != b
    return steps


def test_phone_shows_every_row_and_its_keys_reach_the_game(nethack, clients, tmp_path):
    d, _ = nethack
    watched = unique_name("pw")
    t = clients(d.port)  # an 80x24 telnet player, watched from the phone
    start_nethack(t, watched)
    name = unique_name("ph")
    art = tmp_path / "screens"
    r, out = browser_script("phone.mjs", f"http://127.0.0.1:{d.http}", art, name, PW, watched,
                            timeout=300)
    assert r.returncode == 0 and not out["errors"], (out["errors"], r.stderr[-2000:])

    for size in SIZES:
        for what in ("play", "warren", "watch"):
            g = out[what][size]
            assert g["cols"] >= 80 and g["rows"] >= 24, (what, size, g["cols"], g["rows"])
            assert not hidden(g), (what, size, g["font"], g["view"], g["box"], hidden(g))
            assert (art / f"phone-{'nethack' if what == 'play' else what}-{size}.png").stat().st_size
        # NetHack's status lines and Warren's title are on screen
        for what, text in (("play", "Dlvl:1"), ("play", "St:"), ("watch", "Dlvl:1"),
                           ("warren", f"{name}2 the")):
            row = row_with(out[what][size], text)
            assert row and row["visible"], (what, size, text)
        w = out["watch"][size]
        assert (w["cols"], w["rows"]) == (80, 24), (size, w["cols"], w["rows"])
        assert "Dlvl:1" in w["rowList"][23]["text"], w["rowList"][23]
        # the key row is shown and below the terminal, not over it
        for what in ("play", "warren"):
            g = out[what][size]
            assert g["keys"] and g["keys"]["shown"], (what, size, g["keys"])
            assert g["keys"]["top"] >= g["box"][1] + g["box"][3] - 0.5, (what, size, g)

    # NetHack lays out 80x24 and leaves the rest blank: on a phone its
    # terminal is that, as wide as the screen in portrait, its status lines
    # at the bottom of the terminal's box, and the key row takes the rest
    for size in SIZES:
        g = out["play"][size]
        assert (g["cols"], g["rows"]) == (80, 24), (size, g["cols"], g["rows"])
        top, height = g["box"][1], g["box"][3]
        assert row_with(g, "Dlvl:1")["bottom"] >= top + 0.85 * height, (size, g["box"])
        portrait = size in ("390x844", "360x640")
        if portrait:
            assert g["screen"][0] >= 0.9 * g["view"]["right"], (size, g["screen"])
            assert g["keys"]["bottom"] - g["keys"]["top"] >= 90, (size, g["keys"])
        # in portrait 80 columns make small letters: the page says how to
        # get larger ones, between the terminal and the keys
        turn = g["turn"]
        assert turn and turn["shown"] == portrait, (size, turn)
        if portrait:
            assert "sideways" in turn["text"], turn
            assert top + height <= turn["top"] and turn["bottom"] <= g["keys"]["top"] + 0.5, \
                (size, g["box"], turn, g["keys"])
    for size in SIZES:  # Warren's own game fits any screen: no such hint
        assert out["warren"][size]["turn"] and not out["warren"][size]["turn"]["shown"], size

    # the on-screen keys reach NetHack: arrows walk (never its menus),
    # Ctrl then x is its ^X (attributes), Esc closes that again
    assert moved_as_asked(out["keys"]["arrows"]) >= 1, out["keys"]["arrows"]
    assert "Background:" in out["keys"]["ctrlX"] or "attributes" in out["keys"]["ctrlX"], \
        out["keys"]["ctrlX"]
    assert not out["keys"]["ctrlStillArmed"]  # the key typed after Ctrl used it up
    assert "Background:" not in out["keys"]["afterEsc"] and "Dlvl:1" in out["keys"]["afterEsc"]
    # and Warren's own game
    assert moved_as_asked(out["warrenKeys"]["arrows"]) >= 1, out["warrenKeys"]["arrows"]
