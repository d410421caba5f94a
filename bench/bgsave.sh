#!/usr/bin/env bash
# SET throughput and latency while BGSAVE runs, Spinel (no fork: copy-on-write per segment) beside
# redis-server (fork), on this machine, in one run.
#
#   bench/bgsave.sh        KEYS=1000000 keys (key:<12 digits>, 32-byte values), N=1000000 SETs per run
#
# For each server: start it empty with --dir in a temporary directory, load KEYS keys with redis-cli --pipe,
# then run `redis-benchmark -t set -r KEYS -d 32 -P 16 -c 20` (overwrites existing keys: the key count
# stays fixed) once alone and once while a loop issues BGSAVE again as soon as the previous one ended.
# Prints ops/s, p99 and max latency, the number of saves completed during the run, and the server's RSS
# after the load and after each run (a forked Redis child's memory is not in the parent's RSS). Environment: KEYS, N, NO_BUILD=1, OUT (raw output directory). Needs redis-server,
# redis-benchmark, redis-cli.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
KEYS=${KEYS:-1000000}
N=${N:-1000000}
OUT=${OUT:-$(mktemp -d /tmp/spinel-bgsave.XXXXXX)}
mkdir -p "$OUT"
if [ "${NO_BUILD:-0}" != 1 ]; then
  echo "Building Spinel..." >&2
  JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -f "$root/pom.xml" -DskipTests -pl spinel-grpc -am package >&2
fi

PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null || true; }
trap cleanup EXIT

start() { # server port dir
  if [ "$1" = redis ]; then
    redis-server --port "$2" --bind 127.0.0.1 --save "" --appendonly no --dir "$3" --daemonize no \
      --logfile "$3/server.log" &
  else
    "$root/bin/spinel-server" --port "$2" --bind 127.0.0.1 --save "" --dir "$3" > "$3/server.log" 2>&1 &
  fi
  PID=$!
  for _ in $(seq 1 600); do
    [ "$(redis-cli -p "$2" PING 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  echo "bgsave.sh: $1 did not start" >&2; exit 1
}

load() { # port
  awk -v n="$KEYS" 'BEGIN { v = "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv";
    for (i = 0; i < n; i++) { k = sprintf("key:%012d", i);
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$32\r\n%s\r\n", length(k), k, v } }' | redis-cli -p "$1" --pipe > /dev/null
}

rss_mb() { awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }

bench() { # port -> "ops p99 max"
  redis-benchmark -p "$1" -t set -r "$KEYS" -n "$N" -d 32 -P 16 -c 20 --csv | tr -d '"' |
    awk -F, '$1 == "SET" { print $2, $7, $8 }'
}

bgsave_loop() { # port, until the file $OUT/stop exists; counts saves in $OUT/saves
  local saves=0
  while [ ! -f "$OUT/stop" ]; do
    redis-cli -p "$1" BGSAVE > /dev/null 2>&1 || true
    while [ ! -f "$OUT/stop" ] && redis-cli -p "$1" INFO persistence | grep -q 'rdb_bgsave_in_progress:1'; do sleep 0.05; done
    saves=$((saves + 1))
    echo "$saves" > "$OUT/saves"
  done
}

printf "server\tkeys\tSET ops/s alone\tp99 ms\tmax ms\tSET ops/s during BGSAVE\tp99 ms\tmax ms\tsaves\tRSS MB loaded\tafter run alone\tafter run with BGSAVE\n"
for server in spinel redis; do
  dir=$(mktemp -d "$OUT/$server.XXXX")
  port=$((20000 + RANDOM % 10000))
  start "$server" "$port" "$dir"
  load "$port"
  rss0=$(rss_mb "$PID")
  read -r ops1 p991 max1 < <(bench "$port")
  rss1=$(rss_mb "$PID")
  rm -f "$OUT/stop" "$OUT/saves"
  bgsave_loop "$port" &
  loop=$!
  sleep 0.2
  read -r ops2 p992 max2 < <(bench "$port")
  touch "$OUT/stop"
  wait "$loop"
  rss2=$(rss_mb "$PID")
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$server" "$KEYS" "$ops1" "$p991" "$max1" "$ops2" "$p992" "$max2" \
    "$(cat "$OUT/saves" 2>/dev/null || echo 0)" "$rss0" "$rss1" "$rss2"
  redis-cli -p "$port" SHUTDOWN NOSAVE > /dev/null 2>&1 || true
  wait "$PID" 2>/dev/null || true
  PID=""
done
echo "raw output: $OUT" >&2
