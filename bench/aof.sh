#!/usr/bin/env bash
# SET throughput with the append-only log on, Spinel beside redis-server, same settings, same run.
#   bench/aof.sh                 appendfsync everysec and always, 50 connections, pipeline 1 and 16
# Environment: N (requests per run, default 100000). Needs redis-server and redis-benchmark.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-100000}
out=$(mktemp -d /tmp/spinel-aof.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 200); do redis-cli -p "$1" PING >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
start() { # server fsync -> sets PID PORT
  local dir="$out/$1-$2"; mkdir -p "$dir"; PORT=$(free_port)
  if [ "$1" = redis ]; then
    redis-server --port "$PORT" --save "" --appendonly yes --appendfsync "$2" --dir "$dir" > "$dir/log" 2>&1 &
  else
    "$root/bin/spinel-server" --port "$PORT" --grpc-port 0 --save "" --appendonly yes --appendfsync "$2" --dir "$dir" > "$dir/log" 2>&1 &
  fi
  PID=$!; wait_port "$PORT"
}
echo "| appendfsync | pipeline | Redis SET/s | Spinel SET/s | ratio |"
echo "|---|---:|---:|---:|---:|"
for fsync in everysec always; do
  for pipe in 1 16; do
    declare -A rps=()
    for server in redis spinel; do
      start "$server" "$fsync"
      redis-benchmark -p "$PORT" -n $((N / 10)) -c 50 -P "$pipe" -t set -q > /dev/null  # warm-up
      rps[$server]=$(redis-benchmark -p "$PORT" -n "$N" -c 50 -P "$pipe" -t set --csv | tr -d '"' | awk -F, '$1 == "SET" {print $2}')
      kill "$PID"; wait "$PID" 2>/dev/null || true
    done
    awk -v f="$fsync" -v p="$pipe" -v r="${rps[redis]}" -v s="${rps[spinel]}" \
      'BEGIN { printf "| %s | %s | %.0f | %.0f | %.2f |\n", f, p, r, s, (r > 0 ? s / r : 0) }'
  done
done
rm -rf "$out"
