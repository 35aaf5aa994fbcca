#!/bin/bash
# bench-server — warrend under load. Usage: tests/load/bench-server.sh BINDIR
# Prints BENCH lines from bin/warren-load (see its --help): keystroke-to-frame
# latency, keys/s, late keys, failed sessions, ramp-up time and RSS per
# session for N=100 (with 10 watchers: watcher delay), N=1000 and N=10000
# players keying once a second, then every player but one leaving at once
# (detach_all.stall: the survivor's slowest answer meanwhile, and the
# daemon's own longest loop turn, loop.stall); N=10000 again while 100
# terminals look at the watch list and 10 browsers at the lobby (.viewers,
# tests/load/viewers.py); the daemon's maximum keys/s (N=100, saturated),
# and with loops = 1 and 2 unpinned, their ratio (loops2_over_loops1);
# the time to resume 1,000 unfinished games after a restart, and after a
# SIGKILL of 10,000 live games the time until the listener answers, a
# returning player's first frame and the time until every game is
# restored (tests/load/recover_bench.py); web fan-out;
# 10,000 browser spectators (tests/web/spectators.py, bin/warren-spectate);
# the limits (tests/load/bench_limits.py: another player's latency in a
# 40-address login storm and a websocket key flood); a hosted game's
# 32 MiB recording asked for as a replay and an asciicast, once, again and
# by 16 clients at once (tests/load/replay_bench.py: time, CPU and memory
# per request, the loop's longest turn; with WARREN_BENCH_BASE=BINDIR
# another build measured beside it); a hosted program
# flooding its output against two other players' keys (bench_hosted.py;
# WARREN_BENCH_BASE=DIR runs it against the build in DIR too). With
# WARREN_BENCH_ONLY=viewers only the two N=10000 runs and their p99 ratio
# (viewers_over_plain; the goal is at most 1.2); WARREN_BENCH_LOOPS=L runs
# those two daemons with --loops L, unpinned (the loops have both cores,
# which the load tool and viewers share with them), and WARREN_BENCH_N=N
# with N players instead of 10,000 (a machine that 10,000 saturate).
# There the two runs are WARREN_BENCH_ROUNDS=R (3) pairs, in turns plain
# or viewers first, for WARREN_BENCH_SECONDS (10) each and the plain one
# without the detach-all: each round's p99s and ratio (# round lines),
# each figure's median over the rounds under the one-pair names, the
# ratios of those medians, each arm's p99 spread ((max - min) / median)
# and the home loop's turn CPU p99 in the window (.loop.turn_cpu: the
# daemon's own clock, less moved by the machine's other load), with its
# ratio.
# Network mode
# (tests/load/bench_net.py, root): the plain N=10000 run again with the
# daemon and the load tool as two machines, network namespaces joined by
# a veth pair, each side's receive work on its own core (over loopback a
# client's receive runs in the daemon's send, on the daemon's core):
# server.*.n10000.net beside the loopback figures, their ratios
# (net_over_loopback), and web.spectators.one5000.net (5,000 watchers of
# one game, tests/web/spectators.py with WARREN_BENCH_NET=1).
# WARREN_BENCH_ONLY=net runs only the N=10000 network run. Each N=10000 run
# takes about 30 s, 1.3 GB for the daemon and 10,200 descriptors each side;
# WARREN_BENCH_10K=0 skips them. Exits 1 when a run fails (a session that
# never played, a key never answered), after printing that run's whole
# report.
set -u
BIN=$(cd "${1:-bin}" && pwd)
# no limit on how fast 127.0.0.1 connects, where the build has that setting
RATE_OFF=$("$BIN/warrend" --help 2>&1 | grep -q -- --request-rate && echo "--request-rate 0")
TMP=$(mktemp -d)
PID=
FAILED=0
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
# each side holds one socket per session
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# With two cores or more the daemon runs on core 0 and the load tool on core 1,
# as on a real server whose players are other machines; sharing a core, the
# scheduler's wake-up delay would be counted as the daemon's latency.
PIN0=; PIN1=
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then PIN0="taskset -c 0"; PIN1="taskset -c 1"; fi

