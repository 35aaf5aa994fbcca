"""warren-engine world: the surface world of a seed, printed as its map and
legend and one last line of counts that agree with what it printed."""
import re
import subprocess

from harness import program

LAST = re.compile(r"world seed (\d+) territories (\d+) rivers (\d+) towns (\d+)$")


def run_world(bindir, *args):
    exe = program(bindir, "warren-engine")
    return subprocess.run([str(exe), "world", *args], capture_output=True, text=True, timeout=60)


def section(lines, title):
    """The indented lines under a legend heading."""
    i = lines.index(title)
    out = []
    for line in lines[i + 1:]:
        if not line.startswith("  "):
            break
        out.append(line)
    return out


def test_world_prints_its_map_and_counts(bindir):
    for seed in ("1", "42", "18446744073709551615"):
        p = run_world(bindir, "--seed", seed)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        m = LAST.match(lines[-1])
        assert m and m.group(1) == seed, lines[-1]
        terrs, rivers, towns = (int(m.group(i)) for i in (2, 3, 4))
        assert lines[0].startswith("The continent of ")
        grid = lines[1:lines.index(next(l for l in lines if l.startswith("~ sea")))]
        assert len({len(row) for row in grid}) == 1 and len(grid) >= 8
        text = "".join(grid)
        assert text.count("@") == 1 and text.count("@") + text.count("*") == towns
        assert set(text) <= set("~:-|/\\*@" + "abcdefghijklmnop"[:terrs])
        assert len(section(lines, "Territories:")) == terrs
        assert len(section(lines, "Rivers:")) == rivers
        named = [re.sub(r" \([^)]*\)", "", l.split(":", 1)[1]).split(",")
                 for l in section(lines, "Territories:")]
        assert sum(len(n) for n in named) == towns
        assert all(n[0].strip() for n in named)  # every territory has its seat
        assert any(l.startswith("Your town: Burrowmouth, in ") for l in lines)
        assert section(lines, "Water routes:"), "no water routes"


def test_same_seed_same_world_other_seeds_differ(bindir):
    a, b, c = (run_world(bindir, "--seed", s).stdout for s in ("5", "5", "6"))
    assert a == b and a != c


def test_world_refuses_bad_options(bindir):
    p = run_world(bindir, "--nope")
    assert p.returncode == 2 and "usage: warren-engine world" in p.stderr
