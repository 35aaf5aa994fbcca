#!/bin/bash
# profile-server — where warrend's CPU per key goes. Two modes:
#
#   tests/load/profile-server.sh BINDIR [N] [SECONDS]
# Instructions per key, counted by callgrind, so per-key costs can be
# compared on a busy machine (counts do not depend on load). Runs the
# release warrend under valgrind --tool=callgrind, drives N telnet
# sessions (default 100) with bin/warren-load for SECONDS (default 5), then
# prints PROFILE lines: inclusive instructions per call of the per-key paths
# on the loop thread that the build keeps as functions (player_key: engine
# step and journal queueing; frames_broadcast: render, encode and send one
# frame; its parts session_render, frame_grid_take, frames_send) and the
# writer thread's instructions per journalled key. (Valgrind counts each
# byte of a `rep movsb` copy as an instruction: copies look dearer here
# than they are.)
#
#   tests/load/profile-server.sh --perf BINDIR [N] [SECONDS]
# The daemon's CPU per key at N players (default 10,000) split by part,
# under the real load and with the real caches (callgrind runs one thread
# at a time, far slower, and cannot see the kernel): syscalls_per_key.sh
# measures the CPU per key over SECONDS (default 5), then perf record -g
# (DWARF stacks) samples the daemon for 3 s more, and each part's share
# of the samples (a function and all it calls) times that CPU is printed
# as PROFILE server.us_per_key.PART. PROFILE_OUT=FILE keeps the profile
# (perf report -i FILE). Needs perf (root).
set -u
# --perf: the parts of a key's CPU, each an inclusive share of the samples
# (a function and what it calls) times the CPU per key measured before.
perf_parts() {
    local bin=$1 n=${2:-10000} secs=${3:-5} tmp data cpu
    tmp=$(mktemp -d)
    data=${PROFILE_OUT:-$tmp/perf.data}
    SPK_RECORD=$data SPK_EVENTS="--call-graph dwarf,16384 -F 1999" \
        "$(dirname "$0")/syscalls_per_key.sh" "$bin" "$n" "$secs" >"$tmp/spk" || {
        cat "$tmp/spk" >&2
        rm -rf "$tmp"
        return 1
    }
    grep -E '^# |cpu_per_key|sys.all.per_key |^BENCH keys' "$tmp/spk"
    cpu=$(awk '$2 == "cpu_per_key.us" { print $3 }' "$tmp/spk")
    perf report -i "$data" --children --sort sym -g none --percent-limit 0.1 2>/dev/null \
        >"$tmp/report"
    perf report -i "$data" --no-children --sort pid -g none 2>/dev/null >"$tmp/threads"
    /usr/bin/python3 - "$tmp/report" "$tmp/threads" "$cpu" <<'PY'
import re, sys
share, threads = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+[\d.]+%\s+\[.\]\s+(\S+)", line)
    if m:  # a name seen twice (two inlined copies): the larger share
        share[m.group(2)] = max(share.get(m.group(2), 0.0), float(m.group(1)))
for line in open(sys.argv[2]):
    m = re.match(r"\s*([\d.]+)%\s+(\d+):", line)
    if m:
        threads[int(m.group(2))] = float(m.group(1))
cpu = float(sys.argv[3])
loop = threads.get(min(threads), 0.0) if threads else 0.0  # the first thread: the loop's
# part, its function (None: computed), what it is
PARTS = [
    ("loop", None, "the loop thread, all of it"),
    ("frame", "on_journaled", "a commit's frames: render, encode, write"),
    ("frame.render", "session_render", "the game draws its frame"),
    ("frame.grid_copy", "frame_grid_take", "the baseline copied to the frame grid"),
    ("frame.encode", "diff_frame", "the change encoded (ANSI)"),
    ("frame.write", "ksys_write", "write(2), loopback delivery to the client included"),
    ("frame.held", None, "the round's held frames written at its end, outside on_journaled"),
    ("key.read", "ksys_read", "read(2), before libuv calls back"),
    ("key", "on_read", "a key decoded and applied"),
    ("key.engine", "game_input", "the engine's turn"),
    ("loop.poll", "do_epoll_wait", "epoll_wait(2)"),
    ("loop.rest", None, "the loop's own work, timers, and stacks perf could not unwind"),
    ("threads", None, "the other threads (the writer, the checkpointer)"),
    ("journal", "writer_main", "the writer: rows into SQLite, commits"),
    ("journal.sqlite", "sqlite3_step", "SQLite's statements (commit included)"),
]
# diff_frame's stack is often too deep to unwind: its own share, or ansi_diff's
share["diff_frame"] = max(share.get("diff_frame", 0.0), share.get("ansi_diff", 0.0))
# outhold's writes at the round's end (hold_flush from deliver_all); those
# of a round holding too much go at once, inside on_journaled (outhold_add)
share["frame.held"] = max(share.get("hold_flush", 0.0) - share.get("outhold_add", 0.0), 0.0)
share["loop.rest"] = loop - sum(share.get(f, 0.0) for f in ("on_journaled", "on_read", "ksys_read",
                                                              "do_epoll_wait", "frame.held"))
share["threads"] = 100.0 - loop
print("# %.1f us a key: the parts (%% of samples, inclusive)" % cpu)
for name, fn, what in PARTS:
    pct = share.get(fn or name, 0.0) if name != "loop" else loop
    print("# %-18s %5.1f %%  %s%s" % (name, pct, what, " (%s)" % fn if fn else ""))
    print("PROFILE server.us_per_key.%s %.1f" % (name, pct * cpu / 100))
PY
    rm -rf "$tmp"
}
if [ "${1:-}" = --perf ]; then
    shift
    perf_parts "$(cd "${1:-bin}" && pwd)" "${2:-10000}" "${3:-5}"
    exit
