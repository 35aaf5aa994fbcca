#!/bin/bash
# profile-writer — the journal writer's instructions per key while the
# players play, without the ramp-up (accounts, games, first snapshots):
#
#   tests/load/profile-writer.sh BINDIR [N] [SECONDS]
#
# Runs the release warrend under callgrind with each thread counted apart,
# drives N telnet sessions (default 100) with bin/warren-load, zeroes the
# counters once all are in play, counts SECONDS (default 15), then prints
# PROFILE lines: the writer thread's instructions per journalled key, and
# its parts per key (the rows' statements, BEGIN and COMMIT, the WAL
# frames a commit writes), with the commits and the rows a commit. At 100
# players nearly every key is a commit of its own; at 10,000 a commit holds
# several (warren-admin health's "writer:" line counts both).
# PROFILE_OUT=DIR keeps the callgrind files (one per thread).
set -u
BIN=$(cd "${1:-bin}" && pwd)
N=${2:-100}
SECS=${3:-15}
TMP=$(mktemp -d)
OUT=${PROFILE_OUT:-$TMP}
PID='' LPID=''
cleanup() {
    [ -n "$LPID" ] && kill "$LPID" 2>/dev/null
    [ -n "$PID" ] && kill "$PID" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
for tool in valgrind callgrind_annotate callgrind_control; do
    command -v $tool >/dev/null || { echo "profile-writer: $tool missing (make deps)" >&2; exit 1; }
done
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$OUT/cg.out" \
    "$BIN/warrend" --telnet "127.0.0.1:$PORT" --http "" --db "$TMP/p.db" --test-hooks \
    --register-per-hour 0 --max-connections 5000 --max-per-ip 5000 --request-rate 0 2>"$TMP/log" &
PID=$!
for _ in $(seq 300); do grep -q "recovery done" "$TMP/log" 2>/dev/null && break; sleep 0.1; done
grep -q "recovery done" "$TMP/log" || { echo "profile-writer: warrend did not start" >&2; cat "$TMP/log" >&2; exit 1; }
: >"$TMP/load"
"$BIN/warren-load" --port "$PORT" --n "$N" --seconds 3600 --warmup 1 >"$TMP/load" &
LPID=$!
for _ in $(seq 600); do grep -q "in play after" "$TMP/load" && break; sleep 1; done
grep -q "in play after" "$TMP/load" || { echo "profile-writer: the players never all played" >&2; exit 1; }
sleep 2
health() { # "commits writes" of the writer so far
    "$BIN/warren-admin" --control "$TMP/p.db.ctl" health |
        awk '/^writer:/ { print $2, $4 }'
}
rows() {
    /usr/bin/python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from journal").fetchone()[0])' "$TMP/p.db"
}
h0=$(health) k0=$(rows)
callgrind_control -z "$PID" >/dev/null
sleep "$SECS"
callgrind_control -d "$PID" >/dev/null
h1=$(health) k1=$(rows)
kill "$LPID"; wait "$LPID" 2>/dev/null; LPID=
kill -TERM "$PID"; wait "$PID"; PID=
# the dump after the zeroing: OUT/cg.out.1-NN, one file a thread
writer=$(grep -l 'writer_main' "$OUT"/cg.out.1-* 2>/dev/null | head -1)
[ -n "$writer" ] || { echo "profile-writer: no writer thread in the dump" >&2; exit 1; }
callgrind_annotate --inclusive=yes "$writer" 2>/dev/null >"$TMP/writer.txt"
/usr/bin/python3 - "$TMP/writer.txt" "$((k1 - k0))" "$h0" "$h1" <<'PY'
import re, sys
text, keys = open(sys.argv[1]).read(), max(int(sys.argv[2]), 1)
c0, w0 = map(int, sys.argv[3].split())
c1, w1 = map(int, sys.argv[4].split())
def incl(fn):
    m = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\S*:%s \[" % re.escape(fn), text, re.M)
    return int(m.group(1).replace(",", "")) if m else 0
total = int(re.search(r"^\s*([\d,]+) \([^)]*\)\s+PROGRAM TOTALS", text, re.M).group(1).replace(",", ""))
commits = max(c1 - c0, 1)
print("# %d keys journalled, %d commits, %.2f writes a commit" % (keys, commits, (w1 - w0) / commits))
for name, ir, what in (("writer_per_key.played", total, "the writer thread, all of it"),
                       ("writer.rows", incl("run_step"), "the ops' statements (an append: its row)"),
                       ("writer.begin_commit", incl("exec_stmt"), "BEGIN, COMMIT, savepoints"),
                       ("writer.wal_frames", incl("sqlite3WalFrames"), "of the commits: WAL frames, checksums")):
    print("# %s: %s" % (name, what))
    print("PROFILE server.ir.%s %d" % (name, ir // keys))
PY