DAEMON_EXTRA=() # flags every daemon of a run gets (loops_saturate)
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start() { # start DBFILE LOGFILE [DAEMON FLAGS...]
    local db=$1 log=$2
    shift 2
    PORT=$(free_port)
    $PIN0 "$BIN/warrend" --telnet "127.0.0.1:$PORT" --http "" --db "$db" --test-hooks --register-per-hour 0 \
        --max-connections 20000 --max-per-ip 20000 --grace 600 $RATE_OFF "${DAEMON_EXTRA[@]}" "$@" 2>"$log" &
    PID=$!
    for _ in $(seq 100); do grep -q "recovery done" "$log" 2>/dev/null && return 0; sleep 0.1; done
    echo "bench-server: warrend did not start" >&2; cat "$log" >&2; exit 1
}
stop() { kill -TERM "$PID"; wait "$PID"; PID=; }

# CPU ticks of each of the daemon's threads: "home" (the main loop), the
# other loops by name (warren-loopN), "other" for the rest summed.
threads_cpu() {
    for t in /proc/"$PID"/task/*; do
        n=$(cat "$t/comm" 2>/dev/null) || continue
        [ "${t##*/}" = "$PID" ] && n=home
        case $n in home | warren-loop*) ;; *) n=other ;; esac
        awk -v n="$n" '{ print n, $14 + $15 }' "$t/stat" 2>/dev/null
    done | awk '{ t[$1] += $2 } END { for (n in t) print n, t[n] }'
}

# The home loop's turns over the measured window (TURNS set): its meter
# goes on with a health when the load tool's ramp-up is over, and the
# health SECONDS later gives each turn's CPU (the thread's own clock, which
# other processes on the core move less than a key's wall-clock latency)
# in power-of-two buckets: server.loop.turn_cpu.p99.usTAG, the p99
# interpolated in its bucket, and the window's turns.
TURNS= ROUND=
turns() { # turns LOADPID SECONDS TAG: BENCH lines in $TMP/turns
    local ctl=${DB_NOW}.ctl
    : >"$TMP/turns"
    while kill -0 "$1" 2>/dev/null && ! grep -q '^# ramp-up' "$TMP/out"; do sleep 0.1; done
    kill -0 "$1" 2>/dev/null || return 0
    "$BIN/warren-admin" --control "$ctl" health >/dev/null 2>&1
    sleep "$(($2 - 1))" # the window, less a second for the load tool to end in
    "$BIN/warren-admin" --control "$ctl" health 2>/dev/null | awk -v tag="$3" '
        /^loop turns: / && /since the meter went on/ {
            s = $0; sub(/.*CPU per turn/, "", s); n = split(s, w, " ")
            for (i = 1; i + 2 <= n; i += 3) { # "<64 us: N" or ">=4096 us: N"
                lim = w[i]; top = lim ~ /^>=/; gsub(/[<>=]/, "", lim)
                k++; hi[k] = lim + 0; last[k] = top; cnt[k] = w[i + 2] + 0; all += cnt[k]
            }
            if (!all) exit
            want = 0.99 * all
            for (j = 1; j <= k; j++) {
                lo = last[j] ? hi[j] : (hi[j] == 64 ? 0 : hi[j] / 2)
                if (sum + cnt[j] >= want) {
                    p = last[j] ? lo : lo + (hi[j] - lo) * (want - sum) / cnt[j]
                    break
                }
                sum += cnt[j]
            }
            printf "BENCH server.loop.turn_cpu.p99.us%s %.1f\n", tag, p
            printf "BENCH server.loop.turns%s %d\n", tag, all
        }' >"$TMP/turns"
}

