#!/usr/bin/python3
"""calib_spread — how steady the NetHack calibration is: calibrations of
new games (each run another dungeon) and of the seeded game (the same game
every run, root only) alternating in one sitting.

  calib_spread.py [--calibrations K] [--runs R] [--keys N]

Each calibration is R runs of nethack_walk.py's walk, as calibrated.py
plays them (default 9); K of each kind (default 5), new games first, then
in turn. Prints each calibration's median CPU per key, and per kind: the
medians' max/min and coefficient of variation, the same for the median of
the first 5 runs of each calibration, and the runs' own spread and bytes
per key (one figure for the seeded game: the same walk)."""
import argparse
import statistics
import sys

import nethack_walk


def spread(xs):
    """max/min and coefficient of variation (per cent) of xs."""
    cv = statistics.stdev(xs) / statistics.mean(xs) * 100 if len(xs) > 1 else 0.0
    return f"max/min {max(xs) / min(xs):.2f}, cv {cv:.1f} %"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calibrations", type=int, default=5)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--keys", type=int, default=200)
    a = ap.parse_args()
    if not nethack_walk.can_seed():
        print("calib_spread: NetHack cannot be seeded here (it needs root)", file=sys.stderr)
        return 1
    cals = {"new games": [], "seeded": []}
    for k in range(a.calibrations):
        for kind in ("new games", "seeded") if k % 2 == 0 else ("seeded", "new games"):
            rs = nethack_walk.runs(a.runs, a.keys, seeded=kind == "seeded")
            per_key = [r["cpu_ns"] / r["keys"] / 1000 for r in rs]
            cals[kind].append((per_key, [r["bytes"] / r["keys"] for r in rs]))
            print(f"# {kind}: median {statistics.median(per_key):.1f} us, runs "
                  + " ".join(f"{x:.1f}" for x in per_key), flush=True)
    for kind, cs in cals.items():
        for n in sorted({min(5, a.runs), a.runs}):
            meds = [statistics.median(p[:n]) for p, _ in cs]
            print(f"{kind}, median of {n} runs: " + " ".join(f"{m:.1f}" for m in meds)
                  + f" ({spread(meds)})")
        runs = [x for p, _ in cs for x in p]
        bpk = [x for _, b in cs for x in b]
        print(f"{kind}, every run: {min(runs):.1f} / {statistics.median(runs):.1f} / "
              f"{max(runs):.1f} us ({spread(runs)}); bytes per key {min(bpk):.1f}-{max(bpk):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
