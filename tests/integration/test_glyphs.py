"""Map glyphs per terminal profile, through warrend and Debian's telnet:
xterm-256color gets the Unicode glyphs (floor dots, wall lines that join);
a VT100 gets only ASCII bytes, with the walls in DEC line drawing; an
ASCII terminal ("ansi") gets plain ASCII fallbacks and no charset switch."""
import re

BOX = set("─│┌┐└┘├┤┬┴┼")


def play(daemon, clients, name, term, utf8=True):
    """Registers, starts a random character; returns the client on the map."""
    t = clients(daemon.port, cols=80, rows=24, term=term)
    # pyte honours DEC graphics designation only outside UTF-8 mode, as a VT100
    t.stream.use_utf8 = utf8
    t.connected()
    t.register(name)
    t.random_character(name)
    return t


def map_rows(t):
    return t.screen.display[1:t.rows - 2]


def play_walls(daemon, clients, name, term, corner, utf8=True):
    """play, in new games until the first view shows a wall's corner
    (corner(cells)): the view may show the level's edge, away from the
    town's walls. The caller checks the game it returns."""
    for i in range(8):
        t = play(daemon, clients, f"{name}{i}", term, utf8)
        if corner("".join(map_rows(t))):
            return t
        t.close()
    raise AssertionError("no corner of a wall in view in 8 games:\n" + "\n".join(map_rows(t)))


def test_xterm_256color_sees_unicode_glyphs(daemon, clients):
    t = play_walls(daemon, clients, "uni", "xterm-256color", lambda c: BOX & set(c))
    cells = "".join(map_rows(t))
    assert "@" in cells
    assert "·" in cells, "\n".join(map_rows(t))  # floor
    assert BOX & set(cells), "\n".join(map_rows(t))  # joined walls
    assert "·".encode() in t.raw and b"\x1b(0" not in t.raw
    t.close()


def test_vt100_sees_only_ascii_and_dec_lines(daemon, clients):
    t = play_walls(daemon, clients, "vee", "vt100", lambda c: BOX & set(c), utf8=False)
    assert all(b < 0x80 for b in t.raw), "a byte above 0x7F went to a VT100"
    assert b"\x1b(0" in t.raw  # walls and floor through DEC line drawing
    cells = "".join(map_rows(t))
    assert "@" in cells
    assert BOX & set(cells), "\n".join(map_rows(t))
    assert "·" in cells  # DEC '~': the VT100's centred dot
    t.close()


def test_ascii_terminal_sees_plain_ascii(daemon, clients):
    t = play_walls(daemon, clients, "asc", "ansi", lambda c: "+" in c and re.search(r"[-|]", c))
    assert all(b < 0x80 for b in t.raw), "a byte above 0x7F went to an ASCII terminal"
    assert b"\x1b(0" not in t.raw
    rows = map_rows(t)
    cells = "".join(rows)
    assert all(c.isascii() for c in cells)
    assert "@" in cells and "." in cells, "\n".join(rows)
    # walls: '-' and '|' lines meeting at '+'
    assert re.search(r"[-|]", cells) and "+" in cells, "\n".join(rows)
    t.close()