run() { # run N M TAG SECONDS [--saturate | --detach-all S | --viewers K]: one daemon, one warren-load run
    local n=$1 m=$2 tag=$3 secs=$4 daemon=() only=. name=n$1 viewers= vpid= http=-
    shift 4
    if [ "${1:-}" = --viewers ]; then
        viewers=$2
        shift 2
        http=$(free_port)
        daemon=(--http "127.0.0.1:$http") # the lobby is open too
        only='latency|failed|late|cpu_per_key'
        name=n$n-viewers
    fi
    if [ "${1:-}" = --saturate ]; then
        daemon=(--input-rate 10000000) # the default 2,000 bytes/s would cap each player
        only='max|saturated'           # the paced run of this N reports the rest
        name=n$n-saturate
    fi
    name=$name$ROUND # a new database each round
    DB_NOW=$TMP/$name.db
    start "$TMP/$name.db" "$TMP/$name.log" "${daemon[@]}"
    if [ -n "$viewers" ]; then
        $PIN1 /usr/bin/python3 "$(dirname "$0")/viewers.py" "$PORT" "$http" "$viewers" 600 10 >"$TMP/viewers" &
        vpid=$!
        sleep 2
    fi
    threads_cpu >"$TMP/cpu.before"
    $PIN1 "$BIN/warren-load" --port "$PORT" --n "$n" --m "$m" --tag "$tag" --seconds "$secs" \
        --pid "$PID" "$@" >"$TMP/out" &
    local lpid=$!
    if [ -n "$TURNS" ]; then turns "$lpid" "$secs" "$tag"; fi
    wait "$lpid" || { FAILED=1; cat "$TMP/out"; }
    threads_cpu >"$TMP/cpu.after"
    grep '^BENCH' "$TMP/out" | grep -E "$only"
    if [ -n "$TURNS" ]; then cat "$TMP/turns"; fi
    if [ -n "$vpid" ]; then kill -TERM "$vpid" 2>/dev/null; wait "$vpid" 2>/dev/null; cat "$TMP/viewers"; fi
    if [ "${1:-}" = --detach-all ]; then # the daemon's longest turn from the first detach on
        awk '/ detach user=/ { on = 1 } on && / loop stalled / { ms = $5 > ms ? $5 : ms }
             END { printf "BENCH server.loop.stall.ms%s %d\n", tag, ms }' tag="$tag" "$TMP/$name.log"
    fi
    stop
}

ratios() { # ratios SUFFIX NAME PLAIN OTHER [N]: p99 and CPU per key of .nN.SUFFIX over .nN (10000)
    awk -v sfx="$1" -v name="$2" -v n="n${5:-10000}" '
        $2 == "server.latency.p99.us." n { a = $3 } $2 == "server.latency.p99.us." n "." sfx { b = $3 }
        $2 == "server.cpu_per_key.us." n { c = $3 } $2 == "server.cpu_per_key.us." n "." sfx { d = $3 }
        END { if (a > 0 && b > 0) printf "BENCH server.latency.p99.%s.%s.ratio %.2f\n", n, name, b / a
              if (c > 0 && d > 0) printf "BENCH server.cpu_per_key.%s.%s.ratio %.2f\n", n, name, d / c }' "$3" "$4"
}

figures() { # figures FILE...: each file's BENCH lines, a name once (a failed run's report has them twice)
    local f
    for f; do awk '$1 == "BENCH" && !seen[$2]++' "$f"; done
}
medians() { # medians FILE...: each BENCH figure's median over the files
    figures "$@" | awk '$1 == "BENCH" && $3 ~ /^[-0-9.e+]+$/ { v[$2] = v[$2] " " $3; if ($3 !~ /^-?[0-9]+$/) f[$2] = 1 }
        END { for (name in v) {
                  k = split(v[name], y, " ")
                  for (i = 2; i <= k; i++) for (j = i; j > 1 && y[j - 1] + 0 > y[j] + 0; j--) { t = y[j]; y[j] = y[j - 1]; y[j - 1] = t }
                  m = k % 2 ? y[(k + 1) / 2] : (y[k / 2] + y[k / 2 + 1]) / 2
                  printf ((f[name] || m != int(m)) ? "BENCH %s %.1f\n" : "BENCH %s %d\n"), name, m
              } }' | sort
}

