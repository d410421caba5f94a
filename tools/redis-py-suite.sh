#!/usr/bin/env bash
# Runs redis-py's own test suite (the sdist of redis==$REDIS_PY, from PyPI) against Spinel and against
# redis-server, in RESP2 and RESP3, and prints the tests that fail on Spinel but not on redis-server.
# Needs python3 with pytest, pip, redis-server. Usage: tools/redis-py-suite.sh   (REDIS_PY=5.0.8 by default)
# CLUSTER=1: the cluster tests (`-m onlycluster`, tests/test_cluster.py among them) against 3 Spinel primaries and
# against 3 redis-server primaries (ports 21100-21102 and 21110-21112, bus ports +10000), each made one cluster by
# `redis-cli --cluster create`. CLUSTER=1 REPLICAS=1: 3 primaries + 3 replicas each (ports 21100-21105, 21110-21115).
# CLUSTER_PORT: the first of those ports (default 21100; Spinel's nodes from it, redis-server's from it + 10).
# BUS_OFFSET: each node's cluster bus port is its port + BUS_OFFSET (default 10000, Redis's own offset; a smaller
# one keeps every port of a run in one range, e.g. CLUSTER_PORT=31100 BUS_OFFSET=500).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${REDIS_PY:-5.0.8}
work=$(mktemp -d /tmp/redis-py-suite.XXXXXX)
spinel_port=17950
redis_port=17951
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
(cd "$work" && pip download "redis==$version" --no-binary :all: --no-deps -d . -q && tar xzf "redis-$version.tar.gz")
await_ping() {
  for _ in $(seq 1 1200); do [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0; sleep 0.1; done
  echo "port $1 did not answer" >&2; exit 1
}
mark=()
if [ "${CLUSTER:-0}" = 1 ]; then
  spinel_port=${CLUSTER_PORT:-21100}
  redis_port=$((spinel_port + 10))
  count=$((3 * (1 + ${REPLICAS:-0})))
  bus_offset=${BUS_OFFSET:-10000}
  for base in $spinel_port $redis_port; do
    nodes=()
    for port in $(seq $base $((base + count - 1))); do
      mkdir -p "$work/$port"
      if [ $base = $spinel_port ]; then
        (cd "$work/$port" && exec "$root/bin/spinel-server" --port $port --grpc-port 0 --save "" --cluster-enabled yes \
          --cluster-port $((port + bus_offset)) --enable-debug-command yes --repl-diskless-sync-delay 0 --dir "$work/$port" > "$work/$port/log" 2>&1) &
      else
        (cd "$work/$port" && exec redis-server --port $port --save "" --cluster-enabled yes --enable-debug-command yes \
          --cluster-port $((port + bus_offset)) --repl-diskless-sync-delay 0 --dir "$work/$port" > "$work/$port/log" 2>&1) &
      fi
      pids+=($!)
      nodes+=("127.0.0.1:$port")
    done
    for port in $(seq $base $((base + count - 1))); do await_ping $port; done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas "${REPLICAS:-0}" --cluster-yes > "$work/create-$base.log" 2>&1 \
      || { cat "$work/create-$base.log"; exit 1; }
    for _ in $(seq 1 300); do
      [ "$(redis-cli -p $base CLUSTER INFO | tr -d '\r' | grep cluster_state)" = cluster_state:ok ] && break
      sleep 0.1
    done
  done
  mark=(-m onlycluster --redis-cluster-nodes $count)
else
  "$root/bin/spinel-server" --port $spinel_port --grpc-port 0 --save "" --enable-debug-command yes > "$work/spinel.log" 2>&1 &
  pids+=($!)
  redis-server --port $redis_port --save "" --enable-debug-command yes > "$work/redis.log" 2>&1 &
  pids+=($!)
  for port in $spinel_port $redis_port; do await_ping $port; done
fi
tests="tests/test_commands.py tests/test_pipeline.py tests/test_pubsub.py tests/test_scripting.py tests/test_function.py
  tests/test_lock.py tests/test_encoding.py tests/test_connection.py tests/test_connection_pool.py tests/test_monitor.py"
[ "${CLUSTER:-0}" = 1 ] && tests="tests/test_cluster.py $tests"
cd "$work/redis-$version"
status=0
for protocol in 2 3; do
  for port in $spinel_port $redis_port; do
    # shellcheck disable=SC2086
    PYTHONPATH=. python3 -m pytest $tests --redis-url=redis://localhost:$port --protocol=$protocol -q \
      "${mark[@]}" -p no:cacheprovider -o addopts="" 2>&1 | grep -E "^(FAILED|ERROR)|passed|failed" > "$work/$port-$protocol.txt" || true
  done
  echo "RESP$protocol: Spinel: $(tail -1 "$work/$spinel_port-$protocol.txt")"
  echo "RESP$protocol: Redis:  $(tail -1 "$work/$redis_port-$protocol.txt")"
  only=$(comm -13 <(grep -E "^(FAILED|ERROR)" "$work/$redis_port-$protocol.txt" | sed 's/ - .*//' | sort) \
                  <(grep -E "^(FAILED|ERROR)" "$work/$spinel_port-$protocol.txt" | sed 's/ - .*//' | sort))
  if [ -n "$only" ]; then
    echo "Failing on Spinel only (RESP$protocol):"; echo "$only"; status=1
  fi
done
exit $status
