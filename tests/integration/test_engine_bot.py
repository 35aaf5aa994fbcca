"""warren-engine bot plays seeded games to their end; the sanitizer build
must not crash, every game must end with a cause, and a snapshot at a
random cut point of each game must reproduce the same end. content --stats
counts what the content declares."""
import re
import subprocess

from harness import program

LINE = re.compile(r"^seed (\d+) turns (\d+) depth (\d+) xl (\d+) score (-?\d+) cause (.+)$")
SUMMARY = re.compile(r"^bot games (\d+) crashes (\d+) deepest (\d+) causes (\d+) median_turns (\d+)$")


def tool(bindir, sub=""):
    return program(bindir, f"{sub}/warren-engine" if sub else "warren-engine")


def run_bot(exe, games, seed, *extra, timeout=900):
    out = subprocess.run([str(exe), "bot", "--games", str(games), "--seed", str(seed), *extra],
                         capture_output=True, timeout=timeout, text=True)
    lines = out.stdout.rstrip("\n").split("\n")
    return out, lines


def test_bot_sanitizer_build_with_snapshot_cuts(bindir):
    out, lines = run_bot(tool(bindir, "asan"), 4, 101, "--check-snapshots", "--max-keys", "6000")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ERROR: AddressSanitizer" not in out.stderr and "runtime error" not in out.stderr, out.stderr
    games = [LINE.match(l) for l in lines if l.startswith("seed ")]
    assert len(games) == 4 and all(games), lines
    for m in games:
        assert int(m.group(2)) > 0 and int(m.group(3)) >= 1
        assert m.group(6) != "none", m.group(0)  # every game ended: death or quit
    assert lines[-2] == "bot snapshots checked 4 mismatches 0", lines
    s = SUMMARY.match(lines[-1])
    assert s and s.group(1) == "4" and s.group(2) == "0", lines[-1]


def test_bot_reaches_depth_and_many_ends(bindir):
    out, lines = run_bot(tool(bindir), 24, 1)
    assert out.returncode == 0, out.stderr
    s = SUMMARY.match(lines[-1])
    assert s, lines[-1]
    games, crashes, deepest, causes, median = map(int, s.groups())
    assert (games, crashes) == (24, 0)
    assert deepest >= 5, lines
    assert causes >= 4, lines
    # the same seeds give the same games
    again = run_bot(tool(bindir), 3, 1)[1]
    assert again[:3] == lines[:3]


def test_content_stats(bindir):
    out = subprocess.run([str(tool(bindir)), "content", "--stats"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    last = out.stdout.rstrip("\n").split("\n")[-1]
    m = re.match(r"^content creatures (\d+) items (\d+) uniques (\d+) vaults (\d+)$", last)
    assert m, last
    assert int(m.group(2)) >= 60 and int(m.group(1)) >= 40 and int(m.group(3)) >= 5 and int(m.group(4)) >= 1
    assert re.search(r"^items\.POTION (\d+)$", out.stdout, re.M)
    bad = subprocess.run([str(tool(bindir)), "content", "--stats", "--dir", "/nonexistent"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode != 0 and "/nonexistent" in bad.stderr
