"""warren-engine levels: every open cell reachable over 2,000 generated levels."""
import re
import subprocess

from harness import program

LINE = re.compile(
    r"level (\d+) seed (\d+) depth (\d+) size (\d+)x(\d+) rooms rect=(\d+) octagon=(\d+) "
    r"cross=(\d+) circle=(\d+) pillared=(\d+) overlap=(\d+) caves life=(\d+) rough=(\d+) "
    r"vaults (\d+) buildings (\d+) regions (\d+) named (\d+) spots (\d+) open (\d+) reachable (\d+)$"
)


def run_levels(bindir, *args, timeout=120):
    exe = program(bindir, "warren-engine")
    return subprocess.run([str(exe), "levels", *args], capture_output=True, text=True, timeout=timeout)


def test_two_thousand_levels_all_reachable(bindir):
    p = run_levels(bindir, "--seed", "20260522", "--count", "2000")
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    lines = p.stdout.splitlines()
    assert lines[-1] == "levels 2000 reachable_min 100"
    rows = [LINE.match(line) for line in lines[:-1]]
    assert len(rows) == 2000 and all(rows), [l for l, m in zip(lines, rows) if not m][:3]
    depths = {int(m.group(3)) for m in rows}
    assert depths == set(range(21))
    totals = [0] * 20
    for m in rows:
        for i in range(20):
            totals[i] = totals[i] + int(m.group(i + 1))
        assert int(m.group(20)) == 100
        assert int(m.group(19)) > 200  # open cells
    # every room shape, both caves and vaults show up across the run
    for col in range(5, 14):
        assert totals[col] > 0, col


def test_same_seed_same_levels_and_town_first(bindir):
    a = run_levels(bindir, "--seed", "7", "--count", "42")
    b = run_levels(bindir, "--seed", "7", "--count", "42")
    c = run_levels(bindir, "--seed", "8", "--count", "42")
    assert a.returncode == 0 and a.stdout == b.stdout
    assert a.stdout != c.stdout
    first = LINE.match(a.stdout.splitlines()[0])
    assert first.group(3) == "0" and int(first.group(15)) >= 2  # the town has buildings


def test_show_draws_the_map(bindir):
    p = run_levels(bindir, "--seed", "3", "--count", "1", "--depth", "5", "--show", "--size", "80x21")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert LINE.match(lines[0]) and lines[0].split()[7] == "80x21"
    grid = lines[1:22]
    assert all(len(row) == 80 for row in grid)
    text = "".join(grid)
    assert text.count("<") == 1 and text.count(">") == 1
    assert lines[-1] == "levels 1 reachable_min 100"


def test_bad_arguments(bindir):
    assert run_levels(bindir, "--count").returncode == 2
    assert run_levels(bindir, "--size", "5x5").returncode == 2
    assert run_levels(bindir, "--bogus", "1").returncode == 2


def test_bench_lines(bindir):
    p = run_levels(bindir, "--bench")
    assert p.returncode == 0
    names = re.findall(r"^BENCH (engine\.\w+\.us) ([0-9.]+) us$", p.stdout, re.M)
    assert [n for n, _ in names] == ["engine.levelgen.us", "engine.fov.us"]
    assert all(float(v) > 0 for _, v in names)
