#!/usr/bin/python3
"""nethack_capture — what Debian's NetHack writes to its terminal on the
seeded walk of tests/bench/nethack_walk.py, saved piece by piece for
tests/tools/hosted_bench --walk (the render of a real game, replayed).

  nethack_capture.py OUT [--keys K] [--seed S] [--kind KIND]

OUT holds pieces, each a 4-byte little-endian length and the bytes: the
first is everything up to the map of level 1, then one per key (what
NetHack wrote until it went quiet). NetHack cannot be seeded, so each
capture is a game of its own; compare figures on one file."""
import argparse
import os
import pathlib
import struct
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "bench"))
import nethack_walk as nw  # noqa: E402


def capture(out, keys, seed, kind):
    with nw.game("nh-capture-") as (_, fd):
        pieces = [nw.to_map(fd)]
        for k in nw.keys_of(kind, keys, seed):
            os.write(fd, k.encode())
            pieces.append(nw.drain(fd))
    with open(out, "wb") as f:
        for p in pieces:
            f.write(struct.pack("<I", len(p)) + p)
    print(f"# {len(pieces)} pieces, {sum(map(len, pieces))} bytes in {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--kind", default="walk")
    a = ap.parse_args()
    capture(a.out, a.keys, a.seed, a.kind)


if __name__ == "__main__":
    main()
