"""tests/bench/nethack_walk.py, NetHack's side of the bytes-a-key
benchmarks (`make bench-engine`), against Debian's NetHack: its travel
walk plays the game on, not a --More--, a question or a window that
swallows the keys after it."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
import nethack_walk  # noqa: E402


def stuck(r):
    """What a failed walk says: its figures and the screen it ended on."""
    figures = {k: v for k, v in r.items() if k != "screen"}
    return f"{figures}\nthe screen it ended on:\n{r['screen']}"


def test_the_travel_walk_reads_on_past_a_more():
    """The travel walk's keys (_<. _>. and shifted runs) have no Enter nor
    Esc: a --More-- (the pet fighting, "You see here", an engraving read
    over two rows) used to swallow every key after it, the game stuck at a
    few bytes a key; a question ("Call a dark green potion:") or a window
    ("Things that are here") did too. Three games, each another dungeon
    (most meet a --More-- in 200 keys): every one draws what its keys do,
    tens of bytes a key, and ends waiting at its map (a question or a
    window left with Esc: the message line's --More-- alone is read on
    with Enter, test_what_nethack_waits_at_is_read_from_its_screen). A
    game whose hero died (NetHack's own dice) is told and another played,
    at most five."""
    walked = []
    for _ in range(5):
        r = nethack_walk.walk(kind="travel")
        if r["ended"]:
            print("the hero died:", stuck(r))
            continue
        assert r["bytes"] / r["keys"] > 15, stuck(r)
        assert r["ends_at"] is None and "Dlvl:" in r["screen"], stuck(r)
        walked.append(r)
        if len(walked) == 3:
            break
    assert len(walked) == 3, "the hero died in three games of five"


# Screens NetHack (tty, 80x24) waited at in walks, trimmed to the rows
# that matter, with where its cursor was (column, row) and what it waits at
MAP = ["", "", "      ------+-", "      |@u.....", "      |......|", "      --------"]
SCREENS = [
    (["You read: \"Mos? monsters ??efer min?ed meat   Tha? s w?v thcv are hitting",
      "y?u!\".--More--", *MAP[2:]], (15, 1), "more"),  # a long message spills over
    (["The kitten bites the newt.--More--", *MAP[1:]], (34, 0), "more"),
    (["You hear the footsteps of a guard on patrol.  The kitten misses the newt.  You",
      "--More--", *MAP[2:]], (8, 1), "more"),  # the message filled its row
    ([" " * 41 + "Things that are here:", " " * 41 + "an orange", " " * 41 + "--More--",
      *MAP[3:]], (49, 2), "window"),  # a window's, at its left edge
    ([" " * 30 + "Discoveries", " " * 30 + "--More--", *MAP[2:]], (38, 1), "window"),
    (["                        Weapons", "                        a - a +1 long sword",
      "                        (end) ", *MAP[3:]], (30, 2), "window"),
    (["                        Armor", "                        (1 of 2)", *MAP[2:]], (32, 1),
     "window"),
    (["Really attack the watchman? [yn] (n) ", *MAP[1:]], (37, 0), "question"),
    (["There is a jackal corpse here; eat it? [ynq] (n) ", *MAP[1:]], (49, 0), "question"),
    (["In what direction? ", *MAP[1:]], (19, 0), "question"),
    (["Call a scroll labeled FOOBIE BLETCH: ", *MAP[1:]], (37, 0), "question"),
    (["What do you want to eat? [gh or ?*] ", *MAP[1:]], (36, 0), "question"),
    (["There is a staircase up here.  You see here a dagger (wielded, in your pack) and",
      "Really attack the very long named shopkeeper? [yn] (n) ", *MAP[2:]], (55, 1),
     "question"),  # a question after a long message, on the row below
    (["You see here a dagger.", *MAP[1:]], (7, 3), None),  # a command, at the hero
    (["Where do you want to travel to?  (For instructions type a ?)", *MAP[1:]], (10, 4),
     None),  # a travel's square being picked: its next keys pick it
]


def test_what_nethack_waits_at_is_read_from_its_screen():
    """waits tells the message line's --More-- (one spilled onto the row
    below by a long message too) from a window's --More-- or a menu's
    page, a question and a command at the map: the walk answers each as a
    player does (Enter, else Esc)."""
    for rows, (x, y), want in SCREENS:
        rows = [r.ljust(80) for r in rows] + [" " * 80] * (24 - len(rows))
        assert nethack_walk.waits(rows, x, y) == want, (want, rows[y])
