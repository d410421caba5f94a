#!/usr/bin/env bash
# A/B of Spinel JVM option sets under one load: each set gets a fresh server, a warm-up, then a measured
# bench/load.sh run; sets alternate for ROUNDS rounds. Prints ops/s, p99, p99.9, ops per server CPU-s and
# RSS at the end of the run, one line per run.
#   bench/jvmopts.sh "<opts A>" "<opts B>" ...  (env: ROUNDS=2, SECONDS_RUN=8, PORT=7550, LOAD_ARGS, SERVER_ARGS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-2}; SECONDS_RUN=${SECONDS_RUN:-8}; PORT=${PORT:-7550}
LOAD_ARGS=${LOAD_ARGS:---conns 32 --pipeline 30 --value-size 256}
CLK_TCK=$(getconf CLK_TCK)
for round in $(seq 1 "$ROUNDS"); do
  sets=("$@")
  if [ $((round % 2)) = 0 ]; then sets=(); for ((i = $# ; i >= 1; i--)); do sets+=("${!i}"); done; fi
  for opts in "${sets[@]}"; do
    SPINEL_JAVA_OPTS="$opts" "$root/bin/spinel-server" --port "$PORT" --bind 127.0.0.1 ${SERVER_ARGS:-} > /tmp/jvmopts-server.log 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do [ "$(redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ] && break; sleep 0.1; done
    NO_BUILD=1 "$root/bench/load.sh" --port "$PORT" --duration 3 --warmup 0 $LOAD_ARGS > /dev/null
    b=$(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')
    line=$(NO_BUILD=1 "$root/bench/load.sh" --port "$PORT" --duration "$SECONDS_RUN" --warmup 0 $LOAD_ARGS | grep '^RESULT')
    a=$(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    echo "$line" | awk -v o="$opts" -v r="$round" -v a="$a" -v b="$b" -v t="$CLK_TCK" -v d="$SECONDS_RUN" -v rss="$rss" \
      '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         cpu = (a - b) / t; printf "round %s ops/s %s p99 %s p99.9 %s ops/CPU-s %.0f rss %.0fMB | %s\n", r, v["ops_s"],
         v["p99_ms"], v["p999_ms"], (cpu > 0 ? v["ops_s"] * d / cpu : 0), rss / 1024, o }'
    kill "$pid"; wait "$pid" 2>/dev/null || true
  done
done