ONLY=${WARREN_BENCH_ONLY:-}
NET="$(dirname "$0")/bench_net.py"
if [ "$ONLY" = net ]; then
    /usr/bin/python3 "$NET" "$BIN" 10000 10 || FAILED=1
    exit $FAILED
fi
if [ -z "$ONLY" ]; then
run 100 10 .n100 10
run 1000 0 .n1000 10 --detach-all 3
run 100 0 .n100 5 --saturate
# loops = 1 and 2 saturated in turn, nothing pinned: the two loops have both
# cores, which the load tool and the database writer share with them
loops_saturate() { # loops_saturate L: its report in $TMP/loopsL, thread CPU in $TMP/cpuL
    local p0=$PIN0 p1=$PIN1
    PIN0=; PIN1=; DAEMON_EXTRA=(--loops "$1")
    run 100 0 ".loops$1" 5 --saturate >"$TMP/loops$1"
    PIN0=$p0; PIN1=$p1; DAEMON_EXTRA=()
    cat "$TMP/loops$1"
    # each thread's CPU during the run, and the busiest one's ticks per 1,000 keys
    awk 'NR == FNR { a[$1] = $2; next } { print $1, $2 - a[$1] }' "$TMP/cpu.before" "$TMP/cpu.after" >"$TMP/cpu$1"
}
loops_saturate 1
loops_saturate 2
k1=$(awk '/keys_per_s.max/ { print $3 }' "$TMP/loops1")
k2=$(awk '/keys_per_s.max/ { print $3 }' "$TMP/loops2")
for l in 1 2; do
    awk -v l="$l" '{ printf "BENCH server.loops%s.cpu_ticks.%s %d\n", l, $1, $2 }' "$TMP/cpu$l" | sort
done
# With a core for each loop, the busiest loop thread bounds keys/s: the
# ceiling ratio compares its CPU per key (the same keys are answered, so
# the ticks per key of each run's busiest loop).
b1=$(awk '$1 != "other" && $2 > m { m = $2 } END { print m + 0 }' "$TMP/cpu1")
b2=$(awk '$1 != "other" && $2 > m { m = $2 } END { print m + 0 }' "$TMP/cpu2")
awk -v a="$k1" -v b="$k2" -v x="$b1" -v y="$b2" 'BEGIN {
    if (a > 0 && y > 0) printf "BENCH server.loops2_over_loops1.busiest_loop.ceiling_ratio %.2f\n", (b / y) / (a / x) }'
awk -v a="$k1" -v b="$k2" 'BEGIN { if (a > 0) printf "BENCH server.loops2_over_loops1.ratio %.2f\n", b / a }'
fi
if [ "${WARREN_BENCH_10K:-1}" != 1 ]; then
    echo "# N=10000 skipped (WARREN_BENCH_10K=${WARREN_BENCH_10K})"
elif [ "$(ulimit -n)" -lt 10200 ]; then
    echo "# N=10000 skipped: ulimit -n is $(ulimit -n), it needs 10,200"
