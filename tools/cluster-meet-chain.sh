#!/usr/bin/env bash
# Issue #20, the join: the MEETs of Redis's legacy cluster suite's init (tests/cluster/tests/includes/init-tests.tcl),
# repeated. Starts N Spinel nodes in cluster mode, then ROUNDS times: CLUSTER RESET HARD + SET-CONFIG-EPOCH in MULTI
# on every node, node i MEETs node i+1 for every i, sent one after the other without waiting (as the suite sends
# them), and waits up to 60 s until every node lists all N in CLUSTER NODES. Prints one line per round (seconds to
# one cluster, the load); stops at the first round that does not join, printing what each node knows. Each node's
# log and Ratis's (when an SLF4J binding is on the class path) are under $WORK/n<i>/.
#
# Usage: tools/cluster-meet-chain.sh     Environment: N (10), ROUNDS (5), BASEPORT (12000; bus ports +10000),
#        WORK (/tmp/spinel-meet-chain). Builds first when needed (bin/spinel-server). Kills its nodes at the end.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
n=${N:-10}; rounds=${ROUNDS:-5}; base=${BASEPORT:-12000}; work=${WORK:-/tmp/spinel-meet-chain}
# As tools/redis-cluster-legacy.sh: many JVMs on a small machine otherwise starve each other's Raft heartbeats.
export SPINEL_JAVA_OPTS=${SPINEL_JAVA_OPTS:-'-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms16m -Xmx512m'}
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap stop EXIT
up() { for _ in $(seq 1 900); do redis-cli -p "$1" ping > /dev/null 2>&1 && return; sleep 0.2; done; }
for i in $(seq 0 $((n - 1))); do
  d=$work/n$i; rm -rf "$d"; mkdir -p "$d"
  (cd "$d" && exec "$root/bin/spinel-server" --port $((base + i)) --cluster-enabled yes --dir "$d" --grpc-port 0 \
     --logfile "$d/log.txt" > "$d/out.txt" 2> "$d/err.txt") &
  pids+=($!)
  [ "$i" = 0 ] && up "$base" # the first start builds when the checkout changed: the others then find it built
done
for i in $(seq 0 $((n - 1))); do up $((base + i)); done
status=0
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((n - 1))); do
    printf 'MULTI\nCLUSTER RESET HARD\nCLUSTER SET-CONFIG-EPOCH %d\nEXEC\n' $((i + 1)) | redis-cli -p $((base + i)) > /dev/null
  done
  t0=$(date +%s.%N)
  for i in $(seq 0 $((n - 2))); do redis-cli -p $((base + i)) cluster meet 127.0.0.1 $((base + i + 1)) > /dev/null; done
  ok=0
  deadline=$(( $(date +%s) + 60 ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    ok=1
    for i in $(seq 0 $((n - 1))); do
      [ "$(redis-cli -p $((base + i)) cluster nodes | grep -c .)" = "$n" ] || { ok=0; break; }
    done
    [ $ok = 1 ] && break
    sleep 0.1
  done
  secs=$(echo "$(date +%s.%N) - $t0" | bc)
  echo "round $r: $([ $ok = 1 ] && echo "one cluster of $n" || echo "NOT one cluster") after ${secs%.*} s (load $(cut -d' ' -f1 /proc/loadavg))"
  if [ $ok = 0 ]; then
    for i in $(seq 0 $((n - 1))); do echo "  node $i knows $(redis-cli -p $((base + i)) cluster nodes | grep -c .)"; done
    status=1
    break
  fi
done
exit $status
