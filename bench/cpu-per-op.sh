#!/usr/bin/env bash
# User and system CPU time per request of one server under redis-benchmark, from /proc/<pid>/stat:
#
#   bench/cpu-per-op.sh redis                                  redis-server
#   bench/cpu-per-op.sh spinel [server arguments...]           bin/spinel-server, e.g. --io-transport io_uring
#
# Environment: N (requests per test, default 300000), BENCH_ARGS (default "-c 50": unpipelined; "-c 32 -P 30"
# for pipelined), PERF=1 (perf record -g of the server during the run, JIT symbols through
# -XX:+DumpPerfMapAtExit; report with perf report -i $OUT/perf.data), STRACE=1 (strace -c -f of the server
# instead: system calls per request; slows the run down, so its CPU figures do not count), OUT (directory).
# Run it under `flock -x /work/bench.lock` like every benchmark. Warm-up: 200000 requests, not counted.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
server=$1; shift
N=${N:-300000}
OUT=${OUT:-$(mktemp -d /tmp/spinel-cpu.XXXXXX)}
mkdir -p "$OUT"
port=$((17000 + RANDOM % 1000))
if [ "$server" = redis ]; then
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no > "$OUT/server.log" 2>&1 &
else
  SPINEL_JAVA_OPTS="${SPINEL_JAVA_OPTS:--XX:+UseCompactObjectHeaders -XX:+UseZGC -Xms256m} -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" \
    "$root/bin/spinel-server" --port "$port" --bind 127.0.0.1 --grpc-port 0 "$@" > "$OUT/server.log" 2>&1 &
fi
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  redis-cli -p "$port" PING > /dev/null 2>&1 && break
  kill -0 "$pid" 2> /dev/null || { echo "cpu-per-op.sh: the server exited (see $OUT/server.log)" >&2; exit 1; }
  sleep 0.2
done
# shellcheck disable=SC2086
redis-benchmark -p "$port" -n 200000 ${BENCH_ARGS:--c 50} -r 100000 -d 256 -t set,get -q > /dev/null
ticks() { sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12, $13}'; }
# context switches of all the server's threads (a wake-up from epoll_wait is one voluntary switch)
switches() { cat /proc/"$pid"/task/*/status 2> /dev/null | awk '/^(non)?voluntary_ctxt_switches/ {n += $2} END {print n}'; }
read -r u0 s0 < <(ticks)
c0=$(switches)
tracer=""
if [ "${PERF:-0}" = 1 ]; then perf record -F 499 -g -p "$pid" -o "$OUT/perf.data" 2> /dev/null & tracer=$!; sleep 0.5; fi
if [ "${STRACE:-0}" = 1 ]; then strace -c -f -p "$pid" -o "$OUT/strace.txt" 2> /dev/null & tracer=$!; sleep 1; fi
# shellcheck disable=SC2086
redis-benchmark -p "$port" -n "$N" ${BENCH_ARGS:--c 50} -r 100000 -d 256 -t set,get -q | tr '\r' '\n' | grep -v '^ *$' | tail -2
if [ -n "$tracer" ]; then kill -INT "$tracer"; wait "$tracer" || true; fi
read -r u1 s1 < <(ticks)
c1=$(switches)
awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v n=$((2 * N)) -v name="$server $*" 'BEGIN {
  printf "%s: user %.2f s, system %.2f s: %.2f us user + %.2f us system per request, %.0f requests per CPU-second, %.3f context switches per request\n",
    name, u / t, s / t, u / t * 1e6 / n, s / t * 1e6 / n, n / ((u + s) / t), c / n }'
[ "${STRACE:-0}" = 1 ] && head -20 "$OUT/strace.txt"
kill "$pid"; wait "$pid" 2> /dev/null || true
echo "Output in $OUT"