else
    p0=$PIN0 p1=$PIN1 big=10000
    [ "$ONLY" = viewers ] && big=${WARREN_BENCH_N:-10000}
    if [ "${WARREN_BENCH_LOOPS:-1}" != 1 ]; then
        PIN0=; PIN1=; DAEMON_EXTRA=(--loops "$WARREN_BENCH_LOOPS")
        echo "# N=$big runs with --loops $WARREN_BENCH_LOOPS, unpinned"
    fi
    if [ "$ONLY" != viewers ]; then
        run "$big" 0 ".n$big" 10 --detach-all 3 >"$TMP/plain"
        cat "$TMP/plain"
        # the same players while 100 terminals look at the watch list and 10 browsers at the lobby
        run "$big" 0 ".n$big.viewers" 10 --viewers 100 >"$TMP/viewed"
        cat "$TMP/viewed"
    else
        # WARREN_BENCH_ROUNDS=R (3) pairs, plain first in odd rounds and viewers
        # first in even ones, so the machine's other load falls on both; each
        # round's figures, then each figure's median over the rounds under the
        # names one pair gives, with the home loop's turn CPU (TURNS) beside them
        rounds=${WARREN_BENCH_ROUNDS:-3} secs=${WARREN_BENCH_SECONDS:-10} TURNS=1
        for r in $(seq "$rounds"); do
            ROUND=.r$r
            if [ $((r % 2)) = 1 ]; then
                run "$big" 0 ".n$big" "$secs" >"$TMP/plain$ROUND"
                run "$big" 0 ".n$big.viewers" "$secs" --viewers 100 >"$TMP/viewed$ROUND"
            else
                run "$big" 0 ".n$big.viewers" "$secs" --viewers 100 >"$TMP/viewed$ROUND"
                run "$big" 0 ".n$big" "$secs" >"$TMP/plain$ROUND"
            fi
            grep -v '^BENCH' "$TMP/plain$ROUND" "$TMP/viewed$ROUND" | sed 's/^[^:]*://'
            awk -v r="$r" -v n="n$big" -v first="$([ $((r % 2)) = 1 ] && echo plain || echo viewers)" '
                $2 == "server.latency.p99.us." n { a = $3 } $2 == "server.latency.p99.us." n ".viewers" { b = $3 }
                $2 == "server.cpu_per_key.us." n { c = $3 } $2 == "server.cpu_per_key.us." n ".viewers" { d = $3 }
                $2 == "server.loop.turn_cpu.p99.us." n { e = $3 }
                $2 == "server.loop.turn_cpu.p99.us." n ".viewers" { f = $3 }
                END { fmt = "# round %d (%s first): p99 us plain %s viewers %s ratio %s; "
                      fmt = fmt "cpu_per_key us plain %s viewers %s ratio %s; turn_cpu p99 us plain %s viewers %s\n"
                      printf fmt, r, first, a, b, (a > 0 ? sprintf("%.2f", b / a) : "-"), c, d,
                             (c > 0 ? sprintf("%.2f", d / c) : "-"), e, f }' "$TMP/plain$ROUND" "$TMP/viewed$ROUND"
        done
        ROUND= TURNS=
        medians "$TMP"/plain.r* >"$TMP/plain"
        medians "$TMP"/viewed.r* >"$TMP/viewed"
        cat "$TMP/plain" "$TMP/viewed"
        # how far the rounds spread: (max - min) / median of each arm's p99
        figures "$TMP"/plain.r* "$TMP"/viewed.r* | awk -v n="n$big" '
            $2 == "server.latency.p99.us." n { p[++np] = $3 }
            $2 == "server.latency.p99.us." n ".viewers" { v[++nv] = $3 }
            function spread(x, k,   i, lo, hi) { lo = hi = x[1]; for (i = 2; i <= k; i++) { lo = x[i] < lo ? x[i] : lo; hi = x[i] > hi ? x[i] : hi }
                                                 return (hi - lo) / med(x, k) }
            function med(x, k,   i, j, t, y) { for (i = 1; i <= k; i++) y[i] = x[i]
                for (i = 2; i <= k; i++) for (j = i; j > 1 && y[j - 1] > y[j]; j--) { t = y[j]; y[j] = y[j - 1]; y[j - 1] = t }
                return k % 2 ? y[(k + 1) / 2] : (y[k / 2] + y[k / 2 + 1]) / 2 }
            END { if (np && med(p, np) > 0) printf "BENCH server.latency.p99.%s.spread %.2f\n", n, spread(p, np)
                  if (nv && med(v, nv) > 0) printf "BENCH server.latency.p99.%s.viewers.spread %.2f\n", n, spread(v, nv) }'
        awk -v n="n$big" '$2 == "server.loop.turn_cpu.p99.us." n { a = $3 } $2 == "server.loop.turn_cpu.p99.us." n ".viewers" { b = $3 }
            END { if (a > 0 && b > 0) printf "BENCH server.loop.turn_cpu.p99.%s.viewers_over_plain.ratio %.2f\n", n, b / a }' \
            "$TMP/plain" "$TMP/viewed"
    fi
    PIN0=$p0; PIN1=$p1; DAEMON_EXTRA=()
    # the goal (issue 29): viewers change the players' p99 by at most 1.2 times
    # and the daemon's CPU per key answered, which the machine's other load moves less
    ratios viewers viewers_over_plain "$TMP/plain" "$TMP/viewed" "$big"
    if [ -z "$ONLY" ]; then # the plain run as two machines (network namespaces)
        /usr/bin/python3 "$NET" "$BIN" 10000 10 >"$TMP/net" || FAILED=1
        cat "$TMP/net"
        ratios net net_over_loopback "$TMP/plain" "$TMP/net"
    fi
