#!/bin/bash
# syscalls_per_key — what the kernel does for warrend per key answered.
# Usage: tests/load/syscalls_per_key.sh BINDIR [N] [SECONDS]
# One daemon (core 0) and N telnet players of the own game keying once a
# second (bin/warren-load, core 1). Once every player plays, for SECONDS
# seconds: the daemon's system calls by name and its context switches
# (perf stat's tracepoints, each thread apart: "loop" the home loop,
# "writer" etc. by thread name), over the keys answered meanwhile (the load
# tool's marks), and its CPU per key (/proc/PID/stat). Prints BENCH lines
# sys.<call>.per_key.<thread>, sys.all.per_key, cs.per_key.<thread>,
# cpu_per_key.us and each thread's cpu_per_key.us.<thread>. Needs perf
# with tracepoint access (root).
set -u
BIN=$(cd "${1:-bin}" && pwd)
# no limit on how fast 127.0.0.1 connects, where the build has that setting
RATE_OFF=$("$BIN/warrend" --help 2>&1 | grep -q -- --request-rate && echo "--request-rate 0")
N=${2:-3000}
SECS=${3:-10}
TMP=$(mktemp -d)
PID='' LPID=''
cleanup() {
    [ -n "$LPID" ] && kill "$LPID" 2>/dev/null
    [ -n "$PID" ] && kill "$PID" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
PIN0=; PIN1=
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then PIN0="taskset -c 0"; PIN1="taskset -c 1"; fi
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

$PIN0 "$BIN/warrend" --telnet "127.0.0.1:$PORT" --http "" --db "$TMP/w.db" --test-hooks \
    --register-per-hour 0 --max-connections 20000 --max-per-ip 20000 --grace 600 $RATE_OFF 2>"$TMP/log" &
PID=$!
for _ in $(seq 100); do grep -q "recovery done" "$TMP/log" 2>/dev/null && break; sleep 0.1; done
$PIN1 "$BIN/warren-load" --port "$PORT" --n "$N" --seconds 3600 --warmup 1 >"$TMP/out" &
LPID=$!

mark() { # mark: the keys answered since the last mark
    local before
    before=$(grep -c '^# mark [0-9]*: playing' "$TMP/out")
    if ! kill -USR1 "$LPID" 2>/dev/null; then
        echo "syscalls_per_key: warren-load ended:" >&2
        tail -20 "$TMP/out" >&2
        exit 1
    fi
    for _ in $(seq 100); do
        [ "$(grep -c '^# mark [0-9]*: playing' "$TMP/out")" -gt "$before" ] && break
        sleep 0.05
    done
    grep '^# mark [0-9]*: playing' "$TMP/out" | tail -1
}
sleep 2 # its SIGUSR1 handler is set up
# wait until every player plays, then one more second of play
for _ in $(seq 600); do
    line=$(mark) || exit 1
    case $line in *"playing=$N "*) break ;; esac
    sleep 1
done
sleep 2
mark >/dev/null || exit 1
cpu0=$(awk '{ print $14 + $15 }' /proc/"$PID"/stat)
threads_cpu() { # "tid ticks" of every thread (utime + stime)
    for t in /proc/"$PID"/task/*; do echo "${t##*/} $(awk '{ print $14 + $15 }' "$t/stat")"; done
}
threads_cpu >"$TMP/tcpu0"
CALLS="read write writev readv sendmsg recvmsg epoll_wait epoll_pwait epoll_ctl futex sched_yield pwrite64 pread64 fdatasync fsync ioctl lseek fcntl newfstatat openat close getrandom brk mmap munmap madvise"
EV=(-e context-switches -e raw_syscalls:sys_enter)
for c in $CALLS; do EV+=(-e "syscalls:sys_enter_$c"); done
perf stat --per-thread -x, -o "$TMP/perf" "${EV[@]}" -p "$PID" -- sleep "$SECS"
cpu1=$(awk '{ print $14 + $15 }' /proc/"$PID"/stat)
threads_cpu >"$TMP/tcpu1"
line=$(mark) || exit 1
# SPK_RECORD=FILE: then 3 s of the calls with their stacks (perf report -i
# FILE); SPK_EVENTS="-F 999" for where the CPU goes instead
if [ -n "${SPK_RECORD:-}" ]; then
    # shellcheck disable=SC2086 # the events are words
    perf record -q -g ${SPK_EVENTS:--e raw_syscalls:sys_enter -e context-switches} \
        -o "$SPK_RECORD" -p "$PID" -- sleep 3
fi
keys=$(echo "$line" | grep -o ' keys=[0-9]*' | cut -d= -f2)
echo "# $line"
for t in /proc/"$PID"/task/*; do echo "${t##*/} $(cat "$t/comm")"; done >"$TMP/names"
hz=$(getconf CLK_TCK)
# thread names: the home loop is the one whose tid is the pid
awk -F, -v keys="$keys" -v pid="$PID" '
    FILENAME != ARGV[2] { split($0, w, " "); comm[w[1]] = w[2]; next }
    /^#/ || NF < 4 { next }
    {
        n = split($1, a, "-"); tid = a[n]; name = tid in comm ? comm[tid] : "gone"
        if (tid == pid) name = "loop"
        gsub(/[^A-Za-z0-9_]/, "_", name)
        ev = $4; sub(/^syscalls:sys_enter_/, "", ev); sub(/^raw_syscalls:sys_enter/, "all", ev)
        if ($2 + 0 == 0) next
        t[ev "." name] += $2; tot[ev] += $2
    }
    END {
        for (k in t) {
            split(k, p, "."); kind = p[1] == "context-switches" ? "cs" : "sys." p[1]
            printf "BENCH %s.per_key.%s %.3f\n", kind, p[2], t[k] / keys
        }
        for (e in tot) if (e != "context-switches") printf "BENCH sys.%s.per_key %.3f\n", e, tot[e] / keys
        printf "BENCH cs.per_key %.3f\n", tot["context-switches"] / keys
    }' "$TMP/names" "$TMP/perf" | sort
# each thread's CPU per key, by name (threads of one name summed)
awk -v keys="$keys" -v hz="$hz" -v pid="$PID" '
    FILENAME == ARGV[1] { split($0, w, " "); comm[w[1]] = w[2]; next }
    FILENAME == ARGV[2] { t0[$1] = $2; next }
    {
        name = $1 == pid ? "loop" : ($1 in comm ? comm[$1] : "gone")
        gsub(/[^A-Za-z0-9_]/, "_", name)
        cpu[name] += $2 - ($1 in t0 ? t0[$1] : 0)
    }
    END { for (n in cpu) printf "BENCH cpu_per_key.us.%s %.2f\n", n, cpu[n] * 1e6 / hz / keys }
' "$TMP/names" "$TMP/tcpu0" "$TMP/tcpu1" | sort
awk -v a="$cpu0" -v b="$cpu1" -v k="$keys" -v hz="$hz" \
    'BEGIN { printf "BENCH cpu_per_key.us %.1f\nBENCH keys %d\n", (b - a) * 1e6 / hz / k, k }'