fi
BIN=$(cd "${1:-bin}" && pwd)
# no limit on how fast 127.0.0.1 connects, where the build has that setting
RATE_OFF=$("$BIN/warrend" --help 2>&1 | grep -q -- --request-rate && echo "--request-rate 0")
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
    --max-connections 5000 --max-per-ip 5000 $RATE_OFF 2>"$TMP/log" &
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
def per_call(fn):
    """fn's inclusive instructions over the calls its callers made: the
    callers' lines (< ... (Nx)) stand right above the line naming fn (or
    a clone of it: fn.isra.0)."""
    callers = r"((?:^\s*[\d,]+ .*< .*\([\d,]+x\).*\n)+)"
    star = r"^\s*([\d,]+) .*\*\s+\S*:%s(?:\.[\w.]+)?(?: \[.*\])?\s*$" % re.escape(fn)
    m = re.search(callers + star, text, re.M)
    if not m:
        return None
    calls = sum(int(n.replace(",", "")) for n in re.findall(r"\(([\d,]+)x\)", m.group(1)))
    return int(m.group(2).replace(",", "")) // max(calls, 1)
for fn, what in (("player_key", "engine step + journal queue, per key"),
                 ("frames_broadcast", "render + encode + send, per frame"),
                 ("session_render", "the render, per frame"),
                 ("frame_grid_take", "the baseline copied to the frame grid, per frame"),
                 ("frames_send", "encode + send, per frame")):
    ir = per_call(fn)
    if ir is not None:
        print("# %s: %s" % (fn, what))
        print("PROFILE server.ir.%s %d" % (fn, ir))
m = re.search(r"^\s*([\d,]+) .*\*\s+\S*:writer_main \[", text, re.M)
if m:
    print("# writer thread (journal, snapshots, games), per journalled key")
    print("PROFILE server.ir.writer_per_key %d" % (int(m.group(1).replace(",", "")) // max(keys, 1)))
PY