fi
[ "$ONLY" = viewers ] && exit $FAILED

# recovery: the 1,000 games of the N=1000 run are unfinished; restart and time it
start "$TMP/n1000.db" "$TMP/recover.log"
ms=$(grep -o 'recovery done: [0-9]* games resumed, [0-9]* broken, [0-9]* ms' "$TMP/recover.log" | awk '{print $8}')
n=$(grep -o 'recovery done: [0-9]*' "$TMP/recover.log" | awk '{print $3}')
echo "# recovered $n games"
echo "BENCH server.recover.ms ${ms:-nan}"
stop

# recovery after a SIGKILL with 10,000 live games
if [ "${WARREN_BENCH_10K:-1}" = 1 ] && [ "$(ulimit -n)" -ge 10200 ]; then
    /usr/bin/python3 "$(dirname "$0")/recover_bench.py" "$BIN" 10000 || FAILED=1
fi

# web: one game played over /ws/play and watched by 1,000 websocket clients
/usr/bin/python3 "$(dirname "$0")/../web/fanout.py" "$BIN" 1000 300 || FAILED=1

# browsers in bulk: 10,000 websocket watchers over 100 games, then 5,000 on one
# (web.spectators.*: each watcher's frame delay, the players' p99 with them over without)
if [ "${WARREN_BENCH_10K:-1}" = 1 ]; then
    /usr/bin/python3 "$(dirname "$0")/../web/spectators.py" "$BIN" 10000 100 5000 || FAILED=1
    # the 5,000 on one game again as other machines (network namespaces)
    WARREN_BENCH_NET=1 /usr/bin/python3 "$(dirname "$0")/../web/spectators.py" "$BIN" 0 100 5000 || FAILED=1
fi

# replays: a 32 MiB recording's frames and asciicast (and another build's, to compare)
/usr/bin/python3 "$(dirname "$0")/replay_bench.py" "$BIN" ${WARREN_BENCH_BASE:+"$WARREN_BENCH_BASE"} || FAILED=1

# limits: a 40-address login storm and a websocket key flood, another player's latency
/usr/bin/python3 "$(dirname "$0")/bench_limits.py" "$BIN" 10 || FAILED=1

# a hosted program's output flood, another player's keys (p99 with and without it)
/usr/bin/python3 "$(dirname "$0")/bench_hosted.py" "$BIN" ${WARREN_BENCH_BASE:+--base "$WARREN_BENCH_BASE"} || FAILED=1
exit $FAILED
