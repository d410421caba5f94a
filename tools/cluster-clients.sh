#!/usr/bin/env bash
# Issue #20, acceptance 2 with redis-py's RedisCluster (the Java clients: ClusterClientsTest in the suite):
# 3 primaries + 3 replicas made by `redis-cli --cluster create ... --cluster-replicas 1`, then KEYS (1M) keys written
# through cluster pipelines and every one read back, each replica holding as many keys as its primary, hash-tag
# MSET/MGET, MULTI/EXEC in one slot (on the slot's node), sharded pub/sub (SSUBSCRIBE/SPUBLISH) and reads from
# replicas (read_from_replicas). Prints the timings and each node's RSS; exits non-zero on the first mismatch.
# About 3-6 minutes for 1M keys on Spinel on this 2-core machine (`tools/lib/cluster_clients.py` does the work).
#
#   tools/cluster-clients.sh               Spinel (built first unless NO_BUILD=1)
#   SERVER=redis tools/cluster-clients.sh  the same against redis-server 7.0.15 (the reference)
#
# Environment: SERVER (spinel|redis), BASEPORT (21700: nodes BASEPORT..+5), BUS_OFFSET (10000: each node's bus port
# is its port + BUS_OFFSET), KEYS (1000000), REDIS_PY (5.0.8: the redis-py sdist from PyPI), OUT (logs; default a
# temporary directory), NO_BUILD=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-spinel}
BASEPORT=${BASEPORT:-21700}
BUS_OFFSET=${BUS_OFFSET:-10000}
KEYS=${KEYS:-1000000}
OUT=${OUT:-$(mktemp -d /tmp/spinel-cluster-clients.XXXXXX)}
mkdir -p "$OUT"
PORTS=()
for i in 0 1 2 3 4 5; do PORTS+=("$((BASEPORT + i))"); done
. "$root/tools/lib/six-node-script.sh"
check_free_ports "$BUS_OFFSET"
if [ "$SERVER" = spinel ]; then build_spinel; fi
if [ ! -d "$OUT/redis-${REDIS_PY:-5.0.8}" ]; then
  (cd "$OUT" && pip download "redis==${REDIS_PY:-5.0.8}" --no-binary :all: --no-deps -d . -q && tar xzf "redis-${REDIS_PY:-5.0.8}.tar.gz")
fi

PIDS=()
trap 'for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done' EXIT
nodes=()
for p in "${PORTS[@]}"; do
  mkdir -p "$OUT/$p"
  if [ "$SERVER" = spinel ]; then
    (cd "$OUT/$p" && exec "$root/bin/spinel-server" --port "$p" --grpc-port 0 --save "" --appendonly no --cluster-enabled yes \
      --cluster-port $((p + BUS_OFFSET)) --repl-diskless-sync-delay 0 --dir "$OUT/$p" > "$OUT/$p/log" 2>&1) &
  else
    (cd "$OUT/$p" && exec redis-server --port "$p" --save "" --appendonly no --cluster-enabled yes \
      --cluster-port $((p + BUS_OFFSET)) --repl-diskless-sync-delay 0 --dir "$OUT/$p" > "$OUT/$p/log" 2>&1) &
  fi
  PIDS+=($!)
  nodes+=("127.0.0.1:$p")
done
for p in "${PORTS[@]}"; do
  for _ in $(seq 1 1200); do [ "$(redis-cli -p "$p" PING 2>/dev/null)" = PONG ] && break; sleep 0.1; done
done
start=$(date +%s)
redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes > "$OUT/create.log" 2>&1 \
  || { cat "$OUT/create.log"; exit 1; }
echo "cluster created in $(( $(date +%s) - start )) s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
PYTHONPATH="$OUT/redis-${REDIS_PY:-5.0.8}" python3 "$root/tools/lib/cluster_clients.py" "$BASEPORT" "$KEYS"
echo "RSS after the run (KB):"
for i in "${!PORTS[@]}"; do
  echo "  ${PORTS[$i]} $(redis-cli -p "${PORTS[$i]}" ROLE | head -1) $(ps -o rss= -p "${PIDS[$i]}")"
done
