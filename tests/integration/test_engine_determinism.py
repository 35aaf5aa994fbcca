"""The engine is a pure function of (content, seed, keys): warren-engine play
gives the same final screen and hash with or without a snapshot round trip
at any point, twice in a row, and different seeds give different levels.
The golden file pins seeds 1-100 after a fixed key sequence."""
import os
import pathlib
import random
import subprocess

from harness import program

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden"
MOVES = [b"h", b"j", b"k", b"l", b"y", b"u", b"b", b"n", b".", b"\x1b[A", b"\x1b[B",
         b"\x1b[C", b"\x1b[D", b"4", b"6", b"8", b"2", b">"]


def engine(bindir):
    return program(bindir, "warren-engine")


def play(bindir, seed, keyfile, *extra):
    out = subprocess.run([str(engine(bindir)), "play", "--seed", str(seed), "--keys", str(keyfile), *extra],
                         capture_output=True, timeout=60, check=True).stdout.decode()
    lines = out.rstrip("\n").split("\n")
    assert lines[-1].startswith("hash ") and len(lines[-1]) == 5 + 16, lines[-1]
    return "\n".join(lines[:-1]), lines[-1]


def keys(rng, n):
    return b"".join(rng.choice(MOVES) for _ in range(n))


def test_snapshot_cut_points_match(bindir, tmp_path):
    rng = random.Random(20261122)
    for seed in rng.sample(range(1, 10**9), 24):
        n = rng.randint(20, 300)
        kf = tmp_path / f"k{seed}"
        kf.write_bytes(keys(rng, n))
        screen, h = play(bindir, seed, kf)
        for cut in sorted({0, rng.randint(0, n), rng.randint(0, n), n}):
            s2, h2 = play(bindir, seed, kf, "--snapshot-at", str(cut))
            assert h2 == h, f"seed {seed} cut {cut}"
            assert s2 == screen, f"seed {seed} cut {cut}"


def test_same_input_same_hash(bindir, tmp_path):
    kf = tmp_path / "k"
    kf.write_bytes(keys(random.Random(7), 200))
    assert play(bindir, 77, kf) == play(bindir, 77, kf)


def test_different_seeds_different_levels(bindir, tmp_path):
    kf = tmp_path / "start"
    kf.write_bytes(b"*")  # past the character screen: a random character
    screens = {play(bindir, seed, kf, "--size", "200x60")[0] for seed in range(1, 21)}
    assert len(screens) == 20


def test_size_option_and_small_terminal(bindir, tmp_path):
    kf = tmp_path / "k"
    kf.write_bytes(b"hjkl" * 10)
    screen, _ = play(bindir, 5, kf, "--size", "20x5")
    rows = screen.split("\n")
    assert len(rows) == 5 and all(len(r) <= 20 for r in rows)
    assert "@" in screen


def test_golden_hashes(bindir):
    want = (GOLDEN / "engine_hashes.txt").read_text().split("\n")
    want = [w for w in want if w.strip()]
    assert len(want) == 100
    for line in want:
        seed, h = line.split()
        _, got = play(bindir, seed, GOLDEN / "engine_keys.bin")
        assert got == "hash " + h, f"seed {seed}: generation or rules changed; " \
            "run `make golden` if that is intended"


def test_frames_checked_row_by_row(bindir, tmp_path):
    """play --frames under WARREN_RENDER_VERIFY: every frame also compares
    the map rows no write marked; one changed aborts the run. The load's
    walk, random moves and searches, and stairs, travel and explore."""
    rng = random.Random(29)
    files = {"walk": b"*.." + b"h.l." * 300,
             "moves": b"*" + bytes(rng.choice(b"hjklyubn.s") for _ in range(1500)),
             "stairs": b"*" + bytes(rng.choice(b"hjklyubn>>>o_.\r") for _ in range(1500))}
    env = {**os.environ, "WARREN_RENDER_VERIFY": "1"}
    for name, data in files.items():
        kf = tmp_path / name
        kf.write_bytes(data)
        for seed in (1, 7, 42):
            out = subprocess.run([str(engine(bindir)), "play", "--seed", str(seed), "--keys", str(kf),
                                  "--frames", "--size", "132x43"], capture_output=True, timeout=120, env=env)
            assert out.returncode == 0 and b"unmarked" not in out.stderr, (name, seed, out.stderr)
            assert out.stdout.split(b"\n")[-2].startswith(b"frames "), out.stdout[-200:]


def test_bad_snapshot_cut_is_harmless(bindir, tmp_path):
    kf = tmp_path / "k"
    kf.write_bytes(b"hjkl")
    a = play(bindir, 3, kf)
    b = play(bindir, 3, kf, "--snapshot-at", "999")  # past the end: no round trip
    assert a == b
