#!/usr/bin/env bash
# SET throughput with the append-only log on, Spinel beside redis-server, same settings, same run.
#   bench/aof.sh                 appendfsync everysec and always, 50 connections, pipeline 1 and 16
# Environment: N (requests per measured run, default 100000; a warm-up of N/2 precedes it). Needs redis-server and redis-benchmark.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-100000}
out=$(mktemp -d /tmp/spinel-aof.XXXXXX)
# Build first, so that no server start waits for a build (NO_BUILD=1 skips this).
if [ "${NO_BUILD:-0}" != 1 ]; then
  echo "Building Spinel..." >&2
  JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -f "$root/pom.xml" -DskipTests -pl spinel-grpc -am package >&2
  touch "$root/spinel-grpc/target/.built-by-bin-spinel-server"
fi
PID=""
# Never leave a server behind (it would also keep any lock this script was started under).
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; true' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# PONG, not just an answer: a server still loading its log answers -LOADING.
wait_port() { for _ in $(seq 1 600); do [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0; sleep 0.1; done; return 1; }
start() { # server fsync pipeline -> sets PID PORT (a fresh directory per run: no log to load)
  local dir="$out/$1-$2-$3"; mkdir -p "$dir"; PORT=$(free_port)
  if [ "$1" = redis ]; then
    redis-server --port "$PORT" --save "" --appendonly yes --appendfsync "$2" --dir "$dir" > "$dir/log" 2>&1 &
  else
    "$root/bin/spinel-server" --port "$PORT" --grpc-port 0 --save "" --appendonly yes --appendfsync "$2" --dir "$dir" > "$dir/log" 2>&1 &
  fi
  PID=$!
  wait_port "$PORT" || { echo "aof.sh: $1 did not start (see $dir/log)" >&2; exit 1; }
}
echo "| appendfsync | pipeline | Redis SET/s | Spinel SET/s | ratio |"
echo "|---|---:|---:|---:|---:|"
for fsync in everysec always; do
  for pipe in 1 16; do
    declare -A rps=()
    for server in redis spinel; do
      start "$server" "$fsync" "$pipe"
      # warm-up (the JVM's JIT needs it; Redis gets the same)
      redis-benchmark -p "$PORT" -n $((N / 2)) -c 50 -P "$pipe" -t set -q > /dev/null
      rps[$server]=$(redis-benchmark -p "$PORT" -n "$N" -c 50 -P "$pipe" -t set --csv | tr -d '"' | awk -F, '$1 == "SET" {print $2}')
      kill "$PID"; wait "$PID" 2>/dev/null || true
    done
    awk -v f="$fsync" -v p="$pipe" -v r="${rps[redis]}" -v s="${rps[spinel]}" \
      'BEGIN { printf "| %s | %s | %.0f | %.0f | %.2f |\n", f, p, r, s, (r > 0 ? s / r : 0) }'
  done
done
rm -rf "$out"
