"""tests/bench/nethack_walk.py, NetHack's side of the bytes-a-key
benchmarks (`make bench-engine`), against Debian's NetHack: its travel
walk plays the game on, not a --More-- that swallows the keys after it."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
import nethack_walk  # noqa: E402


def test_the_travel_walk_reads_on_past_a_more():
    """The travel walk's keys (_<. _>. and shifted runs) have no Enter nor
    Esc: a --More-- on the message line (the pet fighting, "You see
    here") used to swallow every key after it, the game stuck at a few
    bytes a key. Three games, each another dungeon (most meet a --More--
    in 200 keys): every one draws what its keys do, tens of bytes a key."""
    for r in nethack_walk.runs(3, kind="travel"):
        assert r["bytes"] / r["keys"] > 15, r
