"""warren-engine bot plays seeded games to their end; the sanitizer build
must not crash, every game must end with a cause, and a snapshot at a
random cut point of each game must reproduce the same end; every game
walks the overland; it plays a chosen class, or only waits. arena sets two creature kinds on each other.
content --stats counts what the content declares."""
import re
import subprocess

from harness import program

LINE = re.compile(r"^seed (\d+) turns (\d+) depth (\d+) xl (\d+) score (-?\d+) cause (.+)$")
SUMMARY_KEYS = ("games", "crashes", "wins", "deaths", "deepest", "mean_deepest", "causes", "median_turns",
                "sneak_attacks", "spells_cast", "missiles", "unique_repeats", "warden_off_depth",
                "temple_heals", "surface_steps", "surface_min")
ARENA = re.compile(r"^arena fights (\d+) a_wins (\d+) b_wins (\d+) a_attacks (\d+) b_attacks (\d+)$")


def summary(line):
    """The bot's last line: 'bot' then key value pairs, every key present."""
    words = line.split()
    assert words and words[0] == "bot" and len(words) % 2 == 1, line
    pairs = dict(zip(words[1::2], words[2::2]))
    assert set(SUMMARY_KEYS) <= set(pairs), line
    return {k: float(v) if "." in v else int(v) for k, v in pairs.items()}


def tool(bindir, sub=""):
    return program(bindir, f"{sub}/warren-engine" if sub else "warren-engine")


def run_bot(exe, games, seed, *extra, timeout=900):
    out = subprocess.run([str(exe), "bot", "--games", str(games), "--seed", str(seed), *extra],
                         capture_output=True, timeout=timeout, text=True)
    lines = out.stdout.rstrip("\n").split("\n")
    return out, lines


