"""The options menu over Debian's telnet: two-cell tiles and the map glyph
set change what the game draws, every choice is kept with the account and
comes back at the next login."""
import re

from harness import colour_params, options_menu

GLYPH_LABELS = ["from the terminal type", "Unicode", "line drawing and ASCII",
                "DEC graphics, no UTF-8", "plain ASCII"]


def options_of(daemon, name):
    return daemon.db_rows("SELECT options FROM users WHERE name_key = ?", name)[0][0]


def play_drawn(t, name):
    """Back to the menu, a random character; returns the bytes drawn meanwhile."""
    t.send("q")
    t.wait_for(f"Logged in as {name}")
    mark = len(t.raw)
    t.random_character(name)
    return t.raw[mark:]


def test_options_change_the_game_and_stay_with_the_account(daemon, clients):
    t = options_menu(clients(daemon.port, term="xterm-256color"), "opt")
    for line in ("Two-cell map tiles: off", "Colours: from the terminal type (256)",
                 "Map glyphs: " + GLYPH_LABELS[0], "Turn counter: off"):
        t.wait_for(line)
    t.send("n")
    t.wait_for("Turn counter: on")
    t.send("t")
    t.wait_for("Two-cell map tiles: on")
    t.send("c")
    t.wait_for("Colours: 16")
    for label in GLYPH_LABELS[1:]:
        t.send("g")
        t.wait_for("Map glyphs: " + label)
    assert options_of(daemon, "opt") == "two_cell=1\ncolors=16\nglyphs=ascii\nturns=1\n"

    # the game, drawn for an xterm, in plain ASCII and two cells a tile
    drawn = play_drawn(t, "opt")
    assert all(b < 0x80 for b in drawn), "a byte above 0x7F with plain ASCII glyphs"
    assert b"\x1b(0" not in drawn
    assert len(set(colour_params(drawn))) >= 3, "16 colours are still colours"
    rows = t.screen.display[1:t.rows - 2]
    glyphs = [(y, x) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch != " "]
    assert len(glyphs) > 10, "\n".join(rows)
    assert " Turn " in t.screen.display[t.rows - 2], t.screen.display[t.rows - 2]
    assert all(x % 2 == 0 for _, x in glyphs), "\n".join(rows)  # odd columns stay blank
    t.close()

    # a new connection: the same choices after login; the glyph set cycles round
    t = options_menu(clients(daemon.port), "opt", new=False)
    for line in ("Two-cell map tiles: on", "Colours: 16", "Map glyphs: plain ASCII",
                 "Turn counter: on"):
        t.wait_for(line)
    t.send("g")
    t.wait_for("Map glyphs: " + GLYPH_LABELS[0])
    t.send("t")
    t.wait_for("Two-cell map tiles: off")
    t.send("n")
    t.wait_for("Turn counter: off")
    assert options_of(daemon, "opt") == "two_cell=0\ncolors=16\nglyphs=auto\nturns=0\n"
    t.send("q")  # back to the game: its status line without the counter
    t.wait_for("Logged in as opt")
    t.send("p")
    t.wait_for("HP ")
    t.pump(quiet=0.3)
    assert "Turn" not in t.screen.display[t.rows - 2], t.screen.display[t.rows - 2]
    t.close()


def test_colours_off_draws_attributes_only(daemon, clients):
    """Colours off: the game draws with bold, dim and reverse only (the
    test above sees colours with 16). An older account's colors=256 still
    means the terminal's colours."""
    t = options_menu(clients(daemon.port, term="xterm-256color"), "mono")
    t.wait_for("Colours: from the terminal type (256)")
    t.send("c")
    t.wait_for("Colours: 16")
    t.send("c")
    t.wait_for("Colours: off")
    assert options_of(daemon, "mono") == "two_cell=0\ncolors=off\nglyphs=auto\nturns=0\n"
    drawn = play_drawn(t, "mono")
    assert colour_params(drawn) == [], colour_params(drawn)[:10]
    assert re.search(rb"\x1b\[[0-9;]*\b1[;m]", drawn), "the player is no longer bold"
    t.close()

    daemon.db_write(("UPDATE users SET options = 'two_cell=0\ncolors=256\n' WHERE name_key = 'mono'",
                     ()))
    t = options_menu(clients(daemon.port, term="xterm"), "mono", new=False)
    t.wait_for("Colours: from the terminal type (16)")
    t.close()


def test_a_vt100_can_choose_unicode(daemon, clients):
    """The terminal type only sets the default: a VT100 name, chosen Unicode."""
    t = options_menu(clients(daemon.port, term="vt100"), "uni")
    t.send("g")
    t.wait_for("Map glyphs: Unicode")
    drawn = play_drawn(t, "uni")
    assert "·".encode() in drawn and b"\x1b(0" not in drawn, drawn[-400:]
    t.close()
