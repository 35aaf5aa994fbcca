#!/bin/bash
# bench-burst — a burst of keys against two builds, in turns. Usage:
#   tests/load/bench-burst.sh NEWBIN OLDBIN [N] [ROUNDS] [out]
# Each round runs one daemon of each build (in turns, which first), pinned
# to core 0 as bench-server.sh runs them, and `warren-load --in-step` with
# N players (3000) on core 1: every player types the same key of its
# pattern in the same second, so each second's keys come back as one
# burst of commits (with "out", out of step: the usual load, to check the
# rest did not get worse). Prints a line per run: the build, the load average,
# the players' p50 and p99 (us), late keys, CPU per key, the daemon's
# longest loop turn in the window and the most CPU a turn took (ms, its
# turn meter: warren-admin health) and the turns of 50 ms or more its stall probe logged, with the
# longest of those.
set -u
NEW=$(cd "$1" && pwd)
OLD=$(cd "$2" && pwd)
N=${3:-3000}
ROUNDS=${4:-3}
STEP=--in-step
[ "${5:-}" = out ] && STEP=
SECS=10
TMP=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
PIN0=; PIN1=
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then PIN0="taskset -c 0"; PIN1="taskset -c 1"; fi
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

one() { # one BIN NAME: a daemon, a load run, a line
    local bin=$1 name=$2 db=$TMP/$2.db log=$TMP/$2.log port
    port=$(free_port)
    $PIN0 "$bin/warrend" --telnet "127.0.0.1:$port" --http "" --db "$db" --test-hooks \
        --register-per-hour 0 --max-connections 20000 --max-per-ip 20000 --grace 600 \
        --request-rate 0 2>"$log" &
    PID=$!
    for _ in $(seq 600); do grep -q "recovery done" "$log" 2>/dev/null && break; sleep 0.1; done
    $PIN1 "$bin/warren-load" --port "$port" --n "$N" --seconds "$SECS" $STEP --pid "$PID" >"$TMP/out" &
    local lpid=$!
    while kill -0 "$lpid" 2>/dev/null && ! grep -q '^# ramp-up' "$TMP/out" 2>/dev/null; do sleep 0.1; done
    "$bin/warren-admin" --control "$db.ctl" health >/dev/null 2>&1 # the meter goes on
    local from
    from=$(wc -l <"$log")
    wait "$lpid" || echo "# $name: the load run failed"
    local longest cpu
    "$bin/warren-admin" --control "$db.ctl" health >"$TMP/health" 2>/dev/null
    longest=$(sed -n 's/.*since the meter went on.*longest \([0-9]*\) us.*/\1/p' "$TMP/health")
    cpu=$(sed -n 's/.*since the meter went on.*most CPU \([0-9]*\) us.*/\1/p' "$TMP/health")
    kill -TERM "$PID"
    wait "$PID"
    PID=
    awk -v name="$name" -v load="$(cut -d' ' -f1 /proc/loadavg)" -v longest="${longest:-0}" -v cpu1="${cpu:-0}" \
        -v from="$from" -v logf="$log" '
        $2 ~ /^server\.latency\.p50\.us/ { p50 = $3 } $2 ~ /^server\.latency\.p99\.us/ { p99 = $3 }
        $2 ~ /^server\.keys\.late/ { late = $3 } $2 ~ /^server\.cpu_per_key\.us/ { cpu = $3 }
        END {
            while ((getline l < logf) > 0)
                if (++i > from && l ~ / loop stalled /) { split(l, w, "loop stalled "); s++; ms = w[2] + 0 > ms ? w[2] + 0 : ms }
            printf "%-4s load %s p50 %s p99 %s late %s cpu_per_key %s longest_turn_ms %.1f most_cpu_ms %.1f stalls>=50ms %d (longest %d ms)\n",
                name, load, p50, p99, late, cpu, longest / 1000, cpu1 / 1000, s, ms
        }' "$TMP/out"
}

for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
        one "$NEW" new; one "$OLD" old
    else
        one "$OLD" old; one "$NEW" new
    fi
done