def run_bots(exe, games, seed, *extra, parts=2, timeout=900):
    """The bot's games seed .. seed+games-1 split over `parts` bots at once
    (a core each; a game depends on its seed alone): each one's
    (process, lines, games' LINE matches, summary), in seed order, every
    one checked whole (it ran, a line a game, no crash, its mean depth and
    count of causes those of its lines)."""
    sizes = [games // parts + (i < games % parts) for i in range(parts)]
    firsts = [seed + sum(sizes[:i]) for i in range(parts)]
    procs = [subprocess.Popen([str(exe), "bot", "--games", str(n), "--seed", str(first), *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n, first in zip(sizes, firsts)]
    parts_out = []
    for p, n, first in zip(procs, sizes, firsts):
        stdout, stderr = p.communicate(timeout=timeout)
        out = subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)
        assert out.returncode == 0, stdout + stderr
        lines = stdout.rstrip("\n").split("\n")
        s = summary(lines[-1])
        played = [LINE.match(l) for l in lines if l.startswith("seed ")]
        assert len(played) == n and all(played) and (s["games"], s["crashes"]) == (n, 0), lines
        assert [int(m.group(1)) for m in played] == list(range(first, first + n)), lines
        assert abs(s["mean_deepest"] - sum(int(m.group(3)) for m in played) / n) < 0.01, lines
        assert s["causes"] == len({m.group(6) for m in played}), lines
        parts_out.append((out, lines, played, s))
    return parts_out


def total(parts, key):
    return sum(p[3][key] for p in parts)


def test_bot_sanitizer_build_with_snapshot_cuts(bindir):
    parts = run_bots(tool(bindir, "asan"), 4, 101, "--check-snapshots", "--max-keys", "6000")
    for out, lines, played, s in parts:
        assert "ERROR: AddressSanitizer" not in out.stderr and "runtime error" not in out.stderr, out.stderr
        for m in played:
            assert int(m.group(2)) > 0 and int(m.group(3)) >= 1
            assert m.group(6) != "none", m.group(0)  # every game ended: death or quit
        assert lines[-2] == f"bot snapshots checked {s['games']} mismatches 0", lines
    assert total(parts, "games") == 4


def test_bot_reaches_depth_and_many_ends(bindir):
    parts = run_bots(tool(bindir), 24, 1)
    played = [m for p in parts for m in p[2]]
    assert len(played) == 24
    assert max(p[3]["deepest"] for p in parts) >= 5, played
    assert len({m.group(6) for m in played}) >= 4, played  # causes
    # uniques once, the warden at home, and sneak attacks happen
    assert total(parts, "unique_repeats") == 0 and total(parts, "warden_off_depth") == 0, parts
    assert total(parts, "sneak_attacks") > 0, parts
    assert total(parts, "missiles") > 0, parts  # thrown and shot, through the attack chain
    # out of town to a dungeon entrance and home again, in every game
    surface_min = min(p[3]["surface_min"] for p in parts)
    assert surface_min > 0 and total(parts, "surface_steps") >= 24 * surface_min, parts
    # the same seeds give the same games
    again = run_bot(tool(bindir), 3, 1)[1]
    assert again[:3] == parts[0][1][:3]


def test_bot_frames_checked_row_by_row(bindir, monkeypatch):
    """Games to their ends with every frame checked (WARREN_RENDER_VERIFY):
    a map row changed that no write marked, or a kept frame unlike the
    frame drawn whole, crashes its game."""
    monkeypatch.setenv("WARREN_RENDER_VERIFY", "1")
    parts = run_bots(tool(bindir), 6, 3, "--max-keys", "8000")
    played = [m for p in parts for m in p[2]]
    assert len(played) == 6 and total(parts, "crashes") == 0, parts
    assert max(p[3]["deepest"] for p in parts) >= 5, played  # stairs, levels made and left


def test_bot_plays_a_class_and_casts(bindir):
    parts = run_bots(tool(bindir), 4, 7, "--class", "wizard")
    assert total(parts, "games") == 4 and total(parts, "spells_cast") > 0, parts
    for out, lines, played, s in parts:
        # one line per class played: here the wizard alone, its games
        classes = [line.split() for line in lines if line.startswith("bot class ")]
        assert len(classes) == 1 and classes[0][2:5] == ["wizard", "games", str(s["games"])], classes
        assert float(classes[0][6]) == s["mean_deepest"], (classes, lines[-1])
    bad = subprocess.run([str(tool(bindir)), "bot", "--class", "bard"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "bard" in bad.stderr


def test_bot_that_only_waits(bindir):
    parts = run_bots(tool(bindir), 50, 1, "--policy", "wait", "--turns", "20")
    assert total(parts, "games") == 50 and total(parts, "spells_cast") == 0, parts
    assert max(p[3]["deepest"] for p in parts) == 1 and total(parts, "deaths") <= 2, parts
    for m in (m for p in parts for m in p[2]):
        assert int(m.group(2)) >= 20 or m.group(6) != "none", m.group(0)


def test_arena(bindir):
    def arena(*args):
        out = subprocess.run([str(tool(bindir)), "arena", *args], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        m = ARENA.match(out.stdout.rstrip("\n").split("\n")[-1])
        assert m, out.stdout
        return list(map(int, m.groups()))
    fights, a_wins, b_wins, a_att, b_att = arena("--a", "kobold", "--b", "jackal", "--fights", "20")
    assert fights == 20 and a_wins + b_wins <= 20 and a_att > 0 and b_att > 0
    # a paralysed kobold never strikes, and loses
    fights, a_wins, b_wins, a_att, b_att = arena("--a", "kobold", "--b", "jackal", "--a-effect", "paralysis",
                                                 "--fights", "10")
    assert (a_att, a_wins) == (0, 0) and b_wins == 10 and b_att > 0
    bad = subprocess.run([str(tool(bindir)), "arena", "--a", "kobold", "--b", "unicorn"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "unicorn" in bad.stderr


def test_content_stats(bindir):
    out = subprocess.run([str(tool(bindir)), "content", "--stats"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    last = out.stdout.rstrip("\n").split("\n")[-1]
    m = re.match(r"^content creatures (\d+) items (\d+) uniques (\d+) vaults (\d+) spells (\d+) traps (\d+)"
                 r" special_levels (\d+)$", last)
    assert m, last
    assert int(m.group(2)) >= 60 and int(m.group(1)) >= 40 and int(m.group(3)) >= 5 and int(m.group(4)) >= 1
    assert int(m.group(1)) >= 80 and int(m.group(2)) >= 120  # creatures, items
    assert int(m.group(5)) >= 20 and int(m.group(6)) >= 8  # spells, traps
    assert int(m.group(4)) >= 20 and int(m.group(7)) >= 3  # vaults, special levels
    assert int(re.search(r"^shops (\d+)$", out.stdout, re.M).group(1)) >= 3  # store, temple, sage
    assert re.search(r"^items\.POTION (\d+)$", out.stdout, re.M)
    assert int(m.group(1)) >= 80 and int(m.group(2)) >= 120
    egos = re.search(r"^egos (\d+) artifacts (\d+)$", out.stdout, re.M)
    assert egos and int(egos.group(1)) >= 10 and int(egos.group(2)) >= 5, out.stdout
    bad = subprocess.run([str(tool(bindir)), "content", "--stats", "--dir", "/nonexistent"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode != 0 and "/nonexistent" in bad.stderr
