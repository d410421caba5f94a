#!/usr/bin/env bash
# Server CPU per request of several servers side by side, over fixed memtier runs that alternate between them
# (order reversed every round), so that the machine's load hits every variant alike. Each variant is a line of
# the VARIANTS file:   name|command with {PORT}
#   e.g.  redis|redis-server --port {PORT} --bind 127.0.0.1 --save "" --appendonly no
#         spinel|java -cp '/tmp/jars/*' ... dev.spinel.server.Main --port {PORT} --save "" --grpc-port 0
# Per run it prints the server's user and system CPU (utime, stime of /proc/PID/stat, all threads) per request in
# microseconds, requests per server CPU-second, memtier's ops/s and the server's context switches per request
# (voluntary: its threads' sleeps, e.g. in epoll_wait; involuntary: preemptions, which depend on the machine's
# load); at the end the medians per variant.
#
#   bench/cpu-ab.sh VARIANTS_FILE
# Environment: ROUNDS (default 5), BASEPORT (default 26100), MEMTIER_ARGS (default: unpipelined, 50 connections:
# "-t 2 -c 25 --pipeline 1 -n 4000"; pipelined: "-t 2 -c 16 --pipeline 30 -n 20000"; -n is per connection), WARM
# (unmeasured warm-up runs of that load per server before the first round, default 2), OUT (directory).
set -euo pipefail
variants=$1
ROUNDS=${ROUNDS:-5}; BASEPORT=${BASEPORT:-26100}; WARM=${WARM:-2}
MEMTIER_ARGS=${MEMTIER_ARGS:--t 2 -c 25 --pipeline 1 -n 4000}
memtier=${MEMTIER:-/work/shared/tools/memtier.sh}
OUT=${OUT:-$(mktemp -d /tmp/cpu-ab.XXXXXX)}
mkdir -p "$OUT"
: > "$OUT/runs.tsv"
CLK=$(getconf CLK_TCK)
echo "start (uptime: $(uptime | sed 's/.*load/load/'))"
names=(); pids=(); ports=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
i=0
while IFS='|' read -r name cmd; do
  [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
  port=$((BASEPORT + i)); i=$((i + 1))
  eval "exec env ${cmd//\{PORT\}/$port}" > "$OUT/$name.log" 2>&1 &
  names+=("$name"); pids+=($!); ports+=("$port")
done < "$variants"
for k in "${!names[@]}"; do
  for _ in $(seq 1 300); do [ "$(redis-cli -p "${ports[$k]}" PING 2>/dev/null)" = PONG ] && break; sleep 0.2; done
  [ "$(redis-cli -p "${ports[$k]}" PING 2>/dev/null)" = PONG ] || { echo "cpu-ab.sh: ${names[$k]} did not answer (see $OUT/${names[$k]}.log)" >&2; exit 1; }
done
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt/ {v += $2} /^nonvoluntary_ctxt/ {n += $2} END {print v, n}'; }
run() { # k label -> one line
  local k=$1 pid=${pids[$1]} port=${ports[$1]} u0 s0 u1 s1 v0 n0 v1 n1
  read -r v0 n0 < <(switches "$pid")
  read -r u0 s0 < <(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12, $13}')
  # shellcheck disable=SC2086
  "$memtier" -s 127.0.0.1 -p "$port" $MEMTIER_ARGS --ratio=1:10 -d 256 --key-pattern=R:R --key-maximum=100000 \
    --hide-histogram > "$OUT/memtier.txt" 2>&1
  read -r u1 s1 < <(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12, $13}')
  read -r v1 n1 < <(switches "$pid")
  local ops reqs
  ops=$(awk '/^Totals/ {print $2}' "$OUT/memtier.txt")
  # requests = threads * conns * n (memtier's -n is per connection)
  reqs=$(echo "$MEMTIER_ARGS" | awk '{for (i = 1; i < NF; i++) { if ($i == "-t") t = $(i+1); if ($i == "-c") c = $(i+1); if ($i == "-n") n = $(i+1) } print t * c * n}')
  awk -v n="${names[$k]}" -v r="$2" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v clk="$CLK" -v q="$reqs" -v ops="$ops" \
    -v vs=$((v1 - v0)) -v ns=$((n1 - n0)) 'BEGIN {
    printf "%s\tround %s\tuser %.3f us\tsys %.3f us\ttotal %.3f us\treq/CPU-s %.0f\tops/s %s\tswitches %.4f vol %.4f invol\n", n, r,
      u / clk * 1e6 / q, s / clk * 1e6 / q, (u + s) / clk * 1e6 / q, q / ((u + s) / clk), ops, vs / q, ns / q }' | tee -a "$OUT/runs.tsv"
}
# warm-up (the JIT's compilations), unmeasured
for _ in $(seq 1 "$WARM"); do
  for k in "${!names[@]}"; do
    # shellcheck disable=SC2086
    "$memtier" -s 127.0.0.1 -p "${ports[$k]}" $MEMTIER_ARGS --ratio=1:10 -d 256 --key-pattern=R:R \
      --key-maximum=100000 --hide-histogram > /dev/null 2>&1
  done
done
for r in $(seq 1 "$ROUNDS"); do
  order=("${!names[@]}")
  if [ $((r % 2)) = 0 ]; then order=(); for ((j = ${#names[@]} - 1; j >= 0; j--)); do order+=("$j"); done; fi
  for k in "${order[@]}"; do run "$k" "$r"; done
done
echo "medians (uptime: $(uptime | sed 's/.*load/load/')):"
for n in "${names[@]}"; do
  awk -F'\t' -v n="$n" '$1 == n { split($3, a, " "); split($4, b, " "); split($5, c, " "); split($6, d, " "); split($7, e, " "); split($8, f, " ");
      u[++m] = a[2]; s[m] = b[2]; t[m] = c[2]; q[m] = d[2]; o[m] = e[2]; vs[m] = f[2]; ns[m] = f[4] }
    function med(x, m,   i, j, v) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[j] < x[i]) { v = x[i]; x[i] = x[j]; x[j] = v }
      return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2 }
    END { printf "%s\tuser %.3f\tsys %.3f\ttotal %.3f us/req\treq/CPU-s %.0f\tops/s %.0f\tswitches/req %.4f vol %.4f invol\n", n,
      med(u, m), med(s, m), med(t, m), med(q, m), med(o, m), med(vs, m), med(ns, m) }' "$OUT/runs.tsv"
done
echo "Output in $OUT"
