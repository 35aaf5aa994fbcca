#!/bin/bash
# Regenerates tests/golden/engine_hashes.txt: the state hash of seeds 1-100
# after the fixed keys in engine_keys.bin. Run on purpose (make golden) when
# generation or rules change; the diff shows what changed.
# Usage: tests/golden/engine.sh BINDIR
set -euo pipefail
bin="${1:?usage: engine.sh BINDIR}/warren-engine"
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/engine_hashes.txt"
tmp="$out.tmp"
: > "$tmp"
for seed in $(seq 1 100); do
    h=$("$bin" play --seed "$seed" --keys "$here/engine_keys.bin" | tail -n 1)
    echo "$seed ${h#hash }" >> "$tmp"
done
mv "$tmp" "$out"
echo "golden: wrote $out"
