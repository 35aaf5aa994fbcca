#!/bin/bash
# bench-server — warrend under load. Usage: tests/load/bench-server.sh BINDIR
# Prints BENCH lines: keystroke-to-frame latency and RSS per session for
# N=100 and N=1000 sessions (one key per second each), watcher delay, the
# time to resume 1,000 unfinished games after a restart, web fan-out, and
# the limits (tests/load/bench_limits.py: a login storm, a key flood).
set -u
BIN=$(cd "${1:-bin}" && pwd)
TMP=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
ulimit -n 8192 2>/dev/null || true

# With two cores or more the daemon runs on core 0 and the load tool on core 1,
# as on a real server whose players are other machines; sharing a core, the
# scheduler's wake-up delay would be counted as the daemon's latency.
PIN0=; PIN1=
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then PIN0="taskset -c 0"; PIN1="taskset -c 1"; fi

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start() { # start DBFILE LOGFILE
    PORT=$(free_port)
    $PIN0 "$BIN/warrend" --telnet "127.0.0.1:$PORT" --http "" --db "$1" --test-hooks --register-per-hour 0 \
        --max-connections 5000 --max-per-ip 5000 --grace 600 2>"$2" &
    PID=$!
    for _ in $(seq 100); do grep -q "recovery done" "$2" 2>/dev/null && return 0; sleep 0.1; done
    echo "bench-server: warrend did not start" >&2; cat "$2" >&2; exit 1
}
stop() { kill -TERM "$PID"; wait "$PID"; PID=; }

run() { # run N M TAG SECONDS
    start "$TMP/n$1.db" "$TMP/n$1.log"
    $PIN1 "$BIN/warren-load" --port "$PORT" --n "$1" --m "$2" --tag "$3" --seconds "$4" --pid "$PID" \
        | grep -v '^#' | grep -v '^$' | { if [ "$2" = 0 ]; then grep -v watch; else cat; fi; }
    stop
}

run 100 10 .n100 10
run 1000 0 .n1000 10 | grep -v watch

# recovery: the 1,000 games of the last run are unfinished; restart and time it
start "$TMP/n1000.db" "$TMP/recover.log"
ms=$(grep -o 'recovery done: [0-9]* games resumed, [0-9]* broken, [0-9]* ms' "$TMP/recover.log" | awk '{print $8}')
n=$(grep -o 'recovery done: [0-9]*' "$TMP/recover.log" | awk '{print $3}')
echo "# recovered $n games"
echo "BENCH server.recover.ms ${ms:-nan}"
stop

# web: one game played over /ws/play and watched by 1,000 websocket clients
/usr/bin/python3 "$(dirname "$0")/../web/fanout.py" "$BIN" 1000 300

# limits: a 40-address login storm and a websocket key flood, another player's latency
/usr/bin/python3 "$(dirname "$0")/bench_limits.py" "$BIN" 10
