#!/bin/bash
# profile-server — instructions per key in warrend, counted by callgrind, so
# per-key costs can be compared on a busy machine (counts do not depend on
# load). Usage: tests/load/profile-server.sh BINDIR [N] [SECONDS]
# Runs the release warrend under valgrind --tool=callgrind, drives N telnet
# sessions (default 100) with bin/warren-load for SECONDS (default 5), then
# prints PROFILE lines: inclusive instructions per call of the per-key paths
# on the loop thread (player_key: engine step and journal queueing;
# session_broadcast: render, encode and send one frame; conn_send_raw) and
# the writer thread's instructions per journalled key.
set -u
BIN=$(cd "${1:-bin}" && pwd)
N=${2:-100}
SECS=${3:-5}
TMP=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
for tool in valgrind callgrind_annotate; do
    command -v $tool >/dev/null || { echo "profile-server: $tool missing (make deps)" >&2; exit 1; }
done
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$BIN/warrend" \
    --telnet "127.0.0.1:$PORT" --http "" --db "$TMP/p.db" --test-hooks --register-per-hour 0 \
    --max-connections 5000 --max-per-ip 5000 2>"$TMP/log" &
PID=$!
for _ in $(seq 300); do grep -q "recovery done" "$TMP/log" 2>/dev/null && break; sleep 0.1; done
grep -q "recovery done" "$TMP/log" || { echo "profile-server: warrend did not start" >&2; cat "$TMP/log" >&2; exit 1; }
"$BIN/warren-load" --port "$PORT" --n "$N" --seconds "$SECS" | grep '^#'
kill -TERM "$PID"; wait "$PID"; PID=
[ -n "${PROFILE_OUT:-}" ] && cp "$TMP/cg.out" "$PROFILE_OUT"  # keep it for callgrind_annotate
keys=$(/usr/bin/python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from journal").fetchone()[0])' "$TMP/p.db")
echo "# $keys keys journalled"
callgrind_annotate --tree=caller --inclusive=yes "$TMP/cg.out" 2>/dev/null > "$TMP/tree.txt"
/usr/bin/python3 - "$TMP/tree.txt" "$keys" <<'PY'
import re, sys
text, keys = open(sys.argv[1]).read(), int(sys.argv[2])
# per call: a function's inclusive cost over the calls its callers made
for fn, what in (("player_key", "engine step + journal queue, per key"),
                 ("session_broadcast", "render + encode + send, per frame"),
                 ("conn_send_raw", "socket write, per call")):
    for block in text.split("\n\n"):
        star = re.search(r"^\s*([\d,]+) .*\*\s+\S*:%s \[" % fn, block, re.M)
        if star:
            calls = sum(int(n.replace(",", "")) for n in re.findall(r"^\s*[\d,]+ .*< .*\(([\d,]+)x\)", block, re.M))
            ir = int(star.group(1).replace(",", ""))
            print("# %s: %s" % (fn, what))
            print("PROFILE server.ir.%s %d" % (fn, ir // max(calls, 1)))
            break
m = re.search(r"^\s*([\d,]+) .*\*\s+\S*:writer_main \[", text, re.M)
if m:
    print("# writer thread (journal, snapshots, games), per journalled key")
    print("PROFILE server.ir.writer_per_key %d" % (int(m.group(1).replace(",", "")) // max(keys, 1)))
PY
